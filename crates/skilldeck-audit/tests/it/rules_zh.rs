//! Every rule has a Chinese title and why in the desktop app's table
//! (`ui/i18n/audit_rules.zh.json`, which `ui/audit_i18n.js` imports), so a new rule cannot reach
//! a Chinese reader in English only, and the table names no rule that is gone.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use skilldeck_audit::rules::RULES;
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

/// One rule's entry in the table.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ZhRule {
    title: String,
    why: String,
}

/// The app's table of Chinese rule texts, by id. serde_json keeps the last of two equal keys,
/// so the keys are counted in the text as well.
fn zh_table() -> BTreeMap<String, ZhRule> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui/i18n/audit_rules.zh.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let table: BTreeMap<String, ZhRule> =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not {{id: {{title, why}}}}: {e}", path.display()));
    let entries = text.lines().filter(|l| l.starts_with("  \"") && l.ends_with(": {")).count();
    assert_eq!(entries, table.len(), "an id is in {} twice", path.display());
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
            None => {
                wrong.push(format!("{}: no entry in ui/i18n/audit_rules.zh.json (English: {:?})", rule.id, rule.title))
            }
            Some(ZhRule { title, why }) => {
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
            wrong.push(format!("{id}: in ui/i18n/audit_rules.zh.json but not a rule"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
