// @ts-check
// The door to the authoring commands (new skills, drafts, revision diffs) until their generated
// declarations land in types/commands.d.ts: then this becomes api.js's `invoke`. Typed by the
// hand-written map in types/authoring.d.ts.

/** @typedef {import("./types/authoring").AuthoringInvoke} AuthoringInvoke */

/**
 * Runs authoring command `cmd` with its arguments (JSON keys in camelCase).
 * @type {AuthoringInvoke}
 */
export const call = (cmd, ...args) =>
  /** @type {Promise<any>} */ (window.__TAURI__.core.invoke(cmd, /** @type {Record<string, unknown> | undefined} */ (args[0])));
