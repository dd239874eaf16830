// The one door to the backend: ui/api.js hands each call to Tauri's invoke as it was written.
import { test } from "node:test";
import assert from "node:assert/strict";
import { channel, invoke } from "../../ui/api.js";

/** A stand-in for what Tauri injects, recording each call. */
function fakeTauri(answer) {
  const calls = [];
  globalThis.window = {
    __TAURI__: {
      core: {
        invoke: async (cmd, args) => {
          calls.push([cmd, args]);
          if (answer instanceof Error) throw answer;
          return answer;
        },
        Channel: class {
          onmessage = () => {};
        },
      },
    },
  };
  return calls;
}

test("invoke passes the command's name and arguments through, and its answer back", async () => {
  const calls = fakeTauri([{ name: "pdf" }]);
  assert.deepEqual(await invoke("list_skills"), [{ name: "pdf" }]);
  await invoke("skill_detail", { scope: "user", name: "pdf" });
  assert.deepEqual(calls, [["list_skills", undefined], ["skill_detail", { scope: "user", name: "pdf" }]]);
});

test("invoke's promise rejects with the backend's error as it came", async () => {
  const err = Object.assign(new Error("x"), { code: "skill_not_found" });
  fakeTauri(err);
  await assert.rejects(invoke("list_skills"), (e) => e === err);
});

test("channel builds Tauri's Channel", () => {
  fakeTauri(null);
  const c = channel();
  assert.equal(typeof c.onmessage, "function");
});
