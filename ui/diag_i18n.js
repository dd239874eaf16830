// @ts-check
// Diagnostics in the reader's language. The backend sends each problem with a stable `code`,
// its `args` (field, value, limit, …) and the English `message` and `fix`; English shows those
// as they are, Chinese builds its text from the code and the args. A code missing here falls
// back to the English text, so a new code never shows blank.

import { language } from "./i18n.js";

/** `field` as shown inside a message. */
const f = (a, fallback = "字段") => (a.field ? `\`${a.field}\`` : fallback);
/** Agent ids (`claude-code,copilot`) as names. */
const AGENT_NAMES = { "claude-code": "Claude Code", codex: "Codex", gemini: "Gemini CLI", copilot: "GitHub Copilot", cursor: "Cursor" };
const agentNames = (ids = "") => ids.split(",").filter(Boolean).map((id) => AGENT_NAMES[id] || id).join("、");
/** " (第 N 行)" when the problem has a line. */
const at = (a) => (a.line ? `（第 ${a.line} 行）` : "");

const MESSAGES_ZH = {
  skill_md_missing: () => "技能文件夹中没有 SKILL.md",
  skill_md_not_utf8: (a) => `SKILL.md 不是 UTF-8 文本${a.offset ? `（第 ${a.offset} 字节起）` : ""}`,
  skill_md_renamed: () => "文件名不是 SKILL.md；规范要求 SKILL.md，因此保存为 SKILL.md",
  skill_md_not_regular: () => "SKILL.md 不是普通文件",
  skill_md_too_large: () => "SKILL.md 太大",
  skill_unreadable: () => "无法读取该技能",
  frontmatter_missing: () => "SKILL.md 开头没有 frontmatter（以 `---` 开始的字段块）",
  frontmatter_unclosed: (a) => a.heading_line
    ? `frontmatter 没有在字段之后结束，一直延续到第 ${a.heading_line} 行的正文${a.last_field_line ? `；最后一个字段在第 ${a.last_field_line} 行` : ""}`
    : `frontmatter 没有结束的 \`---\` 行${a.last_field_line ? `；最后一个字段在第 ${a.last_field_line} 行` : ""}`,
  frontmatter_recovered: () => "frontmatter 的格式不标准，已按推测读取",
  frontmatter_too_large: (a) => `frontmatter 太大${a.bytes ? `（${a.bytes} 字节，上限 ${a.limit}）` : ""}`,
  yaml_too_deep: () => "frontmatter 嵌套太深",
  yaml_too_many_aliases: () => "frontmatter 中的 YAML 别名太多",
  yaml_invalid: (a) => `frontmatter 不是有效的 YAML${at(a)}${a.field ? `，在 ${f(a)} 处` : ""}`,
  yaml_not_mapping: () => "frontmatter 不是 `字段: 值` 的形式",
  yaml_recovered: (a) => `${f(a, "某个值")} 的写法会被 YAML 误读，已按文本读取`,
  name_missing: () => "缺少 `name`",
  name_invalid: (a) => `\`name\`${a.value ? ` "${a.value}"` : ""} 不是有效的技能名：${NAME_REASONS_ZH[a.reason] || "只能用小写字母、数字和连字符"}${a.char ? `（"${a.char}"）` : ""}`,
  name_too_long: (a) => `\`name\` 太长${a.length ? `（${a.length} 个字符，上限 ${a.limit}）` : ""}`,
  name_dir_mismatch: (a) => `\`name\`${a.value ? ` "${a.value}"` : ""} 与文件夹名${a.folder ? ` "${a.folder}"` : ""}不一致`,
  description_missing: () => "缺少 `description`",
  description_too_long: (a) => `\`description\` 太长${a.length ? `（${a.length} 个字符，上限 ${a.limit}）` : ""}`,
  description_not_english: () => "`description` 不是英文；中文请写在 `description_zh` 中",
  description_control_chars: (a) => `${f(a, "`description`")} 含有控制字符${a.char ? ` ${a.char}` : ""}${a.position ? `（值的第 ${a.position} 个字符）` : ""}；终端会执行它（移动光标、写入剪贴板）而不是显示它`,
  version_too_long: () => "`version` 太长",
  compatibility_too_long: (a) => `\`compatibility\` 太长${a.length ? `（${a.length} 个字符，上限 ${a.limit}）` : ""}`,
  compatibility_empty: () => "`compatibility` 为空",
  compatibility_unmet: (a) => `此技能要求 Skilldeck ${a.range || ""}，当前版本是 ${a.app_version || "?"}`,
  allowed_tools_invalid: () => "`allowed-tools` 无法读取",
  allowed_tools_broad: () => "`allowed-tools` 请求的权限很宽",
  allowed_tools_not_portable: () => "`allowed-tools` 写成了列表；规范要求用空格分隔的字符串",
  min_tier_invalid: () => "`min_tier` 无效",
  field_type_invalid: (a) => `${f(a)} 的类型不对${a.kind ? `：这里是${KINDS_ZH[a.kind] || a.kind}` : ""}${a.expected ? `，应为${KINDS_ZH[a.expected] || a.expected}` : ""}`,
  field_unknown: (a, d) => a.read_by && d.severity === "warning"
    ? `${f(a, "该字段")} 由 ${agentNames(a.read_by)} 读取；Skilldeck 和规范不读取它，会保留`
    : `${f(a, "该字段")} 不是规范中的字段${d.severity === "warning" ? "；会保留，但被忽略" : ""}`,
  field_ignored: (a) => `${a.file ? `${a.file}：` : ""}${agentNames(a.agent)} 不读取 ${f(a, "该字段")}，会忽略它${a.read_by ? `；${agentNames(a.read_by)} 读取它` : ""}`,
  field_value_invalid: (a) => `${a.file ? `${a.file}：` : ""}${f(a)} 的值${a.value ? ` ${a.value}` : ""} 不被 ${agentNames(a.read_by || a.agent)} 接受`,
  dependencies_invalid: () => "依赖声明无效",
  metadata_not_portable: (a) => `${f(a, "`metadata`")} 不是“字符串到字符串”的映射，其他智能体可能不接受`,
  body_empty: () => "SKILL.md 的正文是空的",
};

const NAME_REASONS_ZH = {
  empty: "名称为空",
  bad_char: "只能用小写字母、数字和连字符",
  edge_hyphen: "不能以连字符开头或结尾",
  double_hyphen: "不能连续使用两个连字符",
};

const KINDS_ZH = {
  text: "文本", list: "列表", mapping: "映射", number: "数字", bool: "布尔值", "true/false value": "布尔值",
  null: "空值", "empty value": "空值", tagged: "带标签的值",
};

const FIXES_ZH = {
  skill_md_missing: "在技能文件夹顶层添加 SKILL.md 文件。",
  skill_md_not_utf8: "把 SKILL.md 保存为 UTF-8 文本。",
  skill_md_renamed: "在你自己的副本中也把文件改名为 SKILL.md，让每个智能体都能找到它。",
  skill_md_not_regular: "用普通文件替换 SKILL.md（不要用链接或特殊文件）。",
  skill_md_too_large: "缩短 SKILL.md；把较长的内容移到 references/ 中。",
  skill_unreadable: "检查文件夹权限，然后重新加载。",
  frontmatter_missing: "在文件开头加上 `---`、`name:`、`description:` 和结束的 `---`。",
  frontmatter_unclosed: "在最后一个 frontmatter 字段之后加一行 `---`。",
  frontmatter_recovered: "按标准格式书写 frontmatter：第一行 `---`，字段顶格，最后一行 `---`。",
  frontmatter_too_large: "缩短 frontmatter；把长内容移到正文或 references/ 中。",
  yaml_too_deep: "把 frontmatter 展平：列表和映射只嵌套几层。",
  yaml_too_many_aliases: "直接写出值，不要用 `&anchor` 和 `*alias` 重复。",
  yaml_invalid: "修正该行的 YAML；含有冒号或以 * 开头的文本请加双引号。",
  yaml_not_mapping: "把 frontmatter 写成 `字段: 值` 的形式。",
  yaml_recovered: "给该值加上双引号，让所有 YAML 解析器都读得一样。",
  name_missing: "在 frontmatter 中加上 `name: <文件夹名>`。",
  name_invalid: "名称只用小写字母、数字和连字符，不以连字符开头或结尾，也不连续使用连字符。",
  name_too_long: "把名称缩短到 64 个字符以内。",
  name_dir_mismatch: "让 `name` 与文件夹名相同。",
  description_missing: "加上 `description:`，说明技能做什么、何时使用。",
  description_too_long: "把描述缩短到 1,024 个字符以内。",
  description_not_english: "用英文写 `description`，中文写在 `description_zh` 中。",
  description_control_chars: "删除控制字符：描述是纯文本（双引号值中的 `\\e`、`\\a`、`\\x1b` 等转义会写入控制字符）。",
  version_too_long: "把 `version` 缩短到 32 个字符以内（例如 `1.2.0`）。",
  compatibility_too_long: "把 `compatibility` 缩短到 500 个字符以内。",
  compatibility_empty: "在 `compatibility` 中写明技能需要什么，或删除该字段。",
  compatibility_unmet: "更新 Skilldeck，或放宽技能的 `compatibility` 范围。",
  allowed_tools_invalid: "把 `allowed-tools` 写成用空格分隔的工具模式。",
  allowed_tools_broad: "只请求技能真正需要的命令。",
  allowed_tools_not_portable: "把列表改写为一行用空格分隔的字符串。",
  min_tier_invalid: "把 `min_tier` 设为 `lite` 或 `ultra`，或删除它。",
  field_type_invalid: "按格式要求给字段正确的类型（文本、列表或映射）。",
  field_unknown: "把该字段移到 `metadata:` 下，或删除它。",
  field_ignored: "如果技能只给这个智能体用，删除该字段；否则为读取它的智能体保留。",
  field_value_invalid: "给字段一个该智能体接受的值（见引用的来源），或删除它。",
  dependencies_invalid: "按格式写依赖：技能名的列表。",
  metadata_not_portable: "把 `metadata` 写成“键: 文本值”的平铺映射。",
  body_empty: "在 frontmatter 之后写出技能的说明。",
};

/** The problem `d` in the current language. */
export function diagMessage(d) {
  const zh = language() === "zh" && MESSAGES_ZH[d.code];
  return zh ? zh(d.args || {}, d) : d.message;
}

/** How to fix `d`, in the current language. */
export function diagFix(d) {
  return (language() === "zh" && FIXES_ZH[d.code]) || d.fix || "";
}

/** Whether the message shown is a translation (then the English one goes in a tooltip). */
export function translated(d) {
  return language() === "zh" && Boolean(MESSAGES_ZH[d.code]);
}
