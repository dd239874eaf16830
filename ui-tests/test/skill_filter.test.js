// The sidebar's search and filter chips, and keyboard steps.
import { test } from "node:test";
import assert from "node:assert/strict";
import { atWordStart, filterRows, haystack, passesChips, queryWords, searchable, stem, stepKey } from "../../ui/skill_filter.js";

/** A SkillRow with defaults. */
const skill = (name, more = {}) => ({
  name, scope: "user", version: null, revision: 1, valid: true, shadowed: false, enabled: true, errors: 0, warnings: 0,
  description: null, descriptionZh: null, toolsUnapproved: false, pinned: false, held: false, risk: null, ...more,
});
const row = (s) => ({ kind: "skill", key: `${s.scope}/${s.name}`, skill: s, search: searchable(s) });

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
  assert.deepEqual(filterRows(groups, deleted, "nothing-matches", new Set()), { items: [], shown: 0, ignored: [] });
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

// ---------- words in any order, prefixes first ----------

/** One user group of `skills`, as the sidebar builds it. */
const userGroup = (skills) => [{ head: { kind: "head", key: "head:user" }, rows: skills.map(row) }];
/** The names the search `q` shows among `skills`, in order. */
const found = (skills, q, flags = new Set()) =>
  filterRows(userGroup(skills), [], q, flags).items.filter((i) => i.kind === "skill").map((i) => i.skill.name);

const store = [
  skill("pptx", { description: "Create, edit and analyse presentations: slides, layouts, speaker notes" }),
  skill("frontend-slides", { description: "Build animated HTML slide decks" }),
  skill("using-git-worktrees", { description: "Work on several branches at once in isolated folders" }),
  skill("git-commit", { description: "Write commit messages" }),
  skill("makefile-helper", { description: "Make targets and recipes" }),
  skill("changelog", { description: "Keep a changelog from git history and worktree notes" }),
  skill("pdf-tools", { description: "Fill PDF forms", descriptionZh: "填写 PDF 表单" }),
];

test("queryWords: split on spaces, each with its stem; a word with - or _ stays one", () => {
  assert.deepEqual(queryWords("git  work_trees"), [{ word: "git", stem: "git" }, { word: "work_trees", stem: "work_tree" }]);
  assert.deepEqual(queryWords(""), []);
  assert.deepEqual(queryWords("- _"), [], "separators alone are no word");
  assert.equal(stem("slides"), "slide");
  assert.equal(stem("policies"), "polic");
  assert.equal(stem("boxes"), "box");
  assert.equal(stem("making"), "mak");
  assert.equal(stem("status"), "status", "not a plural");
  assert.equal(stem("used"), "used", "too short to cut");
});

test("search: every word, in any order, in the name or a description", () => {
  assert.deepEqual(found(store, "git worktree"), ["using-git-worktrees", "changelog"]);
  assert.deepEqual(found(store, "worktree git"), ["using-git-worktrees", "changelog"], "any order");
  assert.deepEqual(found(store, "git-worktrees"), ["using-git-worktrees"], "a name's words as typed, together");
  assert.deepEqual(found(store, "git commit worktree"), [], "every word must match");
});

test("search: a plural or verb form matches the other forms", () => {
  assert.deepEqual(found(store, "slides"), ["frontend-slides", "pptx"], "slide decks as well as slides");
  assert.deepEqual(found(store, "slide"), ["frontend-slides", "pptx"]);
});

test("search: filler words are not needed (make slides), though they still match when typed alone", () => {
  assert.deepEqual(found(store, "make slides"), ["frontend-slides", "pptx"]);
  assert.deepEqual(found(store, "how to make slides"), ["frontend-slides", "pptx"]);
  assert.deepEqual(found(store, "make"), ["makefile-helper"], "a filler word alone is searched");
});

test("search: a word no skill has is left out, and named, when nothing holds every word", () => {
  const r = filterRows(userGroup(store), [], "slides zzyzx", new Set());
  assert.deepEqual(r.ignored, ["zzyzx"]);
  assert.deepEqual(r.items.filter((i) => i.kind === "skill").map((i) => i.skill.name), ["frontend-slides", "pptx"]);
  assert.deepEqual(filterRows(userGroup(store), [], "slides git", new Set()).items, [], "both words exist, in different skills: nothing");
  assert.deepEqual(filterRows(userGroup(store), [], "slides", new Set()).ignored, []);
});

test("search ranks: the name starting with the query, then name words, then the name, then descriptions", () => {
  const skills = [
    skill("notes", { description: "git worktree tips" }), // descriptions only
    skill("worktree-notes", { description: "for git" }), // one word in the name
    skill("mygitworktrees", { description: "git worktree" }), // inside the name is no word of it
    skill("using-git-worktrees"), // both start words of the name
    skill("git-worktree-helper"), // the name starts with the query
    skill("also-git-worktree"), // both start words of the name, kept in order after the first
  ];
  assert.deepEqual(found(skills, "git worktree"),
    ["git-worktree-helper", "using-git-worktrees", "also-git-worktree", "worktree-notes", "notes", "mygitworktrees"]);
  assert.deepEqual(found(skills, "worktree git")[0], "using-git-worktrees", "any order: words of the name before the name's start");
});

test("search ranks within each scope group; the groups keep their order", () => {
  const sysSkill = skill("git-worktree", { scope: "system" });
  const groups = [
    { head: { kind: "head", key: "head:user" }, rows: [skill("notes", { description: "git worktree" }), skill("git-worktree-x")].map(row) },
    { head: { kind: "head", key: "head:system" }, rows: [sysSkill].map(row) },
  ];
  assert.deepEqual(keys(filterRows(groups, deleted, "git worktree", new Set()).items),
    ["head:user", "user/git-worktree-x", "user/notes", "head:system", "system/git-worktree"]);
});

test("search: a word matches where a word of the name or a description starts", () => {
  assert.ok(atWordStart("fill pdf forms", "for"));
  assert.ok(!atWordStart("fill pdf forms", "orms"));
  assert.ok(atWordStart("a (pdf) file", "pdf"), "after punctuation");
  assert.ok(atWordStart("using-git-worktrees", "git-work"), "after a - in a name");
  const skills = [skill("commit-messages", { description: "Write commit messages" }), skill("change-review", { description: "Review a change before a commit" })];
  assert.deepEqual(found(skills, "commit-m"), ["commit-messages"], "commit-m is the name's start, not any m after a commit");
  assert.deepEqual(found(skills, "commit"), ["commit-messages", "change-review"], "the name first");
  assert.deepEqual(found([skill("mypdftools")], "pdf"), [], "not inside a word");
});

test("search: a name typed with its - finds the names starting so, not descriptions saying it apart", () => {
  const many = Array.from({ length: 300 }, (_, i) => skill(`skill-${String(i).padStart(4, "0")}`, { description: `Skill ${i}: turns reports into charts` }));
  const hits = found(many, "skill-01");
  assert.equal(hits.length, 100);
  assert.ok(hits.every((n) => n.startsWith("skill-01")), hits.join(" "));
  assert.deepEqual(found(many, "skill-0199"), ["skill-0199"]);
  assert.equal(found(many, "skill 19").length, 11, "apart, the words also match Skill 19 and 190-199 in descriptions");
});

test("search: a Chinese description is matched by substring", () => {
  assert.deepEqual(found(store, "表单"), ["pdf-tools"]);
  assert.deepEqual(found([skill("notes", { descriptionZh: "编写清晰的提交信息" })], "清晰"), ["notes"], "inside a run of Chinese");
  assert.deepEqual(found(store, "填写 表单"), ["pdf-tools"]);
  assert.deepEqual(found(store, "填写表单"), [], "a substring: the words as stored");
});

test("search with chips: both narrow; an empty or blank query shows everything as before", () => {
  const off = skill("slides-off", { enabled: false });
  assert.deepEqual(found([...store, off], "slides", new Set(["off"])), ["slides-off"]);
  assert.deepEqual(found(store, ""), store.map((s) => s.name));
  assert.deepEqual(found(store, " - "), store.map((s) => s.name), "separators alone are no search");
  const all = filterRows(groups, deleted, "", new Set());
  assert.deepEqual(all.ignored, []);
  assert.ok(all.items.includes(deleted[0]));
});

test("search stays fast: 2,000 skills, a keystroke well under a frame", () => {
  const many = Array.from({ length: 2000 }, (_, i) => skill(`skill-${i}-tools`, { description: `Does thing number ${i} with files and folders` }));
  const g = userGroup(many);
  const start = performance.now();
  for (const q of ["s", "sk", "ski", "skill", "skill 1", "skill 19", "folders 19", "files skill"]) filterRows(g, [], q, new Set());
  const perKey = (performance.now() - start) / 8;
  // A frame is 16 ms; the bound leaves room for a busy test machine.
  assert.ok(perKey < 40, `${perKey.toFixed(1)} ms a keystroke`);
});
