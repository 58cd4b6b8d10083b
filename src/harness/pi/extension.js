// spill's pi extension: written by `spill init pi`, removed by `spill init pi --uninstall`.
// Every bash call runs under `spill wrap` in the session's scope, and another tool's large
// result is replaced by spill's envelope. The extension decides nothing itself: it hands the
// call or result to `spill hook pi` (one rule, in spill) and uses what it answers with; no
// answer, or any failure, leaves the call or result as it was.
import { spawnSync } from "node:child_process";

const SPILL = "@SPILL@";

function hook(request) {
  const run = spawnSync(SPILL, ["hook", "pi"], {
    input: JSON.stringify(request),
    encoding: "utf8",
    timeout: 10000,
  });
  if (run.status !== 0 || !run.stdout || !run.stdout.trim()) return null;
  try {
    return JSON.parse(run.stdout);
  } catch {
    return null;
  }
}

function sessionId(ctx) {
  try {
    return ctx.sessionManager.getSessionId();
  } catch {
    return undefined;
  }
}

export default function (pi) {
  pi.on("tool_call", async (event, ctx) => {
    if (event.toolName !== "bash" || !event.input || typeof event.input.command !== "string") return;
    const answer = hook({
      hook_event_name: "tool_call",
      session_id: sessionId(ctx),
      tool: event.toolName,
      call_id: event.toolCallId,
      cwd: ctx.cwd,
      input: event.input,
    });
    if (answer && answer.input && typeof answer.input.command === "string") {
      event.input.command = answer.input.command;
    }
  });
  pi.on("tool_result", async (event, ctx) => {
    if (event.toolName === "bash" || !Array.isArray(event.content)) return;
    const answer = hook({
      hook_event_name: "tool_result",
      session_id: sessionId(ctx),
      tool: event.toolName,
      call_id: event.toolCallId,
      cwd: ctx.cwd,
      content: event.content,
      is_error: event.isError === true,
    });
    if (answer && Array.isArray(answer.content)) return { content: answer.content };
  });
  pi.on("session_shutdown", async (event, ctx) => {
    const id = sessionId(ctx);
    if (id) hook({ hook_event_name: "session_shutdown", session_id: id, reason: event.reason });
  });
}
