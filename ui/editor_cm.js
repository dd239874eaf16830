// @ts-check
// Loads the editor bundle (vendor/editor.js, CodeMirror built from editor/ by scripts/setup)
// the first time an editor opens: the skills view never pays for its size. Its API is declared
// in types/editor.d.ts; the bundle itself is not type-checked.

/** @typedef {import("./types/editor").EditorModule} EditorModule */

/** @type {Promise<EditorModule> | null} */
let loading = null;

/** The editor bundle's module; rejects when it was never built. */
export function editorModule() {
  // A specifier in a variable: tsc leaves the bundle alone, the browser resolves it against
  // this module's address as it would a literal.
  const url = "./vendor/editor.js";
  loading ??= /** @type {Promise<EditorModule>} */ (import(url)).catch((e) => {
    loading = null;
    throw e;
  });
  return loading;
}
