//! Which folders may never be a workspace: the agent's file tools and shell write there, and
//! skills are mounted there. Holds the one refusal the agent session and MCP roots share.

use std::path::{Path, PathBuf};

/// System folders (and everything below them) that are no project.
pub const SYSTEM_FOLDERS: &[&str] =
    &["/", "/bin", "/boot", "/dev", "/etc", "/lib", "/lib64", "/proc", "/run", "/sbin", "/sys", "/usr"];

/// Folders in the home folder that hold the user's secrets (keys, tokens, keyrings). A workspace
/// may be neither one of them, inside one, nor a folder holding one.
pub const HOME_SECRETS: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".password-store",
    ".pki",
    ".config/gh",
    ".config/gcloud",
    ".config/skilldeck",
    ".local/share/keyrings",
    ".local/share/skilldeck",
    ".netrc",
    ".git-credentials",
];

/// Why a folder was refused as a workspace, with what to choose instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path} {why}; choose a project folder instead (one that holds only the project, such as ~/code/app)")]
pub struct Refused {
    /// The folder as given.
    pub path: String,
    /// Why, in words: "is your home folder", "holds Skilldeck's data folder (…)", ….
    pub why: String,
}

/// What a workspace is checked against: the user's home folder, Skilldeck's data folder and the
/// secret paths the shell sandbox masks.
#[derive(Debug, Clone, Default)]
pub struct Guard {
    home: Option<PathBuf>,
    skilldeck_home: Option<PathBuf>,
    masked: Vec<PathBuf>,
}

fn real(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

impl Guard {
    /// The guard for this user: `$HOME`, the given data folder, and `HOME_SECRETS` under home.
    pub fn for_user(skilldeck_home: Option<&Path>) -> Self {
        let home = std::env::var_os("HOME").map(PathBuf::from).filter(|h| h.is_absolute());
        Self::new(home.as_deref(), skilldeck_home)
    }

    /// A guard for the home folder `home` and data folder `skilldeck_home`.
    pub fn new(home: Option<&Path>, skilldeck_home: Option<&Path>) -> Self {
        let masked: Vec<PathBuf> = home.map(|h| HOME_SECRETS.iter().map(|s| h.join(s)).collect()).unwrap_or_default();
        Self { home: home.map(real), skilldeck_home: skilldeck_home.map(real), masked: Vec::new() }.masking(masked)
    }

    /// Adds paths that may be neither the workspace, inside it, nor hold it (the shell
    /// sandbox's unreadable paths).
    pub fn masking(mut self, paths: impl IntoIterator<Item = PathBuf>) -> Self {
        self.masked.extend(paths.into_iter().map(|p| real(&p)));
        self
    }

    /// Refuses `path` when it is the whole machine, a system folder, the home folder or a folder
    /// above it, or holds (or lies in) Skilldeck's data folder or a secret path.
    pub fn check(&self, path: &Path) -> Result<(), Refused> {
        let real = real(path);
        let refused = |why: String| Err(Refused { path: path.display().to_string(), why });
        if real == Path::new("/") {
            return refused("is the whole file system".to_owned());
        }
        if let Some(top) = SYSTEM_FOLDERS.iter().map(Path::new).find(|s| *s != Path::new("/") && real.starts_with(s)) {
            return refused(format!("is a system folder ({})", top.display()));
        }
        if let Some(home) = &self.home {
            if *home == real {
                return refused(
                    "is your home folder, not a project: the agent could write your shell start-up \
                                files and every project at once"
                        .to_owned(),
                );
            }
            if home.starts_with(&real) {
                return refused(format!("holds your home folder ({})", home.display()));
            }
        }
        if let Some(data) = &self.skilldeck_home
            && (data.starts_with(&real) || real.starts_with(data))
        {
            return refused(format!(
                "{} Skilldeck's data folder ({}), where your approvals are kept",
                if real.starts_with(data) { "is inside" } else { "holds" },
                data.display()
            ));
        }
        if let Some(m) = self.masked.iter().find(|m| m.starts_with(&real) || real.starts_with(m)) {
            return refused(format!(
                "{} {}, which holds secrets the agent may not read",
                if real.starts_with(m) { "is inside" } else { "holds" },
                m.display()
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn home_its_parents_system_folders_data_and_secrets_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home/u");
        let data = home.join(".local/share/skilldeck");
        std::fs::create_dir_all(home.join("code/app")).unwrap();
        std::fs::create_dir_all(home.join(".ssh/keys")).unwrap();
        std::fs::create_dir_all(&data).unwrap();
        let g = Guard::new(Some(&home), Some(&data));
        let why = |p: &Path| g.check(p).unwrap_err().why;
        assert!(why(Path::new("/")).contains("whole file system"));
        assert!(why(Path::new("/etc")).contains("system folder (/etc)"));
        assert!(why(Path::new("/usr/share")).contains("system folder (/usr)"));
        assert!(why(&home).contains("your home folder"));
        assert!(why(&home.join("..")).contains("holds your home folder"));
        assert!(why(tmp.path()).contains("holds your home folder"));
        assert!(why(&home.join(".ssh")).contains(".ssh"));
        assert!(why(&home.join(".ssh/keys")).contains("is inside"));
        assert!(why(&data).contains("Skilldeck's data folder"));
        assert!(why(&home.join(".local")).contains("holds"));
        assert!(g.check(&home.join("code/app")).is_ok());
        let msg = g.check(&home).unwrap_err().to_string();
        assert!(msg.contains("choose a project folder instead"), "{msg}");
    }
}
