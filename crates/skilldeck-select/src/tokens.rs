//! Token counts for the L1 listing budget: the o200k tokenizer, loaded once on first use.
//! Holds the count and its provable fallback; fitting a listing to a budget is `listing`'s job.

use std::sync::OnceLock;
use tiktoken_rs::CoreBPE;

/// The o200k tokenizer, built on first use (its vocabulary ships inside the binary; building it
/// takes tens of milliseconds once per process, see `benches/ranking.rs`). `None` when it could
/// not be built, which only a broken build of `tiktoken-rs` would cause.
fn o200k() -> Option<&'static CoreBPE> {
    static BPE: OnceLock<Option<CoreBPE>> = OnceLock::new();
    BPE.get_or_init(|| tiktoken_rs::o200k_base().ok()).as_ref()
}

/// Whether the real tokenizer is in use (else counts are the UTF-8 byte length).
pub fn tokenizer_loaded() -> bool {
    o200k().is_some()
}

/// The tokens `text` costs a model, counted with o200k (the GPT-4o and later vocabulary).
///
/// Should the tokenizer fail to load, the count is the UTF-8 byte length: every o200k token
/// stands for at least one byte, so that count is never under the real one and a listing
/// fitted to it still fits.
pub fn count_tokens(text: &str) -> usize {
    match o200k() {
        Some(bpe) => bpe.count_ordinary(text),
        None => text.len(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts() {
        assert!(super::tokenizer_loaded());
        assert_eq!(super::count_tokens(""), 0);
        assert_eq!(super::count_tokens("hello world"), 2);
        assert!(super::count_tokens("从PDF文件中提取文本") <= "从PDF文件中提取文本".len());
    }
}
