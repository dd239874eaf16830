// @ts-check
// What changed between two revisions of a skill, for the History: the diff of one revision
// against the one before it, and of any two the user ticked (Compare). Which two is a plain
// function (tested under Node); the diff comes from `revision_diff`.

import { el } from "./dom.js";
import { errorText, t } from "./i18n.js";
import { diffBlock } from "./diff.js";
import { call } from "./authoring_api.js";

/**
 * The revisions to compare from the ticked ones: older as `from`, newer as `to`; null unless
 * exactly two are ticked.
 * @param {Iterable<number>} ticked
 * @returns {{ from: number, to: number } | null}
 */
export function compareRange(ticked) {
  const revs = [...new Set(ticked)].sort((a, b) => a - b);
  return revs.length === 2 ? { from: revs[0], to: revs[1] } : null;
}

/**
 * A block showing what changed in skill `d` from revision `from` (null: the one before `to`) to
 * `to`: a diff per file, or a line saying nothing did (or what went wrong).
 * @param {{ scope: import("./types/bindings").Scope, name: string }} d
 * @param {number | null} from
 * @param {number} to
 */
export async function revisionDiff(d, from, to) {
  const box = el("div", { class: "revision-diff", id: "revision-diff", dataset: { from: from === null ? "" : String(from), to: String(to) } });
  try {
    const diffs = await call("revision_diff", { scope: d.scope, name: d.name, from, to });
    box.append(diffs.length ? el("div", {}, ...diffs.map((x) => diffBlock(x, "revChange_"))) : el("p", { class: "hint", text: t("noRevisionChanges") }));
  } catch (e) {
    box.append(el("p", { class: "error", text: errorText(e) }));
  }
  return box;
}
