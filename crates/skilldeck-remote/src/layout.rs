//! Where things live in the bucket: blob keys, manifest keys, and parsing them back.
//! Holds the key scheme of docs/guide/team-store.md; not the requests.

use object_store::path::Path;

/// Digits of a revision in a manifest key, so a LIST returns revisions in order.
pub const REV_DIGITS: usize = 10;

/// The highest revision a manifest key can hold (`9999999999`, ten digits). A key with more
/// digits is no manifest of this store: no client lists it, so nothing may ever write one.
pub const MAX_REVISION: u64 = 9_999_999_999;

/// The key scheme under one prefix.
#[derive(Debug, Clone)]
pub struct Layout {
    prefix: String,
}

impl Layout {
    /// Keys under `prefix` (no leading or trailing `/`; empty for the root).
    pub fn new(prefix: &str) -> Self {
        Self { prefix: prefix.to_owned() }
    }

    fn key(&self, rest: &str) -> Path {
        if self.prefix.is_empty() { Path::from(rest) } else { Path::from(format!("{}/{rest}", self.prefix)) }
    }

    /// `<prefix>/blobs/sha256/<hex>`.
    pub fn blob(&self, hex: &str) -> Path {
        self.key(&format!("blobs/sha256/{hex}"))
    }

    /// `<prefix>/blobs/sha256/`: every blob.
    pub fn blobs(&self) -> Path {
        self.key("blobs/sha256")
    }

    /// `<prefix>/skills/`: every manifest.
    pub fn skills(&self) -> Path {
        self.key("skills")
    }

    /// `<prefix>/skills/<name>/rev/`: one skill's manifests.
    pub fn revisions(&self, name: &str) -> Path {
        self.key(&format!("skills/{name}/rev"))
    }

    /// `<prefix>/skills/<name>/rev/<rev>.json`. Only a `rev` from 1 to `MAX_REVISION` makes
    /// a key `parse_manifest` reads back; writers check that first (`store::check_revision`).
    pub fn manifest(&self, name: &str, rev: u64) -> Path {
        self.key(&format!("skills/{name}/rev/{rev:0width$}.json", width = REV_DIGITS))
    }

    /// The skill and revision a manifest key names; `None` for anything else, including a
    /// revision of other than `REV_DIGITS` digits (or 0): the same keys `manifest` writes.
    pub fn parse_manifest(&self, key: &Path) -> Option<(String, u64)> {
        let key = key.as_ref();
        let rest = if self.prefix.is_empty() { key } else { key.strip_prefix(&self.prefix)?.strip_prefix('/')? };
        let rest = rest.strip_prefix("skills/")?;
        let (name, file) = rest.split_once("/rev/")?;
        let digits = file.strip_suffix(".json")?;
        // The name becomes a folder in the local cache: anything but a valid skill name (`..`,
        // a hidden name, a separator) is not a skill of this store, whoever wrote the key.
        if digits.len() != REV_DIGITS
            || !digits.bytes().all(|b| b.is_ascii_digit())
            || skilldeck_skill::SkillName::parse(name).is_err()
        {
            return None;
        }
        let rev: u64 = digits.parse().ok()?;
        (1..=MAX_REVISION).contains(&rev).then(|| (name.to_owned(), rev))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip() {
        for prefix in ["", "team/a"] {
            let l = Layout::new(prefix);
            let k = l.manifest("pdf", 42);
            assert!(k.as_ref().ends_with("skills/pdf/rev/0000000042.json"), "{k}");
            assert_eq!(l.parse_manifest(&k), Some(("pdf".to_owned(), 42)));
            assert_eq!(l.parse_manifest(&l.blob("ab")), None);
        }
        assert_eq!(Layout::new("p").parse_manifest(&Path::from("q/skills/x/rev/0000000001.json")), None);
    }

    #[test]
    fn only_the_revisions_a_key_can_hold_parse() {
        let l = Layout::new("");
        let top = l.manifest("pdf", MAX_REVISION);
        assert_eq!(top.as_ref(), "skills/pdf/rev/9999999999.json");
        assert_eq!(l.parse_manifest(&top), Some(("pdf".to_owned(), MAX_REVISION)));
        for bad in ["10000000000", "0000000000", "000000001", "+000000001"] {
            assert_eq!(l.parse_manifest(&Path::from(format!("skills/pdf/rev/{bad}.json"))), None, "{bad}");
        }
    }

    #[test]
    fn a_key_whose_name_is_no_skill_name_is_not_a_manifest() {
        let l = Layout::new("");
        for name in ["..", ".hidden", "Bad Name", "a\\b"] {
            let key = Path::from_iter(["skills", name, "rev", "0000000001.json"]);
            assert_eq!(l.parse_manifest(&key), None, "{name}");
        }
        assert_eq!(
            l.parse_manifest(&Path::from("skills/good-name/rev/0000000001.json")),
            Some(("good-name".to_owned(), 1))
        );
    }
}
