//! The integration tests of `skilldeck-select`, one module a file, linked into one test binary
//! (one link for the whole suite instead of one per file).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod attached_vectors;
mod common;
mod honoured_fields;
mod shown_text;
