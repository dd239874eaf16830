//! The team store against a real S3-compatible server (moto) on loopback: publish, list,
//! history, fetch and restore round trips, blob sharing, offline reads, injected throttling.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_remote::moto::{ACCESS_KEY, MotoServer, SECRET_KEY, find_server};
use skilldeck_remote::{Credentials, Event, Manifest, Remote, RemoteConfig, RemoteError};
use skilldeck_skill::{Digest, RelPath, SkillFiles, SkillName};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

const BUCKET: &str = "team-skills";

struct Env {
    dir: tempfile::TempDir,
    moto: MotoServer,
}

impl Env {
    async fn start() -> Option<Self> {
        let server = find_server(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap()?;
        let dir = tempfile::tempdir().unwrap();
        let moto = MotoServer::start(&server, &dir.path().join("moto.log")).unwrap();
        moto.create_bucket(BUCKET).await.unwrap();
        Some(Self { dir, moto })
    }

    fn home(&self, which: &str) -> PathBuf {
        self.dir.path().join(which)
    }

    fn config(&self, endpoint: String) -> RemoteConfig {
        RemoteConfig { endpoint: Some(endpoint), ..RemoteConfig::new(format!("s3://{BUCKET}/acme")) }
    }

    fn remote(&self, home: &str) -> Remote {
        self.remote_at(home, self.moto.endpoint())
    }

    fn remote_at(&self, home: &str, endpoint: String) -> Remote {
        Remote::with_credentials(&self.home(home), "team", &self.config(endpoint), &creds()).unwrap()
    }

    /// `(method, path)` of every request moto served since `from`.
    fn requests_since(&self, from: usize) -> Vec<(String, String, u16)> {
        self.moto.requests().unwrap().split_off(from)
    }
}

fn creds() -> Credentials {
    Credentials { access_key_id: ACCESS_KEY.into(), secret_access_key: SECRET_KEY.into(), session_token: None }
}

fn skill(files: &[(&str, &[u8])]) -> SkillFiles {
    let mut out = SkillFiles::new();
    for (p, b) in files {
        out.insert(RelPath::parse(p).unwrap(), b.to_vec());
    }
    out
}

fn pairs(files: &SkillFiles) -> Vec<(String, Vec<u8>)> {
    files.iter().map(|(p, b)| (p.as_str().to_owned(), b.to_vec())).collect()
}

fn name(s: &str) -> SkillName {
    SkillName::parse(s).unwrap()
}

const MD: &[u8] = b"---\nname: pdf\ndescription: Read PDFs\n---\nUse pdftotext.\n";

#[tokio::test(flavor = "multi_thread")]
async fn publish_history_fetch_restore_round_trip() {
    let Some(env) = Env::start().await else { return };
    let a = env.remote("a");
    let v1 = skill(&[("SKILL.md", MD), ("scripts/run.sh", b"echo one\n"), ("assets/logo.bin", &[0, 255, 7])]);
    let r1 = a.publish(&name("pdf"), &v1).await.unwrap();
    assert_eq!((r1.revision, r1.uploaded_blobs, r1.reused_blobs), (1, 3, 0));
    assert_eq!(r1.manifest.digest, v1.digest().long(), "the digest is the core's");

    // A second revision with one changed file sends that one blob and the manifest, nothing else.
    let blobs_before = a.store().blob_hashes().await.unwrap();
    let mark = env.moto.requests().unwrap().len();
    let v2 = skill(&[("SKILL.md", MD), ("scripts/run.sh", b"echo two\n"), ("assets/logo.bin", &[0, 255, 7])]);
    let r2 = a.publish(&name("pdf"), &v2).await.unwrap();
    assert_eq!((r2.revision, r2.uploaded_blobs, r2.uploaded_bytes, r2.reused_blobs), (2, 1, 9, 2));
    let puts: Vec<String> =
        env.requests_since(mark).into_iter().filter(|(m, _, _)| m == "PUT").map(|(_, p, _)| p).collect();
    assert_eq!(puts.len(), 2, "{puts:?}");
    assert!(puts[0].contains("/blobs/sha256/") && puts[1].ends_with("/skills/pdf/rev/0000000002.json"), "{puts:?}");
    let blobs_after = a.store().blob_hashes().await.unwrap();
    assert_eq!(blobs_after.difference(&blobs_before).count(), 1);

    // Another machine (its own cache) sees both revisions and the same bytes.
    let b = env.remote("b");
    let listing = b.skills().await.unwrap();
    assert_eq!(listing.offline, None);
    let got: Vec<(String, u64)> = listing.skills.iter().map(|s| (s.name.clone(), s.revision)).collect();
    assert_eq!(got, vec![("pdf".to_owned(), 2)]);
    assert_eq!(listing.skills[0].digest, v2.digest().short());
    let (history, offline) = b.history("pdf").await.unwrap();
    assert!(offline.is_none());
    assert_eq!(
        history.iter().map(|m| (m.revision, m.event)).collect::<Vec<_>>(),
        [(1, Event::Publish), (2, Event::Publish)]
    );
    let (_, files1) = b.fetch("pdf", Some(1)).await.unwrap();
    assert_eq!(pairs(&files1), pairs(&v1));
    let (m2, files2) = b.fetch("pdf", None).await.unwrap();
    assert_eq!((m2.revision, pairs(&files2)), (2, pairs(&v2)));

    // Restore makes revision 3 with revision 1's files.
    let r3 = b.restore(&name("pdf"), 1).await.unwrap();
    assert_eq!(
        (r3.revision, r3.manifest.event, r3.manifest.restored_from, r3.uploaded_blobs),
        (3, Event::Restore, Some(1), 0)
    );
    let (_, files3) = a.fetch("pdf", Some(3)).await.unwrap();
    assert_eq!(pairs(&files3), pairs(&v1));
    assert_eq!(Digest::parse_long(&r3.manifest.digest), Some(v1.digest()));
    let again = b.refresh().await.unwrap();
    assert_eq!((again.skills, again.new_manifests, again.new_blobs), (1, 0, 0), "nothing new to fetch");
    let fresh = env.remote("c").refresh().await.unwrap();
    assert_eq!((fresh.new_manifests, fresh.new_blobs), (3, 3), "every manifest, the latest's blobs");

    // The claim is a conditional write: a second writer of revision 3 is refused (412) and
    // revision 3 stays whole.
    let mark = env.moto.requests().unwrap().len();
    let rival = Manifest::new(&name("pdf"), 3, &v2, Event::Publish, None);
    assert!(!a.store().claim(&rival).await.unwrap());
    assert_eq!(env.requests_since(mark).last().map(|r| r.2), Some(412));
    let (m3, _) = a.store().manifest("pdf", 3).await.unwrap();
    assert_eq!(m3, r3.manifest);

    assert!(matches!(a.history("nope").await, Err(RemoteError::NotFound { .. })));
    assert!(matches!(a.fetch("pdf", Some(9)).await, Err(RemoteError::NotFound { .. })));
}

#[tokio::test(flavor = "multi_thread")]
async fn concurrent_publishers_get_consecutive_revisions() {
    let Some(env) = Env::start().await else { return };
    let (a, b) = (env.remote("a"), env.remote("b"));
    let run = |r: Remote, tag: &'static str| async move {
        let mut revs = Vec::new();
        for i in 0..10 {
            let body = format!("---\nname: pdf\ndescription: d\n---\n{tag} {i}\n");
            revs.push(r.publish(&name("pdf"), &skill(&[("SKILL.md", body.as_bytes())])).await.unwrap().revision);
        }
        revs
    };
    let (ra, rb) = tokio::join!(tokio::spawn(run(a.clone(), "a")), tokio::spawn(run(b, "b")));
    let all: BTreeSet<u64> = ra.unwrap().into_iter().chain(rb.unwrap()).collect();
    assert_eq!(all, (1..=20).collect());
    let (history, _) = a.history("pdf").await.unwrap();
    assert_eq!(history.iter().map(|m| m.revision).collect::<Vec<_>>(), (1..=20).collect::<Vec<_>>());
}

#[tokio::test(flavor = "multi_thread")]
async fn offline_reads_come_from_the_cache_and_say_so() {
    let Some(mut env) = Env::start().await else { return };
    let a = env.remote("a");
    a.publish(&name("pdf"), &skill(&[("SKILL.md", MD)])).await.unwrap();
    a.publish(&name("docx"), &skill(&[("SKILL.md", b"x")])).await.unwrap();
    let online = a.skills().await.unwrap();
    assert!(online.offline.is_none());
    env.moto.stop();
    let offline = a.skills().await.unwrap();
    let note = offline.offline.clone().expect("marked offline");
    assert!(note.last_refresh.is_some() && note.reason.contains("unreachable"), "{note:?}");
    assert_eq!(offline.skills, online.skills);
    let (history, off) = a.history("pdf").await.unwrap();
    assert!(off.is_some());
    assert_eq!(history.len(), 1);
    let (_, files) = a.fetch("pdf", None).await.unwrap();
    assert_eq!(files.get("SKILL.md"), Some(MD));
    // A publish cannot fall back on anything: it says the remote is unreachable.
    let err = a.publish(&name("pdf"), &skill(&[("SKILL.md", b"new")])).await.unwrap_err();
    assert!(err.is_unreachable(), "{err}");
}

/// A loopback proxy in front of moto that answers the first `fail` connections with
/// `503 SlowDown` and forwards the rest; counts both.
async fn throttling_proxy(upstream: u16, fail: usize) -> (String, Arc<AtomicUsize>, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (rejected, forwarded) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (rj, fw) = (rejected.clone(), forwarded.clone());
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else { return };
            if rj.load(Ordering::SeqCst) < fail {
                rj.fetch_add(1, Ordering::SeqCst);
                let mut head = Vec::new();
                let mut buf = [0u8; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match sock.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let body = "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>";
                let resp = format!(
                    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/xml\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = sock.write_all(resp.as_bytes()).await;
                let _ = sock.shutdown().await;
            } else {
                fw.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(async move {
                    if let Ok(mut up) = tokio::net::TcpStream::connect(("127.0.0.1", upstream)).await {
                        let _ = tokio::io::copy_bidirectional(&mut sock, &mut up).await;
                    }
                });
            }
        }
    });
    (format!("http://127.0.0.1:{port}"), rejected, forwarded)
}

#[tokio::test(flavor = "multi_thread")]
async fn throttling_is_retried_then_reported_in_plain_words() {
    let Some(env) = Env::start().await else { return };
    env.remote("a").publish(&name("pdf"), &skill(&[("SKILL.md", MD)])).await.unwrap();

    let (endpoint, rejected, forwarded) = throttling_proxy(env.moto.port(), 2).await;
    let listing = env.remote_at("b", endpoint).skills().await.unwrap();
    assert_eq!(listing.skills.len(), 1);
    assert_eq!(rejected.load(Ordering::SeqCst), 2);
    assert!(forwarded.load(Ordering::SeqCst) >= 1);

    let (endpoint, rejected, _) = throttling_proxy(env.moto.port(), usize::MAX).await;
    let err = env.remote_at("c", endpoint).skills().await.unwrap_err();
    assert!(matches!(err, RemoteError::Busy { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("busy") && text.contains("503 SlowDown") && text.contains("retried"), "{text}");
    assert_eq!(rejected.load(Ordering::SeqCst), 5, "one try and four retries");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_bucket_is_named() {
    let Some(env) = Env::start().await else { return };
    let cfg = RemoteConfig { endpoint: Some(env.moto.endpoint()), ..RemoteConfig::new("s3://no-such-bucket") };
    let r = Remote::with_credentials(&env.home("a"), "team", &cfg, &creds()).unwrap();
    let err = r.skills().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "the bucket \"no-such-bucket\" does not exist; create it, or fix the url in config.toml"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn gc_removes_only_old_unreferenced_blobs() {
    let Some(env) = Env::start().await else { return };
    let a = env.remote("a");
    let kept = skill(&[("SKILL.md", MD)]);
    a.publish(&name("pdf"), &kept).await.unwrap();
    // What a publish killed before its manifest leaves: a blob no manifest names.
    let orphan = skill(&[("SKILL.md", b"half a publish")]);
    a.store().upload_missing_blobs(&orphan).await.unwrap();
    let orphan_hex = skilldeck_remote::manifest::sha256_hex(b"half a publish");

    let young = a.gc(Duration::from_secs(3600), false).await.unwrap();
    assert_eq!((young.referenced, young.young, young.removed.len()), (1, 1, 0));
    let dry = a.gc(Duration::ZERO, true).await.unwrap();
    assert_eq!((dry.removed.clone(), dry.removed_bytes), (vec![orphan_hex.clone()], 14));
    assert!(a.store().blob_hashes().await.unwrap().contains(&orphan_hex), "a dry run deletes nothing");
    let done = a.gc(Duration::ZERO, false).await.unwrap();
    assert_eq!(done.removed, vec![orphan_hex.clone()]);
    let left = a.store().blob_hashes().await.unwrap();
    assert!(!left.contains(&orphan_hex) && left.len() == 1, "{left:?}");
    let (_, files) = env.remote("b").fetch("pdf", None).await.unwrap();
    assert_eq!(pairs(&files), pairs(&kept));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_publish_past_the_last_revision_a_key_holds_is_refused() {
    let Some(env) = Env::start().await else { return };
    let a = env.remote("a");
    let v1 = skill(&[("SKILL.md", MD)]);
    a.publish(&name("pdf"), &v1).await.unwrap();
    // Someone writes the highest revision a key can hold.
    let pinned = Manifest::new(&name("pdf"), 9_999_999_999, &v1, Event::Publish, None);
    assert!(a.store().claim(&pinned).await.unwrap());

    let err = a.publish(&name("pdf"), &skill(&[("SKILL.md", b"new")])).await.unwrap_err();
    assert!(matches!(err, RemoteError::RevisionsExhausted { revision: 9_999_999_999, .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("acme/skills/pdf/rev/9999999999.json") && text.contains("delete it"), "{text}");
    let keys = env.moto.keys(BUCKET, "acme/skills/pdf/rev").await.unwrap();
    assert!(keys.iter().all(|k| k.len() == "acme/skills/pdf/rev/0000000001.json".len()), "no longer key: {keys:?}");
    // A revision past the last one cannot be claimed directly either.
    let past = Manifest::new(&name("pdf"), 10_000_000_000, &v1, Event::Publish, None);
    assert!(a.store().claim(&past).await.is_err());
}

/// A manifest of `pdf` revision 1 at its key, with `files` as its entries (the blobs are not
/// there: nothing may ask for them).
async fn plant_manifest(env: &Env, files: Vec<skilldeck_remote::manifest::FileEntry>) {
    let mut m = Manifest::new(&name("pdf"), 1, &skill(&[("SKILL.md", MD)]), Event::Publish, None);
    m.files = files;
    let body = serde_json::to_vec(&m).unwrap();
    env.moto.put_object(BUCKET, "acme/skills/pdf/rev/0000000001.json", body).await.unwrap();
}

fn entry(path: String, size: u64) -> skilldeck_remote::manifest::FileEntry {
    let sha256 = skilldeck_remote::manifest::sha256_hex(path.as_bytes());
    skilldeck_remote::manifest::FileEntry { path, sha256, size }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_manifest_over_the_limits_is_refused_before_any_blob_is_fetched() {
    let Some(env) = Env::start().await else { return };
    let too_many = (0..=5000).map(|i| entry(format!("f{i:04}"), 1)).collect();
    let too_large = vec![entry("SKILL.md".into(), 1), entry("big.bin".into(), (32 << 20) + 1)];
    for (which, files) in [("too many files", too_many), ("a file too large", too_large)] {
        plant_manifest(&env, files).await;
        let mark = env.moto.requests().unwrap().len();
        let err = env.remote(which).fetch("pdf", None).await.unwrap_err();
        assert!(matches!(err, RemoteError::Corrupt { .. }), "{which}: {err:?}");
        let blob_gets: Vec<_> =
            env.requests_since(mark).into_iter().filter(|(m, p, _)| m == "GET" && p.contains("/blobs/")).collect();
        assert!(blob_gets.is_empty(), "{which}: {blob_gets:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_blob_larger_than_its_manifest_says_is_refused() {
    let Some(env) = Env::start().await else { return };
    env.remote("a").publish(&name("pdf"), &skill(&[("SKILL.md", MD)])).await.unwrap();
    let key = format!("acme/blobs/sha256/{}", skilldeck_remote::manifest::sha256_hex(MD));
    env.moto.put_object(BUCKET, &key, vec![b'x'; 1 << 20]).await.unwrap();
    let err = env.remote("b").fetch("pdf", None).await.unwrap_err();
    let text = err.to_string();
    assert!(text.contains(&key) && text.contains("more than its manifest's size"), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn one_damaged_skill_is_skipped_and_reported_while_the_others_update() {
    use skilldeck_remote::team::materialise;
    use skilldeck_skill::{Revision, Scope};
    use skilldeck_store::{FsStorage, SkilldeckHome};
    let Some(env) = Env::start().await else { return };
    let a = env.remote("a");
    let md = |n: &str, body: &str| format!("---\nname: {n}\ndescription: d\n---\n{body}\n").into_bytes();
    for n in ["good", "bad", "gone"] {
        a.publish(&name(n), &skill(&[("SKILL.md", &md(n, "one"))])).await.unwrap();
    }
    let b = env.remote("b");
    let storage = FsStorage::open(SkilldeckHome::new(env.home("b"))).unwrap();
    b.refresh().await.unwrap();
    let first = materialise(&storage, b.cache()).unwrap();
    assert_eq!(first.written.len(), 3, "{first:?}");

    // A good new revision of one skill; garbage as the newest of another; a skill with no
    // SKILL.md (the store takes it, the team scope cannot); a skill deleted from the store.
    a.publish(&name("good"), &skill(&[("SKILL.md", &md("good", "two"))])).await.unwrap();
    env.moto.put_object(BUCKET, "acme/skills/bad/rev/0000000002.json", b"{ not json".to_vec()).await.unwrap();
    a.publish(&name("nomd"), &skill(&[("notes.txt", b"no skill here")])).await.unwrap();
    env.moto.delete_object(BUCKET, "acme/skills/gone/rev/0000000001.json").await.unwrap();

    let report = b.refresh().await.unwrap();
    let skipped: Vec<(&str, u64)> = report.problems.iter().map(|p| (p.name.as_str(), p.revision)).collect();
    assert_eq!(skipped, [("bad", 2)], "{report:?}");
    assert!(report.problems[0].reason.contains("not a manifest"), "{report:?}");
    let done = materialise(&storage, b.cache()).unwrap();
    assert_eq!(done.written, [("good".to_owned(), 2)], "{done:?}");
    assert_eq!(done.removed, ["gone"]);
    let problems: Vec<(&str, u64)> = done.problems.iter().map(|p| (p.name.as_str(), p.revision)).collect();
    assert_eq!(problems, [("nomd", 1)], "{done:?}");
    let rev = |n: &str| storage.revision_sync(Scope::Team, &name(n)).unwrap();
    assert_eq!((rev("good"), rev("bad")), (Some(Revision(2)), Some(Revision(1))), "bad keeps its last good revision");
    let listed: Vec<(String, u64)> =
        b.skills().await.unwrap().skills.into_iter().map(|s| (s.name, s.revision)).collect();
    assert!(listed.contains(&("bad".to_owned(), 1)) && listed.contains(&("good".to_owned(), 2)), "{listed:?}");
}

fn md(n: &str, body: &str) -> Vec<u8> {
    format!("---\nname: {n}\ndescription: d\n---\n{body}\n").into_bytes()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_key_that_cannot_be_a_manifest_is_skipped_and_reported() {
    let Some(env) = Env::start().await else { return };
    let a = env.remote("a");
    for n in ["alpha", "mid", "omega"] {
        a.publish(&name(n), &skill(&[("SKILL.md", &md(n, "one"))])).await.unwrap();
    }
    let b = env.remote("b");
    b.refresh().await.unwrap();
    for n in ["alpha", "omega"] {
        a.publish(&name(n), &skill(&[("SKILL.md", &md(n, "two"))])).await.unwrap();
    }
    // Keys no object path holds (which `object_store` refuses with their whole LIST page),
    // before, between and after the skills in key order; and keys that are paths but no
    // manifest's.
    let raw = [
        "acme/skills/../rev/0000000001.json",
        "acme/skills/mid/rev/../0000000009.json",
        "acme/skills/omega//rev/0000000009.json",
        "acme/skills/zz/rev/./0000000001.json",
        "acme/blobs/sha256/../x",
    ];
    for key in raw {
        env.moto.put_raw_key(BUCKET, key, b"{}").await.unwrap();
    }
    for key in ["acme/skills/pdf/rev/1.json", "acme/skills/README.md"] {
        env.moto.put_object(BUCKET, key, b"{}".to_vec()).await.unwrap();
    }
    let listed = env.moto.keys(BUCKET, "acme/skills/alpha").await.unwrap();
    assert_eq!(listed.len(), 2, "the client used here lists only well-formed keys: {listed:?}");

    let report = b.refresh().await.unwrap();
    let skills = b.cache().state().unwrap().skills;
    let got: Vec<(&str, u64)> = skills.iter().map(|(n, r)| (n.as_str(), *r)).collect();
    assert_eq!(got, [("alpha", 2), ("mid", 1), ("omega", 2)], "{report:?}");
    let mut stray: Vec<String> = raw[..4].iter().map(|k| format!("\"{k}\"")).collect();
    stray.extend(["\"acme/skills/README.md\"".to_owned(), "\"acme/skills/pdf/rev/1.json\"".to_owned()]);
    stray.sort();
    assert_eq!(report.problems.iter().map(|p| p.name.clone()).collect::<Vec<_>>(), stray, "{report:?}");
    assert!(report.problems.iter().all(|p| p.not_a_manifest && p.revision == 0), "{report:?}");
    let line = report.problems[0].line();
    assert!(
        line.starts_with("skipped the object \"acme/skills/../rev/0000000001.json\": its key is not skills/NAME"),
        "{line}"
    );
    assert_eq!(b.cache().state().unwrap().problems, report.problems, "kept for the team scope's report");

    // Every other reader of a listing steps over them too.
    assert_eq!(b.history("mid").await.unwrap().0.len(), 1);
    assert_eq!(b.fetch("omega", None).await.unwrap().0.revision, 2);
    assert_eq!(a.publish(&name("mid"), &skill(&[("SKILL.md", &md("mid", "two"))])).await.unwrap().revision, 2);
    assert_eq!(a.gc(Duration::ZERO, true).await.unwrap().removed, Vec::<String>::new());
    let again = b.refresh().await.unwrap();
    assert_eq!((again.skills, again.problems.len()), (3, 6), "{again:?}");
    assert_eq!(b.cache().state().unwrap().skills.get("mid"), Some(&2));
}

#[tokio::test(flavor = "multi_thread")]
async fn one_skills_manifest_cannot_hold_back_another_skills_update() {
    use skilldeck_remote::manifest::sha256_hex;
    let Some(env) = Env::start().await else { return };
    let a = env.remote("a");
    a.publish(&name("deploy"), &skill(&[("SKILL.md", &md("deploy", "one"))])).await.unwrap();
    let b = env.remote("b");
    b.refresh().await.unwrap();
    let v2 = skill(&[("SKILL.md", &md("deploy", "two")), ("run.sh", b"echo two\n")]);
    a.publish(&name("deploy"), &v2).await.unwrap();
    // Another skill's manifest names deploy v2's new blob, with a size of 1.
    let mut evil = Manifest::new(&name("zz-evil"), 1, &skill(&[("SKILL.md", b"echo two\n")]), Event::Publish, None);
    assert_eq!(evil.files[0].sha256, sha256_hex(b"echo two\n"));
    evil.files[0].size = 1;
    let key = "acme/skills/zz-evil/rev/0000000001.json";
    env.moto.put_object(BUCKET, key, serde_json::to_vec(&evil).unwrap()).await.unwrap();

    let report = b.refresh().await.unwrap();
    let skipped: Vec<(&str, u64)> = report.problems.iter().map(|p| (p.name.as_str(), p.revision)).collect();
    assert_eq!(skipped, [("zz-evil", 1)], "{report:?}");
    assert!(report.problems[0].reason.contains("SKILL.md\" is 9 bytes, its manifest says 1"), "{report:?}");
    assert_eq!(b.cache().state().unwrap().skills.get("deploy"), Some(&2), "{report:?}");
    assert_eq!(pairs(&b.cache().files("deploy", 2).unwrap().unwrap()), pairs(&v2));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_damaged_revision_fixed_in_the_bucket_is_fetched_again() {
    use skilldeck_remote::team::materialise;
    use skilldeck_skill::{Revision, Scope};
    use skilldeck_store::{FsStorage, SkilldeckHome};
    let Some(env) = Env::start().await else { return };
    let a = env.remote("a");
    for n in ["docx", "pdf"] {
        a.publish(&name(n), &skill(&[("SKILL.md", &md(n, "one"))])).await.unwrap();
    }
    let b = env.remote("b");
    let storage = FsStorage::open(SkilldeckHome::new(env.home("b"))).unwrap();
    b.refresh().await.unwrap();
    assert_eq!(materialise(&storage, b.cache()).unwrap().written.len(), 2);

    // Revision 2 of each, its blobs uploaded, its manifest written damaged: pdf's says its
    // larger file is a byte shorter, docx's claims another digest.
    let v2 = |n: &str| skill(&[("SKILL.md", &md(n, "two")), ("data.txt", format!("data of {n}").as_bytes())]);
    let mut fixed = Vec::new();
    for n in ["docx", "pdf"] {
        a.store().upload_missing_blobs(&v2(n)).await.unwrap();
        let good = Manifest::new(&name(n), 2, &v2(n), Event::Publish, None);
        let mut bad = good.clone();
        match n {
            "pdf" => bad.files.iter_mut().find(|f| f.path == "data.txt").unwrap().size -= 1,
            _ => bad.digest = format!("sha256:{}", "0".repeat(64)),
        }
        let key = format!("acme/skills/{n}/rev/0000000002.json");
        env.moto.put_object(BUCKET, &key, serde_json::to_vec_pretty(&bad).unwrap()).await.unwrap();
        fixed.push((key, serde_json::to_vec_pretty(&good).unwrap()));
    }
    let report = b.refresh().await.unwrap();
    let skipped: Vec<(&str, u64)> = report.problems.iter().map(|p| (p.name.as_str(), p.revision)).collect();
    assert_eq!(skipped, [("docx", 2), ("pdf", 2)], "{report:?}");
    let done = materialise(&storage, b.cache()).unwrap();
    assert!(done.written.is_empty() && done.problems.is_empty(), "{done:?}");
    let rev = |n: &str| storage.revision_sync(Scope::Team, &name(n)).unwrap();
    assert_eq!((rev("docx"), rev("pdf")), (Some(Revision(1)), Some(Revision(1))));
    // Still damaged: skipped again, and nothing else changes.
    assert_eq!(b.refresh().await.unwrap().problems.len(), 2);

    // Fixed in the bucket: the right manifests at the same keys.
    for (key, body) in fixed {
        env.moto.put_object(BUCKET, &key, body).await.unwrap();
    }
    let report = b.refresh().await.unwrap();
    assert!(report.problems.is_empty(), "{report:?}");
    let done = materialise(&storage, b.cache()).unwrap();
    assert_eq!(done.written, [("docx".to_owned(), 2), ("pdf".to_owned(), 2)], "{done:?}");
    let data = storage.read_raw_file_sync(Scope::Team, &name("pdf"), &RelPath::parse("data.txt").unwrap()).unwrap();
    assert_eq!(data, b"data of pdf");
}
