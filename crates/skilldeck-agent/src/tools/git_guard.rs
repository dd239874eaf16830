//! Whether a `git` command an approved grant covers would run only git: the repository's
//! configuration in the workspace may name programs (`diff.external`, `core.fsmonitor`, a diff
//! driver's `textconv`, a filter, an alias), and those would run pre-approved. Holds the check of
//! that configuration against an allow-list of harmless keys, and the environment that turns off
//! the program-naming keys git has fixed names for. Not the grant matching (`allowed`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The largest config file read; a larger one is not checked, so the user is asked.
const MAX_CONFIG: u64 = 64 * 1024;

/// Keys (lowercase `section.key`, or `section.*.key` for any subsection) that run nothing and
/// name no program. Any other key in the repository's configuration means the user is asked.
const HARMLESS: &[&str] = &[
    "core.repositoryformatversion",
    "core.filemode",
    "core.bare",
    "core.logallrefupdates",
    "core.ignorecase",
    "core.precomposeunicode",
    "core.symlinks",
    "core.autocrlf",
    "core.eol",
    "core.safecrlf",
    "core.quotepath",
    "core.abbrev",
    "core.worktree",
    "core.sharedrepository",
    "core.compression",
    "core.untrackedcache",
    "core.checkstat",
    "core.trustctime",
    "init.defaultbranch",
    "user.name",
    "user.email",
    "user.signingkey",
    "author.name",
    "author.email",
    "committer.name",
    "committer.email",
    "remote.*.url",
    "remote.*.pushurl",
    "remote.*.fetch",
    "remote.*.push",
    "remote.*.tagopt",
    "remote.*.prune",
    "remote.*.mirror",
    "remote.*.promisor",
    "remote.*.partialclonefilter",
    "branch.*.remote",
    "branch.*.merge",
    "branch.*.rebase",
    "branch.*.pushremote",
    "branch.*.description",
    "submodule.*.url",
    "submodule.*.active",
    "pull.rebase",
    "pull.ff",
    "push.default",
    "push.autosetupremote",
    "fetch.prune",
    "merge.conflictstyle",
    "merge.ff",
    "diff.renames",
    "diff.algorithm",
    "diff.colormoved",
    "color.ui",
    "gc.auto",
    "index.version",
    "lfs.repositoryformatversion",
];

/// Config that git reads from the command line's scope (like `-c`), above the repository's:
/// the keys with fixed names that name a program, each set to something that runs nothing of
/// the workspace's.
const OVERRIDES: &[(&str, &str)] = &[
    ("core.pager", "cat"),
    ("core.editor", "true"),
    ("sequence.editor", "true"),
    ("core.askPass", ""),
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.sshCommand", "ssh"),
    ("credential.helper", ""),
    ("gpg.program", "gpg"),
    ("gpg.ssh.program", "ssh-keygen"),
    ("gpg.x509.program", "gpgsm"),
    ("protocol.ext.allow", "never"),
    ("log.showSignature", "false"),
];

/// The environment a covered command that runs `git` gets on top of the sandbox's: no system
/// config, no pager, and `OVERRIDES` through `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/
/// `GIT_CONFIG_VALUE_n`, which git reads like `-c` options.
pub fn environment() -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = [("GIT_CONFIG_NOSYSTEM", "1"), ("GIT_PAGER", "cat"), ("PAGER", "cat")]
        .iter()
        .map(|(k, v)| (OsString::from(k), OsString::from(v)))
        .collect();
    env.push(("GIT_CONFIG_COUNT".into(), OVERRIDES.len().to_string().into()));
    for (i, (k, v)) in OVERRIDES.iter().enumerate() {
        env.push((format!("GIT_CONFIG_KEY_{i}").into(), OsString::from(k)));
        env.push((format!("GIT_CONFIG_VALUE_{i}").into(), OsString::from(v)));
    }
    env
}

/// Whether a simple command's words run git.
pub fn is_git(words: &[String]) -> bool {
    words.first().is_some_and(|w| w == "git" || w.ends_with("/git"))
}

/// Why the `git` command `words`, run in `workspace`, may run more than git, or `None`.
pub fn refuses(workspace: &Path, words: &[String]) -> Option<String> {
    if let Some(opt) = words.get(1).filter(|w| w.starts_with('-')) {
        return Some(format!(
            "`{opt}` before the git subcommand can change the configuration, repository or program git runs"
        ));
    }
    check_repository(workspace).err()
}

/// Checks the configuration the workspace's repository gives git: `.git/config` (or the one a
/// `.git` file's `gitdir:` names), its `commondir`'s, `config.worktree`, and the workspace itself
/// when it is laid out as a bare repository. Submodules are not followed: a repository that has
/// them is refused.
pub fn check_repository(workspace: &Path) -> Result<(), String> {
    let dot_git = workspace.join(".git");
    let mut gitdirs: Vec<(PathBuf, String)> = Vec::new();
    match std::fs::symlink_metadata(&dot_git) {
        Ok(m) if m.is_dir() => gitdirs.push((dot_git.clone(), ".git".to_owned())),
        Ok(m) if m.is_file() => {
            let text = read_small(&dot_git).map_err(|e| format!("the repository's .git file {e}"))?;
            let target = text
                .lines()
                .next()
                .and_then(|l| l.strip_prefix("gitdir:"))
                .map(str::trim)
                .ok_or_else(|| "the repository's .git file does not say `gitdir: PATH`".to_owned())?;
            let dir = workspace.join(target);
            gitdirs.push((dir, format!("the git folder {target} that .git names")));
        }
        Ok(_) => return Err("the repository's .git is neither a folder nor a file".to_owned()),
        Err(_) => {}
    }
    // With no `.git`, git takes the folder itself as a bare repository when it looks like one.
    if gitdirs.is_empty() && workspace.join("HEAD").is_file() {
        gitdirs.push((workspace.to_owned(), "the workspace (laid out as a bare repository)".to_owned()));
    }
    if workspace.join(".gitmodules").exists() {
        return Err("the repository has submodules (.gitmodules), whose configuration git would also read".into());
    }
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    for (dir, shown) in &gitdirs {
        if dir.join("modules").exists() {
            return Err(format!("{shown} holds submodules, whose configuration git would also read"));
        }
        files.push((dir.join("config"), format!("{shown}/config")));
        files.push((dir.join("config.worktree"), format!("{shown}/config.worktree")));
        let commondir = dir.join("commondir");
        if commondir.exists() {
            let text = read_small(&commondir).map_err(|e| format!("{shown}/commondir {e}"))?;
            let common = dir.join(text.trim());
            files.push((common.join("config"), format!("{shown}/commondir's config")));
            files.push((common.join("config.worktree"), format!("{shown}/commondir's config.worktree")));
        }
    }
    for (file, shown) in files {
        if !file.exists() && std::fs::symlink_metadata(&file).is_err() {
            continue;
        }
        let text = read_small(&file).map_err(|e| format!("the repository's {shown} {e}"))?;
        if let Some(key) = first_unsafe_key(&text).map_err(|e| format!("the repository's {shown} {e}"))? {
            return Err(format!(
                "the repository's {shown} sets {key}, which is not among the settings known to run nothing \
                 (it may name a program git would run)"
            ));
        }
    }
    Ok(())
}

fn read_small(path: &Path) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot be read ({e})"))?;
    if !meta.is_file() {
        return Err("is not a file".to_owned());
    }
    if meta.len() > MAX_CONFIG {
        return Err(format!("is over {MAX_CONFIG} bytes, too large to check"));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot be read ({e})"))?;
    String::from_utf8(bytes).map_err(|_| "is not UTF-8 text, so it cannot be checked".to_owned())
}

/// The first key of a git config text that is not `HARMLESS`, or why the text cannot be read
/// with certainty (then nothing is assumed: the user is asked). The reader is strict: a line it
/// does not understand, a value continued on the next line, or anything after a section header
/// on its line is refused rather than guessed at.
pub fn first_unsafe_key(text: &str) -> Result<Option<String>, String> {
    let mut section: Option<(String, Option<String>)> = None;
    for (n, raw) in text.split('\n').enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let bad = |what: &str| Err(format!("has {what} on line {} that this check does not read", n + 1));
        if line.trim_end().ends_with('\\') {
            return bad("a value continued on the next line");
        }
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') || t.starts_with(';') {
            continue;
        }
        if let Some(rest) = t.strip_prefix('[') {
            let Some((inside, after)) = rest.split_once(']') else { return bad("an unclosed section header") };
            let after = after.trim();
            if !(after.is_empty() || after.starts_with('#') || after.starts_with(';')) {
                return bad("a setting after a section header");
            }
            section = Some(match parse_header(inside) {
                Some(h) => h,
                None => return bad("a section header"),
            });
            continue;
        }
        let key: String = t.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
        let rest = t[key.len()..].trim_start();
        if key.is_empty() || !key.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return bad("a line");
        }
        if !(rest.is_empty() || rest.starts_with('=') || rest.starts_with('#') || rest.starts_with(';')) {
            return bad("a line");
        }
        let Some((name, sub)) = &section else { return bad("a setting outside any section") };
        let key = key.to_ascii_lowercase();
        let harmless = HARMLESS.iter().any(|h| {
            let parts: Vec<&str> = h.split('.').collect();
            match (parts.as_slice(), sub) {
                ([s, k], None) => s == name && *k == key,
                ([s, "*", k], Some(_)) => s == name && *k == key,
                _ => false,
            }
        });
        if !harmless {
            let shown = match sub {
                Some(sub) => format!("{name}.{sub}.{key}"),
                None => format!("{name}.{key}"),
            };
            return Ok(Some(shown));
        }
    }
    Ok(None)
}

/// `section`, `section "sub"` or the old `section.sub`: the lowercase section and the subsection.
fn parse_header(inside: &str) -> Option<(String, Option<String>)> {
    let inside = inside.trim();
    let is_name = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
    if let Some((name, rest)) = inside.split_once(char::is_whitespace) {
        let sub = rest.trim().strip_prefix('"')?.strip_suffix('"')?;
        if !is_name(name) || name.contains('.') || sub.contains(['"', '\\', '\n']) {
            return None;
        }
        return Some((name.to_ascii_lowercase(), Some(sub.to_owned())));
    }
    if !is_name(inside) {
        return None;
    }
    match inside.split_once('.') {
        Some((name, sub)) => Some((name.to_ascii_lowercase(), Some(sub.to_ascii_lowercase()))),
        None => Some((inside.to_ascii_lowercase(), None)),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_fresh_clone_runs_nothing_and_program_keys_are_caught() {
        let clean = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\
                     \tlogallrefupdates = true\n[remote \"origin\"]\n\turl = https://example.invalid/x.git\n\
                     \tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n\
                     \tmerge = refs/heads/main\n";
        assert_eq!(first_unsafe_key(clean), Ok(None));
        for (text, key) in [
            ("[diff]\n external = ./.git/x.sh\n", "diff.external"),
            ("[core]\n\tFSMonitor = ./x\n", "core.fsmonitor"),
            ("[core]\npager = sh x", "core.pager"),
            ("[diff \"evil\"]\n textconv = ./x\n", "diff.evil.textconv"),
            ("[filter \"x\"]\n clean = ./x\n", "filter.x.clean"),
            ("[alias]\n d = !sh x\n", "alias.d"),
            ("[include]\n path = other\n", "include.path"),
            ("[includeIf \"gitdir:/\"]\n path = other\n", "includeif.gitdir:/.path"),
            ("[remote \"o\"]\n uploadpack = ./x\n", "remote.o.uploadpack"),
            ("[Core]\n\tHooksPath = .h\n", "core.hookspath"),
            ("[core.x]\n\tpager = x\n", "core.x.pager"),
        ] {
            assert_eq!(first_unsafe_key(text), Ok(Some(key.to_owned())), "{text:?}");
        }
        for text in [
            "[remote \"o\"]\n url = x \\\n[diff]\n external = y\n",
            "[diff] external = x\n",
            "[core]\n\tbare\n[diff]external=x\n",
            "external = x\n",
            "[diff\n",
            "[core]\n  = x\n",
            "[remote \"o\\\"\"]\n url = x\n",
        ] {
            assert!(first_unsafe_key(text).is_err(), "{text:?}");
        }
    }

    #[test]
    fn the_environment_sets_every_override() {
        let env = environment();
        let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.to_string_lossy().into_owned());
        assert_eq!(get("GIT_CONFIG_NOSYSTEM").as_deref(), Some("1"));
        assert_eq!(get("GIT_CONFIG_COUNT"), Some(OVERRIDES.len().to_string()));
        assert_eq!(get("GIT_CONFIG_KEY_5").as_deref(), Some("core.hooksPath"));
        assert_eq!(get("GIT_CONFIG_VALUE_5").as_deref(), Some("/dev/null"));
    }
}
