// The TypeScript MCP SDK's client (@modelcontextprotocol/sdk, pinned in tests/mcp/run.py)
// driving `spill mcp`, and `spill mcp proxy` in front of the real filesystem and everything
// servers from npm. Prints PASS/FAIL per check; exits 1 when any check failed. The checks follow
// the revision the SDK speaks (spill answers it): before 2025-06-18 there is no structuredContent
// and no resource_link block.
//
// Usage: node ts_client.mjs NODE_MODULES SPILL WORK_DIR [SERVERS_NODE_MODULES]
// (the SDK from NODE_MODULES, the downstream servers from SERVERS_NODE_MODULES, by default the same)
import { pathToFileURL } from "node:url";
import { writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { execFileSync } from "node:child_process";

const [nodeModules, spill, work, serverModules = nodeModules] = process.argv.slice(2);
const sdk = (p) => import(pathToFileURL(join(nodeModules, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");
const { LATEST_PROTOCOL_VERSION } = await sdk("types.js");
const modern = LATEST_PROTOCOL_VERSION >= "2025-06-18";
console.log(`ts: the SDK speaks ${LATEST_PROTOCOL_VERSION}`);

let failed = 0;
function check(name, ok, detail = "") {
  console.log(`${ok ? "PASS" : "FAIL"}  ts: ${name}${ok || !detail ? "" : `  (${String(detail).slice(0, 400)})`}`);
  if (!ok) failed++;
}

const store = join(work, "store");
const baseEnv = { ...process.env, SPILL_DIR: store };
for (const k of Object.keys(baseEnv)) if (k.startsWith("SPILL_") && k !== "SPILL_DIR") delete baseEnv[k];

async function connect(command, args, env) {
  const client = new Client({ name: "spill-ts-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command, args, env, stderr: "pipe" }));
  return client;
}

function spillRun(args, input, scope) {
  return execFileSync(spill, args, { input, env: { ...baseEnv, SPILL_SCOPE: scope } }).toString();
}

const text = (result) => result.content.filter((b) => b.type === "text").map((b) => b.text).join("\n");

// --- spill mcp -------------------------------------------------------------------------------
{
  const scope = "ts-server";
  const rows = Array.from({ length: 3000 }, (_, i) => `line ${i + 1} of the log`).join("\n") + "\nerror: the last line\n";
  const logRef = JSON.parse(spillRun(["wrap"], rows, scope)).ref;
  const items = JSON.stringify({ items: Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `item ${i}` })) });
  const jsonRef = JSON.parse(spillRun(["wrap"], items, scope)).ref;
  for (let i = 0; i < 3; i++) spillRun(["wrap"], `extra ${i}\n`.repeat(3000), scope);

  const client = await connect(spill, ["mcp", "--page-size", "2"], { ...baseEnv, SPILL_SCOPE: scope });
  const info = client.getServerVersion();
  check("server names itself spill", info?.name === "spill", JSON.stringify(info));
  const tools = (await client.listTools()).tools;
  check("tools are cat, shape, extract, search, ls, wait, stop", tools.map((t) => t.name).join(",") === "cat,shape,extract,search,ls,wait,stop");
  check("every tool but stop is read-only", tools.every((t) => (t.annotations?.readOnlyHint === true) === (t.name !== "stop")));

  const cat = await client.callTool({ name: "cat", arguments: { source: logRef, lines: "3000:3001" } });
  const catCli = execFileSync(spill, ["cat", logRef, "--lines", "3000:3001", "--footer", "stdout"], { env: { ...baseEnv, SPILL_SCOPE: scope } }).toString();
  check("cat prints what spill cat prints", text(cat) === catCli, text(cat));
  const linked = cat.content.some((b) => b.type === "resource_link" && b.uri === `spill://${scope}/${logRef}`);
  check(modern ? "cat links the stored output" : "no resource_link before 2025-06-18", linked === modern, JSON.stringify(cat.content).slice(0, 300));
  const shape = await client.callTool({ name: "shape", arguments: { source: jsonRef } });
  if (modern) {
    check("shape gives the skeleton as structured content", shape.structuredContent?.shape?.items?.["array[2000]"]?.id === "integer", JSON.stringify(shape.structuredContent));
  } else {
    check("shape gives the skeleton", JSON.parse(text(shape).split("\n")[0]).items?.["array[2000]"]?.id === "integer" && shape.structuredContent === undefined, text(shape));
  }
  const extract = await client.callTool({ name: "extract", arguments: { source: jsonRef, query: "$.items[7].name" } });
  check("extract selects a value", text(extract).startsWith('"item 7"') && (!modern || extract.structuredContent?.nodes?.[0]?.value === "item 7"), text(extract));
  const search = await client.callTool({ name: "search", arguments: { source: logRef, pattern: "error:", context: 1 } });
  check("search finds the line with its footer", text(search).includes("3001:1:error: the last line") && text(search).includes("matches 1–1 of 1"), text(search));
  if (modern) check("search's structured content is the --json object", search.structuredContent?.totalMatches === 1);
  const ls = await client.callTool({ name: "ls", arguments: {} });
  check("ls lists the scope", (!modern || ls.structuredContent?.count === 5) && text(ls).includes(logRef), text(ls).slice(0, 200));

  const seen = [];
  let cursor;
  let pages = 0;
  do {
    const page = await client.listResources(cursor ? { cursor } : {});
    seen.push(...page.resources.map((r) => r.uri));
    cursor = page.nextCursor;
    pages++;
  } while (cursor && pages < 10);
  check("resources page by cursor (5 entries, 3 pages of 2)", pages === 3 && new Set(seen).size === 5, `${pages} ${seen}`);
  const listed = (await client.listResources()).resources[0];
  check("resources carry mimeType and size", typeof listed.mimeType === "string" && Number.isInteger(listed.size));
  const templates = (await client.listResourceTemplates()).resourceTemplates;
  check("a resource template with a bounded range", templates[0]?.uriTemplate === `spill://${scope}/{ref}{?lines,bytes}`);
  const read = await client.readResource({ uri: `spill://${scope}/${logRef}?lines=2999:3001` });
  check("a bounded resource read", read.contents[0].text === "line 2999 of the log\nline 3000 of the log\nerror: the last line\n", JSON.stringify(read.contents[0]).slice(0, 300));
  const whole = await client.readResource({ uri: `spill://${scope}/${logRef}` });
  check("a read without a range is cat's first page", whole.contents[0].text.split("\n").length - 1 === 200);
  try {
    await client.readResource({ uri: `spill://${scope}/sp_0000000000000000` });
    check("an unknown ref is a JSON-RPC error", false, "no error");
  } catch (e) {
    check("an unknown ref is a JSON-RPC error", e.code === -32002, `${e.code} ${e.message}`);
  }
  const path = await client.callTool({ name: "cat", arguments: { source: "/etc/passwd" } });
  check("restricted: a path is refused", path.isError === true && text(path).includes("must be a ref"), text(path));
  const flag = await client.callTool({ name: "cat", arguments: { source: logRef, dir: "/tmp" } });
  check("restricted: a store flag is refused", flag.isError === true && text(flag).includes("unknown argument"), text(flag));
  const other = await client.callTool({ name: "cat", arguments: { source: "sp_0123456789abcdef" } });
  check("an unknown ref in a tool is an error result", other.isError === true && text(other).includes("unknown ref"), text(other));
  await client.close();
}

// --- spill mcp proxy in front of the filesystem server --------------------------------------
{
  const files = join(work, "files");
  mkdirSync(files, { recursive: true });
  const big = Array.from({ length: 100000 }, (_, i) => `record ${i} ${"x".repeat(38)}`);
  big[77777] = "NEEDLE: the one line to find";
  writeFileSync(join(files, "big.txt"), big.join("\n") + "\n");
  writeFileSync(join(files, "small.txt"), "small file\nwith \"quotes\" and é\n");
  const fsBin = join(serverModules, ".bin", "mcp-server-filesystem");
  const env = { ...baseEnv, SPILL_SCOPE: "ts-proxy" };
  const direct = await connect(fsBin, [files], env);
  const proxied = await connect(spill, ["mcp", "proxy", "--", fsBin, files], env);
  const names = (await proxied.listTools()).tools.map((t) => t.name);
  check("proxy: tools/list gains spill_search and keeps the server's tools", names.includes("spill_search") && names.includes("read_text_file"));
  const small = await proxied.callTool({ name: "read_text_file", arguments: { path: join(files, "small.txt") } });
  const smallDirect = await direct.callTool({ name: "read_text_file", arguments: { path: join(files, "small.txt") } });
  check("proxy: a small file passes through unchanged", JSON.stringify(small) === JSON.stringify(smallDirect), JSON.stringify(small));
  const bigResult = await proxied.callTool({ name: "read_text_file", arguments: { path: join(files, "big.txt") } });
  const envelope = JSON.parse(bigResult.content[0].text);
  check("proxy: a 5 MB file is spilled", envelope.spilled === true && envelope.sizeBytes > 5_000_000 && bigResult.content[0].text.length < 20000, bigResult.content[0].text.slice(0, 200));
  check("proxy: the result links the stored output (from 2025-06-18)", bigResult.content.some((b) => b.type === "resource_link" && b.uri === `spill://ts-proxy/${envelope.ref}`) === modern);
  const found = await proxied.callTool({ name: "spill_search", arguments: { source: envelope.ref, pattern: "NEEDLE", fixed_strings: true } });
  check("proxy: spill_search finds the line in it", text(found).startsWith("77778:1:NEEDLE: the one line to find"), text(found));
  const read = await proxied.readResource({ uri: `spill://ts-proxy/${envelope.ref}?lines=77778:77778` });
  check("proxy: resources/read of spill:// is answered", read.contents[0].text === "NEEDLE: the one line to find\n", JSON.stringify(read));
  await direct.close();
  await proxied.close();
}

// --- spill mcp proxy in front of the everything server: a transcript with and without it ----
{
  const everything = join(serverModules, ".bin", "mcp-server-everything");
  const env = { ...baseEnv, SPILL_SCOPE: "ts-everything" };
  // trigger-long-running-operation sends progress 1..LONG_STEPS, one every duration/steps seconds.
  const LONG_STEPS = 3;
  async function transcript(client) {
    const out = {};
    out.server = client.getServerVersion();
    out.capabilities = client.getServerCapabilities();
    out.instructions = client.getInstructions();
    const tools = (await client.listTools()).tools.filter((t) => !t.name.startsWith("spill_"));
    // The proxy drops output schemas (a spilled structured result would not match them).
    out.tools = tools.map(({ outputSchema, ...rest }) => rest);
    out.prompts = await client.listPrompts();
    out.resources = await client.listResources();
    out.templates = await client.listResourceTemplates();
    out.echo = await client.callTool({ name: "echo", arguments: { message: "hello ✓" } });
    out.sum = await client.callTool({ name: "get-sum", arguments: { a: 2, b: 40 } });
    out.image = await client.callTool({ name: "get-tiny-image", arguments: {} });
    out.structured = await client.callTool({ name: "get-structured-content", arguments: { location: "New York" } });
    out.prompt = await client.getPrompt({ name: "simple-prompt" });
    const first = out.resources.resources[0];
    out.read = first ? await client.readResource({ uri: first.uri }) : null;
    try {
      await client.callTool({ name: "no-such-tool", arguments: {} });
      out.unknownTool = "no error";
    } catch (e) {
      out.unknownTool = { code: e.code, message: e.message };
    }
    const progress = [];
    out.long = await client.callTool({ name: "trigger-long-running-operation", arguments: { duration: 1.5, steps: LONG_STEPS } },
      undefined, { onprogress: (p) => progress.push(p) });
    out.progress = progress;
    return out;
  }
  const direct = await connect(everything, ["stdio"], env);
  const plain = await transcript(direct);
  await direct.close();
  const proxied = await connect(spill, ["mcp", "proxy", "--", everything, "stdio"], env);
  const through = await transcript(proxied);
  const added = (await proxied.listTools()).tools.filter((t) => t.name.startsWith("spill_")).length;
  await proxied.close();
  // The last progress notification and the result arrive back to back, and the SDK hands
  // notifications on a later tick than responses, so it may drop that one — on the direct run as
  // well as through the proxy (the proxy forwards every line in order: tests/mcp.rs checks it on
  // raw lines). Neither run is taken as complete: each must be a prefix of the server's own
  // sequence (progress 1..steps of `steps`), hold every notification but possibly the last, and
  // the two must agree where both have one.
  const expected = Array.from({ length: LONG_STEPS }, (_, i) => i + 1);
  const isPrefix = (seq) => seq.length >= LONG_STEPS - 1 && seq.length <= LONG_STEPS &&
    seq.every((p, i) => p.progress === expected[i] && p.total === LONG_STEPS);
  const shared = Math.min(plain.progress.length, through.progress.length);
  check("everything: progress notifications arrive directly", isPrefix(plain.progress), JSON.stringify(plain.progress));
  check("everything: progress notifications arrive through the proxy", isPrefix(through.progress) &&
    JSON.stringify(plain.progress.slice(0, shared)) === JSON.stringify(through.progress.slice(0, shared)),
    `${JSON.stringify(plain.progress)} vs ${JSON.stringify(through.progress)}`);
  delete plain.progress;
  delete through.progress;
  for (const key of Object.keys(plain)) {
    check(`everything: ${key} is the same through the proxy`, JSON.stringify(plain[key]) === JSON.stringify(through[key]),
      `${JSON.stringify(plain[key]).slice(0, 200)} vs ${JSON.stringify(through[key]).slice(0, 200)}`);
  }
  check("everything: the proxy adds its five tools", added === 5);
}

console.log(failed ? `ts: ${failed} check(s) failed` : "ts: all checks passed");
process.exit(failed ? 1 : 0);
