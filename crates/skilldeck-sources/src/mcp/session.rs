//! One connection to an MCP server as a client of the Skills extension: started (a child
//! process over stdio, or Streamable HTTP), asked for its skills page by page and for each file,
//! every request held to a time limit and every message to a size limit, so a server that hangs,
//! streams for ever or answers with too much is cut off. Async; [`super::fetch`] runs it on a
//! runtime of its own.

use super::server::Target;
use base64::Engine as _;
use rmcp::model::{
    ClientCapabilities, ClientConfig, GetSkillRequestParams, Implementation, PaginatedRequestParams,
    ReadResourceRequestParams, ResourceContents, SKILLS_EXTENSION_ID, Skill,
};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::streamable_http_client::{StreamableHttpClientTransport, StreamableHttpClientTransportConfig};
use rmcp::{ServiceExt as _, service::ServiceError};
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncReadExt as _;
use tokio::process::{Child, Command};

/// How long and how much.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bounds {
    /// The longest one request (or the start) may take.
    pub request: Duration,
    /// The largest file read, in bytes.
    pub max_file_bytes: u64,
    /// The most entries listed; more are not asked for.
    pub max_entries: usize,
}

impl Bounds {
    /// The largest message accepted: a file of the largest size, base64 or JSON-escaped, with
    /// room for a page of manifests.
    fn max_message(&self) -> usize {
        let file = usize::try_from(self.max_file_bytes).unwrap_or(usize::MAX / 8);
        file.saturating_mul(2).saturating_add(16 << 20)
    }
}

/// Why talking to the server failed.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The program could not be started.
    #[error("could not start `{program}`: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// Why.
        source: std::io::Error,
    },
    /// The HTTP client could not be made.
    #[error("could not make the HTTP client: {0}")]
    Client(String),
    /// The connection or handshake failed.
    #[error("the MCP handshake failed: {reason}{stderr}")]
    Handshake {
        /// What rmcp said.
        reason: String,
        /// The end of what the program wrote on stderr, when it was a program.
        stderr: String,
    },
    /// The server does not declare the Skills extension.
    #[error("the server does not publish skills (it declares no `{SKILLS_EXTENSION_ID}` extension)")]
    NoSkills,
    /// A request took longer than allowed.
    #[error("the server did not answer {what} within {secs} s")]
    Timeout {
        /// What was asked.
        what: String,
        /// The limit.
        secs: u64,
    },
    /// A request failed.
    #[error("{what} failed: {reason}{stderr}")]
    Request {
        /// What was asked.
        what: String,
        /// Why.
        reason: String,
        /// The end of the program's stderr.
        stderr: String,
    },
}

impl SessionError {
    /// A stable code for scripts.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Spawn { .. } | Self::Client(_) | Self::Handshake { .. } => "mcp_unreachable",
            Self::NoSkills => "mcp_no_skills",
            Self::Timeout { .. } => "mcp_timeout",
            Self::Request { .. } => "mcp_request_failed",
        }
    }
}

/// A connected server.
pub(crate) struct Session {
    client: RunningService<RoleClient, ClientConfig>,
    child: Option<Child>,
    stderr: Arc<Mutex<Vec<u8>>>,
    bounds: Bounds,
}

/// The most of a program's stderr kept for an error message.
const STDERR_TAIL: usize = 2048;

/// What this client says it is and supports.
fn client_info() -> ClientConfig {
    let capabilities: ClientCapabilities =
        serde_json::from_value(serde_json::json!({ "extensions": { SKILLS_EXTENSION_ID: {} } })).unwrap_or_default();
    ClientConfig::new(capabilities, Implementation::new("skilldeck", env!("CARGO_PKG_VERSION")))
}

impl Session {
    /// Connects to `target` with `token` (without `Bearer `) as a bearer token over HTTP.
    pub async fn connect(target: &Target, token: Option<&str>, bounds: Bounds) -> Result<Self, SessionError> {
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let (started, child) = match target {
            Target::Command { program, args } => {
                let mut child = Command::new(program)
                    .args(args)
                    .stdin(std::process::Stdio::piped())
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .kill_on_drop(true)
                    .spawn()
                    .map_err(|source| SessionError::Spawn { program: program.clone(), source })?;
                let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
                    return Err(SessionError::Spawn {
                        program: program.clone(),
                        source: std::io::Error::other("no pipes"),
                    });
                };
                if let Some(err) = child.stderr.take() {
                    tokio::spawn(keep_tail(err, Arc::clone(&stderr)));
                }
                let transport = AsyncRwTransport::new_client(stdout, stdin).with_max_line_length(bounds.max_message());
                (within(bounds.request, "the handshake", client_info().serve(transport)).await, Some(child))
            }
            Target::Http { url } => {
                let client = reqwest::Client::builder()
                    .connect_timeout(bounds.request)
                    .read_timeout(bounds.request)
                    .build()
                    .map_err(|e| SessionError::Client(e.to_string()))?;
                let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
                config.auth_header = token.map(str::to_owned);
                config.max_json_response_size = bounds.max_message();
                config.max_sse_event_size = bounds.max_message();
                let transport = StreamableHttpClientTransport::with_client(client, config);
                (within(bounds.request, "the handshake", client_info().serve(transport)).await, None)
            }
        };
        let tail = || tail_of(&stderr);
        let client = match started {
            Ok(Ok(client)) => client,
            Ok(Err(e)) => return Err(SessionError::Handshake { reason: e.to_string(), stderr: tail() }),
            Err(e) => return Err(e),
        };
        let session = Self { client, child, stderr, bounds };
        if !session.client.peer_info().is_some_and(|info| info.capabilities.supports_skills()) {
            return Err(SessionError::NoSkills);
        }
        Ok(session)
    }

    /// Every entry of `skills/list`, up to the bound; `true` when there were more.
    pub async fn list(&self) -> Result<(Vec<Skill>, bool), SessionError> {
        let mut skills = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let params = cursor.take().map(|c| PaginatedRequestParams::default().with_cursor(Some(c)));
            let page = self.ask("skills/list", self.client.list_skills(params)).await?;
            skills.extend(page.skills);
            if skills.len() >= self.bounds.max_entries {
                skills.truncate(self.bounds.max_entries);
                return Ok((skills, page.next_cursor.is_some()));
            }
            match page.next_cursor {
                Some(next) if !next.is_empty() => cursor = Some(next),
                _ => return Ok((skills, false)),
            }
        }
    }

    /// The entry `skills/get` gives for `uri`.
    pub async fn get(&self, uri: &str) -> Result<Skill, SessionError> {
        let what = format!("skills/get {uri}");
        Ok(self.ask(&what, self.client.get_skill(GetSkillRequestParams::new(uri))).await?.skill)
    }

    /// The bytes `resources/read` gives for `uri`: its text as UTF-8, or its blob decoded.
    pub async fn read(&self, uri: &str) -> Result<Vec<u8>, SessionError> {
        let what = format!("resources/read {uri}");
        let result = self.ask(&what, self.client.read_resource(ReadResourceRequestParams::new(uri))).await?;
        let fail = |reason: String| SessionError::Request { what: what.clone(), reason, stderr: String::new() };
        let contents = result
            .contents
            .iter()
            .find(|c| contents_uri(c) == uri)
            .or_else(|| result.contents.first())
            .ok_or_else(|| fail("the server returned no contents".to_owned()))?;
        match contents {
            ResourceContents::TextResourceContents { text, .. } => Ok(text.as_bytes().to_vec()),
            ResourceContents::BlobResourceContents { blob, .. } => base64::engine::general_purpose::STANDARD
                .decode(blob)
                .map_err(|e| fail(format!("its blob is not base64: {e}"))),
            _ => Err(fail("the server returned contents of a kind this client does not know".to_owned())),
        }
    }

    /// Runs one request within the time limit, its error said with the program's stderr.
    async fn ask<T>(
        &self,
        what: &str,
        request: impl Future<Output = Result<T, ServiceError>>,
    ) -> Result<T, SessionError> {
        match within(self.bounds.request, what, request).await? {
            Ok(value) => Ok(value),
            Err(e) => Err(SessionError::Request {
                what: what.to_owned(),
                reason: e.to_string(),
                stderr: tail_of(&self.stderr),
            }),
        }
    }

    /// Ends the session and the program, if one was started.
    pub async fn close(mut self) {
        let _ = tokio::time::timeout(Duration::from_secs(2), self.client.cancel()).await;
        if let Some(child) = self.child.as_mut() {
            let _ = child.kill().await;
        }
    }
}

fn contents_uri(c: &ResourceContents) -> &str {
    match c {
        ResourceContents::TextResourceContents { uri, .. } | ResourceContents::BlobResourceContents { uri, .. } => uri,
        _ => "",
    }
}

/// `future`, or [`SessionError::Timeout`] after `limit`.
async fn within<T>(limit: Duration, what: &str, future: impl Future<Output = T>) -> Result<T, SessionError> {
    tokio::time::timeout(limit, future)
        .await
        .map_err(|_| SessionError::Timeout { what: what.to_owned(), secs: limit.as_secs().max(1) })
}

/// Keeps the last [`STDERR_TAIL`] bytes of a program's stderr.
async fn keep_tail(mut from: tokio::process::ChildStderr, into: Arc<Mutex<Vec<u8>>>) {
    let mut buf = [0u8; 4096];
    while let Ok(n) = from.read(&mut buf).await {
        if n == 0 {
            break;
        }
        if let Ok(mut tail) = into.lock() {
            tail.extend_from_slice(&buf[..n]);
            let over = tail.len().saturating_sub(STDERR_TAIL);
            tail.drain(..over);
        }
    }
}

/// The program's stderr as the end of an error message: `` (it said: …)``, or nothing.
fn tail_of(stderr: &Mutex<Vec<u8>>) -> String {
    let text = stderr.lock().map(|t| String::from_utf8_lossy(&t).trim().to_owned()).unwrap_or_default();
    if text.is_empty() { String::new() } else { format!(" (the server said: {text})") }
}
