//! One source fetched into a scratch folder and searched: whichever fetcher its kind needs
//! (Git, a `.well-known` index, an archive or `SKILL.md` URL), then the skills found, each with
//! the provenance its revision will record, and what was left out and why. Holds the dispatch;
//! the fetchers are `git`, `wellknown` and `archive`, the search `discover`.

use crate::archive::{FetchError as UrlFetchError, fetch_archive, fetch_skill_md};
use crate::bytes::shown;
use crate::discover::{DiscoverOptions, Discovery, DiscoveryProblemKind, Plugin, RemotePlugin, discover};
use crate::git::{self, GitError, ProblemKind};
use crate::http::{HttpClient, HttpError, HttpOptions, shown_url};
use crate::limits::oversized;
use crate::mcp::{self, McpFetchError, McpOptions, McpSource};
use crate::redact;
use crate::source::{GitSource, Source, UrlSource};
use crate::wellknown::{self, Wanted, WellKnownError};
use skilldeck_skill::UploadLimits;
use skilldeck_skill::provenance::{Provenance, SourceKind};
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// How sources are fetched.
#[derive(Debug, Clone, Default)]
pub struct FetchConfig {
    /// Git: timeouts, tokens, and the limits of a whole fetch (which an archive is held to too).
    pub git: git::FetchOptions,
    /// HTTP: timeouts, body caps, redirects.
    pub http: HttpOptions,
    /// What one skill of a source may hold: a skill over it is refused by itself.
    pub skill: UploadLimits,
}

impl FetchConfig {
    /// The limits each skill fetched is held to (an index entry, a renamed copy, a check).
    pub fn limits(&self) -> UploadLimits {
        self.skill
    }

    /// The limits of a whole download that may hold many skills (an archive).
    fn whole(&self) -> UploadLimits {
        let tree = self.git.limits;
        UploadLimits { max_file_bytes: tree.max_file_bytes, max_total_bytes: tree.max_bytes, max_files: tree.max_files }
    }
}

/// One skill a source holds, fetched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The frontmatter's `name` when readable, else the folder's name.
    pub name: String,
    /// Its folder inside the source, `/`-separated (`.` for the top).
    pub path: String,
    /// Its folder on disk, under the scratch folder.
    pub dir: PathBuf,
    /// What its revision will record.
    pub provenance: Provenance,
}

impl Candidate {
    /// Whether `wanted` (`--skill`) names it: its name, or its path in the source; an MCP
    /// server's skill also answers to the server's own name for it and to its `skill://` URI.
    pub fn answers_to(&self, wanted: &str) -> bool {
        if self.name == wanted || self.path == wanted || self.provenance.path == wanted {
            return true;
        }
        self.provenance.kind == SourceKind::Mcp
            && (last(&self.path) == wanted || format!("skill://{}/SKILL.md", self.path) == wanted)
    }
}

/// Something of a source that was left out or cannot be trusted as it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// The path inside the source (or an index entry's name) it is about.
    pub path: String,
    /// What happened, in a sentence.
    pub what: String,
    /// When it keeps a skill out (the skill at `path` is refused): its name, a stable code and
    /// what would let it in.
    pub refused: Option<Refusal>,
    /// The marketplace plugin it is about, when that plugin lives in another repository
    /// Skilldeck can fetch (one of [`Fetched::elsewhere`]).
    pub elsewhere: Option<String>,
}

impl Note {
    /// Whether it keeps a skill out.
    pub fn refuses(&self) -> bool {
        self.refused.is_some()
    }

    fn left_out(path: String, what: String) -> Self {
        Self { path, what, refused: None, elsewhere: None }
    }
}

/// Why a skill of a source is not taken, for scripts and for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The skill's name: its frontmatter's `name` when readable, else its folder's (an index
    /// entry's name).
    pub name: String,
    /// A stable snake_case code: `skill_too_big`, `skill_file_too_big`, `skill_too_many_files`,
    /// `skill_link_leaves`, or an index entry's (`index_digest_mismatch`, …).
    pub code: &'static str,
    /// What would let it in, in a sentence: the setting to raise, or what has to change upstream.
    pub fix: String,
}

/// A source fetched into a scratch folder (removed when this is dropped).
#[derive(Debug)]
pub struct Fetched {
    _scratch: TempDir,
    /// The provenance of the source's top: its URL, ref, commit or digest, sub-path.
    pub origin: Provenance,
    /// The skills found, sorted by path.
    pub skills: Vec<Candidate>,
    /// A marketplace's plugins, as groups of skill paths.
    pub plugins: Vec<Plugin>,
    /// A marketplace's plugins whose skills live in another Git repository.
    pub elsewhere: Vec<RemotePlugin>,
    /// What was left out, and skills refused with why.
    pub notes: Vec<Note>,
}

impl Fetched {
    /// The candidates of plugin `name`, or `None` when the source has no such plugin.
    pub fn plugin(&self, name: &str) -> Option<Vec<&Candidate>> {
        let plugin = self.plugins.iter().find(|p| p.name == name)?;
        Some(self.skills.iter().filter(|c| plugin.skills.contains(&c.path)).collect())
    }

    /// The plugin `name` of the marketplace whose skills live in another repository.
    pub fn plugin_elsewhere(&self, name: &str) -> Option<&RemotePlugin> {
        self.elsewhere.iter().find(|p| p.name == name)
    }

    /// The first note refusing the skill at `path` (inside the source), if it was refused.
    pub fn refusal(&self, path: &str) -> Option<&Note> {
        self.notes.iter().find(|n| n.refuses() && n.path == path)
    }
}

/// Why a source could not be fetched at all.
#[derive(Debug, thiserror::Error)]
pub enum FetchSourceError {
    /// The Git fetch failed.
    #[error(transparent)]
    Git(#[from] GitError),
    /// The index could not be read.
    #[error(transparent)]
    Index(#[from] WellKnownError),
    /// The archive or `SKILL.md` could not be fetched.
    #[error(transparent)]
    Url(#[from] UrlFetchError),
    /// The HTTP client could not be made, or the address answered neither as Git nor as an index.
    #[error(transparent)]
    Http(#[from] HttpError),
    /// The address is neither a Git repository nor serves an index.
    #[error(
        "{url} is neither a Git repository ({git}) nor a site with a skills index ({index}); check the address, \
         or give the repository's .git URL or an archive URL"
    )]
    NeitherGitNorIndex {
        /// The URL as shown.
        url: String,
        /// What the Git probe said.
        git: String,
        /// What the index probe said.
        index: String,
    },
    /// The MCP server could not be asked.
    #[error(transparent)]
    Mcp(#[from] McpFetchError),
    /// The source holds no skill.
    #[error("{source_shown} holds no skill (no folder with a SKILL.md){hint}")]
    NoSkills {
        /// The source as shown.
        source_shown: String,
        /// What else was noticed, if anything.
        hint: String,
    },
    /// The scratch folder could not be made.
    #[error("could not make a scratch folder for the fetch: {0}")]
    Scratch(std::io::Error),
}

impl FetchSourceError {
    /// A stable code for scripts.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Git(e) => e.code(),
            Self::Index(e) => e.code(),
            Self::Url(UrlFetchError::Http(e)) | Self::Http(e) => e.code(),
            Self::Url(UrlFetchError::Archive(e)) => e.code(),
            Self::Url(_) => "source_fetch_failed",
            Self::Mcp(e) => e.code(),
            Self::NeitherGitNorIndex { .. } => "source_not_recognised",
            Self::NoSkills { .. } => "source_has_no_skills",
            Self::Scratch(_) => "source_scratch_failed",
        }
    }
}

/// Fetches `source` into a new scratch folder and finds its skills. `reference` overrides the
/// ref the source names (`--ref`). A skill that cannot be trusted as it stands (a link leaving
/// it) is left out and named in the notes; the others come in.
pub fn fetch(source: &Source, reference: Option<&str>, config: &FetchConfig) -> Result<Fetched, FetchSourceError> {
    // The source as logged: `given` is already stripped of credentials, and masked again here
    // so no token in a URL can reach a log line.
    let shown = redact::url(source.given());
    let _span = tracing::info_span!("fetch", source = %shown).entered();
    let started = std::time::Instant::now();
    let fetched = fetch_into_scratch(source, reference, config);
    let ms = started.elapsed().as_millis() as u64;
    match &fetched {
        Ok(f) => tracing::info!(
            skills = f.skills.len(), notes = f.notes.len(), resolved = %f.origin.short(), ms, "source fetched"
        ),
        Err(e) => tracing::warn!(code = e.code(), error = %e, ms, "source fetch failed"),
    }
    fetched
}

/// Like [`fetch`], for a caller that wants only the skills `names` name (by name or by path
/// inside the source; every skill when empty): a source that can fetch one skill without the
/// others (an MCP server, which reads each file with a request of its own) fetches only those.
pub fn fetch_named(
    source: &Source,
    reference: Option<&str>,
    config: &FetchConfig,
    names: &[String],
) -> Result<Fetched, FetchSourceError> {
    match source {
        Source::Mcp(server) if !names.is_empty() => {
            let named = |path: &str, _: &str| {
                let name = last(path);
                let uri = format!("skill://{path}/SKILL.md");
                names.iter().any(|n| *n == path || *n == name || *n == uri || *n == server.kept_name(&name))
            };
            let uris: Vec<String> = names.iter().filter(|n| n.starts_with("skill://")).cloned().collect();
            fetch_mcp_some(server, config, mcp::Wanted { entry: &named, uris: &uris }).map(|(fetched, _)| fetched)
        }
        _ => fetch(source, reference, config),
    }
}

fn fetch_into_scratch(
    source: &Source,
    reference: Option<&str>,
    config: &FetchConfig,
) -> Result<Fetched, FetchSourceError> {
    let scratch = tempfile::Builder::new().prefix("skilldeck-source-").tempdir().map_err(FetchSourceError::Scratch)?;
    // The folder is named as the source names its top, since a skill whose frontmatter has no
    // usable name is named after its folder.
    let tree = scratch.path().join(top_name(source));
    let fetched = match source {
        Source::Git(git) => fetch_git(git, reference, &tree, config)?,
        Source::Http(url) => fetch_http(url, reference, &tree, config)?,
        Source::Archive(url) => fetch_url(url, &tree, config, true)?,
        Source::SkillFile(url) => fetch_url(url, &tree, config, false)?,
        Source::Mcp(server) => fetch_mcp(server, &tree, config, mcp::Wanted { entry: &|_, _| true, uris: &[] })?.0,
    };
    let Partial { origin, skills, plugins, elsewhere, notes } = fetched;
    // A marketplace naming only plugins that live elsewhere holds no skill itself, but is a
    // source all the same: each of those plugins can be added from it.
    if skills.is_empty() && elsewhere.is_empty() {
        let hint = match notes.iter().find(|n| n.refuses()) {
            Some(n) => format!("; {} was refused: {}", n.path, n.what),
            None => String::new(),
        };
        return Err(FetchSourceError::NoSkills { source_shown: origin.short(), hint });
    }
    // An MCP server's skills are written each to a folder of its own, never one inside another.
    let skills = if origin.kind == SourceKind::Mcp {
        skills
    } else {
        separate_nested(scratch.path(), skills).map_err(FetchSourceError::Scratch)?
    };
    Ok(Fetched { _scratch: scratch, origin, skills, plugins, elsewhere, notes })
}

/// What a fetcher found, before the scratch folder is attached.
struct Partial {
    origin: Provenance,
    skills: Vec<Candidate>,
    plugins: Vec<Plugin>,
    elsewhere: Vec<RemotePlugin>,
    notes: Vec<Note>,
}

fn fetch_git(
    git: &GitSource,
    reference: Option<&str>,
    tree: &Path,
    config: &FetchConfig,
) -> Result<Partial, FetchSourceError> {
    let reference = reference.map(str::to_owned).or_else(|| git.reference.clone());
    let snapshot = git::fetch(&git.url, reference.as_deref(), git.subpath.as_deref(), tree, &config.git)?;
    let pinned = reference.is_some() && !snapshot.reference_resolved.starts_with("refs/heads/");
    let origin = Provenance {
        kind: SourceKind::Git,
        given: git.given.clone(),
        url: redact::strip(&git.url),
        reference,
        pinned,
        resolved: snapshot.commit.clone(),
        path: git.subpath.clone().unwrap_or_else(|| ".".to_owned()),
    };
    // A file too big for any skill is not written: the skill holding it is refused for it below,
    // and one in no skill's folder is said to be left out.
    let mut too_big: Vec<(String, u64, u64)> = Vec::new();
    let mut notes: Vec<Note> = Vec::new();
    for p in &snapshot.problems {
        let what = match &p.kind {
            ProblemKind::Symlink { target, .. } => format!("a link to {target}: links are not installed"),
            ProblemKind::Submodule { commit } => {
                format!("a submodule (at {}): submodules are not fetched", short(commit))
            }
            ProblemKind::LfsPointer => {
                "a Git LFS pointer, not the file: the repository keeps this file in LFS, which Skilldeck does not fetch"
                    .to_owned()
            }
            ProblemKind::UnsafeName => "a name that cannot be written safely: left out".to_owned(),
            ProblemKind::TooBig { size, limit } => {
                too_big.push((p.path.clone(), *size, *limit));
                continue;
            }
        };
        notes.push(Note::left_out(origin.below(&p.path).path, what));
    }
    let links: Vec<(String, String)> = snapshot
        .problems
        .iter()
        .filter_map(|p| match &p.kind {
            ProblemKind::Symlink { target, .. } => Some((p.path.clone(), target.clone())),
            _ => None,
        })
        .collect();
    let mut discovery = discover(&snapshot.dir, &DiscoverOptions::default());
    let leaving = discovery.symlinks_leaving_skills(links.iter().map(|(l, t)| (l.as_str(), t.as_str())));
    discovery.problems.extend(leaving);
    for (path, size, limit) in too_big {
        if !discovery.skills.iter().any(|f| f.path == "." || path.starts_with(&format!("{}/", f.path))) {
            let what = format!("{} is over the limit of {} a file: not written", shown(size), shown(limit));
            notes.push(Note::left_out(origin.below(&path).path, what));
        }
    }
    Ok(partial(origin, discovery, &mut notes, &snapshot.sizes, &config.skill))
}

/// The candidates and notes of a discovery: a skill over the limits of one skill (its files'
/// `sizes` counted), or holding a link that leaves it, is refused; the others come in.
fn partial(
    origin: Provenance,
    discovery: Discovery,
    notes: &mut Vec<Note>,
    sizes: &[(String, u64)],
    limits: &UploadLimits,
) -> Partial {
    let name_of =
        |path: &str| discovery.skills.iter().find(|f| f.path == path).map_or_else(|| last(path), |f| f.name.clone());
    let paths: Vec<&str> = discovery.skills.iter().map(|f| f.path.as_str()).collect();
    let mut refused: Vec<String> = Vec::new();
    for (path, over) in oversized(&paths, sizes, limits) {
        let refusal = Refusal { name: name_of(&path), code: over.code(), fix: over.fix() };
        notes.push(Note { path: origin.below(&path).path, what: over.what(), refused: Some(refusal), elsewhere: None });
        refused.push(path);
    }
    for problem in &discovery.problems {
        let (path, what, refusal) = match &problem.kind {
            DiscoveryProblemKind::SymlinkLeavesSkill { target, skill } => {
                refused.push(skill.clone());
                let refusal = Refusal {
                    name: name_of(skill),
                    code: "skill_link_leaves",
                    fix: format!(
                        "Links are never installed, and this one would reach outside the skill: it comes in once {} is a plain file inside it (upstream, or in a fork you add instead)",
                        problem.path
                    ),
                };
                (
                    skill.clone(),
                    format!("its link {} points out of the skill (to {target})", problem.path),
                    Some(refusal),
                )
            }
            DiscoveryProblemKind::BadMarketplace { reason } => {
                (problem.path.clone(), format!("the marketplace file could not be read: {reason}"), None)
            }
            DiscoveryProblemKind::RemotePlugin { plugin, source: Some(source) } => (
                problem.path.clone(),
                format!("plugin {plugin} lives in {source}; `--plugin {plugin}` adds its skills from there"),
                None,
            ),
            DiscoveryProblemKind::RemotePlugin { plugin, source: None } => (
                problem.path.clone(),
                format!("plugin {plugin} lives in another repository; add that repository itself"),
                None,
            ),
            DiscoveryProblemKind::SchemeRefused { plugin, url } => (
                problem.path.clone(),
                format!(
                    "plugin {plugin} names {url}, an address a marketplace may not name (only https:// and http://): \
                     not followed; add that repository yourself if you trust it"
                ),
                None,
            ),
            DiscoveryProblemKind::PathLeavesTree { plugin } => {
                (problem.path.clone(), format!("plugin {plugin} points out of the repository: ignored"), None)
            }
            DiscoveryProblemKind::MissingSkill { plugin } => {
                (problem.path.clone(), format!("plugin {plugin} names a skill that is not there"), None)
            }
            DiscoveryProblemKind::TooManySkills { limit } => {
                (problem.path.clone(), format!("the search stopped after {limit} skills; name a path to add"), None)
            }
        };
        let elsewhere = match &problem.kind {
            DiscoveryProblemKind::RemotePlugin { plugin, source: Some(_) } => Some(plugin.clone()),
            _ => None,
        };
        notes.push(Note { path: origin.below(&path).path, what, refused: refusal, elsewhere });
    }
    let skills = discovery
        .skills
        .into_iter()
        .filter(|f| !refused.contains(&f.path))
        .map(|f| Candidate { provenance: origin.below(&f.path), name: f.name, path: f.path, dir: f.dir })
        .collect();
    Partial { origin, skills, plugins: discovery.plugins, elsewhere: discovery.elsewhere, notes: std::mem::take(notes) }
}

/// A URL that is not plainly Git: a Git repository over smart HTTP when it answers as one,
/// else a `.well-known/agent-skills` index.
fn fetch_http(
    url: &UrlSource,
    reference: Option<&str>,
    tree: &Path,
    config: &FetchConfig,
) -> Result<Partial, FetchSourceError> {
    let git = GitSource { given: url.given.clone(), url: url.url.to_string(), reference: None, subpath: None };
    let git_error = match git::remote_refs(&git.url, &config.git) {
        Ok(_) => return fetch_git(&git, reference, tree, config),
        Err(e @ (GitError::NeedsCredentials { .. } | GitError::Timeout { .. } | GitError::Unreachable { .. })) => {
            return Err(e.into());
        }
        Err(e) => e,
    };
    let client = HttpClient::new(config.http.clone())?;
    let listing = match wellknown::list_index(&client, url.url.as_str()) {
        Ok(listing) => listing,
        Err(WellKnownError::Http(HttpError::NotFound { .. })) => {
            return Err(FetchSourceError::NeitherGitNorIndex {
                url: shown_url(&url.url),
                git: git_error.to_string(),
                index: "no .well-known/agent-skills/index.json".to_owned(),
            });
        }
        Err(e) => return Err(e.into()),
    };
    let fetched = wellknown::fetch_entries(&client, &listing, &Wanted::All, tree, config.limits())?;
    let origin = Provenance {
        kind: SourceKind::Index,
        given: url.given.clone(),
        url: recorded(&wellknown::index_url(url.url.as_str()).unwrap_or_else(|_| fetched.index_url.clone())),
        reference: None,
        pinned: false,
        resolved: fetched.index_digest.to_string(),
        path: ".".to_owned(),
    };
    let skills = fetched
        .entries
        .iter()
        .filter_map(|e| {
            let dir = e.dir.clone()?;
            let name = e.name.as_str().to_owned();
            let provenance = Provenance { resolved: e.digest.to_string(), ..origin.below(&name) };
            Some(Candidate { name: name.clone(), path: name, dir, provenance })
        })
        .collect();
    let notes = fetched
        .refused
        .iter()
        .map(|r| Note {
            path: r.name.clone(),
            what: r.reason.to_string(),
            refused: Some(Refusal { name: r.name.clone(), code: r.reason.code(), fix: r.reason.fix() }),
            elsewhere: None,
        })
        .collect();
    Ok(Partial { origin, skills, plugins: Vec::new(), elsewhere: Vec::new(), notes })
}

/// How an MCP fetch is bounded: Git's request and whole-fetch times, the limits of a skill and of
/// a whole fetch, and as many entries as a repository may hold skills.
fn mcp_options(config: &FetchConfig) -> McpOptions {
    McpOptions {
        request: config.git.read_timeout,
        total: config.git.total_timeout,
        skill: config.skill,
        max_bytes: config.git.limits.max_bytes,
        max_entries: DiscoverOptions::default().max_skills,
    }
}

/// An MCP server's skills for which `wanted` (a skill's folder and manifest digest) says yes,
/// and every entry listed with its manifest digest (for `outdated`).
fn fetch_mcp(
    server: &McpSource,
    tree: &Path,
    config: &FetchConfig,
    wanted: mcp::Wanted<'_>,
) -> Result<(Partial, std::collections::BTreeMap<String, String>), FetchSourceError> {
    let fetched = mcp::fetch(server, tree, mcp_options(config), wanted)?;
    let origin = Provenance {
        kind: SourceKind::Mcp,
        given: server.given.clone(),
        url: server.recorded(),
        reference: None,
        pinned: false,
        resolved: fetched.digest.clone(),
        path: ".".to_owned(),
    };
    let skills = fetched
        .skills
        .into_iter()
        .map(|s| Candidate {
            provenance: Provenance { resolved: s.manifest, ..origin.below(&s.path) },
            name: s.name,
            path: s.path,
            dir: s.dir,
        })
        .collect();
    let mut notes: Vec<Note> = fetched
        .refused
        .into_iter()
        .map(|r| Note {
            path: r.path,
            what: r.what,
            refused: Some(Refusal { name: r.name, code: r.code, fix: r.fix }),
            elsewhere: None,
        })
        .collect();
    if fetched.truncated {
        let limit = DiscoverOptions::default().max_skills;
        notes.push(Note::left_out(
            ".".to_owned(),
            format!("the server lists more than {limit} skills: only the first {limit} were taken"),
        ));
    }
    Ok((Partial { origin, skills, plugins: Vec::new(), elsewhere: Vec::new(), notes }, fetched.listed))
}

/// Fetches from the MCP server `server` only the skills `wanted` names, into a new scratch
/// folder; with every entry listed, by folder, with its manifest digest. A source with no skill
/// fetched is no error here.
pub fn fetch_mcp_some(
    server: &McpSource,
    config: &FetchConfig,
    wanted: mcp::Wanted<'_>,
) -> Result<(Fetched, std::collections::BTreeMap<String, String>), FetchSourceError> {
    let scratch = tempfile::Builder::new().prefix("skilldeck-source-").tempdir().map_err(FetchSourceError::Scratch)?;
    let tree = scratch.path().join("tree");
    let (Partial { origin, skills, plugins, elsewhere, notes }, listed) = fetch_mcp(server, &tree, config, wanted)?;
    Ok((Fetched { _scratch: scratch, origin, skills, plugins, elsewhere, notes }, listed))
}

/// An archive (`archive`) or one `SKILL.md` at a URL.
fn fetch_url(url: &UrlSource, tree: &Path, config: &FetchConfig, archive: bool) -> Result<Partial, FetchSourceError> {
    let client = HttpClient::new(config.http.clone())?;
    // The URL asked is recorded, not where a redirect led (a signed, short-lived CDN address).
    let (kind, digest, root) = if archive {
        let e = fetch_archive(&client, &url.url, tree, config.whole())?;
        (SourceKind::Archive, e.digest, e.dir)
    } else {
        std::fs::create_dir_all(tree).map_err(FetchSourceError::Scratch)?;
        let f = fetch_skill_md(&client, &url.url, tree, config.limits())?;
        (SourceKind::SkillMd, f.digest, tree.to_path_buf())
    };
    let origin = Provenance {
        kind,
        given: url.given.clone(),
        url: recorded(&url.url),
        reference: None,
        pinned: false,
        resolved: digest.to_string(),
        path: ".".to_owned(),
    };
    let discovery = discover(&root, &DiscoverOptions::default());
    let sizes = sizes_on_disk(&root).map_err(FetchSourceError::Scratch)?;
    Ok(partial(origin, discovery, &mut Vec::new(), &sizes, &config.skill))
}

/// Every plain file under `root` with its size, `/`-separated paths relative to it (links are
/// not followed, and an unpacked archive holds none).
fn sizes_on_disk(root: &Path) -> std::io::Result<Vec<(String, u64)>> {
    let mut out = Vec::new();
    let mut stack = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, prefix)) = stack.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = if prefix.is_empty() { name } else { format!("{prefix}/{name}") };
            let kind = entry.file_type()?;
            if kind.is_dir() {
                stack.push((entry.path(), path));
            } else if kind.is_file() {
                out.push((path, entry.metadata()?.len()));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// A skill whose folder holds skills found on their own (`skills/x/` below a root `SKILL.md`)
/// is copied without their folders, so that each file belongs to one skill: discovery counts
/// those as skills of their own, not as files of the outer one.
fn separate_nested(scratch: &Path, mut skills: Vec<Candidate>) -> std::io::Result<Vec<Candidate>> {
    let paths: Vec<String> = skills.iter().map(|c| c.path.clone()).collect();
    for (i, c) in skills.iter_mut().enumerate() {
        let inner: Vec<PathBuf> = paths.iter().filter_map(|p| inside(p, &c.path)).map(PathBuf::from).collect();
        if inner.is_empty() {
            continue;
        }
        let name = c.dir.file_name().map_or_else(|| "skill".into(), ToOwned::to_owned);
        let dest = scratch.join(format!("outer-{i}")).join(name);
        copy_without(&c.dir, &dest, Path::new(""), &inner)?;
        c.dir = dest;
    }
    Ok(skills)
}

/// `path` relative to `dir` when it is strictly inside it (paths as in [`Candidate::path`]).
fn inside<'a>(path: &'a str, dir: &str) -> Option<&'a str> {
    if path == dir || path == "." {
        return None;
    }
    if dir == "." {
        return Some(path);
    }
    path.strip_prefix(dir)?.strip_prefix('/')
}

/// Copies the folders and plain files of `from` into `to`, leaving out the paths in `skip`
/// (relative to the top of the copy; `rel` is where `from` stands in it).
fn copy_without(from: &Path, to: &Path, rel: &Path, skip: &[PathBuf]) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let here = rel.join(entry.file_name());
        if skip.contains(&here) {
            continue;
        }
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_without(&entry.path(), &to.join(entry.file_name()), &here, skip)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name()))?;
        }
    }
    Ok(())
}

/// The name the source gives its top: a Git sub-path's last folder, else the repository's
/// name; an archive's name without its extension; `tree` when none is a safe folder name.
fn top_name(source: &Source) -> String {
    let last = |path: &str| path.trim_end_matches('/').rsplit(['/', ':']).next().unwrap_or_default().to_owned();
    let name = match source {
        Source::Git(git) => match &git.subpath {
            Some(sub) => last(sub),
            None => {
                let repo = last(&git.url);
                repo.strip_suffix(".git").map_or(repo.clone(), str::to_owned)
            }
        },
        Source::Archive(url) => {
            let file = last(url.url.path());
            let lower = file.to_ascii_lowercase();
            [".tar.gz", ".tgz", ".tar", ".zip", ".skill"]
                .iter()
                .find_map(|end| lower.strip_suffix(end).map(|stem| file[..stem.len()].to_owned()))
                .unwrap_or(file)
        }
        Source::Http(_) | Source::SkillFile(_) | Source::Mcp(_) => String::new(),
    };
    let name = name.to_ascii_lowercase();
    let safe = !name.is_empty()
        && name != "."
        && name != ".."
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    if safe { name } else { "tree".to_owned() }
}

/// The URL a fetch of `source` records as its provenance's `url` when it turns out to be of
/// `kind` (an `http(s)` address is probed, and may be Git or an index); `None` when `source`
/// cannot be of that kind. A lockfile entry whose `url` is not this for its `given` was changed
/// by hand.
pub fn recorded_url(source: &Source, kind: SourceKind) -> Option<String> {
    match (source, kind) {
        (Source::Git(git), SourceKind::Git) => Some(redact::strip(&git.url)),
        (Source::Http(url), SourceKind::Git) => Some(redact::strip(url.url.as_str())),
        (Source::Http(url), SourceKind::Index) => wellknown::index_url(url.url.as_str()).ok().map(|i| recorded(&i)),
        (Source::Archive(url), SourceKind::Archive) | (Source::SkillFile(url), SourceKind::SkillMd) => {
            Some(recorded(&url.url))
        }
        (Source::Mcp(server), SourceKind::Mcp) => Some(server.recorded()),
        _ => None,
    }
}

/// A fetched URL as its provenance records it: without credentials (a user name, a token in
/// the query) or fragment, its other query parameters kept so a check can fetch it again.
fn recorded(url: &url::Url) -> String {
    let mut url = url.clone();
    url.set_fragment(None);
    redact::strip(url.as_str())
}

/// The last folder of `path` (`/`-separated).
fn last(path: &str) -> String {
    path.rsplit('/').next().unwrap_or(path).to_owned()
}

fn short(commit: &str) -> &str {
    commit.get(..7).unwrap_or(commit)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::{inside, top_name};
    use crate::{Hosts, Source};

    #[test]
    fn the_top_is_named_as_the_source_names_it() {
        let name = |text: &str| top_name(&Source::parse(text, &Hosts::default()).unwrap());
        assert_eq!(name("owner/repo/skills/PDF@v1"), "pdf");
        assert_eq!(name("owner/my-skill"), "my-skill");
        assert_eq!(name("git@example.com:team/review.git"), "review");
        assert_eq!(name("https://example.com/dl/csv-tools.tar.gz"), "csv-tools");
        assert_eq!(name("https://example.com/dl/Notes.ZIP"), "notes");
        assert_eq!(name("https://example.com/x/SKILL.md"), "tree");
        assert_eq!(name("https://example.com/"), "tree");
    }

    #[test]
    fn inside_is_strictly_below() {
        assert_eq!(inside("skills/x", "."), Some("skills/x"));
        assert_eq!(inside("a/skills/x", "a"), Some("skills/x"));
        assert_eq!(inside("ab/x", "a"), None);
        assert_eq!(inside("a", "a"), None);
        assert_eq!(inside(".", "."), None);
    }
}
