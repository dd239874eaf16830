//! What of the host a sandboxed command is given: the environment variables passed (an
//! allow-list), the parts of the home folder it may read (an allow-list), and the secrets hidden
//! wherever they are (a deny-list for what lies outside the home folder, and for what the
//! allow-lists would show). Holds choosing those paths and variables; not mounting them.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};

/// The environment of the process starting commands, as values: tests give their own.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostEnv {
    vars: BTreeMap<OsString, OsString>,
}

impl HostEnv {
    /// This process's environment.
    pub fn current() -> Self {
        Self::from_vars(std::env::vars_os())
    }

    /// An environment made of `vars`.
    pub fn from_vars(vars: impl IntoIterator<Item = (impl Into<OsString>, impl Into<OsString>)>) -> Self {
        Self { vars: vars.into_iter().map(|(k, v)| (k.into(), v.into())).collect() }
    }

    /// The value of `name`, when set and not empty.
    pub fn get(&self, name: &str) -> Option<&OsStr> {
        self.vars.get(OsStr::new(name)).map(OsString::as_os_str).filter(|v| !v.is_empty())
    }

    /// The home folder: `$HOME` when it is an absolute path other than `/`.
    pub fn home(&self) -> Option<PathBuf> {
        self.get("HOME").map(PathBuf::from).filter(|h| h.is_absolute() && h.parent().is_some())
    }

    /// The variables passed to commands: those named in [`PASSED_VARS`], the `LC_*` ones, and
    /// those the user names in `[shell] env`; never `SKILLDECK_HOME`.
    pub fn passed(&self, named: &[String]) -> Vec<(OsString, OsString)> {
        self.vars
            .iter()
            .filter(|(k, v)| {
                let Some(k) = k.to_str() else { return false };
                !v.is_empty()
                    && k != "SKILLDECK_HOME"
                    && (PASSED_VARS.contains(&k) || k.starts_with("LC_") || named.iter().any(|n| n == k))
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }
}

/// Variables every command gets (when set): where programs are, the locale, the terminal, who
/// the user is, and where toolchains and configuration live. None of them holds a secret; any
/// other variable (`DATABASE_URL`, `GH_PAT`, …) is passed only when named in `[shell] env`.
pub const PASSED_VARS: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "TZ",
    "EDITOR",
    "VISUAL",
    "PAGER",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "XDG_CONFIG_DIRS",
    "XDG_DATA_DIRS",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "GOPATH",
    "GOROOT",
    "GOBIN",
    "GOMODCACHE",
    "JAVA_HOME",
    "NVM_DIR",
    "NVM_BIN",
    "VOLTA_HOME",
    "BUN_INSTALL",
    "DENO_DIR",
    "PNPM_HOME",
    "PYENV_ROOT",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "SDKMAN_DIR",
];

/// What of the home folder commands may read (relative to it): toolchains, package caches and
/// the settings of git. Everything else there (keys, tokens, shell history, the sign-ins of
/// other programs) is hidden; `[shell] home_paths` adds to it.
pub const HOME_READABLE: &[&str] = &[
    ".cargo",
    ".rustup",
    ".local/bin",
    ".local/lib",
    ".gitconfig",
    ".config/git",
    ".gitignore_global",
    ".editorconfig",
    ".inputrc",
    ".terminfo",
    ".npm",
    ".nvm",
    ".node-gyp",
    ".cache/node-gyp",
    ".volta",
    ".bun",
    ".deno",
    ".yarn",
    ".cache/yarn",
    ".local/share/pnpm",
    ".pyenv",
    ".cache/pip",
    ".cache/uv",
    ".local/share/uv",
    ".virtualenvs",
    ".local/share/virtualenvs",
    ".conda",
    "miniconda3",
    "miniforge3",
    "anaconda3",
    "go",
    ".cache/go-build",
    ".rbenv",
    ".gem",
    ".sdkman",
    ".asdf",
    ".tool-versions",
    ".m2/repository",
    ".gradle/caches",
    ".gradle/wrapper",
    ".claude/skills",
    ".codex/skills",
    ".agents/skills",
];

/// Variables naming a toolchain's folder: when it is in the home folder, it is readable too.
const TOOLCHAIN_VARS: &[&str] = &[
    "CARGO_HOME",
    "RUSTUP_HOME",
    "GOPATH",
    "GOMODCACHE",
    "NVM_DIR",
    "VOLTA_HOME",
    "BUN_INSTALL",
    "DENO_DIR",
    "PNPM_HOME",
    "PYENV_ROOT",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "SDKMAN_DIR",
];

pub use skilldeck_skill::secrets::{HOME_SECRETS, SYSTEM_SECRETS};

/// Variables that move a secret away from its default place: the secret files or folders
/// under the folder (or the file) each one names. An empty list: the whole path.
const MOVED_SECRETS: &[(&str, &[&str])] = &[
    ("CLAUDE_CONFIG_DIR", &[".credentials.json", ".claude.json"]),
    ("CODEX_HOME", &["auth.json"]),
    ("GEMINI_DIR", &["oauth_creds.json"]),
    ("GNUPGHOME", &[]),
    ("PASSWORD_STORE_DIR", &[]),
    ("AWS_SHARED_CREDENTIALS_FILE", &[]),
    ("AWS_CONFIG_FILE", &[]),
    ("KUBECONFIG", &[]),
    ("DOCKER_CONFIG", &[]),
    ("GH_CONFIG_DIR", &[]),
    ("CLOUDSDK_CONFIG", &[]),
    ("AZURE_CONFIG_DIR", &[]),
    ("GOOGLE_APPLICATION_CREDENTIALS", &[]),
    ("CARGO_HOME", &["credentials", "credentials.toml"]),
    ("HF_HOME", &["token", "stored_tokens"]),
    ("HF_TOKEN_PATH", &[]),
    ("KAGGLE_CONFIG_DIR", &[]),
    ("SOPS_AGE_KEY_FILE", &[]),
    ("NPM_CONFIG_USERCONFIG", &[]),
    ("PIP_CONFIG_FILE", &[]),
    ("PGPASSFILE", &[]),
    ("MYSQL_HOME", &[".my.cnf"]),
    ("NETRC", &[]),
    ("TF_CLI_CONFIG_FILE", &[]),
    ("VAULT_CONFIG_PATH", &[]),
    ("OLLAMA_HOME", &[]),
    ("SSH_AUTH_SOCK", &[]),
    ("GPG_AGENT_INFO", &[]),
    ("HISTFILE", &[]),
];

/// Variables that move a whole family of the home folder's paths: `$XDG_CONFIG_HOME` stands
/// for `~/.config`, and so on.
const MOVED_ROOTS: &[(&str, &str)] =
    &[("XDG_CONFIG_HOME", ".config/"), ("XDG_DATA_HOME", ".local/share/"), ("XDG_CACHE_HOME", ".cache/")];

/// The home folder's readable paths (absolute, outermost only): [`HOME_READABLE`], the
/// toolchain folders and `PATH` entries under the home folder, and `extra` (`[shell]
/// home_paths`: absolute, `~/…`, or relative to the home folder).
pub fn readable_in_home(home: &Path, env: &HostEnv, extra: &[PathBuf]) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = HOME_READABLE.iter().map(|p| home.join(p)).collect();
    for var in TOOLCHAIN_VARS {
        if let Some(v) = env.get(var) {
            paths.extend(std::env::split_paths(v));
        }
    }
    if let Some(path) = env.get("PATH") {
        paths.extend(std::env::split_paths(path));
    }
    for p in extra {
        let p = match p.strip_prefix("~") {
            Ok(rest) => home.join(rest),
            Err(_) => home.join(p),
        };
        paths.push(p);
    }
    let mut paths: Vec<PathBuf> = paths
        .into_iter()
        .map(|p| normal(&p))
        .filter(|p| p.starts_with(home) && p != home && !is_secret_in_home(home, p))
        .collect();
    paths.sort();
    paths.dedup();
    // A path inside another is shown by it.
    let outer: Vec<PathBuf> =
        paths.iter().filter(|p| !paths.iter().any(|q| q != *p && p.starts_with(q))).cloned().collect();
    outer
}

/// Whether `p` is one of the home folder's secrets or inside one.
fn is_secret_in_home(home: &Path, p: &Path) -> bool {
    HOME_SECRETS.iter().any(|s| p.starts_with(home.join(s)))
}

/// Every path whose content commands must not read, as named (links are followed when the
/// sandbox is built): the system's secrets, the home folder's, those the variables in
/// [`MOVED_SECRETS`] and [`MOVED_ROOTS`] point to, and Skilldeck's own folder.
pub fn secrets(home: Option<&Path>, env: &HostEnv, skilldeck_home: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> =
        SYSTEM_SECRETS.iter().map(PathBuf::from).filter(|p| Some(p.as_path()) != home).collect();
    if let Some(home) = home {
        out.extend(HOME_SECRETS.iter().map(|s| home.join(s)));
    }
    for (var, inside) in MOVED_SECRETS {
        let Some(value) = env.get(var) else { continue };
        for base in std::env::split_paths(value).filter(|p| p.is_absolute()) {
            if inside.is_empty() {
                out.push(base);
            } else {
                out.extend(inside.iter().map(|s| base.join(s)));
            }
        }
    }
    for (var, prefix) in MOVED_ROOTS {
        let Some(base) = env.get(var).map(PathBuf::from).filter(|p| p.is_absolute()) else { continue };
        out.extend(HOME_SECRETS.iter().filter_map(|s| s.strip_prefix(prefix)).map(|s| base.join(s)));
    }
    out.push(skilldeck_home.to_owned());
    out.iter().map(|p| normal(p)).collect()
}

/// `p` with `.` and `..` taken out by name (no link followed).
fn normal(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_listed_variables_pass() {
        let env = HostEnv::from_vars([
            ("PATH", "/bin"),
            ("LC_ALL", "C"),
            ("DATABASE_URL", "postgres://u:p@h/db"),
            ("GH_PAT", "x"),
            ("MY_VAR", "1"),
            ("SKILLDECK_HOME", "/h"),
        ]);
        let names = |named: &[String]| -> Vec<String> {
            env.passed(named).into_iter().map(|(k, _)| k.to_string_lossy().into_owned()).collect()
        };
        assert_eq!(names(&[]), ["LC_ALL", "PATH"]);
        assert_eq!(names(&["MY_VAR".into(), "SKILLDECK_HOME".into()]), ["LC_ALL", "MY_VAR", "PATH"]);
    }

    #[test]
    fn readable_home_paths_are_outermost_and_never_secrets() {
        let home = Path::new("/h");
        let env = HostEnv::from_vars([("PATH", "/h/.cargo/bin:/h/tools/bin:/usr/bin"), ("CARGO_HOME", "/h/.cargo")]);
        let r = readable_in_home(home, &env, &["~/notes".into(), ".ssh".into(), "/h/.aws/x".into()]);
        assert!(r.contains(&PathBuf::from("/h/.cargo")));
        assert!(!r.contains(&PathBuf::from("/h/.cargo/bin")));
        assert!(r.contains(&PathBuf::from("/h/tools/bin")));
        assert!(r.contains(&PathBuf::from("/h/notes")));
        assert!(!r.iter().any(|p| p.starts_with("/h/.ssh") || p.starts_with("/h/.aws")));
        assert!(!r.contains(&PathBuf::from("/usr/bin")));
    }

    #[test]
    fn variables_that_move_secrets_are_followed() {
        let env = HostEnv::from_vars([
            ("CLAUDE_CONFIG_DIR", "/srv/claude"),
            ("CODEX_HOME", "/srv/codex"),
            ("XDG_CONFIG_HOME", "/srv/config"),
            ("KUBECONFIG", "/a/kube:/b/kube"),
        ]);
        let s = secrets(Some(Path::new("/h")), &env, Path::new("/sd"));
        for p in
            ["/srv/claude/.credentials.json", "/srv/codex/auth.json", "/srv/config/gh", "/a/kube", "/b/kube", "/sd"]
        {
            assert!(s.contains(&PathBuf::from(p)), "{p}");
        }
        assert!(s.contains(&PathBuf::from("/h/.ssh")));
    }
}
