//! The network half: connecting with credentials and timeouts, listing a remote's refs, and a
//! shallow fetch of one ref into a scratch bare repository whose tree `tree.rs` then writes.
//! It never runs hooks or checks anything out: the scratch repository has no work tree.

use std::num::NonZeroU32;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use gix::ObjectId;
use gix::protocol::handshake::Ref;
use gix::protocol::transport::client::blocking_io::http;
use gix::remote::Direction;
use gix::remote::fetch::refmap::Source;
use gix::remote::fetch::{Shallow, Tags};

use super::auth::{self, Tried};
use super::error::classify;
use super::meter::PackMeter;
use super::tree::{self, Origin};
use super::{FetchOptions, GitError, RemoteRef, Snapshot};
use crate::bytes::shown;
use crate::redact;

/// What a fetch asks the remote for.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Want {
    /// The remote's `HEAD`.
    Head,
    /// A full ref name, `refs/…`.
    Full(String),
    /// A branch or a tag of this name.
    Short(String),
    /// A commit by its full id.
    Commit(ObjectId),
}

impl Want {
    fn of(reference: Option<&str>) -> Self {
        match reference {
            None | Some("HEAD") => Want::Head,
            Some(r) if r.starts_with("refs/") => Want::Full(r.to_string()),
            Some(r) => match ObjectId::from_hex(r.as_bytes()) {
                Ok(id) if r.len() == 40 => Want::Commit(id),
                _ => Want::Short(r.to_string()),
            },
        }
    }

    fn refspecs(&self) -> Vec<String> {
        match self {
            Want::Head => vec!["+HEAD:refs/skilldeck/head".into()],
            Want::Full(name) => vec![format!("+{name}:refs/skilldeck/ref")],
            Want::Short(name) => {
                vec![
                    format!("+refs/heads/{name}:refs/skilldeck/branch"),
                    format!("+refs/tags/{name}:refs/skilldeck/tag"),
                ]
            }
            Want::Commit(id) => vec![format!("+{id}:refs/skilldeck/commit")],
        }
    }
}

/// One URL as gix takes it, as it may be shown, and the userinfo to keep out of messages.
struct Target {
    url: gix::Url,
    shown: String,
    secret: Option<String>,
}

impl Target {
    fn new(url: &str) -> Result<Self, GitError> {
        let shown = redact::url(url);
        let secret = url.split_once("://").and_then(|(_, rest)| {
            let authority = &rest[..rest.find('/').unwrap_or(rest.len())];
            authority.rfind('@').map(|at| authority[..at].to_string())
        });
        let parsed = gix::url::parse(gix::bstr::BStr::new(url))
            .map_err(|e| GitError::Other { url: shown.clone(), detail: format!("not a Git URL: {e}") })?;
        Ok(Self { url: parsed, shown, secret })
    }

    fn error(&self, error: &gix::Error, opts: &FetchOptions, tried: &Tried) -> GitError {
        classify(error, &self.shown, self.secret.as_deref(), opts.read_timeout, tried.get())
    }
}

/// The refs of the remote at `url`, as `git ls-remote` lists them (one round trip), sorted by name.
/// Bounded by [`FetchOptions::total_timeout`] as a whole.
pub fn remote_refs(url: &str, opts: &FetchOptions) -> Result<Vec<RemoteRef>, GitError> {
    let (url, opts) = (url.to_owned(), opts.clone());
    within_total(&url.clone(), opts.total_timeout, move |_| {
        let target = Target::new(&url)?;
        let scratch = scratch()?;
        let repo = open_scratch(scratch.path(), &target)?;
        list(&repo, &target, &opts)
    })
}

/// Fetches `reference` (a branch, tag, `refs/…` name or full commit id; `None` for the remote's
/// `HEAD`) from `url`, shallow, and writes its tree, or only its folder `subpath`, under `dest`
/// (created; it must be empty if it exists). The scratch repository is removed afterwards.
/// Bounded by [`FetchOptions::total_timeout`] as a whole: a server that keeps sending a byte now
/// and then is given up all the same.
pub fn fetch(
    url: &str,
    reference: Option<&str>,
    subpath: Option<&str>,
    dest: &Path,
    opts: &FetchOptions,
) -> Result<Snapshot, GitError> {
    let (url, reference, subpath) = (url.to_owned(), reference.map(str::to_owned), subpath.map(str::to_owned));
    let (dest, opts) = (dest.to_path_buf(), opts.clone());
    within_total(&url.clone(), opts.total_timeout, move |stop| {
        fetch_within(&url, reference.as_deref(), subpath.as_deref(), &dest, &opts, &stop)
    })
}

/// Runs `work` on a thread of its own and waits for it at most `total`. Past that, `work` is
/// told to stop (the flag it is handed; gitoxide stops receiving the pack when it is set, and
/// nothing is written after it) and the caller gets [`GitError::TookTooLong`] at once, whatever
/// the thread is still waiting on (that wait is bounded by the read timeout).
fn within_total<T: Send + 'static>(
    url: &str,
    total: std::time::Duration,
    work: impl FnOnce(Arc<AtomicBool>) -> Result<T, GitError> + Send + 'static,
) -> Result<T, GitError> {
    let stop = Arc::new(AtomicBool::new(false));
    let (sender, receiver) = std::sync::mpsc::channel();
    let for_work = Arc::clone(&stop);
    let spawned = std::thread::Builder::new().name("skilldeck-git-fetch".into()).spawn(move || {
        let _ = sender.send(work(for_work));
    });
    let shown = redact::url(url);
    if let Err(e) = spawned {
        return Err(GitError::Other { url: shown, detail: format!("could not start the fetch: {e}") });
    }
    match receiver.recv_timeout(total) {
        Ok(result) => result,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            stop.store(true, Ordering::SeqCst);
            Err(GitError::TookTooLong { url: shown, total })
        }
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            Err(GitError::Other { url: shown, detail: "the fetch ended without an answer".to_owned() })
        }
    }
}

/// [`fetch`] on its own thread; `stop` says the caller has given up.
fn fetch_within(
    url: &str,
    reference: Option<&str>,
    subpath: Option<&str>,
    dest: &Path,
    opts: &FetchOptions,
    stop: &Arc<AtomicBool>,
) -> Result<Snapshot, GitError> {
    let target = Target::new(url)?;
    let scratch = scratch()?;
    let repo = open_scratch(scratch.path(), &target)?;
    let want = Want::of(reference);
    let (commit, reference_resolved) = match fetch_want(&repo, &target, &want, opts, stop) {
        Ok(found) => found,
        Err(Fetched::Git(error)) => return Err(error),
        Err(Fetched::NoMatch) => return Err(no_match(&repo, &target, &want, opts)),
        Err(Fetched::Refused(error)) => match &want {
            Want::Commit(id) => by_ref_pointing_at(&repo, &target, *id, opts, error, stop)?,
            _ => return Err(error),
        },
    };
    if stop.load(Ordering::SeqCst) {
        // The caller has given up and may have removed `dest` already: write nothing.
        return Err(GitError::TookTooLong { url: target.shown.clone(), total: opts.total_timeout });
    }
    let commit_hex = commit.to_string();
    let tree = repo
        .find_commit(commit)
        .and_then(|c| c.tree_id().map(gix::Id::detach))
        .map_err(|e| GitError::Other { url: target.shown.clone(), detail: e.to_string() })?;
    let origin = Origin { url: &target.shown, commit: &commit_hex };
    let written = tree::write(&repo, tree, subpath, dest, &opts.limits, &origin)?;
    Ok(Snapshot {
        commit: commit_hex,
        reference_resolved,
        dir: dest.to_path_buf(),
        problems: written.problems,
        sizes: written.sizes,
    })
}

/// How one fetch attempt ended short of a commit.
enum Fetched {
    /// The remote has nothing matching the ref asked for.
    NoMatch,
    /// The remote refused or failed during the pack exchange (e.g. a commit it will not serve by id).
    Refused(GitError),
    /// The connection or ref listing failed.
    Git(GitError),
}

/// Fetches `want` shallow; the commit it resolved to and the ref it resolved through. The pack is
/// held to [`TreeLimits::max_bytes`](super::TreeLimits::max_bytes) as it is received.
fn fetch_want(
    repo: &gix::Repository,
    target: &Target,
    want: &Want,
    opts: &FetchOptions,
    stop: &Arc<AtomicBool>,
) -> Result<(ObjectId, String), Fetched> {
    let tried = Tried::default();
    let fail = |e: gix::Error| Fetched::Git(target.error(&e, opts, &tried));
    let remote = repo
        .remote_at(target.url.clone())
        .and_then(|r| {
            r.with_fetch_tags(Tags::None).with_refspecs(want.refspecs().iter().map(String::as_str), Direction::Fetch)
        })
        .map_err(fail)?;
    let mut connection = remote.connect(Direction::Fetch).map_err(fail)?;
    connection.set_credentials(auth::authenticate(repo, &target.url, &opts.tokens, tried.clone()));
    if let Some(options) = transport_options(repo, target, opts).map_err(fail)? {
        connection.set_transport_options(options);
    }
    let prepare = connection.prepare_fetch(gix::progress::Discard, Default::default()).map_err(fail)?;
    let chosen = choose(&prepare.ref_map().mappings).ok_or(Fetched::NoMatch)?;
    let (object, resolved) = match &chosen {
        Source::ObjectId(id) => (*id, id.to_string()),
        Source::Ref(r) => resolved_name(r).ok_or(Fetched::NoMatch)?,
    };
    let depth = Shallow::DepthAtRemote(NonZeroU32::MIN);
    let meter = PackMeter::new(pack_cap(opts.limits.max_bytes), Arc::clone(stop));
    let received = prepare.with_shallow(depth).receive(meter.clone(), stop);
    if let Some(bytes) = meter.over() {
        return Err(Fetched::Git(GitError::TooBig {
            url: target.shown.clone(),
            commit: object.to_string(),
            what: format!(
                "the download passed {} and was stopped, over the limit of {} a fetch",
                shown(bytes),
                shown(opts.limits.max_bytes)
            ),
            fix: tree::fetch_fix(opts.limits.max_bytes, None),
        }));
    }
    received.map_err(|e| Fetched::Refused(target.error(&e, opts, &tried)))?;
    let commit = repo
        .find_object(object)
        .and_then(|o| o.peel_to_commit())
        .map_err(|e| Fetched::Git(GitError::Other { url: target.shown.clone(), detail: e.to_string() }))?;
    Ok((commit.id, resolved))
}

/// The mapping to fetch: the first ref-spec's (a branch before a tag of the same name).
fn choose(mappings: &[gix::remote::fetch::refmap::Mapping]) -> Option<Source> {
    let index = |m: &&gix::remote::fetch::refmap::Mapping| match m.spec_index {
        gix::remote::fetch::refmap::SpecIndex::ExplicitInRemote(i)
        | gix::remote::fetch::refmap::SpecIndex::Implicit(i) => i,
    };
    mappings.iter().min_by_key(index).map(|m| m.remote.clone())
}

/// The object a ref points at and the name it resolves through (`HEAD`'s target when symbolic).
fn resolved_name(r: &Ref) -> Option<(ObjectId, String)> {
    match r {
        Ref::Symbolic { target, tag, object, .. } => Some((tag.unwrap_or(*object), target.to_string())),
        Ref::Direct { full_ref_name, object } => Some((*object, full_ref_name.to_string())),
        Ref::Peeled { full_ref_name, tag, .. } => Some((*tag, full_ref_name.to_string())),
        Ref::Unborn { .. } => None,
    }
}

/// The error for a ref the remote does not have, listing some it does.
fn no_match(repo: &gix::Repository, target: &Target, want: &Want, opts: &FetchOptions) -> GitError {
    let refs = match list(repo, target, opts) {
        Ok(refs) => refs,
        Err(error) => return error,
    };
    let reference = match want {
        Want::Head => "HEAD".to_string(),
        Want::Full(name) | Want::Short(name) => name.clone(),
        Want::Commit(id) => id.to_string(),
    };
    let looks_abbreviated =
        reference.len() >= 4 && reference.len() < 40 && reference.bytes().all(|b| b.is_ascii_hexdigit());
    if looks_abbreviated {
        return GitError::AbbreviatedCommit { url: target.shown.clone(), reference };
    }
    let mut existing: Vec<String> = refs
        .iter()
        .filter_map(|r| r.name.strip_prefix("refs/heads/").or_else(|| r.name.strip_prefix("refs/tags/")))
        .map(str::to_string)
        .collect();
    existing.dedup();
    existing.truncate(10);
    GitError::RefNotFound { url: target.shown.clone(), reference, existing }
}

/// When the server will not send `commit` by id: fetch a branch or tag pointing at it instead.
fn by_ref_pointing_at(
    repo: &gix::Repository,
    target: &Target,
    commit: ObjectId,
    opts: &FetchOptions,
    refused: GitError,
    stop: &Arc<AtomicBool>,
) -> Result<(ObjectId, String), GitError> {
    if !matches!(refused, GitError::Other { .. } | GitError::NotARepository { .. }) {
        return Err(refused);
    }
    let hex = commit.to_string();
    let refs = list(repo, target, opts)?;
    let Some(name) = refs
        .iter()
        .filter(|r| r.name.starts_with("refs/heads/") || r.name.starts_with("refs/tags/"))
        .find(|r| r.peeled.as_deref().unwrap_or(&r.oid) == hex)
        .map(|r| r.name.clone())
    else {
        return Err(GitError::CommitNotServed { url: target.shown.clone(), commit: hex });
    };
    match fetch_want(repo, target, &Want::Full(name.clone()), opts, stop) {
        Ok((found, _)) if found == commit => Ok((commit, hex)),
        Ok(_) | Err(Fetched::NoMatch | Fetched::Refused(_)) => {
            Err(GitError::CommitNotServed { url: target.shown.clone(), commit: hex })
        }
        Err(Fetched::Git(error)) => Err(error),
    }
}

/// The most bytes of pack received for a tree of at most `max_bytes`: a pack stores each file
/// compressed, but a file that does not compress costs a little more than its size, and every
/// object has a header; so a sixteenth more, and a MiB.
fn pack_cap(max_bytes: u64) -> u64 {
    max_bytes.saturating_add(max_bytes / 16).saturating_add(1 << 20)
}

/// Every ref of the remote: one connection, one ref listing, no pack.
fn list(repo: &gix::Repository, target: &Target, opts: &FetchOptions) -> Result<Vec<RemoteRef>, GitError> {
    let tried = Tried::default();
    let fail = |e: gix::Error| target.error(&e, opts, &tried);
    let remote = repo
        .remote_at(target.url.clone())
        .and_then(|r| r.with_fetch_tags(Tags::None).with_refspecs(["+refs/*:refs/skilldeck/all/*"], Direction::Fetch))
        .map_err(fail)?;
    let mut connection = remote.connect(Direction::Fetch).map_err(fail)?;
    connection.set_credentials(auth::authenticate(repo, &target.url, &opts.tokens, tried.clone()));
    if let Some(options) = transport_options(repo, target, opts).map_err(fail)? {
        connection.set_transport_options(options);
    }
    let options = gix::remote::ref_map::Options { prefix_from_spec_as_filter_on_remote: false, ..Default::default() };
    let (ref_map, _handshake) = connection.ref_map(gix::progress::Discard, options).map_err(fail)?;
    let mut refs: Vec<RemoteRef> = ref_map
        .remote_refs
        .iter()
        .filter_map(|r| match r {
            Ref::Peeled { full_ref_name, tag, object } => {
                Some(remote_ref(full_ref_name.to_string(), *tag, Some(*object), None))
            }
            Ref::Direct { full_ref_name, object } => Some(remote_ref(full_ref_name.to_string(), *object, None, None)),
            Ref::Symbolic { full_ref_name, target, tag, object } => Some(match tag {
                Some(tag) => remote_ref(full_ref_name.to_string(), *tag, Some(*object), Some(target.to_string())),
                None => remote_ref(full_ref_name.to_string(), *object, None, Some(target.to_string())),
            }),
            Ref::Unborn { .. } => None,
        })
        .collect();
    refs.sort();
    Ok(refs)
}

fn remote_ref(name: String, oid: ObjectId, peeled: Option<ObjectId>, symref_target: Option<String>) -> RemoteRef {
    RemoteRef { name, oid: oid.to_string(), peeled: peeled.map(|p| p.to_string()), symref_target }
}

/// HTTP options from the scratch repository's configuration (proxies, `http.extraHeader`…),
/// with the connect and read timeouts set on the client gix builds. `None` for other schemes.
fn transport_options(
    repo: &gix::Repository,
    target: &Target,
    opts: &FetchOptions,
) -> gix::Result<Option<Box<dyn std::any::Any>>> {
    let url = target.url.to_bstring();
    let Some(mut options) = repo.transport_options(AsRef::<gix::bstr::BStr>::as_ref(&url), None)? else {
        return Ok(None);
    };
    if let Some(http_options) = options.downcast_mut::<http::Options>() {
        let (connect, read) = (opts.connect_timeout, opts.read_timeout);
        http_options.connect_timeout = Some(connect);
        let configure: Box<http::reqwest::ConfigureClientFn> =
            Box::new(move |builder: reqwest::blocking::ClientBuilder| {
                Ok(builder.connect_timeout(connect).timeout(read))
            });
        let backend = http::reqwest::Options { configure_client: Some(configure), configure_request: None };
        http_options.backend = Some(Arc::new(Mutex::new(backend)));
    }
    Ok(Some(options))
}

fn scratch() -> Result<tempfile::TempDir, GitError> {
    tempfile::Builder::new()
        .prefix("skilldeck-git-")
        .tempdir()
        .map_err(|source| GitError::Write { path: std::env::temp_dir(), source })
}

/// An empty bare repository to fetch into: no work tree, so nothing is ever checked out.
fn open_scratch(path: &Path, target: &Target) -> Result<gix::Repository, GitError> {
    let mut repo = gix::init_bare(path).map_err(|e| GitError::Other {
        url: target.shown.clone(),
        detail: format!("could not create a scratch repository: {e}"),
    })?;
    repo.object_cache_size_if_unset(8 << 20);
    Ok(repo)
}
