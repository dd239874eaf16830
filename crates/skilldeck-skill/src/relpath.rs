//! `RelPath`: a relative path inside a skill or a workspace, validated once at the edge.
//! Holds the refusal rules (absolute, `..`, backslash, NUL, drive and UNC prefixes); no I/O.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

/// The longest relative path accepted, in bytes.
pub const MAX_REL_PATH_LEN: usize = 1024;

/// Why a path was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    /// The path is empty.
    #[error("the path is empty")]
    Empty,
    /// The path is absolute (`/x`, `C:\x`, `\\server\x`).
    #[error("the path is absolute")]
    Absolute,
    /// The path has a `..` component.
    #[error("the path climbs out with `..`")]
    ParentDir,
    /// The path holds a backslash.
    #[error("the path holds a backslash; use `/` between folders")]
    Backslash,
    /// The path holds a NUL byte or another control character.
    #[error("the path holds a control character")]
    ControlChar,
    /// The path has a drive prefix such as `C:`.
    #[error("the path starts with a drive prefix")]
    DrivePrefix,
    /// The path has an empty or `.` component (`a//b`, `./a`).
    #[error("the path has an empty or `.` component")]
    EmptyComponent,
    /// The path is too long.
    #[error("the path is longer than {MAX_REL_PATH_LEN} bytes")]
    TooLong,
    /// One name in the path is longer than file systems allow.
    #[error("a name in the path is longer than {MAX_NAME_LEN} bytes, more than file systems allow")]
    NameTooLong,
}

/// The longest file or folder name, in bytes (what Linux, macOS and Windows file systems take).
pub const MAX_NAME_LEN: usize = 255;

/// A normalized relative path with `/` separators and no `.`, `..` or empty parts.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct RelPath(String);

impl RelPath {
    /// Validates `s`. A trailing `/` is refused like any other empty component.
    pub fn parse(s: &str) -> Result<Self, PathError> {
        if s.is_empty() {
            return Err(PathError::Empty);
        }
        if s.len() > MAX_REL_PATH_LEN {
            return Err(PathError::TooLong);
        }
        if s.chars().any(|c| c.is_control()) {
            return Err(PathError::ControlChar);
        }
        if s.starts_with('/') {
            return Err(PathError::Absolute);
        }
        if s.contains('\\') {
            return Err(if s.starts_with("\\\\") { PathError::Absolute } else { PathError::Backslash });
        }
        let bytes = s.as_bytes();
        if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
            return Err(PathError::DrivePrefix);
        }
        for part in s.split('/') {
            match part {
                "" | "." => return Err(PathError::EmptyComponent),
                ".." => return Err(PathError::ParentDir),
                p if p.len() > MAX_NAME_LEN => return Err(PathError::NameTooLong),
                _ => {}
            }
        }
        Ok(Self(s.to_owned()))
    }

    /// Builds a `RelPath` from a path found by walking a folder (components joined with `/`).
    pub fn from_path(path: &Path) -> Result<Self, PathError> {
        let mut parts = Vec::new();
        for c in path.components() {
            match c {
                std::path::Component::Normal(os) => match os.to_str() {
                    Some(s) => parts.push(s),
                    None => return Err(PathError::ControlChar),
                },
                std::path::Component::ParentDir => return Err(PathError::ParentDir),
                std::path::Component::CurDir => return Err(PathError::EmptyComponent),
                std::path::Component::RootDir | std::path::Component::Prefix(_) => {
                    return Err(PathError::Absolute);
                }
            }
        }
        Self::parse(&parts.join("/"))
    }

    /// The path as text, `/`-separated.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// This path below `root`.
    pub fn under(&self, root: &Path) -> PathBuf {
        let mut p = root.to_path_buf();
        p.extend(self.0.split('/'));
        p
    }

    /// Whether this is the top-level `SKILL.md`.
    pub fn is_skill_md(&self) -> bool {
        self.0 == "SKILL.md"
    }

    /// The first component (`references` for `references/a.md`).
    pub fn first_component(&self) -> &str {
        self.0.split('/').next().unwrap_or(&self.0)
    }
}

impl fmt::Display for RelPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for RelPath {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::parse(&s).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(input: &str, expected: Result<&str, PathError>) {
        assert_eq!(RelPath::parse(input).as_ref().map(RelPath::as_str), expected.as_ref().map(|s| *s), "{input:?}");
    }

    #[test]
    fn refusals() {
        check("SKILL.md", Ok("SKILL.md"));
        check("references/a b.md", Ok("references/a b.md"));
        check("", Err(PathError::Empty));
        check("/etc/passwd", Err(PathError::Absolute));
        check("\\\\server\\share", Err(PathError::Absolute));
        check("a\\b", Err(PathError::Backslash));
        check("C:/x", Err(PathError::DrivePrefix));
        check("c:x", Err(PathError::DrivePrefix));
        check("../x", Err(PathError::ParentDir));
        check("a/../../x", Err(PathError::ParentDir));
        check("a//b", Err(PathError::EmptyComponent));
        check("./a", Err(PathError::EmptyComponent));
        check("a/", Err(PathError::EmptyComponent));
        check("a\0b", Err(PathError::ControlChar));
        check(&"a".repeat(2000), Err(PathError::TooLong));
    }
}
