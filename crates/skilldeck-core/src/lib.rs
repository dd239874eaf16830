//! The Skilldeck core: the catalogue (`registry`), which joins the store to what a skill is,
//! and one façade over the crates beneath it, so the crates above name one place.
//!
//! The modules below are the lower crates' own, re-exported under their old paths:
//! `skilldeck-skill` (what a skill is), `skilldeck-store` (the store), `skilldeck-select`
//! (listing and search), `skilldeck-mount` (the sandbox and `view_skill`) and `skilldeck-audit`
//! (the rules a skill is audited against). See
//! `docs/architecture.md`.

mod catalogue;
pub mod parallel;
pub mod registry;
pub mod semantic;

pub use skilldeck_audit as audit;
pub use skilldeck_embed as embed;
pub use skilldeck_mount::{mount, sandbox, view_result, view_skill, workspace_guard};
pub use skilldeck_select::{find, listing, ranker, tokens};
pub use skilldeck_skill::{
    agent_rules, agent_values, agents, codex_yaml, diag_args, diagnostic, digest, entry, files, frontmatter, grants,
    meta, name, provenance, relpath, risk, secrets, spec, tool_patterns, visible, yaml_bounds, yaml_explain,
};
pub use skilldeck_store::{
    audits, bundled, config_file, entries, home, import, parse_cache, safe_read, storage, trust, vector_cache, watch,
};

/// Validation of a `SKILL.md`: the rules on its text (`skilldeck-skill`) and reading one from
/// disk through the safe reader (`skilldeck-store`).
pub mod validate {
    pub use skilldeck_skill::validate::*;
    pub use skilldeck_store::read_check::{read_diagnostic, validate_file};
}

pub use registry::{DiskCacheStats, SkillRegistry};
pub use skilldeck_select::catalogue::Catalogue;
pub use skilldeck_skill::{
    APP_VERSION, DiagCode, Diagnostic, Digest, ExtraFields, JsonText, ListedEntry, RelPath, Revision, Scope, Severity,
    SkillEntry, SkillFiles, SkillMeta, SkillName, Tier, UploadLimits,
};
pub use skilldeck_store::{FsStorage, SkillStorage, SkilldeckHome, StorageError};
