//! `skilldeck mcp` over standard input and output: newline-delimited JSON-RPC, one message a
//! line. A thin transport in place of rmcp's own, which drops a line that is not JSON without a
//! word: here such a line gets a Parse error (-32700, id null) and the next line is served as
//! usual. Holds line framing and that reply only; every message goes to rmcp as before.

use crate::incoming::{Incoming, judge};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::service::RoleServer;
use rmcp::transport::Transport;
use std::io;
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncWrite, AsyncWriteExt as _, BufReader};
use tokio::sync::Mutex;

/// The longest line read: a longer one is dropped, as rmcp's own transport does (the size of
/// the largest event its HTTP client takes).
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// The writer, shared by replies from rmcp and the transport's own error replies, so each line
/// is written whole; `None` once closed.
type Writer<W> = Arc<Mutex<Option<W>>>;

/// How one bounded line read ended.
enum LineRead {
    /// A whole `\n`-terminated line is in the buffer.
    Line,
    /// The line was longer than [`MAX_LINE_BYTES`] and is dropped.
    Oversized,
    /// The client closed its side.
    Eof,
    /// Reading failed.
    Failed(io::Error),
}

/// Newline-delimited JSON-RPC over a reader and a writer, answering unparsable lines.
pub(crate) struct StdioLines<R, W> {
    read: BufReader<R>,
    /// The line read so far; kept across calls, since rmcp may drop a `receive` mid-line.
    line: Vec<u8>,
    /// Set while the rest of an oversized line is being skipped.
    discarding: bool,
    write: Writer<W>,
}

impl<R, W> StdioLines<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// A transport reading `read` and writing `write`.
    pub(crate) fn new(read: R, write: W) -> Self {
        Self {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            write: Arc::new(Mutex::new(Some(write))),
        }
    }

    /// Reads one line into `self.line`, never letting it grow past [`MAX_LINE_BYTES`].
    /// Cancel-safe: bytes are taken from the reader only once copied into `self.line`.
    async fn read_line(&mut self) -> LineRead {
        loop {
            let available = match self.read.fill_buf().await {
                Ok(b) => b,
                Err(e) => return LineRead::Failed(e),
            };
            if available.is_empty() {
                return LineRead::Eof;
            }
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            let mut done = None;
            if self.discarding {
                self.discarding = newline.is_none();
            } else if self.line.len().saturating_add(take) > MAX_LINE_BYTES {
                self.line.clear();
                self.discarding = newline.is_none();
                done = Some(LineRead::Oversized);
            } else {
                self.line.extend_from_slice(&available[..take]);
                if newline.is_some() {
                    done = Some(LineRead::Line);
                }
            }
            self.read.consume(take);
            if let Some(d) = done {
                return d;
            }
        }
    }
}

/// Writes `line` whole, then flushes.
async fn write_line<W: AsyncWrite + Unpin>(write: &Mutex<Option<W>>, line: &[u8]) -> io::Result<()> {
    let mut guard = write.lock().await;
    let w = guard.as_mut().ok_or_else(|| io::Error::new(io::ErrorKind::NotConnected, "the transport is closed"))?;
    w.write_all(line).await?;
    w.flush().await
}

impl<R, W> Transport<RoleServer> for StdioLines<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = io::Error;

    fn send(&mut self, item: ServerJsonRpcMessage) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        let write = Arc::clone(&self.write);
        async move {
            let mut line = serde_json::to_vec(&item).map_err(io::Error::other)?;
            line.push(b'\n');
            write_line(&write, &line).await
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            match self.read_line().await {
                LineRead::Line => {}
                LineRead::Oversized => continue,
                LineRead::Eof => return None,
                LineRead::Failed(e) => {
                    eprintln!("skilldeck mcp: could not read standard input: {e}");
                    return None;
                }
            }
            let judged = {
                let text = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
                let text = text.strip_suffix(b"\r").unwrap_or(text);
                (!text.iter().all(u8::is_ascii_whitespace)).then(|| judge(text))
            };
            self.line.clear();
            match judged {
                None | Some(Incoming::Ignore) => {}
                Some(Incoming::Message(message)) => return Some(*message),
                Some(Incoming::Reply(reply)) => {
                    let mut line = reply.to_string().into_bytes();
                    line.push(b'\n');
                    // A task of its own, so the reply is written whole even when rmcp drops
                    // this `receive` meanwhile; awaited, so it goes before later replies.
                    let write = Arc::clone(&self.write);
                    let sent = tokio::spawn(async move { write_line(&write, &line).await });
                    if !matches!(sent.await, Ok(Ok(()))) {
                        return None;
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        drop(self.write.lock().await.take());
        Ok(())
    }
}
