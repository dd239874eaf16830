//! Diagnostics: the typed problems that parsing and validating a skill can report.
//! Holds the stable codes and their plain-language fixes; not the rules that raise them.

pub use crate::diag_args::DiagArgs;
use serde::ser::SerializeStruct as _;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// How bad a problem is. An `Error` makes a skill invalid; a `Warning` does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The skill is invalid: kept and shown, never listed to a model.
    Error,
    /// The skill still works; something is worth fixing.
    Warning,
}

/// A stable, snake_case identifier for each kind of problem. UIs and scripts switch on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum DiagCode {
    /// The skill folder has no `SKILL.md`.
    SkillMdMissing,
    /// `SKILL.md` is not valid UTF-8 text.
    SkillMdNotUtf8,
    /// The file was named `skill.md` (another case); it is stored as `SKILL.md`.
    SkillMdRenamed,
    /// `SKILL.md` is a symbolic link, a named pipe, a device or a folder, not a regular file.
    SkillMdNotRegular,
    /// `SKILL.md` is larger than one file of a skill may be.
    SkillMdTooLarge,
    /// The skill's folder could not be read (permissions, a vanished file).
    SkillUnreadable,
    /// `SKILL.md` does not start with a `---` line.
    FrontmatterMissing,
    /// The opening `---` has no closing `---`.
    FrontmatterUnclosed,
    /// The frontmatter's fences are not as the spec writes them (indented, or text after the
    /// closing `---`); read as meant, with a warning saying what was assumed.
    FrontmatterRecovered,
    /// The frontmatter is larger than the parser accepts.
    FrontmatterTooLarge,
    /// The frontmatter nests lists and mappings deeper than the parser accepts.
    YamlTooDeep,
    /// The frontmatter's aliases (`*name`) would expand to more values than the parser accepts.
    YamlTooManyAliases,
    /// The frontmatter is not valid YAML (or is built to exhaust the parser).
    YamlInvalid,
    /// The frontmatter is YAML, but not a mapping of fields.
    YamlNotMapping,
    /// A value with an unquoted `: ` (or a leading YAML indicator) was read as a quoted string.
    YamlRecovered,
    /// No `name` field.
    NameMissing,
    /// `name` breaks the character rules.
    NameInvalid,
    /// `name` is longer than 64 characters.
    NameTooLong,
    /// `name` differs from the folder's name.
    NameDirMismatch,
    /// No `description` field, or an empty one.
    DescriptionMissing,
    /// `description` is longer than 1,024 characters.
    DescriptionTooLong,
    /// `description` (or `description_zh`) holds a control character (ESC, BEL, a C1 control…)
    /// that a terminal would act on: an error in strict mode, a warning otherwise; every screen
    /// shows it escaped.
    DescriptionControlChars,
    /// `description` looks Chinese; it should be English, with Chinese in `description_zh`.
    DescriptionNotEnglish,
    /// `version` is longer than 32 characters.
    VersionTooLong,
    /// `compatibility` is longer than 500 characters.
    CompatibilityTooLong,
    /// `compatibility` is given but empty; the spec wants 1–500 characters (strict mode).
    CompatibilityEmpty,
    /// `compatibility` is a version range this build of Skilldeck does not satisfy.
    CompatibilityUnmet,
    /// An entry of `allowed-tools` is not a tool pattern.
    AllowedToolsInvalid,
    /// `allowed-tools` asks to run any code without asking (`Bash`, `Bash(*)`, an interpreter).
    AllowedToolsBroad,
    /// `allowed-tools` is a YAML list; the spec wants one space-separated string (strict mode).
    AllowedToolsNotPortable,
    /// `min_tier` is neither `lite` nor `ultra`.
    MinTierInvalid,
    /// A field has the wrong YAML type (a list where text belongs, …).
    FieldTypeInvalid,
    /// A field outside the format; kept, and an error only in strict mode. A field some agent
    /// reads is named with those agents (`read_by`) rather than called unknown.
    FieldUnknown,
    /// A field the agent named by `validate --for` does not read (`agent`), so it has no effect
    /// there; a warning.
    FieldIgnored,
    /// A field an agent reads holds a value that agent does not accept (`context: spawn`, an
    /// unknown `model`, `hooks` of the wrong shape); an error under `validate --for` that agent,
    /// a warning otherwise.
    FieldValueInvalid,
    /// `metadata.aibuddy.dependencies` is not lists of package names.
    DependenciesInvalid,
    /// A `metadata` value is not text (a nested mapping, a list, a number, true/false); the spec
    /// wants a map from text to text (strict mode).
    MetadataNotPortable,
    /// The Markdown body after the frontmatter is empty.
    BodyEmpty,
}

impl DiagCode {
    /// The code as it appears in JSON and in the UI.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SkillMdMissing => "skill_md_missing",
            Self::SkillMdNotUtf8 => "skill_md_not_utf8",
            Self::SkillMdRenamed => "skill_md_renamed",
            Self::SkillMdNotRegular => "skill_md_not_regular",
            Self::SkillMdTooLarge => "skill_md_too_large",
            Self::SkillUnreadable => "skill_unreadable",
            Self::FrontmatterMissing => "frontmatter_missing",
            Self::FrontmatterUnclosed => "frontmatter_unclosed",
            Self::FrontmatterRecovered => "frontmatter_recovered",
            Self::FrontmatterTooLarge => "frontmatter_too_large",
            Self::YamlTooDeep => "yaml_too_deep",
            Self::YamlTooManyAliases => "yaml_too_many_aliases",
            Self::YamlInvalid => "yaml_invalid",
            Self::YamlNotMapping => "yaml_not_mapping",
            Self::YamlRecovered => "yaml_recovered",
            Self::NameMissing => "name_missing",
            Self::NameInvalid => "name_invalid",
            Self::NameTooLong => "name_too_long",
            Self::NameDirMismatch => "name_dir_mismatch",
            Self::DescriptionMissing => "description_missing",
            Self::DescriptionTooLong => "description_too_long",
            Self::DescriptionControlChars => "description_control_chars",
            Self::DescriptionNotEnglish => "description_not_english",
            Self::VersionTooLong => "version_too_long",
            Self::CompatibilityTooLong => "compatibility_too_long",
            Self::CompatibilityEmpty => "compatibility_empty",
            Self::CompatibilityUnmet => "compatibility_unmet",
            Self::AllowedToolsInvalid => "allowed_tools_invalid",
            Self::AllowedToolsBroad => "allowed_tools_broad",
            Self::AllowedToolsNotPortable => "allowed_tools_not_portable",
            Self::MinTierInvalid => "min_tier_invalid",
            Self::FieldTypeInvalid => "field_type_invalid",
            Self::FieldUnknown => "field_unknown",
            Self::FieldIgnored => "field_ignored",
            Self::FieldValueInvalid => "field_value_invalid",
            Self::DependenciesInvalid => "dependencies_invalid",
            Self::MetadataNotPortable => "metadata_not_portable",
            Self::BodyEmpty => "body_empty",
        }
    }

    /// A plain-language fix for the problem, for people reading the diagnostic.
    pub fn fix(self) -> &'static str {
        match self {
            Self::SkillMdMissing => "Add a SKILL.md file at the top of the skill folder.",
            Self::SkillMdNotUtf8 => "Save SKILL.md as UTF-8 text.",
            Self::SkillMdRenamed => "Rename the file to SKILL.md in your copy too, so every agent finds it.",
            Self::SkillMdNotRegular => {
                "Replace SKILL.md with a regular file (copy the text in; links and pipes are never read)."
            }
            Self::SkillMdTooLarge => "Shorten SKILL.md; move long material into references/.",
            Self::SkillUnreadable => "Check the folder's permissions, then reload.",
            Self::FrontmatterMissing => {
                "Start SKILL.md with a line `---`, the fields `name:` and `description:`, then another `---`."
            }
            Self::FrontmatterUnclosed => "Add a line `---` after the last frontmatter field.",
            Self::FrontmatterRecovered => {
                "Write the frontmatter fences as lines of exactly `---` at the left margin, with the fields unindented."
            }
            Self::FrontmatterTooLarge => {
                "Keep the frontmatter to a few fields; move long text into the body or references/."
            }
            Self::YamlTooDeep => "Flatten the frontmatter: nest lists and mappings only a few levels deep.",
            Self::YamlTooManyAliases => "Write the values out instead of repeating them with `&anchor` and `*alias`.",
            Self::YamlInvalid => {
                "Fix the YAML at the given line; put values with `: `, `#`, `*` or `&` in double quotes."
            }
            Self::YamlNotMapping => "Write the frontmatter as `field: value` lines.",
            Self::YamlRecovered => "Put the value in double quotes so every YAML parser reads it the same way.",
            Self::NameMissing => "Add `name: <folder-name>` to the frontmatter.",
            Self::NameInvalid => {
                "Use only lowercase letters, digits and single hyphens, not at the start or end (e.g. `pdf-tools`)."
            }
            Self::NameTooLong => "Shorten the name to 64 characters or fewer.",
            Self::NameDirMismatch => "Make `name` and the folder's name the same.",
            Self::DescriptionMissing => "Add `description:` saying what the skill does and when to use it.",
            Self::DescriptionTooLong => "Shorten the description to 1,024 characters or fewer.",
            Self::DescriptionControlChars => {
                "Remove the control character: a description is plain text (in a double-quoted value, escapes \
                 such as `\\e`, `\\a` or `\\x1b` write one)."
            }
            Self::DescriptionNotEnglish => {
                "Write `description` in English and put the Chinese text in `description_zh`."
            }
            Self::VersionTooLong => "Shorten `version` to 32 characters or fewer (e.g. `1.2.0`).",
            Self::CompatibilityTooLong => "Shorten `compatibility` to 500 characters or fewer.",
            Self::CompatibilityEmpty => "Say what the skill needs in `compatibility`, or remove the field.",
            Self::CompatibilityUnmet => "Update Skilldeck, or widen the skill's `compatibility` range.",
            Self::AllowedToolsInvalid => {
                "List tools separated by spaces, each `Tool` or `Tool(pattern)`, e.g. `Bash(git:*) Read`."
            }
            Self::AllowedToolsBroad => {
                "Ask for the exact commands the skill needs, e.g. `Bash(git diff:*)`, so people can approve it safely."
            }
            Self::AllowedToolsNotPortable => {
                "Write `allowed-tools` as one line of space-separated tools, e.g. `allowed-tools: Bash(git:*) Read`."
            }
            Self::MinTierInvalid => "Set `min_tier` to `lite` or `ultra`, or remove it.",
            Self::FieldTypeInvalid => "Give the field the type the format expects (text, list or mapping).",
            Self::FieldUnknown => "Move the field under `metadata:`, or remove it.",
            Self::FieldIgnored => {
                "Remove the field if the skill is only for this agent, or keep it for the agents that read it."
            }
            Self::FieldValueInvalid => "Give the field a value the agent accepts (see the source cited), or remove it.",
            Self::DependenciesInvalid => {
                "Write `metadata.aibuddy.dependencies.python` and `.node` as lists of package names."
            }
            Self::MetadataNotPortable => {
                "Give every `metadata` key a text value (quote numbers and true/false); other agents read nothing else."
            }
            Self::BodyEmpty => "Write the skill's instructions below the frontmatter.",
        }
    }
}

impl fmt::Display for DiagCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem found in a skill: `{code, severity, message, line?, args?}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
pub struct Diagnostic {
    /// The stable code.
    pub code: DiagCode,
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong, in words, naming the field and value where that helps.
    pub message: String,
    /// The 1-based line in `SKILL.md`, when one is known.
    pub line: Option<u32>,
    /// The message's facts as data (`{"field": "metadata"}`), so a UI can put them into a
    /// translated template for `code`. Values are names, numbers and stable tokens as written in
    /// the file, never English words. In JSON they hold `line` too ([`Self::args_map`]), and
    /// are left out when there are none.
    #[serde(default)]
    #[ts(optional, as = "Option<BTreeMap<String, String>>")]
    pub args: DiagArgs,
}

impl Diagnostic {
    /// An error with no line.
    pub fn error(code: DiagCode, message: impl Into<String>) -> Self {
        Self { code, severity: Severity::Error, message: message.into(), line: None, args: DiagArgs::new() }
    }

    /// A warning with no line.
    pub fn warning(code: DiagCode, message: impl Into<String>) -> Self {
        Self { code, severity: Severity::Warning, message: message.into(), line: None, args: DiagArgs::new() }
    }

    /// The same diagnostic placed at a line (which is also its `line` argument in JSON).
    pub fn at(mut self, line: Option<u32>) -> Self {
        self.line = line;
        self
    }

    /// The same diagnostic with one more argument for a translated template.
    pub fn arg(mut self, name: &'static str, value: impl fmt::Display) -> Self {
        self.args.set(name, value.to_string());
        self
    }

    /// The arguments as a translated template gets them: `args` and, when known, `line`.
    pub fn args_map(&self) -> BTreeMap<String, String> {
        let mut map: BTreeMap<String, String> = self.args.iter().map(|(k, v)| (k.to_owned(), v.to_owned())).collect();
        if let Some(line) = self.line {
            map.insert("line".to_owned(), line.to_string());
        }
        map
    }

    /// Whether this diagnostic makes the skill invalid.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl Serialize for Diagnostic {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let args = self.args_map();
        let mut st = s.serialize_struct("Diagnostic", if args.is_empty() { 4 } else { 5 })?;
        st.serialize_field("code", &self.code)?;
        st.serialize_field("severity", &self.severity)?;
        st.serialize_field("message", &self.message)?;
        st.serialize_field("line", &self.line)?;
        if args.is_empty() {
            st.skip_field("args")?;
        } else {
            st.serialize_field("args", &args)?;
        }
        st.end()
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        match self.line {
            Some(line) => write!(f, "{level}[{}] line {line}: {}", self.code, self.message),
            None => write!(f, "{level}[{}]: {}", self.code, self.message),
        }
    }
}
