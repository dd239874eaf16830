// Translations: both languages have every key, and what shows when one is missing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { STRING_KEYS, errorText, formatDate, language, setLanguage, t } from "../../ui/i18n.js";
import { SETTINGS_KEYS, st, stErr } from "../../ui/settings_i18n.js";
import { diagFix, diagMessage, translated } from "../../ui/diag_i18n.js";
import { findingTitle, findingTranslated, findingWhy } from "../../ui/audit_i18n.js";
import { size } from "../../ui/dom.js";

const missing = (a, b) => a.filter((k) => !b.includes(k));

test("the main strings: Chinese and English have the same keys", () => {
  assert.deepEqual(missing(STRING_KEYS.en, STRING_KEYS.zh), [], "English keys with no Chinese");
  assert.deepEqual(missing(STRING_KEYS.zh, STRING_KEYS.en), [], "Chinese keys with no English");
});

test("the Settings strings: Chinese and English have the same keys", () => {
  assert.deepEqual(missing(SETTINGS_KEYS.en, SETTINGS_KEYS.zh), []);
  assert.deepEqual(missing(SETTINGS_KEYS.zh, SETTINGS_KEYS.en), []);
});

test("t: the current language, an unknown key as itself, templates with their arguments", () => {
  setLanguage("en");
  assert.equal(language(), "en");
  assert.equal(t("invalid", 1), "1 error");
  assert.equal(t("invalid", 3), "3 errors");
  assert.equal(t("no-such-key"), "no-such-key");
  setLanguage("zh");
  assert.notEqual(t("invalid", 3), "3 errors", "Chinese has its own text");
  assert.equal(t("no-such-key"), "no-such-key");
  setLanguage("fr");
  assert.equal(language(), "en", "a language with no table falls back to English");
});

test("errorText: Chinese from the code's template, else the backend's English message", () => {
  const err = { code: "source_not_found", message: "/x does not exist", args: { path: "/x" } };
  setLanguage("en");
  assert.equal(errorText(err), "/x does not exist");
  setLanguage("zh");
  assert.equal(errorText(err), "/x 不存在");
  assert.equal(errorText({ code: "a_code_not_translated", message: "In English" }), "In English");
  // A template that needs an argument the error lacks gives way to the English message.
  assert.equal(errorText({ code: "name_invalid", message: "bad name", args: {} }), "bad name");
  assert.equal(errorText("plain"), "plain");
  assert.equal(errorText(null), "null");
  setLanguage("en");
});

test("st and stErr: Settings strings and errors, with the English detail under the Chinese", () => {
  setLanguage("zh");
  assert.equal(stErr({ code: "remote_busy", message: "503" }), "存储服务器繁忙，请稍后再试：\n503");
  assert.equal(stErr({ code: "source_not_found", message: "m", args: { path: "/p" } }), "/p 不存在", "codes of the main table");
  assert.equal(st("no-such-key"), "no-such-key");
  setLanguage("en");
  assert.equal(stErr({ code: "remote_busy", message: "503" }), "503");
});

test("diagnostics: Chinese from code and args, English as sent, a new code never blank", () => {
  const d = { code: "skill_md_missing", message: "no SKILL.md", fix: "Add one.", args: {} };
  setLanguage("en");
  assert.equal(diagMessage(d), "no SKILL.md");
  assert.equal(diagFix(d), "Add one.");
  assert.equal(translated(d), false);
  setLanguage("zh");
  assert.equal(diagMessage(d), "技能文件夹中没有 SKILL.md");
  assert.equal(translated(d), true);
  const unknown = { code: "a_future_code", message: "new problem", fix: "new fix", args: {} };
  assert.equal(diagMessage(unknown), "new problem");
  assert.equal(diagFix(unknown), "new fix");
  assert.equal(translated(unknown), false);
  setLanguage("en");
});

test("audit findings: a rule with a Chinese entry is translated, others keep the English", () => {
  const f = { rule: "no-such-rule", title: "Title", why: "Why" };
  setLanguage("zh");
  assert.equal(findingTitle(f), "Title");
  assert.equal(findingWhy(f), "Why");
  assert.equal(findingTranslated(f), false);
  assert.equal(findingTitle({ rule: "toString", title: "T", why: "W" }), "T", "no prototype key is a rule");
  const bidi = { rule: "hidden.bidi", title: "Bidirectional control characters", why: "English why" };
  assert.equal(findingTitle(bidi), "双向控制字符", "from i18n/audit_rules.zh.json");
  assert.ok(findingTranslated(bidi));
  setLanguage("en");
  assert.equal(findingTitle(bidi), "Bidirectional control characters");
});

test("size: bytes, KiB and MiB", () => {
  assert.equal(size(0), "0 B");
  assert.equal(size(1023), "1023 B");
  assert.equal(size(1024), "1.0 KiB");
  assert.equal(size(1536), "1.5 KiB");
  assert.equal(size(5 * 1024 * 1024), "5.0 MiB");
});

test("formatDate: a date in the current language; what is not a date comes back as it was", () => {
  setLanguage("en");
  assert.equal(formatDate("not a date"), "not a date");
  assert.match(formatDate("2026-01-02T03:04:05Z"), /2026/);
  setLanguage("zh");
  assert.match(formatDate("2026-01-02T03:04:05Z"), /2026年/);
  setLanguage("en");
});
