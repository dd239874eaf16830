"""An MCP client we did not write (the official Python SDK, `mcp` on PyPI) driving `skilldeck mcp`.

Runs one scenario against the server over stdio and prints what it saw as one JSON object; the
Rust test (crates/skilldeck-cli/tests/mcp.rs) asserts on it and on the files in the workspace.

    python_client.py CONFIG_JSON

CONFIG_JSON: {"command": [...] (stdio) | "url": "http://...", "token": "..." (HTTP), "env": {...}, "roots": ["file:///..."] | null, "roots_after": [...] | null,
              "import_v2": [...argv of `skilldeck import`...] | null, "skill": "name",
              "reference": "references/guide.md"}
"""

import json
import subprocess
import time

import anyio
from mcp import ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from skills_ext import run


def result_json(result: types.CallToolResult) -> dict:
    texts = [c.text for c in result.content if isinstance(c, types.TextContent)]
    return {
        "isError": bool(result.is_error),
        "structured": result.structured_content,
        "text": json.loads(texts[0]) if len(texts) == 1 else texts,
    }


def tool_json(tools: types.ListToolsResult) -> list:
    return [
        {
            "name": t.name,
            "description": t.description,
            "enum": t.input_schema.get("properties", {}).get("name", {}).get("enum"),
            "required": t.input_schema.get("required"),
            "hasOutputSchema": t.output_schema is not None,
        }
        for t in tools.tools
    ]


async def scenario(config: dict) -> dict:
    report: dict = {}
    changed = anyio.Event()
    changed_at: list[float] = []
    seen: list = []

    async def on_message(message) -> None:
        if isinstance(message, types.ServerNotification) or hasattr(message, "method"):
            method = getattr(message, "method", None) or getattr(getattr(message, "root", None), "method", None)
            seen.append(method)
            if method == "notifications/resources/updated":
                seen.append("updated " + str(message.params.uri))
            if method == "notifications/tools/list_changed":
                changed_at.append(time.monotonic())
                changed.set()

    roots_callback = None
    roots = {"now": config.get("roots")}
    if roots["now"] is not None:
        async def roots_callback(context):  # noqa: ARG001
            return types.ListRootsResult(roots=[types.Root(uri=u) for u in roots["now"]])

    if config.get("url"):
        # Streamable HTTP, with the bearer token the server asks for.
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {config['token']}"})
        transport = streamable_http_client(config["url"], http_client=http)
    else:
        params = StdioServerParameters(command=config["command"][0], args=config["command"][1:], env=config["env"])
        transport = stdio_client(params)
    async with transport as (read, write):
        async with ClientSession(read, write, list_roots_callback=roots_callback, message_handler=on_message) as s:
            init = await s.initialize()
            report["protocolVersion"] = init.protocol_version
            report["serverName"] = init.server_info.name
            report["toolsListChanged"] = bool(init.capabilities.tools and init.capabilities.tools.list_changed)
            report["instructions"] = init.instructions
            report["tools"] = tool_json(await s.list_tools())
            skill = config["skill"]
            if config.get("find"):
                # find_skills on a store bigger than the listing: the match joins the view_skill enum.
                report["found"] = result_json(await s.call_tool("find_skills", {"query": config["find"]}))
                with anyio.move_on_after(10):
                    await changed.wait()
                report["listChanged"] = changed.is_set()
                report["toolsAfter"] = tool_json(await s.list_tools())
                report["l2"] = result_json(await s.call_tool("view_skill", {"name": skill}))
                report["emptyQuery"] = result_json(await s.call_tool("find_skills", {"query": "  "}))
                return report
            if config.get("catalog"):
                resources = await s.list_resources()
                report["resources"] = sorted(r.uri for r in resources.resources)
                templates = await s.list_resource_templates()
                report["templates"] = [t.uri_template for t in templates.resource_templates]
                read = await s.read_resource(f"skill://{skill}/{config['reference']}")
                report["resource"] = [{"uri": str(c.uri), "mime": c.mime_type, "text": getattr(c, "text", None)} for c in read.contents]
                prompts = await s.list_prompts()
                report["prompts"] = [{"name": p.name, "description": p.description} for p in prompts.prompts]
                got = await s.get_prompt(skill)
                report["prompt"] = [{"role": m.role, "text": m.content.text} for m in got.messages]
            report["l2"] = result_json(await s.call_tool("view_skill", {"name": skill}))
            report["l3"] = result_json(await s.call_tool("view_skill", {"name": skill, "path": config["reference"]}))
            report["hostile"] = result_json(await s.call_tool("view_skill", {"name": skill, "path": "../../etc/passwd"}))
            report["unknown"] = result_json(await s.call_tool("view_skill", {"name": skill + "x"}))
            # A memoized call, timed over many round trips (the median, in microseconds).
            samples = []
            for _ in range(int(config.get("rounds", 20))):
                t0 = time.perf_counter()
                await s.call_tool("view_skill", {"name": skill})
                samples.append((time.perf_counter() - t0) * 1e6)
            samples.sort()
            report["memoizedMedianUs"] = samples[len(samples) // 2]
            if config.get("roots_after"):
                roots["now"] = config["roots_after"]
                await s.send_roots_list_changed()
                report["l2NewRoot"] = result_json(await s.call_tool("view_skill", {"name": skill}))
            if config.get("import_v2"):
                if config.get("subscribe"):
                    await s.subscribe_resource(config["subscribe"])
                started = time.monotonic()
                done = subprocess.run(config["import_v2"], env=config["env"], capture_output=True, text=True)
                report["import"] = {"code": done.returncode, "stdout": done.stdout, "stderr": done.stderr}
                with anyio.move_on_after(10):
                    await changed.wait()
                report["listChanged"] = changed.is_set()
                report["listChangedMs"] = (changed_at[0] - started) * 1000 if changed_at else None
                await anyio.sleep(0.2)
                report["notifications"] = sorted(set(seen))
                report["toolsAfter"] = tool_json(await s.list_tools())
                report["l2After"] = result_json(await s.call_tool("view_skill", {"name": skill}))
    return report


if __name__ == "__main__":
    run(scenario)
