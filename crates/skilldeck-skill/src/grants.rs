//! What a skill's `allowed-tools` asks for: the patterns, their meaning in plain words, which
//! are broad, and the request's digest. Holds no decision: the user's approvals live in `trust`.

use crate::digest::Digest as ContentDigest;
use crate::meta::SkillMeta;
use crate::scope::Scope;
use serde::Serialize;
use sha2::{Digest as _, Sha256};

/// Commands that run any code they are handed; a prefix grant for one is as broad as `Bash`.
const INTERPRETERS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "fish", "ksh", "env", "xargs", "eval", "exec", "sudo", "su", "doas", "python",
    "python3", "node", "deno", "bun", "npx", "perl", "ruby", "php", "lua", "awk", "find", "make", "docker",
];

/// One entry of `allowed-tools`, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pattern {
    /// `Bash`, `Bash(*)` or `Shell`: any command.
    AnyCommand,
    /// `Bash(git diff:*)`: these words, then any arguments.
    Prefix(Vec<String>),
    /// `Bash(npm test)`: exactly these words.
    Exact(Vec<String>),
    /// A tool Skilldeck's loop has no use for (`Read`, `Write`, …): it grants nothing here.
    Other(String),
}

impl Pattern {
    /// Parses one pattern. `None` for a shell pattern whose parentheses do not close.
    pub fn parse(pattern: &str) -> Option<Self> {
        let pattern = pattern.trim();
        let (tool, spec) = match pattern.split_once('(') {
            Some((tool, rest)) => (tool.trim(), Some(rest.strip_suffix(')')?.trim())),
            None => (pattern, None),
        };
        if !matches!(tool.to_ascii_lowercase().as_str(), "bash" | "shell") {
            return Some(Self::Other(tool.to_owned()));
        }
        let Some(spec) = spec else { return Some(Self::AnyCommand) };
        let (body, prefix) = match spec.strip_suffix(":*").or_else(|| spec.strip_suffix('*')) {
            Some(p) => (p, true),
            None => (spec, false),
        };
        let words: Vec<String> = body.split_whitespace().map(str::to_owned).collect();
        Some(match (words.is_empty(), prefix) {
            (true, _) => Self::AnyCommand,
            (false, true) => Self::Prefix(words),
            (false, false) => Self::Exact(words),
        })
    }

    /// Whether this pattern lets a skill run any code without asking.
    pub fn is_broad(&self) -> bool {
        match self {
            Self::AnyCommand => true,
            Self::Prefix(words) => words.first().is_some_and(|w| {
                let program = w.rsplit('/').next().unwrap_or(w);
                INTERPRETERS.contains(&program) || program.starts_with("python")
            }),
            Self::Exact(_) | Self::Other(_) => false,
        }
    }

    /// What the pattern allows, in plain words.
    pub fn plain_words(&self) -> String {
        match self {
            Self::AnyCommand => "run any shell command without asking".to_owned(),
            Self::Prefix(w) if self.is_broad() => {
                format!("run `{}` with any arguments — that runs any code without asking", w.join(" "))
            }
            Self::Prefix(w) => format!("run `{}` with any arguments", w.join(" ")),
            Self::Exact(w) => format!("run exactly `{}`", w.join(" ")),
            Self::Other(tool) => {
                format!("use {tool} (grants nothing in Skilldeck: its file tools always stay in the workspace)")
            }
        }
    }
}

/// One requested tool as people see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct RequestedTool {
    /// The pattern as the skill wrote it.
    pub pattern: String,
    /// What it would allow, in plain words.
    pub plain: String,
    /// Whether it lets the skill run any code without asking (a warning is shown).
    pub broad: bool,
}

/// What a skill's `allowed-tools` asks for. Empty when it asks for nothing.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GrantRequest {
    patterns: Vec<String>,
}

impl GrantRequest {
    /// The request of a skill's frontmatter.
    pub fn of(meta: &SkillMeta) -> Self {
        Self::new(meta.allowed_tools.iter().cloned())
    }

    /// A request for `patterns`, as written.
    pub fn new(patterns: impl IntoIterator<Item = String>) -> Self {
        Self { patterns: patterns.into_iter().map(|p| p.trim().to_owned()).filter(|p| !p.is_empty()).collect() }
    }

    /// Whether it asks for nothing.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// The patterns, as written.
    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }

    /// Whether any pattern would allow a shell command (only those need the user's approval).
    pub fn asks_for_shell(&self) -> bool {
        self.parsed().any(|p| !matches!(p, Pattern::Other(_)))
    }

    /// Whether any pattern is broad.
    pub fn is_broad(&self) -> bool {
        self.parsed().any(|p| p.is_broad())
    }

    fn parsed(&self) -> impl Iterator<Item = Pattern> + '_ {
        self.patterns.iter().filter_map(|p| Pattern::parse(p))
    }

    /// Each requested tool in plain words.
    pub fn describe(&self) -> Vec<RequestedTool> {
        self.patterns
            .iter()
            .map(|p| match Pattern::parse(p) {
                Some(parsed) => {
                    RequestedTool { pattern: p.clone(), plain: parsed.plain_words(), broad: parsed.is_broad() }
                }
                None => RequestedTool {
                    pattern: p.clone(),
                    plain: "not a valid pattern: it grants nothing".to_owned(),
                    broad: false,
                },
            })
            .collect()
    }

    /// `sha256:` and 64 hex digits over the scope, the name, the patterns and `content` when
    /// given: what an approval is bound to. A skill of the user's with a new revision and the
    /// same `allowed-tools` keeps its approval; any change to the request asks again. A team
    /// skill's approval also names its files' digest (`content`), since others publish its
    /// revisions: new scripts under the same request ask again too.
    pub fn digest(&self, scope: Scope, name: &str, content: Option<&ContentDigest>) -> String {
        let mut h = Sha256::new();
        for part in [scope.as_str(), name].into_iter().chain(self.patterns.iter().map(String::as_str)) {
            h.update((part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        if let Some(content) = content {
            h.update(b"content");
            h.update(content.long().as_bytes());
        }
        let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
        format!("sha256:{hex}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(pattern: &str, expected: Option<Pattern>, broad: bool) {
        let got = Pattern::parse(pattern);
        assert_eq!(got, expected, "{pattern}");
        assert_eq!(got.is_some_and(|p| p.is_broad()), broad, "{pattern}");
    }

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn patterns_parse_to_what_they_allow() {
        check("Bash", Some(Pattern::AnyCommand), true);
        check("Bash(*)", Some(Pattern::AnyCommand), true);
        check("shell(:*)", Some(Pattern::AnyCommand), true);
        check("Bash(git diff:*)", Some(Pattern::Prefix(words("git diff"))), false);
        check("Bash(git diff*)", Some(Pattern::Prefix(words("git diff"))), false);
        check("Bash(npm test)", Some(Pattern::Exact(words("npm test"))), false);
        check("Bash(python:*)", Some(Pattern::Prefix(words("python"))), true);
        check("Bash(/usr/bin/env:*)", Some(Pattern::Prefix(words("/usr/bin/env"))), true);
        check("Bash(python3.12 scripts/x.py)", Some(Pattern::Exact(words("python3.12 scripts/x.py"))), false);
        check("Read", Some(Pattern::Other("Read".into())), false);
        check("Bash(git diff", None, false);
    }

    #[test]
    fn a_request_describes_itself_and_its_digest_follows_its_patterns() {
        let r = GrantRequest::new(["Bash(git log:*)".to_owned(), "Bash".to_owned(), "Read".to_owned()]);
        let d = r.describe();
        assert_eq!(d[0].plain, "run `git log` with any arguments");
        assert!(!d[0].broad);
        assert_eq!((d[1].plain.as_str(), d[1].broad), ("run any shell command without asking", true));
        assert!(r.asks_for_shell() && r.is_broad());
        assert!(!GrantRequest::new(["Read".to_owned()]).asks_for_shell());
        let same = GrantRequest::new(["Bash(git log:*)".to_owned(), "Bash".to_owned(), "Read".to_owned()]);
        assert_eq!(r.digest(Scope::User, "x", None), same.digest(Scope::User, "x", None));
        assert_ne!(r.digest(Scope::User, "x", None), r.digest(Scope::User, "y", None));
        assert_ne!(r.digest(Scope::User, "x", None), r.digest(Scope::System, "x", None));
        let narrower = GrantRequest::new(["Bash(git log:*)".to_owned()]);
        assert_ne!(r.digest(Scope::User, "x", None), narrower.digest(Scope::User, "x", None));
        let (files, other) = (ContentDigest::from_bytes([1; 32]), ContentDigest::from_bytes([2; 32]));
        assert_ne!(r.digest(Scope::Team, "x", Some(&files)), r.digest(Scope::Team, "x", Some(&other)));
    }
}
