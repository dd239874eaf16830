//! `skilldeck eval NAME`: does the agent do better with the skill than without? Each case of
//! its `evals/evals.json` (the agentskills.io guide's format) runs with the skill and with a
//! baseline (no skill, or an older revision), is graded, and the iteration is written in the
//! guide's workspace layout. `skilldeck eval NAME --triggers`: does the skill load when it
//! should? Each of its trigger queries (`evals/eval_queries.json`, or `--queries FILE`) is run
//! through the agent loop with the chosen model, in fresh workspaces, with the user's store,
//! listing and budget around it. `skilldeck eval NAME --optimize-description`: the guide's
//! train/validation loop proposes a better description, offered as a draft. This file holds the
//! arguments and what the three share (the store, skill, settings and model they open, the
//! trigger queries, the record for History, the runtime); each kind has its file, and the runs
//! are `skilldeck_agent::eval`'s.

mod optimize;
mod outputs;
mod triggers;

use super::agent::{ProviderArgs, build_provider};
use crate::context::Ctx;
use crate::output::Outcome;
use anyhow::Context as _;
use clap::Args;
use skilldeck_agent::config::{Config, ProviderConfig};
use skilldeck_agent::eval::{self, EvalRecord, QUERIES_FILE, TriggerOptions, TriggerQuery};
use skilldeck_agent::provider::Provider;
use skilldeck_agent::session::SessionOptions;
use skilldeck_core::SkillRegistry;
use skilldeck_skill::{RelPath, Scope, SkillName};
use skilldeck_store::{FsStorage, SkilldeckHome};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// `skilldeck eval`'s arguments.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// The skill (in the user scope).
    pub(super) name: String,
    /// Trigger evals: run each trigger query and count the runs that load the skill.
    #[arg(long)]
    pub(super) triggers: bool,
    /// Propose a better description by the guide's loop (train/validation split, rewrites from
    /// the train failures, the best on validation), offered as a draft; nothing is stored.
    #[arg(long, conflicts_with_all = ["triggers", "baseline", "out", "grader"])]
    pub(super) optimize_description: bool,
    /// With --optimize-description: rewrites to try at most.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u16).range(1..=20))]
    pub(super) iterations: u16,
    /// Runs of each trigger query (default 3), or of each output case in each configuration
    /// (default 1).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=100))]
    pub(super) runs: Option<u16>,
    /// Output evals: what the skill is compared with, `none` (no skill) or `v:N` (revision N).
    #[arg(long, default_value = "none", value_name = "none|v:N", conflicts_with = "triggers")]
    pub(super) baseline: String,
    /// Output evals: the workspace the iterations are written to (default NAME-workspace here).
    #[arg(long, value_name = "DIR", conflicts_with = "triggers")]
    pub(super) out: Option<PathBuf>,
    /// Output evals: the provider from config.toml that grades the expectations (default: the
    /// one that runs the cases).
    #[arg(long, value_name = "NAME", conflicts_with = "triggers")]
    pub(super) grader: Option<String>,
    /// Output evals: the most tokens one run may spend before it is stopped.
    #[arg(long, default_value_t = 200_000, value_name = "N")]
    pub(super) max_tokens: u64,
    /// The longest one run may take, in seconds, before it is stopped.
    #[arg(long, default_value_t = 600, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub(super) max_seconds: u64,
    /// The queries (default: the skill's own evals/eval_queries.json).
    #[arg(long)]
    pub(super) queries: Option<PathBuf>,
    /// The trigger rate at which a query counts as triggering (the guide's 0.5).
    #[arg(long, default_value_t = eval::DEFAULT_THRESHOLD)]
    pub(super) threshold: f64,
    /// Let the model run shell commands (each in the sandbox); refused and counted otherwise.
    #[arg(long)]
    pub(super) yes: bool,
    /// Run against another set of skills instead of your store: `empty` (the skill alone), or a
    /// folder of skills (a saved selection) around it. Tells a weak description from neighbours
    /// that crowd the skill out.
    #[arg(long, value_name = "empty|DIR")]
    pub(super) store: Option<String>,
    /// Print JSON for scripts.
    #[arg(long)]
    pub(super) json: bool,
    #[command(flatten)]
    pub(super) model: ProviderArgs,
}

/// `skilldeck eval`.
pub fn run(args: EvalArgs) -> anyhow::Result<Outcome> {
    if args.optimize_description {
        return optimize::run(args);
    }
    if !args.triggers {
        return outputs::run(args);
    }
    triggers::run(args)
}

impl EvalArgs {
    /// How the trigger queries run, as the arguments say.
    fn trigger_options(&self) -> anyhow::Result<TriggerOptions> {
        if !(0.0..=1.0).contains(&self.threshold) || self.threshold == 0.0 {
            anyhow::bail!(
                "--threshold {} is not a share of runs: give a number above 0 and at most 1, e.g. 0.5",
                self.threshold
            );
        }
        Ok(TriggerOptions {
            runs: usize::from(self.runs.unwrap_or(eval::DEFAULT_RUNS)),
            run_timeout: std::time::Duration::from_secs(self.max_seconds),
            threshold: self.threshold,
            allow_shell: self.yes,
        })
    }
}

/// What every kind of eval opens first: the store and the skill, the settings, and the model.
struct Opened {
    registry: Arc<SkillRegistry>,
    scope: Scope,
    name: SkillName,
    home: SkilldeckHome,
    config: Config,
    provider: Arc<dyn Provider>,
    provider_config: ProviderConfig,
}

impl Opened {
    /// Opens the store (its listing cache too), resolves the skill, reads config.toml and
    /// builds the model the arguments name.
    fn new(args: &EvalArgs) -> anyhow::Result<Self> {
        let (ctx, _) = Ctx::open_listing()?;
        let (scope, name) = ctx.resolve(&args.name, None)?;
        let home = SkilldeckHome::from_env()?;
        let config = Config::load(&home.config_path())?;
        let (provider, provider_config) = build_provider(&args.model, &config)?;
        Ok(Self { registry: Arc::new(ctx.registry), scope, name, home, config, provider, provider_config })
    }

    /// The session options of every run: config.toml's, for the model chosen.
    fn session_options(&self) -> SessionOptions {
        SessionOptions::from_config(&self.config, &self.provider_config)
    }

    /// Keeps `record` for History; a record that cannot be written is said, and the run stands.
    fn keep(&self, record: &EvalRecord) {
        if let Err(e) = eval::append_record(&self.home, self.scope, self.name.as_str(), record) {
            crate::output::errln!("note: the result could not be kept for History: {e}");
        }
    }
}

/// The trigger queries: `--queries FILE`, else the skill's own `evals/eval_queries.json`.
fn read_trigger_queries(
    storage: &FsStorage,
    scope: Scope,
    name: &SkillName,
    file: Option<&Path>,
) -> anyhow::Result<Vec<TriggerQuery>> {
    let (file, bytes) = match file {
        Some(path) => {
            let bytes = std::fs::read(path).with_context(|| format!("could not read {}", path.display()))?;
            (path.display().to_string(), bytes)
        }
        None => {
            let rel = RelPath::parse(QUERIES_FILE).map_err(|e| anyhow::anyhow!("{e}"))?;
            let bytes = storage.read_raw_file_sync(scope, name, &rel).map_err(|e| {
                anyhow::anyhow!(
                    "{name} has no trigger queries to run ({e}): write {QUERIES_FILE} in the skill (a JSON array of \
                     {{\"query\": …, \"should_trigger\": true|false}}), or give --queries FILE"
                )
            })?;
            (format!("{name}/{QUERIES_FILE}"), bytes)
        }
    };
    Ok(eval::read_queries(&file, &bytes)?)
}

pub(super) fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("could not start the async runtime")
}
