//! The engine: each file read once; one pass finds the literals the pattern rules need, the
//! rules whose literals are there run their regex on those lines, then the hand-written checks.
//! Holds the order of work and the bounds (what is read of a file, how many findings a rule may
//! give in one file); the rules are `rules`.

use crate::anchors::{self, Anchor};
use crate::checks;
use crate::finding::{Finding, Report};
use crate::flow;
use crate::rules::{Also, Check, Matcher, Place, RULES, Rule};
use crate::text::{self, FileText, Kind, Regions};
use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use regex::bytes::{Regex, RegexBuilder};
use skilldeck_skill::grants::GrantRequest;
use skilldeck_skill::risk::RiskLevel;
use std::collections::HashSet;
use std::sync::OnceLock;

/// How much of one file is read: 4 MiB. The rest is a finding (`audit.truncated`).
pub const DEFAULT_CAP: usize = 4 << 20;

/// How many lines either side of an anchor's line a rule reads, within its logical line.
const WINDOW: u32 = 2;

/// How many findings one rule gives in one file; past it the rest would say nothing new.
const PER_RULE_PER_FILE: usize = 10;

/// In place of a rule's index: an anchor of `flow::ANY`, where a flow may start.
const SOURCE: usize = usize::MAX;
/// In place of a rule's index: an anchor of `flow::FEED_GATE`.
const FEED: usize = usize::MAX - 1;

/// The pattern rules compiled: one searcher for the literals they need, and each rule's regex.
struct Compiled {
    /// Every rule's anchors (`anchors::of`), ASCII case ignored.
    anchors: AhoCorasick,
    /// The index into `RULES` of each of `anchors`' patterns (or [`SOURCE`] or [`FEED`]),
    /// and the anchor.
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
        // The flows' first looks ride on the same pass.
        for (id, pattern) in [(SOURCE, flow::ANY), (FEED, flow::FEED_GATE)] {
            let set = anchors::of(pattern)?;
            literals.extend(set.iter().map(|a| a.text.clone()));
            anchor_rules.extend(set.into_iter().map(|a| (id, a)));
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
    /// The files binary by their bytes, with what they are.
    binaries: Vec<(String, &'static str)>,
    /// Lines of text files that feed something to a shell or interpreter, to see in `finish`
    /// whether one names a binary file.
    feeds: Vec<Feed>,
    /// What the top-level `SKILL.md`'s `allowed-tools` asks for, when the caller validated
    /// those very bytes already.
    skill_md_tools: Option<GrantRequest>,
}

/// A line that feeds something to a shell or interpreter: its file and number, the line as
/// written and where in it (the evidence is made only when a binary file is named), and the
/// logical line.
#[derive(Debug)]
struct Feed {
    file: String,
    line: u32,
    raw: (Vec<u8>, usize),
    text: Vec<u8>,
}

impl Default for Auditor {
    fn default() -> Self {
        Self::new()
    }
}

impl Auditor {
    /// An auditor reading at most [`DEFAULT_CAP`] bytes of a file.
    pub fn new() -> Self {
        Self {
            report: Report::default(),
            cap: DEFAULT_CAP,
            binaries: Vec::new(),
            feeds: Vec::new(),
            skill_md_tools: None,
        }
    }

    /// The same auditor reading at most `cap` bytes of a file.
    pub fn with_cap(mut self, cap: usize) -> Self {
        self.cap = cap;
        self
    }

    /// The same auditor told what the `SKILL.md` it will be given asks for in `allowed-tools`
    /// (`GrantRequest::of` the meta its caller validated from exactly those bytes), so its
    /// frontmatter is not parsed a second time. Given for other bytes, the broad-tools check
    /// would judge the wrong request: a caller that did not validate these bytes gives nothing.
    pub fn knowing_skill_md_tools(mut self, request: GrantRequest) -> Self {
        self.skill_md_tools = Some(request);
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
        if f.kind == Kind::Binary {
            if let Some(what) = text::binary_format(bytes) {
                self.binaries.push((path.to_owned(), what));
            }
        } else {
            let (sources, feed_words) = self.patterns(&f);
            let known = self.skill_md_tools.as_ref();
            checks::text(&f, known, &mut |check, at, evidence, hidden| found.push((check, at, evidence, hidden)));
            self.flows(&f, &sources);
            if self.feeds.len() < 256 {
                for (line, at, text) in flow::feeding_lines(&f, &feed_words) {
                    let (raw, in_line) = f.raw_line(line, at);
                    self.feeds.push(Feed { file: path.to_owned(), line, raw: (raw.to_vec(), in_line), text });
                }
            }
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
        // A binary file (an image, an archive) that a script feeds to a shell or interpreter
        // holds code that no reader sees.
        if let Some(rule) = crate::rules::rule("exec.decode-exec") {
            for (bin, what) in &self.binaries {
                for Feed { file, line, raw: (raw, in_line), text } in &self.feeds {
                    if flow::feeds_file(text, bin) {
                        let evidence = text::visible(&String::from_utf8_lossy(raw), *in_line, text::EVIDENCE_CHARS);
                        let shown = format!("{evidence} ({bin} is {what})");
                        self.report.findings.push(Finding::at(rule, RiskLevel::High, file, Some(*line), shown, None));
                    }
                }
            }
        }
        let lines: HashSet<(String, Option<u32>, &str)> =
            self.report.findings.iter().map(|f| (f.file.clone(), f.line, f.rule)).collect();
        self.report.findings.retain(|f| {
            let superseded = crate::rules::rule(f.rule).map_or(&[][..], |r| r.superseded_by);
            !superseded.iter().any(|s| lines.contains(&(f.file.clone(), f.line, *s)))
        });
        self.report.sort();
        self.report
    }

    /// The flows of one file (`flow::flows`), each under its rule, high in a script.
    fn flows(&mut self, f: &FileText<'_>, sources: &[usize]) {
        for fl in flow::flows(f, sources) {
            let Some(rule) = crate::rules::rule(fl.rule) else { continue };
            let level = if f.kind == Kind::Script { rule.severity.max(RiskLevel::High) } else { rule.severity };
            let dup =
                self.report.findings.iter().any(|x| x.rule == rule.id && x.file == f.path && x.line == Some(fl.line));
            if !dup {
                let evidence = f.evidence(fl.line, fl.at);
                self.report.findings.push(Finding::at(rule, level, f.path, Some(fl.line), evidence, None));
            }
        }
    }

    fn push_check(&mut self, check: Check, path: &str, line: Option<u32>, evidence: String, hidden: Option<String>) {
        if let Some(rule) = crate::rules::for_check(check) {
            let same = self.report.findings.iter().filter(|f| f.rule == rule.id && f.file == path).count();
            if same < PER_RULE_PER_FILE {
                self.report.findings.push(Finding::new(rule, path, line, evidence, hidden));
            }
        }
    }

    /// Every pattern rule over one text file's view (`FileText::view`): one pass finds the
    /// rules' anchors, and each rule then runs its regex on the logical lines where its anchors
    /// are (a rule with none, on the whole file), each logical line joined into one. A finding
    /// names the line where its match starts.
    ///
    /// Gives where the anchors of `flow::ANY` and of `flow::FEED_GATE` are (in order), found in
    /// the same pass.
    fn patterns(&mut self, f: &FileText<'_>) -> (Vec<usize>, Vec<usize>) {
        let Some(c) = compiled() else { return (Vec::new(), Vec::new()) };
        let looks = |rule: &Rule| match rule.place {
            Place::Files => false,
            Place::Instructions => matches!(f.kind, Kind::Markdown | Kind::Data),
            Place::Anywhere | Place::Code => true,
        };
        let view: &[u8] = &f.view;
        // (rule, line) for every anchor found, each pair once.
        let mut hits: Vec<(usize, u32)> = Vec::new();
        let (mut sources, mut feed_words) = (Vec::new(), Vec::new());
        for m in c.anchors.find_overlapping_iter(view) {
            let Some((i, anchor)) = c.anchor_rules.get(m.pattern().as_usize()) else { continue };
            let i = *i;
            if i == SOURCE || i == FEED {
                if anchor.bounded_in(view, m.start(), m.end()) {
                    if i == SOURCE {
                        sources.push(m.start());
                    } else {
                        feed_words.push(m.start());
                    }
                }
                continue;
            }
            if RULES.get(i).is_some_and(looks) && anchor.bounded_in(view, m.start(), m.end()) {
                hits.push((i, f.lines().number(m.start())));
            }
        }
        hits.sort_unstable();
        hits.dedup();
        // Each rule runs on a window around each line its anchors are on: up to WINDOW lines
        // either side within the same logical line, so a split instruction or command is read
        // whole while the work stays a few lines per anchor, however long a paragraph.
        let mut todo: Vec<(usize, std::ops::Range<usize>)> = Vec::with_capacity(hits.len());
        for (i, line) in hits {
            let here = f.lines().range(view, line).start;
            // Prose is read a paragraph at a time only for the rules about instructions; a
            // command in prose is written on one line.
            let prose = f.kind == Kind::Markdown && !f.regions().in_fence(here);
            let wide = !prose || RULES.get(i).is_some_and(|r| r.place == Place::Instructions);
            let range = if wide { f.window(line, WINDOW) } else { f.lines().range(view, line) };
            // Windows of one rule that overlap lie in one logical line: read once, whole.
            match todo.last_mut() {
                Some((j, last)) if *j == i && range.start < last.end => last.end = last.end.max(range.end),
                _ => todo.push((i, range)),
            }
        }
        let mut seen: HashSet<(usize, u32)> = HashSet::new();
        let mut found = vec![0usize; RULES.len()];
        for (i, range) in todo {
            let (Some(rule), Some(Some(re))) = (RULES.get(i), c.each.get(i)) else { continue };
            let text = text::joined(view.get(range.clone()).unwrap_or_default());
            for m in re.find_iter(&text) {
                if found.get(i).is_some_and(|n| *n >= PER_RULE_PER_FILE) {
                    break;
                }
                let at = range.start + m.start();
                if !in_place(rule.place, f.kind, f.regions(), at) || !also_holds(rule.also, m.as_bytes()) {
                    continue;
                }
                let line = f.lines().number(at);
                if seen.insert((i, line)) {
                    let evidence = f.evidence(line, at);
                    let shown = view.get(f.lines().range(view, line)).unwrap_or_default();
                    let comment = is_comment(shown) || is_printed(shown);
                    self.report.findings.push(Finding::at(
                        rule,
                        if comment { rule.severity } else { raise(rule, f.kind) },
                        f.path,
                        Some(line),
                        evidence,
                        None,
                    ));
                    if let Some(n) = found.get_mut(i) {
                        *n += 1;
                    }
                }
            }
        }
        for &i in &c.always {
            let (Some(rule), Some(Some(re))) = (RULES.get(i), c.each.get(i)) else { continue };
            if !looks(rule) {
                continue;
            }
            let mut seen = HashSet::new();
            for m in re.find_iter(view) {
                if seen.len() >= PER_RULE_PER_FILE {
                    break;
                }
                if !in_place(rule.place, f.kind, f.regions(), m.start()) || !also_holds(rule.also, m.as_bytes()) {
                    continue;
                }
                let line = f.lines().number(m.start());
                if seen.insert(line) {
                    let evidence = f.evidence(line, m.start());
                    self.report.findings.push(Finding::at(
                        rule,
                        raise(rule, f.kind),
                        f.path,
                        Some(line),
                        evidence,
                        None,
                    ));
                }
            }
        }
        sources.sort_unstable();
        sources.dedup();
        (sources, feed_words)
    }
}

/// Whether a line of code is a comment (`#`, `//`, `*` of a block), which documents a command
/// rather than running it: a script's rating for its rule does not apply.
fn is_comment(line: &[u8]) -> bool {
    let t = line.trim_ascii_start();
    (t.starts_with(b"#") && !t.starts_with(b"#!")) || t.starts_with(b"//") || t.starts_with(b"* ")
}

/// Whether a line of code only prints one string (`echo "Install: curl … | sh"`,
/// `print('… >> ~/.bashrc')`): a command shown to the user, not run, so a script's rating for
/// its rule does not apply (as for a comment). The string must be the whole rest of the line,
/// hold no other quote of its kind, and in double quotes no `$(` or backtick (which would run);
/// an f-string's braces name only variables. Anything after it (`| sh`, `>> ~/.bashrc`) makes
/// it a command like any other.
fn is_printed(line: &[u8]) -> bool {
    let t = line.trim_ascii();
    let Some(rest) = [&b"echo "[..], b"printf ", b"print(", b"console.log(", b"console.error(", b"puts "]
        .iter()
        .find_map(|p| t.strip_prefix(*p))
    else {
        return false;
    };
    let mut rest = rest.trim_ascii_start();
    while let Some(r) = rest.strip_prefix(b"-e ").or_else(|| rest.strip_prefix(b"-n ")) {
        rest = r.trim_ascii_start();
    }
    let fstring = rest.first().is_some_and(|b| matches!(b, b'f' | b'F'));
    if fstring || rest.first().is_some_and(|b| matches!(b, b'r' | b'R')) {
        rest = rest.get(1..).unwrap_or_default();
    }
    let Some(&q) = rest.first().filter(|q| matches!(q, b'\'' | b'"')) else { return false };
    let end = rest.trim_ascii_end();
    let end = end.strip_suffix(b";").unwrap_or(end);
    let end = end.strip_suffix(b")").unwrap_or(end);
    let Some(body) = end.strip_suffix(&[q]).and_then(|e| e.get(1..)) else { return false };
    let bare_quote = body.iter().enumerate().any(|(i, b)| *b == q && (i == 0 || body.get(i - 1) != Some(&b'\\')));
    let runs = q == b'"' && (memchr::memmem::find(body, b"$(").is_some() || body.contains(&b'`'));
    let code_in_braces = fstring
        && body.split(|b| *b == b'{').skip(1).any(|piece| {
            let inner = piece.split(|b| *b == b'}').next().unwrap_or_default();
            !inner.iter().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.'))
        });
    !bare_quote && !runs && !code_in_braces
}

/// The level of a rule's finding in a file of `kind`: the rule's own, or higher where the table
/// says so for code a shell or interpreter runs.
fn raise(rule: &Rule, kind: Kind) -> RiskLevel {
    match (kind, rule.in_scripts) {
        (Kind::Script, Some(level)) => level.max(rule.severity),
        _ => rule.severity,
    }
}

/// Whether a match at byte `at` of a file of `kind` is in a place the rule looks.
fn in_place(place: Place, kind: Kind, regions: &Regions, at: usize) -> bool {
    match (place, kind) {
        (_, Kind::Binary) | (Place::Files, _) => false,
        (Place::Anywhere, _) => true,
        (Place::Instructions, Kind::Markdown) => !regions.in_fence(at),
        (Place::Instructions, Kind::Data) => true,
        (Place::Instructions, Kind::Script) => false,
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
