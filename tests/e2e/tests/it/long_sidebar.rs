//! The sidebar with 2,000 skills in a real window: only the rows in view are in the page, and
//! keys, search and scrolling still reach every skill. Screenshots go to tests/output/.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use serde_json::{Value, json};
use skilldeck_e2e::{Session, enabled};
use std::path::Path;

/// How many skills the store holds besides the bundled ones.
const SKILLS: usize = 2000;

/// Writes `SKILLS` user skills straight into the store, as a long-used one would hold them;
/// `skill-0003` has no description, so it is invalid and carries a marker.
fn fill_store(home: &Path) {
    for i in 1..=SKILLS {
        let d = home.join(format!("skills/user/skill-{i:04}"));
        std::fs::create_dir_all(&d).unwrap();
        let description = if i == 3 {
            String::new()
        } else {
            format!("description: \"Skill {i}: turns quarterly reports into charts\"\n")
        };
        std::fs::write(d.join("SKILL.md"), format!("---\nname: skill-{i:04}\n{description}---\n# Skill {i}\n"))
            .unwrap();
        std::fs::write(d.join(".version"), "1\n").unwrap();
    }
}

/// Runs `script` in the page and returns its value.
async fn eval(s: &Session, script: &str) -> Value {
    s.client.execute(script, vec![]).await.unwrap()
}

/// How many skill rows are in the page now.
async fn rows_in_page(s: &Session) -> u64 {
    eval(s, "return document.querySelectorAll('#sidebar .skill-item').length;").await.as_u64().unwrap()
}

/// Whether the row of `key` is in the page and wholly inside the sidebar's visible box.
async fn row_visible(s: &Session, key: &str) -> bool {
    let script = "const r = document.querySelector(`.skill-item[data-key='${arguments[0]}']`); if (!r) return false; \
                  const a = r.getBoundingClientRect(), b = document.querySelector('#sidebar').getBoundingClientRect(); \
                  return a.top >= b.top - 1 && a.bottom <= b.bottom + 1;";
    s.client.execute(script, vec![json!(key)]).await.unwrap() == json!(true)
}

#[tokio::test(flavor = "current_thread")]
async fn a_long_sidebar_keeps_only_the_rows_in_view_in_the_page() {
    if !enabled("a_long_sidebar_keeps_only_the_rows_in_view_in_the_page") {
        return;
    }
    let s = Session::start_with("long-sidebar", fill_store).await;
    s.wait_for(".skill-item[data-key='user/skill-0001']").await;
    let all = eval(&s, "return Number(document.querySelector('#sidebar [role=option]').getAttribute('aria-setsize'));")
        .await
        .as_u64()
        .unwrap();
    assert!(all >= SKILLS as u64, "the list says it holds every skill: {all}");
    let rows = rows_in_page(&s).await;
    assert!(rows < 60, "{rows} rows in the page for {all} skills: the list is not windowed");
    // A listbox of options, each saying where it stands; the invalid one keeps its marker.
    assert_eq!(eval(&s, "return document.querySelector('#sidebar [role=listbox]') !== null;").await, json!(true));
    assert_eq!(
        eval(
            &s,
            "return document.querySelector(\".skill-item[data-key='user/skill-0002']\").getAttribute('aria-posinset');"
        )
        .await,
        json!("2")
    );
    s.wait_text(".skill-item[data-key='user/skill-0003'] .marker.error", 10, |t| !t.is_empty()).await;
    s.screenshot("top").await;

    // Arrow keys move the selection down past the bottom of the view; it scrolls along.
    s.click(".skill-item[data-key='user/skill-0001']").await;
    let list = s.wait_for("#sidebar [role=listbox]").await;
    for _ in 0..24 {
        list.send_keys("\u{E015}").await.unwrap();
    }
    s.wait_for(".skill-item.selected[data-key='user/skill-0025']").await;
    s.wait_text(".skill-head h2", 10, |t| t == "skill-0025").await;
    assert!(row_visible(&s, "user/skill-0025").await, "the selected row scrolled into view");
    assert_eq!(eval(&s, "return document.querySelectorAll('#sidebar .skill-item.selected').length;").await, json!(1));
    let active = eval(
        &s,
        "const l = document.querySelector('#sidebar [role=listbox]'); \
                           return document.getElementById(l.getAttribute('aria-activedescendant'))?.dataset.key;",
    )
    .await;
    assert_eq!(active, json!("user/skill-0025"), "assistive technology is told the current option");
    list.send_keys("\u{E013}").await.unwrap();
    s.wait_for(".skill-item.selected[data-key='user/skill-0024']").await;
    assert!(rows_in_page(&s).await < 60, "moving the selection builds no other rows");
    s.screenshot("arrow-keys").await;

    // A search filters the whole list, not the rows in the page, and says how many match.
    s.type_into("#search", "skill-19").await;
    s.wait_text("#search-count", 10, |t| t.starts_with("100 of ")).await;
    let shown = "return [...document.querySelectorAll('#sidebar .skill-item .skill-name')].map((e) => e.textContent);";
    let names = eval(&s, shown).await;
    let names: Vec<&str> = names.as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert!(!names.is_empty() && names.len() < 60, "{} rows in the page for 100 matches", names.len());
    assert!(names.iter().all(|n| n.starts_with("skill-19")), "only matches shown: {names:?}");
    assert_eq!(
        eval(&s, "return document.querySelector('#sidebar [role=option]').getAttribute('aria-setsize');").await,
        json!("100")
    );
    s.type_into("#search", "skill-1999").await;
    s.wait_text("#search-count", 10, |t| t.starts_with("1 of ")).await;
    assert_eq!(eval(&s, shown).await, json!(["skill-1999"]));
    s.screenshot("search").await;

    // Cleared, the list scrolls to its end and shows the last skill.
    s.wait_for("#search").await.clear().await.unwrap();
    s.client.execute("document.querySelector('#search').dispatchEvent(new Event('input'));", vec![]).await.unwrap();
    s.wait_text("#search-count", 10, str::is_empty).await;
    let last = format!("user/skill-{SKILLS:04}");
    eval(&s, "const b = document.querySelector('#sidebar'); b.scrollTop = b.scrollHeight; return null;").await;
    s.wait_until(
        "the last skill shows at the end of the list",
        &format!("const b = document.querySelector('#sidebar'); return b.scrollTop > 0 && !!document.querySelector(\".skill-item[data-key='{last}']\");"),
    )
    .await;
    assert!(row_visible(&s, &last).await, "the last of the user's skills is in view at the end");
    // The bundled skills come after the user's: the very last row is the last bundled one.
    assert_eq!(
        eval(&s, "const r = [...document.querySelectorAll('#sidebar .skill-item')]; return r[r.length - 1].dataset.key.startsWith('system/');").await,
        json!(true)
    );
    assert!(rows_in_page(&s).await < 60, "scrolling to the end keeps the page small");
    s.screenshot("end").await;
    s.finish().await;
}
