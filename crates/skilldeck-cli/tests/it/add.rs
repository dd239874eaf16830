//! `skilldeck add` through the binary against real loopback servers (a `file://` repository,
//! `git http-backend`, a static site with a `.well-known` index, archives and `SKILL.md` URLs),
//! never the internet: choosing skills, provenance in history, `show` and `list`, idempotence,
//! name clashes, skills refused one by one (too big, a link out, no usable name) beside those
//! that come in, and bad sources failing clearly with nothing written.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use serde_json::Value;
use skilldeck_sources::http::Sha256Digest;
use skilldeck_sources::testing::{GitHttpServer, GitRepo, StallServer};
use skilldeck_sources::testing_http::{Route, StaticServer};
use std::fs;
use std::io::Write as _;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::sources_env;

use sources_env::{Env, names_in, p, served_as_owner_repo, skill_md, sourced, two_skills};

// ---- Git ------------------------------------------------------------------------------------

#[test]
fn all_from_a_file_repository_dry_run_then_add_then_unchanged() {
    let (repo, commit) = two_skills();
    let env = Env::new();
    let url = repo.file_url();

    let (out, _) = env.expect(&["add", &url, "--all", "--dry-run"], 0);
    assert!(out.contains("new        docx would become v:1"), "{out}");
    assert!(out.contains("new        pdf would become v:1"), "{out}");
    assert!(out.contains("nothing was written"), "{out}");
    env.assert_nothing_written();
    let preview = env.json(&["add", &url, "--all", "--dry-run", "--json"], 0);
    assert_eq!(preview["dry_run"], true);
    assert_eq!(preview["items"].as_array().unwrap().len(), 2, "{preview}");
    env.assert_nothing_written();

    let (out, _) = env.expect(&["add", &url, "--all"], 0);
    assert!(out.contains("imported   docx as v:1"), "{out}");
    assert!(out.contains("imported   pdf as v:1"), "{out}");
    assert!(out.contains("skills/pdf"), "the path in the source is named: {out}");
    assert!(!out.contains("skilldeck-source-"), "no scratch folder shown: {out}");
    assert_eq!(env.user_skills(), ["docx", "pdf"]);
    assert!(env.home().join("skills/user/pdf/reference.md").is_file());

    let sources = env.sources_json().unwrap();
    let pdf = &sources["skills"]["pdf"]["source"];
    assert_eq!(pdf["kind"], "git");
    assert_eq!(pdf["url"], url.as_str());
    assert_eq!(pdf["resolved"], commit.as_str());
    assert_eq!(pdf["path"], "skills/pdf");
    assert_eq!(sources["skills"]["docx"]["source"]["path"], "skills/docx");

    let history = env.history("pdf");
    assert_eq!(history.len(), 1, "{history:?}");
    assert_eq!(sourced(&history[0])["resolved"], commit.as_str());

    // The same again: nothing new, not even the record's time.
    let before = fs::read(env.home().join("sources.json")).unwrap();
    let (out, _) = env.expect(&["add", &url, "--all"], 0);
    assert_eq!(fs::read(env.home().join("sources.json")).unwrap(), before, "sources.json untouched");
    assert!(out.contains("unchanged  pdf, still v:1"), "{out}");
    assert!(out.contains("unchanged  docx, still v:1"), "{out}");
    assert_eq!(env.history("pdf").len(), 1);
    assert_eq!(env.history("docx").len(), 1);

    // JSON carries the source's top and each item.
    let json = env.json(&["add", &url, "--all", "--json"], 0);
    assert_eq!(json["source"]["resolved"], commit.as_str());
    assert_eq!(json["source"]["path"], ".");
    assert_eq!(json["dry_run"], false);
    let sources: Vec<&str> = json["items"].as_array().unwrap().iter().map(|i| i["source"].as_str().unwrap()).collect();
    assert_eq!(sources, ["skills/docx", "skills/pdf"]);
}

/// A marketplace with two plugins: docs (pdf, docx) and data (csv).
fn marketplace() -> GitRepo {
    let repo = GitRepo::new().unwrap();
    repo.skill("plugins/docs/skills/pdf", "pdf").unwrap();
    repo.skill("plugins/docs/skills/docx", "docx").unwrap();
    repo.skill("plugins/data/skills/csv", "csv").unwrap();
    repo.write(
        ".claude-plugin/marketplace.json",
        r#"{"name": "m", "plugins": [
            {"name": "docs", "source": "./plugins/docs"},
            {"name": "data", "source": "./plugins/data", "description": "tables"}
        ]}"#,
    )
    .unwrap();
    repo.commit("marketplace").unwrap();
    repo
}

/// A marketplace naming a plugin that lives in another repository: the choice lists it with
/// where it lives, `--plugin` adds its skills from that repository (at the commit the
/// marketplace pins), and they record that repository as their source; a marketplace of such
/// plugins alone is a source all the same.
#[test]
fn a_marketplace_plugin_in_another_repository_is_added_from_there() {
    let sheets = GitRepo::new().unwrap();
    sheets.skill("skills/xlsx", "xlsx").unwrap();
    let pinned = sheets.commit("xlsx").unwrap();
    sheets.skill("skills/later", "later").unwrap();
    sheets.commit("after the pin").unwrap();
    let root = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(sheets.bare(), root.path().join("sheets.git")).unwrap();
    let server = GitHttpServer::start(root.path(), None).unwrap();
    let sheets_url = server.url("sheets.git");

    let market = GitRepo::new().unwrap();
    market.skill("plugins/docs/skills/pdf", "pdf").unwrap();
    market
        .write(
            ".claude-plugin/marketplace.json",
            format!(
                r#"{{"name": "m", "plugins": [
                    {{"name": "docs", "source": "./plugins/docs"}},
                    {{"name": "sheets", "description": "spreadsheets",
                      "source": {{"source": "url", "url": "{sheets_url}", "sha": "{pinned}"}}}},
                    {{"name": "pkg", "source": {{"source": "npm", "package": "@x/pkg"}}}}
                ]}}"#
            ),
        )
        .unwrap();
    market.commit("marketplace").unwrap();
    std::os::unix::fs::symlink(market.bare(), root.path().join("market.git")).unwrap();
    let market_url = server.url("market.git");

    let env = Env::new();
    // One skill here: taken as it is; the notes say where sheets lives and that pkg cannot be.
    let choices = env.json(&["add", &market_url, "--dry-run", "--json"], 0);
    let notes = choices["notes"].to_string();
    assert!(notes.contains(&format!("plugin sheets lives in {sheets_url}; `--plugin sheets` adds")), "{notes}");
    assert!(notes.contains("plugin pkg lives in another repository"), "{notes}");

    let (out, err) = env.expect(&["add", &market_url, "--plugin", "sheets"], 0);
    assert!(err.contains(&format!("plugin sheets lives in {sheets_url}: adding its skills from there")), "{err}");
    assert!(out.contains("imported   xlsx as v:1") && !out.contains("later"), "the pinned commit: {out}");
    assert_eq!(env.user_skills(), ["xlsx"]);
    let shown = env.json(&["show", "xlsx", "--json"], 0);
    assert_eq!(shown["source"]["url"], sheets_url.as_str(), "{shown}");
    assert_eq!(shown["source"]["resolved"], pinned.as_str(), "{shown}");

    let (_, err) = env.expect(&["add", &market_url, "--plugin", "nope"], 2);
    assert!(err.contains("its plugins: docs, sheets"), "{err}");
}

#[test]
fn over_http_several_skills_need_a_choice_then_skill_twice_or_a_plugin() {
    let repo = marketplace();
    let server = GitHttpServer::start(repo.root(), None).unwrap();
    let url = server.url("repo.git");

    let env = Env::new();
    let (out, err) = env.expect(&["add", &url], 2);
    assert_eq!(out, "");
    for said in [
        "holds 3 skills",
        "csv",
        "plugins/data/skills/csv",
        "plugins/docs/skills/pdf",
        "plugin docs",
        "plugin data",
        "--skill NAME",
        "--plugin NAME",
        "--all",
    ] {
        assert!(err.contains(said), "{said:?} in:\n{err}");
    }
    env.assert_nothing_written();
    let choices = env.json(&["add", &url, "--json"], 2);
    assert_eq!(choices["needs_choice"], true);
    let names: Vec<&str> = choices["skills"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["csv", "docx", "pdf"]);
    assert_eq!(choices["plugins"][0]["name"], "docs");
    assert_eq!(
        choices["plugins"][0]["skills"],
        serde_json::json!(["plugins/docs/skills/docx", "plugins/docs/skills/pdf"])
    );
    env.assert_nothing_written();

    let (out, _) = env.expect(&["add", &url, "--skill", "pdf", "--skill", "plugins/data/skills/csv"], 0);
    assert!(out.contains("imported   pdf as v:1"), "{out}");
    assert!(out.contains("imported   csv as v:1"), "{out}");
    assert_eq!(env.user_skills(), ["csv", "pdf"]);

    let (_, err) = env.expect(&["add", &url, "--skill", "pfd"], 2);
    assert!(err.contains("holds no skill \"pfd\"") && err.contains("did you mean pdf"), "{err}");

    let (_, err) = env.expect(&["add", &url, "--plugin", "nope"], 2);
    assert!(err.contains("no plugin \"nope\"") && err.contains("docs, data"), "{err}");
    assert_eq!(env.user_skills(), ["csv", "pdf"]);

    let other = Env::new();
    let (out, _) = other.expect(&["add", &url, "--plugin", "docs"], 0);
    assert!(out.contains("imported   docx") && out.contains("imported   pdf"), "{out}");
    assert_eq!(other.user_skills(), ["docx", "pdf"]);
    assert_eq!(sourced(&other.history("docx")[0])["path"], "plugins/docs/skills/docx");
}

#[test]
fn github_shorthand_with_a_tag_against_the_configured_host_records_provenance() {
    let (repo, _) = two_skills();
    // A skill whose frontmatter has no name is named after its folder, not the scratch folder's.
    repo.write("skills/nameless/SKILL.md", "---\ndescription: No name here.\n---\nBody.\n").unwrap();
    let tagged = repo.commit("nameless").unwrap();
    repo.tag("v1", true).unwrap();
    repo.write("skills/pdf/SKILL.md", skill_md("pdf") + "\nLater.\n").unwrap();
    let later = repo.commit("later").unwrap();
    assert_ne!(tagged, later);
    let root = served_as_owner_repo(&repo);
    let server = GitHttpServer::start(root.path(), None).unwrap();
    let base = server.url("").trim_end_matches('/').to_owned();
    let host = base.trim_start_matches("http://").to_owned();

    let env = Env::new();
    env.config(&format!("[sources]\ngithub = \"{base}\"\n"));
    env.local_skill("mine", "Made here.");
    env.expect(&["import", "src/mine"], 0);

    let (out, _) = env.expect(&["add", "owner/repo/skills/pdf@v1"], 0);
    assert!(out.contains("imported   pdf as v:1"), "{out}");
    assert_eq!(env.user_skills(), ["mine", "pdf"]);
    assert_eq!(fs::read_to_string(env.home().join("skills/user/pdf/SKILL.md")).unwrap(), skill_md("pdf"), "the tag's");

    let short = format!("{host}/owner/repo@{}, skills/pdf", &tagged[..7]);
    let (text, _) = env.expect(&["history", "pdf"], 0);
    assert!(text.contains(&format!("from {short}")), "{text}");
    let history = env.history("pdf");
    let source = sourced(&history[0]);
    assert_eq!(source["url"], format!("{base}/owner/repo.git"));
    assert_eq!(source["ref"], "v1");
    assert_eq!(source["pinned"], true);
    assert_eq!(source["resolved"], tagged.as_str());
    assert_eq!(source["path"], "skills/pdf");
    assert_eq!(source["given"], "owner/repo/skills/pdf@v1");

    // show: the source in JSON and in text.
    let show = env.json(&["show", "pdf", "--json"], 0);
    assert_eq!(show["source"], *source);
    assert_eq!(show["changed_since_install"], false);
    assert_eq!(show["installed_digest"], show["digest"]);
    let (text, _) = env.expect(&["show", "pdf"], 0);
    assert!(text.contains(&format!("  source:      {short}\n")), "{text}");
    let mine = env.json(&["show", "mine", "--json"], 0);
    assert_eq!(mine["source"], Value::Null);
    let (text, _) = env.expect(&["show", "mine"], 0);
    assert!(!text.contains("source:"), "{text}");

    // list: sourced or not, per skill.
    let list = env.json(&["list", "--json"], 0);
    let row = |name: &str| list.as_array().unwrap().iter().find(|r| r["name"] == name).unwrap().clone();
    assert_eq!(row("pdf")["sourced"], true);
    assert_eq!(row("pdf")["source"], short.as_str());
    assert_eq!(row("mine")["sourced"], false);
    assert_eq!(row("mine").get("source"), None);

    // An edit here shows in show.
    let edited = env.tmp.path().join("edited/pdf");
    fs::create_dir_all(&edited).unwrap();
    fs::write(edited.join("SKILL.md"), skill_md("pdf") + "\nMine now.\n").unwrap();
    env.expect(&["import", p(&edited)], 0);
    let (text, _) = env.expect(&["show", "pdf"], 0);
    assert!(text.contains("(changed here since it was added)"), "{text}");

    // A ref that does not exist: the refs it has are listed, nothing changes.
    let (_, err) = env.expect(&["add", "owner/repo/skills/pdf@v9"], 2);
    assert!(err.contains("no branch, tag or ref `v9`"), "{err}");
    assert!(err.contains("main") && err.contains("v1"), "the refs it has: {err}");
    assert!(err.contains("[source_ref_not_found]"), "{err}");
    assert_eq!(env.history("pdf").len(), 2);

    let (out, _) = env.expect(&["add", "owner/repo/skills/nameless@v1"], 0);
    assert!(out.contains("imported   nameless as v:1"), "{out}");
    assert_eq!(env.user_skills(), ["mine", "nameless", "pdf"]);
}

#[test]
fn a_name_taken_by_a_local_skill_is_refused_until_force() {
    let (repo, _) = two_skills();
    // Its frontmatter name is not a skill name, so it is stored under its folder's: still a clash.
    repo.write("skills/pdf-tool/SKILL.md", "---\nname: PDF Tool\ndescription: Tools.\n---\nBody.\n").unwrap();
    let commit = repo.commit("pdf-tool").unwrap();
    let env = Env::new();
    env.local_skill("pdf", "Made here.");
    env.local_skill("pdf-tool", "Made here too.");
    env.expect(&["import", "src/pdf", "src/pdf-tool"], 0);
    let url = repo.file_url();

    let (out, _) = env.expect(&["add", &url, "--skill", "pdf"], 2);
    assert!(
        out.contains("refused    skills/pdf: a skill named pdf already exists and was made or imported here"),
        "{out}"
    );
    assert!(out.contains("--force"), "{out}");
    assert!(!out.contains("imported   "), "{out}");
    assert!(out.contains("1 more refused above"), "the summary counts it: {out}");
    assert_eq!(env.history("pdf").len(), 1, "no new revision");
    assert!(fs::read_to_string(env.home().join("skills/user/pdf/SKILL.md")).unwrap().contains("Made here."));
    assert!(env.sources_json().is_none_or(|s| s["skills"]["pdf"].is_null()), "not recorded as sourced");

    // --all: the clashes are refused, the other comes in (a success, naming what was refused).
    let (out, _) = env.expect(&["add", &url, "--all"], 0);
    assert!(out.contains("imported   docx as v:1"), "{out}");
    assert!(out.contains("refused    skills/pdf: a skill named pdf already exists"), "{out}");
    assert!(out.contains("refused    skills/pdf-tool: a skill named pdf-tool already exists"), "{out}");
    assert!(fs::read_to_string(env.home().join("skills/user/pdf-tool/SKILL.md")).unwrap().contains("Made here too."));

    let (out, _) = env.expect(&["add", &url, "--skill", "pdf", "--force"], 0);
    assert!(out.contains("imported   pdf as v:2"), "{out}");
    let history = env.history("pdf");
    assert_eq!(history.len(), 2);
    assert_eq!(history[0]["revision"], 2, "newest first: {history:?}");
    assert_eq!(sourced(&history[0])["resolved"], commit.as_str());
    assert_eq!(history[1]["event"]["kind"], "upload");
    assert_eq!(env.sources_json().unwrap()["skills"]["pdf"]["source"]["path"], "skills/pdf");

    // Now it came from there: adding again needs no --force.
    let (out, _) = env.expect(&["add", &url, "--skill", "pdf"], 0);
    assert!(out.contains("unchanged  pdf, still v:2"), "{out}");

    // Another source's pdf is refused, naming where this one came from.
    let (other, _) = two_skills();
    let (out, _) = env.expect(&["add", &other.file_url(), "--skill", "pdf"], 2);
    let bare = repo.bare().display().to_string();
    let from = format!("came from {}@{}, skills/pdf", bare.trim_end_matches(".git"), &commit[..7]);
    assert!(out.contains(&from), "{from} in {out}");
    assert_eq!(env.history("pdf").len(), 2);
    assert_eq!(env.sources_json().unwrap()["skills"]["pdf"]["source"]["url"], url.as_str());
}

/// A source skill named like a bundled one would hide it from every agent: refused, saying so,
/// until `--force` (or `--as` another name).
#[test]
fn a_name_bundled_with_skilldeck_is_refused_until_force() {
    let repo = GitRepo::new().unwrap();
    repo.skill("skills/change-review", "change-review").unwrap();
    repo.skill("skills/pdf", "pdf").unwrap();
    repo.commit("a skill named like a bundled one").unwrap();
    let env = Env::new();
    env.expect(&["list"], 0);
    assert!(env.home().join("skills/system/change-review/SKILL.md").is_file(), "bundled skills are installed");
    let url = repo.file_url();

    let (out, _) = env.expect(&["add", &url, "--all"], 0);
    let line =
        out.lines().find(|l| l.starts_with("refused    skills/change-review")).unwrap_or_else(|| panic!("{out}"));
    assert!(line.contains("bundled with Skilldeck") && line.contains("hide") && line.contains("--force"), "{line}");
    assert!(out.contains("imported   pdf as v:1"), "{out}");
    assert!(!env.home().join("skills/user/change-review").exists(), "nothing shadows the bundled skill");
    let json = env.json(&["add", &url, "--skill", "change-review", "--json"], 2);
    assert_eq!(json["clashes"][0]["shadows"], "system", "{json}");

    let (out, _) = env.expect(&["add", &url, "--skill", "change-review", "--as", "my-review"], 0);
    assert!(out.contains("imported   my-review as v:1"), "{out}");
    let (out, _) = env.expect(&["add", &url, "--skill", "change-review", "--force"], 0);
    assert!(out.contains("imported   change-review as v:1"), "{out}");
    // Now it came from there: adding again needs no --force.
    let (out, _) = env.expect(&["add", &url, "--skill", "change-review"], 0);
    assert!(out.contains("unchanged  change-review"), "{out}");
}

#[test]
fn bad_git_sources_fail_clearly_and_write_nothing() {
    let env = Env::new();

    // A closed port.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (out, err) = env.expect(&["add", &format!("http://127.0.0.1:{port}/o/r.git"), "--all"], 2);
    assert_eq!(out, "");
    assert!(err.contains("could not reach") && err.contains(&format!("127.0.0.1:{port}")), "{err}");

    // A repository without skills.
    let empty = GitRepo::new().unwrap();
    empty.write("README.md", "nothing here\n").unwrap();
    empty.commit("no skills").unwrap();
    let (_, err) = env.expect(&["add", &empty.file_url()], 2);
    assert!(err.contains("holds no skill") && err.contains("[source_has_no_skills]"), "{err}");

    // A server that never answers: given up after the timeout set.
    let stall = StallServer::start().unwrap();
    let started = Instant::now();
    let (_, err) =
        env.expect_with(&["add", &stall.url("o/r.git"), "--all"], &[("SKILLDECK_SOURCES_TIMEOUT_SECS", "1")], 2);
    assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
    assert!(err.contains("did not answer within 1 s") && err.contains("SKILLDECK_SOURCES_TIMEOUT_SECS"), "{err}");

    // A bad timeout is named.
    let (_, err) = env.expect_with(&["add", &empty.file_url()], &[("SKILLDECK_SOURCES_TIMEOUT_SECS", "soon")], 2);
    assert!(err.contains("SKILLDECK_SOURCES_TIMEOUT_SECS=\"soon\""), "{err}");

    env.assert_nothing_written();
}

#[test]
fn credentials_needed_name_the_token_and_never_print_it() {
    let (repo, _) = two_skills();
    let root = served_as_owner_repo(&repo);
    let server = GitHttpServer::start(root.path(), Some(("user", "right"))).unwrap();
    let base = server.url("").trim_end_matches('/').to_owned();
    let env = Env::new();
    env.config(&format!("[sources]\ngithub = \"{base}\"\n"));

    let (_, err) = env.expect(&["add", "owner/repo", "--all"], 2);
    assert!(err.contains("needs credentials") && err.contains("GITHUB_TOKEN"), "{err}");

    let token = "ghp_secretsecretsecret0123456789";
    let (out, err) = env.expect_with(&["add", "owner/repo", "--all"], &[("GITHUB_TOKEN", token)], 2);
    assert!(err.contains("GITHUB_TOKEN"), "{err}");
    assert!(!err.contains(token) && !out.contains(token), "{out}{err}");
    env.assert_nothing_written();
}

/// Over HTTPS the host's token is sent and accepted: the skills are added, the token is in no
/// output and in no file Skilldeck wrote, and a wrong token is refused naming its variable. The
/// server's certificate is trusted the way a private Git host's would be, through `SSL_CERT_FILE`.
#[test]
fn a_token_over_tls_is_sent_accepted_and_never_kept() {
    let (repo, _) = two_skills();
    let root = served_as_owner_repo(&repo);
    let token = "ghp_tlstokentlstoken0123456789";
    let (server, cert) = GitHttpServer::start_tls(root.path(), Some(("x-access-token", token))).unwrap();
    let base = server.url("").trim_end_matches('/').to_owned();
    assert!(base.starts_with("https://127.0.0.1:"), "{base}");
    let env = Env::new();
    let ca = env.tmp.path().join("test-ca.pem");
    fs::write(&ca, cert).unwrap();
    let ca = ca.to_str().unwrap();
    env.config(&format!("[sources]\ngithub = \"{base}\"\n"));

    // A wrong token: refused, named by its variable, never printed.
    let wrong = "ghp_wrongwrongwrong0123456789";
    let (out, err) =
        env.expect_with(&["add", "owner/repo", "--all"], &[("GITHUB_TOKEN", wrong), ("SSL_CERT_FILE", ca)], 2);
    assert!(err.contains("GITHUB_TOKEN"), "{err}");
    assert!(!err.contains(wrong) && !out.contains(wrong), "{out}{err}");
    assert!(server.received().iter().any(|r| r.authorized), "the token was offered over TLS");

    // The right one: both skills added from the HTTPS host.
    let (out, err) =
        env.expect_with(&["add", "owner/repo", "--all"], &[("GITHUB_TOKEN", token), ("SSL_CERT_FILE", ca)], 0);
    assert!(out.contains("imported") && !out.contains(token) && !err.contains(token), "{out}{err}");
    let stored = fs::read_dir(env.home().join("skills/user"))
        .unwrap()
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .count();
    assert_eq!(stored, 2, "{out}");
    let mut leaked = Vec::new();
    for entry in walk(&env.home()) {
        if fs::read(&entry).is_ok_and(|b| b.windows(token.len()).any(|w| w == token.as_bytes())) {
            leaked.push(entry);
        }
    }
    assert!(leaked.is_empty(), "the token was written to {leaked:?}");
}

/// `GITHUB_TOKEN` goes to the GitHub host only: when that host redirects to another one that
/// then asks for credentials, the other host gets none, and the fetch fails naming the need.
#[test]
fn a_token_never_follows_a_redirect_to_another_host() {
    let (repo, _) = two_skills();
    let root = served_as_owner_repo(&repo);
    let (elsewhere, elsewhere_cert) = GitHttpServer::start_tls(root.path(), Some(("x-access-token", "other"))).unwrap();
    let to = elsewhere.url_as_localhost("").trim_end_matches('/').to_owned();
    let (github, github_cert) = GitHttpServer::start_tls_redirect(&to).unwrap();
    let base = github.url("").trim_end_matches('/').to_owned();
    let env = Env::new();
    let ca = env.tmp.path().join("test-ca.pem");
    fs::write(&ca, format!("{github_cert}\n{elsewhere_cert}")).unwrap();
    env.config(&format!("[sources]\ngithub = \"{base}\"\n"));

    let token = "ghp_redirecttoken0123456789abcdef";
    let vars = [("GITHUB_TOKEN", token), ("SSL_CERT_FILE", ca.to_str().unwrap())];
    let (out, err) = env.expect_with(&["add", "owner/repo", "--all"], &vars, 2);
    assert!(!github.received().is_empty(), "the GitHub host was asked: {err}");
    assert!(!elsewhere.received().is_empty(), "the redirect was followed: {err}");
    let sent: Vec<_> = elsewhere.received().into_iter().filter(|r| r.authorized).collect();
    assert!(sent.is_empty(), "the other host was sent credentials: {sent:?}");
    assert!(!out.contains(token) && !err.contains(token), "{out}{err}");
    env.assert_nothing_written();
}

/// A token written into the source (as an HTTP user name, or in an archive URL's query) is used
/// for that one fetch and said so once; it is in no file Skilldeck wrote, no lockfile, and no
/// `show`, `outdated`, `history` or `list` output, and later checks use the address without it.
#[test]
fn a_token_in_a_source_url_is_used_once_and_never_kept() {
    let (repo, _) = two_skills();
    let root = served_as_owner_repo(&repo);
    let server = GitHttpServer::start(root.path(), None).unwrap();
    let site = Site::new();
    site.put("dl/csv.tar.gz", &tar_gz(&[("csv/SKILL.md", &skill_md("csv"))]));
    let env = Env::new();

    let git_token = "ghp_usernametoken0123456789abcdef";
    let with_user = server.url("/owner/repo.git").replacen("http://", &format!("http://{git_token}@"), 1);
    let (out, err) = env.expect(&["add", &with_user, "--all"], 0);
    assert!(out.contains("imported   pdf as v:1"), "{out}");
    assert_eq!(err.matches("used for this fetch only").count(), 1, "said once: {err}");
    assert!(
        err.contains("the user name") && err.contains("GITHUB_TOKEN") && err.contains("credential helper"),
        "{err}"
    );

    let query_token = "glpat-querytoken0123456789";
    let archive = format!("{}?ref=main&private_token={query_token}", site.server.url("/dl/csv.tar.gz"));
    let (out, err) = env.expect(&["add", &archive], 0);
    assert!(out.contains("imported   csv as v:1"), "{out}");
    assert!(err.contains("the query parameter private_token"), "{err}");
    assert!(
        site.server.requests().iter().any(|r| r.path.contains(query_token)),
        "the fetch itself used the token given"
    );

    let csv = sourced(&env.history("csv")[0]).clone();
    assert_eq!(csv["given"], format!("{}?ref=main", site.server.url("/dl/csv.tar.gz")));
    let pdf = sourced(&env.history("pdf")[0]).clone();
    assert_eq!(pdf["given"], server.url("/owner/repo.git"));
    assert_eq!(pdf["url"], server.url("/owner/repo.git"));

    env.expect(&["lock"], 0);
    let mut shown = String::new();
    for args in [
        &["outdated", "--json"][..],
        &["show", "pdf", "--json"],
        &["show", "csv", "--json"],
        &["history", "pdf", "--json"],
        &["history", "csv", "--json"],
        &["list", "--json"],
    ] {
        let (out, err) = env.expect(args, 0);
        shown.push_str(&out);
        shown.push_str(&err);
    }
    let json = env.json(&["outdated", "--json"], 0);
    assert_eq!(names_in(&json, "up_to_date"), ["csv", "docx", "pdf"], "checked without the tokens: {json}");
    for token in [git_token, query_token] {
        assert!(!shown.contains(token), "{token} shown: {shown}");
        let mut files = walk(&env.home());
        files.push(env.tmp.path().join("skilldeck.lock"));
        let leaked: Vec<_> = files
            .into_iter()
            .filter(|f| fs::read(f).is_ok_and(|b| b.windows(token.len()).any(|w| w == token.as_bytes())))
            .collect();
        assert!(leaked.is_empty(), "{token} written to {leaked:?}");
    }
}

/// Every file under `dir`.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = e.path();
            if path.is_dir() { todo.push(path) } else { out.push(path) }
        }
    }
    out
}

#[test]
fn links_out_of_a_skill_submodules_and_lfs_pointers_are_reported() {
    let repo = GitRepo::new().unwrap();
    repo.skill("skills/pdf", "pdf").unwrap();
    repo.symlink("skills/pdf/secret", "../../private/key.txt").unwrap();
    repo.write("private/key.txt", "not for skills\n").unwrap();
    repo.skill("skills/docx", "docx").unwrap();
    repo.write(
        "skills/docx/assets/big.bin",
        "version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 12345\n",
    )
    .unwrap();
    repo.skill("skills/csv", "csv").unwrap();
    let first = repo.commit("skills").unwrap();
    repo.gitlink("skills/csv/vendored", &first).unwrap();
    repo.commit("submodule").unwrap();

    let env = Env::new();
    let (out, _) = env.expect(&["add", &repo.file_url(), "--all"], 0);
    assert!(out.contains("imported   csv as v:1") && out.contains("imported   docx as v:1"), "{out}");
    assert!(!out.contains("imported   pdf"), "{out}");
    let refused = out.lines().find(|l| l.starts_with("refused    skills/pdf")).unwrap_or_else(|| panic!("{out}"));
    assert!(refused.contains("skills/pdf/secret") && refused.contains("points out of the skill"), "{refused}");
    let lfs = out.lines().find(|l| l.contains("skills/docx/assets/big.bin")).unwrap_or_else(|| panic!("{out}"));
    assert!(lfs.starts_with("note ") && lfs.contains("LFS pointer, not the file"), "{lfs}");
    let sub = out.lines().find(|l| l.contains("skills/csv/vendored")).unwrap_or_else(|| panic!("{out}"));
    assert!(sub.contains("submodule") && sub.contains(&first[..7]), "{sub}");
    assert_eq!(env.user_skills(), ["csv", "docx"]);
    assert!(!env.home().join("skills/user/pdf").exists());

    // Asked for by name, the refused skill says why.
    let other = Env::new();
    let (out, err) = other.expect(&["add", &repo.file_url(), "--skill", "pdf"], 2);
    assert!(format!("{out}{err}").contains("points out of the skill"), "{out}{err}");
    other.assert_nothing_written();
}

/// A repository of four skills: `fine`; `big`, holding a 100 KiB file; `link`, holding a link
/// out of itself; `Bad_Skill`, whose name cannot be told (neither its frontmatter's nor its
/// folder's is a skill name).
fn four_skills() -> GitRepo {
    let repo = GitRepo::new().unwrap();
    repo.skill("skills/fine", "fine").unwrap();
    repo.skill("skills/big", "big").unwrap();
    repo.write("skills/big/assets/data.bin", vec![b'x'; 100 << 10]).unwrap();
    repo.skill("skills/link", "link").unwrap();
    repo.symlink("skills/link/secret", "../../private/key.txt").unwrap();
    repo.write("private/key.txt", "not for skills\n").unwrap();
    repo.write("skills/Bad_Skill/SKILL.md", "---\nname: Bad Skill\ndescription: Unnamed.\n---\nBody.\n").unwrap();
    repo.commit("four skills").unwrap();
    repo
}

/// One bad neighbour no longer refuses a whole repository: with 64 KiB a skill, the skill
/// holding a 100 KiB file is refused by itself, as are the one with a link out and the one
/// without a usable name, each named with why and what would let it in, in the text and in
/// `--json`; the good one comes in and `add` succeeds. Asked for alone, the big one is refused
/// (exit 2) until the limit is raised as its message says.
#[test]
fn good_skills_come_in_beside_refused_ones_each_named_with_why_and_the_fix() {
    let repo = four_skills();
    let url = repo.file_url();
    let env = Env::new();
    env.config("[sources]\nmax_skill_bytes = \"64 KiB\"\n");

    let json = env.json(&["add", &url, "--all", "--dry-run", "--json"], 0);
    let refused = json["refused"].as_array().unwrap_or_else(|| panic!("{json}"));
    let by_path = |path: &str| {
        refused.iter().find(|r| r["path"] == path).unwrap_or_else(|| panic!("{path} not refused: {json}")).clone()
    };
    assert_eq!(refused.len(), 3, "{json}");
    let big = by_path("skills/big");
    assert_eq!((big["name"].as_str(), big["reason_code"].as_str()), (Some("big"), Some("skill_too_big")));
    assert!(big["reason"].as_str().unwrap().contains("over the limit of 64.0 KiB a skill"), "{big}");
    assert!(
        big["fix"]
            .as_str()
            .unwrap()
            .contains("`max_skill_bytes` under [sources] in config.toml to at least \"101 KiB\""),
        "{big}"
    );
    let link = by_path("skills/link");
    assert_eq!((link["name"].as_str(), link["reason_code"].as_str()), (Some("link"), Some("skill_link_leaves")));
    assert!(link["reason"].as_str().unwrap().contains("skills/link/secret points out of the skill"), "{link}");
    assert!(link["fix"].as_str().unwrap().contains("plain file inside it"), "{link}");
    let unnamed = by_path("skills/Bad_Skill");
    assert_eq!(unnamed["reason_code"], "name_invalid", "{unnamed}");
    assert!(
        unnamed["reason"].as_str().unwrap().contains("its SKILL.md: name_invalid"),
        "the validator's first error: {unnamed}"
    );
    assert!(unnamed["fix"].as_str().unwrap().contains("`name:`"), "{unnamed}");
    let items: Vec<&str> = json["items"].as_array().unwrap().iter().map(|i| i["source"].as_str().unwrap()).collect();
    assert_eq!(items, ["skills/Bad_Skill", "skills/fine"], "{json}");
    assert!(
        json["notes"].as_array().unwrap().iter().any(|n| n["path"] == "skills/big" && n["refused"] == true),
        "{json}"
    );
    env.assert_nothing_written();

    let (out, _) = env.expect(&["add", &url, "--all"], 0);
    assert!(out.contains("imported   fine as v:1"), "{out}");
    let line =
        |start: &str| out.lines().find(|l| l.starts_with(start)).unwrap_or_else(|| panic!("no {start:?} in {out}"));
    let big = line("refused    skills/big: ");
    assert!(big.contains("over the limit of 64.0 KiB a skill [skill_too_big]. Raise `max_skill_bytes`"), "{big}");
    assert!(big.contains("assets/data.bin (100.0 KiB)"), "the big file is named: {big}");
    let link = line("refused    skills/link: ");
    assert!(link.contains("points out of the skill") && link.contains("[skill_link_leaves]"), "{link}");
    let unnamed = line("refused    skills/Bad_Skill (Bad Skill): ");
    assert!(unnamed.contains("[name_invalid]") && unnamed.contains("`name:`"), "{unnamed}");
    assert!(out.contains("; 2 more refused above: skills/big, skills/link"), "the summary names them: {out}");
    assert_eq!(env.user_skills(), ["fine"]);
    assert!(env.sources_json().unwrap()["skills"]["big"].is_null(), "only what came in is recorded");

    // `--json` of the real run names them too.
    let json = env.json(&["add", &url, "--all", "--json"], 0);
    let codes: Vec<&str> =
        json["refused"].as_array().unwrap().iter().map(|r| r["reason_code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["skill_too_big", "skill_link_leaves", "name_invalid"], "{json}");

    // Asked for alone, nothing can come in: a failure, saying why.
    let (out, _) = env.expect(&["add", &url, "--skill", "big"], 2);
    assert!(out.contains("refused    skills/big: ") && out.contains("max_skill_bytes"), "{out}");
    assert!(!env.user_skills().contains(&"big".to_owned()));
    // Raised as the message says, it comes in.
    env.config("[sources]\nmax_skill_bytes = \"101 KiB\"\n");
    let (out, _) = env.expect(&["add", &url, "--skill", "big"], 0);
    assert!(out.contains("imported   big as v:1"), "{out}");
    assert!(env.home().join("skills/user/big/assets/data.bin").is_file());
}

/// The whole fetch keeps a limit the user can raise: over it, a repository is refused before
/// anything is written, the message naming the setting.
#[test]
fn a_repository_over_the_limit_of_a_fetch_is_refused_whole_naming_the_setting() {
    let repo = four_skills();
    let env = Env::new();
    env.config("[sources]\nmax_fetch_bytes = \"16 KiB\"\n");
    let (out, err) = env.expect(&["add", &repo.file_url(), "--all"], 2);
    assert_eq!(out, "");
    assert!(err.contains("[source_too_big]") && err.contains("over the limit of 16.0 KiB a fetch"), "{err}");
    assert!(err.contains("raise `max_fetch_bytes` under [sources] in config.toml"), "{err}");
    env.assert_nothing_written();
    // A size that is none is named, with what to write.
    env.config("[sources]\nmax_fetch_bytes = \"lots\"\n");
    let (_, err) = env.expect(&["add", &repo.file_url(), "--all"], 2);
    assert!(err.contains("max_fetch_bytes = \"lots\" is not a size") && err.contains("\"512 MiB\""), "{err}");
}

#[test]
fn a_skill_inside_another_is_its_own_not_files_of_the_outer() {
    let repo = GitRepo::new().unwrap();
    repo.skill(".", "root").unwrap();
    repo.write_executable("scripts/run.sh", "#!/bin/sh\necho hi\n").unwrap();
    repo.skill("skills/inner", "inner").unwrap();
    repo.commit("nested").unwrap();
    let env = Env::new();
    let (out, _) = env.expect(&["add", &repo.file_url(), "--all"], 0);
    assert!(out.contains("imported   root as v:1") && out.contains("imported   inner as v:1"), "{out}");
    let files = |name: &str| -> Vec<String> {
        let show = env.json(&["show", name, "--json"], 0);
        show["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap().to_owned()).collect()
    };
    assert_eq!(files("root"), ["SKILL.md", "scripts/run.sh"]);
    assert_eq!(files("inner"), ["SKILL.md"]);
    use std::os::unix::fs::PermissionsExt as _;
    let mode = fs::metadata(env.home().join("skills/user/root/scripts/run.sh")).unwrap().permissions().mode();
    assert_ne!(mode & 0o111, 0, "still executable");
}

// ---- HTTP: an index, archives, SKILL.md --------------------------------------------------------

struct Site {
    root: tempfile::TempDir,
    server: StaticServer,
}

impl Site {
    fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        let server = StaticServer::start(root.path()).unwrap();
        Self { root, server }
    }

    fn put(&self, path: &str, bytes: &[u8]) {
        let at = self.root.path().join(path);
        fs::create_dir_all(at.parent().unwrap()).unwrap();
        fs::write(at, bytes).unwrap();
    }
}

/// A `.tar.gz` of `files` (path, text), made by the system `tar`.
fn tar_gz(files: &[(&str, &str)]) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let at = dir.path().join("in").join(path);
        fs::create_dir_all(at.parent().unwrap()).unwrap();
        fs::write(at, text).unwrap();
    }
    let out = dir.path().join("a.tar.gz");
    let mut tops: Vec<&str> = files.iter().map(|(path, _)| path.split('/').next().unwrap()).collect();
    tops.dedup();
    let status =
        Command::new("tar").arg("-czf").arg(&out).arg("-C").arg(dir.path().join("in")).args(&tops).status().unwrap();
    assert!(status.success());
    fs::read(out).unwrap()
}

fn zip(files: &[(&str, &str)]) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    for (name, text) in files {
        writer.start_file(*name, options).unwrap();
        writer.write_all(text.as_bytes()).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

fn digest(bytes: &[u8]) -> String {
    Sha256Digest::of(bytes).to_string()
}

#[test]
fn a_well_known_index_brings_its_skills_and_refuses_a_wrong_digest() {
    let site = Site::new();
    let pdf = skill_md("pdf");
    site.put("skills/pdf/SKILL.md", pdf.as_bytes());
    let docx = tar_gz(&[("docx/SKILL.md", &skill_md("docx")), ("docx/reference.md", "# styles\n")]);
    site.put("skills/docx.tar.gz", &docx);
    site.put("skills/bad/SKILL.md", skill_md("bad").as_bytes());
    let index = serde_json::json!({
        "$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json",
        "skills": [
            {"name": "pdf", "description": "PDFs", "type": "skill-md", "url": "/skills/pdf/SKILL.md", "digest": digest(pdf.as_bytes())},
            {"name": "docx", "description": "Word", "type": "archive", "url": "/skills/docx.tar.gz", "digest": digest(&docx)},
            {"name": "bad", "description": "Tampered", "type": "skill-md", "url": "/skills/bad/SKILL.md", "digest": digest(b"something else")},
        ]
    });
    let index = serde_json::to_vec(&index).unwrap();
    site.put(".well-known/agent-skills/index.json", &index);

    let env = Env::new();
    let (out, _) = env.expect(&["add", &site.server.base(), "--all"], 0);
    assert!(out.contains("imported   pdf as v:1") && out.contains("imported   docx as v:1"), "{out}");
    let bad = out.lines().find(|l| l.starts_with("refused    bad")).unwrap_or_else(|| panic!("{out}"));
    assert!(bad.contains("digest"), "{bad}");
    assert_eq!(env.user_skills(), ["docx", "pdf"]);
    assert!(env.home().join("skills/user/docx/reference.md").is_file());

    let pdf_source = sourced(&env.history("pdf")[0]).clone();
    assert_eq!(pdf_source["kind"], "index");
    assert_eq!(pdf_source["url"], site.server.url("/.well-known/agent-skills/index.json"));
    assert_eq!(pdf_source["resolved"], digest(pdf.as_bytes()));
    assert_eq!(pdf_source["path"], "pdf");
    assert_eq!(sourced(&env.history("docx")[0])["resolved"], digest(&docx));
}

#[test]
fn an_archive_url_and_a_skill_md_url() {
    let site = Site::new();
    let archive = tar_gz(&[("csv/SKILL.md", &skill_md("csv")), ("csv/scripts/run.py", "print(1)\n")]);
    site.put("dl/csv.tar.gz", &archive);
    site.put("raw/notes/SKILL.md", skill_md("notes").as_bytes());
    let env = Env::new();

    let (out, _) = env.expect(&["add", &site.server.url("/dl/csv.tar.gz")], 0);
    assert!(out.contains("imported   csv as v:1"), "{out}");
    assert!(env.home().join("skills/user/csv/scripts/run.py").is_file());
    let source = sourced(&env.history("csv")[0]).clone();
    assert_eq!(source["kind"], "archive");
    assert_eq!(source["resolved"], digest(&archive));

    let (out, _) = env.expect(&["add", &site.server.url("/raw/notes/SKILL.md")], 0);
    assert!(out.contains("imported   notes as v:1"), "{out}");
    assert_eq!(sourced(&env.history("notes")[0])["kind"], "skill_md");
    assert_eq!(env.user_skills(), ["csv", "notes"]);

    // A file has no refs.
    let (_, err) = env.expect(&["add", &site.server.url("/dl/csv.tar.gz"), "--ref", "v1"], 2);
    assert!(err.contains("--ref names a branch, tag or commit of a Git repository"), "{err}");
    assert_eq!(env.history("csv").len(), 1);
}

#[test]
fn bad_http_sources_fail_clearly_and_write_nothing() {
    let site = Site::new();
    site.put("evil.zip", &zip(&[("evil/SKILL.md", &skill_md("evil")), ("evil/../../escaped.txt", "gotcha\n")]));
    site.put("slow.tar.gz", b"never sent");
    site.server.route("/slow.tar.gz", Route::Stall);
    let env = Env::new();

    let (_, err) = env.expect(&["add", &site.server.url("/evil.zip")], 2);
    assert!(err.contains("escaped.txt"), "the entry is named: {err}");
    assert!(!env.tmp.path().join("escaped.txt").exists());

    let started = Instant::now();
    let (_, err) =
        env.expect_with(&["add", &site.server.url("/slow.tar.gz")], &[("SKILLDECK_SOURCES_TIMEOUT_SECS", "1")], 2);
    assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
    assert!(err.contains("1 s") && err.contains("SKILLDECK_SOURCES_TIMEOUT_SECS"), "{err}");

    let (_, err) = env.expect(&["add", &site.server.url("/missing.tar.gz")], 2);
    assert!(err.contains("not found"), "{err}");

    // Neither Git nor an index.
    let (_, err) = env.expect(&["add", &site.server.url("/nothing")], 2);
    assert!(err.contains("neither a Git repository") && err.contains("index"), "{err}");

    env.assert_nothing_written();
}

// ---- outdated, update, pin-source, lock, install ---------------------------------------------

#[test]
fn an_upstream_commit_makes_outdated_name_exactly_the_changed_skill_and_update_brings_it() {
    let (repo, first) = two_skills();
    let root = served_as_owner_repo(&repo);
    let server = GitHttpServer::start(root.path(), None).unwrap();
    let env = Env::new();
    let url = server.url("/owner/repo.git");
    env.expect(&["add", &url, "--all"], 0);

    // Nothing new: one ref listing, nothing fetched.
    let before = server.received().len();
    let json = env.json(&["outdated", "--json"], 0);
    assert_eq!(names_in(&json, "up_to_date"), ["docx", "pdf"], "{json}");
    assert_eq!(json["asked"][url.as_str()], 1, "one ref listing for the repository: {json}");
    assert!(server.received().len() - before <= 2, "a ref listing only: {:?}", &server.received()[before..]);

    // A commit that changes pdf and the README: only pdf is outdated.
    repo.write("skills/pdf/SKILL.md", format!("{}\nNew step.\n", skill_md("pdf"))).unwrap();
    repo.write("README.md", "# changed\n").unwrap();
    let second = repo.commit("pdf changes").unwrap();
    let json = env.json(&["outdated", "--json"], 0);
    assert_eq!(names_in(&json, "outdated"), ["pdf"], "{json}");
    assert_eq!(names_in(&json, "up_to_date"), ["docx"], "{json}");
    let pdf = json["skills"].as_array().unwrap().iter().find(|s| s["name"] == "pdf").unwrap().clone();
    assert_eq!(pdf["installed"]["source"]["resolved"], first.as_str());
    assert_eq!(pdf["new"]["resolved"], second.as_str());
    let (text, _) = env.expect(&["outdated"], 0);
    assert!(text.contains(&format!("outdated      pdf {} → {}", &first[..7], &second[..7])), "{text}");

    // The diff first, then the update: one new revision, then nothing more to do.
    let (diff, _) = env.expect(&["update", "--dry-run"], 0);
    assert!(diff.contains("+New step."), "{diff}");
    assert_eq!(env.history("pdf").len(), 1, "a dry run writes nothing");
    let (out, _) = env.expect(&["update"], 0);
    assert!(out.contains("imported   pdf as v:2"), "{out}");
    let history = env.history("pdf");
    assert_eq!(history.len(), 2);
    assert_eq!(sourced(&history[0])["resolved"], second.as_str());
    assert_eq!(env.history("docx").len(), 1, "docx did not change");
    let (out, _) = env.expect(&["update"], 0);
    assert!(out.contains("up to date"), "{out}");
    assert_eq!(env.history("pdf").len(), 2, "a second update makes no revision");
}

#[test]
fn a_pin_holds_a_local_edit_is_not_overwritten_and_a_lock_restores_the_locked_content() {
    let (repo, _) = two_skills();
    repo.tag("v1", true).unwrap();
    let env = Env::new();
    let url = repo.file_url();
    env.expect(&["add", &url, "--all", "--ref", "v1"], 0);
    let v1 = fs::read_to_string(env.home().join("skills/user/pdf/SKILL.md")).unwrap();
    repo.write("skills/pdf/SKILL.md", format!("{}\nOn main only.\n", skill_md("pdf"))).unwrap();
    repo.commit("main moves on").unwrap();

    // Pinned to v1: main moving on is no update.
    let json = env.json(&["outdated", "--json"], 0);
    assert_eq!(names_in(&json, "outdated"), Vec::<String>::new(), "{json}");
    // The lock is taken while at v1.
    env.expect(&["lock"], 0);
    let lock = fs::read_to_string(env.tmp.path().join("skilldeck.lock")).unwrap();
    assert!(lock.contains("name = \"pdf\"") && lock.contains("ref = \"v1\""), "{lock}");

    // Unpinned, it follows main; a local edit is held back without --force.
    env.expect(&["pin-source", "pdf", "--unpin"], 0);
    let edited = env.local_skill("pdf", "Edited here.");
    env.expect(&["import", p(&edited)], 0);
    let (out, _) = env.expect(&["update", "pdf"], 2);
    assert!(out.contains("held back  pdf: changed here"), "{out}");
    assert!(fs::read_to_string(env.home().join("skills/user/pdf/SKILL.md")).unwrap().contains("Edited here."));
    let (out, _) = env.expect(&["update", "pdf", "--force"], 0);
    assert!(out.contains("imported   pdf"), "{out}");
    assert!(fs::read_to_string(env.home().join("skills/user/pdf/SKILL.md")).unwrap().contains("On main only."));

    // An edit made on disk (no import), then `update --force`: history keeps the edited copy
    // labelled by its own bytes, not by the source's digest it was installed with.
    let installed = env.sources_json().unwrap()["skills"]["pdf"]["digest"].clone();
    let live = env.home().join("skills/user/pdf/SKILL.md");
    fs::write(&live, format!("{}\nEdited on disk.\n", fs::read_to_string(&live).unwrap())).unwrap();
    repo.write("skills/pdf/SKILL.md", format!("{}\nOn main, later.\n", skill_md("pdf"))).unwrap();
    let later = repo.commit("main moves on again").unwrap();
    let (out, _) = env.expect(&["update", "pdf", "--force"], 0);
    assert!(out.contains("imported   pdf"), "{out}");
    let history = env.history("pdf");
    assert_eq!(sourced(&history[0])["resolved"], later.as_str(), "{history:?}");
    let edited = &history[1];
    assert_eq!(edited["event"]["kind"], "external", "the edited copy is labelled an edit: {history:?}");
    assert_ne!(edited["digest"], installed, "its digest is its own bytes': {history:?}");
    assert!(
        history.iter().filter(|h| h["digest"] == installed).all(|h| h["revision"] != edited["revision"]),
        "{history:?}"
    );

    // A fresh home restores exactly the locked (v1) content, though main moved on; twice is a no-op.
    let fresh = Env::new();
    fs::copy(env.tmp.path().join("skilldeck.lock"), fresh.tmp.path().join("skilldeck.lock")).unwrap();
    let (out, _) = fresh.expect(&["install"], 0);
    assert!(out.contains("2 installed"), "{out}");
    assert_eq!(fs::read_to_string(fresh.home().join("skills/user/pdf/SKILL.md")).unwrap(), v1);
    let (out, _) = fresh.expect(&["install"], 0);
    assert!(out.contains("0 installed, 2 already in place"), "{out}");
    assert_eq!(fresh.history("pdf").len(), 1, "a second install makes no revision");

    // A lock whose digest the source cannot give is refused, naming the skill.
    let tampered = fresh.tmp.path().join("tampered.lock");
    let first_digest = lock.find("digest = \"sha256:").unwrap() + "digest = \"sha256:".len();
    let mut chars: Vec<char> = lock.chars().collect();
    chars[first_digest] = if chars[first_digest] == '0' { '1' } else { '0' };
    fs::write(&tampered, chars.into_iter().collect::<String>()).unwrap();
    let again = Env::new();
    let (out, _) = again.expect(&["install", "--lock", p(&tampered)], 2);
    assert!(out.contains("failed     docx") && out.contains("other content"), "{out}");
}

/// What a repository wrote reaches the terminal with its control characters visible: a folder
/// named with cursor-moving escapes and a description with an OSC 52 clipboard write, through
/// `add`'s choices, its report, `list`, `show` and `outdated`. (Security round 4, item 4.)
#[test]
fn escapes_in_a_repository_are_shown_never_sent_to_the_terminal() {
    let repo = GitRepo::new().unwrap();
    repo.write("skills/\u{1b}[1A\u{1b}[2Kx/SKILL.md", skill_md("x")).unwrap();
    let clip = "---\nname: clip\ndescription: \"Copies \\e]52;c;cm0gLXJmIH4=\\a text\"\n---\n\n# clip\n";
    repo.write("skills/clip/SKILL.md", clip).unwrap();
    repo.commit("hostile names").unwrap();
    let url = repo.file_url();
    let env = Env::new();
    let raw =
        |s: &str| s.chars().any(|c| (c.is_control() && c != '\n' && c != '\t') || ('\u{80}'..='\u{9f}').contains(&c));

    let (out, err) = env.expect(&["add", &url], 2);
    assert!(!raw(&out) && !raw(&err), "raw control characters in add's choice:\n{out}\n{err}");
    assert!(err.contains("\\e[1A"), "the folder is named visibly: {err}");
    let both = |args: &[&str]| {
        let o = env.run_in(env.tmp.path(), args, &[]);
        (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
    };
    let (out, err) = both(&["add", &url, "--all"]);
    assert!(!raw(&out) && !raw(&err), "raw control characters in add's report:\n{out}\n{err}");
    assert!(format!("{out}{err}").contains("\\e[1A"), "{out}\n{err}");
    for args in [&["list"][..], &["show", "clip"], &["outdated"]] {
        let (out, err) = both(args);
        assert!(!raw(&out) && !raw(&err), "{args:?}:\n{out}\n{err}");
    }
    let (out, _) = both(&["show", "clip"]);
    assert!(out.contains("\\e]52;c;"), "the description is shown with its escape visible: {out}");
}
