//! The listing preview's "try a request" box and pinning from the app, in a real window, on a
//! store larger than the listing's budget. Screenshots go to tests/output/.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use serde_json::{Value, json};
use skilldeck_e2e::{Session, enabled, stored_skill};
use std::path::Path;

/// The skill the request needs; its name shares no word with the look-alikes.
const PARSER: &str = "parser-debugging";
/// The skill pinned from the sidebar.
const PINNED: &str = "report-07";
/// config.toml as a user wrote it, comments included.
const CONFIG: &str = "# my settings\n[listing]\n# small on purpose\nbudget_tokens = 400\n";

/// 60 look-alike skills, the parser one and a small budget: far more than the listing shows.
fn fill_store(home: &Path) {
    let write = |name: &str, description: &str| stored_skill(home, name, description);
    for i in 0..60 {
        write(
            &format!("report-{i:02}"),
            &format!("Prepare quarterly revenue report number {i} with charts and summaries for the board"),
        );
    }
    write(PARSER, "Debug recursive-descent parsers that report wrong line numbers");
    std::fs::write(home.join("config.toml"), CONFIG).unwrap();
}

/// Each row of the ranks list: `[name, shown, rank]`.
async fn ranks(s: &Session) -> Vec<Value> {
    let script = "return [...document.querySelectorAll('#listing-ranks .rank-row')]\
                  .map(r => [r.dataset.name, r.dataset.shown, r.dataset.rank]);";
    match s.client.execute(script, vec![]).await.unwrap() {
        Value::Array(rows) => rows,
        other => panic!("{other}"),
    }
}

/// Waits until the first ranks row is `name` shown `shown`.
async fn wait_first(s: &Session, name: &str, shown: &str) {
    let script = format!(
        "const r = document.querySelector('#listing-ranks .rank-row'); \
         return !!r && r.dataset.name === '{name}' && r.dataset.shown === '{shown}';"
    );
    s.wait_until(&format!("{name} first and {shown} in the preview"), &script).await;
}

#[tokio::test(flavor = "current_thread")]
async fn try_a_request_ranks_the_right_skill_first_and_a_pin_keeps_a_skill_in_full() {
    if !enabled("try_a_request_ranks_the_right_skill_first_and_a_pin_keeps_a_skill_in_full") {
        return;
    }
    let s = Session::start_with("listing-try", fill_store).await;
    s.wait_for(&format!(".skill-item[data-key='user/{PINNED}']")).await;

    // A request: the skill it needs is first, in full, rank 1; the rest of the store is past
    // the footer where find_skills takes over.
    s.click("#listing-btn").await;
    s.wait_until("the preview opens", "return document.querySelector('#listing-dialog').open;").await;
    s.type_into("#listing-request", "my recursive-descent parser reports wrong line numbers").await;
    wait_first(&s, PARSER, "full").await;
    let rows = ranks(&s).await;
    assert_eq!(rows[0], json!([PARSER, "full", "1"]));
    assert!(rows.len() < 60, "the budget shows part of the store: {}", rows.len());
    let more = s.wait_text("#listing-more", 5, |t| t.contains("find_skills takes over")).await;
    let n: usize = more.split_whitespace().next().unwrap().parse().unwrap();
    assert!(n > 0 && rows.len() + n >= 61, "{more}");
    let meter = s.text_of("#listing-meter-text").await;
    assert!(meter.contains("of 400 tokens"), "{meter}");
    s.screenshot("request").await;
    s.click("#listing-close").await;
    s.wait_until("the preview closes", "return !document.querySelector('#listing-dialog').open;").await;

    // Pin a skill from the sidebar: it gets a pin mark, config.toml holds it with the user's
    // comments kept.
    s.click(&format!(".skill-item[data-key='user/{PINNED}']")).await;
    s.click("#pin-btn").await;
    s.wait_text(&format!(".skill-item[data-key='user/{PINNED}'] .marker.pinned"), 10, |t| t.contains("pinned")).await;
    s.wait_text("#pin-btn", 10, |t| t.contains("Unpin")).await;
    let config = std::fs::read_to_string(s.home().join("config.toml")).unwrap();
    assert!(config.starts_with("# my settings\n[listing]\n# small on purpose\n"), "{config}");
    assert!(config.contains("pinned = [\"report-07\"]"), "{config}");

    // The preview shows it at once: in full, first, for a request that has nothing to do with it.
    s.click("#listing-btn").await;
    s.wait_until("the preview opens", "return document.querySelector('#listing-dialog').open;").await;
    s.type_into("#listing-request", "translate this poem into French").await;
    wait_first(&s, PINNED, "full").await;
    s.wait_text("#listing-ranks .rank-row .marker.pinned", 5, |t| t.contains("pinned")).await;
    s.screenshot("pinned").await;

    // A workspace profile narrows the preview, and says so.
    let ws = s.tmp.path().join("workspace");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join(".skilldeck.toml"), format!("skills = [\"{PARSER}\"]\n")).unwrap();
    s.type_into("#listing-workspace", &ws.display().to_string()).await;
    s.wait_text("#listing-profile", 10, |t| t.contains(".skilldeck.toml") && t.contains(PARSER)).await;
    s.wait_until(
        "only the profile's skill in the preview",
        "const r = [...document.querySelectorAll('#listing-ranks .rank-row')]; \
         return r.length === 1 && r[0].dataset.name === 'parser-debugging';",
    )
    .await;
    s.click("#listing-dialog h2").await;
    s.screenshot("profile").await;
    s.finish().await;
}
