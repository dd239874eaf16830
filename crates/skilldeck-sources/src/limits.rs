//! Each skill of a fetched source held to the limits of one skill: the files of the tree summed
//! by the skill they belong to (the deepest skill folder above them, as a nested skill's files are
//! its own and not the outer one's), against the most a skill may hold, its largest file and how
//! many files. Holds the check and what it says a skill would need; fetching, discovery and where
//! the limits come from are elsewhere.

use crate::bytes::{shown, written};
use crate::config::MAX_SKILL_BYTES;
use skilldeck_skill::UploadLimits;
use std::collections::{BTreeMap, HashSet};

/// Why one skill is over the limits of a skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Oversize {
    /// One file is over the limit a file, which no setting raises: the store keeps no bigger file.
    File {
        /// The file, relative to the skill's folder.
        path: String,
        /// Its size in bytes.
        size: u64,
        /// The limit a file.
        limit: u64,
    },
    /// It holds more files than one skill may.
    Files {
        /// How many it holds.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// All its files together are over the limit a skill (`[sources] max_skill_bytes`).
    Total {
        /// Their size in bytes.
        bytes: u64,
        /// How many files.
        files: usize,
        /// The limit a skill.
        limit: u64,
        /// Its largest file, relative to the skill's folder, and its size.
        largest: (String, u64),
    },
}

impl Oversize {
    /// A stable code for scripts: `skill_file_too_big`, `skill_too_many_files`, `skill_too_big`.
    pub fn code(&self) -> &'static str {
        match self {
            Self::File { .. } => "skill_file_too_big",
            Self::Files { .. } => "skill_too_many_files",
            Self::Total { .. } => "skill_too_big",
        }
    }

    /// What is over which limit, with the sizes.
    pub fn what(&self) -> String {
        match self {
            Self::File { path, size, limit } => {
                format!("its file {path} is {}, over the limit of {} a file", shown(*size), shown(*limit))
            }
            Self::Files { count, limit } => format!("it holds {count} files, over the limit of {limit} a skill"),
            Self::Total { bytes, files, limit, .. } => {
                format!("its {files} files come to {}, over the limit of {} a skill", shown(*bytes), shown(*limit))
            }
        }
    }

    /// What would let it in: the setting to raise (when one can be), else what to take out.
    pub fn fix(&self) -> String {
        let cap = UploadLimits::default().max_total_bytes;
        match self {
            Self::File { path, limit, .. } => format!(
                "Skilldeck keeps no file over {}, so it comes in once {path} is taken out of it (upstream, or in a fork you add instead)",
                shown(*limit)
            ),
            Self::Files { limit, .. } => format!(
                "Skilldeck keeps at most {limit} files of one skill, so it comes in once some are taken out of it (upstream, or in a fork you add instead)"
            ),
            Self::Total { bytes, limit, largest: (path, size), .. } if *bytes <= cap => format!(
                "Raise `{MAX_SKILL_BYTES}` under [sources] in config.toml to at least {} (it is {} now; at most {}), or take its largest file, {path} ({}), out of it",
                written(*bytes),
                shown(*limit),
                written(cap),
                shown(*size)
            ),
            Self::Total { largest: (path, size), .. } => format!(
                "Skilldeck keeps at most {} of one skill, so it comes in once files are taken out of it (the largest: {path}, {})",
                shown(cap),
                shown(*size)
            ),
        }
    }
}

/// The skills at `skills` (folders of the tree, `/`-separated, `.` for its top) that are over
/// `limits`, each with why, in the order of `skills`; `sizes` is every file of the tree with its
/// size (a file in no skill's folder counts for none).
pub fn oversized(skills: &[&str], sizes: &[(String, u64)], limits: &UploadLimits) -> Vec<(String, Oversize)> {
    let known: HashSet<&str> = skills.iter().copied().collect();
    let mut held: BTreeMap<&str, Vec<(&str, u64)>> = BTreeMap::new();
    for (path, size) in sizes {
        if let Some(skill) = owner(path, &known) {
            held.entry(skill).or_default().push((path, *size));
        }
    }
    let mut out = Vec::new();
    for skill in skills {
        let Some(files) = held.get(skill) else { continue };
        let inside = |path: &str| path.strip_prefix(skill).and_then(|p| p.strip_prefix('/')).unwrap_or(path).to_owned();
        let largest = files.iter().max_by_key(|(path, size)| (*size, std::cmp::Reverse(*path))).copied();
        let bytes = files.iter().fold(0u64, |sum, (_, size)| sum.saturating_add(*size));
        let over = match largest {
            Some((path, size)) if size > limits.max_file_bytes => {
                Some(Oversize::File { path: inside(path), size, limit: limits.max_file_bytes })
            }
            _ if files.len() > limits.max_files => {
                Some(Oversize::Files { count: files.len(), limit: limits.max_files })
            }
            Some((path, size)) if bytes > limits.max_total_bytes => Some(Oversize::Total {
                bytes,
                files: files.len(),
                limit: limits.max_total_bytes,
                largest: (inside(path), size),
            }),
            _ => None,
        };
        out.extend(over.map(|o| ((*skill).to_owned(), o)));
    }
    out
}

/// The deepest of `skills` whose folder holds `path`.
fn owner<'a>(path: &str, skills: &HashSet<&'a str>) -> Option<&'a str> {
    let mut dir = path;
    while let Some((parent, _)) = dir.rsplit_once('/') {
        if let Some(found) = skills.get(parent) {
            return Some(found);
        }
        dir = parent;
    }
    skills.get(".").copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_file_counts_for_the_deepest_skill_holding_it() {
        let limits = UploadLimits { max_file_bytes: 100, max_total_bytes: 150, max_files: 3 };
        let sizes: Vec<(String, u64)> = [
            ("README.md", 1000),
            ("SKILL.md", 10),
            ("skills/fine/SKILL.md", 10),
            ("skills/fine/a.md", 100),
            ("skills/wide/SKILL.md", 10),
            ("skills/wide/a", 1),
            ("skills/wide/b", 1),
            ("skills/wide/c", 1),
            ("skills/heavy/SKILL.md", 10),
            ("skills/heavy/refs/a.md", 90),
            ("skills/heavy/refs/b.md", 90),
            ("skills/huge/SKILL.md", 10),
            ("skills/huge/blob.bin", 101),
            ("skills/heavy/inner/SKILL.md", 10),
            ("skills/heavy/inner/x.bin", 100),
        ]
        .into_iter()
        .map(|(p, s)| (p.to_owned(), s))
        .collect();
        let skills = [".", "skills/fine", "skills/wide", "skills/heavy", "skills/huge", "skills/heavy/inner"];
        let over = oversized(&skills, &sizes, &limits);
        assert_eq!(
            over,
            [
                // The top holds README.md; the skills below it hold their own files.
                (".".to_owned(), Oversize::File { path: "README.md".into(), size: 1000, limit: 100 }),
                ("skills/wide".to_owned(), Oversize::Files { count: 4, limit: 3 }),
                (
                    "skills/heavy".to_owned(),
                    Oversize::Total { bytes: 190, files: 3, limit: 150, largest: ("refs/a.md".into(), 90) }
                ),
                ("skills/huge".to_owned(), Oversize::File { path: "blob.bin".into(), size: 101, limit: 100 }),
            ]
        );
        let heavy = &over[2].1;
        assert_eq!(heavy.code(), "skill_too_big");
        assert_eq!(heavy.what(), "its 3 files come to 190 bytes, over the limit of 150 bytes a skill");
        assert!(heavy.fix().starts_with("Raise `max_skill_bytes` under [sources] in config.toml to at least 190"));
        assert!(heavy.fix().ends_with("take its largest file, refs/a.md (90 bytes), out of it"), "{}", heavy.fix());
        let beyond = Oversize::Total { bytes: 300 << 20, files: 2, limit: 256 << 20, largest: ("x".into(), 200 << 20) };
        assert!(beyond.fix().starts_with("Skilldeck keeps at most 256.0 MiB of one skill"), "{}", beyond.fix());
        assert!(over[3].1.fix().contains("once blob.bin is taken out of it"), "{}", over[3].1.fix());
    }
}
