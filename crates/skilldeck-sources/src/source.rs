//! What the user wrote, read as a typed [`Source`]: GitHub or GitLab shorthand, a Git URL, a
//! local repository, an archive or `SKILL.md` URL, or an HTTP(S) URL still to be probed.
//! It fetches nothing and touches the file system only to tell a local repository from a folder.
//!
//! The rules, in order:
//! 1. `github:owner/repo[/path][@ref]` and `gitlab:group[/subgroup…]/repo[//path][@ref]` name a
//!    repository on the configured [`Hosts`]; a bare `owner/repo[/path][@ref]` is GitHub.
//!    (GitLab groups nest, so a GitLab sub-path follows `//`.)
//! 2. A path starting with `/`, `./`, `../` or `~/` is a local repository (a folder holding
//!    `.git`, or a bare repository); write `./owner/repo` for a folder that looks like shorthand.
//! 3. `ssh://`, `git://`, `file://` URLs and scp-like `user@host:path` are Git, with an optional
//!    `#ref` at the end.
//! 4. An `http(s)://` URL is, by its path: an archive (`.zip`, `.tar.gz`, `.tgz`, `.tar`,
//!    `.skill`) → [`Source::Archive`]; a file named `SKILL.md` → [`Source::SkillFile`]; ending
//!    `.git` → Git; a GitHub or GitLab web URL (`/owner/repo`, `/owner/repo/tree/REF/path`,
//!    `/owner/repo/blob/REF/path/SKILL.md`, GitLab's `/-/tree/`) → Git; anything else →
//!    [`Source::Http`], which the caller probes: Git smart HTTP (`info/refs`) first, then a
//!    `.well-known/agent-skills` index.
//! 5. `mcp:[LABEL=]COMMAND…` or `mcp:[LABEL=]https://…` is an MCP server publishing skills
//!    ([`crate::mcp`]).

use std::path::{Path, PathBuf};

use crate::mcp::{self, McpSource, McpSourceError};
use url::Url;

/// The base URLs shorthand expands against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hosts {
    /// GitHub's base URL, `https://github.com` unless configured (GitHub Enterprise).
    pub github: String,
    /// GitLab's base URL, `https://gitlab.com` unless configured (a self-hosted GitLab).
    pub gitlab: String,
}

impl Default for Hosts {
    fn default() -> Self {
        Self { github: "https://github.com".into(), gitlab: "https://gitlab.com".into() }
    }
}

/// Where a source says skills come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A Git repository.
    Git(GitSource),
    /// An HTTP(S) URL that is neither an archive, a `SKILL.md` nor a known Git URL: a Git
    /// repository over smart HTTP or a `.well-known/agent-skills` index; the caller probes.
    Http(UrlSource),
    /// An archive (`.zip`, `.tar.gz`, `.tgz`, `.tar`, `.skill`) to download and unpack.
    Archive(UrlSource),
    /// One `SKILL.md` to download.
    SkillFile(UrlSource),
    /// An MCP server publishing skills (`mcp:COMMAND…` or `mcp:https://…`).
    Mcp(McpSource),
}

impl Source {
    /// Reads `text` as a source; shorthand expands against `hosts`.
    pub fn parse(text: &str, hosts: &Hosts) -> Result<Self, SourceError> {
        parse(text, hosts)
    }

    /// The text as the user gave it, without any credential.
    pub fn given(&self) -> &str {
        match self {
            Source::Git(git) => &git.given,
            Source::Http(u) | Source::Archive(u) | Source::SkillFile(u) => &u.given,
            Source::Mcp(m) => &m.given,
        }
    }
}

/// A Git repository to fetch from, and what to take from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitSource {
    /// The text as the user gave it, without any credential (see [`crate::redact::strip`]).
    pub given: String,
    /// The URL to fetch (`https://…`, `ssh://…`, `git@host:path`, `file://…`), never with a
    /// password; a user name given in it is kept for this fetch, never recorded.
    pub url: String,
    /// The branch, tag or commit asked for; `None` fetches the remote's `HEAD`.
    pub reference: Option<String>,
    /// The folder inside the repository to take, `/`-separated, without leading or trailing `/`.
    pub subpath: Option<String>,
}

/// A URL that is not (known to be) a Git repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlSource {
    /// The text as the user gave it, without any credential (see [`crate::redact::strip`]).
    pub given: String,
    /// The URL to fetch, as given: a token in its query is used for this fetch, never recorded.
    pub url: Url,
}

/// Why a source could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    /// Nothing was given.
    #[error("no source given: write owner/repo, a Git URL, a local repository path or an archive URL")]
    Empty,
    /// A URL scheme Skilldeck does not fetch from.
    #[error(
        "`{scheme}:` is not a source Skilldeck can fetch: use https://, ssh://, git@host:path, file://, github:owner/repo or gitlab:group/repo"
    )]
    UnknownScheme {
        /// The scheme as written.
        scheme: String,
    },
    /// Shorthand that is not `owner/repo[/path][@ref]`.
    #[error(
        "`{given}` is not a repository shorthand ({reason}): write owner/repo, owner/repo/path/to/skill or owner/repo@ref"
    )]
    BadShorthand {
        /// The text given.
        given: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A ref that Git would not accept as a branch, tag or commit name.
    #[error("`{reference}` is not a usable ref ({reason}): give a branch, a tag or a commit id")]
    BadRef {
        /// The ref as given.
        reference: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A sub-path inside the repository that is not a plain relative path.
    #[error("`{path}` is not a path inside a repository ({reason}): write folder/names separated by `/`")]
    BadSubpath {
        /// The path as given.
        path: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A URL that does not parse.
    #[error("`{given}` is not a valid URL ({reason})")]
    BadUrl {
        /// The URL, with any password removed.
        given: String,
        /// What the URL parser said.
        reason: String,
    },
    /// A URL with a password in it.
    #[error(
        "the URL for {host} has a password in it: remove it and let Git's credential helper or GITHUB_TOKEN, GH_TOKEN or GITLAB_TOKEN supply it"
    )]
    PasswordInUrl {
        /// The URL's host.
        host: String,
    },
    /// A local path that does not exist.
    #[error("no folder at {}: check the path, or write owner/repo for a GitHub repository", path.display())]
    NoSuchPath {
        /// The path as given.
        path: PathBuf,
    },
    /// An `mcp:` source that cannot be read.
    #[error(transparent)]
    Mcp(#[from] McpSourceError),
    /// A local folder that is not a Git repository.
    #[error("{} is a folder but not a Git repository (no .git in it): import it as a folder instead", path.display())]
    NotARepository {
        /// The path as given.
        path: PathBuf,
    },
}

/// Archive name endings that make an HTTP(S) URL an archive.
const ARCHIVE_ENDINGS: [&str; 5] = [".zip", ".tar.gz", ".tgz", ".tar", ".skill"];

fn parse(text: &str, hosts: &Hosts) -> Result<Source, SourceError> {
    let raw = text.trim();
    if raw.starts_with(mcp::PREFIX) {
        return Ok(Source::Mcp(McpSource::parse(raw)?));
    }
    // What is recorded never holds a credential; the URL fetched keeps it, for this fetch only.
    let stripped = crate::redact::strip(raw);
    let given = stripped.as_str();
    if given.is_empty() {
        return Err(SourceError::Empty);
    }
    if let Some(rest) = given.strip_prefix("github:") {
        return shorthand(given, rest, &hosts.github, false).map(Source::Git);
    }
    if let Some(rest) = given.strip_prefix("gitlab:") {
        return shorthand(given, rest, &hosts.gitlab, true).map(Source::Git);
    }
    if given.starts_with('/') || given.starts_with("./") || given.starts_with("../") || given.starts_with("~/") {
        return local(given).map(Source::Git);
    }
    if let Some((scheme, _)) = given.split_once("://") {
        return match scheme.to_ascii_lowercase().as_str() {
            "http" | "https" => http(raw, given, hosts),
            "ssh" | "git" | "file" | "git+ssh" | "ssh+git" => git_url(raw, given).map(Source::Git),
            _ => Err(SourceError::UnknownScheme { scheme: scheme.to_string() }),
        };
    }
    if is_scp_like(given) {
        return git_url(raw, given).map(Source::Git);
    }
    if let Some((scheme, _)) = given.split_once(':')
        && !scheme.contains('/')
    {
        return Err(SourceError::UnknownScheme { scheme: scheme.to_string() });
    }
    shorthand(given, given, &hosts.github, false).map(Source::Git)
}

/// `owner/repo[/path][@ref]` (GitHub) or `group/…/repo[//path][@ref]` (GitLab).
fn shorthand(given: &str, text: &str, base: &str, nested_groups: bool) -> Result<GitSource, SourceError> {
    let bad = |reason: &str| SourceError::BadShorthand { given: given.to_string(), reason: reason.to_string() };
    let (text, reference) = match text.rsplit_once('@') {
        Some((head, reference)) => (head, Some(check_ref(reference)?)),
        None => (text, None),
    };
    let (repo_part, subpath) = if nested_groups {
        match text.split_once("//") {
            Some((repo, path)) => (repo, Some(path)),
            None => (text, None),
        }
    } else {
        match text.split_once("//") {
            Some((repo, path)) => (repo, Some(path)),
            None => {
                let mut parts = text.splitn(3, '/');
                let owner = parts.next().unwrap_or_default();
                let repo = parts.next().unwrap_or_default();
                let end = (owner.len() + 1 + repo.len()).min(text.len());
                (&text[..end], parts.next())
            }
        }
    };
    let segments: Vec<&str> = repo_part.split('/').collect();
    if segments.len() < 2 || segments.iter().any(|s| s.is_empty()) {
        return Err(bad("it needs an owner and a repository, separated by `/`"));
    }
    if !nested_groups && segments.len() > 2 {
        return Err(bad("a GitHub repository is owner/repo"));
    }
    for segment in &segments {
        if segment.starts_with('.') || !segment.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)) {
            return Err(bad("owner and repository names hold letters, digits, `-`, `_` and `.`"));
        }
    }
    let repo_path = repo_part.strip_suffix(".git").unwrap_or(repo_part);
    let subpath = subpath.map(check_subpath).transpose()?.flatten();
    Ok(GitSource {
        given: given.to_string(),
        url: format!("{}/{repo_path}.git", base.trim_end_matches('/')),
        reference,
        subpath,
    })
}

/// A local repository: a folder holding `.git`, or a bare repository.
fn local(given: &str) -> Result<GitSource, SourceError> {
    let path = match given.strip_prefix("~/") {
        Some(rest) => std::env::home_dir().map_or_else(|| PathBuf::from(given), |home| home.join(rest)),
        None => PathBuf::from(given),
    };
    if !path.is_dir() {
        return Err(SourceError::NoSuchPath { path });
    }
    if !is_repository(&path) {
        return Err(SourceError::NotARepository { path });
    }
    let absolute = path.canonicalize().map_err(|_| SourceError::NoSuchPath { path: path.clone() })?;
    let url = Url::from_file_path(&absolute).map_err(|()| SourceError::NoSuchPath { path: path.clone() })?;
    Ok(GitSource { given: given.to_string(), url: url.to_string(), reference: None, subpath: None })
}

/// Whether `path` is a work tree (`.git` in it) or a bare repository (`HEAD`, `objects/`, `refs/`).
pub fn is_repository(path: &Path) -> bool {
    path.join(".git").exists()
        || (path.join("HEAD").is_file() && path.join("objects").is_dir() && path.join("refs").is_dir())
}

/// `ssh://`, `git://`, `file://` or scp-like, with an optional `#ref`: `raw` as written, `given`
/// the same without credentials.
fn git_url(raw: &str, given: &str) -> Result<GitSource, SourceError> {
    let (url, reference) = split_fragment(raw)?;
    if url.contains("://") {
        let parsed = Url::parse(url).map_err(|e| bad_url(url, &e))?;
        if parsed.password().is_some() {
            return Err(SourceError::PasswordInUrl { host: parsed.host_str().unwrap_or_default().to_string() });
        }
    }
    Ok(GitSource { given: given.to_string(), url: url.to_string(), reference, subpath: None })
}

/// `user@host:path` or `host.name:path` (Git's scp-like syntax): a `:` before any `/`.
fn is_scp_like(text: &str) -> bool {
    let Some((host, path)) = text.split_once(':') else { return false };
    !host.contains('/') && !path.is_empty() && (host.contains('@') || host.contains('.'))
}

/// An `http(s)://` URL: `raw` as written (fetched), `given` the same without credentials (recorded).
fn http(raw: &str, given: &str, hosts: &Hosts) -> Result<Source, SourceError> {
    let (text, fragment_ref) = split_fragment(raw)?;
    let url = Url::parse(text).map_err(|e| bad_url(text, &e))?;
    if url.password().is_some() {
        return Err(SourceError::PasswordInUrl { host: url.host_str().unwrap_or_default().to_string() });
    }
    let path = url.path().trim_end_matches('/');
    let lower = path.to_ascii_lowercase();
    let file = |url: Url| UrlSource { given: given.to_string(), url };
    if ARCHIVE_ENDINGS.iter().any(|end| lower.ends_with(end)) {
        return Ok(Source::Archive(file(url)));
    }
    let forge = forge_of(&url, hosts);
    if let Some(forge) = forge
        && let Some(git) = web_url(given, &url, forge, fragment_ref.clone())?
    {
        return Ok(Source::Git(git));
    }
    if path.rsplit('/').next() == Some("SKILL.md") {
        return Ok(Source::SkillFile(file(url)));
    }
    if lower.ends_with(".git") {
        return Ok(Source::Git(GitSource {
            given: given.to_string(),
            url: text.trim_end_matches('/').to_string(),
            reference: fragment_ref,
            subpath: None,
        }));
    }
    Ok(Source::Http(file(url)))
}

/// Which forge an URL's host and port belong to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Forge {
    GitHub,
    GitLab,
}

fn forge_of(url: &Url, hosts: &Hosts) -> Option<Forge> {
    let same = |base: &str| {
        Url::parse(base).is_ok_and(|base| {
            base.host_str() == url.host_str() && base.port_or_known_default() == url.port_or_known_default()
        })
    };
    if same(&hosts.github) {
        Some(Forge::GitHub)
    } else if same(&hosts.gitlab) {
        Some(Forge::GitLab)
    } else {
        None
    }
}

/// A forge's web URL: `/owner/repo`, `/owner/repo/tree/REF[/path]`, `/owner/repo/blob/REF/path`
/// (GitLab: `/group/…/repo`, with `/-/tree/` and `/-/blob/`). `None` when the path is none of these.
/// A REF holding `/` cannot be told from the path after it: the first segment is taken as the ref.
fn web_url(
    given: &str,
    url: &Url,
    forge: Forge,
    fragment_ref: Option<String>,
) -> Result<Option<GitSource>, SourceError> {
    let segments: Vec<&str> = url.path().split('/').filter(|s| !s.is_empty()).collect();
    let (repo, rest): (&[&str], &[&str]) = match forge {
        Forge::GitHub => {
            if segments.len() < 2 {
                return Ok(None);
            }
            segments.split_at(2)
        }
        Forge::GitLab => match segments.iter().position(|s| *s == "-") {
            Some(dash) => (&segments[..dash], &segments[dash + 1..]),
            None => (&segments[..], &[]),
        },
    };
    if repo.len() < 2 {
        return Ok(None);
    }
    let (reference, subpath) = match rest {
        [] => (fragment_ref, None),
        ["tree" | "blob", reference, path @ ..] => {
            let mut path: Vec<&str> = path.to_vec();
            if rest[0] == "blob" && path.last().is_some_and(|name| name.eq_ignore_ascii_case("SKILL.md")) {
                path.pop();
            }
            let subpath = check_subpath(&path.join("/"))?;
            (Some(check_ref(reference)?), subpath)
        }
        _ => return Ok(None),
    };
    let base = &url[..url::Position::BeforePath];
    let repo_path = repo.join("/");
    let repo_path = repo_path.strip_suffix(".git").unwrap_or(&repo_path);
    Ok(Some(GitSource { given: given.to_string(), url: format!("{base}/{repo_path}.git"), reference, subpath }))
}

/// Splits a trailing `#ref` off a URL.
fn split_fragment(given: &str) -> Result<(&str, Option<String>), SourceError> {
    match given.split_once('#') {
        Some((url, reference)) => Ok((url, Some(check_ref(reference)?))),
        None => Ok((given, None)),
    }
}

fn bad_url(text: &str, error: &url::ParseError) -> SourceError {
    SourceError::BadUrl { given: crate::redact::url(text), reason: error.to_string() }
}

/// A ref as Git would accept it for a branch, tag or commit (a light `git check-ref-format`).
fn check_ref(reference: &str) -> Result<String, SourceError> {
    let bad = |reason| Err(SourceError::BadRef { reference: reference.to_string(), reason });
    if reference.is_empty() {
        return bad("it is empty");
    }
    if reference.starts_with('-') {
        return bad("it starts with `-`");
    }
    if reference.contains("..") || reference.contains("@{") || reference.contains("//") {
        return bad("it holds `..`, `@{` or `//`");
    }
    if reference.chars().any(|c| c.is_control() || c.is_whitespace() || "~^:?*[\\".contains(c)) {
        return bad("it holds a space, a control character or one of ~^:?*[\\");
    }
    if reference.ends_with('/')
        || reference.ends_with(".lock")
        || reference.ends_with('.')
        || reference.starts_with('/')
    {
        return bad("it starts or ends with `/`, or ends with `.` or `.lock`");
    }
    Ok(reference.to_string())
}

/// A sub-path inside the repository; `None` for the root.
fn check_subpath(path: &str) -> Result<Option<String>, SourceError> {
    let bad = |reason| Err(SourceError::BadSubpath { path: path.to_string(), reason });
    let trimmed = path.trim_matches('/');
    if trimmed.is_empty() {
        return Ok(None);
    }
    if trimmed.contains('\\') || trimmed.contains('\0') {
        return bad("it holds `\\` or a NUL");
    }
    if trimmed.split('/').any(|s| s.is_empty() || s == "." || s == "..") {
        return bad("it holds an empty, `.` or `..` segment");
    }
    Ok(Some(trimmed.to_string()))
}
