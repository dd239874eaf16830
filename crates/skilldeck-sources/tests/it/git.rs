//! Fetching Git repositories over `file://` and a loopback smart-HTTP server (`git http-backend`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::path::Path;
use std::time::{Duration, Instant};

use skilldeck_sources::git::{
    self, FetchOptions, GitError, HostToken, Problem, ProblemKind, RemoteRef, Tokens, TreeLimits,
};
use skilldeck_sources::testing::{GitHttpServer, GitRepo, StallServer};
use skilldeck_sources::testing_http::{Route, StaticServer};

fn opts() -> FetchOptions {
    FetchOptions {
        connect_timeout: Duration::from_secs(5),
        read_timeout: Duration::from_secs(5),
        ..FetchOptions::default()
    }
}

/// A repository with two skills on `main`, a third on branch `dev`, a lightweight tag `v1` and an
/// annotated tag `v2` on the first commit.
fn fixture() -> (GitRepo, String) {
    let repo = GitRepo::new().unwrap();
    repo.skill("skills/alpha", "alpha").unwrap();
    repo.skill("skills/beta", "beta").unwrap();
    repo.write_executable("skills/beta/scripts/run.sh", "#!/bin/sh\necho hi\n").unwrap();
    let first = repo.commit("two skills").unwrap();
    repo.tag("v1", false).unwrap();
    repo.tag("v2", true).unwrap();
    repo.branch("dev").unwrap();
    repo.skill("skills/gamma", "gamma").unwrap();
    repo.commit("gamma on dev").unwrap();
    repo.switch("main").unwrap();
    (repo, first)
}

fn files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path.strip_prefix(dir).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn fetch_head_branch_tag_and_commit_over_file_and_http() {
    let (repo, first) = fixture();
    let server = GitHttpServer::start(repo.root(), None).unwrap();
    let dev = repo.git(&["rev-parse", "dev"]).unwrap().trim().to_string();
    for url in [repo.file_url(), server.url("repo.git")] {
        let check = |reference: Option<&str>, commit: &str, resolved: &str, expected: &[&str]| {
            let dest = tempfile::tempdir().unwrap();
            let dest = dest.path().join("out");
            let snapshot = git::fetch(&url, reference, None, &dest, &opts())
                .unwrap_or_else(|e| panic!("{url} {reference:?}: {e}"));
            assert_eq!(
                (snapshot.commit.as_str(), snapshot.reference_resolved.as_str()),
                (commit, resolved),
                "{url} {reference:?}"
            );
            assert_eq!(files(&dest), expected, "{url} {reference:?}");
            assert!(snapshot.problems.is_empty(), "{:?}", snapshot.problems);
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let mode = std::fs::metadata(dest.join("skills/beta/scripts/run.sh")).unwrap().permissions().mode();
                assert_eq!(mode & 0o111, 0o111, "the script keeps its executable bit");
            }
        };
        let two = ["skills/alpha/SKILL.md", "skills/beta/SKILL.md", "skills/beta/scripts/run.sh"];
        let three =
            ["skills/alpha/SKILL.md", "skills/beta/SKILL.md", "skills/beta/scripts/run.sh", "skills/gamma/SKILL.md"];
        check(None, &first, "refs/heads/main", &two);
        check(Some("dev"), &dev, "refs/heads/dev", &three);
        check(Some("refs/heads/dev"), &dev, "refs/heads/dev", &three);
        check(Some("v1"), &first, "refs/tags/v1", &two);
        check(Some("v2"), &first, "refs/tags/v2", &two);
        check(Some(&dev), &dev, &dev, &three);
    }
    let posts = server.received().iter().filter(|r| r.method == "POST").count();
    assert!(posts >= 6, "the HTTP fetches went through the server: {:?}", server.received());
}

#[test]
fn a_sub_path_only() {
    let (repo, _) = fixture();
    let dest = tempfile::tempdir().unwrap();
    let snapshot = git::fetch(&repo.file_url(), None, Some("skills/beta"), dest.path(), &opts()).unwrap();
    assert_eq!(files(&snapshot.dir), ["SKILL.md", "scripts/run.sh"]);

    let dest = tempfile::tempdir().unwrap();
    let err = git::fetch(&repo.file_url(), None, Some("skills/nope"), dest.path(), &opts()).unwrap_err();
    assert!(
        matches!(&err, GitError::SubpathNotFound { path, existing, .. } if path == "skills/nope" && existing == &["alpha", "beta"]),
        "{err:?}"
    );
    assert_eq!(files(dest.path()), Vec::<String>::new(), "nothing written");
}

#[cfg(unix)]
#[test]
fn symlinks_submodules_and_lfs_pointers_are_reported_not_written() {
    let repo = GitRepo::new().unwrap();
    repo.skill("skills/a", "a").unwrap();
    repo.symlink("skills/a/inside.md", "SKILL.md").unwrap();
    repo.symlink("skills/a/passwd", "/etc/passwd").unwrap();
    repo.symlink("skills/a/up", "../../../outside").unwrap();
    repo.write("skills/a/assets/big.bin", "version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 12345\n")
        .unwrap();
    let first = repo.commit("skill").unwrap();
    repo.gitlink("skills/a/vendored", &first).unwrap();
    repo.commit("submodule").unwrap();

    let dest = tempfile::tempdir().unwrap();
    let snapshot = git::fetch(&repo.file_url(), None, None, &dest.path().join("o"), &opts()).unwrap();
    let symlink = |path: &str, target: &str, leaves_tree| Problem {
        path: path.into(),
        kind: ProblemKind::Symlink { target: target.into(), leaves_tree },
    };
    assert_eq!(
        snapshot.problems,
        [
            Problem { path: "skills/a/assets/big.bin".into(), kind: ProblemKind::LfsPointer },
            symlink("skills/a/inside.md", "SKILL.md", false),
            symlink("skills/a/passwd", "/etc/passwd", true),
            symlink("skills/a/up", "../../../outside", true),
            Problem { path: "skills/a/vendored".into(), kind: ProblemKind::Submodule { commit: first.clone() } },
        ]
    );
    assert_eq!(files(&snapshot.dir), ["skills/a/SKILL.md", "skills/a/assets/big.bin"]);
    assert!(std::fs::symlink_metadata(snapshot.dir.join("skills/a/passwd")).is_err());
}

#[test]
fn a_ref_that_does_not_exist_lists_those_that_do() {
    let (repo, _) = fixture();
    let dest = tempfile::tempdir().unwrap();
    let err = git::fetch(&repo.file_url(), Some("nope"), None, dest.path(), &opts()).unwrap_err();
    match &err {
        GitError::RefNotFound { reference, existing, .. } => {
            assert_eq!(reference, "nope");
            assert_eq!(existing, &["dev", "main", "v1", "v2"]);
        }
        other => panic!("{other:?}"),
    }
    assert!(err.to_string().contains("it has: dev, main, v1, v2"), "{err}");

    let err = git::fetch(&repo.file_url(), Some("abc1234"), None, dest.path(), &opts()).unwrap_err();
    assert!(matches!(err, GitError::AbbreviatedCommit { .. }), "{err:?}");
    assert!(err.to_string().contains("full 40-character"), "{err}");
}

#[test]
fn a_commit_the_server_will_not_send_by_id() {
    let (repo, first) = fixture();
    repo.git(&["-C", repo.bare().to_str().unwrap(), "config", "uploadpack.allowReachableSHA1InWant", "false"]).unwrap();
    // A commit no ref points at (main moved on): refused, and the error says to name a ref.
    repo.skill("skills/delta", "delta").unwrap();
    let middle = repo.commit("delta").unwrap();
    repo.skill("skills/eps", "eps").unwrap();
    repo.commit("eps").unwrap();
    let server = GitHttpServer::start(repo.root(), None).unwrap();
    for url in [repo.file_url(), server.url("repo.git")] {
        let dest = tempfile::tempdir().unwrap();
        match git::fetch(&url, Some(&middle), None, &dest.path().join("o"), &opts()) {
            // Protocol v2 servers send any reachable commit.
            Ok(snapshot) => assert_eq!(snapshot.commit, middle),
            Err(err) => assert!(matches!(err, GitError::CommitNotServed { .. }), "{url}: {err:?}"),
        }
        // A commit a tag points at is always had.
        let snapshot = git::fetch(&url, Some(&first), None, &dest.path().join("p"), &opts()).unwrap();
        assert_eq!(snapshot.commit, first);
    }
}

#[test]
fn a_tree_over_the_limits_of_a_fetch_is_refused_before_writing() {
    let (repo, _) = fixture();
    let dest = tempfile::tempdir().unwrap();
    let out = dest.path().join("o");
    let limits = TreeLimits { max_files: 2, ..TreeLimits::default() };
    let err = git::fetch(&repo.file_url(), None, None, &out, &FetchOptions { limits, ..opts() }).unwrap_err();
    assert!(err.to_string().contains("3 files, over the limit of 2 a fetch"), "{err}");
    let limits = TreeLimits { max_bytes: 100, ..TreeLimits::default() };
    let err = git::fetch(&repo.file_url(), None, None, &out, &FetchOptions { limits, ..opts() }).unwrap_err();
    assert!(matches!(err, GitError::TooBig { .. }) && err.to_string().contains("in all"), "{err}");
    assert!(err.to_string().contains("raise `max_fetch_bytes` under [sources] in config.toml"), "{err}");
    assert!(!out.exists(), "nothing written");
}

/// A file too big for any skill is not written, but named with its size; the rest is.
#[test]
fn a_file_over_the_limit_a_file_is_left_out_and_reported() {
    let (repo, _) = fixture();
    repo.write("skills/alpha/big.bin", vec![7u8; 4096]).unwrap();
    repo.commit("big").unwrap();
    let dest = tempfile::tempdir().unwrap();
    let limits = TreeLimits { max_file_bytes: 1024, ..TreeLimits::default() };
    let snapshot =
        git::fetch(&repo.file_url(), None, None, &dest.path().join("o"), &FetchOptions { limits, ..opts() }).unwrap();
    assert_eq!(
        snapshot.problems,
        [Problem { path: "skills/alpha/big.bin".into(), kind: ProblemKind::TooBig { size: 4096, limit: 1024 } }]
    );
    assert_eq!(files(&snapshot.dir), ["skills/alpha/SKILL.md", "skills/beta/SKILL.md", "skills/beta/scripts/run.sh"]);
    let sizes: Vec<&str> = snapshot.sizes.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        sizes,
        ["skills/alpha/SKILL.md", "skills/alpha/big.bin", "skills/beta/SKILL.md", "skills/beta/scripts/run.sh"]
    );
    assert!(snapshot.sizes.contains(&("skills/alpha/big.bin".to_owned(), 4096)));
}

/// Bytes that do not compress: a pack holds them at their size.
pub fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// The download itself is bounded: a pack far over the limit of a fetch is stopped as it comes
/// in, over `file://` and smart HTTP alike, and nothing is written.
#[test]
fn a_download_over_the_limit_of_a_fetch_is_stopped() {
    let repo = GitRepo::new().unwrap();
    repo.skill("skills/a", "a").unwrap();
    repo.write("skills/a/noise.bin", noise(3 << 20, 42)).unwrap();
    repo.commit("three MiB that do not compress").unwrap();
    let server = GitHttpServer::start(repo.root(), None).unwrap();
    for url in [repo.file_url(), server.url("repo.git")] {
        let dest = tempfile::tempdir().unwrap();
        let out = dest.path().join("o");
        let limits = TreeLimits { max_bytes: 64 << 10, ..TreeLimits::default() };
        let err = git::fetch(&url, None, None, &out, &FetchOptions { limits, ..opts() }).unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, GitError::TooBig { .. }), "{url}: {err:?}");
        assert!(text.contains("the download passed") && text.contains("over the limit of 64.0 KiB a fetch"), "{text}");
        assert!(text.contains("raise `max_fetch_bytes`"), "{text}");
        assert_eq!(err.code(), "source_too_big");
        assert!(!out.exists(), "nothing written");
    }
}

#[test]
fn remote_refs_in_one_listing() {
    let (repo, first) = fixture();
    let server = GitHttpServer::start(repo.root(), None).unwrap();
    let dev = repo.git(&["rev-parse", "dev"]).unwrap().trim().to_string();
    let tag = repo.git(&["rev-parse", "v2"]).unwrap().trim().to_string();
    let r = |name: &str, oid: &str, peeled: Option<&str>, symref: Option<&str>| RemoteRef {
        name: name.into(),
        oid: oid.into(),
        peeled: peeled.map(Into::into),
        symref_target: symref.map(Into::into),
    };
    let expected = vec![
        r("HEAD", &first, None, Some("refs/heads/main")),
        r("refs/heads/dev", &dev, None, None),
        r("refs/heads/main", &first, None, None),
        r("refs/tags/v1", &first, None, None),
        r("refs/tags/v2", &tag, Some(&first), None),
    ];
    assert_eq!(git::remote_refs(&repo.file_url(), &opts()).unwrap(), expected);
    let before = server.received().len();
    assert_eq!(git::remote_refs(&server.url("repo.git"), &opts()).unwrap(), expected);
    let requests = &server.received()[before..];
    assert!(requests.len() <= 2 && requests.iter().all(|r| r.target.contains("repo.git")), "{requests:?}");
}

#[test]
fn a_server_that_stalls_times_out() {
    let server = StallServer::start().unwrap();
    let options =
        FetchOptions { connect_timeout: Duration::from_secs(1), read_timeout: Duration::from_secs(1), ..opts() };
    let started = Instant::now();
    let err = git::remote_refs(&server.url("repo.git"), &options).unwrap_err();
    assert!(matches!(err, GitError::Timeout { .. }), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    assert!(err.to_string().contains("did not answer within 1 s"), "{err}");
}

/// A server that sends a byte now and then never trips the read timeout; the total time still
/// ends the listing and the fetch, at once.
#[test]
fn a_server_that_trickles_is_given_up_after_the_total_time() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("o/r.git/info")).unwrap();
    std::fs::write(root.path().join("o/r.git/info/refs"), vec![b'0'; 200]).unwrap();
    let server = StaticServer::start(root.path()).unwrap();
    server.route("/o/r.git/info/refs?service=git-upload-pack", Route::Trickle { every: Duration::from_millis(50) });
    let options =
        FetchOptions { read_timeout: Duration::from_secs(1), total_timeout: Duration::from_millis(1500), ..opts() };
    let url = server.url("/o/r.git");
    for listing in [true, false] {
        let started = Instant::now();
        let dest = tempfile::tempdir().unwrap();
        let err = if listing {
            git::remote_refs(&url, &options).unwrap_err()
        } else {
            git::fetch(&url, None, None, &dest.path().join("tree"), &options).unwrap_err()
        };
        let took = started.elapsed();
        assert!(matches!(err, GitError::TookTooLong { .. }), "{err:?}");
        assert!(took < Duration::from_secs(4), "{took:?}");
        assert!(err.to_string().contains("took longer than 1.5 s in all"), "{err}");
        assert_eq!(err.code(), "source_timed_out");
    }
}

#[test]
fn an_unreachable_host() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let err = git::remote_refs(&format!("http://127.0.0.1:{port}/r.git"), &opts()).unwrap_err();
    assert!(matches!(err, GitError::Unreachable { .. }), "{err:?}");
    let err = git::remote_refs("file:///nonexistent/repo.git", &opts()).unwrap_err();
    assert!(matches!(err, GitError::NotARepository { .. }), "{err:?}");
}

#[test]
fn credentials_from_a_token_and_a_401_without_one() {
    let (repo, first) = fixture();
    let server = GitHttpServer::start(repo.root(), Some(("x-access-token", "s3cret-token"))).unwrap();
    let url = server.url("repo.git");
    let token = |secret: &str| {
        Tokens(vec![HostToken {
            host: "127.0.0.1".into(),
            username: "x-access-token".into(),
            token: secret.into(),
            origin: "GITHUB_TOKEN".into(),
        }])
    };
    let err = git::remote_refs(&url, &opts()).unwrap_err();
    assert!(matches!(&err, GitError::NeedsCredentials { tried: None, .. }), "{err:?}");
    assert!(err.to_string().contains("needs credentials") && err.to_string().contains("GITHUB_TOKEN"), "{err}");

    // The host's token is taken, but gitoxide will not send it over plain HTTP (the CLI's
    // `a_token_over_tls_is_sent_accepted_and_never_kept` sees it accepted over HTTPS), and the
    // error says so without the token.
    let dest = tempfile::tempdir().unwrap();
    let err = git::fetch(&url, None, None, dest.path(), &FetchOptions { tokens: token("s3cret-token"), ..opts() })
        .unwrap_err();
    assert!(matches!(&err, GitError::InsecureCredentials { origin: Some(t), .. } if t == "GITHUB_TOKEN"), "{err:?}");
    assert!(!format!("{err} {err:?}").contains("s3cret"));
    assert!(server.received().iter().all(|r| !r.authorized), "no Authorization header ever sent");
    assert!(!format!("{:?}", token("s3cret-token")).contains("s3cret"));

    // Without credentials needed, the same server's repository is fetched.
    let open = GitHttpServer::start(repo.root(), None).unwrap();
    let snapshot = git::fetch(&open.url("repo.git"), None, None, &dest.path().join("o"), &opts()).unwrap();
    assert_eq!(snapshot.commit, first);
}

#[test]
fn tokens_from_the_environment_by_host() {
    let hosts = skilldeck_sources::Hosts { github: "https://ghe.corp".into(), ..Default::default() };
    let vars = |name: &str| match name {
        "GH_TOKEN" => Some("gh".to_string()),
        "GITLAB_TOKEN" => Some(" gl \n".to_string()),
        _ => None,
    };
    let tokens = Tokens::from_vars(&hosts, vars);
    let found = |host| tokens.for_host(host).map(|t| (t.username.as_str(), t.token.as_str(), t.origin.as_str()));
    assert_eq!(found("github.com"), Some(("x-access-token", "gh", "GH_TOKEN")));
    assert_eq!(found("ghe.corp"), Some(("x-access-token", "gh", "GH_TOKEN")));
    assert_eq!(found("gitlab.com"), Some(("oauth2", "gl", "GITLAB_TOKEN")));
    assert_eq!(found("example.com"), None);
}

/// The fetch half of `hooks_never_run`, in a child process whose Git configuration names a
/// hooks folder; does nothing when run on its own.
#[test]
fn hook_child() {
    let (Some(url), Some(dest)) = (std::env::var_os("SKILLDECK_HOOK_URL"), std::env::var_os("SKILLDECK_HOOK_DEST"))
    else {
        return;
    };
    git::fetch(url.to_str().unwrap(), None, None, Path::new(&dest), &opts()).unwrap();
}

#[cfg(unix)]
#[test]
fn hooks_never_run() {
    use std::os::unix::fs::PermissionsExt;
    let (repo, _) = fixture();
    let dir = tempfile::tempdir().unwrap();
    let hooks = dir.path().join("hooks");
    std::fs::create_dir(&hooks).unwrap();
    let marker = dir.path().join("ran");
    for hook in [
        "post-checkout",
        "post-merge",
        "reference-transaction",
        "post-index-change",
        "pre-auto-gc",
        "fsmonitor-watchman",
    ] {
        let path = hooks.join(hook);
        std::fs::write(&path, format!("#!/bin/sh\necho {hook} >> '{}'\n", marker.display())).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let config = dir.path().join("gitconfig");
    std::fs::write(&config, format!("[core]\n\thooksPath = {}\n", hooks.display())).unwrap();

    // The hooks are real: `git clone` with this configuration runs them.
    let status = std::process::Command::new("git")
        .args(["clone", "-q", &repo.file_url(), dir.path().join("clone").to_str().unwrap()])
        .env("GIT_CONFIG_GLOBAL", &config)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .status()
        .unwrap();
    assert!(status.success() && marker.exists(), "the fixture's hooks run under git clone");
    std::fs::remove_file(&marker).unwrap();

    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            &skilldeck_testkit::test_name(module_path!(), "hook_child"),
            "--nocapture",
            "--test-threads=1",
        ])
        .env("GIT_CONFIG_GLOBAL", &config)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("SKILLDECK_HOOK_URL", repo.file_url())
        .env("SKILLDECK_HOOK_DEST", dir.path().join("fetched"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains("1 passed"), "{text}");
    assert!(dir.path().join("fetched/skills/alpha/SKILL.md").exists());
    assert!(!marker.exists(), "a hook ran: {}", std::fs::read_to_string(&marker).unwrap_or_default());
}
