//! The BM25 index over skills: per-field term frequencies and lengths, and the scoring of a query.
//! Holds no listing logic and no knowledge of the store; documents are plain texts.

use super::analyze::{Term, terms};
use std::collections::HashMap;

/// The fields a skill is searched in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Field {
    /// Its name (hyphens split).
    Name,
    /// Its English description.
    Description,
    /// Its Chinese description.
    DescriptionZh,
    /// The headings of its SKILL.md.
    Headings,
    /// Its `when_to_use` (Claude Code's field: when the skill applies, beyond its description).
    WhenToUse,
}

impl Field {
    const ALL: [Field; FIELDS] =
        [Field::Name, Field::Description, Field::DescriptionZh, Field::Headings, Field::WhenToUse];

    /// Its name as shown in a `why`.
    pub fn label(self) -> &'static str {
        match self {
            Field::Name => "name",
            Field::Description => "description",
            Field::DescriptionZh => "description_zh",
            Field::Headings => "headings",
            Field::WhenToUse => "when_to_use",
        }
    }
}

const FIELDS: usize = 5;

/// The ranker's parameters: per-field weights and BM25's constants. The defaults were chosen on
/// the tune split of the selection benchmark (`bench/selection/`), never its holdout.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// How much a match in each field counts (name, description, description_zh, headings,
    /// when_to_use).
    pub weights: [f32; FIELDS],
    /// BM25's length normalisation per field.
    pub b: [f32; FIELDS],
    /// BM25's term-frequency saturation.
    pub k1: f32,
}

impl Default for Params {
    fn default() -> Self {
        // Chosen by a coordinate search on the tune split at 1,000 skills (the `selection`
        // example's `--tune`): among real skills, names repeat common words ("git-", "-pro",
        // "-automation"), so the description says more than the name; a short Chinese
        // description is not penalised for its length; headings help a little. `when_to_use`
        // was added later (no benchmark skill has one, so it changes no benchmark score): it is
        // trigger phrases written for a model, so it counts nearly as much as the description,
        // and a long one is normalised like the description.
        Self { weights: [0.5, 1.5, 2.0, 0.2, 1.2], b: [0.3, 0.9, 0.0, 0.75, 0.9], k1: 1.2 }
    }
}

/// The texts of one skill an index reads: [`DocText`] and, when the skill has one, its
/// `when_to_use` (a `DocText` alone is a document without it).
#[derive(Debug, Clone, Copy)]
pub struct Doc<'a> {
    /// The name, descriptions and headings.
    pub text: DocText<'a>,
    /// `when_to_use`, or "".
    pub when_to_use: &'a str,
}

impl<'a> From<DocText<'a>> for Doc<'a> {
    fn from(text: DocText<'a>) -> Self {
        Self { text, when_to_use: "" }
    }
}

/// The texts of one skill.
#[derive(Debug, Clone, Copy)]
pub struct DocText<'a> {
    /// The name.
    pub name: &'a str,
    /// The description.
    pub description: &'a str,
    /// The Chinese description, or "".
    pub description_zh: &'a str,
    /// SKILL.md's headings.
    pub headings: &'a [String],
}

#[derive(Debug, Clone)]
struct Posting {
    doc: u32,
    tf: [u16; FIELDS],
}

/// A BM25F-style index: a document's score is the sum over query terms of the term's weight,
/// its IDF, and the weighted BM25 term-frequency part of each field.
#[derive(Debug, Default)]
pub struct Index {
    ids: HashMap<String, u32>,
    postings: Vec<Vec<Posting>>,
    idf: Vec<f32>,
    /// Per document and field, `k1 * (1 - b + b * len / avg_len)`.
    norms: Vec<[f32; FIELDS]>,
    params: Params,
}

/// An analysed query: each term once, with its weight and the word it came from, and the
/// latest request as written (what a sentence-embedding model reads).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Query {
    terms: Vec<(Term, f32)>,
    text: String,
}

impl Query {
    /// A query from one text, every term weighing 1.
    pub fn new(text: &str) -> Self {
        Self::conversation(text, &[])
    }

    /// A query from a conversation: the latest user message weighs 1, earlier context (newest
    /// first) weighs less the older it is, so the current request leads and context breaks ties.
    pub fn conversation(latest: &str, earlier: &[&str]) -> Self {
        let mut q = Self { text: latest.trim().to_owned(), ..Self::default() };
        q.add(latest, 1.0);
        for (i, text) in earlier.iter().enumerate() {
            q.add(text, 0.4 / (i as f32 + 1.0));
        }
        q
    }

    fn add(&mut self, text: &str, weight: f32) {
        for t in terms(text) {
            match self.terms.iter_mut().find(|(have, _)| have.key == t.key) {
                Some((_, w)) => *w = w.max(weight),
                None => self.terms.push((t, weight)),
            }
        }
    }

    /// Whether it has no term at all (nothing to rank by).
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// The latest request as written, trimmed ("" for none).
    pub fn text(&self) -> &str {
        &self.text
    }
}

impl Index {
    /// Indexes `docs` (each a [`DocText`] or a [`Doc`]); a document's number is its position.
    pub fn build<'a, D: Into<Doc<'a>>>(docs: impl IntoIterator<Item = D>) -> Self {
        Self::build_with(docs, Params::default())
    }

    /// Indexes `docs` with other parameters (for tuning them).
    pub fn build_with<'a, D: Into<Doc<'a>>>(docs: impl IntoIterator<Item = D>, params: Params) -> Self {
        let mut ix = Index { params, ..Index::default() };
        let Params { b: bs, k1, .. } = params;
        let mut lens: Vec<[u32; FIELDS]> = Vec::new();
        for (doc, d) in docs.into_iter().enumerate() {
            let Doc { text: d, when_to_use } = d.into();
            let doc = u32::try_from(doc).unwrap_or(u32::MAX);
            let mut len = [0u32; FIELDS];
            let headings = d.headings.join("\n");
            let fields = [d.name, d.description, d.description_zh, headings.as_str(), when_to_use];
            for (f, text) in fields.into_iter().enumerate() {
                for t in terms(text) {
                    len[f] += 1;
                    let next = u32::try_from(ix.postings.len()).unwrap_or(u32::MAX);
                    let id = *ix.ids.entry(t.key).or_insert(next);
                    if id == next {
                        ix.postings.push(Vec::new());
                    }
                    let list = &mut ix.postings[id as usize];
                    match list.last_mut() {
                        Some(p) if p.doc == doc => p.tf[f] = p.tf[f].saturating_add(1),
                        _ => {
                            let mut tf = [0u16; FIELDS];
                            tf[f] = 1;
                            list.push(Posting { doc, tf });
                        }
                    }
                }
            }
            lens.push(len);
        }
        let n = lens.len().max(1) as f32;
        let mut avg = [0f32; FIELDS];
        for l in &lens {
            for f in 0..FIELDS {
                avg[f] += l[f] as f32 / n;
            }
        }
        ix.norms = lens
            .iter()
            .map(|l| std::array::from_fn(|f| k1 * (1.0 - bs[f] + bs[f] * l[f] as f32 / avg[f].max(1.0))))
            .collect();
        ix.idf = ix.postings.iter().map(|p| (1.0 + (n - p.len() as f32 + 0.5) / (p.len() as f32 + 0.5)).ln()).collect();
        ix
    }

    /// How many documents it holds.
    pub fn len(&self) -> usize {
        self.norms.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.norms.is_empty()
    }

    /// Every document's score for `q` (0 for no match), by document number.
    pub fn scores(&self, q: &Query) -> Vec<f32> {
        let mut scores = vec![0f32; self.len()];
        let Params { weights, k1, .. } = self.params;
        for (t, w) in &q.terms {
            let Some(&id) = self.ids.get(&t.key) else { continue };
            let weight = w * self.idf[id as usize];
            for p in &self.postings[id as usize] {
                let norm = &self.norms[p.doc as usize];
                let mut s = 0f32;
                for f in 0..FIELDS {
                    let tf = f32::from(p.tf[f]);
                    if tf > 0.0 {
                        s += weights[f] * tf * (k1 + 1.0) / (tf + norm[f]);
                    }
                }
                scores[p.doc as usize] += weight * s;
            }
        }
        scores
    }

    /// Why `doc` matched `q`: each matching query word with the fields it was found in.
    pub fn why(&self, doc: usize, q: &Query) -> Vec<(String, Vec<Field>)> {
        let Ok(doc) = u32::try_from(doc) else { return Vec::new() };
        let mut out = Vec::new();
        for (t, _) in &q.terms {
            let Some(&id) = self.ids.get(&t.key) else { continue };
            let list = &self.postings[id as usize];
            if let Ok(i) = list.binary_search_by_key(&doc, |p| p.doc) {
                let fields = Field::ALL.into_iter().zip(list[i].tf).filter(|(_, tf)| *tf > 0).map(|(f, _)| f).collect();
                out.push((t.surface.clone(), fields));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::{DocText, Field, Index, Query};

    fn doc<'a>(name: &'a str, description: &'a str, description_zh: &'a str) -> DocText<'a> {
        DocText { name, description, description_zh, headings: &[] }
    }

    fn best(ix: &Index, q: &str) -> Option<usize> {
        let s = ix.scores(&Query::new(q));
        let (i, top) = s.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1))?;
        (*top > 0.0).then_some(i)
    }

    #[test]
    fn ranks_by_name_description_and_chinese() {
        let ix = Index::build([
            doc("pdf-tools", "Extract text and tables from PDF files", "从PDF文件中提取文本和表格"),
            doc("line-messaging", "Send and receive LINE messages through a bridge", ""),
            doc("parser-debugging", "Debug recursive-descent parsers: wrong line numbers, error recovery", ""),
            doc("market-research", "Systematic market analysis with competitive intelligence", "系统的市场分析"),
            doc("root-cause", "Find why a bug happens before fixing it", "定位 bug 的根因"),
        ]);
        assert_eq!(best(&ix, "my recursive-descent parser reports wrong line numbers"), Some(2));
        assert_eq!(best(&ix, "pull the tables out of this pdf"), Some(0));
        assert_eq!(best(&ix, "帮我做一份市场分析"), Some(3));
        assert_eq!(best(&ix, "analysing markets"), Some(3), "stemmed");
        assert_eq!(best(&ix, "zebra"), None);
        // Chinese worded otherwise still meets through single characters: 根本原因 and 根因
        // share no pair, only 根 and 因.
        assert_eq!(best(&ix, "找出根本原因"), Some(4));
        assert_eq!(
            ix.why(0, &Query::new("PDF tables")),
            vec![
                ("pdf".to_owned(), vec![Field::Name, Field::Description, Field::DescriptionZh]),
                ("tables".to_owned(), vec![Field::Description])
            ]
        );
    }
}
