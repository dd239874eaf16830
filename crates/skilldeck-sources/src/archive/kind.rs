//! `ArchiveKind`: `.tar.gz` or `.zip`, told from a file name, a `Content-Type` or the bytes.
//! Holds the naming and sniffing; no reading of entries.

use std::fmt;

/// The archive formats a skill comes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArchiveKind {
    /// A gzip-compressed tar (`.tar.gz`, `.tgz`).
    TarGz,
    /// A zip (`.zip`, and `.skill`, which is a zip).
    Zip,
}

impl ArchiveKind {
    /// The kind a file name (or a URL's path) names: `.tar.gz`, `.tgz`, `.zip`, `.skill`, in
    /// any case.
    pub fn from_file_name(name: &str) -> Option<Self> {
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".tar.gz") || lower.ends_with(".tgz") {
            Some(Self::TarGz)
        } else if lower.ends_with(".zip") || lower.ends_with(".skill") {
            Some(Self::Zip)
        } else {
            None
        }
    }

    /// The kind a `Content-Type` (without parameters) names; `None` for a generic one such as
    /// `application/octet-stream`.
    pub fn from_content_type(content_type: &str) -> Option<Self> {
        match content_type.trim().to_ascii_lowercase().as_str() {
            "application/gzip"
            | "application/x-gzip"
            | "application/x-gtar"
            | "application/x-tgz"
            | "application/x-compressed-tar"
            | "application/tar+gzip" => Some(Self::TarGz),
            "application/zip" | "application/x-zip" | "application/x-zip-compressed" => Some(Self::Zip),
            _ => None,
        }
    }

    /// The kind the bytes are, by their magic numbers: gzip's `1f 8b`, zip's `PK\x03\x04` (or
    /// `PK\x05\x06` for an empty zip).
    pub fn sniff(bytes: &[u8]) -> Option<Self> {
        if bytes.starts_with(&[0x1f, 0x8b]) {
            Some(Self::TarGz)
        } else if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
            Some(Self::Zip)
        } else {
            None
        }
    }

    /// The kind of a downloaded archive. The discovery spec says to go by the `Content-Type`,
    /// then by the URL's extension; both formats also carry unambiguous magic numbers, and the
    /// bytes are what is unpacked, so the bytes decide first and the header and the name only
    /// when the bytes are neither (then reading fails with a clear error).
    pub fn detect(bytes: &[u8], content_type: Option<&str>, file_name: &str) -> Option<Self> {
        Self::sniff(bytes)
            .or_else(|| content_type.and_then(Self::from_content_type))
            .or_else(|| Self::from_file_name(file_name))
    }
}

impl fmt::Display for ArchiveKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::TarGz => ".tar.gz",
            Self::Zip => ".zip",
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]
    use super::*;

    #[test]
    fn kinds_from_names_types_and_bytes() {
        let names = [
            ("a.tar.gz", Some(ArchiveKind::TarGz)),
            ("A.TGZ", Some(ArchiveKind::TarGz)),
            ("x.zip", Some(ArchiveKind::Zip)),
            ("pdf.skill", Some(ArchiveKind::Zip)),
            ("SKILL.md", None),
            ("x.tar", None),
        ];
        for (name, expected) in names {
            assert_eq!(ArchiveKind::from_file_name(name), expected, "{name}");
        }
        assert_eq!(ArchiveKind::from_content_type("application/gzip"), Some(ArchiveKind::TarGz));
        assert_eq!(ArchiveKind::from_content_type("application/zip"), Some(ArchiveKind::Zip));
        assert_eq!(ArchiveKind::from_content_type("application/octet-stream"), None);
        assert_eq!(ArchiveKind::detect(b"PK\x03\x04rest", Some("application/gzip"), "a.tgz"), Some(ArchiveKind::Zip));
        assert_eq!(ArchiveKind::detect(b"????", Some("application/gzip"), "a.zip"), Some(ArchiveKind::TarGz));
        assert_eq!(ArchiveKind::detect(b"????", Some("application/octet-stream"), "a.zip"), Some(ArchiveKind::Zip));
        assert_eq!(ArchiveKind::detect(b"????", None, "a"), None);
    }
}
