"""An MCP server that publishes skills through the MCP Skills extension (io.modelcontextprotocol/skills, SEP-2640),
built on the official Python SDK (`mcp` on PyPI), for the tests of Skilldeck's MCP client (`skilldeck add mcp:…`):
a server we did not write to install from, and one that can misbehave on purpose, so that the tests can check the
client refuses bad entries and survives bad servers.

    publisher.py CONFIG.json

CONFIG.json: {"root": "/abs/path", "faults": {"<skill name>": "<fault>"}, "mode": "<mode>", "http_port": 0}

Every folder below `root` holding a SKILL.md is one skill: `root/a/b/refunds` is `skill://a/b/refunds/SKILL.md`,
with every regular file under its folder except those of a nested skill, which is listed as an entry of its own.
(The spec has an enclosing skill's manifest list its nested skills' files too; here each skill has only its own.)
The server answers the extension's `skills/list` (50 entries a page), `skills/get` and `resources/directory/read`,
and the SDK's own `resources/list` (the SKILL.md files) and `resources/read` (every file, byte for byte).

Faults, per skill (keyed by its folder's name): `wrong_digest` and `wrong_size` misdescribe SKILL.md in the
manifest; `wrong_name` gives a frontmatter `name` that is not the URI's last folder; `dynamic` gives no manifest;
`extra_file` adds a manifest entry for a file outside the skill (`…/../../escape.txt`), served with a true digest;
`hang_read` never answers a read of the skill's SKILL.md.

Modes, for the whole server: `normal`; `hang_list` never answers `skills/list`; `huge_listing` lists 100,000
synthetic skills after the real ones, each page made when asked; `endless_read` answers every `resources/read`
with a response whose text never ends.

The server speaks over stdio and exits when stdin closes; with `http_port` it serves Streamable HTTP on 127.0.0.1
instead (0 picks a port) and prints its URL, `http://127.0.0.1:PORT/mcp`, as the one line on stdout. Anything else
it says goes to stderr.
"""

import base64
import hashlib
import json
import logging
import mimetypes
import os
import re
import socket
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import uvicorn
from mcp import MCPError, types
from mcp.server.caching import CacheHint
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

log = logging.getLogger("publisher")

EXTENSION = "io.modelcontextprotocol/skills"
SETTINGS = {"directoryRead": True}
PAGE = 50
TTL_MS = 60_000
COMPLETE = {"resultType": "complete"}
CACHEABLE = {**COMPLETE, "ttlMs": TTL_MS, "cacheScope": "private"}
"""What the extension requires of every `skills/list` and `skills/get` result, whatever the protocol version."""
FAULTS = {"wrong_digest", "wrong_size", "wrong_name", "dynamic", "extra_file", "hang_read"}
MODES = {"normal", "hang_list", "huge_listing", "endless_read"}
BULK = 100_000
BULK_URI = re.compile(r"skill://bulk/s(\d{5})/SKILL\.md")
ESCAPED = b"This file is outside the skill that lists it.\n"
CHUNK = b"a" * (1 << 20)
DIRECTORY = "inode/directory"


class UriParams(types.RequestParams):
    """The params of `skills/get` and `resources/directory/read`."""

    uri: str


# --- Skills on disk -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Folder:
    """One skill as found under the root: its URI without `/SKILL.md`, and its files by relative path."""

    root: str
    name: str
    frontmatter: dict[str, Any]
    files: dict[str, bytes]

    @property
    def uri(self) -> str:
        return f"{self.root}/SKILL.md"


def is_skill(folder: Path) -> bool:
    skill_md = folder / "SKILL.md"
    return skill_md.is_file() and not skill_md.is_symlink()


def find_skills(root: Path) -> list[Folder]:
    """Every folder below `root` holding a SKILL.md, by URI."""
    folders = (Path(folder) for folder, _, _ in os.walk(root))
    return sorted((read_skill(root, f) for f in folders if f != root and is_skill(f)), key=lambda s: s.uri)


def read_skill(root: Path, folder: Path) -> Folder:
    """The skill in `folder`, with every regular file under it but those of the skills nested in it."""
    files = {}
    for parent, subfolders, names in os.walk(folder):
        subfolders[:] = [d for d in subfolders if not is_skill(Path(parent, d))]
        for name in names:
            path = Path(parent, name)
            if path.is_file() and not path.is_symlink():
                files[path.relative_to(folder).as_posix()] = path.read_bytes()
    try:
        frontmatter = read_frontmatter(files["SKILL.md"])
    except ValueError as e:
        raise ValueError(f"{folder / 'SKILL.md'}: {e}") from None
    base = f"skill://{folder.relative_to(root).as_posix()}"
    return Folder(base, folder.name, frontmatter, dict(sorted(files.items())))


# --- Frontmatter ----------------------------------------------------------------------------------------------------
# The venv has no YAML library: this reads the block mappings of `key: value` lines (nested by indentation) and the
# scalars YAML's core schema knows, and refuses anything else rather than read it differently from YAML.

INT = re.compile(r"[-+]?[0-9]+")
FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")


def read_frontmatter(skill_md: bytes) -> dict[str, Any]:
    lines = skill_md.decode("utf-8").splitlines()
    if not lines or lines[0].rstrip() != "---":
        raise ValueError("SKILL.md does not begin with a frontmatter")
    end = next((i for i, line in enumerate(lines) if i > 0 and line.rstrip() == "---"), None)
    if end is None:
        raise ValueError("the frontmatter is not closed by `---`")
    body = [(len(line) - len(line.lstrip(" ")), line.strip()) for line in lines[1:end]]
    fields, _ = read_mapping([(indent, text) for indent, text in body if text and not text.startswith("#")], 0, 0)
    return fields


def read_mapping(lines: list[tuple[int, str]], start: int, indent: int) -> tuple[dict[str, Any], int]:
    """The mapping whose keys are at `indent` from `lines[start]`, and the index of the line after it."""
    fields: dict[str, Any] = {}
    i = start
    while i < len(lines) and lines[i][0] >= indent:
        depth, text = lines[i]
        key, colon, raw = text.partition(":")
        if depth > indent or not colon or text.startswith("- "):
            raise ValueError(f"the minimal frontmatter reader cannot read {text!r}")
        i += 1
        if not raw.strip() and i < len(lines) and lines[i][0] > indent:
            fields[key.strip()], i = read_mapping(lines, i, lines[i][0])
        else:
            fields[key.strip()] = read_scalar(raw.strip())
    return fields, i


def read_scalar(raw: str) -> Any:
    if len(raw) >= 2 and raw[0] == raw[-1] == '"':
        return json.loads(raw)
    if len(raw) >= 2 and raw[0] == raw[-1] == "'":
        return raw[1:-1].replace("''", "'")
    if raw[:1] in ("[", "{", "|", ">", "&", "*", "!", "'", '"'):
        raise ValueError(f"the minimal frontmatter reader cannot read {raw!r}")
    if raw in ("", "~", "null", "Null", "NULL"):
        return None
    if raw in ("true", "True", "TRUE", "false", "False", "FALSE"):
        return raw.lower() == "true"
    if INT.fullmatch(raw):
        return int(raw)
    if FLOAT.fullmatch(raw):
        return float(raw)
    return raw


# --- Entries --------------------------------------------------------------------------------------------------------


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def file_entry(uri: str, data: bytes) -> dict[str, Any]:
    return {"uri": uri, "digest": digest(data), "size": len(data)}


def describe(skill: Folder, fault: str | None) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The entry of `skill` as served with `fault`, and the files `resources/read` serves for it, by URI."""
    files = {f"{skill.root}/{path}": data for path, data in skill.files.items()}
    if fault == "extra_file":
        files[f"{skill.root}/../../escape.txt"] = ESCAPED
    manifest = {uri: file_entry(uri, data) for uri, data in files.items()}
    frontmatter = dict(skill.frontmatter)
    if fault == "wrong_digest":
        manifest[skill.uri]["digest"] = digest(files[skill.uri] + b"\n")
    elif fault == "wrong_size":
        manifest[skill.uri]["size"] += 1
    elif fault == "wrong_name":
        frontmatter["name"] = f"{skill.name}-x"
    resources = "dynamic" if fault == "dynamic" else list(manifest.values())
    return {"uri": skill.uri, "frontmatter": frontmatter, "resources": resources}, files


def bulk_skill_md(n: int) -> bytes:
    """The SKILL.md of the `n`th synthetic skill of `huge_listing`."""
    return f"---\nname: s{n:05d}\ndescription: Synthetic skill number {n}.\n---\n".encode()


def bulk_entry(n: int) -> dict[str, Any]:
    uri = f"skill://bulk/s{n:05d}/SKILL.md"
    name = f"s{n:05d}"
    frontmatter = {"name": name, "description": f"Synthetic skill number {n}."}
    return {"uri": uri, "frontmatter": frontmatter, "resources": [file_entry(uri, bulk_skill_md(n))]}


def mime_type(path: str) -> str:
    return mimetypes.guess_type(path)[0] or "application/octet-stream"


def invalid(message: str) -> MCPError:
    return MCPError(code=types.INVALID_PARAMS, message=message)


# --- The server -----------------------------------------------------------------------------------------------------


class Publisher:
    """What the server serves, and its request handlers."""

    def __init__(self, skills: list[Folder], faults: dict[str, str], mode: str):
        self.skills = skills
        self.mode = mode
        self.entries: list[dict[str, Any]] = []
        self.files: dict[str, bytes] = {}
        for skill in skills:
            entry, files = describe(skill, faults.get(skill.name))
            self.entries.append(entry)
            self.files.update(files)
        self.by_uri = {entry["uri"]: entry for entry in self.entries}
        self.hanging = {skill.uri for skill in skills if faults.get(skill.name) == "hang_read"}
        self.total = len(self.entries) + (BULK if mode == "huge_listing" else 0)
        self.wire_fd: int | None = None
        """stdout as it was before the SDK's stdio transport took it: `endless_read` writes there itself."""

    def entry_at(self, index: int) -> dict[str, Any]:
        real = len(self.entries)
        return self.entries[index] if index < real else bulk_entry(index - real)

    def bulk_number(self, uri: str) -> int | None:
        match = BULK_URI.fullmatch(uri) if self.mode == "huge_listing" else None
        return int(match[1]) if match and int(match[1]) < BULK else None

    def cursor_offset(self, cursor: str | None) -> int:
        if not cursor:
            return 0
        if not re.fullmatch(r"[0-9]+", cursor) or int(cursor) > self.total:
            raise invalid(f"{cursor!r} is not a cursor this server gave; start again without one")
        return int(cursor)

    async def list_skills(self, ctx: ServerRequestContext, params: types.PaginatedRequestParams) -> dict[str, Any]:
        if self.mode == "hang_list":
            await anyio.sleep_forever()
        start = self.cursor_offset(params.cursor)
        end = min(start + PAGE, self.total)
        page = {"skills": [self.entry_at(i) for i in range(start, end)], **CACHEABLE}
        if end < self.total:
            page["nextCursor"] = str(end)
        return page

    async def get_skill(self, ctx: ServerRequestContext, params: UriParams) -> dict[str, Any]:
        n = self.bulk_number(params.uri)
        entry = bulk_entry(n) if n is not None else self.by_uri.get(params.uri)
        if entry is None:
            raise invalid(f"No skill is served at {params.uri}")
        return {"skill": entry, **CACHEABLE}

    async def list_resources(
        self, ctx: ServerRequestContext, params: types.PaginatedRequestParams
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=skill.uri,
                    name=skill.name,
                    description=skill.frontmatter.get("description"),
                    mime_type="text/markdown",
                    size=len(skill.files["SKILL.md"]),
                )
                for skill in self.skills
            ]
        )

    async def read_resource(
        self, ctx: ServerRequestContext, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        n = self.bulk_number(params.uri)
        data = bulk_skill_md(n) if n is not None else self.files.get(params.uri)
        if data is None:
            raise invalid(f"No resource is served at {params.uri}")
        if self.mode == "endless_read":
            start_endless_response(self.wire_fd, ctx.request_id, params.uri)
            await anyio.sleep_forever()
        if params.uri in self.hanging:
            await anyio.sleep_forever()
        return types.ReadResourceResult(contents=[contents(params.uri, data)])

    async def read_directory(self, ctx: ServerRequestContext, params: UriParams) -> dict[str, Any]:
        """The direct children of a skill's folder or of a folder in it: files, and folders as `inode/directory`."""
        uri = params.uri.rstrip("/")
        owners = [s for s in self.skills if uri == s.root or uri.startswith(s.root + "/")]
        skill = max(owners, key=lambda s: len(s.root), default=None)
        prefix = uri[len(skill.root) + 1 :] + "/" if skill and uri != skill.root else ""
        children: dict[str, dict[str, Any]] = {}
        for path, data in skill.files.items() if skill else ():
            if path.startswith(prefix):
                child, below, _ = path[len(prefix) :].partition("/")
                kind = {"mimeType": DIRECTORY} if below else {"mimeType": mime_type(child), "size": len(data)}
                children[child] = {"uri": f"{uri}/{child}", "name": child, **kind}
        if not children:
            raise invalid(f"{params.uri} is not a directory resource")
        return {"resources": list(children.values()), **COMPLETE}

    def server(self) -> Server:
        """The SDK's low-level server with these handlers, declaring the extension."""
        server = Server(
            "skilldeck-test-publisher",
            version="1.0.0",
            on_list_resources=self.list_resources,
            on_read_resource=self.read_resource,
            cache_hints={
                "resources/list": CacheHint(ttl_ms=TTL_MS),
                "resources/read": CacheHint(ttl_ms=TTL_MS),
            },
        )
        # The SDK has no types for the extension's methods, but the low-level server serves any method given a
        # handler and the model its params validate against; a handler may return plain JSON.
        server.add_request_handler("skills/list", types.PaginatedRequestParams, self.list_skills)
        server.add_request_handler("skills/get", UriParams, self.get_skill)
        server.add_request_handler("resources/directory/read", UriParams, self.read_directory)
        server.extensions[EXTENSION] = SETTINGS
        server.middleware.append(declare_extension_at_handshake)
        return server


async def declare_extension_at_handshake(ctx: ServerRequestContext, call_next: CallNext) -> HandlerResult:
    """Puts the extension in an `initialize` result's capabilities. The SDK declares `Server.extensions` in
    `server/discover` (2026-07-28), but shapes an `initialize` result by the schema of the version negotiated, and
    the handshake versions' schemas have no `extensions`: it would leave the declaration out."""
    result = await call_next(ctx)
    if ctx.method == "initialize" and isinstance(result, dict):
        result["capabilities"] = {**result["capabilities"], "extensions": {EXTENSION: SETTINGS}}
    return result


def contents(uri: str, data: bytes) -> types.TextResourceContents | types.BlobResourceContents:
    """`data` as `resources/read` gives it: as text when it is UTF-8, else in base64."""
    try:
        return types.TextResourceContents(uri=uri, mime_type=mime_type(uri), text=data.decode("utf-8"))
    except UnicodeDecodeError:
        return types.BlobResourceContents(uri=uri, mime_type=mime_type(uri), blob=base64.b64encode(data).decode())


# --- endless_read ---------------------------------------------------------------------------------------------------


def endless_head(request_id: Any, uri: str) -> bytes:
    """The start of a `resources/read` response up to the opening quote of a text that never closes."""
    return (
        f'{{"jsonrpc":"2.0","id":{json.dumps(request_id)},'
        f'"result":{{"contents":[{{"uri":{json.dumps(uri)},"text":"'
    ).encode()


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def start_endless_response(fd: int, request_id: Any, uri: str) -> None:
    """Writes the response on stdio's pipe itself, past the SDK's writer (which only writes whole messages)."""

    def write() -> None:
        try:
            write_all(fd, endless_head(request_id, uri))
            while True:
                write_all(fd, CHUNK)
        except BrokenPipeError:
            log.info("the client closed the pipe during the endless response")

    # A daemon thread, so that the process still ends when stdin closes while it writes.
    threading.Thread(target=write, daemon=True).start()


def endless_reads_over_http(app: Any) -> Any:
    """`app`, except that a POSTed `resources/read` is answered, past the SDK, with the SSE event the SDK would
    send for it (`event: message`, `data: <response>`) but whose data never ends, until the client disconnects."""

    async def wrapped(scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            return await app(scope, receive, send)
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        try:
            request = json.loads(body)
        except ValueError:
            request = None
        if isinstance(request, dict) and request.get("method") == "resources/read":
            uri = (request.get("params") or {}).get("uri")
            return await stream_forever(receive, send, endless_head(request.get("id"), str(uri)))
        replayed = False

        async def replay() -> dict:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await app(scope, replay, send)

    return wrapped


async def stream_forever(receive: Any, send: Any, head: bytes) -> None:
    headers = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    async with anyio.create_task_group() as tg:

        async def until_disconnect() -> None:
            # Once the client has gone, uvicorn drops what is sent without a word: this is how the stream learns.
            while (await receive())["type"] != "http.disconnect":
                pass
            log.info("the client disconnected during the endless response")
            tg.cancel_scope.cancel()

        tg.start_soon(until_disconnect)
        await send({"type": "http.response.body", "body": b"event: message\r\ndata: " + head, "more_body": True})
        while True:
            await send({"type": "http.response.body", "body": CHUNK, "more_body": True})
            # ... and returns at once, without letting the watcher (or anything else) run.
            await anyio.lowlevel.checkpoint()


# --- Running --------------------------------------------------------------------------------------------------------


async def serve_stdio(publisher: Publisher) -> None:
    """Serves until stdin closes, or until the client closes stdout (which ends a hostile mode's answer)."""
    publisher.wire_fd = os.dup(1)
    server = publisher.server()
    try:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    except* BrokenPipeError:
        log.info("the client closed stdout")


async def serve_http(publisher: Publisher, port: int) -> None:
    app = publisher.server().streamable_http_app(host="127.0.0.1")
    if publisher.mode == "endless_read":
        app = endless_reads_over_http(app)
    listener = socket.create_server(("127.0.0.1", port))
    web = uvicorn.Server(uvicorn.Config(app, log_config=None, access_log=False, lifespan="on"))
    async with anyio.create_task_group() as tg:
        tg.start_soon(web.serve, [listener])
        while not web.started:
            await anyio.sleep(0.01)
        print(f"http://127.0.0.1:{listener.getsockname()[1]}/mcp", flush=True)


def load(config_path: str) -> tuple[Publisher, int | None]:
    config = json.loads(Path(config_path).read_text())
    mode = config.get("mode", "normal")
    faults = config.get("faults", {})
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; the modes are {sorted(MODES)}")
    root = config.get("root")
    if not isinstance(root, str) or not Path(root).is_dir():
        raise ValueError(f"the config's root, {root!r}, is not a folder")
    skills = find_skills(Path(root))
    names = {skill.name for skill in skills}
    for name, fault in faults.items():
        if fault not in FAULTS or name not in names:
            known = f"the skills are {sorted(names)}, the faults {sorted(FAULTS)}"
            raise ValueError(f"cannot give {name!r} the fault {fault!r}: {known}")
    log.info("publishing %d skills from %s, mode %s, faults %s", len(skills), root, mode, faults)
    return Publisher(skills, faults, mode), config.get("http_port")


def main() -> None:
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(name)s: %(message)s")
    log.setLevel(logging.INFO)
    if len(sys.argv) != 2:
        sys.exit("usage: publisher.py CONFIG.json")
    try:
        publisher, port = load(sys.argv[1])
    except (OSError, ValueError) as e:
        sys.exit(f"publisher: {e}")
    if port is None:
        anyio.run(serve_stdio, publisher)
    else:
        anyio.run(serve_http, publisher, port)


if __name__ == "__main__":
    main()
