// @ts-check
// The body of the viewer for one file, the same for a current file and one kept in history:
// SKILL.md's frontmatter as a table (nested values indented), Markdown as the backend's
// sanitized HTML, other text in monospace, images inlined, binaries by type and size.

import { el, size } from "./dom.js";
import { t } from "./i18n.js";

/** The frontmatter rows (`{key, value, depth}`) as a table; nested entries are indented. */
function frontmatterTable(rows) {
  const table = el("table", { class: "frontmatter" });
  rows.forEach((f, i) => {
    const parent = i + 1 < rows.length && rows[i + 1].depth > f.depth;
    table.append(el("tr", { class: [f.depth ? "nested" : "", parent ? "group" : ""].join(" ").trim() || null },
      el("th", { text: f.key, style: f.depth ? `padding-left: ${f.depth * 1.1}rem` : null }),
      el("td", { text: f.value })));
  });
  return table;
}

/** The elements showing `view`, a `FileView` from `read_skill_file` or `read_revision_file`. */
export function fileBody(view, path) {
  if (view.kind === "markdown") {
    const out = [];
    if (view.frontmatter.length) out.push(frontmatterTable(view.frontmatter));
    const body = el("article", { class: "markdown" });
    body.innerHTML = view.html; // sanitized by the backend (ammonia)
    out.push(body);
    return out;
  }
  if (view.kind === "text") return [el("pre", { class: "code", text: view.text })];
  if (view.kind === "image") {
    return [el("figure", { class: "image-view" },
      el("img", { src: view.dataUrl, alt: path || "" }),
      el("figcaption", { class: "meta", text: `${view.mime}, ${size(view.size)}` }))];
  }
  return [el("p", { class: "binary", text: t("binary", view.kindName, size(view.size)) })];
}
