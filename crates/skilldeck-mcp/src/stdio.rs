//! `skilldeck mcp` over standard input and output: newline-delimited JSON-RPC, one message a
//! line. A thin transport in place of rmcp's own, which drops a line that is not JSON without a
//! word: here such a line gets a Parse error (-32700, id null) and the next line is served as
//! usual, as JSON-RPC 2.0 asks. Bounded: after [`MAX_REPLIES_IN_A_ROW`] such lines with no
//! message between them (a client writing its own log into the server's input), the rest go
//! unanswered, with one note on standard error, until a message arrives; so a chatty peer gets
//! a few errors, not a storm (the reason rmcp stopped answering). Holds line framing and that
//! reply only; every message goes to rmcp as before.

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

/// How many lines in a row that are no message are answered; the rest are not, until a
/// message arrives.
pub const MAX_REPLIES_IN_A_ROW: u32 = 16;

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
    /// Lines that were no message since the last message.
    refused_in_a_row: u32,
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
            refused_in_a_row: 0,
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
                Some(Incoming::Message(message)) => {
                    self.refused_in_a_row = 0;
                    return Some(*message);
                }
                Some(Incoming::Reply(_)) if self.refused_in_a_row >= MAX_REPLIES_IN_A_ROW => {}
                Some(Incoming::Reply(reply)) => {
                    self.refused_in_a_row += 1;
                    if self.refused_in_a_row == MAX_REPLIES_IN_A_ROW {
                        eprintln!(
                            "skilldeck mcp: {MAX_REPLIES_IN_A_ROW} lines in a row were no JSON-RPC message; the next \
                             ones go unanswered until a message arrives (is the client writing its log to this \
                             server's input?)"
                        );
                    }
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use tokio::io::AsyncReadExt as _;

    /// Feeds `input` to the transport and returns what it wrote back, and the messages it passed on.
    async fn run(input: String) -> (String, usize) {
        let (mut client, server) = tokio::io::duplex(1 << 20);
        let (read, write) = tokio::io::split(server);
        let mut t = StdioLines::new(read, write);
        client.write_all(input.as_bytes()).await.unwrap();
        client.shutdown().await.unwrap();
        let mut messages = 0;
        while t.receive().await.is_some() {
            messages += 1;
        }
        t.close().await.unwrap();
        // The server's side dropped whole, so the client reads to the end.
        drop(t);
        let mut out = String::new();
        client.read_to_string(&mut out).await.unwrap();
        (out, messages)
    }

    #[tokio::test]
    async fn a_log_written_into_the_input_gets_a_few_errors_not_a_storm() {
        let ping = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";
        let log = "INFO starting up\n".repeat(1000);
        let (out, messages) = run(format!("{log}{ping}{{{{{{\n")).await;
        let errors = out.lines().filter(|l| l.contains("-32700")).count();
        // 16 answered, the rest of the log not; the message resets the count, so the line
        // after it is answered again.
        assert_eq!((errors, messages), (MAX_REPLIES_IN_A_ROW as usize + 1, 1), "{out}");
    }
}
