#!/usr/bin/env python3
"""A scripted fake model server for the end-to-end tests (Python standard library only).

It listens on 127.0.0.1 only and speaks Anthropic's streaming /v1/messages (Claude Code).
The first user message of a conversation names a script: `SCRIPT:<path to a JSON file>`. The
file holds a list of steps; the model makes call k once it has seen k tool results, then answers
"done". A step is a shell command (a Bash call) or `{"tool": NAME, "input": {...}}` (any other
tool, e.g. an MCP tool). `{ref}` in a command is replaced by the last `sp_` ref seen in the
conversation's tool results, `{scope}` by the last `--scope NAME` seen there (Qwen Code's
answers name the scope its shell must read), and `{hint}` by the first command of the last
envelope's hint ("Read it with: CMD · …"), as a model that follows the envelope would run it
(and, in a tool's input, `"{session}"` by the last Codex "session ID N"); `{next}` by the last
`spill cat REF --since N` a result named (a running envelope's, a cursor footer's), `{file}` by
the last background task's output file Claude Code named. Every request body is appended to the log
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
SCOPE = re.compile(r"--scope ([A-Za-z0-9._-]+)")
SESSION = re.compile(r"session ID (\d+)")
# The last command that reads a running output on from its cursor (a running envelope's "New
# output: …", a `cat --since` footer's "next: …"), and the file Claude Code writes a background
# task's output to.
NEXT = re.compile(r"(spill cat sp_[0-9a-f]{16} --since \d+)")
OUTPUT_FILE = re.compile(r"Output is being written to: (\S+?\.output)")
HINT = re.compile(r"Read it with: (spill .*?)(?: · |\"|$)", re.M)


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
    scopes = SCOPE.findall("\n".join(results))
    hints = HINT.findall("\n".join(results))

    nexts = NEXT.findall("\n".join(results))
    files = OUTPUT_FILE.findall("\n".join(results))

    def fill(text):
        text = text.replace("{ref}", refs[-1] if refs else "sp_0000000000000000")
        text = text.replace("{next}", nexts[-1] if nexts else "echo no cursor")
        text = text.replace("{file}", files[-1] if files else "/nonexistent")
        text = text.replace("{hint}", hints[-1] if hints else "echo no hint")
        return text.replace("{scope}", scopes[-1] if scopes else "none")
    step = commands[len(results)]
    if isinstance(step, dict):
        # `{ref}` works in a tool's input too (an MCP call reading a spilled result), and
        # `"{session}"` is the last "session ID N" a result named (Codex's running process), as
        # a number.
        sessions = SESSION.findall("\n".join(results))
        text = fill(json.dumps(step)).replace('"{session}"', sessions[-1] if sessions else "0")
        return json.loads(text)
    command = fill(step)
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


def responses_messages(body):
    """OpenAI Responses API `input` items (Codex) as the message list next_step reads: user text
    and tool results (`function_call_output`) in order."""
    messages = []
    for item in body.get("input") or []:
        kind = item.get("type")
        if kind == "message" and item.get("role") == "user":
            texts = [c.get("text", "") for c in item.get("content") or [] if isinstance(c, dict)]
            messages.append({"role": "user", "content": "\n".join(texts)})
        elif kind == "function_call_output":
            output = item.get("output")
            if isinstance(output, list):
                output = "\n".join(c.get("text", "") for c in output if isinstance(c, dict))
            messages.append({"role": "user", "content": [
                {"type": "tool_result", "content": output if isinstance(output, str) else json.dumps(output)}]})
    # The script is named in some user message (Codex sends its environment context first).
    scripted = [m for m in messages if m["role"] == "user" and isinstance(m["content"], str)
                and SCRIPT.search(m["content"])]
    rest = [m for m in messages if not isinstance(m["content"], str)]
    return scripted[:1] + rest


def chat_messages(body):
    """OpenAI chat completions `messages` (opencode) as the message list next_step reads."""
    messages = []
    for m in body.get("messages") or []:
        content = m.get("content")
        if isinstance(content, list):
            content = "\n".join(c.get("text", "") for c in content if isinstance(c, dict))
        if m.get("role") == "user":
            messages.append({"role": "user", "content": content or ""})
        elif m.get("role") == "tool":
            messages.append({"role": "user", "content": [{"type": "tool_result", "content": content or ""}]})
    scripted = [m for m in messages if isinstance(m["content"], str) and SCRIPT.search(m["content"])]
    return scripted[:1] + [m for m in messages if not isinstance(m["content"], str)]


def chat_shell(body):
    """The shell tool a chat completions client offers: `run_shell_command` (Qwen Code) or
    `Shell` (Kimi CLI) when it is among the request's tools, else `bash` (opencode)."""
    names = {(t.get("function") or {}).get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
    return next((n for n in ("run_shell_command", "Shell") if n in names), "bash")


def chat_stream(model, step, call_id, shell="bash"):
    """The SSE chunks of one chat completion: a shell tool call (`shell`), or "done"."""
    def chunk(delta, finish=None):
        return ("data: " + json.dumps({"id": f"chatcmpl-{call_id}", "object": "chat.completion.chunk",
                                       "created": 0, "model": model, "choices": [
                                           {"index": 0, "delta": delta, "finish_reason": finish}]}) + "\n\n").encode()
    if step is None:
        yield chunk({"role": "assistant", "content": "done"})
        yield chunk({}, "stop")
    else:
        name, args = (shell, {"command": step["input"]["command"], "description": "scripted command"}) \
            if step["tool"] == "Bash" else (step["tool"], step["input"])
        yield chunk({"role": "assistant", "tool_calls": [{"index": 0, "id": f"call_{call_id}", "type": "function",
                                                          "function": {"name": name, "arguments": json.dumps(args)}}]})
        yield chunk({}, "tool_calls")
    yield b"data: [DONE]\n\n"


def gemini_messages(body):
    """Gemini API `contents` (Gemini CLI) as the message list next_step reads."""
    messages = []
    for content in body.get("contents") or []:
        for part in content.get("parts") or []:
            if content.get("role") == "user" and "text" in part:
                messages.append({"role": "user", "content": part["text"]})
            elif "functionResponse" in part:
                response = part["functionResponse"].get("response") or {}
                text = response.get("output", response.get("error"))
                messages.append({"role": "user", "content": [{"type": "tool_result", "content":
                                 text if isinstance(text, str) else json.dumps(response)}]})
    scripted = [m for m in messages if isinstance(m["content"], str) and SCRIPT.search(m["content"])]
    return scripted[:1] + [m for m in messages if not isinstance(m["content"], str)]


def gemini_reply(step):
    """One Gemini API response: a `run_shell_command` call (or another tool's), or "done"."""
    if step is None:
        part = {"text": "done"}
    elif step["tool"] == "Bash":
        part = {"functionCall": {"name": "run_shell_command", "args": {
            "command": step["input"]["command"], "description": "scripted command"}}}
    else:
        part = {"functionCall": {"name": step["tool"], "args": step["input"]}}
    return {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP",
                            "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}}


def responses_stream(step, call_id):
    """The SSE events of one Responses API reply: an `exec_command` call, or the text "done"."""
    rid = f"resp_{call_id}"
    yield sse("response.created", {"type": "response.created", "response": {"id": rid}})
    if step is None:
        item = {"type": "message", "role": "assistant", "id": f"msg_{call_id}",
                "content": [{"type": "output_text", "text": "done"}]}
    elif step["tool"] == "Bash":
        item = {"type": "function_call", "id": f"fc_{call_id}", "call_id": f"call_{call_id}",
                "name": "exec_command", "arguments": json.dumps({"cmd": step["input"]["command"]})}
    else:
        item = {"type": "function_call", "id": f"fc_{call_id}", "call_id": f"call_{call_id}",
                "name": step["tool"], "arguments": json.dumps(step["input"])}
        # An MCP tool: Codex offers each server's tools as a namespace (`mcp__SERVER`).
        if "namespace" in step:
            item["namespace"] = step["namespace"]
    yield sse("response.output_item.done", {"type": "response.output_item.done", "item": item})
    yield sse("response.completed", {"type": "response.completed", "response": {
        "id": rid, "usage": {"input_tokens": 10, "input_tokens_details": None, "output_tokens": 5,
                             "output_tokens_details": None, "total_tokens": 15}}})


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
        if ":streamGenerateContent" in path or ":generateContent" in path:
            step = next_step(gemini_messages(body))
            if ":generateContent" in path:
                return self.reply_json(gemini_reply(step))
            return self.reply_sse([f"data: {json.dumps(gemini_reply(step))}\n\n".encode()])
        if ":countTokens" in path:
            return self.reply_json({"totalTokens": 10})
        if path.endswith("/chat/completions"):
            step = next_step(chat_messages(body))
            return self.reply_sse(chat_stream(body.get("model", "m"), step, call_id, chat_shell(body)))
        if path.endswith("/responses"):
            return self.reply_sse(responses_stream(next_step(responses_messages(body)), call_id))
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

    def reply_sse(self, chunks):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        for chunk in chunks:
            self.wfile.write(chunk)
        self.wfile.flush()

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
