//! An MCP server's skills fetched into a scratch folder: listed, each entry checked
//! ([`super::entry`]), held to the limits of a skill and of a whole fetch by its manifest before
//! anything is read, then every file read and compared with its digest and size. A skill any of
//! whose files does not match is refused whole, and nothing of it is written. Each skill is
//! written under the name it is kept by (`LABEL-name`, its `SKILL.md`'s `name` rewritten to it),
//! so the store, approvals and every agent's folder tell two servers' `refunds` apart.

use super::entry::{self, Planned};
use super::server::McpSource;
use super::session::{Bounds, Session, SessionError};
use crate::limits::oversized;
use rmcp::model::Skill;
use skilldeck_skill::name_field::with_name;
use skilldeck_skill::{SkillName, UploadLimits};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How an MCP fetch is bounded.
#[derive(Debug, Clone, Copy)]
pub struct McpOptions {
    /// The longest one request may take.
    pub request: Duration,
    /// The longest the whole fetch may take.
    pub total: Duration,
    /// What one skill may hold.
    pub skill: UploadLimits,
    /// The most bytes the whole fetch may read.
    pub max_bytes: u64,
    /// The most entries listed.
    pub max_entries: usize,
}

/// One skill fetched.
#[derive(Debug, Clone)]
pub struct McpSkill {
    /// The name it is kept under (`LABEL-name`).
    pub name: String,
    /// Its folder in the server's tree (`team/refunds`).
    pub path: String,
    /// Its folder on disk.
    pub dir: PathBuf,
    /// The digest of its manifest (`sha256:…`).
    pub manifest: String,
}

/// One entry refused, with why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpRefused {
    /// Its folder in the server's tree, or its URI when it has none.
    pub path: String,
    /// The name it would be kept under.
    pub name: String,
    /// A stable code (`mcp_digest_mismatch`, `mcp_dynamic_resources`, …).
    pub code: &'static str,
    /// What happened.
    pub what: String,
    /// What would let it in.
    pub fix: String,
}

/// What an MCP fetch brought.
#[derive(Debug, Default)]
pub struct McpFetched {
    /// The digest of every entry's manifest together: the server's state as a whole.
    pub digest: String,
    /// The skills fetched.
    pub skills: Vec<McpSkill>,
    /// The entries refused.
    pub refused: Vec<McpRefused>,
    /// Every entry listed that passed its checks, by folder: its manifest digest.
    pub listed: BTreeMap<String, String>,
    /// Whether the server listed more entries than are taken.
    pub truncated: bool,
}

/// Why an MCP fetch failed as a whole.
#[derive(Debug, thiserror::Error)]
pub enum McpFetchError {
    /// Talking to the server failed.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The whole fetch took too long.
    #[error("the MCP server took longer than {secs} s in all: stopped, nothing was kept")]
    TookTooLong {
        /// The limit.
        secs: u64,
    },
    /// A file could not be written to the scratch folder.
    #[error("could not write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The server asks for a token, or refused the one given.
    #[error("{url} {}", if *given { format!("refused the token in {var}: check it") } else { format!("asks for a token: set {var} to it (it is sent to this server alone, and never stored)") })]
    NeedsToken {
        /// The server's token variable.
        var: String,
        /// The endpoint, without credentials.
        url: String,
        /// Whether a token was sent.
        given: bool,
    },
    /// A token would go in clear text to another machine.
    #[error(
        "{var} is set, but {url} is plain http on another machine, where the token would travel readable: use the server's https:// address"
    )]
    TokenInClear {
        /// The variable.
        var: String,
        /// The endpoint, without credentials.
        url: String,
    },
    /// The fetch's own thread failed.
    #[error("the MCP client stopped unexpectedly: {0}")]
    Runtime(String),
}

impl McpFetchError {
    /// A stable code for scripts.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Session(e) => e.code(),
            Self::TookTooLong { .. } => "mcp_timeout",
            Self::TokenInClear { .. } => "mcp_token_in_clear",
            Self::NeedsToken { .. } => "mcp_needs_token",
            Self::Write { .. } | Self::Runtime(_) => "mcp_fetch_failed",
        }
    }
}

/// What to take from a server.
#[derive(Clone, Copy)]
pub struct Wanted<'a> {
    /// Whether to take an entry, given its folder and manifest digest; the others are only listed.
    pub entry: &'a (dyn Fn(&str, &str) -> bool + Sync),
    /// Skill URIs to ask for with `skills/get` when the listing does not hold them (a server
    /// may serve skills it does not list, or list more than are taken).
    pub uris: &'a [String],
}

/// Fetches the skills of `source` that `wanted` names into `tree`.
pub fn fetch(
    source: &McpSource,
    tree: &Path,
    options: McpOptions,
    wanted: Wanted<'_>,
) -> Result<McpFetched, McpFetchError> {
    let token = source.token()?;
    std::thread::scope(|scope| {
        let run = scope.spawn(|| {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| McpFetchError::Runtime(e.to_string()))?;
            runtime.block_on(async {
                let all = fetch_async(source, token.as_deref(), tree, options, wanted);
                match tokio::time::timeout(options.total, all).await {
                    Ok(result) => result,
                    Err(_) => Err(McpFetchError::TookTooLong { secs: options.total.as_secs().max(1) }),
                }
            })
        });
        run.join().map_err(|_| McpFetchError::Runtime("its thread panicked".to_owned()))?
    })
}

async fn fetch_async(
    source: &McpSource,
    token: Option<&str>,
    tree: &Path,
    options: McpOptions,
    wanted: Wanted<'_>,
) -> Result<McpFetched, McpFetchError> {
    let bounds = Bounds {
        request: options.request,
        max_file_bytes: options.skill.max_file_bytes,
        max_entries: options.max_entries,
    };
    let session = match Session::connect(&source.target, token, bounds).await {
        Err(SessionError::Handshake { reason, .. }) if is_auth(&reason) => {
            return Err(McpFetchError::NeedsToken {
                var: source.token_var(),
                url: source.recorded(),
                given: token.is_some(),
            });
        }
        connected => connected?,
    };
    let result = take(&session, source, tree, options, wanted).await;
    session.close().await;
    result
}

async fn take(
    session: &Session,
    source: &McpSource,
    tree: &Path,
    options: McpOptions,
    wanted: Wanted<'_>,
) -> Result<McpFetched, McpFetchError> {
    let (mut entries, truncated) = session.list().await?;
    let mut out = McpFetched { truncated, ..McpFetched::default() };
    for uri in wanted.uris {
        if entries.iter().any(|e| e.uri == *uri) {
            continue;
        }
        match session.get(uri).await {
            Ok(entry) => entries.push(entry),
            Err(e @ SessionError::Timeout { .. }) => return Err(e.into()),
            Err(e) => out.refused.push(McpRefused {
                path: uri.clone(),
                name: uri.clone(),
                code: "mcp_not_found",
                what: e.to_string(),
                fix: "check the URI: `skilldeck add SOURCE --dry-run` lists what the server publishes".to_owned(),
            }),
        }
    }
    let planned = plan_all(&entries, source, &mut out);
    let mut lines = String::new();
    for p in &planned {
        let manifest = p.manifest_digest();
        lines.push_str(&format!("{}\t{manifest}\n", p.path));
        out.listed.insert(p.path.clone(), manifest);
    }
    out.digest = entry::sha256(lines.as_bytes());
    let mut budget = options.max_bytes;
    for p in planned {
        let manifest = out.listed.get(&p.path).cloned().unwrap_or_default();
        if !(wanted.entry)(&p.path, &manifest) {
            continue;
        }
        let kept = source.kept_name(&p.name);
        let refuse =
            |code, what: String, fix: String| McpRefused { path: p.path.clone(), name: kept.clone(), code, what, fix };
        let sizes: Vec<(String, u64)> = p.files.iter().map(|f| (format!("{}/{}", p.path, f.rel), f.size)).collect();
        if let Some((_, over)) = oversized(&[p.path.as_str()], &sizes, &options.skill).into_iter().next() {
            out.refused.push(refuse(over.code(), over.what(), over.fix()));
            continue;
        }
        let bytes: u64 = p.files.iter().map(|f| f.size).sum();
        if bytes > budget {
            out.refused.push(refuse(
                "source_too_big",
                format!("the fetch reached its limit of {} bytes before this skill", options.max_bytes),
                "add fewer skills at a time (--skill NAME), or raise [sources] max_fetch_bytes".to_owned(),
            ));
            continue;
        }
        budget -= bytes;
        let dir = tree.join(&kept);
        match read_skill(session, &p, &kept).await? {
            Err((code, what)) => out.refused.push(refuse(
                code,
                what,
                "the server's bytes must match its manifest; ask its authors to fix it".to_owned(),
            )),
            Ok(files) => {
                write_skill(&dir, &files)?;
                out.skills.push(McpSkill { name: kept, path: p.path.clone(), dir, manifest });
            }
        }
    }
    Ok(out)
}

/// Each entry checked ([`entry::plan`]) and given the name it is kept under; those refused go
/// to `out` with why.
fn plan_all(entries: &[Skill], source: &McpSource, out: &mut McpFetched) -> Vec<Planned> {
    let mut planned: Vec<Planned> = Vec::new();
    let mut names = BTreeSet::new();
    for e in entries {
        let kept = source.kept_name(&e.frontmatter.name);
        let path = e.uri.strip_prefix("skill://").and_then(|p| p.strip_suffix("/SKILL.md")).unwrap_or(&e.uri);
        let refuse =
            |code, what: String, fix: String| McpRefused { path: path.to_owned(), name: kept.clone(), code, what, fix };
        match entry::plan(e) {
            Err(r) => out.refused.push(refuse(r.code(), r.what(e), r.fix())),
            Ok(_) if SkillName::parse(&kept).is_err() => out.refused.push(refuse(
                "mcp_name_unusable",
                format!("{kept} (the label {} and the skill's name) is not a usable skill name", source.label),
                format!("give the server a shorter label: mcp:LABEL={}", given_target(source)),
            )),
            Ok(_) if !names.insert(kept.clone()) => out.refused.push(refuse(
                "mcp_duplicate_name",
                format!("another entry of this server is also named {}", e.frontmatter.name),
                "the server has to give its skills distinct names".to_owned(),
            )),
            Ok(p) => planned.push(p),
        }
    }
    planned
}

/// Every file of `p` read and checked; `SKILL.md` renamed to `kept`. `Ok(Err(…))` refuses the
/// skill; `Err` stops the fetch (the server stopped answering).
async fn read_skill(
    session: &Session,
    p: &Planned,
    kept: &str,
) -> Result<Result<Vec<(String, Vec<u8>)>, (&'static str, String)>, McpFetchError> {
    let mut files = Vec::with_capacity(p.files.len());
    for f in &p.files {
        let bytes = match session.read(&f.uri).await {
            Ok(bytes) => bytes,
            Err(e @ SessionError::Timeout { .. }) => return Err(e.into()),
            Err(e) => return Ok(Err(("mcp_read_failed", e.to_string()))),
        };
        if let Some(m) = entry::mismatch(f, &bytes) {
            return Ok(Err(m));
        }
        let bytes = if f.rel == "SKILL.md" {
            match String::from_utf8(bytes) {
                Ok(text) => with_name(&text, kept).into_bytes(),
                Err(_) => return Ok(Err(("mcp_bad_skill_md", "its SKILL.md is not UTF-8 text".to_owned()))),
            }
        } else {
            bytes
        };
        files.push((f.rel.clone(), bytes));
    }
    Ok(Ok(files))
}

fn write_skill(dir: &Path, files: &[(String, Vec<u8>)]) -> Result<(), McpFetchError> {
    for (rel, bytes) in files {
        let path = dir.join(rel);
        let write = || -> std::io::Result<()> {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&path, bytes)
        };
        write().map_err(|source| McpFetchError::Write { path: path.clone(), source })?;
    }
    Ok(())
}

/// Whether a failed handshake was the server asking for credentials (rmcp's words for a 401).
fn is_auth(reason: &str) -> bool {
    ["Auth required", "401", "403", "nauthorized", "orbidden"].iter().any(|w| reason.contains(w))
}

/// The source's target as written after `mcp:` and a label, for a hint.
fn given_target(source: &McpSource) -> String {
    let rest = source.given.strip_prefix(super::server::PREFIX).unwrap_or(&source.given);
    match rest.split_once('=') {
        Some((label, target)) if label == source.label => target.to_owned(),
        _ => rest.to_owned(),
    }
}
