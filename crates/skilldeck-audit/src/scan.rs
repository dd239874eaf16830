//! The engine: each file read once, every pattern rule tried in one pass of a compiled set
//! over its bytes, then the hand-written checks. Holds the order of work and the bounds (what
//! is read of a file, how many findings a rule may give in one file); the rules are `rules`.

use crate::checks;
use crate::finding::{Finding, Report};
use crate::rules::{Also, Check, Matcher, Place, RULES, Rule};
use crate::text::{FileText, Kind, Regions};
use regex::bytes::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};
use std::collections::HashSet;
use std::sync::OnceLock;

/// How much of one file is read: 4 MiB. The rest is a finding (`audit.truncated`).
pub const DEFAULT_CAP: usize = 4 << 20;

/// How many findings one rule gives in one file; past it the rest would say nothing new.
const PER_RULE_PER_FILE: usize = 10;

/// The pattern rules compiled: a set for a first pass and each rule's own for positions.
struct Compiled {
    /// Every pattern rule (for Markdown, which has every place).
    all: RegexSet,
    /// The indexes into `RULES` of `all`'s patterns.
    all_rules: Vec<usize>,
    /// The pattern rules that look outside instructions (for scripts and data).
    commands: RegexSet,
    /// The indexes into `RULES` of `commands`' patterns.
    commands_rules: Vec<usize>,
    /// Each pattern rule's regex, by index into `RULES`.
    each: Vec<Option<Regex>>,
}

/// The set's lazy DFA may grow to 64 MiB per thread: at 16 MiB it rebuilt its states over and
/// over on real skills (half the audit's time went to determinizing); at 64 MiB the audit of
/// 2,000 public skills took 3.8 s instead of 6.2 s on one core.
fn build(patterns: &[&str]) -> Option<RegexSet> {
    RegexSetBuilder::new(patterns).unicode(false).size_limit(64 << 20).dfa_size_limit(64 << 20).build().ok()
}

fn compiled() -> Option<&'static Compiled> {
    static C: OnceLock<Option<Compiled>> = OnceLock::new();
    C.get_or_init(|| {
        let pattern = |r: &Rule| match r.matcher {
            Matcher::Pattern(p) => Some(p),
            Matcher::Check(_) => None,
        };
        let each: Vec<Option<Regex>> = RULES
            .iter()
            .map(|r| pattern(r).and_then(|p| RegexBuilder::new(p).unicode(false).size_limit(16 << 20).build().ok()))
            .collect();
        let all_rules: Vec<usize> = (0..RULES.len()).filter(|i| each[*i].is_some()).collect();
        let commands_rules: Vec<usize> =
            all_rules.iter().copied().filter(|i| RULES[*i].place != Place::Instructions).collect();
        let patterns = |idx: &[usize]| idx.iter().filter_map(|i| pattern(&RULES[*i])).collect::<Vec<_>>();
        Some(Compiled {
            all: build(&patterns(&all_rules))?,
            commands: build(&patterns(&commands_rules))?,
            all_rules,
            commands_rules,
            each,
        })
    })
    .as_ref()
}

/// Whether every pattern rule compiles (the tests hold that it does).
pub fn rules_compile() -> bool {
    compiled().is_some()
}

/// Audits a skill's files one at a time: give each file to [`Auditor::file`], then
/// [`Auditor::finish`]. Memory stays at one file.
#[derive(Debug)]
pub struct Auditor {
    report: Report,
    cap: usize,
}

impl Default for Auditor {
    fn default() -> Self {
        Self::new()
    }
}

impl Auditor {
    /// An auditor reading at most [`DEFAULT_CAP`] bytes of a file.
    pub fn new() -> Self {
        Self { report: Report::default(), cap: DEFAULT_CAP }
    }

    /// The same auditor reading at most `cap` bytes of a file.
    pub fn with_cap(mut self, cap: usize) -> Self {
        self.cap = cap;
        self
    }

    /// How much of a file this auditor reads.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// Audits one file: `path` relative to the skill's folder, `bytes` its content (or its
    /// first `cap` bytes, with `full_len` its real size).
    pub fn file(&mut self, path: &str, bytes: &[u8], full_len: u64) {
        self.report.files += 1;
        self.report.bytes += full_len;
        let bytes = bytes.get(..self.cap).unwrap_or(bytes);
        if full_len > bytes.len() as u64 {
            self.push_check(
                Check::Truncated,
                path,
                None,
                format!("{full_len} bytes; the first {} were audited", bytes.len()),
                None,
            );
        }
        let f = FileText::new(path, bytes);
        let mut found = Vec::new();
        checks::executable(bytes, &mut |check, evidence| found.push((check, None, evidence, None)));
        if f.kind != Kind::Binary {
            self.patterns(&f);
            checks::text(&f, &mut |check, at, evidence, hidden| found.push((check, at, evidence, hidden)));
        }
        for (check, line, evidence, hidden) in found {
            self.push_check(check, path, line, evidence, hidden);
        }
    }

    /// Records a file that could not be read, with why.
    pub fn unreadable(&mut self, path: &str, why: &str) {
        self.report.files += 1;
        self.push_check(Check::Unreadable, path, None, why.to_owned(), None);
    }

    /// The report, most serious findings first.
    pub fn finish(mut self) -> Report {
        let lines: HashSet<(String, Option<u32>, &str)> =
            self.report.findings.iter().map(|f| (f.file.clone(), f.line, f.rule)).collect();
        self.report.findings.retain(|f| {
            let superseded = crate::rules::rule(f.rule).map_or(&[][..], |r| r.superseded_by);
            !superseded.iter().any(|s| lines.contains(&(f.file.clone(), f.line, *s)))
        });
        self.report.sort();
        self.report
    }

    fn push_check(&mut self, check: Check, path: &str, line: Option<u32>, evidence: String, hidden: Option<String>) {
        if let Some(rule) = crate::rules::for_check(check) {
            let same = self.report.findings.iter().filter(|f| f.rule == rule.id && f.file == path).count();
            if same < PER_RULE_PER_FILE {
                self.report.findings.push(Finding::new(rule, path, line, evidence, hidden));
            }
        }
    }

    /// Every pattern rule over one text file, in one pass of the set.
    fn patterns(&mut self, f: &FileText<'_>) {
        let Some(c) = compiled() else { return };
        let (set, idx) = match f.kind {
            Kind::Markdown => (&c.all, &c.all_rules),
            Kind::Script | Kind::Data | Kind::Binary => (&c.commands, &c.commands_rules),
        };
        let matched = set.matches(f.bytes);
        if !matched.matched_any() {
            return;
        }
        for i in matched.iter().filter_map(|m| idx.get(m).copied()) {
            let (Some(rule), Some(Some(re))) = (RULES.get(i), c.each.get(i)) else { continue };
            let mut seen = HashSet::new();
            for m in re.find_iter(f.bytes) {
                if seen.len() >= PER_RULE_PER_FILE {
                    break;
                }
                if !in_place(rule.place, f.kind, f.regions(), m.start()) || !also_holds(rule.also, m.as_bytes()) {
                    continue;
                }
                let line = f.lines().number(m.start());
                if seen.insert(line) {
                    let evidence = f.evidence(line, m.start());
                    self.report.findings.push(Finding::new(rule, f.path, Some(line), evidence, None));
                }
            }
        }
    }
}

/// Whether a match at byte `at` of a file of `kind` is in a place the rule looks.
fn in_place(place: Place, kind: Kind, regions: &Regions, at: usize) -> bool {
    match (place, kind) {
        (_, Kind::Binary) | (Place::Files, _) => false,
        (Place::Anywhere, _) => true,
        (Place::Instructions, Kind::Markdown) => !regions.in_fence(at),
        (Place::Instructions, Kind::Script | Kind::Data) => false,
        (Place::Code, Kind::Script) => true,
        (Place::Code, Kind::Markdown) => regions.in_fence(at),
        (Place::Code, Kind::Data) => false,
    }
}

fn also_holds(also: Also, matched: &[u8]) -> bool {
    match also {
        Also::Nothing => true,
        Also::PublicIp => checks::has_public_ipv4(matched),
    }
}

/// Audits a skill given as `(path, bytes)` pairs, every file whole.
pub fn audit<'a>(files: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> Report {
    let mut a = Auditor::new();
    for (path, bytes) in files {
        a.file(path, bytes, bytes.len() as u64);
    }
    a.finish()
}
