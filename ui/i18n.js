// UI strings in English and Chinese, and the language in force.

const STRINGS = {
  en: {
    search: "Search skills  ( / or Ctrl+K )",
    import: "Import…",
    listingPreview: "Listing preview",
    importTitle: "Import a skill",
    importHint: "Choose a skill folder or a .zip / .skill archive, or type or paste its path. You can also drop it on the window.",
    importPath: "/path/to/skill-folder or archive.zip",
    browseFolder: "Folder…",
    browseArchive: "Archive…",
    scope: "Scope",
    check: "Check",
    cancel: "Cancel",
    close: "Close",
    importConfirm: "Import",
    delete: "Delete",
    history: "History",
    restore: "Restore",
    userScope: "Your skills",
    systemScope: "Bundled",
    deletedScope: "Deleted — open to restore",
    shadowed: "shadowed",
    shadowedTitle: "A skill of yours with the same name hides this one",
    invalid: (n) => `${n} error${n === 1 ? "" : "s"}`,
    noSkills: "No skills match.",
    pickSkill: "Pick a skill on the left to see its files.",
    problems: "Problems",
    fix: "Fix",
    line: "line",
    files: "Files",
    binary: (kind, size) => `${kind}, ${size} — not shown`,
    willBecome: (v) => `will become v:${v}`,
    newSkill: "new skill",
    valid: "valid",
    invalidSkill: "invalid — it will be kept, but not shown to models until fixed",
    filesSize: (n, size) => `${n} file${n === 1 ? "" : "s"}, ${size}`,
    imported: (name, v) => `Imported ${name} as v:${v}`,
    deleted: (name) => `Deleted ${name}`,
    undo: "Undo",
    restored: (name, v) => `Restored ${name} as v:${v}`,
    confirmDelete: (name) => `Delete ${name}? It stays in its history and can be restored.`,
    listingTitle: "What a model sees",
    tokens: (used, budget, n) => `${used} of ${budget} tokens · ${n} skill${n === 1 ? "" : "s"} listed`,
    shortenedNote: (names) => `Shortened to fit: ${names}`,
    empty: "(no section: no skill is listed)",
    checking: "Reading…",
    importing: "Importing…",
    current: "current",
  },
  zh: {
    search: "搜索技能（/ 或 Ctrl+K）",
    import: "导入…",
    listingPreview: "清单预览",
    importTitle: "导入技能",
    importHint: "选择技能文件夹或 .zip / .skill 压缩包，或输入、粘贴其路径。也可以直接拖到窗口上。",
    importPath: "/技能文件夹路径 或 压缩包.zip",
    browseFolder: "文件夹…",
    browseArchive: "压缩包…",
    scope: "范围",
    check: "检查",
    cancel: "取消",
    close: "关闭",
    importConfirm: "导入",
    delete: "删除",
    history: "历史",
    restore: "恢复",
    userScope: "我的技能",
    systemScope: "内置",
    deletedScope: "已删除——打开以恢复",
    shadowed: "被覆盖",
    shadowedTitle: "你的同名技能覆盖了这一个",
    invalid: (n) => `${n} 个错误`,
    noSkills: "没有匹配的技能。",
    pickSkill: "在左侧选择一个技能查看其文件。",
    problems: "问题",
    fix: "修复",
    line: "行",
    files: "文件",
    binary: (kind, size) => `${kind}，${size}——不显示`,
    willBecome: (v) => `将成为 v:${v}`,
    newSkill: "新技能",
    valid: "有效",
    invalidSkill: "无效——会被保留，但修复前不会提供给模型",
    filesSize: (n, size) => `${n} 个文件，${size}`,
    imported: (name, v) => `已导入 ${name}，版本 v:${v}`,
    deleted: (name) => `已删除 ${name}`,
    undo: "撤销",
    restored: (name, v) => `已恢复 ${name}，版本 v:${v}`,
    confirmDelete: (name) => `删除 ${name}？它会保留在历史中，可以恢复。`,
    listingTitle: "模型看到的内容",
    tokens: (used, budget, n) => `已用 ${used} / ${budget} 词元 · 列出 ${n} 个技能`,
    shortenedNote: (names) => `为适应预算而缩短：${names}`,
    empty: "（无此段落：没有列出的技能）",
    checking: "读取中…",
    importing: "导入中…",
    current: "当前",
  },
};

let lang = localStorage.getItem("skilldeck.lang") || ((navigator.language || "en").toLowerCase().startsWith("zh") ? "zh" : "en");

/** The current language code. */
export function language() {
  return lang;
}

/** Switches the language and remembers it. */
export function setLanguage(code) {
  lang = code in STRINGS ? code : "en";
  localStorage.setItem("skilldeck.lang", lang);
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
}

/** A string (or a string built from `args`) in the current language. */
export function t(key, ...args) {
  const v = STRINGS[lang][key] ?? STRINGS.en[key] ?? key;
  return typeof v === "function" ? v(...args) : v;
}

/** Fills every element marked with data-i18n / data-i18n-placeholder. */
export function translatePage() {
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of document.querySelectorAll("[data-i18n-placeholder]")) el.placeholder = t(el.dataset.i18nPlaceholder);
}
