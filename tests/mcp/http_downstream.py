#!/usr/bin/env python3
"""A small MCP server on the Streamable HTTP transport for `spill mcp proxy --url`'s tests
(standard library only). Listens on 127.0.0.1 (port chosen by the system, printed as the first
line of stdout) at /mcp, and appends one JSON line per HTTP request it gets (method, headers) to
LOG.

Tools: `headers` (its text is the JSON of the request's headers), `big` (a 200,000-byte text
result, sent as an SSE event whose data spans several lines, after a priming event and a
comment), `huge` (`megabytes` of text, streamed, for measuring memory by hand), `fail` (HTTP 500
with a text body), `moved` (a 303 to /elsewhere), `progress` (a progress notification on the SSE
stream, then the result). GET is 405; DELETE ends the session (200).

Usage: http_downstream.py LOG
"""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG = sys.argv[1]
SESSION = "session-7f3a"


def log(entry):
    with open(LOG, "a") as f:
        f.write(json.dumps(entry) + "\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def record(self, body=None):
        log({"method": self.command, "path": self.path,
             "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})

    def send(self, status, content_type=None, body=b"", headers=()):
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.record()
        self.send(405)

    def do_DELETE(self):
        self.record()
        self.send(200)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        message = json.loads(raw)
        self.record(message)
        if "id" not in message or "method" not in message:
            self.send(202)
            return
        reply = lambda result: {"jsonrpc": "2.0", "id": message["id"], "result": result}
        method = message["method"]
        if method == "initialize":
            result = {"protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
                      "serverInfo": {"name": "http-downstream", "version": "1"}}
            # Pretty-printed, over several lines: the proxy must make one line of it.
            body = json.dumps(reply(result), indent=2).encode()
            self.send(200, "application/json", body, [("Mcp-Session-Id", SESSION)])
        elif method == "tools/list":
            tools = [{"name": n, "inputSchema": {"type": "object"}} for n in ("headers", "big", "fail", "progress")]
            self.send(200, "application/json", json.dumps(reply({"tools": tools})).encode())
        elif method == "tools/call":
            name = message["params"]["name"]
            if name == "headers":
                seen = {k.lower(): v for k, v in self.headers.items()}
                text = json.dumps(seen, sort_keys=True)
                self.send(200, "application/json",
                          json.dumps(reply({"content": [{"type": "text", "text": text}]})).encode())
            elif name == "big":
                text = "".join(f"big line {i:06}\n" for i in range(1, 12501))
                data = json.dumps(reply({"content": [{"type": "text", "text": text}]}), indent=1)
                event = "".join(f"data: {line}\r\n" for line in data.split("\n"))
                body = (": a comment\n\nid: 0\nretry: 1000\ndata:\n\n" + "event: message\n" + event + "\r\n").encode()
                self.send(200, "text/event-stream", body)
            elif name == "huge":
                # MEGABYTES of text in one SSE event, streamed (the body ends when the connection
                # closes): for measuring the proxy's memory, not run by the tests.
                size = int(message["params"]["arguments"].get("megabytes", 100)) << 20
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                line = "x" * 1023 + "\\n"
                self.wfile.write(f'data: {{"jsonrpc":"2.0","id":{json.dumps(message["id"])},"result":{{"content":[{{"type":"text","text":"'.encode())
                chunk = (line * 1024).encode()
                for _ in range(size // len(chunk)):
                    self.wfile.write(chunk)
                self.wfile.write(b'"}]}}\n\n')
            elif name == "progress":
                token = message["params"].get("_meta", {}).get("progressToken", 0)
                note = {"jsonrpc": "2.0", "method": "notifications/progress",
                        "params": {"progressToken": token, "progress": 1, "total": 1}}
                body = (f"data: {json.dumps(note)}\n\n" f"data: {json.dumps(reply({'content': []}))}\n\n").encode()
                self.send(200, "text/event-stream", body)
            elif name == "moved":
                self.send(303, "text/plain", b"", [("Location", "/elsewhere")])
            else:
                self.send(500, "text/plain", b"the tool broke\n")
        else:
            error = {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": method}}
            self.send(404, "application/json", json.dumps(error).encode())


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
