//! Codex's `agents/openai.yaml` beside `SKILL.md`: display fields, tool dependencies and the
//! implicit-invocation policy, checked as Codex reads them. Holds the check; no file system.
//!
//! Source: `SkillMetadataFile` and `load_skill_metadata` in
//! `codex-rs/core-skills/src/loader.rs` of `openai/codex`. Codex "fails open": a file that does
//! not parse into its shape is ignored whole (a value of the wrong kind does that), a value
//! that parses but breaks a limit is ignored alone. Either way the skill still loads, so every
//! problem here is a warning saying what Codex will drop.

use crate::agents::CODEX_LOADER;
use crate::diagnostic::{DiagCode, Diagnostic};
use crate::frontmatter::kind_of;
use serde_yaml_ng::{Mapping, Value};

/// The file's path inside a skill.
pub const PATH: &str = "agents/openai.yaml";

/// `interface` text fields and their limits (`MAX_NAME_LEN`, `MAX_DESCRIPTION_LEN`).
const INTERFACE_TEXT: &[(&str, usize)] = &[("display_name", 64), ("short_description", 1024), ("default_prompt", 1024)];
/// A dependency tool's text fields, whether each is required, and their limits.
const TOOL_TEXT: &[(&str, bool, usize)] = &[
    ("type", true, 64),
    ("value", true, 1024),
    ("description", false, 1024),
    ("transport", false, 64),
    ("command", false, 1024),
    ("url", false, 1024),
];

/// Every problem Codex would find in the text of `agents/openai.yaml`, as warnings whose
/// `file` argument is [`PATH`].
pub fn check(text: &str) -> Vec<Diagnostic> {
    checked(text).0.0
}

/// Whether Codex lets the model invoke the skill on its own, by the text of its
/// `agents/openai.yaml`: `false` only when the file is read whole (Codex ignores a file that
/// does not parse into its shape) and says `policy.allow_implicit_invocation: false`. Such a
/// skill is left out of the skills list Codex gives the model
/// (`SkillLoadOutcome::allowed_skills_for_implicit_invocation` in
/// `codex-rs/core-skills/src/model.rs`, used by `build_available_skills` in `render.rs`); the
/// user still invokes it by name (`$skill`).
pub fn implicit_invocation(text: &str) -> bool {
    let (c, root) = checked(text);
    if c.1 {
        return true;
    }
    let policy = root.as_ref().and_then(|m| m.get("policy")).and_then(Value::as_mapping);
    policy.and_then(|p| p.get("allow_implicit_invocation")).and_then(Value::as_bool) != Some(false)
}

/// The check's findings, and the root mapping when the file has one.
fn checked(text: &str) -> (Check, Option<Mapping>) {
    let mut c = Check(Vec::new(), false);
    let root = match serde_yaml_ng::from_str::<Value>(text) {
        Ok(Value::Mapping(m)) => m,
        Ok(Value::Null) => return (c, None),
        Ok(other) => {
            c.whole("the file", &format!("is a {}, not a mapping", kind_of(&other)));
            return (c, None);
        }
        Err(e) => {
            c.whole("the file", &format!("is not YAML ({e})"));
            return (c, None);
        }
    };
    for (k, v) in &root {
        let key = k.as_str().unwrap_or_default();
        match key {
            "interface" => c.interface(v),
            "dependencies" => c.dependencies(v),
            "policy" => c.policy(v),
            _ => {
                let msg = format!("Codex reads `interface`, `dependencies` and `policy`; `{key}` is ignored");
                c.0.push(diag(DiagCode::FieldIgnored, key, msg));
            }
        }
    }
    (c, Some(root))
}

fn diag(code: DiagCode, field: &str, msg: String) -> Diagnostic {
    Diagnostic::warning(code, format!("{PATH}: {msg} ({CODEX_LOADER})"))
        .arg("file", PATH)
        .arg("field", field)
        .arg("agent", "codex")
}

/// The diagnostics found, and whether Codex ignores the whole file.
struct Check(Vec<Diagnostic>, bool);

impl Check {
    /// A problem that makes Codex ignore the whole file.
    fn whole(&mut self, field: &str, what: &str) {
        self.1 = true;
        let msg = format!("`{field}` {what}, so Codex ignores the whole file");
        self.0.push(diag(DiagCode::FieldValueInvalid, field, msg));
    }

    /// A problem that makes Codex ignore one value.
    fn one(&mut self, field: &str, what: &str) {
        self.0.push(diag(DiagCode::FieldValueInvalid, field, format!("`{field}` {what}, so Codex ignores it")));
    }

    fn mapping<'v>(&mut self, field: &str, v: &'v Value) -> Option<&'v Mapping> {
        match v {
            Value::Mapping(m) => Some(m),
            Value::Null => None,
            other => {
                self.whole(field, &format!("is a {}, not a mapping", kind_of(other)));
                None
            }
        }
    }

    /// A text field: of the wrong kind the file is ignored; empty or too long the value is.
    fn text(&mut self, field: &str, v: Option<&Value>, required: bool, max: usize) {
        match v {
            None | Some(Value::Null) if required => self.one(field, "is missing"),
            None | Some(Value::Null) => {}
            Some(Value::String(s)) => {
                let len = s.split_whitespace().collect::<Vec<_>>().join(" ").chars().count();
                if len == 0 {
                    self.one(field, "is empty");
                } else if len > max {
                    self.one(field, &format!("is {len} characters; the limit is {max}"));
                }
            }
            Some(other) => self.whole(field, &format!("is a {}, not text", kind_of(other))),
        }
    }

    fn interface(&mut self, v: &Value) {
        let Some(m) = self.mapping("interface", v) else { return };
        for (name, max) in INTERFACE_TEXT {
            self.text(&format!("interface.{name}"), m.get(*name), false, *max);
        }
        for icon in ["icon_small", "icon_large"] {
            let field = format!("interface.{icon}");
            match m.get(icon) {
                None | Some(Value::Null) => {}
                Some(Value::String(p)) if under_assets(p) => {}
                Some(Value::String(_)) => self.one(&field, "is not a relative path under `assets/`"),
                Some(other) => self.whole(&field, &format!("is a {}, not a path", kind_of(other))),
            }
        }
        match m.get("brand_color") {
            None | Some(Value::Null) => {}
            Some(Value::String(c)) if is_hex_color(c.trim()) => {}
            Some(Value::String(c)) => self.one("interface.brand_color", &format!("is {c:?}, not `#RRGGBB`")),
            Some(other) => self.whole("interface.brand_color", &format!("is a {}, not text", kind_of(other))),
        }
    }

    fn dependencies(&mut self, v: &Value) {
        let Some(m) = self.mapping("dependencies", v) else { return };
        let tools = match m.get("tools") {
            None | Some(Value::Null) => return,
            Some(Value::Sequence(t)) => t,
            Some(other) => return self.whole("dependencies.tools", &format!("is a {}, not a list", kind_of(other))),
        };
        for (i, tool) in tools.iter().enumerate() {
            let Some(t) = self.mapping(&format!("dependencies.tools[{i}]"), tool) else { continue };
            for (name, required, max) in TOOL_TEXT {
                self.text(&format!("dependencies.tools[{i}].{name}"), t.get(*name), *required, *max);
            }
        }
    }

    fn policy(&mut self, v: &Value) {
        let Some(m) = self.mapping("policy", v) else { return };
        match m.get("allow_implicit_invocation") {
            None | Some(Value::Null | Value::Bool(_)) => {}
            Some(other) => {
                self.whole(
                    "policy.allow_implicit_invocation",
                    &format!("is a {}, not `true` or `false`", kind_of(other)),
                );
            }
        }
        match m.get("products") {
            None | Some(Value::Null) => {}
            Some(Value::Sequence(p)) if p.iter().all(Value::is_string) => {}
            Some(other) => {
                self.whole("policy.products", &format!("is a {}, not a list of product names", kind_of(other)))
            }
        }
    }
}

/// A relative path whose first part is `assets` and that never climbs out (`..`).
fn under_assets(p: &str) -> bool {
    let parts: Vec<&str> = p.split('/').filter(|s| !s.is_empty() && *s != ".").collect();
    !p.starts_with('/') && parts.first() == Some(&"assets") && parts.len() > 1 && !parts.contains(&"..")
}

fn is_hex_color(c: &str) -> bool {
    c.len() == 7 && c.starts_with('#') && c[1..].chars().all(|ch| ch.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `policy.allow_implicit_invocation` as Codex reads it (`resolve_policy` in
    /// `codex-rs/core-skills/src/loader.rs`: absent means allowed; a file that does not
    /// deserialize is ignored whole, so its `false` is never read).
    #[test]
    fn implicit_invocation_is_off_only_when_the_whole_file_reads_and_says_false() {
        let cases: &[(&str, bool)] = &[
            ("", true),
            ("policy:\n  allow_implicit_invocation: false\n", false),
            ("policy:\n  allow_implicit_invocation: true\n", true),
            ("policy:\n  products: [codex-cli]\n", true),
            ("interface:\n  display_name: Deploy\npolicy:\n  allow_implicit_invocation: false\n", false),
            // A quoted "false" is text, not a bool: Codex ignores the whole file.
            ("policy:\n  allow_implicit_invocation: \"false\"\n", true),
            // A wrong kind elsewhere makes Codex drop the file, its policy with it.
            ("interface: [1]\npolicy:\n  allow_implicit_invocation: false\n", true),
            ("policy: [\n", true),
            // An over-long value is dropped alone: the policy still holds.
            (
                "interface:\n  display_name: XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX\npolicy:\n  \
                 allow_implicit_invocation: false\n",
                false,
            ),
        ];
        for (text, allowed) in cases {
            assert_eq!(implicit_invocation(text), *allowed, "{text}");
        }
    }
}
