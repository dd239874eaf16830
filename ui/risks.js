// @ts-check
// The audit's findings as the import previews and the skill view's Risks panel show them: counts
// by severity, and each finding with its rule, file:line, evidence, hidden text and why (title and
// why in the current language, the English in a tooltip when translated: audit_i18n.js).
// Every piece comes from the backend already made safe and goes in as text, never as HTML.

import { el } from "./dom.js";
import { t } from "./i18n.js";
import { findingTitle, findingTranslated, findingWhy } from "./audit_i18n.js";

/** The levels, most serious first. */
const LEVELS = ["critical", "high", "medium", "low", "info"];

/** Rank of a level: critical 4 … info 0. */
const rank = (level) => 4 - LEVELS.indexOf(level);

/** How many findings of each level. */
function countsOf(findings) {
  const n = Object.fromEntries(LEVELS.map((l) => [l, 0]));
  for (const f of findings) n[f.severity] += 1;
  return n;
}

/** "1 critical, 2 high" in the current language: the levels present, most serious first. */
export function countsText(findings) {
  const n = countsOf(findings);
  return LEVELS.filter((l) => n[l]).map((l) => t("sevCount", n[l], t(`sev_${l}`))).join(t("listSep"));
}

/** The findings an approval would newly cover: medium or above, not approved yet. */
export function toApprove(audit) {
  return audit.findings.filter((f) => rank(f.severity) >= rank("medium") && !f.approved);
}

/** One chip per level, the empty ones faded: the counts at a glance. */
function countChips(findings) {
  const n = countsOf(findings);
  return el("div", { class: "risk-counts", role: "list", "aria-label": t("riskCountsLabel") },
    ...LEVELS.map((l) => el("span", {
      role: "listitem",
      class: `sev-chip sev-${l}${n[l] ? "" : " zero"}`,
      dataset: { level: l, count: String(n[l]) },
      text: t("sevCount", n[l], t(`sev_${l}`)),
    })));
}

/**
 * One finding. With `jump(file, line)`, its place is a button that shows that line of the file
 * (keyboard reachable like any button).
 */
function findingItem(f, jump) {
  const place = f.line ? `${f.file}:${f.line}` : f.file;
  const where = jump
    ? el("button", {
      type: "button", class: "link finding-place", text: place,
      title: t("showFinding", f.file, f.line), "aria-label": t("showFinding", f.file, f.line),
      onclick: () => jump(f.file, f.line),
    })
    : el("span", { class: "finding-place", text: place });
  return el("li", {
    class: `finding sev-${f.severity}${f.approved ? " approved" : ""}${f.holds ? " holds" : ""}`,
    dataset: { rule: f.rule, file: f.file, ...(f.line ? { line: String(f.line) } : {}) },
  },
  el("div", { class: "finding-head" },
    el("span", { class: `sev-chip sev-${f.severity}`, text: t(`sev_${f.severity}`) }),
    el("strong", { class: "finding-title", text: findingTitle(f), title: findingTranslated(f) ? f.title : null }),
    f.approved ? el("span", { class: "marker muted", text: `✓ ${t("findingApproved")}` }) : null,
    f.holds ? el("span", { class: "marker held", text: t("findingHolds") }) : null,
  ),
  el("div", { class: "finding-meta" }, el("code", { class: "finding-rule", text: f.rule }), " · ", where),
  el("pre", { class: "finding-evidence", "aria-label": t("evidenceLabel"), text: f.evidence }),
  f.hidden ? el("div", { class: "finding-hidden" },
    el("span", { class: "label", text: `${t("hiddenText")}: ` }),
    el("code", { text: f.hidden })) : null,
  el("p", { class: "finding-why", text: findingWhy(f), title: findingTranslated(f) ? f.why : null }));
}

/** The list of `findings`, each with its jump when `jump` is given. */
function findingList(findings, id, jump) {
  return el("ul", { class: "findings", id }, ...findings.map((f) => findingItem(f, jump)));
}

/** What the hold means for a skill about to be imported (`audit` from a preview). */
function previewNote(audit) {
  const level = audit.hold ? t(`sev_${audit.hold}`) : null;
  if (audit.held) return el("p", { class: "warn held-note", text: t("willBeHeld", level) });
  if (!level) return el("p", { class: "hint", text: t("holdOff") });
  return el("p", { class: "hint", text: t("notHeldNote", level) });
}

/**
 * The audit in an import preview: a summary with the counts, whether the skill will be held,
 * and the findings behind a disclosure (open when they would hold it). `id` names the box.
 */
export function previewFindings(audit, id) {
  if (!audit.findings.length) return el("p", { class: "ok audit-clean", id, text: t("auditClean") });
  return el("div", { class: `audit-box${audit.held ? " held" : ""}`, id },
    el("strong", { text: t("findingsSummary", audit.findings.length) }),
    countChips(audit.findings),
    previewNote(audit),
    el("details", { class: "findings-details", open: audit.held },
      el("summary", { text: t("showFindings", countsText(audit.findings)) }),
      findingList(audit.findings, `${id}-list`, null)));
}

/** The audit in one row of a collection's preview: a marker and the findings folded. */
export function itemFindings(audit) {
  if (!audit.findings.length) return [null, null];
  const marker = audit.held
    ? el("span", { class: "marker held", title: t("willBeHeld", t(`sev_${audit.hold}`)), text: `⛔ ${t("held")}` })
    : el("span", { class: "marker warn", title: countsText(audit.findings), text: t("findingsN", audit.findings.length) });
  const list = el("details", { class: "findings-details item-findings" },
    el("summary", { text: t("showFindings", countsText(audit.findings)) }),
    audit.held ? el("p", { class: "warn held-note", text: t("willBeHeld", t(`sev_${audit.hold}`)) }) : null,
    findingList(audit.findings, null, null));
  return [marker, list];
}

/** What the panel says of the skill's state. */
function panelState(audit) {
  if (audit.held) return t("heldState");
  if (toApprove(audit).length) return t("notHeldOpen", audit.hold ? t(`sev_${audit.hold}`) : t("sev_high"));
  if (audit.findings.some((f) => f.approved)) return t("findingsAllApproved");
  return t("findingsMinor");
}

/**
 * The skill view's Risks panel for skill `d` (a `skill_detail` answer): counts, what holds it,
 * every finding with a jump to its line (`jump(file, line)`), and, when something is left to
 * approve, a button saying exactly what it approves (`approve(d, findings)` asks first).
 */
export function risksPanel(d, jump, approve, withdraw) {
  const audit = d.audit;
  if (!audit.findings.length) return null;
  const pending = toApprove(audit);
  const box = el("section", { id: "risks", class: `risks-box${audit.held ? " held" : ""}`, "aria-labelledby": "risks-title" },
    el("h3", { id: "risks-title" }, t("risks"), audit.held ? el("span", { class: "marker held", text: `⛔ ${t("held")}` }) : null),
    countChips(audit.findings),
    el("p", { id: "risks-state", class: audit.held ? "warn" : "hint", text: panelState(audit) }),
  );
  if (pending.length) {
    const label = t("approveFindings", pending.length, countsText(pending), revisionOf(d));
    box.append(el("button", {
      type: "button", id: "approve-findings", class: "primary", text: label,
      dataset: { count: String(pending.length) }, onclick: () => approve(d, pending),
    }));
  }
  // An approval can be taken back, as `skilldeck untrust` does: the skill is held again.
  if (!audit.held && audit.findings.some((f) => f.approved) && withdraw) {
    box.append(el("button", { type: "button", id: "withdraw-approval", text: t("withdrawApproval"), onclick: () => withdraw(d) }));
  }
  box.append(findingList(audit.findings, "risk-list", jump));
  return box;
}

/** How the panel names the revision approved: `v:N`, else the content digest. */
export function revisionOf(d) {
  return d.revision ? `v:${d.revision}` : d.version ? `v:${d.version}` : d.digest;
}
