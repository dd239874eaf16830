//! Git repositories fetched with gitoxide: one ref, shallow, into a scratch bare repository,
//! and its tree written out as plain files; or the remote's refs listed in one round trip.
//! It never checks out (no hooks, filters or submodules run) and does not look for skills.
//!
//! A ref is a branch, a tag (branch first when both exist, as `git clone --branch` does), a
//! full ref name (`refs/…`) or a full 40-character commit id. A commit id is asked for by id
//! (protocol v2 servers and `uploadpack.allowReachableSHA1InWant` allow it); when the server
//! refuses, a branch or tag pointing at that commit is fetched instead, and failing that the
//! error says to name one. An abbreviated commit id cannot be fetched by itself.
//!
//! `file://` URLs are served by the system `git upload-pack` and `ssh://` ones through the
//! system `ssh`, as gitoxide does; HTTP(S) goes through reqwest with rustls.

mod auth;
mod error;
mod fetch;
mod meter;
mod tree;

use std::path::PathBuf;
use std::time::Duration;

pub use auth::{HostToken, Tokens};
pub use error::GitError;
pub use fetch::{fetch, remote_refs};
pub use tree::leaves as link_leaves;

/// How to fetch.
#[derive(Debug, Clone)]
pub struct FetchOptions {
    /// How long to wait for a TCP (and TLS) connection.
    pub connect_timeout: Duration,
    /// How long a request may wait for the next bytes before it is abandoned.
    pub read_timeout: Duration,
    /// The longest a whole fetch or ref listing may take, however steadily the server sends:
    /// past it the caller gets [`GitError::TookTooLong`] and the transfer is told to stop.
    pub total_timeout: Duration,
    /// The most one fetch may bring: the pack downloaded, and the tree written (checked from
    /// object headers before anything is written).
    pub limits: TreeLimits,
    /// Tokens for HTTPS hosts, tried before Git's credential helpers.
    pub tokens: Tokens,
}

impl Default for FetchOptions {
    /// 30 s to connect, 30 s between reads, 10 min in all, [`TreeLimits::default`], no tokens.
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(30),
            read_timeout: Duration::from_secs(30),
            total_timeout: Duration::from_secs(600),
            limits: TreeLimits::default(),
            tokens: Tokens::default(),
        }
    }
}

/// The most one fetch may bring, whatever skills the tree holds: the bound on the download and
/// on what is written. Each skill in it is held to its own, smaller limits after discovery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeLimits {
    /// The most bytes the pack may come to as it is received, and the files of the tree (or its
    /// sub-path) together: past either, the fetch stops with [`GitError::TooBig`] and nothing is
    /// written. `[sources] max_fetch_bytes` in config.toml.
    pub max_bytes: u64,
    /// The most files the tree (or its sub-path) may hold.
    pub max_files: usize,
    /// The largest file written: a bigger one no skill can hold, so it is reported
    /// ([`ProblemKind::TooBig`]) and not written, and the rest of the tree still is.
    pub max_file_bytes: u64,
}

impl Default for TreeLimits {
    /// 512 MiB downloaded and written, 50,000 files, 32 MiB a file (the store's limit a file).
    fn default() -> Self {
        Self { max_bytes: 512 << 20, max_files: 50_000, max_file_bytes: 32 << 20 }
    }
}

/// A fetched tree, written out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// The commit the ref resolved to, as full hex.
    pub commit: String,
    /// The ref it resolved through, e.g. `refs/heads/main` or `refs/tags/v1`; the commit id
    /// itself when a commit was asked for, `HEAD` when the remote's `HEAD` is detached.
    pub reference_resolved: String,
    /// The folder the tree (or its sub-path) was written to.
    pub dir: PathBuf,
    /// What was not written as it stands in the tree, sorted by path.
    pub problems: Vec<Problem>,
    /// Every file of the tree (or its sub-path) with its size in bytes, written or not (one over
    /// [`TreeLimits::max_file_bytes`] is not), `/`-separated paths under [`Snapshot::dir`],
    /// sorted: what each skill's size is counted from.
    pub sizes: Vec<(String, u64)>,
}

/// One entry of the tree that was not written as it stands.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Problem {
    /// Its path under [`Snapshot::dir`], `/`-separated.
    pub path: String,
    /// What it is.
    pub kind: ProblemKind,
}

/// Why an entry was not written as it stands.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum ProblemKind {
    /// A symbolic link: never written. `leaves_tree` when its target is absolute or climbs out
    /// of the written folder; whether it leaves its skill is for discovery to say.
    Symlink {
        /// The link's target as stored.
        target: String,
        /// Whether the target is outside the written folder.
        leaves_tree: bool,
    },
    /// A submodule (gitlink): not fetched.
    Submodule {
        /// The commit it pins, as full hex.
        commit: String,
    },
    /// A Git LFS pointer: written, but it is the pointer, not the file.
    LfsPointer,
    /// A name that cannot be written safely (`.git`, `..`, a separator or NUL in it): skipped.
    UnsafeName,
    /// A file over [`TreeLimits::max_file_bytes`]: not written (its size is in
    /// [`Snapshot::sizes`], so the skill holding it is refused for it).
    TooBig {
        /// Its size in bytes.
        size: u64,
        /// The limit it is over.
        limit: u64,
    },
}

/// One ref on a remote, as `git ls-remote` lists it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct RemoteRef {
    /// The full name, e.g. `HEAD`, `refs/heads/main`, `refs/tags/v1`.
    pub name: String,
    /// The object it points at, as full hex (a tag object for an annotated tag).
    pub oid: String,
    /// For an annotated tag, the commit it points at, as full hex.
    pub peeled: Option<String>,
    /// For a symbolic ref (`HEAD`), the ref it points to.
    pub symref_target: Option<String>,
}
