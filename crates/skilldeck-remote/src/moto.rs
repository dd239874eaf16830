//! A real S3-compatible server on loopback for tests: moto in server mode, from the venv that
//! scripts/setup installs in `.tools/moto`. Holds starting, stopping and reading its request
//! log; built only with the `moto-harness` feature.

use std::io;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The access key moto accepts (any is accepted; this one is obviously fake).
pub const ACCESS_KEY: &str = "testing";
/// The secret key that goes with it.
pub const SECRET_KEY: &str = "testing";

/// Finds `moto_server`: `$SKILLDECK_MOTO_SERVER`, else `.tools/moto/bin/moto_server` in `start`
/// or a folder above it. `Ok(None)` means the tests should skip (loudly); with
/// `SKILLDECK_S3_TESTS` set, a missing server is an error instead.
pub fn find_server(start: &Path) -> Result<Option<PathBuf>, String> {
    if let Ok(p) = std::env::var("SKILLDECK_MOTO_SERVER") {
        return Ok(Some(PathBuf::from(p)));
    }
    let found = start.ancestors().map(|d| d.join(".tools/moto/bin/moto_server")).find(|p| p.is_file());
    match found {
        Some(p) => Ok(Some(p)),
        None if std::env::var_os("SKILLDECK_S3_TESTS").is_some() => {
            Err("SKILLDECK_S3_TESTS is set but .tools/moto/bin/moto_server is missing: run scripts/setup".into())
        }
        None => {
            eprintln!(
                "\n!!!! SKIPPING S3 TESTS: no moto server in .tools/moto (run scripts/setup, or set \
                 SKILLDECK_S3_TESTS=1 to make this an error) !!!!\n"
            );
            Ok(None)
        }
    }
}

/// A running moto server; stopped when dropped.
#[derive(Debug)]
pub struct MotoServer {
    child: Option<Child>,
    port: u16,
    log: PathBuf,
}

fn free_port() -> io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Whether an HTTP server answers on `port`. A bare TCP connect is not enough: a port in the
/// ephemeral range with nothing listening can connect to itself (TCP simultaneous open).
fn answers_http(port: u16) -> bool {
    use std::io::{Read as _, Write as _};
    let Ok(mut sock) =
        TcpStream::connect_timeout(&(std::net::Ipv4Addr::LOCALHOST, port).into(), Duration::from_secs(1))
    else {
        return false;
    };
    if sock.local_addr().ok() == sock.peer_addr().ok() {
        return false;
    }
    let _ = sock.set_read_timeout(Some(Duration::from_secs(5)));
    let probe = format!("GET /moto-api/ HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    let mut head = [0u8; 5];
    sock.write_all(probe.as_bytes()).is_ok() && sock.read_exact(&mut head).is_ok() && &head == b"HTTP/"
}

impl MotoServer {
    /// Starts `server` on a free loopback port, logging its requests to `log`, and waits
    /// until it answers HTTP. The port is free when picked but not held until moto binds it, so
    /// another process can take it meanwhile: a server that exits before answering is started
    /// again on a new port (three tries).
    pub fn start(server: &Path, log: &Path) -> io::Result<Self> {
        let mut last = None;
        for _ in 0..3 {
            match Self::start_once(server, log)? {
                Ok(me) => return Ok(me),
                Err(exited) => last = Some(exited),
            }
        }
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let tail = lines[lines.len().saturating_sub(5)..].join("\n");
        Err(io::Error::other(format!(
            "moto_server exited before answering, three times (last: {}); its log ends:\n{tail}",
            last.map(|s| s.to_string()).unwrap_or_default()
        )))
    }

    /// One try: `Ok(Err(status))` when the server exited before it answered.
    fn start_once(server: &Path, log: &Path) -> io::Result<Result<Self, std::process::ExitStatus>> {
        let port = free_port()?;
        let out = std::fs::File::create(log)?;
        let child = Command::new(server)
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .env("PYTHONUNBUFFERED", "1")
            .stdin(Stdio::null())
            .stdout(out.try_clone()?)
            .stderr(out)
            .spawn()?;
        let mut me = Self { child: Some(child), port, log: log.to_owned() };
        let deadline = Instant::now() + Duration::from_secs(30);
        while !answers_http(port) {
            if let Some(status) = me.child.as_mut().map(Child::try_wait).transpose()?.flatten() {
                me.child = None;
                return Ok(Err(status));
            }
            if Instant::now() > deadline {
                return Err(io::Error::new(io::ErrorKind::TimedOut, "moto_server did not start in 30 s"));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(Ok(me))
    }

    /// Its port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:<port>`.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Creates a bucket (moto accepts the request unsigned).
    pub async fn create_bucket(&self, bucket: &str) -> io::Result<()> {
        succeeded(
            reqwest::Client::new().put(format!("{}/{bucket}", self.endpoint())),
            &format!("creating bucket {bucket}"),
        )
        .await
    }

    /// A plain signed client of `bucket`: what another machine's tool writes with.
    fn client(&self, bucket: &str) -> io::Result<object_store::aws::AmazonS3> {
        object_store::aws::AmazonS3Builder::new()
            .with_bucket_name(bucket)
            .with_region("us-east-1")
            .with_endpoint(self.endpoint())
            .with_allow_http(true)
            .with_access_key_id(ACCESS_KEY)
            .with_secret_access_key(SECRET_KEY)
            .build()
            .map_err(io::Error::other)
    }

    /// Deletes an object, as another machine's tool would (a signed request: moto refuses
    /// unsigned deletes).
    pub async fn delete_object(&self, bucket: &str, key: &str) -> io::Result<()> {
        use object_store::ObjectStoreExt as _;
        self.client(bucket)?.delete(&object_store::path::Path::from(key)).await.map_err(io::Error::other)
    }

    /// Writes any bytes at any key, as a careless or hostile writer of the bucket would.
    pub async fn put_object(&self, bucket: &str, key: &str, bytes: Vec<u8>) -> io::Result<()> {
        use object_store::ObjectStoreExt as _;
        let key = object_store::path::Path::from(key);
        self.client(bucket)?.put(&key, bytes.into()).await.map(|_| ()).map_err(io::Error::other)
    }

    /// Writes `bytes` at `key` sent exactly as given (unsigned, which moto takes while its
    /// credential checks are off): a key no object path holds (`a/../b`, `a//b`) that no
    /// client library would send, as a hostile writer with plain HTTP could. `key` must need
    /// no escaping in a request line (no space, `?`, `#` or control character).
    pub async fn put_raw_key(&self, bucket: &str, key: &str, bytes: &[u8]) -> io::Result<()> {
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
        let mut sock = tokio::net::TcpStream::connect(("127.0.0.1", self.port)).await?;
        let head = format!(
            "PUT /{bucket}/{key} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/octet-stream\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n",
            self.port,
            bytes.len()
        );
        sock.write_all(head.as_bytes()).await?;
        sock.write_all(bytes).await?;
        let mut answer = Vec::new();
        sock.read_to_end(&mut answer).await?;
        let status = String::from_utf8_lossy(&answer).lines().next().unwrap_or_default().to_owned();
        if status.split(' ').nth(1) == Some("200") {
            Ok(())
        } else {
            Err(io::Error::other(format!("writing {key}: {status}")))
        }
    }

    /// Every key under `prefix`, sorted.
    pub async fn keys(&self, bucket: &str, prefix: &str) -> io::Result<Vec<String>> {
        use futures_util::TryStreamExt as _;
        use object_store::ObjectStore as _;
        let prefix = object_store::path::Path::from(prefix);
        let metas: Vec<_> = self.client(bucket)?.list(Some(&prefix)).try_collect().await.map_err(io::Error::other)?;
        let mut keys: Vec<String> = metas.into_iter().map(|m| m.location.to_string()).collect();
        keys.sort();
        Ok(keys)
    }

    /// Turns on moto's checking of credentials from now on (its `reset-auth` API): a key it
    /// never issued is refused with a 403, as a real S3 refuses one.
    pub async fn require_auth(&self) -> io::Result<()> {
        let reset = reqwest::Client::new().post(format!("{}/moto-api/reset-auth", self.endpoint())).body("0");
        succeeded(reset, "turning on auth").await
    }

    /// The requests served so far, as `(method, path and query, status)`, from the server's log.
    pub fn requests(&self) -> io::Result<Vec<(String, String, u16)>> {
        let raw = std::fs::read_to_string(&self.log)?;
        // The log colours non-2xx lines with ANSI escapes (`ESC[31m`); drop them.
        let mut text = String::with_capacity(raw.len());
        let mut in_escape = false;
        for c in raw.chars() {
            match (in_escape, c) {
                (false, '\u{1b}') => in_escape = true,
                (false, c) => text.push(c),
                (true, 'm') => in_escape = false,
                (true, _) => {}
            }
        }
        Ok(text
            .lines()
            .filter_map(|l| {
                let (_, rest) = l.split_once('"')?;
                let (req, after) = rest.split_once('"')?;
                let mut parts = req.split(' ');
                let status = after.split_whitespace().next()?.parse().ok()?;
                Some((parts.next()?.to_owned(), parts.next()?.to_owned(), status))
            })
            .collect())
    }

    /// Stops the server (kill and wait).
    pub fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for MotoServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Sends `req` to moto; an answer other than success is an error saying what was `doing`.
async fn succeeded(req: reqwest::RequestBuilder, doing: &str) -> io::Result<()> {
    let res = req.send().await.map_err(io::Error::other)?;
    if res.status().is_success() { Ok(()) } else { Err(io::Error::other(format!("{doing}: {}", res.status()))) }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_server_that_exits_before_answering_is_tried_three_times_then_explained() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("moto_server");
        let count = dir.path().join("starts");
        std::fs::write(
            &script,
            format!("#!/bin/sh\necho start >> {}\necho 'Address already in use' >&2\nexit 1\n", count.display()),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        let err = MotoServer::start(&script, &dir.path().join("log")).unwrap_err().to_string();
        assert!(err.contains("exited before answering, three times"), "{err}");
        assert!(err.contains("Address already in use"), "{err}");
        assert_eq!(std::fs::read_to_string(&count).unwrap().lines().count(), 3);
    }

    #[test]
    fn a_port_with_nothing_listening_does_not_answer() {
        let port = free_port().unwrap();
        assert!(!answers_http(port));
    }
}
