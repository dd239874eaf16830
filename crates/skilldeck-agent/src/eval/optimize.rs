//! Improving a skill's description by the agentskills.io guide's loop: the trigger queries split
//! once, stratified, 60% to train and 40% to validate; each candidate description scored on both
//! by the trigger evals; a model shown the current description and the *train* failures only
//! proposes the next one (at most 1,024 characters, no run of a query's words pasted in); the
//! candidate with the best validation score wins, the original included, so a rewrite that does
//! not generalise is never offered. What wins is handed back, never stored: the caller offers it
//! as a draft.

use super::queries::TriggerQuery;
use super::triggers::{EvalError, QueryResult, TriggerOptions, run_triggers};
use crate::message::{Message, ModelRequest};
use crate::provider::{self, Provider, ProviderInfo};
use crate::session::SessionOptions;
use serde::Serialize;
use sha2::{Digest as _, Sha256};
use skilldeck_core::SkillRegistry;
use skilldeck_store::SkilldeckHome;
use std::sync::Arc;
use std::time::Instant;
use tokio_util::sync::CancellationToken;

/// The agentskills.io limit on a description.
pub const MAX_DESCRIPTION_CHARS: usize = 1024;

/// Rewrites tried by default, as the guide suggests.
pub const DEFAULT_ITERATIONS: usize = 5;

/// The shortest run of a query's words that counts as pasted into a description.
const PASTED_WORDS: usize = 4;

/// The queries split once, stratified by `should_trigger`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Split {
    /// About 60% of each kind: their failures guide the rewrites.
    pub train: Vec<TriggerQuery>,
    /// The rest: they choose the winner.
    pub validation: Vec<TriggerQuery>,
}

/// Splits `queries` 60/40 within each kind (rounded to the nearest query), in an order fixed by each query's text (its
/// SHA-256), so the same queries always split the same way. Each kind with two or more queries
/// has at least one in each set.
pub fn split(queries: &[TriggerQuery]) -> Split {
    let mut out = Split { train: Vec::new(), validation: Vec::new() };
    for kind in [true, false] {
        let mut mine: Vec<&TriggerQuery> = queries.iter().filter(|q| q.should_trigger == kind).collect();
        mine.sort_by_cached_key(|q| Sha256::digest(q.query.as_bytes()));
        let n = mine.len();
        // 60%, rounded to the nearest (4 queries split 2/2, not 3/1).
        let mut train = (n * 3 + 2) / 5;
        if n >= 2 {
            train = train.clamp(1, n - 1);
        }
        for (i, q) in mine.into_iter().enumerate() {
            if i < train { &mut out.train } else { &mut out.validation }.push(q.clone());
        }
    }
    out
}

/// Queries passed of a set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Score {
    /// Passed.
    pub passed: usize,
    /// In all.
    pub total: usize,
}

/// One description tried.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    /// 0 for the original, then each rewrite.
    pub iteration: usize,
    /// The description.
    pub description: String,
    /// Its score on the train queries.
    pub train: Score,
    /// Its score on the validation queries.
    pub validation: Score,
    /// The train queries it failed, with their rates and what was loaded instead.
    pub train_failures: Vec<QueryResult>,
}

/// The whole loop.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OptimizeReport {
    /// The skill.
    pub skill: String,
    /// Who ran the queries and proposed the rewrites.
    pub provider: ProviderInfo,
    /// The split used.
    pub split: Split,
    /// Runs of each query.
    pub runs: usize,
    /// Every description tried, the original first.
    pub candidates: Vec<Candidate>,
    /// Which won (an index into `candidates`): the best on validation, then on train, then the
    /// earliest; 0 when no rewrite beat the original.
    pub best: usize,
    /// Rewrites the model proposed that were refused, and why.
    pub refused: Vec<String>,
    /// Seconds the loop took.
    pub seconds: f64,
    /// Whether the user stopped it.
    pub stopped: bool,
}

impl OptimizeReport {
    /// The winning candidate.
    pub fn winner(&self) -> &Candidate {
        &self.candidates[self.best.min(self.candidates.len().saturating_sub(1))]
    }
}

/// What the loop needs.
pub struct Optimize<'a> {
    /// The Skilldeck home (sessions are kept there).
    pub home: &'a SkilldeckHome,
    /// The model that runs the queries and proposes rewrites.
    pub provider: Arc<dyn Provider>,
    /// The session options of every run.
    pub opts: SessionOptions,
    /// The skill.
    pub skill: &'a str,
    /// Its description now.
    pub description: String,
    /// The start of its instructions, so a rewrite says what the skill does.
    pub instructions: String,
    /// The queries.
    pub queries: &'a [TriggerQuery],
    /// How each query runs.
    pub options: TriggerOptions,
    /// Rewrites to try.
    pub iterations: usize,
    /// Ends the loop early: the candidates scored whole so far are compared.
    pub stop: CancellationToken,
}

/// Runs the loop. `store_with` gives the store to run a candidate in: the skill with that
/// description among its neighbours. `progress` hears `(iteration, what it does now)`.
pub async fn optimize_description(
    o: Optimize<'_>,
    store_with: &mut (dyn FnMut(&str) -> Result<Arc<SkillRegistry>, EvalError> + Send),
    progress: &(dyn Fn(usize, &str) + Sync),
) -> Result<OptimizeReport, EvalError> {
    let started = Instant::now();
    let split = split(o.queries);
    let all: Vec<TriggerQuery> = split.train.iter().chain(&split.validation).cloned().collect();
    let mut candidates: Vec<Candidate> = Vec::new();
    let mut refused = Vec::new();
    let mut description = o.description.clone();
    for iteration in 0..=o.iterations {
        progress(iteration, "scoring");
        let registry = store_with(&description)?;
        let quiet = |_: usize, _: usize| {};
        let report = run_triggers(
            o.home,
            registry,
            Arc::clone(&o.provider),
            o.opts.clone(),
            o.skill,
            &all,
            o.options,
            &quiet,
            &CancellationToken::new(),
        )
        .await?;
        let (train, validation) = report.results.split_at(split.train.len());
        let score = |r: &[QueryResult]| Score { passed: r.iter().filter(|q| q.passed).count(), total: r.len() };
        candidates.push(Candidate {
            iteration,
            description: description.clone(),
            train: score(train),
            validation: score(validation),
            train_failures: train.iter().filter(|q| !q.passed).cloned().collect(),
        });
        let last = &candidates[candidates.len() - 1];
        if last.train_failures.is_empty() || iteration == o.iterations {
            break;
        }
        progress(iteration, "rewriting");
        match propose(&o, &candidates, &split.train).await {
            Ok(next) => description = next,
            Err(why) => {
                refused.push(why);
                break;
            }
        }
    }
    let best = candidates
        .iter()
        .enumerate()
        .max_by(|(i, a), (j, b)| {
            (a.validation.passed, a.train.passed).cmp(&(b.validation.passed, b.train.passed)).then(j.cmp(i))
        })
        .map_or(0, |(i, _)| i);
    Ok(OptimizeReport {
        skill: o.skill.to_owned(),
        provider: o.provider.info(),
        split,
        runs: o.options.runs,
        candidates,
        best,
        refused,
        seconds: started.elapsed().as_secs_f64(),
        stopped: o.stop.is_cancelled(),
    })
}

const PROPOSER_SYSTEM: &str = "You improve the description of an Agent Skill. An agent sees only the name and \
description of each available skill and decides from them whether to load one, so the description must say \
what the skill does and when to use it. Write two sentences, at most 60 words in all: first what the skill does, \
then \"Use when ...\" naming the kinds of requests it is for, in terms of what the user wants to achieve (also \
when they do not name the domain), and what it is not for where a neighbouring request was wrongly taken. \
Generalise from the failures to the kind of request behind them: never copy a request's words. No praise, no \
promises of quality. Answer with the new description only, between <description> and </description>.";

/// Asks the model for the next description from the train failures of the last candidate and
/// the history of earlier tries; checks it.
async fn propose(o: &Optimize<'_>, tried: &[Candidate], train: &[TriggerQuery]) -> Result<String, String> {
    let Some(last) = tried.last() else { return Err("nothing was scored".into()) };
    let mut user = format!(
        "Skill: {}\n\nThe start of its instructions:\n\n{}\n\nIts description now:\n\n{}\n\n",
        o.skill,
        o.instructions.trim(),
        last.description
    );
    user.push_str("Requests it got wrong (from the training set):\n\n");
    for f in &last.train_failures {
        let what = if f.should_trigger {
            format!("should load the skill but did in {} of {} runs", f.triggers, f.runs)
        } else {
            format!("should not load the skill but did in {} of {} runs", f.triggers, f.runs)
        };
        user.push_str(&format!("- {:?}: {what}", f.query));
        if !f.loaded_instead.is_empty() {
            let others: Vec<&str> = f.loaded_instead.keys().map(String::as_str).collect();
            user.push_str(&format!(" (the agent loaded {} instead)", others.join(", ")));
        }
        user.push('\n');
    }
    if tried.len() > 1 {
        user.push_str("\nDescriptions tried before, with the training requests each got right:\n\n");
        for c in tried {
            user.push_str(&format!("- {}/{}: {}\n", c.train.passed, c.train.total, c.description));
        }
        user.push_str("\nIf small changes have not helped, try a different structure or angle.\n");
    }
    let cancel = CancellationToken::new();
    let mut complaint = String::new();
    let mut why = String::new();
    for _ in 0..2 {
        let request = ModelRequest {
            system: PROPOSER_SYSTEM.to_owned(),
            messages: vec![Message::user(format!("{user}{complaint}"))],
            tools: Vec::new(),
        };
        // A description is at most 1,024 characters; an answer far longer is cut, and refused.
        let answer = provider::complete(o.provider.as_ref(), &request, &cancel, Some(16 * MAX_DESCRIPTION_CHARS))
            .await
            .map_err(|e| format!("the model could not propose a description: {e}"))?;
        let proposed = extract(&answer.text);
        match check(&proposed, train) {
            Ok(()) => return Ok(proposed),
            Err(e) => {
                complaint = format!("\n\nYour last proposal was refused: {e}. Propose another.\n");
                why = e;
            }
        }
    }
    Err(format!("the model's proposals were refused twice; the last because {why}"))
}

/// The description in a proposer's answer: between the tags, else the whole answer; on one
/// line, trimmed.
fn extract(answer: &str) -> String {
    let inner = match (answer.find("<description>"), answer.rfind("</description>")) {
        (Some(a), Some(b)) if b > a => &answer[a + "<description>".len()..b],
        _ => answer,
    };
    inner.split_whitespace().collect::<Vec<_>>().join(" ").trim_matches('"').to_owned()
}

/// Whether `description` may be offered: not empty, within the limit, and no run of
/// [`PASTED_WORDS`] words of a train query in it.
pub fn check(description: &str, train: &[TriggerQuery]) -> Result<(), String> {
    if description.trim().is_empty() {
        return Err("it is empty".into());
    }
    let chars = description.chars().count();
    if chars > MAX_DESCRIPTION_CHARS {
        return Err(format!("it has {chars} characters, over the limit of {MAX_DESCRIPTION_CHARS}"));
    }
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
    };
    let mine = words(description);
    for q in train {
        let theirs = words(&q.query);
        for run in theirs.windows(PASTED_WORDS) {
            if mine.windows(PASTED_WORDS).any(|w| w == run) {
                return Err(format!(
                    "it copies the words {:?} of a request; describe the kind of request instead",
                    run.join(" ")
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn q(text: &str, should: bool) -> TriggerQuery {
        TriggerQuery { query: text.into(), should_trigger: should }
    }

    #[test]
    fn the_split_is_stratified_fixed_and_leaves_each_set_both_kinds() {
        let queries: Vec<TriggerQuery> =
            (0..10).map(|i| q(&format!("yes {i}"), true)).chain((0..5).map(|i| q(&format!("no {i}"), false))).collect();
        let s = split(&queries);
        assert_eq!(s.train.iter().filter(|q| q.should_trigger).count(), 6);
        assert_eq!(s.validation.iter().filter(|q| q.should_trigger).count(), 4);
        assert_eq!(s.train.iter().filter(|q| !q.should_trigger).count(), 3);
        assert_eq!(s.validation.iter().filter(|q| !q.should_trigger).count(), 2);
        let mut reversed = queries.clone();
        reversed.reverse();
        assert_eq!(split(&reversed).train.len(), s.train.len());
        assert!(split(&reversed).train.iter().all(|q| s.train.contains(q)), "the order given does not matter");
        let four: Vec<TriggerQuery> = (0..4).map(|i| q(&format!("four {i}"), true)).collect();
        assert_eq!(split(&four).train.len(), 2, "60% of 4 rounds to 2");
        let two = split(&[q("a", true), q("b", true)]);
        assert_eq!((two.train.len(), two.validation.len()), (1, 1));
    }

    #[test]
    fn a_rewrite_is_refused_when_too_long_or_pasting_a_request() {
        let train = [q("Please refund order 1234, it arrived broken", true)];
        assert!(check("Use this skill when a customer wants money back for an order.", &train).is_ok());
        let pasted = check("Use this for requests like: Please refund order 1234.", &train).unwrap_err();
        assert!(pasted.contains("please refund order 1234"), "{pasted}");
        assert!(check("Use this to refund order items.", &train).is_ok(), "three words of a request are not a paste");
        assert!(check(&"x".repeat(1025), &train).unwrap_err().contains("1025"));
        assert_eq!(
            extract("Sure!\n<description>\n  Use this skill\n when X.\n</description>"),
            "Use this skill when X."
        );
    }
}
