//! Skills from sources in the app: the fetched sources kept between "Look" and "Install" (so
//! what is installed is exactly what was previewed), and where a sourced skill came from as the
//! skill view shows it, with the web address its link opens. Fetching is `skilldeck-sources`.

use serde::Serialize;
use skilldeck_skill::provenance::{Provenance, SourceKind};
use skilldeck_sources::fetch::Fetched;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use tauri::Url;

/// Sources fetched by "Look" and not yet installed or cancelled, by token. Each holds its
/// scratch folder; dropping it removes the folder. A new Look replaces what an earlier one
/// kept: the dialog shows one source at a time.
#[derive(Debug, Default)]
pub struct PendingFetches {
    next: AtomicU64,
    held: Mutex<HashMap<String, Arc<Fetched>>>,
}

impl PendingFetches {
    /// Keeps `fetched` (dropping any source kept before) and returns its token.
    pub fn keep(&self, fetched: Fetched) -> String {
        let token = format!("source-{}", self.next.fetch_add(1, Ordering::Relaxed) + 1);
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        held.clear();
        held.insert(token.clone(), Arc::new(fetched));
        token
    }

    /// The source kept under `token`, still kept.
    pub fn get(&self, token: &str) -> Option<Arc<Fetched>> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner).get(token).cloned()
    }

    /// Stops keeping the source under `token`; its scratch folder goes once no install uses it.
    pub fn forget(&self, token: &str) -> bool {
        self.held.lock().unwrap_or_else(PoisonError::into_inner).remove(token).is_some()
    }
}

/// Where a skill (or a source's top) came from, as the app shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct OriginView {
    /// `github.com/o/r@9d2f1ae, skills/pdf`.
    pub short: String,
    /// The source as the user gave it.
    pub given: String,
    /// `git`, `index`, `archive` or `skill_md`.
    pub kind: SourceKind,
    /// The ref asked for, if any.
    pub reference: Option<String>,
    /// The commit or digest's first 7 digits.
    pub resolved: String,
    /// The path inside the source (`.` for its top).
    pub path: String,
    /// The web page to open for it: the repository, the site of an index, the archive's URL.
    /// Only http and https addresses; none for `file://`, SSH and local sources.
    pub link: Option<String>,
}

impl OriginView {
    /// The view of `p`.
    pub fn of(p: &Provenance) -> Self {
        let resolved = p.resolved.strip_prefix("sha256:").unwrap_or(&p.resolved);
        Self {
            short: p.short(),
            given: p.given.clone(),
            kind: p.kind,
            reference: p.reference.clone(),
            resolved: resolved.chars().take(7).collect(),
            path: p.path.clone(),
            link: web_link(p),
        }
    }
}

/// The page a person would open for `p`: a Git repository's URL without `.git`, an index's
/// site, an archive's or `SKILL.md`'s own URL; only when it is http or https.
fn web_link(p: &Provenance) -> Option<String> {
    let mut url = Url::parse(&p.url).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.set_fragment(None);
    match p.kind {
        SourceKind::Git => {
            url.set_query(None);
            let path = url.path().trim_end_matches('/');
            let path = path.strip_suffix(".git").unwrap_or(path).to_owned();
            url.set_path(&path);
        }
        SourceKind::Index => {
            url.set_query(None);
            url.set_path("/");
        }
        SourceKind::Archive | SourceKind::SkillMd => {}
        // An MCP endpoint is no page to open.
        SourceKind::Mcp => return None,
    }
    Some(url.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(kind: SourceKind, url: &str, expected: Option<&str>) {
        let p = Provenance {
            kind,
            given: "o/r".into(),
            url: url.into(),
            reference: None,
            pinned: false,
            resolved: "9d2f1ae0123456789abcdef0123456789abcdef0".into(),
            path: "skills/pdf".into(),
        };
        assert_eq!(web_link(&p).as_deref(), expected, "{url}");
    }

    #[test]
    fn links_open_web_pages_only() {
        check(SourceKind::Git, "https://github.com/o/r.git", Some("https://github.com/o/r"));
        check(SourceKind::Git, "http://127.0.0.1:4000/repo.git/", Some("http://127.0.0.1:4000/repo"));
        check(SourceKind::Git, "https://github.com/o/r", Some("https://github.com/o/r"));
        check(SourceKind::Git, "file:///srv/repo.git", None);
        check(SourceKind::Git, "ssh://git@github.com/o/r.git", None);
        check(SourceKind::Git, "git@github.com:o/r.git", None);
        check(
            SourceKind::Index,
            "https://example.com/.well-known/agent-skills/index.json",
            Some("https://example.com/"),
        );
        check(SourceKind::Archive, "https://example.com/a/skills.zip", Some("https://example.com/a/skills.zip"));
        check(SourceKind::SkillMd, "javascript:alert(1)", None);
    }

    #[test]
    fn the_view_says_where_from_in_one_line() {
        let p = Provenance {
            kind: SourceKind::Git,
            given: "o/r".into(),
            url: "https://github.com/o/r.git".into(),
            reference: Some("v1".into()),
            pinned: true,
            resolved: "9d2f1ae0123456789abcdef0123456789abcdef0".into(),
            path: "skills/pdf".into(),
        };
        let view = OriginView::of(&p);
        assert_eq!(
            view,
            OriginView {
                short: "github.com/o/r@9d2f1ae, skills/pdf".into(),
                given: "o/r".into(),
                kind: SourceKind::Git,
                reference: Some("v1".into()),
                resolved: "9d2f1ae".into(),
                path: "skills/pdf".into(),
                link: Some("https://github.com/o/r".into()),
            }
        );
    }
}
