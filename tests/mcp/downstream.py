#!/usr/bin/env python3
"""A small MCP server on stdio (Python standard library) for spill's proxy tests.

Usage: downstream.py [MODE]. Tools: `small` (one short line), `text N` (N lines of text with a
marker line in the middle), `structured N` (N records as structuredContent, and the same JSON
as text), `blob N` (one text block of N bytes, written as fast as possible), `huge N` (one text block of N
bytes, `\n`-escaped lines, streamed in 1 MiB pieces so the server's memory stays small),
`notify N` (a notifications/message of N bytes of data, then a small result). `resources/read`
of test://rows/N: N lines of text. MODE changes how
`tools/call` is answered: `normal`; `crash` (exit 3 without answering); `hang` (never answer);
`garbage` (write a line that is not JSON-RPC instead); `deaf` (ignore the end of stdin and keep
running, so the proxy has to stop it). Newline-delimited JSON-RPC 2.0, as MCP's stdio transport.
"""

import json
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "normal"

TOOLS = [
    {"name": "small", "description": "a small result",
     "inputSchema": {"type": "object", "properties": {}}},
    {"name": "text", "description": "n lines of text",
     "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}},
    {"name": "structured", "description": "n records",
     "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}},
     "outputSchema": {"type": "object", "properties": {"items": {"type": "array"}}}},
    {"name": "blob", "description": "n bytes of text in one block",
     "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}},
]
# Not listed (the listing is compared in tests/mcp.rs): huge, notify.


def stream_huge(request_id, n):
    piece = ("y" * 63 + "\\n") * (1 << 14)  # 1 MiB of literal, 64 text bytes per line
    out = sys.stdout
    out.write(json.dumps({"jsonrpc": "2.0", "id": request_id, "result": {"content": [{"type": "text", "text": ""}]}})
              .replace('"text": ""', '"text": "', 1).split('"text": "')[0] + '"text": "')
    written = 0
    while written + len(piece) <= n:
        out.write(piece)
        written += len(piece)
    out.write("z" * (n - written))
    out.write('"}]}}\n')
    out.flush()


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def text_rows(n):
    rows = [f"row {i} of the result" for i in range(1, n + 1)]
    rows.insert(n // 2, "MARKER: the line in the middle")
    return "\n".join(rows) + "\n"


def result_of(name, args):
    n = int(args.get("n", 10))
    if name == "text":
        return {"content": [{"type": "text", "text": text_rows(n)}], "isError": False}
    if name == "structured":
        data = {"items": [{"id": i, "name": f"item {i}", "big": 12345678901234567890123} for i in range(n)]}
        # The big number is written as it stands, so the proxy must keep it exactly.
        raw = json.dumps(data)
        return {"content": [{"type": "text", "text": raw}], "structuredContent": data}
    if name == "blob":
        return {"content": [{"type": "text", "text": "x" * n}]}
    return {"content": [{"type": "text", "text": "small result\n"}]}


def main():
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error"}})
            continue
        method, request_id = message.get("method"), message.get("id")
        if request_id is None:
            if method == "notifications/ping-me":
                send({"jsonrpc": "2.0", "method": "notifications/message",
                      "params": {"level": "info", "data": "pong"}})
            continue
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": request_id, "result": {
                "protocolVersion": message["params"].get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {}}, "serverInfo": {"name": "downstream", "version": "1.0"}}})
        elif method == "resources/read":
            # test://rows/N: N lines of text.
            uri = message["params"]["uri"]
            n = int(uri.rsplit("/", 1)[-1])
            send({"jsonrpc": "2.0", "id": request_id, "result": {"contents": [
                {"uri": uri, "mimeType": "text/plain", "text": text_rows(n)}]}})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": request_id, "result": {"tools": TOOLS}})
        elif method == "tools/call":
            if MODE == "crash":
                sys.exit(3)
            if MODE == "hang":
                continue
            if MODE == "garbage":
                sys.stdout.write("Traceback (most recent call last): oops\n")
                sys.stdout.flush()
                continue
            params = message["params"]
            args = params.get("arguments") or {}
            if params["name"] == "huge":
                stream_huge(request_id, int(args.get("n", 10)))
                continue
            if params["name"] == "notify":
                send({"jsonrpc": "2.0", "method": "notifications/message",
                      "params": {"level": "info", "data": "n" * int(args.get("n", 10))}})
            send({"jsonrpc": "2.0", "id": request_id,
                  "result": result_of(params["name"], params.get("arguments") or {})})
        else:
            send({"jsonrpc": "2.0", "id": request_id,
                  "error": {"code": -32601, "message": "no such method"}})
    if MODE == "deaf":
        while True:
            time.sleep(1)


if __name__ == "__main__":
    main()
