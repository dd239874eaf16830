//! The audit as SARIF 2.1.0, for code-scanning tools: one run, the rule table as the tool's
//! rules, one result per finding. Holds the mapping only.

use crate::finding::Finding;
use crate::rules::RULES;
use serde_json::{Value, json};
use skilldeck_skill::risk::RiskLevel;

/// The schema the output follows.
pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

fn level(s: RiskLevel) -> &'static str {
    match s {
        RiskLevel::Critical | RiskLevel::High => "error",
        RiskLevel::Medium => "warning",
        RiskLevel::Low | RiskLevel::Info => "note",
    }
}

/// GitHub code scanning's `security-severity`: a CVSS-like score that sorts alerts.
fn score(s: RiskLevel) -> &'static str {
    match s {
        RiskLevel::Critical => "9.5",
        RiskLevel::High => "8.0",
        RiskLevel::Medium => "5.5",
        RiskLevel::Low => "3.0",
        RiskLevel::Info => "1.0",
    }
}

/// The SARIF log of the findings of several skills, each with the folder it audited (`base`,
/// relative to where the tool ran, or absolute; empty for an archive or a single file) that
/// its findings' files are relative to.
pub fn log<'a>(skills: impl IntoIterator<Item = (&'a str, &'a [Finding])>) -> Value {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "name": r.id.replace(['.', '-'], "_"),
                "shortDescription": { "text": r.title },
                "fullDescription": { "text": r.why },
                "help": { "text": r.why },
                "defaultConfiguration": { "level": level(r.severity) },
                "properties": {
                    "tags": ["security", r.id.split('.').next().unwrap_or_default()],
                    "security-severity": score(r.severity),
                    "severity": r.severity.as_str(),
                },
            })
        })
        .collect();
    let mut results = Vec::new();
    for (base, findings) in skills {
        for f in findings {
            let uri =
                if base.is_empty() { f.file.clone() } else { format!("{}/{}", base.trim_end_matches('/'), f.file) };
            let mut location = json!({ "physicalLocation": { "artifactLocation": { "uri": uri } } });
            if let Some(line) = f.line {
                location["physicalLocation"]["region"] =
                    json!({ "startLine": line, "snippet": { "text": f.evidence } });
            }
            let index = RULES.iter().position(|r| r.id == f.rule).unwrap_or_default();
            let mut message = format!("{}: {}", f.title, f.evidence);
            if let Some(h) = &f.hidden {
                message.push_str(&format!(" (hidden text: {h})"));
            }
            results.push(json!({
                "ruleId": f.rule,
                "ruleIndex": index,
                "level": level(f.severity),
                "message": { "text": message },
                "locations": [location],
                "partialFingerprints": { "skilldeckFinding/v1": f.fingerprint },
                "properties": { "severity": f.severity.as_str() },
            }));
        }
    }
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "skilldeck-audit",
                "informationUri": "https://agentskills.io",
                "semanticVersion": skilldeck_skill::APP_VERSION,
                "rules": rules,
            } },
            "results": results,
        }],
    })
}
