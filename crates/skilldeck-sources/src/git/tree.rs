//! A commit's tree (or one folder of it) written as plain files from the object database:
//! sizes counted from object headers first, so a tree over the limits of a fetch is refused
//! before a byte is written, and a file too big for any skill is left out and reported. It never
//! writes a symlink, a submodule or a `.git`; those are reported instead.

use std::io::Write;
use std::path::Path;

use gix::ObjectId;
use gix::objs::tree::EntryKind;

use super::{GitError, Problem, ProblemKind, TreeLimits};
use crate::bytes::shown;
use crate::config::MAX_FETCH_BYTES;

/// The start of a Git LFS pointer file.
const LFS_POINTER: &[u8] = b"version https://git-lfs.github.com/spec/v1";

/// Where a tree came from, for errors.
pub(crate) struct Origin<'a> {
    pub url: &'a str,
    pub commit: &'a str,
}

impl Origin<'_> {
    fn other(&self, error: impl std::fmt::Display) -> GitError {
        GitError::Other { url: self.url.to_string(), detail: error.to_string() }
    }
}

/// What a tree will be written as.
#[derive(Default)]
struct Plan {
    dirs: Vec<String>,
    files: Vec<Planned>,
    problems: Vec<Problem>,
    sizes: Vec<(String, u64)>,
}

/// What was written: what was not written as it stands, and every file's size.
pub(crate) struct Written {
    pub problems: Vec<Problem>,
    pub sizes: Vec<(String, u64)>,
}

/// A file to write.
struct Planned {
    path: String,
    oid: ObjectId,
    executable: bool,
}

/// Writes the tree `tree` (or its folder `subpath`) under `dest`, which must be empty or absent.
pub(crate) fn write(
    repo: &gix::Repository,
    tree: ObjectId,
    subpath: Option<&str>,
    dest: &Path,
    limits: &TreeLimits,
    origin: &Origin<'_>,
) -> Result<Written, GitError> {
    let root = match subpath {
        Some(path) => find_folder(repo, tree, path, origin)?,
        None => tree,
    };
    let Plan { dirs, files, mut problems, sizes } = plan(repo, root, limits, origin)?;
    prepare_dest(dest)?;
    for dir in &dirs {
        let path = dest.join(dir);
        std::fs::create_dir_all(&path).map_err(|source| GitError::Write { path, source })?;
    }
    for file in &files {
        let blob = repo.find_blob(file.oid).map_err(|e| origin.other(e))?;
        if blob.data.starts_with(LFS_POINTER) {
            problems.push(Problem { path: file.path.clone(), kind: ProblemKind::LfsPointer });
        }
        let path = dest.join(&file.path);
        write_file(&path, &blob.data, file.executable).map_err(|source| GitError::Write { path, source })?;
    }
    problems.sort();
    Ok(Written { problems, sizes })
}

/// The folders and files under `root`, and what will not be written; refuses a tree over
/// `limits`, and leaves out (reporting it) a file over the limit a file.
fn plan(repo: &gix::Repository, root: ObjectId, limits: &TreeLimits, origin: &Origin<'_>) -> Result<Plan, GitError> {
    let Plan { mut dirs, mut files, mut problems, mut sizes } = Plan::default();
    let mut total: u64 = 0;
    let mut stack = vec![(root, String::new())];
    while let Some((id, prefix)) = stack.pop() {
        let tree = repo.find_tree(id).map_err(|e| origin.other(e))?;
        let decoded = tree.decode().map_err(|e| origin.other(e))?;
        for entry in &decoded.entries {
            let name = String::from_utf8_lossy(entry.filename).into_owned();
            let path = if prefix.is_empty() { name.clone() } else { format!("{prefix}/{name}") };
            if !safe_name(&name) || entry.filename.len() != name.len() {
                problems.push(Problem { path, kind: ProblemKind::UnsafeName });
                continue;
            }
            match entry.mode.kind() {
                EntryKind::Tree => {
                    dirs.push(path.clone());
                    stack.push((entry.oid.to_owned(), path));
                }
                EntryKind::Blob | EntryKind::BlobExecutable => {
                    let size = repo.find_header(entry.oid).map_err(|e| origin.other(e))?.size();
                    total = total.saturating_add(size);
                    sizes.push((path.clone(), size));
                    if size > limits.max_file_bytes {
                        let kind = ProblemKind::TooBig { size, limit: limits.max_file_bytes };
                        problems.push(Problem { path, kind });
                        continue;
                    }
                    let executable = entry.mode.kind() == EntryKind::BlobExecutable;
                    files.push(Planned { path, oid: entry.oid.to_owned(), executable });
                }
                EntryKind::Link => {
                    let target = repo.find_blob(entry.oid).map_err(|e| origin.other(e))?;
                    let target = String::from_utf8_lossy(&target.data).into_owned();
                    let leaves_tree = leaves(&path, &target, "");
                    problems.push(Problem { path, kind: ProblemKind::Symlink { target, leaves_tree } });
                }
                EntryKind::Commit => {
                    problems.push(Problem { path, kind: ProblemKind::Submodule { commit: entry.oid.to_string() } });
                }
            }
        }
    }
    let too_big = |what: String, fix: String| GitError::TooBig {
        url: origin.url.to_string(),
        commit: origin.commit.to_string(),
        what,
        fix,
    };
    if sizes.len() > limits.max_files {
        return Err(too_big(
            format!("{} files, over the limit of {} a fetch", sizes.len(), limits.max_files),
            "Add just the folder you want (owner/repo/PATH, or a …/tree/REF/PATH web address) rather than the whole repository"
                .to_owned(),
        ));
    }
    if total > limits.max_bytes {
        return Err(too_big(
            format!(
                "{} files, {} in all, over the limit of {} a fetch",
                sizes.len(),
                shown(total),
                shown(limits.max_bytes)
            ),
            fetch_fix(limits.max_bytes, Some(total)),
        ));
    }
    dirs.sort();
    sizes.sort();
    Ok(Plan { dirs, files, problems, sizes })
}

/// How to let in a fetch of `needed` bytes when the limit is `limit`.
pub(crate) fn fetch_fix(limit: u64, needed: Option<u64>) -> String {
    let at_least = needed.map(|n| format!(" to at least {}", shown(n))).unwrap_or_default();
    format!(
        "To fetch it, raise `{MAX_FETCH_BYTES}` under [sources] in config.toml{at_least} (it is {} now)",
        shown(limit)
    )
}

/// The tree of folder `path` inside `tree`.
fn find_folder(repo: &gix::Repository, tree: ObjectId, path: &str, origin: &Origin<'_>) -> Result<ObjectId, GitError> {
    let mut current = tree;
    for segment in path.split('/') {
        let decoded = repo.find_tree(current).map_err(|e| origin.other(e))?;
        let decoded = decoded.decode().map_err(|e| origin.other(e))?;
        let found = decoded
            .entries
            .iter()
            .find(|e| e.filename == segment.as_bytes() && e.mode.kind() == EntryKind::Tree)
            .map(|e| e.oid.to_owned());
        match found {
            Some(id) => current = id,
            None => {
                let mut existing: Vec<String> = decoded
                    .entries
                    .iter()
                    .filter(|e| e.mode.kind() == EntryKind::Tree)
                    .map(|e| String::from_utf8_lossy(e.filename).into_owned())
                    .take(12)
                    .collect();
                existing.sort();
                return Err(GitError::SubpathNotFound {
                    url: origin.url.to_string(),
                    commit: origin.commit.to_string(),
                    path: path.to_string(),
                    existing,
                });
            }
        }
    }
    Ok(current)
}

/// Whether a tree entry's name can be written as one path component on any platform we run on.
fn safe_name(name: &str) -> bool {
    !(name.is_empty()
        || name == "."
        || name == ".."
        || name.eq_ignore_ascii_case(".git")
        || name.contains(['/', '\\', '\0']))
}

/// Whether a symbolic link at `link` (a `/`-separated tree path) to `target` resolves outside the
/// folder `base` (`""` for the root): an absolute target, or one whose `..` climb above `base`.
pub fn leaves(link: &str, target: &str, base: &str) -> bool {
    if target.starts_with('/') || target.starts_with('\\') || target.get(1..2) == Some(":") {
        return true;
    }
    let mut parts: Vec<&str> = link.split('/').filter(|s| !s.is_empty()).collect();
    parts.pop();
    for segment in target.split(['/', '\\']) {
        match segment {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return true;
                }
            }
            other => parts.push(other),
        }
    }
    let base: Vec<&str> = base.split('/').filter(|s| !s.is_empty() && *s != ".").collect();
    !parts.starts_with(&base)
}

fn prepare_dest(dest: &Path) -> Result<(), GitError> {
    match std::fs::read_dir(dest) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(GitError::DestinationNotEmpty { path: dest.to_path_buf() });
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(dest).map_err(|source| GitError::Write { path: dest.to_path_buf(), source })
        }
        Err(source) => Err(GitError::Write { path: dest.to_path_buf(), source }),
    }
}

fn write_file(path: &Path, data: &[u8], executable: bool) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(if executable { 0o755 } else { 0o644 });
    }
    #[cfg(not(unix))]
    let _ = executable;
    let mut file = options.open(path)?;
    file.write_all(data)
}

#[cfg(test)]
mod tests {
    use super::leaves;

    #[test]
    fn links_that_leave() {
        let check = |link, target, base, expected| {
            assert_eq!(leaves(link, target, base), expected, "{link} -> {target} in {base:?}")
        };
        check("a/b/link", "c", "", false);
        check("a/b/link", "../c", "", false);
        check("a/b/link", "../../c", "", false);
        check("a/b/link", "../../../c", "", true);
        check("a/link", "/etc/passwd", "", true);
        check("skills/x/link", "../y/SKILL.md", "skills/x", true);
        check("skills/x/link", "refs/a.md", "skills/x", false);
        check("skills/x/sub/link", "../a.md", "skills/x", false);
        check("skills/x/link", "..", "skills/x", true);
        check("skills/x/link", ".", "skills/x", false);
    }
}
