//! The integration tests of `skilldeck-remote`, one module a file, linked into one test binary
//! (one link for the whole suite instead of one per file).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod environment;
mod refusals;
mod s3;
