// spill's opencode plugin: written by `spill init opencode`, removed by `spill init opencode --uninstall`.
// Every bash call runs under `spill wrap` in the session's scope. The plugin decides nothing
// itself: it hands the call to `spill hook opencode` (one rule, in spill) and runs the
// arguments it answers with; no answer, or any failure, leaves the call as it was.
import { spawnSync } from "node:child_process";

const SPILL = "@SPILL@";

function hook(request) {
  const run = spawnSync(SPILL, ["hook", "opencode"], {
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

export const SpillPlugin = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    if (input.tool !== "bash" || !output || !output.args) return;
    const answer = hook({
      hook_event_name: "tool.execute.before",
      session_id: input.sessionID,
      tool: input.tool,
      call_id: input.callID,
      cwd: directory,
      args: output.args,
    });
    if (answer && answer.args && typeof answer.args.command === "string") {
      output.args.command = answer.args.command;
    }
  },
  event: async ({ event }) => {
    if (event.type !== "session.deleted") return;
    const id = event.properties?.info?.id ?? event.properties?.sessionID;
    if (id) hook({ hook_event_name: "session.deleted", session_id: id });
  },
});
