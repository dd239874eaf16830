//! Table tests of reading what the user wrote as a source.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_sources::source::{GitSource, Hosts, Source, SourceError, UrlSource};

fn hosts() -> Hosts {
    Hosts { github: "https://github.com".into(), gitlab: "https://gitlab.example.org".into() }
}

fn git(given: &str, url: &str, reference: Option<&str>, subpath: Option<&str>) -> Source {
    Source::Git(GitSource {
        given: given.into(),
        url: url.into(),
        reference: reference.map(Into::into),
        subpath: subpath.map(Into::into),
    })
}

fn check(given: &str, expected: Result<Source, SourceError>) {
    assert_eq!(Source::parse(given, &hosts()), expected, "{given}");
}

fn url_source(given: &str) -> UrlSource {
    UrlSource { given: given.into(), url: url::Url::parse(given).unwrap() }
}

#[test]
fn github_shorthand() {
    let gh = "https://github.com/anthropics/skills.git";
    check("anthropics/skills", Ok(git("anthropics/skills", gh, None, None)));
    check("anthropics/skills.git", Ok(git("anthropics/skills.git", gh, None, None)));
    check("anthropics/skills@v1.2", Ok(git("anthropics/skills@v1.2", gh, Some("v1.2"), None)));
    check(
        "anthropics/skills/document-skills/pdf@feature/x",
        Ok(git("anthropics/skills/document-skills/pdf@feature/x", gh, Some("feature/x"), Some("document-skills/pdf"))),
    );
    check("github:anthropics/skills/pdf", Ok(git("github:anthropics/skills/pdf", gh, None, Some("pdf"))));
    check("anthropics/skills//pdf/", Ok(git("anthropics/skills//pdf/", gh, None, Some("pdf"))));
    let enterprise = Hosts { github: "https://ghe.corp/".into(), ..hosts() };
    assert_eq!(Source::parse("o/r", &enterprise), Ok(git("o/r", "https://ghe.corp/o/r.git", None, None)));
}

#[test]
fn gitlab_shorthand() {
    check(
        "gitlab:group/sub/repo",
        Ok(git("gitlab:group/sub/repo", "https://gitlab.example.org/group/sub/repo.git", None, None)),
    );
    check(
        "gitlab:group/repo//skills/a@main",
        Ok(git(
            "gitlab:group/repo//skills/a@main",
            "https://gitlab.example.org/group/repo.git",
            Some("main"),
            Some("skills/a"),
        )),
    );
}

#[test]
fn bad_shorthand() {
    let bad = |given: &str| Err(SourceError::BadShorthand { given: given.into(), reason: String::new() });
    for given in ["anthropics", "/", "a//", "gitlab:onlyone", "o/r p", ".hidden/repo"] {
        let got = Source::parse(given, &hosts());
        let got = got.map_err(|e| match e {
            SourceError::BadShorthand { given, .. } => SourceError::BadShorthand { given, reason: String::new() },
            other => other,
        });
        if given == "/" {
            assert!(matches!(got, Err(SourceError::NotARepository { .. })), "{given}: {got:?}");
        } else {
            assert_eq!(got, bad(given), "{given}");
        }
    }
    let message = Source::parse("anthropics", &hosts()).unwrap_err().to_string();
    assert!(message.contains("write owner/repo"), "{message}");
}

#[test]
fn bad_refs_and_paths() {
    for (given, reference) in
        [("o/r@", ""), ("o/r@-x", "-x"), ("o/r@a..b", "a..b"), ("o/r@a b", "a b"), ("o/r@x.lock", "x.lock")]
    {
        assert!(
            matches!(Source::parse(given, &hosts()), Err(SourceError::BadRef { reference: r, .. }) if r == reference),
            "{given}"
        );
    }
    assert!(matches!(Source::parse("o/r/../x", &hosts()), Err(SourceError::BadSubpath { .. })));
    assert!(matches!(Source::parse("o/r/a/./b", &hosts()), Err(SourceError::BadSubpath { .. })));
}

#[test]
fn git_urls() {
    for url in [
        "https://example.com/x/y.git",
        "http://127.0.0.1:8080/repo.git",
        "ssh://git@example.com/o/r.git",
        "git@example.com:o/r.git",
        "file:///srv/git/r.git",
        "git://example.com/r.git",
    ] {
        check(url, Ok(git(url, url, None, None)));
    }
    check(
        "git@example.com:o/r.git#v2",
        Ok(git("git@example.com:o/r.git#v2", "git@example.com:o/r.git", Some("v2"), None)),
    );
    check("https://example.com/r.git/", Ok(git("https://example.com/r.git/", "https://example.com/r.git", None, None)));
}

#[test]
fn forge_web_urls() {
    let gh = "https://github.com/o/r.git";
    check("https://github.com/o/r", Ok(git("https://github.com/o/r", gh, None, None)));
    check("https://github.com/o/r/", Ok(git("https://github.com/o/r/", gh, None, None)));
    check(
        "https://github.com/o/r/tree/main/skills/pdf",
        Ok(git("https://github.com/o/r/tree/main/skills/pdf", gh, Some("main"), Some("skills/pdf"))),
    );
    check("https://github.com/o/r/tree/v1", Ok(git("https://github.com/o/r/tree/v1", gh, Some("v1"), None)));
    check(
        "https://github.com/o/r/blob/abc123/skills/pdf/SKILL.md",
        Ok(git("https://github.com/o/r/blob/abc123/skills/pdf/SKILL.md", gh, Some("abc123"), Some("skills/pdf"))),
    );
    check(
        "https://gitlab.example.org/g/s/r/-/tree/dev/skills",
        Ok(git(
            "https://gitlab.example.org/g/s/r/-/tree/dev/skills",
            "https://gitlab.example.org/g/s/r.git",
            Some("dev"),
            Some("skills"),
        )),
    );
    // A GitHub URL that is not a repository page is left to the caller to probe.
    check("https://github.com/o", Ok(Source::Http(url_source("https://github.com/o"))));
    check("https://github.com/o/r/releases/x", Ok(Source::Http(url_source("https://github.com/o/r/releases/x"))));
}

#[test]
fn http_urls_that_are_not_git() {
    for url in [
        "https://x.dev/a.zip",
        "https://x.dev/a.tar.gz",
        "https://x.dev/a.TGZ",
        "https://x.dev/p/a.skill",
        "https://github.com/o/r/archive/main.zip",
    ] {
        check(url, Ok(Source::Archive(url_source(url))));
    }
    let raw = "https://raw.githubusercontent.com/o/r/main/pdf/SKILL.md";
    check(raw, Ok(Source::SkillFile(url_source(raw))));
    for url in ["https://skills.example.com", "https://example.com/team/skills", "http://127.0.0.1:9/"] {
        check(url, Ok(Source::Http(url_source(url))));
    }
}

#[test]
fn credentials_never_taken_from_urls() {
    let err = Source::parse("https://user:hunter2@example.com/r.git", &hosts()).unwrap_err();
    assert_eq!(err, SourceError::PasswordInUrl { host: "example.com".into() });
    assert!(!err.to_string().contains("hunter2"));
    let err = Source::parse("https://user:hunter2@exa mple.com/r.git", &hosts()).unwrap_err();
    assert!(!err.to_string().contains("hunter2"), "{err}");
}

/// A token written as an HTTP(S) user name or in the query is kept for the fetch but never in
/// `given`, which every record of the source keeps.
#[test]
fn a_token_in_a_url_is_fetched_with_but_never_given() {
    let Source::Git(found) = Source::parse("http://ghp_secret123@127.0.0.1:9/o/r.git#main", &hosts()).unwrap() else {
        panic!("a .git URL is Git")
    };
    assert_eq!(found.given, "http://127.0.0.1:9/o/r.git#main");
    assert_eq!(found.url, "http://ghp_secret123@127.0.0.1:9/o/r.git", "the fetch may use it");
    assert_eq!(found.reference.as_deref(), Some("main"));

    let given = "https://host.example/dl/pkg.zip?ref=main&private_token=glpat-secret&sig=abc";
    let Source::Archive(archive) = Source::parse(given, &hosts()).unwrap() else { panic!("an archive") };
    assert_eq!(archive.given, "https://host.example/dl/pkg.zip?ref=main");
    assert!(archive.url.as_str().contains("private_token=glpat-secret"), "the fetch may use it");

    for given in
        ["https://tok@github.com/o/r", "https://h.example/x/SKILL.md?access_token=t", "https://h.example/?token=t"]
    {
        let source = Source::parse(given, &hosts()).unwrap();
        assert!(!source.given().contains("tok@") && !source.given().contains("=t"), "{given}: {source:?}");
    }
    // An SSH user name is no secret.
    check("git@host.example:o/r.git", Ok(git("git@host.example:o/r.git", "git@host.example:o/r.git", None, None)));
    check(
        "ssh://git@host.example/o/r.git",
        Ok(git("ssh://git@host.example/o/r.git", "ssh://git@host.example/o/r.git", None, None)),
    );
}

#[test]
fn unknown_schemes() {
    check("ftp://x/y", Err(SourceError::UnknownScheme { scheme: "ftp".into() }));
    check("ext::sh -c touch% /tmp/pwned", Err(SourceError::UnknownScheme { scheme: "ext".into() }));
    check("  ", Err(SourceError::Empty));
}

#[test]
fn local_paths() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain");
    std::fs::create_dir(&plain).unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir_all(work.join(".git")).unwrap();
    let bare = dir.path().join("bare.git");
    for sub in ["objects", "refs"] {
        std::fs::create_dir_all(bare.join(sub)).unwrap();
    }
    std::fs::write(bare.join("HEAD"), "ref: refs/heads/main\n").unwrap();

    let text = |p: &std::path::Path| p.to_str().unwrap().to_string();
    let file_url = |p: &std::path::Path| url::Url::from_file_path(p.canonicalize().unwrap()).unwrap().to_string();
    check(&text(&work), Ok(git(&text(&work), &file_url(&work), None, None)));
    check(&text(&bare), Ok(git(&text(&bare), &file_url(&bare), None, None)));
    check(&text(&plain), Err(SourceError::NotARepository { path: plain.clone() }));
    let missing = dir.path().join("missing");
    check(&text(&missing), Err(SourceError::NoSuchPath { path: missing.clone() }));
}
