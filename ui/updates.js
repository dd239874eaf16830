// @ts-check
// Updates of skills from sources: the top bar's "Updates N" (a quiet "Up to date" when nothing
// is known to be outdated, hidden only while no skill came from a source; "could not check"
// when offline with nothing pending), and its dialog listing
// each outdated skill (from → to, a warning when it was changed here), its diff, Update and
// Update all. The backend checks in the background and sends `sources://checked`.

import { $, el, showError, toast } from "./dom.js";
import { errorText, formatDate, t } from "./i18n.js";
import { diffBlock } from "./diff.js";

import { invoke } from "./api.js";
const { listen } = window.__TAURI__.event;

/** The last view from the backend, and whether an update runs. */
/** @type {{ view: import("./types/bindings").UpdatesView | null, busy: boolean, onUpdated: (names: string[]) => Promise<void> }} */
const shown = { view: null, busy: false, onUpdated: async () => {} };

/** `onUpdated()` runs after skills were updated (the sidebar reloads). */
export function initUpdates({ onUpdated }) {
  shown.onUpdated = onUpdated;
  $("#updates-btn").onclick = open;
  $("#updates-close").onclick = () => $("#updates-dialog").close();
  $("#updates-check").onclick = checkNow;
  $("#updates-all").onclick = () => update(outdated().map((s) => s.name));
  listen("sources://checked", (e) => setView(e.payload));
  invoke("sources_updates").then(setView).catch(() => {});
}

/** Redraws the indicator and an open dialog in the current language. */
export function translateUpdates() {
  if (shown.view) setView(shown.view);
}

const outdated = () => (shown.view?.skills || []).filter((s) => s.state === "outdated");

function setView(view) {
  shown.view = view;
  indicator(view);
  if ($("#updates-dialog").open) render(view);
  // The sidebar marks each skill with an update waiting.
  window.dispatchEvent(new CustomEvent("skilldeck:updates", { detail: outdated().map((s) => s.name) }));
}

/** "Updates N" when some are outdated; "could not check" (quiet) when offline with none. */
function indicator(view) {
  const button = $("#updates-btn");
  const offline = view.couldNotCheck > 0;
  const reason = view.skills.find((s) => s.couldNotCheck)?.couldNotCheck || "";
  button.classList.toggle("offline", offline);
  button.classList.toggle("pending", view.outdated > 0);
  if (view.outdated > 0) {
    const label = el("span", { id: "updates-label", text: t("updatesN", view.outdated) });
    // What a narrow window shows instead of the label (style.css): the count; the title says the rest.
    const short = el("span", { class: "updates-short", "aria-hidden": "true", text: `↻ ${view.outdated}` });
    if (offline) button.replaceChildren(label, short, el("span", { class: "updates-offline", "aria-hidden": "true", text: " ⚠" }));
    else button.replaceChildren(label, short);
  } else if (offline) {
    button.replaceChildren(el("span", { id: "updates-label", text: t("updatesCouldNotCheck") }));
  } else {
    // Nothing pending: still there, quiet, so Check now is one click away.
    button.replaceChildren(el("span", { id: "updates-label", text: view.checking ? t("updatesChecking") : t("updatesNoneShort") }));
  }
  button.classList.toggle("quiet", view.outdated === 0 && !offline);
  button.title = offline ? t("updatesOfflineTitle", reason) : view.outdated ? t("updatesTitleN", view.outdated) : t("updatesNoneTitle");
  // Hidden only while no skill came from a source: there is nothing to check.
  button.hidden = view.outdated === 0 && !offline && !view.sourced;
}

async function open() {
  render(shown.view || { skills: [], outdated: 0, couldNotCheck: 0 });
  $("#updates-dialog").showModal();
}

async function checkNow() {
  const button = $("#updates-check");
  button.disabled = true;
  try {
    setView(await invoke("sources_check_now"));
  } catch (e) {
    showError(e);
  } finally {
    button.disabled = false;
  }
}

/** The line under the title: checking, when last checked, how many could not be checked. */
function status(view) {
  if (view.checking) return t("updatesChecking");
  const parts = [view.checkedAt ? t("updatesCheckedAt", formatDate(view.checkedAt)) : t("updatesNeverChecked")];
  if (view.couldNotCheck > 0) parts.push(t("updatesNotChecked", view.couldNotCheck));
  return parts.join(" ");
}

function render(view) {
  $("#updates-status").textContent = status(view);
  $("#updates-status").classList.toggle("warn", view.couldNotCheck > 0 && !view.checking);
  // Why (often a long transport error): two lines, the whole of it on hover.
  const reason = view.checking ? "" : (view.skills || []).find((s) => s.couldNotCheck)?.couldNotCheck || "";
  $("#updates-reason").textContent = reason;
  $("#updates-reason").title = reason;
  $("#updates-reason").hidden = !reason;
  const rows = outdated().map(row);
  const gone = (view.skills || []).filter((s) => s.state === "gone").map((s) =>
    el("li", { class: "update-item gone", dataset: { name: s.name } },
      el("div", { class: "update-head" },
        el("strong", { text: s.name }),
        el("span", { class: "marker muted", text: t("updatesGone") }),
        el("span", { class: "hint", text: s.reason || "" }))));
  const list = $("#updates-list");
  list.replaceChildren(...rows, ...gone);
  if (!rows.length) list.append(el("li", { class: "hint", id: "updates-none", text: view.sourced ? t("updatesNone") : t("updatesNoSources") }));
  const all = $("#updates-all");
  all.textContent = rows.length > 1 ? t("updateAllN", rows.length) : t("updateAll");
  all.disabled = !rows.length || shown.busy;
}

/** One outdated skill: name, from → to, a warning when it was changed here, its diff, Update. */
function row(s) {
  const diff = el("div", { class: "update-diff" });
  const details = el("details", { class: "update-changes" }, el("summary", { text: t("showChanges") }), diff);
  details.addEventListener("toggle", () => { if (details.open && !diff.childElementCount) loadDiff(s.name, diff); });
  return el("li", { class: "update-item", dataset: { name: s.name } },
    el("div", { class: "update-head" },
      el("strong", { class: "update-name", text: s.name }),
      el("span", { class: "update-revs", title: `${s.from.short} → ${s.to?.short || ""}` },
        el("code", { text: s.from.resolved }), " → ", el("code", { text: s.to?.resolved || "" })),
      s.changedHere ? el("span", { class: "marker warn", title: t("changedHereTitle"), text: t("changedHere") }) : null,
      el("span", { class: "grow" }),
      el("button", { type: "button", class: "update-one", disabled: shown.busy, text: t("update"), onclick: () => update([s.name]) }),
    ),
    el("div", { class: "hint update-from", text: t("sourceAt", s.to?.short || s.from.short) }),
    details,
  );
}

async function loadDiff(name, box) {
  box.replaceChildren(el("p", { class: "hint busy", text: t("updatesFetchingDiff") }));
  try {
    const d = await invoke("source_update_diff", { name });
    const files = d.files.length ? d.files.map((f) => diffBlock(f, "updChange_")) : [el("p", { class: "hint", text: t("updatesSameFiles") })];
    box.replaceChildren(el("p", { class: "hint", text: t("updatesDiffHint", d.current, d.to.resolved) }), ...files);
  } catch (e) {
    box.replaceChildren(el("p", { class: "error", text: errorText(e) }));
  }
}

/** Asks before replacing edits made here; resolves to whether to go on. */
function confirmReplace(names) {
  const dlg = $("#updates-confirm");
  $("#updates-confirm-text").textContent = t("updatesConfirmReplace", names.join(", "), names.length);
  return new Promise((resolve) => {
    const done = (yes) => { dlg.close(); resolve(yes); };
    $("#updates-confirm-yes").onclick = () => done(true);
    $("#updates-confirm-no").onclick = () => done(false);
    dlg.oncancel = () => resolve(false);
    dlg.showModal();
  });
}

/** Updates `names`; those changed here only after the user says so (their edits stay in History). */
async function update(names) {
  if (!names.length || shown.busy) return;
  const changed = outdated().filter((s) => names.includes(s.name) && s.changedHere).map((s) => s.name);
  if (changed.length && !(await confirmReplace(changed))) return;
  shown.busy = true;
  render(shown.view);
  try {
    const results = await invoke("sources_update", { names, force: changed.length > 0 });
    const updated = results.filter((r) => r.state === "updated" || r.state === "unchanged");
    const failed = results.filter((r) => r.error);
    if (failed.length) toast(t("updatesFailed", failed[0].name, errorText(failed[0].error)));
    else toast(t("updatedN", updated.length, updated.map((r) => `${r.name} v:${r.revision}`).join(", ")));
    await shown.onUpdated(updated.map((r) => r.name));
  } catch (e) {
    showError(e);
  } finally {
    shown.busy = false;
    try { setView(await invoke("sources_updates")); } catch { /* the event brings it */ }
    if ($("#updates-dialog").open && !outdated().length) $("#updates-dialog").close();
  }
}
