//! The team scope: the remote named `team` refreshed into the core's `skills/team/` folder.
//! Holds the refresh-then-materialise step and its staleness rule; not the requests (`remote`).
//!
//! A refresh fills the cache (`remote::refresh`); materialising then writes each skill whose
//! local `.version` differs from the team's latest revision into the team scope, at that
//! revision number, and removes the skills the team store no longer has. Materialising reads
//! only the cache, so it works offline with the last known revisions.

use crate::cache::{self, Cache};
use crate::config::{RemoteConfig, load_remotes};
use crate::error::{RemoteError, Result};
use crate::problem::SkillProblem;
use crate::remote::{Offline, RefreshReport, Remote};
use serde::Serialize;
use skilldeck_skill::{Revision, Scope, SkillName};
use skilldeck_store::FsStorage;
use skilldeck_store::storage::RevisionEvent;
use std::time::Duration;

/// The remote whose skills make the team scope.
pub const TEAM_REMOTE: &str = "team";

/// What bringing the team scope up to date did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TeamSync {
    /// Whether a `[remotes.team]` is configured at all (else nothing else is set).
    pub configured: bool,
    /// What the refresh fetched; `None` when none ran (fresh enough, or offline).
    pub refreshed: Option<RefreshReport>,
    /// Set when the server could not be reached (or refused): the team scope shows the last
    /// known revisions.
    pub offline: Option<Offline>,
    /// Skills written into the team scope, with their revision.
    pub written: Vec<(String, u64)>,
    /// Skills removed from the team scope because the team store no longer has them.
    pub removed: Vec<String>,
    /// When the cache was last refreshed successfully.
    pub last_refresh: Option<String>,
    /// Skills left at their last good revision: the last refresh's problems, then
    /// materialising's. The other skills were brought up to date all the same.
    pub problems: Vec<SkillProblem>,
}

/// When a refresh runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// Now, whatever the last one was.
    Always,
    /// Only when the last try is older than the remote's `refresh_secs`.
    IfStale,
}

/// The team remote's settings from `storage`'s config.toml; `None` when there is none.
pub fn team_config(storage: &FsStorage) -> Result<Option<RemoteConfig>> {
    Ok(load_remotes(&storage.home().config_path())?.remove(TEAM_REMOTE))
}

/// Brings the team scope up to date: refreshes the `team` remote (always, or only when stale),
/// then materialises its cache into `skills/team/`. Never fails because the server cannot be
/// reached or refuses: that comes back as `offline`, and the last known revisions stay (and
/// are materialised, so a team scope deleted by hand comes back from the cache).
pub async fn sync_team(storage: &FsStorage, when: When) -> Result<TeamSync> {
    let Some(cfg) = team_config(storage)? else {
        return Ok(TeamSync::default());
    };
    let home = storage.home().root();
    let cache = Cache::new(home, TEAM_REMOTE);
    let state = cache.state()?;
    let due = match when {
        When::Always => true,
        When::IfStale => is_stale(state.last_attempt.as_deref(), cfg.refresh_interval()),
    };
    let mut out = TeamSync { configured: true, ..TeamSync::default() };
    if due {
        let tried = match Remote::with_config(home, TEAM_REMOTE, &cfg) {
            Ok(remote) => remote.refresh().await,
            Err(e) => Err(e),
        };
        match tried {
            Ok(report) => out.refreshed = Some(report),
            Err(e) if is_offline(&e) => {
                let mut st = cache.state()?;
                st.last_attempt = cache::now();
                st.last_error = Some(e.to_string());
                cache.put_state(&st)?;
            }
            Err(e) => return Err(e),
        }
    }
    let state = cache.state()?;
    out.offline = state.last_error.clone().map(|reason| Offline { last_refresh: state.last_refresh.clone(), reason });
    out.last_refresh = state.last_refresh.clone();
    // Materialising reads and writes many files: off the async runtime's threads, so a large
    // team scope never stalls the app's other commands.
    let (store, cached) = (storage.clone(), cache.clone());
    let done = tokio::task::spawn_blocking(move || materialise(&store, &cached))
        .await
        .map_err(|e| RemoteError::Store(format!("materialising the team scope stopped: {e}")))??;
    out.written = done.written;
    out.removed = done.removed;
    out.problems = state.problems;
    out.problems.extend(done.problems);
    Ok(out)
}

/// Errors that leave the team scope at its last known revisions rather than failing a listing:
/// the server unreachable, busy, refusing the credentials, or none configured.
fn is_offline(e: &RemoteError) -> bool {
    matches!(
        e,
        RemoteError::Unreachable { .. }
            | RemoteError::Busy { .. }
            | RemoteError::AccessDenied { .. }
            | RemoteError::NoCredentials { .. }
            | RemoteError::ClockSkew
            | RemoteError::NoSuchBucket { .. }
    )
}

/// Whether a refresh last tried at `last` (RFC 3339) is older than `interval` (or never ran).
fn is_stale(last: Option<&str>, interval: Duration) -> bool {
    let Some(last) =
        last.and_then(|t| time::OffsetDateTime::parse(t, &time::format_description::well_known::Rfc3339).ok())
    else {
        return true;
    };
    let age = time::OffsetDateTime::now_utc() - last;
    age.is_negative() || age.unsigned_abs() >= interval
}

/// What materialising changed in the team scope.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Materialised {
    /// Skills written, with their revision.
    pub written: Vec<(String, u64)>,
    /// Skills removed.
    pub removed: Vec<String>,
    /// Skills not written (their files damaged, no `SKILL.md`, over the limits, the write
    /// failing): each keeps what the team scope had.
    pub problems: Vec<SkillProblem>,
}

/// Writes the cache's latest revisions into the team scope (only skills whose `.version`
/// differs, in one batch flushed once) and removes skills the cache no longer lists. A skill
/// that cannot be written is skipped and reported in `problems`, keeping what the team scope
/// had; the others go on. Fails only when the team scope itself cannot be read.
pub fn materialise(storage: &FsStorage, cache: &Cache) -> Result<Materialised> {
    let state = cache.state()?;
    let store_err = |e: skilldeck_store::StorageError| RemoteError::Store(format!("the team scope: {e}"));
    let mut problems = Vec::new();
    let mut want = Vec::new();
    for (name, rev) in &state.skills {
        let Ok(skill) = SkillName::parse(name) else { continue };
        let local = match storage.revision_sync(Scope::Team, &skill) {
            Ok(r) => r,
            Err(skilldeck_store::StorageError::SkillNotFound { .. }) => None,
            Err(e) => {
                problems.push(SkillProblem::new(name, *rev, store_err(e)));
                continue;
            }
        };
        if local != Some(Revision(*rev)) {
            want.push((skill, *rev));
        }
    }
    let mut written = Vec::new();
    if !want.is_empty() {
        let mut batch = storage.batch(Scope::Team, RevisionEvent::Mirrored).map_err(store_err)?;
        for (skill, rev) in want {
            // A revision whose files are not all cached (a refresh cut short) waits for the next.
            let staged = match cache.files(skill.as_str(), rev) {
                Ok(Some(files)) => batch.stage_team(&skill, &files, Revision(rev)).map_err(store_err),
                Ok(None) => continue,
                Err(e) => Err(e),
            };
            if let Err(e) = staged {
                problems.push(SkillProblem::new(skill.as_str(), rev, e));
            }
        }
        for (skill, res) in batch.commit(&mut |_| {}) {
            match res {
                Ok(outcome) => written.push((skill.to_string(), outcome.revision.0)),
                Err(e) => {
                    let rev = state.skills.get(skill.as_str()).copied().unwrap_or_default();
                    problems.push(SkillProblem::new(skill.as_str(), rev, store_err(e)));
                }
            }
        }
    }
    let mut removed = Vec::new();
    for dir in storage.list_skills_sync(Scope::Team).map_err(store_err)? {
        // A skill whose newest revision was refused stays as it was, even if never recorded.
        if state.skills.contains_key(&dir) || state.problems.iter().any(|p| p.name == dir) {
            continue;
        }
        let Ok(skill) = SkillName::parse(&dir) else { continue };
        match storage.remove_team_skill(&skill) {
            Ok(Some(_)) => removed.push(dir),
            Ok(None) => {}
            Err(e) => problems.push(SkillProblem::new(&dir, 0, store_err(e))),
        }
    }
    Ok(Materialised { written, removed, problems })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staleness() {
        let hour = Duration::from_secs(3600);
        assert!(is_stale(None, hour));
        assert!(is_stale(Some("not a time"), hour));
        assert!(is_stale(Some("2020-01-01T00:00:00Z"), hour));
        assert!(!is_stale(cache::now().as_deref(), hour));
        assert!(is_stale(cache::now().as_deref(), Duration::ZERO));
    }
}
