//! Skills from where they live. A source (a Git repository, a `.well-known/agent-skills` index,
//! a Claude Code plugin marketplace, an archive or `SKILL.md` URL) is fetched into a scratch
//! folder, searched for skills, and what it holds handed to the core's import with the
//! provenance of each skill: the source as given, the URL fetched, the ref asked for, the commit
//! or digest it resolved to and the path inside it.

pub mod apply;
pub mod archive;
pub mod bytes;
pub mod check;
pub mod config;
pub mod discover;
pub mod fetch;
pub mod git;
pub mod http;
pub mod installed;
pub mod last_check;
pub mod limits;
pub mod lock;
pub mod mcp;
pub mod origins;
pub mod redact;
pub mod rename;
pub mod restore;
pub mod setup;
pub mod skills_cli;
pub mod source;
#[cfg(feature = "git-server")]
pub mod testing;
#[cfg(feature = "http-server")]
pub mod testing_http;
pub mod wellknown;

pub use source::{GitSource, Hosts, Source, SourceError, UrlSource};
