
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'spill' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'spill'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'spill' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]')
            [CompletionResult]::new('--quota', '--quota', [CompletionResultType]::ParameterName, 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]')
            [CompletionResult]::new('--max-file', '--max-file', [CompletionResultType]::ParameterName, 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)')
            [CompletionResult]::new('--paging', '--paging', [CompletionResultType]::ParameterName, 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('wrap', 'wrap', [CompletionResultType]::ParameterValue, 'Read stdin (or run CMD) and pass it through, or store it and print an envelope.')
            [CompletionResult]::new('shape', 'shape', [CompletionResultType]::ParameterValue, 'Print the structural skeleton of a JSON document or NDJSON stream as one line of JSON.')
            [CompletionResult]::new('extract', 'extract', [CompletionResultType]::ParameterValue, 'Select parts of a JSON document with a JSONPath query (RFC 9535) and print them, bounded.')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Find occurrences of a regex in a stored output (or a file), counted exactly, a page at a time.')
            [CompletionResult]::new('cat', 'cat', [CompletionResultType]::ParameterValue, 'Print part of a stored output or a file, bounded and paged.')
            [CompletionResult]::new('ls', 'ls', [CompletionResultType]::ParameterValue, 'List stored outputs: ref, size, kind, age, label, summary; newest first.')
            [CompletionResult]::new('rm', 'rm', [CompletionResultType]::ParameterValue, 'Remove stored outputs by ref, or all outputs of the current scope.')
            [CompletionResult]::new('gc', 'gc', [CompletionResultType]::ParameterValue, 'Remove expired entries and stale temporary files, then enforce the quota.')
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'Print the JSON Schema (draft 2020-12) of one of spill''s JSON outputs.')
            [CompletionResult]::new('view', 'view', [CompletionResultType]::ParameterValue, 'Open a stored output (or a file) for reading at a terminal: JSON in jless or fx when one is installed, else the whole document pretty-printed in the pager (coloured as extract colours it); text in the pager, and binary as the hex dump cat shows. Not available in restricted mode.')
            [CompletionResult]::new('hook', 'hook', [CompletionResultType]::ParameterValue, 'Answer one hook call of an agent harness (reads its hook JSON on stdin).')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Register spill''s hooks in an agent harness''s configuration.')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve stored outputs to an MCP client over stdio, or stand in front of an MCP server.')
            [CompletionResult]::new('wait', 'wait', [CompletionResultType]::ParameterValue, 'Wait for a running command (`wrap --detach-after`) to end, and print its envelope.')
            [CompletionResult]::new('stop', 'stop', [CompletionResultType]::ParameterValue, 'Stop a running command (`wrap --detach-after`): end its process group and seal its output.')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'What spill saved a scope: the bytes its commands printed, the bytes the model was sent for them (small outputs whole, envelopes), and the reads that followed and their bytes.')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Report, for each agent harness found, what spill does in it; change nothing.')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'spill;wrap' {
            [CompletionResult]::new('--max-inline', '--max-inline', [CompletionResultType]::ParameterName, 'Outputs up to this size pass through untouched [env: SPILL_MAX_INLINE] [default: 16KiB]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Envelope format [env: SPILL_FORMAT] [default: json]')
            [CompletionResult]::new('--preview', '--preview', [CompletionResultType]::ParameterName, 'Budget shared by the preview and the signals')
            [CompletionResult]::new('--head-lines', '--head-lines', [CompletionResultType]::ParameterName, 'Lines shown from the start of a text preview (overrides the 1/3 head budget)')
            [CompletionResult]::new('--tail-lines', '--tail-lines', [CompletionResultType]::ParameterName, 'Lines shown from the end of a text preview (overrides the 2/3 tail budget)')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'A free-form label (e.g. the command), stored and echoed in the envelope')
            [CompletionResult]::new('--turn', '--turn', [CompletionResultType]::ParameterName, 'The turn this output belongs to: outputs of one turn share --turn-budget [env: SPILL_TURN]')
            [CompletionResult]::new('--turn-budget', '--turn-budget', [CompletionResultType]::ParameterName, 'The most bytes one turn passes through inline; later outputs are stored instead [env: SPILL_TURN_BUDGET] [default: 64KiB]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'With CMD: kill it after this long and exit 124, like timeout(1)')
            [CompletionResult]::new('--detach-after', '--detach-after', [CompletionResultType]::ParameterName, 'With CMD: return after this long even if CMD is still running, with a running envelope (its ref, the output so far, the commands that read on, wait and stop); CMD goes on under a supervisor and its output into the store (e.g. 100s, 500ms)')
            [CompletionResult]::new('--report-after', '--report-after', [CompletionResultType]::ParameterName, 'After this long, if CMD is still running (or stdin has not ended), print a running envelope (as --detach-after does) and go on waiting: the final envelope follows at the end, and wrap exits with CMD''s status (for a harness that keeps a long command running and reads its output as it comes, like Codex and Claude Code)')
            [CompletionResult]::new('--report-every', '--report-every', [CompletionResultType]::ParameterName, 'With --report-after: while CMD runs on (or stdin has not ended), print one line every this long after the running envelope, with the bytes and lines so far and the command that reads what is new (for a harness that cancels a command that prints nothing for a while, like Gemini CLI)')
            [CompletionResult]::new('--supervise', '--supervise', [CompletionResultType]::ParameterName, 'Internal: run as the supervisor of the running entry ID (started by --detach-after)')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]')
            [CompletionResult]::new('--quota', '--quota', [CompletionResultType]::ParameterName, 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]')
            [CompletionResult]::new('--max-file', '--max-file', [CompletionResultType]::ParameterName, 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)')
            [CompletionResult]::new('--paging', '--paging', [CompletionResultType]::ParameterName, 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode')
            [CompletionResult]::new('--redact', '--redact', [CompletionResultType]::ParameterName, 'Replace secrets (API keys, tokens, private keys, secret env values) with [REDACTED] [env: SPILL_REDACT=1]')
            [CompletionResult]::new('--condense', '--condense', [CompletionResultType]::ParameterName, 'Print an output that would pass through (1 KiB up to --max-inline) as its condensed view when that is at most half of it: runs of similar lines collapse to their first and last line and a marker with the command that prints the rest; every other line is shown; the whole is stored and the view ends with its ref [env: SPILL_CONDENSE=1]')
            [CompletionResult]::new('--skip-invalid', '--skip-invalid', [CompletionResultType]::ParameterName, 'NDJSON: skip and count the lines that are not exactly one JSON value ("skippedLines"), instead of describing the output as text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'spill;shape' {
            [CompletionResult]::new('--max-depth', '--max-depth', [CompletionResultType]::ParameterName, 'Container levels shown; deeper ones become `"object(12 keys)"` / `"array[300]"`')
            [CompletionResult]::new('--depth', '--depth', [CompletionResultType]::ParameterName, 'Container levels shown; deeper ones become `"object(12 keys)"` / `"array[300]"`')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'The skeleton never exceeds this size (at least 256 bytes)')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]')
            [CompletionResult]::new('--quota', '--quota', [CompletionResultType]::ParameterName, 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]')
            [CompletionResult]::new('--max-file', '--max-file', [CompletionResultType]::ParameterName, 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)')
            [CompletionResult]::new('--paging', '--paging', [CompletionResultType]::ParameterName, 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode')
            [CompletionResult]::new('--paths', '--paths', [CompletionResultType]::ParameterName, 'Print one line per distinct path instead: `$.items[*].tags[*]  string  3812`')
            [CompletionResult]::new('--skip-invalid', '--skip-invalid', [CompletionResultType]::ParameterName, 'NDJSON: skip and count the lines that are not exactly one JSON value, instead of failing at the first (indexes count only the records)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'spill;extract' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read the query from FILE (one trailing line break ignored), like `jq -f`: for queries holding characters a command line cannot carry')
            [CompletionResult]::new('--from-file', '--from-file', [CompletionResultType]::ParameterName, 'Read the query from FILE (one trailing line break ignored), like `jq -f`: for queries holding characters a command line cannot carry')
            [CompletionResult]::new('--offset', '--offset', [CompletionResultType]::ParameterName, 'Skip this many selected nodes (to page through a long list)')
            [CompletionResult]::new('--max-items', '--max-items', [CompletionResultType]::ParameterName, 'Elements or members shown per container, and nodes per list')
            [CompletionResult]::new('--max-depth', '--max-depth', [CompletionResultType]::ParameterName, 'Container levels shown; deeper ones become "… object(12 keys): …" / "… array[300]: …"')
            [CompletionResult]::new('--max-string', '--max-string', [CompletionResultType]::ParameterName, 'Characters shown per string')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'The whole output stays within this size, at least 128 bytes (0 lifts every bound) [default: 16KiB]')
            [CompletionResult]::new('--footer', '--footer', [CompletionResultType]::ParameterName, 'Where the notice about cuts goes [env: SPILL_FOOTER] [default: stderr]')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]')
            [CompletionResult]::new('--quota', '--quota', [CompletionResultType]::ParameterName, 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]')
            [CompletionResult]::new('--max-file', '--max-file', [CompletionResultType]::ParameterName, 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)')
            [CompletionResult]::new('--paging', '--paging', [CompletionResultType]::ParameterName, 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode')
            [CompletionResult]::new('--nodes', '--nodes', [CompletionResultType]::ParameterName, 'Print [{"path": …, "value": …}] with RFC 9535 normalized paths')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Print selected strings without quotes, one per line; other values compact')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'Print selected strings without quotes, one per line; other values compact')
            [CompletionResult]::new('--compact', '--compact', [CompletionResultType]::ParameterName, 'Print JSON on one line instead of indenting by 2 spaces')
            [CompletionResult]::new('--unbounded', '--unbounded', [CompletionResultType]::ParameterName, 'Lift every bound: print everything selected')
            [CompletionResult]::new('--skip-invalid', '--skip-invalid', [CompletionResultType]::ParameterName, 'NDJSON: skip and count the lines that are not exactly one JSON value, instead of failing at the first (indexes count only the records)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'spill;search' {
            [CompletionResult]::new('-e', '-e', [CompletionResultType]::ParameterName, 'A pattern to search for; repeat to find any of several')
            [CompletionResult]::new('--regexp', '--regexp', [CompletionResultType]::ParameterName, 'A pattern to search for; repeat to find any of several')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Show N lines after each match')
            [CompletionResult]::new('--after-context', '--after-context', [CompletionResultType]::ParameterName, 'Show N lines after each match')
            [CompletionResult]::new('-B', '-B ', [CompletionResultType]::ParameterName, 'Show N lines before each match')
            [CompletionResult]::new('--before-context', '--before-context', [CompletionResultType]::ParameterName, 'Show N lines before each match')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Show N lines before and after each match (-A and -B take precedence)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'Show N lines before and after each match (-A and -B take precedence)')
            [CompletionResult]::new('--offset', '--offset', [CompletionResultType]::ParameterName, 'Skip this many matches (the footer''s `next:` gives the next page''s offset)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Show at most this many matches')
            [CompletionResult]::new('--max-columns', '--max-columns', [CompletionResultType]::ParameterName, 'Lines longer than this many characters are shown as a window around the match (0: whole lines, within --max-bytes)')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'The page''s rows (numbers and text of matches and context lines) stay within this size; a page that reaches it ends early and `next:` continues (0: no limit)')
            [CompletionResult]::new('--footer', '--footer', [CompletionResultType]::ParameterName, 'Where the `next:` footer goes [env: SPILL_FOOTER] [default: stderr]')
            [CompletionResult]::new('--resume', '--resume', [CompletionResultType]::ParameterName, 'With --all: continue from this cursor (REF:SKIP:CREATED, as the footer''s `next:` gives it)')
            [CompletionResult]::new('--max-outputs', '--max-outputs', [CompletionResultType]::ParameterName, 'With --all: read at most this many stored outputs per call, newest first (0: no limit); the footer''s `next:` reaches the older ones')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]')
            [CompletionResult]::new('--quota', '--quota', [CompletionResultType]::ParameterName, 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]')
            [CompletionResult]::new('--max-file', '--max-file', [CompletionResultType]::ParameterName, 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)')
            [CompletionResult]::new('--paging', '--paging', [CompletionResultType]::ParameterName, 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode')
            [CompletionResult]::new('-F', '-F ', [CompletionResultType]::ParameterName, 'Treat the patterns as literal strings, not regexes')
            [CompletionResult]::new('--fixed-strings', '--fixed-strings', [CompletionResultType]::ParameterName, 'Treat the patterns as literal strings, not regexes')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Match case-insensitively')
            [CompletionResult]::new('--ignore-case', '--ignore-case', [CompletionResultType]::ParameterName, 'Match case-insensitively')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Match only whole words')
            [CompletionResult]::new('--word-regexp', '--word-regexp', [CompletionResultType]::ParameterName, 'Match only whole words')
            [CompletionResult]::new('--unbounded', '--unbounded', [CompletionResultType]::ParameterName, 'Lift --max-bytes and --max-columns: whole lines, however long (--limit still pages)')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'Print only the number of matches (exit 1 when 0)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON object: the matches, the total and the pagination')
            [CompletionResult]::new('--paths', '--paths', [CompletionResultType]::ParameterName, 'Give each match the normalized JSONPath of the value (or key) holding it (LINE:COLUMN:PATH:text), ready for `spill extract`; JSON and NDJSON sources only')
            [CompletionResult]::new('--skip-invalid', '--skip-invalid', [CompletionResultType]::ParameterName, 'With --paths on NDJSON: skip and count the lines that are not exactly one JSON value (as `extract --skip-invalid` does, so the paths index the same records)')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'Search the stored bytes as they are (no cleaning of escape sequences and `\r` frames), and print them on a terminal without escaping control characters')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Search every stored output of the scope, newest first (no SOURCE); rows are labelled with their ref. Running entries are not searched')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'spill;cat' {
            [CompletionResult]::new('--lines', '--lines', [CompletionResultType]::ParameterName, 'Lines A to B, 1-based and inclusive; either side may be omitted (`100:`, `:20`)')
            [CompletionResult]::new('--bytes', '--bytes', [CompletionResultType]::ParameterName, 'Bytes A to B, 0-based and end-exclusive; either side may be omitted')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'Cap on an explicit range (0: no limit)')
            [CompletionResult]::new('--max-columns', '--max-columns', [CompletionResultType]::ParameterName, 'Lines longer than this many characters are cut with a marker, unless --raw (0: no limit; --max-bytes still bounds the page)')
            [CompletionResult]::new('--footer', '--footer', [CompletionResultType]::ParameterName, 'Where the `next:` footer goes [env: SPILL_FOOTER] [default: stderr]')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Print only the output from this cursor on, as stored (a running entry''s envelope and footers give the cursor; a file''s is its byte offset); the footer gives the next one')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]')
            [CompletionResult]::new('--quota', '--quota', [CompletionResultType]::ParameterName, 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]')
            [CompletionResult]::new('--max-file', '--max-file', [CompletionResultType]::ParameterName, 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)')
            [CompletionResult]::new('--paging', '--paging', [CompletionResultType]::ParameterName, 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'Print bytes exactly as stored: no cleaning of escape sequences and `\r` frames, no line cutting, no escaping on a terminal')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Print a hexdump -C style dump')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'spill;ls' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]')
            [CompletionResult]::new('--quota', '--quota', [CompletionResultType]::ParameterName, 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]')
            [CompletionResult]::new('--max-file', '--max-file', [CompletionResultType]::ParameterName, 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)')
            [CompletionResult]::new('--paging', '--paging', [CompletionResultType]::ParameterName, 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON object instead of a table')
            [CompletionResult]::new('--all-scopes', '--all-scopes', [CompletionResultType]::ParameterName, 'List every scope of the root, not only the current one')
            [CompletionResult]::new('--complete', '--complete', [CompletionResultType]::ParameterName, 'For shell completion: one `REF<TAB>LABEL` line per entry (the label, or the summary when there is none, on one line of at most 60 characters)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'spill;rm' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]')
            [CompletionResult]::new('--quota', '--quota', [CompletionResultType]::ParameterName, 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]')
            [CompletionResult]::new('--max-file', '--max-file', [CompletionResultType]::ParameterName, 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)')
            [CompletionResult]::new('--paging', '--paging', [CompletionResultType]::ParameterName, 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Remove every entry of the current scope')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON object instead of lines')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'spill;gc' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]')
            [CompletionResult]::new('--quota', '--quota', [CompletionResultType]::ParameterName, 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]')
            [CompletionResult]::new('--max-file', '--max-file', [CompletionResultType]::ParameterName, 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)')
            [CompletionResult]::new('--paging', '--paging', [CompletionResultType]::ParameterName, 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Report what would be removed; remove nothing')
            [CompletionResult]::new('--all-scopes', '--all-scopes', [CompletionResultType]::ParameterName, 'Expire entries and sweep temporary files in every scope of the root')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON object instead of lines')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'spill;schema' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]')
            [CompletionResult]::new('--quota', '--quota', [CompletionResultType]::ParameterName, 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]')
            [CompletionResult]::new('--max-file', '--max-file', [CompletionResultType]::ParameterName, 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)')
            [CompletionResult]::new('--paging', '--paging', [CompletionResultType]::ParameterName, 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'spill;view' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]')
            [CompletionResult]::new('--quota', '--quota', [CompletionResultType]::ParameterName, 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]')
            [CompletionResult]::new('--max-file', '--max-file', [CompletionResultType]::ParameterName, 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)')
            [CompletionResult]::new('--paging', '--paging', [CompletionResultType]::ParameterName, 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'spill;hook' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]')
            [CompletionResult]::new('--quota', '--quota', [CompletionResultType]::ParameterName, 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]')
            [CompletionResult]::new('--max-file', '--max-file', [CompletionResultType]::ParameterName, 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)')
            [CompletionResult]::new('--paging', '--paging', [CompletionResultType]::ParameterName, 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'spill;init' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]')
            [CompletionResult]::new('--quota', '--quota', [CompletionResultType]::ParameterName, 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]')
            [CompletionResult]::new('--max-file', '--max-file', [CompletionResultType]::ParameterName, 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)')
            [CompletionResult]::new('--paging', '--paging', [CompletionResultType]::ParameterName, 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Configure the project in the current directory')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'Configure the user''s settings (the default)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print what would change as a unified diff; write nothing')
            [CompletionResult]::new('--uninstall', '--uninstall', [CompletionResultType]::ParameterName, 'Remove spill''s hooks instead (and its MCP proxy routes and `spill mcp` server, with or without --proxy-mcp and --mcp)')
            [CompletionResult]::new('--proxy-mcp', '--proxy-mcp', [CompletionResultType]::ParameterName, 'Also route each stdio MCP server the harness registers through `spill mcp proxy` (Codex, opencode, Kilo Code: their MCP results have no hook that can replace them)')
            [CompletionResult]::new('--mcp', '--mcp', [CompletionResultType]::ParameterName, 'Also register `spill mcp` as the harness''s MCP server `spill`, so the model can read stored outputs through its tools as well as through the shell')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'spill;mcp' {
            [CompletionResult]::new('--page-size', '--page-size', [CompletionResultType]::ParameterName, 'Resources listed per `resources/list` page (the rest follow by cursor)')
            [CompletionResult]::new('--http', '--http', [CompletionResultType]::ParameterName, 'Serve over Streamable HTTP at ADDR (PORT on 127.0.0.1, IP:PORT, localhost:PORT), endpoint /mcp, instead of stdio. Any address that is not loopback needs a bearer token')
            [CompletionResult]::new('--token-file', '--token-file', [CompletionResultType]::ParameterName, 'The bearer token for --http, read from FILE [env: SPILL_MCP_TOKEN]; never from argv')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Refused: a token on the command line is visible to every user (ps)')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]')
            [CompletionResult]::new('--quota', '--quota', [CompletionResultType]::ParameterName, 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]')
            [CompletionResult]::new('--max-file', '--max-file', [CompletionResultType]::ParameterName, 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)')
            [CompletionResult]::new('--paging', '--paging', [CompletionResultType]::ParameterName, 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode')
            [CompletionResult]::new('--allow-run', '--allow-run', [CompletionResultType]::ParameterName, 'Also offer a `run` tool that runs a command under `spill wrap` (refused in restricted mode)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('proxy', 'proxy', [CompletionResultType]::ParameterValue, 'Start an MCP server (stdio), or reach one over HTTP, and store its oversized tool results.')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'spill;mcp;proxy' {
            [CompletionResult]::new('--max-inline', '--max-inline', [CompletionResultType]::ParameterName, 'Results up to this size pass through untouched [env: SPILL_MAX_INLINE] [default: 16KiB]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'A request the downstream has not answered after this long gets an error')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'The downstream is the Streamable HTTP MCP server at URL (http or https), not a command')
            [CompletionResult]::new('--header', '--header', [CompletionResultType]::ParameterName, 'A header sent to --url with every request, `NAME: VALUE`; `${VAR}` in VALUE is the environment variable''s value (keep tokens out of argv). Repeatable')
            [CompletionResult]::new('--headers-file', '--headers-file', [CompletionResultType]::ParameterName, 'Headers for --url from FILE, one `NAME: VALUE` a line (# starts a comment)')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]')
            [CompletionResult]::new('--quota', '--quota', [CompletionResultType]::ParameterName, 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]')
            [CompletionResult]::new('--max-file', '--max-file', [CompletionResultType]::ParameterName, 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)')
            [CompletionResult]::new('--paging', '--paging', [CompletionResultType]::ParameterName, 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'spill;mcp;help' {
            [CompletionResult]::new('proxy', 'proxy', [CompletionResultType]::ParameterValue, 'Start an MCP server (stdio), or reach one over HTTP, and store its oversized tool results.')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'spill;mcp;help;proxy' {
            break
        }
        'spill;mcp;help;help' {
            break
        }
        'spill;wait' {
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Give up after this long (e.g. 90s, 500ms) and show what is new; without it, wait for the end')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'At the timeout, show the output from this cursor on (a `cursor` an earlier answer gave)')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'At the timeout, show at most this much new output')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]')
            [CompletionResult]::new('--quota', '--quota', [CompletionResultType]::ParameterName, 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]')
            [CompletionResult]::new('--max-file', '--max-file', [CompletionResultType]::ParameterName, 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)')
            [CompletionResult]::new('--paging', '--paging', [CompletionResultType]::ParameterName, 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'spill;stop' {
            [CompletionResult]::new('--grace', '--grace', [CompletionResultType]::ParameterName, 'How long the command has to end after SIGTERM before SIGKILL')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]')
            [CompletionResult]::new('--quota', '--quota', [CompletionResultType]::ParameterName, 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]')
            [CompletionResult]::new('--max-file', '--max-file', [CompletionResultType]::ParameterName, 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)')
            [CompletionResult]::new('--paging', '--paging', [CompletionResultType]::ParameterName, 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'spill;stats' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]')
            [CompletionResult]::new('--quota', '--quota', [CompletionResultType]::ParameterName, 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]')
            [CompletionResult]::new('--max-file', '--max-file', [CompletionResultType]::ParameterName, 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)')
            [CompletionResult]::new('--paging', '--paging', [CompletionResultType]::ParameterName, 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON object instead of text')
            [CompletionResult]::new('--all-scopes', '--all-scopes', [CompletionResultType]::ParameterName, 'Every scope of the root with a tally, and their total')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'spill;doctor' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>]')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE]')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default]')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'Entries expire this long after their last access [env: SPILL_TTL] [default: 24h]')
            [CompletionResult]::new('--quota', '--quota', [CompletionResultType]::ParameterName, 'The most bytes the store root holds [env: SPILL_QUOTA] [default: 1GiB]')
            [CompletionResult]::new('--max-file', '--max-file', [CompletionResultType]::ParameterName, 'Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] [default: 256MiB]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured)')
            [CompletionResult]::new('--paging', '--paging', [CompletionResultType]::ParameterName, 'When the reading commands show their output through a pager (SPILL_PAGER, then PAGER, else `less -FRX`); never in restricted mode')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'spill;help' {
            [CompletionResult]::new('wrap', 'wrap', [CompletionResultType]::ParameterValue, 'Read stdin (or run CMD) and pass it through, or store it and print an envelope.')
            [CompletionResult]::new('shape', 'shape', [CompletionResultType]::ParameterValue, 'Print the structural skeleton of a JSON document or NDJSON stream as one line of JSON.')
            [CompletionResult]::new('extract', 'extract', [CompletionResultType]::ParameterValue, 'Select parts of a JSON document with a JSONPath query (RFC 9535) and print them, bounded.')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Find occurrences of a regex in a stored output (or a file), counted exactly, a page at a time.')
            [CompletionResult]::new('cat', 'cat', [CompletionResultType]::ParameterValue, 'Print part of a stored output or a file, bounded and paged.')
            [CompletionResult]::new('ls', 'ls', [CompletionResultType]::ParameterValue, 'List stored outputs: ref, size, kind, age, label, summary; newest first.')
            [CompletionResult]::new('rm', 'rm', [CompletionResultType]::ParameterValue, 'Remove stored outputs by ref, or all outputs of the current scope.')
            [CompletionResult]::new('gc', 'gc', [CompletionResultType]::ParameterValue, 'Remove expired entries and stale temporary files, then enforce the quota.')
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'Print the JSON Schema (draft 2020-12) of one of spill''s JSON outputs.')
            [CompletionResult]::new('view', 'view', [CompletionResultType]::ParameterValue, 'Open a stored output (or a file) for reading at a terminal: JSON in jless or fx when one is installed, else the whole document pretty-printed in the pager (coloured as extract colours it); text in the pager, and binary as the hex dump cat shows. Not available in restricted mode.')
            [CompletionResult]::new('hook', 'hook', [CompletionResultType]::ParameterValue, 'Answer one hook call of an agent harness (reads its hook JSON on stdin).')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Register spill''s hooks in an agent harness''s configuration.')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve stored outputs to an MCP client over stdio, or stand in front of an MCP server.')
            [CompletionResult]::new('wait', 'wait', [CompletionResultType]::ParameterValue, 'Wait for a running command (`wrap --detach-after`) to end, and print its envelope.')
            [CompletionResult]::new('stop', 'stop', [CompletionResultType]::ParameterValue, 'Stop a running command (`wrap --detach-after`): end its process group and seal its output.')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'What spill saved a scope: the bytes its commands printed, the bytes the model was sent for them (small outputs whole, envelopes), and the reads that followed and their bytes.')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Report, for each agent harness found, what spill does in it; change nothing.')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'spill;help;wrap' {
            break
        }
        'spill;help;shape' {
            break
        }
        'spill;help;extract' {
            break
        }
        'spill;help;search' {
            break
        }
        'spill;help;cat' {
            break
        }
        'spill;help;ls' {
            break
        }
        'spill;help;rm' {
            break
        }
        'spill;help;gc' {
            break
        }
        'spill;help;schema' {
            break
        }
        'spill;help;view' {
            break
        }
        'spill;help;hook' {
            break
        }
        'spill;help;init' {
            break
        }
        'spill;help;mcp' {
            [CompletionResult]::new('proxy', 'proxy', [CompletionResultType]::ParameterValue, 'Start an MCP server (stdio), or reach one over HTTP, and store its oversized tool results.')
            break
        }
        'spill;help;mcp;proxy' {
            break
        }
        'spill;help;wait' {
            break
        }
        'spill;help;stop' {
            break
        }
        'spill;help;stats' {
            break
        }
        'spill;help;doctor' {
            break
        }
        'spill;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
