// spill's @PRODUCT@ plugin: written by `spill init @NAME@`, removed by `spill init @NAME@ --uninstall`.
// Every bash call runs under `spill wrap` in the session's scope. The plugin decides nothing
// itself: it hands the call to `spill hook @NAME@` (one rule, in spill) and runs the
// arguments it answers with; no answer, or any failure, leaves the call as it was.
import { spawnSync } from "node:child_process";

const SPILL = "@SPILL@";

function hook(request) {
  const run = spawnSync(SPILL, ["hook", "@NAME@"], {
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

//+agent // Each session's agent, from its last model call: the hook wraps only in agents whose
//+agent // bash rules it can read.
//+agent const agents = new Map();
//+agent 
export const SpillPlugin = async ({ directory }) => ({
//+agent   "chat.params": async (input) => {
//+agent     // Its name (7.7) or the agent itself (7.0); a hidden agent's call (7.0's title) is not
//+agent     // the session's own.
//+agent     const agent = input && input.agent;
//+agent     const name = typeof agent === "string" ? agent : agent && !agent.hidden ? agent.name : null;
//+agent     if (input && input.sessionID && typeof name === "string") agents.set(input.sessionID, name);
//+agent   },
  "tool.execute.before": async (input, output) => {
    if (input.tool !== "bash" || !output || !output.args) return;
    const answer = hook({
      hook_event_name: "tool.execute.before",
      session_id: input.sessionID,
      tool: input.tool,
      call_id: input.callID,
      cwd: directory,
//+agent       agent: agents.get(input.sessionID),
      args: output.args,
    });
    if (answer && answer.args && typeof answer.args.command === "string") {
      output.args.command = answer.args.command;
    }
  },
  event: async ({ event }) => {
    if (event.type !== "session.deleted") return;
    const id = event.properties?.info?.id ?? event.properties?.sessionID;
//+agent     if (id) agents.delete(id);
    if (id) hook({ hook_event_name: "session.deleted", session_id: id });
  },
});
