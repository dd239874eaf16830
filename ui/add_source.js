// @ts-check
// "Add from…": a source (owner/repo, a Git URL, a local repository, a site with a skills index,
// an archive or SKILL.md URL) fetched by the backend, shown as the collection import shows a
// folder (plugins as groups, each skill with what installing it would do, its findings, the
// skills the source refused with why and what would let them in, what was left out), then the
// chosen skills installed from that same fetch.

import { $, el } from "./dom.js";
import { errorText, t } from "./i18n.js";
import { itemRow, withProgress } from "./import_many.js";

import { invoke } from "./api.js";

/** The source the dialog shows: its token while the backend keeps it, and how to choose. */
const shown = { token: null, chosen: null, renames: null, busy: false };

/** `onInstalled(report)` runs after an install, once the dialog has closed. */
export function initAddSource({ onInstalled }) {
  $("#add-source-btn").onclick = open;
  $("#add-source-look").onclick = look;
  $("#add-source-install").onclick = () => install(onInstalled);
  $("#add-source-cancel").onclick = () => $("#add-source-dialog").close();
  for (const id of ["#add-source-input", "#add-source-ref"]) {
    $(id).addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); look(); } });
  }
  // Closed any way (Cancel, Escape, after Install): the backend lets the fetched source go.
  $("#add-source-dialog").addEventListener("close", forget);
}

function open() {
  forget();
  $("#add-source-preview").replaceChildren();
  setInstall(null);
  const dlg = $("#add-source-dialog");
  if (!dlg.open) dlg.showModal();
  $("#add-source-input").focus();
}

function forget() {
  if (shown.token) invoke("source_forget", { token: shown.token }).catch(() => {});
  shown.token = null;
  shown.chosen = null;
}

/** The Install button: how many skills it installs, off while none is chosen or work runs. */
function setInstall(n) {
  const button = $("#add-source-install");
  button.textContent = n ? t("installN", n) : t("install");
  button.disabled = !n || shown.busy;
}

function showError(box, e) {
  box.replaceChildren(el("p", { class: "error", id: "add-source-error", dataset: { code: e?.code || "" }, text: errorText(e) }));
}

/** Fetches the source and shows what it holds. */
async function look() {
  const source = $("#add-source-input").value.trim();
  const reference = $("#add-source-ref").value.trim();
  if (!source || shown.busy) return;
  forget();
  setInstall(null);
  const box = $("#add-source-preview");
  box.replaceChildren(el("p", { class: "hint busy", id: "add-source-busy", text: t("fetchingSource", source) }));
  shown.busy = true;
  $("#add-source-look").disabled = true;
  try {
    const view = await withProgress(box, () => invoke("source_look", { source, reference: reference || null }));
    shown.token = view.token;
    // Closed while the fetch ran: nothing to show, so nothing to keep.
    if (!$("#add-source-dialog").open) forget();
    else shown.chosen = render(box, view);
  } catch (e) {
    showError(box, e);
  } finally {
    shown.busy = false;
    $("#add-source-look").disabled = false;
    $("#add-source-busy")?.remove();
    setInstall(shown.chosen ? shown.chosen().length : 0);
  }
}

/** A plugin's group: a checkbox choosing all its skills, its name and description, its rows. */
function pluginGroup(plugin, rows) {
  const pick = el("input", { type: "checkbox", class: "plugin-pick", dataset: { plugin: plugin.name }, "aria-label": plugin.name });
  return el("li", { class: "plugin-group", dataset: { plugin: plugin.name } },
    el("label", { class: "check plugin-head" },
      pick,
      el("span", { class: "plugin-name", text: t("pluginName", plugin.name) }),
      el("span", { class: "muted", text: t("pluginSkills", plugin.skills.length) }),
      plugin.description ? el("span", { class: "hint plugin-description", text: plugin.description }) : null,
    ),
    el("ul", { class: "plugin-skills" }, ...rows),
  );
}

/** Draws the look into `box`; returns the getter of the chosen paths. */
function render(box, view) {
  const items = [...view.preview.items];
  // A skill whose name another skill holds can be kept under a name the user gives.
  const renames = new Map();
  const rowFor = (item, index, clashing = item.error?.code === "source_clash") => {
    const row = itemRow(item, index);
    if (clashing) row.append(renameForm(item, index));
    return row;
  };
  const rowOf = new Map(items.map((item, index) => [item.location, rowFor(item, index)]));
  const placed = new Set();
  const groups = [];
  for (const plugin of view.plugins) {
    const rows = plugin.skills.filter((p) => rowOf.has(p) && !placed.has(p)).map((p) => { placed.add(p); return rowOf.get(p); });
    groups.push(pluginGroup(plugin, rows));
  }
  const rest = items.filter((i) => !placed.has(i.location)).map((i) => rowOf.get(i.location));
  const list = el("ul", { class: "collection", id: "add-source-list" });
  if (groups.length) {
    list.append(...groups);
    if (rest.length) list.append(el("li", { class: "plugin-group other" }, el("div", { class: "plugin-head muted", text: t("otherSkills") }), el("ul", { class: "plugin-skills" }, ...rest)));
  } else {
    list.append(...rest);
  }
  const picks = () => [...list.querySelectorAll("input.pick")];
  const chosen = () => [...new Set(picks().filter((c) => c.checked).map((c) => c.dataset.location))];
  /** The form under a clashing row: a new name, checked by the backend; the row then shows
   *  what installing under that name would do, and is chosen when it can be installed. */
  function renameForm(item, index) {
    const input = el("input", {
      type: "text", class: "rename-input", value: renames.get(item.location) || "",
      placeholder: t("renamePlaceholder"), "aria-label": t("renameLabel", item.name || item.location), spellcheck: false,
    });
    const status = el("span", { class: "hint rename-status", role: "status" });
    const apply = async () => {
      const name = input.value.trim();
      if (!name || !shown.token) return;
      try {
        const row = await invoke("source_preview_as", { token: shown.token, path: item.location, name });
        const fresh = { ...row, location: item.location };
        if (fresh.state === "new" || fresh.state === "update") renames.set(item.location, name);
        else renames.delete(item.location);
        const next = rowFor(fresh, index, true);
        next.querySelector(".rename-input").value = name;
        next.querySelector(".rename-status").textContent = renames.has(item.location) ? t("renameAs", name) : "";
        rowOf.get(item.location).replaceWith(next);
        rowOf.set(item.location, next);
        items[index] = fresh;
        recount();
        next.querySelector(".rename-input").focus();
        syncPlugins();
      } catch (e) {
        renames.delete(item.location);
        status.textContent = errorText(e);
        status.classList.add("error");
      }
    };
    input.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); e.stopPropagation(); apply(); } });
    return el("div", { class: "row rename-row" },
      el("span", { class: "muted", text: t("installAs") }),
      input,
      el("button", { type: "button", class: "rename-apply", text: t("renameCheck"), onclick: apply }),
      status,
    );
  }
  const syncPlugins = () => {
    for (const plugin of view.plugins) {
      const box = list.querySelector(`input.plugin-pick[data-plugin="${CSS.escape(plugin.name)}"]`);
      const mine = picks().filter((c) => plugin.skills.includes(c.dataset.location) && !c.disabled);
      const on = mine.filter((c) => c.checked).length;
      box.disabled = mine.length === 0;
      box.checked = mine.length > 0 && on === mine.length;
      box.indeterminate = on > 0 && on < mine.length;
    }
    setInstall(chosen().length);
  };
  list.addEventListener("change", (e) => {
    const plugin = e.target.closest("input.plugin-pick");
    if (plugin) {
      const skills = view.plugins.find((p) => p.name === plugin.dataset.plugin)?.skills || [];
      for (const c of picks()) if (skills.includes(c.dataset.location) && !c.disabled) c.checked = plugin.checked;
    }
    syncPlugins();
  });
  const setAll = (on) => {
    for (const c of picks()) if (!c.disabled) c.checked = on;
    syncPlugins();
  };
  const origin = view.origin;
  const tally = el("span", { class: "hint", id: "add-source-tally" });
  /** The counts by state, as the rows now stand (a renamed row changes them). */
  function recount() {
    const now = { new: 0, update: 0, identical: 0, refused: 0 };
    for (const i of items) now[i.state] = (now[i.state] || 0) + 1;
    tally.textContent = t("collectionCounts", now.new, now.update, now.identical, now.refused);
  }
  recount();
  box.replaceChildren(
    el("div", { class: "preview-head source-head" },
      el("strong", { id: "add-source-count", text: t("collectionFound", items.length) }),
      tally,
    ),
    // The short line names the commit (or digest) fetched: what Install stores is exactly this.
    el("p", { class: "hint source-origin", id: "add-source-origin", title: t("sourceResolvedTitle") },
      el("span", { text: t("sourceAt", origin.short) }),
      origin.reference ? el("span", { class: "badge", text: origin.reference }) : null,
    ),
    el("div", { class: "row" },
      el("button", { type: "button", id: "add-source-all", text: t("selectAll"), onclick: () => setAll(true) }),
      el("button", { type: "button", id: "add-source-none", text: t("selectNone"), onclick: () => setAll(false) }),
    ),
    ...[list, refused(view.refused), elsewhere(view.elsewhere), notes(view.notes)].filter(Boolean),
  );
  syncPlugins();
  shown.renames = renames;
  return chosen;
}

/** A marketplace's plugins that live in other repositories, each with a way to look at it. */
function elsewhere(list) {
  if (!list?.length) return null;
  return el("div", { class: "source-elsewhere", id: "add-source-elsewhere" },
    el("h3", { text: t("pluginsElsewhere", list.length) }),
    el("ul", {}, ...list.map((p) => el("li", { dataset: { plugin: p.name } },
      el("span", { class: "plugin-name", text: t("pluginName", p.name) }),
      p.description ? el("span", { class: "hint", text: ` ${p.description}` }) : null,
      el("code", { text: p.source + (p.reference ? `@${p.reference.slice(0, 12)}` : "") }),
      el("button", {
        type: "button", class: "small look-elsewhere", text: t("lookThere"), "aria-label": t("lookThereLabel", p.name),
        onclick: () => {
          $("#add-source-input").value = p.source;
          $("#add-source-ref").value = p.reference || "";
          look();
        },
      })))));
}

/** The badge of a refused skill, by its reason's code. @type {Record<string, string>} */
const REFUSED_WORDS = {
  skill_too_big: "refusedTooBig",
  skill_file_too_big: "refusedFileTooBig",
  skill_too_many_files: "refusedTooManyFiles",
  skill_link_leaves: "refusedLinkLeaves",
  index_digest_mismatch: "refusedDigest",
};

/** The skills the source refused as they stand (no row above), each with why and what would
 *  let it in. */
function refused(list) {
  if (!list?.length) return null;
  return el("div", { class: "source-refused", id: "add-source-refused" },
    el("h3", { text: t("sourceRefused", list.length) }),
    el("ul", {}, ...list.map((r) => el("li", { dataset: { path: r.path, code: r.reasonCode } },
      el("div", { class: "refused-head" },
        el("span", { class: "badge error", title: r.reasonCode, text: t(REFUSED_WORDS[r.reasonCode] || "noteRefused") }),
        el("code", { text: r.path }),
        r.path.split("/").pop() === r.name ? null : el("span", { class: "muted", text: r.name }),
      ),
      el("div", { class: "refused-reason", text: r.reason }),
      el("div", { class: "hint refused-fix", text: t("refusedFix", r.fix) }))),
    ));
}

/** What else was left out of the source, and why. */
function notes(list) {
  if (!list.length) return null;
  return el("details", { class: "source-notes", id: "add-source-notes", open: list.length <= 3 },
    el("summary", { text: t("sourceNotes", list.length) }),
    el("ul", {}, ...list.map((n) => el("li", { dataset: { path: n.path } },
      el("span", { class: "badge muted", text: t("noteLeftOut") }),
      el("code", { text: n.path }),
      el("span", { text: ` ${n.what}` }))),
    ));
}

/** Installs the chosen skills from the fetched source, with progress; then closes the dialog. */
async function install(onInstalled) {
  const paths = shown.chosen ? shown.chosen() : [];
  if (!shown.token || !paths.length || shown.busy) return;
  const token = shown.token;
  const box = $("#add-source-preview");
  shown.busy = true;
  $("#add-source-look").disabled = true;
  setInstall(paths.length);
  // The backend lets the source go whatever happens: it is no longer ours to forget.
  shown.token = null;
  try {
    const renames = Object.fromEntries(paths.filter((p) => shown.renames?.has(p)).map((p) => [p, shown.renames.get(p)]));
    const report = await withProgress(box, () => invoke("source_install", { token, paths, renames }));
    $("#add-source-dialog").close();
    await onInstalled(report);
  } catch (e) {
    shown.chosen = null;
    showError(box, e);
  } finally {
    shown.busy = false;
    $("#add-source-look").disabled = false;
    setInstall(shown.chosen ? shown.chosen().length : 0);
  }
}
