//! `Digest`: the SHA-256 content digest of one revision of a skill.
//! Holds the hashing rule and its display; not where digests are stored.

use crate::relpath::RelPath;
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};
use std::fmt;

/// SHA-256 over a skill's sorted `(path, bytes)` pairs.
///
/// Each pair is hashed as the UTF-8 path, a NUL byte, the content length as 8 little-endian
/// bytes, then the content; so no two different trees hash the same input. `.version` is
/// never part of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Digest([u8; 32]);

impl Digest {
    /// Hashes pairs; they must come sorted by path (as `SkillFiles` and `BTreeMap` give them).
    pub fn of<'a>(pairs: impl IntoIterator<Item = (&'a RelPath, &'a [u8])>) -> Self {
        let mut h = Sha256::new();
        for (path, bytes) in pairs {
            h.update(path.as_str().as_bytes());
            h.update([0u8]);
            h.update((bytes.len() as u64).to_le_bytes());
            h.update(bytes);
        }
        Self(h.finalize().into())
    }

    /// The 32 bytes of the hash.
    pub fn bytes(&self) -> [u8; 32] {
        self.0
    }

    /// The digest with these 32 bytes (as `bytes` gave them).
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        Self(bytes)
    }

    /// All 64 hex digits.
    pub fn to_hex(&self) -> String {
        use fmt::Write as _;
        self.0.iter().fold(String::with_capacity(64), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
    }

    /// The short form shown to people: `sha256:` and 12 hex digits.
    pub fn short(&self) -> String {
        format!("sha256:{}", &self.to_hex()[..12])
    }

    /// Parses `sha256:<64 hex>` (the long form written to history logs).
    pub fn parse_long(s: &str) -> Option<Self> {
        let hex = s.strip_prefix("sha256:")?;
        if hex.len() != 64 {
            return None;
        }
        let mut out = [0u8; 32];
        for (i, b) in out.iter_mut().enumerate() {
            *b = u8::from_str_radix(hex.get(i * 2..i * 2 + 2)?, 16).ok()?;
        }
        Some(Self(out))
    }

    /// `sha256:<64 hex>`.
    pub fn long(&self) -> String {
        format!("sha256:{}", self.to_hex())
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.short())
    }
}

/// In TypeScript a digest is its JSON form, the `sha256:<64 hex digits>` string.
impl ts_rs::TS for Digest {
    type WithoutGenerics = Self;
    type OptionInnerType = Self;
    fn name(_: &ts_rs::Config) -> String {
        "string".to_owned()
    }
    fn inline(cfg: &ts_rs::Config) -> String {
        <Self as ts_rs::TS>::name(cfg)
    }
}

impl Serialize for Digest {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.long())
    }
}

impl<'de> Deserialize<'de> for Digest {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::parse_long(&s).ok_or_else(|| serde::de::Error::custom("expected sha256:<64 hex digits>"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stable_and_order_sensitive() {
        let a = RelPath::parse("SKILL.md").unwrap();
        let b = RelPath::parse("x").unwrap();
        let d1 = Digest::of([(&a, b"hi".as_slice()), (&b, b"".as_slice())]);
        let d2 = Digest::of([(&a, b"h".as_slice()), (&b, b"i".as_slice())]);
        assert_ne!(d1, d2);
        assert_eq!(Digest::parse_long(&d1.long()), Some(d1));
        assert_eq!(d1.short().len(), "sha256:".len() + 12);
        assert_eq!(Digest::of([]).to_hex(), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }
}
