// New skill's name field: Create only for an ok answer about the name as typed now.
import { test } from "node:test";
import assert from "node:assert/strict";
import { nameState } from "../../ui/new_skill.js";

const ok = { ok: true, problem: null, taken: false };
const bad = { ok: false, problem: "Use lowercase letters, digits and hyphens", taken: false };
const taken = { ok: false, problem: null, taken: true };

test("nameState: nothing typed, an answer on its way, an answer about an older text", () => {
  assert.deepEqual(nameState("  ", null), { canCreate: false, checking: false, problem: null, taken: false });
  assert.deepEqual(nameState("pdf", null), { canCreate: false, checking: true, problem: null, taken: false });
  assert.deepEqual(nameState("pdf-tools", { name: "pdf", result: ok }), { canCreate: false, checking: true, problem: null, taken: false },
    "an ok for 'pdf' says nothing about 'pdf-tools'");
});

test("nameState: the answer's problem, a taken name, a free one (spaces around ignored)", () => {
  assert.deepEqual(nameState("PDF", { name: "PDF", result: bad }), { canCreate: false, checking: false, problem: bad.problem, taken: false });
  assert.deepEqual(nameState("pdf", { name: "pdf", result: taken }), { canCreate: false, checking: false, problem: null, taken: true });
  assert.deepEqual(nameState(" pdf ", { name: "pdf", result: ok }), { canCreate: true, checking: false, problem: null, taken: false });
});
