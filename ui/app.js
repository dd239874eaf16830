// The Skilldeck window: sidebar of skills, file tree, viewer, import, history and live updates.
// Every piece of data comes from a backend command; Markdown arrives as sanitized HTML.

import { $, el, showError, size, toast } from "./dom.js";
import { language, setLanguage, t, translatePage } from "./i18n.js";
import { initAgent, openAgent, translateAgent } from "./agent.js";
import { catchLinks, scrollToAnchor } from "./links.js";
import { problemsPanel, showLine, sourceView } from "./diagnostics.js";

const { invoke } = window.__TAURI__.core;
const { listen } = window.__TAURI__.event;

// `source`: SKILL.md shows as stored (line-numbered, with its problems) instead of rendered;
// `line`: the line of it a problem was picked for, kept when a watcher event re-renders.
const state = { skills: [], deleted: [], selected: null, detail: null, file: null, filter: "", source: false, line: null };

const keyOf = (s) => `${s.scope}/${s.name}`;

// ---------- sidebar ----------

/** Markdown emphasis, code and links as the plain text a person reads in the sidebar. */
function plainText(md) {
  return md
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/(\*\*|__)(.+?)\1/g, "$2")
    .replace(/(^|[\s(])[*_]([^*_\s][^*_]*?)[*_](?=[\s).,;:!?]|$)/g, "$1$2")
    .replace(/`([^`]*)`/g, "$1")
    .replace(/^\s*#+\s*/, "")
    .replace(/\s+/g, " ")
    .trim();
}

function description(skill) {
  return plainText((language() === "zh" && skill.descriptionZh) || skill.description || "");
}

function visibleSkills() {
  const q = state.filter.trim().toLowerCase();
  if (!q) return state.skills;
  return state.skills.filter((s) => `${s.name} ${s.description || ""} ${s.descriptionZh || ""}`.toLowerCase().includes(q));
}

function renderSidebar() {
  const side = $("#sidebar");
  const shown = visibleSkills();
  side.replaceChildren();
  for (const scope of ["user", "system"]) {
    const group = shown.filter((s) => s.scope === scope);
    if (!group.length) continue;
    side.append(el("h3", { class: "scope", text: t(scope === "user" ? "userScope" : "systemScope") }));
    for (const s of group) {
      const item = el(
        "button",
        {
          type: "button",
          class: `skill-item${state.selected === keyOf(s) ? " selected" : ""}${s.valid ? "" : " invalid"}`,
          dataset: { key: keyOf(s) },
          title: description(s),
          onclick: () => select(keyOf(s)),
        },
        el("span", { class: "skill-name", text: s.name }),
        s.version ? el("span", { class: "badge", text: `v:${s.version}` }) : null,
        s.valid ? null : el("span", { class: "marker error", text: `⚠ ${t("invalid", s.errors)}` }),
        s.shadowed ? el("span", { class: "marker muted", title: t("shadowedTitle"), text: t("shadowed") }) : null,
        s.enabled ? null : el("span", { class: "marker muted off", title: t("offTitle"), text: t("off") }),
        s.toolsUnapproved ? el("span", { class: "marker warn tools", title: t("toolsUnapprovedTitle"), text: t("toolsUnapproved") }) : null,
        el("span", { class: "skill-desc", text: description(s) }),
      );
      side.append(item);
    }
  }
  if (!side.children.length) side.append(el("p", { class: "empty", text: t("noSkills") }));
  if (state.deleted.length && !state.filter.trim()) {
    side.append(el("h3", { class: "scope", text: t("deletedScope") }));
    for (const d of state.deleted) {
      side.append(el("button", {
        type: "button",
        class: "skill-item deleted",
        dataset: { deleted: keyOf(d) },
        onclick: () => { state.selected = null; renderSidebar(); $("#files").replaceChildren(); showHistory(d); },
      }, el("span", { class: "skill-name", text: d.name }), el("span", { class: "badge", text: `v:${d.revision}` })));
    }
  }
}

async function loadSkills() {
  [state.skills, state.deleted] = await Promise.all([invoke("list_skills"), invoke("deleted_skills")]);
  renderSidebar();
}

function moveSelection(delta) {
  const keys = visibleSkills().map(keyOf);
  if (!keys.length) return;
  const at = keys.indexOf(state.selected);
  const next = keys[Math.max(0, Math.min(keys.length - 1, at < 0 ? 0 : at + delta))];
  select(next);
  document.querySelector(`.skill-item[data-key="${CSS.escape(next)}"]`)?.scrollIntoView({ block: "nearest" });
}

// ---------- one skill ----------

async function select(key, keepFile = false) {
  state.selected = key;
  renderSidebar();
  document.querySelector(`.skill-item[data-key="${CSS.escape(key)}"]`)?.scrollIntoView({ block: "nearest" });
  const [scope, name] = key.split("/");
  try {
    state.detail = await invoke("skill_detail", { scope, name });
  } catch (e) {
    state.detail = null;
    $("#files").replaceChildren();
    $("#viewer").replaceChildren(el("p", { class: "empty", text: t("pickSkill") }));
    if (e.code !== "skill_not_found") showError(e);
    return;
  }
  // An invalid skill opens on its source, where each problem's line is shown.
  if (!keepFile) {
    state.source = !state.detail.valid && state.detail.diagnostics.some((p) => p.line);
    state.line = null;
  }
  const files = state.detail.files.map((f) => f.path);
  const file = keepFile && files.includes(state.file) ? state.file : files.includes("SKILL.md") ? "SKILL.md" : files[0];
  renderFiles();
  if (file) await openFile(file);
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
    el("button", {
      type: "button", id: "enabled-switch", class: "switch", role: "switch", "aria-checked": String(d.enabled && d.valid && !d.shadowed),
      // An invalid or shadowed skill is never listed, whatever the switch says: say why instead.
      disabled: !d.valid || d.shadowed,
      title: !d.valid ? t("switchInvalid") : d.shadowed ? t("switchShadowed", d.name) : t("offTitle"),
      onclick: () => setEnabled(d, !d.enabled),
    }, el("span", { class: "track", "aria-hidden": "true" }), el("span", { text: t("offeredToAgents") })),
    !d.valid ? el("p", { class: "hint", id: "switch-why", text: t("switchInvalid") })
      : d.shadowed ? el("p", { class: "hint", id: "switch-why", text: t("switchShadowed", d.name) }) : null,
    el("div", { class: "row" },
      el("button", { type: "button", id: "history-btn", text: t("history"), onclick: () => showHistory(d) }),
      el("button", { type: "button", id: "delete-btn", class: "danger", text: t("delete"), onclick: () => confirmDelete(d) }),
    ),
    el("div", { class: "row compact" },
      el("button", { type: "button", id: "open-editor-btn", text: t("openInEditor"), title: t("openInEditorTitle"), onclick: () => handToSystem("open_skill_in_editor", d) }),
      el("button", { type: "button", id: "reveal-btn", text: t("revealInFolder"), onclick: () => handToSystem("reveal_skill_in_folder", d) }),
    ),
  ].filter(Boolean));
  if (d.grants.requested.length) pane.append(grantsPanel(d));
  pane.append(...problemsPanel(keyOf(d), d.diagnostics, jumpToLine));
  const tree = el("ul", { id: "file-tree", class: "tree" });
  const shownDirs = new Set();
  for (const f of d.files) {
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

/** The tools a skill's `allowed-tools` asks for, in plain words, with warnings for broad ones. */
function grantsList(g) {
  const list = el("ul", { class: "grants" });
  for (const r of g.requested) {
    list.append(el("li", { class: r.broad ? "broad" : "" },
      el("code", { text: r.pattern }), el("span", { text: ` ${r.plain}` })));
  }
  return list;
}

/** The skill view's permissions box: what it asks for, whether it is in force, and the switch. */
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

/** Switches a skill on or off for agents; the sidebar and the listing follow. */
async function setEnabled(d, enabled) {
  try {
    await invoke("set_skill_enabled", { name: d.name, enabled });
    toast(t(enabled ? "switchedOn" : "switchedOff", d.name));
  } catch (e) {
    showError(e);
  }
  await refresh();
}

/** Asks the backend to open the skill's SKILL.md in the system's editor, or show it in its folder. */
async function handToSystem(command, d) {
  try {
    await invoke(command, { scope: d.scope, name: d.name });
  } catch (e) {
    showError(e);
  }
}

/** Shows SKILL.md as stored, scrolled to `line` and marked. */
async function jumpToLine(line) {
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
    onclick: () => { state.source = source; state.line = null; openFile("SKILL.md"); },
  });
  return el("div", { class: "view-switch", role: "group" }, mode(false), mode(true));
}

async function openFile(path, anchor) {
  state.file = path;
  for (const b of document.querySelectorAll("#file-tree .file")) b.classList.toggle("selected", b.dataset.path === path);
  const [scope, name] = state.selected.split("/");
  const asSource = path === "SKILL.md" && state.source;
  let view;
  try {
    view = asSource ? await invoke("skill_source", { scope, name }) : await invoke("read_skill_file", { scope, name, path });
  } catch (e) {
    showError(e);
    return;
  }
  const pane = $("#viewer");
  pane.replaceChildren(el("div", { class: "file-title", text: path }));
  if (path === "SKILL.md") pane.append(viewSwitch());
  if (asSource) {
    pane.append(sourceView(view, state.detail ? state.detail.diagnostics : [], state.line));
  } else if (view.kind === "markdown") {
    if (view.frontmatter.length) {
      const table = el("table", { class: "frontmatter" });
      for (const f of view.frontmatter) table.append(el("tr", {}, el("th", { text: f.key }), el("td", { text: f.value })));
      pane.append(table);
    }
    const body = el("article", { class: "markdown" });
    body.innerHTML = view.html; // sanitized by the backend (ammonia)
    pane.append(body);
  } else if (view.kind === "text") {
    pane.append(el("pre", { class: "code", text: view.text }));
  } else {
    pane.append(el("p", { class: "binary", text: t("binary", view.kindName, size(view.size)) }));
  }
  // Another file starts at its top (or at the heading a link named).
  pane.scrollTop = 0;
  if (anchor) scrollToAnchor(pane, anchor);
  if (asSource && state.line) showLine(state.line);
}

// ---------- history, delete ----------

async function showHistory(d) {
  const rows = await invoke("skill_history", { scope: d.scope, name: d.name }).catch(showError);
  if (!rows) return;
  const list = el("table", { class: "history", id: "history" });
  for (const r of rows) {
    list.append(el("tr", {},
      el("td", { text: `v:${r.revision}` }),
      el("td", { text: r.at ? new Date(r.at).toLocaleString() : "—" }),
      el("td", { class: "digest", text: r.digest || "—" }),
      el("td", { text: r.event }),
      el("td", {}, r.current ? el("span", { class: "marker muted", text: t("current") })
        : r.restorable ? el("button", { type: "button", text: t("restore"), onclick: () => restore(d.scope, d.name, r.revision) }) : null),
    ));
  }
  $("#viewer").replaceChildren(el("div", { class: "file-title", text: `${d.name} — ${t("history")}` }), list);
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

function confirmDelete(d) {
  const dlg = $("#confirm-dialog");
  $("#confirm-text").textContent = t("confirmDelete", d.name);
  $("#confirm-yes").onclick = async () => {
    dlg.close();
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
  };
  $("#confirm-no").onclick = () => dlg.close();
  dlg.showModal();
}

// ---------- import ----------

function openImport(path = "") {
  $("#import-path").value = path;
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
  try {
    const p = await invoke("import_preview", { path, scope });
    const status = el("p", { class: p.valid ? "ok" : "error", text: p.valid ? t("valid") : t("invalidSkill") });
    const diags = el("ul", { class: "diagnostics" });
    for (const d of p.diagnostics) diags.append(el("li", { class: d.severity }, el("code", { text: d.code }), el("div", { class: "message", text: d.message })));
    box.replaceChildren(
      el("div", { class: "preview-head" },
        el("strong", { id: "preview-name", text: p.name }),
        el("span", { id: "preview-version", class: "badge", text: p.isNew ? t("newSkill") : t("willBecome", p.nextRevision) }),
      ),
      el("p", { class: "hint", text: t("filesSize", p.fileCount, size(p.totalBytes)) }),
      status,
      diags,
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
    box.replaceChildren(el("p", { class: "error", id: "import-error", dataset: { code: e.code || "" }, text: e.message || String(e) }));
  }
}

async function confirmImport() {
  const path = $("#import-path").value.trim();
  const scope = "user";
  $("#import-confirm").disabled = true;
  $("#import-preview").append(el("p", { class: "hint busy", text: t("importing") }));
  try {
    const trust = Boolean($("#import-trust")?.checked);
    const out = await invoke("import_skill", { path, scope, trust });
    $("#import-dialog").close();
    toast(t("imported", out.name, out.revision));
    await loadSkills();
    await select(`${out.scope}/${out.name}`);
  } catch (e) {
    $("#import-preview").replaceChildren(el("p", { class: "error", id: "import-error", dataset: { code: e.code || "" }, text: e.message || String(e) }));
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

async function showListing() {
  const l = await invoke("listing_preview", {}).catch(showError);
  if (!l) return;
  const pct = Math.min(100, Math.round((100 * l.estimatedTokens) / l.budgetTokens));
  $("#listing-meter-bar").style.width = `${pct}%`;
  $("#listing-meter-text").textContent =
    t("tokens", l.estimatedTokens, l.budgetTokens, l.listed) + (l.shortened.length ? ` · ${t("shortenedNote", l.shortened.join(", "))}` : "");
  const pre = $("#listing-text");
  pre.replaceChildren();
  if (!l.text) pre.textContent = t("empty");
  for (const line of l.text.split("\n")) {
    const m = line.match(/^- \*\*([^*]+)\*\*/);
    pre.append(el("span", { class: m && l.shortened.includes(m[1]) ? "shortened" : "" , text: line }), "\n");
  }
  $("#listing-dialog").showModal();
}

// ---------- wiring ----------

async function refresh() {
  const selected = state.selected;
  await loadSkills();
  if (selected && state.skills.some((s) => keyOf(s) === selected)) await select(selected, true);
}

/** Switches between the skills browser and the agent panel. */
function setView(view) {
  document.body.dataset.view = view;
  $("#tab-skills").setAttribute("aria-selected", String(view === "skills"));
  $("#tab-agent").setAttribute("aria-selected", String(view === "agent"));
  if (view === "agent") openAgent();
}

function wire() {
  $("#search").addEventListener("input", (e) => { state.filter = e.target.value; renderSidebar(); });
  $("#search").addEventListener("keydown", (e) => {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") { e.preventDefault(); moveSelection(e.key === "ArrowDown" ? 1 : -1); }
  });
  $("#sidebar").addEventListener("keydown", (e) => {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") { e.preventDefault(); moveSelection(e.key === "ArrowDown" ? 1 : -1); }
  });
  $("#tab-skills").onclick = () => setView("skills");
  $("#tab-agent").onclick = () => setView("agent");
  document.addEventListener("keydown", (e) => {
    if (document.body.dataset.view === "agent") return;
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
  $("#lang").value = language();
  $("#lang").onchange = (e) => {
    setLanguage(e.target.value); translatePage(); renderSidebar(); translateAgent();
    if (state.detail) { renderFiles(); if (state.file) openFile(state.file); }
  };
  listen("skills://changed", () => refresh().catch(showError));
  listen("skills://dropped", (e) => { if (e.payload?.length) openImport(e.payload[0]); });
  // A link in the viewer knows its skill's files; one in an agent answer does not.
  catchLinks((a) => (a.closest("#viewer") && state.detail && state.file
    ? { file: state.file, files: state.detail.files.map((f) => f.path), open: (path, anchor) => openFile(path, anchor) }
    : null));
}

setLanguage(language());
translatePage();
wire();
initAgent();
document.body.dataset.view = "skills";
loadSkills()
  .then(() => {
    document.body.dataset.ready = "true";
    $("#viewer").replaceChildren(el("p", { class: "empty", text: t("pickSkill") }));
    requestAnimationFrame(() => invoke("ui_ready").catch(() => {}));
  })
  .catch(showError);
