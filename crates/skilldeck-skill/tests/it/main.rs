//! The integration tests of `skilldeck-skill`, one module a file, linked into one test binary
//! (one link for the whole suite instead of one per file).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod agent_fields;
mod one_line;
mod validation;
