//! `skilldeck targets window TARGET [TOKENS|default]`: the context window a target's listing
//! budget is a share of, printed or written as `[targets.TARGET] context_window` in
//! config.toml (through `config_edit::set_context_window`, which keeps comments and layout).

use crate::context::Ctx;
use crate::output::Outcome;
use anyhow::Context as _;
use clap::Subcommand;
use skilldeck_targets::budget::{Rule, claude, codex};
use skilldeck_targets::config::TargetsConfig;
use skilldeck_targets::config_edit;

/// `skilldeck targets`' subcommands.
#[derive(Debug, Subcommand)]
pub enum TargetsAction {
    /// Print or set the context window (in tokens) TARGET's own listing budget is a share of
    /// (`[targets.TARGET] context_window` in config.toml): Claude Code lists skills in 1% of it,
    /// Codex in 2% (Gemini CLI has no cap; the window only gives the listing's share).
    /// `default` takes the setting out (the agent's default window again).
    Window {
        /// A tool id (`claude-code`, `codex`, …) or a configured target's name.
        target: String,
        /// The window in tokens (`1000000`, `1_000_000`), or `default`; omit it to print the
        /// current one. For Codex, `0` means unknown (Codex then spends 8,000 characters).
        tokens: Option<String>,
    },
}

/// What TOKENS says: a number of tokens, or `None` for `default`.
fn parse_tokens(text: &str) -> anyhow::Result<Option<u64>> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("default") {
        return Ok(None);
    }
    let digits: String = t.chars().filter(|c| *c != '_' && *c != ',').collect();
    digits
        .parse::<u64>()
        .map(Some)
        .map_err(|_| anyhow::anyhow!("{text:?} is not a number of tokens; give one such as 1000000, or `default`"))
}

/// The agent's listing budget for a window, in words (for the agents whose rule is known).
fn budget_words(rule: Rule, window: u64) -> String {
    match rule {
        Rule::ClaudeCode => format!("{} characters", claude::budget_chars(window)),
        Rule::Codex => {
            let (unit, size) = codex::budget(Some(window).filter(|w| *w > 0));
            format!("{size} {}", unit.as_str())
        }
        Rule::Gemini => "none: Gemini CLI lists every skill whole, whatever the window".to_owned(),
    }
}

/// Runs one subcommand.
pub fn run(action: TargetsAction) -> anyhow::Result<Outcome> {
    let TargetsAction::Window { target, tokens } = action;
    let ctx = Ctx::open()?;
    let path = ctx.storage().home().config_path();
    let rule = Rule::for_target(&target);
    let Some(tokens) = tokens else {
        let config = TargetsConfig::load(&path)?;
        let set = config.targets.get(&target).and_then(|c| c.context_window);
        match (set, rule) {
            (Some(w), _) => crate::output::outln!("{target}: a {w}-token window ({})", path.display()),
            (None, Some(r)) => {
                crate::output::outln!("{target}: the agent's default, a {}-token window", r.default_window())
            }
            (None, None) => crate::output::outln!("{target}: no window set; its agent's listing rule is not known"),
        }
        return Ok(Outcome::Ok);
    };
    let tokens = parse_tokens(&tokens)?;
    let changed = config_edit::set_context_window(&path, &target, tokens)
        .with_context(|| format!("could not update {}", path.display()))?;
    let what = if changed { "is now" } else { "was already" };
    let window = match tokens {
        Some(n) => format!("a {n}-token window"),
        None => "the agent's default window".to_owned(),
    };
    crate::output::outln!("{target}: the listing budget {what} a share of {window} ({}).", path.display());
    if let Some(r) = rule {
        let w = tokens.unwrap_or_else(|| r.default_window());
        crate::output::outln!("Its listing budget: {}.", budget_words(r, w));
    }
    Ok(Outcome::Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_a_number_or_default() {
        assert_eq!(parse_tokens("1000000").ok(), Some(Some(1_000_000)));
        assert_eq!(parse_tokens("1_000_000").ok(), Some(Some(1_000_000)));
        assert_eq!(parse_tokens("Default").ok(), Some(None));
        assert!(parse_tokens("1m").is_err());
    }
}
