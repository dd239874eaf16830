//! `skilldeck eval NAME`: does the agent do better with the skill than without? Each case of
//! its `evals/evals.json` (the agentskills.io guide's format) runs with the skill and with a
//! baseline (no skill, or an older revision), is graded, and the iteration is written in the
//! guide's workspace layout. `skilldeck eval NAME --triggers`: does the skill load when it
//! should? Each of its trigger queries (`evals/eval_queries.json`, or `--queries FILE`) is run
//! through the agent loop with the chosen model, in fresh workspaces, with the user's store,
//! listing and budget around it. Holds the arguments, the scratch stores, reading the files
//! and the output; the runs are `skilldeck_agent::eval`'s.

use super::agent::{ProviderArgs, build_provider};
use crate::context::Ctx;
use crate::output::{self, Outcome};
use anyhow::Context as _;
use clap::Args;
use skilldeck_agent::TurnEnd;
use skilldeck_agent::config::Config;
use skilldeck_agent::eval::{
    self, Arm, ArmKind, CASES_FILE, OutputEval, OutputOptions, OutputReport, QUERIES_FILE, TriggerOptions,
    TriggerReport,
};
use skilldeck_agent::session::SessionOptions;
use skilldeck_core::SkillRegistry;
use skilldeck_skill::visible::visible_line;
use skilldeck_skill::{RelPath, Revision, Scope, SkillFiles, SkillName};
use skilldeck_store::import::{self, ImportRequest};
use skilldeck_store::{FsStorage, SkilldeckHome};
use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::sync::Arc;

/// `skilldeck eval`'s arguments.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// The skill (in the user scope).
    name: String,
    /// Trigger evals: run each trigger query and count the runs that load the skill.
    #[arg(long)]
    triggers: bool,
    /// Runs of each trigger query (default 3), or of each output case in each configuration
    /// (default 1).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=100))]
    runs: Option<u16>,
    /// Output evals: what the skill is compared with, `none` (no skill) or `v:N` (revision N).
    #[arg(long, default_value = "none", value_name = "none|v:N", conflicts_with = "triggers")]
    baseline: String,
    /// Output evals: the workspace the iterations are written to (default NAME-workspace here).
    #[arg(long, value_name = "DIR", conflicts_with = "triggers")]
    out: Option<PathBuf>,
    /// Output evals: the provider from config.toml that grades the expectations (default: the
    /// one that runs the cases).
    #[arg(long, value_name = "NAME", conflicts_with = "triggers")]
    grader: Option<String>,
    /// Output evals: the most tokens one run may spend before it is stopped.
    #[arg(long, default_value_t = 200_000, value_name = "N")]
    max_tokens: u64,
    /// The longest one run may take, in seconds, before it is stopped.
    #[arg(long, default_value_t = 600, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    max_seconds: u64,
    /// The queries (default: the skill's own evals/eval_queries.json).
    #[arg(long)]
    queries: Option<PathBuf>,
    /// The trigger rate at which a query counts as triggering (the guide's 0.5).
    #[arg(long, default_value_t = eval::DEFAULT_THRESHOLD)]
    threshold: f64,
    /// Let the model run shell commands (each in the sandbox); refused and counted otherwise.
    #[arg(long)]
    yes: bool,
    /// Run against another set of skills instead of your store: `empty` (the skill alone), or a
    /// folder of skills (a saved selection) around it. Tells a weak description from neighbours
    /// that crowd the skill out.
    #[arg(long, value_name = "empty|DIR")]
    store: Option<String>,
    /// Print JSON for scripts.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    model: ProviderArgs,
}

/// `skilldeck eval`.
pub fn run(args: EvalArgs) -> anyhow::Result<Outcome> {
    if !args.triggers {
        return outputs(args);
    }
    if !(0.0..=1.0).contains(&args.threshold) || args.threshold == 0.0 {
        anyhow::bail!(
            "--threshold {} is not a share of runs: give a number above 0 and at most 1, e.g. 0.5",
            args.threshold
        );
    }
    let (ctx, _) = Ctx::open_listing()?;
    let (scope, name) = ctx.resolve(&args.name, None)?;
    let (file, bytes) = match &args.queries {
        Some(path) => {
            let bytes = std::fs::read(path).with_context(|| format!("could not read {}", path.display()))?;
            (path.display().to_string(), bytes)
        }
        None => {
            let rel = RelPath::parse(QUERIES_FILE).map_err(|e| anyhow::anyhow!("{e}"))?;
            let bytes = ctx.storage().read_raw_file_sync(scope, &name, &rel).map_err(|e| {
                anyhow::anyhow!(
                    "{name} has no trigger queries to run ({e}): write {QUERIES_FILE} in the skill (a JSON array of \
                     {{\"query\": …, \"should_trigger\": true|false}}), or give --queries FILE"
                )
            })?;
            (format!("{name}/{QUERIES_FILE}"), bytes)
        }
    };
    let queries = eval::read_queries(&file, &bytes)?;
    let home = SkilldeckHome::from_env()?;
    let config = Config::load(&home.config_path())?;
    let (provider, pc) = build_provider(&args.model, &config)?;
    let opts = SessionOptions::from_config(&config, &pc);
    let options = TriggerOptions {
        runs: usize::from(args.runs.unwrap_or(eval::DEFAULT_RUNS)),
        run_timeout: std::time::Duration::from_secs(args.max_seconds),
        threshold: args.threshold,
        allow_shell: args.yes,
    };
    // The scratch store (--store) lives as long as the runs.
    let (registry, _scratch) = match args.store.as_deref() {
        None => (ctx.registry, None),
        Some(store) => {
            let files = ctx.storage().snapshot(scope, &name)?.files;
            let (registry, scratch) = scratch_registry(&ctx, &name, Some(&files), Some(store))?;
            (registry, Some(scratch))
        }
    };
    let registry = Arc::new(registry);
    let info = provider.info();
    if info.kind == "offline" {
        crate::output::errln!(
            "note: the offline provider is a ranker, not a model: it loads the best-ranked skill; give --provider or --api for a model"
        );
    }
    let tty = std::io::stderr().is_terminal();
    let progress = |done: usize, total: usize| {
        if tty {
            eprint!("\r\x1b[2Krun {done} of {total}");
        }
    };
    let rt = runtime()?;
    let report =
        rt.block_on(eval::run_triggers(&home, registry, provider, opts, name.as_str(), &queries, options, &progress))?;
    if tty {
        eprint!("\r\x1b[2K");
    }
    if args.json {
        output::json(&report)?;
    } else {
        print_report(&report)?;
    }
    Ok(if report.passed == report.total { Outcome::Ok } else { Outcome::Refused })
}

/// A store in a scratch folder holding `files` as skill `name` (when given) and, when `store`
/// names a folder, the skills in it, imported as any folder is (checked and audited); `empty`
/// or `None` adds nothing.
fn scratch_registry(
    ctx: &Ctx,
    name: &SkillName,
    files: Option<&SkillFiles>,
    store: Option<&str>,
) -> anyhow::Result<(SkillRegistry, tempfile::TempDir)> {
    let scratch = tempfile::Builder::new().prefix("skilldeck-eval-store-").tempdir()?;
    let storage = FsStorage::open(SkilldeckHome::new(scratch.path().join("home")))?;
    let mut requests = Vec::new();
    if let Some(store) = store.filter(|s| *s != "empty") {
        let dir = PathBuf::from(store);
        if !dir.is_dir() {
            anyhow::bail!("--store {store}: no such folder; give `empty` or a folder of skills");
        }
        requests.push(ImportRequest { path: dir, only: None, origin: None });
    }
    if let Some(files) = files {
        let own = scratch.path().join("skill").join(name.as_str());
        super::transfer::write_folder(files, &own)?;
        // The skill last, so a namesake in the folder does not stand in for it.
        requests.push(ImportRequest { path: own, only: None, origin: None });
    }
    let limits = storage.limits();
    import::import_batch(&storage, Scope::User, &requests, limits, &mut |_| {})?;
    let hold = ctx.registry.hold();
    Ok((SkillRegistry::new(storage).with_hold(hold), scratch))
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("could not start the async runtime")
}

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
fn outputs(args: EvalArgs) -> anyhow::Result<Outcome> {
    if args.queries.is_some() || args.store.is_some() || args.threshold != eval::DEFAULT_THRESHOLD {
        anyhow::bail!("--queries, --store and --threshold are for trigger evals: add --triggers");
    }
    let baseline = baseline_revision(&args.baseline)?;
    let (ctx, _) = Ctx::open_listing()?;
    let (scope, name) = ctx.resolve(&args.name, None)?;
    let snapshot = ctx.storage().snapshot(scope, &name)?;
    let revision = snapshot.revision.map(|r| r.0);
    let Some(bytes) = snapshot.files.get(CASES_FILE) else {
        anyhow::bail!(
            "{name} has no output evals to run: write {CASES_FILE} in the skill ({{\"skill_name\": \"{name}\", \"evals\": \
             [{{\"id\": 1, \"prompt\": \"…\", \"expected_output\": \"…\", \"files\": [], \"expectations\": [\"…\"]}}]}}), \
             or run its trigger queries with --triggers"
        );
    };
    let cases = eval::read_cases(&format!("{name}/{CASES_FILE}"), bytes)?;
    for case in &cases.evals {
        for file in case.files.iter().chain(&case.check) {
            if snapshot.files.get(file).is_none() {
                anyhow::bail!(
                    "{name}/{CASES_FILE}: case {} names {file}, which {name} does not hold; add it to the skill",
                    case.id
                );
            }
        }
    }
    let old = match baseline {
        Some(rev) => {
            if Some(rev) == revision {
                anyhow::bail!(
                    "--baseline v:{rev} is the revision being evaluated; name an older one (`skilldeck history {name}`)"
                );
            }
            Some(ctx.storage().revision_files(scope, &name, Revision(rev))?)
        }
        None => None,
    };
    let home = SkilldeckHome::from_env()?;
    let config = Config::load(&home.config_path())?;
    let (provider, pc) = build_provider(&args.model, &config)?;
    let grader = match &args.grader {
        Some(g) => config.provider(g)?.build().with_context(|| format!("cannot use the grader {g:?}"))?,
        None => Arc::clone(&provider),
    };
    if grader.info().kind == "offline" && cases.evals.iter().any(|c| c.check.is_none()) {
        anyhow::bail!(
            "the offline provider is a ranker, not a model: it cannot grade expectations; give --grader NAME (a provider \
             in config.toml), or --provider/--api for a model that runs and grades the cases"
        );
    }
    if provider.info().kind == "offline" {
        crate::output::errln!(
            "note: the offline provider is a ranker, not a model: it loads the best-ranked skill and writes nothing"
        );
    }
    let opts = SessionOptions::from_config(&config, &pc);
    // Each configuration's store lives as long as the runs.
    let (with_store, _with) = scratch_registry(&ctx, &name, Some(&snapshot.files), None)?;
    let (base_store, _base) = scratch_registry(&ctx, &name, old.as_ref(), None)?;
    let arms = vec![
        Arm { kind: ArmKind::WithSkill, registry: Arc::new(with_store), revision },
        Arm {
            kind: if baseline.is_some() { ArmKind::OldSkill } else { ArmKind::WithoutSkill },
            registry: Arc::new(base_store),
            revision: baseline,
        },
    ];
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
        home: &home,
        provider,
        grader,
        opts,
        skill: name.as_str(),
        files: &snapshot.files,
        cases: &cases.evals,
        arms,
        iteration,
        options: OutputOptions {
            runs: usize::from(args.runs.unwrap_or(eval::DEFAULT_OUTPUT_RUNS)),
            run_timeout: std::time::Duration::from_secs(args.max_seconds),
            max_run_tokens: Some(args.max_tokens),
            allow_shell: args.yes,
        },
    };
    let report = runtime()?.block_on(eval::run_outputs(eval, &progress))?;
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

fn print_report(r: &TriggerReport) -> anyhow::Result<()> {
    for q in &r.results {
        let mark = if q.passed { "pass" } else { "FAIL" };
        let want = if q.should_trigger { "should trigger" } else { "should not" };
        let mut line = format!("{mark}  {}/{} {want:<14}  {}", q.triggers, q.runs, visible_line(&q.query));
        if !q.loaded_instead.is_empty() {
            let others: Vec<String> = q.loaded_instead.iter().map(|(n, c)| format!("{n} ×{c}")).collect();
            line.push_str(&format!("  (loaded instead: {})", others.join(", ")));
        }
        if !q.errors.is_empty() {
            line.push_str(&format!("  ({} run(s) failed: {})", q.errors.len(), visible_line(&q.errors[0])));
        }
        if q.refused_commands > 0 {
            line.push_str(&format!(
                "  ({} shell command(s) refused: no one to approve them; --yes allows)",
                q.refused_commands
            ));
        }
        crate::output::outln!("{line}");
    }
    let share = |v: Option<f64>| v.map_or("n/a".to_owned(), |v| format!("{v:.2}"));
    crate::output::outln!(
        "{}: {}/{} queries passed; precision {}, recall {}; {} run(s) each by {} ({}); {:.0} s",
        r.skill,
        r.passed,
        r.total,
        share(r.precision),
        share(r.recall),
        r.runs,
        visible_line(&r.provider.label),
        visible_line(&r.provider.model),
        r.seconds
    );
    Ok(())
}
