//! The integration tests of `skilldeck-core`, one module a file, linked into one test binary
//! (one link for the whole suite instead of one per file).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod crate_layers;
mod digests;
mod docs_links;
mod line_costs;
mod listing;
mod meaning;
mod module_cycles;
mod parse_cache;
mod ranking;
mod team_scope;
mod untrusted_files;
mod view_skill;
mod watch;
