//! What the forward pass needs of a model's weights, whatever file holds them: the shape, the
//! layers' tensors by name, the word-embedding table read a row at a time, and how token vectors
//! are pooled. The E5S1 file (`format.rs`) and the Hugging Face folder (`hf.rs`) provide them;
//! the encoder (`bert.rs`) reads them.

use crate::error::EmbedError;

/// The model's shape, from the header.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Dims {
    pub hidden: usize,
    pub layers: usize,
    pub heads: usize,
    pub ff: usize,
    pub vocab: usize,
    /// Rows of the position table.
    pub max_pos: usize,
    /// The position row of a sequence's first token: 0 for BERT; RoBERTa and XLM-R start after
    /// the padding id (`pad_token_id + 1`), so their inputs have that many fewer positions.
    pub pos_offset: usize,
    pub type_vocab: usize,
    pub eps: f32,
}

impl Dims {
    /// The most tokens one input may have.
    pub fn positions(&self) -> usize {
        self.max_pos.saturating_sub(self.pos_offset)
    }
}

/// Where a model's weights come from, named as in the E5S1 file (`emb.word`, `l3.q.w`, ...):
/// linear weights are `[out, in]`, as PyTorch stores them.
pub(crate) trait Source {
    /// The model's shape.
    fn dims(&self) -> Dims;
    /// Tensor `name`, which must hold `elements` values, as f32.
    fn tensor(&self, name: &str, elements: usize) -> Result<Vec<f32>, EmbedError>;
}

/// The word-embedding table, read a row at a time.
pub(crate) trait WordTable: Send + Sync {
    /// Adds row `id` (already checked to be in the vocabulary) into `dst`.
    fn add_row(&self, id: usize, dst: &mut [f32]) -> Result<(), EmbedError>;
}

/// How a sequence's token vectors become one vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pooling {
    /// The mean over the sequence's tokens (e5, MiniLM).
    Mean,
    /// The first token's vector (`[CLS]`; bge).
    Cls,
}
