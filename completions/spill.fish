# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_spill_global_optspecs
    string join \n dir= store= scope= ttl= quota= max-file= color= paging= h/help V/version
end

function __fish_spill_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_spill_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_spill_using_subcommand
    set -l cmd (__fish_spill_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c spill -n "__fish_spill_needs_command" -l dir -d 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]' -r -F
complete -c spill -n "__fish_spill_needs_command" -l store -d 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]' -r
complete -c spill -n "__fish_spill_needs_command" -l scope -d 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]' -r
complete -c spill -n "__fish_spill_needs_command" -l ttl -d 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]' -r
complete -c spill -n "__fish_spill_needs_command" -l quota -d 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]' -r
complete -c spill -n "__fish_spill_needs_command" -l max-file -d 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]' -r
complete -c spill -n "__fish_spill_needs_command" -l color -d 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)' -r -f -a "auto\t'Colour only when writing to a terminal'
always\t'Colour even into a pipe, despite NO_COLOR'
never\t'Never colour'"
complete -c spill -n "__fish_spill_needs_command" -l paging -d 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode' -r -f -a "auto\t'Page when stdout is a terminal'
always\t'Page even into a pipe'
never\t'Never page'"
complete -c spill -n "__fish_spill_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c spill -n "__fish_spill_needs_command" -s V -l version -d 'Print version'
complete -c spill -n "__fish_spill_needs_command" -f -a "wrap" -d 'Read stdin (or run CMD) and pass it through, or store it and print an envelope.'
complete -c spill -n "__fish_spill_needs_command" -f -a "shape" -d 'Print the structural skeleton of a JSON document or NDJSON stream as one line of JSON.'
complete -c spill -n "__fish_spill_needs_command" -f -a "extract" -d 'Select parts of a JSON document with a JSONPath query (RFC 9535) and print them, bounded.'
complete -c spill -n "__fish_spill_needs_command" -f -a "search" -d 'Find occurrences of a regex in a stored output (or a file), counted exactly, a page at a time.'
complete -c spill -n "__fish_spill_needs_command" -f -a "cat" -d 'Print part of a stored output or a file, bounded and paged.'
complete -c spill -n "__fish_spill_needs_command" -f -a "ls" -d 'List stored outputs: ref, size, kind, age, label, summary; newest first.'
complete -c spill -n "__fish_spill_needs_command" -f -a "rm" -d 'Remove stored outputs by ref, or all outputs of the current scope.'
complete -c spill -n "__fish_spill_needs_command" -f -a "gc" -d 'Remove expired entries and stale temporary files, then enforce the quota.'
complete -c spill -n "__fish_spill_needs_command" -f -a "schema" -d 'Print the JSON Schema (draft 2020-12) of one of spill\'s JSON outputs.'
complete -c spill -n "__fish_spill_needs_command" -f -a "view" -d 'Open a stored output (or a file) for reading at a terminal: JSON in jless or fx when one is installed, else the whole document pretty-printed in the pager (coloured as extract colours it); text in the pager, and binary as the hex dump cat shows. Not available in restricted mode.'
complete -c spill -n "__fish_spill_needs_command" -f -a "hook" -d 'Answer one hook call of an agent harness (reads its hook JSON on stdin).'
complete -c spill -n "__fish_spill_needs_command" -f -a "init" -d 'Register spill\'s hooks in an agent harness\'s configuration.'
complete -c spill -n "__fish_spill_needs_command" -f -a "mcp" -d 'Serve stored outputs to an MCP client over stdio, or stand in front of an MCP server.'
complete -c spill -n "__fish_spill_needs_command" -f -a "wait" -d 'Wait for a running command (`wrap --detach-after`) to end, and print its envelope.'
complete -c spill -n "__fish_spill_needs_command" -f -a "stop" -d 'Stop a running command (`wrap --detach-after`): end its process group and seal its output.'
complete -c spill -n "__fish_spill_needs_command" -f -a "stats" -d 'What spill saved a scope: the bytes its commands printed, the bytes the model was sent for them (small outputs whole, envelopes), and the reads that followed and their bytes.'
complete -c spill -n "__fish_spill_needs_command" -f -a "doctor" -d 'Report, for each agent harness found, what spill does in it; change nothing.'
complete -c spill -n "__fish_spill_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c spill -n "__fish_spill_using_subcommand wrap" -l max-inline -d 'Outputs up to this size pass through untouched [env: SPILL_MAX_INLINE] [default: 16KiB]' -r
complete -c spill -n "__fish_spill_using_subcommand wrap" -l format -d 'Envelope format [env: SPILL_FORMAT] [default: json]' -r -f -a "json\t'One JSON object on one line'
text\t'The same facts for a person'"
complete -c spill -n "__fish_spill_using_subcommand wrap" -l preview -d 'Budget shared by the preview and the signals' -r
complete -c spill -n "__fish_spill_using_subcommand wrap" -l head-lines -d 'Lines shown from the start of a text preview (overrides the 1/3 head budget)' -r
complete -c spill -n "__fish_spill_using_subcommand wrap" -l tail-lines -d 'Lines shown from the end of a text preview (overrides the 2/3 tail budget)' -r
complete -c spill -n "__fish_spill_using_subcommand wrap" -l label -d 'A free-form label (e.g. the command), stored and echoed in the envelope' -r
complete -c spill -n "__fish_spill_using_subcommand wrap" -l turn -d 'The turn this output belongs to: outputs of one turn share --turn-budget [env: SPILL_TURN]' -r
complete -c spill -n "__fish_spill_using_subcommand wrap" -l turn-budget -d 'The most bytes one turn passes through inline; later outputs are stored instead [env: SPILL_TURN_BUDGET] [default: 64KiB]' -r
complete -c spill -n "__fish_spill_using_subcommand wrap" -l timeout -d 'With CMD: kill it after this long and exit 124, like timeout(1)' -r
complete -c spill -n "__fish_spill_using_subcommand wrap" -l detach-after -d 'With CMD: return after this long even if CMD is still running, with a running envelope (its ref, the output so far, the commands that read on, wait and stop); CMD goes on under a supervisor and its output into the store (e.g. 100s, 500ms)' -r
complete -c spill -n "__fish_spill_using_subcommand wrap" -l report-after -d 'After this long, if CMD is still running (or stdin has not ended), print a running envelope (as --detach-after does) and go on waiting: the final envelope follows at the end, and wrap exits with CMD\'s status (for a harness that keeps a long command running and reads its output as it comes, like Codex and Claude Code)' -r
complete -c spill -n "__fish_spill_using_subcommand wrap" -l report-every -d 'With --report-after: while CMD runs on (or stdin has not ended), print one line every this long after the running envelope, with the bytes and lines so far and the command that reads what is new (for a harness that cancels a command that prints nothing for a while, like Gemini CLI)' -r
complete -c spill -n "__fish_spill_using_subcommand wrap" -l supervise -d 'Internal: run as the supervisor of the running entry ID (started by --detach-after)' -r
complete -c spill -n "__fish_spill_using_subcommand wrap" -l dir -d 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]' -r -F
complete -c spill -n "__fish_spill_using_subcommand wrap" -l store -d 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]' -r
complete -c spill -n "__fish_spill_using_subcommand wrap" -l scope -d 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]' -r
complete -c spill -n "__fish_spill_using_subcommand wrap" -l ttl -d 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]' -r
complete -c spill -n "__fish_spill_using_subcommand wrap" -l quota -d 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]' -r
complete -c spill -n "__fish_spill_using_subcommand wrap" -l max-file -d 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]' -r
complete -c spill -n "__fish_spill_using_subcommand wrap" -l color -d 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)' -r -f -a "auto\t'Colour only when writing to a terminal'
always\t'Colour even into a pipe, despite NO_COLOR'
never\t'Never colour'"
complete -c spill -n "__fish_spill_using_subcommand wrap" -l paging -d 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode' -r -f -a "auto\t'Page when stdout is a terminal'
always\t'Page even into a pipe'
never\t'Never page'"
complete -c spill -n "__fish_spill_using_subcommand wrap" -l redact -d 'Replace secrets (API keys, tokens, private keys, secret env values) with [REDACTED] [env: SPILL_REDACT=1]'
complete -c spill -n "__fish_spill_using_subcommand wrap" -l condense -d 'Print an output that would pass through (1 KiB up to --max-inline) as its condensed view when that is at most half of it: runs of similar lines collapse to their first and last line and a marker with the command that prints the rest; every other line is shown; the whole is stored and the view ends with its ref [env: SPILL_CONDENSE=1]'
complete -c spill -n "__fish_spill_using_subcommand wrap" -l skip-invalid -d 'NDJSON: skip and count the lines that are not exactly one JSON value ("skippedLines"), instead of describing the output as text'
complete -c spill -n "__fish_spill_using_subcommand wrap" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c spill -n "__fish_spill_using_subcommand shape" -l max-depth -l depth -d 'Container levels shown; deeper ones become `"object(12 keys)"` / `"array[300]"`' -r
complete -c spill -n "__fish_spill_using_subcommand shape" -l max-bytes -d 'The skeleton never exceeds this size (at least 256 bytes)' -r
complete -c spill -n "__fish_spill_using_subcommand shape" -l dir -d 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]' -r -F
complete -c spill -n "__fish_spill_using_subcommand shape" -l store -d 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]' -r
complete -c spill -n "__fish_spill_using_subcommand shape" -l scope -d 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]' -r
complete -c spill -n "__fish_spill_using_subcommand shape" -l ttl -d 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]' -r
complete -c spill -n "__fish_spill_using_subcommand shape" -l quota -d 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]' -r
complete -c spill -n "__fish_spill_using_subcommand shape" -l max-file -d 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]' -r
complete -c spill -n "__fish_spill_using_subcommand shape" -l color -d 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)' -r -f -a "auto\t'Colour only when writing to a terminal'
always\t'Colour even into a pipe, despite NO_COLOR'
never\t'Never colour'"
complete -c spill -n "__fish_spill_using_subcommand shape" -l paging -d 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode' -r -f -a "auto\t'Page when stdout is a terminal'
always\t'Page even into a pipe'
never\t'Never page'"
complete -c spill -n "__fish_spill_using_subcommand shape" -l paths -d 'Print one line per distinct path instead: `$.items[*].tags[*]  string  3812`'
complete -c spill -n "__fish_spill_using_subcommand shape" -l skip-invalid -d 'NDJSON: skip and count the lines that are not exactly one JSON value, instead of failing at the first (indexes count only the records)'
complete -c spill -n "__fish_spill_using_subcommand shape" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c spill -n "__fish_spill_using_subcommand extract" -s f -l from-file -d 'Read the query from FILE (one trailing line break ignored), like `jq -f`: for queries holding characters a command line cannot carry' -r -F
complete -c spill -n "__fish_spill_using_subcommand extract" -l offset -d 'Skip this many selected nodes (to page through a long list)' -r
complete -c spill -n "__fish_spill_using_subcommand extract" -l max-items -d 'Elements or members shown per container, and nodes per list' -r
complete -c spill -n "__fish_spill_using_subcommand extract" -l max-depth -d 'Container levels shown; deeper ones become "… object(12 keys): …" / "… array[300]: …"' -r
complete -c spill -n "__fish_spill_using_subcommand extract" -l max-string -d 'Characters shown per string' -r
complete -c spill -n "__fish_spill_using_subcommand extract" -l max-bytes -d 'The whole output stays within this size, at least 128 bytes (0 lifts every bound) [default: 16KiB]' -r
complete -c spill -n "__fish_spill_using_subcommand extract" -l footer -d 'Where the notice about cuts goes [env: SPILL_FOOTER] [default: stderr]' -r -f -a "stderr\t'After stdout is flushed, on stderr'
stdout\t'At the end of stdout, for harnesses that show the model stdout only'"
complete -c spill -n "__fish_spill_using_subcommand extract" -l dir -d 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]' -r -F
complete -c spill -n "__fish_spill_using_subcommand extract" -l store -d 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]' -r
complete -c spill -n "__fish_spill_using_subcommand extract" -l scope -d 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]' -r
complete -c spill -n "__fish_spill_using_subcommand extract" -l ttl -d 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]' -r
complete -c spill -n "__fish_spill_using_subcommand extract" -l quota -d 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]' -r
complete -c spill -n "__fish_spill_using_subcommand extract" -l max-file -d 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]' -r
complete -c spill -n "__fish_spill_using_subcommand extract" -l color -d 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)' -r -f -a "auto\t'Colour only when writing to a terminal'
always\t'Colour even into a pipe, despite NO_COLOR'
never\t'Never colour'"
complete -c spill -n "__fish_spill_using_subcommand extract" -l paging -d 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode' -r -f -a "auto\t'Page when stdout is a terminal'
always\t'Page even into a pipe'
never\t'Never page'"
complete -c spill -n "__fish_spill_using_subcommand extract" -l nodes -d 'Print [{"path": …, "value": …}] with RFC 9535 normalized paths'
complete -c spill -n "__fish_spill_using_subcommand extract" -s r -l raw -d 'Print selected strings without quotes, one per line; other values compact'
complete -c spill -n "__fish_spill_using_subcommand extract" -l compact -d 'Print JSON on one line instead of indenting by 2 spaces'
complete -c spill -n "__fish_spill_using_subcommand extract" -l unbounded -d 'Lift every bound: print everything selected'
complete -c spill -n "__fish_spill_using_subcommand extract" -l skip-invalid -d 'NDJSON: skip and count the lines that are not exactly one JSON value, instead of failing at the first (indexes count only the records)'
complete -c spill -n "__fish_spill_using_subcommand extract" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c spill -n "__fish_spill_using_subcommand search" -s e -l regexp -d 'A pattern to search for; repeat to find any of several' -r
complete -c spill -n "__fish_spill_using_subcommand search" -s A -l after-context -d 'Show N lines after each match' -r
complete -c spill -n "__fish_spill_using_subcommand search" -s B -l before-context -d 'Show N lines before each match' -r
complete -c spill -n "__fish_spill_using_subcommand search" -s C -l context -d 'Show N lines before and after each match (-A and -B take precedence)' -r
complete -c spill -n "__fish_spill_using_subcommand search" -l offset -d 'Skip this many matches (the footer\'s `next:` gives the next page\'s offset)' -r
complete -c spill -n "__fish_spill_using_subcommand search" -l limit -d 'Show at most this many matches' -r
complete -c spill -n "__fish_spill_using_subcommand search" -l max-columns -d 'Lines longer than this many characters are shown as a window around the match (0: whole lines, within --max-bytes)' -r
complete -c spill -n "__fish_spill_using_subcommand search" -l max-bytes -d 'The page\'s rows (numbers and text of matches and context lines) stay within this size; a page that reaches it ends early and `next:` continues (0: no limit)' -r
complete -c spill -n "__fish_spill_using_subcommand search" -l footer -d 'Where the `next:` footer goes [env: SPILL_FOOTER] [default: stderr]' -r -f -a "stderr\t'After stdout is flushed, on stderr'
stdout\t'At the end of stdout, for harnesses that show the model stdout only'"
complete -c spill -n "__fish_spill_using_subcommand search" -l resume -d 'With --all: continue from this cursor (REF:SKIP:CREATED, as the footer\'s `next:` gives it)' -r
complete -c spill -n "__fish_spill_using_subcommand search" -l max-outputs -d 'With --all: read at most this many stored outputs per call, newest first (0: no limit); the footer\'s `next:` reaches the older ones' -r
complete -c spill -n "__fish_spill_using_subcommand search" -l dir -d 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]' -r -F
complete -c spill -n "__fish_spill_using_subcommand search" -l store -d 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]' -r
complete -c spill -n "__fish_spill_using_subcommand search" -l scope -d 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]' -r
complete -c spill -n "__fish_spill_using_subcommand search" -l ttl -d 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]' -r
complete -c spill -n "__fish_spill_using_subcommand search" -l quota -d 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]' -r
complete -c spill -n "__fish_spill_using_subcommand search" -l max-file -d 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]' -r
complete -c spill -n "__fish_spill_using_subcommand search" -l color -d 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)' -r -f -a "auto\t'Colour only when writing to a terminal'
always\t'Colour even into a pipe, despite NO_COLOR'
never\t'Never colour'"
complete -c spill -n "__fish_spill_using_subcommand search" -l paging -d 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode' -r -f -a "auto\t'Page when stdout is a terminal'
always\t'Page even into a pipe'
never\t'Never page'"
complete -c spill -n "__fish_spill_using_subcommand search" -s F -l fixed-strings -d 'Treat the patterns as literal strings, not regexes'
complete -c spill -n "__fish_spill_using_subcommand search" -s i -l ignore-case -d 'Match case-insensitively'
complete -c spill -n "__fish_spill_using_subcommand search" -s w -l word-regexp -d 'Match only whole words'
complete -c spill -n "__fish_spill_using_subcommand search" -l unbounded -d 'Lift --max-bytes and --max-columns: whole lines, however long (--limit still pages)'
complete -c spill -n "__fish_spill_using_subcommand search" -l count -d 'Print only the number of matches (exit 1 when 0)'
complete -c spill -n "__fish_spill_using_subcommand search" -l json -d 'Print one JSON object: the matches, the total and the pagination'
complete -c spill -n "__fish_spill_using_subcommand search" -l paths -d 'Give each match the normalized JSONPath of the value (or key) holding it (LINE:COLUMN:PATH:text), ready for `spill extract`; JSON and NDJSON sources only'
complete -c spill -n "__fish_spill_using_subcommand search" -l skip-invalid -d 'With --paths on NDJSON: skip and count the lines that are not exactly one JSON value (as `extract --skip-invalid` does, so the paths index the same records)'
complete -c spill -n "__fish_spill_using_subcommand search" -l raw -d 'Search the stored bytes as they are (no cleaning of escape sequences and `\\r` frames), and print them on a terminal without escaping control characters'
complete -c spill -n "__fish_spill_using_subcommand search" -l all -d 'Search every stored output of the scope, newest first (no SOURCE); rows are labelled with their ref. Running entries are not searched'
complete -c spill -n "__fish_spill_using_subcommand search" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c spill -n "__fish_spill_using_subcommand cat" -l lines -d 'Lines A to B, 1-based and inclusive; either side may be omitted (`100:`, `:20`)' -r
complete -c spill -n "__fish_spill_using_subcommand cat" -l bytes -d 'Bytes A to B, 0-based and end-exclusive; either side may be omitted' -r
complete -c spill -n "__fish_spill_using_subcommand cat" -l max-bytes -d 'Cap on an explicit range (0: no limit)' -r
complete -c spill -n "__fish_spill_using_subcommand cat" -l max-columns -d 'Lines longer than this many characters are cut with a marker, unless --raw (0: no limit; --max-bytes still bounds the page)' -r
complete -c spill -n "__fish_spill_using_subcommand cat" -l footer -d 'Where the `next:` footer goes [env: SPILL_FOOTER] [default: stderr]' -r -f -a "stderr\t'After stdout is flushed, on stderr'
stdout\t'At the end of stdout, for harnesses that show the model stdout only'"
complete -c spill -n "__fish_spill_using_subcommand cat" -l since -d 'Print only the output from this cursor on, as stored (a running entry\'s envelope and footers give the cursor; a file\'s is its byte offset); the footer gives the next one' -r
complete -c spill -n "__fish_spill_using_subcommand cat" -l dir -d 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]' -r -F
complete -c spill -n "__fish_spill_using_subcommand cat" -l store -d 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]' -r
complete -c spill -n "__fish_spill_using_subcommand cat" -l scope -d 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]' -r
complete -c spill -n "__fish_spill_using_subcommand cat" -l ttl -d 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]' -r
complete -c spill -n "__fish_spill_using_subcommand cat" -l quota -d 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]' -r
complete -c spill -n "__fish_spill_using_subcommand cat" -l max-file -d 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]' -r
complete -c spill -n "__fish_spill_using_subcommand cat" -l color -d 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)' -r -f -a "auto\t'Colour only when writing to a terminal'
always\t'Colour even into a pipe, despite NO_COLOR'
never\t'Never colour'"
complete -c spill -n "__fish_spill_using_subcommand cat" -l paging -d 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode' -r -f -a "auto\t'Page when stdout is a terminal'
always\t'Page even into a pipe'
never\t'Never page'"
complete -c spill -n "__fish_spill_using_subcommand cat" -l raw -d 'Print bytes exactly as stored: no cleaning of escape sequences and `\\r` frames, no line cutting, no escaping on a terminal'
complete -c spill -n "__fish_spill_using_subcommand cat" -l hex -d 'Print a hexdump -C style dump'
complete -c spill -n "__fish_spill_using_subcommand cat" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c spill -n "__fish_spill_using_subcommand ls" -l dir -d 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]' -r -F
complete -c spill -n "__fish_spill_using_subcommand ls" -l store -d 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]' -r
complete -c spill -n "__fish_spill_using_subcommand ls" -l scope -d 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]' -r
complete -c spill -n "__fish_spill_using_subcommand ls" -l ttl -d 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]' -r
complete -c spill -n "__fish_spill_using_subcommand ls" -l quota -d 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]' -r
complete -c spill -n "__fish_spill_using_subcommand ls" -l max-file -d 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]' -r
complete -c spill -n "__fish_spill_using_subcommand ls" -l color -d 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)' -r -f -a "auto\t'Colour only when writing to a terminal'
always\t'Colour even into a pipe, despite NO_COLOR'
never\t'Never colour'"
complete -c spill -n "__fish_spill_using_subcommand ls" -l paging -d 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode' -r -f -a "auto\t'Page when stdout is a terminal'
always\t'Page even into a pipe'
never\t'Never page'"
complete -c spill -n "__fish_spill_using_subcommand ls" -l json -d 'Print one JSON object instead of a table'
complete -c spill -n "__fish_spill_using_subcommand ls" -l all-scopes -d 'List every scope of the root, not only the current one'
complete -c spill -n "__fish_spill_using_subcommand ls" -l complete -d 'For shell completion: one `REF<TAB>LABEL` line per entry (the label, or the summary when there is none, on one line of at most 60 characters)'
complete -c spill -n "__fish_spill_using_subcommand ls" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c spill -n "__fish_spill_using_subcommand rm" -l dir -d 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]' -r -F
complete -c spill -n "__fish_spill_using_subcommand rm" -l store -d 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]' -r
complete -c spill -n "__fish_spill_using_subcommand rm" -l scope -d 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]' -r
complete -c spill -n "__fish_spill_using_subcommand rm" -l ttl -d 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]' -r
complete -c spill -n "__fish_spill_using_subcommand rm" -l quota -d 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]' -r
complete -c spill -n "__fish_spill_using_subcommand rm" -l max-file -d 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]' -r
complete -c spill -n "__fish_spill_using_subcommand rm" -l color -d 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)' -r -f -a "auto\t'Colour only when writing to a terminal'
always\t'Colour even into a pipe, despite NO_COLOR'
never\t'Never colour'"
complete -c spill -n "__fish_spill_using_subcommand rm" -l paging -d 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode' -r -f -a "auto\t'Page when stdout is a terminal'
always\t'Page even into a pipe'
never\t'Never page'"
complete -c spill -n "__fish_spill_using_subcommand rm" -l all -d 'Remove every entry of the current scope'
complete -c spill -n "__fish_spill_using_subcommand rm" -l json -d 'Print one JSON object instead of lines'
complete -c spill -n "__fish_spill_using_subcommand rm" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c spill -n "__fish_spill_using_subcommand gc" -l dir -d 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]' -r -F
complete -c spill -n "__fish_spill_using_subcommand gc" -l store -d 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]' -r
complete -c spill -n "__fish_spill_using_subcommand gc" -l scope -d 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]' -r
complete -c spill -n "__fish_spill_using_subcommand gc" -l ttl -d 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]' -r
complete -c spill -n "__fish_spill_using_subcommand gc" -l quota -d 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]' -r
complete -c spill -n "__fish_spill_using_subcommand gc" -l max-file -d 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]' -r
complete -c spill -n "__fish_spill_using_subcommand gc" -l color -d 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)' -r -f -a "auto\t'Colour only when writing to a terminal'
always\t'Colour even into a pipe, despite NO_COLOR'
never\t'Never colour'"
complete -c spill -n "__fish_spill_using_subcommand gc" -l paging -d 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode' -r -f -a "auto\t'Page when stdout is a terminal'
always\t'Page even into a pipe'
never\t'Never page'"
complete -c spill -n "__fish_spill_using_subcommand gc" -l dry-run -d 'Report what would be removed; remove nothing'
complete -c spill -n "__fish_spill_using_subcommand gc" -l all-scopes -d 'Expire entries and sweep temporary files in every scope of the root'
complete -c spill -n "__fish_spill_using_subcommand gc" -l json -d 'Print one JSON object instead of lines'
complete -c spill -n "__fish_spill_using_subcommand gc" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c spill -n "__fish_spill_using_subcommand schema" -l dir -d 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]' -r -F
complete -c spill -n "__fish_spill_using_subcommand schema" -l store -d 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]' -r
complete -c spill -n "__fish_spill_using_subcommand schema" -l scope -d 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]' -r
complete -c spill -n "__fish_spill_using_subcommand schema" -l ttl -d 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]' -r
complete -c spill -n "__fish_spill_using_subcommand schema" -l quota -d 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]' -r
complete -c spill -n "__fish_spill_using_subcommand schema" -l max-file -d 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]' -r
complete -c spill -n "__fish_spill_using_subcommand schema" -l color -d 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)' -r -f -a "auto\t'Colour only when writing to a terminal'
always\t'Colour even into a pipe, despite NO_COLOR'
never\t'Never colour'"
complete -c spill -n "__fish_spill_using_subcommand schema" -l paging -d 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode' -r -f -a "auto\t'Page when stdout is a terminal'
always\t'Page even into a pipe'
never\t'Never page'"
complete -c spill -n "__fish_spill_using_subcommand schema" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c spill -n "__fish_spill_using_subcommand view" -l dir -d 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]' -r -F
complete -c spill -n "__fish_spill_using_subcommand view" -l store -d 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]' -r
complete -c spill -n "__fish_spill_using_subcommand view" -l scope -d 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]' -r
complete -c spill -n "__fish_spill_using_subcommand view" -l ttl -d 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]' -r
complete -c spill -n "__fish_spill_using_subcommand view" -l quota -d 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]' -r
complete -c spill -n "__fish_spill_using_subcommand view" -l max-file -d 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]' -r
complete -c spill -n "__fish_spill_using_subcommand view" -l color -d 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)' -r -f -a "auto\t'Colour only when writing to a terminal'
always\t'Colour even into a pipe, despite NO_COLOR'
never\t'Never colour'"
complete -c spill -n "__fish_spill_using_subcommand view" -l paging -d 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode' -r -f -a "auto\t'Page when stdout is a terminal'
always\t'Page even into a pipe'
never\t'Never page'"
complete -c spill -n "__fish_spill_using_subcommand view" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c spill -n "__fish_spill_using_subcommand hook" -l dir -d 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]' -r -F
complete -c spill -n "__fish_spill_using_subcommand hook" -l store -d 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]' -r
complete -c spill -n "__fish_spill_using_subcommand hook" -l scope -d 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]' -r
complete -c spill -n "__fish_spill_using_subcommand hook" -l ttl -d 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]' -r
complete -c spill -n "__fish_spill_using_subcommand hook" -l quota -d 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]' -r
complete -c spill -n "__fish_spill_using_subcommand hook" -l max-file -d 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]' -r
complete -c spill -n "__fish_spill_using_subcommand hook" -l color -d 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)' -r -f -a "auto\t'Colour only when writing to a terminal'
always\t'Colour even into a pipe, despite NO_COLOR'
never\t'Never colour'"
complete -c spill -n "__fish_spill_using_subcommand hook" -l paging -d 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode' -r -f -a "auto\t'Page when stdout is a terminal'
always\t'Page even into a pipe'
never\t'Never page'"
complete -c spill -n "__fish_spill_using_subcommand hook" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c spill -n "__fish_spill_using_subcommand init" -l dir -d 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]' -r -F
complete -c spill -n "__fish_spill_using_subcommand init" -l store -d 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]' -r
complete -c spill -n "__fish_spill_using_subcommand init" -l scope -d 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]' -r
complete -c spill -n "__fish_spill_using_subcommand init" -l ttl -d 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]' -r
complete -c spill -n "__fish_spill_using_subcommand init" -l quota -d 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]' -r
complete -c spill -n "__fish_spill_using_subcommand init" -l max-file -d 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]' -r
complete -c spill -n "__fish_spill_using_subcommand init" -l color -d 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)' -r -f -a "auto\t'Colour only when writing to a terminal'
always\t'Colour even into a pipe, despite NO_COLOR'
never\t'Never colour'"
complete -c spill -n "__fish_spill_using_subcommand init" -l paging -d 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode' -r -f -a "auto\t'Page when stdout is a terminal'
always\t'Page even into a pipe'
never\t'Never page'"
complete -c spill -n "__fish_spill_using_subcommand init" -l project -d 'Configure the project in the current directory'
complete -c spill -n "__fish_spill_using_subcommand init" -l user -d 'Configure the user\'s settings (the default)'
complete -c spill -n "__fish_spill_using_subcommand init" -l dry-run -d 'Print what would change as a unified diff; write nothing'
complete -c spill -n "__fish_spill_using_subcommand init" -l uninstall -d 'Remove spill\'s hooks instead (and its MCP proxy routes and `spill mcp` server, with or without --proxy-mcp and --mcp)'
complete -c spill -n "__fish_spill_using_subcommand init" -l proxy-mcp -d 'Also route each stdio MCP server the harness registers through `spill mcp proxy` (Codex, opencode, Kilo Code: their MCP results have no hook that can replace them)'
complete -c spill -n "__fish_spill_using_subcommand init" -l mcp -d 'Also register `spill mcp` as the harness\'s MCP server `spill`, so the model can read stored outputs through its tools as well as through the shell'
complete -c spill -n "__fish_spill_using_subcommand init" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c spill -n "__fish_spill_using_subcommand mcp; and not __fish_seen_subcommand_from proxy help" -l page-size -d 'Resources listed per `resources/list` page (the rest follow by cursor)' -r
complete -c spill -n "__fish_spill_using_subcommand mcp; and not __fish_seen_subcommand_from proxy help" -l http -d 'Serve over Streamable HTTP at ADDR (PORT on 127.0.0.1, IP:PORT, localhost:PORT), endpoint /mcp, instead of stdio. Any address that is not loopback needs a bearer token' -r
complete -c spill -n "__fish_spill_using_subcommand mcp; and not __fish_seen_subcommand_from proxy help" -l token-file -d 'The bearer token for --http, read from FILE [env: SPILL_MCP_TOKEN]; never from argv' -r -F
complete -c spill -n "__fish_spill_using_subcommand mcp; and not __fish_seen_subcommand_from proxy help" -l token -d 'Refused: a token on the command line is visible to every user (ps)' -r
complete -c spill -n "__fish_spill_using_subcommand mcp; and not __fish_seen_subcommand_from proxy help" -l dir -d 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]' -r -F
complete -c spill -n "__fish_spill_using_subcommand mcp; and not __fish_seen_subcommand_from proxy help" -l store -d 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]' -r
complete -c spill -n "__fish_spill_using_subcommand mcp; and not __fish_seen_subcommand_from proxy help" -l scope -d 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]' -r
complete -c spill -n "__fish_spill_using_subcommand mcp; and not __fish_seen_subcommand_from proxy help" -l ttl -d 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]' -r
complete -c spill -n "__fish_spill_using_subcommand mcp; and not __fish_seen_subcommand_from proxy help" -l quota -d 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]' -r
complete -c spill -n "__fish_spill_using_subcommand mcp; and not __fish_seen_subcommand_from proxy help" -l max-file -d 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]' -r
complete -c spill -n "__fish_spill_using_subcommand mcp; and not __fish_seen_subcommand_from proxy help" -l color -d 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)' -r -f -a "auto\t'Colour only when writing to a terminal'
always\t'Colour even into a pipe, despite NO_COLOR'
never\t'Never colour'"
complete -c spill -n "__fish_spill_using_subcommand mcp; and not __fish_seen_subcommand_from proxy help" -l paging -d 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode' -r -f -a "auto\t'Page when stdout is a terminal'
always\t'Page even into a pipe'
never\t'Never page'"
complete -c spill -n "__fish_spill_using_subcommand mcp; and not __fish_seen_subcommand_from proxy help" -l allow-run -d 'Also offer a `run` tool that runs a command under `spill wrap` (refused in restricted mode)'
complete -c spill -n "__fish_spill_using_subcommand mcp; and not __fish_seen_subcommand_from proxy help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c spill -n "__fish_spill_using_subcommand mcp; and not __fish_seen_subcommand_from proxy help" -f -a "proxy" -d 'Start an MCP server (stdio), or reach one over HTTP, and store its oversized tool results.'
complete -c spill -n "__fish_spill_using_subcommand mcp; and not __fish_seen_subcommand_from proxy help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c spill -n "__fish_spill_using_subcommand mcp; and __fish_seen_subcommand_from proxy" -l max-inline -d 'Results up to this size pass through untouched [env: SPILL_MAX_INLINE] [default: 16KiB]' -r
complete -c spill -n "__fish_spill_using_subcommand mcp; and __fish_seen_subcommand_from proxy" -l timeout -d 'A request the downstream has not answered after this long gets an error' -r
complete -c spill -n "__fish_spill_using_subcommand mcp; and __fish_seen_subcommand_from proxy" -l url -d 'The downstream is the Streamable HTTP MCP server at URL (http or https), not a command' -r
complete -c spill -n "__fish_spill_using_subcommand mcp; and __fish_seen_subcommand_from proxy" -l header -d 'A header sent to --url with every request, `NAME: VALUE`; `${VAR}` in VALUE is the environment variable\'s value (keep tokens out of argv). Repeatable' -r
complete -c spill -n "__fish_spill_using_subcommand mcp; and __fish_seen_subcommand_from proxy" -l headers-file -d 'Headers for --url from FILE, one `NAME: VALUE` a line (# starts a comment)' -r -F
complete -c spill -n "__fish_spill_using_subcommand mcp; and __fish_seen_subcommand_from proxy" -l dir -d 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]' -r -F
complete -c spill -n "__fish_spill_using_subcommand mcp; and __fish_seen_subcommand_from proxy" -l store -d 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]' -r
complete -c spill -n "__fish_spill_using_subcommand mcp; and __fish_seen_subcommand_from proxy" -l scope -d 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]' -r
complete -c spill -n "__fish_spill_using_subcommand mcp; and __fish_seen_subcommand_from proxy" -l ttl -d 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]' -r
complete -c spill -n "__fish_spill_using_subcommand mcp; and __fish_seen_subcommand_from proxy" -l quota -d 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]' -r
complete -c spill -n "__fish_spill_using_subcommand mcp; and __fish_seen_subcommand_from proxy" -l max-file -d 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]' -r
complete -c spill -n "__fish_spill_using_subcommand mcp; and __fish_seen_subcommand_from proxy" -l color -d 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)' -r -f -a "auto\t'Colour only when writing to a terminal'
always\t'Colour even into a pipe, despite NO_COLOR'
never\t'Never colour'"
complete -c spill -n "__fish_spill_using_subcommand mcp; and __fish_seen_subcommand_from proxy" -l paging -d 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode' -r -f -a "auto\t'Page when stdout is a terminal'
always\t'Page even into a pipe'
never\t'Never page'"
complete -c spill -n "__fish_spill_using_subcommand mcp; and __fish_seen_subcommand_from proxy" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c spill -n "__fish_spill_using_subcommand mcp; and __fish_seen_subcommand_from help" -f -a "proxy" -d 'Start an MCP server (stdio), or reach one over HTTP, and store its oversized tool results.'
complete -c spill -n "__fish_spill_using_subcommand mcp; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c spill -n "__fish_spill_using_subcommand wait" -l timeout -d 'Give up after this long (e.g. 90s, 500ms) and show what is new; without it, wait for the end' -r
complete -c spill -n "__fish_spill_using_subcommand wait" -l since -d 'At the timeout, show the output from this cursor on (a `cursor` an earlier answer gave)' -r
complete -c spill -n "__fish_spill_using_subcommand wait" -l max-bytes -d 'At the timeout, show at most this much new output' -r
complete -c spill -n "__fish_spill_using_subcommand wait" -l dir -d 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]' -r -F
complete -c spill -n "__fish_spill_using_subcommand wait" -l store -d 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]' -r
complete -c spill -n "__fish_spill_using_subcommand wait" -l scope -d 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]' -r
complete -c spill -n "__fish_spill_using_subcommand wait" -l ttl -d 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]' -r
complete -c spill -n "__fish_spill_using_subcommand wait" -l quota -d 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]' -r
complete -c spill -n "__fish_spill_using_subcommand wait" -l max-file -d 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]' -r
complete -c spill -n "__fish_spill_using_subcommand wait" -l color -d 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)' -r -f -a "auto\t'Colour only when writing to a terminal'
always\t'Colour even into a pipe, despite NO_COLOR'
never\t'Never colour'"
complete -c spill -n "__fish_spill_using_subcommand wait" -l paging -d 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode' -r -f -a "auto\t'Page when stdout is a terminal'
always\t'Page even into a pipe'
never\t'Never page'"
complete -c spill -n "__fish_spill_using_subcommand wait" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c spill -n "__fish_spill_using_subcommand stop" -l grace -d 'How long the command has to end after SIGTERM before SIGKILL' -r
complete -c spill -n "__fish_spill_using_subcommand stop" -l dir -d 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]' -r -F
complete -c spill -n "__fish_spill_using_subcommand stop" -l store -d 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]' -r
complete -c spill -n "__fish_spill_using_subcommand stop" -l scope -d 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]' -r
complete -c spill -n "__fish_spill_using_subcommand stop" -l ttl -d 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]' -r
complete -c spill -n "__fish_spill_using_subcommand stop" -l quota -d 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]' -r
complete -c spill -n "__fish_spill_using_subcommand stop" -l max-file -d 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]' -r
complete -c spill -n "__fish_spill_using_subcommand stop" -l color -d 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)' -r -f -a "auto\t'Colour only when writing to a terminal'
always\t'Colour even into a pipe, despite NO_COLOR'
never\t'Never colour'"
complete -c spill -n "__fish_spill_using_subcommand stop" -l paging -d 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode' -r -f -a "auto\t'Page when stdout is a terminal'
always\t'Page even into a pipe'
never\t'Never page'"
complete -c spill -n "__fish_spill_using_subcommand stop" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c spill -n "__fish_spill_using_subcommand stats" -l dir -d 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]' -r -F
complete -c spill -n "__fish_spill_using_subcommand stats" -l store -d 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]' -r
complete -c spill -n "__fish_spill_using_subcommand stats" -l scope -d 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]' -r
complete -c spill -n "__fish_spill_using_subcommand stats" -l ttl -d 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]' -r
complete -c spill -n "__fish_spill_using_subcommand stats" -l quota -d 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]' -r
complete -c spill -n "__fish_spill_using_subcommand stats" -l max-file -d 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]' -r
complete -c spill -n "__fish_spill_using_subcommand stats" -l color -d 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)' -r -f -a "auto\t'Colour only when writing to a terminal'
always\t'Colour even into a pipe, despite NO_COLOR'
never\t'Never colour'"
complete -c spill -n "__fish_spill_using_subcommand stats" -l paging -d 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode' -r -f -a "auto\t'Page when stdout is a terminal'
always\t'Page even into a pipe'
never\t'Never page'"
complete -c spill -n "__fish_spill_using_subcommand stats" -l json -d 'Print one JSON object instead of text'
complete -c spill -n "__fish_spill_using_subcommand stats" -l all-scopes -d 'Every scope of the root with a tally, and their total'
complete -c spill -n "__fish_spill_using_subcommand stats" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c spill -n "__fish_spill_using_subcommand doctor" -l dir -d 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]' -r -F
complete -c spill -n "__fish_spill_using_subcommand doctor" -l store -d 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]' -r
complete -c spill -n "__fish_spill_using_subcommand doctor" -l scope -d 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]' -r
complete -c spill -n "__fish_spill_using_subcommand doctor" -l ttl -d 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]' -r
complete -c spill -n "__fish_spill_using_subcommand doctor" -l quota -d 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]' -r
complete -c spill -n "__fish_spill_using_subcommand doctor" -l max-file -d 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]' -r
complete -c spill -n "__fish_spill_using_subcommand doctor" -l color -d 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)' -r -f -a "auto\t'Colour only when writing to a terminal'
always\t'Colour even into a pipe, despite NO_COLOR'
never\t'Never colour'"
complete -c spill -n "__fish_spill_using_subcommand doctor" -l paging -d 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode' -r -f -a "auto\t'Page when stdout is a terminal'
always\t'Page even into a pipe'
never\t'Never page'"
complete -c spill -n "__fish_spill_using_subcommand doctor" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c spill -n "__fish_spill_using_subcommand help; and not __fish_seen_subcommand_from wrap shape extract search cat ls rm gc schema view hook init mcp wait stop stats doctor help" -f -a "wrap" -d 'Read stdin (or run CMD) and pass it through, or store it and print an envelope.'
complete -c spill -n "__fish_spill_using_subcommand help; and not __fish_seen_subcommand_from wrap shape extract search cat ls rm gc schema view hook init mcp wait stop stats doctor help" -f -a "shape" -d 'Print the structural skeleton of a JSON document or NDJSON stream as one line of JSON.'
complete -c spill -n "__fish_spill_using_subcommand help; and not __fish_seen_subcommand_from wrap shape extract search cat ls rm gc schema view hook init mcp wait stop stats doctor help" -f -a "extract" -d 'Select parts of a JSON document with a JSONPath query (RFC 9535) and print them, bounded.'
complete -c spill -n "__fish_spill_using_subcommand help; and not __fish_seen_subcommand_from wrap shape extract search cat ls rm gc schema view hook init mcp wait stop stats doctor help" -f -a "search" -d 'Find occurrences of a regex in a stored output (or a file), counted exactly, a page at a time.'
complete -c spill -n "__fish_spill_using_subcommand help; and not __fish_seen_subcommand_from wrap shape extract search cat ls rm gc schema view hook init mcp wait stop stats doctor help" -f -a "cat" -d 'Print part of a stored output or a file, bounded and paged.'
complete -c spill -n "__fish_spill_using_subcommand help; and not __fish_seen_subcommand_from wrap shape extract search cat ls rm gc schema view hook init mcp wait stop stats doctor help" -f -a "ls" -d 'List stored outputs: ref, size, kind, age, label, summary; newest first.'
complete -c spill -n "__fish_spill_using_subcommand help; and not __fish_seen_subcommand_from wrap shape extract search cat ls rm gc schema view hook init mcp wait stop stats doctor help" -f -a "rm" -d 'Remove stored outputs by ref, or all outputs of the current scope.'
complete -c spill -n "__fish_spill_using_subcommand help; and not __fish_seen_subcommand_from wrap shape extract search cat ls rm gc schema view hook init mcp wait stop stats doctor help" -f -a "gc" -d 'Remove expired entries and stale temporary files, then enforce the quota.'
complete -c spill -n "__fish_spill_using_subcommand help; and not __fish_seen_subcommand_from wrap shape extract search cat ls rm gc schema view hook init mcp wait stop stats doctor help" -f -a "schema" -d 'Print the JSON Schema (draft 2020-12) of one of spill\'s JSON outputs.'
complete -c spill -n "__fish_spill_using_subcommand help; and not __fish_seen_subcommand_from wrap shape extract search cat ls rm gc schema view hook init mcp wait stop stats doctor help" -f -a "view" -d 'Open a stored output (or a file) for reading at a terminal: JSON in jless or fx when one is installed, else the whole document pretty-printed in the pager (coloured as extract colours it); text in the pager, and binary as the hex dump cat shows. Not available in restricted mode.'
complete -c spill -n "__fish_spill_using_subcommand help; and not __fish_seen_subcommand_from wrap shape extract search cat ls rm gc schema view hook init mcp wait stop stats doctor help" -f -a "hook" -d 'Answer one hook call of an agent harness (reads its hook JSON on stdin).'
complete -c spill -n "__fish_spill_using_subcommand help; and not __fish_seen_subcommand_from wrap shape extract search cat ls rm gc schema view hook init mcp wait stop stats doctor help" -f -a "init" -d 'Register spill\'s hooks in an agent harness\'s configuration.'
complete -c spill -n "__fish_spill_using_subcommand help; and not __fish_seen_subcommand_from wrap shape extract search cat ls rm gc schema view hook init mcp wait stop stats doctor help" -f -a "mcp" -d 'Serve stored outputs to an MCP client over stdio, or stand in front of an MCP server.'
complete -c spill -n "__fish_spill_using_subcommand help; and not __fish_seen_subcommand_from wrap shape extract search cat ls rm gc schema view hook init mcp wait stop stats doctor help" -f -a "wait" -d 'Wait for a running command (`wrap --detach-after`) to end, and print its envelope.'
complete -c spill -n "__fish_spill_using_subcommand help; and not __fish_seen_subcommand_from wrap shape extract search cat ls rm gc schema view hook init mcp wait stop stats doctor help" -f -a "stop" -d 'Stop a running command (`wrap --detach-after`): end its process group and seal its output.'
complete -c spill -n "__fish_spill_using_subcommand help; and not __fish_seen_subcommand_from wrap shape extract search cat ls rm gc schema view hook init mcp wait stop stats doctor help" -f -a "stats" -d 'What spill saved a scope: the bytes its commands printed, the bytes the model was sent for them (small outputs whole, envelopes), and the reads that followed and their bytes.'
complete -c spill -n "__fish_spill_using_subcommand help; and not __fish_seen_subcommand_from wrap shape extract search cat ls rm gc schema view hook init mcp wait stop stats doctor help" -f -a "doctor" -d 'Report, for each agent harness found, what spill does in it; change nothing.'
complete -c spill -n "__fish_spill_using_subcommand help; and not __fish_seen_subcommand_from wrap shape extract search cat ls rm gc schema view hook init mcp wait stop stats doctor help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c spill -n "__fish_spill_using_subcommand help; and __fish_seen_subcommand_from mcp" -f -a "proxy" -d 'Start an MCP server (stdio), or reach one over HTTP, and store its oversized tool results.'

# Stored refs of the current scope, described by their labels (`spill ls --complete`).
complete -c spill -n "__fish_seen_subcommand_from cat shape extract search rm" -k -a "(command spill ls --complete 2>/dev/null)"
