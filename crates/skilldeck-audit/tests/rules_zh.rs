//! Every rule has a Chinese title and why in the desktop app's table (`ui/audit_i18n.js`), so a
//! new rule cannot reach a Chinese reader in English only, and the table names no rule that is
//! gone. The UI is plain JavaScript with no JS test runner; this reads the file as text.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use regex::Regex;
use skilldeck_audit::rules::RULES;
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// The app's table of Chinese rule texts, by id: `(title, why)`.
fn zh_table() -> HashMap<String, (String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui/audit_i18n.js");
    let js = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let start = js.find("const RULES_ZH = {").expect("ui/audit_i18n.js defines RULES_ZH");
    let body = js.get(start..).and_then(|s| s.find("\n};").and_then(|end| s.get(..end))).expect("RULES_ZH is closed");
    let entry = Regex::new(r#"(?m)^  "([^"]+)": \{\n    title: "([^"\n]+)",\n    why: "([^"\n]+)",\n  \},$"#).unwrap();
    let keys = Regex::new(r#"(?m)^  "([^"]+)": \{"#).unwrap();
    let mut table = HashMap::new();
    for c in entry.captures_iter(body) {
        let id = c[1].to_owned();
        assert!(table.insert(id.clone(), (c[2].to_owned(), c[3].to_owned())).is_none(), "{id} is in RULES_ZH twice");
    }
    let listed: Vec<_> = keys.captures_iter(body).map(|c| c[1].to_owned()).collect();
    for id in &listed {
        assert!(table.contains_key(id), "{id} in RULES_ZH is not written as {{ title: \"…\", why: \"…\" }}");
    }
    assert_eq!(listed.len(), table.len(), "RULES_ZH lists an id twice");
    table
}

fn has_chinese(s: &str) -> bool {
    s.chars().any(|c| ('\u{4E00}'..='\u{9FFF}').contains(&c))
}

#[test]
fn every_rule_has_a_chinese_title_and_why() {
    let table = zh_table();
    let mut wrong = Vec::new();
    for rule in RULES {
        match table.get(rule.id) {
            None => wrong.push(format!("{}: no entry in ui/audit_i18n.js (English: {:?})", rule.id, rule.title)),
            Some((title, why)) => {
                if !has_chinese(title) || !has_chinese(why) {
                    wrong.push(format!("{}: the title or why is not Chinese", rule.id));
                }
                if why.chars().count() < 20 {
                    wrong.push(format!("{}: the why is too short to say why", rule.id));
                }
            }
        }
    }
    let ids: HashSet<&str> = RULES.iter().map(|r| r.id).collect();
    for id in table.keys() {
        if !ids.contains(id.as_str()) {
            wrong.push(format!("{id}: in ui/audit_i18n.js but not a rule"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
