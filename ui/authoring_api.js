// @ts-check
// The door to the authoring commands (new skills, drafts, revision diffs): api.js's `invoke`,
// typed by the command map generated from the Rust side.

import { invoke } from "./api.js";

/** Runs authoring command `cmd` with its arguments (JSON keys in camelCase). */
export const call = invoke;
