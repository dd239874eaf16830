//! `skilldeck mcp --http`: Streamable HTTP on loopback only, behind a bearer token, refusing any
//! request a web page could send (an `Origin` header, a foreign `Host`). One server per session.

use crate::error::McpError;
use crate::incoming::{Incoming, judge};
use crate::options::ServeOptions;
use crate::server::SkilldeckServer;
use crate::slot::SessionSlot;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse as _, Response};
use base64::Engine as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use skilldeck_core::SkillRegistry;
use skilldeck_store::FsStorage;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

/// The path the MCP endpoint is served at.
pub const ENDPOINT: &str = "/mcp";

/// A fresh random token: 32 bytes from the system's generator, URL-safe base64.
pub fn new_token() -> Result<String, McpError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| McpError::Http(format!("no random token: {e}")))?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

/// Whether two byte strings are equal, taking the same time wherever they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn require_token(State(token): State<Arc<String>>, request: Request, next: Next) -> Response {
    let given = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    match given {
        Some(t) if same(t.as_bytes(), token.as_bytes()) => next.run(request).await,
        _ => (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "missing or wrong bearer token: send the server's token (SKILLDECK_MCP_TOKEN where it runs, else the one it printed at start) as Authorization: Bearer TOKEN",
        )
            .into_response(),
    }
}

/// The largest request body taken (rmcp's own limit).
pub const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// Answers a JSON POST whose body is not a JSON-RPC message with 400 and the JSON-RPC error
/// (Parse error -32700, id null, for a body that is not JSON), where rmcp 3.11 answers 415 as
/// if the content type were wrong. Every other request goes to rmcp untouched.
async fn check_body(request: Request, next: Next) -> Response {
    let json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(';').next().unwrap_or_default().trim().eq_ignore_ascii_case("application/json"));
    if request.method() != axum::http::Method::POST || !json {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_BODY_BYTES).await {
        Ok(b) => b,
        Err(e) => {
            return (
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the request body could not be read whole ({e}); at most {MAX_BODY_BYTES} bytes are taken"),
            )
                .into_response();
        }
    };
    if let Incoming::Reply(reply) = judge(&bytes) {
        return (StatusCode::BAD_REQUEST, [(header::CONTENT_TYPE, "application/json")], reply.to_string())
            .into_response();
    }
    next.run(Request::from_parts(parts, axum::body::Body::from(bytes))).await
}

/// A bound listener, ready to serve.
#[derive(Debug)]
pub struct HttpListener {
    listener: tokio::net::TcpListener,
}

impl HttpListener {
    /// Binds `addr`, which must be a loopback address.
    pub async fn bind(addr: SocketAddr) -> Result<Self, McpError> {
        if !addr.ip().is_loopback() {
            return Err(McpError::Http(format!(
                "{addr} is not a loopback address: --http serves on this machine only (127.0.0.1:PORT or [::1]:PORT)"
            )));
        }
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| McpError::Http(format!("cannot listen on {addr}: {e}")))?;
        Ok(Self { listener })
    }

    /// The address bound (the real port when 0 was asked for).
    pub fn local_addr(&self) -> Result<SocketAddr, McpError> {
        self.listener.local_addr().map_err(|e| McpError::Http(e.to_string()))
    }

    /// Serves until the process ends: each MCP session gets a server of its own over `storage`.
    pub async fn serve(self, storage: FsStorage, options: ServeOptions, token: String) -> Result<(), McpError> {
        // Checked once up front, so a broken store or config.toml is said at start.
        SkilldeckServer::new(SkillRegistry::new(storage.clone()), options.clone())?;
        let runtime = tokio::runtime::Handle::current();
        let sessions = Arc::new(AtomicUsize::new(0));
        let factory = move || {
            // Each session watches the store (an inotify instance, a thread): a bounded number,
            // so a client opening sessions in a loop cannot use up the user's inotify instances.
            let slot = SessionSlot::take(&sessions, MAX_SESSIONS).ok_or_else(|| {
                std::io::Error::other(format!(
                    "this server already has {MAX_SESSIONS} open sessions; close one (an idle one ends after 5 minutes)"
                ))
            })?;
            let server = SkilldeckServer::new(SkillRegistry::new(storage.clone()), options.clone())
                .map_err(std::io::Error::other)?;
            if let Ok(mut s) = server.shared.slot.lock() {
                *s = Some(slot);
            }
            server.watch(runtime.clone());
            Ok(server)
        };
        // Loopback hosts only (DNS rebinding), and of browser origins only this machine's own
        // (`http://localhost:*` and the loopback addresses), as the transport's rule asks: a
        // page another site serves, or one a rebound name points here, is refused with 403.
        // A loopback origin is a program on this machine, which still needs the bearer token.
        let config =
            StreamableHttpServerConfig::default().with_allowed_origins(LOOPBACK_ORIGINS).enforce_origin_validation();
        let service = StreamableHttpService::new(factory, Arc::new(LocalSessionManager::default()), config);
        let app = axum::Router::new()
            .nest_service(ENDPOINT, service)
            .layer(middleware::from_fn(check_body))
            .layer(middleware::from_fn_with_state(Arc::new(token), require_token));
        // The address only: the bearer token is never logged.
        let addr = self.listener.local_addr().map(|a| a.to_string()).unwrap_or_default();
        tracing::info!(transport = "http", %addr, "mcp server started");
        axum::serve(self.listener, app).await.map_err(|e| McpError::Http(e.to_string()))
    }
}

/// The browser origins a request may carry: this machine's, on any port, over HTTP or HTTPS.
const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "http://127.0.0.1:*",
    "http://[::1]:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "https://[::1]:*",
];

/// The most MCP sessions one `--http` server holds at once.
pub const MAX_SESSIONS: usize = 64;
