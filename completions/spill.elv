
use builtin;
use str;

set edit:completion:arg-completer[spill] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'spill'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'spill'= {
            cand --dir 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]'
            cand --store 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]'
            cand --scope 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]'
            cand --ttl 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]'
            cand --quota 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]'
            cand --max-file 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]'
            cand --color 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)'
            cand --paging 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand wrap 'Read stdin (or run CMD) and pass it through, or store it and print an envelope.'
            cand shape 'Print the structural skeleton of a JSON document or NDJSON stream as one line of JSON.'
            cand extract 'Select parts of a JSON document with a JSONPath query (RFC 9535) and print them, bounded.'
            cand search 'Find occurrences of a regex in a stored output (or a file), counted exactly, a page at a time.'
            cand cat 'Print part of a stored output or a file, bounded and paged.'
            cand ls 'List stored outputs: ref, size, kind, age, label, summary; newest first.'
            cand rm 'Remove stored outputs by ref, or all outputs of the current scope.'
            cand gc 'Remove expired entries and stale temporary files, then enforce the quota.'
            cand schema 'Print the JSON Schema (draft 2020-12) of one of spill''s JSON outputs.'
            cand view 'Open a stored output (or a file) for reading at a terminal: JSON in jless or fx when one is installed, else the whole document pretty-printed in the pager (coloured as extract colours it); text in the pager, and binary as the hex dump cat shows. Not available in restricted mode.'
            cand hook 'Answer one hook call of an agent harness (reads its hook JSON on stdin).'
            cand init 'Register spill''s hooks in an agent harness''s configuration.'
            cand mcp 'Serve stored outputs to an MCP client over stdio, or stand in front of an MCP server.'
            cand wait 'Wait for a running command (`wrap --detach-after`) to end, and print its envelope.'
            cand stop 'Stop a running command (`wrap --detach-after`): end its process group and seal its output.'
            cand stats 'What spill saved a scope: the bytes its commands printed, the bytes the model was sent for them (small outputs whole, envelopes), and the reads that followed and their bytes.'
            cand doctor 'Report, for each agent harness found, what spill does in it; change nothing.'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'spill;wrap'= {
            cand --max-inline 'Outputs up to this size pass through untouched [env: SPILL_MAX_INLINE] [default: 16KiB]'
            cand --format 'Envelope format [env: SPILL_FORMAT] [default: json]'
            cand --preview 'Budget shared by the preview and the signals'
            cand --head-lines 'Lines shown from the start of a text preview (overrides the 1/3 head budget)'
            cand --tail-lines 'Lines shown from the end of a text preview (overrides the 2/3 tail budget)'
            cand --label 'A free-form label (e.g. the command), stored and echoed in the envelope'
            cand --turn 'The turn this output belongs to: outputs of one turn share --turn-budget [env: SPILL_TURN]'
            cand --turn-budget 'The most bytes one turn passes through inline; later outputs are stored instead [env: SPILL_TURN_BUDGET] [default: 64KiB]'
            cand --timeout 'With CMD: kill it after this long and exit 124, like timeout(1)'
            cand --detach-after 'With CMD: return after this long even if CMD is still running, with a running envelope (its ref, the output so far, the commands that read on, wait and stop); CMD goes on under a supervisor and its output into the store (e.g. 100s, 500ms)'
            cand --report-after 'After this long, if CMD is still running (or stdin has not ended), print a running envelope (as --detach-after does) and go on waiting: the final envelope follows at the end, and wrap exits with CMD''s status (for a harness that keeps a long command running and reads its output as it comes, like Codex and Claude Code)'
            cand --report-every 'With --report-after: while CMD runs on (or stdin has not ended), print one line every this long after the running envelope, with the bytes and lines so far and the command that reads what is new (for a harness that cancels a command that prints nothing for a while, like Gemini CLI)'
            cand --supervise 'Internal: run as the supervisor of the running entry ID (started by --detach-after)'
            cand --dir 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]'
            cand --store 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]'
            cand --scope 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]'
            cand --ttl 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]'
            cand --quota 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]'
            cand --max-file 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]'
            cand --color 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)'
            cand --paging 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode'
            cand --redact 'Replace secrets (API keys, tokens, private keys, secret env values) with [REDACTED] [env: SPILL_REDACT=1]'
            cand --condense 'Print an output that would pass through (1 KiB up to --max-inline) as its condensed view when that is at most half of it: runs of similar lines collapse to their first and last line and a marker with the command that prints the rest; every other line is shown; the whole is stored and the view ends with its ref [env: SPILL_CONDENSE=1]'
            cand --skip-invalid 'NDJSON: skip and count the lines that are not exactly one JSON value ("skippedLines"), instead of describing the output as text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'spill;shape'= {
            cand --max-depth 'Container levels shown; deeper ones become `"object(12 keys)"` / `"array[300]"`'
            cand --depth 'Container levels shown; deeper ones become `"object(12 keys)"` / `"array[300]"`'
            cand --max-bytes 'The skeleton never exceeds this size (at least 256 bytes)'
            cand --dir 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]'
            cand --store 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]'
            cand --scope 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]'
            cand --ttl 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]'
            cand --quota 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]'
            cand --max-file 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]'
            cand --color 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)'
            cand --paging 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode'
            cand --paths 'Print one line per distinct path instead: `$.items[*].tags[*]  string  3812`'
            cand --skip-invalid 'NDJSON: skip and count the lines that are not exactly one JSON value, instead of failing at the first (indexes count only the records)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'spill;extract'= {
            cand -f 'Read the query from FILE (one trailing line break ignored), like `jq -f`: for queries holding characters a command line cannot carry'
            cand --from-file 'Read the query from FILE (one trailing line break ignored), like `jq -f`: for queries holding characters a command line cannot carry'
            cand --offset 'Skip this many selected nodes (to page through a long list)'
            cand --max-items 'Elements or members shown per container, and nodes per list'
            cand --max-depth 'Container levels shown; deeper ones become "… object(12 keys): …" / "… array[300]: …"'
            cand --max-string 'Characters shown per string'
            cand --max-bytes 'The whole output stays within this size, at least 128 bytes (0 lifts every bound) [default: 16KiB]'
            cand --footer 'Where the notice about cuts goes [env: SPILL_FOOTER] [default: stderr]'
            cand --dir 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]'
            cand --store 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]'
            cand --scope 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]'
            cand --ttl 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]'
            cand --quota 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]'
            cand --max-file 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]'
            cand --color 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)'
            cand --paging 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode'
            cand --nodes 'Print [{"path": …, "value": …}] with RFC 9535 normalized paths'
            cand -r 'Print selected strings without quotes, one per line; other values compact'
            cand --raw 'Print selected strings without quotes, one per line; other values compact'
            cand --compact 'Print JSON on one line instead of indenting by 2 spaces'
            cand --unbounded 'Lift every bound: print everything selected'
            cand --skip-invalid 'NDJSON: skip and count the lines that are not exactly one JSON value, instead of failing at the first (indexes count only the records)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'spill;search'= {
            cand -e 'A pattern to search for; repeat to find any of several'
            cand --regexp 'A pattern to search for; repeat to find any of several'
            cand -A 'Show N lines after each match'
            cand --after-context 'Show N lines after each match'
            cand -B 'Show N lines before each match'
            cand --before-context 'Show N lines before each match'
            cand -C 'Show N lines before and after each match (-A and -B take precedence)'
            cand --context 'Show N lines before and after each match (-A and -B take precedence)'
            cand --offset 'Skip this many matches (the footer''s `next:` gives the next page''s offset)'
            cand --limit 'Show at most this many matches'
            cand --max-columns 'Lines longer than this many characters are shown as a window around the match (0: whole lines, within --max-bytes)'
            cand --max-bytes 'The page''s rows (numbers and text of matches and context lines) stay within this size; a page that reaches it ends early and `next:` continues (0: no limit)'
            cand --footer 'Where the `next:` footer goes [env: SPILL_FOOTER] [default: stderr]'
            cand --resume 'With --all: continue from this cursor (REF:SKIP:CREATED, as the footer''s `next:` gives it)'
            cand --max-outputs 'With --all: read at most this many stored outputs per call, newest first (0: no limit); the footer''s `next:` reaches the older ones'
            cand --dir 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]'
            cand --store 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]'
            cand --scope 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]'
            cand --ttl 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]'
            cand --quota 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]'
            cand --max-file 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]'
            cand --color 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)'
            cand --paging 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode'
            cand -F 'Treat the patterns as literal strings, not regexes'
            cand --fixed-strings 'Treat the patterns as literal strings, not regexes'
            cand -i 'Match case-insensitively'
            cand --ignore-case 'Match case-insensitively'
            cand -w 'Match only whole words'
            cand --word-regexp 'Match only whole words'
            cand --unbounded 'Lift --max-bytes and --max-columns: whole lines, however long (--limit still pages)'
            cand --count 'Print only the number of matches (exit 1 when 0)'
            cand --json 'Print one JSON object: the matches, the total and the pagination'
            cand --paths 'Give each match the normalized JSONPath of the value (or key) holding it (LINE:COLUMN:PATH:text), ready for `spill extract`; JSON and NDJSON sources only'
            cand --skip-invalid 'With --paths on NDJSON: skip and count the lines that are not exactly one JSON value (as `extract --skip-invalid` does, so the paths index the same records)'
            cand --raw 'Search the stored bytes as they are (no cleaning of escape sequences and `\r` frames), and print them on a terminal without escaping control characters'
            cand --all 'Search every stored output of the scope, newest first (no SOURCE); rows are labelled with their ref. Running entries are not searched'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'spill;cat'= {
            cand --lines 'Lines A to B, 1-based and inclusive; either side may be omitted (`100:`, `:20`)'
            cand --bytes 'Bytes A to B, 0-based and end-exclusive; either side may be omitted'
            cand --max-bytes 'Cap on an explicit range (0: no limit)'
            cand --max-columns 'Lines longer than this many characters are cut with a marker, unless --raw (0: no limit; --max-bytes still bounds the page)'
            cand --footer 'Where the `next:` footer goes [env: SPILL_FOOTER] [default: stderr]'
            cand --since 'Print only the output from this cursor on, as stored (a running entry''s envelope and footers give the cursor; a file''s is its byte offset); the footer gives the next one'
            cand --dir 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]'
            cand --store 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]'
            cand --scope 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]'
            cand --ttl 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]'
            cand --quota 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]'
            cand --max-file 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]'
            cand --color 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)'
            cand --paging 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode'
            cand --raw 'Print bytes exactly as stored: no cleaning of escape sequences and `\r` frames, no line cutting, no escaping on a terminal'
            cand --hex 'Print a hexdump -C style dump'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'spill;ls'= {
            cand --dir 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]'
            cand --store 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]'
            cand --scope 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]'
            cand --ttl 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]'
            cand --quota 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]'
            cand --max-file 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]'
            cand --color 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)'
            cand --paging 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode'
            cand --json 'Print one JSON object instead of a table'
            cand --all-scopes 'List every scope of the root, not only the current one'
            cand --complete 'For shell completion: one `REF<TAB>LABEL` line per entry (the label, or the summary when there is none, on one line of at most 60 characters)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'spill;rm'= {
            cand --dir 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]'
            cand --store 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]'
            cand --scope 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]'
            cand --ttl 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]'
            cand --quota 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]'
            cand --max-file 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]'
            cand --color 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)'
            cand --paging 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode'
            cand --all 'Remove every entry of the current scope'
            cand --json 'Print one JSON object instead of lines'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'spill;gc'= {
            cand --dir 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]'
            cand --store 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]'
            cand --scope 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]'
            cand --ttl 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]'
            cand --quota 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]'
            cand --max-file 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]'
            cand --color 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)'
            cand --paging 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode'
            cand --dry-run 'Report what would be removed; remove nothing'
            cand --all-scopes 'Expire entries and sweep temporary files in every scope of the root'
            cand --json 'Print one JSON object instead of lines'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'spill;schema'= {
            cand --dir 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]'
            cand --store 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]'
            cand --scope 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]'
            cand --ttl 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]'
            cand --quota 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]'
            cand --max-file 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]'
            cand --color 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)'
            cand --paging 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'spill;view'= {
            cand --dir 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]'
            cand --store 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]'
            cand --scope 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]'
            cand --ttl 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]'
            cand --quota 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]'
            cand --max-file 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]'
            cand --color 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)'
            cand --paging 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'spill;hook'= {
            cand --dir 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]'
            cand --store 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]'
            cand --scope 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]'
            cand --ttl 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]'
            cand --quota 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]'
            cand --max-file 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]'
            cand --color 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)'
            cand --paging 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'spill;init'= {
            cand --dir 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]'
            cand --store 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]'
            cand --scope 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]'
            cand --ttl 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]'
            cand --quota 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]'
            cand --max-file 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]'
            cand --color 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)'
            cand --paging 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode'
            cand --project 'Configure the project in the current directory'
            cand --user 'Configure the user''s settings (the default)'
            cand --dry-run 'Print what would change as a unified diff; write nothing'
            cand --uninstall 'Remove spill''s hooks instead (and its MCP proxy routes and `spill mcp` server, with or without --proxy-mcp and --mcp)'
            cand --proxy-mcp 'Also route each stdio MCP server the harness registers through `spill mcp proxy` (Codex, opencode, Kilo Code: their MCP results have no hook that can replace them)'
            cand --mcp 'Also register `spill mcp` as the harness''s MCP server `spill`, so the model can read stored outputs through its tools as well as through the shell'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'spill;mcp'= {
            cand --page-size 'Resources listed per `resources/list` page (the rest follow by cursor)'
            cand --http 'Serve over Streamable HTTP at ADDR (PORT on 127.0.0.1, IP:PORT, localhost:PORT), endpoint /mcp, instead of stdio. Any address that is not loopback needs a bearer token'
            cand --token-file 'The bearer token for --http, read from FILE [env: SPILL_MCP_TOKEN]; never from argv'
            cand --token 'Refused: a token on the command line is visible to every user (ps)'
            cand --dir 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]'
            cand --store 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]'
            cand --scope 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]'
            cand --ttl 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]'
            cand --quota 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]'
            cand --max-file 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]'
            cand --color 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)'
            cand --paging 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode'
            cand --allow-run 'Also offer a `run` tool that runs a command under `spill wrap` (refused in restricted mode)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand proxy 'Start an MCP server (stdio), or reach one over HTTP, and store its oversized tool results.'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'spill;mcp;proxy'= {
            cand --max-inline 'Results up to this size pass through untouched [env: SPILL_MAX_INLINE] [default: 16KiB]'
            cand --timeout 'A request the downstream has not answered after this long gets an error'
            cand --url 'The downstream is the Streamable HTTP MCP server at URL (http or https), not a command'
            cand --header 'A header sent to --url with every request, `NAME: VALUE`; `${VAR}` in VALUE is the environment variable''s value (keep tokens out of argv). Repeatable'
            cand --headers-file 'Headers for --url from FILE, one `NAME: VALUE` a line (# starts a comment)'
            cand --dir 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]'
            cand --store 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]'
            cand --scope 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]'
            cand --ttl 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]'
            cand --quota 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]'
            cand --max-file 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]'
            cand --color 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)'
            cand --paging 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'spill;mcp;help'= {
            cand proxy 'Start an MCP server (stdio), or reach one over HTTP, and store its oversized tool results.'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'spill;mcp;help;proxy'= {
        }
        &'spill;mcp;help;help'= {
        }
        &'spill;wait'= {
            cand --timeout 'Give up after this long (e.g. 90s, 500ms) and show what is new; without it, wait for the end'
            cand --since 'At the timeout, show the output from this cursor on (a `cursor` an earlier answer gave)'
            cand --max-bytes 'At the timeout, show at most this much new output'
            cand --dir 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]'
            cand --store 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]'
            cand --scope 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]'
            cand --ttl 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]'
            cand --quota 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]'
            cand --max-file 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]'
            cand --color 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)'
            cand --paging 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'spill;stop'= {
            cand --grace 'How long the command has to end after SIGTERM before SIGKILL'
            cand --dir 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]'
            cand --store 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]'
            cand --scope 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]'
            cand --ttl 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]'
            cand --quota 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]'
            cand --max-file 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]'
            cand --color 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)'
            cand --paging 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'spill;stats'= {
            cand --dir 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]'
            cand --store 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]'
            cand --scope 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]'
            cand --ttl 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]'
            cand --quota 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]'
            cand --max-file 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]'
            cand --color 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)'
            cand --paging 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode'
            cand --json 'Print one JSON object instead of text'
            cand --all-scopes 'Every scope of the root with a tally, and their total'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'spill;doctor'= {
            cand --dir 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]'
            cand --store 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]'
            cand --scope 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]'
            cand --ttl 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]'
            cand --quota 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]'
            cand --max-file 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]'
            cand --color 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)'
            cand --paging 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'spill;help'= {
            cand wrap 'Read stdin (or run CMD) and pass it through, or store it and print an envelope.'
            cand shape 'Print the structural skeleton of a JSON document or NDJSON stream as one line of JSON.'
            cand extract 'Select parts of a JSON document with a JSONPath query (RFC 9535) and print them, bounded.'
            cand search 'Find occurrences of a regex in a stored output (or a file), counted exactly, a page at a time.'
            cand cat 'Print part of a stored output or a file, bounded and paged.'
            cand ls 'List stored outputs: ref, size, kind, age, label, summary; newest first.'
            cand rm 'Remove stored outputs by ref, or all outputs of the current scope.'
            cand gc 'Remove expired entries and stale temporary files, then enforce the quota.'
            cand schema 'Print the JSON Schema (draft 2020-12) of one of spill''s JSON outputs.'
            cand view 'Open a stored output (or a file) for reading at a terminal: JSON in jless or fx when one is installed, else the whole document pretty-printed in the pager (coloured as extract colours it); text in the pager, and binary as the hex dump cat shows. Not available in restricted mode.'
            cand hook 'Answer one hook call of an agent harness (reads its hook JSON on stdin).'
            cand init 'Register spill''s hooks in an agent harness''s configuration.'
            cand mcp 'Serve stored outputs to an MCP client over stdio, or stand in front of an MCP server.'
            cand wait 'Wait for a running command (`wrap --detach-after`) to end, and print its envelope.'
            cand stop 'Stop a running command (`wrap --detach-after`): end its process group and seal its output.'
            cand stats 'What spill saved a scope: the bytes its commands printed, the bytes the model was sent for them (small outputs whole, envelopes), and the reads that followed and their bytes.'
            cand doctor 'Report, for each agent harness found, what spill does in it; change nothing.'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'spill;help;wrap'= {
        }
        &'spill;help;shape'= {
        }
        &'spill;help;extract'= {
        }
        &'spill;help;search'= {
        }
        &'spill;help;cat'= {
        }
        &'spill;help;ls'= {
        }
        &'spill;help;rm'= {
        }
        &'spill;help;gc'= {
        }
        &'spill;help;schema'= {
        }
        &'spill;help;view'= {
        }
        &'spill;help;hook'= {
        }
        &'spill;help;init'= {
        }
        &'spill;help;mcp'= {
            cand proxy 'Start an MCP server (stdio), or reach one over HTTP, and store its oversized tool results.'
        }
        &'spill;help;mcp;proxy'= {
        }
        &'spill;help;wait'= {
        }
        &'spill;help;stop'= {
        }
        &'spill;help;stats'= {
        }
        &'spill;help;doctor'= {
        }
        &'spill;help;help'= {
        }
    ]
    $completions[$command]
}
