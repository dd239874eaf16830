//! `SkillName`: a skill's validated name, the key of every store and listing.
//! Holds the character and length rules; not the frontmatter parsing around them.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The longest name a skill may have, in characters.
pub const MAX_NAME_LEN: usize = 64;

/// Why a string is not a valid skill name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// The name is empty.
    #[error("the name is empty")]
    Empty,
    /// The name is over 64 characters.
    #[error("the name is {0} characters long; the limit is 64")]
    TooLong(usize),
    /// The name holds a character other than `a-z`, `0-9`, `-`.
    #[error("the name holds {0:?}; only lowercase a-z, 0-9 and `-` are allowed")]
    BadChar(char),
    /// The name starts or ends with `-`.
    #[error("the name starts or ends with `-`")]
    EdgeHyphen,
    /// The name holds `--`.
    #[error("the name holds `--`")]
    DoubleHyphen,
}

/// A skill name that keeps the rules: 1–64 of `a-z0-9-`, no edge hyphen, no `--`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct SkillName(String);

impl SkillName {
    /// Checks `s` against the rules.
    pub fn parse(s: &str) -> Result<Self, NameError> {
        if s.is_empty() {
            return Err(NameError::Empty);
        }
        let len = s.chars().count();
        if len > MAX_NAME_LEN {
            return Err(NameError::TooLong(len));
        }
        if let Some(c) = s.chars().find(|c| !matches!(c, 'a'..='z' | '0'..='9' | '-')) {
            return Err(NameError::BadChar(c));
        }
        if s.starts_with('-') || s.ends_with('-') {
            return Err(NameError::EdgeHyphen);
        }
        if s.contains("--") {
            return Err(NameError::DoubleHyphen);
        }
        Ok(Self(s.to_owned()))
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SkillName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::str::FromStr for SkillName {
    type Err = NameError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl<'de> Deserialize<'de> for SkillName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::parse(&s).map_err(serde::de::Error::custom)
    }
}

impl AsRef<str> for SkillName {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// The candidates close to `wanted`, best first (at most three): a typo away, or one holding
/// the other.
pub fn suggestions<'a>(wanted: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut scored: Vec<(usize, &str)> = candidates
        .into_iter()
        .filter_map(|c| {
            let d = strsim::levenshtein(wanted, c);
            let close =
                d <= 2.max(wanted.len() / 4) || (wanted.len() >= 3 && (c.contains(wanted) || wanted.contains(c)));
            close.then_some((d, c))
        })
        .collect();
    scored.sort();
    scored.dedup_by_key(|(_, c)| *c);
    scored.into_iter().take(3).map(|(_, c)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(input: &str, expected: Result<(), NameError>) {
        assert_eq!(SkillName::parse(input).map(|_| ()), expected, "{input:?}");
    }

    #[test]
    fn rules() {
        check("pdf", Ok(()));
        check("market-research-2", Ok(()));
        check(&"a".repeat(64), Ok(()));
        check("", Err(NameError::Empty));
        check(&"a".repeat(65), Err(NameError::TooLong(65)));
        check("PDF", Err(NameError::BadChar('P')));
        check("my_skill", Err(NameError::BadChar('_')));
        check("技能", Err(NameError::BadChar('技')));
        check("-pdf", Err(NameError::EdgeHyphen));
        check("pdf-", Err(NameError::EdgeHyphen));
        check("a--b", Err(NameError::DoubleHyphen));
        check("../x", Err(NameError::BadChar('.')));
    }

    #[test]
    fn suggests_close_names() {
        let names = ["pdf", "pdf-tools", "market-research", "docx"];
        assert_eq!(suggestions("pfd", names), vec!["pdf"]);
        assert_eq!(suggestions("market", names), vec!["market-research"]);
        assert_eq!(suggestions("zzzzzz", names), Vec::<&str>::new());
    }
}
