//! The shell tool's OS sandbox: a policy value (writable roots, unreadable paths, network) and
//! its Linux enforcer, bubblewrap. Holds building the sandboxed command; not approval.

use serde::{Deserialize, Serialize};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// What `[shell] sandbox` in config.toml chooses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum NetworkPorts {
    /// These ports only: the machine's other TCP services (databases, a Docker API, dev
    /// servers, a local model server) stay out of reach.
    Only(Vec<u16>),
    /// Every port, `"all"`.
    All(AllPorts),
}

/// The one word `network_ports = "all"` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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

/// Files and folders under the home folder that hold secrets: keys, tokens, keyrings, browser
/// and mail profiles, and the sign-ins of the other agents whose skills Skilldeck delivers (a
/// command that read Claude Code's or Codex's tokens could act as the user anywhere they can).
const HOME_SECRETS: &[&str] = &[
    ".ssh",
    ".claude/.credentials.json",
    ".codex/auth.json",
    ".gemini/oauth_creds.json",
    ".config/github-copilot",
    ".vault-token",
    ".terraform.d/credentials.tfrc.json",
    ".s3cfg",
    ".boto",
    ".oci",
    ".databrickscfg",
    ".m2/settings.xml",
    ".gradle/gradle.properties",
    ".config/rclone",
    ".config/op",
    ".config/doctl",
    ".config/hcloud",
    ".fly",
    ".supabase",
    ".wrangler",
    ".config/.wrangler",
    ".config/configstore",
    ".local/share/com.vercel.cli",
    ".config/vivaldi",
    ".config/opera",
    ".thunderbird",
    "snap/chromium",
    ".var/app",
    ".aws",
    ".azure",
    ".gnupg",
    ".password-store",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".docker",
    ".colima",
    ".lima",
    ".rd",
    ".kube",
    ".pki",
    ".mozilla",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".config/gh",
    ".config/hub",
    ".config/gcloud",
    ".config/google-chrome",
    ".config/chromium",
    ".config/BraveSoftware",
    ".config/microsoft-edge",
    ".config/skilldeck",
    ".local/share/keyrings",
    ".local/share/skilldeck",
    "snap/firefox",
];

/// System files that hold secrets.
const SYSTEM_SECRETS: &[&str] = &["/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/ssh"];

/// Environment variables never passed to a command: the loop's own keys and the usual secrets.
fn is_secret_var(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    ["KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"].iter().any(|s| upper.contains(s))
        || upper.starts_with("AWS_")
        || upper == "SKILLDECK_HOME"
        || upper == "SSH_AUTH_SOCK"
}

/// Folders of the host's service sockets (the session and system D-Bus, systemd's user manager,
/// container engines, agents of keyrings). A command that reached one could ask a service
/// outside the sandbox to act for it (`systemd-run --user`, a container with `/` mounted), so
/// each is replaced by an empty folder. `/var/run` is `/run` on current systems; it is listed
/// for those where it is a folder of its own.
const SOCKET_DIRS: &[&str] = &["/run", "/var/run"];

/// What a sandboxed command may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxPolicy {
    /// Folders it may write (the workspace). A private, empty `/tmp` is writable too.
    pub writable: Vec<PathBuf>,
    /// Files and folders it may not read (secrets, Skilldeck's own data).
    pub unreadable: Vec<PathBuf>,
    /// Whether it may use the network.
    pub network: bool,
    /// With the network allowed, the TCP ports it may connect to.
    pub network_ports: NetworkPorts,
}

impl SandboxPolicy {
    /// The policy for commands in `workspace`: write there and in a private `/tmp`, read the
    /// rest of the file system but the user's secrets and `skilldeck_home`, no network unless
    /// `network`.
    pub fn for_workspace(workspace: &Path, skilldeck_home: &Path, network: bool, network_ports: NetworkPorts) -> Self {
        let mut unreadable: Vec<PathBuf> = SYSTEM_SECRETS.iter().map(PathBuf::from).collect();
        if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from) {
            unreadable.extend(HOME_SECRETS.iter().map(|s| home.join(s)));
        }
        unreadable.push(skilldeck_home.to_owned());
        Self { writable: vec![workspace.to_owned()], unreadable, network, network_ports }
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
                        "network access, but no TCP connection to any port".to_owned()
                    } else {
                        format!("network access, with TCP connections to ports {list} only")
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
            "it can write only in the workspace and a private /tmp, cannot read your keys and secrets, and has {network}"
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

    /// The command that runs `sh -c script` in `workspace` under `policy`.
    pub fn command(&self, policy: &SandboxPolicy, workspace: &Path, script: &str) -> tokio::process::Command {
        let mut cmd = match self {
            Self::Bubblewrap(bwrap) => {
                let mut c = tokio::process::Command::new(bwrap);
                c.args(bwrap_args(policy, workspace)).arg("--").arg("sh").arg("-c").arg(script);
                c
            }
            Self::Unavailable(_) => {
                let mut c = tokio::process::Command::new("sh");
                c.arg("-c").arg(script);
                c
            }
        };
        for (name, _) in std::env::vars_os() {
            if name.to_str().is_none_or(is_secret_var) {
                cmd.env_remove(name);
            }
        }
        cmd.env("TMPDIR", "/tmp").current_dir(workspace);
        cmd
    }
}

/// A session's shell confinement: the enforcer found and the policy for its workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellSandbox {
    /// What confines commands.
    pub enforcer: Enforcer,
    /// What they may do.
    pub policy: SandboxPolicy,
}

impl ShellSandbox {
    /// The sandbox for commands in `workspace` as `settings` choose.
    pub fn new(settings: SandboxSettings, workspace: &Path, skilldeck_home: &Path) -> Self {
        Self {
            enforcer: Enforcer::for_choice(settings.choice),
            policy: SandboxPolicy::for_workspace(workspace, skilldeck_home, settings.network, settings.network_ports),
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
}

/// bubblewrap's arguments for `policy`; later mounts cover earlier ones, so the writable roots
/// come last and stay reachable even inside a covered folder.
fn bwrap_args(policy: &SandboxPolicy, workspace: &Path) -> Vec<OsString> {
    let mut a: Vec<OsString> = Vec::new();
    let mut push = |parts: &[&std::ffi::OsStr]| a.extend(parts.iter().map(|p| p.to_os_string()));
    push(&["--ro-bind".as_ref(), "/".as_ref(), "/".as_ref()]);
    push(&["--dev".as_ref(), "/dev".as_ref(), "--proc".as_ref(), "/proc".as_ref()]);
    push(&["--tmpfs".as_ref(), "/tmp".as_ref(), "--tmpfs".as_ref(), "/var/tmp".as_ref()]);
    for dir in SOCKET_DIRS {
        if std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) {
            push(&["--tmpfs".as_ref(), dir.as_ref()]);
        }
    }
    if policy.network {
        // Name resolution keeps working: `/etc/resolv.conf` is often a link into `/run`.
        if let Some(resolv) = std::fs::canonicalize("/etc/resolv.conf").ok().filter(|p| p.starts_with("/run")) {
            push(&["--ro-bind-try".as_ref(), resolv.as_os_str(), resolv.as_os_str()]);
        }
    }
    push(&["--unshare-pid".as_ref(), "--unshare-ipc".as_ref(), "--die-with-parent".as_ref()]);
    push(&["--new-session".as_ref(), "--cap-drop".as_ref(), "ALL".as_ref()]);
    if !policy.network {
        push(&["--unshare-net".as_ref()]);
    }
    for path in &policy.unreadable {
        match std::fs::symlink_metadata(path) {
            Ok(m) if m.is_dir() => {
                push(&["--perms".as_ref(), "000".as_ref(), "--tmpfs".as_ref(), path.as_os_str()]);
            }
            Ok(_) => push(&["--ro-bind".as_ref(), "/dev/null".as_ref(), path.as_os_str()]),
            Err(_) => {}
        }
    }
    for root in &policy.writable {
        push(&["--bind".as_ref(), root.as_os_str(), root.as_os_str()]);
    }
    push(&["--chdir".as_ref(), workspace.as_os_str()]);
    a
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
            .args(bwrap_args(
                &SandboxPolicy {
                    writable: Vec::new(),
                    unreadable: Vec::new(),
                    network: false,
                    network_ports: NetworkPorts::default(),
                },
                Path::new("/"),
            ))
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

    #[test]
    fn secrets_are_named_by_their_variables() {
        for name in ["ANTHROPIC_API_KEY", "GITHUB_TOKEN", "AWS_PROFILE", "db_password", "SKILLDECK_HOME"] {
            assert!(is_secret_var(name), "{name}");
        }
        for name in ["PATH", "HOME", "LANG", "TERM", "USER"] {
            assert!(!is_secret_var(name), "{name}");
        }
    }

    #[test]
    fn the_workspace_is_mounted_last_and_the_network_only_when_allowed() {
        let p = SandboxPolicy {
            writable: vec!["/w".into()],
            unreadable: vec!["/etc/shadow".into(), "/nonexistent/x".into()],
            network: false,
            network_ports: NetworkPorts::default(),
        };
        let args: Vec<String> =
            bwrap_args(&p, Path::new("/w")).iter().map(|a| a.to_string_lossy().into_owned()).collect();
        let s = args.join(" ");
        assert!(s.starts_with("--ro-bind / / "), "{s}");
        assert!(s.contains("--unshare-net"), "{s}");
        assert!(s.contains("--ro-bind /dev/null /etc/shadow"), "{s}");
        assert!(!s.contains("/nonexistent"), "{s}");
        assert!(s.ends_with("--bind /w /w --chdir /w"), "{s}");
        // The host's service sockets (D-Bus, systemd, container engines) are out of reach.
        assert!(s.contains("--tmpfs /run"), "{s}");
        let open = SandboxPolicy { network: true, ..p };
        let s: Vec<String> =
            bwrap_args(&open, Path::new("/w")).iter().map(|a| a.to_string_lossy().into_owned()).collect();
        assert!(!s.contains(&"--unshare-net".to_owned()));
    }

    #[test]
    fn other_agents_sign_ins_are_among_the_unreadable() {
        let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from) else { return };
        let p = SandboxPolicy::for_workspace(Path::new("/w"), Path::new("/h"), false, NetworkPorts::default());
        for secret in [".claude/.credentials.json", ".codex/auth.json", ".config/github-copilot", ".ssh"] {
            assert!(p.unreadable.contains(&home.join(secret)), "{secret}");
        }
        // Only the tokens: the agents' skills and settings stay readable.
        assert!(!p.unreadable.iter().any(|u| u == &home.join(".claude") || u == &home.join(".codex")));
    }

    #[test]
    fn tcp_ports_are_limited_only_with_the_network_on_and_a_list() {
        let off = SandboxPolicy::for_workspace(Path::new("/w"), Path::new("/h"), false, NetworkPorts::default());
        assert_eq!(off.tcp_ports(), None);
        assert!(off.describe_limits().ends_with("no network"), "{}", off.describe_limits());
        let on = SandboxPolicy { network: true, ..off.clone() };
        assert_eq!(on.tcp_ports(), Some(&[22, 53, 80, 443][..]));
        let all = SandboxPolicy { network_ports: NetworkPorts::All(AllPorts::All), ..on.clone() };
        assert_eq!(all.tcp_ports(), None);
        assert!(all.describe_limits().contains("including to services on this machine"));
        if super::super::confine::ports_available() {
            assert!(
                on.describe_limits().ends_with("TCP connections to ports 22, 53, 80, 443 only"),
                "{}",
                on.describe_limits()
            );
        }
    }
}
