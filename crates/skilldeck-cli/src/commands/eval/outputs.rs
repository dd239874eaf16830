//! `skilldeck eval NAME`: each output eval case run with the skill and with the baseline,
//! graded, written in the guide's workspace layout, and summed up.

use super::{EvalArgs, Opened, runtime};
use crate::output::{self, Outcome};
use anyhow::Context as _;
use skilldeck_agent::TurnEnd;
use skilldeck_agent::eval::{self, ArmKind, OutputEval, OutputOptions, OutputReport};
use skilldeck_skill::visible::visible_line;
use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::sync::Arc;

/// The revision `--baseline` names: `None` for `none`.
fn baseline_revision(baseline: &str) -> anyhow::Result<Option<u64>> {
    if baseline == "none" {
        return Ok(None);
    }
    let number = baseline.strip_prefix("v:").or_else(|| baseline.strip_prefix('v')).unwrap_or(baseline);
    match number.parse::<u64>() {
        Ok(n) if n > 0 => Ok(Some(n)),
        _ => anyhow::bail!(
            "--baseline {baseline}: give `none` (no skill) or `v:N` for revision N (`skilldeck history NAME` lists them)"
        ),
    }
}

/// Output evals: every case of the skill's `evals/evals.json` with the skill and the baseline.
pub(super) fn run(args: EvalArgs) -> anyhow::Result<Outcome> {
    if args.queries.is_some() || args.store.is_some() || args.threshold != eval::DEFAULT_THRESHOLD {
        anyhow::bail!("--queries, --store and --threshold are for trigger evals: add --triggers");
    }
    let baseline = baseline_revision(&args.baseline)?;
    let o = Opened::new(&args)?;
    let name = &o.name;
    // The configurations' stores live as long as `prepared`.
    let prepared = eval::prepare_outputs(o.registry.storage(), o.registry.hold(), o.scope, name, baseline)?;
    let grader = match &args.grader {
        Some(g) => o.config.provider(g)?.build().with_context(|| format!("cannot use the grader {g:?}"))?,
        None => Arc::clone(&o.provider),
    };
    prepared.check_grader(&grader.info())?;
    if o.provider.info().kind == "offline" {
        crate::output::errln!(
            "note: the offline provider is a ranker, not a model: it loads the best-ranked skill and writes nothing"
        );
    }
    let root = args.out.clone().unwrap_or_else(|| PathBuf::from(format!("{name}-workspace")));
    let iteration =
        eval::next_iteration(&root).with_context(|| format!("could not make an iteration in {}", root.display()))?;
    let tty = std::io::stderr().is_terminal();
    let progress = |done: usize, total: usize, next: &str| {
        if tty {
            eprint!("\r\x1b[2Krun {} of {total}: {}", (done + 1).min(total), visible_line(next));
        }
    };
    let eval = OutputEval {
        home: &o.home,
        provider: Arc::clone(&o.provider),
        grader,
        opts: o.session_options(),
        skill: name.as_str(),
        files: &prepared.files,
        cases: &prepared.cases,
        arms: prepared.arms.clone(),
        iteration,
        options: OutputOptions {
            runs: usize::from(args.runs.unwrap_or(eval::DEFAULT_OUTPUT_RUNS)),
            run_timeout: std::time::Duration::from_secs(args.max_seconds),
            max_run_tokens: Some(args.max_tokens),
            allow_shell: args.yes,
        },
        stop: tokio_util::sync::CancellationToken::new(),
    };
    let report = runtime()?.block_on(eval::run_outputs(eval, &progress))?;
    o.keep(&eval::EvalRecord::of_outputs(&report));
    if tty {
        eprint!("\r\x1b[2K");
    }
    if args.json {
        output::json(&report)?;
    } else {
        print_outputs(&report)?;
    }
    let with_failed = report.runs.iter().any(|r| r.configuration == ArmKind::WithSkill && r.grading.summary.failed > 0);
    Ok(if with_failed { Outcome::Refused } else { Outcome::Ok })
}

fn print_outputs(r: &OutputReport) -> anyhow::Result<()> {
    let base = r.baseline.label();
    for run in &r.runs {
        let g = &run.grading.summary;
        let mut line = format!(
            "{:<24} {:<14} {}/{} expectations",
            format!("{}/{}", run.eval, run.run),
            run.configuration.label(),
            g.passed,
            g.total
        );
        line.push_str(&format!(
            ", {:.1} s, {} tokens",
            run.timing.duration_ms as f64 / 1000.0,
            run.timing.total_tokens
        ));
        if run.configuration == ArmKind::WithSkill && !run.skill_loaded {
            line.push_str(" (the skill was not loaded)");
        }
        if let TurnEnd::Failed { message } = &run.end {
            line.push_str(&format!(" (the run failed: {})", visible_line(message)));
        }
        if run.timed_out {
            line.push_str(" (stopped at --max-seconds)");
        }
        if run.refused_commands > 0 {
            line.push_str(&format!(
                " ({} command(s) refused: no one to approve them; --yes allows)",
                run.refused_commands
            ));
        }
        crate::output::outln!("{line}");
        for e in run.grading.expectations.iter().filter(|e| !e.passed) {
            crate::output::outln!("    FAIL {}: {}", visible_line(&e.text), visible_line(&e.evidence));
        }
    }
    let pct = |k| r.summary(k).map_or("n/a".to_owned(), |s| format!("{:.0}%", s.pass_rate.mean * 100.0));
    let (with, other) = (r.summary(ArmKind::WithSkill), r.summary(r.baseline));
    let cost = match (with, other) {
        (Some(w), Some(o)) => format!(
            "; {:+.1} s and {:+.0} tokens a run",
            w.time_seconds.mean - o.time_seconds.mean,
            w.tokens.mean - o.tokens.mean
        ),
        _ => String::new(),
    };
    let base_name = match r.baseline_revision {
        Some(rev) => format!("{base} (v:{rev})"),
        None => base.to_owned(),
    };
    crate::output::outln!(
        "{}{}: {} with the skill, {} {base_name}{cost}; {} run(s) each by {} ({}), graded by {}; {:.0} s",
        r.skill,
        r.revision.map(|v| format!(" v:{v}")).unwrap_or_default(),
        pct(ArmKind::WithSkill),
        pct(r.baseline),
        r.runs_per_eval,
        visible_line(&r.provider.label),
        visible_line(&r.provider.model),
        visible_line(&r.grader.label),
        r.seconds
    );
    crate::output::outln!("written to {}", r.iteration.display());
    Ok(())
}
