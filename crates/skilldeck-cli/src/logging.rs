//! `-v`: the library crates' `tracing` events (and the CLI's own) printed to stderr.
//! Without `-v` no subscriber is installed, so nothing is printed and stdout/stderr stay exactly
//! as they were. The CLI writes no log file: a command's events belong to the terminal that ran
//! it (and to the bug report it is pasted into), and a folder of files from every `skilldeck
//! list` in a script would bury the desktop app's own log.

use tracing_subscriber::EnvFilter;

/// The environment variable that overrides the filter (EnvFilter syntax, e.g.
/// `skilldeck_sources=debug,info`); it applies only when `-v` is given.
pub const LOG_ENV: &str = "SKILLDECK_LOG";

/// Installs a stderr subscriber when `verbosity` > 0: `-v` shows Skilldeck's info events,
/// `-vv` its debug events, `-vvv` trace; dependencies show warnings either way. `SKILLDECK_LOG`
/// replaces that default filter.
pub fn init(verbosity: u8) {
    if verbosity == 0 {
        return;
    }
    let level = match verbosity {
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    // Every Skilldeck crate's target starts with `skilldeck` (the CLI's own is `skilldeck`).
    let default = format!("warn,skilldeck={level}");
    let (filter, refused) = match std::env::var(LOG_ENV) {
        Ok(custom) if !custom.trim().is_empty() => match EnvFilter::try_new(&custom) {
            Ok(f) => (f, None),
            Err(e) => (EnvFilter::new(&default), Some(e.to_string())),
        },
        _ => (EnvFilter::new(&default), None),
    };
    let installed = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_target(true)
        .try_init();
    if let (Ok(()), Some(why)) = (installed, refused) {
        tracing::warn!(error = %why, "{LOG_ENV} is not a filter; using the default");
    }
}
