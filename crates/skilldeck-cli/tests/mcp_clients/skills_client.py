"""A host speaking the MCP Skills extension (io.modelcontextprotocol/skills, SEP-2640) to `skilldeck mcp`,
through the official Python SDK (`mcp` on PyPI): the SDK has no helpers for the extension's methods, so they go
out as the SDK's own typed requests with the extension's method names, over its stdio transport.

    skills_client.py CONFIG_JSON

CONFIG_JSON: {"command": [...], "env": {...}, "get": "skill://<name>/SKILL.md", "directory": "skill://<name>",
              "subdirectory": "skill://<name>/references"}

Pages through skills/list, reads every file of every entry with resources/read and checks it against the entry's
digest and size as a host must, then prints what it saw as one JSON object for the Rust test
(crates/skilldeck-cli/tests/it/mcp_skills.rs) to assert on.
"""

import base64
import hashlib
import subprocess

import anyio

from mcp import ClientSession, MCPError, types
from mcp.client.stdio import StdioServerParameters, stdio_client
from skills_ext import ANY, GetSkill, ListSkills, ReadDirectory, UriParams, run

def content_bytes(read: types.ReadResourceResult) -> bytes:
    (content,) = read.contents
    if isinstance(content, types.TextResourceContents):
        return content.text.encode("utf-8")
    return base64.b64decode(content.blob)


async def error_of(call) -> dict | None:
    try:
        await call
    except MCPError as e:
        return {"code": e.error.code, "message": e.error.message}
    return None


async def scenario(config: dict) -> dict:
    report: dict = {}
    params = StdioServerParameters(command=config["command"][0], args=config["command"][1:], env=config["env"])
    list_changed = [0]

    async def on_message(message) -> None:
        method = getattr(getattr(message, "root", message), "method", None)
        if method == "notifications/resources/list_changed":
            list_changed[0] += 1

    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as s:
            init = await s.initialize()
            report["protocolVersion"] = init.protocol_version
            caps = init.capabilities.model_dump(by_alias=True, exclude_none=True)
            report["extensions"] = caps.get("extensions")
            report["resources"] = "resources" in caps
            # Every page of skills/list.
            pages, skills, cursor = 0, [], None
            while True:
                page = await s.send_request(ListSkills(params=types.PaginatedRequestParams(cursor=cursor)), ANY)
                pages += 1
                report.setdefault("firstPage", {k: v for k, v in page.items() if k != "skills"})
                skills.extend(page["skills"])
                cursor = page.get("nextCursor")
                if not cursor:
                    break
            report["pages"] = pages
            report["skills"] = skills
            # Every file of every entry, checked as a host checks it.
            checked, mismatches = 0, []
            for skill in skills:
                for res in skill["resources"]:
                    data = content_bytes(await s.read_resource(res["uri"]))
                    digest = "sha256:" + hashlib.sha256(data).hexdigest()
                    if digest != res["digest"] or len(data) != res["size"]:
                        mismatches.append({"uri": res["uri"], "digest": digest, "size": len(data), "entry": res})
                    checked += 1
            report["filesChecked"] = checked
            report["mismatches"] = mismatches
            report["get"] = await s.send_request(GetSkill(params=UriParams(uri=config["get"])), ANY)
            report["getUnknown"] = await error_of(
                s.send_request(GetSkill(params=UriParams(uri="skill://no-such-skill/SKILL.md")), ANY)
            )
            report["badCursor"] = await error_of(
                s.send_request(ListSkills(params=types.PaginatedRequestParams(cursor="not-a-cursor")), ANY)
            )
            report["directory"] = await s.send_request(ReadDirectory(params=UriParams(uri=config["directory"])), ANY)
            report["subdirectory"] = await s.send_request(
                ReadDirectory(params=UriParams(uri=config["subdirectory"])), ANY
            )
            report["notDirectory"] = await error_of(
                s.send_request(ReadDirectory(params=UriParams(uri=config["get"])), ANY)
            )
            # The two requests clients of the handshake versions send.
            await s.set_logging_level("warning")
            report["setLevel"] = "ok"
            template = types.ResourceTemplateReference(type="ref/resource", uri="skill://{name}/{+path}")
            names = await s.complete(template, {"name": "name", "value": config["complete"]})
            report["completeName"] = names.completion.model_dump(by_alias=True, exclude_none=True)
            paths = await s.complete(
                template, {"name": "path", "value": "ref"}, context_arguments={"name": config["complete_skill"]}
            )
            report["completePath"] = paths.completion.model_dump(by_alias=True, exclude_none=True)
            if config.get("change"):
                # A skill changes in the store: a host caching skills/list must hear of it.
                before = list_changed[0]
                done = subprocess.run(config["change"], env=config["env"], capture_output=True, text=True)
                report["change"] = {"code": done.returncode, "stderr": done.stderr}
                with anyio.move_on_after(10):
                    while list_changed[0] == before:
                        await anyio.sleep(0.05)
                report["resourcesListChanged"] = list_changed[0] > before
    return report


if __name__ == "__main__":
    run(scenario)
