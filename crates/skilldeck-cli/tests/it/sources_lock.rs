//! Sources beyond `add`, through the binary against a real loopback Git server: skills the
//! `skills` CLI installed adopted with their source from its lockfiles (and a bad lockfile
//! reported while the adoption goes on), `add --as NEW-NAME` resolving a name clash and
//! following the renamed skill through `outdated`, `update`, `lock` and `install`, and a
//! project's `skilldeck.lock` beside its `.skilldeck.toml` from any folder below it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::sources_env;

use serde_json::{Value, json};
use skilldeck_sources::testing::GitHttpServer;
use sources_env::{Env, names_in, p, served_as_owner_repo, skill_md, sourced, two_skills};
use std::fs;
use std::path::Path;

/// Copies the folder `from` to `to` (plain files and folders).
fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

fn write_json(path: &Path, value: &Value) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
}

/// A global lockfile entry as the `skills` CLI writes it.
fn global_entry(url: &str, skill_path: &str) -> Value {
    json!({
        "source": "owner/repo",
        "sourceType": "github",
        "sourceUrl": url,
        "skillPath": skill_path,
        "skillFolderHash": "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
        "installedAt": "2026-11-20T08:00:00.000Z",
        "updatedAt": "2026-11-20T08:00:00.000Z"
    })
}

#[test]
fn adopt_with_a_skills_lockfile_records_the_source_and_outdated_names_an_upstream_change() {
    let (repo, first) = two_skills();
    repo.skill("skills/xlsx", "xlsx").unwrap();
    let first_with_xlsx = repo.commit("xlsx").unwrap();
    assert_ne!(first, first_with_xlsx);
    let root = served_as_owner_repo(&repo);
    let server = GitHttpServer::start(root.path(), None).unwrap();
    let base = server.url("").trim_end_matches('/').to_owned();
    let url = server.url("/owner/repo.git");
    let host = base.trim_start_matches("http://").to_owned();

    let env = Env::new();
    env.config(&format!("[sources]\ngithub = \"{base}\"\n"));
    // What `npx skills add owner/repo -g` leaves: the skills in ~/.agents/skills and the
    // global lockfile; xlsx was edited since.
    let agents = env.user().join(".agents/skills");
    copy_dir(&repo.work().join("skills/pdf"), &agents.join("pdf"));
    copy_dir(&repo.work().join("skills/xlsx"), &agents.join("xlsx"));
    fs::write(agents.join("xlsx/SKILL.md"), skill_md("xlsx") + "\nEdited by hand.\n").unwrap();
    write_json(
        &env.user().join(".agents/.skill-lock.json"),
        &json!({
            "version": 3,
            "skills": {
                "pdf": global_entry(&url, "skills/pdf/SKILL.md"),
                "xlsx": global_entry(&url, "skills/xlsx/SKILL.md"),
            },
            "dismissed": { "findSkillsPrompt": true }
        }),
    );
    // And `npx skills add owner/repo` in a project: its skills-lock.json names no URL or path,
    // so owner/repo goes to the configured GitHub host and the skill is found by name.
    let project = env.tmp.path().join("project");
    copy_dir(&repo.work().join("skills/docx"), &project.join(".agents/skills/docx"));
    write_json(
        &project.join("skills-lock.json"),
        &json!({
            "version": 1,
            "skills": { "docx": { "source": "owner/repo", "sourceType": "github", "computedHash": "00" } }
        }),
    );

    // scan names what the lockfiles say, and fetches nothing.
    let before = server.received().len();
    let scan = env.json(&["scan", "--project", p(&project), "--json"], 0);
    let locks = scan["skills_cli"]["locks"].as_array().unwrap();
    assert_eq!(locks.len(), 2, "{scan:#}");
    assert_eq!(locks[0]["kind"], "project");
    assert_eq!(locks[1]["entries"][0]["path"], "skills/pdf");
    let (text, _) = env.expect(&["scan", "--project", p(&project)], 0);
    assert!(text.contains("pdf\n  installed by the skills CLI from owner/repo, skills/pdf ("), "{text}");
    assert_eq!(server.received().len(), before, "scan reads only");

    // adopt: one fetch for the repository; each skill comes in with its source.
    let (out, _) = env.expect(&["adopt", "--all", "--project", p(&project)], 0);
    let short = |path: &str| format!("{host}/owner/repo@{}, {path}", &first_with_xlsx[..7]);
    assert!(out.contains(&format!("  source: {} (from ", short("skills/pdf"))), "{out}");
    assert!(out.contains(&format!("  source: {} (from ", short("skills/docx"))), "{out}");
    assert!(out.contains("xlsx: imported") && out.contains("it differs from the source's content now"), "{out}");
    let sources = env.sources_json().unwrap();
    assert_eq!(sources["skills"]["pdf"]["source"]["resolved"], first_with_xlsx.as_str(), "{sources:#}");
    assert_eq!(sources["skills"]["pdf"]["source"]["url"], url.as_str());
    assert_eq!(sources["skills"]["pdf"]["source"]["path"], "skills/pdf");
    assert_eq!(sources["skills"]["docx"]["source"]["path"], "skills/docx");
    assert_eq!(sources["skills"]["xlsx"]["source"]["resolved"], "", "which commit it came from is not known");
    // The revision records where it came from, as `add` makes it.
    assert_eq!(sourced(&env.history("pdf")[0])["resolved"], first_with_xlsx.as_str());
    assert_eq!(env.history("xlsx")[0]["event"]["kind"], "upload", "the edited copy is no source's revision");

    // outdated: pdf and docx are up to date; the edited xlsx differs from its source.
    let json = env.json(&["outdated", "--json"], 0);
    assert_eq!(names_in(&json, "up_to_date"), ["docx", "pdf"], "{json:#}");
    assert_eq!(names_in(&json, "outdated"), ["xlsx"], "{json:#}");
    let (text, _) = env.expect(&["outdated"], 0);
    assert!(text.contains(&format!("outdated      xlsx unknown → {}", &first_with_xlsx[..7])), "{text}");

    // An upstream commit changing pdf: outdated names pdf (and still xlsx), not docx.
    repo.write("skills/pdf/SKILL.md", skill_md("pdf") + "\nNew step.\n").unwrap();
    let second = repo.commit("pdf changes").unwrap();
    let json = env.json(&["outdated", "--json"], 0);
    assert_eq!(names_in(&json, "outdated"), ["pdf", "xlsx"], "{json:#}");
    let pdf = json["skills"].as_array().unwrap().iter().find(|s| s["name"] == "pdf").unwrap().clone();
    assert_eq!(pdf["installed"]["source"]["resolved"], first_with_xlsx.as_str());
    assert_eq!(pdf["new"]["resolved"], second.as_str());
    let (out, _) = env.expect(&["update", "pdf"], 0);
    assert!(out.contains("imported   pdf as v:2"), "{out}");
    assert!(fs::read_to_string(env.home().join("skills/user/pdf/SKILL.md")).unwrap().contains("New step."));
    assert_eq!(sourced(&env.history("pdf")[0])["resolved"], second.as_str());

    // A lock cannot restore xlsx until it is at a known commit: install says so.
    env.expect(&["lock", "--out", "all.lock"], 0);
    let fresh = Env::new();
    let (out, _) = fresh.expect(&["install", "--lock", p(&env.tmp.path().join("all.lock"))], 2);
    assert!(out.contains("failed     xlsx: the commit it was installed from is not known"), "{out}");
}

#[test]
fn a_bad_skills_lockfile_is_reported_and_the_adoption_goes_on_without_sources() {
    let env = Env::new();
    let agents = env.user().join(".agents/skills");
    fs::create_dir_all(agents.join("notes")).unwrap();
    fs::write(agents.join("notes/SKILL.md"), skill_md("notes")).unwrap();
    fs::write(env.user().join(".agents/.skill-lock.json"), "{ \"version\": 3, \"skills\": { oops").unwrap();
    let project = env.tmp.path().join("project");
    fs::create_dir_all(project.join(".agents/skills/local-one")).unwrap();
    fs::write(project.join(".agents/skills/local-one/SKILL.md"), skill_md("local-one")).unwrap();
    write_json(
        &project.join("skills-lock.json"),
        &json!({ "version": 1, "skills": { "local-one": { "source": "./vendor", "sourceType": "local", "computedHash": "00" } } }),
    );

    let scan = env.json(&["scan", "--project", p(&project), "--json"], 0);
    let unreadable = &scan["skills_cli"]["unreadable"][0];
    assert_eq!(unreadable["path"], p(&env.user().join(".agents/.skill-lock.json")), "{scan:#}");
    assert!(unreadable["error"].as_str().unwrap().contains("is not a `skills` CLI lockfile"), "{scan:#}");

    let (out, err) = env.expect(&["adopt", "--all", "--project", p(&project)], 0);
    let lockfile = env.user().join(".agents/.skill-lock.json");
    assert!(
        err.contains(&format!("note: {} is not a `skills` CLI lockfile Skilldeck can read (", lockfile.display())),
        "named, with why: {err}"
    );
    assert!(err.contains("the adoption goes on without the sources it names"), "{err}");
    assert!(err.contains("the source of local-one") && err.contains("of type `local`"), "{err}");
    assert!(out.contains("notes: imported as v:1") && out.contains("local-one: imported as v:1"), "{out}");
    assert_eq!(env.user_skills(), ["local-one", "notes"], "nothing lost");
    assert_eq!(env.sources_json(), None, "no source recorded");
    let (text, _) = env.expect(&["outdated"], 0);
    assert!(text.contains("No skill came from a source"), "{text}");
}

#[test]
fn add_as_a_new_name_resolves_a_clash_and_the_renamed_skill_is_updated_and_locked() {
    let (repo, first) = two_skills();
    let env = Env::new();
    env.local_skill("pdf", "Made here.");
    env.expect(&["import", "src/pdf"], 0);
    let url = repo.file_url();

    let (out, _) = env.expect(&["add", &url, "--skill", "pdf"], 2);
    assert!(out.contains("--as NEW-NAME"), "the refusal says how: {out}");
    let (_, err) = env.expect(&["add", &url, "--all", "--as", "other"], 2);
    assert!(err.contains("--as other names one skill, but 2 were chosen (docx, pdf)"), "{err}");
    let (_, err) = env.expect(&["add", &url, "--skill", "pdf", "--as", "Not A Name"], 2);
    assert!(err.contains("--as \"Not A Name\" is not a skill name"), "{err}");
    assert_eq!(env.user_skills(), ["pdf"], "nothing written");

    let (out, _) = env.expect(&["add", &url, "--skill", "pdf", "--as", "pdf-upstream"], 0);
    assert!(out.contains("imported   pdf-upstream as v:1"), "{out}");
    assert_eq!(env.user_skills(), ["pdf", "pdf-upstream"]);
    let stored = fs::read_to_string(env.home().join("skills/user/pdf-upstream/SKILL.md")).unwrap();
    assert_eq!(stored, skill_md("pdf").replace("name: pdf\n", "name: pdf-upstream\n"), "only the name changed");
    assert_eq!(
        fs::read_to_string(env.home().join("skills/user/pdf-upstream/reference.md")).unwrap(),
        "# tables\n",
        "its other files came along"
    );
    assert!(fs::read_to_string(env.home().join("skills/user/pdf/SKILL.md")).unwrap().contains("Made here."));
    let show = env.json(&["show", "pdf-upstream", "--json"], 0);
    assert_eq!(show["valid"], true, "{show:#}");
    let record = &env.sources_json().unwrap()["skills"]["pdf-upstream"];
    assert_eq!(record["upstream_name"], "pdf", "{record:#}");
    assert_eq!(record["source"]["path"], "skills/pdf");
    assert_eq!(sourced(&env.history("pdf-upstream")[0])["path"], "skills/pdf");
    let (out, _) = env.expect(&["add", &url, "--skill", "pdf", "--as", "pdf-upstream"], 0);
    assert!(out.contains("unchanged  pdf-upstream, still v:1"), "{out}");

    // Renamed, it is still up to date with its source, and an upstream change reaches it.
    let json = env.json(&["outdated", "--json"], 0);
    assert_eq!(names_in(&json, "up_to_date"), ["pdf-upstream"], "{json:#}");
    repo.write("skills/pdf/SKILL.md", skill_md("pdf") + "\nNew step.\n").unwrap();
    let second = repo.commit("pdf changes").unwrap();
    let json = env.json(&["outdated", "--json"], 0);
    assert_eq!(names_in(&json, "outdated"), ["pdf-upstream"], "{json:#}");
    let (out, _) = env.expect(&["update"], 0);
    assert!(out.contains("imported   pdf-upstream as v:2"), "{out}");
    let updated = fs::read_to_string(env.home().join("skills/user/pdf-upstream/SKILL.md")).unwrap();
    assert!(updated.contains("name: pdf-upstream\n") && updated.contains("New step."), "{updated}");
    assert!(fs::read_to_string(env.home().join("skills/user/pdf/SKILL.md")).unwrap().contains("Made here."));
    assert_eq!(sourced(&env.history("pdf-upstream")[0])["resolved"], second.as_str());
    assert_eq!(env.sources_json().unwrap()["skills"]["pdf-upstream"]["upstream_name"], "pdf", "kept by update");
    assert_ne!(first, second);

    // The lock keeps the rename; a fresh home installs it under the new name.
    env.expect(&["lock"], 0);
    let lock = fs::read_to_string(env.tmp.path().join("skilldeck.lock")).unwrap();
    assert!(lock.contains("name = \"pdf-upstream\"") && lock.contains("upstream_name = \"pdf\""), "{lock}");
    let fresh = Env::new();
    fs::copy(env.tmp.path().join("skilldeck.lock"), fresh.tmp.path().join("skilldeck.lock")).unwrap();
    let (out, _) = fresh.expect(&["install"], 0);
    assert!(out.contains("1 installed"), "{out}");
    assert_eq!(fresh.user_skills(), ["pdf-upstream"]);
    assert_eq!(fs::read_to_string(fresh.home().join("skills/user/pdf-upstream/SKILL.md")).unwrap(), updated);
    let (out, _) = fresh.expect(&["install"], 0);
    assert!(out.contains("0 installed, 1 already in place"), "{out}");
}

#[test]
fn lock_and_install_in_a_project_subfolder_use_the_lockfile_beside_skilldeck_toml() {
    let (repo, _) = two_skills();
    let env = Env::new();
    env.expect(&["add", &repo.file_url(), "--all"], 0);
    let project = env.tmp.path().join("project");
    let deep = project.join("src/deep");
    fs::create_dir_all(&deep).unwrap();
    fs::write(project.join(".skilldeck.toml"), "").unwrap();

    let (out, _) = env.expect_in(&deep, &["lock"], &[], 0);
    let lockfile = project.join("skilldeck.lock");
    assert!(out.contains(&format!("in {}", lockfile.display())), "{out}");
    assert!(lockfile.is_file() && !deep.join("skilldeck.lock").exists());
    // --out still names the file.
    env.expect_in(&deep, &["lock", "--out", "here.lock"], &[], 0);
    assert!(deep.join("here.lock").is_file());

    // Another home installs from a subfolder of the project, reading the project's lockfile.
    let fresh = Env::new();
    let (out, _) = fresh.expect_in(&deep, &["install"], &[], 0);
    assert!(out.contains(&format!("{}: 2 installed", lockfile.display())), "{out}");
    assert_eq!(fresh.user_skills(), ["docx", "pdf"]);

    // Outside a project, the current folder's.
    let (_, err) = fresh.expect(&["install"], 2);
    assert!(err.contains(&p(&fresh.tmp.path().join("skilldeck.lock")).to_owned()), "{err}");
}

/// A lockfile entry is reviewed by its `given`: one whose `url` leads elsewhere is refused and
/// nothing is fetched from that url; one whose `name` is no skill name is refused; each failure
/// names its entry, and the good entries still come in.
#[test]
fn a_lock_entry_whose_url_disagrees_with_given_or_whose_name_is_bad_is_refused_by_name() {
    let (repo, _) = two_skills();
    let home_root = served_as_owner_repo(&repo);
    let home = GitHttpServer::start(home_root.path(), None).unwrap();
    // The same content elsewhere: only the address tells them apart.
    let evil = GitHttpServer::start(home_root.path(), None).unwrap();
    let env = Env::new();
    let url = home.url("/owner/repo.git");
    env.expect(&["add", &url, "--all"], 0);
    env.expect(&["lock"], 0);
    let lock = fs::read_to_string(env.tmp.path().join("skilldeck.lock")).unwrap();
    assert!(lock.contains(&format!("given = \"{url}\"")), "{lock}");

    // Every url pointed elsewhere, given left as it was.
    let fresh = Env::new();
    let moved = fresh.tmp.path().join("moved.lock");
    let evil_url = evil.url("/owner/repo.git");
    fs::write(&moved, lock.replace(&format!("url = \"{url}\""), &format!("url = \"{evil_url}\""))).unwrap();
    let (out, _) = fresh.expect(&["install", "--lock", p(&moved)], 2);
    for name in ["docx", "pdf"] {
        let line =
            out.lines().find(|l| l.starts_with(&format!("failed     {name}:"))).unwrap_or_else(|| panic!("{out}"));
        assert!(line.contains("is not where its given") && line.contains(&evil_url), "{line}");
    }
    assert!(evil.received().is_empty(), "nothing was fetched from the url that disagrees: {:?}", evil.received());
    assert_eq!(fresh.user_skills(), Vec::<String>::new());

    // A name that is no skill name: refused, named; the other entry comes in.
    let renamed = fresh.tmp.path().join("renamed.lock");
    fs::write(&renamed, lock.replace("name = \"pdf\"", "name = \"../pdf\"")).unwrap();
    let (out, _) = fresh.expect(&["install", "--lock", p(&renamed)], 2);
    let line = out.lines().find(|l| l.starts_with("failed     ../pdf:")).unwrap_or_else(|| panic!("{out}"));
    assert!(line.contains("not a skill name"), "{line}");
    assert_eq!(fresh.user_skills(), ["docx"]);
}
