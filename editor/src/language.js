// Which language a skill's file is edited as, from its path (and first line, for a script
// with no extension). Pure, with no CodeMirror import: ui-tests imports it under Node.

/**
 * The language of a file at `path` whose first line is `firstLine`: SKILL.md and other
 * Markdown as "markdown" (its YAML frontmatter highlighted as YAML), "yaml", "python",
 * "shell" (by extension or a `#!` line naming sh or bash), "javascript", "typescript", else
 * "text".
 * @param {string} path
 * @param {string} [firstLine]
 * @returns {"markdown" | "yaml" | "python" | "shell" | "javascript" | "typescript" | "text"}
 */
export function languageOf(path, firstLine = "") {
  const base = (path.split("/").pop() || "").toLowerCase();
  const dot = base.lastIndexOf(".");
  const ext = dot > 0 ? base.slice(dot + 1) : "";
  if (ext === "md" || ext === "markdown") return "markdown";
  if (ext === "yaml" || ext === "yml") return "yaml";
  if (ext === "py" || ext === "pyw") return "python";
  if (ext === "sh" || ext === "bash") return "shell";
  if (ext === "js" || ext === "mjs" || ext === "cjs" || ext === "jsx") return "javascript";
  if (ext === "ts" || ext === "mts" || ext === "cts" || ext === "tsx") return "typescript";
  // A script without a known extension: its interpreter line says what it is.
  const shebang = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(firstLine);
  if (shebang) {
    const prog = (shebang[1].endsWith("/env") ? shebang[2] || "" : shebang[1]).split("/").pop();
    if (/^(sh|bash|dash|zsh|ksh)$/.test(prog)) return "shell";
    if (/^python[0-9.]*$/.test(prog)) return "python";
    if (/^(node|deno|bun)$/.test(prog)) return "javascript";
  }
  return "text";
}
