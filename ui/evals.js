// @ts-check
// A skill's Evals: its trigger queries written in a form and saved as the skill's own
// evals/eval_queries.json (a new revision), run with the provider the user picks, with progress
// and Stop, their results query by query; its output cases as evals/evals.json holds them; and
// every past run by revision. History shows the same records (recordText).

import { $, el, showError, toast } from "./dom.js";
import { formatDate, t } from "./i18n.js";
import { channel, invoke } from "./api.js";

/** @typedef {import("./types/bindings").EvalsView} EvalsView */
/** @typedef {import("./types/bindings").RecordRow} RecordRow */
/** @typedef {import("./types/bindings").TriggerRunView} TriggerRunView */
/** @typedef {import("./types/bindings").QueryRow} QueryRow */

/** A share as a whole percentage. */
const pct = (v) => `${Math.round((v ?? 0) * 100)}%`;

/**
 * One past eval run in a few words: "triggers 9/10" or "83% with, 33% without".
 * @param {RecordRow} r
 */
export function recordText(r) {
  if (r.kind === "triggers") return t("evalRecordTriggers", r.passed, r.total);
  const base = r.baselineKind && r.baselineKind.startsWith("old_skill") ? r.baselineKind.replace("old_skill ", "") : t("evalWithout");
  return t("evalRecordOutputs", pct(r.withSkill), pct(r.baseline), base);
}

/** The records of revision `revision`, newest first, in a few words each. */
export function recordsOf(records, revision) {
  return records.filter((r) => r.revision === revision).map(recordText);
}

/** What runs are under way, by skill key, so the view shows progress when drawn again. */
const running = new Map();

/**
 * The last run's result by skill key, with the revision it ran on: the view is drawn again when
 * the store changes (a save, the watcher) and shows it while the revision is the same.
 * @type {Map<string, {revision: number | null, out: TriggerRunView}>}
 */
const lastRun = new Map();

/** The provider and runs last chosen, kept across skills and redraws. */
const choice = { provider: "", runs: "3", outputRuns: "1" };

/** What the window lends the view: opening a skill's draft in the editor. */
const window_ = { openEditor: /** @type {(scope: string, name: string) => void} */ (() => {}) };

/** The last optimizer result by skill key (see `lastRun`). @type {Map<string, import("./types/bindings").ImproveView>} */
const lastImprove = new Map();

/**
 * Shows the Evals of skill `d` in the viewer. `openEditor(scope, name)` opens a skill's draft.
 * @param {{scope: string, name: string}} d
 * @param {(scope: string, name: string) => void} [openEditor]
 */
export async function showEvals(d, openEditor) {
  if (openEditor) window_.openEditor = openEditor;
  const [view, setup] = await Promise.all([
    invoke("skill_evals", { scope: /** @type {any} */ (d.scope), name: d.name }),
    invoke("agent_setup"),
  ]).catch((e) => { showError(e); return [null, null]; });
  if (!view || !setup) return false;
  /** @type {QueryRow[]} */
  const rows = view.queries.map((q) => ({ ...q }));
  let dirty = false;
  const table = el("table", { class: "evals-queries", id: "eval-queries" });
  const save = /** @type {HTMLButtonElement} */ (el("button", { type: "button", id: "eval-save", class: "primary", disabled: true, text: t("evalSaveQueries") }));
  const markDirty = () => { dirty = true; save.disabled = false; run.disabled = true; run.title = t("evalSaveFirst"); };
  const drawRows = () => {
    table.replaceChildren(el("thead", {}, el("tr", {},
      el("th", { scope: "col", text: t("evalQuery") }), el("th", { scope: "col", text: t("evalShouldLoad") }), el("th", { scope: "col" }))));
    const body = el("tbody");
    rows.forEach((r, i) => {
      body.append(el("tr", {},
        el("td", {}, el("input", { type: "text", class: "eval-query", value: r.query, spellcheck: "true", "aria-label": t("evalQuery"),
          oninput: (e) => { r.query = e.target.value; markDirty(); } })),
        el("td", { class: "pick" }, el("input", { type: "checkbox", class: "eval-should", checked: r.shouldTrigger, "aria-label": t("evalShouldLoad"),
          onchange: (e) => { r.shouldTrigger = e.target.checked; markDirty(); } })),
        el("td", { class: "actions" }, el("button", { type: "button", class: "eval-remove", "aria-label": t("evalRemove"), title: t("evalRemove"), text: "×",
          onclick: () => { rows.splice(i, 1); markDirty(); drawRows(); } })),
      ));
    });
    if (!rows.length) body.append(el("tr", {}, el("td", { colspan: "3", class: "hint", text: t("evalNoQueries") })));
    table.append(body);
  };
  drawRows();
  const add = el("button", { type: "button", id: "eval-add", text: t("evalAddQuery"), onclick: () => {
    rows.push({ query: "", shouldTrigger: true });
    markDirty();
    drawRows();
    /** @type {HTMLInputElement[]} */ ([...table.querySelectorAll(".eval-query")]).at(-1)?.focus();
  } });
  save.onclick = async () => {
    save.disabled = true;
    try {
      const rev = await invoke("save_eval_queries", { scope: /** @type {any} */ (d.scope), name: d.name, queries: rows });
      dirty = false;
      toast(t("evalSaved", d.name, rev));
      await showEvals(d);
    } catch (e) {
      save.disabled = false;
      showError(e);
    }
  };

  // The run bar: provider, runs, Run and Stop, progress.
  const provider = /** @type {HTMLSelectElement} */ (el("select", { id: "eval-provider", "aria-label": t("provider") }));
  for (const p of setup.providers) {
    provider.append(el("option", { value: p.name, disabled: !!p.problem, text: p.problem ? `${p.label} — ${p.problem}` : p.label }));
  }
  const usable = (name) => setup.providers.some((p) => p.name === name && !p.problem);
  provider.value = usable(choice.provider) ? choice.provider : usable(setup.defaultProvider) ? setup.defaultProvider : "offline";
  const runs = /** @type {HTMLInputElement} */ (el("input", { type: "number", id: "eval-runs", min: "1", max: "20", value: choice.runs, "aria-label": t("evalRuns"),
    oninput: (e) => { choice.runs = e.target.value; } }));
  const progress = el("span", { id: "eval-progress", class: "hint", "aria-live": "polite" });
  const stop = /** @type {HTMLButtonElement} */ (el("button", { type: "button", id: "eval-stop", class: "danger", hidden: true, text: t("stop") }));
  const results = el("div", { id: "eval-results" });
  const note = el("p", { class: "hint", id: "eval-provider-note" });
  const noteFor = () => { note.textContent = provider.value === "offline" ? t("evalOfflineNote") : ""; };
  provider.onchange = () => { choice.provider = provider.value; noteFor(); };
  noteFor();
  const run = /** @type {HTMLButtonElement} */ (el("button", { type: "button", id: "eval-run", class: "primary", text: t("evalRunTriggers"),
    disabled: !rows.length || !!view.queriesProblem }));
  const key = `${d.scope}/${d.name}`;
  const title = `${d.name} — ${t("evals")}`;
  stop.onclick = () => invoke("stop_evals", { scope: /** @type {any} */ (d.scope), name: d.name }).catch(showError);
  run.onclick = () => {
    if (dirty) return;
    runEval(d, "triggers", { run, stop, progress, results }, lastRun, view.revision, refreshRecords, resultView,
      (p) => t("evalProgress", p.done, p.total),
      (events) => invoke("run_trigger_evals", { scope: /** @type {any} */ (d.scope), name: d.name, provider: provider.value,
        runs: Math.max(1, Math.min(20, Number(runs.value) || 3)), progress: events }));
  };
  // The description optimizer: the guide's loop, its winner offered as a draft.
  const improved = el("div", { id: "eval-improved" });
  const improve = /** @type {HTMLButtonElement} */ (el("button", { type: "button", id: "eval-improve", text: t("evalImprove"), title: t("evalImproveTitle"),
    disabled: !rows.length || !!view.queriesProblem }));
  improve.onclick = async () => {
    if (dirty) return;
    if (provider.value === "offline") { showError({ code: "eval_optimizer_offline", message: t("evalImproveOffline") }); return; }
    const events = channel();
    const where = () => /** @type {HTMLElement} */ ($("#eval-improve-progress"));
    events.onmessage = (p) => { where().textContent = p.step === "rewriting" ? t("evalImproveRewriting", p.candidate + 1) : t("evalImproveScoring", p.candidate); };
    improve.disabled = true;
    run.disabled = true;
    stop.hidden = false;
    running.set(key, "improve");
    try {
      const out = await invoke("improve_description", { scope: /** @type {any} */ (d.scope), name: d.name, provider: provider.value,
        runs: Math.max(1, Math.min(20, Number(runs.value) || 3)), progress: events });
      lastImprove.set(key, out);
      where().textContent = "";
      if (improved.isConnected) improved.replaceChildren(...improveView(out, d));
      else if ($("#viewer .file-title")?.textContent === title) await showEvals(d);
    } catch (e) {
      where().textContent = "";
      showError(e);
    } finally {
      running.delete(key);
      improve.disabled = false;
      run.disabled = false;
      stop.hidden = true;
    }
  };
  const records = el("div", { id: "eval-records" });
  const refreshRecords = async () => {
    const fresh = await invoke("skill_evals", { scope: /** @type {any} */ (d.scope), name: d.name });
    records.replaceChildren(recordsView(fresh.records));
  };
  records.append(recordsView(view.records));

  $("#viewer").replaceChildren(
    el("div", { class: "file-title", text: title }),
    el("section", { class: "evals-section" },
      el("h3", { text: t("evalTriggerQueries") }),
      el("p", { class: "hint", text: t("evalQueriesHint") }),
      view.queriesProblem ? el("p", { class: "error", id: "eval-queries-problem", text: view.queriesProblem }) : null,
      table,
      el("div", { class: "row" }, add, save),
      el("div", { class: "row eval-run-bar" },
        el("label", { class: "field provider-field" }, el("span", { text: t("provider") }), provider),
        el("label", { class: "field runs-field" }, el("span", { text: t("evalRuns") }), runs),
        run, stop, progress),
      note,
      results,
      el("div", { class: "row eval-improve-bar" }, improve, el("span", { id: "eval-improve-progress", class: "hint", "aria-live": "polite" })),
      improved),
    el("section", { class: "evals-section" },
      el("h3", { text: t("evalOutputCases") }),
      view.casesProblem ? el("p", { class: "error", id: "eval-cases-problem", text: view.casesProblem }) : null,
      casesForm(d, view, setup, refreshRecords)),
    el("section", { class: "evals-section" }, el("h3", { text: t("evalPastResults") }), records),
  );
  const shown = lastRun.get(key);
  if (shown && shown.revision === view.revision) results.replaceChildren(...resultView(shown.out));
  const tried = lastImprove.get(key);
  if (tried) improved.replaceChildren(...improveView(tried, d));
  if (running.get(key) === "improve") { improve.disabled = true; run.disabled = true; stop.hidden = false; }
  if (running.get(key) === "triggers") { run.disabled = true; stop.hidden = false; progress.textContent = t("evalStarting"); }
  return true;
}

/** @param {TriggerRunView} out */
function resultView(out) {
  const share = (v) => (v === null || v === undefined ? "—" : v.toFixed(2));
  const summary = el("p", { id: "eval-summary", class: out.passed === out.total ? "ok" : "warn",
    text: t("evalSummary", out.passed, out.total, share(out.precision), share(out.recall), out.runs, out.provider) });
  const head = el("tr", {}, ...["evalResult", "evalQuery", "evalWanted", "evalLoaded", "evalInstead"].map((k) => el("th", { scope: "col", text: t(k) })));
  const body = el("tbody");
  for (const q of out.results) {
    const notes = [
      q.loadedInstead.length ? q.loadedInstead.join(", ") : "",
      q.errors.length ? t("evalRunsFailed", q.errors.length, q.errors[0]) : "",
      q.refusedCommands ? t("evalRefused", q.refusedCommands) : "",
    ].filter(Boolean).join(" · ");
    body.append(el("tr", { class: q.passed ? "pass" : "fail", title: q.sessions.join(", ") },
      el("td", {}, el("span", { class: `badge ${q.passed ? "ok" : "bad"}`, text: q.passed ? t("evalPass") : t("evalFail") })),
      el("td", { text: q.query }),
      el("td", { text: q.shouldTrigger ? t("evalShould") : t("evalShouldNot") }),
      el("td", { text: `${q.triggers}/${q.runs}` }),
      el("td", { class: "hint", text: notes })));
  }
  return [summary, el("table", { class: "history evals-results" }, el("thead", {}, head), body)];
}

/** @param {RecordRow[]} records */
function recordsView(records) {
  if (!records.length) return el("p", { class: "hint", text: t("evalNoRecords") });
  const head = el("tr", {}, ...["colRevision", "colDate", "evalKind", "evalResult", "provider"].map((k) => el("th", { scope: "col", text: t(k) })));
  const body = el("tbody");
  for (const r of records) {
    body.append(el("tr", {},
      el("td", { text: r.revision ? `v:${r.revision}` : "—" }),
      el("td", { text: formatDate(r.at), title: r.at }),
      el("td", { text: r.kind === "triggers" ? t("evalKindTriggers") : t("evalKindOutputs") }),
      el("td", { text: recordText(r) }),
      el("td", { class: "hint", text: r.offline ? `${r.provider} (${t("evalRanker")})` : r.provider })));
  }
  return el("table", { class: "history evals-records" }, el("thead", {}, head), body);
}

/**
 * Runs one kind of eval from its run bar: Run off and Stop on while it runs, progress as it
 * goes, the result drawn and kept in `kept` (by skill, with the revision it ran on) so the view
 * drawn again shows it, the past results refreshed, and the view drawn again when the store
 * changed meanwhile.
 * @template {{stopped: boolean, seconds: number}} T
 * @param {{scope: string, name: string}} d @param {string} kind
 * @param {{run: HTMLButtonElement, stop: HTMLButtonElement, progress: HTMLElement, results: HTMLElement}} bar
 * @param {Map<string, {revision: number | null, out: T}>} kept @param {number | null} revision
 * @param {() => Promise<void>} refreshRecords @param {(out: T) => Node[]} draw
 * @param {(p: import("./types/bindings").EvalProgress) => string} step
 * @param {(events: import("./types/commands").Channel<import("./types/bindings").EvalProgress>) => Promise<T>} call
 */
async function runEval(d, kind, bar, kept, revision, refreshRecords, draw, step, call) {
  const key = `${d.scope}/${d.name}`;
  const events = channel();
  events.onmessage = (p) => { bar.progress.textContent = step(p); };
  bar.run.disabled = true;
  bar.stop.hidden = false;
  bar.progress.textContent = t("evalStarting");
  running.set(key, kind);
  try {
    const out = await call(events);
    kept.set(key, { revision, out });
    bar.results.replaceChildren(...draw(out));
    bar.progress.textContent = out.stopped ? t("evalStopped") : t("evalDone", Math.round(out.seconds));
    if (!out.stopped) await refreshRecords();
  } catch (e) {
    bar.progress.textContent = "";
    showError(e);
  } finally {
    running.delete(key);
    bar.run.disabled = false;
    bar.stop.hidden = true;
    // Drawn again while it ran (the store changed): the view on show gets the result.
    if (!bar.results.isConnected && $("#viewer .file-title")?.textContent === `${d.name} — ${t("evals")}`) showEvals(d).catch(showError);
  }
}

/** @typedef {import("./types/bindings").CaseRow} CaseRow */
/** @typedef {import("./types/bindings").OutputRunView} OutputRunView */

/** The last output run by skill key, with its revision (see `lastRun`). @type {Map<string, {revision: number | null, out: OutputRunView}>} */
const lastOutputs = new Map();

/**
 * The output cases in a form (prompt, what success looks like, input files, one expectation a
 * line), saved as the skill's evals/evals.json; a run bar (provider, grader, baseline, runs);
 * and the last run's results, expectation by expectation with the evidence.
 * @param {{scope: string, name: string}} d @param {EvalsView} view
 * @param {import("./types/bindings").SetupView} setup @param {() => Promise<void>} refreshRecords
 */
function casesForm(d, view, setup, refreshRecords) {
  /** @type {CaseRow[]} */
  const cases = view.cases.map((c) => ({ ...c, files: [...c.files], expectations: [...c.expectations] }));
  const list = el("div", { id: "eval-cases" });
  const save = /** @type {HTMLButtonElement} */ (el("button", { type: "button", id: "eval-save-cases", class: "primary", disabled: true, text: t("evalSaveCases") }));
  const run = /** @type {HTMLButtonElement} */ (el("button", { type: "button", id: "eval-run-outputs", class: "primary", text: t("evalRunOutputs"),
    disabled: !cases.length || !!view.casesProblem }));
  const dirty = () => { save.disabled = false; run.disabled = true; run.title = t("evalSaveFirst"); };
  const draw = () => {
    list.replaceChildren();
    cases.forEach((c, i) => {
      const field = (label, node) => el("label", { class: "field" }, el("span", { text: label }), node);
      list.append(el("fieldset", { class: "eval-case", dataset: { case: String(i + 1) } },
        el("legend", { text: c.folder || t("evalNewCase") }),
        field(t("evalPrompt"), el("textarea", { class: "eval-prompt", rows: "2", oninput: (e) => { c.prompt = e.target.value; dirty(); } }, c.prompt)),
        field(t("evalExpected"), el("input", { type: "text", class: "eval-expected", value: c.expectedOutput, oninput: (e) => { c.expectedOutput = e.target.value; dirty(); } })),
        field(t("evalFiles"), el("input", { type: "text", class: "eval-files", value: c.files.join(", "), placeholder: "evals/files/data.csv",
          oninput: (e) => { c.files = e.target.value.split(","); dirty(); } })),
        field(t("evalExpectations"), el("textarea", { class: "eval-expectations", rows: String(Math.max(2, c.expectations.length)),
          oninput: (e) => { c.expectations = e.target.value.split("\n"); dirty(); } }, c.expectations.join("\n"))),
        c.check ? el("p", { class: "hint", text: t("evalCaseCheck", c.check) }) : null,
        el("div", { class: "row end" }, el("button", { type: "button", class: "eval-remove-case", text: t("evalRemoveCase"),
          onclick: () => { cases.splice(i, 1); dirty(); draw(); } }))));
    });
    if (!cases.length) list.append(el("p", { class: "hint", text: t("evalNoCases") }));
  };
  draw();
  const add = el("button", { type: "button", id: "eval-add-case", text: t("evalAddCase"), onclick: () => {
    cases.push({ id: "", folder: "", name: null, prompt: "", expectedOutput: "", files: [], expectations: [], check: null });
    dirty();
    draw();
    /** @type {HTMLTextAreaElement[]} */ ([...list.querySelectorAll(".eval-prompt")]).at(-1)?.focus();
  } });
  save.onclick = async () => {
    save.disabled = true;
    try {
      const rev = await invoke("save_eval_cases", { scope: /** @type {any} */ (d.scope), name: d.name, cases });
      toast(t("evalCasesSaved", d.name, rev));
      await showEvals(d);
    } catch (e) {
      save.disabled = false;
      showError(e);
    }
  };

  const pick = (id, label) => {
    const select = /** @type {HTMLSelectElement} */ (el("select", { id, "aria-label": label }));
    for (const p of setup.providers) select.append(el("option", { value: p.name, disabled: !!p.problem, text: p.label }));
    return select;
  };
  const provider = pick("eval-output-provider", t("provider"));
  const usable = setup.providers.filter((p) => !p.problem && p.kind !== "offline").map((p) => p.name);
  provider.value = usable.includes(choice.provider) ? choice.provider : usable.includes(setup.defaultProvider) ? setup.defaultProvider : (usable[0] ?? "offline");
  const grader = pick("eval-grader", t("evalGrader"));
  grader.prepend(el("option", { value: "", text: t("evalGraderSame") }));
  grader.value = "";
  const baseline = /** @type {HTMLSelectElement} */ (el("select", { id: "eval-baseline", "aria-label": t("evalBaseline") },
    el("option", { value: "", text: t("evalBaselineNone") })));
  for (let v = (view.revision ?? 1) - 1; v >= 1; v--) baseline.append(el("option", { value: String(v), text: `v:${v}` }));
  const runs = /** @type {HTMLInputElement} */ (el("input", { type: "number", id: "eval-output-runs", min: "1", max: "20", value: choice.outputRuns, "aria-label": t("evalRuns"),
    oninput: (e) => { choice.outputRuns = e.target.value; } }));
  const allow = /** @type {HTMLInputElement} */ (el("input", { type: "checkbox", id: "eval-allow-commands" }));
  const progress = el("span", { id: "eval-output-progress", class: "hint", "aria-live": "polite" });
  const stop = /** @type {HTMLButtonElement} */ (el("button", { type: "button", id: "eval-output-stop", class: "danger", hidden: true, text: t("stop"),
    onclick: () => invoke("stop_evals", { scope: /** @type {any} */ (d.scope), name: d.name }).catch(showError) }));
  const results = el("div", { id: "eval-output-results" });
  const key = `${d.scope}/${d.name}`;
  run.onclick = () => runEval(d, "outputs", { run, stop, progress, results }, lastOutputs, view.revision, refreshRecords, outputView,
    (p) => t("evalProgress", Math.min(p.done + 1, p.total), p.total),
    (events) => invoke("run_output_evals", { scope: /** @type {any} */ (d.scope), name: d.name, progress: events, request: {
      provider: provider.value, grader: grader.value || null, baseline: baseline.value ? Number(baseline.value) : null,
      runs: Math.max(1, Math.min(20, Number(runs.value) || 1)), allowCommands: allow.checked } }));
  const shown = lastOutputs.get(key);
  if (shown && shown.revision === view.revision) results.replaceChildren(...outputView(shown.out));
  if (running.get(key) === "outputs") { run.disabled = true; stop.hidden = false; progress.textContent = t("evalStarting"); }
  return el("div", {},
    el("p", { class: "hint", text: t("evalCasesHint", d.name) }),
    list,
    el("div", { class: "row" }, add, save),
    el("div", { class: "row eval-run-bar" },
      el("label", { class: "field provider-field" }, el("span", { text: t("provider") }), provider),
      el("label", { class: "field provider-field" }, el("span", { text: t("evalGrader") }), grader),
      el("label", { class: "field" }, el("span", { text: t("evalBaseline") }), baseline),
      el("label", { class: "field runs-field" }, el("span", { text: t("evalRuns") }), runs),
      run, stop, progress),
    el("label", { class: "check", title: t("evalAllowCommandsTitle") }, allow, el("span", { text: t("evalAllowCommands") })),
    results);
}

/** @param {OutputRunView} out */
function outputView(out) {
  const rate = (v) => (v === null || v === undefined ? "—" : pct(v));
  const base = out.baseline.startsWith("old_skill") ? out.baseline.replace("old_skill ", "") : t("evalWithout");
  const cost = out.deltaSeconds === null || out.deltaTokens === null ? ""
    : t("evalCost", (out.deltaSeconds >= 0 ? "+" : "") + out.deltaSeconds.toFixed(1), (out.deltaTokens >= 0 ? "+" : "") + Math.round(out.deltaTokens));
  const summary = el("p", { id: "eval-output-summary", text: t("evalOutputSummary", rate(out.withSkill), rate(out.baselineRate), base, cost, out.provider, out.grader) });
  const table = el("table", { class: "history evals-results", id: "eval-output-table" },
    el("thead", {}, el("tr", {}, ...["evalCase", "evalConfiguration", "evalExpectation", "evalResult", "evalEvidence"].map((k) => el("th", { scope: "col", text: t(k) })))));
  const body = el("tbody");
  for (const r of out.runs) {
    const where = `${r.eval}${r.run > 1 ? ` #${r.run}` : ""}`;
    const arm = r.configuration === "with_skill" ? t("evalWith") : r.configuration === "old_skill" ? base : t("evalWithout");
    const notes = [
      r.configuration === "with_skill" && !r.skillLoaded ? t("evalNotLoaded") : "",
      r.failed ? t("evalRunFailed", r.failed) : "",
      r.timedOut ? t("evalTimedOut") : "",
      r.refusedCommands ? t("evalRefused", r.refusedCommands) : "",
    ].filter(Boolean).join(" · ");
    r.expectations.forEach((g, i) => body.append(el("tr", { class: g.passed ? "pass" : "fail", title: `${r.session} · ${r.grader}` },
      el("td", { text: i === 0 ? where : "" }),
      el("td", { text: i === 0 ? arm : "" }),
      el("td", { text: g.text }),
      el("td", {}, el("span", { class: `badge ${g.passed ? "ok" : "bad"}`, text: g.passed ? t("evalPass") : t("evalFail") })),
      el("td", { class: "hint", text: i === 0 && notes ? `${g.evidence} (${notes})` : g.evidence }))));
  }
  table.append(body);
  return [summary, table, el("p", { class: "hint", id: "eval-output-iteration", text: t("evalWrittenTo", out.iteration) })];
}

/**
 * The optimizer's candidates with their train and validation scores, the winner marked, and
 * the way to its draft.
 * @param {import("./types/bindings").ImproveView} out @param {{scope: string, name: string}} d
 */
function improveView(out, d) {
  const head = el("tr", {}, ...["evalCandidate", "evalTrain", "evalValidation", "evalDescription"].map((k) => el("th", { scope: "col", text: t(k) })));
  const body = el("tbody");
  out.candidates.forEach((c, i) => body.append(el("tr", { class: i === out.best ? "best" : "" },
    el("td", {}, c.iteration === 0 ? t("evalAsItIs") : t("evalRewrite", c.iteration), i === out.best ? el("span", { class: "badge ok", text: t("evalBest") }) : null),
    el("td", { text: `${c.trainPassed}/${c.trainTotal}` }),
    el("td", { text: `${c.validationPassed}/${c.validationTotal}` }),
    el("td", { text: c.description }))));
  const verdict = out.stopped ? el("p", { class: "hint", id: "eval-improve-verdict", text: t("evalImproveStopped") })
    : out.best === 0 ? el("p", { class: "hint", id: "eval-improve-verdict", text: t("evalImproveKept") })
    : out.draft ? el("p", { id: "eval-improve-verdict" }, el("span", { text: t("evalImproveDrafted") }), " ",
      el("button", { type: "button", id: "eval-open-draft", class: "primary", text: t("evalOpenDraft"), onclick: () => window_.openEditor(d.scope, d.name) }))
      : el("p", { class: "hint", id: "eval-improve-verdict", text: t("evalImproveDraftKept") });
  return [
    ...out.refused.map((r) => el("p", { class: "hint", text: r })),
    el("table", { class: "history evals-candidates", id: "eval-candidates" }, el("thead", {}, head), body),
    verdict,
  ];
}
