//! `skilldeck eval NAME --triggers`: each trigger query run through the agent loop, the runs
//! that load the skill counted, and the report printed.

use super::{EvalArgs, Opened, read_trigger_queries, runtime};
use crate::output::{self, Outcome};
use skilldeck_agent::eval::{self, ScratchStore, TriggerReport};
use skilldeck_skill::visible::visible_line;
use std::io::IsTerminal as _;
use std::sync::Arc;

pub(super) fn run(args: EvalArgs) -> anyhow::Result<Outcome> {
    let options = args.trigger_options()?;
    let o = Opened::new(&args)?;
    let (scope, name) = (o.scope, &o.name);
    let queries = read_trigger_queries(o.registry.storage(), scope, name, args.queries.as_deref())?;
    let opts = o.session_options();
    let revision = o.registry.storage().revision_sync(scope, name)?.map(|r| r.0);
    // The scratch store (--store) lives as long as the runs.
    let (registry, _scratch) = match args.store.as_deref() {
        None => (Arc::clone(&o.registry), None),
        Some(store) => {
            let files = o.registry.storage().snapshot(scope, name)?.files;
            let neighbours = (store != "empty").then(|| std::path::PathBuf::from(store));
            let scratch = ScratchStore::new(Some((name, &files)), neighbours.as_deref(), o.registry.hold())?;
            (Arc::clone(&scratch.registry), Some(scratch))
        }
    };
    let info = o.provider.info();
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
    let stop = tokio_util::sync::CancellationToken::new();
    let report = rt.block_on(eval::run_triggers(
        &o.home,
        registry,
        Arc::clone(&o.provider),
        opts,
        name.as_str(),
        &queries,
        options,
        &progress,
        &stop,
    ))?;
    if args.queries.is_none() && args.store.is_none() {
        // Kept for History: the skill's own queries against the user's store.
        o.keep(&eval::EvalRecord::of_triggers(&report, revision));
    }
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
