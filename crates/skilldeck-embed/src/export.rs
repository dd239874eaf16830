//! The shipped E5S1 model written out in the Hugging Face layout: `config.json`,
//! `model.safetensors` (f16, the 4-bit weights dequantized), `tokenizer.json` (the same Unigram
//! vocabulary, NFKC and metaspace), and the sentence-transformers files naming mean pooling and
//! e5's prompts. Other tools can read the result, and it is how the Hugging Face loader is
//! checked against the E5S1 engine: the same weights must give the same vectors.

use std::path::Path;

use safetensors::Dtype;
use safetensors::tensor::TensorView;
use tokenizers::models::unigram::Unigram;
use tokenizers::normalizers::NFKC;
use tokenizers::pre_tokenizers::metaspace::{Metaspace, PrependScheme};
use tokenizers::processors::template::TemplateProcessing;

use crate::error::EmbedError;
use crate::format::ModelFile;
use crate::{MODEL_FILE, hf};

/// The E5S1 names of a BERT's tensors and their `[rows, cols]` shapes (`cols` 0: a vector).
fn tensor_names(f: &ModelFile) -> Vec<(String, usize, usize)> {
    let d = f.dims;
    let (h, ff) = (d.hidden, d.ff);
    let mut out = vec![
        ("emb.word".to_owned(), d.vocab, h),
        ("emb.pos".to_owned(), d.max_pos, h),
        ("emb.type".to_owned(), d.type_vocab, h),
        ("emb.ln.w".to_owned(), h, 0),
        ("emb.ln.b".to_owned(), h, 0),
    ];
    for l in 0..d.layers {
        for (part, rows, cols) in [("q", h, h), ("k", h, h), ("v", h, h), ("ao", h, h), ("fi", ff, h), ("fo", h, ff)] {
            out.push((format!("l{l}.{part}.w"), rows, cols));
            out.push((format!("l{l}.{part}.b"), rows, 0));
        }
        for norm in ["aln", "oln"] {
            out.push((format!("l{l}.{norm}.w"), h, 0));
            out.push((format!("l{l}.{norm}.b"), h, 0));
        }
    }
    out
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> EmbedError + '_ {
    move |source| EmbedError::Io { path: path.to_path_buf(), source }
}

fn failed(what: &str, e: impl std::fmt::Display) -> EmbedError {
    EmbedError::Compute(format!("could not write {what}: {e}"))
}

/// Writes the E5S1 model in folder `src` into folder `dest` (created) in the Hugging Face
/// layout. The weights are f16, about 235 MB for multilingual-e5-small.
pub fn write_hf_folder(src: &Path, dest: &Path) -> Result<(), EmbedError> {
    let (file, vocab) = ModelFile::open(&src.join(MODEL_FILE))?;
    let d = file.dims;
    std::fs::create_dir_all(dest.join("1_Pooling")).map_err(io(dest))?;
    let config = serde_json::json!({
        "architectures": ["BertModel"], "model_type": "bert", "hidden_act": "gelu",
        "position_embedding_type": "absolute", "hidden_size": d.hidden, "num_hidden_layers": d.layers,
        "num_attention_heads": d.heads, "intermediate_size": d.ff, "vocab_size": d.vocab,
        "max_position_embeddings": d.max_pos, "type_vocab_size": d.type_vocab, "layer_norm_eps": d.eps,
        "pad_token_id": 0,
    });
    let pooling = serde_json::json!({"word_embedding_dimension": d.hidden, "pooling_mode_cls_token": false,
        "pooling_mode_mean_tokens": true, "pooling_mode_max_tokens": false});
    let prompts = serde_json::json!({"prompts": {"query": "query: ", "passage": "passage: "}});
    for (name, value) in
        [(hf::CONFIG_FILE, config), ("1_Pooling/config.json", pooling), ("config_sentence_transformers.json", prompts)]
    {
        let path = dest.join(name);
        std::fs::write(&path, value.to_string()).map_err(io(&path))?;
    }
    // Weights: every tensor as f16.
    let mut data: Vec<(String, Vec<usize>, Vec<u8>)> = Vec::new();
    for (name, rows, cols) in tensor_names(&file) {
        let n = if cols == 0 { rows } else { rows * cols };
        let values = file.tensor_f32(&name, n)?;
        let bytes: Vec<u8> = values.iter().flat_map(|&v| half::f16::from_f32(v).to_bits().to_le_bytes()).collect();
        let shape = if cols == 0 { vec![rows] } else { vec![rows, cols] };
        let hf_name = hf::tensor_name(&name).ok_or_else(|| failed("a tensor", format!("{name} has no name")))?;
        data.push((hf_name, shape, bytes));
    }
    let views = data
        .iter()
        .map(|(name, shape, bytes)| {
            TensorView::new(Dtype::F16, shape.clone(), bytes)
                .map(|v| (name.clone(), v))
                .map_err(|e| failed("a tensor", e))
        })
        .collect::<Result<Vec<_>, _>>()?;
    safetensors::serialize_to_file(views, None, &dest.join(hf::WEIGHTS_FILE)).map_err(|e| failed("the weights", e))?;
    // The tokenizer: the same pieces and scores.
    let pieces: Vec<(String, f64)> = (0..vocab.scores.len())
        .map(|i| {
            let (a, b) = (vocab.offsets[i] as usize, vocab.offsets[i + 1] as usize);
            (String::from_utf8_lossy(&vocab.blob[a..b]).into_owned(), f64::from(vocab.scores[i]))
        })
        .collect();
    let (bos, eos) = (pieces[vocab.bos as usize].0.clone(), pieces[vocab.eos as usize].0.clone());
    let model = Unigram::from(pieces, Some(vocab.unk as usize), false).map_err(|e| failed("the tokenizer", e))?;
    let post = TemplateProcessing::builder()
        .try_single(format!("{bos} $A {eos}"))
        .map_err(|e| failed("the tokenizer", e))?
        .special_tokens(vec![(bos.as_str(), vocab.bos), (eos.as_str(), vocab.eos)])
        .build()
        .map_err(|e| failed("the tokenizer", e))?;
    let mut tokenizer = tokenizers::Tokenizer::new(model);
    tokenizer.with_normalizer(Some(NFKC)).map_err(|e| failed("the tokenizer", e))?;
    tokenizer.with_pre_tokenizer(Some(Metaspace::new('\u{2581}', PrependScheme::Always, true)));
    tokenizer.with_post_processor(Some(post));
    tokenizer.save(dest.join(hf::TOKENIZER_FILE), false).map_err(|e| failed("the tokenizer", e))?;
    Ok(())
}
