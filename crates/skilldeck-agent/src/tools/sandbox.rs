//! The shell tool's OS sandbox: a policy value (writable roots, unreadable paths, network) and
//! its Linux enforcer, bubblewrap. Holds building the sandboxed command; not approval.

use super::host::{self, HostEnv};
use super::limits::ResourceLimits;
use serde::{Deserialize, Serialize};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// What `[shell] sandbox` in config.toml chooses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum SandboxChoice {
    /// The platform's sandbox; when there is none, every command asks and says so.
    #[default]
    Auto,
    /// No sandbox, chosen by the user. Never the default.
    None,
}

/// What `[shell] network_ports` chooses: the TCP ports a sandboxed command may connect to when
/// the network is allowed. A list (by default SSH, DNS, HTTP and HTTPS), or `"all"`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(untagged)]
pub enum NetworkPorts {
    /// These ports only: the machine's other TCP services (databases, a Docker API, dev
    /// servers, a local model server) stay out of reach.
    Only(Vec<u16>),
    /// Every port, `"all"`.
    All(AllPorts),
}

/// The one word `network_ports = "all"` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum AllPorts {
    /// Every port.
    All,
}

impl<'de> Deserialize<'de> for NetworkPorts {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Ports;
        impl<'de> serde::de::Visitor<'de> for Ports {
            type Value = NetworkPorts;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(
                    "a list of TCP port numbers (1 to 65535), such as [22, 443], or `all` (in quotes) for every port",
                )
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<NetworkPorts, E> {
                if v == "all" {
                    Ok(NetworkPorts::All(AllPorts::All))
                } else {
                    Err(E::invalid_value(serde::de::Unexpected::Str(v), &self))
                }
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<NetworkPorts, A::Error> {
                let mut ports = Vec::new();
                while let Some(p) = seq.next_element::<i64>()? {
                    let port = u16::try_from(p).ok().filter(|&p| p != 0).ok_or_else(|| {
                        serde::de::Error::invalid_value(serde::de::Unexpected::Signed(p), &"a TCP port from 1 to 65535")
                    })?;
                    ports.push(port);
                }
                Ok(NetworkPorts::Only(ports))
            }
        }
        d.deserialize_any(Ports)
    }
}

impl Default for NetworkPorts {
    fn default() -> Self {
        Self::Only(vec![22, 53, 80, 443])
    }
}

impl NetworkPorts {
    /// The ports, `None` for every one.
    pub fn only(&self) -> Option<&[u16]> {
        match self {
            Self::Only(p) => Some(p),
            Self::All(_) => None,
        }
    }
}

/// Folders of the host's service sockets (the session and system D-Bus, systemd's user manager,
/// container engines, agents of keyrings). A command that reached one could ask a service
/// outside the sandbox to act for it (`systemd-run --user`, a container with `/` mounted), so
/// each is replaced by an empty folder. `/var/run` is `/run` on current systems; it is listed
/// for those where it is a folder of its own.
const SOCKET_DIRS: &[&str] = &["/run", "/var/run"];

/// What a sandboxed command may do. The default allows the least: no writes, no home, no
/// environment, no network.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SandboxPolicy {
    /// Folders it may write (the workspace). A private, empty `/tmp` is writable too.
    pub writable: Vec<PathBuf>,
    /// Files and folders it may not read (secrets, Skilldeck's own data), as named: links are
    /// followed when the sandbox is built, and each is hidden wherever it shows.
    pub unreadable: Vec<PathBuf>,
    /// The home folder, replaced by an empty one holding only `readable_home`.
    pub home: Option<PathBuf>,
    /// What of the home folder it may read (toolchains, caches, git's settings).
    pub readable_home: Vec<PathBuf>,
    /// The environment variables it gets (an allow-list of the host's).
    pub env: Vec<(OsString, OsString)>,
    /// Whether it may use the network.
    pub network: bool,
    /// With the network allowed, the TCP ports it may connect to.
    pub network_ports: NetworkPorts,
    /// The resources it may use.
    pub limits: ResourceLimits,
}

impl SandboxPolicy {
    /// The policy for commands in `workspace`, from `host`'s environment: write there and in a
    /// private `/tmp`; read the file system but the home folder (except its toolchains and what
    /// `settings.home_paths` adds), the user's secrets wherever variables put them, and
    /// `skilldeck_home`; get only the allow-listed variables; no network unless `settings.network`.
    pub fn for_workspace(workspace: &Path, skilldeck_home: &Path, settings: &SandboxSettings, host: &HostEnv) -> Self {
        let home = host.home();
        Self {
            writable: vec![workspace.to_owned()],
            unreadable: host::secrets(home.as_deref(), host, skilldeck_home),
            readable_home: home
                .as_deref()
                .map(|h| host::readable_in_home(h, host, &settings.home_paths))
                .unwrap_or_default(),
            home,
            env: host.passed(&settings.env),
            network: settings.network,
            network_ports: settings.network_ports.clone(),
            limits: settings.limits,
        }
    }

    /// The TCP ports a command may connect to, when the network is allowed and only some are;
    /// `None` otherwise (no network at all, or every port).
    pub fn tcp_ports(&self) -> Option<&[u16]> {
        self.network.then(|| self.network_ports.only()).flatten()
    }

    /// What the policy allows, in words: "it can write only in the workspace …".
    pub fn describe_limits(&self) -> String {
        let network = if !self.network {
            "no network".to_owned()
        } else {
            match self.tcp_ports() {
                Some(ports) if super::confine::ports_available() => {
                    let list = ports.iter().map(u16::to_string).collect::<Vec<_>>().join(", ");
                    if list.is_empty() {
                        "network access, but no TCP connection to any port (UDP to any port and Unix sockets in the \
                         workspace stay open)"
                            .to_owned()
                    } else {
                        format!(
                            "network access, with TCP connections to ports {list} only (UDP to any port and Unix \
                             sockets in the workspace stay open)"
                        )
                    }
                }
                // The network namespace is the host's then, so services on this machine that
                // listen on TCP can be reached.
                Some(_) => "network access, including to services on this machine (this kernel cannot limit \
                            TCP ports: Linux 6.7 or later can)"
                    .to_owned(),
                None => "network access, including to services on this machine".to_owned(),
            }
        };
        format!(
            "it can write only in the workspace and a private /tmp, sees of your home folder only the toolchains, \
             cannot read your keys and secrets, gets only the usual environment variables, is bounded to {} MiB of \
             memory and {} processes, and has {network}",
            self.limits.max_memory_mib, self.limits.max_processes
        )
    }
}

/// How commands are confined on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Enforcer {
    /// bubblewrap at this path: a mount namespace with the file system read-only, secrets
    /// covered, a private `/tmp`, its own process and network namespaces.
    Bubblewrap(PathBuf),
    /// No sandbox: why, in words for the user.
    Unavailable(String),
}

impl Enforcer {
    /// The enforcer for `choice`: bubblewrap when it is installed and works here.
    pub fn for_choice(choice: SandboxChoice) -> Self {
        match choice {
            SandboxChoice::None => {
                Self::Unavailable("the sandbox is turned off in config.toml ([shell] sandbox = \"none\")".into())
            }
            SandboxChoice::Auto => detect().clone(),
        }
    }

    /// Whether commands run confined.
    pub fn is_sandboxed(&self) -> bool {
        matches!(self, Self::Bubblewrap(_))
    }

    /// One line for people: what confines commands, or why nothing does.
    pub fn describe(&self, policy: &SandboxPolicy) -> String {
        match self {
            Self::Bubblewrap(_) => format!("sandboxed (bubblewrap): {}", policy.describe_limits()),
            Self::Unavailable(why) => format!("not sandboxed: {why}"),
        }
    }

    /// The command that runs `sh -c script` in `workspace` under `policy`. It starts waiting:
    /// it runs the script once a line is written to its standard input (after the caller has
    /// bounded it, see [`super::limits::apply`]), and exits with 125 without running it if its
    /// standard input closes first.
    pub fn command(&self, policy: &SandboxPolicy, workspace: &Path, script: &str) -> tokio::process::Command {
        let mut cmd = tokio::process::Command::new("/bin/sh");
        cmd.arg("-c").arg(WAIT_THEN_RUN).arg("skilldeck-command");
        match self {
            Self::Bubblewrap(bwrap) => {
                cmd.arg(bwrap).args(bwrap_args(policy, workspace)).arg("--");
            }
            Self::Unavailable(_) => {}
        }
        cmd.arg("sh").arg("-c").arg(script);
        cmd.env_clear().envs(policy.env.iter().map(|(k, v)| (k, v))).env("TMPDIR", "/tmp").current_dir(workspace);
        cmd
    }
}

/// The script that starts every command: it waits for a line on its standard input, then runs
/// its arguments with no standard input.
const WAIT_THEN_RUN: &str = "read -r go && exec \"$@\" </dev/null; exit 125";

/// A session's shell confinement: the enforcer found and the policy for its workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellSandbox {
    /// What confines commands.
    pub enforcer: Enforcer,
    /// What they may do.
    pub policy: SandboxPolicy,
}

impl ShellSandbox {
    /// The sandbox for commands in `workspace` as `settings` choose, from this process's
    /// environment.
    pub fn new(settings: SandboxSettings, workspace: &Path, skilldeck_home: &Path) -> Self {
        Self::with_host(settings, workspace, skilldeck_home, &HostEnv::current())
    }

    /// The sandbox for commands in `workspace` as `settings` choose, from `host`'s environment
    /// (its home folder, its variables).
    pub fn with_host(settings: SandboxSettings, workspace: &Path, skilldeck_home: &Path, host: &HostEnv) -> Self {
        Self {
            enforcer: Enforcer::for_choice(settings.choice),
            policy: SandboxPolicy::for_workspace(workspace, skilldeck_home, &settings, host),
        }
    }

    /// Whether commands run confined.
    pub fn is_sandboxed(&self) -> bool {
        self.enforcer.is_sandboxed()
    }

    /// One line for people: what confines commands, or why nothing does.
    pub fn describe(&self) -> String {
        self.enforcer.describe(&self.policy)
    }
}

/// `[shell]`'s sandbox settings.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SandboxSettings {
    /// The sandbox, or none.
    pub choice: SandboxChoice,
    /// Whether commands may use the network.
    pub network: bool,
    /// With the network allowed, the TCP ports commands may connect to.
    pub network_ports: NetworkPorts,
    /// Environment variables passed besides the allow-listed ones (`[shell] env`).
    pub env: Vec<String>,
    /// Paths of the home folder commands may read besides the toolchains (`[shell] home_paths`).
    pub home_paths: Vec<PathBuf>,
    /// The resources a command may use.
    pub limits: ResourceLimits,
}

/// One layer of the sandbox's file system, in the order bubblewrap stacks them: `src` of the
/// host mounted at `dest`, or (no `src`) an empty folder at `dest` hiding what was there.
struct Layer {
    dest: PathBuf,
    src: Option<PathBuf>,
}

/// bubblewrap's arguments, and the layers they stack (to find where a secret shows).
#[derive(Default)]
struct Mounts {
    args: Vec<OsString>,
    layers: Vec<Layer>,
}

impl Mounts {
    fn push(&mut self, parts: &[&std::ffi::OsStr]) {
        self.args.extend(parts.iter().map(|p| p.to_os_string()));
    }

    /// `src` mounted at `dest` (writable when `write`).
    fn bind(&mut self, src: &Path, dest: &Path, write: bool) {
        let how: &std::ffi::OsStr = if write { "--bind".as_ref() } else { "--ro-bind".as_ref() };
        self.push(&[how, src.as_os_str(), dest.as_os_str()]);
        self.layers.push(Layer { dest: dest.to_owned(), src: Some(src.to_owned()) });
    }

    /// An empty folder at `dest`, of at most `size` bytes when given.
    fn empty(&mut self, dest: &Path, size: Option<&str>) {
        if let Some(size) = size {
            self.push(&["--size".as_ref(), size.as_ref()]);
        }
        self.push(&["--tmpfs".as_ref(), dest.as_os_str()]);
        self.layers.push(Layer { dest: dest.to_owned(), src: None });
    }

    /// Where the host's `path` (with no link in it) shows in the sandbox: under each mount whose
    /// source holds it, unless a later layer covers that place.
    fn places_of(&self, path: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for (i, layer) in self.layers.iter().enumerate() {
            let Some(rest) = layer.src.as_deref().and_then(|src| path.strip_prefix(src).ok()) else { continue };
            let place = if rest.as_os_str().is_empty() { layer.dest.clone() } else { layer.dest.join(rest) };
            if self.layers.iter().rposition(|l| place.starts_with(&l.dest)) == Some(i) {
                out.push(place);
            }
        }
        out
    }

    /// Hides what is at `place`: an empty folder over a folder, an empty file over anything else.
    fn mask(&mut self, place: &Path, is_dir: bool) {
        if is_dir {
            self.push(&["--perms".as_ref(), "000".as_ref(), "--tmpfs".as_ref(), place.as_os_str()]);
        } else {
            self.push(&["--ro-bind".as_ref(), "/dev/null".as_ref(), place.as_os_str()]);
        }
    }
}

/// bubblewrap's arguments for `policy`; later mounts cover earlier ones. The file system is
/// read-only; `/tmp`, `/var/tmp`, the service sockets' folders and the home folder are replaced
/// by empty ones, the home folder's readable paths and the workspace mounted back; then every
/// secret is hidden wherever it shows (through links, the workspace or a readable path), last,
/// so no workspace can show one.
fn bwrap_args(policy: &SandboxPolicy, workspace: &Path) -> Vec<OsString> {
    let mut m = Mounts::default();
    let tmp_size = policy.limits.tmp_size_mib.saturating_mul(1024 * 1024).to_string();
    m.bind(Path::new("/"), Path::new("/"), false);
    m.push(&["--dev".as_ref(), "/dev".as_ref(), "--proc".as_ref(), "/proc".as_ref()]);
    m.layers.push(Layer { dest: "/dev".into(), src: None });
    m.layers.push(Layer { dest: "/proc".into(), src: None });
    m.empty(Path::new("/tmp"), Some(&tmp_size));
    m.empty(Path::new("/var/tmp"), Some(&tmp_size));
    for dir in SOCKET_DIRS {
        if std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) {
            m.empty(Path::new(dir), None);
        }
    }
    if policy.network {
        // Name resolution keeps working: `/etc/resolv.conf` is often a link into `/run`.
        if let Some(resolv) = std::fs::canonicalize("/etc/resolv.conf").ok().filter(|p| p.starts_with("/run")) {
            m.bind(&resolv, &resolv, false);
        }
    }
    m.push(&["--unshare-pid".as_ref(), "--unshare-ipc".as_ref(), "--die-with-parent".as_ref()]);
    m.push(&["--new-session".as_ref(), "--cap-drop".as_ref(), "ALL".as_ref()]);
    if !policy.network {
        m.push(&["--unshare-net".as_ref()]);
    }
    let writable: Vec<PathBuf> = policy.writable.iter().filter_map(|w| std::fs::canonicalize(w).ok()).collect();
    let home = policy.home.as_deref().and_then(|h| std::fs::canonicalize(h).ok()).filter(|h| h.is_dir());
    // A workspace that is the home folder shows it (with the secrets hidden below).
    let hidden_home = home.filter(|h| !writable.contains(h));
    let (outer, inner): (Vec<&PathBuf>, Vec<&PathBuf>) =
        writable.iter().partition(|w| hidden_home.as_ref().is_some_and(|h| h.starts_with(w)));
    for w in outer {
        m.bind(w, w, true);
    }
    if let (Some(home), Some(named)) = (&hidden_home, &policy.home) {
        m.empty(home, Some(&tmp_size));
        for readable in &policy.readable_home {
            let (Ok(src), Ok(rest)) = (std::fs::canonicalize(readable), readable.strip_prefix(named)) else { continue };
            m.bind(&src, &home.join(rest), false);
        }
    }
    for w in inner {
        m.bind(w, w, true);
    }
    let mut masks: Vec<(PathBuf, bool)> = Vec::new();
    for secret in &policy.unreadable {
        // Missing, or a dangling link: there is nothing to read.
        let Ok(real) = std::fs::canonicalize(secret) else { continue };
        let Ok(meta) = std::fs::metadata(&real) else { continue };
        masks.extend(m.places_of(&real).into_iter().map(|p| (p, meta.is_dir())));
    }
    masks.sort();
    masks.dedup();
    let covered = |masks: &[(PathBuf, bool)], p: &Path| masks.iter().any(|(d, dir)| *dir && p != d && p.starts_with(d));
    let masks: Vec<(PathBuf, bool)> = masks.iter().filter(|(p, _)| !covered(&masks, p)).cloned().collect();
    for (place, is_dir) in &masks {
        m.mask(place, *is_dir);
    }
    // A workspace inside a hidden folder (Skilldeck's own, say) is mounted again, with the
    // secrets inside it hidden again.
    for w in writable.iter().filter(|w| covered(&masks, w)) {
        m.push(&["--bind".as_ref(), w.as_os_str(), w.as_os_str()]);
        for (place, is_dir) in masks.iter().filter(|(p, _)| p.starts_with(w)) {
            m.mask(place, *is_dir);
        }
    }
    let chdir = std::fs::canonicalize(workspace).unwrap_or_else(|_| workspace.to_owned());
    m.push(&["--chdir".as_ref(), chdir.as_os_str()]);
    m.args
}

/// bubblewrap on `PATH`, tried once per process with the options commands get.
fn detect() -> &'static Enforcer {
    static FOUND: OnceLock<Enforcer> = OnceLock::new();
    FOUND.get_or_init(|| {
        let Some(bwrap) = find_on_path("bwrap") else {
            return Enforcer::Unavailable(
                "bubblewrap (`bwrap`) is not installed; install it (Debian/Ubuntu: apt-get install bubblewrap) to \
                 run commands in a sandbox"
                    .into(),
            );
        };
        let probe = std::process::Command::new(&bwrap)
            .args(bwrap_args(&SandboxPolicy::default(), Path::new("/")))
            .args(["--", "true"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .output();
        match probe {
            Ok(out) if out.status.success() => Enforcer::Bubblewrap(bwrap),
            Ok(out) => Enforcer::Unavailable(format!(
                "bubblewrap cannot make a sandbox here ({}); user namespaces may be turned off",
                String::from_utf8_lossy(&out.stderr).trim()
            )),
            Err(e) => Enforcer::Unavailable(format!("bubblewrap could not start ({e})")),
        }
    })
}

fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(program)).find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(writable: &str, unreadable: &[&str]) -> SandboxPolicy {
        SandboxPolicy {
            writable: vec![writable.into()],
            unreadable: unreadable.iter().map(PathBuf::from).collect(),
            ..SandboxPolicy::default()
        }
    }

    #[test]
    fn the_secrets_are_hidden_last_and_the_network_only_when_allowed() {
        let ws = std::env::temp_dir();
        let p = policy(ws.to_str().unwrap(), &["/etc/shadow", "/nonexistent/x"]);
        let args: Vec<String> = bwrap_args(&p, &ws).iter().map(|a| a.to_string_lossy().into_owned()).collect();
        let s = args.join(" ");
        assert!(s.starts_with("--ro-bind / / "), "{s}");
        assert!(s.contains("--unshare-net"), "{s}");
        assert!(!s.contains("/nonexistent"), "{s}");
        let ws = std::fs::canonicalize(&ws).unwrap();
        let bind = s.find(&format!("--bind {} {}", ws.display(), ws.display())).unwrap();
        let shadow = s.find("--ro-bind /dev/null /etc/shadow").unwrap();
        assert!(bind < shadow, "{s}");
        // The host's service sockets (D-Bus, systemd, container engines) are out of reach.
        assert!(s.contains("--tmpfs /run"), "{s}");
        let open = SandboxPolicy { network: true, ..p };
        let s: Vec<String> = bwrap_args(&open, &ws).iter().map(|a| a.to_string_lossy().into_owned()).collect();
        assert!(!s.contains(&"--unshare-net".to_owned()));
    }

    #[test]
    fn other_agents_sign_ins_are_among_the_unreadable() {
        let host = HostEnv::from_vars([("HOME", "/h")]);
        let p = SandboxPolicy::for_workspace(Path::new("/w"), Path::new("/sd"), &SandboxSettings::default(), &host);
        let home = Path::new("/h");
        for secret in [".claude/.credentials.json", ".codex/auth.json", ".config/github-copilot", ".ssh"] {
            assert!(p.unreadable.contains(&home.join(secret)), "{secret}");
        }
        assert!(p.unreadable.contains(&PathBuf::from("/sd")));
        // The agents' skills stay readable.
        assert!(p.readable_home.contains(&home.join(".claude/skills")));
    }

    #[test]
    fn tcp_ports_are_limited_only_with_the_network_on_and_a_list() {
        let host = HostEnv::default();
        let off = SandboxPolicy::for_workspace(Path::new("/w"), Path::new("/h"), &SandboxSettings::default(), &host);
        assert_eq!(off.tcp_ports(), None);
        assert!(off.describe_limits().ends_with("no network"), "{}", off.describe_limits());
        let on = SandboxPolicy { network: true, ..off.clone() };
        assert_eq!(on.tcp_ports(), Some(&[22, 53, 80, 443][..]));
        let all = SandboxPolicy { network_ports: NetworkPorts::All(AllPorts::All), ..on.clone() };
        assert_eq!(all.tcp_ports(), None);
        assert!(all.describe_limits().contains("including to services on this machine"));
        if super::super::confine::ports_available() {
            assert!(
                on.describe_limits().ends_with(
                    "TCP connections to ports 22, 53, 80, 443 only (UDP to any port and Unix sockets in the \
                     workspace stay open)"
                ),
                "{}",
                on.describe_limits()
            );
        }
    }
}
