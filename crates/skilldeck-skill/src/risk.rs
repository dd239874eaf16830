//! What the audit found in a skill, as the catalogue carries it: how serious each finding is
//! and a summary of them. Holds the values, not the rules or the scanning (`skilldeck-audit`).

use serde::{Deserialize, Serialize};
use std::fmt;

/// How serious an audit finding is, from least to most.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum RiskLevel {
    /// Worth knowing; nothing to check.
    Info,
    /// Usually harmless; look when in doubt.
    Low,
    /// Read it before relying on the skill.
    Medium,
    /// Likely harmful unless the author meant it: held until the user approves (by default).
    High,
    /// An attack pattern with no innocent reading.
    Critical,
}

impl RiskLevel {
    /// Every level, least first.
    pub const ALL: [Self; 5] = [Self::Info, Self::Low, Self::Medium, Self::High, Self::Critical];

    /// `info`, `low`, `medium`, `high` or `critical`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Info => "info",
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
            Self::Critical => "critical",
        }
    }

    /// One level less serious (`info` stays `info`).
    pub fn one_lower(self) -> Self {
        match self {
            Self::Info | Self::Low => Self::Info,
            Self::Medium => Self::Low,
            Self::High => Self::Medium,
            Self::Critical => Self::High,
        }
    }

    /// The level named `s` (as [`RiskLevel::as_str`] writes it).
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.as_str() == s)
    }
}

impl fmt::Display for RiskLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One finding as the catalogue keeps it: enough to say why a skill is held and to match an
/// approval, not the evidence (which the audit gives again when asked).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RiskMark {
    /// The rule's id, e.g. `exec.download-pipe-ip`.
    pub rule: String,
    /// How serious it is.
    pub severity: RiskLevel,
    /// The file, relative to the skill's folder.
    pub file: String,
    /// The line, from 1, when the finding has one.
    pub line: Option<u32>,
    /// What an approval binds: the rule, the file and the evidence, hashed (the line is left
    /// out, so moving the same text down a file needs no new approval).
    pub fingerprint: String,
}

/// What the audit found in one skill: counts by level and the marks of the serious findings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RiskSummary {
    /// How many findings of each level, in [`RiskLevel::ALL`] order.
    pub counts: [u32; 5],
    /// The findings of level medium and above.
    pub marks: Vec<RiskMark>,
}

impl RiskSummary {
    /// The most serious level found, if any.
    pub fn worst(&self) -> Option<RiskLevel> {
        RiskLevel::ALL.into_iter().rev().find(|l| self.count(*l) > 0)
    }

    /// How many findings of `level`.
    pub fn count(&self, level: RiskLevel) -> u32 {
        self.counts[level as usize]
    }

    /// The marks at `level` or above.
    pub fn at_least(&self, level: RiskLevel) -> impl Iterator<Item = &RiskMark> {
        self.marks.iter().filter(move |m| m.severity >= level)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_order_and_read_back() {
        assert!(RiskLevel::Critical > RiskLevel::High && RiskLevel::Low > RiskLevel::Info);
        for l in RiskLevel::ALL {
            assert_eq!(RiskLevel::parse(l.as_str()), Some(l));
        }
        assert_eq!(RiskLevel::parse("severe"), None);
        let mut s = RiskSummary::default();
        assert_eq!(s.worst(), None);
        s.counts[RiskLevel::Low as usize] = 2;
        s.counts[RiskLevel::High as usize] = 1;
        assert_eq!(s.worst(), Some(RiskLevel::High));
    }
}
