// @ts-check
// The editor's Checks: the open file's notes under the editor (each with its quick fix), and
// beside it whether the audit would hold the skill, every file's notes, the listing line each
// agent would show, and what the draft changes. Drawn from one `draft_check` answer.

import { el } from "./dom.js";
import { t } from "./i18n.js";
import { diffBlock } from "./diff.js";
import { notesByFile } from "./editor_logic.js";

/**
 * @typedef {import("./types/bindings").DraftCheck} DraftCheck
 * @typedef {import("./types/bindings").Note} LineNote
 * @typedef {{ onFix: (fix: string) => void, onShow: (path: string, line: number | null) => void }} CheckHooks
 */

const severityText = (s) => t(s === "error" ? "severityError" : s === "warning" ? "severityWarning" : "severityInfo");

/** One note as a list item: severity, line, message, and its fix as a button. */
function noteItem(n, hooks, withPath) {
  const where = withPath ? `${n.path}${n.line ? `:${n.line}` : ""}` : n.line ? t("lineN", n.line) : "";
  return el("li", { class: `note ${n.severity}`, dataset: { code: n.code } },
    el("span", { class: `marker ${n.severity}`, text: severityText(n.severity) }),
    where ? el("button", { type: "button", class: "link where", text: where, onclick: () => hooks.onShow(n.path, n.line) }) : null,
    el("span", { class: "message", text: n.message }),
    n.fix ? el("button", { type: "button", class: "fix", text: n.fixLabel || t("fix"), onclick: () => hooks.onFix(/** @type {string} */ (n.fix)) }) : null);
}

/**
 * Draws the open file's notes into `box` (under the editor).
 * @param {HTMLElement} box
 * @param {DraftCheck | null} check
 * @param {string | null} path
 * @param {CheckHooks} hooks
 */
export function renderFileNotes(box, check, path, hooks) {
  const notes = check && path ? notesByFile(check.notes).find(([p]) => p === path)?.[1] || [] : [];
  box.replaceChildren(
    el("h3", {}, el("span", { text: t("checksThisFile") }),
      el("span", { class: "hint", text: !check ? t("checking") : notes.length ? t("notesN", notes.length) : t("noNotes") })),
    el("ul", { class: "notes" }, ...notes.map((n) => noteItem(n, hooks, false))));
}

/**
 * Draws the side panel of Checks into `box`.
 * @param {HTMLElement} box
 * @param {DraftCheck | null} check
 * @param {CheckHooks} hooks
 */
export function renderChecks(box, check, hooks) {
  if (!check) {
    box.replaceChildren(el("h3", { text: t("checks") }), el("p", { class: "hint busy", text: t("checking") }));
    return;
  }
  const groups = notesByFile(check.notes);
  const errors = check.notes.filter((n) => n.severity === "error").length;
  box.replaceChildren(
    el("h3", { text: t("checks") }),
    el("p", { id: "editor-valid", class: errors ? "error" : "ok", text: errors ? t("draftErrors", errors) : t("draftValid") }),
    el("div", { id: "editor-held", class: `held-box${check.held ? " held" : ""}` },
      el("strong", { text: check.held ? t("wouldBeHeld") : t("wouldNotBeHeld") }),
      check.held ? el("p", { class: "hint", text: t("wouldBeHeldWhy") }) : null),
    groups.length
      ? el("div", { id: "editor-all-notes" }, ...groups.map(([path, notes]) => el("div", { class: "note-group" },
        el("h4", {}, el("code", { text: path })),
        el("ul", { class: "notes" }, ...notes.map((n) => noteItem(n, hooks, true))))))
      : el("p", { class: "hint", text: t("noNotesAll") }),
    el("h3", { text: t("agentLines") }),
    el("p", { class: "hint", text: t("agentLinesHint") }),
    el("ul", { id: "editor-agent-lines", class: "agent-lines" }, ...check.agents.map((a) => el("li", { dataset: { agent: a.agent } },
      el("div", { class: "agent-line-head" }, el("strong", { text: a.label }),
        a.cut ? el("span", { class: "marker warn", text: a.shown === "shortened" ? t("cutAt", a.limit) : t("agentNoDescription") }) : null),
      el("pre", { class: "agent-line", text: a.line })))),
    check.changed.length
      ? el("details", { id: "editor-changes" },
        el("summary", { text: t("draftChangesN", check.changed.length) }),
        ...check.changed.map((d) => diffBlock(d, "revChange_")))
      : el("p", { class: "hint", id: "editor-changes", text: t("draftNoChanges") }),
  );
}
