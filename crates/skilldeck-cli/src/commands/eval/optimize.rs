//! `skilldeck eval NAME --optimize-description`: the guide's loop over the skill's trigger
//! queries, each candidate description run in a scratch copy of the store (the user's skills, or
//! `--store`), the winner offered as a draft of the skill. The store is never written.

use super::{EvalArgs, read_trigger_queries, runtime};
use crate::commands::agent::build_provider;
use crate::context::Ctx;
use crate::output::{self, Outcome};
use skilldeck_agent::config::Config;
use skilldeck_agent::eval::{self, EvalError, Optimize, OptimizeReport, ScratchStore};
use skilldeck_agent::session::SessionOptions;
use skilldeck_core::SkillRegistry;
use skilldeck_skill::name_field::with_description;
use skilldeck_skill::visible::visible_line;
use skilldeck_skill::{RelPath, Scope, SkillFiles, SkillName, frontmatter};
use skilldeck_store::SkilldeckHome;
use skilldeck_store::drafts::Draft;
use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::sync::Arc;

/// `skilldeck eval NAME --optimize-description`.
pub(super) fn run(args: EvalArgs) -> anyhow::Result<Outcome> {
    let options = args.trigger_options()?;
    let (ctx, _) = Ctx::open_listing()?;
    let (scope, name) = ctx.resolve(&args.name, None)?;
    let queries = read_trigger_queries(&ctx, scope, &name, args.queries.as_deref())?;
    let snapshot = ctx.storage().snapshot(scope, &name)?;
    let skill_md = snapshot.files.skill_md().map(|b| String::from_utf8_lossy(b).into_owned()).unwrap_or_default();
    let split = frontmatter::split(&skill_md).map_err(|e| anyhow::anyhow!("{name}'s SKILL.md cannot be read: {e}"))?;
    let description = ctx
        .registry
        .get(scope, name.as_str())
        .ok()
        .flatten()
        .and_then(|e| e.meta.description.clone())
        .unwrap_or_default();
    let instructions: String = split.body.chars().take(1500).collect();
    let home = SkilldeckHome::from_env()?;
    let config = Config::load(&home.config_path())?;
    let (provider, pc) = build_provider(&args.model, &config)?;
    if provider.info().kind == "offline" {
        anyhow::bail!(
            "the offline provider is a ranker, not a model: it cannot propose descriptions; give --provider NAME or \
             --api, --base-url and --model for the model your agents use"
        );
    }
    let opts = SessionOptions::from_config(&config, &pc);
    let mut store = CandidateStore::new(&ctx, scope, &name, &snapshot.files, args.store.as_deref())?;
    let tty = std::io::stderr().is_terminal();
    let progress = |iteration: usize, what: &str| {
        if tty {
            eprint!("\r\x1b[2Kdescription {iteration}: {what}");
        }
    };
    let o = Optimize {
        home: &home,
        provider,
        opts,
        skill: name.as_str(),
        description,
        instructions,
        queries: &queries,
        options,
        iterations: usize::from(args.iterations),
    };
    let mut store_with = |d: &str| store.with_description(d);
    let report = runtime()?.block_on(eval::optimize_description(o, &mut store_with, &progress))?;
    if tty {
        eprint!("\r\x1b[2K");
    }
    let draft = offer(&ctx, scope, &name, &skill_md, &report)?;
    if args.json {
        output::json(&serde_json::json!({"report": report, "draft": draft}))?;
    } else {
        print(&report, draft.as_deref(), &name)?;
    }
    Ok(Outcome::Ok)
}

/// A scratch store holding the skill's neighbours once and each candidate as a new revision of
/// the skill.
struct CandidateStore {
    store: ScratchStore,
    files: SkillFiles,
    name: SkillName,
    made: usize,
}

impl CandidateStore {
    /// The neighbours: the skills of `store` (`empty`: none), else every skill of the user's
    /// store (the skill among them, replaced by each candidate).
    fn new(ctx: &Ctx, scope: Scope, name: &SkillName, files: &SkillFiles, store: Option<&str>) -> anyhow::Result<Self> {
        let neighbours = match store {
            Some("empty") => None,
            Some(dir) => Some(PathBuf::from(dir)),
            None => Some(ctx.storage().home().scope_dir(scope)),
        };
        let store = ScratchStore::new(Some((name, files)), neighbours.as_deref(), ctx.registry.hold())?;
        Ok(Self { store, files: files.clone(), name: name.clone(), made: 0 })
    }

    /// The store with the skill's description set to `description`.
    fn with_description(&mut self, description: &str) -> Result<Arc<SkillRegistry>, EvalError> {
        self.made += 1;
        let mut files = self.files.clone();
        let skill_md = String::from_utf8_lossy(files.skill_md().unwrap_or_default()).into_owned();
        let rel = RelPath::parse("SKILL.md").map_err(|e| EvalError::Store(e.to_string()))?;
        files.insert(rel, with_description(&skill_md, description).into_bytes());
        self.store
            .put(&self.name, &files, &format!("candidate-{}", self.made))
            .map_err(|e| EvalError::Store(format!("the candidate could not be stored in the scratch store: {e}")))?;
        Ok(Arc::clone(&self.store.registry))
    }
}

/// Offers the winner as a draft of the skill when it is not the description as it is and no
/// draft is there already; returns the draft's `SKILL.md` path when one was written.
fn offer(
    ctx: &Ctx,
    scope: Scope,
    name: &SkillName,
    skill_md: &str,
    report: &OptimizeReport,
) -> anyhow::Result<Option<String>> {
    if report.best == 0 || Draft::find(ctx.storage().home(), scope, name).is_some() {
        return Ok(None);
    }
    let draft = Draft::open(ctx.storage(), scope, name)?;
    let rel = RelPath::parse("SKILL.md").map_err(|e| anyhow::anyhow!("{e}"))?;
    draft.write(&rel, with_description(skill_md, &report.winner().description).as_bytes())?;
    Ok(Some(rel.under(&draft.files_dir()).display().to_string()))
}

fn print(r: &OptimizeReport, draft: Option<&str>, name: &SkillName) -> anyhow::Result<()> {
    for c in &r.candidates {
        let mark = if c.iteration == r.best { "best" } else { "    " };
        let label = if c.iteration == 0 { "as it is".to_owned() } else { format!("rewrite {}", c.iteration) };
        crate::output::outln!(
            "{mark} {label:<10} train {}/{}, validation {}/{}: {}",
            c.train.passed,
            c.train.total,
            c.validation.passed,
            c.validation.total,
            visible_line(&c.description)
        );
    }
    for why in &r.refused {
        crate::output::outln!("note: {}", visible_line(why));
    }
    crate::output::outln!(
        "{} queries split {} to train, {} to validate; {} run(s) each by {} ({}); {:.0} s",
        r.split.train.len() + r.split.validation.len(),
        r.split.train.len(),
        r.split.validation.len(),
        r.runs,
        visible_line(&r.provider.label),
        visible_line(&r.provider.model),
        r.seconds
    );
    match (r.best, draft) {
        (0, _) => {
            crate::output::outln!("No rewrite did better on the validation queries; the description stays as it is.")
        }
        (_, Some(path)) => crate::output::outln!(
            "The best description is offered as a draft ({path}); nothing was stored. Review and save it with \
             `skilldeck edit {name}` or in the app's editor, or throw it away with `skilldeck edit {name} --discard`."
        ),
        (_, None) => crate::output::outln!(
            "{name} has a draft already, which was left alone; the best description is above: put it in yourself."
        ),
    }
    Ok(())
}
