//! Delivering skills where the agents read them: the table of known agent tools, the targets
//! in config.toml, the record of what Skilldeck wrote to each folder, each skill's state
//! there, the sync plan, and carrying it out.
//!
//! Nothing here writes `.version` or `.revision.json` into a target, and nothing here changes
//! or removes a folder Skilldeck did not write (`foreign`) or one edited since (`drifted`,
//! unless asked, after a copy is kept).

pub mod adopt;
pub mod agent_fields;
pub mod budget;
pub mod config;
pub mod config_edit;
pub mod diff;
pub mod env;
pub mod error;
pub mod export;
pub mod folder;
pub mod keep;
pub mod known;
pub mod lock;
pub mod plan;
pub mod record;
pub mod report;
pub mod scan;
pub mod source;
mod stage;
pub mod state;
mod swap;
pub mod sync;
pub mod target;
mod wanted;

pub use error::TargetError;
pub use plan::{Action, SkipReason, TargetPlan};
pub use state::SkillState;
