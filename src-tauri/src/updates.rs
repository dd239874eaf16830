//! Updates of sourced skills in the app: the check run in the background (at start, then every
//! `[sources] check_every`) or when asked, its fetched folders kept so Update installs exactly
//! what the diff showed, and the view the top bar's indicator and the Updates dialog draw. The
//! check and what an update decides are `skilldeck-sources`; the commands are in
//! `commands/updates.rs`.

use crate::error::{ApiError, ApiResult};
use crate::sources::OriginView;
use crate::state::AppState;
pub use crate::update_slot::Updates;
use serde::Serialize;
use skilldeck_skill::Scope;
use skilldeck_sources::apply;
use skilldeck_sources::check::{Checked, Status, check};
use skilldeck_sources::config::SourcesConfig;
use skilldeck_sources::installed::{InstalledError, InstalledSkills};
use skilldeck_sources::last_check::{Answer, LastCheck};
use skilldeck_sources::setup;
use skilldeck_store::FsStorage;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tauri::{AppHandle, Emitter as _, Manager as _, Runtime};

/// The event sent when a check starts and when it ends (and after an update), with an
/// [`UpdatesView`].
pub const SOURCES_CHECKED: &str = "sources://checked";

/// How long after start the first background check waits: the window and the first listing
/// come first.
const FIRST_CHECK_AFTER: Duration = Duration::from_secs(2);

/// Where sourced skills stand, for the indicator and the dialog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct UpdatesView {
    /// Whether a check is running now.
    pub checking: bool,
    /// When the last check ran (RFC 3339, UTC).
    pub checked_at: Option<String>,
    /// How many skills came from a source.
    pub sourced: usize,
    /// How many of them have an update, as last known.
    pub outdated: usize,
    /// How many could not be checked the last time (their last answer stands).
    pub could_not_check: usize,
    /// One per sourced skill, by name.
    pub skills: Vec<SkillStanding>,
}

/// One sourced skill as last known.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SkillStanding {
    /// Its name.
    pub name: String,
    /// `up_to_date`, `outdated`, `gone` or `unknown` (never answered).
    pub state: &'static str,
    /// What is installed, from where.
    pub from: OriginView,
    /// What an update brings (outdated only).
    pub to: Option<OriginView>,
    /// Whether it was changed here since it was installed (an update asks first).
    pub changed_here: bool,
    /// Why it is gone upstream.
    pub reason: Option<String>,
    /// Why the last try could not ask its source, if it could not.
    pub could_not_check: Option<String>,
    /// When its source last answered.
    pub answered_at: Option<String>,
}

pub(crate) fn sources_file(e: InstalledError) -> ApiError {
    ApiError::new("sources_file_failed", e.to_string())
}

/// The view as last known, from `sources.json` and `sources-check.json`; nothing is fetched.
pub fn view(state: &AppState) -> ApiResult<UpdatesView> {
    let home = state.storage().home();
    let installed = InstalledSkills::load(home).map_err(sources_file)?;
    let last = LastCheck::load(home);
    let skills: Vec<SkillStanding> = last
        .standings(&installed)
        .into_iter()
        .map(|s| {
            let (state, to, reason) = match &s.answer {
                None => ("unknown", None, None),
                Some(Answer::UpToDate) => ("up_to_date", None, None),
                Some(Answer::Outdated { new, .. }) => ("outdated", Some(OriginView::of(new)), None),
                Some(Answer::Gone { reason }) => ("gone", None, Some(reason.clone())),
            };
            SkillStanding {
                name: s.name,
                state,
                from: OriginView::of(&s.installed.source),
                to,
                changed_here: s.changed_here,
                reason,
                could_not_check: s.failed.map(|f| f.reason),
                answered_at: s.answered_at,
            }
        })
        .collect();
    Ok(UpdatesView {
        checking: state.updates.checking().load(Ordering::Relaxed),
        checked_at: last.checked_at().map(str::to_owned),
        sourced: skills.len(),
        outdated: skills.iter().filter(|s| s.state == "outdated").count(),
        could_not_check: skills.iter().filter(|s| s.could_not_check.is_some()).count(),
        skills,
    })
}

fn emit<R: Runtime>(app: &AppHandle<R>, state: &AppState) {
    if let Ok(v) = view(state) {
        let _ = app.emit(SOURCES_CHECKED, &v);
    }
}

/// Checks every sourced skill now (the caller holds `one_at_a_time`), off the async runtime:
/// sources whose top moved without changing a skill are followed in `sources.json`, the answers
/// merged into `sources-check.json` (a source that cannot be asked keeps its last answer), and
/// the result kept for the diffs and Update. Sends [`SOURCES_CHECKED`] as it starts and ends.
pub async fn check_locked<R: Runtime>(app: &AppHandle<R>, state: &AppState) -> ApiResult<Arc<Checked>> {
    let storage = state.storage().clone();
    let installed = InstalledSkills::load(storage.home()).map_err(sources_file)?;
    if installed.is_empty() {
        return Ok(state.updates.keep(Checked::default()));
    }
    let (_, config) = setup::fetch_config(&storage).map_err(|e| ApiError::new("config_invalid", e.to_string()))?;
    state.updates.checking().store(true, Ordering::Relaxed);
    emit(app, state);
    let ran = tauri::async_runtime::spawn_blocking(move || {
        let current = |name: &str| storage.digest_dir(Scope::User, name).ok();
        let checked = check(&installed, &[], &config, &current);
        record(&storage, &checked).map(|()| checked)
    })
    .await;
    state.updates.checking().store(false, Ordering::Relaxed);
    let checked = match ran {
        Ok(Ok(checked)) => state.updates.keep(checked),
        Ok(Err(e)) => {
            emit(app, state);
            return Err(e);
        }
        Err(e) => {
            emit(app, state);
            return Err(ApiError::new("task_failed", format!("the check stopped unexpectedly: {e}")));
        }
    };
    emit(app, state);
    Ok(checked)
}

/// What a check found, written down: moved tops in `sources.json`, answers in
/// `sources-check.json`.
fn record(storage: &FsStorage, checked: &Checked) -> ApiResult<()> {
    let mut installed = InstalledSkills::load(storage.home()).map_err(sources_file)?;
    if apply::follow_moved(&mut installed, checked) {
        installed.save().map_err(sources_file)?;
    }
    let mut last = LastCheck::load(storage.home());
    last.merge(checked);
    last.save().map_err(|e| ApiError::new("io_error", format!("could not write the check's answers: {e}")))
}

/// The kept check if it still speaks for `names` (each outdated there, against the install
/// recorded now, its fetched folder present, changed here or not as it said); else a new check.
/// The caller holds `one_at_a_time`.
pub async fn fresh_for<R: Runtime>(app: &AppHandle<R>, state: &AppState, names: &[String]) -> ApiResult<Arc<Checked>> {
    if let Some(kept) = state.updates.kept()
        && still_holds(state, &kept, names)?
    {
        return Ok(kept);
    }
    check_locked(app, state).await
}

fn still_holds(state: &AppState, kept: &Checked, names: &[String]) -> ApiResult<bool> {
    let installed = InstalledSkills::load(state.storage().home()).map_err(sources_file)?;
    let wanted: Vec<&String> = if names.is_empty() {
        kept.checks.iter().filter(|c| matches!(c.status, Status::Outdated { .. })).map(|c| &c.name).collect()
    } else {
        names.iter().collect()
    };
    for name in wanted {
        let Some(c) = kept.checks.iter().find(|c| &c.name == name) else { return Ok(false) };
        let Status::Outdated { dir, .. } = &c.status else { return Ok(false) };
        let current = state.storage().digest_dir(Scope::User, name).ok();
        let changed_here = current.is_some_and(|d| d != c.installed.digest);
        if installed.get(name) != Some(&c.installed) || !dir.is_dir() || changed_here != c.changed_here {
            return Ok(false);
        }
    }
    Ok(true)
}

/// What the running update check last read from `[sources] check_every`, for Settings →
/// Sources: proof that a change reached it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct Schedule {
    /// The interval it runs at, in seconds; `None`: checks are off.
    pub every_secs: Option<u64>,
    /// When it checks next (milliseconds since 1970); `None` while off.
    pub next_ms: Option<u64>,
}

/// The event sent when the running check takes a new schedule, with a [`Schedule`].
pub const SCHEDULE_CHANGED: &str = "sources://schedule";

static SCHEDULE: std::sync::Mutex<Option<Schedule>> = std::sync::Mutex::new(None);

/// The running check's schedule; `None` before it first ran (or in a process without it).
pub fn schedule() -> Option<Schedule> {
    *SCHEDULE.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// How long the check waits at most before it reads `check_every` again, whatever wakes it.
const LOOK_AGAIN: Duration = Duration::from_secs(60);

/// The shortest interval the check keeps, whatever the file says.
const SHORTEST: Duration = Duration::from_secs(60);

/// Checks at start (once the window is up) and then every `[sources] check_every`, on the async
/// runtime: the window never waits for it. It reads the setting again whenever config.toml
/// changes (Settings wakes it through `state::CONFIG_CHANGED`) and at least each minute,
/// so a new interval counts from the last check at once, and `off` stops it until switched on.
pub fn check_in_background<R: Runtime>(app: AppHandle<R>) {
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(FIRST_CHECK_AFTER).await;
        let mut last: Option<std::time::Instant> = None;
        // What was said about an unreadable `[sources]`: said once, not each minute.
        let mut said: Option<String> = None;
        loop {
            // Listening before the file is read: a change made from here on wakes the wait.
            let mut woken = std::pin::pin!(crate::state::CONFIG_CHANGED.notified());
            woken.as_mut().enable();
            let state = app.state::<AppState>();
            let every = match SourcesConfig::load(&state.storage().home().config_path()) {
                Ok(c) => c.check_every.map(|d| d.max(SHORTEST)),
                Err(e) => {
                    let e = e.to_string();
                    if said.as_ref() != Some(&e) {
                        eprintln!("skilldeck-app: [sources] in config.toml: {e}; checking daily");
                        said = Some(e);
                    }
                    SourcesConfig::default().check_every
                }
            };
            if let Some(every) = every
                && last.is_none_or(|t| t.elapsed() >= every)
            {
                let _one = state.updates.one_at_a_time().await;
                if let Err(e) = check_locked(&app, &state).await {
                    eprintln!("skilldeck-app: the check for updates failed: {e}");
                }
                last = Some(std::time::Instant::now());
                continue;
            }
            let due = every.zip(last).map(|(every, t)| every.saturating_sub(t.elapsed()));
            let next_ms = due.map(|d| {
                let at = std::time::SystemTime::now() + d;
                at.duration_since(std::time::UNIX_EPOCH).map_or(0, |e| u64::try_from(e.as_millis()).unwrap_or(u64::MAX))
            });
            let now = Schedule { every_secs: every.map(|d| d.as_secs()), next_ms };
            let before = SCHEDULE.lock().unwrap_or_else(std::sync::PoisonError::into_inner).replace(now);
            // The same interval read again moves `next_ms` by the time it took: not news.
            if before.is_none_or(|b| b.every_secs != now.every_secs) {
                let _ = app.emit(SCHEDULE_CHANGED, now);
            }
            let _ = tokio::time::timeout(due.unwrap_or(LOOK_AGAIN).min(LOOK_AGAIN), woken).await;
        }
    });
}
