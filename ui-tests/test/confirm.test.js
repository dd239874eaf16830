// The shared confirmation's yes button: it names the action, and only Delete is red.
import { test } from "node:test";
import assert from "node:assert/strict";
import { setLanguage } from "../../ui/i18n.js";
import { confirmButton } from "../../ui/confirm.js";

test("confirmButton: Delete is red; Approve and Publish name themselves and are not", () => {
  setLanguage("en");
  assert.deepEqual(confirmButton("delete"), { label: "Delete", danger: true });
  assert.deepEqual(confirmButton("delete", 12), { label: "Delete 12 skills", danger: true });
  assert.deepEqual(confirmButton("approve", 3), { label: "Approve 3 findings", danger: false });
  assert.deepEqual(confirmButton("approve", 1), { label: "Approve 1 finding", danger: false });
  assert.deepEqual(confirmButton("publish"), { label: "Publish", danger: false });
  assert.deepEqual(confirmButton("discard"), { label: "Discard draft", danger: true });
  assert.deepEqual(confirmButton("saveAnyway"), { label: "Save anyway", danger: true });
});

test("confirmButton: in Chinese too, never the English nor a key", () => {
  setLanguage("zh");
  for (const [action, n] of [["delete", 1], ["delete", 4], ["approve", 3], ["publish", 1], ["discard", 1], ["saveAnyway", 1]]) {
    const { label } = confirmButton(/** @type {any} */ (action), n);
    assert.match(label, /[\u4e00-\u9fff]/, `${action}: ${label}`);
  }
  assert.equal(confirmButton("approve", 3).label, "批准 3 项发现");
  setLanguage("en");
});

test("index.html: the shared dialog's yes button starts neutral, not a red Delete", async () => {
  const { readFile } = await import("node:fs/promises");
  const html = await readFile(new URL("../../ui/index.html", import.meta.url), "utf8");
  const yes = html.match(/<button id="confirm-yes"[^>]*>/)?.[0];
  assert.ok(yes, "index.html has #confirm-yes");
  assert.doesNotMatch(yes, /danger/);
  assert.doesNotMatch(yes, /data-i18n="delete"/);
});
