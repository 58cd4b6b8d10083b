#!/usr/bin/env python3
"""A minimal MCP server on stdio (Python standard library) for the end-to-end tests.

Tools: `big` returns about 500 KB of text (an error line in the middle, a distinctive last
line); `k300` about 300 KB ending in a failure line; `small` returns one short line. Newline-delimited JSON-RPC 2.0, as MCP's stdio transport.
"""

import json
import sys


def big_text():
    rows = [f"mcp row {i} of the big result" for i in range(1, 9001)]
    rows.append("error[E0002]: the MCP tool failed in the middle")
    rows += [f"mcp row {i} of the big result" for i in range(9001, 18001)]
    rows.append("LAST MCP LINE: done")
    return "\n".join(rows) + "\n"


TOOLS = [
    {"name": "big", "description": "a big result", "inputSchema": {"type": "object", "properties": {}}},
    {"name": "medium", "description": "a 60 KB result", "inputSchema": {"type": "object", "properties": {}}},
    {"name": "small", "description": "a small result", "inputSchema": {"type": "object", "properties": {}}},
    {"name": "k200", "description": "a 200 KB result", "inputSchema": {"type": "object", "properties": {}}},
    {"name": "k300", "description": "a 300 KB result ending in a failure line",
     "inputSchema": {"type": "object", "properties": {}}},
]

K300_FAILURE = "error[E0300]: the MCP tool failed at the very end"


def reply(request_id, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}) + "\n")
    sys.stdout.flush()


def main():
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        method, request_id = message.get("method"), message.get("id")
        if request_id is None:
            continue  # a notification
        if method == "initialize":
            reply(request_id, {"protocolVersion": message["params"].get("protocolVersion", "2025-06-18"),
                               "capabilities": {"tools": {}},
                               "serverInfo": {"name": "fake", "version": "1.0"}})
        elif method == "tools/list":
            reply(request_id, {"tools": TOOLS})
        elif method == "tools/call":
            name = message["params"]["name"]
            text = {"big": big_text(), "medium": "medium row\n" * 6000,
                    "k200": "k200 row of the proxied result\n" * 6400 + "K200 LAST LINE\n",
                    "k300": "".join(f"k300 row {i} of the proxied result\n" for i in range(1, 8201))
                    + K300_FAILURE + "\n"}.get(name, "small result\n")
            reply(request_id, {"content": [{"type": "text", "text": text}], "isError": False})
        else:
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": request_id,
                                         "error": {"code": -32601, "message": "no such method"}}) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
