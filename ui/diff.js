// @ts-check
// Per-file diffs as the backend gives them ({path, change, unified}): one block per file, its
// lines coloured as added, removed or hunk headers. Used for drifted copies and for updates.

import { el } from "./dom.js";
import { t } from "./i18n.js";

/**
 * The block of one file's diff; a file that is not text says so instead. `labels` is the prefix
 * of the strings naming the change (`added`, `removed`, `modified`).
 */
export function diffBlock(d, labels = "change_") {
  const head = el("h3", {}, el("code", { text: d.path }), el("span", { class: "hint", text: t(`${labels}${d.change}`) }));
  if (!d.unified) return el("div", { class: "diff-file" }, head, el("p", { class: "hint", text: t("binaryChanged") }));
  const lines = d.unified.split("\n").map((line) => el("span", {
    class: line.startsWith("@@") ? "hunk" : line.startsWith("+") && !line.startsWith("+++") ? "add" : line.startsWith("-") && !line.startsWith("---") ? "del" : null,
    text: `${line}\n`,
  }));
  return el("div", { class: "diff-file" }, head, el("pre", { class: "diff" }, ...lines));
}
