// MCP over Streamable HTTP with the TypeScript SDK (@modelcontextprotocol/sdk, pinned in
// tests/mcp/run.py): its StreamableHTTPClientTransport against `spill mcp --http`, and its stdio
// client against `spill mcp proxy --url` in front of @modelcontextprotocol/server-everything
// in its streamableHttp mode (a transcript compared with the server's own, a large result stored
// and replaced, an unreachable URL). Prints PASS/FAIL per check; exits 1 when any failed.
//
// Usage: node http_client.mjs NODE_MODULES SPILL WORK_DIR (a spill built with --features http)
import { pathToFileURL } from "node:url";
import { spawn, execFileSync, spawnSync } from "node:child_process";
import { join } from "node:path";
import { createServer } from "node:net";

const [nodeModules, spill, work] = process.argv.slice(2);
const sdk = (p) => import(pathToFileURL(join(nodeModules, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");

let failed = 0;
function check(name, ok, detail = "") {
  console.log(`${ok ? "PASS" : "FAIL"}  http: ${name}${ok || !detail ? "" : `  (${String(detail).slice(0, 400)})`}`);
  if (!ok) failed++;
}

const baseEnv = { ...process.env, SPILL_DIR: join(work, "store") };
for (const k of Object.keys(baseEnv)) if (k.startsWith("SPILL_") && k !== "SPILL_DIR") delete baseEnv[k];
const text = (result) => result.content.filter((b) => b.type === "text").map((b) => b.text).join("\n");
const children = [];
process.on("exit", () => children.forEach((c) => c.kill("SIGKILL")));

/** Starts `spill mcp --http 127.0.0.1:0 ...` and resolves to its URL (its first stderr line). */
function serveHttp(extra, env) {
  const child = spawn(spill, ["mcp", "--http", "127.0.0.1:0", ...extra], { env, stdio: ["ignore", "ignore", "pipe"] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let seen = "";
    child.stderr.on("data", (d) => {
      seen += d;
      const m = seen.match(/serving (http:\/\/\S+)/);
      if (m) resolve({ child, url: m[1] });
    });
    child.on("exit", (code) => reject(new Error(`spill mcp --http exited ${code}: ${seen}`)));
  });
}

function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// --- the SDK's Streamable HTTP client against spill mcp --http -----------------------------------
{
  const scope = "http-server";
  const env = { ...baseEnv, SPILL_SCOPE: scope, SPILL_MCP_TOKEN: "t0ken-for-the-test" };
  const rows = Array.from({ length: 3000 }, (_, i) => `line ${i + 1} of the log`).join("\n") + "\n";
  const ref = JSON.parse(execFileSync(spill, ["wrap"], { input: rows, env }).toString()).ref;
  const { child, url } = await serveHttp([], env);

  // Without the token: refused.
  const stranger = new Client({ name: "stranger", version: "1" });
  let refused = null;
  try {
    await stranger.connect(new StreamableHTTPClientTransport(new URL(url)));
  } catch (e) {
    refused = e;
  }
  check("without the token the client is refused (401)", refused !== null && /401|nauthori/.test(String(refused)), String(refused));

  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: "Bearer t0ken-for-the-test" } },
  });
  const client = new Client({ name: "spill-http-test", version: "1.0.0" });
  await client.connect(transport);
  check("a session id is given", typeof transport.sessionId === "string" && transport.sessionId.length > 0, transport.sessionId);
  const tools = (await client.listTools()).tools.map((t) => t.name);
  check("the tools are stdio's", tools.join(",") === "cat,shape,extract,search,ls,wait,stop", tools.join(","));
  const cat = await client.callTool({ name: "cat", arguments: { source: ref, lines: "3000:3000" } });
  check("cat reads the stored output", text(cat) === "line 3000 of the log\nlines 3,000–3,000 of 3,000\n", text(cat));
  const found = await client.callTool({ name: "search", arguments: { pattern: "line 2999 ", source: ref } });
  check("search finds a line", text(found).includes(":line 2999 of the log\n"), text(found));
  const listed = await client.listResources();
  check("the stored output is a resource", listed.resources.some((r) => r.uri === `spill://${scope}/${ref}`), JSON.stringify(listed));
  const read = await client.readResource({ uri: `spill://${scope}/${ref}?lines=1:1` });
  check("resources/read of a range", read.contents[0].text.startsWith("line 1 of the log"), JSON.stringify(read).slice(0, 200));
  await transport.terminateSession();
  check("the session ends (DELETE)", transport.sessionId === undefined, transport.sessionId);
  await client.close();
  child.kill("SIGKILL");
}

// --- spill mcp proxy --url in front of server-everything (streamableHttp) ------------------------
{
  const everything = join(nodeModules, "@modelcontextprotocol/server-everything/dist/index.js");
  const port = await freePort();
  const downstream = spawn(process.execPath, [everything, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"],
  });
  children.push(downstream);
  await new Promise((resolve, reject) => {
    let seen = "";
    downstream.stderr.on("data", (d) => {
      seen += d;
      if (seen.includes("listening")) resolve();
    });
    downstream.on("exit", (code) => reject(new Error(`server-everything exited ${code}: ${seen}`)));
  });
  const url = `http://127.0.0.1:${port}/mcp`;
  const env = { ...baseEnv, SPILL_SCOPE: "http-proxy", EVERYTHING_TOKEN: "not-needed-but-passed" };

  async function transcript(client) {
    const out = {};
    out.server = client.getServerVersion();
    out.capabilities = client.getServerCapabilities();
    const tools = (await client.listTools()).tools.filter((t) => !t.name.startsWith("spill_"));
    out.tools = tools.map(({ outputSchema, ...rest }) => rest);
    out.echo = await client.callTool({ name: "echo", arguments: { message: "hello ✓" } });
    out.sum = await client.callTool({ name: "get-sum", arguments: { a: 2, b: 40 } });
    out.prompt = await client.getPrompt({ name: "simple-prompt" });
    const progress = [];
    await client.callTool({ name: "trigger-long-running-operation", arguments: { duration: 1, steps: 2 } },
      undefined, { onprogress: (p) => progress.push(p.progress) });
    out.progressSeen = progress.length >= 1;
    return out;
  }
  const directTransport = new StreamableHTTPClientTransport(new URL(url));
  const direct = new Client({ name: "direct", version: "1" });
  await direct.connect(directTransport);
  const plain = await transcript(direct);
  await directTransport.terminateSession().catch(() => {});
  await direct.close();

  const proxied = new Client({ name: "proxied", version: "1" });
  await proxied.connect(new StdioClientTransport({
    command: spill,
    args: ["mcp", "proxy", "--url", url, "--header", "X-Spill-Test: ${EVERYTHING_TOKEN}"],
    env, stderr: "pipe",
  }));
  const through = await transcript(proxied);
  for (const key of Object.keys(plain)) {
    const [a, b] = [JSON.stringify(plain[key]), JSON.stringify(through[key])];
    let at = 0;
    while (at < a.length && a[at] === b[at]) at++;
    check(`proxy --url: ${key} is the same through the proxy`, a === b, `${a.slice(at - 80, at + 120)} vs ${b.slice(at - 80, at + 120)}`);
  }
  const added = (await proxied.listTools()).tools.filter((t) => t.name.startsWith("spill_")).length;
  check("proxy --url: spill's five tools are added", added === 5, added);
  const big = "0123456789abcdef".repeat(8192);
  const large = await proxied.callTool({ name: "echo", arguments: { message: big } });
  const envelope = JSON.parse(large.content[0].text);
  check("proxy --url: a large result is stored and replaced", typeof envelope.ref === "string" && text(large).length < 4096,
    text(large).slice(0, 300));
  const back = await proxied.callTool({ name: "spill_search", arguments: { source: envelope.ref, pattern: "^Echo: 0123" } });
  check("proxy --url: the stored result reads back", text(back).includes("Echo: 0123456789abcdef"), text(back).slice(0, 300));
  await proxied.close();
  downstream.kill("SIGKILL");

  // An unreachable URL: a JSON-RPC error at once, then exit status 2 once the client is done.
  const dead = await freePort();
  const init = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" } } });
  const started = Date.now();
  const run = spawnSync(spill, ["mcp", "proxy", "--url", `http://127.0.0.1:${dead}/mcp?key=SECRET`],
    { input: init + "\n", env, timeout: 30000 });
  const answer = JSON.parse(run.stdout.toString().split("\n")[0] || "{}");
  check("proxy --url: an unreachable server is a JSON-RPC error", answer.id === 1 && answer.error?.code === -32000 &&
    /cannot reach the MCP server at http:\/\/127\.0\.0\.1:\d+\/mcp/.test(answer.error.message), run.stdout.toString());
  check("proxy --url: ...and exit status 2, within seconds, the URL's query unprinted",
    run.status === 2 && Date.now() - started < 15000 && !(run.stdout + run.stderr).includes("SECRET"),
    `${run.status} ${run.stderr}`);
}

console.log(failed ? `http: ${failed} check(s) failed` : "http: all checks passed");
process.exit(failed ? 1 : 0);
