// The History's Compare: which two revisions, in which order.
import { test } from "node:test";
import assert from "node:assert/strict";
import { compareRange } from "../../ui/revision_diff.js";

test("compareRange: exactly two ticked, the older first, whatever order they were ticked in", () => {
  assert.deepEqual(compareRange([7, 3]), { from: 3, to: 7 });
  assert.deepEqual(compareRange(new Set([2, 10])), { from: 2, to: 10 }, "numbers, not strings: 10 after 2");
  assert.equal(compareRange([]), null);
  assert.equal(compareRange([4]), null);
  assert.equal(compareRange([4, 4]), null);
  assert.equal(compareRange([1, 2, 3]), null);
});

test("authoring_api.call hands the command and its arguments to Tauri's invoke", async () => {
  const calls = [];
  globalThis.window = { __TAURI__: { core: { invoke: async (cmd, args) => { calls.push([cmd, args]); return []; } } } };
  const { call } = await import("../../ui/authoring_api.js");
  assert.deepEqual(await call("revision_diff", { scope: "user", name: "pdf", from: null, to: 3 }), []);
  await call("drafts_open");
  assert.deepEqual(calls, [["revision_diff", { scope: "user", name: "pdf", from: null, to: 3 }], ["drafts_open", undefined]]);
  delete globalThis.window;
});
