//! Landlock confinement of sandboxed commands, beside bubblewrap's (in `sandbox`): no connection
//! to abstract Unix sockets and no signal outside the command's own processes (the IPC scopes),
//! and with the network allowed, TCP connections only to the ports the policy lists. Holds
//! spawning under those rules; not the file-system policy.
//!
//! bubblewrap gives a command its own network namespace only when the network is off; with the
//! network allowed, the host's abstract Unix sockets (an X server's `@/tmp/.X11-unix/X0`, which
//! would let a command type into any window) and every TCP service on this machine (databases,
//! a Docker API, dev servers, a local model server) stay reachable. Landlock closes the first
//! (ABI 6, Linux 6.12) and narrows the second to the listed ports (ABI 4, Linux 6.7). A domain
//! is per thread and inherited by children, so the command is started from a thread that
//! confines itself first; the rest of the process is never confined.

use std::sync::OnceLock;
use std::sync::mpsc;

/// A started command, and the thread that started it. bubblewrap's `--die-with-parent` ties the
/// sandbox's life to that thread, so it lives as long as this value: dropping it ends the
/// thread, and the kernel then ends the sandbox if it is still running.
#[derive(Debug)]
pub struct Started {
    /// The command's process.
    pub child: tokio::process::Child,
    /// Whether every rule asked for holds for it (the IPC scopes, and the ports when asked).
    pub scoped: bool,
    /// The thread that started it: hold it as long as the command should live.
    pub parent: ParentThread,
}

/// Keeps the thread that started a command waiting while held.
#[derive(Debug)]
pub struct ParentThread(#[allow(dead_code, reason = "held, never read: dropping it ends the thread")] mpsc::Sender<()>);

/// Starts `cmd` under the IPC scopes where the kernel has them and, when `tcp_ports` is given,
/// with TCP connections allowed to those ports only; from a thread that lives as long as the
/// returned value.
pub fn spawn(mut cmd: tokio::process::Command, tcp_ports: Option<&[u16]>) -> std::io::Result<Started> {
    let ports = tcp_ports.map(<[u16]>::to_vec);
    let runtime = tokio::runtime::Handle::try_current().map_err(std::io::Error::other)?;
    let (started_tx, started_rx) = mpsc::channel();
    let (parent_tx, parent_rx) = mpsc::channel::<()>();
    std::thread::Builder::new().name("sandboxed-command".into()).spawn(move || {
        let scoped = {
            let _entered = runtime.enter();
            let scoped = confine_this_thread(true, ports.as_deref());
            cmd.spawn().map(|child| (child, scoped))
        };
        let running = scoped.is_ok();
        if started_tx.send(scoped).is_ok() && running {
            // Returns when the `Started` value is dropped.
            let _ = parent_rx.recv();
        }
    })?;
    let (child, scoped) = started_rx
        .recv()
        .map_err(|_| std::io::Error::other("the thread starting the command ended without starting it"))??;
    Ok(Started { child, scoped, parent: ParentThread(parent_tx) })
}

/// Whether this kernel enforces the IPC scopes (tried once, in a thread of its own).
pub fn available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| std::thread::spawn(|| confine_this_thread(true, None)).join().unwrap_or(false))
}

/// Whether this kernel enforces TCP port rules (tried once, in a thread of its own; a kernel
/// may have them, Linux 6.7, without the IPC scopes, 6.12).
pub fn ports_available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| std::thread::spawn(|| confine_this_thread(false, Some(&[]))).join().unwrap_or(false))
}

/// Confines the calling thread (and what it starts from now on) by the IPC scopes when `ipc`,
/// and to TCP connections to `tcp_ports` when given; whether every rule asked for holds.
#[cfg(target_os = "linux")]
fn confine_this_thread(ipc: bool, tcp_ports: Option<&[u16]>) -> bool {
    use landlock::{
        ABI, Access, AccessNet, CompatLevel, Compatible, NetPort, Ruleset, RulesetAttr, RulesetCreatedAttr,
        RulesetError, RulesetStatus, Scope,
    };
    let ruleset = Ok(Ruleset::default().set_compatibility(CompatLevel::BestEffort));
    let ruleset = if ipc { ruleset.and_then(|r| r.scope(Scope::from_all(ABI::V6))) } else { ruleset };
    let ruleset = match tcp_ports {
        Some(_) => ruleset.and_then(|r| r.handle_access(AccessNet::ConnectTcp)),
        None => ruleset,
    };
    let ports = tcp_ports.unwrap_or_default();
    ruleset
        .and_then(|r| r.create())
        .and_then(|r| r.add_rules(ports.iter().map(|&p| Ok::<_, RulesetError>(NetPort::new(p, AccessNet::ConnectTcp)))))
        .and_then(|r| r.restrict_self())
        .is_ok_and(|status| status.ruleset == RulesetStatus::FullyEnforced)
}

#[cfg(not(target_os = "linux"))]
fn confine_this_thread(_ipc: bool, _tcp_ports: Option<&[u16]>) -> bool {
    false
}
