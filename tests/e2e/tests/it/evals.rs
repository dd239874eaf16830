//! A skill's Evals view in the real window: trigger queries written in the form are saved as
//! the skill's own `evals/eval_queries.json` (a new revision), run with the offline ranker (the
//! view says it is one), their results shown query by query, and the run kept for History, which
//! shows it beside the revision it evaluated. Output cases written in the form are run with a
//! model on loopback with the skill and without it, graded expectation by expectation, and
//! written in the agentskills.io layout.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::loopback::{Loopback, Reply, openai_text, openai_tools};
use serde_json::json;
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
    let rows = s.wait_text("#eval-results tbody", 10, |t| t.contains("invoices ×1")).await;
    assert!(rows.contains("should load") && rows.contains("1/1"), "{rows}");
    let kept = s.wait_text("#eval-records", 10, |t| t.contains("triggers 2/2")).await;
    assert!(kept.contains("v:2") && kept.contains("a ranker"), "{kept}");
    s.screenshot("evals-view").await;

    // History shows it beside the revision it evaluated.
    s.click("#history-btn").await;
    let row = s.wait_text("#history tr[data-revision='2'] .evals-cell", 10, |t| !t.is_empty()).await;
    assert_eq!(row, "triggers 2/2");
    assert_eq!(s.text_of("#history tr[data-revision='1'] .evals-cell").await, "");
    s.screenshot("history-evals").await;
    // Comparing the two revisions says what each one's evals found.
    s.click("#history tr[data-revision='1'] .pick-revision").await;
    s.click("#history tr[data-revision='2'] .pick-revision").await;
    s.click("#compare-revisions").await;
    let compared = s.wait_text("#compare-evals", 10, |t| !t.is_empty()).await;
    assert_eq!(compared, "Evals: v:1 not evaluated → v:2 triggers 2/2");
    s.finish().await;
}

#[tokio::test(flavor = "current_thread")]
async fn output_cases_are_written_run_with_and_without_the_skill_and_graded_in_the_evals_view() {
    if !enabled("output_cases_are_written_run_with_and_without_the_skill_and_graded_in_the_evals_view") {
        return;
    }
    let server = Loopback::start().await;
    let s = Session::start("evals-outputs").await;
    let config = format!("[providers.local]\napi = \"openai\"\nbase_url = \"{}\"\nmodel = \"scripted\"\n", server.url);
    std::fs::write(s.home().join("config.toml"), config).unwrap();
    let src = s.skill_source(
        "sales-report",
        "name: sales-report\ndescription: Summarise sales figures into a report.\n",
        "# Sales report\n\nWrite report.md: the top month first, then the total.",
    );
    std::fs::create_dir_all(src.join("evals/files/data")).unwrap();
    std::fs::write(src.join("evals/files/data/sales.csv"), "month,total\nJan,100\nFeb,200\nMarch,300\n").unwrap();
    let out = cli(&s.home(), &["import", src.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    s.click(".skill-item[data-key='user/sales-report']").await;
    s.click("#evals-btn").await;

    // A case written in the form, saved as the skill's evals/evals.json.
    s.click("#eval-add-case").await;
    s.type_into("#eval-cases .eval-prompt", "Summarise the sales in data/sales.csv into report.md").await;
    s.type_into("#eval-cases .eval-expected", "report.md naming the top month").await;
    s.type_into("#eval-cases .eval-files", "evals/files/data/sales.csv").await;
    // One expectation a line: Enter (WebDriver's key U+E007) between them.
    s.type_into(
        "#eval-cases .eval-expectations",
        "The report names March as the top month\u{e007}The answer gives the total",
    )
    .await;
    s.click("#eval-save-cases").await;
    s.wait_until("the cases are drawn again from the saved revision", "return !!document.querySelector('#eval-cases legend') && document.querySelector('#eval-cases legend').textContent === 'eval-1' && !document.querySelector('#eval-run-outputs').disabled;").await;
    let saved: serde_json::Value =
        serde_json::from_slice(&std::fs::read(s.home().join("skills/user/sales-report/evals/evals.json")).unwrap())
            .unwrap();
    assert_eq!(
        saved,
        json!({"skill_name": "sales-report", "evals": [{"id": 1, "prompt": "Summarise the sales in data/sales.csv into report.md",
            "expected_output": "report.md naming the top month", "files": ["evals/files/data/sales.csv"],
            "expectations": ["The report names March as the top month", "The answer gives the total"]}]})
    );

    // The model: with the skill it loads it, writes the report and answers; the grader passes
    // both; without the skill it answers in a line, and the grader fails both.
    server.push(Reply::sse(openai_tools(&[("c1", "view_skill", json!({"name": "sales-report"}))])));
    server.push(Reply::sse(openai_tools(&[(
        "c2",
        "write_file",
        json!({"path": "report.md", "content": "Top month: March\n"}),
    )])));
    server.push(Reply::sse(openai_text("I wrote report.md; the total is 600.")));
    let verdicts = |passed: bool, evidence: &str| {
        json!({"expectations": [
            {"text": "The report names March as the top month", "passed": passed, "evidence": evidence},
            {"text": "The answer gives the total", "passed": passed, "evidence": evidence},
        ]})
        .to_string()
    };
    server.push(Reply::sse(openai_text(&verdicts(true, "report.md says Top month: March; the answer says 600"))));
    server.push(Reply::sse(openai_text("Sales look fine to me.")));
    server.push(Reply::sse(openai_text(&verdicts(false, "no report.md was written"))));
    assert_eq!(
        s.text_of("#eval-output-provider option:checked").await,
        "scripted via Chat Completions at ".to_owned() + &server.url
    );
    s.click("#eval-run-outputs").await;
    let summary = s.wait_text("#eval-output-summary", 60, |t| !t.is_empty()).await;
    assert!(summary.starts_with("100% of expectations met with the skill, 0% without"), "{summary}");
    let table = s.text_of("#eval-output-table tbody").await;
    assert!(table.contains("report.md says Top month: March") && table.contains("no report.md was written"), "{table}");
    let iteration = s.home().join("evals/user/sales-report-workspace/iteration-1");
    assert_eq!(
        std::fs::read_to_string(iteration.join("eval-1/with_skill/outputs/report.md")).unwrap(),
        "Top month: March\n"
    );
    assert!(iteration.join("benchmark.json").is_file());
    s.wait_text("#eval-records", 10, |t| t.contains("100% with, 0% without")).await;
    s.client
        .execute("document.querySelector('#eval-output-summary').scrollIntoView({block: 'start'});", vec![])
        .await
        .unwrap();
    s.screenshot("evals-outputs").await;
    s.finish().await;
}

#[tokio::test(flavor = "current_thread")]
async fn the_description_optimizer_offers_its_best_rewrite_as_a_draft_that_opens_in_the_editor() {
    if !enabled("the_description_optimizer_offers_its_best_rewrite_as_a_draft_that_opens_in_the_editor") {
        return;
    }
    let server = Loopback::start().await;
    let s = Session::start("evals-improve").await;
    let config = format!("[providers.local]\napi = \"openai\"\nbase_url = \"{}\"\nmodel = \"scripted\"\n", server.url);
    std::fs::write(s.home().join("config.toml"), config).unwrap();
    let src =
        s.skill_source("payouts", "name: payouts\ndescription: Handles payouts.\n", "# Payouts\n\nReturn the money.");
    std::fs::create_dir_all(src.join("evals")).unwrap();
    let queries = json!([
        {"query": "I want my money back for order 7", "should_trigger": true},
        {"query": "Reimburse my travel costs from May", "should_trigger": true},
        {"query": "What is the weather in Lyon?", "should_trigger": false},
        {"query": "Write a haiku about autumn", "should_trigger": false},
    ]);
    std::fs::write(src.join("evals/eval_queries.json"), queries.to_string()).unwrap();
    let out = cli(&s.home(), &["import", src.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    s.click(".skill-item[data-key='user/payouts']").await;
    s.click("#evals-btn").await;
    s.wait_until(
        "the queries are shown",
        "return document.querySelectorAll('#eval-queries .eval-query').length === 4;",
    )
    .await;
    s.client.execute("const p = document.querySelector('#eval-provider'); p.value = 'local'; p.dispatchEvent(new Event('change'));", vec![]).await.unwrap();
    s.type_into("#eval-runs", "1").await;

    // The queries split 2 to train and 2 to validate, each kind once in each, run in that
    // order: the description as it is loads nothing; the rewrite loads the skill for both
    // requests that should. The model is asked for one rewrite between the two.
    for _ in 0..4 {
        server.push(Reply::sse(openai_text("I can answer that without a skill.")));
    }
    server.push(Reply::sse(openai_text(
        "<description>Use this skill when someone wants money returned to them: refunds, reimbursements and chargebacks.</description>",
    )));
    for _ in 0..2 {
        server.push(Reply::sse(openai_tools(&[("c1", "view_skill", json!({"name": "payouts"}))])));
        server.push(Reply::sse(openai_text("No skill needed.")));
    }
    s.click("#eval-improve").await;
    let verdict = s.wait_text("#eval-improve-verdict", 60, |t| !t.is_empty()).await;
    assert!(verdict.contains("in a draft of the skill"), "{verdict}");
    let table = s.text_of("#eval-candidates tbody").await;
    assert!(table.contains("As it is") && table.contains("Rewrite 1") && table.contains("2/2"), "{table}");
    s.screenshot("improve").await;

    // Nothing was stored: the skill is still v:1; the draft holds the rewrite and opens.
    assert_eq!(std::fs::read_to_string(s.home().join("skills/user/payouts/.version")).unwrap().trim(), "1");
    s.click("#eval-open-draft").await;
    s.wait_until(
        "the editor shows the drafted description",
        "const h = document.querySelector('#editor-cm .cm-host'); \
         const c = h && h.shadowRoot && h.shadowRoot.querySelector('.cm-content'); \
         return !!c && c.innerText.includes('money returned to them');",
    )
    .await;
    s.screenshot("improve-draft").await;
    s.finish().await;
}
