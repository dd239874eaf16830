//! A skill's Evals view in the real window: trigger queries written in the form are saved as
//! the skill's own `evals/eval_queries.json` (a new revision), run with the offline ranker (the
//! view says it is one), their results shown query by query, and the run kept for History, which
//! shows it beside the revision it evaluated.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_e2e::{Session, cli, enabled};

#[tokio::test(flavor = "current_thread")]
async fn trigger_queries_are_written_run_and_kept_per_revision_in_the_evals_view() {
    if !enabled("trigger_queries_are_written_run_and_kept_per_revision_in_the_evals_view") {
        return;
    }
    let s = Session::start("evals").await;
    for (name, description) in [
        ("refunds", "Process customer refund requests and issue refunds for damaged or late orders."),
        ("invoices", "Write, correct and send invoices to customers, with VAT and payment terms."),
    ] {
        let src = s.skill_source(name, &format!("name: {name}\ndescription: {description}\n"), &format!("# {name}"));
        let out = cli(&s.home(), &["import", src.to_str().unwrap()]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    s.click(".skill-item[data-key='user/refunds']").await;
    s.click("#evals-btn").await;
    s.wait_text("#eval-queries", 10, |t| t.contains("No trigger queries yet")).await;

    // Two requests: one the skill should take, one its neighbour should.
    s.click("#eval-add").await;
    s.type_into(
        "#eval-queries tbody tr:nth-child(1) .eval-query",
        "Please refund order 1234, the parcel arrived damaged",
    )
    .await;
    s.click("#eval-add").await;
    s.type_into(
        "#eval-queries tbody tr:nth-child(2) .eval-query",
        "Write an invoice for ACME with VAT and payment terms",
    )
    .await;
    s.click("#eval-queries tbody tr:nth-child(2) .eval-should").await;
    s.wait_until("Run waits for the save", "return document.querySelector('#eval-run').disabled;").await;
    s.click("#eval-save").await;
    let saved = s.home().join("skills/user/refunds/evals/eval_queries.json");
    s.wait_until("the form is drawn again from the saved revision", "return document.querySelectorAll('#eval-queries .eval-query').length === 2 && !document.querySelector('#eval-run').disabled;").await;
    let queries: serde_json::Value = serde_json::from_slice(&std::fs::read(&saved).unwrap()).unwrap();
    assert_eq!(
        queries,
        serde_json::json!([
            {"query": "Please refund order 1234, the parcel arrived damaged", "should_trigger": true},
            {"query": "Write an invoice for ACME with VAT and payment terms", "should_trigger": false},
        ])
    );
    let version = std::fs::read_to_string(s.home().join("skills/user/refunds/.version")).unwrap();
    assert_eq!(version.trim(), "2", "the queries are a new revision");

    // Run them with the offline ranker, once each: it says what it is.
    let note = s.text_of("#eval-provider-note").await;
    assert!(note.contains("ranker, not a model"), "{note}");
    s.type_into("#eval-runs", "1").await;
    s.click("#eval-run").await;
    let summary = s.wait_text("#eval-summary", 60, |t| !t.is_empty()).await;
    assert!(summary.starts_with("2 of 2 queries passed"), "{summary}");
    let rows = s.text_of("#eval-results tbody").await;
    assert!(rows.contains("should load") && rows.contains("1/1") && rows.contains("invoices ×1"), "{rows}");
    let kept = s.wait_text("#eval-records", 10, |t| t.contains("triggers 2/2")).await;
    assert!(kept.contains("v:2") && kept.contains("a ranker"), "{kept}");
    s.screenshot("evals-view").await;

    // History shows it beside the revision it evaluated.
    s.click("#history-btn").await;
    let row = s.wait_text("#history tr[data-revision='2'] .evals-cell", 10, |t| !t.is_empty()).await;
    assert_eq!(row, "triggers 2/2");
    assert_eq!(s.text_of("#history tr[data-revision='1'] .evals-cell").await, "");
    s.screenshot("history-evals").await;
    s.finish().await;
}
