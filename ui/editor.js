// @ts-check
// The editor view (#editor-view): one skill's draft — its file tree, the open file in
// CodeMirror, the Checks — with Save, Discard, the system editor, the banner for a stored skill
// that changed under the draft, and the notice of drafts left from an earlier session. Typing
// writes the file to the draft (debounced) and checks the draft again; nothing is stored as a
// revision before Save.

import { $, el, showError, size, toast } from "./dom.js";
import { errorText, formatDate, t } from "./i18n.js";
import { call } from "./authoring_api.js";
import { openConfirm } from "./confirm.js";
import { diffBlock } from "./diff.js";
import { debounced, diagnosticsFor, touches } from "./editor_logic.js";
import { editorModule } from "./editor_cm.js";
import { renderTree } from "./editor_tree.js";
import { renderChecks, renderFileNotes } from "./editor_checks.js";

/**
 * @typedef {import("./types/bindings").Scope} Scope
 * @typedef {import("./types/bindings").DraftView} DraftView
 * @typedef {import("./types/bindings").DraftCheck} DraftCheck
 * @typedef {import("./types/editor").Editor} Editor
 * @typedef {{ show: () => void, onSaved: (scope: Scope, name: string) => Promise<void> | void,
 *   onClosed: (scope: Scope, name: string) => Promise<void> | void }} EditorHooks
 */

/**
 * @type {{
 *   draft: DraftView | null, check: DraftCheck | null, file: string | null, folders: string[],
 *   cm: Editor | null, dirty: Map<string, string>, staleHidden: boolean, hooks: EditorHooks | null,
 * }}
 */
const ed = { draft: null, check: null, file: null, folders: [], cm: null, dirty: new Map(), staleHidden: false, hooks: null };

/** The open draft's scope and name, as commands take them. */
const who = () => {
  const d = /** @type {DraftView} */ (ed.draft);
  return { scope: d.scope, name: d.name };
};

// Typing writes the changed files after a pause, one write at a time; each write done asks
// for a check, of which only the newest answer is drawn.
const writer = debounced(async () => {
  if (!ed.draft) return;
  const batch = [...ed.dirty];
  ed.dirty.clear();
  for (const [path, text] of batch) {
    try {
      await call("draft_write", { ...who(), path, text });
    } catch (e) {
      // Kept for the next write unless typed over since.
      if (!ed.dirty.has(path)) ed.dirty.set(path, text);
      throw e;
    }
  }
}, { delay: 300, onResult: () => checker.request(), onError: showError });

const checker = debounced(() => (ed.draft ? call("draft_check", who()) : Promise.resolve(null)), {
  delay: 50,
  onResult: (check) => {
    if (!check || !ed.draft) return;
    ed.check = check;
    drawChecks();
    drawHead();
  },
  onError: showError,
});

// ---------- opening, closing ----------

/**
 * Opens the editor on the draft of skill `name` in `scope` (`view` when the caller already has
 * it, as after `skill_new`); the one already open is shown as it is.
 * @param {Scope} scope
 * @param {string} name
 * @param {DraftView} [view]
 */
export async function openEditor(scope, name, view) {
  if (ed.draft && ed.draft.scope === scope && ed.draft.name === name && !view) {
    ed.hooks?.show();
    return;
  }
  if (ed.draft) await leave();
  const draft = view || await call("draft_open", { scope, name });
  ed.draft = draft;
  ed.check = null;
  ed.folders = [];
  ed.staleHidden = false;
  ed.file = null;
  ed.hooks?.show();
  layout();
  drawAll();
  const first = draft.files.find((f) => f.path === "SKILL.md") || draft.files.find((f) => f.text !== null) || draft.files[0];
  if (first) await openFile(first.path);
  checker.request();
  refreshDrafts().catch(() => {});
}

/** Writes what waits and forgets the open draft (it stays on disk, to resume later). */
async function leave() {
  await writer.flush();
  checker.cancel();
  ed.cm?.destroy();
  ed.cm = null;
  ed.draft = null;
  ed.check = null;
  ed.file = null;
}

/** Leaves the editor for the skill's view; the draft is kept. */
async function close() {
  if (!ed.draft) return;
  const { scope, name } = who();
  await leave();
  await ed.hooks?.onClosed(scope, name);
  await refreshDrafts();
}

// ---------- drawing ----------

/** Builds the view's frame once per opening. */
function layout() {
  $("#editor-view").replaceChildren(
    el("div", { class: "editor-head" },
      el("h2", { id: "editor-name" }),
      el("span", { id: "editor-base", class: "badge" }),
      el("span", { id: "editor-unsaved", class: "marker warn", text: t("unsavedChanges"), hidden: true }),
      el("span", { class: "grow" }),
      el("button", { type: "button", id: "editor-reload", text: t("reloadFromDisk"), title: t("reloadFromDiskTitle"), onclick: () => reload().catch(showError) }),
      el("button", { type: "button", id: "editor-system", text: t("openInEditor"), title: t("openDraftInEditorTitle"), onclick: () => openInSystem().catch(showError) }),
      el("button", { type: "button", id: "editor-discard", class: "danger", text: t("discardDraft"), onclick: confirmDiscard }),
      el("button", { type: "button", id: "editor-close", text: t("closeEditor"), title: t("closeEditorTitle"), onclick: () => close().catch(showError) }),
      el("button", { type: "button", id: "editor-save", class: "primary", text: t("save"), title: t("saveTitle"), onclick: () => save(false) })),
    el("div", { id: "editor-stale", class: "stale-banner", role: "alert", hidden: true }),
    el("div", { class: "editor-body" },
      el("aside", { id: "editor-tree", "aria-label": t("files") }),
      el("section", { class: "editor-main" },
        el("div", { id: "editor-file", class: "file-title" }),
        el("div", { id: "editor-cm" }),
        el("div", { id: "editor-binary", class: "editor-binary", hidden: true }),
        el("div", { id: "editor-notes", class: "editor-notes" })),
      el("aside", { id: "editor-checks", "aria-label": t("checks") })));
}

function drawAll() {
  drawHead();
  drawStale();
  drawTree();
  drawChecks();
}

function drawHead() {
  const d = ed.draft;
  if (!d) return;
  $("#editor-name").textContent = d.name;
  $("#editor-base").textContent = d.base === null ? t("draftNew") : t("draftOf", d.base);
  const changed = ed.check ? ed.check.changed.length > 0 || ed.dirty.size > 0 : d.changed || ed.dirty.size > 0;
  $("#editor-unsaved").hidden = !changed;
}

function drawStale() {
  const box = $("#editor-stale");
  const stale = ed.draft?.stale;
  box.hidden = !stale || ed.staleHidden;
  if (!stale) return;
  box.replaceChildren(
    el("p", {}, el("strong", { text: stale.current === null ? t("staleGone") : t("staleNow", stale.current) })),
    el("p", { class: "hint", text: t("staleHint") }),
    stale.diff.length
      ? el("details", {}, el("summary", { text: t("staleDiffN", stale.diff.length) }), ...stale.diff.map((d) => diffBlock(d, "revChange_")))
      : el("span"),
    el("div", { class: "row" },
      el("button", { type: "button", id: "stale-save", class: "danger", text: t("staleSaveOver"), onclick: () => save(true) }),
      el("button", { type: "button", id: "stale-discard", text: t("staleDiscard"), onclick: confirmDiscard }),
      el("button", { type: "button", id: "stale-keep", text: t("staleKeep"), onclick: () => { ed.staleHidden = true; drawStale(); } })));
}

function drawTree() {
  const d = ed.draft;
  if (!d) return;
  renderTree($("#editor-tree"), {
    files: d.files, folders: ed.folders, open: ed.file,
    onOpen: (path) => openFile(path).catch(showError),
    onNewFile: (path) => newFile(path).catch(showError),
    onNewFolder: (path) => { if (!ed.folders.includes(path)) ed.folders.push(path); drawTree(); },
    onRename: (from, to, folder) => rename(from, to, folder).catch(showError),
    onDelete: (path, folder) => confirmRemove(path, folder),
    onAdd: async (path, base64) => { await call("draft_add_file", { ...who(), path, base64 }); },
    onAdded: () => reload().catch(showError),
    onError: showError,
  });
}

const checkHooks = {
  onFix: (fix) => { applyFix(fix).catch(showError); },
  onShow: (path, line) => { openFile(path, line).catch(showError); },
};

function drawChecks() {
  if (!ed.draft) return;
  renderChecks($("#editor-checks"), ed.check, checkHooks);
  renderFileNotes($("#editor-notes"), ed.check, ed.file, checkHooks);
  const file = ed.draft.files.find((f) => f.path === ed.file);
  if (ed.cm && file && file.text !== null) {
    ed.cm.setDiagnostics(ed.check ? diagnosticsFor(ed.check.notes, file.path, checkHooks.onFix, t("fix")) : []);
  }
}

// ---------- files ----------

/** Opens file `path` of the draft: text in the editor (at `line`), anything else by its size. */
async function openFile(path, line = null) {
  const d = ed.draft;
  const file = d?.files.find((f) => f.path === path);
  if (!d || !file) return;
  ed.file = path;
  $("#editor-file").textContent = path;
  const binary = $("#editor-binary");
  const host = $("#editor-cm");
  if (file.text === null) {
    host.hidden = true;
    binary.hidden = false;
    binary.replaceChildren(el("p", { text: t("binaryFile", size(file.size)) }), el("p", { class: "hint", text: t("binaryFileHint") }));
  } else {
    binary.hidden = true;
    host.hidden = false;
    if (!ed.cm) {
      try {
        const cm = await editorModule();
        if (ed.draft !== d) return; // another draft opened meanwhile
        ed.cm ??= cm.createEditor(host, { text: "", path, onChange: typed, phrases: t("cmPhrases") });
      } catch (e) {
        console.error(e);
        host.replaceChildren(el("p", { class: "error", text: t("editorMissing") }));
        return;
      }
    }
    ed.cm.open(path, file.text);
    if (line) ed.cm.goToLine(line);
  }
  drawTree();
  drawChecks();
}

/** What the user typed into the open file: kept, and written after a pause. */
function typed(text) {
  const file = ed.draft?.files.find((f) => f.path === ed.file);
  if (!file) return;
  file.text = text;
  ed.dirty.set(file.path, text);
  $("#editor-unsaved").hidden = false;
  writer.request();
}

/** Takes a new answer of `draft_open`/`draft_fix`: the tree, the banner, and the open file's
 * text when it changed on disk (one undoable step in the editor). */
function take(view) {
  ed.draft = view;
  const file = view.files.find((f) => f.path === ed.file);
  if (!file) ed.file = null;
  if (file && file.text !== null && ed.cm && ed.cm.path() === file.path) ed.cm.setText(file.text);
  drawAll();
  if (!ed.file && view.files.length) openFile((view.files.find((f) => f.path === "SKILL.md") || view.files[0]).path).catch(showError);
  checker.request();
}

/** Reads the draft again from disk (after the system editor, added files, a move). */
async function reload() {
  if (!ed.draft) return;
  await writer.flush();
  take(await call("draft_open", who()));
}

/** Adds files and folders dropped from the desktop to the draft's top folder. */
async function addDropped(paths) {
  await writer.flush();
  const added = await call("draft_add_paths", { ...who(), into: "", paths });
  await reload();
  toast(t("filesAdded", added.length));
}

async function newFile(path) {
  if (ed.draft?.files.some((f) => f.path === path)) return openFile(path);
  await call("draft_write", { ...who(), path, text: "" });
  ed.folders = ed.folders.filter((d) => !path.startsWith(`${d}/`));
  await reload();
  await openFile(path);
}

async function rename(from, to, folder) {
  if (folder && !ed.draft?.files.some((f) => f.path.startsWith(`${from}/`))) {
    // A folder with no file yet lives only here.
    ed.folders = ed.folders.map((d) => (d === from ? to : d));
    drawTree();
    return;
  }
  await writer.flush();
  await call("draft_move", { ...who(), from, to });
  const moved = ed.file === from || (folder && ed.file?.startsWith(`${from}/`));
  if (moved && ed.file) ed.file = to + ed.file.slice(from.length);
  await reload();
  // The open file under its new name (its title, and the editor's language for it).
  if (moved && ed.file) await openFile(ed.file);
}

function confirmRemove(path, folder) {
  if (folder && !ed.draft?.files.some((f) => f.path.startsWith(`${path}/`))) {
    ed.folders = ed.folders.filter((d) => d !== path);
    drawTree();
    return;
  }
  openConfirm({
    text: t(folder ? "deleteFolderAsk" : "deleteFileAsk", path), action: "delete",
    onYes: async () => {
      await writer.flush();
      await call("draft_remove", { ...who(), path });
      await reload();
    },
  });
}

async function applyFix(fix) {
  await writer.flush();
  take(await call("draft_fix", { ...who(), fix }));
}

/** Opens the draft's open file (never the stored skill) in the system's editor; its save comes
 *  back with "Reload from disk" and becomes a revision with Save. */
export async function openInSystem() {
  if (!ed.draft || !ed.file) return;
  await writer.flush();
  await call("draft_open_in_editor", { ...who(), path: ed.file });
  toast(t("openedInSystem"), { label: t("reloadFromDisk"), run: () => reload().catch(showError) });
}

// ---------- save, discard ----------

/** Stores the draft as the next revision (`force`: even when invalid or stale). */
async function save(force) {
  if (!ed.draft) return;
  const { scope, name } = who();
  try {
    await writer.flush();
    const out = await call("draft_save", { scope, name, force });
    toast(out.unchanged ? t("savedUnchanged", out.revision) : t("savedAs", out.revision));
    await leave();
    await ed.hooks?.onSaved(scope, name);
    await refreshDrafts();
  } catch (e) {
    const err = /** @type {{ code?: string }} */ (e);
    if (err.code === "draft_invalid") {
      openConfirm({ text: t("saveInvalidAsk", errorText(e)), action: "saveAnyway", onYes: () => save(true) });
    } else if (err.code === "draft_stale") {
      await refreshStale(true);
    } else {
      showError(e);
    }
  }
}

function confirmDiscard() {
  if (!ed.draft) return;
  const { scope, name } = who();
  openConfirm({
    text: t("discardAsk", name), action: "discard",
    onYes: async () => {
      writer.cancel();
      ed.dirty.clear();
      await call("draft_discard", { scope, name });
      toast(t("draftDiscarded", name));
      // Stale: a fresh draft of the stored skill as it is now; else back to the skill.
      if (ed.draft?.stale && ed.draft.stale.current !== null) {
        ed.draft = null;
        ed.cm?.destroy();
        ed.cm = null;
        await openEditor(scope, name);
      } else {
        await leave();
        await ed.hooks?.onClosed(scope, name);
        await refreshDrafts();
      }
    },
  });
}

/** Asks whether the stored skill moved under the draft; only the banner follows, never the
 * text being typed. `show` brings back a banner the user put away. */
async function refreshStale(show = false) {
  if (!ed.draft) return;
  const d = ed.draft;
  const view = await call("draft_open", who());
  if (ed.draft !== d) return;
  const was = JSON.stringify(d.stale);
  d.stale = view.stale;
  d.base = view.base;
  if (show || JSON.stringify(view.stale) !== was) ed.staleHidden = false;
  drawStale();
  drawHead();
}

// ---------- drafts left from before ----------

/** Shows the drafts not saved nor discarded (a closed window, a crash), each with Resume. */
export async function refreshDrafts() {
  const banner = $("#drafts-banner");
  const rows = (await call("drafts_open")).filter((r) => !(ed.draft && r.scope === ed.draft.scope && r.name === ed.draft.name));
  if (!rows.length || banner.dataset.dismissed === "true") {
    banner.hidden = true;
    return;
  }
  // The banner's own text fills the space (.banner span grows); the buttons follow it.
  banner.replaceChildren(
    el("span", { text: rows.length > 4 ? `${t("draftsLeft", rows.length)} (${t("draftsMore", rows.length - 4)})` : t("draftsLeft", rows.length) }),
    ...rows.slice(0, 4).map((r) => el("button", {
      type: "button", class: "resume-draft", dataset: { name: r.name }, title: t("draftLastChange", formatDate(r.at)),
      text: t("resumeDraft", r.name), onclick: () => openEditor(r.scope, r.name).catch(showError),
    })),
    el("button", { type: "button", text: t("notNow"), onclick: () => { banner.dataset.dismissed = "true"; banner.hidden = true; } }));
  banner.hidden = false;
}

// ---------- wiring ----------

/**
 * Wires the editor view: Ctrl+S, the watcher's events, the drafts notice.
 * @param {EditorHooks} hooks
 */
export function initEditor(hooks) {
  ed.hooks = hooks;
  document.addEventListener("keydown", (e) => {
    if (document.body.dataset.view !== "editor" || !ed.draft) return;
    if (e.key.toLowerCase() === "s" && (e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey) {
      e.preventDefault();
      if (!document.querySelector("dialog[open]")) save(false);
    }
  });
  const { listen } = window.__TAURI__.event;
  listen("skills://changed", (e) => {
    if (ed.draft && touches(e.payload, ed.draft.scope, ed.draft.name)) refreshStale().catch(() => {});
  });
  // Tauri's own drop handling takes desktop drops (as paths); in the editor they join the draft.
  listen("skills://dropped", (e) => {
    if (document.body.dataset.view !== "editor" || !ed.draft || !e.payload?.length) return;
    addDropped(/** @type {string[]} */ (e.payload)).catch(showError);
  });
  refreshDrafts().catch(() => {});
}
