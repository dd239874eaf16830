// @ts-check
// The Skilldeck window: sidebar of skills, file tree, viewer, import, history and live updates.
// Every piece of data comes from a backend command; Markdown arrives as sanitized HTML.

import { $, el, showError, size, toast } from "./dom.js";
import { errorText, language, setLanguage, t, translatePage } from "./i18n.js";
import { initAgent, openAgent, translateAgent } from "./agent.js";
import { initAgents, loadAgents, offerAdoption, translateAgents } from "./agents.js";
import { initMcpClients } from "./mcp_clients.js";
import { catchLinks, scrollToAnchor } from "./links.js";
import { initSplitters } from "./splitters.js";
import { problemsPanel, showLine, sourceView } from "./diagnostics.js";
import { fileBody } from "./fileview.js";
import { diagMessage } from "./diag_i18n.js";
import { showHistory as showHistoryPane } from "./history.js";
import { showEvals as showEvalsPane } from "./evals.js";
import { importCollection, previewCollection } from "./import_many.js";
import { initAddSource } from "./add_source.js";
import { initUpdates, translateUpdates } from "./updates.js";
import { closeSettings, initSettings, openSettings, reloadSettings, translateSettings } from "./settings.js";
import { countsText, previewFindings, revisionOf, risksPanel } from "./risks.js";
import { openConfirm } from "./confirm.js";
import { initBulk, showPicked } from "./bulk.js";
import { mark, traceInteractions } from "./trace.js";
import * as sidebar from "./sidebar.js";
import { keyOf } from "./sidebar.js";
import { initEditor, openEditor, openInSystem, refreshDrafts } from "./editor.js";
import { initRename, openRename } from "./rename.js";
import { initNewSkill } from "./new_skill.js";

import { invoke } from "./api.js";
const { listen } = window.__TAURI__.event;

// `showing`: what the viewer shows, a file or the History of the selected skill.
// `source`: SKILL.md shows as stored (line-numbered, with its problems) instead of rendered;
// `line`: the line of it a problem was picked for, kept when a watcher event re-renders;
// `lineFile`: another text file shown line-numbered at `line` (a finding in the Risks panel).
/**
 * @typedef {import("./types/bindings").SkillRow & { delivery?: any }} ShownSkill A row, with
 *   where the Agents view found it.
 * @typedef {import("./types/bindings").SkillDetail} SkillDetail
 */
/**
 * @type {{
 *   skills: ShownSkill[], deleted: import("./types/bindings").DeletedRow[],
 *   selected: string | null, detail: SkillDetail | null, file: string | null, filter: string,
 *   showing: string, source: boolean, line: number | null, lineFile: string | null,
 *   savedBudget: number | null, budgetTimer: any, listingSeq: number,
 *   selectTurn: number, fileTurn: number, loading: number, delivery: Map<string, any>,
 * }}
 */
const state = {
  skills: [], deleted: [], selected: null, detail: null, file: null, filter: "",
  showing: "file", source: false, line: null, lineFile: null,
  savedBudget: null, budgetTimer: null, listingSeq: 0,
  // Each selection and each file opened takes a turn; an answer that comes back after a newer
  // one started is dropped, so a live update's redraw never undoes the user's last click.
  selectTurn: 0, fileTurn: 0,
  loading: 0, // skills and files being fetched for the viewer (body[data-loading] while any)
  delivery: new Map(), // skill name -> {tools, drifted}: where the Agents view found it
};

// ---------- sidebar (ui/sidebar.js draws it; these are its hooks) ----------

function renderSidebar() {
  for (const s of state.skills) s.delivery = s.shadowed ? null : state.delivery.get(s.name) || null;
  sidebar.setSkills(state.skills, state.deleted);
  sidebar.markSelected(state.selected);
}

function applyFilter() {
  sidebar.setFilter(state.filter);
}

/**
 * Makes sure the skills `keys` just added show in the sidebar: when the search or a chip would
 * hide any of them, the search and the chips are cleared (the whole list shows).
 * @param {string[]} keys
 */
function unhide(keys) {
  if (keys.every((key) => sidebar.isShown(key))) return;
  state.filter = "";
  $("#search").value = "";
  sidebar.clearFilters();
}

async function loadSkills() {
  mark("skill list asked");
  [state.skills, state.deleted] = await Promise.all([invoke("list_skills"), invoke("deleted_skills")]);
  mark("skill list received");
  renderSidebar();
  mark("sidebar built");
}

/** Shows skill `name` (yours before a bundled one) in the Skills tab, at `path` when given. */
async function openSkillByName(name, path) {
  const skill = state.skills.find((s) => s.name === name && s.scope === "user") || state.skills.find((s) => s.name === name);
  if (!skill) {
    toast(t("skillGone", name));
    return;
  }
  setView("skills");
  unhide([keyOf(skill)]);
  await select(keyOf(skill));
  if (path && state.detail?.files.some((f) => f.path === path)) await openFile(path);
}

/** Moves the selection; the returned promise settles once the viewer shows the skill. */
function moveSelection(delta) {
  const next = sidebar.stepFrom(state.selected, delta);
  return next ? select(next) : Promise.resolve();
}

/** What the empty viewer says: how to start, in three steps. */
function guide() {
  return el("div", { class: "guide" },
    el("p", { class: "empty", text: t("pickSkill") }),
    el("ol", {}, ...["guideImport", "guideSelect", "guideAgent"].map((k) => el("li", { text: t(k) }))));
}

// ---------- one skill ----------

/** Awaits `work` with the page marked as loading the viewer (`body[data-loading]`), which the
 * cursor shows and end-to-end tests wait out before their next click. */
async function loading(work) {
  state.loading++;
  document.body.dataset.loading = "true";
  try {
    return await work();
  } finally {
    if (--state.loading === 0) delete document.body.dataset.loading;
  }
}

async function select(key, keepFile = false, keepPane = false) {
  const turn = ++state.selectTurn;
  const fileTurn = state.fileTurn;
  state.selected = key;
  sidebar.markSelected(key);
  sidebar.reveal(key);
  const [scope, name] = /** @type {[import("./types/bindings").Scope, string]} */ (key.split("/"));
  let detail;
  try {
    detail = await loading(() => invoke("skill_detail", { scope, name }));
  } catch (e) {
    if (turn !== state.selectTurn) return;
    state.detail = null;
    $("#files").replaceChildren();
    $("#viewer").replaceChildren(el("p", { class: "empty", text: t("pickSkill") }));
    if (e.code !== "skill_not_found") showError(e);
    return;
  }
  if (turn !== state.selectTurn) return;
  // A live update of the skill on show with the same content (another skill changed, a switch
  // moved) leaves the viewer alone: it keeps its place, its selection and what is unfolded.
  const shown = state.detail;
  const unchanged = keepFile && state.showing === "file" && shown && keyOf(shown) === key && shown.digest === detail.digest
    && $("#viewer .file-title")?.textContent === state.file;
  state.detail = detail;
  // An invalid skill opens on its source, where each problem's line is shown.
  if (!keepFile) {
    state.source = !state.detail.valid && state.detail.diagnostics.some((p) => p.line);
    state.line = null;
    state.lineFile = null;
  }
  const files = state.detail.files.map((f) => f.path);
  // A file the user opened while the skill was loading (a link, the file tree) stays open.
  const userOpened = state.fileTurn !== fileTurn && files.includes(state.file);
  const file = (keepFile || userOpened) && files.includes(state.file) ? state.file : files.includes("SKILL.md") ? "SKILL.md" : files[0];
  // The same answer as shown (the echo of an import, another skill's change): no redraw at
  // all, so a click on the files pane's buttons never lands on one being replaced.
  if (unchanged && file === state.file && JSON.stringify(shown) === JSON.stringify(detail)) return;
  renderFiles();
  if (unchanged && file === state.file) return;
  // History or Evals on show is drawn again by the caller, never covered by a file meanwhile.
  if (keepPane && (state.showing === "history" || state.showing === "evals")) return;
  // A redraw of the same file after an edit keeps the reader's place in it.
  if (file && !userOpened) await openFile(file, undefined, keepFile);
}

function renderFiles() {
  const d = state.detail;
  const pane = $("#files");
  pane.replaceChildren(...[
    el("div", { class: "skill-head" },
      el("h2", { text: d.name }),
      d.version ? el("span", { class: "badge", text: `v:${d.version}` }) : null,
      el("span", { class: "digest", title: "content digest", text: d.digest }),
    ),
    d.origin ? originLine(d.origin) : null,
    el("button", {
      type: "button", id: "enabled-switch", class: `switch${d.held ? " held" : ""}`, role: "switch", "aria-checked": String(d.enabled && d.valid && !d.shadowed && !d.held),
      // An invalid, shadowed or held skill is never offered, whatever the switch says: it
      // shows off, and says why instead.
      disabled: !d.valid || d.shadowed || d.held,
      title: !d.valid ? t("switchInvalid") : d.shadowed ? t("switchShadowed", d.name) : d.held ? t("switchHeld") : t("offTitle"),
      onclick: () => setEnabled(d, !d.enabled),
    }, el("span", { class: "track", "aria-hidden": "true" }), el("span", { text: d.held ? t("heldNotOffered") : t("offeredToAgents") })),
    el("button", {
      type: "button", id: "pin-btn", class: d.pinned ? "pinned" : "", "aria-pressed": String(!!d.pinned),
      title: t("pinnedTitle"), onclick: () => setPinned(d, !d.pinned),
    }, d.pinned ? `📌 ${t("unpin")}` : `📌 ${t("pin")}`),
    !d.valid ? el("p", { class: "hint", id: "switch-why", text: t("switchInvalid") })
      : d.shadowed ? el("p", { class: "hint", id: "switch-why", text: t("switchShadowed", d.name) })
        : d.held ? el("p", { class: "hint warn", id: "switch-why", text: t("switchHeld") })
          : d.userInvokedOnly ? el("p", { class: "hint", id: "switch-why", text: `${t("userInvokedOnly")}: ${t("userInvokedOnlyTitle")}` }) : null,
    el("div", { class: "row" },
      el("button", { type: "button", id: "history-btn", text: t("history"), onclick: () => showHistory(d) }),
      d.scope === "team" ? null : el("button", { type: "button", id: "evals-btn", text: t("evals"), title: t("evalsTitle"), onclick: () => showEvals(d) }),
      d.scope === "user" ? el("button", { type: "button", id: "publish-team-btn", text: t("publishTeam"), onclick: () => confirmPublish(d) }) : null,
      // A team skill changes only by publishing: it comes from the team store.
      d.scope === "team" ? null : el("button", { type: "button", id: "rename-btn", text: t("renameSkill"), onclick: () => openRename(d) }),
      d.scope === "team" ? null : el("button", { type: "button", id: "delete-btn", class: "danger", text: t("delete"), onclick: () => confirmDelete(d) }),
    ),
    el("div", { class: "row compact" },
      // Your own skills are edited in the app as a draft, saved as the next revision.
      // Both edit a draft (a working copy), never the stored folder; the team's skills are its store's.
      d.scope !== "team" ? el("button", { type: "button", id: "edit-btn", class: "primary", text: t("editSkill"), title: t("editSkillTitle"), onclick: () => openEditor(d.scope, d.name).catch(showError) }) : null,
      d.scope !== "team" ? el("button", { type: "button", id: "open-editor-btn", text: t("openInEditor"), title: t("openInEditorTitle"), onclick: () => openEditor(d.scope, d.name).then(openInSystem).catch(showError) }) : null,
      el("button", { type: "button", id: "reveal-btn", text: t("revealInFolder"), onclick: () => handToSystem("reveal_skill_in_folder", d) }),
    ),
  ].filter(Boolean));
  const risks = risksPanel(d, jumpToFinding, confirmApproveFindings, confirmWithdrawApproval);
  if (risks) pane.append(risks);
  if (d.grants.requested.length) pane.append(grantsPanel(d));
  pane.append(...problemsPanel(keyOf(d), d.diagnostics, jumpToLine));
  const tree = el("ul", { id: "file-tree", class: "tree" });
  const shownDirs = new Set();
  // Files at the top of the skill first, then each folder with its files.
  const ordered = [...d.files].sort((a, b) => Number(a.path.includes("/")) - Number(b.path.includes("/")) || a.path.localeCompare(b.path));
  for (const f of ordered) {
    const parts = f.path.split("/");
    const depth = parts.length - 1;
    // A row for each folder, once, above its first file.
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join("/");
      if (shownDirs.has(dir)) continue;
      shownDirs.add(dir);
      tree.append(el("li", { class: "dir", style: `padding-left:${0.6 + (i - 1) * 1.1}rem`, text: `${parts[i - 1]}/` }));
    }
    tree.append(el("li", {},
      el("button", {
        type: "button",
        class: `file${state.file === f.path ? " selected" : ""}`,
        dataset: { path: f.path },
        style: `padding-left:${0.6 + depth * 1.1}rem`,
        onclick: () => openFile(f.path),
      }, el("span", { text: f.path.split("/").pop() }), el("span", { class: "size", text: size(f.size) })),
    ));
  }
  pane.append(el("h3", { text: t("files") }), tree);
}

/** Where a sourced skill came from, with a link to the source's web page when it has one. */
function originLine(o) {
  const text = t("originFrom", o.short);
  return el("p", { class: "hint origin", id: "skill-origin" },
    o.link
      // The window's link handler (links.js) opens it in the browser: http(s) only.
      ? el("a", { href: o.link, id: "skill-origin-link", title: t("originOpenTitle", o.link), text })
      : el("span", { text }));
}

/** The tools a skill's `allowed-tools` asks for, in plain words, with warnings for broad ones. */
function grantsList(g) {
  const list = el("ul", { class: "grants" });
  for (const r of g.requested) {
    list.append(el("li", { class: r.broad ? "broad" : "" },
      el("code", { text: r.pattern }), el("span", { text: ` ${r.plain}` })));
  }
  return list;
}

/**
 * The skill view's permissions box: what it asks for, whether it is in force, and the switch.
 * @param {SkillDetail} d
 */
function grantsPanel(d) {
  const g = d.grants;
  const box = el("div", { id: "grants", class: `grants-box state-${g.state}` },
    el("h3", { text: t("grantsTitle") }),
    grantsList(g),
    g.broad ? el("p", { class: "warn", text: t("grantsBroad") }) : null,
    el("p", { id: "grants-state", class: "grants-state", text: t(`grants_${g.state}`) }),
  );
  if (g.state === "untrusted" || g.state === "changed") {
    box.append(el("button", { type: "button", id: "trust-btn", class: "primary", text: t("grantsApprove"), onclick: () => setTrust(d, true) }));
  } else if (g.state === "trusted") {
    box.append(el("button", { type: "button", id: "trust-btn", text: t("grantsRevoke"), onclick: () => setTrust(d, false) }));
  }
  return box;
}

/** @param {SkillDetail} d */
async function setTrust(d, trusted) {
  try {
    d.grants = await invoke("set_skill_trust", { scope: d.scope, name: d.name, trusted });
    toast(t(trusted ? "grantsApproved" : "grantsRevoked", d.name));
  } catch (e) {
    showError(e);
  }
  renderFiles();
  await loadSkills();
}

/**
 * Switches a skill on or off for agents; the sidebar and the listing follow.
 * @param {SkillDetail} d
 */
async function setEnabled(d, enabled) {
  try {
    await invoke("set_skill_enabled", { name: d.name, enabled });
    toast(t(enabled ? "switchedOn" : "switchedOff", d.name));
  } catch (e) {
    showError(e);
  }
  await refresh();
}

/**
 * Pins a skill (always in full in the listing) or unpins it; the sidebar and the preview follow.
 * @param {SkillDetail} d
 */
async function setPinned(d, pinned) {
  try {
    await invoke("set_skill_pinned", { name: d.name, pinned });
    toast(t(pinned ? "pinnedToast" : "unpinnedToast", d.name));
  } catch (e) {
    showError(e);
  }
  await refresh();
}

/**
 * Asks the backend to open the skill's SKILL.md in the system's editor, or show it in its folder.
 * @param {SkillDetail} d
 */
async function handToSystem(command, d) {
  try {
    await invoke(command, { scope: d.scope, name: d.name });
  } catch (e) {
    showError(e);
  }
}

/** Shows the file of a finding, line-numbered, scrolled to `line` (when it has one) and marked. */
async function jumpToFinding(file, line) {
  if (file === "SKILL.md" && line) return jumpToLine(line);
  state.line = line || null;
  state.lineFile = file;
  await openFile(file);
  if (line) showLine(line);
}

/**
 * Asks before approving `findings` of skill `d`, saying what is approved and what follows.
 * @param {SkillDetail} d
 */
function confirmApproveFindings(d, findings) {
  let text = t("confirmApproveFindings", d.name, findings.length, countsText(findings), revisionOf(d));
  // An approval covers the files it was given for: what changed since the last one is said first.
  const since = d.audit && d.audit.changedSince;
  if (since) {
    const files = since.files.map(([path, change]) => t("changedFile", path, change)).join(", ");
    text = t("changedSinceApproval", since.revision, files) + " " + text;
  }
  openConfirm({
    text, action: "approve", n: findings.length,
    onYes: async () => {
      try {
        await invoke("approve_skill_findings", { scope: d.scope, name: d.name, digest: d.digest });
        toast(t("findingsApprovedToast", d.name));
      } catch (e) {
        showError(e);
      }
      await loadSkills();
      if (state.selected === keyOf(d)) await select(keyOf(d), true);
    },
  });
}

/**
 * Asks before withdrawing the user's approval of skill `d` (as `skilldeck untrust` does): its
 * findings hold it back again, and its requested tools ask again.
 * @param {SkillDetail} d
 */
function confirmWithdrawApproval(d) {
  openConfirm({
    text: t("confirmWithdrawApproval", d.name),
    action: "withdraw",
    onYes: async () => {
      try {
        await invoke("set_skill_trust", { scope: d.scope, name: d.name, trusted: false });
        toast(t("approvalWithdrawnToast", d.name));
      } catch (e) {
        showError(e);
      }
      await loadSkills();
      if (state.selected === keyOf(d)) await select(keyOf(d), true);
    },
  });
}

/** Shows SKILL.md as stored, scrolled to `line` and marked. */
async function jumpToLine(line) {
  state.lineFile = null;
  state.line = line;
  if (state.file !== "SKILL.md" || !state.source || !document.getElementById("source")) {
    state.source = true;
    await openFile("SKILL.md");
  }
  showLine(line);
}

/** SKILL.md's two views: rendered, or as stored with line numbers and problems. */
function viewSwitch() {
  const mode = (source) => el("button", {
    type: "button",
    id: source ? "view-source" : "view-rendered",
    class: state.source === source ? "on" : "",
    "aria-pressed": String(state.source === source),
    text: t(source ? "viewSource" : "viewRendered"),
    onclick: () => { state.source = source; state.line = null; state.lineFile = null; openFile("SKILL.md"); },
  });
  return el("div", { class: "view-switch", role: "group" }, mode(false), mode(true));
}

/** Shows `path` of the selected skill, at `anchor` when given; `keepPlace` keeps the scroll
 * position when the viewer already shows that file (a redraw after an edit). */
async function openFile(path, anchor, keepPlace = false) {
  const turn = ++state.fileTurn;
  const pane = $("#viewer");
  const redraw = keepPlace && state.showing === "file" && pane.querySelector(".file-title")?.textContent === path;
  state.file = path;
  state.showing = "file";
  for (const b of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("#file-tree .file"))) b.classList.toggle("selected", b.dataset.path === path);
  const [scope, name] = /** @type {[import("./types/bindings").Scope, string]} */ (state.selected.split("/"));
  const asSource = path === "SKILL.md" && state.source;
  // A finding's file shows as stored, line-numbered, whatever its kind (Markdown included).
  const numbered = !asSource && state.lineFile === path && Boolean(state.line);
  let view;
  try {
    view = await loading(() => (asSource || numbered
      ? invoke("skill_source", { scope, name, path: numbered ? path : null })
      : invoke("read_skill_file", { scope, name, path })));
  } catch (e) {
    if (turn === state.fileTurn) showError(e);
    return;
  }
  if (turn !== state.fileTurn) return;
  const place = redraw ? pane.scrollTop : 0;
  pane.replaceChildren(el("div", { class: "file-title", text: path }));
  if (path === "SKILL.md") pane.append(viewSwitch());
  if (asSource) {
    pane.append(sourceView(view, state.detail ? state.detail.diagnostics : [], state.line));
  } else if (numbered) {
    pane.append(sourceView(view, [], state.line));
  } else {
    pane.append(...fileBody(view, path));
  }
  // Another file starts at its top (or at the heading a link named).
  pane.scrollTop = place;
  if (anchor) scrollToAnchor(pane, anchor);
  if ((asSource || numbered) && state.line) showLine(state.line);
}

// ---------- history, delete ----------

/** @param {SkillDetail} d */
async function showHistory(d) {
  state.fileTurn++; // a file still being read must not cover the history
  if (await showHistoryPane(d, restore)) state.showing = "history";
}

/** @param {SkillDetail} d */
async function showEvals(d) {
  state.fileTurn++; // a file still being read must not cover the evals
  const edit = (scope, name) => { openEditor(scope, name).catch(showError); };
  if (await showEvalsPane(d, edit)) state.showing = "evals";
}

async function restore(scope, name, revision) {
  try {
    const out = await invoke("restore_skill", { scope, name, revision });
    toast(t("restored", name, out.revision));
    await loadSkills();
    await select(`${scope}/${name}`);
  } catch (e) {
    showError(e);
  }
}

/** @param {SkillDetail} d */
function confirmDelete(d) {
  openConfirm({
    text: t("confirmDelete", d.name), action: "delete",
    onYes: async () => {
      try {
        const revision = await invoke("delete_skill", { scope: d.scope, name: d.name });
        state.selected = null;
        $("#files").replaceChildren();
        $("#viewer").replaceChildren(el("p", { class: "empty", text: t("pickSkill") }));
        await loadSkills();
        toast(t("deleted", d.name), { label: t("undo"), run: () => restore(d.scope, d.name, revision) });
      } catch (e) {
        showError(e);
      }
    },
  });
}

// ---------- the team store ----------

/** @param {SkillDetail} d */
async function confirmPublish(d) {
  try {
    const p = await invoke("team_publish_preview", { name: d.name });
    openConfirm({
      text: t("confirmPublish", d.name, p.remote, p.url, p.nextRevision), action: "publish",
      onYes: async () => {
        try {
          const out = await invoke("team_publish", { name: d.name });
          toast(t("publishedTeam", d.name, out.revision));
          await loadSkills();
        } catch (e) {
          showError(e);
        }
      },
    });
  } catch (e) {
    showError(e);
  }
}

async function refreshTeam() {
  try {
    sidebar.setTeamStatus(await invoke("team_refresh"));
    await loadSkills();
  } catch (e) {
    showError(e);
  }
}

// ---------- import ----------

function openImport(path = "") {
  $("#import-path").value = path;
  importChoice = null;
  setImportLabel(null);
  $("#import-preview").replaceChildren();
  $("#import-confirm").disabled = true;
  const dlg = $("#import-dialog");
  if (!dlg.open) dlg.showModal();
  if (path) checkImport();
  else $("#import-path").focus();
}

async function checkImport() {
  const path = $("#import-path").value.trim();
  const scope = "user";
  const box = $("#import-preview");
  $("#import-confirm").disabled = true;
  if (!path) return;
  box.replaceChildren(el("p", { class: "hint", text: t("checking") }));
  importChoice = null;
  setImportLabel(null);
  try {
    if ((await invoke("import_layout", { path })) === "collection") {
      box.replaceChildren();
      const chosen = await previewCollection(box, path, (n) => {
        setImportLabel(n);
        $("#import-confirm").disabled = n === 0;
      });
      importChoice = chosen;
      return;
    }
    const p = await invoke("import_preview", { path, scope });
    const status = el("p", { class: p.valid ? "ok" : "error", text: p.valid ? t("valid") : t("invalidSkill") });
    const diags = el("ul", { class: "diagnostics" });
    for (const d of p.diagnostics) diags.append(el("li", { class: d.severity }, el("code", { text: d.code }), el("div", { class: "message", text: diagMessage(d) })));
    box.replaceChildren(
      el("div", { class: "preview-head" },
        el("strong", { id: "preview-name", text: p.name }),
        el("span", { id: "preview-version", class: "badge",
          text: p.identical ? t("identicalTo", p.currentRevision) : p.isNew ? t("newSkill") : t("willBecome", p.nextRevision) }),
      ),
      el("p", { class: "hint", text: t("filesSize", p.fileCount, size(p.totalBytes)) }),
      status,
      diags,
      previewFindings(p.audit, "import-findings"),
    );
    const g = p.grants;
    if (g.requested.length) {
      const approve = g.state === "untrusted" || g.state === "changed";
      box.append(el("div", { id: "import-grants", class: `grants-box state-${g.state}` },
        el("strong", { text: t("grantsTitle") }),
        grantsList(g),
        g.broad ? el("p", { class: "warn", text: t("grantsBroad") }) : null,
        approve
          ? el("label", { class: "check" },
              el("input", { type: "checkbox", id: "import-trust" }),
              el("span", { text: t("grantsApproveImport") }))
          : el("p", { class: "grants-state", text: t(`grants_${g.state}`) }),
      ));
    }
    $("#import-confirm").disabled = false;
  } catch (e) {
    box.replaceChildren(el("p", { class: "error", id: "import-error", dataset: { code: e.code || "" }, text: errorText(e) }));
  }
}

async function confirmImport() {
  const path = $("#import-path").value.trim();
  const scope = "user";
  $("#import-confirm").disabled = true;
  if (importChoice) {
    await confirmCollection(path, importChoice());
    return;
  }
  $("#import-preview").append(el("p", { class: "hint busy", text: t("importing") }));
  try {
    const trust = Boolean($("#import-trust")?.checked);
    const out = await invoke("import_skill", { path, scope, trust });
    $("#import-dialog").close();
    toast(out.unchanged ? t("unchangedImport", out.name, out.revision) : t("imported", out.name, out.revision));
    await loadSkills();
    unhide([`${out.scope}/${out.name}`]);
    await select(`${out.scope}/${out.name}`);
  } catch (e) {
    $("#import-preview").replaceChildren(el("p", { class: "error", id: "import-error", dataset: { code: e.code || "" }, text: errorText(e) }));
  }
}

/** The chosen skills of a collection being imported, or null for a single skill. */
let importChoice = null;

/** The Import button says how many skills it imports (a collection) or just "Import". */
function setImportLabel(n) {
  $("#import-confirm").textContent = n === null ? t("importConfirm") : t("importN", n);
}

/**
 * After skills came in (a collection, a source): says how many, clears a search or chip that
 * would hide the new ones, and shows the first new one.
 * @param {import("./types/bindings").CollectionView} report
 * @param {string} message
 */
async function afterImport(report, message) {
  toast(t(message, report.imported, report.unchanged, report.refused));
  await loadSkills();
  const imported = report.items.filter((i) => i.name && i.state === "imported");
  const first = imported[0] || report.items.find((i) => i.name && i.state !== "refused");
  unhide((imported.length ? imported : first ? [first] : []).map((i) => `user/${i.name}`));
  if (first) await select(`user/${first.name}`);
}

/** Imports the chosen skills of a collection, then shows the first new one. */
async function confirmCollection(path, locations) {
  const box = $("#import-preview");
  try {
    const report = await importCollection(box, path, locations);
    $("#import-dialog").close();
    await afterImport(report, "importedMany");
  } catch (e) {
    box.replaceChildren(el("p", { class: "error", id: "import-error", dataset: { code: e.code || "" }, text: errorText(e) }));
  }
}

async function browse(directory) {
  const filters = directory ? undefined : [{ name: "Skill archives", extensions: ["zip", "skill"] }];
  const picked = await window.__TAURI__.dialog.open({ directory, multiple: false, filters }).catch(showError);
  if (picked) {
    $("#import-path").value = picked;
    checkImport();
  }
}

// ---------- listing preview ----------

/** Fills the listing dialog for `budget` tokens (config.toml's when not given). */
async function renderListing(budget) {
  const args = budget ? { budget } : {};
  const request = $("#listing-request").value.trim();
  const workspace = $("#listing-workspace").value.trim();
  if (request) args.request = request;
  if (workspace) args.workspace = workspace;
  // Typing sends a preview per pause: only the newest answer is drawn, whatever order they land in.
  const seq = ++state.listingSeq;
  const l = await invoke("listing_preview", args).catch(showError);
  if (!l || seq !== state.listingSeq) return null;
  renderRanks(l);
  const over = l.estimatedTokens > l.budgetTokens;
  const pct = Math.min(100, Math.round((100 * l.estimatedTokens) / l.budgetTokens));
  const bar = $("#listing-meter-bar");
  bar.style.width = `${pct}%`;
  bar.classList.toggle("over", over);
  const meter = $("#listing-meter-text");
  meter.textContent = t("tokens", l.estimatedTokens, l.budgetTokens, l.listed)
    + (over ? ` · ${t("overBudget", l.estimatedTokens - l.budgetTokens)}` : "");
  meter.classList.toggle("error", over);
  renderMeaning(l.meaning);
  // A few shortened names inline; a long list folded away behind its count.
  const box = $("#listing-shortened");
  box.replaceChildren();
  if (l.shortened.length && l.shortened.length <= 8) {
    box.append(el("p", { class: "hint", text: t("shortenedNote", l.shortened.join(", ")) }));
  } else if (l.shortened.length) {
    box.append(el("details", { class: "hint" },
      el("summary", { text: t("shortenedCount", l.shortened.length) }),
      el("p", { text: l.shortened.join(", ") })));
  }
  const pre = $("#listing-text");
  pre.replaceChildren();
  if (!l.text) pre.textContent = t("empty");
  for (const line of l.text.split("\n")) {
    const m = line.match(/^- \*\*([^*]+)\*\*/);
    pre.append(el("span", { class: m && l.shortened.includes(m[1]) ? "shortened" : "", text: line }), "\n");
  }
  return l;
}

/** One line on ranking by meaning: on with its model, its vectors being computed, or off and
 *  how to turn it on. */
function renderMeaning(m) {
  const line = $("#listing-meaning");
  if (!m) { line.textContent = ""; return; }
  line.dataset.state = m.state;
  line.classList.toggle("error", m.state === "off");
  line.textContent = m.state === "ready" ? t("meaningOn", m.model)
    : m.state === "off" ? t("meaningOff", m.reason || "")
    : t("meaningIndexing", m.done, m.total);
}

/** Each listed skill with its rank and how much of it is shown, the profile, and where
 *  find_skills takes over. */
function renderRanks(l) {
  const profile = $("#listing-profile");
  profile.textContent = l.profile
    ? t("profileShown", l.profile.path, l.profile.skills.join(", "), l.profile.tags.join(", "))
    : $("#listing-workspace").value.trim() ? t("noProfile") : "";
  const pinned = new Set(state.skills.filter((s) => s.pinned).map((s) => s.name));
  const label = { full: t("shownFull"), shortened: t("shownShortened"), name_only: t("shownNameOnly") };
  const rows = l.skills.map((s) => el("li", { class: `rank-row shown-${s.shown}`, dataset: { name: s.name, shown: s.shown, rank: s.rank ?? "" } },
    el("span", { class: "rank", text: s.rank ? `#${s.rank}` : "" }),
    el("span", { class: "rank-name", text: s.name }),
    pinned.has(s.name) ? el("span", { class: "marker pinned", text: t("pinnedMark") }) : null,
    el("span", { class: `marker shown ${s.shown}`, text: label[s.shown] })));
  if (l.more) rows.push(el("li", { id: "listing-more", class: "rank-more", text: t("findTakesOver", l.more) }));
  $("#listing-ranks").replaceChildren(...rows);
}

async function showListing() {
  if (!$("#listing-workspace").value) $("#listing-workspace").value = localStorage.getItem("skilldeck.workspace") || "";
  const l = await renderListing();
  if (!l) return;
  state.savedBudget = l.budgetTokens;
  $("#listing-budget").value = l.budgetTokens;
  $("#listing-budget-save").disabled = true;
  const dlg = $("#listing-dialog");
  dlg.showModal();
  // Open at the top, whatever the text's length.
  $("#listing-text").scrollTop = 0;
  dlg.scrollTop = 0;
  dlg.querySelector(".dialog-body").scrollTop = 0;
  $("#listing-budget").blur();
}

/** Previews the listing at the typed budget; Save writes it to config.toml. */
async function previewBudget() {
  const n = Number($("#listing-budget").value);
  const ok = Number.isInteger(n) && n >= 100 && n <= 200000;
  $("#listing-budget-save").disabled = !ok || n === state.savedBudget;
  if (ok) await renderListing(n);
}

async function saveBudget() {
  const tokens = Number($("#listing-budget").value);
  try {
    await invoke("set_listing_budget", { tokens });
    state.savedBudget = tokens;
    $("#listing-budget-save").disabled = true;
    toast(t("budgetSaved", tokens));
  } catch (e) {
    showError(e);
  }
}

// ---------- wiring ----------

async function refresh() {
  await loadSkills();
  // Read after the list came back: the user may have picked another skill meanwhile.
  const selected = state.selected;
  const history = state.showing === "history";
  const evals = state.showing === "evals";
  if (selected && state.skills.some((s) => keyOf(s) === selected)) {
    await select(selected, true, history || evals);
    // An open History or Evals stays open, with the new revision in it.
    if (history && state.detail) await showHistory(state.detail);
    else if (evals && state.detail) await showEvals(state.detail);
  }
}

/** Reloads after a bulk action (bulk.js); a skill on show that was deleted leaves the viewer. */
async function afterBulk() {
  await refresh();
  if (state.selected && !state.skills.some((s) => keyOf(s) === state.selected)) {
    state.selected = null;
    state.detail = null;
    sidebar.markSelected(null);
    $("#files").replaceChildren();
    $("#viewer").replaceChildren(el("p", { class: "empty", text: t("pickSkill") }));
  }
}

/** Switches between the skills browser, the agent panel, the agents (their folders and
 * Skilldeck's MCP server in their settings) and Settings. */
function setView(view) {
  document.body.dataset.view = view;
  $("#tab-skills").setAttribute("aria-selected", String(view === "skills"));
  $("#tab-agent").setAttribute("aria-selected", String(view === "agent"));
  $("#tab-agents").setAttribute("aria-selected", String(view === "agents"));
  $("#settings-btn").setAttribute("aria-pressed", String(view === "settings"));
  if (view === "settings") openSettings().catch(showError);
  else closeSettings();
  if (view === "agent") openAgent();
  if (view === "agents") loadAgents().catch(showError);
}

/** Marks each skill in the sidebar with the tools it reached, after the Agents view reloads. */
function setDelivery(delivery) {
  // Redrawn only when a mark changes: every store event reloads the tools, and a needless
  // redraw of the whole list would replace rows under the pointer for nothing.
  const marks = (d) => JSON.stringify([...d].sort(([a], [b]) => a.localeCompare(b)));
  if (marks(delivery) === marks(state.delivery)) return;
  state.delivery = delivery;
  renderSidebar();
}

function wire() {
  $("#search").addEventListener("input", (e) => { state.filter = e.target.value; applyFilter(); });
  document.addEventListener("skilldeck:open-skill", (e) => {
    const { name, path } = /** @type {CustomEvent<{ name: string, path?: string }>} */ (e).detail;
    openSkillByName(name, path).catch(showError);
  });
  $("#search").addEventListener("keydown", (e) => {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") { e.preventDefault(); moveSelection(e.key === "ArrowDown" ? 1 : -1); }
  });
  $("#sidebar").addEventListener("keydown", (e) => {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") { e.preventDefault(); moveSelection(e.key === "ArrowDown" ? 1 : -1); }
  });
  $("#tab-skills").onclick = () => setView("skills");
  $("#tab-agent").onclick = () => setView("agent");
  $("#tab-agents").onclick = () => setView("agents");
  document.addEventListener("keydown", (e) => {
    if (document.body.dataset.view !== "skills") return;
    const typing = ["INPUT", "TEXTAREA", "SELECT"].includes(document.activeElement?.tagName);
    if ((e.key === "/" && !typing) || (e.key.toLowerCase() === "k" && (e.ctrlKey || e.metaKey))) {
      e.preventDefault();
      $("#search").focus();
      $("#search").select();
    }
  });
  $("#import-btn").onclick = () => openImport();
  $("#import-check").onclick = checkImport;
  $("#import-path").addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); checkImport(); } });
  $("#import-confirm").onclick = confirmImport;
  $("#import-cancel").onclick = () => $("#import-dialog").close();
  $("#browse-folder").onclick = () => browse(true);
  $("#browse-archive").onclick = () => browse(false);
  $("#listing-btn").onclick = showListing;
  $("#listing-close").onclick = () => $("#listing-dialog").close();
  $("#listing-budget").addEventListener("input", () => { clearTimeout(state.budgetTimer); state.budgetTimer = setTimeout(previewBudget, 200); });
  $("#listing-budget-save").onclick = saveBudget;
  for (const id of ["#listing-request", "#listing-workspace"]) {
    $(id).addEventListener("input", () => { clearTimeout(state.budgetTimer); state.budgetTimer = setTimeout(previewBudget, 200); });
  }
  $("#lang").value = language();
  $("#lang").onchange = (e) => {
    setLanguage(e.target.value); translatePage(); renderSidebar(); translateAgent(); translateAgents(); translateUpdates(); translateSettings();
    if (state.detail) {
      renderFiles();
      if (state.showing === "history") showHistory(state.detail);
      else if (state.showing === "evals") showEvals(state.detail);
      else if (state.file) openFile(state.file);
    }
  };
  listen("skills://changed", () => {
    refresh().catch(showError);
    // The tools' states follow the store: a new revision makes copies outdated.
    loadAgents().catch(() => {});
    // config.toml is watched too: an edit made in an editor or by the CLI shows in Settings.
    reloadSettings().catch(showError);
  });
  listen("team://status", (e) => sidebar.setTeamStatus(e.payload));
  listen("meaning://progress", (e) => { if ($("#listing-dialog").open) renderMeaning(e.payload); });
  // In the editor a drop is its own (editor.js says how to add files there).
  listen("skills://dropped", (e) => { if (e.payload?.length && document.body.dataset.view !== "editor") openImport(e.payload[0]); });
  // A link in the viewer knows its skill's files; one in an agent answer does not.
  catchLinks((a) => (a.closest("#viewer") && state.detail && state.file
    ? { file: state.file, files: state.detail.files.map((f) => f.path), open: (path, anchor) => openFile(path, anchor) }
    : null));
}

setLanguage(language());
translatePage();
sidebar.initSidebar({
  onSelect: (key) => select(key),
  onDeleted: (d) => { state.selected = null; sidebar.markSelected(null); $("#files").replaceChildren(); showHistory(d); },
  onTeamRefresh: refreshTeam,
  onPicked: showPicked,
});
initBulk({ reload: afterBulk, clear: () => sidebar.clearPicked() });
// Asked for first: the rest of the set-up runs while the backend answers.
const firstLoad = loadSkills();
firstLoad.then(() => invoke("team_status")).then((st) => sidebar.setTeamStatus(st)).catch(() => {});
wire();
initSplitters();
initAgent();
// Skills brought in from the tools' folders join your skills: a search must not hide them.
initAgents({ onChange: setDelivery, onAdopted: async (names) => { await loadSkills(); unhide(names.map((n) => `user/${n}`)); } });
initMcpClients({ reload: loadAgents });
initSettings({ show: () => setView("settings") });
initAddSource({ onInstalled: (report) => afterImport(report, "installedFromSource") });
// After an update the sidebar shows the new revisions (and an open skill its new files).
initUpdates({ onUpdated: () => refresh() });
/** Back from the editor to skill `name` (its new revision after a save), when it still exists. */
async function backFromEditor(scope, name) {
  await loadSkills();
  setView("skills");
  const key = `${scope}/${name}`;
  if (!state.skills.some((s) => keyOf(s) === key)) return;
  unhide([key]);
  await select(key);
}
initEditor({ show: () => setView("editor"), onSaved: backFromEditor, onClosed: backFromEditor });
initRename(async (scope, name, revision) => {
  toast(t("renamed", name, revision));
  refreshDrafts().catch(() => {});
  await loadSkills();
  await select(`${scope}/${name}`);
});
initNewSkill({ onCreated: async (view) => { await loadSkills(); await openEditor(view.scope, view.name, view); } });
document.body.dataset.view = "skills";
firstLoad
  .then(() => {
    document.body.dataset.ready = "true";
    $("#viewer").replaceChildren(guide());
    requestAnimationFrame(() => {
      mark("first frame");
      invoke("ui_ready").catch(() => {});
      // Which tools each skill reached, for the sidebar's marks, and at the first start an
      // offer to bring in the skills already in the tools' folders: after the first paint.
      loadAgents().then(offerAdoption).catch(() => {});
      traceInteractions(() => moveSelection(1), $("#search")).catch(() => {});
    });
  })
  .catch(showError);
