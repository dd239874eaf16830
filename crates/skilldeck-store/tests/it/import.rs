//! Importing folders and archives: the good cases, and hostile input refused with nothing written.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_skill::SkillName;
use skilldeck_skill::UploadLimits;
use skilldeck_store::import::{self, ImportError};
use skilldeck_store::{FsStorage, Scope, SkilldeckHome};
use std::collections::BTreeMap;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use zip::write::SimpleFileOptions;

const MD: &str = "---\nname: pdf\ndescription: Extract text from PDF files\n---\n# PDF\n";

fn load(path: &Path) -> Result<import::LoadedSkill, ImportError> {
    import::load(path, UploadLimits::default(), &mut |_, _| {})
}

/// Writes a zip with `(name, bytes)` entries.
fn zip_of(path: &Path, entries: &[(&str, &[u8])]) {
    let mut z = zip::ZipWriter::new(fs::File::create(path).unwrap());
    for (name, bytes) in entries {
        z.start_file(*name, SimpleFileOptions::default()).unwrap();
        z.write_all(bytes).unwrap();
    }
    z.finish().unwrap();
}

fn paths(l: &import::LoadedSkill) -> Vec<String> {
    l.files.iter().map(|(p, _)| p.to_string()).collect()
}

#[test]
fn folders_skill_md_and_archives_load() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("pdf");
    fs::create_dir_all(dir.join("scripts")).unwrap();
    fs::create_dir_all(dir.join(".git")).unwrap();
    fs::write(dir.join("SKILL.md"), MD).unwrap();
    fs::write(dir.join("scripts/run.py"), "print(1)").unwrap();
    fs::write(dir.join(".git/HEAD"), "ref").unwrap();
    fs::write(dir.join(".version"), "77").unwrap();
    fs::write(dir.join(".revision.json"), "{}").unwrap();
    let l = load(&dir).unwrap();
    assert_eq!((l.name.as_str(), paths(&l)), ("pdf", vec!["SKILL.md".to_owned(), "scripts/run.py".to_owned()]));
    let mut skipped = l.skipped.clone();
    skipped.sort();
    assert_eq!(
        skipped,
        vec![".git", ".revision.json", ".version"],
        "a folder copied out of a store drops its sidecars"
    );
    assert!(l.validation.is_valid());
    assert_eq!(paths(&load(&dir.join("SKILL.md")).unwrap()), paths(&l));

    // A zip with the skill under one top folder, and a .skill with it at the top.
    let z = tmp.path().join("pdf.zip");
    zip_of(&z, &[("pdf/SKILL.md", MD.as_bytes()), ("pdf/scripts/run.py", b"print(1)"), ("pdf/__MACOSX/x", b"")]);
    assert_eq!(paths(&load(&z).unwrap()), vec!["SKILL.md", "scripts/run.py"]);
    let s = tmp.path().join("whatever.skill");
    zip_of(&s, &[("SKILL.md", MD.as_bytes())]);
    assert_eq!(load(&s).unwrap().name.as_str(), "pdf");
}

#[test]
fn the_name_comes_from_frontmatter_then_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("my-tool");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("SKILL.md"), "---\ndescription: no name\n---\nbody\n").unwrap();
    let l = load(&dir).unwrap();
    assert_eq!(l.name.as_str(), "my-tool");
    assert!(!l.validation.is_valid(), "still reported: name_missing");
    let bad = tmp.path().join("My Tool");
    fs::create_dir_all(&bad).unwrap();
    fs::write(bad.join("SKILL.md"), "---\ndescription: no name\n---\nbody\n").unwrap();
    assert_eq!(load(&bad).unwrap_err().code(), "name_invalid");
}

fn expect_refused(source: &Path, code: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let storage = FsStorage::open(SkilldeckHome::new(tmp.path())).unwrap();
    let err = load(source).and_then(|l| import::store(&storage, Scope::User, &l)).unwrap_err();
    assert_eq!(err.code(), code, "{}: {err}", source.display());
    assert!(storage.list_skills_sync(Scope::User).unwrap().is_empty(), "nothing may be written");
    assert!(!tmp.path().join("history").exists());
}

#[test]
fn hostile_archives_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    type Case<'a> = (&'a str, Vec<(&'a str, &'a [u8])>, &'a str);
    let cases: Vec<Case<'_>> = vec![
        ("dotdot", vec![("SKILL.md", MD.as_bytes()), ("../evil.sh", b"x")], "source_hostile"),
        ("deep-dotdot", vec![("SKILL.md", MD.as_bytes()), ("a/../../evil", b"x")], "source_hostile"),
        ("absolute", vec![("SKILL.md", MD.as_bytes()), ("/etc/evil", b"x")], "source_hostile"),
        ("backslash", vec![("SKILL.md", MD.as_bytes()), ("..\\evil", b"x")], "source_hostile"),
        ("drive", vec![("SKILL.md", MD.as_bytes()), ("C:/evil", b"x")], "source_hostile"),
        ("nul", vec![("SKILL.md", MD.as_bytes()), ("a\0b", b"x")], "source_hostile"),
        ("no-skill-md", vec![("README.md", b"x")], "skill_md_missing"),
    ];
    for (name, entries, code) in cases {
        let z = tmp.path().join(format!("{name}.zip"));
        zip_of(&z, &entries);
        expect_refused(&z, code);
    }
    // Duplicates (also differing only in case), a file that is also a folder, an over-long name,
    // a name that is not UTF-8: each says what is wrong with the archive, never an internal path.
    let long = "x".repeat(300);
    let other_md = "---\nname: other\ndescription: Another\n---\n# Other\n";
    let cases: Vec<Case<'_>> = vec![
        ("case-twins", vec![("SKILL.md", MD.as_bytes()), ("skill.md", other_md.as_bytes())], "also holds \"SKILL.md\""),
        ("clash", vec![("SKILL.md", MD.as_bytes()), ("a", b"x"), ("a/b", b"y")], "\"a\" is a file in the archive"),
        ("long", vec![("SKILL.md", MD.as_bytes()), (long.as_str(), b"")], "longer than 255 bytes"),
    ];
    for (name, entries, says) in cases {
        let z = tmp.path().join(format!("{name}.zip"));
        zip_of(&z, &entries);
        let err = load(&z).unwrap_err();
        assert_eq!(err.code(), "source_hostile", "{name}: {err}");
        assert!(err.to_string().contains(says), "{name}: {err}");
        assert!(!err.to_string().contains("staging"), "{name}: {err}");
        expect_refused(&z, "source_hostile");
    }
    // Names the zip writer will not write, made by patching an archive's bytes.
    let patched = |name: &str, from: &[u8], to: &[u8]| -> PathBuf {
        let z = tmp.path().join(format!("{name}.zip"));
        zip_of(&z, &[("SKILL.md", MD.as_bytes()), (std::str::from_utf8(from).unwrap(), b"second")]);
        let mut bytes = fs::read(&z).unwrap();
        let mut i = 0;
        while let Some(at) = bytes[i..].windows(from.len()).position(|w| w == from) {
            bytes[i + at..i + at + from.len()].copy_from_slice(to);
            i += at + from.len();
        }
        fs::write(&z, bytes).unwrap();
        z
    };
    let twice = patched("twice", b"SKILL.mX", b"SKILL.md");
    let err = load(&twice).unwrap_err();
    assert!(matches!(err.code(), "source_hostile" | "archive_invalid"), "{err}");
    expect_refused(&twice, err.code());
    let latin = patched("not-utf8", b"ref-ab.md", b"ref-\xff\xfe.md");
    let err = load(&latin).unwrap_err();
    assert_eq!(err.code(), "source_hostile", "{err}");
    assert!(err.to_string().contains("not UTF-8"), "{err}");
    // A symlink entry.
    let z = tmp.path().join("link.zip");
    let mut w = zip::ZipWriter::new(fs::File::create(&z).unwrap());
    w.start_file("SKILL.md", SimpleFileOptions::default()).unwrap();
    w.write_all(MD.as_bytes()).unwrap();
    w.add_symlink("passwd", "/etc/passwd", SimpleFileOptions::default()).unwrap();
    w.finish().unwrap();
    expect_refused(&z, "source_hostile");
    // Not a zip at all.
    let junk = tmp.path().join("junk.zip");
    fs::write(&junk, b"not a zip").unwrap();
    expect_refused(&junk, "archive_invalid");
}

#[test]
fn a_lowercase_skill_md_is_read_and_stored_as_skill_md() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("pdf");
    fs::create_dir_all(dir.join("references")).unwrap();
    fs::write(dir.join("skill.md"), MD).unwrap();
    fs::write(dir.join("references/guide.md"), "g").unwrap();
    let expect = |l: &import::LoadedSkill| {
        assert_eq!(paths(l), vec!["SKILL.md", "references/guide.md"]);
        let first = &l.validation.diagnostics[0];
        assert_eq!(first.code.as_str(), "skill_md_renamed", "{first:?}");
        assert!(first.message.contains("the spec names it SKILL.md"), "{first:?}");
        assert!(l.validation.is_valid());
    };
    expect(&load(&dir).unwrap());
    expect(&load(&dir.join("skill.md")).unwrap());
    // In an archive under one top folder too.
    let z = tmp.path().join("pdf.zip");
    zip_of(&z, &[("pdf/Skill.md", MD.as_bytes()), ("pdf/references/guide.md", b"g")]);
    expect(&load(&z).unwrap());
    // Stored, it is SKILL.md.
    let storage = FsStorage::open(SkilldeckHome::new(tmp.path().join("home"))).unwrap();
    import::store(&storage, Scope::User, &load(&dir).unwrap()).unwrap();
    assert!(tmp.path().join("home/skills/user/pdf/SKILL.md").is_file());
}

#[test]
fn a_zip_bomb_stops_at_the_limit() {
    let tmp = tempfile::tempdir().unwrap();
    let z = tmp.path().join("bomb.zip");
    let mut w = zip::ZipWriter::new(fs::File::create(&z).unwrap());
    let opts = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    w.start_file("SKILL.md", opts).unwrap();
    w.write_all(MD.as_bytes()).unwrap();
    w.start_file("zeros.bin", opts).unwrap();
    let chunk = vec![0u8; 1 << 20];
    for _ in 0..40 {
        w.write_all(&chunk).unwrap();
    }
    w.finish().unwrap();
    assert!(fs::metadata(&z).unwrap().len() < 200_000, "40 MiB of zeros compresses small");
    let limits = UploadLimits { max_file_bytes: 8 << 20, ..UploadLimits::default() };
    let err = import::load(&z, limits, &mut |_, _| {}).unwrap_err();
    assert_eq!(err.code(), "upload_too_large", "{err}");
}

#[test]
fn hostile_folders_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let make = |name: &str| -> PathBuf {
        let d = tmp.path().join(name);
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join("SKILL.md"), MD).unwrap();
        d
    };
    let d = make("file-link");
    std::os::unix::fs::symlink("/etc/passwd", d.join("passwd")).unwrap();
    expect_refused(&d, "source_hostile");
    let d = make("dir-link");
    std::os::unix::fs::symlink("/etc", d.join("etc")).unwrap();
    expect_refused(&d, "source_hostile");
    let d = make("fifo");
    let status = std::process::Command::new("mkfifo").arg(d.join("pipe")).status().unwrap();
    assert!(status.success());
    expect_refused(&d, "source_hostile");
    let d = make("too-many");
    for i in 0..5001 {
        fs::write(d.join(format!("f{i}")), "").unwrap();
    }
    expect_refused(&d, "upload_too_large");
    expect_refused(&tmp.path().join("missing"), "source_not_found");
    let empty = tmp.path().join("empty");
    fs::create_dir_all(&empty).unwrap();
    expect_refused(&empty, "skill_md_missing");
    // A link named as the source is followed (links inside are not); a dangling one says so.
    let real = make("real-folder");
    let link = tmp.path().join("current");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    assert_eq!(load(&link).unwrap().name.as_str(), "pdf");
    let dangling = tmp.path().join("dangling");
    std::os::unix::fs::symlink(tmp.path().join("nowhere"), &dangling).unwrap();
    let err = load(&dangling).unwrap_err();
    assert!(err.to_string().contains("is a symbolic link that leads nowhere"), "{err}");
}

#[test]
fn preview_says_what_will_happen() {
    let tmp = tempfile::tempdir().unwrap();
    let storage = FsStorage::open(SkilldeckHome::new(tmp.path().join("home"))).unwrap();
    let dir = tmp.path().join("pdf");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("SKILL.md"), MD).unwrap();
    let l = load(&dir).unwrap();
    let p = import::preview(&storage, Scope::User, &l);
    assert_eq!((p.is_new, p.next_revision.0, p.file_count, p.valid), (true, 1, 1, true));
    import::store(&storage, Scope::User, &l).unwrap();
    let p = import::preview(&storage, Scope::User, &l);
    assert_eq!((p.is_new, p.identical, p.current_revision.map(|r| r.0)), (false, true, Some(1)), "they stay v:1");
    assert!(import::store(&storage, Scope::User, &l).unwrap().is_unchanged());
    fs::write(dir.join("SKILL.md"), format!("{MD}More.\n")).unwrap();
    let p = import::preview(&storage, Scope::User, &load(&dir).unwrap());
    assert_eq!((p.is_new, p.identical, p.next_revision.0), (false, false, 2));
}

/// Writes `root/<rel>/SKILL.md` with `front` as frontmatter, and a reference beside it.
fn put_skill(root: &Path, rel: &str, front: &str) -> PathBuf {
    let d = root.join(rel);
    fs::create_dir_all(d.join("references")).unwrap();
    fs::write(d.join("SKILL.md"), format!("---\n{front}---\n# {rel}\n\nSee references/guide.md.\n")).unwrap();
    fs::write(d.join("references/guide.md"), format!("guide of {rel}\n")).unwrap();
    d
}

/// A collection laid out as public ones are: `skills/<name>/` and `<category>/<name>/`, with
/// four broken skills among 200, and folders that must never be searched.
fn collection(root: &Path) {
    for i in 0..200 {
        let name = format!("skill-{i:03}");
        let rel = if i % 2 == 0 { format!("skills/{name}") } else { format!("cat-{}/{name}", i % 7) };
        let front = match i {
            // Bad YAML: stored, invalid, under its folder's name.
            13 => "name: [skill-013\ndescription: broken\n".to_owned(),
            _ => format!("name: {name}\ndescription: Skill number {i}. Use it when asked for {i}.\n"),
        };
        let d = put_skill(root, &rel, &front);
        if i == 27 {
            std::os::unix::fs::symlink("/etc/passwd", d.join("passwd")).unwrap();
        }
        if i == 41 {
            fs::rename(d.join("SKILL.md"), d.join("skill.md")).unwrap();
        }
    }
    // No usable name: neither in the frontmatter nor the folder.
    put_skill(root, "misc/Not A Name", "description: nameless\n");
    // A second skill named skill-000: refused, the first one stays.
    put_skill(root, "zz-copies/skill-000", "name: skill-000\ndescription: a copy\n");
    // Never searched: a skill's own subfolders, hidden folders, node_modules.
    put_skill(root, "skills/skill-000/examples/inner", "name: inner\ndescription: part of skill-000\n");
    put_skill(root, ".git/hidden", "name: hidden\ndescription: no\n");
    put_skill(root, "node_modules/pkg", "name: pkg\ndescription: no\n");
}

fn states(report: &import::BatchReport) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for item in &report.items {
        let state = serde_json::to_value(item).unwrap()["state"].as_str().unwrap().to_owned();
        *out.entry(state).or_default() += 1;
    }
    out
}

fn counts(pairs: &[(&str, usize)]) -> BTreeMap<String, usize> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
}

#[test]
fn a_collection_imports_each_skill_and_refuses_only_the_broken_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("collection");
    collection(&src);
    let storage = FsStorage::open(SkilldeckHome::new(tmp.path().join("home"))).unwrap();
    let req = [import::ImportRequest::all(&src)];
    let limits = UploadLimits::default();

    let preview = import::preview_all(&storage, Scope::User, &req, limits, &mut |_| {});
    assert_eq!(preview.items.len(), 202, "200 skills, the nameless one and the copy; nothing else");
    assert!(preview.items.iter().all(|i| !i.location.contains("inner") && !i.location.contains("hidden")));
    let preview_json = serde_json::to_value(&preview.items[0]).unwrap();
    assert_eq!(preview_json["location"], "cat-0/skill-007");
    assert_eq!((preview_json["state"].as_str(), preview_json["revision"].as_u64()), (Some("new"), Some(1)));
    assert_eq!(preview_json["skill"]["name"], "skill-007");
    assert_eq!(preview_json["skill"]["file_count"], 2);
    assert!(storage.list_skills_sync(Scope::User).unwrap().is_empty(), "a preview writes nothing");

    let mut seen = 0;
    let report = import::import_batch(&storage, Scope::User, &req, limits, &mut |p| {
        if let import::BatchProgress::Reading { done, total } = p {
            assert_eq!(total, 202);
            seen = done;
        }
    })
    .unwrap();
    assert_eq!(seen, 202);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert_eq!(states(&report), counts(&[("imported", 199), ("refused", 3)]));
    assert_eq!((report.imported(), report.imported_invalid(), report.refused()), (199, 1, 3));
    let refused: Vec<(&str, &str)> = report
        .items
        .iter()
        .filter_map(|i| match &i.state {
            import::ImportState::Refused { error } => Some((i.location.as_str(), error.code.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(
        refused,
        vec![
            ("cat-6/skill-027", "source_hostile"),
            ("misc/Not A Name", "name_invalid"),
            ("zz-copies/skill-000", "name_duplicate")
        ]
    );

    // Each stored skill: one revision, whose digest is the one of its files as stored.
    let stored = storage.list_skills_sync(Scope::User).unwrap();
    assert_eq!(stored.len(), 199);
    for item in &report.items {
        let (import::ImportState::Imported { revision, .. }, Some(skill)) = (&item.state, &item.skill) else {
            continue;
        };
        assert_eq!(revision.0, 1);
        let snap = storage.snapshot(Scope::User, &skill.name).unwrap();
        assert_eq!(snap.files.digest(), skill.digest, "{}", skill.name);
        assert_eq!(storage.history_sync(Scope::User, &skill.name).unwrap()[0].digest, Some(skill.digest));
    }
    let lower = storage.snapshot(Scope::User, &SkillName::parse("skill-041").unwrap()).unwrap();
    assert!(lower.files.skill_md().is_some(), "a lowercase skill.md is stored as SKILL.md");
    let broken = report.items.iter().find(|i| i.location == "cat-6/skill-013").unwrap();
    assert!(!broken.skill.as_ref().unwrap().valid, "bad YAML is stored, invalid");
    let user = tmp.path().join("home/skills/user");
    let leftovers: Vec<_> = fs::read_dir(&user)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with('.') && n != ".journal")
        .chain(fs::read_dir(user.join(".journal")).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()))
        .collect();
    assert!(leftovers.is_empty(), "no staging entry and no journal note left: {leftovers:?}");

    // Importing it all again writes nothing: every skill is unchanged, still v:1.
    let again = import::import_batch(&storage, Scope::User, &req, limits, &mut |_| {}).unwrap();
    assert_eq!(states(&again), counts(&[("unchanged", 199), ("refused", 3)]));
    for name in &stored {
        let n = SkillName::parse(name).unwrap();
        assert_eq!(storage.history_sync(Scope::User, &n).unwrap().len(), 1, "{name}: no new revision");
    }
    let preview = import::preview_all(&storage, Scope::User, &req, limits, &mut |_| {});
    let identical = preview.items.iter().filter(|i| matches!(i.state, import::ItemState::Identical { .. })).count();
    assert_eq!(identical, 199);

    // One skill changed: only it becomes v:2.
    fs::write(src.join("skills/skill-100/references/guide.md"), "changed\n").unwrap();
    let third = import::import_batch(&storage, Scope::User, &req, limits, &mut |_| {}).unwrap();
    assert_eq!(states(&third), counts(&[("imported", 1), ("unchanged", 198), ("refused", 3)]));
    let changed = third.items.iter().find(|i| i.location == "skills/skill-100").unwrap();
    assert_eq!(
        changed.state,
        import::ImportState::Imported {
            revision: skilldeck_store::Revision(2),
            replaced: Some(skilldeck_store::Revision(1)),
            warnings: vec![]
        }
    );
}

#[test]
fn an_archive_with_an_unsafe_entry_beside_valid_skills_is_refused_whole() {
    // The archive-safety rules say such an archive is rejected: an entry outside every skill
    // folder is no reason to drop it quietly and import the rest.
    let tmp = tempfile::tempdir().unwrap();
    let md = |n: &str| format!("---\nname: {n}\ndescription: The {n} skill\n---\n# {n}\n");
    let (a, b) = (md("alpha"), md("beta"));
    for (case, bad) in [("absolute", "/tmp/x"), ("backslash", "evil\\..\\..\\x"), ("dotdot", "../x"), ("drive", "C:/x")]
    {
        let z = tmp.path().join(format!("{case}.zip"));
        zip_of(&z, &[("alpha/SKILL.md", a.as_bytes()), ("beta/SKILL.md", b.as_bytes()), (bad, b"x")]);
        let home = tmp.path().join(format!("home-{case}"));
        let storage = FsStorage::open(SkilldeckHome::new(&home)).unwrap();
        let all = [import::ImportRequest::all(&z)];
        let r = import::import_batch(&storage, Scope::User, &all, UploadLimits::default(), &mut |_| {}).unwrap();
        assert!(r.items.is_empty(), "{case}: no skill of the archive is imported: {:?}", r.items.len());
        assert_eq!(r.errors.len(), 1, "{case}");
        let e = &r.errors[0].error;
        assert_eq!(e.code, "source_hostile", "{case}: {}", e.message);
        assert!(e.message.contains(&format!("{bad:?}")), "{case}: the entry is named: {}", e.message);
        assert!(e.message.contains("unsafe"), "{case}: {}", e.message);
        assert!(storage.list_skills_sync(Scope::User).unwrap().is_empty(), "{case}: nothing stored");
        // Loading it as one skill, and the preview's look at its layout, refuse it the same way.
        let err = load(&z).unwrap_err();
        assert_eq!(err.code(), "source_hostile", "{case}: {err}");
        assert!(err.to_string().contains("unsafe"), "{case}: {err}");
    }
}

#[test]
fn a_collection_archive_imports_each_skill_and_a_selection_only_those() {
    let tmp = tempfile::tempdir().unwrap();
    let z = tmp.path().join("collection.zip");
    let md = |n: &str| format!("---\nname: {n}\ndescription: The {n} skill\n---\n# {n}\n");
    let (a, b, c) = (md("alpha"), md("beta"), md("gamma"));
    zip_of(
        &z,
        &[
            ("repo/skills/alpha/SKILL.md", a.as_bytes()),
            ("repo/skills/alpha/references/x.md", b"x"),
            ("repo/skills/beta/SKILL.md", b.as_bytes()),
            ("repo/skills/beta/a", b"x"),
            ("repo/skills/beta/a/b", b"y"),
            ("repo/tools/gamma/skill.md", c.as_bytes()),
            ("repo/.github/workflows/SKILL.md", b"no"),
            ("repo/README.md", b"readme"),
        ],
    );
    let storage = FsStorage::open(SkilldeckHome::new(tmp.path().join("home"))).unwrap();
    let all = [import::ImportRequest::all(&z)];
    let r = import::import_batch(&storage, Scope::User, &all, UploadLimits::default(), &mut |_| {}).unwrap();
    let got: Vec<(&str, String)> = r
        .items
        .iter()
        .map(|i| (i.location.as_str(), serde_json::to_value(&i.state).unwrap()["state"].as_str().unwrap().to_owned()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("repo/skills/alpha", "imported".to_owned()),
            ("repo/skills/beta", "refused".to_owned()),
            ("repo/tools/gamma", "imported".to_owned())
        ]
    );
    let alpha = storage.snapshot(Scope::User, &SkillName::parse("alpha").unwrap()).unwrap();
    let paths: Vec<String> = alpha.files.iter().map(|(p, _)| p.to_string()).collect();
    assert_eq!(paths, vec!["SKILL.md", "references/x.md"]);

    // The app imports what was ticked in the preview, by location.
    let home2 = FsStorage::open(SkilldeckHome::new(tmp.path().join("home2"))).unwrap();
    let only = [import::ImportRequest {
        path: z.clone(),
        only: Some(vec!["repo/tools/gamma".into(), "gone".into()]),
        origin: None,
    }];
    let r = import::import_batch(&home2, Scope::User, &only, UploadLimits::default(), &mut |_| {}).unwrap();
    assert_eq!(r.items.len(), 1);
    assert_eq!(r.errors.len(), 1, "a location no longer there is said");
    assert_eq!(home2.list_skills_sync(Scope::User).unwrap(), vec!["gamma"]);

    // A path with no skill at all, and one that is missing, are errors of their own.
    let empty = tmp.path().join("empty");
    fs::create_dir_all(empty.join("docs")).unwrap();
    let r = import::import_batch(
        &home2,
        Scope::User,
        &[import::ImportRequest::all(&empty), import::ImportRequest::all(tmp.path().join("missing"))],
        UploadLimits::default(),
        &mut |_| {},
    )
    .unwrap();
    let codes: Vec<&str> = r.errors.iter().map(|e| e.error.code.as_str()).collect();
    assert_eq!(codes, vec!["skill_md_missing", "source_not_found"]);
}

#[test]
fn discover_reads_each_skill_of_a_folder_and_keeps_single_skills_as_before() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("c");
    put_skill(&src, "skills/one", "name: one\ndescription: d\n");
    put_skill(&src, "skills/two", "description: d\n");
    let d = import::discover(&src, UploadLimits::default()).unwrap();
    assert_eq!(d.layout, import::Layout::Collection);
    let names: Vec<(&str, &str)> =
        d.skills.iter().map(|f| (f.location.as_str(), f.result.as_ref().unwrap().name.as_str())).collect();
    assert_eq!(names, vec![("skills/one", "one"), ("skills/two", "two")]);
    let one = import::discover(&src.join("skills/one"), UploadLimits::default()).unwrap();
    assert_eq!((one.layout, one.skills.len(), one.skills[0].location.as_str()), (import::Layout::Skill, 1, "."));
}

#[test]
fn a_source_import_records_each_skills_provenance_and_identical_content_makes_no_revision() {
    use skilldeck_skill::provenance::{Provenance, SourceKind};
    use skilldeck_store::storage::RevisionEvent;
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("fetched");
    put_skill(&src, "skills/pdf", "name: pdf\ndescription: d\n");
    put_skill(&src, "skills/docx", "name: docx\ndescription: d\n");
    let storage = FsStorage::open(SkilldeckHome::new(tmp.path().join("home"))).unwrap();
    let origin = Provenance {
        kind: SourceKind::Git,
        given: "anthropics/skills".into(),
        url: "https://github.com/anthropics/skills.git".into(),
        reference: None,
        pinned: false,
        resolved: "9d2f1ae0123456789abcdef0123456789abcdef0".into(),
        path: ".".into(),
    };
    let request = [import::ImportRequest {
        path: src.clone(),
        only: Some(vec!["skills/pdf".into()]),
        origin: Some(origin.clone()),
    }];
    let r = import::import_batch(&storage, Scope::User, &request, UploadLimits::default(), &mut |_| {}).unwrap();
    assert_eq!(r.imported(), 1);
    let history = storage.history_sync(Scope::User, &SkillName::parse("pdf").unwrap()).unwrap();
    assert_eq!(history.len(), 1);
    assert_eq!(history[0].event, RevisionEvent::Sourced { source: origin.below("skills/pdf") });
    let RevisionEvent::Sourced { source } = &history[0].event else { unreachable!() };
    assert_eq!(source.short(), "github.com/anthropics/skills@9d2f1ae, skills/pdf");

    // The same content again is no new revision, and a plain import is still an upload.
    let r = import::import_batch(&storage, Scope::User, &request, UploadLimits::default(), &mut |_| {}).unwrap();
    assert_eq!(r.unchanged(), 1);
    let plain = [import::ImportRequest::all(src.join("skills/docx"))];
    import::import_batch(&storage, Scope::User, &plain, UploadLimits::default(), &mut |_| {}).unwrap();
    let docx = storage.history_sync(Scope::User, &SkillName::parse("docx").unwrap()).unwrap();
    assert_eq!(docx[0].event, RevisionEvent::Upload);
}
