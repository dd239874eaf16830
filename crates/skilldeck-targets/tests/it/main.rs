//! The integration tests of `skilldeck-targets`, one module a file, linked into one test binary
//! (one link for the whole suite instead of one per file).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;
mod edit_during_sync;
mod fit;
mod leftovers;
mod link_edits;
mod links;
mod not_stored;
mod overwrite_extras;
mod project_links;
