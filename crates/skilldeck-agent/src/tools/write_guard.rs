//! Which files `write_file` may not write without asking: those something runs later, outside
//! the shell sandbox — git's hooks and config, direnv's `.envrc`, an editor's tasks, build files
//! whose commands the user runs, shell start-up files, Skilldeck's own profile and mounts.
//! Holds the path rules; asking is the loop's (`dispatch`), writing the sandbox's.

use skilldeck_mount::sandbox::Sandbox;

/// Folders (any path component, any case) whose files run code later.
const FOLDERS: &[(&str, &str)] = &[
    (".git", "git runs hooks and the programs its config names from .git/, at your next git command"),
    (".vscode", "VS Code runs the tasks, launch commands and tool paths set in .vscode/"),
    (".idea", "JetBrains IDEs run the run configurations and tool paths set in .idea/"),
    (".devcontainer", "dev containers run the commands set in .devcontainer/"),
    (".husky", "husky installs the scripts in .husky/ as git hooks"),
    (".githooks", "a repository's .githooks/ is often set as git's hooks folder"),
    (".github", "GitHub runs the workflows in .github/ with the repository's secrets"),
    (".direnv", "direnv loads what .direnv/ holds when you enter the folder"),
    (".skills", "Skilldeck mounts skills in .skills/; the agent would load what is written there"),
    (".claude", "Claude Code runs the hooks and loads the skills, commands and settings in .claude/"),
    (".codex", "Codex reads the MCP servers and settings in .codex/"),
    (".cursor", "Cursor starts the MCP servers and follows the rules in .cursor/"),
    (".gemini", "Gemini CLI starts the MCP servers and runs the settings in .gemini/"),
    (".agents", "agents load the skills in .agents/ without Skilldeck's approvals"),
    (".windsurf", "Windsurf follows the rules and workflows in .windsurf/"),
    (".continue", "Continue starts the MCP servers set in .continue/"),
    (".zed", "Zed runs the tasks set in .zed/"),
    (".cargo", "cargo runs the wrappers, runners and aliases set in .cargo/config.toml"),
];

/// File names (the last component, any case) that something runs or loads later.
const FILES: &[(&str, &str)] = &[
    (".envrc", "direnv runs .envrc when you enter the folder"),
    (".env.local", "tools load it into the environment of the commands they run"),
    (".skilldeck.toml", "it chooses what Skilldeck lists for this workspace"),
    (".mcp.json", "Claude Code starts the MCP servers it names"),
    ("rust-toolchain.toml", "rustup runs the toolchain it names, which may be a folder of programs"),
    ("rust-toolchain", "rustup runs the toolchain it names, which may be a folder of programs"),
    ("build.rs", "cargo runs it at every build"),
    ("gemfile", "bundler runs it as Ruby code"),
    ("rakefile", "rake runs the tasks it holds"),
    ("build.gradle", "gradle runs it as code"),
    ("build.gradle.kts", "gradle runs it as code"),
    ("settings.gradle", "gradle runs it as code"),
    ("settings.gradle.kts", "gradle runs it as code"),
    ("conftest.py", "pytest runs it whenever tests run in its folder"),
    ("noxfile.py", "nox runs the sessions it holds"),
    ("tox.ini", "tox runs the commands it names"),
    ("makefile", "make runs the commands it holds"),
    ("gnumakefile", "make runs the commands it holds"),
    ("justfile", "just runs the commands it holds"),
    ("package.json", "npm and yarn run its scripts (install, test, build) when you run them"),
    (".npmrc", "npm reads its settings, which can name programs and scripts"),
    (".yarnrc", "yarn reads its settings, which can name programs"),
    (".yarnrc.yml", "yarn reads its settings, which can name programs and plugins"),
    ("pyproject.toml", "pip and build tools run the build backend and hooks it names"),
    ("setup.py", "pip runs it when the project is installed"),
    (".pre-commit-config.yaml", "pre-commit runs the hooks it names at each git commit"),
    ("mise.toml", "mise runs the hooks and tasks it names when you enter the folder"),
    (".mise.toml", "mise runs the hooks and tasks it names when you enter the folder"),
    (".tool-versions", "version managers install and run what it names when you enter the folder"),
    (".bashrc", "a shell runs its start-up files"),
    (".bash_profile", "a shell runs its start-up files"),
    (".bash_login", "a shell runs its start-up files"),
    (".bash_logout", "a shell runs its start-up files"),
    (".profile", "a shell runs its start-up files"),
    (".zshrc", "a shell runs its start-up files"),
    (".zshenv", "a shell runs its start-up files"),
    (".zprofile", "a shell runs its start-up files"),
    (".zlogin", "a shell runs its start-up files"),
    (".kshrc", "a shell runs its start-up files"),
    (".cshrc", "a shell runs its start-up files"),
    (".tcshrc", "a shell runs its start-up files"),
    ("config.fish", "fish runs its start-up files"),
];

/// A component as a case-insensitive file system (and Windows, trailing dots and spaces) sees it.
fn folded(component: &str) -> String {
    component.trim_end_matches(['.', ' ']).to_lowercase()
}

/// Why writing `path` (relative to the workspace, as given) needs the user's approval, or `None`.
pub fn asks(path: &str) -> Option<String> {
    let parts: Vec<String> = path.split(['/', '\\']).filter(|c| !c.is_empty()).map(folded).collect();
    let last = parts.last()?;
    if let Some((_, why)) = FILES.iter().find(|(name, _)| name == last) {
        return Some((*why).to_owned());
    }
    // Also as the last component: a `.git` file's `gitdir:` points git at another folder.
    FOLDERS.iter().find(|(name, _)| parts.iter().any(|d| d == name)).map(|(_, why)| (*why).to_owned())
}

/// Why a pre-approved command's words may make it write a file that runs code later: an option
/// naming one (`--output=.git/hooks/pre-commit`, `-o Makefile`), or `None`. A plain argument
/// (`git diff Makefile`) is a file the command reads, and is not refused.
pub fn option_writes(words: &[String]) -> Option<String> {
    let mut after_output = false;
    for w in words {
        let value = if after_output {
            Some(w.as_str())
        } else if w.starts_with('-') {
            w.split_once('=').map(|(_, v)| v)
        } else {
            None
        };
        after_output = matches!(w.as_str(), "--output" | "-o");
        if let Some(why) = value.and_then(asks) {
            return Some(format!("`{w}` could write a file that runs code later ({why})"));
        }
    }
    None
}

/// Why writing `path` needs approval, judged both by the path as given and by where its folders
/// really lead inside the workspace (a symlink `hooks -> .git/hooks` must not hide the target).
pub fn asks_in(sandbox: &Sandbox, path: &str) -> Option<String> {
    if let Some(why) = asks(path) {
        return Some(why);
    }
    let resolved = resolved(sandbox, path)?;
    asks(&resolved).map(|why| format!("{why} ({path} leads to {resolved})"))
}

/// The path inside the workspace that `path` reaches once its existing folders are resolved, when
/// that differs from `path`.
fn resolved(sandbox: &Sandbox, path: &str) -> Option<String> {
    let parts: Vec<&str> = path.split('/').filter(|c| !c.is_empty()).collect();
    let (_, dirs) = parts.split_last()?;
    // The deepest folder that exists, and what follows it.
    let mut n = dirs.len();
    let fd = loop {
        if n == 0 {
            return None;
        }
        if let Ok(fd) = sandbox.open_dir(&dirs[..n].join("/")) {
            break fd;
        }
        n -= 1;
    };
    let real = std::fs::read_link(format!("/proc/self/fd/{}", rustix::fd::AsRawFd::as_raw_fd(&fd))).ok()?;
    let inside = real.strip_prefix(sandbox.root()).ok()?;
    let mut out: Vec<String> = inside.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    out.extend(parts[n..].iter().map(|s| (*s).to_owned()));
    let out = out.join("/");
    (out != parts.join("/")).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_that_runs_later_asks_and_ordinary_files_do_not() {
        for p in [
            ".git/hooks/pre-commit",
            ".git/config",
            ".GIT/config",
            "sub/.git/hooks/post-checkout",
            ".git./config",
            ".envrc",
            "app/.ENVRC",
            ".vscode/tasks.json",
            ".vscode/settings.json",
            ".idea/workspace.xml",
            "Makefile",
            "web/package.json",
            "pyproject.toml",
            ".bashrc",
            ".skilldeck.toml",
            ".skills/pdf/SKILL.md",
            "sub/.git",
            ".claude/settings.json",
            ".mcp.json",
            ".cursor/mcp.json",
            ".cargo/config.toml",
            "crate/build.rs",
            "tests/conftest.py",
            ".agents/skills/pdf/SKILL.md",
        ] {
            assert!(asks(p).is_some(), "{p}");
        }
        let words = |s: &str| s.split(' ').map(str::to_owned).collect::<Vec<_>>();
        assert!(option_writes(&words("git diff --output=.git/hooks/pre-commit")).is_some());
        assert!(option_writes(&words("git diff -o Makefile")).is_some());
        assert_eq!(option_writes(&words("git diff Makefile --output=d.txt")), None);
        for p in ["src/main.rs", "README.md", "notes/git.txt", ".gitignore", "docs/makefile.md", "a/.gitx/y"] {
            assert_eq!(asks(p), None, "{p}");
        }
    }
}
