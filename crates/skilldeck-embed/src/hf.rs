//! A BERT sentence-embedding model in the Hugging Face layout, as `skilldeck model install
//! <hub id>` fetches it: `config.json` (a `bert`, `roberta` or `xlm-roberta` encoder with
//! erf-GELU; the last two number positions from after the padding id), `model.safetensors`
//! (f32, f16 or bf16), `tokenizer.json` (read by the `tokenizers` crate), and the
//! sentence-transformers files that say how to use it, when present: `1_Pooling/config.json`
//! (mean or `[CLS]` pooling), `config_sentence_transformers.json` (the query and passage
//! prompts) and `sentence_bert_config.json` (the longest input).
//!
//! The layers' weights are read once, at load; the word-embedding table stays in the file and
//! each token's row is read when it is embedded, as for the E5S1 file.

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use safetensors::Dtype;
use serde::Deserialize;

use crate::error::EmbedError;
use crate::format::{f16_to_f32, open_weights, read_at};
use crate::weights::{Dims, Pooling, Source, WordTable};

/// The model's configuration file.
pub const CONFIG_FILE: &str = "config.json";
/// The weights.
pub const WEIGHTS_FILE: &str = "model.safetensors";
/// The tokenizer.
pub const TOKENIZER_FILE: &str = "tokenizer.json";
/// The files a Hugging Face model folder must hold.
pub const REQUIRED_FILES: [&str; 3] = [CONFIG_FILE, WEIGHTS_FILE, TOKENIZER_FILE];
/// The sentence-transformers files read when present, relative to the folder.
pub const OPTIONAL_FILES: [&str; 4] =
    ["1_Pooling/config.json", "config_sentence_transformers.json", "sentence_bert_config.json", "modules.json"];

/// Largest `tokenizer.json` or configuration file read, in bytes.
const MAX_TEXT_FILE: u64 = 64 << 20;

/// The fields of `config.json` this engine reads.
#[derive(Deserialize)]
struct Config {
    model_type: String,
    hidden_size: usize,
    num_hidden_layers: usize,
    num_attention_heads: usize,
    intermediate_size: usize,
    vocab_size: usize,
    max_position_embeddings: usize,
    #[serde(default = "two")]
    type_vocab_size: usize,
    #[serde(default = "bert_eps")]
    layer_norm_eps: f64,
    #[serde(default = "gelu")]
    hidden_act: String,
    #[serde(default = "absolute")]
    position_embedding_type: String,
    #[serde(default)]
    pad_token_id: Option<usize>,
}

fn two() -> usize {
    2
}
fn bert_eps() -> f64 {
    1e-12
}
fn gelu() -> String {
    "gelu".to_owned()
}
fn absolute() -> String {
    "absolute".to_owned()
}

/// `1_Pooling/config.json`.
#[derive(Deserialize, Default)]
struct PoolingConfig {
    #[serde(default)]
    pooling_mode_cls_token: bool,
    #[serde(default)]
    pooling_mode_mean_tokens: bool,
    #[serde(default)]
    pooling_mode_max_tokens: bool,
}

/// `config_sentence_transformers.json`.
#[derive(Deserialize, Default)]
struct StConfig {
    #[serde(default)]
    prompts: HashMap<String, String>,
}

/// `sentence_bert_config.json`.
#[derive(Deserialize, Default)]
struct SbertConfig {
    max_seq_length: Option<usize>,
}

/// How the model is to be used: what it pools, the text put before a query and before a
/// passage, and the most tokens an input keeps.
pub(crate) struct Usage {
    pub pooling: Pooling,
    pub query_prefix: String,
    pub passage_prefix: String,
    pub max_tokens: usize,
}

fn read_text(path: &Path) -> Result<String, EmbedError> {
    let io = |source| EmbedError::Io { path: path.to_path_buf(), source };
    let len = std::fs::metadata(path).map_err(io)?.len();
    if len > MAX_TEXT_FILE {
        return Err(corrupt(path, format!("it is {} MB, more than such a file can be", len >> 20)));
    }
    std::fs::read_to_string(path).map_err(|source| EmbedError::Io { path: path.to_path_buf(), source })
}

/// `dir/name` parsed as JSON, or the default when the file is not there.
fn optional_json<T: for<'de> Deserialize<'de> + Default>(dir: &Path, name: &str) -> Result<T, EmbedError> {
    let path = dir.join(name);
    if !path.is_file() {
        return Ok(T::default());
    }
    serde_json::from_str(&read_text(&path)?).map_err(|e| corrupt(&path, format!("it is not valid JSON here: {e}")))
}

fn corrupt(path: &Path, what: impl Into<String>) -> EmbedError {
    EmbedError::Corrupt { path: path.to_path_buf(), what: what.into() }
}

/// Whether `dir` looks like a Hugging Face model folder (its required files are there).
pub fn is_hf_dir(dir: &Path) -> bool {
    REQUIRED_FILES.iter().all(|f| dir.join(f).is_file())
}

/// The model's shape from `config.json`, refusing what this engine does not run.
fn dims(dir: &Path) -> Result<Dims, EmbedError> {
    let path = dir.join(CONFIG_FILE);
    let c: Config = serde_json::from_str(&read_text(&path)?)
        .map_err(|e| corrupt(&path, format!("it is not a model configuration this engine reads: {e}")))?;
    // RoBERTa's positions start after its padding id (create_position_ids_from_input_ids).
    let pos_offset = match c.model_type.as_str() {
        "bert" => 0,
        "roberta" | "xlm-roberta" => c.pad_token_id.unwrap_or(1) + 1,
        other => {
            return Err(corrupt(
                &path,
                format!(
                    "its model_type is `{other}`; this engine runs BERT encoders (model_type `bert`, `roberta` or \
                     `xlm-roberta`) only"
                ),
            ));
        }
    };
    if c.hidden_act != "gelu" || c.position_embedding_type != "absolute" {
        return Err(corrupt(
            &path,
            format!(
                "it uses hidden_act `{}` and position_embedding_type `{}`; this engine runs `gelu` and `absolute`",
                c.hidden_act, c.position_embedding_type
            ),
        ));
    }
    let ok = |v: usize, max: usize| v > 0 && v <= max;
    if !(ok(c.hidden_size, 4096)
        && ok(c.num_hidden_layers, 64)
        && ok(c.num_attention_heads, 64)
        && ok(c.intermediate_size, 16384)
        && ok(c.vocab_size, 1 << 22)
        && ok(c.max_position_embeddings, 1 << 16)
        && ok(c.type_vocab_size, 16)
        && c.hidden_size.is_multiple_of(c.num_attention_heads)
        && pos_offset + 3 <= c.max_position_embeddings)
    {
        return Err(corrupt(&path, "its sizes are out of range or the hidden size does not divide into heads"));
    }
    Ok(Dims {
        hidden: c.hidden_size,
        layers: c.num_hidden_layers,
        heads: c.num_attention_heads,
        ff: c.intermediate_size,
        vocab: c.vocab_size,
        max_pos: c.max_position_embeddings,
        pos_offset,
        type_vocab: c.type_vocab_size,
        eps: c.layer_norm_eps as f32,
    })
}

/// How the model in `dir` is used, from its sentence-transformers files. Without prompts, a
/// model whose folder names it an e5 gets e5's `query: ` and `passage: `.
pub(crate) fn usage(dir: &Path, max_pos: usize) -> Result<Usage, EmbedError> {
    let pool: PoolingConfig = optional_json(dir, OPTIONAL_FILES[0])?;
    if pool.pooling_mode_max_tokens && !pool.pooling_mode_mean_tokens && !pool.pooling_mode_cls_token {
        return Err(corrupt(&dir.join(OPTIONAL_FILES[0]), "it asks for max pooling, which this engine does not run"));
    }
    let pooling =
        if pool.pooling_mode_cls_token && !pool.pooling_mode_mean_tokens { Pooling::Cls } else { Pooling::Mean };
    let st: StConfig = optional_json(dir, OPTIONAL_FILES[1])?;
    let sbert: SbertConfig = optional_json(dir, OPTIONAL_FILES[2])?;
    let named_e5 = dir.file_name().is_some_and(|n| n.to_string_lossy().to_ascii_lowercase().contains("e5"));
    let (q, p) = if named_e5 { ("query: ", "passage: ") } else { ("", "") };
    let query_prefix = st.prompts.get("query").cloned().unwrap_or_else(|| q.to_owned());
    let passage_prefix =
        st.prompts.get("passage").or_else(|| st.prompts.get("document")).cloned().unwrap_or_else(|| p.to_owned());
    let max_tokens = sbert.max_seq_length.unwrap_or(max_pos).clamp(3, max_pos);
    Ok(Usage { pooling, query_prefix, passage_prefix, max_tokens })
}

/// One tensor of the weights file.
#[derive(Debug, Clone, Copy)]
struct Entry {
    dtype: Dtype,
    elements: usize,
    /// From the start of the file.
    offset: u64,
}

impl Entry {
    fn width(&self) -> usize {
        match self.dtype {
            Dtype::F32 => 4,
            _ => 2,
        }
    }
}

/// The Hugging Face name of the E5S1 tensor name `name` (`l3.q.w` →
/// `encoder.layer.3.attention.self.query.weight`), without a checkpoint's model prefix.
pub(crate) fn tensor_name(name: &str) -> Option<String> {
    let (base, last) = name.rsplit_once('.')?;
    if base == "emb" {
        let table = match last {
            "word" => "word_embeddings",
            "pos" => "position_embeddings",
            "type" => "token_type_embeddings",
            _ => return None,
        };
        return Some(format!("embeddings.{table}.weight"));
    }
    let suffix = match last {
        "w" => "weight",
        "b" => "bias",
        _ => return None,
    };
    let module = match base {
        "emb.ln" => "embeddings.LayerNorm".to_owned(),
        layer => {
            let (l, part) = layer.split_once('.')?;
            let l: usize = l.strip_prefix('l')?.parse().ok()?;
            let part = match part {
                "q" => "attention.self.query",
                "k" => "attention.self.key",
                "v" => "attention.self.value",
                "ao" => "attention.output.dense",
                "aln" => "attention.output.LayerNorm",
                "fi" => "intermediate.dense",
                "fo" => "output.dense",
                "oln" => "output.LayerNorm",
                _ => return None,
            };
            format!("encoder.layer.{l}.{part}")
        }
    };
    Some(format!("{module}.{suffix}"))
}

/// `model.safetensors`: its directory, read with the safetensors crate, and the open file.
pub(crate) struct Weights {
    path: PathBuf,
    file: File,
    dims: Dims,
    tensors: HashMap<String, Entry>,
    /// `bert.` or `roberta.` when the checkpoint names its tensors under the model's prefix.
    prefix: &'static str,
}

/// The bytes `raw` of `dtype` as f32.
fn to_f32(dtype: Dtype, raw: &[u8]) -> Vec<f32> {
    match dtype {
        Dtype::F16 => raw.chunks_exact(2).map(|c| f16_to_f32(u16::from_le_bytes([c[0], c[1]]))).collect(),
        Dtype::BF16 => {
            raw.chunks_exact(2).map(|c| f32::from_bits(u32::from(u16::from_le_bytes([c[0], c[1]])) << 16)).collect()
        }
        _ => crate::format::f32s(raw),
    }
}

impl Weights {
    /// Opens the weights of the model in `dir` and reads its shape.
    pub fn open(dir: &Path) -> Result<Weights, EmbedError> {
        let dims = dims(dir)?;
        let path = dir.join(WEIGHTS_FILE);
        let (file, len) = open_weights(&path)?;
        let mut n = [0u8; 8];
        read_at(&file, &path, 0, &mut n)?;
        let n = u64::from_le_bytes(n);
        if n > 100_000_000 || 8 + n > len {
            return Err(EmbedError::Truncated { path, what: "the safetensors header".into() });
        }
        let mut header = vec![0u8; n as usize];
        read_at(&file, &path, 8, &mut header)?;
        let meta: safetensors::tensor::Metadata = serde_json::from_slice(&header)
            .map_err(|e| corrupt(&path, format!("its safetensors header is not valid: {e}")))?;
        let data_start = 8 + n;
        if data_start + meta.data_len() as u64 > len {
            return Err(EmbedError::Truncated { path, what: "the tensor data".into() });
        }
        let mut tensors = HashMap::new();
        for (name, info) in meta.tensors() {
            // The crate checked each tensor's bytes against its shape and dtype, and the spans
            // end within `data_len`, checked against the file above.
            let elements = info.shape.iter().product();
            let offset = data_start + info.data_offsets.0 as u64;
            tensors.insert(name, Entry { dtype: info.dtype, elements, offset });
        }
        let prefix = ["bert.", "roberta."]
            .into_iter()
            .find(|p| tensors.contains_key(&format!("{p}embeddings.word_embeddings.weight")))
            .unwrap_or("");
        Ok(Weights { path, file, dims, tensors, prefix })
    }

    /// The entry for E5S1 name `name`, holding `elements` values of a float type.
    fn entry(&self, name: &str, elements: usize) -> Result<Entry, EmbedError> {
        let hf = tensor_name(name)
            .map(|n| format!("{}{n}", self.prefix))
            .ok_or_else(|| EmbedError::Compute(format!("no tensor is named {name}")))?;
        let e = self.tensors.get(&hf).ok_or_else(|| corrupt(&self.path, format!("tensor {hf} is missing")))?;
        if e.elements != elements {
            return Err(corrupt(&self.path, format!("tensor {hf} has {} values, expected {elements}", e.elements)));
        }
        if !matches!(e.dtype, Dtype::F32 | Dtype::F16 | Dtype::BF16) {
            return Err(corrupt(
                &self.path,
                format!("tensor {hf} is {:?}; this engine reads F32, F16 and BF16", e.dtype),
            ));
        }
        Ok(*e)
    }

    /// The word-embedding table, read a row at a time.
    pub fn words(&self) -> Result<HfWords, EmbedError> {
        let entry = self.entry("emb.word", self.dims.vocab * self.dims.hidden)?;
        let file = self.file.try_clone().map_err(|source| EmbedError::Io { path: self.path.clone(), source })?;
        Ok(HfWords { file, path: self.path.clone(), entry, hidden: self.dims.hidden })
    }
}

impl Source for Weights {
    fn dims(&self) -> Dims {
        self.dims
    }

    fn tensor(&self, name: &str, elements: usize) -> Result<Vec<f32>, EmbedError> {
        let e = self.entry(name, elements)?;
        let mut raw = vec![0u8; elements * e.width()];
        read_at(&self.file, &self.path, e.offset, &mut raw)?;
        Ok(to_f32(e.dtype, &raw))
    }
}

/// The safetensors word-embedding table.
pub(crate) struct HfWords {
    file: File,
    path: PathBuf,
    entry: Entry,
    hidden: usize,
}

impl WordTable for HfWords {
    fn add_row(&self, id: usize, dst: &mut [f32]) -> Result<(), EmbedError> {
        let w = self.entry.width();
        let mut raw = vec![0u8; self.hidden * w];
        read_at(&self.file, &self.path, self.entry.offset + (id * self.hidden * w) as u64, &mut raw)?;
        dst.iter_mut().zip(to_f32(self.entry.dtype, &raw)).for_each(|(d, r)| *d += r);
        Ok(())
    }
}

/// The model's `tokenizer.json`, without the truncation or padding it may ask for (inputs are
/// cut here, keeping their closing special token).
pub(crate) struct HfTokenizer {
    inner: tokenizers::Tokenizer,
}

impl HfTokenizer {
    /// Reads `dir/tokenizer.json`.
    pub fn open(dir: &Path) -> Result<HfTokenizer, EmbedError> {
        let path = dir.join(TOKENIZER_FILE);
        let text = read_text(&path)?;
        let mut inner: tokenizers::Tokenizer =
            text.parse().map_err(|e| corrupt(&path, format!("the tokenizers library cannot read it: {e}")))?;
        inner.with_padding(None);
        inner
            .with_truncation(None)
            .map_err(|e| corrupt(&path, format!("its truncation cannot be switched off: {e}")))?;
        Ok(HfTokenizer { inner })
    }

    /// The ids of `text` with the model's special tokens, at most `max_tokens` of them (the
    /// head of the text and the last special token).
    pub fn encode(&self, text: &str, max_tokens: usize) -> Result<Vec<u32>, EmbedError> {
        let enc = self.inner.encode(text, true).map_err(|e| EmbedError::Compute(format!("tokenizing failed: {e}")))?;
        let mut ids = enc.get_ids().to_vec();
        if ids.len() > max_tokens {
            let last = enc.get_special_tokens_mask().last().copied() == Some(1);
            let end = ids.last().copied();
            ids.truncate(max_tokens);
            if let (true, Some(end), Some(slot)) = (last, end, ids.last_mut()) {
                *slot = end;
            }
        }
        Ok(ids)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn e5s1_names_map_to_the_hugging_face_layout() {
        assert_eq!(tensor_name("l3.q.w").as_deref(), Some("encoder.layer.3.attention.self.query.weight"));
        assert_eq!(tensor_name("l11.oln.b").as_deref(), Some("encoder.layer.11.output.LayerNorm.bias"));
        assert_eq!(tensor_name("emb.ln.w").as_deref(), Some("embeddings.LayerNorm.weight"));
        assert_eq!(tensor_name("emb.word").as_deref(), Some("embeddings.word_embeddings.weight"));
        assert_eq!(tensor_name("l1.zz.w"), None);
        assert_eq!(tensor_name("emb.other"), None);
    }
}
