//! `--explore-fusion SIZES [--also-model DIR]…`: fusion functions other than the ranker's, each
//! family's parameters searched on the tune split only (top-1 plus top-5 summed over the
//! stores), its best then shown on holdout: reciprocal rank fusion (the ranker's fusion before
//! 2026-12-04) and a mix of normalised scores (z-score, min-max, or the gap to the `depth`-th
//! nearest), over the `--model` and optionally a second model's rankings as well. Each
//! family's lines also give the Chinese requests alone (`zh`). `EXPLORE_Z=1` keeps to the
//! z-score families and prints each weight; `EXPLORE_PASSAGE` changes the text the model reads
//! (see [`passage_as`]); `EXPLORE_BODY=N` adds a second vector per skill, of the body's opening
//! prose cut to N characters, as one more column in the weight search (see [`body_text`]);
//! `EXPLORE_LEX` changes how BM25's score is made comparable: unset, a share of the best one;
//! `z`, its positive z-score over √(2 ln n) as meaning's is; `floorK`, a share of the best one or
//! of K when the best is weaker; `satK`, `score / (score + K)`. `EXPLORE_SECOND_EN=1` gives the
//! `--also-model`s no say on a Chinese request (for English-only models). With two of them, the
//! third model's weight is searched for the scaled z-score over every skill only.
//! `EXPLORE_PRF=1` measures pseudo-relevance feedback in meaning instead (see [`prf`]).

use crate::data::Bench;
use skilldeck_core::semantic::Semantic;
use skilldeck_select::ranker::{Query, SkillSet};
use skilldeck_skill::entry::SkillEntry;
use std::sync::Arc;

#[derive(Clone)]
struct Case {
    /// Each model's vectors of the store's skills (for `EXPLORE_PRF`).
    vecs: Arc<Vec<Vec<Arc<[f32]>>>>,
    tune: bool,
    zh: bool,
    expected: usize,
    lex: Vec<f32>,
    sims: Vec<Vec<f32>>,
    lex_order: Vec<usize>,
    sim_orders: Vec<Vec<usize>>,
    stats: Vec<(f32, f32)>,
}

#[derive(Debug, Clone, Copy)]
enum Fn {
    /// RRF: k, lexical weight, per-model weights (up to 3), depth.
    Rrf { k: f32, w: [f32; 3], depth: usize },
    /// lexical/max + Σ w · z-score of the cosine (over the store), only the `depth` nearest.
    Cc { w: [f32; 3], norm: Norm, depth: usize },
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Norm {
    Z,
    ZPos,
    /// The positive z-score divided by √(2 ln n), about the largest z-score among n skills,
    /// so meaning weighs alike in a small store and a large one.
    ZScaled,
    MinMax,
    TopGap,
}

/// The mean and standard deviation (at least 1e-6) of `s`.
fn mean_sd(s: &[f32]) -> (f32, f32) {
    let n = s.len() as f32;
    let mean = s.iter().sum::<f32>() / n;
    (mean, (s.iter().map(|x| (x - mean).powi(2)).sum::<f32>() / n).sqrt().max(1e-6))
}

fn ranks_of(scores: &[f32], pos: usize) -> usize {
    let e = scores[pos];
    scores.iter().enumerate().filter(|&(i, &s)| s > e || (s == e && i < pos)).count()
}

fn order(s: &[f32]) -> Vec<usize> {
    let mut o: Vec<usize> = (0..s.len()).collect();
    o.sort_by(|&a, &b| s[b].total_cmp(&s[a]));
    o
}

/// How BM25's score is made comparable (`EXPLORE_LEX`).
enum LexScale {
    /// A share of the best score (the ranker's).
    Best,
    /// Its positive z-score over √(2 ln n), as meaning's is.
    Z,
    /// `score / (score + K)`.
    Saturated(f32),
    /// A share of the best score, or of K when the best is weaker.
    Floor(f32),
}

/// `EXPLORE_LEX`, read once.
fn lex_scale() -> &'static LexScale {
    static LEX: std::sync::OnceLock<LexScale> = std::sync::OnceLock::new();
    LEX.get_or_init(|| {
        let v = std::env::var("EXPLORE_LEX").unwrap_or_default();
        let k = |prefix: &str| v.strip_prefix(prefix).map(|k| k.parse::<f32>().expect("EXPLORE_LEX=satK or floorK"));
        match v.as_str() {
            "" => LexScale::Best,
            "z" => LexScale::Z,
            _ => k("sat")
                .map(LexScale::Saturated)
                .or_else(|| k("floor").map(LexScale::Floor))
                .unwrap_or_else(|| panic!("EXPLORE_LEX={v}: z, satK or floorK")),
        }
    })
}

fn fused(c: &Case, f: Fn) -> Vec<f32> {
    let n = c.sims[0].len();
    let mut out = vec![0f32; n];
    match f {
        Fn::Rrf { k, w, depth } => {
            for (r, &i) in
                c.lex_order.iter().enumerate().take_while(|(_, i)| c.lex.get(**i).copied().unwrap_or(0.0) > 0.0)
            {
                out[i] += 1.0 / (k + r as f32 + 1.0);
            }
            for (m, by_meaning) in c.sim_orders.iter().enumerate() {
                for (r, &i) in by_meaning.iter().take(depth).enumerate() {
                    out[i] += w[m] / (k + r as f32 + 1.0);
                }
            }
        }
        Fn::Cc { w, norm, depth } => {
            let max = c.lex.iter().copied().fold(0f32, f32::max);
            if max > 0.0 {
                match *lex_scale() {
                    LexScale::Best => out.iter_mut().zip(&c.lex).for_each(|(o, l)| *o += l / max),
                    LexScale::Z => {
                        let n = c.lex.len() as f32;
                        let (mean, sd) = mean_sd(&c.lex);
                        let scale = (2.0 * n.ln()).sqrt().max(1.0);
                        out.iter_mut().zip(&c.lex).for_each(|(o, l)| *o += ((l - mean) / sd).max(0.0) / scale);
                    }
                    LexScale::Saturated(k) => out.iter_mut().zip(&c.lex).for_each(|(o, l)| *o += l / (l + k)),
                    LexScale::Floor(k) => out.iter_mut().zip(&c.lex).for_each(|(o, l)| *o += l / max.max(k)),
                }
            }
            for (m, s) in c.sims.iter().enumerate() {
                let o = &c.sim_orders[m];
                let (mean, sd) = c.stats[m];
                let (top, min) = (s[o[0]], s[o[n - 1]]);
                let floor = s[o[depth.min(n - 1)]];
                for &i in o.iter().take(depth) {
                    let v = match norm {
                        Norm::Z => (s[i] - mean) / sd,
                        Norm::ZPos => ((s[i] - mean) / sd).max(0.0),
                        Norm::ZScaled => ((s[i] - mean) / sd).max(0.0) / (2.0 * (n as f32).ln()).sqrt().max(1.0),
                        Norm::MinMax => (s[i] - min) / (top - min).max(1e-6),
                        Norm::TopGap => (s[i] - floor) / (top - floor).max(1e-6),
                    };
                    out[i] += w[m] * v;
                }
            }
        }
    }
    out
}

fn score(cases: &[Vec<Case>], f: Fn, tune: bool) -> Vec<(usize, usize)> {
    score_where(cases, f, |c| c.tune == tune)
}

fn score_where(cases: &[Vec<Case>], f: Fn, keep: impl std::ops::Fn(&Case) -> bool) -> Vec<(usize, usize)> {
    cases
        .iter()
        .map(|cs| {
            let (mut t1, mut t5) = (0, 0);
            for c in cs.iter().filter(|c| keep(c)) {
                let r = ranks_of(&fused(c, f), c.expected);
                t1 += usize::from(r == 0);
                t5 += usize::from(r < 5);
            }
            (t1, t5)
        })
        .collect()
}

/// Skill `e` as the model reads it under `EXPLORE_PASSAGE` (`variant`), to measure which text
/// helps: unset,
/// the ranker's own passage; `zh`, with `description_zh` after the description (the passage
/// before 2026-12-04); `maxzh`, a second vector of `description_zh` alone, a skill's closeness
/// the nearer of its two; `headings` or `headingsN`, with all or the first N headings of
/// SKILL.md; `noname`, without the name.
fn passage_as(e: &Arc<SkillEntry>, variant: &str) -> Arc<SkillEntry> {
    let mut x = (**e).clone();
    let desc = x.listing_description().to_owned();
    let zh = x.meta.description_zh.clone().filter(|z| !z.trim().is_empty());
    match variant {
        "" | "maxzh" => return e.clone(),
        "zh" => x.one_line = zh.map(|zh| format!("{desc}. {zh}")).or(Some(desc)),
        "zhonly" => x.one_line = zh.or(Some(desc)),
        "noname" => x.name = String::new(),
        v if v.starts_with("headings") => {
            let n: usize = v.trim_start_matches("headings").parse().unwrap_or(usize::MAX);
            let h: Vec<&str> = x.headings.iter().take(n).map(String::as_str).collect();
            if !h.is_empty() {
                x.one_line = Some(format!("{desc}. {}", h.join(". ")));
            }
        }
        other => panic!("EXPLORE_PASSAGE={other}: one of zh, maxzh, headings, headingsN, noname"),
    }
    Arc::new(x)
}

/// The opening prose of a skill's body, markdown marks and code blocks out, cut to `chars`:
/// under `EXPLORE_BODY=N`, a second vector per skill (an extra column in the weight search).
fn body_text(skill_md: &[u8], chars: usize) -> String {
    let text = String::from_utf8_lossy(skill_md);
    let body = skilldeck_skill::frontmatter::strip(&text);
    let mut out = String::new();
    let mut fence = false;
    for line in body.lines() {
        let t = line.trim();
        if t.starts_with("```") {
            fence = !fence;
            continue;
        }
        if fence || t.is_empty() || t.starts_with('|') || t.starts_with("---") {
            continue;
        }
        let t = t.trim_start_matches(['#', '-', '*', '>', ' ']).replace(['*', '`', '_'], "");
        if out.len() + t.len() > chars {
            break;
        }
        out.push_str(&t);
        out.push_str(if t.ends_with(['.', ':', '!', '?']) { " " } else { ". " });
    }
    out
}

pub fn run(bench: &Bench, semantics: &[&Semantic], sizes: &[usize]) {
    let variant = std::env::var("EXPLORE_PASSAGE").unwrap_or_default();
    let english_second = std::env::var("EXPLORE_SECOND_EN").is_ok();
    let body_chars: Option<usize> = std::env::var("EXPLORE_BODY").ok().map(|v| v.parse().expect("EXPLORE_BODY=chars"));
    let cases: Vec<Vec<Case>> = sizes
        .iter()
        .map(|&size| {
            let store = bench.listed(size);
            let first = SkillSet::of(&store);
            // Each model's vectors of the skills as `variant` has them.
            // Each model's vectors of the skills as `text` gives them.
            let indexed_as = |text: &dyn std::ops::Fn(&Arc<SkillEntry>) -> Arc<SkillEntry>| -> Vec<SkillSet> {
                semantics
                    .iter()
                    .map(|sem| {
                        let set = SkillSet::build(first.entries().iter().map(text).collect());
                        sem.index(&set, |_, _| {}).expect("the model runs");
                        set
                    })
                    .collect()
            };
            let indexed = |variant: &str| indexed_as(&|e| passage_as(e, variant));
            let sets = indexed(&variant);
            // `maxzh`: a second vector of the Chinese description alone; a skill's closeness
            // is the nearer of its two.
            let zh_sets = (variant == "maxzh").then(|| indexed("zhonly"));
            // `EXPLORE_BODY`: each model's vectors of the name and the body's opening.
            let body_sets: Vec<SkillSet> = body_chars.map_or_else(Vec::new, |chars| {
                let md: std::collections::HashMap<String, Vec<u8>> =
                    bench.store(size).into_iter().map(|s| (s.name, s.skill_md)).collect();
                indexed_as(&|e| {
                    let mut x = (**e).clone();
                    let b = md.get(&e.name).map(|m| body_text(m, chars)).unwrap_or_default();
                    x.one_line = Some(if b.is_empty() { x.listing_description().to_owned() } else { b });
                    Arc::new(x)
                })
            });
            let vecs: Arc<Vec<Vec<Arc<[f32]>>>> =
                Arc::new(sets.iter().map(|s| s.dense().unwrap().vectors(0).unwrap().to_vec()).collect());
            bench
                .requests
                .iter()
                .filter_map(|r| {
                    let expected = first.entries().iter().position(|e| e.name == r.expected)?;
                    let q = Query::new(&r.text);
                    let mut lex = first.lexical_scores(&q);
                    lex.resize(first.entries().len(), 0.0);
                    let mut sims: Vec<Vec<f32>> =
                        sets.iter().map(|s| s.dense().unwrap().similarities(&r.text).unwrap()).collect();
                    if let Some(zs) = &zh_sets {
                        for (s, z) in sims.iter_mut().zip(zs) {
                            let zv = z.dense().unwrap().similarities(&r.text).unwrap();
                            s.iter_mut().zip(zv).for_each(|(a, b)| *a = a.max(b));
                        }
                    }
                    for b in &body_sets {
                        sims.push(b.dense().unwrap().similarities(&r.text).unwrap());
                    }
                    // `EXPLORE_SECOND_EN=1`: the other models read English only, so they have no
                    // say on a Chinese request.
                    if english_second && crate::is_chinese(&r.text) {
                        let others = semantics.len().saturating_sub(1);
                        sims.iter_mut().skip(1).take(others).flatten().for_each(|x| *x = 0.0);
                    }
                    let stats = sims.iter().map(|s| mean_sd(s)).collect();
                    Some(Case {
                        vecs: Arc::clone(&vecs),
                        tune: r.split == "tune",
                        zh: crate::is_chinese(&r.text),
                        expected,
                        lex_order: order(&lex),
                        sim_orders: sims.iter().map(|s| order(s)).collect(),
                        stats,
                        lex,
                        sims,
                    })
                })
                .collect()
        })
        .collect();
    if std::env::var("EXPLORE_PRF").is_ok() {
        prf(&cases);
        return;
    }
    let models = semantics.len() * if body_chars.is_some() { 2 } else { 1 };
    assert!(
        models <= 3,
        "the weight search takes at most three columns of vectors ({models} here: each --model and \
         --also-model, twice with EXPLORE_BODY)"
    );
    let key = |s: &[(usize, usize)]| s.iter().map(|(a, b)| a + b).sum::<usize>();
    let mut fams: Vec<(&str, Vec<Fn>)> = Vec::new();
    let ws: Vec<f32> = vec![0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0];
    let pairs: Vec<[f32; 3]> = ws
        .iter()
        .flat_map(|&a| ws.iter().map(move |&b| [a, b, 0.0]))
        .filter(|w| models >= 2 || w[1] == 0.0)
        .filter(|w| w[0] + w[1] > 0.0)
        .collect();
    let mut rrf = Vec::new();
    for k in [1.0, 2.0, 5.0, 10.0, 60.0] {
        for &w in &pairs {
            for depth in [5, 10, 20, 50, 100] {
                rrf.push(Fn::Rrf { k, w, depth });
            }
        }
    }
    fams.push(("rrf", rrf));
    let only_z = std::env::var("EXPLORE_Z").is_ok();
    if only_z {
        fams.clear();
    }
    for (name, norm) in [
        ("cc-z", Norm::Z),
        ("cc-zpos", Norm::ZPos),
        ("cc-zscaled", Norm::ZScaled),
        ("cc-minmax", Norm::MinMax),
        ("cc-topgap", Norm::TopGap),
    ] {
        if only_z && !matches!(norm, Norm::ZPos | Norm::ZScaled) {
            continue;
        }
        let cw: Vec<f32> = match norm {
            Norm::Z | Norm::ZPos => vec![0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6],
            Norm::ZScaled => vec![0.0, 0.5, 0.75, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.75, 2.0, 2.5],
            _ => vec![0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0],
        };
        let mut v = Vec::new();
        // A third model's weight is searched with every skill counted (depth) only, and with
        // the scaled z-score only, to keep the grid small.
        let thirds: Vec<f32> = if models == 3 && norm == Norm::ZScaled { cw.clone() } else { vec![0.0] };
        for &a in &cw {
            for &b in &cw {
                for &c in &thirds {
                    if (models == 1 && b != 0.0) || a + b + c == 0.0 {
                        continue;
                    }
                    let depths: &[usize] =
                        if c == 0.0 { &[5, 10, 20, 50, 100, 1000, usize::MAX] } else { &[usize::MAX] };
                    for &depth in depths {
                        v.push(Fn::Cc { w: [a, b, c], norm, depth });
                    }
                }
            }
        }
        fams.push((name, v));
    }
    for (name, fs) in fams {
        let mut best = (fs[0], score(&cases, fs[0], true));
        for &f in &fs[1..] {
            let s = score(&cases, f, true);
            if key(&s) > key(&best.1) {
                best = (f, s);
            }
        }
        println!("{name}: best on tune {:?} {:?}; holdout {:?}", best.0, best.1, score(&cases, best.0, false));
        if only_z {
            for &f in &fs {
                if let Fn::Cc { depth: usize::MAX, .. } = f {
                    println!("  {f:?}: tune {:?} holdout {:?}", score(&cases, f, true), score(&cases, f, false));
                    println!(
                        "    zh: tune {:?} holdout {:?}",
                        score_where(&cases, f, |c| c.tune && c.zh),
                        score_where(&cases, f, |c| !c.tune && c.zh)
                    );
                }
            }
        }
    }
    let lexical = Fn::Cc { w: [0.0; 3], norm: Norm::Z, depth: 1 };
    println!("words alone: tune {:?}; holdout {:?}", score(&cases, lexical, true), score(&cases, lexical, false));
    println!(
        "  zh: tune {:?} holdout {:?}",
        score_where(&cases, lexical, |c| c.tune && c.zh),
        score_where(&cases, lexical, |c| !c.tune && c.zh)
    );
    let former = Fn::Rrf { k: 2.0, w: [0.75, 0.0, 0.0], depth: 5 };
    println!(
        "the former rank fusion: tune {:?}; holdout {:?}",
        score(&cases, former, true),
        score(&cases, former, false)
    );
}

/// `EXPLORE_PRF=1`: pseudo-relevance feedback. The request's closeness to each skill gains `a`
/// times the skill's mean closeness to the `k` first skills of the shipped fusion (each model
/// on its own vectors), then the fusion ranks again. Searched on tune; the best then on holdout.
fn prf(cases: &[Vec<Case>]) {
    let base = Fn::Cc { w: [1.75, 2.0, 0.0], norm: Norm::ZScaled, depth: usize::MAX };
    let feedback = |c: &Case, k: usize| -> Vec<Vec<f32>> {
        let f = fused(c, base);
        let top: Vec<usize> = order(&f).into_iter().take(k).collect();
        c.vecs
            .iter()
            .enumerate()
            .map(|(m, vs)| {
                if c.sims[m].iter().all(|&x| x == 0.0) {
                    return vec![0.0; vs.len()];
                }
                vs.iter()
                    .map(|v| {
                        top.iter().map(|&j| skilldeck_select::ranker::dense::dot(&vs[j], v)).sum::<f32>() / k as f32
                    })
                    .collect()
            })
            .collect()
    };
    let with = |c: &Case, fb: &[Vec<f32>], a: f32| -> Case {
        let mut c = c.clone();
        for (s, f) in c.sims.iter_mut().zip(fb) {
            s.iter_mut().zip(f).for_each(|(x, y)| *x += a * y);
        }
        c.stats = c.sims.iter().map(|s| mean_sd(s)).collect();
        c.sim_orders = c.sims.iter().map(|s| order(s)).collect();
        c
    };
    let key = |s: &[(usize, usize)]| s.iter().map(|(a, b)| a + b).sum::<usize>();
    println!("no feedback: tune {:?} holdout {:?}", score(cases, base, true), score(cases, base, false));
    let mut best: Option<(usize, f32, usize)> = None;
    for k in [1, 2, 3, 5, 10] {
        let fbs: Vec<Vec<Vec<Vec<f32>>>> = cases.iter().map(|cs| cs.iter().map(|c| feedback(c, k)).collect()).collect();
        for a in [0.1, 0.2, 0.3, 0.5, 0.75, 1.0] {
            let moved: Vec<Vec<Case>> = cases
                .iter()
                .zip(&fbs)
                .map(|(cs, fs)| cs.iter().zip(fs).map(|(c, f)| with(c, f, a)).collect())
                .collect();
            let t = score(&moved, base, true);
            println!("k {k} a {a}: tune {t:?} ({})", key(&t));
            if best.is_none_or(|b| key(&t) > b.2) {
                best = Some((k, a, key(&t)));
            }
        }
    }
    if let Some((k, a, _)) = best {
        let moved: Vec<Vec<Case>> =
            cases.iter().map(|cs| cs.iter().map(|c| with(c, &feedback(c, k), a)).collect()).collect();
        println!("best on tune, k {k} a {a}: holdout {:?}", score(&moved, base, false));
    }
}
