//! Ranking by meaning in the real window, with the real shipped model: the app computes the
//! skills' vectors in the background after start (the preview says so, then says it ranks by
//! meaning), and a request sharing no word with its skill puts that skill first. Screenshots go
//! to tests/output/.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_e2e::{Session, enabled, root, stored_skill};
use std::path::{Path, PathBuf};

/// The skill the request needs; it shares no word with the request.
const BILLING: &str = "stripe-billing";

/// 40 look-alike skills and the billing one: more than are computed on the spot, so the app
/// indexes in the background.
fn fill_store(home: &Path) {
    let write = |name: &str, description: &str| stored_skill(home, name, description);
    for i in 0..40 {
        write(
            &format!("report-{i:02}"),
            &format!("Prepare quarterly revenue report number {i} with charts and summaries for the board"),
        );
    }
    write(BILLING, "Stripe integration: subscriptions, recurring invoices, checkout sessions and payment intents");
    std::fs::write(home.join("config.toml"), "[listing]\nbudget_tokens = 300\n").unwrap();
}

/// The folder holding the model folder `scripts/setup` unpacked.
fn models() -> PathBuf {
    let dir = root().join(".tools/models");
    assert!(dir.join("multilingual-e5-small-q4").is_dir(), "no model in {}: run ./scripts/setup", dir.display());
    dir
}

#[tokio::test(flavor = "current_thread")]
async fn a_request_worded_otherwise_ranks_its_skill_first_once_indexed() {
    if !enabled("a_request_worded_otherwise_ranks_its_skill_first_once_indexed") {
        return;
    }
    let models = models();
    let s = Session::start_in("meaning", fill_store, &[("SKILLDECK_MODELS_DIR", Some(&models))]).await;
    // The sidebar keeps only the rows in view: the first look-alike is one of them.
    s.wait_for(".skill-item[data-key='user/report-00']").await;
    s.click("#listing-btn").await;
    s.wait_until("the preview opens", "return document.querySelector('#listing-dialog').open;").await;
    // The background indexing ends with the line saying the ranking uses meaning.
    s.type_into("#listing-request", "let customers pay monthly with a card").await;
    let line = s
        .wait_text("#listing-meaning", 120, |t| {
            t.contains("by meaning (multilingual-e5-small-q4 and all-MiniLM-L6-v2)")
        })
        .await;
    assert!(line.starts_with("Ranked by words and by meaning"), "{line}");
    // A new preview once the vectors are in: the billing skill first, in full.
    s.type_into("#listing-request", "let customers pay monthly with a card ").await;
    s.wait_until(
        "the billing skill first",
        &format!(
            "const r = document.querySelector('#listing-ranks .rank-row'); \
             return !!r && r.dataset.name === '{BILLING}' && r.dataset.shown === 'full';"
        ),
    )
    .await;
    s.screenshot("ranked-by-meaning").await;
    s.finish().await;
}
