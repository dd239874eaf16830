//! `skilldeck adopt`: bring skills found in the agent tools' folders into the store, and make
//! those copies Skilldeck's.

use crate::context::Ctx;
use crate::output::Outcome;
use skilldeck_targets::adopt::{self, AdoptRequest, Outcome as Done};
use skilldeck_targets::record::Records;
use std::path::PathBuf;

/// What `adopt` was asked.
#[derive(Debug, Clone, Default)]
pub struct AdoptArgs {
    /// These names (empty with `all`).
    pub names: Vec<String>,
    /// Every skill found.
    pub all: bool,
    /// Only copies in this target or folder.
    pub from: Option<String>,
    /// Also the tools' folders in this project.
    pub project: Option<PathBuf>,
    /// Print JSON.
    pub json: bool,
}

/// Adopts, then prints one line per skill.
pub fn run(args: AdoptArgs) -> anyhow::Result<Outcome> {
    if args.all != args.names.is_empty() {
        anyhow::bail!("name the skills to adopt, or give --all (not both); `skilldeck scan` lists what there is");
    }
    let ctx = Ctx::open()?;
    let report = crate::commands::scan::report(&ctx, args.project.as_deref())?;
    let records = Records::new(ctx.storage().home().root());
    let disabled = ctx.config()?.listing.disabled;
    let req = AdoptRequest { names: args.names, from: args.from, disabled };
    let done = adopt::adopt(ctx.storage(), &records, &report, &req);
    if args.json {
        crate::output::json(&done)?;
    } else {
        for a in &done.adopted {
            let what = match &a.outcome {
                Done::Imported { scope, revision } => format!("imported as v:{revision} ({scope})"),
                Done::Unchanged { scope, revision } => format!("unchanged, still v:{revision} ({scope})"),
                Done::Older { revision, current, .. } => {
                    format!("an older revision (v:{revision}; the store has v:{current}): `skilldeck sync` updates it")
                }
            };
            crate::output::outln!(
                "{}: {what}, from {}; {} copies now Skilldeck's",
                a.name,
                a.from.display(),
                a.recorded.len()
            );
            for l in &a.left {
                crate::output::outln!("  left {}: {}", l.path.display(), l.reason);
            }
        }
        if done.adopted.is_empty() && done.failed.is_empty() {
            crate::output::outln!("Nothing to adopt: every skill found is already Skilldeck's.");
        }
    }
    for f in &done.skipped {
        eprintln!("skipped: {} [{}]", f.error, f.code);
    }
    for f in &done.failed {
        eprintln!("error: {} [{}]", f.error, f.code);
    }
    Ok(if done.failed.is_empty() { Outcome::Ok } else { Outcome::Refused })
}
