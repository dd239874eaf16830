//! The skills a session serves: every one it may be listed (valid, not shadowed, not held back by
//! the audit, switched on, in a served scope), whether or not the listing's budget shows it.
//! What `resources/read`, the Skills extension and completion look skills up in.

use rmcp::ErrorData;
use skilldeck_core::SkillRegistry;
use skilldeck_select::catalogue::Catalogue as _;
use skilldeck_select::listing::{ListingOptions, is_listed};
use skilldeck_skill::{Scope, SkillName};

/// A skill this server serves. A host of the Skills extension builds its own listing from all
/// of them.
#[derive(Debug, Clone)]
pub(crate) struct Served {
    pub(crate) name: SkillName,
    pub(crate) scope: Scope,
}

/// Every skill served now, by name.
pub(crate) fn served(registry: &SkillRegistry, opts: &ListingOptions) -> Result<Vec<Served>, ErrorData> {
    if !opts.view_skill_enabled {
        return Ok(Vec::new());
    }
    let entries = registry
        .entries(&opts.scopes)
        .map_err(|e| ErrorData::internal_error(format!("the store cannot be read: {e}"), None))?;
    Ok(entries
        .iter()
        .filter(|l| is_listed(l, opts))
        .filter_map(|l| Some(Served { name: SkillName::parse(&l.entry.name).ok()?, scope: l.entry.scope }))
        .collect())
}

/// The served skill named `name`.
pub(crate) fn find<'a>(served: &'a [Served], name: &str) -> Option<&'a Served> {
    served.iter().find(|s| s.name.as_str() == name)
}
