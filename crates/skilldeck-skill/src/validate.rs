//! Validation: the field rules of docs/contracts.md ("The skill format") applied to a parsed frontmatter.
//! Holds the rules and the strict (agentskills.io) mode; not the YAML reading or storage.

use crate::agent_rules::{self, Reading};
use crate::agents::Agent;
use crate::diagnostic::{DiagCode, Diagnostic};
use crate::frontmatter::{self, ParsedYaml, kind_of, kind_token};
use crate::meta::{Dependencies, JsonText, SkillMeta, Tier};
use crate::name::{NameError, SkillName};
use crate::spec;
use crate::visible;
use serde_yaml_ng::Value;

pub use crate::spec::{MAX_COMPATIBILITY_LEN, MAX_DESCRIPTION_LEN, SKILLDECK_FIELDS};
use crate::tool_patterns::is_tool_pattern;
pub use crate::tool_patterns::split_tool_patterns;

/// The version of this build of Skilldeck, checked against a skill's `compatibility`.
pub const APP_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The longest `version`, in characters.
pub const MAX_VERSION_LEN: usize = 32;

/// How to validate.
#[derive(Debug, Clone, Copy)]
pub struct ValidateOptions<'a> {
    /// Apply the agentskills.io rules exactly (`spec::RULES`): unknown fields, values the spec
    /// does not allow (nested `metadata`, a list of `allowed-tools`) and YAML repairs are errors.
    pub strict: bool,
    /// The skill's folder name, which `name` must equal; `None` skips that check.
    pub dir_name: Option<&'a str>,
    /// The app version a `compatibility` range naming Skilldeck is checked against.
    pub app_version: &'a str,
}

impl Default for ValidateOptions<'_> {
    fn default() -> Self {
        Self { strict: false, dir_name: None, app_version: APP_VERSION }
    }
}

/// What validation found: the typed fields and every problem, in file order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Validated {
    /// The fields that could be read.
    pub meta: SkillMeta,
    /// All problems, errors and warnings.
    pub diagnostics: Vec<Diagnostic>,
}

impl Validated {
    /// Whether no diagnostic is an error.
    pub fn is_valid(&self) -> bool {
        !self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Validates the bytes of a `SKILL.md`; `None` when the file is missing.
pub fn validate_bytes(bytes: Option<&[u8]>, opts: ValidateOptions<'_>) -> Validated {
    match bytes {
        None => Validated {
            meta: SkillMeta::default(),
            diagnostics: vec![
                Diagnostic::error(DiagCode::SkillMdMissing, "the skill folder has no SKILL.md").arg("file", "SKILL.md"),
            ],
        },
        Some(b) => match std::str::from_utf8(b) {
            Ok(text) => validate_text(text, opts),
            Err(e) => Validated {
                meta: SkillMeta::default(),
                diagnostics: vec![
                    Diagnostic::error(
                        DiagCode::SkillMdNotUtf8,
                        format!("SKILL.md is not UTF-8 text (bad byte at offset {})", e.valid_up_to()),
                    )
                    .arg("offset", e.valid_up_to()),
                ],
            },
        },
    }
}

/// Validates the text of a `SKILL.md`: leniently, or by the spec's rules exactly when
/// `opts.strict`.
pub fn validate_text(text: &str, opts: ValidateOptions<'_>) -> Validated {
    validate_text_for(text, opts, None)
}

/// Validates the bytes of a `SKILL.md` (`None` when the file is missing) as `agent` reads it
/// (`skilldeck validate --for AGENT`); `None` is [`validate_bytes`].
pub fn validate_bytes_for(bytes: Option<&[u8]>, opts: ValidateOptions<'_>, agent: Option<Agent>) -> Validated {
    match (bytes.map(std::str::from_utf8), agent) {
        (Some(Ok(text)), Some(_)) => validate_text_for(text, opts, agent),
        _ => validate_bytes(bytes, opts),
    }
}

/// Validates the text of a `SKILL.md` as `agent` reads it: Skilldeck's lenient reading of the
/// spec's fields, then what that agent reads checked (errors) and what it ignores said
/// (warnings). With no agent, lenient or strict as `opts.strict` says.
pub fn validate_text_for(text: &str, opts: ValidateOptions<'_>, agent: Option<Agent>) -> Validated {
    let opts = ValidateOptions { strict: opts.strict && agent.is_none(), ..opts };
    let split = match frontmatter::split(text) {
        Ok(s) => s,
        Err(d) => return Validated { meta: SkillMeta::default(), diagnostics: vec![d] },
    };
    let assumed: Vec<Diagnostic> = split.assumed.iter().map(|a| a.diagnostic(opts.strict)).collect();
    let mut parsed = match frontmatter::parse_yaml(&split, opts.strict) {
        Ok(p) => p,
        Err(mut diagnostics) => {
            diagnostics.splice(0..0, assumed);
            return Validated { meta: SkillMeta::default(), diagnostics };
        }
    };
    let mut v = Validated { meta: SkillMeta::default(), diagnostics: assumed };
    v.diagnostics.append(&mut parsed.warnings);
    let mut ctx =
        Ctx { parsed: &parsed, diags: &mut v.diagnostics, raw: &parsed.text, first_line: split.yaml_first_line };
    v.meta = read_fields(&mut ctx, opts);
    if !opts.strict {
        let reading = agent.map_or(Reading::Lenient, Reading::For);
        v.diagnostics.extend(agent_rules::check(&parsed, reading));
    } else {
        // Every rule of the specification, from its table; what the field readers already
        // reported (same code, same line) is not said twice.
        let subject = spec::Subject { parsed: &parsed, first_line: split.yaml_first_line, dir_name: opts.dir_name };
        for d in spec::check(subject) {
            if !v.diagnostics.iter().any(|seen| seen.code == d.code && seen.line == d.line) {
                v.diagnostics.push(d);
            }
        }
    }
    if split.body.trim().is_empty() {
        v.diagnostics
            .push(Diagnostic::warning(DiagCode::BodyEmpty, "SKILL.md has no instructions after the frontmatter"));
    }
    v.diagnostics.sort_by_key(|d| (d.line.unwrap_or(u32::MAX), d.severity));
    v
}

/// What the field readers share.
struct Ctx<'p, 'd> {
    parsed: &'p ParsedYaml,
    diags: &'d mut Vec<Diagnostic>,
    raw: &'p str,
    first_line: u32,
}

impl Ctx<'_, '_> {
    fn get(&self, key: &str) -> Option<&Value> {
        self.parsed.fields.get(key).filter(|v| !v.is_null())
    }

    fn line(&self, key: &str) -> Option<u32> {
        self.parsed.line_of(key)
    }

    /// An error at `key`'s line, with `key` as its `field` argument and `args` after it.
    fn error_with(&mut self, code: DiagCode, key: &str, msg: String, args: &[(&'static str, String)]) {
        let line = self.line(key);
        let d = args.iter().fold(Diagnostic::error(code, msg).at(line).arg("field", key), |d, (k, v)| d.arg(k, v));
        self.diags.push(d);
    }

    /// A warning at `key`'s line, with `key` as its `field` argument and `args` after it.
    fn warn_with(&mut self, code: DiagCode, key: &str, msg: String, args: &[(&'static str, String)]) {
        let line = self.line(key);
        let d = args.iter().fold(Diagnostic::warning(code, msg).at(line).arg("field", key), |d, (k, v)| d.arg(k, v));
        self.diags.push(d);
    }

    fn error(&mut self, code: DiagCode, key: &str, msg: String) {
        self.error_with(code, key, msg, &[]);
    }

    fn warn(&mut self, code: DiagCode, key: &str, msg: String) {
        self.warn_with(code, key, msg, &[]);
    }

    /// Reads a text field; a number is taken as written (`version: 1.10` stays `1.10`).
    fn text(&mut self, key: &str, allow_number: bool) -> Option<String> {
        match self.get(key)? {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) if allow_number => Some(self.raw_value(key).unwrap_or_else(|| n.to_string())),
            other => {
                let (kind, token) = (kind_of(other), kind_token(other));
                self.error_with(
                    DiagCode::FieldTypeInvalid,
                    key,
                    format!("`{key}` should be text, but it is a {kind}"),
                    &[("kind", token.to_owned()), ("expected", "text".to_owned())],
                );
                None
            }
        }
    }

    /// Says so when `text`, the value of `key`, holds a control character a terminal acts on
    /// (`visible::first_control`): an error when `strict`, else a warning. Every screen shows
    /// such a character escaped; this tells the author before a reader sees `\e]52;…`.
    fn control_chars(&mut self, key: &str, text: &str, strict: bool) {
        let Some((at, c)) = visible::first_control(text) else { return };
        let more = match visible::controls(text).count() {
            0 | 1 => String::new(),
            n => format!(" and {} more", n - 1),
        };
        let msg = format!(
            "`{key}` holds the control character {}{more} at character {} of its value; a terminal acts on \
             control characters (moving the cursor, writing the clipboard) instead of showing them",
            visible::control_name(c),
            at + 1
        );
        let args = [("char", format!("U+{:04X}", u32::from(c))), ("position", (at + 1).to_string())];
        if strict {
            self.error_with(DiagCode::DescriptionControlChars, key, msg, &args);
        } else {
            self.warn_with(DiagCode::DescriptionControlChars, key, msg, &args);
        }
    }

    /// The value of a top-level key exactly as written on its line.
    fn raw_value(&self, key: &str) -> Option<String> {
        let line = self.line(key)?;
        let text = self.raw.lines().nth((line - self.first_line) as usize)?;
        let value = text.split_once(':')?.1.split(" #").next()?.trim();
        (!value.is_empty()).then(|| value.to_owned())
    }
}

fn read_fields(ctx: &mut Ctx<'_, '_>, opts: ValidateOptions<'_>) -> SkillMeta {
    let mut meta =
        SkillMeta { name: read_name(ctx, opts), description: read_description(ctx, opts), ..SkillMeta::default() };
    meta.description_zh = ctx.text("description_zh", false);
    if let Some(zh) = &meta.description_zh {
        ctx.control_chars("description_zh", zh, opts.strict);
        let len = zh.chars().count();
        if len > MAX_DESCRIPTION_LEN {
            ctx.warn_with(
                DiagCode::DescriptionTooLong,
                "description_zh",
                format!("`description_zh` is {len} characters; keep it under {MAX_DESCRIPTION_LEN}"),
                &[("length", len.to_string()), ("limit", MAX_DESCRIPTION_LEN.to_string())],
            );
        }
    }
    meta.version = ctx.text("version", true);
    if let Some(v) = &meta.version {
        let len = v.chars().count();
        if len > MAX_VERSION_LEN {
            ctx.error_with(
                DiagCode::VersionTooLong,
                "version",
                format!("`version` is {len} characters; the limit is {MAX_VERSION_LEN}"),
                &[("length", len.to_string()), ("limit", MAX_VERSION_LEN.to_string())],
            );
        }
    }
    meta.compatibility = read_compatibility(ctx, opts);
    meta.allowed_tools = read_allowed_tools(ctx);
    meta.min_tier = match ctx.get("min_tier").cloned() {
        None => None,
        Some(Value::String(s)) if Tier::parse(&s).is_some() => Tier::parse(&s),
        Some(other) => {
            let shown = match &other {
                Value::String(s) => format!("{s:?}"),
                v => format!("a {}", kind_of(v)),
            };
            ctx.error_with(
                DiagCode::MinTierInvalid,
                "min_tier",
                format!("`min_tier` is {shown}; use `lite` or `ultra`"),
                &[("value", shown.clone())],
            );
            None
        }
    };
    meta.license = ctx.text("license", false);
    let (metadata, deps) = read_metadata(ctx);
    meta.metadata = metadata;
    meta.dependencies = deps;
    read_unknown(ctx, &mut meta);
    meta
}

fn read_name(ctx: &mut Ctx<'_, '_>, opts: ValidateOptions<'_>) -> Option<String> {
    let Some(value) = ctx.get("name").cloned() else {
        let (msg, line) = match ctx.line("name") {
            Some(l) => ("`name` is empty", l),
            None => ("the frontmatter has no `name`", ctx.first_line),
        };
        ctx.diags.push(Diagnostic::error(DiagCode::NameMissing, msg).at(Some(line)).arg("field", "name"));
        return None;
    };
    let name = match value {
        Value::String(s) => s,
        other => {
            let kind = kind_of(&other);
            ctx.error_with(
                DiagCode::NameInvalid,
                "name",
                format!("`name` should be text, but it is a {kind}; quote it"),
                &[("kind", kind_token(&other).to_owned())],
            );
            return None;
        }
    };
    match SkillName::parse(&name) {
        Ok(_) => {}
        Err(e @ NameError::TooLong(len)) => ctx.error_with(
            DiagCode::NameTooLong,
            "name",
            format!("`name` {name:?}: {e}"),
            &[("length", len.to_string()), ("limit", crate::name::MAX_NAME_LEN.to_string())],
        ),
        Err(e) => {
            let reason = match e {
                NameError::Empty => "empty",
                NameError::TooLong(_) => "too_long",
                NameError::BadChar(_) => "bad_char",
                NameError::EdgeHyphen => "edge_hyphen",
                NameError::DoubleHyphen => "double_hyphen",
            };
            // The arguments fill a template a UI shows: a control character in them is escaped.
            let mut args = vec![("value", visible::visible_line(&name).into_owned()), ("reason", reason.to_owned())];
            if let NameError::BadChar(c) = e {
                args.push(("char", visible::visible_line(&c.to_string()).into_owned()));
            }
            ctx.error_with(DiagCode::NameInvalid, "name", format!("`name` {name:?}: {e}"), &args);
        }
    }
    if let Some(dir) = opts.dir_name
        && dir != name
    {
        ctx.error_with(
            DiagCode::NameDirMismatch,
            "name",
            format!("`name` is {name:?} but the folder is {dir:?}"),
            &[
                ("value", visible::visible_line(&name).into_owned()),
                ("folder", visible::visible_line(dir).into_owned()),
            ],
        );
    }
    Some(name)
}

fn read_description(ctx: &mut Ctx<'_, '_>, opts: ValidateOptions<'_>) -> Option<String> {
    if ctx.get("description").is_none() {
        let line = ctx.line("description").or(Some(ctx.first_line));
        let msg = if ctx.line("description").is_some() {
            "`description` is empty"
        } else {
            "the frontmatter has no `description`"
        };
        ctx.diags.push(Diagnostic::error(DiagCode::DescriptionMissing, msg).at(line).arg("field", "description"));
        return None;
    }
    let d = ctx.text("description", false)?;
    if d.trim().is_empty() {
        ctx.error(DiagCode::DescriptionMissing, "description", "`description` is empty".to_owned());
        return None;
    }
    let len = d.chars().count();
    if len > MAX_DESCRIPTION_LEN {
        ctx.error_with(
            DiagCode::DescriptionTooLong,
            "description",
            format!("`description` is {len} characters; the limit is {MAX_DESCRIPTION_LEN}"),
            &[("length", len.to_string()), ("limit", MAX_DESCRIPTION_LEN.to_string())],
        );
    }
    ctx.control_chars("description", &d, opts.strict);
    let cjk = d.chars().filter(|c| is_cjk(*c)).count();
    if cjk * 3 > len {
        ctx.warn(
            DiagCode::DescriptionNotEnglish,
            "description",
            "`description` is mostly Chinese; models get it in the English listing".to_owned(),
        );
    }
    Some(d)
}

/// Whether `c` is a CJK ideograph or CJK punctuation.
fn is_cjk(c: char) -> bool {
    matches!(c, '\u{3000}'..='\u{303f}' | '\u{3400}'..='\u{4dbf}' | '\u{4e00}'..='\u{9fff}' | '\u{ff00}'..='\u{ffef}')
}

fn read_compatibility(ctx: &mut Ctx<'_, '_>, opts: ValidateOptions<'_>) -> Option<String> {
    let c = ctx.text("compatibility", true)?;
    let len = c.chars().count();
    if len > MAX_COMPATIBILITY_LEN {
        ctx.error_with(
            DiagCode::CompatibilityTooLong,
            "compatibility",
            format!("`compatibility` is {len} characters; the limit is {MAX_COMPATIBILITY_LEN}"),
            &[("length", len.to_string()), ("limit", MAX_COMPATIBILITY_LEN.to_string())],
        );
        return Some(c);
    }
    // Free text such as `>=1.0.0` usually means another host; only a range that names
    // Skilldeck, or a bare range in a skill written for Skilldeck, is about this app.
    let range =
        compat::skilldeck_range(&c).or_else(|| targets_skilldeck(ctx).then(|| compat::bare_range(&c)).flatten());
    if let Some(range) = range
        && let (Ok(req), Ok(app)) = (semver::VersionReq::parse(&range), semver::Version::parse(opts.app_version))
        && !req.matches(&app)
    {
        ctx.warn_with(
            DiagCode::CompatibilityUnmet,
            "compatibility",
            format!(
                "`compatibility` asks for Skilldeck {range}, and this is {}; the skill is listed anyway, but may \
                 use what this version lacks",
                opts.app_version
            ),
            &[("range", range.clone()), ("app_version", opts.app_version.to_owned())],
        );
    }
    Some(c)
}

/// Whether the skill is written for Skilldeck: it carries a Skilldeck field (`description_zh`,
/// `min_tier`) or `metadata.aibuddy`, the seed app's own block.
fn targets_skilldeck(ctx: &Ctx<'_, '_>) -> bool {
    ["description_zh", "min_tier"].iter().any(|k| ctx.get(k).is_some())
        || ctx.get("metadata").and_then(|m| m.get("aibuddy")).is_some()
}

/// Reading a Skilldeck version range out of `compatibility` text.
mod compat {
    /// The range after the word "Skilldeck" (any case): `Skilldeck >=1.2, Python 3` → `>=1.2`.
    pub fn skilldeck_range(text: &str) -> Option<String> {
        let lower = text.to_ascii_lowercase();
        lower.match_indices("skilldeck").find_map(|(i, w)| {
            let after = &text[i + w.len()..];
            let after = after.trim_start_matches([' ', ':', 'v', 'V']);
            let end = after.find(|c: char| !(c.is_ascii_digit() || " .<>=~^*xX,-+".contains(c))).unwrap_or(after.len());
            parse(&after[..end])
        })
    }

    /// The whole text when it is a bare range such as `>=1.0` (the seed's convention).
    pub fn bare_range(text: &str) -> Option<String> {
        let t = text.trim();
        if t.starts_with(['>', '<', '=', '~', '^']) { parse(t) } else { None }
    }

    /// The longest leading part of `s` that is a version range.
    fn parse(s: &str) -> Option<String> {
        let s = s.trim().trim_end_matches([',', '-', ' ']);
        if s.is_empty() {
            return None;
        }
        if semver::VersionReq::parse(s).is_ok() {
            return Some(s.to_owned());
        }
        let first = s.split(',').next()?.trim();
        (first != s && semver::VersionReq::parse(first).is_ok()).then(|| first.to_owned())
    }
}

fn read_allowed_tools(ctx: &mut Ctx<'_, '_>) -> Vec<String> {
    const KEY: &str = "allowed-tools";
    let patterns = match ctx.get(KEY).cloned() {
        None => return Vec::new(),
        Some(Value::String(s)) => split_tool_patterns(&s),
        Some(Value::Sequence(items)) => {
            let mut out = Vec::new();
            for item in items {
                match item {
                    Value::String(s) => out.extend(split_tool_patterns(&s)),
                    other => {
                        let kind = kind_of(&other);
                        ctx.error(
                            DiagCode::AllowedToolsInvalid,
                            KEY,
                            format!("an `allowed-tools` entry is a {kind}, not text"),
                        );
                    }
                }
            }
            out
        }
        Some(other) => {
            let kind = kind_of(&other);
            ctx.error_with(
                DiagCode::FieldTypeInvalid,
                KEY,
                format!("`allowed-tools` should be text, but it is a {kind}"),
                &[("kind", kind_token(&other).to_owned()), ("expected", "text".to_owned())],
            );
            return Vec::new();
        }
    };
    let (good, bad): (Vec<_>, Vec<_>) = patterns.into_iter().partition(|p| is_tool_pattern(p));
    if !bad.is_empty() {
        let listed = bad.join(", ");
        ctx.error_with(
            DiagCode::AllowedToolsInvalid,
            KEY,
            format!("not tool patterns: {listed}"),
            &[("patterns", listed.clone())],
        );
    }
    let broad: Vec<&str> = good
        .iter()
        .map(String::as_str)
        .filter(|p| crate::grants::Pattern::parse(p).is_some_and(|p| p.is_broad()))
        .collect();
    if !broad.is_empty() {
        ctx.warn_with(
            DiagCode::AllowedToolsBroad,
            KEY,
            format!(
                "`allowed-tools` asks for {}, which would let the skill run any command without asking; it takes \
                 effect only after you approve it (`skilldeck trust NAME`), and always in the sandbox",
                broad.join(", ")
            ),
            &[("patterns", broad.join(", "))],
        );
    }
    good
}

fn read_metadata(ctx: &mut Ctx<'_, '_>) -> (Option<JsonText>, Dependencies) {
    let Some(value) = ctx.get("metadata").cloned() else {
        return (None, Dependencies::default());
    };
    if !value.is_mapping() {
        let kind = kind_of(&value);
        ctx.error_with(
            DiagCode::FieldTypeInvalid,
            "metadata",
            format!("`metadata` should be a mapping, but it is a {kind}"),
            &[("kind", kind_token(&value).to_owned()), ("expected", "mapping".to_owned())],
        );
        return (None, Dependencies::default());
    }
    let mut deps = Dependencies::default();
    if let Some(d) = value.get("aibuddy").and_then(|a| a.get("dependencies")) {
        for (lang, slot) in [("python", &mut deps.python), ("node", &mut deps.node)] {
            match d.get(lang) {
                None | Some(Value::Null) => {}
                Some(Value::Sequence(items)) if items.iter().all(Value::is_string) => {
                    *slot = items.iter().filter_map(|i| i.as_str().map(str::to_owned)).collect();
                }
                Some(other) => {
                    let kind = kind_of(other);
                    let path = format!("metadata.aibuddy.dependencies.{lang}");
                    ctx.warn_with(
                        DiagCode::DependenciesInvalid,
                        "metadata",
                        format!("`{path}` should be a list of package names, but it is a {kind}"),
                        &[("field", path.clone()), ("kind", kind_token(other).to_owned())],
                    );
                }
            }
        }
    }
    (Some(to_json(&value)), deps)
}

/// Keeps fields outside the format in `meta.extra`. What is said of them is the agents' rules'
/// (`agent_rules`: which agents read each) or, in strict mode, the spec's (`frontmatter.fields`).
fn read_unknown(ctx: &Ctx<'_, '_>, meta: &mut SkillMeta) {
    let keys: Vec<(String, Value)> = ctx
        .parsed
        .fields
        .iter()
        .filter_map(|(k, v)| {
            let key = k.as_str().map_or_else(|| format!("{k:?}"), str::to_owned);
            let known = spec::FIELDS.contains(&key.as_str()) || SKILLDECK_FIELDS.contains(&key.as_str());
            (!known).then(|| (key, v.clone()))
        })
        .collect();
    for (key, value) in keys {
        meta.extra.insert(key, to_json(&value));
    }
}

/// YAML to JSON text; values JSON cannot hold (non-text keys) become their debug text.
fn to_json(v: &Value) -> JsonText {
    JsonText::of(v).unwrap_or_else(|_| JsonText::from(serde_json::Value::String(format!("{v:?}"))))
}
