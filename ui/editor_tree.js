// @ts-check
// The editor's file tree: every file of the draft, with new file, new folder (a path prefix
// until a file is in it), rename, delete, and files added from the desktop (picked, or dropped
// on the tree) read in the page and sent as base64. What each action does is the caller's.

import { el, size } from "./dom.js";
import { t } from "./i18n.js";
import { base64Of, cleanPath, treeRows } from "./editor_logic.js";

/**
 * @typedef {import("./types/bindings").DraftFile} DraftFile
 * @typedef {{
 *   files: DraftFile[], folders: string[], open: string | null,
 *   onOpen: (path: string) => void,
 *   onNewFile: (path: string) => Promise<void> | void,
 *   onNewFolder: (path: string) => void,
 *   onRename: (from: string, to: string, folder: boolean) => Promise<void> | void,
 *   onDelete: (path: string, folder: boolean) => void,
 *   onAdd: (path: string, base64: string) => Promise<void>,
 *   onAdded: () => Promise<void> | void,
 *   onError: (err: unknown) => void,
 * }} TreeHooks
 */

/** The inline field a new path or a new name is typed into (the webview has no prompt()). */
function pathField(value, placeholder, done) {
  const hint = el("p", { class: "hint error", hidden: true });
  const input = /** @type {HTMLInputElement} */ (el("input", { type: "text", class: "tree-input", spellcheck: "false", autocomplete: "off", value, placeholder }));
  const submit = () => {
    const path = cleanPath(input.value);
    if (!path) {
      hint.textContent = t("pathInvalid");
      hint.hidden = false;
      return;
    }
    done(path);
  };
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") { e.preventDefault(); submit(); }
    if (e.key === "Escape") { e.preventDefault(); e.stopPropagation(); done(null); }
  });
  const box = el("li", { class: "tree-edit" }, input, hint);
  queueMicrotask(() => { input.focus(); input.setSelectionRange(input.value.length, input.value.length); });
  return box;
}

/**
 * Reads desktop files (a file input's or a drop's) and adds each under `dir` through
 * `hooks.onAdd`, then `hooks.onAdded` once.
 * @param {FileList | File[]} list
 * @param {string} dir
 * @param {TreeHooks} hooks
 */
export async function addDesktopFiles(list, dir, hooks) {
  const files = [...list];
  if (!files.length) return;
  try {
    for (const f of files) {
      const bytes = await new Promise((resolve, reject) => {
        const reader = new FileReader();
        reader.onload = () => resolve(reader.result);
        reader.onerror = () => reject(reader.error);
        reader.readAsArrayBuffer(f);
      });
      await hooks.onAdd(dir ? `${dir}/${f.name}` : f.name, base64Of(/** @type {ArrayBuffer} */ (bytes)));
    }
  } catch (e) {
    hooks.onError(e);
  }
  await hooks.onAdded();
}

/**
 * Draws the tree into `box`.
 * @param {HTMLElement} box
 * @param {TreeHooks} hooks
 */
export function renderTree(box, hooks) {
  const list = el("ul", { class: "tree", id: "editor-file-tree" });
  /** Puts an inline field in place of row `at` (or at the top) until it is done. */
  const ask = (at, value, placeholder, done) => {
    const field = pathField(value, placeholder, (path) => {
      field.remove();
      if (at) at.hidden = false;
      if (path) done(path);
    });
    if (at) {
      at.hidden = true;
      at.after(field);
    } else list.prepend(field);
  };
  const picker = /** @type {HTMLInputElement} */ (el("input", { type: "file", multiple: true, hidden: true }));
  let pickInto = "";
  picker.addEventListener("change", () => {
    const chosen = [...(picker.files || [])];
    picker.value = "";
    addDesktopFiles(chosen, pickInto, hooks);
  });
  const tools = el("div", { class: "row compact tree-tools" },
    el("button", { type: "button", id: "editor-new-file", text: t("newFile"), onclick: () => ask(null, "", "scripts/run.sh", hooks.onNewFile) }),
    el("button", { type: "button", id: "editor-new-folder", text: t("newFolder"), onclick: () => ask(null, "", "references", hooks.onNewFolder) }),
    el("button", { type: "button", id: "editor-add-files", text: t("addFiles"), title: t("addFilesTitle"), onclick: () => { pickInto = ""; picker.click(); } }),
    picker);
  for (const r of treeRows(hooks.files, hooks.folders)) {
    const pad = `padding-left:${0.4 + r.depth * 1.1}rem`;
    const folder = r.kind === "dir";
    const rowButtons = el("span", { class: "tree-actions" },
      folder ? el("button", { type: "button", class: "link", title: t("newFileIn", r.path), "aria-label": t("newFileIn", r.path), text: "+", onclick: () => ask(row, `${r.path}/`, "", hooks.onNewFile) }) : null,
      folder ? el("button", { type: "button", class: "link", title: t("addFilesIn", r.path), "aria-label": t("addFilesIn", r.path), text: "⇪", onclick: () => { pickInto = r.path; picker.click(); } }) : null,
      el("button", { type: "button", class: "link", title: t("renamePath"), "aria-label": t("renamePath"), text: "✎", onclick: () => ask(row, r.path, "", (to) => to !== r.path && hooks.onRename(r.path, to, folder)) }),
      el("button", { type: "button", class: "link danger", title: t("deletePath"), "aria-label": t("deletePath"), text: "×", onclick: () => hooks.onDelete(r.path, folder) }));
    const row = folder
      ? el("li", { class: "dir", style: pad, dataset: { dir: r.path } }, el("span", { class: "grow", text: `${r.name}/` }), rowButtons)
      : el("li", { class: "tree-file" },
        el("button", {
          type: "button", class: `file${hooks.open === r.path ? " selected" : ""}`, style: pad, dataset: { path: r.path },
          title: r.file.text === null ? t("notText") : r.path, onclick: () => hooks.onOpen(r.path),
        }, el("span", { text: r.name }), el("span", { class: "size", text: size(r.file.size) })),
        rowButtons);
    list.append(row);
  }
  // Files dropped on the tree (on a folder's row: into that folder). The window's own drop
  // handling (Tauri's, for Import) may take desktop drops first: Add files… always works.
  box.ondragover = (e) => { e.preventDefault(); box.classList.add("drop-target"); };
  box.ondragleave = () => box.classList.remove("drop-target");
  box.ondrop = (e) => {
    e.preventDefault();
    box.classList.remove("drop-target");
    const dirRow = /** @type {HTMLElement | null} */ (/** @type {HTMLElement} */ (e.target).closest?.("[data-dir]"));
    if (e.dataTransfer?.files.length) addDesktopFiles(e.dataTransfer.files, dirRow?.dataset.dir || "", hooks);
  };
  box.replaceChildren(el("h3", { text: t("files") }), tools, list, el("p", { class: "hint", text: t("dropHint") }));
}
