//! What Skilldeck's tests share about the machine they run on.
//!
//! A test that needs something of the machine — bubblewrap, a cgroup, root, the embedding
//! models, a tool — asks [`require`] when it finds it missing. Run by hand (`cargo test`), the
//! test is skipped loudly. Run by `scripts/test` (and so in CI), which sets
//! `SKILLDECK_TESTS_REQUIRE=1`, it fails and says what to install: a green suite means the
//! checks ran. A machine that truly lacks one may opt out by naming it in
//! `SKILLDECK_TESTS_OPT_OUT` (comma- or space-separated, e.g. `cgroup,root`); `scripts/test`
//! repeats the opt-outs in its summary line.

/// The variable `scripts/test` sets: a missing precondition is a failure.
pub const REQUIRE_VAR: &str = "SKILLDECK_TESTS_REQUIRE";

/// The variable naming the preconditions this machine opts out of.
pub const OPT_OUT_VAR: &str = "SKILLDECK_TESTS_OPT_OUT";

/// Whether precondition `what` is opted out of in `opt_out` (the variable's value).
fn opted_out(opt_out: &str, what: &str) -> bool {
    opt_out.split([',', ' ']).map(str::trim).any(|w| w == what || w == "all")
}

/// What to do about a missing precondition, given the two variables' values.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    /// Skip the test, saying so.
    Skip,
    /// Fail the test.
    Fail,
}

fn verdict(require: Option<&str>, opt_out: Option<&str>, what: &str) -> Verdict {
    let required = require.is_some_and(|v| !v.is_empty() && v != "0");
    if required && !opt_out.is_some_and(|o| opted_out(o, what)) { Verdict::Fail } else { Verdict::Skip }
}

/// Precondition `what` (a short key such as `sandbox`, `cgroup`, `root`, `models`) is missing
/// on this machine, because `why`; `install` says how to get it. Under `scripts/test` this
/// panics with all three (unless `what` is opted out of); otherwise it prints a loud skip and
/// returns, and the caller returns from the test.
#[allow(clippy::panic, reason = "failing the calling test is this function's job")]
pub fn require(what: &str, why: &str, install: &str) {
    let require = std::env::var(REQUIRE_VAR).ok();
    let opt_out = std::env::var(OPT_OUT_VAR).ok();
    match verdict(require.as_deref(), opt_out.as_deref(), what) {
        Verdict::Fail => panic!(
            "this test needs {what}, and it is missing: {why}. {install}. On a machine that truly \
             lacks it, set {OPT_OUT_VAR}={what} to skip it (scripts/test reports the opt-out)."
        ),
        Verdict::Skip => {
            eprintln!("\n!!! SKIPPED (needs {what}): {why}. {install}. Under scripts/test this fails. !!!\n");
        }
    }
}

/// The name libtest knows test `name` by when it is defined in the module `module_path`
/// (pass `module_path!()`): the module path less the test binary's own name, so a test that
/// runs itself again in a child (`--exact NAME`) names itself, and not nothing, in a binary
/// that holds many files as modules (`tests/it/main.rs`).
pub fn test_name(module_path: &str, name: &str) -> String {
    match module_path.split_once("::") {
        Some((_, module)) => format!("{module}::{name}"),
        None => name.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_in_a_module_is_named_by_its_module() {
        assert_eq!(super::test_name("it::environment", "t"), "environment::t");
        assert_eq!(super::test_name("it", "t"), "t");
    }

    #[test]
    fn missing_fails_only_when_required_and_not_opted_out() {
        assert_eq!(verdict(None, None, "sandbox"), Verdict::Skip);
        assert_eq!(verdict(Some("0"), None, "sandbox"), Verdict::Skip);
        assert_eq!(verdict(Some("1"), None, "sandbox"), Verdict::Fail);
        assert_eq!(verdict(Some("1"), Some("cgroup, root"), "sandbox"), Verdict::Fail);
        assert_eq!(verdict(Some("1"), Some("cgroup,sandbox"), "sandbox"), Verdict::Skip);
        assert_eq!(verdict(Some("1"), Some("all"), "models"), Verdict::Skip);
        assert_eq!(verdict(Some("1"), Some("sandboxes"), "sandbox"), Verdict::Fail);
    }
}
