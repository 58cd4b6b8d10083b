#!/usr/bin/env python3
"""A scripted fake model server for the end-to-end tests (Python standard library only).

It listens on 127.0.0.1 only and speaks Anthropic's streaming /v1/messages (Claude Code).
The first user message of a conversation names a script: `SCRIPT:<path to a JSON file>`. The
file holds a list of steps; the model makes call k once it has seen k tool results, then answers
"done". A step is a shell command (a Bash call) or `{"tool": NAME, "input": {...}}` (any other
tool, e.g. an MCP tool). `{ref}` in a command is replaced by the last `sp_` ref seen in the
conversation's tool results. Every request body is appended to the log
file as one JSON line, so the test reads exactly what the harness sent to the model.

Usage: fake_model.py LOG_FILE PORT_FILE   (writes the chosen port to PORT_FILE)
"""

import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG_LOCK = threading.Lock()
REF = re.compile(r"sp_[0-9a-f]{16}")
SCRIPT = re.compile(r"SCRIPT:(\S+)")


def text_of(content):
    """All the text in a message's content (a string or a list of blocks), tool results included."""
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            parts.append(block.get("text", ""))
        elif block.get("type") == "tool_result":
            parts.append(text_of(block.get("content")))
    return "\n".join(parts)


def tool_results(messages):
    """The tool results of a conversation, oldest first, as text."""
    out = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    out.append(text_of(block.get("content")))
    return out


def next_step(messages):
    """The command the model runs next, or None when the script is done or absent."""
    first = next((m for m in messages if m.get("role") == "user"), None)
    if first is None:
        return None
    found = SCRIPT.search(text_of(first.get("content")))
    if not found:
        return None
    with open(found.group(1), encoding="utf-8") as f:
        commands = json.load(f)
    results = tool_results(messages)
    if len(results) >= len(commands):
        return None
    refs = REF.findall("\n".join(results))
    step = commands[len(results)]
    if isinstance(step, dict):
        # `{ref}` works in a tool's input too (an MCP call reading a spilled result).
        return json.loads(json.dumps(step).replace("{ref}", refs[-1] if refs else "sp_0000000000000000"))
    command = step.replace("{ref}", refs[-1] if refs else "sp_0000000000000000")
    return {"tool": "Bash", "input": {"command": command, "description": "scripted command"}}


def sse(event, data):
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def anthropic_stream(model, step, call_id):
    """The SSE events of one assistant message: a tool call, or the text "done"."""
    usage = {"input_tokens": 10, "output_tokens": 1}
    yield sse("message_start", {"type": "message_start", "message": {
        "id": f"msg_{call_id}", "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}})
    if step is None:
        yield sse("content_block_start", {"type": "content_block_start", "index": 0,
                                          "content_block": {"type": "text", "text": ""}})
        yield sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                          "delta": {"type": "text_delta", "text": "done"}})
        stop = "end_turn"
    else:
        yield sse("content_block_start", {"type": "content_block_start", "index": 0,
                                          "content_block": {"type": "tool_use", "id": f"toolu_{call_id}",
                                                            "name": step["tool"], "input": {}}})
        arguments = json.dumps(step["input"])
        yield sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                          "delta": {"type": "input_json_delta", "partial_json": arguments}})
        stop = "tool_use"
    yield sse("content_block_stop", {"type": "content_block_stop", "index": 0})
    yield sse("message_delta", {"type": "message_delta",
                                "delta": {"stop_reason": stop, "stop_sequence": None},
                                "usage": {"output_tokens": 5}})
    yield sse("message_stop", {"type": "message_stop"})


class Handler(BaseHTTPRequestHandler):
    counter = 0

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            body = {}
        with LOG_LOCK:
            Handler.counter += 1
            call_id = Handler.counter
            with open(self.server.log_file, "a", encoding="utf-8") as log:
                log.write(json.dumps({"path": self.path, "body": body}) + "\n")
        path = self.path.split("?")[0]
        if path.endswith("/v1/messages/count_tokens"):
            return self.reply_json({"input_tokens": 10})
        if path.endswith("/v1/messages"):
            command = next_step(body.get("messages") or [])
            if body.get("stream"):
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()
                for chunk in anthropic_stream(body.get("model", "m"), command, call_id):
                    self.wfile.write(chunk)
                self.wfile.flush()
                return None
            return self.reply_json({
                "id": f"msg_{call_id}", "type": "message", "role": "assistant",
                "model": body.get("model", "m"), "stop_reason": "end_turn", "stop_sequence": None,
                "content": [{"type": "text", "text": "done"}],
                "usage": {"input_tokens": 10, "output_tokens": 1}})
        return self.reply_json({"error": "not scripted"}, 404)

    def do_GET(self):
        return self.reply_json({"data": []})

    def reply_json(self, value, status=200):
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def main():
    log_file, port_file = sys.argv[1], sys.argv[2]
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.log_file = log_file
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    import os
    os.replace(port_file + ".tmp", port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
