//! The MCP server: capabilities, `tools/list` and `tools/call` over the live listing (a
//! `find_skills` call's matches join the session's listing), and the roots the client shares.
//! Holds the handler and its shared state; not the tools' wording (`tool`, `search`).

use crate::catalog;
use crate::error::McpError;
use crate::memo::Mounts;
use crate::options::ServeOptions;
use crate::search::find_skills_tool;
use crate::skills_ext::{self, Manifests};
use crate::slot::SessionSlot;
use crate::tool::{instructions, view_skill_tool};
use crate::workspace::Workspaces;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult, CustomRequest,
    CustomResult, GetPromptRequestParams, GetPromptResponse, GetSkillRequestParams, GetSkillResult, Implementation,
    InputRequest, InputRequiredResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListSkillsResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion, ReadResourceDirectoryRequestParams,
    ReadResourceDirectoryResult, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
    SubscribeRequestParams, SubscriptionFilter, Tool, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, Peer, RequestContext, RoleServer, SubscriptionContext, SubscriptionSink};
use rmcp::{ErrorData, ServerHandler};
use serde_json::{Value, json};
use skilldeck_core::SkillRegistry;
use skilldeck_mount::view_result::{ViewErrorCode, ViewResult};
use skilldeck_mount::view_skill::TOOL_NAME;
use skilldeck_select::catalogue::Catalogue;
use skilldeck_select::find;
use skilldeck_select::listing::{Listing, ListingOptions};
use std::borrow::Cow;
use std::sync::{Arc, Mutex, OnceLock, RwLock};

/// The newest protocol version the server speaks through the `initialize` handshake.
const NEWEST_PROTOCOL: ProtocolVersion = ProtocolVersion::V_2025_11_25;

/// The newest protocol version the server speaks at all: the stateless revision (no handshake).
const STATELESS_PROTOCOL: ProtocolVersion = ProtocolVersion::V_2026_07_28;

/// The key under which a `view_skill` call asks a 2026-07-28 client for its roots.
const ROOTS_INPUT: &str = "roots";

/// Whether the request of `context` speaks the stateless revision, where roots come as input to
/// a request and the server asks nothing of its own.
fn stateless(context: &RequestContext<RoleServer>) -> bool {
    context.protocol_version().is_some_and(|v| v >= STATELESS_PROTOCOL)
}

/// The `roots/list` asked of a 2026-07-28 client as input to a call. SEP-2577 deprecates roots,
/// but hosts of that revision (fast-agent, the MCP Inspector) still answer them, and they are
/// the one way such a host says which folder it works in.
#[allow(deprecated)]
fn roots_request() -> Result<InputRequest, ErrorData> {
    let asked: rmcp::model::ListRootsRequest = serde_json::from_value(json!({"method": "roots/list"}))
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    Ok(InputRequest::ListRoots(asked))
}

/// What every request of one session shares.
pub(crate) struct Shared {
    pub(crate) registry: SkillRegistry,
    pub(crate) options: ServeOptions,
    listing: RwLock<Arc<Listing>>,
    /// Whether the store is watched; without a watcher every request rebuilds the listing.
    pub(crate) live: std::sync::atomic::AtomicBool,
    workspaces: tokio::sync::Mutex<Workspaces>,
    mounts: Mutex<Mounts>,
    /// Set, under the `mounts` lock, when the session is over: a call still queued then mounts
    /// nothing, so the process can exit without leaving a half-made copy in the workspace.
    closed: std::sync::atomic::AtomicBool,
    pub(crate) peer: OnceLock<Peer<RoleServer>>,
    /// The resources the client subscribed to (`resources/subscribe`).
    pub(crate) subscribed: Mutex<std::collections::BTreeSet<String>>,
    /// The open `subscriptions/listen` requests (protocol 2026-07-28): each gets the change
    /// notifications its filter accepted.
    pub(crate) listeners: Mutex<Vec<SubscriptionSink>>,
    /// The store's watcher, while there is one.
    pub(crate) watcher: Mutex<Option<skilldeck_store::watch::SkillWatcher>>,
    /// Skills `find_skills` returned in this session, oldest first: they stay listed.
    found: Mutex<Vec<String>>,
    /// Whether the settings let the session search (`find_skills` among the enabled tools).
    find_enabled: std::sync::atomic::AtomicBool,
    /// The HTTP server's count of this session, given back when the session's server goes.
    pub(crate) slot: Mutex<Option<SessionSlot>>,
    /// The skills described to `skills/list` and `skills/get`, by content digest.
    manifests: Manifests,
    /// The least severe log message the client asked for (`logging/setLevel`), as
    /// [`severity`] ranks it; none is sent before it asks.
    log_level: std::sync::atomic::AtomicU8,
}

/// A log level's rank, least severe first; `u8::MAX` for "send none".
#[allow(deprecated)]
fn severity(level: rmcp::model::LoggingLevel) -> u8 {
    use rmcp::model::LoggingLevel as L;
    match level {
        L::Debug => 0,
        L::Info => 1,
        L::Notice => 2,
        L::Warning => 3,
        L::Error => 4,
        L::Critical => 5,
        L::Alert => 6,
        L::Emergency => 7,
    }
}

/// The requests a client sends a server in the MCP protocol: one of them reaching
/// `on_custom_request` had params that do not fit.
const PROTOCOL_REQUESTS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "resources/templates/list",
    "subscriptions/listen",
    "tools/call",
    "tools/list",
    "completion/complete",
    "logging/setLevel",
    "skills/list",
    "skills/get",
    "resources/directory/read",
];

/// The most resources one session may subscribe to: a client watches what it shows, and no
/// more skills' files than a store lists.
const MAX_SUBSCRIPTIONS: usize = 10_000;

/// The Skilldeck MCP server: one per session (a stdio process serves one).
#[derive(Clone)]
pub struct SkilldeckServer {
    pub(crate) shared: Arc<Shared>,
}

impl std::fmt::Debug for SkilldeckServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkilldeckServer").field("options", &self.shared.options).finish_non_exhaustive()
    }
}

/// An id no other session has: this process's, with its start time and a count (an HTTP
/// server holds many sessions).
fn session_id() -> String {
    static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    format!("mcp-{nanos}-{}-{n}", std::process::id())
}

impl Shared {
    /// Ends the session's mounting: waits for a copy under way to finish (its staging swapped
    /// in or removed), and makes every later call mount nothing. Blocks; call it off the async
    /// workers.
    pub(crate) fn close_mounts(&self) {
        let _mounts = self.lock_mounts();
        self.closed.store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// The session's mounts, one call at a time (a call that panicked leaves them usable).
    fn lock_mounts(&self) -> std::sync::MutexGuard<'_, Mounts> {
        self.mounts.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The listing options now: the settings, narrowed to the served scopes, with what this
    /// session found.
    pub(crate) fn listing_options(&self) -> Result<ListingOptions, McpError> {
        let mut opts = (self.options.listing_options)().map_err(McpError::Settings)?;
        if !self.options.scopes.is_empty() {
            opts.scopes.retain(|s| self.options.scopes.contains(s));
        }
        opts.found = match self.found.lock() {
            Ok(f) => f.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        };
        Ok(opts)
    }

    /// Every skill this session serves (listed or not: see `served::Served`).
    fn served(&self) -> Result<Vec<crate::served::Served>, ErrorData> {
        let opts = self.listing_options().map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        crate::served::served(&self.registry, &opts)
    }

    fn build_listing(&self) -> Result<Listing, McpError> {
        let opts = self.listing_options()?;
        self.find_enabled.store(opts.find_skills_enabled, std::sync::atomic::Ordering::Relaxed);
        Ok(self.registry.listing(&opts)?)
    }

    /// Adds skills `find_skills` returned to this session's found ones (each once).
    pub(crate) fn add_found(&self, names: impl IntoIterator<Item = String>) {
        let mut found = match self.found.lock() {
            Ok(f) => f,
            Err(poisoned) => poisoned.into_inner(),
        };
        for name in names {
            if !found.contains(&name) {
                found.push(name);
            }
        }
    }

    /// Whether the session offers `find_skills` now.
    pub(crate) fn find_enabled(&self) -> bool {
        self.find_enabled.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The listing clients are shown now.
    pub(crate) fn listing(&self) -> Arc<Listing> {
        match self.listing.read() {
            Ok(l) => Arc::clone(&l),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    /// Rebuilds the listing; returns whether it differs from the one shown so far. A failure
    /// keeps the previous listing.
    pub(crate) fn refresh(&self) -> Result<bool, McpError> {
        let fresh = self.build_listing()?;
        let mut current = match self.listing.write() {
            Ok(l) => l,
            Err(poisoned) => poisoned.into_inner(),
        };
        if **current == fresh {
            return Ok(false);
        }
        *current = Arc::new(fresh);
        Ok(true)
    }
}

impl SkilldeckServer {
    /// A server over `registry`. Reads the listing once, so a broken config.toml or store is
    /// reported before any client connects, and checks `--workspace`.
    pub fn new(registry: SkillRegistry, options: ServeOptions) -> Result<Self, McpError> {
        let mut workspaces = Workspaces::new(options.workspace.clone());
        if let Some(dir) = &options.workspace {
            workspaces.sandbox().map_err(|reason| McpError::Workspace { path: dir.display().to_string(), reason })?;
        }
        let shared = Shared {
            registry: registry.with_hold(options.hold),
            options,
            listing: RwLock::new(Arc::new(Listing {
                text: String::new(),
                skills: Vec::new(),
                estimated_tokens: 0,
                budget_tokens: 0,
                shortened: Vec::new(),
                ranked: false,
                more: 0,
            })),
            live: std::sync::atomic::AtomicBool::new(false),
            workspaces: tokio::sync::Mutex::new(workspaces),
            mounts: Mutex::new(Mounts::new(session_id())),
            closed: std::sync::atomic::AtomicBool::new(false),
            peer: OnceLock::new(),
            subscribed: Mutex::new(std::collections::BTreeSet::new()),
            listeners: Mutex::new(Vec::new()),
            watcher: Mutex::new(None),
            found: Mutex::new(Vec::new()),
            find_enabled: std::sync::atomic::AtomicBool::new(false),
            slot: Mutex::new(None),
            manifests: Manifests::default(),
            log_level: std::sync::atomic::AtomicU8::new(u8::MAX),
        };
        shared.refresh()?;
        Ok(Self { shared: Arc::new(shared) })
    }

    /// The listing as clients see it now.
    pub fn listing(&self) -> Arc<Listing> {
        self.shared.listing()
    }

    /// The `view_skill` tool for the current listing, if any skill is listed.
    pub fn tool(&self) -> Option<Tool> {
        view_skill_tool(&self.listing())
    }

    /// The tools offered now: `view_skill`, and `find_skills` while the listing does not show
    /// every skill.
    pub fn tools(&self) -> Vec<Tool> {
        let listing = self.listing();
        view_skill_tool(&listing).into_iter().chain(find_skills_tool(&listing, self.shared.find_enabled())).collect()
    }

    fn remember_peer(&self, peer: &Peer<RoleServer>) {
        let _ = self.shared.peer.set(peer.clone());
    }

    /// Without a watcher, every request looks at the store again.
    fn refresh_unless_live(&self) {
        if !self.shared.live.load(std::sync::atomic::Ordering::Relaxed)
            && let Err(e) = self.shared.refresh()
        {
            let message = format!("{e}; the previous listing stays");
            eprintln!("skilldeck mcp: {message}");
            self.log_warning(message);
        }
    }

    /// Tells the client of a problem as a `notifications/message` at warning level, when it
    /// asked for such messages (`logging/setLevel`).
    #[allow(deprecated)]
    fn log_warning(&self, message: String) {
        let level = rmcp::model::LoggingLevel::Warning;
        if severity(level) < self.shared.log_level.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        if let Some(peer) = self.shared.peer.get().cloned() {
            let param = rmcp::model::LoggingMessageNotificationParam::new(level, Value::String(message))
                .with_logger("skilldeck");
            tokio::spawn(async move {
                let _ = peer.notify_logging_message(param).await;
            });
        }
    }

    /// Asks the client for its roots when the workspace comes from them.
    /// A `stateless` (2026-07-28) client is asked nothing: its roots came with the call.
    async fn sandbox(
        &self,
        peer: &Peer<RoleServer>,
        stateless: bool,
    ) -> Result<Arc<skilldeck_mount::sandbox::Sandbox>, String> {
        let mut workspaces = self.shared.workspaces.lock().await;
        if workspaces.roots_decide() && !stateless {
            let shares_roots = peer.peer_info().is_some_and(|info| info.capabilities.roots.is_some());
            if shares_roots {
                match crate::workspace::ask_roots(peer).await {
                    Ok(found) => workspaces.set_roots(found),
                    Err(failed) => return Err(failed),
                }
            }
        }
        workspaces.sandbox()
    }

    /// Runs one `view_skill` call with `input`, mounting into the session's workspace.
    /// A `stateless` (2026-07-28) client's roots, if any, came with the call.
    pub async fn view(&self, peer: &Peer<RoleServer>, input: Value, stateless: bool) -> ViewResult {
        self.refresh_unless_live();
        let name = input.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
        let path = input.get("path").and_then(Value::as_str).map(str::to_owned);
        let sandbox = match self.sandbox(peer, stateless).await {
            Ok(s) => s,
            Err(message) => {
                // A bad path is said first, as the core does, even with nowhere to mount.
                if let Some(Err(e)) = path.as_deref().map(skilldeck_skill::RelPath::parse) {
                    let message = format!("{e}; give a path relative to the skill folder, such as references/guide.md");
                    return ViewResult::error(&name, path.as_deref(), ViewErrorCode::SkillPathInvalid, message);
                }
                return ViewResult::error(&name, path.as_deref(), ViewErrorCode::SkillCopyFailed, message);
            }
        };
        let shared = Arc::clone(&self.shared);
        let listing = self.listing();
        let (asked, asked_path) = (name.clone(), path.clone());
        let ran = tokio::task::spawn_blocking(move || {
            let mut mounts = shared.lock_mounts();
            if shared.closed.load(std::sync::atomic::Ordering::SeqCst) {
                let message = "The session ended before the skill was copied; call view_skill again.".to_owned();
                return ViewResult::error(&asked, asked_path.as_deref(), ViewErrorCode::SkillCopyFailed, message);
            }
            mounts.view(&shared.registry, &sandbox, &listing, &input)
        })
        .await;
        ran.unwrap_or_else(|e| {
            ViewResult::error(
                &name,
                path.as_deref(),
                ViewErrorCode::SkillCopyFailed,
                format!("The call did not finish: {e}."),
            )
        })
    }

    /// Runs one `find_skills` call: searches every skill the session may be listed, adds the
    /// matches to what this session found, and rebuilds the listing; returns the result and
    /// whether what clients see changed (then they must be told).
    pub fn find(&self, input: &Value) -> (CallToolResult, bool) {
        let query = input.get("query").and_then(Value::as_str).map(str::trim).unwrap_or_default();
        if query.is_empty() {
            let error = json!({
                "query": query,
                "error": {"code": "query_missing", "message": "Give a few words about the task as query, e.g. {\"query\": \"fill a PDF form\"}."}
            });
            return (CallToolResult::structured_error(error), false);
        }
        let shared = &self.shared;
        let matches = match shared
            .listing_options()
            .and_then(|opts| Ok(shared.registry.find_skills(&opts, query, find::DEFAULT_LIMIT)?))
        {
            Ok(m) => m,
            Err(e) => {
                let error = json!({"query": query, "error": {"code": "store_unreadable", "message": e.to_string()}});
                return (CallToolResult::structured_error(error), false);
            }
        };
        shared.add_found(matches.iter().map(|m| m.name.clone()));
        let changed = match shared.refresh() {
            Ok(changed) => changed,
            Err(e) => {
                eprintln!("skilldeck mcp: {e}; the previous listing stays");
                false
            }
        };
        (CallToolResult::structured(find::result_json(query, &matches)), changed)
    }
}

/// An MCP result for a `view_skill` result: the same JSON as text and as structured content.
pub(crate) fn call_result(result: &ViewResult) -> CallToolResult {
    let value = result.to_json();
    match result {
        ViewResult::Ok(_) => CallToolResult::structured(value),
        ViewResult::Err(_) => CallToolResult::structured_error(value),
    }
}

impl ServerHandler for SkilldeckServer {
    // `logging` is declared for the handshake versions' clients, which send `logging/setLevel`
    // (2026-07-28 deprecates it: SEP-2577).
    #[allow(deprecated)]
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_completions()
            .enable_logging()
            .enable_prompts()
            .enable_prompts_list_changed()
            .enable_resources()
            .enable_resources_list_changed()
            .enable_resources_subscribe()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_skills_with_directory_read()
            .build();
        let mut server = Implementation::new("skilldeck", skilldeck_skill::APP_VERSION);
        server.title = Some("Skilldeck".to_owned());
        ServerConfig::new(capabilities)
            .with_protocol_version(NEWEST_PROTOCOL)
            .with_server_info(server)
            .with_instructions(instructions(&self.listing()))
    }

    /// The handshake versions (2024-11-05 to 2025-11-25, `initialize` answering with
    /// [`NEWEST_PROTOCOL`] at most) and 2026-07-28, the stateless revision the Skills extension
    /// is written against. At 2026-07-28 a client shares no roots (view_skill mounts into
    /// `--workspace`, or says how to set one) and hears of changes through
    /// `subscriptions/listen`.
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&STATELESS_PROTOCOL))
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.remember_peer(&context.peer);
    }

    async fn on_roots_list_changed(&self, context: NotificationContext<RoleServer>) {
        self.remember_peer(&context.peer);
        self.shared.workspaces.lock().await.roots_changed();
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.remember_peer(&context.peer);
        self.refresh_unless_live();
        tracing::debug!(method = "tools/list", "mcp request");
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.remember_peer(&context.peer);
        // The tool's name only: its arguments (a request's words, a skill's path) stay out.
        tracing::info!(method = "tools/call", tool = %request.name, "mcp request");
        if request.name == skilldeck_select::find::TOOL_NAME {
            self.refresh_unless_live();
            let input = Value::Object(request.arguments.unwrap_or_default());
            let server = self.clone();
            let (result, changed) = blocking(move || Ok(server.find(&input))).await?;
            if changed {
                // The found skills are in the view_skill enum now: clients list the tools again.
                let peer = context.peer.clone();
                tokio::spawn(async move {
                    let _ = peer.notify_tool_list_changed().await;
                    let _ = peer.notify_resource_list_changed().await;
                    let _ = peer.notify_prompt_list_changed().await;
                });
            }
            return Ok(result.into());
        }
        if request.name != TOOL_NAME {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool {:?}: this server has {TOOL_NAME} (and {} while the listing does not show every skill)",
                    request.name,
                    skilldeck_select::find::TOOL_NAME
                ),
                None,
            ));
        }
        // At 2026-07-28 a server sends no requests of its own: the client's roots come with a
        // retry of this call (SEP-2322), asked for once, when nothing else says where to mount.
        if stateless(&context) {
            let mut workspaces = self.shared.workspaces.lock().await;
            match request.input_responses.as_ref().and_then(|r| r.get(ROOTS_INPUT)) {
                Some(answer) => workspaces.set_roots(crate::workspace::roots_answered(answer)),
                None if !workspaces.knows_where() => {
                    let requests = std::iter::once((ROOTS_INPUT.to_owned(), roots_request()?)).collect();
                    return Ok(CallToolResponse::InputRequired(InputRequiredResult::from_input_requests(requests)));
                }
                None => {}
            }
        }
        let input = Value::Object(request.arguments.unwrap_or_default());
        let result = self.view(&context.peer, input, stateless(&context)).await;
        Ok(call_result(&result).into())
    }

    /// rmcp hands over as a custom request any request whose params do not fit its method
    /// (`"arguments": "x"` in `tools/call`); for a method of the protocol that is Invalid params
    /// (-32602), not Method not found.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        if !PROTOCOL_REQUESTS.contains(&request.method.as_str()) {
            return Err(ErrorData::new(rmcp::model::ErrorCode::METHOD_NOT_FOUND, request.method, None));
        }
        let why = match request.method.as_str() {
            "tools/call" => request.params_as::<CallToolRequestParams>().err().map(|e| format!(": {e}")),
            _ => None,
        };
        Err(ErrorData::invalid_params(
            format!(
                "the params of {} are not what the method takes{}; see the MCP specification",
                request.method,
                why.unwrap_or_default()
            ),
            None,
        ))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.remember_peer(&context.peer);
        self.refresh_unless_live();
        let (shared, listing) = (Arc::clone(&self.shared), self.listing());
        let resources = blocking(move || Ok(catalog::resources(&shared.registry, &listing))).await?;
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![catalog::template()]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.remember_peer(&context.peer);
        self.refresh_unless_live();
        let shared = Arc::clone(&self.shared);
        Ok(blocking(move || catalog::read(&shared.registry, &shared.served()?, &request.uri)).await?.into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.remember_peer(&context.peer);
        self.refresh_unless_live();
        let (shared, listing) = (Arc::clone(&self.shared), self.listing());
        let prompts = blocking(move || Ok(catalog::prompts(&shared.registry, &listing))).await?;
        Ok(ListPromptsResult::with_all_items(prompts))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.remember_peer(&context.peer);
        self.refresh_unless_live();
        let (shared, listing) = (Arc::clone(&self.shared), self.listing());
        Ok(blocking(move || catalog::prompt(&shared.registry, &listing, &request.name)).await?.into())
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        self.remember_peer(&context.peer);
        self.refresh_unless_live();
        tracing::debug!(method = "skills/list", "mcp request");
        let shared = Arc::clone(&self.shared);
        let cursor = request.and_then(|r| r.cursor);
        blocking(move || shared.manifests.list(&shared.registry, &shared.served()?, cursor.as_deref())).await
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        self.remember_peer(&context.peer);
        self.refresh_unless_live();
        tracing::debug!(method = "skills/get", "mcp request");
        let shared = Arc::clone(&self.shared);
        blocking(move || shared.manifests.get(&shared.registry, &shared.served()?, &request.uri)).await
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        self.remember_peer(&context.peer);
        self.refresh_unless_live();
        let shared = Arc::clone(&self.shared);
        blocking(move || skills_ext::read_directory(&shared.registry, &shared.served()?, &request.uri)).await
    }

    /// Completes the resource template's arguments: `name` from the listed skills, `path` from
    /// the files of the skill named in the context. The prompts take no arguments.
    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.remember_peer(&context.peer);
        self.refresh_unless_live();
        let shared = Arc::clone(&self.shared);
        blocking(move || Ok(catalog::complete(&shared.registry, &shared.served()?, &request))).await
    }

    /// Sets the least severe message the client is sent (problems the server also writes to
    /// its standard error, such as a store it could not read).
    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.remember_peer(&context.peer);
        self.shared.log_level.store(severity(request.level), std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }

    /// `subscriptions/listen` (2026-07-28): the list changes this server sends (tools,
    /// prompts, resources) and updates of skill resources, as many as `resources/subscribe`
    /// takes.
    fn accepted_subscription_filter(&self, requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        let mut accepted = requested.clone();
        if let Some(uris) = accepted.resource_subscriptions.as_mut() {
            uris.retain(|uri| uri.starts_with(catalog::SCHEME));
            uris.truncate(MAX_SUBSCRIPTIONS);
        }
        Some(accepted)
    }

    /// Holds one `subscriptions/listen` open: the watcher sends through its sink until the
    /// client cancels it or the session ends.
    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let sink = context.sink().clone();
        let id = sink.id().clone();
        if let Ok(mut listeners) = self.shared.listeners.lock() {
            listeners.push(sink);
        }
        context.cancelled().await;
        if let Ok(mut listeners) = self.shared.listeners.lock() {
            listeners.retain(|l| *l.id() != id);
        }
        Ok(())
    }

    // `resources/subscribe` is the handshake versions' way (2026-07-28 moves it into
    // `subscriptions/listen`), which are the versions this server speaks.
    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.remember_peer(&context.peer);
        if !request.uri.starts_with(catalog::SCHEME) {
            return Err(ErrorData::invalid_params(format!("{:?} is not a skill resource", request.uri), None));
        }
        if let Ok(mut set) = self.shared.subscribed.lock() {
            if set.len() >= MAX_SUBSCRIPTIONS && !set.contains(&request.uri) {
                return Err(ErrorData::invalid_params(
                    format!("this session already watches {MAX_SUBSCRIPTIONS} resources; unsubscribe from some first"),
                    None,
                ));
            }
            set.insert(request.uri);
        }
        Ok(())
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if let Ok(mut set) = self.shared.subscribed.lock() {
            set.remove(&request.uri);
        }
        Ok(())
    }
}

/// Runs store reads off the async workers.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ErrorData> + Send + 'static,
) -> Result<T, ErrorData> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ErrorData::internal_error(format!("the read did not finish: {e}"), None))?
}
