//! The audit's speed on a folder of skill folders, in memory on one thread: reads every file
//! first, then times the audit alone, so the figure is the engine's and not the disk's.
//!
//!   cargo run --release -p skilldeck-audit --example audit_corpus -- COLLECTION [LIMIT]

use std::path::Path;
use std::time::Instant;

fn files(dir: &Path, base: &Path, out: &mut Vec<(String, Vec<u8>)>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            files(&path, base, out)?;
        } else if kind.is_file() {
            let rel = path.strip_prefix(base).map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
            out.push((rel, std::fs::read(&path)?));
        }
    }
    Ok(())
}

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let root = args.next().unwrap_or_else(|| ".".to_owned());
    let limit: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(usize::MAX);
    let mut skills = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(&root)?.filter_map(|e| e.ok().map(|e| e.path())).collect();
    dirs.sort();
    let mut names = Vec::new();
    for dir in dirs.into_iter().take(limit) {
        names.push(dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
        let mut f = Vec::new();
        files(&dir, &dir, &mut f)?;
        skills.push(f);
    }
    if std::env::var_os("ANCHORS").is_some() {
        show_anchors();
    }
    if std::env::var_os("DUMP").is_some() {
        dump(&names, &skills);
        return Ok(());
    }
    if std::env::var_os("PARTS2").is_some() {
        parts2(&skills);
        return Ok(());
    }
    if std::env::var_os("PARTS").is_some() {
        parts(&skills);
        return Ok(());
    }
    if std::env::var_os("HELD").is_some() {
        held(&names, &skills);
        return Ok(());
    }
    if std::env::var_os("AC_PASS").is_some() {
        ac_pass(&skills);
    }
    if std::env::var_os("PER_RULE").is_some() {
        per_rule(&skills);
    }
    let bytes: usize = skills.iter().flatten().map(|f| f.1.len()).sum();
    let t = Instant::now();
    let mut findings = 0;
    for skill in &skills {
        findings += skilldeck_audit::audit(skill.iter().map(|(p, b)| (p.as_str(), b.as_slice()))).findings.len();
    }
    let s = t.elapsed().as_secs_f64();
    println!(
        "{} skills, {} MiB: {:.2} s, {:.1} MiB/s, {findings} findings",
        skills.len(),
        bytes >> 20,
        s,
        bytes as f64 / 1048576.0 / s
    );
    Ok(())
}

/// With PER_RULE set: each pattern rule's regex alone over every file, slowest first.
fn per_rule(skills: &[Vec<(String, Vec<u8>)>]) {
    let mut times = Vec::new();
    for rule in skilldeck_audit::rules::RULES {
        let skilldeck_audit::rules::Matcher::Pattern(p) = rule.matcher else { continue };
        let Ok(re) = regex::bytes::RegexBuilder::new(p).unicode(false).build() else { continue };
        let t = Instant::now();
        let mut n = 0;
        for (_, b) in skills.iter().flatten() {
            n += re.find_iter(b).count();
        }
        times.push((t.elapsed().as_secs_f64(), rule.id, n));
    }
    times.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (s, id, n) in times {
        println!("{s:8.3} s  {id:28} {n}");
    }
}

/// With ANCHORS set: each pattern rule's anchors.
fn show_anchors() {
    for rule in skilldeck_audit::rules::RULES {
        let skilldeck_audit::rules::Matcher::Pattern(p) = rule.matcher else { continue };
        let set = skilldeck_audit::anchors::of(p).map(|s| {
            s.iter()
                .map(|a| {
                    format!(
                        "{}{}{}",
                        if a.word_start { "\\b" } else { "" },
                        String::from_utf8_lossy(&a.text),
                        if a.word_end { "\\b" } else { "" }
                    )
                })
                .collect::<Vec<_>>()
                .join(" | ")
        });
        println!("{:28} {}", rule.id, set.unwrap_or_else(|| "NONE".to_owned()));
    }
}

/// With AC_PASS set: the anchors' pass alone.
fn ac_pass(skills: &[Vec<(String, Vec<u8>)>]) {
    let mut lits = Vec::new();
    for rule in skilldeck_audit::rules::RULES {
        let skilldeck_audit::rules::Matcher::Pattern(p) = rule.matcher else { continue };
        lits.extend(skilldeck_audit::anchors::of(p).unwrap_or_default().into_iter().map(|a| a.text));
    }
    let ac = aho_corasick::AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .kind(Some(aho_corasick::AhoCorasickKind::DFA))
        .build(&lits)
        .unwrap_or_else(|_| std::process::exit(1));
    let t = Instant::now();
    let mut n = 0usize;
    for (_, b) in skills.iter().flatten() {
        n += ac.find_overlapping_iter(b).count();
    }
    println!("anchors pass ({} literals): {:.3} s, {n} hits", lits.len(), t.elapsed().as_secs_f64());
    let t = Instant::now();
    let mut lines = 0usize;
    for (_, b) in skills.iter().flatten() {
        lines += memchr::memchr_iter(b'\n', b).count();
    }
    println!("newline pass: {:.3} s, {lines} lines", t.elapsed().as_secs_f64());
}

/// With DUMP set: every finding as `skill<TAB>rule<TAB>file:line`, for comparing two engines.
fn dump(names: &[String], skills: &[Vec<(String, Vec<u8>)>]) {
    for (name, skill) in names.iter().zip(skills) {
        for f in skilldeck_audit::audit(skill.iter().map(|(p, b)| (p.as_str(), b.as_slice()))).findings {
            println!("{name}\t{}\t{}:{}", f.rule, f.file, f.line.unwrap_or(0));
        }
    }
}

/// With HELD set: the share of skills with a high or critical finding (what the registry holds
/// at the default `[audit] hold`), and the rules behind them, most frequent first; with
/// HELD_SHOW=RULE, each skill RULE makes high or critical, with the file, line and evidence.
fn held(names: &[String], skills: &[Vec<(String, Vec<u8>)>]) {
    use skilldeck_audit::RiskLevel;
    let show = std::env::var("HELD_SHOW").unwrap_or_default();
    let mut n = 0usize;
    let mut rules: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for (name, skill) in names.iter().zip(skills) {
        let report = skilldeck_audit::audit(skill.iter().map(|(p, b)| (p.as_str(), b.as_slice())));
        let serious: Vec<_> = report.findings.iter().filter(|f| f.severity >= RiskLevel::High).collect();
        if serious.is_empty() {
            continue;
        }
        n += 1;
        let ids: std::collections::BTreeSet<&str> = serious.iter().map(|f| f.rule).collect();
        for id in ids {
            *rules.entry(id).or_default() += 1;
        }
        for f in serious.iter().filter(|f| f.rule == show) {
            println!("  {name} {}:{} {}", f.file, f.line.unwrap_or(0), f.evidence);
        }
    }
    let total = skills.len().max(1);
    println!("{n} of {} skills held at high: {:.2}%", skills.len(), 100.0 * n as f64 / total as f64);
    let mut by: Vec<_> = rules.into_iter().collect();
    by.sort_by_key(|b| std::cmp::Reverse(b.1));
    for (id, c) in by {
        println!("  {c:6}  {id}");
    }
}

/// With PARTS set: the time of the normalised view and logical lines alone.
pub fn parts(skills: &[Vec<(String, Vec<u8>)>]) {
    let t = Instant::now();
    let mut n = 0usize;
    for (p, b) in skills.iter().flatten() {
        let f = skilldeck_audit::text::FileText::new(p, b);
        n += f.view.len();
    }
    println!("view: {:.3} s ({n} bytes)", t.elapsed().as_secs_f64());
    let t = Instant::now();
    for (p, b) in skills.iter().flatten() {
        let f = skilldeck_audit::text::FileText::new(p, b);
        n += f.logical_starts().len();
    }
    println!("view + logical: {:.3} s", t.elapsed().as_secs_f64());
    let any = regex::bytes::Regex::new(skilldeck_audit::flow::ANY).unwrap_or_else(|_| std::process::exit(1));
    let gate = regex::bytes::Regex::new(skilldeck_audit::flow::FEED_GATE).unwrap_or_else(|_| std::process::exit(1));
    let t = Instant::now();
    for (p, b) in skills.iter().flatten() {
        let f = skilldeck_audit::text::FileText::new(p, b);
        let sources: Vec<usize> = any.find_iter(&f.view).map(|m| m.start()).collect();
        let words: Vec<usize> = gate.find_iter(&f.view).map(|m| m.start()).collect();
        n += skilldeck_audit::flow::flows(&f, &sources).len() + skilldeck_audit::flow::feeding_lines(&f, &words).len();
    }
    println!("view + flows + feeds: {:.3} s {n}", t.elapsed().as_secs_f64());
}

/// With PARTS2 set: the checks alone on each file's view.
pub fn parts2(skills: &[Vec<(String, Vec<u8>)>]) {
    let t = Instant::now();
    let mut n = 0usize;
    for (p, b) in skills.iter().flatten() {
        let f = skilldeck_audit::text::FileText::new(p, b);
        skilldeck_audit::checks::text(&f, None, &mut |_, _, _, _| n += 1);
    }
    println!("view + checks: {:.3} s ({n})", t.elapsed().as_secs_f64());
}
