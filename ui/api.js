// @ts-check
// The one door to the backend: every command goes through `invoke` here, typed by the command
// map generated from the Rust side (types/commands.d.ts, written by src-tauri/src/bindings.rs).
// A renamed command, a wrong argument name or a view field that no longer exists fails
// `tsc -p ui-tests` (scripts/test), not a click.

/** @typedef {import("./types/commands").Commands} Commands */
/** @typedef {import("./types/commands").CommandName} CommandName */
/** @typedef {import("./types/bindings").ApiErrorShape} ApiError */

/**
 * Runs command `cmd` with its arguments (JSON keys in camelCase, as Tauri names them).
 * @type {import("./types/commands").Invoke}
 */
export const invoke = (cmd, ...args) =>
  /** @type {Promise<any>} */ (window.__TAURI__.core.invoke(cmd, /** @type {Record<string, unknown> | undefined} */ (args[0])));

/**
 * A channel the backend streams `T` over (an argument of a command such as `agent_send`).
 * @template T
 * @returns {import("./types/commands").Channel<T>}
 */
export function channel() {
  return new window.__TAURI__.core.Channel();
}
