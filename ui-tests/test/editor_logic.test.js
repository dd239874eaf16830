// The editor view's logic: the debounced one-at-a-time runner, notes as diagnostics, the file
// tree's rows, typed paths, the watcher's changes, base64, and the language chosen by path.
import { test } from "node:test";
import assert from "node:assert/strict";
import { base64Of, cleanPath, debounced, diagnosticsFor, notesByFile, touches, treeRows } from "../../ui/editor_logic.js";
import { languageOf } from "../../editor/src/language.js";

/** Timers the test moves by hand. */
function clock() {
  let now = 0;
  let id = 0;
  const due = new Map();
  return {
    setTimeout: (f, ms) => { due.set(++id, { at: now + ms, f }); return id; },
    clearTimeout: (i) => due.delete(i),
    async advance(ms) {
      now += ms;
      for (const [i, { at, f }] of [...due]) if (at <= now) { due.delete(i); f(); }
      await new Promise((r) => setImmediate(r));
    },
  };
}

/** A promise and its resolver. */
function later() {
  let resolve;
  const promise = new Promise((r) => (resolve = r));
  return { promise, resolve };
}

test("debounced: one run after the last request, its answer delivered", async () => {
  const timers = clock();
  const got = [];
  let runs = 0;
  const r = debounced(async () => ++runs, { delay: 300, timers, onResult: (x) => got.push(x) });
  r.request();
  await timers.advance(200);
  r.request();
  await timers.advance(200);
  assert.equal(runs, 0, "the clock restarts at each request");
  await timers.advance(100);
  assert.equal(runs, 1);
  assert.deepEqual(got, [1]);
  assert.equal(r.busy(), false);
});

test("debounced: never two runs at once, a stale answer dropped, the newest delivered", async () => {
  const timers = clock();
  const got = [];
  const answers = [];
  let inFlight = 0;
  let most = 0;
  const r = debounced(async () => {
    inFlight++;
    most = Math.max(most, inFlight);
    const a = later();
    answers.push(a);
    const out = await a.promise;
    inFlight--;
    return out;
  }, { delay: 10, timers, onResult: (x) => got.push(x) });
  r.request();
  await timers.advance(10);
  assert.equal(answers.length, 1, "the first run began");
  r.request(); // typing on while the first check is on its way
  await timers.advance(10);
  assert.equal(answers.length, 1, "the second waits for the first");
  answers[0].resolve("old");
  await timers.advance(0);
  assert.equal(answers.length, 2, "then runs");
  answers[1].resolve("new");
  await timers.advance(0);
  assert.deepEqual(got, ["new"], "the first answer was stale");
  assert.equal(most, 1);
});

test("debounced: flush runs what waits now and settles when done; cancel drops it", async () => {
  const timers = clock();
  const got = [];
  const r = debounced(async () => "x", { delay: 300, timers, onResult: (x) => got.push(x) });
  r.request();
  await r.flush();
  assert.deepEqual(got, ["x"]);
  await r.flush(); // nothing waiting: settles at once
  r.request();
  r.cancel();
  await timers.advance(300);
  assert.deepEqual(got, ["x"]);
});

test("debounced: an error goes to onError, and the runner keeps working", async () => {
  const timers = clock();
  const errors = [];
  let fail = true;
  const got = [];
  const r = debounced(async () => { if (fail) throw new Error("boom"); return 1; },
    { delay: 1, timers, onResult: (x) => got.push(x), onError: (e) => errors.push(e.message) });
  r.request();
  await timers.advance(1);
  fail = false;
  r.request();
  await timers.advance(1);
  assert.deepEqual(errors, ["boom"]);
  assert.deepEqual(got, [1]);
});

const note = (path, line, severity, fix = null, fixLabel = null) => ({ path, line, severity, code: "c", message: `${path}:${line}`, fix, fixLabel });

test("diagnosticsFor: the open file's notes on their lines, a fix as a named action", () => {
  const fixed = [];
  const notes = [note("SKILL.md", 2, "error", "quote_description", "Quote it"), note("SKILL.md", null, "warning", "f2"), note("x.py", 1, "info")];
  const d = diagnosticsFor(notes, "SKILL.md", (f) => fixed.push(f), "Fix");
  assert.deepEqual(d.map(({ line, severity, message, actions }) => ({ line, severity, message, names: actions.map((a) => a.name) })), [
    { line: 2, severity: "error", message: "SKILL.md:2", names: ["Quote it"] },
    { line: null, severity: "warning", message: "SKILL.md:null", names: ["Fix"] },
  ]);
  d[0].actions[0].run();
  assert.deepEqual(fixed, ["quote_description"]);
  assert.deepEqual(diagnosticsFor(notes, "none.md", () => {}, "Fix"), []);
});

test("notesByFile: grouped by file, errors first, then by line", () => {
  const notes = [note("a", 5, "warning"), note("b", 1, "info"), note("a", 9, "error"), note("a", 2, "warning")];
  assert.deepEqual(notesByFile(notes).map(([p, list]) => [p, list.map((n) => `${n.severity}@${n.line}`)]), [
    ["a", ["error@9", "warning@2", "warning@5"]],
    ["b", ["info@1"]],
  ]);
});

test("treeRows: top files first, each folder once above its files, empty folders kept", () => {
  const f = (path) => ({ path, text: "", size: 1 });
  const rows = treeRows([f("scripts/run.sh"), f("SKILL.md"), f("references/deep/a.md"), f("references/b.md"), f("LICENSE")], ["assets", "scripts"]);
  assert.deepEqual(rows.map((r) => `${r.kind}:${r.path}:${r.depth}`), [
    "file:LICENSE:0", "file:SKILL.md:0",
    "dir:assets:0",
    "dir:references:0", "file:references/b.md:1", "dir:references/deep:1", "file:references/deep/a.md:2",
    "dir:scripts:0", "file:scripts/run.sh:1",
  ]);
});

test("cleanPath: tidied, or null when it cannot be a path inside a skill", () => {
  assert.equal(cleanPath(" scripts//run.sh "), "scripts/run.sh");
  assert.equal(cleanPath("./references/"), "references");
  for (const bad of ["", "  ", "/etc/passwd", "a/../b", "..", "a\\b", "C:x", "./"]) assert.equal(cleanPath(bad), null, bad);
});

test("touches: a change to the skill or its whole scope, not to others", () => {
  assert.equal(touches([{ kind: "skill", scope: "user", name: "pdf" }], "user", "pdf"), true);
  assert.equal(touches([{ kind: "skill", scope: "user", name: null }], "user", "pdf"), true);
  assert.equal(touches([{ kind: "skill", scope: "user", name: "docx" }, { kind: "config" }], "user", "pdf"), false);
  assert.equal(touches([{ kind: "skill", scope: "system", name: "pdf" }], "user", "pdf"), false);
  assert.equal(touches(undefined, "user", "pdf"), true);
});

test("base64Of: the bytes as base64, large files included", () => {
  assert.equal(base64Of(new TextEncoder().encode("hi!")), "aGkh");
  const big = new Uint8Array(200_000).map((_, i) => i % 256);
  assert.equal(base64Of(big.buffer), Buffer.from(big).toString("base64"));
});

test("languageOf: by extension, SKILL.md as Markdown, a script by its #! line", () => {
  const cases = [
    ["SKILL.md", "", "markdown"], ["references/guide.MD", "", "markdown"], ["a.yaml", "", "yaml"], ["b.yml", "", "yaml"],
    ["scripts/x.py", "", "python"], ["run.sh", "", "shell"], ["x.bash", "", "shell"], ["lib.js", "", "javascript"],
    ["lib.ts", "", "typescript"], ["scripts/run", "#!/bin/sh", "shell"], ["scripts/run", "#!/usr/bin/env bash", "shell"],
    ["scripts/tool", "#!/usr/bin/env python3", "python"], ["LICENSE", "MIT", "text"], [".env", "", "text"],
  ];
  for (const [path, first, want] of cases) assert.equal(languageOf(path, first), want, path);
});
