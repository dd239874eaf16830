// @ts-check
// The skill view's problems: the list (errors first, warnings folded when there are errors) and
// SKILL.md as stored, line-numbered, with each problem under its line. All text via textContent.

import { el } from "./dom.js";
import { t } from "./i18n.js";
import { diagFix, diagMessage, translated } from "./diag_i18n.js";

/** Skills whose folded warnings the user opened, so a re-render (a watcher event) keeps them open. */
const warningsOpen = new Set();

/** A message with its `code` spans as <code> elements; every piece goes in as text. */
export function withCode(message) {
  const out = [];
  let last = 0;
  for (const m of message.matchAll(/``\s?(.+?)\s?``|`([^`]+)`/g)) {
    if (m.index > last) out.push(message.slice(last, m.index));
    out.push(el("code", { text: m[1] ?? m[2] }));
    last = m.index + m[0].length;
  }
  if (last < message.length) out.push(message.slice(last));
  return out;
}

/** Errors first, then warnings; each group by line (no line last). */
function ordered(diagnostics) {
  const rank = (d) => [d.severity === "error" ? 0 : 1, d.line ?? Number.MAX_SAFE_INTEGER];
  return [...diagnostics].sort((a, b) => {
    const [sa, la] = rank(a);
    const [sb, lb] = rank(b);
    return sa - sb || la - lb;
  });
}

/** One problem; with a line, clicking it (or Enter/Space) calls `jump(line)`. */
function problemItem(p, jump) {
  const canJump = Boolean(p.line);
  const go = () => jump(p.line);
  return el("li", {
    class: `${p.severity}${canJump ? " jump" : ""}`,
    dataset: { code: p.code, ...(canJump ? { line: String(p.line) } : {}) },
    tabindex: canJump ? "0" : null,
    role: canJump ? "button" : null,
    title: canJump ? t("showLine", p.line) : null,
    onclick: canJump ? go : null,
    onkeydown: canJump ? (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); go(); } } : null,
  },
    el("code", { text: p.code }),
    p.line ? el("span", { class: "line", text: `${t("line")} ${p.line}` }) : null,
    el("div", { class: "message", title: translated(p) ? p.message : null }, withCode(diagMessage(p))),
    el("div", { class: "fix" }, `${t("fix")}: `, withCode(diagFix(p))),
  );
}

/**
 * The "Problems" heading and list for the skill `key`'s `diagnostics`; `jump(line)` shows a line
 * in the source. With errors, the warnings sit in a `<details>` (closed until the user opens it)
 * that says how many there are.
 */
export function problemsPanel(key, diagnostics, jump) {
  if (!diagnostics.length) return [];
  const all = ordered(diagnostics);
  const errors = all.filter((p) => p.severity === "error");
  const warnings = all.filter((p) => p.severity !== "error");
  const list = (items, id) => el("ul", { id, class: "diagnostics" }, items.map((p) => problemItem(p, jump)));
  const out = [el("h3", { text: t("problems") })];
  if (!errors.length) {
    out.push(list(warnings, "diagnostics"));
    return out;
  }
  out.push(list(errors, "diagnostics"));
  if (warnings.length) {
    out.push(el("details", {
      id: "warnings",
      class: "warnings",
      open: warningsOpen.has(key),
      ontoggle: (e) => (e.target.open ? warningsOpen.add(key) : warningsOpen.delete(key)),
    },
      el("summary", { text: t("warningsCount", warnings.length) }),
      list(warnings, "warnings-list"),
    ));
  }
  return out;
}

/**
 * SKILL.md as stored, one row per line with its number, and each problem with a line under that
 * line (a problem past the end goes under the last line). Line `picked` is marked.
 */
export function sourceView(source, diagnostics, picked) {
  const lines = source.text.split("\n").map((l) => l.replace(/\r$/, ""));
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  const byLine = new Map();
  for (const p of ordered(diagnostics)) {
    if (!p.line) continue;
    const at = Math.min(p.line, lines.length);
    if (!byLine.has(at)) byLine.set(at, []);
    byLine.get(at).push(p);
  }
  const box = el("div", { id: "source", class: "source" });
  if (source.lossy) box.append(el("p", { class: "hint", text: t("sourceLossy") }));
  lines.forEach((text, i) => {
    const n = i + 1;
    const here = byLine.get(n) || [];
    const worst = here.some((p) => p.severity === "error") ? "error" : here.length ? "warning" : "";
    const cls = ["src-line", worst, n === picked ? "picked" : ""].filter(Boolean).join(" ");
    box.append(el("div", { class: cls, id: `src-line-${n}`, dataset: { line: String(n) } },
      el("span", { class: "ln", text: String(n) }),
      el("span", { class: "src-text", text: text || " " }),
    ));
    for (const p of here) {
      box.append(el("div", { class: `src-note ${p.severity}`, dataset: { line: String(n), code: p.code } },
        el("span", { class: "sev", text: t(p.severity === "error" ? "severityError" : "severityWarning") }),
        el("span", { class: "src-message", title: translated(p) ? p.message : null }, withCode(diagMessage(p))),
      ));
    }
  });
  return box;
}

/** Scrolls the source view to `line` and marks it until another line is picked. */
export function showLine(line) {
  const all = document.querySelectorAll("#source .src-line");
  const target = document.getElementById(`src-line-${line}`) || all[all.length - 1];
  if (!target) return;
  for (const old of document.querySelectorAll("#source .src-line.picked")) old.classList.remove("picked");
  target.classList.add("picked");
  target.scrollIntoView({ block: "center" });
}
