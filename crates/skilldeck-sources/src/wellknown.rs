//! Skills from an agentskills.io discovery index (`/.well-known/agent-skills/index.json`,
//! schema 0.2.0): listed for a preview, and the chosen ones fetched, digests checked, into
//! skill folders under a scratch folder.
//! This file only names the modules and hands on their public items: the errors in `error`,
//! the index's JSON and its rules in `index`, the fetching in `fetch`.

mod error;
mod fetch;
mod index;

pub use error::{EntryRefusal, Refused, WellKnownError};
pub use fetch::{IndexFetch, MAX_INDEX_BYTES, Wanted, fetch_entries, fetch_index, list_index};
pub use index::{EntryKind, IndexSkill, SCHEMA_0_2_0, WELL_KNOWN_PATH, index_url, parse_index};
