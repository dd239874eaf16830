//! `Sha256Digest`: the SHA-256 of an artifact's raw bytes, written `sha256:` and 64 lowercase hex
//! characters as the discovery index writes it. Holds computing, parsing and showing one; no I/O.

use sha2::{Digest as _, Sha256};
use std::fmt;

/// A SHA-256 digest as `sha256:` followed by 64 lowercase hexadecimal characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(transparent)]
pub struct Sha256Digest(String);

/// A digest that is not `sha256:` followed by 64 hexadecimal characters.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{found:?} is not a digest of the form `sha256:` followed by 64 hexadecimal characters")]
pub struct DigestFormatError {
    /// What was found, cut to 100 characters.
    pub found: String,
}

impl Sha256Digest {
    /// The digest of `bytes`.
    pub fn of(bytes: &[u8]) -> Self {
        let hash = Sha256::digest(bytes);
        let mut text = String::with_capacity(7 + 64);
        text.push_str("sha256:");
        for b in hash {
            text.push(hex_digit(b >> 4));
            text.push(hex_digit(b & 0x0f));
        }
        Self(text)
    }

    /// Reads `sha256:<64 hex>`. Upper-case hex digits are taken and written in lower case (the
    /// spec writes lower case; the value is the same); any other algorithm is refused, since a
    /// digest this client cannot check would let unverified content through.
    pub fn parse(text: &str) -> Result<Self, DigestFormatError> {
        let refused = || DigestFormatError { found: text.chars().take(100).collect() };
        let hex = text.strip_prefix("sha256:").ok_or_else(refused)?;
        if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(refused());
        }
        Ok(Self(format!("sha256:{}", hex.to_ascii_lowercase())))
    }

    /// The digest as written: `sha256:` and 64 lowercase hex characters.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Sha256Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn hex_digit(nibble: u8) -> char {
    char::from(b"0123456789abcdef"[usize::from(nibble & 0x0f)])
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]
    use super::*;

    #[test]
    fn digest_of_known_bytes() {
        // The spec's worked example: `# Hello\n`.
        assert_eq!(
            Sha256Digest::of(b"# Hello\n").as_str(),
            "sha256:90f8ec5669cd34183b9b0fdf8b94f5efb4c3672876330f4aa76088c2b4ad17be"
        );
    }

    #[test]
    fn parse_accepts_the_written_form_and_refuses_the_rest() {
        let hex = "90f8ec5669cd34183b9b0fdf8b94f5efb4c3672876330f4aa76088c2b4ad17be";
        let lower = format!("sha256:{hex}");
        assert_eq!(Sha256Digest::parse(&lower).unwrap().as_str(), lower);
        assert_eq!(Sha256Digest::parse(&format!("sha256:{}", hex.to_uppercase())).unwrap().as_str(), lower);
        for bad in
            ["", "sha256:", "sha256:abc", &format!("sha512:{hex}"), &format!("SHA256:{hex}"), &format!("{lower}0")]
        {
            assert!(Sha256Digest::parse(bad).is_err(), "{bad}");
        }
    }
}
