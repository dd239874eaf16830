//! `skilldeck add SOURCE`: skills in from where they live (a Git repository, a `.well-known`
//! index, an archive or `SKILL.md` URL), through the same import as a folder, each revision
//! recording its provenance and each skill remembered in `sources.json` for `outdated`.
//! Holds choosing the skills and the output; fetching is `skilldeck-sources`.

use super::import::{preview_line, preview_word, report_line, skill_progress, summary};
use super::refusals::{Clash, Refused};
use crate::context::Ctx;
use crate::output::{self, Outcome};
use anyhow::Context as _;
use serde::Serialize;
use skilldeck_skill::provenance::{Provenance, SourceKind};
use skilldeck_skill::{Scope, SkillName};
use skilldeck_sources::discover::RemotePlugin;
use skilldeck_sources::fetch::{Candidate, FetchConfig, Fetched, Note, fetch_named};
use skilldeck_sources::installed::InstalledSkills;
use skilldeck_sources::{Hosts, Source};
use skilldeck_sources::{rename, setup};
use skilldeck_store::import::{self, BatchReport, ErrorInfo, ImportRequest, ImportState, Incoming, ItemState};
use skilldeck_store::trust::Trust;
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead as _, IsTerminal as _, Write as _};

/// What `add` was asked for.
#[derive(Debug, Clone, Default)]
pub struct AddArgs {
    /// The source as given.
    pub source: String,
    /// `--skill`: names (or paths inside the source) to take.
    pub skills: Vec<String>,
    /// `--all`: every skill found.
    pub all: bool,
    /// `--plugin`: a marketplace plugin's skills.
    pub plugin: Option<String>,
    /// `--ref`: the branch, tag or commit, over any `@REF` in the source.
    pub reference: Option<String>,
    /// `--as`: the one skill taken is kept under this name (its frontmatter's `name` rewritten).
    pub rename: Option<String>,
    /// `--force`: let the source's content become the next revision of a skill of the same
    /// name that did not come from it.
    pub force: bool,
    /// Show what would happen; write nothing.
    pub dry_run: bool,
    /// Print JSON.
    pub json: bool,
}

/// How sources are fetched on this machine: config.toml's hosts, tokens from the environment,
/// the store's limits, and `SKILLDECK_SOURCES_TIMEOUT_SECS` when set.
pub fn fetch_config(ctx: &Ctx) -> anyhow::Result<(Hosts, FetchConfig)> {
    Ok(setup::fetch_config(ctx.storage())?)
}

/// Fetches the skills `names` of `source` (all when empty: see [`fetch_named`]) with a line on
/// stderr while it runs in a terminal.
fn fetch_source(
    source: &Source,
    reference: Option<&str>,
    config: &FetchConfig,
    names: &[String],
) -> anyhow::Result<Fetched> {
    let tty = std::io::stderr().is_terminal();
    if tty {
        crate::output::err!("fetching {} …", source.given());
        let _ = std::io::stderr().flush();
    }
    let fetched = fetch_named(source, reference, config, names);
    if tty {
        eprint!("\r\x1b[2K");
    }
    fetched.map_err(|e| {
        let code = e.code();
        let hint = if matches!(code, "source_timed_out" | "http_timeout") {
            format!(" (set {} to wait longer)", setup::TIMEOUT_VAR)
        } else {
            String::new()
        };
        anyhow::Error::new(e).context(format!("could not add from {} [{code}]{hint}", source.given()))
    })
}

/// `skilldeck add`.
pub fn add(args: &AddArgs) -> anyhow::Result<Outcome> {
    let rename = match &args.rename {
        Some(new) => Some(SkillName::parse(new).map_err(|e| {
            anyhow::anyhow!("--as {new:?} is not a skill name ({e}); use lowercase letters, digits and single hyphens")
        })?),
        None => None,
    };
    let ctx = Ctx::open()?;
    let (hosts, config) = fetch_config(&ctx)?;
    let source = Source::parse(&args.source, &hosts)?;
    if let Some(note) = setup::credentials_note(&args.source) {
        crate::output::errln!("{note}");
    }
    if args.reference.is_some() && matches!(source, Source::Archive(_) | Source::SkillFile(_)) {
        anyhow::bail!("--ref names a branch, tag or commit of a Git repository; {} is a file", source.given());
    }
    if args.reference.is_some() && matches!(source, Source::Mcp(_)) {
        anyhow::bail!(
            "--ref names a branch, tag or commit of a Git repository; {} is an MCP server, which serves one version",
            source.given()
        );
    }
    let fetched = fetch_source(&source, args.reference.as_deref(), &config, &args.skills)?;
    if args.reference.is_some() && fetched.origin.kind != SourceKind::Git {
        anyhow::bail!(
            "--ref names a branch, tag or commit of a Git repository; {} is a skills index, which has none",
            source.given()
        );
    }
    let (chosen, asked) = match choose(&fetched, args)? {
        Chosen::These(c, asked) => (c, asked),
        Chosen::Elsewhere(plugin) => {
            // Its skills come from its own repository, at the commit or ref the marketplace
            // pins, and record that repository as their source (so updates follow it).
            crate::output::errln!("plugin {} lives in {}: adding its skills from there", plugin.name, plugin.source);
            let from = AddArgs {
                source: plugin.source.clone(),
                reference: plugin.reference.clone(),
                plugin: None,
                skills: Vec::new(),
                all: true,
                ..args.clone()
            };
            return add(&from);
        }
        Chosen::Ask(message) => {
            crate::output::errln!("{message}");
            if args.json {
                output::json(&choices_json(&fetched))?;
            }
            return Ok(Outcome::Refused);
        }
    };
    if let Some(new) = &rename
        && chosen.len() != 1
    {
        let names: Vec<&str> = chosen.iter().map(|c| c.name.as_str()).collect();
        anyhow::bail!(
            "--as {new} names one skill, but {} were chosen ({}); take one with --skill NAME --as {new}",
            chosen.len(),
            names.join(", ")
        );
    }
    // Only what concerns the skills asked for is said; a skill refused counts when it was asked for.
    let notes = relevant_notes(&fetched, &asked, &chosen);
    let installed = InstalledSkills::load(ctx.storage().home())?;
    let (chosen, clashes) = clashes(&ctx, &installed, chosen, rename.as_ref(), args.force);
    // Under `--as`, the one skill is imported from a copy renamed to the new name.
    let renamed = match (&rename, chosen.first()) {
        (Some(new), Some(c)) => Some(rename::renamed_copy(&c.dir, new, config.limits())?),
        _ => None,
    };
    let dir_of = |c: &Candidate| renamed.as_ref().map_or_else(|| c.dir.clone(), |r| r.dir().to_path_buf());
    let requests: Vec<ImportRequest> = chosen
        .iter()
        .map(|c| ImportRequest { path: dir_of(c), only: None, origin: Some(c.provenance.clone()) })
        .collect();
    let by_dir: HashMap<String, &Candidate> = chosen.iter().map(|c| (dir_of(c).display().to_string(), *c)).collect();
    let scope = Scope::User;
    let trust = Trust::load(ctx.storage().home())?;
    let hold = ctx.registry.hold();
    let risk = |s: &Incoming| super::audit::import_note(&trust, scope, s.name.as_str(), &s.findings, hold);
    let (mut progress, finish) = skill_progress();
    let limits = ctx.storage().limits();
    if args.dry_run {
        let mut preview = import::preview_all(ctx.storage(), scope, &requests, limits, &mut progress);
        finish();
        for item in &mut preview.items {
            relabel(&mut item.source, &by_dir);
        }
        // Some skills would come in, some not: that is a success, saying what would not.
        let installs = preview.items.iter().any(|i| !matches!(i.state, ItemState::Refused { .. }));
        let from_import = preview.items.iter().filter_map(|i| match &i.state {
            ItemState::Refused { error } => Some((i.skill.as_ref().map(|s| s.name.as_str()), i.source.as_str(), error)),
            _ => None,
        });
        let errors = preview.errors.iter().map(|e| (None, e.source.as_str(), &e.error));
        let refused = refused_all(&fetched, &notes, &clashes, from_import.chain(errors), &by_dir);
        if args.json {
            output::json(&AddJson {
                source: &fetched.origin,
                dry_run: true,
                items: &preview.items,
                clashes: &clashes,
                notes: notes_json(&notes),
                refused: &refused,
            })?;
        } else {
            print_head(&fetched)?;
            for item in &preview.items {
                match refused_line(&item.source, &refused) {
                    Some(line) => crate::output::outln!("{line}"),
                    None => crate::output::outln!("{}", preview_line(item, &risk)),
                }
            }
            print_rest(&notes, &refused, &preview.items.iter().map(|i| i.source.as_str()).collect::<Vec<_>>())?;
            let mut tally: BTreeMap<&str, usize> = BTreeMap::new();
            for item in &preview.items {
                *tally.entry(preview_word(&item.state)).or_default() += 1;
            }
            let said: Vec<String> = tally.iter().map(|(k, v)| format!("{v} {k}")).collect();
            let mut line = format!("Would add into {scope}: {}", said.join(", "));
            line.push_str(&more_refused(
                &refused,
                &preview.items.iter().map(|i| i.source.as_str()).collect::<Vec<_>>(),
            ));
            crate::output::outln!("{line}; nothing was written.");
        }
        return Ok(outcome(installs, &refused));
    }
    // Every skill asked for may have been refused or taken by another: nothing to import then.
    let mut report = if requests.is_empty() {
        BatchReport::default()
    } else {
        import::import_batch(ctx.storage(), scope, &requests, limits, &mut progress)
            .with_context(|| format!("could not start adding into {scope}"))?
    };
    finish();
    // Each skill stored (or already equal) is remembered with its source, in one write.
    let mut installed = installed;
    let mut recorded = false;
    for item in &report.items {
        let (ImportState::Imported { .. } | ImportState::Unchanged { .. }, Some(skill)) = (&item.state, &item.skill)
        else {
            continue;
        };
        let Some(c) = by_dir.get(&item.source) else { continue };
        // The source's own name for it, when it is kept under another (`--as`).
        let upstream = renamed.as_ref().and_then(|_| setup::stored_name(c)).map(|n| n.as_str().to_owned());
        // A record already saying this keeps its time: nothing was installed.
        let known = installed
            .get(skill.name.as_str())
            .is_some_and(|r| r.source == c.provenance && r.digest == skill.digest && r.upstream_name == upstream);
        if !known {
            installed.record_as(skill.name.as_str(), c.provenance.clone(), skill.digest, upstream);
            recorded = true;
        }
    }
    if recorded {
        installed.save()?;
    }
    for item in &mut report.items {
        relabel(&mut item.source, &by_dir);
        if let ImportState::Imported { warnings, .. } = &item.state {
            output::print_warnings(warnings);
        }
    }
    let auto = super::autosync::after_change();
    let installs = report.imported() + report.unchanged() > 0;
    let from_import = report.items.iter().filter_map(|i| match &i.state {
        ImportState::Refused { error } => Some((i.skill.as_ref().map(|s| s.name.as_str()), i.source.as_str(), error)),
        _ => None,
    });
    let errors = report.errors.iter().map(|e| (None, e.source.as_str(), &e.error));
    let refused = refused_all(&fetched, &notes, &clashes, from_import.chain(errors), &by_dir);
    if args.json {
        super::autosync::json(
            &AddJson {
                source: &fetched.origin,
                dry_run: false,
                items: &report.items,
                clashes: &clashes,
                notes: notes_json(&notes),
                refused: &refused,
            },
            &auto,
        )?;
    } else {
        print_head(&fetched)?;
        for item in &report.items {
            match refused_line(&item.source, &refused) {
                Some(line) => crate::output::outln!("{line}"),
                None => crate::output::outln!("{}", report_line(item, &risk)),
            }
        }
        let shown: Vec<&str> = report.items.iter().map(|i| i.source.as_str()).collect();
        print_rest(&notes, &refused, &shown)?;
        let mut line = summary(&report, scope);
        line.push_str(&more_refused(&refused, &shown));
        crate::output::outln!("{line}");
        super::autosync::print(&auto)?;
    }
    Ok(outcome(installs, &refused))
}

/// How `add` ends: refused (exit 2) when nothing could be installed and something was refused;
/// a success when some skills came in, the others named as refused.
fn outcome(installs: bool, refused: &[Refused]) -> Outcome {
    if refused.is_empty() || installs { Outcome::Ok } else { Outcome::Refused }
}

/// Every skill asked for that is not installed, each with why and what would let it in: those
/// the source refused, those whose name is taken here, and those the import refused
/// (`(name, path in the source, why)`).
fn refused_all<'a>(
    fetched: &Fetched,
    notes: &[&Note],
    clashes: &[Clash],
    from_import: impl Iterator<Item = (Option<&'a str>, &'a str, &'a ErrorInfo)>,
    by_dir: &HashMap<String, &Candidate>,
) -> Vec<Refused> {
    let candidate = |path: &str| fetched.skills.iter().find(|c| c.provenance.path == path);
    let mut refused: Vec<Refused> = notes.iter().filter_map(|n| Refused::of_note(n)).collect();
    refused.extend(clashes.iter().map(Refused::of_clash));
    for (name, path, error) in from_import {
        // A path the import could not open is still its scratch folder: named by its candidate.
        let (c, path) = match by_dir.get(path) {
            Some(c) => (Some(*c), c.provenance.path.as_str()),
            None => (candidate(path), path),
        };
        refused.push(Refused::of_import(c, name, path, error));
    }
    refused
}

/// The line of a skill of the import (by its path in the source) when it was refused.
fn refused_line(path: &str, refused: &[Refused]) -> Option<String> {
    refused.iter().find(|r| r.path == path).map(Refused::line)
}

/// `; N more refused above: PATH, PATH` for the skills refused before the import saw them
/// (`shown`: the paths the import's own lines cover).
fn more_refused(refused: &[Refused], shown: &[&str]) -> String {
    let mut more: Vec<&str> = Vec::new();
    for r in refused.iter().filter(|r| !shown.contains(&r.path.as_str())) {
        if !more.contains(&r.path.as_str()) {
            more.push(&r.path);
        }
    }
    if more.is_empty() {
        return String::new();
    }
    format!("; {} more refused above: {}", more.len(), more.join(", "))
}

/// The JSON of `add`.
#[derive(Debug, Serialize)]
struct AddJson<'a, T: Serialize> {
    /// The source's top, resolved.
    source: &'a Provenance,
    dry_run: bool,
    /// One per skill taken, as `import --json` gives them (`source` is the path in the source).
    items: &'a [T],
    /// Skills not taken because a skill of that name came from elsewhere.
    clashes: &'a [Clash],
    /// What was left out of the source, and why.
    notes: Vec<NoteJson<'a>>,
    /// Every skill asked for that is not installed: `{name, path, reason_code, reason, fix}`.
    refused: &'a [Refused],
}

#[derive(Debug, Serialize)]
struct NoteJson<'a> {
    path: &'a str,
    message: &'a str,
    refused: bool,
}

fn notes_json<'a>(notes: &[&'a Note]) -> Vec<NoteJson<'a>> {
    notes.iter().map(|n| NoteJson { path: &n.path, message: &n.what, refused: n.refuses() }).collect()
}

/// What a source holds, for a script to choose from (`add --json` without a choice).
fn choices_json(fetched: &Fetched) -> serde_json::Value {
    let skills: Vec<serde_json::Value> =
        fetched.skills.iter().map(|c| serde_json::json!({ "name": c.name, "path": c.provenance.path })).collect();
    let plugins: Vec<serde_json::Value> = fetched
        .plugins
        .iter()
        .map(|p| {
            let paths: Vec<String> = p.skills.iter().map(|s| fetched.origin.below(s).path).collect();
            serde_json::json!({ "name": p.name, "description": p.description, "skills": paths })
        })
        .collect();
    let elsewhere: Vec<serde_json::Value> = fetched
        .elsewhere
        .iter()
        .map(|p| serde_json::json!({ "name": p.name, "description": p.description, "source": p.source, "ref": p.reference }))
        .collect();
    serde_json::json!({
        "source": fetched.origin,
        "needs_choice": true,
        "skills": skills,
        "plugins": plugins,
        "plugins_elsewhere": elsewhere,
        "notes": notes_json(&fetched.notes.iter().collect::<Vec<_>>()),
        "refused": fetched.notes.iter().filter_map(Refused::of_note).collect::<Vec<_>>(),
    })
}

/// The item's `source` (the scratch folder it was read from) as its path inside the source.
fn relabel(source: &mut String, by_dir: &HashMap<String, &Candidate>) {
    if let Some(c) = by_dir.get(source.as_str()) {
        *source = c.provenance.path.clone();
    }
}

fn print_head(fetched: &Fetched) -> anyhow::Result<()> {
    crate::output::outln!("From {}:", fetched.origin.short());
    Ok(())
}

/// After the import's lines: each skill refused before the import saw it (`shown`: the paths
/// those lines cover), with why and what would let it in; then what was left out.
fn print_rest(notes: &[&Note], refused: &[Refused], shown: &[&str]) -> anyhow::Result<()> {
    for r in refused.iter().filter(|r| !shown.contains(&r.path.as_str())) {
        crate::output::outln!("{}", r.line());
    }
    for n in notes.iter().filter(|n| !n.refuses()) {
        crate::output::outln!("note       {}: {}", n.path, n.what);
    }
    Ok(())
}

/// The skills taken and what was asked for, or a message saying how to choose (exit 2).
enum Chosen<'a> {
    These(Vec<&'a Candidate>, Asked),
    Ask(String),
    /// A marketplace plugin whose skills live in another repository.
    Elsewhere(&'a RemotePlugin),
}

/// What the user asked for: every skill of the source, or these paths inside it (which may
/// name skills that were refused).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Asked {
    All,
    Paths(Vec<String>),
}

impl Asked {
    fn covers(&self, path: &str) -> bool {
        match self {
            Asked::All => true,
            Asked::Paths(paths) => paths.iter().any(|p| p == path),
        }
    }
}

/// Whether `path` (inside the source) is `dir` or below it.
fn is_under(path: &str, dir: &str) -> bool {
    dir == "." || path == dir || path.strip_prefix(dir).is_some_and(|rest| rest.starts_with('/'))
}

/// The notes that concern what was asked for: a refused skill when it was asked for; what was
/// left out of a skill taken, or of no skill at all.
fn relevant_notes<'a>(fetched: &'a Fetched, asked: &Asked, chosen: &[&Candidate]) -> Vec<&'a Note> {
    fetched
        .notes
        .iter()
        .filter(|n| {
            if n.refuses() {
                return asked.covers(&n.path);
            }
            let under = |c: &Candidate| is_under(&n.path, &c.provenance.path);
            chosen.iter().any(|c| under(c)) || !fetched.skills.iter().any(under)
        })
        .collect()
}

/// The refused skill `wanted` names (by its path inside the source, its folder's name or its
/// path below the source's top), if any.
fn refused_note<'a>(fetched: &'a Fetched, wanted: &str) -> Option<&'a Note> {
    let below = fetched.origin.below(wanted).path;
    fetched
        .notes
        .iter()
        .find(|n| n.refuses() && (n.path == wanted || n.path == below || n.path.rsplit('/').next() == Some(wanted)))
}

fn choose<'a>(fetched: &'a Fetched, args: &AddArgs) -> anyhow::Result<Chosen<'a>> {
    let all: Vec<&Candidate> = fetched.skills.iter().collect();
    let shown = fetched.origin.short();
    if let Some(plugin) = &args.plugin {
        if let Some(remote) = fetched.plugin_elsewhere(plugin) {
            return Ok(Chosen::Elsewhere(remote));
        }
        let Some(skills) = fetched.plugin(plugin) else {
            let names: Vec<&str> = fetched
                .plugins
                .iter()
                .map(|p| p.name.as_str())
                .chain(fetched.elsewhere.iter().map(|p| p.name.as_str()))
                .collect();
            anyhow::bail!(
                "{shown} has no plugin {plugin:?}; {}",
                if names.is_empty() {
                    "it has no marketplace.json".to_owned()
                } else {
                    format!("its plugins: {}", names.join(", "))
                }
            );
        };
        let paths = fetched
            .plugins
            .iter()
            .filter(|p| p.name == *plugin)
            .flat_map(|p| p.skills.iter().map(|s| fetched.origin.below(s).path))
            .collect();
        return Ok(Chosen::These(skills, Asked::Paths(paths)));
    }
    if !args.skills.is_empty() {
        let mut taken = Vec::new();
        let mut paths = Vec::new();
        for wanted in &args.skills {
            let found = all.iter().find(|c| c.answers_to(wanted));
            match found {
                Some(c) if !taken.contains(c) => {
                    taken.push(*c);
                    paths.push(c.provenance.path.clone());
                }
                Some(_) => {}
                None => {
                    if let Some(note) = refused_note(fetched, wanted) {
                        paths.push(note.path.clone());
                        continue;
                    }
                    let names: Vec<&str> = all.iter().map(|c| c.name.as_str()).collect();
                    let close = skilldeck_skill::name::suggestions(wanted, names.iter().copied());
                    let hint =
                        if close.is_empty() { String::new() } else { format!(" (did you mean {}?)", close.join(", ")) };
                    anyhow::bail!("{shown} holds no skill {wanted:?}{hint}; it holds: {}", names.join(", "));
                }
            }
        }
        return Ok(Chosen::These(taken, Asked::Paths(paths)));
    }
    if all.is_empty() {
        let mut message = format!("{shown} holds no skill itself; its plugins live in other repositories:\n");
        for p in &fetched.elsewhere {
            message.push_str(&format!("  plugin {:<25} {}\n", p.name, p.source));
        }
        message.push_str("add one with --plugin NAME");
        return Ok(Chosen::Ask(message));
    }
    if args.all || all.len() == 1 {
        return Ok(Chosen::These(all, Asked::All));
    }
    if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
        let picked = pick(fetched, all)?;
        let paths = picked.iter().map(|c| c.provenance.path.clone()).collect();
        return Ok(Chosen::These(picked, Asked::Paths(paths)));
    }
    let mut message = format!("{shown} holds {} skills:\n", all.len());
    for c in &all {
        message.push_str(&format!("  {:<32} {}\n", c.name, c.provenance.path));
    }
    for p in &fetched.plugins {
        message.push_str(&format!("  plugin {:<25} {} skills\n", p.name, p.skills.len()));
    }
    for p in &fetched.elsewhere {
        message.push_str(&format!("  plugin {:<25} in {}\n", p.name, p.source));
    }
    message.push_str("choose with --skill NAME (repeatable), --plugin NAME or --all");
    Ok(Chosen::Ask(message))
}

/// The terminal's picker: a numbered list, answered with numbers and ranges, `all` or nothing.
fn pick<'a>(fetched: &'a Fetched, all: Vec<&'a Candidate>) -> anyhow::Result<Vec<&'a Candidate>> {
    crate::output::errln!("{} holds {} skills:", fetched.origin.short(), all.len());
    for (i, c) in all.iter().enumerate() {
        crate::output::errln!("  {:>3}  {:<32} {}", i + 1, c.name, c.provenance.path);
    }
    for p in &fetched.plugins {
        crate::output::errln!("       plugin {} ({} skills): type its name", p.name, p.skills.len());
    }
    for p in &fetched.elsewhere {
        crate::output::errln!(
            "       plugin {} lives in {}: stop here and add it with --plugin {}",
            p.name,
            p.source,
            p.name
        );
    }
    loop {
        crate::output::err!("Add which? (e.g. 1,3-5, all, a plugin's name; empty to stop) ");
        let _ = std::io::stderr().flush();
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line)?;
        let answer = line.trim();
        if answer.is_empty() {
            anyhow::bail!("nothing chosen; nothing was added");
        }
        if answer == "all" {
            return Ok(all);
        }
        if let Some(skills) = fetched.plugin(answer) {
            return Ok(skills);
        }
        match numbers(answer, all.len()) {
            Some(picked) => return Ok(picked.into_iter().filter_map(|i| all.get(i).copied()).collect()),
            None => crate::output::errln!("  {answer:?} is not a list of numbers from 1 to {}", all.len()),
        }
    }
}

/// `1,3-5` as zero-based indices below `len`, in order and without repeats.
fn numbers(text: &str, len: usize) -> Option<Vec<usize>> {
    let mut out = Vec::new();
    for part in text.split([',', ' ']).filter(|p| !p.is_empty()) {
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (a.trim().parse::<usize>().ok()?, b.trim().parse::<usize>().ok()?),
            None => {
                let n = part.trim().parse::<usize>().ok()?;
                (n, n)
            }
        };
        if a == 0 || b < a || b > len {
            return None;
        }
        for i in a - 1..b {
            if !out.contains(&i) {
                out.push(i);
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Splits off the candidates whose name (or the one `--as` gives) a user skill from elsewhere
/// holds (unless `force`).
fn clashes<'a>(
    ctx: &Ctx,
    installed: &InstalledSkills,
    chosen: Vec<&'a Candidate>,
    rename: Option<&SkillName>,
    force: bool,
) -> (Vec<&'a Candidate>, Vec<Clash>) {
    let mut kept = Vec::new();
    let mut clashes = Vec::new();
    for c in chosen {
        let name = rename.cloned().or_else(|| setup::stored_name(c));
        let taken = name.as_ref().and_then(|n| setup::taken_as(ctx.storage(), installed, c, n));
        match taken {
            Some(taken) if !force => clashes.push(Clash {
                name: name.map_or_else(|| c.name.clone(), |n| n.as_str().to_owned()),
                path: c.provenance.path.clone(),
                from: match &taken {
                    setup::Taken::OtherSource(from) => Some(from.clone()),
                    setup::Taken::MadeHere | setup::Taken::Shadows(_) => None,
                },
                shadows: match taken {
                    setup::Taken::Shadows(scope) => Some(scope.to_string()),
                    setup::Taken::MadeHere | setup::Taken::OtherSource(_) => None,
                },
            }),
            _ => kept.push(c),
        }
    }
    (kept, clashes)
}

#[cfg(test)]
mod tests {
    use super::numbers;

    #[test]
    fn numbers_read_lists_and_ranges() {
        assert_eq!(numbers("1,3-4", 5), Some(vec![0, 2, 3]));
        assert_eq!(numbers("2 2 1", 3), Some(vec![1, 0]));
        assert_eq!(numbers("0", 3), None);
        assert_eq!(numbers("4", 3), None);
        assert_eq!(numbers("3-1", 3), None);
        assert_eq!(numbers("x", 3), None);
    }
}
