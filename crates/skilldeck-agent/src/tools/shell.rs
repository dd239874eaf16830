//! The `shell` tool: `sh -c` in the workspace, in the OS sandbox, with a timeout, an output cap
//! and cancellation. Holds running and reaping the process group; not approval (the loop asks).

use super::confine;
use super::limits;
use super::sandbox::ShellSandbox;
use super::{ToolError, ToolErrorCode};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWriteExt as _};
use tokio_util::sync::CancellationToken;

/// How a shell command is bounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShellLimits {
    /// How long it may run.
    pub timeout: Duration,
    /// How many bytes of stdout, and of stderr, are kept.
    pub output_cap: usize,
}

impl Default for ShellLimits {
    fn default() -> Self {
        Self { timeout: Duration::from_secs(120), output_cap: 32 * 1024 }
    }
}

/// The command a `shell` call asks for, if its input is well formed.
pub fn command_of(input: &Value) -> Result<&str, ToolError> {
    match input.get("command").and_then(Value::as_str) {
        Some(c) if !c.trim().is_empty() => Ok(c),
        _ => Err(ToolError::new(ToolErrorCode::InvalidArguments, "`command` (a non-empty string) is required")),
    }
}

/// Reads all of `r`, keeping the first `cap` bytes; returns them and the total.
async fn capped(mut r: impl AsyncRead + Unpin, cap: usize) -> (Vec<u8>, usize) {
    let mut kept = Vec::new();
    let mut total = 0usize;
    let mut buf = [0u8; 8192];
    while let Ok(n) = r.read(&mut buf).await {
        if n == 0 {
            break;
        }
        total += n;
        let room = cap.saturating_sub(kept.len());
        kept.extend_from_slice(&buf[..n.min(room)]);
    }
    (kept, total)
}

/// Kills the command's whole process group when dropped while armed: a turn dropped mid-command
/// (its task aborted) leaves nothing running.
struct GroupGuard(Option<u32>);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        kill_group(self.0.take());
    }
}

fn kill_group(pid: Option<u32>) {
    if let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()).and_then(rustix::process::Pid::from_raw) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

/// Marks every descriptor from 3 up close-on-exec. Whatever launched Skilldeck (a shell's
/// `exec 8<~`, a desktop session) may have left descriptors open without close-on-exec; each
/// would reach a command through bubblewrap, and a directory descriptor on the home folder reads
/// and writes through `/proc/self/fd/N/` past every mount of the sandbox. Descriptors Skilldeck
/// opens itself are close-on-exec already (Rust opens them so), so this changes nothing of its
/// own; it runs before every command, so a descriptor inherited by any front end is covered.
fn seal_inherited() {
    #[cfg(target_os = "linux")]
    close_fds::set_fds_cloexec(3, &[]);
}

/// What the sandbox refuses shows up in a command's error output as one of these.
const REFUSALS: &[&str] = &[
    "Read-only file system",
    "Permission denied",
    "Network is unreachable",
    "Temporary failure in name resolution",
    "Could not resolve host",
];

/// Runs `command` with `sh -c` in `workspace` inside `sandbox`, in its own process group so a
/// timeout or a cancellation kills everything it started. Returns
/// `{command, exitCode, stdout, stderr, truncated, timedOut, sandboxed}`, and a `note` that
/// explains the sandbox when the command failed on something it refuses.
pub async fn run(
    sandbox: &ShellSandbox,
    workspace: &Path,
    command: &str,
    limits: ShellLimits,
    cancel: &CancellationToken,
) -> Result<Value, ToolError> {
    let mut cmd = sandbox.enforcer.command(&sandbox.policy, workspace, command);
    // The command waits on its standard input until it is bounded (see `Enforcer::command`).
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0).kill_on_drop(true);
    let start = |e: std::io::Error| {
        ToolError::new(ToolErrorCode::Io, format!("could not start the command ({}): {e}", sandbox.describe()))
    };
    // No descriptor beyond the three standard ones reaches the command (see `seal_inherited`).
    seal_inherited();
    // A sandboxed command is also kept from the host's abstract sockets and processes.
    // The sandbox lives while `_parent` does: to the end of this call, or its drop.
    let (mut child, _parent) = if sandbox.is_sandboxed() {
        let started = confine::spawn(cmd, sandbox.policy.network, sandbox.policy.tcp_ports()).map_err(start)?;
        (started.child, Some(started.parent))
    } else {
        (cmd.spawn().map_err(start)?, None)
    };
    let pid = child.id();
    let mut guard = GroupGuard(pid);
    let bound = |e: std::io::Error| {
        ToolError::new(ToolErrorCode::Io, format!("could not bound the command's resources, so it did not run: {e}"))
    };
    let applied = limits::apply(pid.unwrap_or(0), sandbox.policy.limits).map_err(bound)?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(b"go\n").await.map_err(bound)?;
    }
    let out = child.stdout.take().map(|s| tokio::spawn(capped(s, limits.output_cap)));
    let err = child.stderr.take().map(|s| tokio::spawn(capped(s, limits.output_cap)));
    let (status, timed_out) = tokio::select! {
        () = cancel.cancelled() => {
            kill_group(pid);
            let _ = child.wait().await;
            return Err(ToolError::new(ToolErrorCode::Cancelled, "the user stopped the command"));
        }
        r = tokio::time::timeout(limits.timeout, child.wait()) => match r {
            Ok(s) => (s.ok(), false),
            Err(_) => {
                kill_group(pid);
                (child.wait().await.ok(), true)
            }
        },
    };
    // The shell exited by itself (or was killed above): what it left in the background may go on.
    guard.0 = None;
    // A process that left the group could hold the pipes open; do not wait for it long.
    let collect = |h: Option<tokio::task::JoinHandle<(Vec<u8>, usize)>>| async move {
        match h {
            Some(h) => tokio::time::timeout(Duration::from_secs(2), h).await.ok().and_then(Result::ok),
            None => None,
        }
        .unwrap_or_default()
    };
    let (stdout, out_total) = collect(out).await;
    let (stderr, err_total) = collect(err).await;
    let truncated = out_total > stdout.len() || err_total > stderr.len();
    let exit_code = if timed_out { None } else { status.and_then(|s| s.code()) };
    let stderr = String::from_utf8_lossy(&stderr);
    let mut result = json!({
        "command": command,
        "exitCode": exit_code,
        "stdout": String::from_utf8_lossy(&stdout),
        "stderr": stderr,
        "truncated": truncated,
        "timedOut": timed_out,
        "sandboxed": sandbox.is_sandboxed(),
    });
    let mut notes = Vec::new();
    if let Some(hit) = applied.what_was_hit(exit_code, &stderr) {
        notes.push(format!("The command hit a resource limit: {hit}."));
    }
    if sandbox.is_sandboxed() && exit_code != Some(0) && REFUSALS.iter().any(|r| stderr.contains(r)) {
        notes.push(format!(
            "The command ran in a sandbox: {}. A failure above may be the sandbox refusing it; work inside the \
             workspace, or tell the user what the command needs.",
            sandbox.policy.describe_limits()
        ));
    }
    if !notes.is_empty() {
        result["note"] = json!(notes.join(" "));
    }
    // The sandbox ends with its parent thread; then the command's cgroup goes.
    drop(_parent);
    applied.finish().await;
    Ok(result)
}
