//! `skilldeck eval NAME --optimize-description`: the guide's loop over the skill's trigger
//! queries, each candidate description run in a scratch copy of the store (the user's skills, or
//! `--store`), the winner offered as a draft of the skill. The store is never written.

use super::{EvalArgs, Opened, read_trigger_queries, runtime};
use crate::output::{self, Outcome};
use skilldeck_agent::eval::{self, Improve, Neighbours, OptimizeReport};
use skilldeck_skill::SkillName;
use skilldeck_skill::visible::visible_line;
use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::sync::Arc;

/// `skilldeck eval NAME --optimize-description`.
pub(super) fn run(args: EvalArgs) -> anyhow::Result<Outcome> {
    let options = args.trigger_options()?;
    let o = Opened::new(&args)?;
    let queries = read_trigger_queries(o.registry.storage(), o.scope, &o.name, args.queries.as_deref())?;
    let neighbours = match args.store.as_deref() {
        None => Neighbours::Store,
        Some("empty") => Neighbours::Empty,
        Some(dir) => Neighbours::Folder(PathBuf::from(dir)),
    };
    let tty = std::io::stderr().is_terminal();
    let progress = |iteration: usize, what: &str| {
        if tty {
            eprint!("\r\x1b[2Kdescription {iteration}: {what}");
        }
    };
    let improve = Improve {
        registry: &o.registry,
        scope: o.scope,
        name: &o.name,
        neighbours,
        provider: Arc::clone(&o.provider),
        opts: o.session_options(),
        queries: &queries,
        options,
        iterations: usize::from(args.iterations),
        stop: tokio_util::sync::CancellationToken::new(),
    };
    let improved = runtime()?.block_on(eval::improve_description(improve, &progress))?;
    if tty {
        eprint!("\r\x1b[2K");
    }
    let draft = improved.draft.as_ref().map(|p| p.display().to_string());
    if args.json {
        output::json(&serde_json::json!({"report": improved.report, "draft": draft}))?;
    } else {
        print(&improved.report, draft.as_deref(), &o.name)?;
    }
    Ok(Outcome::Ok)
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
