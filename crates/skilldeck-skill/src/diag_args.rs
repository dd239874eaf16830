//! `DiagArgs`: the facts of a diagnostic's message as a small `name → text` map, so a UI can
//! fill a translated template per code. Holds the map and its JSON form; not the messages.
//!
//! Kept as a short sorted list rather than a map: a listing keeps every skill's diagnostics,
//! and most carry two or three arguments, so each costs a few dozen bytes, not a tree node.

use serde::de::Deserializer;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::BTreeMap;

/// A diagnostic's arguments, sorted by name. The diagnostic's `line` is not kept here: it is
/// added as the `line` argument when the diagnostic is serialized ([`crate::Diagnostic::args_map`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DiagArgs(Vec<(Cow<'static, str>, String)>);

impl DiagArgs {
    /// No arguments.
    pub fn new() -> Self {
        Self(Vec::new())
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The value of argument `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// The arguments as `(name, value)`, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_ref(), v.as_str()))
    }

    /// Sets argument `name`, replacing an earlier value. `line` is ignored: it is the
    /// diagnostic's own line.
    pub fn set(&mut self, name: impl Into<Cow<'static, str>>, value: String) {
        let name = name.into();
        if name == "line" {
            return;
        }
        match self.0.binary_search_by(|(k, _)| k.as_ref().cmp(name.as_ref())) {
            Ok(i) => {
                if let Some(slot) = self.0.get_mut(i) {
                    slot.1 = value;
                }
            }
            Err(i) => {
                self.0.reserve_exact(1);
                self.0.insert(i, (name, value));
            }
        }
    }
}

impl Serialize for DiagArgs {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for DiagArgs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = BTreeMap::<String, String>::deserialize(d)?;
        let mut args = Self::new();
        for (k, v) in map {
            args.set(k, v);
        }
        Ok(args)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_replaced_and_without_line() {
        let mut a = DiagArgs::new();
        a.set("kind", "list".to_owned());
        a.set("field", "metadata".to_owned());
        a.set("kind", "mapping".to_owned());
        a.set("line", "3".to_owned());
        assert_eq!(a.iter().collect::<Vec<_>>(), vec![("field", "metadata"), ("kind", "mapping")]);
        let json = serde_json::to_string(&a).unwrap();
        assert_eq!(json, r#"{"field":"metadata","kind":"mapping"}"#);
        let back: DiagArgs = serde_json::from_str(r#"{"kind":"mapping","line":"3","field":"metadata"}"#).unwrap();
        assert_eq!(back, a);
    }
}
