// The Skilldeck window: sidebar of skills, file tree, viewer, import, history and live updates.
// Every piece of data comes from a backend command; Markdown arrives as sanitized HTML.

import { $, el, showError, size, toast } from "./dom.js";
import { language, setLanguage, t, translatePage } from "./i18n.js";
import { initAgent, openAgent, translateAgent } from "./agent.js";

const { invoke } = window.__TAURI__.core;
const { listen } = window.__TAURI__.event;

const state = { skills: [], deleted: [], selected: null, detail: null, file: null, filter: "", showing: "file" };

const keyOf = (s) => `${s.scope}/${s.name}`;

// ---------- sidebar ----------

function description(skill) {
  return (language() === "zh" && skill.descriptionZh) || skill.description || "";
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
  const files = state.detail.files.map((f) => f.path);
  const file = keepFile && files.includes(state.file) ? state.file : files.includes("SKILL.md") ? "SKILL.md" : files[0];
  renderFiles();
  if (file) await openFile(file);
}

function renderFiles() {
  const d = state.detail;
  const pane = $("#files");
  pane.replaceChildren(
    el("div", { class: "skill-head" },
      el("h2", { text: d.name }),
      d.version ? el("span", { class: "badge", text: `v:${d.version}` }) : null,
      el("span", { class: "digest", title: "content digest", text: d.digest }),
    ),
    el("button", {
      type: "button", id: "enabled-switch", class: "switch", role: "switch", "aria-checked": String(d.enabled),
      title: t("offTitle"), onclick: () => setEnabled(d, !d.enabled),
    }, el("span", { class: "track", "aria-hidden": "true" }), el("span", { text: t("offeredToAgents") })),
    el("div", { class: "row" },
      el("button", { type: "button", id: "history-btn", text: t("history"), onclick: () => showHistory(d) }),
      el("button", { type: "button", id: "delete-btn", class: "danger", text: t("delete"), onclick: () => confirmDelete(d) }),
    ),
  );
  if (d.grants.requested.length) pane.append(grantsPanel(d));
  if (d.diagnostics.length) {
    const list = el("ul", { id: "diagnostics", class: "diagnostics" });
    for (const p of d.diagnostics) {
      list.append(el("li", { class: p.severity },
        el("code", { text: p.code }),
        p.line ? el("span", { class: "line", text: `${t("line")} ${p.line}` }) : null,
        el("div", { class: "message", text: p.message }),
        el("div", { class: "fix", text: `${t("fix")}: ${p.fix}` }),
      ));
    }
    pane.append(el("h3", { text: t("problems") }), list);
  }
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

async function openFile(path) {
  state.file = path;
  state.showing = "file";
  for (const b of document.querySelectorAll("#file-tree .file")) b.classList.toggle("selected", b.dataset.path === path);
  const [scope, name] = state.selected.split("/");
  let view;
  try {
    view = await invoke("read_skill_file", { scope, name, path });
  } catch (e) {
    showError(e);
    return;
  }
  const pane = $("#viewer");
  pane.replaceChildren(el("div", { class: "file-title", text: path }));
  if (view.kind === "markdown") {
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
  state.showing = "history";
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
  const scope = $("#import-scope").value;
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
  const scope = $("#import-scope").value;
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
  const history = state.showing === "history";
  await loadSkills();
  if (selected && state.skills.some((s) => keyOf(s) === selected)) {
    await select(selected, true);
    // An open History stays open, with the new revision in it.
    if (history && state.detail) await showHistory(state.detail);
  }
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
  $("#import-scope").onchange = checkImport;
  $("#import-confirm").onclick = confirmImport;
  $("#import-cancel").onclick = () => $("#import-dialog").close();
  $("#browse-folder").onclick = () => browse(true);
  $("#browse-archive").onclick = () => browse(false);
  $("#listing-btn").onclick = showListing;
  $("#listing-close").onclick = () => $("#listing-dialog").close();
  $("#lang").value = language();
  $("#lang").onchange = (e) => { setLanguage(e.target.value); translatePage(); renderSidebar(); if (state.detail) renderFiles(); translateAgent(); };
  listen("skills://changed", () => refresh().catch(showError));
  listen("skills://dropped", (e) => { if (e.payload?.length) openImport(e.payload[0]); });
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
