//! The point of the model: requests in other words, and in Chinese, land nearer the skill they
//! mean than a skill they do not.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::common;

use common::{dot, embedder};

#[test]
fn paraphrases_in_english_and_chinese_find_the_billing_skill() {
    let e = embedder();
    let skills = e
        .embed_passages(&[
            "stripe-billing: Stripe integration for subscriptions, recurring billing, checkout sessions and payment intents in SaaS products.",
            "pdf-convert: Convert PDF documents to Word, Excel or images, and merge or split PDF files.",
        ])
        .unwrap();
    for request in ["let customers pay monthly with a card", "让客户每月用信用卡付款"] {
        let q = e.embed_query(request).unwrap();
        let (billing, pdf) = (dot(&q, &skills[0]), dot(&q, &skills[1]));
        assert!(billing > pdf + 0.02, "{request:?}: billing {billing} vs pdf {pdf}");
    }
    let q = e.embed_query("把这份PDF转换成Word文档").unwrap();
    assert!(dot(&q, &skills[1]) > dot(&q, &skills[0]) + 0.02);
}

#[test]
fn the_model_says_what_it_is() {
    let e = embedder();
    assert_eq!(e.model_id(), skilldeck_embed::DEFAULT_MODEL_ID);
    assert_eq!(e.model_id(), "multilingual-e5-small-q4");
    assert_eq!(e.dim(), 384);
    assert_eq!(e.embed_query("").unwrap().len(), 384);
    assert!(e.embed_passages(&[]).unwrap().is_empty());
}

#[test]
fn the_embedder_is_shared_between_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<skilldeck_embed::Embedder>();
    let e = embedder();
    let single = e.embed_query("merge two PDFs").unwrap();
    let from_threads: Vec<Vec<f32>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..2).map(|_| s.spawn(|| e.embed_query("merge two PDFs").unwrap())).collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for v in from_threads {
        assert_eq!(v, single, "the same text gives the same vector");
    }
}

#[test]
fn peers_are_embedded_on_the_query_side_and_cut_to_the_passage_limit() {
    let e = embedder();
    let text = "stripe-billing: subscriptions, recurring billing and checkout sessions.";
    let peer = e.embed_peers(&[text]).unwrap().pop().unwrap();
    let query = e.embed_query(text).unwrap();
    let passage = e.embed_passages(&[text]).unwrap().pop().unwrap();
    assert!(dot(&peer, &query) > 0.9999, "a short peer is the query's vector");
    assert!(dot(&peer, &passage) < 0.999, "and not the passage's: the prefix differs");
    assert_eq!(e.peer_prefix(), "query: ");
    // A long text keeps only the passage limit's head, as a passage does.
    let short = skilldeck_embed::Embedder::load(&common::model_dir()).unwrap().with_max_passage_tokens(8);
    let long = format!("{text} {}", "and much more about invoices ".repeat(20));
    let head = short.embed_peers(&[&long]).unwrap().pop().unwrap();
    let more = short.embed_peers(&[&format!("{long} and refunds")]).unwrap().pop().unwrap();
    assert_eq!(head, more, "what lies past the limit is not read");
}
