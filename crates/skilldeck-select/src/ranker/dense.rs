//! Ranking by meaning beside BM25: each skill's unit vector from a sentence-embedding model,
//! the request's vector, and the fusion of the two rankings. Holds no model (an [`Encoder`] is
//! handed in) and no file: the vectors come from whoever computed or cached them.

use super::Ranked;
use skilldeck_skill::entry::SkillEntry;
use std::sync::Arc;

/// A sentence-embedding model as the ranker uses it: a request's unit vector.
pub trait Encoder: Send + Sync + std::fmt::Debug {
    /// The model's id: vectors of one model are never compared with another's.
    fn model_id(&self) -> &str;
    /// The unit vector of `request`, or `None` when the model could not read it (the ranking
    /// is then lexical only).
    fn encode_query(&self, request: &str) -> Option<Arc<[f32]>>;
}

/// A set's vectors, one per skill in the set's order, and the model that made them.
#[derive(Debug, Clone)]
pub struct Dense {
    encoder: Arc<dyn Encoder>,
    vectors: Vec<Arc<[f32]>>,
}

impl Dense {
    /// The vectors `encoder`'s model made, one per skill of the set in its order.
    pub fn new(encoder: Arc<dyn Encoder>, vectors: Vec<Arc<[f32]>>) -> Self {
        Self { encoder, vectors }
    }

    /// How many skills it has vectors for.
    pub fn len(&self) -> usize {
        self.vectors.len()
    }

    /// Whether it has none.
    pub fn is_empty(&self) -> bool {
        self.vectors.is_empty()
    }

    /// The model's id.
    pub fn model_id(&self) -> &str {
        self.encoder.model_id()
    }

    /// Each skill's cosine similarity to `request` (vectors are unit length), or `None` when
    /// the model could not read it.
    pub fn similarities(&self, request: &str) -> Option<Vec<f32>> {
        let q = self.encoder.encode_query(request)?;
        Some(self.vectors.iter().map(|v| dot(&q, v)).collect())
    }
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The text of a skill the model reads: its name in words, its descriptions and its
/// `when_to_use` (what a request would be compared with; the body and headings are left out,
/// as they are long and say how, not when).
pub fn passage(e: &SkillEntry) -> String {
    let mut text = e.name.replace(['-', '_'], " ");
    for part in [e.listing_description(), e.meta.description_zh.as_deref().unwrap_or_default()] {
        if !part.trim().is_empty() {
            text.push_str(". ");
            text.push_str(part.trim());
        }
    }
    if let Some(when) = e.meta.when_to_use().filter(|w| !w.trim().is_empty()) {
        text.push_str(". ");
        text.push_str(when.trim());
    }
    text
}

/// How the two rankings are fused: reciprocal rank fusion, each skill scoring
/// `lexical / (k + its BM25 rank) + dense / (k + its meaning rank)`, where only skills some
/// query word matched have a BM25 rank and only the `depth` nearest in meaning a meaning rank.
/// The defaults were chosen on the tune split of the selection benchmark, never its holdout.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fusion {
    /// RRF's constant: larger flattens the difference between neighbouring ranks.
    pub k: f32,
    /// The weight of the BM25 ranking.
    pub lexical: f32,
    /// The weight of the meaning ranking.
    pub dense: f32,
    /// How many of the nearest skills in meaning take part.
    pub depth: usize,
}

impl Default for Fusion {
    fn default() -> Self {
        // Chosen by the selection example's `--tune-fusion 1000,5000` on the tune split, top-1
        // plus top-5 summed over both stores: (top-1, top-5) of 252 were (117, 168) at 1,000 and
        // (105, 153) at 5,000, against (112, 170) and (99, 146) for the earlier k = 5, meaning
        // 1.5, depth 50 (tuned at 1,000 alone, it let look-alikes close in meaning take the first
        // place at 5,000) and (105, 153) and (95, 139) for words alone. A small k lets each
        // ranking's first places lead; only the five nearest in meaning take part.
        Self { k: 2.0, lexical: 1.0, dense: 0.75, depth: 5 }
    }
}

/// The skills at `positions`, best first by the fusion of `lexical` (BM25 scores by position,
/// 0 for no match; may be empty) and `similar` (cosines by position): those either ranking
/// placed, by fused score, then the rest by position (name order).
pub fn fuse(lexical: &[f32], similar: &[f32], positions: &[usize], f: Fusion) -> Vec<Ranked> {
    let score = |s: &[f32], pos: usize| s.get(pos).copied().unwrap_or(0.0);
    let mut fused = vec![0f32; positions.len()];
    let mut by_lexical: Vec<usize> = (0..positions.len()).filter(|&i| score(lexical, positions[i]) > 0.0).collect();
    by_lexical.sort_by(|&a, &b| score(lexical, positions[b]).total_cmp(&score(lexical, positions[a])));
    for (rank, &i) in by_lexical.iter().enumerate() {
        fused[i] += f.lexical / (f.k + rank as f32 + 1.0);
    }
    let mut by_meaning: Vec<usize> = (0..positions.len()).collect();
    by_meaning.sort_by(|&a, &b| score(similar, positions[b]).total_cmp(&score(similar, positions[a])));
    for (rank, &i) in by_meaning.iter().take(f.depth).enumerate() {
        fused[i] += f.dense / (f.k + rank as f32 + 1.0);
    }
    let (mut hits, rest): (Vec<Ranked>, Vec<Ranked>) =
        positions.iter().zip(&fused).map(|(&pos, &score)| Ranked { pos, score }).partition(|r| r.score > 0.0);
    hits.sort_by(|a, b| b.score.total_cmp(&a.score));
    hits.extend(rest);
    hits
}

#[cfg(test)]
mod tests {
    use super::{Fusion, fuse};

    #[test]
    fn a_skill_near_in_meaning_joins_the_word_matches() {
        // Position 2 shares no word with the request but is nearest in meaning; position 0
        // matched a word; position 1 neither and is far in meaning.
        let lexical = [2.0, 0.0, 0.0];
        let similar = [0.70, 0.10, 0.90];
        let f = Fusion { depth: 2, ..Fusion::default() };
        let ranked: Vec<usize> = fuse(&lexical, &similar, &[0, 1, 2], f).iter().map(|r| r.pos).collect();
        assert_eq!(ranked, vec![0, 2, 1]);
        let scores: Vec<f32> = fuse(&lexical, &similar, &[0, 1, 2], f).iter().map(|r| r.score).collect();
        assert!(scores[0] > scores[1] && scores[1] > 0.0 && scores[2] == 0.0, "{scores:?}");
    }

    #[test]
    fn only_the_given_positions_rank() {
        let lexical = [0.0, 1.0, 3.0, 0.0];
        let similar = [0.9, 0.2, 0.1, 0.8];
        let ranked: Vec<usize> = fuse(&lexical, &similar, &[1, 3], Fusion::default()).iter().map(|r| r.pos).collect();
        assert_eq!(ranked, vec![1, 3]);
    }
}
