// The sidebar's multi-selection (selection.js) and which skills a bulk action changes (bulk.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { keepShown, pickRange, rangeKeys, toggleKey } from "../../ui/selection.js";
import { nameList, planBulk } from "../../ui/bulk.js";
import { setLanguage } from "../../ui/i18n.js";

const keys = ["user/a", "user/b", "user/c", "user/d", "system/e"];
const set = (...ks) => new Set(ks);

test("toggleKey: adds a key, takes it out again, leaves the given set alone", () => {
  const picked = set("user/a");
  assert.deepEqual(toggleKey(picked, "user/b"), set("user/a", "user/b"));
  assert.deepEqual(toggleKey(picked, "user/a"), set());
  assert.deepEqual(picked, set("user/a"), "not changed in place");
});

test("rangeKeys: anchor to target either way, both included; the target alone without an anchor", () => {
  assert.deepEqual(rangeKeys(keys, "user/b", "user/d"), ["user/b", "user/c", "user/d"]);
  assert.deepEqual(rangeKeys(keys, "user/d", "user/b"), ["user/b", "user/c", "user/d"], "upwards");
  assert.deepEqual(rangeKeys(keys, "user/c", "user/c"), ["user/c"]);
  assert.deepEqual(rangeKeys(keys, null, "user/c"), ["user/c"]);
  assert.deepEqual(rangeKeys(keys, "user/hidden", "user/c"), ["user/c"], "an anchor a search hides");
  assert.deepEqual(rangeKeys(keys, "user/a", "user/gone"), []);
  assert.deepEqual(rangeKeys(keys, "user/d", "system/e"), ["user/d", "system/e"], "across scope groups");
});

test("pickRange: Shift replaces the picked with the range; Ctrl/Cmd+Shift adds it", () => {
  assert.deepEqual(pickRange(set("user/a"), keys, "user/c", "user/d", false), set("user/c", "user/d"));
  assert.deepEqual(pickRange(set("user/a"), keys, "user/c", "user/d", true), set("user/a", "user/c", "user/d"));
});

test("keepShown: picked keys a search hid or a reload lost are dropped, in list order", () => {
  assert.deepEqual([...keepShown(set("system/e", "user/gone", "user/b"), keys)], ["user/b", "system/e"]);
  assert.deepEqual(keepShown(set(), keys), set());
});

/** A SkillRow with defaults. */
const skill = (name, more = {}) => ({
  name, scope: "user", version: null, revision: 1, valid: true, shadowed: false, enabled: true, errors: 0, warnings: 0,
  description: null, descriptionZh: null, toolsUnapproved: false, pinned: false, held: false, risk: null, ...more,
});
const names = (plan) => ({ todo: plan.todo.map((s) => `${s.scope}/${s.name}`), kept: plan.kept.map((s) => `${s.scope}/${s.name}`) });

test("planBulk: switch and pin only the skills that change, each name once", () => {
  const picked = [
    skill("a"), skill("b", { enabled: false, pinned: true }), skill("pdf"), skill("pdf", { scope: "system", shadowed: true }),
  ];
  assert.deepEqual(names(planBulk("off", picked)), { todo: ["user/a", "user/pdf"], kept: ["user/b", "system/pdf"] });
  assert.deepEqual(names(planBulk("on", picked)), { todo: ["user/b"], kept: ["user/a", "user/pdf", "system/pdf"] });
  assert.deepEqual(names(planBulk("pin", picked)).todo, ["user/a", "user/pdf"]);
  assert.deepEqual(names(planBulk("unpin", picked)).todo, ["user/b"]);
  assert.deepEqual(planBulk("on", [skill("x")]).todo, [], "already on: nothing to do");
});

test("planBulk: Delete leaves team skills, which change only by publishing", () => {
  const picked = [skill("a"), skill("t", { scope: "team" }), skill("s", { scope: "system" })];
  assert.deepEqual(names(planBulk("delete", picked)), { todo: ["user/a", "system/s"], kept: ["team/t"] });
});

test("nameList: every name up to five, then how many more", () => {
  setLanguage("en");
  assert.equal(nameList(["a", "b"]), "a, b");
  assert.equal(nameList(["a", "b", "c", "d", "e", "f", "g"]), "a, b, c, d, e and 2 more");
  setLanguage("zh");
  assert.equal(nameList(["a", "b", "c", "d", "e", "f"]), "a, b, c, d, e 等另外 1 个");
  setLanguage("en");
});
