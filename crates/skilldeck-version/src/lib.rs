//! What this Skilldeck was built from: the release version and the Git commit, as `skilldeck
//! --version` and the desktop app's About say them. Only the two front ends depend on this crate,
//! so a new commit rebuilds this crate and them, never the libraries underneath.

/// The release version, from the workspace's `Cargo.toml` (`0.1.0`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The placeholder vergen writes when the build had no Git checkout to read.
const UNKNOWN: &str = "VERGEN_IDEMPOTENT_OUTPUT";

/// The full commit hash the binary was built from, or `None` when the build could not tell
/// (built outside a Git checkout without `VERGEN_GIT_SHA` set).
pub fn commit() -> Option<&'static str> {
    known(env!("VERGEN_GIT_SHA"))
}

/// The date of that commit (`YYYY-MM-DD`), when known.
pub fn commit_date() -> Option<&'static str> {
    known(env!("VERGEN_GIT_COMMIT_DATE"))
}

fn known(value: &'static str) -> Option<&'static str> {
    (!value.is_empty() && value != UNKNOWN).then_some(value)
}

/// The commit shortened to 12 hex digits, as people quote it.
pub fn short_commit() -> Option<&'static str> {
    commit().map(|c| c.get(..12).unwrap_or(c))
}

/// One line for `--version` and the About: `0.1.0 (commit 17a2352c1f0e, 2026-12-06)`, or
/// `0.1.0 (commit unknown)`.
pub fn describe() -> String {
    match (short_commit(), commit_date()) {
        (Some(c), Some(d)) => format!("{VERSION} (commit {c}, {d})"),
        (Some(c), None) => format!("{VERSION} (commit {c})"),
        _ => format!("{VERSION} (commit unknown)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_the_version_and_the_commit_this_checkout_is_at() {
        let line = describe();
        assert!(line.starts_with(VERSION), "{line}");
        // The tests run from a Git checkout (scripts/test, CI's clone): the commit is known and
        // is the hash of a real commit.
        let commit = commit().unwrap_or_else(|| panic!("no commit recorded: {line}"));
        assert_eq!(commit.len(), 40, "{commit}");
        assert!(commit.bytes().all(|b| b.is_ascii_hexdigit()), "{commit}");
        assert!(line.contains(&commit[..12]), "{line}");
        let date = commit_date().unwrap_or_default();
        assert_eq!(date.len(), 10, "{date}");
    }

    #[test]
    fn a_placeholder_is_no_commit() {
        assert_eq!(known(UNKNOWN), None);
        assert_eq!(known(""), None);
        assert_eq!(known("abc"), Some("abc"));
    }
}
