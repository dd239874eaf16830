//! A static HTTP/1.1 server on `127.0.0.1` for tests (feature `http-server`): files served from
//! a folder, a chosen status, redirect or stall for a path, every request recorded. Not for use
//! outside tests: it speaks only enough HTTP for a GET.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

/// What the server does for one path instead of serving a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// Answers this status with a short text body.
    Status(u16),
    /// Accepts the connection, reads the request and never answers.
    Stall,
    /// Sends the headers (announcing the file's full length) and the first `sent` bytes of the
    /// file, then never sends more.
    StallBody {
        /// Bytes sent before stalling.
        sent: usize,
    },
    /// Sends the headers (announcing the file's full length), then the file one byte at a
    /// time, one every `every`: a server that never stalls long enough for a read timeout.
    Trickle {
        /// The wait between bytes.
        every: Duration,
    },
    /// Answers `302 Found` to this location.
    Redirect(String),
    /// Serves the file with this `Content-Type` instead of the one its name gives.
    ContentType(String),
    /// Serves the file only to a request carrying `Authorization: Bearer <token>`; answers
    /// `401` to one without it and `403` to one with another token (as the Hugging Face Hub
    /// answers for a gated model).
    NeedsToken(String),
}

/// One request the server received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// `GET`, `HEAD`…
    pub method: String,
    /// The path asked for, query included.
    pub path: String,
    /// The `User-Agent` header, when sent.
    pub user_agent: Option<String>,
    /// The `Authorization` header, when sent.
    pub authorization: Option<String>,
}

struct Shared {
    root: PathBuf,
    routes: Mutex<HashMap<String, Route>>,
    requests: Mutex<Vec<Request>>,
    stop: AtomicBool,
}

/// The running server; it stops when dropped.
pub struct StaticServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
}

impl StaticServer {
    /// Starts a server on `127.0.0.1` at a free port, serving the files under `root`.
    pub fn start(root: impl Into<PathBuf>) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            root: root.into(),
            routes: Mutex::new(HashMap::new()),
            requests: Mutex::new(Vec::new()),
            stop: AtomicBool::new(false),
        });
        let for_loop = Arc::clone(&shared);
        let accept = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if for_loop.stop.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(stream) = stream {
                    let shared = Arc::clone(&for_loop);
                    std::thread::spawn(move || {
                        let _ = serve(&shared, stream);
                    });
                }
            }
        });
        Ok(Self { addr, shared, accept: Some(accept) })
    }

    /// `http://127.0.0.1:<port>`, without a trailing `/`.
    pub fn base(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The URL of `path` (which starts with `/`) on this server.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base())
    }

    /// Makes `path` (as requested, query included) answer with `route`.
    pub fn route(&self, path: &str, route: Route) {
        self.shared.routes.lock().unwrap_or_else(PoisonError::into_inner).insert(path.to_owned(), route);
    }

    /// The requests received so far, in order.
    pub fn requests(&self) -> Vec<Request> {
        self.shared.requests.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

impl Drop for StaticServer {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop so it sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }
}

fn serve(shared: &Shared, mut stream: TcpStream) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    let Some(head) = read_head(&mut stream)? else { return Ok(()) };
    let mut lines = head.lines();
    let mut first = lines.next().unwrap_or_default().split(' ');
    let method = first.next().unwrap_or_default().to_owned();
    let path = first.next().unwrap_or_default().to_owned();
    let headers: Vec<(&str, &str)> = lines.filter_map(|l| l.split_once(':')).collect();
    let header = |name: &str| {
        headers.iter().find(|(k, _)| k.trim().eq_ignore_ascii_case(name)).map(|(_, v)| v.trim().to_owned())
    };
    let (user_agent, authorization) = (header("user-agent"), header("authorization"));
    shared.requests.lock().unwrap_or_else(PoisonError::into_inner).push(Request {
        method: method.clone(),
        path: path.clone(),
        user_agent,
        authorization: authorization.clone(),
    });
    let route = shared.routes.lock().unwrap_or_else(PoisonError::into_inner).get(&path).cloned();
    let file = file_under(&shared.root, &path);
    let head_only = method == "HEAD";
    match route {
        Some(Route::Status(status)) => {
            respond(&mut stream, status, "text/plain", &[], format!("status {status}").as_bytes(), head_only)
        }
        Some(Route::Redirect(to)) => {
            respond(&mut stream, 302, "text/plain", &[("Location", to.as_str())], b"moved", head_only)
        }
        Some(Route::Stall) => {
            stall(shared);
            Ok(())
        }
        Some(Route::StallBody { sent }) => {
            let body = file.and_then(|f| std::fs::read(f).ok()).unwrap_or_default();
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: {}\r\n\r\n",
                body.len()
            );
            stream.write_all(head.as_bytes())?;
            stream.write_all(&body[..sent.min(body.len())])?;
            stream.flush()?;
            stall(shared);
            Ok(())
        }
        Some(Route::Trickle { every }) => {
            let body = file.and_then(|f| std::fs::read(f).ok()).unwrap_or_default();
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: {}\r\n\r\n",
                body.len()
            );
            stream.write_all(head.as_bytes())?;
            for byte in body {
                if shared.stop.load(Ordering::SeqCst) {
                    break;
                }
                std::thread::sleep(every);
                stream.write_all(&[byte])?;
                stream.flush()?;
            }
            Ok(())
        }
        Some(Route::NeedsToken(token)) if authorization.as_deref() != Some(&format!("Bearer {token}")) => {
            let status = if authorization.is_some() { 403 } else { 401 };
            respond(&mut stream, status, "text/plain", &[], b"access to this model is restricted", head_only)
        }
        Some(Route::ContentType(content_type)) => match file.and_then(|f| std::fs::read(f).ok()) {
            Some(body) => respond(&mut stream, 200, &content_type, &[], &body, head_only),
            None => respond(&mut stream, 404, "text/plain", &[], b"not found", head_only),
        },
        None | Some(Route::NeedsToken(_)) => {
            match file.and_then(|f| std::fs::read(&f).ok().map(|b| (content_type_of(&f), b))) {
                Some((content_type, body)) => respond(&mut stream, 200, content_type, &[], &body, head_only),
                None => respond(&mut stream, 404, "text/plain", &[], b"not found", head_only),
            }
        }
    }
}

/// The request's head, up to the blank line; `None` when the client closed first.
fn read_head(stream: &mut TcpStream) -> std::io::Result<Option<String>> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if head.len() > 64 * 1024 || stream.read(&mut byte)? == 0 {
            return Ok(None);
        }
        head.push(byte[0]);
    }
    Ok(Some(String::from_utf8_lossy(&head).into_owned()))
}

/// Holds the connection open, saying nothing, until the server stops.
fn stall(shared: &Shared) {
    while !shared.stop.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn respond(
    stream: &mut TcpStream,
    status: u16,
    content_type: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    head_only: bool,
) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n",
        reason(status),
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    if !head_only {
        stream.write_all(body)?;
    }
    stream.flush()
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        302 => "Found",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        500 => "Internal Server Error",
        _ => "Status",
    }
}

/// The file `path` names under `root`, when it is a plain relative path to a file.
fn file_under(root: &Path, path: &str) -> Option<PathBuf> {
    let path = path.split('?').next().unwrap_or_default().trim_start_matches('/');
    let rel = Path::new(path);
    if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        return None;
    }
    let file = root.join(rel);
    file.is_file().then_some(file)
}

fn content_type_of(file: &Path) -> &'static str {
    let name = file.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    if name.ends_with(".json") {
        "application/json"
    } else if name.ends_with(".md") {
        "text/markdown"
    } else if name.ends_with(".tar.gz") || name.ends_with(".tgz") {
        "application/gzip"
    } else if name.ends_with(".zip") {
        "application/zip"
    } else {
        "application/octet-stream"
    }
}
