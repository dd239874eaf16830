//! Token estimates for the L1 listing budget, without a tokenizer at run time.
//! Holds the estimate and why it is shaped so; a test checks it against o200k.

/// Estimates the tokens `text` costs a model: one token per three UTF-8 bytes, rounded up.
///
/// Measured on real skill listings, a line costs about one o200k token per three characters
/// (names with hyphens, `**` markup and `(v:N)` cost more than prose). Counting bytes rather
/// than characters keeps Chinese right too: a CJK character is three bytes and about one
/// token. The estimate errs high on plain English prose (about four bytes a token), so a
/// listing kept under the budget by this estimate stays under it for real.
pub fn estimate_tokens(text: &str) -> usize {
    text.len().div_ceil(3)
}
