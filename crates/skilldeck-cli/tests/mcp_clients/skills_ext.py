"""What the Python test clients share: the MCP Skills extension's requests, which the official SDK has no helpers
for (sent as the SDK's own typed requests with the extension's method names), and running a scenario from the
command line (its config as one JSON argument, its report printed as one JSON object)."""

import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any, Literal

import anyio
from mcp import types
from pydantic import TypeAdapter

ANY = TypeAdapter(dict[str, Any])
"""The result of an extension request, as plain JSON."""


class ListSkills(types.Request[types.PaginatedRequestParams | None, Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"
    params: types.PaginatedRequestParams | None = None


class UriParams(types.RequestParams):
    uri: str


class GetSkill(types.Request[UriParams, Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"


class ReadDirectory(types.Request[UriParams, Literal["resources/directory/read"]]):
    method: Literal["resources/directory/read"] = "resources/directory/read"


def run(scenario: Callable[[dict], Awaitable[dict]]) -> None:
    """Runs `scenario` with the JSON config in argv[1] and prints its report as JSON."""
    config = json.loads(sys.argv[1])
    print(json.dumps(anyio.run(scenario, config)))
