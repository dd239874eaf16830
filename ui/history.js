// @ts-check
// A skill's History: its revisions with dates in the reader's language, what made each one,
// what each changed (against the one before, or any two ticked: Compare), and a read-only view
// of any revision's files with a way to restore it.

import { $, el, showError } from "./dom.js";
import { formatDate, t } from "./i18n.js";
import { fileBody } from "./fileview.js";

import { invoke } from "./api.js";
import { compareRange, revisionDiff } from "./revision_diff.js";
import { recordsOf } from "./evals.js";

/** What made a revision, in words: `upload`, `restore:3`, … as the backend names events. */
export function eventText(event) {
  const text0 = String(event);
  const at = text0.indexOf(":");
  const [kind, arg] = at < 0 ? [text0, undefined] : [text0.slice(0, at), text0.slice(at + 1)];
  const key = `event_${kind}`;
  const text = t(key, arg);
  return text === key ? event : text;
}

/**
 * Shows the History of skill `d` in the viewer. `restore(scope, name, revision)` makes a new
 * revision from an old one.
 */
export async function showHistory(d, restore) {
  const rows = await invoke("skill_history", { scope: d.scope, name: d.name }).catch(showError);
  if (!rows) return false;
  // What each revision's evals found; a skill whose evals cannot be read shows none.
  const records = await invoke("skill_eval_records", { scope: d.scope, name: d.name }).catch(() => []);
  /** @type {Set<number>} */
  const ticked = new Set();
  const compare = /** @type {HTMLButtonElement} */ (el("button", { type: "button", id: "compare-revisions", disabled: true, text: t("compareTick") }));
  const tick = (rev, on) => {
    if (on) ticked.add(rev);
    else ticked.delete(rev);
    const range = compareRange(ticked);
    compare.disabled = !range;
    compare.textContent = range ? t("compareRevisions", range.from, range.to) : t("compareTick");
  };
  compare.onclick = () => {
    const range = compareRange(ticked);
    if (range) showCompare(d, range.from, range.to, restore);
  };
  const head = el("tr", {}, ...["colRevision", "colDate", "colDigest", "colEvent", "colEvals"].map((k) => el("th", { scope: "col", text: t(k) })),
    el("th", { scope: "col" }), el("th", { scope: "col", class: "pick", text: t("compareCol") }));
  const list = el("table", { class: "history", id: "history" }, el("thead", {}, head));
  const body = el("tbody");
  for (const r of rows) {
    const view = r.restorable || r.current
      ? el("button", { type: "button", class: "view-revision", text: t("view"), onclick: () => showRevision(d, r, restore) })
      : null;
    // Any revision whose files are still kept can be compared, the current one included.
    const pick = r.restorable || r.current
      ? el("input", { type: "checkbox", class: "pick-revision", "aria-label": t("compareThis", r.revision), onchange: (e) => tick(r.revision, e.target.checked) })
      : null;
    body.append(el("tr", { dataset: { revision: String(r.revision) } },
      el("td", { text: `v:${r.revision}` }),
      el("td", { text: r.at ? formatDate(r.at) : "—", title: r.at || null }),
      el("td", { class: "digest", text: r.digest || "—" }),
      el("td", { text: eventText(r.event) }),
      el("td", { class: "evals-cell", text: recordsOf(records, r.revision).slice(0, 2).join("; ") }),
      el("td", { class: "actions" }, view, r.current ? el("span", { class: "marker muted", text: t("current") })
        : r.restorable ? el("button", { type: "button", class: "restore", text: t("restore"), onclick: () => restore(d.scope, d.name, r.revision) }) : null),
      el("td", { class: "pick" }, pick),
    ));
  }
  list.append(body);
  $("#viewer").replaceChildren(el("div", { class: "file-title", text: `${d.name} — ${t("history")}` }),
    el("div", { class: "row compare-bar" }, el("span", { class: "hint", text: t("compareHint") }), compare), list);
  return true;
}

/** Shows what changed from revision `from` to `to` of skill `d`, with the way back. */
async function showCompare(d, from, to, restore) {
  const diff = await revisionDiff(d, from, to);
  // What each side's evals found, when either was evaluated.
  const records = await invoke("skill_eval_records", { scope: d.scope, name: d.name }).catch(() => []);
  const side = (v) => `v:${v} ${recordsOf(records, v).slice(0, 2).join("; ") || t("evalNone")}`;
  const results = recordsOf(records, from).length || recordsOf(records, to).length
    ? el("p", { class: "hint", id: "compare-evals", text: `${t("colEvals")}: ${side(from)} → ${side(to)}` }) : null;
  const pane = $("#viewer");
  pane.replaceChildren(el("div", { class: "file-title", text: `${d.name} — ${t("compareRevisions", from, to)}` }),
    el("div", { class: "revision-banner" }, el("strong", { text: t("comparing", from, to) }), el("span", { class: "spacer" }),
      el("button", { type: "button", text: t("backToHistory"), onclick: () => showHistory(d, restore) })),
    results, diff);
  pane.scrollTop = 0;
}

/**
 * Shows revision `r` of skill `d` read-only: what it changed against the one before (unfolded
 * when `changes` is, as at the first View), its files as buttons, the chosen one below.
 */
async function showRevision(d, r, restore, path = "SKILL.md", changes = true) {
  const diff = revisionDiff(d, null, r.revision);
  const args = { scope: d.scope, name: d.name, revision: r.revision };
  let files;
  let view;
  try {
    files = await invoke("revision_files", args);
    if (!files.some((f) => f.path === path)) path = files.length ? files[0].path : null;
    view = path ? await invoke("read_revision_file", { ...args, path }) : null;
  } catch (e) {
    showError(e);
    return;
  }
  const banner = revisionBanner(d, r, restore);
  const picker = el("div", { class: "revision-files", role: "group" }, ...files.map((f) => el("button", {
    type: "button", class: f.path === path ? "on" : "", "aria-pressed": String(f.path === path), text: f.path,
    onclick: () => showRevision(d, r, restore, f.path, false),
  })));
  const pane = $("#viewer");
  pane.replaceChildren(el("div", { class: "file-title", text: `${d.name} — v:${r.revision}${path ? ` — ${path}` : ""}` }), banner,
    el("details", { class: "revision-changes", id: "revision-changes", open: changes },
      el("summary", { text: t("revisionChangesTitle", r.revision) }), await diff),
    picker);
  if (view) pane.append(...fileBody(view, path));
  pane.scrollTop = 0;
}

/** The read-only banner of revision `r`: Restore (unless current) and the way back. */
function revisionBanner(d, r, restore) {
  return el("div", { class: "revision-banner", id: "revision-banner" },
    el("strong", { text: t("revisionReadOnly", r.revision) }),
    el("span", { class: "spacer" }),
    r.current ? null : el("button", { type: "button", class: "restore", text: t("restoreThis", r.revision), onclick: () => restore(d.scope, d.name, r.revision) }),
    el("button", { type: "button", text: t("backToHistory"), onclick: () => showHistory(d, restore) }));
}
