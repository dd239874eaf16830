//! `skilldeck remote …`, `publish` and `refresh`: the team store on S3-compatible storage.
//! Holds argument shapes and printing; the store itself is `skilldeck-remote`.

use crate::context::Ctx;
use crate::output::{self, Outcome, outln};
use anyhow::Context as _;
use clap::{Args, Subcommand};
use serde::Serialize;
use skilldeck_remote::config::{add_remote, load_remotes, remove_remote};
use skilldeck_remote::{Offline, Remote, RemoteConfig, TEAM_REMOTE, When};
use skilldeck_skill::{Scope, SkillName};
use skilldeck_store::SkilldeckHome;

/// `skilldeck remote`.
#[derive(Debug, Args)]
pub struct RemoteArgs {
    #[command(subcommand)]
    command: RemoteCommand,
}

#[derive(Debug, Subcommand)]
enum RemoteCommand {
    /// Add a team store: `[remotes.NAME]` in config.toml (credentials come from AWS_* variables
    /// or the AWS profile files).
    Add {
        /// Its name, e.g. `team`.
        name: String,
        /// `s3://bucket` or `s3://bucket/prefix`.
        url: String,
        /// The server, for anything but AWS S3 (R2, MinIO, B2, …).
        #[arg(long)]
        endpoint: Option<String>,
        /// The region (default us-east-1).
        #[arg(long)]
        region: Option<String>,
        /// For the remote `team` (the team scope): refresh a listing's team skills when the
        /// last refresh is older than this many seconds (default 300).
        #[arg(long)]
        refresh_secs: Option<u64>,
    },
    /// List the configured team stores.
    List {
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Remove a team store from config.toml (the store and the local cache stay).
    Remove {
        /// Its name.
        name: String,
    },
    /// The skills of a team store at their latest revisions (from the cache when offline).
    Skills {
        /// The remote.
        remote: String,
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// A skill's revisions in a team store.
    History {
        /// The remote.
        remote: String,
        /// The skill.
        name: String,
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Remove blobs no revision names (left by killed publishes) once they are old enough.
    Gc {
        /// The remote.
        remote: String,
        /// Keep unreferenced blobs younger than this many hours (a publish may be under way).
        #[arg(long, default_value_t = 24)]
        grace_hours: u64,
        /// Print what would be removed; remove nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Publish an older revision's files again as a new revision.
    Restore {
        /// The remote.
        remote: String,
        /// The skill.
        name: String,
        /// The revision to bring back.
        revision: u64,
    },
}

/// `skilldeck publish NAME --to REMOTE`.
#[derive(Debug, Args)]
pub struct PublishArgs {
    /// The skill (from the user scope, else system).
    name: String,
    /// The remote to publish to.
    #[arg(long)]
    to: String,
    /// Print JSON for scripts.
    #[arg(long)]
    json: bool,
}

/// `skilldeck refresh [REMOTE]`.
#[derive(Debug, Args)]
pub struct RefreshArgs {
    /// The remote; every configured one when omitted.
    remote: Option<String>,
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().context("could not start the async runtime")
}

fn home() -> anyhow::Result<SkilldeckHome> {
    Ok(SkilldeckHome::from_env()?)
}

fn open(name: &str) -> anyhow::Result<Remote> {
    Ok(Remote::open(home()?.root(), name)?)
}

/// `history NAME --scope team`: the skill's revisions in the team store.
pub fn team_history(name: &str, json: bool) -> anyhow::Result<Outcome> {
    history(TEAM_REMOTE, name, json)?;
    Ok(Outcome::Ok)
}

/// `restore NAME REV --scope team`: publishes revision `rev` again as the team's newest, then
/// refreshes the team scope so it shows at once.
pub fn team_restore(ctx: &Ctx, name: &SkillName, rev: u64, json: bool) -> anyhow::Result<Outcome> {
    let report = runtime()?.block_on(open(TEAM_REMOTE)?.restore(name, rev))?;
    let sync = ctx.sync_team(When::Always);
    if json {
        output::json(&serde_json::json!({
            "name": name, "scope": Scope::Team, "revision": report.revision,
            "digest": report.manifest.short_digest(), "offline": sync.offline,
        }))?;
    } else {
        outln!("Restored {name} v:{rev} as v:{} (team, {})", report.revision, report.manifest.short_digest());
    }
    Ok(Outcome::Ok)
}

fn offline_line(remote: &str, off: &Offline) -> String {
    let when = off.last_refresh.as_deref().unwrap_or("never");
    format!("offline: {remote} is unreachable; showing the last known revisions (last refresh: {when})")
}

/// Runs `skilldeck remote …`.
pub fn run(args: RemoteArgs) -> anyhow::Result<Outcome> {
    match args.command {
        RemoteCommand::Add { name, url, endpoint, region, refresh_secs } => {
            // The same range, in the same words, as the app's Settings.
            if let Some(problem) = refresh_secs.and_then(skilldeck_agent::config_edit::refresh_secs_problem) {
                anyhow::bail!("--refresh-secs: {problem}");
            }
            let home = home()?;
            let cfg = RemoteConfig { endpoint, region, refresh_secs, ..RemoteConfig::new(url.clone()) };
            add_remote(&home.config_path(), &name, &cfg)?;
            outln!(
                "added remote {name} ({url}); credentials come from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY \
                 or the AWS profile files"
            );
        }
        RemoteCommand::List { json } => list(json)?,
        RemoteCommand::Remove { name } => {
            if !remove_remote(&home()?.config_path(), &name)? {
                anyhow::bail!("no remote {name:?} in config.toml; `skilldeck remote list` shows them");
            }
            outln!("removed remote {name} from config.toml");
        }
        RemoteCommand::Skills { remote, json } => skills(&remote, json)?,
        RemoteCommand::History { remote, name, json } => history(&remote, &name, json)?,
        RemoteCommand::Gc { remote, grace_hours, dry_run } => {
            let grace = std::time::Duration::from_secs(grace_hours.saturating_mul(3600));
            let report = runtime()?.block_on(open(&remote)?.gc(grace, dry_run))?;
            let verb = if dry_run { "would remove" } else { "removed" };
            outln!(
                "{remote}: {verb} {} unreferenced blob(s), {} bytes; kept {} referenced and {} younger than {grace_hours} h",
                report.removed.len(),
                report.removed_bytes,
                report.referenced,
                report.young
            );
        }
        RemoteCommand::Restore { remote, name, revision } => {
            let parsed = SkillName::parse(&name).with_context(|| format!("{name:?} is not a skill name"))?;
            let r = open(&remote)?;
            let report = runtime()?.block_on(r.restore(&parsed, revision))?;
            outln!("restored {name} revision {revision} as revision {} on {remote}", report.revision);
        }
    }
    Ok(Outcome::Ok)
}

#[derive(Serialize)]
struct RemoteRow {
    name: String,
    #[serde(flatten)]
    config: RemoteConfig,
    last_refresh: Option<String>,
}

fn list(json: bool) -> anyhow::Result<()> {
    let home = home()?;
    let mut rows = Vec::new();
    for (name, config) in load_remotes(&home.config_path())? {
        let last_refresh = skilldeck_remote::cache::Cache::new(home.root(), &name).state()?.last_refresh;
        rows.push(RemoteRow { name, config, last_refresh });
    }
    if json {
        return output::json(&rows);
    }
    if rows.is_empty() {
        outln!("no remotes; `skilldeck remote add team s3://BUCKET/PREFIX --endpoint URL` adds one");
    }
    for r in rows {
        let endpoint = r.config.endpoint.as_deref().unwrap_or("AWS");
        let when = r.last_refresh.as_deref().unwrap_or("never");
        outln!("{}  {}  endpoint: {endpoint}  last refresh: {when}", r.name, r.config.url);
    }
    Ok(())
}

fn skills(remote: &str, json: bool) -> anyhow::Result<()> {
    let r = open(remote)?;
    let listing = runtime()?.block_on(r.skills())?;
    if json {
        return output::json(&listing);
    }
    if let Some(off) = &listing.offline {
        outln!("{}", offline_line(remote, off));
    }
    if listing.skills.is_empty() {
        outln!("no skills in {remote} yet; `skilldeck publish NAME --to {remote}` adds one");
    }
    for s in &listing.skills {
        outln!("{} (v:{})  {}  {}  {}", s.name, s.revision, s.digest, s.published_at, s.publisher);
    }
    Ok(())
}

#[derive(Serialize)]
struct HistoryJson<'a> {
    revisions: &'a [skilldeck_remote::Manifest],
    offline: &'a Option<Offline>,
}

fn history(remote: &str, name: &str, json: bool) -> anyhow::Result<()> {
    let r = open(remote)?;
    let (revisions, offline) = runtime()?.block_on(r.history(name))?;
    if json {
        return output::json(&HistoryJson { revisions: &revisions, offline: &offline });
    }
    if let Some(off) = &offline {
        outln!("{}", offline_line(remote, off));
    }
    for m in &revisions {
        let event = match (m.event, m.restored_from) {
            (skilldeck_remote::Event::Restore, Some(from)) => format!("restore of {from}"),
            (skilldeck_remote::Event::Restore, None) => "restore".to_owned(),
            (skilldeck_remote::Event::Publish, _) => "publish".to_owned(),
        };
        outln!("{}  {}  {}  {}  {}", m.revision, m.published_at, m.short_digest(), m.publisher, event);
    }
    Ok(())
}

#[derive(Serialize)]
struct PublishJson<'a> {
    remote: &'a str,
    name: &'a str,
    revision: u64,
    uploaded_blobs: usize,
    uploaded_bytes: u64,
    reused_blobs: usize,
    digest: &'a str,
}

/// Runs `skilldeck publish NAME --to REMOTE`.
pub fn publish(args: PublishArgs) -> anyhow::Result<Outcome> {
    let ctx = Ctx::open()?;
    // From the user scope, else the system one; a team skill is already published.
    let (scope, name) = match ctx.resolve(&args.name, Some(Scope::User)) {
        Ok(found) => found,
        Err(e) => ctx.resolve(&args.name, Some(Scope::System)).map_err(|_| e)?,
    };
    let files = ctx
        .storage()
        .snapshot(scope, &name)
        .with_context(|| format!("could not read {name} from the {scope} scope"))?
        .files;
    let r = open(&args.to)?;
    let report = runtime()?.block_on(r.publish(&name, &files))?;
    if args.to == TEAM_REMOTE {
        ctx.sync_team(When::Always);
    }
    if args.json {
        return output::json(&PublishJson {
            remote: &args.to,
            name: name.as_str(),
            revision: report.revision,
            uploaded_blobs: report.uploaded_blobs,
            uploaded_bytes: report.uploaded_bytes,
            reused_blobs: report.reused_blobs,
            digest: &report.manifest.digest,
        })
        .map(|()| Outcome::Ok);
    }
    outln!(
        "published {name} ({scope}) as revision {} to {}: uploaded {} file(s), {} bytes; {} already there",
        report.revision,
        args.to,
        report.uploaded_blobs,
        report.uploaded_bytes,
        report.reused_blobs
    );
    Ok(Outcome::Ok)
}

/// Runs `skilldeck refresh [REMOTE]`.
pub fn refresh(args: RefreshArgs) -> anyhow::Result<Outcome> {
    let names: Vec<String> = match args.remote {
        Some(n) => vec![n],
        None => load_remotes(&home()?.config_path())?.into_keys().collect(),
    };
    if names.is_empty() {
        outln!("no remotes to refresh; `skilldeck remote add` adds one");
    }
    let rt = runtime()?;
    for name in names {
        let report = rt.block_on(open(&name)?.refresh()).with_context(|| format!("refreshing {name}"))?;
        for p in &report.problems {
            eprintln!("{}", output::problem_line(&name, p));
        }
        if name == TEAM_REMOTE {
            let storage = Ctx::open()?;
            let done = skilldeck_remote::team::materialise(
                storage.storage(),
                &skilldeck_remote::cache::Cache::new(storage.storage().home().root(), TEAM_REMOTE),
            )?;
            for p in &done.problems {
                eprintln!("{}", output::problem_line("team scope", p));
            }
            if !done.written.is_empty() || !done.removed.is_empty() {
                outln!("team scope: {} skill(s) updated, {} removed", done.written.len(), done.removed.len());
            }
        }
        outln!(
            "{name}: {} skill(s); fetched {} new revision(s) and {} file(s), {} bytes",
            report.skills,
            report.new_manifests,
            report.new_blobs,
            report.blob_bytes
        );
    }
    Ok(Outcome::Ok)
}
