//! The skill ranker: BM25 over name, description, `description_zh`, SKILL.md headings and
//! `when_to_use`, fused with ranking by meaning when a set has its skills' vectors, and the
//! per-store index cache the listing and `find_skills` share. Holds no listing text.

pub mod analyze;
pub mod dense;
pub mod index;

pub use dense::{Dense, Encoder, Fusion};
pub use index::{Doc, DocText, Field, Index, Params, Query};
pub use skilldeck_skill::headings::headings;

use skilldeck_skill::entry::{ListedEntry, SkillEntry};
use std::sync::{Arc, Mutex, OnceLock};

/// One skill's place in a ranking.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ranked {
    /// Its position in the [`SkillSet`].
    pub pos: usize,
    /// Its score: BM25's, or the fused score when ranked by meaning too (0 when no ranking
    /// placed it).
    pub score: f32,
}

/// A set of listable skills (valid, not shadowed) with their index, built once per set of
/// entries and reused while the registry hands out the same entries.
#[derive(Debug)]
pub struct SkillSet {
    key: Vec<usize>,
    entries: Vec<Arc<SkillEntry>>,
    index: OnceLock<Index>,
    dense: OnceLock<Dense>,
    /// Vectors from more models than `dense`'s, attached later: the main model's alone rank
    /// while a companion's are still being computed, then these take over.
    fuller: OnceLock<Dense>,
}

/// How many sets the cache keeps (a process rarely lists more than one store at a time).
const CACHED_SETS: usize = 4;

static SETS: Mutex<Vec<Arc<SkillSet>>> = Mutex::new(Vec::new());

impl SkillSet {
    /// The set of `entries` that can ever be listed (valid, not shadowed), from the cache when
    /// the very same entries were indexed before.
    pub fn of(entries: &[ListedEntry]) -> Arc<SkillSet> {
        let listable = || entries.iter().filter(|e| e.entry.valid && !e.shadowed).map(|e| &e.entry);
        // The key is the entries as given (pointers, which the cached set keeps alive, so no
        // other entry can take one over), compared before anything is sorted.
        let same = |s: &SkillSet| {
            s.key.len() == listable().count()
                && s.key.iter().zip(listable()).all(|(k, e)| *k == Arc::as_ptr(e) as usize)
        };
        if let Ok(sets) = SETS.lock()
            && let Some(hit) = sets.iter().find(|s| same(s))
        {
            return Arc::clone(hit);
        }
        let key = listable().map(|e| Arc::as_ptr(e) as usize).collect();
        let mut sorted: Vec<Arc<SkillEntry>> = listable().cloned().collect();
        sorted.sort_by(|a, b| a.name.cmp(&b.name));
        sorted.dedup_by(|a, b| a.name == b.name);
        let set = Arc::new(Self { key, ..Self::build(sorted) });
        if let Ok(mut sets) = SETS.lock() {
            if sets.len() == CACHED_SETS {
                sets.remove(0);
            }
            sets.push(Arc::clone(&set));
        }
        set
    }

    /// The set of `entries` (sorted by name) without the cache; its index is built the first
    /// time a query needs it (a listing that fits whole, or ranks by name, never does).
    pub fn build(entries: Vec<Arc<SkillEntry>>) -> Self {
        Self { key: Vec::new(), entries, index: OnceLock::new(), dense: OnceLock::new(), fuller: OnceLock::new() }
    }

    /// The BM25 index of the skills, built on first use.
    fn index(&self) -> &Index {
        self.index.get_or_init(|| {
            let when: Vec<String> = self.entries.iter().map(|e| e.meta.when_to_use().unwrap_or_default()).collect();
            Index::build(self.entries.iter().zip(&when).map(|(e, when_to_use)| Doc {
                text: DocText {
                    name: &e.name,
                    description: e.listing_description(),
                    description_zh: e.meta.description_zh.as_deref().unwrap_or_default(),
                    headings: &e.headings,
                },
                when_to_use,
            }))
        })
    }

    /// The skills, sorted by name.
    pub fn entries(&self) -> &[Arc<SkillEntry>] {
        &self.entries
    }

    /// Gives the set its skills' vectors (one per skill, in the set's order); false when the
    /// count does not match or it has some already from as many models. From then on
    /// [`rank`](Self::rank) fuses BM25 with meaning. Vectors from more models than those
    /// attached before (a companion's, computed after the main model's) take over from them,
    /// once.
    pub fn attach(&self, dense: Dense) -> bool {
        if dense.len() != self.entries.len() {
            return false;
        }
        match self.dense.set(dense) {
            Ok(()) => true,
            Err(dense) => {
                let had = self.dense.get().map_or(0, Dense::model_count);
                dense.model_count() > had && self.fuller.set(dense).is_ok()
            }
        }
    }

    /// The vectors the set ranks by meaning with, once attached (the fuller ones, when vectors
    /// from more models came later).
    pub fn dense(&self) -> Option<&Dense> {
        self.fuller.get().or_else(|| self.dense.get())
    }

    /// The skills at `positions` (ascending), best first for `q`. Lexical: those some query
    /// word matched by score, then the rest by name (ties too stay in name order). With
    /// vectors attached and a request in `q`, the BM25 ranking fused with the ranking by
    /// meaning ([`dense::fuse`]), so a skill worded otherwise than the request still ranks.
    pub fn rank(&self, q: &Query, positions: &[usize]) -> Vec<Ranked> {
        self.rank_with(q, positions, Fusion::default())
    }

    /// Every skill's BM25 score for `q` by position (0 for no match; empty for an empty query).
    pub fn lexical_scores(&self, q: &Query) -> Vec<f32> {
        if q.is_empty() { Vec::new() } else { self.index().scores(q) }
    }

    /// [`rank`](Self::rank) with other fusion parameters (for tuning them).
    pub fn rank_with(&self, q: &Query, positions: &[usize], fusion: Fusion) -> Vec<Ranked> {
        let scores = self.lexical_scores(q);
        if let Some(d) = self.dense()
            && !q.text().is_empty()
            && let Some(similar) = d.all_similarities(q.text())
        {
            return dense::fuse(&scores, &similar, positions, fusion);
        }
        let score = |pos: usize| scores.get(pos).copied().unwrap_or(0.0);
        let (mut hits, rest): (Vec<Ranked>, Vec<Ranked>) =
            positions.iter().map(|&pos| Ranked { pos, score: score(pos) }).partition(|r| r.score > 0.0);
        // Positions are in name order, so a stable sort by score keeps ties by name.
        hits.sort_by(|a, b| b.score.total_cmp(&a.score));
        hits.extend(rest);
        hits
    }

    /// Why the skill at `pos` matched `q`: `word (field, field); …`.
    pub fn why(&self, pos: usize, q: &Query) -> String {
        self.index()
            .why(pos, q)
            .into_iter()
            .map(|(word, fields)| {
                let f: Vec<&str> = fields.iter().map(|f| f.label()).collect();
                format!("{word} ({})", f.join(", "))
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
}
