//! `SkillMeta`: the fields of a skill's frontmatter, typed, as validation leaves them.
//! Holds the data only; the rules that fill it live in `validate`.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// A model's capability tier. A skill with `min_tier: ultra` is not listed for a `lite` model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// Small or local models.
    Lite,
    /// Frontier models; the default.
    #[default]
    Ultra,
}

impl Tier {
    /// Parses `lite` or `ultra`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "lite" => Some(Self::Lite),
            "ultra" => Some(Self::Ultra),
            _ => None,
        }
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Lite => "lite",
            Self::Ultra => "ultra",
        })
    }
}

/// Package names a skill says it needs. Parsed and shown, never installed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dependencies {
    /// Python packages (`metadata.aibuddy.dependencies.python`).
    pub python: Vec<String>,
    /// Node packages (`metadata.aibuddy.dependencies.node`).
    pub node: Vec<String>,
}

/// The typed frontmatter of one skill. Fields that failed validation are `None`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SkillMeta {
    /// `name`, when it is text (valid or not: diagnostics say which).
    pub name: Option<String>,
    /// `description`, when present and text.
    pub description: Option<String>,
    /// `description_zh`, the Chinese description.
    pub description_zh: Option<String>,
    /// `version`, the fallback version tag.
    pub version: Option<String>,
    /// `compatibility`, as written.
    pub compatibility: Option<String>,
    /// `allowed-tools`, one pattern an entry.
    pub allowed_tools: Vec<String>,
    /// `min_tier`; `None` means any tier.
    pub min_tier: Option<Tier>,
    /// `license`.
    pub license: Option<String>,
    /// `metadata`, as JSON.
    pub metadata: Option<JsonText>,
    /// The dependencies declared under `metadata.aibuddy.dependencies`.
    pub dependencies: Dependencies,
    /// Fields outside the format, kept as JSON.
    pub extra: ExtraFields,
}

impl SkillMeta {
    /// Whether a model may be offered the skill: not `disable-model-invocation: true` (Claude
    /// Code, Copilot, Cursor). Such a skill is never listed, found or offered over MCP; the
    /// user still sees it. `"true"` in quotes counts too: hiding is the safe reading.
    pub fn model_invocable(&self) -> bool {
        !self.flag("disable-model-invocation").unwrap_or(false)
    }

    /// Whether the user may invoke the skill by name (an MCP prompt): not `user-invocable:
    /// false` (Claude Code), nor Copilot's spelling `user-invokable: false`.
    pub fn user_invocable(&self) -> bool {
        self.flag("user-invocable").or_else(|| self.flag("user-invokable")).unwrap_or(true)
    }

    /// `when_to_use` (Claude Code): when the skill applies, beyond its description; the ranker
    /// reads it with the description.
    pub fn when_to_use(&self) -> Option<String> {
        match self.extra.get("when_to_use")?.value() {
            serde_json::Value::String(s) if !s.trim().is_empty() => Some(s),
            _ => None,
        }
    }

    /// A true/false field kept in `extra`: `true`/`false`, or the same words quoted.
    fn flag(&self, name: &str) -> Option<bool> {
        let text = self.extra.get(name)?.as_str();
        match text.trim_matches('"').to_ascii_lowercase().as_str() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        }
    }
}

/// The fields of a frontmatter outside the format, by name, each kept as JSON text: a small
/// sorted list (a skill has a few), which serializes as a JSON object like a map would.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExtraFields(Vec<(String, JsonText)>);

impl ExtraFields {
    /// The field `name`.
    pub fn get(&self, name: &str) -> Option<&JsonText> {
        self.0.binary_search_by(|(k, _)| k.as_str().cmp(name)).ok().map(|i| &self.0[i].1)
    }

    /// Sets the field `name`, replacing any value it had.
    pub fn insert(&mut self, name: String, value: JsonText) {
        match self.0.binary_search_by(|(k, _)| k.as_str().cmp(&name)) {
            Ok(i) => self.0[i].1 = value,
            Err(i) => self.0.insert(i, (name, value)),
        }
    }

    /// The fields, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &JsonText)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// How many fields.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for ExtraFields {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

impl<'de> Deserialize<'de> for ExtraFields {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = BTreeMap::<String, JsonText>::deserialize(d)?;
        Ok(Self(map.into_iter().collect()))
    }
}

/// A JSON value kept as its compact text. `metadata` and unknown fields are shown (`show`, the
/// app), never looked into by a listing, so a store of 20,000 skills holds each as one string
/// instead of a tree of maps (a map costs over 600 bytes however few its entries). It
/// serializes as the value itself, with keys sorted, as a `serde_json::Value` does.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JsonText(Box<str>);

impl JsonText {
    /// The text of `value`.
    pub fn of(value: &impl Serialize) -> Result<Self, serde_json::Error> {
        serde_json::to_string(value).map(|s| Self(s.into_boxed_str()))
    }

    /// The value, parsed from the text (`null` should the text not be JSON, which `of` never
    /// makes).
    pub fn value(&self) -> serde_json::Value {
        serde_json::from_str(&self.0).unwrap_or_default()
    }

    /// A value from its compact JSON text as `as_str` gave it (the parse cache keeps it so).
    pub fn from_text(text: String) -> Self {
        Self(text.into_boxed_str())
    }

    /// The compact JSON text, keys in the order they were written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<serde_json::Value> for JsonText {
    fn from(value: serde_json::Value) -> Self {
        Self(value.to_string().into_boxed_str())
    }
}

impl Serialize for JsonText {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.value().serialize(s)
    }
}

impl<'de> Deserialize<'de> for JsonText {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde_json::Value::deserialize(d).map(Self::from)
    }
}
