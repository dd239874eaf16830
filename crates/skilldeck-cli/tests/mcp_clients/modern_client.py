"""A 2026-07-28 client of `skilldeck mcp`: the official Python SDK's high-level `Client`, which probes
`server/discover` and speaks the stateless revision when the server offers it. Lists the skills through the
Skills extension, opens a `subscriptions/listen` stream, runs an import of a new revision and reports the change
events that arrive, then the listing after them.

    modern_client.py CONFIG_JSON

CONFIG_JSON: {"command": [...], "env": {...}, "skill": "alpha", "import_v2": [...argv of `skilldeck import`...],
              "root": "file:///…"}

With `root`, the client shares that folder as its root (answered when the server asks for it as input to a
`view_skill` call, the 2026-07-28 way) and loads the skill.
"""

import subprocess

import anyio
from mcp import Client, types
from mcp.client.stdio import StdioServerParameters
from mcp.shared.subscriptions import ResourceUpdated, ToolsListChanged
from skills_ext import ANY, ListSkills, run


async def scenario(config: dict) -> dict:
    report: dict = {}
    skill = config["skill"]
    uri = f"skill://{skill}/SKILL.md"
    params = StdioServerParameters(command=config["command"][0], args=config["command"][1:], env=config["env"])
    async def roots(context):  # noqa: ARG001
        report["rootsAsked"] = report.get("rootsAsked", 0) + 1
        return types.ListRootsResult(roots=[types.Root(uri=config["root"])])

    async with Client(params, list_roots_callback=roots if config.get("root") else None) as client:
        report["protocolVersion"] = client.protocol_version
        listed = await client.session.send_request(ListSkills(params=None), ANY)
        report["skills"] = [s["frontmatter"]["name"] for s in listed["skills"]]
        async with client.listen(
            tools_list_changed=True, resources_list_changed=True, resource_subscriptions=[uri]
        ) as sub:
            report["honored"] = sub.honored.model_dump(by_alias=True, exclude_none=True)
            done = subprocess.run(config["import_v2"], env=config["env"], capture_output=True, text=True)
            report["import"] = {"code": done.returncode, "stderr": done.stderr}
            events: list[str] = []
            with anyio.move_on_after(15):
                async for event in sub:
                    if isinstance(event, ResourceUpdated):
                        events.append(f"updated {event.uri}")
                    else:
                        events.append(type(event).__name__)
                    if any(e.startswith("updated") for e in events) and ToolsListChanged.__name__ in events:
                        break
            report["events"] = sorted(set(events))
        tools = await client.list_tools()
        report["toolDescription"] = tools.tools[0].description if tools.tools else None
        if config.get("root"):
            viewed = await client.call_tool("view_skill", {"name": skill})
            report["view"] = {"isError": viewed.is_error, "structured": viewed.structured_content}
    return report


if __name__ == "__main__":
    run(scenario)
