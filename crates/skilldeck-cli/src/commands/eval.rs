//! `skilldeck eval NAME --triggers`: does the skill load when it should? Each of its trigger
//! queries (the agentskills.io guide's `evals/eval_queries.json`, or `--queries FILE`) is run
//! through the agent loop with the chosen model, in fresh workspaces, with the user's store,
//! listing and budget around it. Holds the arguments, reading the queries and the output; the
//! runs are `skilldeck_agent::eval`'s.

use super::agent::{ProviderArgs, build_provider};
use crate::context::Ctx;
use crate::output::{self, Outcome};
use anyhow::Context as _;
use clap::Args;
use skilldeck_agent::config::Config;
use skilldeck_agent::eval::{self, QUERIES_FILE, TriggerOptions, TriggerReport};
use skilldeck_agent::session::SessionOptions;
use skilldeck_core::SkillRegistry;
use skilldeck_skill::visible::visible_line;
use skilldeck_skill::{RelPath, Scope, SkillName};
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
    /// Runs of each query.
    #[arg(long, default_value_t = eval::DEFAULT_RUNS, value_parser = clap::value_parser!(u16).range(1..=100))]
    runs: u16,
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
        anyhow::bail!(
            "say what to evaluate: --triggers runs the skill's trigger queries ({QUERIES_FILE}); output evals are not here yet"
        );
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
        runs: usize::from(args.runs),
        threshold: args.threshold,
        allow_shell: args.yes,
        ..TriggerOptions::default()
    };
    // The scratch store (--store) lives as long as the runs.
    let (registry, _scratch) = match args.store.as_deref() {
        None => (ctx.registry, None),
        Some(store) => {
            let (registry, scratch) = scratch_registry(&ctx, scope, &name, store)?;
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
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("could not start the async runtime")?;
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

/// A store in a scratch folder holding the skill (its current revision) and, unless `store` is
/// `empty`, the skills of the folder `store`, imported as any folder is (checked and audited).
fn scratch_registry(
    ctx: &Ctx,
    scope: Scope,
    name: &SkillName,
    store: &str,
) -> anyhow::Result<(SkillRegistry, tempfile::TempDir)> {
    let scratch = tempfile::Builder::new().prefix("skilldeck-eval-store-").tempdir()?;
    let own = scratch.path().join("skill").join(name.as_str());
    super::transfer::write_folder(&ctx.storage().snapshot(scope, name)?.files, &own)?;
    let storage = FsStorage::open(SkilldeckHome::new(scratch.path().join("home")))?;
    let mut requests = Vec::new();
    if store != "empty" {
        let dir = PathBuf::from(store);
        if !dir.is_dir() {
            anyhow::bail!("--store {store}: no such folder; give `empty` or a folder of skills");
        }
        requests.push(ImportRequest { path: dir, only: None, origin: None });
    }
    // The skill last, so a namesake in the folder does not stand in for it.
    requests.push(ImportRequest { path: own, only: None, origin: None });
    let limits = storage.limits();
    import::import_batch(&storage, Scope::User, &requests, limits, &mut |_| {})?;
    let hold = ctx.registry.hold();
    Ok((SkillRegistry::new(storage).with_hold(hold), scratch))
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
