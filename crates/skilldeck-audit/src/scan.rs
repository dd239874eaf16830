//! The engine: each file read once; one pass finds the literals the pattern rules need, the
//! rules whose literals are there run their regex on those lines, then the hand-written checks.
//! Holds the order of work and the bounds (what is read of a file, how many findings a rule may
//! give in one file); the rules are `rules`.

use crate::anchors::{self, Anchor};
use crate::checks;
use crate::finding::{Finding, Report};
use crate::rules::{Also, Check, Matcher, Place, RULES, Rule};
use crate::text::{FileText, Kind, Regions};
use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use regex::bytes::{Regex, RegexBuilder};
use std::collections::HashSet;
use std::sync::OnceLock;

/// How much of one file is read: 4 MiB. The rest is a finding (`audit.truncated`).
pub const DEFAULT_CAP: usize = 4 << 20;

/// How many findings one rule gives in one file; past it the rest would say nothing new.
const PER_RULE_PER_FILE: usize = 10;

/// The pattern rules compiled: one searcher for the literals they need, and each rule's regex.
struct Compiled {
    /// Every rule's anchors (`anchors::of`), ASCII case ignored.
    anchors: AhoCorasick,
    /// The index into `RULES` of each of `anchors`' patterns, and the anchor.
    anchor_rules: Vec<(usize, Anchor)>,
    /// The pattern rules with no anchors: tried on every file.
    always: Vec<usize>,
    /// Each pattern rule's regex, by index into `RULES`.
    each: Vec<Option<Regex>>,
}

fn compiled() -> Option<&'static Compiled> {
    static C: OnceLock<Option<Compiled>> = OnceLock::new();
    C.get_or_init(|| {
        let mut each = Vec::with_capacity(RULES.len());
        let (mut literals, mut anchor_rules, mut always) = (Vec::new(), Vec::new(), Vec::new());
        for (i, rule) in RULES.iter().enumerate() {
            let Matcher::Pattern(p) = rule.matcher else {
                each.push(None);
                continue;
            };
            each.push(Some(RegexBuilder::new(p).unicode(false).size_limit(16 << 20).build().ok()?));
            match anchors::of(p) {
                Some(set) => {
                    literals.extend(set.iter().map(|a| a.text.clone()));
                    anchor_rules.extend(set.into_iter().map(|a| (i, a)));
                }
                None => always.push(i),
            }
        }
        let anchors = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .kind(Some(AhoCorasickKind::DFA))
            .build(&literals)
            .ok()?;
        Some(Compiled { anchors, anchor_rules, always, each })
    })
    .as_ref()
}

/// The pattern rules with no anchors, which run on every file (the tests hold there are none).
pub fn rules_without_anchors() -> Vec<&'static str> {
    compiled().map_or_else(Vec::new, |c| c.always.iter().filter_map(|i| RULES.get(*i)).map(|r| r.id).collect())
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

    /// Every pattern rule over one text file: one pass finds the rules' anchors, and each rule
    /// then runs its regex on the lines where its anchors are (a rule with none, on the whole
    /// file). A rule matches within one line, as the table says.
    fn patterns(&mut self, f: &FileText<'_>) {
        let Some(c) = compiled() else { return };
        let looks = |rule: &Rule| match rule.place {
            Place::Files => false,
            Place::Instructions => f.kind == Kind::Markdown,
            Place::Anywhere | Place::Code => true,
        };
        // (rule, line) for every anchor found, each pair once.
        let mut todo: Vec<(usize, u32)> = Vec::new();
        for m in c.anchors.find_overlapping_iter(f.bytes) {
            let Some((i, anchor)) = c.anchor_rules.get(m.pattern().as_usize()) else { continue };
            let i = *i;
            if RULES.get(i).is_some_and(looks) && anchor.bounded_in(f.bytes, m.start(), m.end()) {
                todo.push((i, f.lines().number(m.start())));
            }
        }
        todo.sort_unstable();
        todo.dedup();
        let mut found = vec![0usize; RULES.len()];
        for (i, line) in todo {
            let (Some(rule), Some(Some(re))) = (RULES.get(i), c.each.get(i)) else { continue };
            if found.get(i).is_some_and(|n| *n >= PER_RULE_PER_FILE) {
                continue;
            }
            let range = f.lines().range(f.bytes, line);
            let text = f.bytes.get(range.clone()).unwrap_or_default();
            let hit = re.find_iter(text).find(|m| {
                in_place(rule.place, f.kind, f.regions(), range.start + m.start())
                    && also_holds(rule.also, m.as_bytes())
            });
            if let Some(m) = hit {
                let evidence = f.evidence(line, range.start + m.start());
                self.report.findings.push(Finding::new(rule, f.path, Some(line), evidence, None));
                if let Some(n) = found.get_mut(i) {
                    *n += 1;
                }
            }
        }
        for &i in &c.always {
            let (Some(rule), Some(Some(re))) = (RULES.get(i), c.each.get(i)) else { continue };
            if !looks(rule) {
                continue;
            }
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
