//! Fuzzing the shell-word check that decides whether an approved grant covers a command.
//! A covered command is run by `sh` with only a logging `git` on PATH: it must run nothing but
//! the granted programs and create no file.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_agent::tools::allowed::{Grant, covering};
use skilldeck_fuzzkit::{Budget, Mutator, run};
use std::path::Path;
use std::process::{Command, Stdio};

const SEEDS: &[&[u8]] = &[
    b"git diff",
    b"git diff --stat HEAD~1 -- src/a.rs",
    b"echo hello && git diff a b | echo done",
    b"git diff; echo 'quoted $(x)' \"and $y\"",
    b"git diff 2>&1 || echo failed",
    b"echo a\ngit diff --cached",
];

const INTERESTING: &[&[u8]] = &[
    b";",
    b"&",
    b"&&",
    b"|",
    b"||",
    b"$(",
    b")",
    b"`",
    b"${",
    b"}",
    b"$((",
    b"<",
    b">",
    b">>",
    b"<<EOF\n",
    b"<<<",
    b"<(",
    b">(",
    b"'",
    b"\"",
    b"\\",
    b"\n",
    b" ",
    b"~",
    b"/",
    b"../",
    b"/etc/",
    b"*",
    b"?",
    b"[",
    b"{a,b}",
    b"=",
    b"X=1 ",
    b"2>&1",
    b">&2",
    b"#",
    b"(",
    b"!",
    b"exec ",
    b"eval ",
    b"sh -c ",
    b"--output=",
];

fn grants() -> Vec<Grant> {
    ["Bash(git diff:*)", "Bash(echo:*)"].iter().map(|p| Grant { skill: "fuzz".into(), pattern: (*p).into() }).collect()
}

/// Runs `command` with `sh -c` in `dir` with only the logging `git` on PATH.
fn execute(dir: &Path, bin: &Path, log: &Path, command: &str) -> Result<(), String> {
    let out = Command::new("/usr/bin/timeout")
        .args(["5", "/bin/sh", "-c", command])
        .current_dir(dir)
        .env_clear()
        .env("PATH", bin)
        .env("LOG", log)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("could not run sh: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("not found") {
        return Err(format!("a covered command ran a program no grant names: {stderr}"));
    }
    let made: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "bin")
        .collect();
    if !made.is_empty() {
        return Err(format!("a covered command created {made:?}"));
    }
    let logged = std::fs::read_to_string(log).unwrap_or_default();
    // One line per run of git: its first argument, which must be `diff`.
    if let Some(line) = logged.lines().find(|l| *l != "diff") {
        return Err(format!("git ran as `git {line} …`, not `git diff …`"));
    }
    Ok(())
}

#[test]
fn a_covered_command_runs_only_what_its_grants_name() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, bin, log) = (tmp.path().join("ws"), tmp.path().join("ws/bin"), tmp.path().join("git.log"));
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(
        bin.join("git"),
        // One write per run (pipelines run several at once): the first argument, newlines removed.
        "#!/bin/sh\na=$(printf '%s' \"$1\" | /usr/bin/tr -d '\\n')\nprintf '%s\\n' \"$a\" >> \"$LOG\"\n",
    )
    .unwrap();
    std::fs::set_permissions(bin.join("git"), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let grants = grants();
    let corpus: Vec<Vec<u8>> = SEEDS.iter().map(|s| s.to_vec()).collect();
    let ran = run(
        "a_covered_command_runs_only_what_its_grants_name",
        Budget::from_env(20_000, 8.0),
        &corpus,
        &Mutator::new(INTERESTING, 512),
        &mut |input| {
            let Ok(command) = std::str::from_utf8(input) else { return Ok(false) };
            match covering(&grants, command) {
                Err(_) => Ok(false),
                Ok(by) if by.is_empty() => Err("covered by no grant".into()),
                Ok(_) => {
                    let _ = std::fs::remove_file(&log);
                    execute(&dir, &bin, &log, command).map(|()| true)
                }
            }
        },
    );
    let covered = ran.accepted;
    assert!(covered > 10, "the fuzzer should reach covered commands; it reached {covered}");
}
