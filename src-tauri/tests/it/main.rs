//! The integration tests of `src-tauri`, one module a file, linked into one test binary
//! (one link for the whole suite instead of one per file).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod add_source;
mod agent;
mod commands;
mod contract;
mod logs;
mod updates;
mod watcher;
