//! A missing or damaged model folder gives the typed error that says what to do, never a panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use crate::common;

use std::io::Write;

use common::model_dir;
use skilldeck_embed::{DEFAULT_MODEL_ID, EmbedError, Embedder, MODEL_FILE, locate, verify};

fn load_err(dir: &std::path::Path) -> EmbedError {
    match Embedder::load(dir) {
        Ok(_) => panic!("loading {} should fail", dir.display()),
        Err(e) => e,
    }
}

#[test]
fn a_missing_folder_or_file_is_missing() {
    let tmp = tempfile::tempdir().unwrap();
    let gone = tmp.path().join("nowhere");
    let e = load_err(&gone);
    assert!(matches!(&e, EmbedError::Missing { path } if *path == gone), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains("nowhere") && msg.contains("./scripts/setup") && msg.contains("skilldeck model install"),
        "{msg}"
    );
    let e = load_err(tmp.path());
    assert!(matches!(&e, EmbedError::Missing { path } if path.ends_with(MODEL_FILE)), "{e:?}");
}

#[test]
fn a_file_with_the_wrong_magic_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join(MODEL_FILE), b"GGUF\x03\x00\x00\x00 and then some more bytes").unwrap();
    let e = load_err(tmp.path());
    assert!(matches!(e, EmbedError::BadMagic { .. }), "{e:?}");
    assert!(e.to_string().contains("not an E5S1"), "{e}");
    std::fs::write(tmp.path().join(MODEL_FILE), b"E5").unwrap();
    assert!(matches!(load_err(tmp.path()), EmbedError::BadMagic { .. }));
}

/// The real file cut at `len` bytes.
fn truncated_copy(len: u64) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let src = std::fs::File::open(model_dir().join(MODEL_FILE)).unwrap();
    let mut head = Vec::new();
    std::io::Read::read_to_end(&mut std::io::Read::take(src, len), &mut head).unwrap();
    std::fs::File::create(tmp.path().join(MODEL_FILE)).unwrap().write_all(&head).unwrap();
    tmp
}

#[test]
fn a_truncated_file_is_truncated_wherever_it_stops() {
    let full = std::fs::metadata(model_dir().join(MODEL_FILE)).unwrap().len();
    // In the header, in the vocabulary, and in the tensors (a partial download).
    for len in [20, 1_000_000, full / 2, full - 1] {
        let tmp = truncated_copy(len);
        let e = load_err(tmp.path());
        assert!(matches!(e, EmbedError::Truncated { .. }), "cut at {len}: {e:?}");
        assert!(e.to_string().contains("truncated"), "{e}");
    }
}

#[test]
fn verify_checks_the_digest() {
    verify(&model_dir()).unwrap();
    let tmp = truncated_copy(4096);
    let e = verify(tmp.path()).unwrap_err();
    assert!(matches!(e, EmbedError::Checksum { .. }), "{e:?}");
    assert!(e.to_string().contains(skilldeck_embed::MODEL_SHA256), "{e}");
}

#[test]
fn locate_prefers_the_home_folder_then_the_shipped_one() {
    let home = tempfile::tempdir().unwrap();
    let shipped = tempfile::tempdir().unwrap();
    assert_eq!(locate(home.path(), None), None);
    assert_eq!(locate(home.path(), Some(shipped.path())), None);
    std::fs::write(shipped.path().join(MODEL_FILE), b"x").unwrap();
    assert_eq!(locate(home.path(), Some(shipped.path())).as_deref(), Some(shipped.path()));
    let mine = home.path().join("models").join(DEFAULT_MODEL_ID);
    std::fs::create_dir_all(&mine).unwrap();
    assert_eq!(
        locate(home.path(), Some(shipped.path())).as_deref(),
        Some(shipped.path()),
        "an empty folder does not count"
    );
    std::fs::write(mine.join(MODEL_FILE), b"x").unwrap();
    assert_eq!(locate(home.path(), Some(shipped.path())), Some(mine));
}
