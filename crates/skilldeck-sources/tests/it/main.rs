//! The integration tests of `skilldeck-sources`, one module a file, linked into one test binary
//! (one link for the whole suite instead of one per file).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod discover;
mod git;
mod index;
mod limits;
mod source;
