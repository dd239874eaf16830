//! The Hugging Face loader against the E5S1 engine: the shipped model written out in the Hugging
//! Face layout (f16 weights, its vocabulary in a `tokenizer.json`) must tokenize plain text to
//! the same ids and embed it to the same vectors; a folder this engine cannot run says why.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::{dot, embedder, model_dir};
use skilldeck_embed::{EmbedError, Embedder, is_model_dir, write_hf_folder};

/// The shipped model in the Hugging Face layout, written once per test binary.
fn hf_dir() -> &'static Path {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &DIR.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("intfloat--multilingual-e5-small");
        write_hf_folder(&model_dir(), &dir).unwrap();
        (tmp, dir)
    })
    .1
}

const TEXTS: [&str; 4] = [
    "let customers pay monthly with a card",
    "Stripe billing: subscriptions, invoices and payments for a SaaS product.",
    "will my CV survive the robots?",
    "Review a pull request for security problems before it is merged.",
];

#[test]
fn the_same_weights_in_the_hugging_face_layout_give_the_same_ids_and_vectors() {
    let dir = hf_dir();
    assert!(is_model_dir(dir));
    let hf = Embedder::load(dir).unwrap();
    let e5 = embedder();
    assert_eq!(hf.model_id(), "intfloat--multilingual-e5-small", "a Hugging Face model is named by its folder");
    assert_eq!(hf.prefixes(), ("query: ", "passage: "), "the prompts come from config_sentence_transformers.json");
    assert_eq!(hf.dim(), 384);
    let hf_passages = hf.embed_passages(&TEXTS).unwrap();
    let e5_passages = e5.embed_passages(&TEXTS).unwrap();
    for (i, text) in TEXTS.iter().enumerate() {
        assert_eq!(hf.query_tokens(text).unwrap(), e5.query_tokens(text).unwrap(), "query ids of {text:?}");
        assert_eq!(hf.passage_tokens(text).unwrap(), e5.passage_tokens(text).unwrap(), "passage ids of {text:?}");
        let (a, b) = (hf.embed_query(text).unwrap(), e5.embed_query(text).unwrap());
        assert!(dot(&a, &b) > 0.9995, "query vector of {text:?}: cosine {}", dot(&a, &b));
        let cos = dot(&hf_passages[i], &e5_passages[i]);
        assert!(cos > 0.9995, "passage vector of {text:?}: cosine {cos}");
    }
    // And it ranks: the request is closest to the Stripe passage.
    let q = hf.embed_query(TEXTS[0]).unwrap();
    let best = (1..TEXTS.len()).max_by(|&x, &y| dot(&q, &hf_passages[x]).total_cmp(&dot(&q, &hf_passages[y])));
    assert_eq!(best, Some(1));
}

#[test]
fn long_inputs_are_cut_to_the_limit_keeping_the_closing_token() {
    let hf = Embedder::load(hf_dir()).unwrap().with_max_passage_tokens(16);
    let long = TEXTS.join(" ").repeat(4);
    let ids = hf.passage_tokens(&long).unwrap();
    assert_eq!(ids.len(), 16);
    assert_eq!(ids.last(), Some(&2), "</s> ends a cut passage");
    assert_eq!(ids, Embedder::load(&model_dir()).unwrap().with_max_passage_tokens(16).passage_tokens(&long).unwrap());
}

#[test]
fn a_peer_gets_e5s_query_prefix_but_never_a_retrieval_instruction() {
    let e5 = Embedder::load(hf_dir()).unwrap();
    assert_eq!(e5.peer_prefix(), "query: ");
    let bge = edited(|d| {
        let prompts =
            r#"{"prompts": {"query": "Represent this sentence for searching relevant passages: ", "passage": ""}}"#;
        std::fs::write(d.join("config_sentence_transformers.json"), prompts).unwrap();
    });
    let bge = Embedder::load(bge.path()).unwrap();
    assert_eq!(bge.peer_prefix(), "", "an instruction to retrieve is left off a peer");
    let text = "Rewrite git history: interactive rebase, squash commits.";
    assert_eq!(bge.embed_peers(&[text]).unwrap(), bge.embed_passages(&[text]).unwrap());
}

/// A copy of the Hugging Face folder with `edit` applied to it.
fn edited(edit: impl FnOnce(&Path)) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    for entry in walk(hf_dir()) {
        let rel = entry.strip_prefix(hf_dir()).unwrap();
        std::fs::create_dir_all(dir.join(rel).parent().unwrap()).unwrap();
        // The weights are large: link them instead of copying.
        if rel == Path::new("model.safetensors") {
            std::os::unix::fs::symlink(&entry, dir.join(rel)).unwrap();
        } else {
            std::fs::copy(&entry, dir.join(rel)).unwrap();
        }
    }
    edit(dir);
    tmp
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() { out.extend(walk(&p)) } else { out.push(p) }
    }
    out
}

fn load_err(dir: &Path) -> String {
    match Embedder::load(dir) {
        Ok(_) => panic!("loading {} should fail", dir.display()),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_model_this_engine_cannot_run_says_what_is_wrong() {
    let deberta = edited(|d| {
        let c = std::fs::read_to_string(d.join("config.json")).unwrap().replace("\"bert\"", "\"deberta-v2\"");
        std::fs::write(d.join("config.json"), c).unwrap();
    });
    let msg = load_err(deberta.path());
    assert!(msg.contains("deberta-v2") && msg.contains("BERT encoders"), "{msg}");

    let no_tokenizer = edited(|d| std::fs::remove_file(d.join("tokenizer.json")).unwrap());
    assert!(!is_model_dir(no_tokenizer.path()));
    let msg = load_err(no_tokenizer.path());
    assert!(msg.contains("tokenizer.json") && msg.contains("missing"), "{msg}");

    let bad_tokenizer = edited(|d| std::fs::write(d.join("tokenizer.json"), "{\"model\": 3}").unwrap());
    let msg = load_err(bad_tokenizer.path());
    assert!(msg.contains("tokenizer.json") && msg.contains("tokenizers library cannot read it"), "{msg}");

    let max_pooling = edited(|d| {
        std::fs::write(
            d.join("1_Pooling/config.json"),
            r#"{"pooling_mode_max_tokens": true, "pooling_mode_mean_tokens": false}"#,
        )
        .unwrap()
    });
    assert!(load_err(max_pooling.path()).contains("max pooling"));
}

#[test]
fn truncated_weights_are_refused_not_read_past_their_end() {
    let tmp = edited(|d| {
        std::fs::remove_file(d.join("model.safetensors")).unwrap();
        let bytes = std::fs::read(hf_dir().join("model.safetensors")).unwrap();
        std::fs::write(d.join("model.safetensors"), &bytes[..bytes.len() / 2]).unwrap();
    });
    match Embedder::load(tmp.path()) {
        Err(EmbedError::Truncated { what, .. }) => assert!(what.contains("tensor data"), "{what}"),
        Err(e) => panic!("expected Truncated, got {e}"),
        Ok(_) => panic!("half a weights file loaded"),
    }
}

#[test]
fn an_xlm_roberta_checkpoint_numbers_positions_from_after_its_padding_id() {
    // The same weights as XLM-R stores them: tensors under `roberta.`, two more position rows
    // in front (padding id 1: its first token is at row 2), the first two filled with values
    // that would spoil every vector if they were read.
    let tmp = edited(|d| {
        std::fs::remove_file(d.join("model.safetensors")).unwrap();
        let bytes = std::fs::read(hf_dir().join("model.safetensors")).unwrap();
        let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
        let mut owned: Vec<(String, Vec<usize>, Vec<u8>)> = Vec::new();
        for (name, view) in st.tensors() {
            let (mut shape, mut data) = (view.shape().to_vec(), view.data().to_vec());
            if name == "embeddings.position_embeddings.weight" {
                let junk: Vec<u8> = (0..2 * shape[1]).flat_map(|_| half::f16::from_f32(9.0).to_le_bytes()).collect();
                data = [junk, data].concat();
                shape[0] += 2;
            }
            owned.push((format!("roberta.{name}"), shape, data));
        }
        let views: Vec<(String, safetensors::tensor::TensorView<'_>)> = owned
            .iter()
            .map(|(n, shape, data)| {
                (n.clone(), safetensors::tensor::TensorView::new(safetensors::Dtype::F16, shape.clone(), data).unwrap())
            })
            .collect();
        safetensors::serialize_to_file(views, None, &d.join("model.safetensors")).unwrap();
        let mut config: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.join("config.json")).unwrap()).unwrap();
        config["model_type"] = "xlm-roberta".into();
        config["pad_token_id"] = 1.into();
        config["max_position_embeddings"] = 514.into();
        std::fs::write(d.join("config.json"), config.to_string()).unwrap();
    });
    let xlmr = Embedder::load(tmp.path()).unwrap();
    let e5 = embedder();
    for text in TEXTS {
        let (a, b) = (xlmr.embed_query(text).unwrap(), e5.embed_query(text).unwrap());
        assert!(dot(&a, &b) > 0.9995, "{text:?}: cosine {}", dot(&a, &b));
    }
    // 514 rows, two before the first token: inputs keep at most 512 tokens, as with BERT's 512.
    let long = TEXTS.join(" ").repeat(40);
    assert_eq!(xlmr.with_max_passage_tokens(10_000).passage_tokens(&long).unwrap().len(), 512);
}

#[test]
fn a_header_whose_shape_says_more_than_its_bytes_is_refused() {
    // The word table claims 250,037 × 384 f16 values but owns 16 bytes: reading a row would
    // run into whatever follows.
    let tmp = edited(|d| {
        std::fs::remove_file(d.join("model.safetensors")).unwrap();
        let header =
            r#"{"embeddings.word_embeddings.weight":{"dtype":"F16","shape":[250037,384],"data_offsets":[0,16]}}"#;
        let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
        bytes.extend_from_slice(header.as_bytes());
        bytes.extend_from_slice(&[0u8; 16]);
        std::fs::write(d.join("model.safetensors"), bytes).unwrap();
    });
    let msg = load_err(tmp.path());
    assert!(msg.contains("model.safetensors") && msg.contains("safetensors header is not valid"), "{msg}");
}
