// @ts-check
// The audit's findings in the reader's language. The backend sends each finding with its stable
// `rule` id and the rule's English `title` and `why` (crates/skilldeck-audit/src/rules.rs);
// English shows those as they are, Chinese takes them from the table below by rule id. A rule
// missing here falls back to the English text, so a new rule never shows blank; the audit
// crate's tests (tests/it/rules_zh.rs) fail when a rule in RULES has no entry in the table.

import { language } from "./i18n.js";
import rulesZh from "./i18n/audit_rules.zh.json" with { type: "json" };

/**
 * Each rule's title and why in Chinese, by rule id, in the order of RULES: data in
 * i18n/audit_rules.zh.json, which the audit crate's test reads too.
 * @type {Record<string, { title: string, why: string }>}
 */
const RULES_ZH = rulesZh;

/** The Chinese entry of finding `f`'s rule, when the language is Chinese and there is one. */
const zh = (f) => (language() === "zh" && Object.hasOwn(RULES_ZH, f.rule) ? RULES_ZH[f.rule] : null);

/** The title of finding `f` in the current language. */
export function findingTitle(f) {
  return zh(f)?.title || f.title;
}

/** Why finding `f` matters, in the current language. */
export function findingWhy(f) {
  return zh(f)?.why || f.why;
}

/** Whether the text shown is a translation (then the English one goes in a tooltip). */
export function findingTranslated(f) {
  return Boolean(zh(f));
}
