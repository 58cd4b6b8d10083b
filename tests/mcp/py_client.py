"""The Python MCP SDK's client (PyPI `mcp`, pinned in tests/mcp/run.py) driving `spill mcp`.

Prints PASS/FAIL per check; exits 1 when any check failed. Run with the interpreter of the venv
run.py makes. Usage: py_client.py SPILL WORK_DIR
"""

import json
import os
import subprocess
import sys

import anyio
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

SPILL, WORK = sys.argv[1], sys.argv[2]
SCOPE = "py-server"
ENV = {k: v for k, v in os.environ.items() if not k.startswith("SPILL_")}
ENV.update(SPILL_DIR=os.path.join(WORK, "store"), SPILL_SCOPE=SCOPE)
failed = []


def check(name, ok, detail=""):
    print(f"{'PASS' if ok else 'FAIL'}  py: {name}" + (f"  ({str(detail)[:400]})" if detail and not ok else ""))
    if not ok:
        failed.append(name)


def wrap(data):
    out = subprocess.run([SPILL, "wrap"], input=data.encode(), env=ENV, capture_output=True, check=True)
    return json.loads(out.stdout)["ref"]


def text(result):
    return "\n".join(b.text for b in result.content if b.type == "text")


async def main():
    log = wrap("".join(f"line {i} of the log\n" for i in range(1, 3001)) + "error: the last line\n")
    doc = wrap(json.dumps({"items": [{"id": i, "name": f"item {i}"} for i in range(2000)]}))
    for i in range(3):
        wrap(f"extra {i}\n" * 3000)
    params = StdioServerParameters(command=SPILL, args=["mcp", "--page-size", "2"], env=ENV)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        check("server names itself spill", init.server_info.name == "spill", init.server_info)
        check("negotiates 2025-11-25", init.protocol_version == "2025-11-25", init.protocol_version)
        tools = (await session.list_tools()).tools
        check("tools are cat, shape, extract, search, ls", [t.name for t in tools] == ["cat", "shape", "extract", "search", "ls"])
        check("every tool is read-only", all(t.annotations and t.annotations.read_only_hint for t in tools))
        check("every tool has an object output schema", all(t.output_schema and t.output_schema["type"] == "object" for t in tools))

        cat = await session.call_tool("cat", {"source": log, "lines": "3001:3001"})
        check("cat", text(cat) == "error: the last line\nlines 3,001–3,001 of 3,001\n", text(cat))
        check("cat links the stored output", any(b.type == "resource_link" and str(b.uri) == f"spill://{SCOPE}/{log}" for b in cat.content))
        shape = await session.call_tool("shape", {"source": doc, "max_depth": 1})
        check("shape", shape.structured_content and "shape" in shape.structured_content, shape.structured_content)
        paths = await session.call_tool("shape", {"source": doc, "paths": True})
        check("shape --paths", {"path": "$.items[*].id", "types": "integer", "count": 2000} in (paths.structured_content or {}).get("paths", []), paths.structured_content)
        nodes = await session.call_tool("extract", {"source": doc, "query": "$.items[*].id", "max_items": 3, "compact": True})
        check("extract is bounded with its continuation", text(nodes).startswith('[0,1,2,"… 1,997 more nodes:') and "--offset 3" in text(nodes), text(nodes))
        check("extract's structured nodes", (nodes.structured_content or {}).get("nodes", [None])[0] == {"path": "$['items'][0]['id']", "value": 0}, nodes.structured_content)
        found = await session.call_tool("search", {"source": log, "pattern": "line 2\\d{3} ", "limit": 2})
        check("search pages", text(found).endswith("matches 1–2 of 1,000 · next: --offset 2\n"), text(found))
        check("search's structured content", found.structured_content["totalMatches"] == 1000 and found.structured_content["nextOffset"] == 2)
        count = await session.call_tool("search", {"source": log, "pattern": "error", "count": True})
        check("search --count", text(count) == "1\n" and count.structured_content == {"totalMatches": 1}, text(count))
        ls = await session.call_tool("ls", {})
        check("ls", ls.structured_content["count"] == 5, ls.structured_content)

        seen, cursor, pages = [], None, 0
        while True:
            page = await session.list_resources(params=types.PaginatedRequestParams(cursor=cursor) if cursor else None)
            seen += [str(r.uri) for r in page.resources]
            pages += 1
            cursor = page.next_cursor
            if not cursor or pages > 10:
                break
        check("resources page by cursor", pages == 3 and len(set(seen)) == 5, (pages, seen))
        read = await session.read_resource(f"spill://{SCOPE}/{log}?bytes=0:7")
        check("a bounded resource read", read.contents[0].text == "line 1 ", read.contents[0])
        big = await session.read_resource(f"spill://{SCOPE}/{log}?lines=1:")
        check("an explicit range is capped like cat's", len(big.contents[0].text) <= 1 << 20)
        try:
            await session.read_resource(f"spill://{SCOPE}/sp_0000000000000000")
            check("an unknown ref is a JSON-RPC error", False, "no error")
        except MCPError as e:
            check("an unknown ref is a JSON-RPC error", e.error.code == -32002, e.error)
        refused = await session.call_tool("search", {"source": "-", "pattern": "x"})
        check("restricted: stdin is refused", refused.is_error and "must be a ref" in text(refused), text(refused))
        flag = await session.call_tool("ls", {"all_scopes": True})
        check("restricted: all_scopes is refused", flag.is_error, text(flag))
        bad = await session.call_tool("extract", {"source": doc, "query": "$.items[?"})
        check("a bad query is an error result with its caret", bad.is_error and "^" in text(bad), text(bad))
    print(f"py: {len(failed)} check(s) failed" if failed else "py: all checks passed")
    return 1 if failed else 0


sys.exit(anyio.run(main))
