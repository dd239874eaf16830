//! Text analysis for the ranker: words split at hyphens, underscores and case changes, English
//! stemming, stop words, and Chinese as overlapping character pairs plus single characters.
//! Holds no scoring.

use rust_stemmers::{Algorithm, Stemmer};
use std::sync::LazyLock;

/// Words that say nothing about which skill fits (English function words and the words every
/// request or skill uses).
const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by",
    "can", "could", "do", "does", "for", "from", "get", "give", "had", "has", "have", "help", "how", "i", "if", "in",
    "into", "is", "it", "its", "just", "me", "my", "need", "of", "on", "one", "or", "our", "please", "should", "skill",
    "skills", "so", "some", "than", "that", "the", "their", "them", "then", "there", "these", "this", "those", "to",
    "up", "us", "use", "used", "using", "want", "was", "we", "what", "when", "which", "while", "who", "why", "will",
    "with", "would", "you", "your",
];

/// Chinese characters too common to say anything alone (particles, pronouns, "help", "do").
const CJK_STOP_CHARS: &str = "的了我你他她它们是在有和与及把被给这那个一下些要想会能吗呢吧啊请帮做用让对从到就都也还";

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// One analysed term and the word it came from (for saying why a skill matched).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    /// The term as indexed: a stemmed lowercase word, or a pair of Chinese characters.
    pub key: String,
    /// The text it came from.
    pub surface: String,
}

/// Whether `c` is written without spaces between words (Chinese, Japanese kana, Korean).
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F)
}

/// The terms of `text`, in order, repeats kept.
pub fn terms(text: &str) -> Vec<Term> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut cjk: Vec<char> = Vec::new();
    let mut prev_lower = false;
    for c in text.chars() {
        if is_cjk(c) {
            flush_word(&mut word, &mut out);
            cjk.push(c);
            prev_lower = false;
        } else if c.is_alphanumeric() {
            flush_cjk(&mut cjk, &mut out);
            // `camelCase` and `PDFReader` split where a lowercase letter meets an uppercase one.
            if c.is_uppercase() && prev_lower {
                flush_word(&mut word, &mut out);
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            word.extend(c.to_lowercase());
        } else {
            // Hyphens, underscores, dots, slashes and spaces all end a word.
            flush_word(&mut word, &mut out);
            flush_cjk(&mut cjk, &mut out);
            prev_lower = false;
        }
    }
    flush_word(&mut word, &mut out);
    flush_cjk(&mut cjk, &mut out);
    out
}

fn flush_word(word: &mut String, out: &mut Vec<Term>) {
    if word.is_empty() {
        return;
    }
    let w = std::mem::take(word);
    if STOP_WORDS.binary_search(&w.as_str()).is_ok() || (w.len() < 2 && !w.chars().all(|c| c.is_ascii_digit())) {
        return;
    }
    let key = STEMMER.stem(&w).into_owned();
    out.push(Term { key, surface: w });
}

fn flush_cjk(run: &mut Vec<char>, out: &mut Vec<Term>) {
    match run.len() {
        0 => {}
        1 => {
            let s: String = run.iter().collect();
            out.push(Term { key: s.clone(), surface: s });
        }
        _ => {
            // Pairs match words; single characters match the same idea worded otherwise
            // (根本原因 and 根因 share 根 and 因), and weigh little by their frequency.
            for pair in run.windows(2) {
                let s: String = pair.iter().collect();
                out.push(Term { key: s.clone(), surface: s });
            }
            for &c in run.iter() {
                if !CJK_STOP_CHARS.contains(c) {
                    let s = c.to_string();
                    out.push(Term { key: s.clone(), surface: s });
                }
            }
        }
    }
    run.clear();
}

#[cfg(test)]
mod tests {
    fn keys(text: &str) -> Vec<String> {
        super::terms(text).into_iter().map(|t| t.key).collect()
    }

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        assert!(super::STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn analysis() {
        assert_eq!(keys("pdf-tools"), ["pdf", "tool"]);
        assert_eq!(keys("market_research"), ["market", "research"]);
        assert_eq!(keys("parseJSONFiles"), ["pars", "jsonfil"]);
        assert_eq!(keys("Extracting the tables from PDFs"), ["extract", "tabl", "pdfs"]);
        assert_eq!(keys("从PDF提取表格"), ["从", "pdf", "提取", "取表", "表格", "提", "取", "表", "格"]);
        assert_eq!(keys("v2 a 3"), ["v2", "3"]);
    }
}
