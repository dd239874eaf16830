// @ts-check
// A skill's History: its revisions with dates in the reader's language, what made each one,
// and a read-only view of any revision's files with a way to restore it.

import { $, el, showError } from "./dom.js";
import { formatDate, t } from "./i18n.js";
import { fileBody } from "./fileview.js";

import { invoke } from "./api.js";

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
  const head = el("tr", {}, ...["colRevision", "colDate", "colDigest", "colEvent"].map((k) => el("th", { scope: "col", text: t(k) })),
    el("th", { scope: "col" }));
  const list = el("table", { class: "history", id: "history" }, el("thead", {}, head));
  const body = el("tbody");
  for (const r of rows) {
    const view = r.restorable || r.current
      ? el("button", { type: "button", class: "view-revision", text: t("view"), onclick: () => showRevision(d, r, restore) })
      : null;
    body.append(el("tr", { dataset: { revision: String(r.revision) } },
      el("td", { text: `v:${r.revision}` }),
      el("td", { text: r.at ? formatDate(r.at) : "—", title: r.at || null }),
      el("td", { class: "digest", text: r.digest || "—" }),
      el("td", { text: eventText(r.event) }),
      el("td", { class: "actions" }, view, r.current ? el("span", { class: "marker muted", text: t("current") })
        : r.restorable ? el("button", { type: "button", class: "restore", text: t("restore"), onclick: () => restore(d.scope, d.name, r.revision) }) : null),
    ));
  }
  list.append(body);
  $("#viewer").replaceChildren(el("div", { class: "file-title", text: `${d.name} — ${t("history")}` }), list);
  return true;
}

/** Shows revision `r` of skill `d` read-only: its files as buttons, the chosen one below. */
async function showRevision(d, r, restore, path = "SKILL.md") {
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
  const banner = el("div", { class: "revision-banner", id: "revision-banner" },
    el("strong", { text: t("revisionReadOnly", r.revision) }),
    el("span", { class: "spacer" }),
    r.current ? null : el("button", { type: "button", class: "restore", text: t("restoreThis", r.revision), onclick: () => restore(d.scope, d.name, r.revision) }),
    el("button", { type: "button", text: t("backToHistory"), onclick: () => showHistory(d, restore) }));
  const picker = el("div", { class: "revision-files", role: "group" }, ...files.map((f) => el("button", {
    type: "button", class: f.path === path ? "on" : "", "aria-pressed": String(f.path === path), text: f.path,
    onclick: () => showRevision(d, r, restore, f.path),
  })));
  const pane = $("#viewer");
  pane.replaceChildren(el("div", { class: "file-title", text: `${d.name} — v:${r.revision}${path ? ` — ${path}` : ""}` }), banner, picker);
  if (view) pane.append(...fileBody(view, path));
  pane.scrollTop = 0;
}
