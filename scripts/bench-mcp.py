"""The measuring half of scripts/bench-mcp: a raw JSON-RPC client of `skilldeck mcp` over stdio."""

import json
import os
import re
import subprocess
import time

BIN, WS, SRC = os.environ["BIN"], os.environ["WS"], os.environ["SRC"]
CALLS = int(os.environ.get("CALLS", "2000"))
IMPORTS = int(os.environ.get("IMPORTS", "7"))

server = subprocess.Popen([BIN, "mcp", "--workspace", WS], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
next_id = 0


def send(obj):
    server.stdin.write((json.dumps(obj) + "\n").encode())


def recv():
    line = server.stdout.readline()
    if not line:
        raise SystemExit("the server closed its output")
    return json.loads(line)


def request(method, params=None):
    global next_id
    next_id += 1
    send({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params or {}})
    while True:
        msg = recv()
        if msg.get("id") == next_id:
            return msg


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


t0 = time.perf_counter()
request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}})
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
tools = request("tools/list")["result"]["tools"]
print(f"start to tools/list: {(time.perf_counter() - t0) * 1000:.1f} ms ({len(tools[0]['inputSchema']['properties']['name']['enum'])} names in the enum)")

call = {"name": "view_skill", "arguments": {"name": "skill-1"}}
first = time.perf_counter()
assert request("tools/call", call)["result"]["structuredContent"]["version"] == "1"
print(f"first view_skill (mounts): {(time.perf_counter() - first) * 1000:.2f} ms")
samples = []
for _ in range(CALLS):
    t = time.perf_counter()
    request("tools/call", call)
    samples.append(time.perf_counter() - t)
print(f"memoized view_skill round trip: median {median(samples) * 1e6:.0f} us, p90 {sorted(samples)[int(len(samples) * 0.9)] * 1e6:.0f} us ({CALLS} calls)")

def list_all_skills():
    """Pages through skills/list (the MCP Skills extension): (entries, pages, seconds)."""
    t, cursor, entries, pages = time.perf_counter(), None, 0, 0
    while True:
        result = request("skills/list", {"cursor": cursor} if cursor else {})["result"]
        entries, pages = entries + len(result["skills"]), pages + 1
        cursor = result.get("nextCursor")
        if not cursor:
            return entries, pages, time.perf_counter() - t


for label in ("first (manifests worked out)", "again (manifests kept)"):
    entries, pages, took = list_all_skills()
    print(f"skills/list, every page, {label}: {took * 1000:.0f} ms for {entries} entries in {pages} pages")
t = time.perf_counter()
for _ in range(100):
    request("skills/get", {"uri": "skill://skill-1/SKILL.md"})
print(f"skills/get round trip: {(time.perf_counter() - t) * 10:.2f} ms")


def revision_of_skill_2():
    """skill-2's revision in the listing, or None when it is past the listing's budget (a big store)."""
    text = request("tools/list")["result"]["tools"][0]["description"]
    found = re.search(r"\*\*skill-2\*\* \(v:(\d+)\)", text)
    return int(found.group(1)) if found else None


first_revision = revision_of_skill_2()
lags = []
for n in range(IMPORTS):
    # A new revision of skill-2 each time (the content differs, so it is a real upload).
    with open(f"{SRC}/skill-2/references/guide.md", "a") as f:
        f.write(f"edit {time.time_ns()}\n")
    t = time.perf_counter()
    subprocess.run([BIN, "import", f"{SRC}/skill-2"], check=True, stdout=subprocess.DEVNULL)
    while True:
        msg = recv()
        # resources/list_changed comes for any served skill; tools/list_changed only when the
        # listing changed, which a skill past the budget does not change.
        if msg.get("method") == "notifications/resources/list_changed":
            lags.append(time.perf_counter() - t)
            break
    time.sleep(0.3)
print(f"import start to resources/list_changed: median {median(lags) * 1000:.0f} ms ({IMPORTS} imports)")
if first_revision is not None:
    assert revision_of_skill_2() == first_revision + IMPORTS, "the listing shows the last import"

with open(f"/proc/{server.pid}/status") as f:
    rss = next(line for line in f if line.startswith("VmRSS"))
print(f"server resident memory: {rss.split(':')[1].strip()}")
server.stdin.close()
server.wait(timeout=10)
