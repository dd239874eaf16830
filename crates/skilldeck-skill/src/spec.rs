//! The agentskills.io specification's frontmatter rules, as data: each rule quotes the spec's
//! words, says where it says them, and names its check and the diagnostic code it raises.
//! Holds the rules and their evaluation; not Skilldeck's own (lenient) field reading.
//!
//! Strict validation (`skilldeck validate --strict`) answers "will every agent accept this
//! skill?": it evaluates every rule of [`RULES`] on the parsed frontmatter. Default validation
//! enforces the rules marked [`SpecRule::everywhere`] through its own field readers (with the
//! same codes), and reads the rest leniently: a nested `metadata` map, a YAML list for
//! `allowed-tools`, fields outside the spec.
//!
//! Source: <https://agentskills.io/specification> (`docs/specification.mdx` of
//! `agentskills/agentskills`, main as of August 2026). A proposal not merged there (March 2026)
//! would let `allowed-tools` be a YAML list of strings too; if it lands, `allowed-tools.string`
//! is the one rule to change.

use crate::diagnostic::{DiagCode, Diagnostic};
use crate::frontmatter::{ParsedYaml, kind_of, kind_token};
use serde_yaml_ng::Value;

/// The longest `description`, in characters.
pub const MAX_DESCRIPTION_LEN: usize = 1024;
/// The longest `compatibility`, in characters.
pub const MAX_COMPATIBILITY_LEN: usize = 500;

/// Skilldeck's own additions to the agentskills.io fields (`FIELDS`), accepted unless strict.
pub const SKILLDECK_FIELDS: &[&str] = &["description_zh", "version", "min_tier"];

/// Where the rules are written.
pub const SPEC_URL: &str = "https://agentskills.io/specification";

/// The frontmatter fields the specification defines, in its order.
pub const FIELDS: &[&str] = &["name", "description", "license", "compatibility", "metadata", "allowed-tools"];

/// What a rule checks. Text checks apply to text values; other kinds are the `Text` rule's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// `SKILL.md` starts with a frontmatter; checked by `frontmatter::split` in every mode.
    Frontmatter,
    /// The field is present and not empty (`name:` with no value is missing).
    Required,
    /// The field, when given, is text (not a number, list or mapping).
    Text,
    /// The text is not empty or only white space.
    NotBlank,
    /// The text has at least this many characters (an empty `compatibility:` counts as 0).
    MinChars(usize),
    /// The text has at most this many characters.
    MaxChars(usize),
    /// Only `a-z`, `0-9` and `-`.
    NameChars,
    /// No `-` at the start or the end.
    NoEdgeHyphen,
    /// No `--`.
    NoDoubleHyphen,
    /// Equal to the skill's folder name.
    MatchesFolder,
    /// A mapping whose keys and values are all text.
    StringMap,
    /// One space-separated string, not a YAML list.
    SpaceSeparated,
    /// No top-level field outside [`FIELDS`].
    KnownFields,
}

/// One rule of the specification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpecRule {
    /// A stable id, `field.rule`.
    pub id: &'static str,
    /// The field the rule is about (`*` for the frontmatter as a whole).
    pub field: &'static str,
    /// The specification's own words for the rule.
    pub says: &'static str,
    /// Where in the specification (an anchor of [`SPEC_URL`]).
    pub cite: &'static str,
    /// What is checked.
    pub check: Check,
    /// The code a violation raises.
    pub code: DiagCode,
    /// Whether default (lenient) validation enforces the rule too, through its field readers.
    pub everywhere: bool,
}

/// The rules, in the specification's order.
pub const RULES: &[SpecRule] = &[
    SpecRule {
        id: "frontmatter.present",
        field: "*",
        says: "The `SKILL.md` file must contain YAML frontmatter followed by Markdown content.",
        cite: "#skill-md-format",
        check: Check::Frontmatter,
        code: DiagCode::FrontmatterMissing,
        everywhere: true,
    },
    SpecRule {
        id: "frontmatter.fields",
        field: "*",
        says: "Frontmatter: `name`, `description`, `license`, `compatibility`, `metadata`, `allowed-tools` \
               (the spec's field table; no other field is defined)",
        cite: "#frontmatter",
        check: Check::KnownFields,
        code: DiagCode::FieldUnknown,
        everywhere: false,
    },
    SpecRule {
        id: "name.required",
        field: "name",
        says: "The required `name` field",
        cite: "#name-field",
        check: Check::Required,
        code: DiagCode::NameMissing,
        everywhere: true,
    },
    SpecRule {
        id: "name.text",
        field: "name",
        says: "Lowercase letters, numbers, and hyphens only.",
        cite: "#frontmatter",
        check: Check::Text,
        code: DiagCode::NameInvalid,
        everywhere: true,
    },
    SpecRule {
        id: "name.min",
        field: "name",
        says: "Must be 1-64 characters",
        cite: "#name-field",
        check: Check::MinChars(1),
        code: DiagCode::NameInvalid,
        everywhere: true,
    },
    SpecRule {
        id: "name.max",
        field: "name",
        says: "Must be 1-64 characters",
        cite: "#name-field",
        check: Check::MaxChars(crate::name::MAX_NAME_LEN),
        code: DiagCode::NameTooLong,
        everywhere: true,
    },
    SpecRule {
        id: "name.chars",
        field: "name",
        says: "May only contain unicode lowercase alphanumeric characters (`a-z`, `0-9`) and hyphens (`-`)",
        cite: "#name-field",
        check: Check::NameChars,
        code: DiagCode::NameInvalid,
        everywhere: true,
    },
    SpecRule {
        id: "name.edges",
        field: "name",
        says: "Must not start or end with a hyphen (`-`)",
        cite: "#name-field",
        check: Check::NoEdgeHyphen,
        code: DiagCode::NameInvalid,
        everywhere: true,
    },
    SpecRule {
        id: "name.consecutive",
        field: "name",
        says: "Must not contain consecutive hyphens (`--`)",
        cite: "#name-field",
        check: Check::NoDoubleHyphen,
        code: DiagCode::NameInvalid,
        everywhere: true,
    },
    SpecRule {
        id: "name.folder",
        field: "name",
        says: "Must match the parent directory name",
        cite: "#name-field",
        check: Check::MatchesFolder,
        code: DiagCode::NameDirMismatch,
        everywhere: true,
    },
    SpecRule {
        id: "description.required",
        field: "description",
        says: "The required `description` field",
        cite: "#description-field",
        check: Check::Required,
        code: DiagCode::DescriptionMissing,
        everywhere: true,
    },
    SpecRule {
        id: "description.text",
        field: "description",
        says: "Must be 1-1024 characters",
        cite: "#description-field",
        check: Check::Text,
        code: DiagCode::FieldTypeInvalid,
        everywhere: true,
    },
    SpecRule {
        id: "description.not-empty",
        field: "description",
        says: "Max 1024 characters. Non-empty.",
        cite: "#frontmatter",
        check: Check::NotBlank,
        code: DiagCode::DescriptionMissing,
        everywhere: true,
    },
    SpecRule {
        id: "description.max",
        field: "description",
        says: "Must be 1-1024 characters",
        cite: "#description-field",
        check: Check::MaxChars(MAX_DESCRIPTION_LEN),
        code: DiagCode::DescriptionTooLong,
        everywhere: true,
    },
    SpecRule {
        id: "license.text",
        field: "license",
        says: "License name or reference to a bundled license file.",
        cite: "#license-field",
        check: Check::Text,
        code: DiagCode::FieldTypeInvalid,
        everywhere: true,
    },
    SpecRule {
        id: "compatibility.text",
        field: "compatibility",
        says: "Must be 1-500 characters if provided",
        cite: "#compatibility-field",
        check: Check::Text,
        code: DiagCode::FieldTypeInvalid,
        everywhere: false,
    },
    SpecRule {
        id: "compatibility.min",
        field: "compatibility",
        says: "Must be 1-500 characters if provided",
        cite: "#compatibility-field",
        check: Check::MinChars(1),
        code: DiagCode::CompatibilityEmpty,
        everywhere: false,
    },
    SpecRule {
        id: "compatibility.max",
        field: "compatibility",
        says: "Must be 1-500 characters if provided",
        cite: "#compatibility-field",
        check: Check::MaxChars(MAX_COMPATIBILITY_LEN),
        code: DiagCode::CompatibilityTooLong,
        everywhere: true,
    },
    SpecRule {
        id: "metadata.string-map",
        field: "metadata",
        says: "A map from string keys to string values",
        cite: "#metadata-field",
        check: Check::StringMap,
        code: DiagCode::MetadataNotPortable,
        everywhere: false,
    },
    SpecRule {
        id: "allowed-tools.string",
        field: "allowed-tools",
        says: "A space-separated string of tools that are pre-approved to run",
        cite: "#allowed-tools-field",
        check: Check::SpaceSeparated,
        code: DiagCode::AllowedToolsNotPortable,
        everywhere: false,
    },
];

/// The rule with this id.
pub fn rule(id: &str) -> Option<&'static SpecRule> {
    RULES.iter().find(|r| r.id == id)
}

/// What a strict check looks at.
#[derive(Debug, Clone, Copy)]
pub struct Subject<'a> {
    /// The parsed frontmatter.
    pub parsed: &'a ParsedYaml,
    /// The file line of the frontmatter's first line (where missing fields are reported).
    pub first_line: u32,
    /// The skill's folder name; `None` skips `name.folder`.
    pub dir_name: Option<&'a str>,
}

/// Every violation of [`RULES`] in `subject`, as errors at the lines they are on. A rule whose
/// field is absent is not checked, except `Required`.
pub fn check(subject: Subject<'_>) -> Vec<Diagnostic> {
    RULES.iter().flat_map(|rule| check_rule(rule, subject)).collect()
}

/// The violations of one rule.
pub fn check_rule(rule: &SpecRule, s: Subject<'_>) -> Vec<Diagnostic> {
    let fields = &s.parsed.fields;
    let field = rule.field;
    let line = s.parsed.line_of(field);
    let error = |msg: String| {
        Diagnostic::error(rule.code, format!("{msg} (agentskills.io: “{}”)", rule.says))
            .at(line)
            .arg("field", field)
            .arg("rule", rule.id)
    };
    let value = fields.get(field);
    let text = value.and_then(Value::as_str);
    match rule.check {
        Check::Frontmatter => Vec::new(),
        Check::Required => match value {
            Some(v) if !v.is_null() => Vec::new(),
            _ => {
                let msg = if line.is_some() {
                    format!("`{field}` is empty")
                } else {
                    format!("the frontmatter has no `{field}`")
                };
                vec![error(msg).at(line.or(Some(s.first_line)))]
            }
        },
        Check::Text => match value {
            None | Some(Value::Null | Value::String(_)) => Vec::new(),
            Some(other) => {
                let kind = kind_of(other);
                vec![
                    error(format!("`{field}` is a {kind}, not text; put it in quotes"))
                        .arg("kind", kind_token(other))
                        .arg("expected", "text"),
                ]
            }
        },
        Check::NotBlank => match text {
            Some(t) if t.trim().is_empty() => vec![error(format!("`{field}` is empty"))],
            _ => Vec::new(),
        },
        Check::MinChars(min) => {
            // An empty optional field (`compatibility:`) is given but empty; an empty required
            // one is missing, which its `Required` rule says.
            let required = RULES.iter().any(|r| r.field == field && r.check == Check::Required);
            let len = match value {
                Some(Value::Null) if !required => Some(0),
                _ => text.map(|t| t.chars().count()),
            };
            match len {
                Some(len) if len < min => {
                    vec![error(format!("`{field}` is given but empty")).arg("length", len).arg("limit", min)]
                }
                _ => Vec::new(),
            }
        }
        Check::MaxChars(max) => match text.map(|t| t.chars().count()) {
            Some(len) if len > max => vec![
                error(format!("`{field}` is {len} characters; the limit is {max}"))
                    .arg("length", len)
                    .arg("limit", max),
            ],
            _ => Vec::new(),
        },
        Check::NameChars => match text.and_then(|t| t.chars().find(|c| !matches!(c, 'a'..='z' | '0'..='9' | '-'))) {
            Some(c) => vec![error(format!("`{field}` holds {c:?}")).arg("char", c)],
            None => Vec::new(),
        },
        Check::NoEdgeHyphen => match text {
            Some(t) if t.starts_with('-') || t.ends_with('-') => {
                vec![error(format!("`{field}` {t:?} starts or ends with `-`")).arg("value", t)]
            }
            _ => Vec::new(),
        },
        Check::NoDoubleHyphen => match text {
            Some(t) if t.contains("--") => vec![error(format!("`{field}` {t:?} holds `--`")).arg("value", t)],
            _ => Vec::new(),
        },
        Check::MatchesFolder => match (text, s.dir_name) {
            (Some(t), Some(dir)) if t != dir => {
                vec![error(format!("`{field}` is {t:?} but the folder is {dir:?}")).arg("value", t).arg("folder", dir)]
            }
            _ => Vec::new(),
        },
        Check::StringMap => match value {
            Some(Value::Mapping(m)) => m
                .iter()
                .filter(|(k, v)| !(k.is_string() && v.is_string()))
                .map(|(k, v)| {
                    let key = k.as_str().map_or_else(|| format!("{k:?}"), str::to_owned);
                    let (what, token) = if k.is_string() {
                        (format!("a {}", kind_of(v)), kind_token(v))
                    } else {
                        (format!("keyed by a {}", kind_of(k)), "key_not_text")
                    };
                    let path = format!("{field}.{key}");
                    let hint = match v {
                        Value::Number(_) | Value::Bool(_) => "; quote it",
                        _ => "; Skilldeck reads it, other agents may not",
                    };
                    error(format!("`{path}` is {what}, not text, so it is not portable{hint}"))
                        .at(s.parsed.child_line(field, &key).or(line))
                        .arg("field", path)
                        .arg("kind", token)
                })
                .collect(),
            _ => Vec::new(),
        },
        Check::SpaceSeparated => match value {
            Some(Value::Sequence(items)) => {
                let words: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
                let written = words.join(" ");
                vec![
                    error(format!(
                        "`{field}` is a YAML list, so it is not portable; write it as one line: `{field}: {written}`"
                    ))
                    .arg("kind", "list")
                    .arg("suggestion", written),
                ]
            }
            _ => Vec::new(),
        },
        Check::KnownFields => fields
            .iter()
            .filter_map(|(k, _)| {
                let key = k.as_str().map_or_else(|| format!("{k:?}"), str::to_owned);
                (!FIELDS.contains(&key.as_str())).then(|| {
                    let whose = if SKILLDECK_FIELDS.contains(&key.as_str()) {
                        "a Skilldeck field, not an agentskills.io one"
                    } else {
                        "not an agentskills.io field"
                    };
                    error(format!(
                        "`{key}` is {whose}, so agents that keep to the spec may refuse the skill; move it under \
                         `metadata:`"
                    ))
                    .at(s.parsed.line_of(&key))
                    .arg("field", key)
                })
            })
            .collect(),
    }
}
