//! The integration tests of `skilldeck-embed`, one module a file, linked into one test binary
//! (one link for the whole suite instead of one per file).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;
mod errors;
mod hugging_face;
mod meaning;
mod parity;
