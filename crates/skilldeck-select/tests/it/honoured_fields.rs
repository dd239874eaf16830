//! The frontmatter fields selection honours beyond the spec: `disable-model-invocation: true`
//! keeps a skill out of the listing and `find_skills` whatever the budget, and `when_to_use`
//! is ranked with the description.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::common;
use skilldeck_select::find;
use skilldeck_select::listing::{self, ListingOptions};
use skilldeck_select::ranker::{Doc, DocText, Field, Index, Query};

use common::entry;
use skilldeck_skill::entry::ListedEntry;

fn store() -> Vec<ListedEntry> {
    vec![
        entry("deploy-prod", "description: Deploy the app to production servers.\ndisable-model-invocation: true\n"),
        entry("deploy-docs", "description: Deploy the documentation site.\n"),
        entry("pdf-tools", "description: Extract text and tables from PDF files.\n"),
    ]
}

#[test]
fn a_skill_its_author_keeps_from_models_is_never_listed_or_found() {
    let entries = store();
    let opts = ListingOptions::default();
    let full = listing::build(&entries, &opts);
    assert_eq!(full.names(), vec!["deploy-docs", "pdf-tools"]);
    assert!(!full.text.contains("deploy-prod"), "{}", full.text);
    // Ranked (a budget too small for every line in full): still not there, not even counted.
    let tight = ListingOptions { budget_tokens: 40, ..ListingOptions::default() };
    let ranked = listing::build_ranked(&entries, &tight, &Query::new("deploy to production"));
    assert!(!ranked.names().contains(&"deploy-prod"), "{:?}", ranked.names());
    assert!(!ranked.text.contains("deploy-prod"));
    assert!(!listing::is_listed(&entries[0], &opts));
    assert!(listing::is_listed(&entries[1], &opts));
    // Searched by words only it matches, or by its very name: nothing.
    let found = find::find(&entries, &opts, "deploy to production servers", 5);
    assert_eq!(found.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), vec!["deploy-docs"]);
    assert!(find::find(&entries, &opts, "deploy-prod", 5).iter().all(|f| f.name != "deploy-prod"));
    // Pinned or found earlier changes nothing: the author said no model invokes it.
    let pinned = ListingOptions {
        pinned: ["deploy-prod".to_owned()].into(),
        found: vec!["deploy-prod".to_owned()],
        ..ListingOptions::default()
    };
    assert!(!listing::build(&entries, &pinned).names().contains(&"deploy-prod"));
}

#[test]
fn when_to_use_is_ranked_with_the_description() {
    // Two skills alike but for `when_to_use`: the request's words are only in one's.
    let entries = vec![
        entry("invoice-a", "description: Work with invoices.\n"),
        entry(
            "invoice-b",
            "description: Work with invoices.\nwhen_to_use: When a vendor bill arrives as a scanned PDF\n",
        ),
    ];
    let opts = ListingOptions::default();
    let found = find::find(&entries, &opts, "a vendor sent a scanned bill", 5);
    assert_eq!(found.first().map(|f| f.name.as_str()), Some("invoice-b"), "{found:?}");
    assert!(found.iter().all(|f| f.name != "invoice-a"), "no word of the request is in invoice-a");
    assert!(found[0].why.contains("when_to_use"), "{}", found[0].why);
    // Words in both the description and `when_to_use` rank the one with both first.
    let found = find::find(&entries, &opts, "invoices", 5);
    assert_eq!(found.len(), 2);
}

#[test]
fn a_document_without_when_to_use_scores_as_before() {
    let texts = [
        DocText {
            name: "pdf-tools",
            description: "Extract text and tables from PDF files",
            description_zh: "",
            headings: &[],
        },
        DocText { name: "csv-tools", description: "Clean and join CSV tables", description_zh: "", headings: &[] },
    ];
    let plain = Index::build(texts);
    let as_docs = Index::build(texts.map(|text| Doc { text, when_to_use: "" }));
    let q = Query::new("tables from a pdf");
    assert_eq!(plain.scores(&q), as_docs.scores(&q));
    // The same two with a `when_to_use` on the second: its score rises.
    let with = Index::build([
        Doc { text: texts[0], when_to_use: "" },
        Doc { text: texts[1], when_to_use: "When a PDF table was exported to CSV" },
    ]);
    let (before, after) = (plain.scores(&q), with.scores(&q));
    assert!(after[1] > before[1], "{before:?} {after:?}");
    assert!(after[0] > 0.0);
    assert_eq!(with.why(1, &Query::new("exported")), vec![("exported".to_owned(), vec![Field::WhenToUse])]);
}

#[test]
fn the_model_reads_the_name_description_and_when_to_use_but_not_the_chinese_or_the_headings() {
    let e = entry(
        "invoice-organizer",
        "description: Sort receipts and invoices into folders.\ndescription_zh: \"整理发票和收据\"\nwhen_to_use: Before the accountant asks for them.\n",
    );
    let text = skilldeck_select::ranker::dense::passage(&e.entry);
    // The parts are joined as they always were (a description's own full stop kept), so a
    // skill without `description_zh` keeps the vector cached for it.
    assert_eq!(
        text,
        "invoice organizer. Sort receipts and invoices into folders.. Before the accountant asks for them."
    );
    assert!(!text.contains("发票") && !text.contains("Steps"), "{text}");
    // BM25 still reads the Chinese description: its words find the skill.
    let found = find::find(&[e], &ListingOptions::default(), "整理发票", find::DEFAULT_LIMIT);
    assert_eq!(found.first().map(|f| f.name.as_str()), Some("invoice-organizer"));
}
