//! Test support (feature `git-server`): Git repositories built with the system `git` from files
//! written in the test, and a loopback smart-HTTP server over `git http-backend` (optionally
//! behind basic auth, and optionally over TLS with a certificate made for the test), plus a
//! server that accepts and never answers. Never used outside tests.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// A work repository and the bare repository it pushes to, in a temporary folder.
pub struct GitRepo {
    dir: tempfile::TempDir,
    work: PathBuf,
    bare: PathBuf,
}

impl GitRepo {
    /// An empty repository on branch `main`, pushing to a bare `repo.git` beside it that allows
    /// fetching any reachable commit by id.
    pub fn new() -> std::io::Result<Self> {
        let dir = tempfile::tempdir()?;
        let work = dir.path().join("work");
        let bare = dir.path().join("repo.git");
        std::fs::create_dir_all(&work)?;
        git(dir.path(), &["init", "-q", "--bare", "-b", "main", "repo.git"])?;
        git(&bare, &["config", "uploadpack.allowReachableSHA1InWant", "true"])?;
        git(&work, &["init", "-q", "-b", "main"])?;
        git(&work, &["remote", "add", "origin", path_str(&bare)?])?;
        Ok(Self { dir, work, bare })
    }

    /// Writes `content` at `path` in the work tree (folders created).
    pub fn write(&self, path: &str, content: impl AsRef<[u8]>) -> std::io::Result<()> {
        let full = self.work.join(path);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(full, content)
    }

    /// Writes a `SKILL.md` named `name` in folder `dir`.
    pub fn skill(&self, dir: &str, name: &str) -> std::io::Result<()> {
        let path = if dir == "." { "SKILL.md".to_string() } else { format!("{dir}/SKILL.md") };
        self.write(&path, format!("---\nname: {name}\ndescription: The {name} skill, for tests.\n---\n\n# {name}\n"))
    }

    /// Writes `content` at `path` as an executable file.
    #[cfg(unix)]
    pub fn write_executable(&self, path: &str, content: impl AsRef<[u8]>) -> std::io::Result<()> {
        use std::os::unix::fs::PermissionsExt;
        self.write(path, content)?;
        std::fs::set_permissions(self.work.join(path), std::fs::Permissions::from_mode(0o755))
    }

    /// Makes `path` a symbolic link to `target`.
    #[cfg(unix)]
    pub fn symlink(&self, path: &str, target: &str) -> std::io::Result<()> {
        let full = self.work.join(path);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::os::unix::fs::symlink(target, full)
    }

    /// Records a submodule (gitlink) at `path` pinned to `commit`, without a `.gitmodules`; its
    /// folder is left empty, as an uninitialised submodule's is.
    pub fn gitlink(&self, path: &str, commit: &str) -> std::io::Result<()> {
        std::fs::create_dir_all(self.work.join(path))?;
        git(&self.work, &["update-index", "--add", "--cacheinfo", &format!("160000,{commit},{path}")]).map(drop)
    }

    /// Commits everything in the work tree and pushes all branches and tags; the new commit id.
    pub fn commit(&self, message: &str) -> std::io::Result<String> {
        git(&self.work, &["add", "-A"])?;
        git(&self.work, &["commit", "-q", "--allow-empty", "-m", message])?;
        self.push()?;
        self.head()
    }

    /// The work tree's `HEAD` commit id.
    pub fn head(&self) -> std::io::Result<String> {
        git(&self.work, &["rev-parse", "HEAD"]).map(|s| s.trim().to_string())
    }

    /// Tags `HEAD` (annotated when `annotated`) and pushes.
    pub fn tag(&self, name: &str, annotated: bool) -> std::io::Result<()> {
        if annotated {
            git(&self.work, &["tag", "-a", "-m", name, name])?;
        } else {
            git(&self.work, &["tag", name])?;
        }
        self.push()
    }

    /// Creates branch `name` at `HEAD` and switches to it.
    pub fn branch(&self, name: &str) -> std::io::Result<()> {
        git(&self.work, &["switch", "-q", "-c", name]).map(drop)
    }

    /// Switches to branch `name`.
    pub fn switch(&self, name: &str) -> std::io::Result<()> {
        git(&self.work, &["switch", "-q", name]).map(drop)
    }

    /// Runs `git` in the work tree with the fixture's isolated configuration; its output.
    pub fn git(&self, args: &[&str]) -> std::io::Result<String> {
        git(&self.work, args)
    }

    fn push(&self) -> std::io::Result<()> {
        git(&self.work, &["push", "-q", "--force", "origin", "refs/heads/*:refs/heads/*", "refs/tags/*:refs/tags/*"])
            .map(drop)
    }

    /// The work tree.
    pub fn work(&self) -> &Path {
        &self.work
    }

    /// The bare repository.
    pub fn bare(&self) -> &Path {
        &self.bare
    }

    /// The folder holding the bare repository (`repo.git`), to serve over HTTP.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// `file://` URL of the bare repository.
    pub fn file_url(&self) -> String {
        format!("file://{}", self.bare.display())
    }
}

/// Runs the system `git` in `dir`, isolated from the user's and system's configuration.
pub fn git(dir: &Path, args: &[&str]) -> std::io::Result<String> {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Fixture")
        .env("GIT_AUTHOR_EMAIL", "fixture@example.invalid")
        .env("GIT_AUTHOR_DATE", "2025-01-01T00:00:00Z")
        .env("GIT_COMMITTER_NAME", "Fixture")
        .env("GIT_COMMITTER_EMAIL", "fixture@example.invalid")
        .env("GIT_COMMITTER_DATE", "2025-01-01T00:00:00Z")
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null())
        .output()?;
    if !output.status.success() {
        return Err(std::io::Error::other(format!(
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr)
        )));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

fn path_str(path: &Path) -> std::io::Result<&str> {
    path.to_str().ok_or_else(|| std::io::Error::other("fixture path is not UTF-8"))
}

/// One request the HTTP server received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Received {
    /// `GET` or `POST`.
    pub method: String,
    /// The path and query.
    pub target: String,
    /// Whether it carried an `Authorization` header.
    pub authorized: bool,
}

/// A loopback Git smart-HTTP server: `git http-backend` over the repositories in a folder.
pub struct GitHttpServer {
    addr: SocketAddr,
    tls: bool,
    stop: Arc<AtomicBool>,
    received: Arc<Mutex<Vec<Received>>>,
    handle: Option<JoinHandle<()>>,
}

impl GitHttpServer {
    /// Serves the bare repositories under `root` on `127.0.0.1`, on a free port; with
    /// `basic_auth`, a request without that user and password gets `401`.
    pub fn start(root: &Path, basic_auth: Option<(&str, &str)>) -> std::io::Result<Self> {
        Self::serve_on(root, basic_auth, None, None)
    }

    /// [`GitHttpServer::start`] over HTTPS, with a certificate for `127.0.0.1` made for this
    /// server and signed by itself. Returns the server and that certificate in PEM, for the
    /// client to trust (`SSL_CERT_FILE`).
    pub fn start_tls(root: &Path, basic_auth: Option<(&str, &str)>) -> std::io::Result<(Self, String)> {
        let (config, cert_pem) = Self::tls_config()?;
        Ok((Self::serve_on(root, basic_auth, Some(config), None)?, cert_pem))
    }

    /// An HTTPS server that answers every request with `302 Found` to the same path and query
    /// under `to` (e.g. `https://localhost:PORT`), recording each; with its certificate in PEM.
    pub fn start_tls_redirect(to: &str) -> std::io::Result<(Self, String)> {
        let (config, cert_pem) = Self::tls_config()?;
        let root = std::env::temp_dir();
        Ok((Self::serve_on(&root, None, Some(config), Some(to.trim_end_matches('/').to_owned()))?, cert_pem))
    }

    /// A TLS configuration with a certificate for `127.0.0.1` and `localhost`, signed by itself;
    /// and that certificate in PEM.
    fn tls_config() -> std::io::Result<(Arc<rustls::ServerConfig>, String)> {
        let certified = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned(), "localhost".to_owned()])
            .map_err(std::io::Error::other)?;
        let cert_pem = certified.cert.pem();
        let key = rustls::pki_types::PrivateKeyDer::Pkcs8(certified.signing_key.serialize_der().into());
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(std::io::Error::other)?
            .with_no_client_auth()
            .with_single_cert(vec![certified.cert.der().clone()], key)
            .map_err(std::io::Error::other)?;
        Ok((Arc::new(config), cert_pem))
    }

    fn serve_on(
        root: &Path,
        basic_auth: Option<(&str, &str)>,
        tls: Option<Arc<rustls::ServerConfig>>,
        redirect: Option<String>,
    ) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let received = Arc::new(Mutex::new(Vec::new()));
        let expected = basic_auth.map(|(user, password)| format!("Basic {}", base64(&format!("{user}:{password}"))));
        let (root, stop2, received2, tls2) = (root.to_path_buf(), stop.clone(), received.clone(), tls.clone());
        let handle = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stop2.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (root, expected, received, tls) = (root.clone(), expected.clone(), received2.clone(), tls2.clone());
                let redirect = redirect.clone();
                std::thread::spawn(move || {
                    let how = Serve { root: &root, expected: expected.as_deref(), redirect: redirect.as_deref() };
                    let _ = match tls {
                        Some(config) => rustls::ServerConnection::new(config)
                            .map_err(std::io::Error::other)
                            .and_then(|c| serve(rustls::StreamOwned::new(c, stream), &how, &received)),
                        None => serve(stream, &how, &received),
                    };
                });
            }
        });
        Ok(Self { addr, tls: tls.is_some(), stop, received, handle: Some(handle) })
    }

    /// `http://127.0.0.1:PORT/{path}` (`https://` over TLS).
    pub fn url(&self, path: &str) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://{}/{}", self.addr, path.trim_start_matches('/'))
    }

    /// [`GitHttpServer::url`] naming the server `localhost` instead of `127.0.0.1`: another host
    /// to a client (its certificate names both).
    pub fn url_as_localhost(&self, path: &str) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://localhost:{}/{}", self.addr.port(), path.trim_start_matches('/'))
    }

    /// The requests received so far.
    pub fn received(&self) -> Vec<Received> {
        self.received.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

impl Drop for GitHttpServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}

/// How a [`GitHttpServer`] answers.
struct Serve<'a> {
    root: &'a Path,
    /// The `Authorization` header a request must carry, when one must.
    expected: Option<&'a str>,
    /// Where every request is redirected to instead, when it is.
    redirect: Option<&'a str>,
}

fn serve(stream: impl Read + Write, how: &Serve<'_>, received: &Mutex<Vec<Received>>) -> std::io::Result<()> {
    let Serve { root, expected, redirect } = *how;
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_string();
    let target = parts.next().unwrap_or_default().to_string();
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.trim_end().split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    let header = |name: &str| headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
    let body = read_body(&mut reader, header("content-length"), header("transfer-encoding"))?;
    let authorization = header("authorization");
    if let Ok(mut received) = received.lock() {
        received.push(Received { method: method.clone(), target: target.clone(), authorized: authorization.is_some() });
    }
    // One request a connection: whatever the reader holds past the body is not read.
    let stream = reader.get_mut();
    if let Some(to) = redirect {
        write!(
            stream,
            "HTTP/1.1 302 Found\r\nLocation: {to}{target}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )?;
        return stream.flush();
    }
    if let Some(expected) = expected
        && authorization.as_deref() != Some(expected)
    {
        let body = "credentials needed\n";
        write!(
            stream,
            "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"test\"\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )?;
        return stream.flush();
    }
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    let mut cgi = Command::new("git");
    cgi.arg("http-backend")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("GIT_PROJECT_ROOT", root)
        .env("GIT_HTTP_EXPORT_ALL", "1")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("REQUEST_METHOD", &method)
        .env("PATH_INFO", path)
        .env("QUERY_STRING", query)
        .env("REMOTE_ADDR", "127.0.0.1")
        .env("CONTENT_LENGTH", body.len().to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    for (name, var) in [
        ("content-type", "CONTENT_TYPE"),
        ("git-protocol", "GIT_PROTOCOL"),
        ("content-encoding", "HTTP_CONTENT_ENCODING"),
    ] {
        if let Some(value) = header(name) {
            cgi.env(var, value);
        }
    }
    if expected.is_some() {
        cgi.env("REMOTE_USER", "test");
    }
    let mut child = cgi.spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(&body)?;
    }
    let output = child.wait_with_output()?;
    let out = output.stdout;
    let split = find(&out, b"\r\n\r\n").map(|i| (i, 4)).or_else(|| find(&out, b"\n\n").map(|i| (i, 2)));
    let (head, body) = match split {
        Some((i, n)) => (String::from_utf8_lossy(&out[..i]).into_owned(), &out[i + n..]),
        None => (String::new(), &out[..]),
    };
    let mut status = "200 OK".to_string();
    let mut response = Vec::new();
    for line in head.lines() {
        match line.split_once(':') {
            Some((name, value)) if name.eq_ignore_ascii_case("status") => status = value.trim().to_string(),
            Some(_) => response.extend_from_slice(format!("{line}\r\n").as_bytes()),
            None => {}
        }
    }
    stream.write_all(format!("HTTP/1.1 {status}\r\n").as_bytes())?;
    stream.write_all(&response)?;
    stream.write_all(format!("Content-Length: {}\r\nConnection: close\r\n\r\n", body.len()).as_bytes())?;
    stream.write_all(body)?;
    stream.flush()
}

fn read_body(reader: &mut impl BufRead, length: Option<String>, encoding: Option<String>) -> std::io::Result<Vec<u8>> {
    let mut body = Vec::new();
    if encoding.is_some_and(|e| e.eq_ignore_ascii_case("chunked")) {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size)?;
            let size = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
                .map_err(std::io::Error::other)?;
            if size == 0 {
                let mut trailer = String::new();
                while reader.read_line(&mut trailer)? > 2 {
                    trailer.clear();
                }
                break;
            }
            let start = body.len();
            body.resize(start + size, 0);
            reader.read_exact(&mut body[start..])?;
            let mut crlf = [0u8; 2];
            reader.read_exact(&mut crlf)?;
        }
    } else if let Some(length) = length.and_then(|l| l.parse::<usize>().ok()) {
        body.resize(length, 0);
        reader.read_exact(&mut body)?;
    }
    Ok(body)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn base64(text: &str) -> String {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in text.as_bytes().chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(TABLE[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A server that accepts connections and never answers, until dropped.
pub struct StallServer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl StallServer {
    /// Listens on `127.0.0.1`, on a free port.
    pub fn start() -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let stop2 = stop.clone();
        let handle = std::thread::spawn(move || {
            let mut held = Vec::new();
            for stream in listener.incoming() {
                if stop2.load(Ordering::SeqCst) {
                    break;
                }
                held.extend(stream.ok());
            }
        });
        Ok(Self { addr, stop, handle: Some(handle) })
    }

    /// `http://127.0.0.1:PORT/{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}/{}", self.addr, path.trim_start_matches('/'))
    }
}

impl Drop for StallServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}
