//! The app's log: `tracing` events from every Skilldeck crate, written as text lines to
//! `<data folder>/logs/skilldeck.log.YYYY-MM-DD` (a new file each day, the last
//! [`KEEP_FILES`] kept) and to stderr. A desktop-menu start has no terminal, so the file is
//! what a user attaches to a bug report; the events never carry secrets or skill contents.
//! A log folder that cannot be made leaves stderr only: logging never stops the app.

use std::path::{Path, PathBuf};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::layer::SubscriberExt as _;

/// The environment variable that overrides the filter (EnvFilter syntax, e.g.
/// `skilldeck_sources=debug,info`).
pub const LOG_ENV: &str = "SKILLDECK_LOG";

/// The log files' name before the date: `skilldeck.log.2026-12-06`.
pub const FILE_PREFIX: &str = "skilldeck.log";

/// How many daily files are kept; older ones are deleted as a new day's file opens.
pub const KEEP_FILES: usize = 7;

/// The default filter: Skilldeck's info events, dependencies' warnings.
const DEFAULT_FILTER: &str = "warn,skilldeck=info";

/// Keeps the background writer alive: dropping it flushes what is queued and stops writing.
/// Hold it for the app's lifetime.
#[must_use = "the log stops being written when the guard drops"]
pub struct LogGuard {
    _file: Option<tracing_appender::non_blocking::WorkerGuard>,
    /// The folder the files go to, when they do.
    pub dir: Option<PathBuf>,
    /// Why there is no file, when there is none although a folder was given.
    pub why_not: Option<String>,
    /// Why `$SKILLDECK_LOG` was not used, when it was set but is no filter.
    pub filter_refused: Option<String>,
}

/// The app's subscriber, not yet installed: the file in `logs_dir` (when given and it can be
/// made) and stderr, filtered by `$SKILLDECK_LOG` or the default.
pub fn subscriber(logs_dir: Option<&Path>) -> (tracing::Dispatch, LogGuard) {
    let (filter, refused) = match std::env::var(LOG_ENV) {
        Ok(custom) if !custom.trim().is_empty() => match EnvFilter::try_new(&custom) {
            Ok(f) => (f, None),
            Err(e) => (EnvFilter::new(DEFAULT_FILTER), Some(e.to_string())),
        },
        _ => (EnvFilter::new(DEFAULT_FILTER), None),
    };
    let stderr = tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_ansi(false);
    let (file, guard, why_not) = match logs_dir.map(appender) {
        None => (None, None, None),
        Some(Ok(appender)) => {
            let (writer, guard) = tracing_appender::non_blocking(appender);
            let layer = tracing_subscriber::fmt::layer().with_writer(writer).with_ansi(false);
            (Some(layer), Some(guard), None)
        }
        Some(Err(e)) => (None, None, Some(e)),
    };
    let dir = guard.as_ref().and(logs_dir).map(Path::to_path_buf);
    let dispatch = tracing::Dispatch::new(tracing_subscriber::registry().with(filter).with(stderr).with(file));
    (dispatch, LogGuard { _file: guard, dir, why_not, filter_refused: refused })
}

/// Installs the app's subscriber for the whole process: the file in `logs_dir` (when given
/// and it can be made) and stderr. A second call (tests) leaves the first in place.
pub fn init(logs_dir: Option<&Path>) -> LogGuard {
    let (dispatch, guard) = subscriber(logs_dir);
    if tracing::dispatcher::set_global_default(dispatch).is_err() {
        let why_not = Some("a logger was already installed".to_owned());
        return LogGuard { _file: None, dir: None, why_not, filter_refused: None };
    }
    if let Some(e) = &guard.filter_refused {
        tracing::warn!(error = %e, "{LOG_ENV} is not a filter; using the default");
    }
    if let (Some(e), Some(d)) = (&guard.why_not, logs_dir) {
        tracing::warn!(dir = %d.display(), error = %e, "no log file; logging to stderr only");
    }
    guard
}

/// The daily rolling file in `dir`, made if missing.
fn appender(dir: &Path) -> Result<tracing_appender::rolling::RollingFileAppender, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("could not make {}: {e}", dir.display()))?;
    tracing_appender::rolling::RollingFileAppender::builder()
        .rotation(tracing_appender::rolling::Rotation::DAILY)
        .filename_prefix(FILE_PREFIX)
        .max_log_files(KEEP_FILES)
        .build(dir)
        .map_err(|e| e.to_string())
}
