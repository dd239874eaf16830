//! The integration tests of `skilldeck-agent`, one module a file, linked into one test binary
//! (one link for the whole suite instead of one per file).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod anthropic;
mod common;
mod fuzz_shell;
mod offline;
mod openai;
mod sandbox_escape;
mod search;
mod settings_edit;
mod state;
mod tools;
