//! `skilldeck add mcp:…`: skills installed from an MCP server that publishes them through the
//! Skills extension. Skilldeck's own `skilldeck mcp` is the publisher (a round trip that keeps
//! every byte), and a server built on the official Python SDK (`tests/mcp_clients/publisher.py`)
//! publishes the hostile cases: wrong digests, sizes and names, dynamic resources, a path out of
//! the skill, a huge listing, a server that hangs and one that streams for ever.

use serde_json::{Value, json};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_skilldeck");

fn write(path: &Path, bytes: &[u8]) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

fn run(home: &Path, cwd: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(cwd)
        .env("SKILLDECK_HOME", home)
        .env("SKILLDECK_SOURCES_TIMEOUT_SECS", "3")
        .output()
        .unwrap()
}

fn ok(home: &Path, args: &[&str]) -> String {
    let out = run(home, home.parent().unwrap(), args);
    assert!(
        out.status.success(),
        "{args:?}: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn json_of(home: &Path, args: &[&str]) -> (bool, Value) {
    let out = run(home, home.parent().unwrap(), args);
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{args:?}: {e}\n{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    });
    (out.status.success(), v)
}

/// The files of the current revision of `name` in `home`'s user store, by relative path.
fn stored(home: &Path, name: &str) -> Vec<(String, Vec<u8>)> {
    let tmp = tempfile::tempdir().unwrap();
    let dest = tmp.path().join(name);
    ok(home, &["export", name, dest.to_str().unwrap()]);
    let mut out = Vec::new();
    for e in walk(&dest) {
        out.push((e.strip_prefix(&dest).unwrap().to_string_lossy().replace('\\', "/"), fs::read(&e).unwrap()));
    }
    out.sort();
    out
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() { files.extend(walk(&p)) } else { files.push(p) }
    }
    files
}

/// The source text that starts `skilldeck mcp` on `home`'s store, labelled `label`.
fn own_server(label: &str, home: &Path) -> String {
    format!("mcp:{label}=env SKILLDECK_HOME={} {BIN} mcp", home.display())
}

#[test]
fn skills_from_skilldecks_own_server_arrive_byte_for_byte_and_follow_it_through_outdated_update_and_install() {
    let tmp = tempfile::tempdir().unwrap();
    let (publisher, home, src) = (tmp.path().join("publisher"), tmp.path().join("home"), tmp.path().join("src"));
    let rich = src.join("rich-skill");
    write(
        &rich.join("SKILL.md"),
        b"---\r\nname: rich-skill\r\ndescription: \"Fill in PDF forms: read the fields, fill them, check the result.\"\r\nmetadata:\r\n  tags: [pdf, forms]\r\n---\r\n# Rich\r\nSee references/forms.md.\r\n",
    );
    write(&rich.join("references/forms.md"), "# Forms\nÜmlauts and emoji 📄 stay.\n".as_bytes());
    write(&rich.join("assets/logo.bin"), &[0u8, 159, 146, 150, 255, 0, 1, 2]);
    write(&src.join("notes/SKILL.md"), b"---\nname: notes\ndescription: Keep meeting notes tidy.\n---\n# Notes\n");
    ok(&publisher, &["import", src.to_str().unwrap()]);
    fs::create_dir_all(&home).unwrap();

    let server = own_server("team", &publisher);
    let (success, added) = json_of(&home, &["add", &server, "--skill", "rich-skill", "--skill", "notes", "--json"]);
    assert!(success, "{added:#}");
    assert_eq!(added["source"]["kind"], "mcp", "{added:#}");
    assert!(added["refused"].as_array().unwrap().is_empty(), "{added:#}");

    // Kept as LABEL-name: every byte as published, but for the name in SKILL.md.
    let list = ok(&home, &["list"]);
    assert!(list.contains("team-rich-skill") && list.contains("team-notes"), "{list}");
    let theirs = stored(&publisher, "rich-skill");
    let ours = stored(&home, "team-rich-skill");
    assert_eq!(theirs.len(), ours.len());
    for ((p1, b1), (p2, b2)) in theirs.iter().zip(&ours) {
        assert_eq!(p1, p2);
        if p1 == "SKILL.md" {
            let expected = String::from_utf8(b1.clone()).unwrap().replace("name: rich-skill", "name: team-rich-skill");
            assert_eq!(String::from_utf8(b2.clone()).unwrap(), expected);
        } else {
            assert_eq!(b1, b2, "{p1} differs");
        }
    }

    // The lockfile records the server and the skill's folder, never a token; outdated agrees.
    ok(&home, &["lock"]);
    let lock = fs::read_to_string(tmp.path().join("skilldeck.lock")).unwrap();
    assert!(lock.contains("kind = \"mcp\"") && lock.contains("path = \"rich-skill\""), "{lock}");
    let out = ok(&home, &["outdated"]);
    assert!(out.contains("up to date    team-rich-skill") && out.contains("0 of 2 sourced skills outdated"), "{out}");

    // The publisher changes one file: only that skill is outdated, its diff is shown first,
    // and update takes it.
    write(&rich.join("references/forms.md"), b"# Forms\nA new paragraph.\n");
    ok(&publisher, &["import", rich.to_str().unwrap()]);
    let (_, checked) = json_of(&home, &["outdated", "--json"]);
    let state = |name: &str| {
        checked["skills"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .map(|c| c["state"].clone())
            .unwrap_or_else(|| panic!("{checked:#}"))
    };
    assert_eq!(state("team-rich-skill"), "outdated", "{checked:#}");
    assert_eq!(state("team-notes"), "up_to_date", "{checked:#}");
    let planned = ok(&home, &["update", "--dry-run", "team-rich-skill"]);
    assert!(planned.contains("references/forms.md") && planned.contains("+A new paragraph."), "{planned}");
    ok(&home, &["update", "team-rich-skill"]);
    let forms = stored(&home, "team-rich-skill").into_iter().find(|(p, _)| p == "references/forms.md").unwrap();
    assert_eq!(forms.1, b"# Forms\nA new paragraph.\n");

    // A lockfile never starts a program by itself; with --run-servers it reproduces the store.
    ok(&home, &["lock"]);
    let fresh = tmp.path().join("fresh");
    fs::create_dir_all(&fresh).unwrap();
    let out = run(&fresh, tmp.path(), &["install"]);
    let said = String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success() && said.contains("--run-servers"), "{said}");
    assert!(!ok(&fresh, &["list"]).contains("team-rich-skill"));
    let out = run(&fresh, tmp.path(), &["install", "--run-servers"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(stored(&fresh, "team-rich-skill"), stored(&home, "team-rich-skill"));
}

/// The official Python SDK's server (`publisher.py`) with `config`, as an `mcp:` source.
fn publisher(py: &Path, dir: &Path, label: &str, config: &Value) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_clients/publisher.py");
    let file = dir.join(format!("{label}.json"));
    fs::write(&file, config.to_string()).unwrap();
    format!("mcp:{label}={} {} {}", py.display(), script.display(), file.display())
}

fn skill(root: &Path, path: &str, body: &str) {
    let name = path.rsplit('/').next().unwrap();
    write(
        &root.join(path).join("SKILL.md"),
        format!("---\nname: {name}\ndescription: The {name} skill, for tests.\n---\n{body}\n").as_bytes(),
    );
}

#[test]
fn a_hostile_server_gets_each_bad_entry_refused_with_why_and_the_good_ones_in() {
    let Some(py) = super::mcp::python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (home, root) = (tmp.path().join("home"), tmp.path().join("root"));
    fs::create_dir_all(&home).unwrap();
    for name in ["good", "digest", "size", "named", "dynamic", "escape"] {
        skill(&root, &format!("team/{name}"), &format!("# {name}"));
    }
    write(&root.join("team/good/references/a.bin"), &[0, 1, 2, 255]);
    skill(&root, "team/good/inner", "# inner, nested in good");
    let faults = json!({"digest": "wrong_digest", "size": "wrong_size", "named": "wrong_name", "dynamic": "dynamic", "escape": "extra_file"});
    let source = publisher(&py, tmp.path(), "hostile", &json!({"root": root, "faults": faults}));
    let (success, added) = json_of(&home, &["add", &source, "--all", "--json"]);
    assert!(success, "the good ones come in: {added:#}");
    let codes: Vec<(String, String)> = added["refused"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["name"].as_str().unwrap().to_owned(), r["reason_code"].as_str().unwrap().to_owned()))
        .collect();
    for (name, code) in [
        ("hostile-digest", "mcp_digest_mismatch"),
        ("hostile-size", "mcp_size_mismatch"),
        ("hostile-named-x", "mcp_name_mismatch"),
        ("hostile-dynamic", "mcp_dynamic_resources"),
        ("hostile-escape", "mcp_bad_manifest"),
    ] {
        assert!(codes.contains(&(name.to_owned(), code.to_owned())), "{name} refused with {code}: {codes:?}");
    }
    let list = ok(&home, &["list"]);
    assert!(list.contains("hostile-good") && list.contains("hostile-inner"), "{list}");
    for refused in ["hostile-digest", "hostile-size", "hostile-named", "hostile-dynamic", "hostile-escape"] {
        assert!(!list.contains(refused), "{refused} was refused, yet listed: {list}");
    }
    let good = stored(&home, "hostile-good");
    assert!(good.iter().any(|(p, b)| p == "references/a.bin" && b == &[0, 1, 2, 255]), "{good:?}");
    assert!(!good.iter().any(|(p, _)| p.starts_with("inner")), "the nested skill is its own: {good:?}");
}

#[test]
fn two_servers_publishing_the_same_name_give_two_skills_and_shadow_no_local_one() {
    let Some(py) = super::mcp::python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let local = tmp.path().join("local");
    skill(&local, "refunds", "# the user's own refunds");
    ok(&home, &["import", local.join("refunds").to_str().unwrap()]);
    for label in ["billing", "support"] {
        let root = tmp.path().join(label);
        skill(&root, "refunds", &format!("# refunds as {label} publishes them"));
        ok(&home, &["add", &publisher(&py, tmp.path(), label, &json!({"root": root})), "--all"]);
    }
    let list = ok(&home, &["list"]);
    for name in ["refunds", "billing-refunds", "support-refunds"] {
        assert!(list.lines().any(|l| l.split_whitespace().next() == Some(name)), "{name}: {list}");
    }
    let body = |name: &str| {
        String::from_utf8(stored(&home, name).into_iter().find(|(p, _)| p == "SKILL.md").unwrap().1).unwrap()
    };
    assert!(body("refunds").contains("the user's own"));
    assert!(body("billing-refunds").contains("as billing publishes"));
    assert!(body("support-refunds").contains("as support publishes"));
}

#[test]
fn a_server_that_hangs_streams_for_ever_or_lists_too_much_is_cut_off_with_nothing_half_written() {
    let Some(py) = super::mcp::python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (home, root) = (tmp.path().join("home"), tmp.path().join("root"));
    fs::create_dir_all(&home).unwrap();
    skill(&root, "alpha", "# alpha");
    let before = ok(&home, &["list", "--json"]);
    for (mode, said) in [("hang_list", "did not answer skills/list"), ("endless_read", "resources/read")] {
        let source = publisher(&py, tmp.path(), "slow", &json!({"root": root, "mode": mode}));
        let started = std::time::Instant::now();
        let out = run(&home, tmp.path(), &["add", &source, "--all"]);
        let stderr = String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
        assert!(!out.status.success() && stderr.contains(said), "{mode}: {stderr}");
        assert!(started.elapsed().as_secs() < 60, "{mode} was cut off");
        assert_eq!(ok(&home, &["list", "--json"]), before, "{mode}: the store is untouched");
    }
    // Over Streamable HTTP, a file streamed for ever: the response is cut off, nothing written.
    let config = tmp.path().join("endless-http.json");
    fs::write(&config, json!({"root": root, "mode": "endless_read", "http_port": 0}).to_string()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_clients/publisher.py");
    let mut server = Command::new(&py).arg(&script).arg(&config).stdout(std::process::Stdio::piped()).spawn().unwrap();
    let mut url = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(server.stdout.take().unwrap()), &mut url).unwrap();
    let out = run(&home, tmp.path(), &["add", &format!("mcp:stream={}", url.trim()), "--all"]);
    let _ = server.kill();
    let _ = server.wait();
    let said = String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success() && said.contains("resources/read"), "http endless_read: {said}");
    assert_eq!(ok(&home, &["list", "--json"]), before, "http endless_read: the store is untouched");

    // 100,000 entries: the listing stops at the limit, and one skill asked for by name comes in.
    let source = publisher(&py, tmp.path(), "bulk", &json!({"root": root, "mode": "huge_listing"}));
    let out = run(&home, tmp.path(), &["add", &source, "--skill", "bulk-alpha"]);
    let said = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("more than 5000 skills"), "{said}");
    assert!(ok(&home, &["list"]).contains("bulk-alpha"));
}

/// Over Streamable HTTP with a bearer token: without it, the error names the server's own
/// variable; with it, the skill comes in; the token is in no file Skilldeck wrote, nor in the
/// lockfile, nor in anything printed.
#[test]
fn a_server_over_http_gets_the_token_of_its_own_variable_and_it_is_never_written_down() {
    let token = "mcp-source-token-0123456789abcdefghijklmnop";
    let publisher = super::mcp::Env::new();
    let http = super::mcp::Http::start(&publisher, token);
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    fs::create_dir_all(&home).unwrap();
    let source = format!("mcp:own={}", http.url);

    let out = run(&home, tmp.path(), &["add", &source, "--skill", "alpha"]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && said.contains("SKILLDECK_MCP_TOKEN_OWN") && said.contains("[mcp_needs_token]"),
        "{said}"
    );

    let out = Command::new(BIN)
        .args(["add", &source, "--skill", "alpha"])
        .current_dir(tmp.path())
        .env("SKILLDECK_HOME", &home)
        .env("SKILLDECK_MCP_TOKEN_OWN", token)
        .env("SKILLDECK_LOG", "debug")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("own-alpha") && !said.contains(token), "{said}");
    ok(&home, &["lock"]);
    let lock = fs::read_to_string(tmp.path().join("skilldeck.lock")).unwrap();
    assert!(lock.contains(&http.url) && !lock.contains(token), "{lock}");
    for file in walk(&home) {
        let bytes = fs::read(&file).unwrap();
        assert!(!String::from_utf8_lossy(&bytes).contains(token), "the token is in {}", file.display());
    }
}
