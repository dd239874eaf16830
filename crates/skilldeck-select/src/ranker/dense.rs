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

/// The text of a skill the model reads: its name in words, its description and its
/// `when_to_use` (what a request would be compared with). Left out:
/// - the body and headings, which are long and say how, not when (with them, fewer requests
///   found their skill first on the selection benchmark's tune split);
/// - `description_zh`. A multilingual model already places a Chinese request near the English
///   description of the same task, and a passage in two languages is partly a vector of its
///   languages: every Chinese request drew near every skill with Chinese text, and English
///   requests drew away from them. Without it, Chinese requests found their skill more often
///   too; BM25 still reads it, so its own words match.
pub fn passage(e: &SkillEntry) -> String {
    let mut text = e.name.replace(['-', '_'], " ");
    let parts = [Some(e.listing_description().to_owned()), e.meta.when_to_use()];
    for part in parts.iter().flatten().map(|p| p.trim()).filter(|p| !p.is_empty()) {
        text.push_str(". ");
        text.push_str(part);
    }
    text
}

/// How the two rankings are fused: a mix of the two scores, each made comparable first. A
/// skill scores `lexical × its BM25 score / the best BM25 score + dense × max(0, z) / √(2 ln n)`,
/// where `z` is how many standard deviations its cosine to the request lies above the mean
/// cosine of the `n` skills being ranked. So the best word match counts 1; a skill only as
/// close in meaning as an average one adds nothing; and one far closer than the rest adds in
/// proportion, measured against √(2 ln n), about the largest `z` chance alone gives among `n`
/// skills: without it, a small store (where no `z` can pass √(n − 1)) would give meaning less
/// say than a large one.
/// The defaults were chosen on the tune split of the selection benchmark, never its holdout.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fusion {
    /// The weight of the BM25 score (as a share of the best one).
    pub lexical: f32,
    /// The weight of closeness in meaning (as a share of the closeness expected of the closest).
    pub dense: f32,
}

impl Default for Fusion {
    fn default() -> Self {
        // Chosen with the selection example's `--explore-fusion 50,200,1000,5000` on the tune
        // split, top-1 plus top-5 summed over the four stores: (top-1, top-5) of 194 at 50 and
        // 252 above were (125, 162), (146, 184), (125, 170) and (111, 155), against (114, 157),
        // (137, 185), (117, 168) and (105, 153) for the reciprocal rank fusion it replaced
        // (k 2, meaning 0.75, the 5 nearest), which used each skill's place in the two
        // rankings but not by how much it led them. Without the √(2 ln n) the best weight
        // (0.35) did as well over the four stores but gave meaning half the say at ten skills
        // that it has at a thousand. Searched again once `description_zh` left the passage,
        // the weight is flat from 1.3 to 2.0 (1,226 to 1,230 over the four stores).
        Self { lexical: 1.0, dense: 1.4 }
    }
}

/// The skills at `positions`, best first by the fusion of `lexical` (BM25 scores by position,
/// 0 for no match; may be empty) and `similar` (cosines by position): those some query word
/// matched or closer in meaning than the average, by fused score, then the rest by position
/// (name order).
pub fn fuse(lexical: &[f32], similar: &[f32], positions: &[usize], f: Fusion) -> Vec<Ranked> {
    let score = |s: &[f32], pos: usize| s.get(pos).copied().unwrap_or(0.0);
    let n = positions.len().max(1) as f32;
    let best = positions.iter().map(|&p| score(lexical, p)).fold(0f32, f32::max);
    let mean = positions.iter().map(|&p| score(similar, p)).sum::<f32>() / n;
    let sd = (positions.iter().map(|&p| (score(similar, p) - mean).powi(2)).sum::<f32>() / n).sqrt();
    let expected_top = (2.0 * n.ln()).sqrt().max(1.0);
    let fused = |pos: usize| {
        let words = if best > 0.0 { f.lexical * score(lexical, pos) / best } else { 0.0 };
        let z = if sd > f32::EPSILON { ((score(similar, pos) - mean) / sd).max(0.0) } else { 0.0 };
        words + f.dense * z / expected_top
    };
    let (mut hits, rest): (Vec<Ranked>, Vec<Ranked>) =
        positions.iter().map(|&pos| Ranked { pos, score: fused(pos) }).partition(|r| r.score > 0.0);
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
        let f = Fusion::default();
        let ranked: Vec<usize> = fuse(&lexical, &similar, &[0, 1, 2], f).iter().map(|r| r.pos).collect();
        assert_eq!(ranked, vec![0, 2, 1]);
        let scores: Vec<f32> = fuse(&lexical, &similar, &[0, 1, 2], f).iter().map(|r| r.score).collect();
        assert!(scores[0] > scores[1] && scores[1] > 0.0 && scores[2] == 0.0, "{scores:?}");
    }

    #[test]
    fn a_skill_far_closer_in_meaning_passes_a_slightly_better_word_match() {
        // Positions 0 and 1 both matched words, 0 a little better; 1 is far closer in meaning
        // than every other skill, 0 only as close as the rest.
        let lexical = [1.0, 0.9, 0.0, 0.0, 0.0, 0.0];
        let similar = [0.40, 0.90, 0.40, 0.60, 0.35, 0.40];
        let all = [0, 1, 2, 3, 4, 5];
        let ranked: Vec<usize> = fuse(&lexical, &similar, &all, Fusion::default()).iter().map(|r| r.pos).collect();
        assert_eq!(ranked[..2], [1, 0]);
        // Words alone keep BM25's order; meaning alone puts the closest first.
        let words = Fusion { dense: 0.0, ..Fusion::default() };
        assert_eq!(fuse(&lexical, &similar, &all, words)[0].pos, 0);
        let meaning = Fusion { lexical: 0.0, ..Fusion::default() };
        let ranked: Vec<usize> = fuse(&lexical, &similar, &all, meaning).iter().map(|r| r.pos).collect();
        assert_eq!(ranked[..2], [1, 3]);
    }

    #[test]
    fn only_the_given_positions_rank() {
        let lexical = [0.0, 1.0, 3.0, 0.0];
        let similar = [0.9, 0.2, 0.1, 0.8];
        let mut ranked: Vec<usize> =
            fuse(&lexical, &similar, &[1, 3], Fusion::default()).iter().map(|r| r.pos).collect();
        ranked.sort_unstable();
        assert_eq!(ranked, vec![1, 3]);
    }
}
