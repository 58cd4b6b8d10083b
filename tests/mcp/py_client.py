"""The Python MCP SDK (PyPI `mcp`, pinned in tests/mcp/run.py) driving `spill mcp` and `spill mcp
proxy`, through the entry point users run: `session` (mcp.ClientSession over stdio_client, every
release) or `client` (the high-level mcp.Client of 2.x, which negotiates 2026-07-28 through
server/discover and validates resultType and the cache hints).

The checks follow the revision the SDK negotiates: before 2025-06-18 a result has no
structuredContent and no resource_link block, and tools have no outputSchema (spill leaves out what
a revision does not define). Prints PASS/FAIL per check; exits 1 when any check failed. Run with
the interpreter of the venv run.py makes. Usage: py_client.py SPILL WORK_DIR session|client
DOWNSTREAM
"""

import json
import os
import subprocess
import sys
from contextlib import asynccontextmanager

import anyio
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

try:
    from mcp.shared.exceptions import MCPError
except ImportError:  # 1.x
    from mcp.shared.exceptions import McpError as MCPError

SPILL, WORK, MODE, DOWNSTREAM = sys.argv[1:5]
SCOPE = f"py-{MODE}"
ENV = {k: v for k, v in os.environ.items() if not k.startswith("SPILL_")}
ENV.update(SPILL_DIR=os.path.join(WORK, "store"), SPILL_SCOPE=SCOPE)
failed = []


def check(name, ok, detail=""):
    print(f"{'PASS' if ok else 'FAIL'}  py-{MODE}: {name}" + (f"  ({str(detail)[:400]})" if detail and not ok else ""))
    if not ok:
        failed.append(name)


def get(obj, snake):
    """An attribute by its 2.x name, or the camelCase name 1.x gives it."""
    if hasattr(obj, snake):
        return getattr(obj, snake)
    head, *rest = snake.split("_")
    return getattr(obj, head + "".join(w.title() for w in rest), None)


def wrap(data):
    out = subprocess.run([SPILL, "wrap"], input=data.encode(), env=ENV, capture_output=True, check=True)
    return json.loads(out.stdout)["ref"]


def text(result):
    return "\n".join(b.text for b in result.content if b.type == "text")


class Api:
    """The calls the checks make, over either entry point."""

    def __init__(self, session=None, client=None):
        self.session, self.client = session, client

    async def list_tools(self):
        return (await (self.client or self.session).list_tools()).tools

    async def call_tool(self, name, arguments):
        return await (self.client or self.session).call_tool(name, arguments)

    async def list_resources(self, cursor):
        if self.client:
            return await self.client.list_resources(cursor=cursor)
        if cursor is None:
            return await self.session.list_resources()
        try:
            return await self.session.list_resources(params=types.PaginatedRequestParams(cursor=cursor))
        except TypeError:  # 1.x
            return await self.session.list_resources(cursor)

    async def read_resource(self, uri):
        return await (self.client or self.session).read_resource(uri)


@asynccontextmanager
async def connect(args):
    params = StdioServerParameters(command=SPILL, args=args, env=ENV)
    if MODE == "client":
        from mcp import Client

        async with Client(params) as client:
            yield Api(client=client), client.protocol_version, client.server_info
    else:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            init = await session.initialize()
            yield Api(session=session), get(init, "protocol_version"), get(init, "server_info")


async def server_checks():
    log = wrap("".join(f"line {i} of the log\n" for i in range(1, 3001)) + "error: the last line\n")
    doc = wrap(json.dumps({"items": [{"id": i, "name": f"item {i}"} for i in range(2000)]}))
    for i in range(3):
        wrap(f"extra {i} {MODE}\n" * 3000)
    async with connect(["mcp", "--page-size", "2"]) as (api, version, info):
        print(f"py-{MODE}: negotiated {version}")
        modern = version >= "2025-06-18"
        check("server names itself spill", info is not None and info.name == "spill", info)
        check("negotiates a published revision", version in ("2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"), version)
        tools = await api.list_tools()
        check("tools are cat, shape, extract, search, ls, wait, stop", [t.name for t in tools] == ["cat", "shape", "extract", "search", "ls", "wait", "stop"])
        check("every tool but stop is read-only", all(t.annotations and bool(get(t.annotations, "read_only_hint")) == (t.name != "stop") for t in tools))
        schemas = [get(t, "output_schema") for t in tools]
        if modern:
            check("every tool has an object output schema", all(s and s["type"] == "object" for s in schemas), schemas)
        else:
            check("no output schema before 2025-06-18", all(not s for s in schemas), schemas)

        cat = await api.call_tool("cat", {"source": log, "lines": "3001:3001"})
        check("cat", text(cat) == "error: the last line\nlines 3,001–3,001 of 3,001\n", text(cat))
        links = [b for b in cat.content if b.type == "resource_link"]
        if modern:
            check("cat links the stored output", any(str(b.uri) == f"spill://{SCOPE}/{log}" for b in links), cat.content)
        else:
            check("no resource_link before 2025-06-18", not links and get(cat, "structured_content") is None, cat)
        shape = await api.call_tool("shape", {"source": doc, "max_depth": 1})
        if modern:
            structured = get(shape, "structured_content")
            check("shape", structured and "shape" in structured, structured)
            paths = await api.call_tool("shape", {"source": doc, "paths": True})
            check("shape --paths", {"path": "$.items[*].id", "types": "integer", "count": 2000} in (get(paths, "structured_content") or {}).get("paths", []), get(paths, "structured_content"))
        else:
            check("shape", text(shape).startswith('{"items":'), text(shape))
        nodes = await api.call_tool("extract", {"source": doc, "query": "$.items[*].id", "max_items": 3, "compact": True})
        check("extract is bounded with its continuation", text(nodes).startswith('[0,1,2,"… 1,997 more nodes:') and "--offset 3" in text(nodes), text(nodes))
        if modern:
            check("extract's structured nodes", (get(nodes, "structured_content") or {}).get("nodes", [None])[0] == {"path": "$['items'][0]['id']", "value": 0}, get(nodes, "structured_content"))
        found = await api.call_tool("search", {"source": log, "pattern": "line 2\\d{3} ", "limit": 2})
        check("search pages", text(found).endswith("matches 1–2 of 1,000 · next: --offset 2\n"), text(found))
        if modern:
            structured = get(found, "structured_content")
            check("search's structured content", structured["totalMatches"] == 1000 and structured["nextOffset"] == 2)
        count = await api.call_tool("search", {"source": log, "pattern": "error", "count": True})
        check("search --count", text(count) == "1\n", text(count))
        ls = await api.call_tool("ls", {})
        check("ls", text(ls).count("sp_") == 5, text(ls))

        seen, cursor, pages = [], None, 0
        while True:
            page = await api.list_resources(cursor)
            seen += [str(r.uri) for r in page.resources]
            pages += 1
            cursor = get(page, "next_cursor")
            if not cursor or pages > 10:
                break
        check("resources page by cursor", pages == 3 and len(set(seen)) == 5, (pages, seen))
        read = await api.read_resource(f"spill://{SCOPE}/{log}?bytes=0:7")
        check("a bounded resource read", read.contents[0].text == "line 1 ", read.contents[0])
        big = await api.read_resource(f"spill://{SCOPE}/{log}?lines=1:")
        check("an explicit range is capped like cat's", len(big.contents[0].text) <= 1 << 20)
        try:
            await api.read_resource(f"spill://{SCOPE}/sp_0000000000000000")
            check("an unknown ref is a JSON-RPC error", False, "no error")
        except MCPError as e:
            # 2026-07-28 names an unknown resource with invalid-params.
            check("an unknown ref is a JSON-RPC error", e.error.code in (-32002, -32602), e.error)
        huge = "spill://" + "x" * 3_000_000
        try:
            await api.read_resource(huge)
            check("a 3 MB URI is an error", False, "no error")
        except MCPError as e:
            check("a 3 MB URI's error echoes at most 200 characters of it", len(e.error.message) < 400, len(e.error.message))
        refused = await api.call_tool("search", {"source": "-", "pattern": "x"})
        check("restricted: stdin is refused", get(refused, "is_error") and "must be a ref" in text(refused), text(refused))
        flag = await api.call_tool("ls", {"all_scopes": True})
        check("restricted: all_scopes is refused", get(flag, "is_error"), text(flag))
        bad = await api.call_tool("extract", {"source": doc, "query": "$.items[?"})
        check("a bad query is an error result with its caret", get(bad, "is_error") and "^" in text(bad), text(bad))


async def proxy_checks():
    async with connect(["mcp", "proxy", "--", sys.executable, DOWNSTREAM]) as (api, version, info):
        print(f"py-{MODE}: through the proxy, negotiated {version}")
        modern = version >= "2025-06-18"
        names = [t.name for t in await api.list_tools()]
        check("proxy: the downstream's tools and spill's", names[:4] == ["small", "text", "structured", "blob"] and "spill_search" in names, names)
        small = await api.call_tool("small", {})
        check("proxy: a small result passes through", text(small) == "small result\n", text(small))
        big = await api.call_tool("text", {"n": 5000})
        envelope = json.loads(big.content[0].text)
        check("proxy: a large result is stored", envelope["spilled"] is True and envelope["lines"] == 5001, envelope)
        links = [b for b in big.content if b.type == "resource_link"]
        check("proxy: the link follows the revision", bool(links) == modern, big.content)
        found = await api.call_tool("spill_search", {"source": envelope["ref"], "pattern": "MARKER", "fixed_strings": True})
        check("proxy: spill_search finds the line", text(found).startswith("2501:1:MARKER"), text(found))
        read = await api.read_resource(f"spill://{SCOPE}/{envelope['ref']}?lines=2501:2501")
        check("proxy: spill:// resources are read", read.contents[0].text == "MARKER: the line in the middle\n", read.contents[0])


async def main():
    await server_checks()
    await proxy_checks()
    print(f"py-{MODE}: {len(failed)} check(s) failed" if failed else f"py-{MODE}: all checks passed")
    return 1 if failed else 0


sys.exit(anyio.run(main))
