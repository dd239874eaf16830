//! `skilldeck adopt`: bring skills found in the agent tools' folders into the store, and make
//! those copies Skilldeck's. A skill the `skills` CLI installed comes in with its source (read
//! from that tool's lockfile, fetched once per source), recorded in `sources.json` as
//! `skilldeck add` records it, so `outdated` and `update` follow it.

use crate::context::Ctx;
use crate::output::Outcome;
use serde::Serialize;
use skilldeck_sources::origins::{self, Sourced, Unfollowed};
use skilldeck_sources::skills_cli::SkillsCliLocks;
use skilldeck_targets::adopt::{self, AdoptReport, AdoptRequest, KnownSources, Outcome as Done};
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
    let locks = SkillsCliLocks::read(crate::commands::targets::project_dir(args.project.as_deref())?.as_deref());
    super::scan::warn_unreadable(&locks, "the adoption");
    let records = Records::new(ctx.storage().home().root());
    let disabled = ctx.config()?.listing.disabled;
    // The sources the `skills` CLI gives for the skills to adopt, fetched once per source.
    // Under --all, a skill whose every copy is already Skilldeck's is not adopted again, so its
    // source is not fetched again either.
    let names: Vec<&str> = if args.all {
        report.skills.iter().filter(|s| !s.copies.iter().all(|g| g.all_ours())).map(|s| s.name.as_str()).collect()
    } else {
        args.names.iter().map(String::as_str).collect()
    };
    let origins = if names.iter().any(|n| locks.entry(n).is_some()) {
        let (hosts, config) = super::add::fetch_config(&ctx)?;
        origins::of_named(names, &locks, &hosts, &config)
    } else {
        origins::Origins::default()
    };
    let known: KnownSources =
        origins.found.iter().map(|(n, o)| (n.clone(), (o.digest, o.provenance.clone()))).collect();
    let req = AdoptRequest { names: args.names, from: args.from, disabled };
    let done = adopt::adopt_with_sources(ctx.storage(), &records, &report, &req, &known);
    let sourced = origins::record(ctx.storage().home(), in_user_scope(&done), &origins)?;
    if args.json {
        crate::output::json(&AdoptJson { done: &done, sources: &sourced, unfollowed: &origins.unfollowed })?;
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
            if let Some(s) = sourced.iter().find(|s| s.name == a.name) {
                crate::output::outln!("  {}", source_line(s));
            }
            for l in &a.left {
                crate::output::outln!("  left {}: {}", l.path.display(), l.reason);
            }
        }
        if done.adopted.is_empty() && done.failed.is_empty() {
            crate::output::outln!("Nothing to adopt: every skill found is already Skilldeck's.");
        }
    }
    if !args.json {
        for u in &origins.unfollowed {
            eprintln!(
                "note: the source of {} ({}) is not recorded: {}; it is adopted as your own skill",
                u.name,
                u.lockfile.display(),
                u.reason
            );
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

/// The JSON of `adopt`.
#[derive(Serialize)]
struct AdoptJson<'a> {
    #[serde(flatten)]
    done: &'a AdoptReport,
    /// The skills whose source was recorded.
    sources: &'a [Sourced],
    /// The skills whose source the `skills` CLI named but that could not be followed.
    unfollowed: &'a [Unfollowed],
}

fn source_line(s: &Sourced) -> String {
    if s.same_as_source {
        format!("source: {} (from {})", s.source.short(), s.lockfile.display())
    } else {
        format!(
            "source: {} (from {}); it differs from the source's content now, so `skilldeck outdated` lists it",
            s.source.short(),
            s.lockfile.display()
        )
    }
}

/// The skills adopted whose content the store's user scope now holds as its current revision,
/// with that content's digest: those whose source can be recorded.
fn in_user_scope(done: &AdoptReport) -> Vec<(String, skilldeck_skill::digest::Digest)> {
    done.adopted.iter().filter(|a| a.outcome.in_user_scope()).map(|a| (a.name.clone(), a.digest)).collect()
}
