//! What a skill is: `SKILL.md` split into frontmatter and body, its names, metadata and the
//! agentskills.io rules, validated into values and diagnostics. Bytes in, values out: no file
//! system, no store.

pub mod agent_rules;
pub mod agent_values;
pub mod agents;
pub mod codex_yaml;
pub mod diag_args;
pub mod diagnostic;
pub mod digest;
pub mod entry;
pub mod files;
pub mod frontmatter;
pub mod grants;
pub mod headings;
pub mod meta;
pub mod name;
pub mod name_field;
pub mod provenance;
pub mod relpath;
pub mod risk;
pub mod scope;
pub mod secrets;
pub mod spec;
pub mod tool_patterns;
pub mod validate;
pub mod visible;
pub mod yaml_bounds;
pub mod yaml_explain;

pub use diagnostic::{DiagCode, Diagnostic, Severity};
pub use digest::Digest;
pub use entry::{ListedEntry, Revision, Scope, SkillEntry};
pub use files::{SkillFiles, UploadLimits};
pub use meta::{ExtraFields, JsonText, SkillMeta, Tier};
pub use name::SkillName;
pub use relpath::RelPath;
pub use validate::APP_VERSION;
