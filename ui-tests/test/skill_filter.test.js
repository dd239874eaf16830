// The sidebar's search and filter chips, and keyboard steps.
import { test } from "node:test";
import assert from "node:assert/strict";
import { filterRows, haystack, passesChips, stepKey } from "../../ui/skill_filter.js";

/** A SkillRow with defaults. */
const skill = (name, more = {}) => ({
  name, scope: "user", version: null, revision: 1, valid: true, shadowed: false, enabled: true, errors: 0, warnings: 0,
  description: null, descriptionZh: null, toolsUnapproved: false, pinned: false, held: false, risk: null, ...more,
});
const row = (s) => ({ kind: "skill", key: `${s.scope}/${s.name}`, skill: s, hay: haystack(s) });

const pdf = skill("pdf-tools", { description: "Fill PDF forms", descriptionZh: "填写 PDF 表单" });
const broken = skill("broken", { valid: false, errors: 2 });
const warned = skill("lint", { warnings: 1, enabled: false });
const sys = skill("skill-creator", { scope: "system", description: "Create skills" });
const groups = [
  { head: { kind: "head", key: "head:user" }, rows: [pdf, broken, warned].map(row) },
  { head: { kind: "head", key: "head:system" }, rows: [sys].map(row) },
];
const deleted = [{ kind: "deleted", key: "deleted:old" }];
const keys = (items) => items.map((i) => i.key);

test("haystack: the name and both descriptions, lowercased", () => {
  assert.equal(haystack(pdf), "pdf-tools fill pdf forms 填写 pdf 表单");
  assert.equal(haystack(broken), "broken  ");
});

test("no search and no chips: every group, then the deleted skills", () => {
  const { items, shown } = filterRows(groups, deleted, "", new Set());
  assert.deepEqual(keys(items), ["head:user", "user/pdf-tools", "user/broken", "user/lint", "head:system", "system/skill-creator", "deleted:old"]);
  assert.equal(shown, 4);
});

test("a search keeps matching rows under their heads, drops empty groups and the deleted", () => {
  assert.deepEqual(keys(filterRows(groups, deleted, "pdf", new Set()).items), ["head:user", "user/pdf-tools"]);
  assert.deepEqual(keys(filterRows(groups, deleted, "表单", new Set()).items), ["head:user", "user/pdf-tools"], "the Chinese description too");
  assert.deepEqual(filterRows(groups, deleted, "nothing-matches", new Set()), { items: [], shown: 0 });
});

test("chips of one group widen each other; groups narrow each other", () => {
  assert.ok(passesChips(broken, new Set(["invalid", "warnings"])));
  assert.ok(passesChips(warned, new Set(["invalid", "warnings"])));
  assert.ok(!passesChips(pdf, new Set(["invalid", "warnings"])));
  assert.ok(!passesChips(broken, new Set(["invalid", "system"])), "invalid AND system");
  assert.ok(passesChips(sys, new Set(["system"])));
  assert.ok(passesChips(warned, new Set(["off"])), "switched off for agents");
  const { items, shown } = filterRows(groups, deleted, "", new Set(["user", "warnings"]));
  assert.deepEqual(keys(items), ["head:user", "user/lint"]);
  assert.equal(shown, 1);
});

test("stepKey: steps within the list, lands on the first without a selection, clamps at the ends", () => {
  const ks = ["a", "b", "c", "d"];
  assert.equal(stepKey(ks, "b", 1), "c");
  assert.equal(stepKey(ks, "b", -5), "a");
  assert.equal(stepKey(ks, "b", 10), "d");
  assert.equal(stepKey(ks, null, 1), "a");
  assert.equal(stepKey(ks, "gone", -1), "a");
  assert.equal(stepKey(ks, null, Infinity), "d", "End with nothing selected");
  assert.equal(stepKey(ks, null, -Infinity), "a");
  assert.equal(stepKey([], "a", 1), null);
});
