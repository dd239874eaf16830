//! Where a revision came from when it came from a source: a Git repository, a
//! `.well-known/agent-skills` index, an archive URL or one `SKILL.md` URL. A plain value, kept in
//! the revision's log line; fetching sources is `skilldeck-sources`.

use serde::{Deserialize, Serialize};

/// What kind of source a revision came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    /// A Git repository (resolved to a commit).
    Git,
    /// An entry of a `.well-known/agent-skills/index.json` (resolved to the entry's digest).
    Index,
    /// A `.zip`, `.tar.gz` or `.skill` archive URL (resolved to the archive's digest).
    Archive,
    /// The URL of one `SKILL.md` (resolved to its digest).
    SkillMd,
    /// An MCP server publishing skills through the Skills extension (resolved to the digest of
    /// the skill's manifest).
    Mcp,
}

/// The provenance of one revision: enough to fetch the same content again and to ask the
/// source whether it has moved on.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
pub struct Provenance {
    /// What kind of source.
    pub kind: SourceKind,
    /// The source as the user gave it (`anthropics/skills`, a URL, a path).
    pub given: String,
    /// The URL fetched (a Git remote, an index or archive URL), without credentials.
    pub url: String,
    /// The ref asked for (a branch, tag or commit); `None` means the remote's default branch.
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// Whether the ref is a pin (a tag or a commit, or one the user set): updates keep to it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pinned: bool,
    /// What the ref resolved to: the full commit id for Git, `sha256:<hex>` of the index entry
    /// or of the archive or file otherwise.
    pub resolved: String,
    /// The skill's folder inside the source, `/`-separated; `.` for its top.
    pub path: String,
}

impl Provenance {
    /// A short line for a person: `github.com/anthropics/skills@9d2f1ae, skills/pdf` (the
    /// URL without its scheme, `.git` or query; the commit's or digest's first 7 digits; the
    /// path unless it is the top). A commit not known (a copy adopted after it was edited) reads
    /// `@commit unknown`. An MCP server reads as its label when one was given and its command's
    /// words without their folders: `billing (mcp:python3 server.py)@3441880, refunds`.
    pub fn short(&self) -> String {
        let url = if self.kind == SourceKind::Mcp { self.server() } else { address(&self.url).to_owned() };
        let resolved = self.resolved.strip_prefix("sha256:").unwrap_or(&self.resolved);
        let short: String =
            if resolved.is_empty() { "commit unknown".to_owned() } else { resolved.chars().take(7).collect() };
        if self.path == "." || self.path.is_empty() {
            format!("{url}@{short}")
        } else {
            format!("{url}@{short}, {}", self.path)
        }
    }

    /// An MCP server as [`Self::short`] names it.
    fn server(&self) -> String {
        let label =
            self.given.strip_prefix("mcp:").and_then(|rest| rest.split_once('=')).map(|(label, _)| label).filter(|l| {
                !l.is_empty() && l.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            });
        let address = match self.url.strip_prefix("mcp:") {
            Some(command) => {
                let words: Vec<&str> = command
                    .split_whitespace()
                    .map(|w| w.trim_matches(['\'', '"']))
                    .map(|w| w.rsplit('/').next().unwrap_or(w))
                    .collect();
                format!("mcp:{}", words.join(" "))
            }
            None => address(&self.url).to_owned(),
        };
        match label {
            Some(label) => format!("{label} ({address})"),
            None => address,
        }
    }

    /// The provenance of the skill at `location` below this one's path (`.` is this path).
    pub fn below(&self, location: &str) -> Self {
        let path = match (self.path.as_str(), location) {
            (_, "." | "") => self.path.clone(),
            ("." | "", l) => l.to_owned(),
            (p, l) => format!("{}/{l}", p.trim_end_matches('/')),
        };
        Self { path, ..self.clone() }
    }
}

/// A URL as a person reads it: without its scheme, query, fragment, trailing `/` or `.git`.
fn address(url: &str) -> &str {
    let url = url.split_once("://").map_or(url, |(_, rest)| rest);
    let url = url.split(['?', '#']).next().unwrap_or(url);
    let url = url.trim_end_matches('/');
    url.strip_suffix(".git").unwrap_or(url)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn git(url: &str, path: &str) -> Provenance {
        Provenance {
            kind: SourceKind::Git,
            given: "anthropics/skills".into(),
            url: url.into(),
            reference: None,
            pinned: false,
            resolved: "9d2f1ae0123456789abcdef0123456789abcdef0".into(),
            path: path.into(),
        }
    }

    #[test]
    fn an_mcp_server_is_named_by_its_label_and_its_command_without_folders() {
        let p = Provenance {
            kind: SourceKind::Mcp,
            given: "mcp:billing=python3 /opt/tools/server.py".into(),
            url: "mcp:python3 /opt/tools/server.py".into(),
            reference: None,
            pinned: false,
            resolved: "sha256:3441880aa".into(),
            path: "team/refunds".into(),
        };
        assert_eq!(p.short(), "billing (mcp:python3 server.py)@3441880, team/refunds");
        let http = Provenance {
            given: "mcp:https://mcp.example.com/mcp".into(),
            url: "https://mcp.example.com/mcp".into(),
            ..p
        };
        assert_eq!(http.short(), "mcp.example.com/mcp@3441880, team/refunds");
    }

    #[test]
    fn short_names_the_repository_commit_and_path() {
        assert_eq!(
            git("https://github.com/anthropics/skills.git", "skills/pdf").short(),
            "github.com/anthropics/skills@9d2f1ae, skills/pdf"
        );
        assert_eq!(git("file:///srv/repo/", ".").short(), "/srv/repo@9d2f1ae");
        let unknown = Provenance { resolved: String::new(), ..git("https://github.com/o/r", "skills/pdf") };
        assert_eq!(unknown.short(), "github.com/o/r@commit unknown, skills/pdf");
        let index = Provenance {
            kind: SourceKind::Index,
            resolved: "sha256:abcdef0123".into(),
            ..git("https://example.com/.well-known/agent-skills/index.json?x=1", "pdf")
        };
        assert_eq!(index.short(), "example.com/.well-known/agent-skills/index.json@abcdef0, pdf");
    }

    #[test]
    fn below_joins_locations() {
        assert_eq!(git("u", ".").below("skills/pdf").path, "skills/pdf");
        assert_eq!(git("u", "skills").below("pdf").path, "skills/pdf");
        assert_eq!(git("u", "skills/pdf").below(".").path, "skills/pdf");
    }

    #[test]
    fn serialises_ref_and_leaves_out_what_is_empty() {
        let json = serde_json::to_string(&git("u", ".")).unwrap();
        assert!(!json.contains("ref") && !json.contains("pinned"), "{json}");
        let pinned = Provenance { reference: Some("v1.2".into()), pinned: true, ..git("u", ".") };
        let json = serde_json::to_string(&pinned).unwrap();
        assert!(json.contains(r#""ref":"v1.2""#) && json.contains(r#""pinned":true"#), "{json}");
        assert_eq!(serde_json::from_str::<Provenance>(&json).unwrap(), pinned);
    }
}
