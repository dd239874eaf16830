//! Token counts for the L1 listing budget: the o200k vocabulary, loaded once on first use.
//! Holds the count only; fitting a listing to a budget is `listing`'s job.

/// The tokens `text` costs a model, counted with o200k (the GPT-4o and later vocabulary).
///
/// The vocabulary is prebuilt into the binary by `bpe-openai` and read on first use (about a
/// tenth of a second, once per process); its counts equal tiktoken's, which the tests check.
pub fn count_tokens(text: &str) -> usize {
    COUNTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    bpe_openai::o200k_base().count(text)
}

static COUNTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// How many texts this process has counted so far (none: the vocabulary was never loaded).
pub fn texts_counted() -> usize {
    COUNTED.load(std::sync::atomic::Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts() {
        assert_eq!(super::count_tokens(""), 0);
        assert_eq!(super::count_tokens("hello world"), 2);
        assert!(super::count_tokens("从PDF文件中提取文本") <= "从PDF文件中提取文本".len());
    }

    /// The same count as tiktoken's o200k, on English, Chinese, code, emoji and odd spacing.
    #[test]
    fn counts_equal_tiktokens() {
        let Ok(reference) = tiktoken_rs::o200k_base() else { panic!("tiktoken's o200k loads") };
        let texts = [
            "Use this skill to extract tables from PDF files. Run `python scripts/extract.py FILE`.",
            "从PDF文件中提取文本和表格；当用户提到发票、报表时使用。",
            "fn main() {\n    let x: Vec<u8> = (0..=255).collect();\n\tprintln!(\"{x:?}\");\n}\n",
            "Ship it 🚀🚀  — café naïve   \r\n\r\n   trailing   ",
            "---\nname: pdf\ndescription: \"Extract text\"\n---\n# PDF\n\n- [ ] one\n- [x] two\n",
            "ǅemo ΑΒΓ абв 日本語のテキスト 한국어 텍스트 1234567890 3.14159 0x1F",
        ];
        for text in texts {
            assert_eq!(super::count_tokens(text), reference.encode_ordinary(text).len(), "{text:?}");
        }
    }
}
