//! Landlock and seccomp confinement of sandboxed commands, beside bubblewrap's (in `sandbox`): no
//! connection to abstract Unix sockets and no signal outside the command's own processes (the
//! IPC scopes); with the network allowed, TCP connections only to the ports the policy lists;
//! with it off, no Unix socket at all. Holds spawning under those rules; not the file-system
//! policy.
//!
//! bubblewrap gives a command its own network namespace only when the network is off; with the
//! network allowed, the host's abstract Unix sockets (an X server's `@/tmp/.X11-unix/X0`, which
//! would let a command type into any window) and every TCP service on this machine (databases,
//! a Docker API, dev servers, a local model server) stay reachable. Landlock closes the first
//! (ABI 6, Linux 6.12) and narrows the second to the listed ports (ABI 4, Linux 6.7). A domain
//! is per thread and inherited by children, so the command is started from a thread that
//! confines itself first; the rest of the process is never confined.
//!
//! Landlock's port rule covers `connect()` only: `sendto()` with `MSG_FASTOPEN` (TCP fast open
//! connects and sends in one call) and a socket of the MPTCP protocol (a TCP connection Landlock
//! does not see) reach any port. A seccomp filter, applied in the same thread, refuses those.
//! With the network off, a path-based Unix socket still lets a command ask a service outside the
//! sandbox to act for it (a terminal's, an editor's, an agent's); a read-only mount does not stop
//! `connect()`, and hiding every socket of the file system is a chase. So the filter refuses
//! `socket(AF_UNIX, …)` then: `socketpair()`, which reaches nothing outside, still works.

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
/// with TCP connections allowed to those ports only (and no TCP fast open or MPTCP, which would
/// get around that); with no Unix socket but socket pairs when `network` is off; from a thread
/// that lives as long as the returned value. Fails when the seccomp filter cannot be applied.
pub fn spawn(mut cmd: tokio::process::Command, network: bool, tcp_ports: Option<&[u16]>) -> std::io::Result<Started> {
    let ports = tcp_ports.map(<[u16]>::to_vec);
    let runtime = tokio::runtime::Handle::try_current().map_err(std::io::Error::other)?;
    let (started_tx, started_rx) = mpsc::channel();
    let (parent_tx, parent_rx) = mpsc::channel::<()>();
    std::thread::Builder::new().name("sandboxed-command".into()).spawn(move || {
        let scoped = {
            let _entered = runtime.enter();
            let scoped = confine_this_thread(true, ports.as_deref());
            filter_this_thread(!network, ports.is_some()).and_then(|()| cmd.spawn()).map(|child| (child, scoped))
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

/// Applies to the calling thread (and what it starts from now on) a seccomp filter refusing, when
/// `no_unix`, `socket(AF_UNIX, …)`, and when `tcp_ports_only`, what gets around Landlock's TCP
/// port rule: `sendto`/`sendmsg`/`sendmmsg` with `MSG_FASTOPEN`, `setsockopt(TCP_FASTOPEN_CONNECT)`
/// and sockets of the MPTCP protocol. Each is refused with `EACCES` ("Permission denied"), as
/// Landlock refuses a port, except MPTCP, refused as unsupported so programs fall back to TCP.
#[cfg(target_os = "linux")]
fn filter_this_thread(no_unix: bool, tcp_ports_only: bool) -> std::io::Result<()> {
    use seccompiler::{
        BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
    };
    use std::collections::BTreeMap;
    if !no_unix && !tcp_ports_only {
        return Ok(());
    }
    let err = |e: seccompiler::BackendError| std::io::Error::other(format!("the seccomp filter is invalid: {e}"));
    let cond = |arg: u8, op: SeccompCmpOp, value: u64| {
        SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value).map_err(err)
    };
    let rule = |conds: Vec<SeccompCondition>| SeccompRule::new(conds).map_err(err);
    let denied = |rules: Vec<(i64, Vec<SeccompRule>)>, errno: i32| -> std::io::Result<BpfProgram> {
        let arch = std::env::consts::ARCH
            .try_into()
            .map_err(|e| std::io::Error::other(format!("no seccomp filter for this machine: {e}")))?;
        let filter = SeccompFilter::new(
            rules.into_iter().collect::<BTreeMap<_, _>>(),
            SeccompAction::Allow,
            SeccompAction::Errno(errno.unsigned_abs()),
            arch,
        )
        .map_err(err)?;
        filter.try_into().map_err(err)
    };
    let mut eacces: Vec<(i64, Vec<SeccompRule>)> = Vec::new();
    let mut unsupported: Vec<(i64, Vec<SeccompRule>)> = Vec::new();
    let fastopen = libc::MSG_FASTOPEN as u64;
    if tcp_ports_only {
        // The flags are the fourth argument of sendto and sendmmsg, the third of sendmsg.
        eacces.push((libc::SYS_sendto, vec![rule(vec![cond(3, SeccompCmpOp::MaskedEq(fastopen), fastopen)?])?]));
        eacces.push((libc::SYS_sendmsg, vec![rule(vec![cond(2, SeccompCmpOp::MaskedEq(fastopen), fastopen)?])?]));
        eacces.push((libc::SYS_sendmmsg, vec![rule(vec![cond(3, SeccompCmpOp::MaskedEq(fastopen), fastopen)?])?]));
        eacces.push((
            libc::SYS_setsockopt,
            vec![rule(vec![
                cond(1, SeccompCmpOp::Eq, libc::IPPROTO_TCP as u64)?,
                cond(2, SeccompCmpOp::Eq, libc::TCP_FASTOPEN_CONNECT as u64)?,
            ])?],
        ));
        unsupported.push((libc::SYS_socket, vec![rule(vec![cond(2, SeccompCmpOp::Eq, libc::IPPROTO_MPTCP as u64)?])?]));
    }
    if no_unix {
        let unix = rule(vec![cond(0, SeccompCmpOp::Eq, libc::AF_UNIX as u64)?])?;
        eacces.push((libc::SYS_socket, vec![unix]));
    }
    // On x86_64 the same calls can be made through the x32 ABI, under other numbers (where the
    // kernel has it): refused alike.
    #[cfg(target_arch = "x86_64")]
    for rules in [&mut eacces, &mut unsupported] {
        const X32: i64 = 0x4000_0000;
        let x32 = |nr: i64| match nr {
            libc::SYS_sendmsg => Some(X32 + 518),
            libc::SYS_sendmmsg => Some(X32 + 538),
            libc::SYS_setsockopt => Some(X32 + 541),
            libc::SYS_socket | libc::SYS_sendto => Some(X32 + nr),
            _ => None,
        };
        let more: Vec<(i64, Vec<SeccompRule>)> =
            rules.iter().filter_map(|(nr, r)| x32(*nr).map(|n| (n, r.clone()))).collect();
        rules.extend(more);
    }
    // Filters stack; each refuses its own calls with its own error.
    for (rules, errno) in [(eacces, libc::EACCES), (unsupported, libc::EPROTONOSUPPORT)] {
        if rules.is_empty() {
            continue;
        }
        let program = denied(rules, errno)?;
        seccompiler::apply_filter(&program)
            .map_err(|e| std::io::Error::other(format!("could not apply the seccomp filter: {e}")))?;
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn filter_this_thread(_no_unix: bool, _tcp_ports_only: bool) -> std::io::Result<()> {
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn confine_this_thread(_ipc: bool, _tcp_ports: Option<&[u16]>) -> bool {
    false
}
