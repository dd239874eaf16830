//! Auto-sync: after a command that changes skills (`import`, `restore`, `delete`, `enable`,
//! `disable`), the targets marked `auto = true` in config.toml are synced, and the command says
//! so in one line (in `--json`, under `auto_sync`). Its failures are reported, never the
//! command's.

use crate::context::Ctx;
use serde::Serialize;
use skilldeck_targets::export::Exports;
use skilldeck_targets::plan::TargetPlan;
use skilldeck_targets::record::Records;
use skilldeck_targets::source::Store;
use skilldeck_targets::sync::Syncer;
use skilldeck_targets::target;

/// What an auto-sync did.
#[derive(Debug, Serialize)]
pub struct AutoSync {
    /// The one line said.
    pub summary: String,
    /// Each folder's plan, as `sync --json` prints it.
    pub targets: Vec<TargetPlan>,
    /// Why it could not run at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Syncs the auto targets; `None` when there are none.
pub fn after_change() -> Option<AutoSync> {
    match run() {
        Ok(None) => None,
        Ok(Some(plans)) => {
            let summary = summary(&plans);
            Some(AutoSync { summary, targets: plans, error: None })
        }
        Err(e) => {
            let error = crate::output::error_text(&e);
            Some(AutoSync { summary: format!("Auto-sync failed: {error}"), targets: Vec::new(), error: Some(error) })
        }
    }
}

fn run() -> anyhow::Result<Option<Vec<TargetPlan>>> {
    // Most configs have no auto target: find out from config.toml alone, before the store.
    let home = skilldeck_store::SkilldeckHome::from_env()?;
    let config = skilldeck_targets::config::TargetsConfig::load(&home.config_path())?;
    if !config.targets.values().any(|t| t.auto == Some(true)) {
        return Ok(None);
    }
    // A fresh look at the store: the command's own registry may hold what it saw before.
    let ctx = Ctx::open()?;
    let targets = super::targets::resolve(&ctx, None)?;
    let folders = target::auto(&targets);
    if folders.is_empty() {
        return Ok(None);
    }
    let source = Store::new(ctx.storage());
    let root = ctx.storage().home().root();
    let syncer = Syncer {
        records: Records::new(root),
        source: &source,
        overwrite: Default::default(),
        mode: None,
        exports: Exports::new(root),
    };
    let plans = super::targets::fitted(&ctx, &syncer, (targets, &folders), None, &Default::default(), false)?;
    Ok(Some(plans))
}

/// `Auto-sync: claude-code wrote 1, replaced 0, removed 0; cursor up to date; …`.
fn summary(plans: &[TargetPlan]) -> String {
    use skilldeck_targets::plan::Action;
    let each: Vec<String> = plans
        .iter()
        .filter(|p| p.same_as.is_none())
        .map(|p| {
            if let Some(e) = &p.error {
                return format!("{} failed: {e}", p.target);
            }
            let count = |f: fn(&Action) -> bool| p.actions.iter().filter(|a| f(a)).count();
            let (w, r, d) = (
                count(|a| matches!(a, Action::Write { .. })),
                count(|a| matches!(a, Action::Replace { .. })),
                count(|a| matches!(a, Action::Remove { .. })),
            );
            let skipped = count(|a| matches!(a, Action::Skip { .. }));
            let skipped = if skipped > 0 { format!(", skipped {skipped}") } else { String::new() };
            if w + r + d == 0 {
                format!("{} up to date{skipped}", p.target)
            } else {
                format!("{} wrote {w}, replaced {r}, removed {d}{skipped}", p.target)
            }
        })
        .collect();
    format!("Auto-sync: {}", each.join("; "))
}

/// Prints the line (a failure also to standard error, as a warning).
pub fn print(auto: &Option<AutoSync>) -> anyhow::Result<()> {
    let Some(a) = auto else { return Ok(()) };
    crate::output::outln!("{}", a.summary);
    warn(a);
    Ok(())
}

fn warn(a: &AutoSync) {
    if a.error.is_some() || a.targets.iter().any(|t| t.error.is_some()) {
        eprintln!("warning: auto-sync did not finish everywhere; the command itself succeeded");
    }
}

/// Prints `value` as JSON with `auto_sync` added when there was one.
pub fn json<T: Serialize>(value: &T, auto: &Option<AutoSync>) -> anyhow::Result<()> {
    let mut v = serde_json::to_value(value)?;
    if let (Some(a), Some(map)) = (auto, v.as_object_mut()) {
        warn(a);
        map.insert("auto_sync".to_owned(), serde_json::to_value(a)?);
    }
    crate::output::json(&v)
}
