// @ts-check
// The editor view's logic with no page in it (ui-tests runs it under Node): the debounced,
// one-at-a-time runner behind writing and checking a draft, a file's notes as editor
// diagnostics, the draft's file tree as rows, paths typed for new files, and the watcher's
// changes that concern a draft. The view itself is editor.js.

/** @typedef {import("./types/bindings").Note} LineNote */
/** @typedef {import("./types/bindings").DraftFile} DraftFile */
/** @typedef {import("./types/editor").EditorDiagnostic} EditorDiagnostic */

/**
 * A task run `delay` ms after the last `request()`, never twice at once, whose answers are
 * handed to `onResult` only while no newer request came after the run began (a stale answer is
 * dropped: a newer run follows it). A request while a run is on its way runs once more after it.
 * @template T
 * @param {() => Promise<T>} task
 * @param {{ delay: number, onResult?: (result: T) => void, onError?: (err: unknown) => void,
 *   timers?: { setTimeout: (f: () => void, ms: number) => any, clearTimeout: (id: any) => void } }} options
 */
export function debounced(task, { delay, onResult = () => {}, onError = () => {}, timers = globalThis }) {
  let timer = null;
  let running = false;
  let again = false;
  let gen = 0;
  /** @type {(() => void)[]} */
  let waiters = [];
  const settle = () => {
    if (timer !== null || running) return;
    const w = waiters;
    waiters = [];
    for (const f of w) f();
  };
  const start = async () => {
    timer = null;
    if (running) {
      again = true;
      return;
    }
    running = true;
    const mine = gen;
    try {
      const result = await task();
      if (mine === gen) onResult(result);
    } catch (e) {
      if (mine === gen) onError(e);
    } finally {
      running = false;
    }
    if (again) {
      again = false;
      await start();
    }
    settle();
  };
  return {
    /** Asks for a run `delay` ms from now (the clock restarts at every request). */
    request() {
      gen++;
      if (timer !== null) timers.clearTimeout(timer);
      timer = timers.setTimeout(() => { start(); }, delay);
    },
    /** Runs now what is waiting for its delay; settles once nothing is waiting or running. */
    flush() {
      const done = new Promise((resolve) => waiters.push(() => resolve(undefined)));
      if (timer !== null) {
        timers.clearTimeout(timer);
        start();
      } else settle();
      return done;
    },
    /** Forgets a waiting run, and drops the answer of one on its way. */
    cancel() {
      gen++;
      if (timer !== null) timers.clearTimeout(timer);
      timer = null;
      again = false;
      settle();
    },
    /** Whether a run waits or is on its way. */
    busy: () => timer !== null || running,
  };
}

/**
 * The notes of file `path` as the editor's diagnostics, on their lines; a note with a fix
 * carries it as an action that calls `onFix(fix)`, named by its `fixLabel` (else `fixName`).
 * @param {LineNote[]} notes
 * @param {string} path
 * @param {(fix: string) => void} onFix
 * @param {string} fixName
 * @returns {EditorDiagnostic[]}
 */
export function diagnosticsFor(notes, path, onFix, fixName) {
  return notes.filter((n) => n.path === path).map((n) => ({
    line: n.line,
    severity: n.severity,
    message: n.message,
    actions: n.fix ? [{ name: n.fixLabel || fixName, run: () => onFix(/** @type {string} */ (n.fix)) }] : [],
  }));
}

/**
 * Notes grouped by file, in the order the files are listed, errors before warnings before info
 * and by line within a file.
 * @param {LineNote[]} notes
 * @returns {[string, LineNote[]][]}
 */
export function notesByFile(notes) {
  const rank = { error: 0, warning: 1, info: 2 };
  /** @type {Map<string, LineNote[]>} */
  const groups = new Map();
  for (const n of notes) {
    if (!groups.has(n.path)) groups.set(n.path, []);
    /** @type {LineNote[]} */ (groups.get(n.path)).push(n);
  }
  for (const list of groups.values()) list.sort((a, b) => rank[a.severity] - rank[b.severity] || (a.line ?? 0) - (b.line ?? 0));
  return [...groups];
}

/**
 * The rows of a draft's file tree: a row per folder (once, above its contents) and per file,
 * files at the top first, then each folder; `folders` adds empty folders the user made (a path
 * prefix with no file yet).
 * @param {DraftFile[]} files
 * @param {string[]} [folders]
 * @returns {({ kind: "dir", path: string, name: string, depth: number } | { kind: "file", path: string, name: string, depth: number, file: DraftFile })[]}
 */
export function treeRows(files, folders = []) {
  const placeholder = (path) => ({ path: `${path}/`, text: null, size: 0 });
  const all = [...files, ...folders.filter((d) => !files.some((f) => f.path.startsWith(`${d}/`))).map(placeholder)];
  // Sorted as paths, with a folder's contents right under it and top-level files first.
  const key = (p) => p.split("/").map((part, i, parts) => `${i < parts.length - 1 ? "1" : "0"}${part}`).join("/");
  all.sort((a, b) => (key(a.path) < key(b.path) ? -1 : key(a.path) > key(b.path) ? 1 : 0));
  /** @type {ReturnType<typeof treeRows>} */
  const rows = [];
  const shown = new Set();
  for (const f of all) {
    const parts = f.path.split("/");
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join("/");
      if (shown.has(dir)) continue;
      shown.add(dir);
      rows.push({ kind: "dir", path: dir, name: parts[i - 1], depth: i - 1 });
    }
    if (!f.path.endsWith("/")) rows.push({ kind: "file", path: f.path, name: parts[parts.length - 1], depth: parts.length - 1, file: f });
  }
  return rows;
}

/**
 * A path typed for a new file or folder, tidied (`./`, doubled and end slashes dropped), or
 * null when it cannot be one inside a skill: empty, absolute, with `..`, a backslash, a NUL.
 * @param {string} typed
 * @returns {string | null}
 */
export function cleanPath(typed) {
  const raw = typed.trim();
  if (!raw || raw.startsWith("/") || raw.includes("\\") || raw.includes("\0") || /^[a-zA-Z]:/.test(raw)) return null;
  const parts = raw.split("/").filter((p) => p && p !== ".");
  if (!parts.length || parts.includes("..")) return null;
  return parts.join("/");
}

/**
 * Whether the watcher's `changes` (the `skills://changed` payload) touch skill `name` in `scope`:
 * a change to it, or to its whole scope. A payload of another shape counts as touching it.
 * @param {unknown} changes
 * @param {string} scope
 * @param {string} name
 */
export function touches(changes, scope, name) {
  if (!Array.isArray(changes)) return true;
  return changes.some((c) => c && c.kind === "skill" && c.scope === scope && (c.name === null || c.name === undefined || c.name === name));
}

/**
 * Bytes as base64, in chunks (a whole file through one `String.fromCharCode` call overflows the
 * stack for large files).
 * @param {ArrayBuffer | Uint8Array} buffer
 */
export function base64Of(buffer) {
  const bytes = buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
