//! What the server is told when it starts: the workspace, the scopes, where the listing options
//! come from and how long store changes settle.

use skilldeck_select::listing::ListingOptions;
use skilldeck_skill::Scope;
use skilldeck_skill::risk::RiskLevel;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Reads the listing options afresh (config.toml may change while the server runs): the
/// caller's knowledge of budgets, tiers and switched-off skills.
pub type ListingOptionsFn = Arc<dyn Fn() -> Result<ListingOptions, String> + Send + Sync>;

/// How long store changes settle before the listing is rebuilt and clients are told. A batch
/// is reported at the latest four periods after its first change, so within about a second.
pub const DEFAULT_DEBOUNCE: Duration = Duration::from_millis(250);

/// What the server serves and where it mounts.
#[derive(Clone)]
pub struct ServeOptions {
    /// Mount into this folder; without it, into the client's first `file://` root.
    pub workspace: Option<PathBuf>,
    /// Only skills of these scopes; empty means the listing options' scopes.
    pub scopes: Vec<Scope>,
    /// Where the listing options come from.
    pub listing_options: ListingOptionsFn,
    /// How long store changes settle before `notifications/tools/list_changed`.
    pub debounce: Duration,
    /// The least serious unapproved audit finding that keeps a skill out (config.toml's
    /// `[audit] hold`; `None`: off).
    pub hold: Option<RiskLevel>,
}

impl std::fmt::Debug for ServeOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServeOptions")
            .field("workspace", &self.workspace)
            .field("scopes", &self.scopes)
            .field("debounce", &self.debounce)
            .field("hold", &self.hold)
            .finish_non_exhaustive()
    }
}
