// Written by hand until the authoring commands land on main, when src-tauri/src/bindings.rs
// generates these into bindings.d.ts and commands.d.ts: the commands that make and edit skills
// (drafts), as the backend declares them. ui/authoring_api.js calls them through this map.
import type { FileDiff, Scope } from "./bindings";

/** A template `skill_new` can start from. */
export type SkillTemplate = { id: string; title: string; summary: string };
/** Whether a name can be a new skill's: `problem` says why not, `taken` when one has it. */
export type NameCheck = { ok: boolean; problem: string | null; taken: boolean };
/** One file of a draft; `text` is null for a file that is not text. */
export type DraftFile = { path: string; text: string | null; size: number };
/** The stored skill changed since the draft began: its revision now and what changed. */
export type DraftStale = { current: number | null; diff: Array<FileDiff> };
/** A draft: its files, the revision it began from (`base`), and whether it differs from it. */
export type DraftView = {
  scope: Scope; name: string; base: number | null; files: Array<DraftFile>; changed: boolean;
  stale: DraftStale | null; at: string;
};
/** A draft left from an earlier session. */
export type DraftRow = { scope: Scope; name: string; base: number | null; at: string };
/** One problem of a draft's file, on a 1-based line when it has one, with a fix when there is one. */
export type LineNote = {
  path: string; line: number | null; severity: "error" | "warning" | "info"; code: string;
  message: string; fix: string | null; fixLabel: string | null;
};
/** The listing line an agent would show for the draft; `cut` when it is shortened at `limit`. */
export type AgentLine = { agent: string; label: string; line: string; cut: boolean; limit: number | null; unit: string };
/** What checking a draft finds. */
export type DraftCheck = { notes: Array<LineNote>; held: boolean; agents: Array<AgentLine>; changed: Array<FileDiff> };
/** What `draft_save` stored. */
export type Saved = { revision: number; unchanged: boolean };

/** The authoring commands: their arguments (JSON keys) and results. */
export interface AuthoringCommands {
  skill_templates: { args: Record<string, never>; result: Array<SkillTemplate> };
  skill_name_check: { args: { name: string }; result: NameCheck };
  skill_new: { args: { name: string; description: string | null; template: string | null }; result: DraftView };
  draft_open: { args: { scope: Scope; name: string }; result: DraftView };
  drafts_open: { args: Record<string, never>; result: Array<DraftRow> };
  draft_write: { args: { scope: Scope; name: string; path: string; text: string }; result: null };
  draft_add_file: { args: { scope: Scope; name: string; path: string; base64: string }; result: null };
  draft_remove: { args: { scope: Scope; name: string; path: string }; result: null };
  draft_move: { args: { scope: Scope; name: string; from: string; to: string }; result: null };
  draft_check: { args: { scope: Scope; name: string }; result: DraftCheck };
  draft_fix: { args: { scope: Scope; name: string; fix: string }; result: DraftView };
  draft_save: { args: { scope: Scope; name: string; force: boolean }; result: Saved };
  draft_discard: { args: { scope: Scope; name: string }; result: null };
  draft_open_in_editor: { args: { scope: Scope; name: string; path: string }; result: null };
  revision_diff: { args: { scope: Scope; name: string; from: number | null; to: number | null }; result: Array<FileDiff> };
}

export type AuthoringName = keyof AuthoringCommands;
export type AuthoringArgs<K extends AuthoringName> = {} extends AuthoringCommands[K]["args"]
  ? [args?: AuthoringCommands[K]["args"]]
  : [args: AuthoringCommands[K]["args"]];
/** `invoke` typed by the authoring map. */
export type AuthoringInvoke = <K extends AuthoringName>(cmd: K, ...args: AuthoringArgs<K>) => Promise<AuthoringCommands[K]["result"]>;
