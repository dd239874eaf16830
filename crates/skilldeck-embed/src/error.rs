//! What can go wrong loading or running the model, each saying what to do about it.

use std::path::PathBuf;

/// How to get a working model folder, appended to the errors about a missing or damaged one.
const FIX: &str = "run ./scripts/setup (a checkout) or `skilldeck model install PATH` to install the model again";

/// An error from loading or running the embedding model.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// The model folder or its model file is not there.
    #[error("the embedding model is missing: {path} does not exist; {FIX}")]
    Missing {
        /// The folder or file that was looked for.
        path: PathBuf,
    },
    /// The model file could not be read (permissions, I/O).
    #[error("could not read the embedding model {path}: {source}; check the file's permissions, or {FIX}")]
    Io {
        /// The file being read.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// The file does not start with the E5S1 magic: it is not an E5S1 model file.
    #[error("{path} is not an E5S1 embedding model (its first bytes are not `E5S1`); {FIX}")]
    BadMagic {
        /// The model file.
        path: PathBuf,
    },
    /// The file ends before the data its own header announces: a partial download or copy.
    #[error("the embedding model {path} is truncated ({what} runs past the end of the file); {FIX}")]
    Truncated {
        /// The model file.
        path: PathBuf,
        /// The part that did not fit.
        what: String,
    },
    /// The file's header or tables hold values this engine does not support or that contradict
    /// each other.
    #[error("the embedding model {path} is damaged or of an unsupported kind: {what}; {FIX}")]
    Corrupt {
        /// The model file.
        path: PathBuf,
        /// What was wrong.
        what: String,
    },
    /// The file's SHA-256 is not the one expected for this model.
    #[error(
        "the embedding model {path} has sha256 {actual}, expected {expected}: it is damaged or another file; {FIX}"
    )]
    Checksum {
        /// The model file.
        path: PathBuf,
        /// The expected digest (hex).
        expected: String,
        /// The digest of the file as read (hex).
        actual: String,
    },
    /// The model could not be run on this input (a shape the weights do not fit, a token
    /// outside the vocabulary), or an export could not be written.
    #[error("the embedding model failed while computing: {0}")]
    Compute(String),
}
