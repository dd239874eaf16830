//! `skilldeck key set|status|remove PROVIDER`: a provider's key in the system keychain, the
//! same entry the app's Settings › Models keeps (`skilldeck_agent::keychain`). The key is read
//! from standard input, so it never lands in the shell's history or a process listing.

use crate::context::Ctx;
use crate::output::Outcome;
use anyhow::Context as _;
use skilldeck_agent::keychain;
use std::io::{BufRead as _, IsTerminal as _};

/// The provider must be one config.toml names (or the error names the known ones).
fn known(provider: &str) -> anyhow::Result<()> {
    Ctx::open()?.config()?.provider(provider)?;
    Ok(())
}

/// Reads the key from standard input (one line; on a terminal, asked for first) and keeps it.
pub fn set(provider: &str) -> anyhow::Result<Outcome> {
    known(provider)?;
    let stdin = std::io::stdin();
    let mut key = String::new();
    if stdin.is_terminal() {
        eprint!("Key for {provider} (not shown as you type; Enter to finish): ");
        let _quiet = Unechoed::new(&stdin);
        stdin.lock().read_line(&mut key).context("could not read the key from standard input")?;
        eprintln!();
    } else {
        stdin.lock().read_line(&mut key).context("could not read the key from standard input")?;
    }
    let kept = keychain::set(provider, &key)?;
    crate::output::outln!("The key of {provider} is kept in {}.", kept.describe());
    Ok(Outcome::Ok)
}

/// Says whether a key is kept for the provider, and where (never the key).
pub fn status(provider: &str) -> anyhow::Result<Outcome> {
    known(provider)?;
    match keychain::get(provider)? {
        Some((_, kept)) => crate::output::outln!("{provider}: a key is kept in {}.", kept.describe()),
        None => crate::output::outln!(
            "{provider}: no key in the keychain; `skilldeck key set {provider}` keeps one (its api_key_env variable, when set, wins)."
        ),
    }
    Ok(Outcome::Ok)
}

/// Removes the provider's key from the keychain.
pub fn remove(provider: &str) -> anyhow::Result<Outcome> {
    let what = if keychain::remove(provider)? { "was removed from the keychain" } else { "was not in the keychain" };
    crate::output::outln!("The key of {provider} {what}.");
    Ok(Outcome::Ok)
}

/// The terminal with its echo off while a key is typed; put back as it was when dropped.
struct Unechoed {
    before: Option<rustix::termios::Termios>,
}

impl Unechoed {
    fn new(stdin: &std::io::Stdin) -> Self {
        use rustix::termios::{LocalModes, OptionalActions, tcgetattr, tcsetattr};
        let before = tcgetattr(stdin).ok();
        if let Some(mut quiet) = before.clone() {
            quiet.local_modes.remove(LocalModes::ECHO);
            let _ = tcsetattr(stdin, OptionalActions::Now, &quiet);
        }
        Self { before }
    }
}

impl Drop for Unechoed {
    fn drop(&mut self) {
        if let Some(before) = &self.before {
            let _ = rustix::termios::tcsetattr(std::io::stdin(), rustix::termios::OptionalActions::Now, before);
        }
    }
}
