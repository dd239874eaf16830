//! Ranking by meaning beside BM25: each skill's unit vector from one or more sentence-embedding
//! models, the request's vectors, and the fusion of the rankings. Holds no model (an [`Encoder`]
//! is handed in) and no file: the vectors come from whoever computed or cached them.

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
    /// Whether the model reads `request`'s language: an English model has no say on a request in
    /// another script. Every request, unless a model says otherwise.
    fn reads(&self, request: &str) -> bool {
        let _ = request;
        true
    }
}

/// Whether every letter of `text` is in the Latin script (what an English model's vocabulary
/// covers, accents included): no Chinese, Cyrillic, Arabic or other letters.
pub fn latin_script(text: &str) -> bool {
    text.chars().all(|c| !c.is_alphabetic() || matches!(c as u32, 0..=0x024F | 0x1E00..=0x1EFF))
}

/// A set's vectors, one per skill in the set's order, from each model that made them: the main
/// model first, then its companions.
#[derive(Debug, Clone)]
pub struct Dense {
    models: Vec<Made>,
}

/// A model and the vectors it made, one per skill.
type Made = (Arc<dyn Encoder>, Vec<Arc<[f32]>>);

impl Dense {
    /// The vectors `encoder`'s model made, one per skill of the set in its order.
    pub fn new(encoder: Arc<dyn Encoder>, vectors: Vec<Arc<[f32]>>) -> Self {
        Self { models: vec![(encoder, vectors)] }
    }

    /// The same with a companion model's vectors too (one per skill, as for the main model),
    /// fused with [`Fusion::companion`]'s weight; ignored unless there is one per skill.
    pub fn with_companion(mut self, encoder: Arc<dyn Encoder>, vectors: Vec<Arc<[f32]>>) -> Self {
        if vectors.len() == self.len() {
            self.models.push((encoder, vectors));
        }
        self
    }

    /// How many skills it has vectors for.
    pub fn len(&self) -> usize {
        self.models[0].1.len()
    }

    /// Whether it has none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The main model's id.
    pub fn model_id(&self) -> &str {
        self.models[0].0.model_id()
    }

    /// The vectors model `m` made (0 the main model, then its companions), one per skill.
    pub fn vectors(&self, m: usize) -> Option<&[Arc<[f32]>]> {
        self.models.get(m).map(|(_, v)| v.as_slice())
    }

    /// How many models made vectors (the main one and its companions).
    pub fn model_count(&self) -> usize {
        self.models.len()
    }

    /// The ids of every model, the main one first.
    pub fn model_ids(&self) -> Vec<&str> {
        self.models.iter().map(|(e, _)| e.model_id()).collect()
    }

    /// Each skill's cosine similarity to `request` by the main model (vectors are unit length),
    /// or `None` when the model could not read it.
    pub fn similarities(&self, request: &str) -> Option<Vec<f32>> {
        let (encoder, vectors) = &self.models[0];
        let q = encoder.encode_query(request)?;
        Some(vectors.iter().map(|v| dot(&q, v)).collect())
    }

    /// Each model's cosines to `request`, the main model first: empty for a companion that does
    /// not read the request's language or could not embed it. `None` when the main model could
    /// not read it.
    /// The models read the request at once (a companion on a thread of its own), so a turn
    /// waits for the slowest model, not for their sum.
    pub fn all_similarities(&self, request: &str) -> Option<Vec<Vec<f32>>> {
        let companion = |(encoder, vectors): &Made| -> Vec<f32> {
            let q = encoder.reads(request).then(|| encoder.encode_query(request)).flatten();
            q.map_or_else(Vec::new, |q| vectors.iter().map(|v| dot(&q, v)).collect())
        };
        std::thread::scope(|scope| {
            let others: Vec<_> = self.models[1..].iter().map(|m| scope.spawn(move || companion(m))).collect();
            let main = self.similarities(request);
            let others = others.into_iter().map(|h| h.join().unwrap_or_default());
            main.map(|m| std::iter::once(m).chain(others).collect())
        })
    }
}

/// The dot product, in eight running sums so the compiler can keep them in one vector register
/// (a single sum must be added in order, one product at a time).
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut sums = [0f32; 8];
    let (a8, b8) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = a8.remainder().iter().zip(b8.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in a8.zip(b8) {
        for i in 0..8 {
            sums[i] += x[i] * y[i];
        }
    }
    sums.iter().sum::<f32>() + tail
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

/// How the rankings are fused: a mix of the scores, each made comparable first. A skill scores
/// `lexical × its BM25 score / the best BM25 score + Σ weight × max(0, z) / √(2 ln n)` over the
/// models, where `z` is how many standard deviations its cosine to the request lies above the
/// mean cosine of the `n` skills being ranked, and `weight` is `dense` for the main model and
/// `companion` for a companion. So the best word match counts 1; a skill only as close in meaning
/// as an average one adds nothing; and one far closer than the rest adds in proportion, measured
/// against √(2 ln n), about the largest `z` chance alone gives among `n` skills: without it, a
/// small store (where no `z` can pass √(n − 1)) would give meaning less say than a large one.
/// The defaults were chosen on the tune split of the selection benchmark, never its holdout.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fusion {
    /// The weight of the BM25 score (as a share of the best one).
    pub lexical: f32,
    /// The weight of closeness in meaning by the main model (as a share of the closeness
    /// expected of the closest).
    pub dense: f32,
    /// The weight of closeness in meaning by a companion model, likewise.
    pub companion: f32,
}

impl Default for Fusion {
    fn default() -> Self {
        // Chosen with the selection example's `--explore-fusion 50,200,1000,5000` on the tune
        // split, top-1 plus top-5 summed over the four stores. The score mix replaced a
        // reciprocal rank fusion, which used each skill's place in the rankings but not by how
        // much it led them (e5 alone, 2026-12-04: (125, 162), (146, 184), (125, 170), (111, 155)
        // against (114, 157), (137, 185), (117, 168), (105, 153)). Without the √(2 ln n) the best
        // weight did as well over the four stores but gave meaning half the say at ten skills
        // that it has at a thousand. e5 alone is flat from 1.4 to 2.5; with all-MiniLM-L6-v2 as
        // a companion for English requests, 1.75 and 2.0 did best (session 24, README of
        // bench/selection).
        Self { lexical: 1.0, dense: 1.75, companion: 2.0 }
    }
}

/// The skills at `positions`, best first by the fusion of `lexical` (BM25 scores by position,
/// 0 for no match; may be empty) and `similar` (each model's cosines by position, the main
/// model first; an empty one has no say): those some query word matched or closer in meaning
/// than the average, by fused score, then the rest by position (name order).
pub fn fuse(lexical: &[f32], similar: &[Vec<f32>], positions: &[usize], f: Fusion) -> Vec<Ranked> {
    let score = |s: &[f32], pos: usize| s.get(pos).copied().unwrap_or(0.0);
    let n = positions.len().max(1) as f32;
    let best = positions.iter().map(|&p| score(lexical, p)).fold(0f32, f32::max);
    let expected_top = (2.0 * n.ln()).sqrt().max(1.0);
    // Each model's weight over √(2 ln n), mean and standard deviation over the positions.
    let models: Vec<(&[f32], f32, f32, f32)> = similar
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.is_empty())
        .map(|(i, s)| {
            let mean = positions.iter().map(|&p| score(s, p)).sum::<f32>() / n;
            let sd = (positions.iter().map(|&p| (score(s, p) - mean).powi(2)).sum::<f32>() / n).sqrt();
            let weight = if i == 0 { f.dense } else { f.companion };
            (s.as_slice(), weight / expected_top, mean, sd)
        })
        .collect();
    let fused = |pos: usize| {
        let words = if best > 0.0 { f.lexical * score(lexical, pos) / best } else { 0.0 };
        let meaning: f32 = models
            .iter()
            .filter(|(_, _, _, sd)| *sd > f32::EPSILON)
            .map(|&(s, w, mean, sd)| w * ((score(s, pos) - mean) / sd).max(0.0))
            .sum();
        words + meaning
    };
    let (mut hits, rest): (Vec<Ranked>, Vec<Ranked>) =
        positions.iter().map(|&pos| Ranked { pos, score: fused(pos) }).partition(|r| r.score > 0.0);
    hits.sort_by(|a, b| b.score.total_cmp(&a.score));
    hits.extend(rest);
    hits
}

#[cfg(test)]
mod tests {
    use super::{Fusion, dot, fuse, latin_script};

    #[test]
    fn a_skill_near_in_meaning_joins_the_word_matches() {
        // Position 2 shares no word with the request but is nearest in meaning; position 0
        // matched a word; position 1 neither and is far in meaning.
        let lexical = [2.0, 0.0, 0.0];
        let similar = [0.70, 0.10, 0.90];
        let f = Fusion::default();
        let ranked: Vec<usize> = fuse(&lexical, &[similar.to_vec()], &[0, 1, 2], f).iter().map(|r| r.pos).collect();
        assert_eq!(ranked, vec![0, 2, 1]);
        let scores: Vec<f32> = fuse(&lexical, &[similar.to_vec()], &[0, 1, 2], f).iter().map(|r| r.score).collect();
        assert!(scores[0] > scores[1] && scores[1] > 0.0 && scores[2] == 0.0, "{scores:?}");
    }

    #[test]
    fn a_skill_far_closer_in_meaning_passes_a_slightly_better_word_match() {
        // Positions 0 and 1 both matched words, 0 a little better; 1 is far closer in meaning
        // than every other skill, 0 only as close as the rest.
        let lexical = [1.0, 0.9, 0.0, 0.0, 0.0, 0.0];
        let similar = [0.40, 0.90, 0.40, 0.60, 0.35, 0.40];
        let all = [0, 1, 2, 3, 4, 5];
        let ranked: Vec<usize> =
            fuse(&lexical, &[similar.to_vec()], &all, Fusion::default()).iter().map(|r| r.pos).collect();
        assert_eq!(ranked[..2], [1, 0]);
        // Words alone keep BM25's order; meaning alone puts the closest first.
        let words = Fusion { dense: 0.0, ..Fusion::default() };
        assert_eq!(fuse(&lexical, &[similar.to_vec()], &all, words)[0].pos, 0);
        let meaning = Fusion { lexical: 0.0, ..Fusion::default() };
        let ranked: Vec<usize> = fuse(&lexical, &[similar.to_vec()], &all, meaning).iter().map(|r| r.pos).collect();
        assert_eq!(ranked[..2], [1, 3]);
    }

    #[test]
    fn only_the_given_positions_rank() {
        let lexical = [0.0, 1.0, 3.0, 0.0];
        let similar = [0.9, 0.2, 0.1, 0.8];
        let mut ranked: Vec<usize> =
            fuse(&lexical, &[similar.to_vec()], &[1, 3], Fusion::default()).iter().map(|r| r.pos).collect();
        ranked.sort_unstable();
        assert_eq!(ranked, vec![1, 3]);
    }

    #[test]
    fn a_companion_model_adds_its_say_and_an_empty_one_none() {
        // No word matched. The main model puts 0 a little nearer than 1; the companion puts 1
        // far nearer than every other skill.
        let lexical: [f32; 0] = [];
        let main = vec![0.62, 0.60, 0.40, 0.41, 0.39, 0.40];
        let companion = vec![0.30, 0.80, 0.31, 0.29, 0.30, 0.30];
        let all = [0, 1, 2, 3, 4, 5];
        let f = Fusion::default();
        let first = |sims: &[Vec<f32>]| fuse(&lexical, sims, &all, f)[0].pos;
        assert_eq!(first(std::slice::from_ref(&main)), 0);
        assert_eq!(first(&[main.clone(), companion]), 1);
        assert_eq!(first(&[main.clone(), Vec::new()]), 0, "a companion that does not read the request has no say");
        let none = Fusion { companion: 0.0, ..f };
        assert_eq!(fuse(&lexical, &[main.clone(), vec![0.0; 6]], &all, none)[0].pos, 0);
    }

    #[test]
    fn latin_script_is_english_and_its_accents_not_chinese_or_cyrillic() {
        assert!(latin_script("let customers pay monthly with a card!"));
        assert!(latin_script("résumé für Müller, ça va? 42"));
        assert!(!latin_script("帮我把这份简历改得更适合招聘系统"));
        assert!(!latin_script("review my PR 请"));
        assert!(!latin_script("сделай обзор кода"));
    }

    #[test]
    fn the_dot_product_in_eight_sums_is_the_plain_one() {
        let a: Vec<f32> = (0..387).map(|i| ((i * 7) % 13) as f32 / 13.0 - 0.4).collect();
        let b: Vec<f32> = (0..387).map(|i| ((i * 5) % 11) as f32 / 11.0 - 0.6).collect();
        let plain: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((dot(&a, &b) - plain).abs() < 1e-4, "{} against {plain}", dot(&a, &b));
    }
}
