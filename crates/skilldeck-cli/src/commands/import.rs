//! `skilldeck import`: skills in from folders, archives and collections of them.
//! Holds the one-skill output (as before collections) and the bulk output; reading is the core's.

use crate::context::Ctx;
use crate::output::Outcome;
use crate::output::{self, DiagJson};
use anyhow::Context as _;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use skilldeck_skill::grants::GrantRequest;
use skilldeck_skill::{Diagnostic, Scope};
use skilldeck_store::import::{
    self, BatchProgress, BatchReport, ImportError, ImportRequest, ImportState, ImportedItem, Incoming, ItemState,
    Layout, PreviewItem, Source, Stored,
};
use skilldeck_store::trust::{GrantsView, Trust};
use std::collections::BTreeMap;
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};

/// Imports below this size get no progress bar.
const PROGRESS_MIN_BYTES: u64 = 4 << 20;

/// Bulk imports of fewer skills get no progress bar.
const PROGRESS_MIN_SKILLS: usize = 50;

/// How `import` runs.
#[derive(Debug, Clone, Copy)]
pub struct ImportFlags {
    /// Show what would happen; write nothing.
    pub dry_run: bool,
    /// Approve the skills' allowed-tools as well.
    pub trust: bool,
    /// Print JSON.
    pub json: bool,
}

/// Imports each path: a skill as its next revision (unless unchanged), a collection skill by
/// skill. `Refused` (exit 2) when any path or skill was refused; the rest is imported.
pub fn import(paths: &[PathBuf], scope: Scope, flags: ImportFlags) -> anyhow::Result<Outcome> {
    if scope.is_read_only() {
        anyhow::bail!(skilldeck_store::StorageError::ReadOnlyScope { scope });
    }
    let ctx = Ctx::open()?;
    match paths {
        [one] if Source::layout_of(one) == Layout::Skill => import_one(&ctx, one, scope, flags),
        _ => import_many(&ctx, paths, scope, flags),
    }
}

/// The JSON of a one-skill import.
#[derive(Debug, Serialize)]
struct Imported<'a> {
    name: &'a str,
    scope: Scope,
    revision: u64,
    digest: String,
    /// Whether the files equal the current revision's, so nothing was written.
    unchanged: bool,
    valid: bool,
    diagnostics: Vec<DiagJson<'a>>,
    /// What its allowed-tools asks for and whether it is in force.
    grants: GrantsView,
}

/// A progress bar on stderr when it is a terminal, shown once the import turns out large.
fn byte_progress() -> impl FnMut(u64, u64) {
    let tty = std::io::stderr().is_terminal();
    let mut bar: Option<ProgressBar> = None;
    move |done, total| {
        if !tty || total < PROGRESS_MIN_BYTES {
            return;
        }
        let b = bar.get_or_insert_with(|| {
            let b = ProgressBar::new(total);
            if let Ok(style) = ProgressStyle::with_template("{msg} [{bar:30}] {bytes}/{total_bytes}") {
                b.set_style(style.progress_chars("=> "));
            }
            b.set_message("reading");
            b
        });
        b.set_position(done);
        if done >= total {
            b.finish_and_clear();
        }
    }
}

/// A progress bar counting skills on stderr when it is a terminal: reading, then writing.
pub(crate) fn skill_progress() -> (impl FnMut(BatchProgress), impl FnOnce()) {
    let tty = std::io::stderr().is_terminal();
    let bar: std::rc::Rc<std::cell::RefCell<Option<ProgressBar>>> = Default::default();
    let shared = std::rc::Rc::clone(&bar);
    let update = move |p: BatchProgress| {
        let (phase, done, total) = match p {
            BatchProgress::Reading { done, total } => ("reading", done, total),
            BatchProgress::Writing { done, total } => ("writing", done, total),
        };
        if !tty || total < PROGRESS_MIN_SKILLS {
            return;
        }
        let mut slot = shared.borrow_mut();
        let b = slot.get_or_insert_with(|| {
            let b = ProgressBar::new(total as u64);
            if let Ok(style) = ProgressStyle::with_template("{msg:8} [{bar:30}] {pos}/{len} skills") {
                b.set_style(style.progress_chars("=> "));
            }
            b
        });
        if b.message() != phase {
            b.set_message(phase);
            b.set_length(total as u64);
        }
        b.set_position(done as u64);
    };
    let finish = move || {
        if let Some(b) = bar.borrow_mut().take() {
            b.finish_and_clear();
        }
    };
    (update, finish)
}

/// One path that is one skill: the output of before collections, with `unchanged`, `valid`
/// and `diagnostics` added to the JSON.
fn import_one(ctx: &Ctx, path: &Path, scope: Scope, flags: ImportFlags) -> anyhow::Result<Outcome> {
    let ImportFlags { dry_run, trust, json } = flags;
    let mut progress = byte_progress();
    let loaded = import::load(path, ctx.storage().limits(), &mut progress).map_err(explain)?;
    if dry_run {
        let preview = import::preview(ctx.storage(), scope, &loaded);
        if json {
            output::json(&preview)?;
        } else {
            let what = if let (true, Some(current)) = (preview.identical, preview.current_revision) {
                format!("is identical to v:{current}, so it would stay v:{current}")
            } else if preview.is_new {
                "would become a new skill".to_owned()
            } else {
                format!("would become v:{}", preview.next_revision)
            };
            crate::output::outln!(
                "{} ({} files, {}) {what} in {scope}; {}",
                preview.name,
                preview.file_count,
                output::size(preview.total_bytes),
                if preview.valid { "valid" } else { "INVALID" }
            );
            output::print_diags(&preview.diagnostics, "  ")?;
            super::trust::print_grants(&preview.grants, preview.name.as_str(), "  ")?;
            print_audit(ctx, scope, &loaded)?;
        }
        return Ok(Outcome::Ok);
    }
    let stored = import::store(ctx.storage(), scope, &loaded).map_err(explain)?;
    if let Stored::Written(out) = &stored {
        // The revision is live; what could not be finished after that is said, not failed.
        output::print_warnings(&out.warnings);
    }
    let name = loaded.name.as_str();
    let meta = &loaded.validation.meta;
    let mut approvals = Trust::load(ctx.storage().home())?;
    // An approval covers these files: the digest of what was just stored (or found equal).
    let content = Some(stored.digest());
    if trust && GrantRequest::of(meta).asks_for_shell() {
        approvals.approve(scope, name, meta, content.as_ref())?;
    }
    let grants = approvals.view(scope, name, meta, content.as_ref());
    let ready = (!stored.is_unchanged()).then(|| ready_for_next(ctx)).flatten();
    let auto = super::autosync::after_change();
    if json {
        super::autosync::json(
            &Imported {
                name,
                scope,
                revision: stored.revision().0,
                digest: stored.digest().short(),
                unchanged: stored.is_unchanged(),
                valid: loaded.validation.is_valid(),
                diagnostics: output::diags_json(&loaded.validation.diagnostics),
                grants,
            },
            &auto,
        )?;
        return Ok(Outcome::Ok);
    }
    match &stored {
        Stored::Written(out) => {
            crate::output::outln!(
                "Imported {name} into {scope} as v:{} ({}, {} files)",
                out.revision,
                out.digest,
                loaded.files.len()
            )
        }
        Stored::Unchanged { revision, digest, .. } => {
            crate::output::outln!(
                "{name} in {scope}: unchanged, still v:{revision} ({digest}, {} files)",
                loaded.files.len()
            )
        }
    }
    if !loaded.skipped.is_empty() {
        crate::output::outln!("  left out: {}", loaded.skipped.join(", "));
    }
    if !loaded.validation.is_valid() {
        crate::output::outln!("  it is INVALID, so models will not see it until it is fixed:");
    }
    output::print_diags(&loaded.validation.diagnostics, "  ")?;
    super::trust::print_grants(&grants, name, "  ")?;
    print_audit(ctx, scope, &loaded)?;
    if let Some(line) = ready {
        crate::output::outln!("{line}");
    }
    super::autosync::print(&auto)?;
    Ok(Outcome::Ok)
}

/// The audit of one incoming skill: a line saying what was found and whether it is held, then
/// each finding at medium or above.
fn print_audit(ctx: &Ctx, scope: Scope, loaded: &import::LoadedSkill) -> anyhow::Result<()> {
    let report = skilldeck_store::audits::audit_with_skipped(&loaded.files, &loaded.skipped);
    let trust = Trust::load(ctx.storage().home())?;
    let note = super::audit::import_note(&trust, scope, loaded.name.as_str(), &report.findings, ctx.registry.hold());
    if let Some(note) = note.strip_prefix(", ") {
        crate::output::outln!("  {note}");
        let serious: Vec<_> =
            report.findings.into_iter().filter(|f| f.severity >= skilldeck_audit::RiskLevel::Medium).collect();
        super::audit::print_findings(&serious, "    ")?;
    }
    Ok(())
}

/// Adds the stable code to an import error's message.
fn explain(e: ImportError) -> anyhow::Error {
    let code = e.code();
    anyhow::Error::new(e).context(format!("import failed [{code}]"))
}

/// Many paths, or a collection: a line per skill, then the counts.
fn import_many(ctx: &Ctx, paths: &[PathBuf], scope: Scope, flags: ImportFlags) -> anyhow::Result<Outcome> {
    let requests: Vec<ImportRequest> = paths.iter().map(ImportRequest::all).collect();
    let limits = ctx.storage().limits();
    let (mut progress, finish) = skill_progress();
    let trust = Trust::load(ctx.storage().home())?;
    let hold = ctx.registry.hold();
    let risk = |s: &Incoming| super::audit::import_note(&trust, scope, s.name.as_str(), &s.findings, hold);
    if flags.dry_run {
        let preview = import::preview_all(ctx.storage(), scope, &requests, limits, &mut progress);
        finish();
        if flags.json {
            output::json(&preview)?;
        } else {
            for item in &preview.items {
                crate::output::outln!("{}", preview_line(item, &risk));
            }
            for e in &preview.errors {
                crate::output::outln!("refused    {}: {} [{}]", e.source, e.error.message, e.error.code);
            }
            let mut tally: BTreeMap<&str, usize> = BTreeMap::new();
            for item in &preview.items {
                *tally.entry(preview_word(&item.state)).or_default() += 1;
            }
            let said: Vec<String> = tally.iter().map(|(k, v)| format!("{v} {k}")).collect();
            crate::output::outln!("Would import into {scope}: {}; nothing was written.", said.join(", "));
        }
        let refused =
            !preview.errors.is_empty() || preview.items.iter().any(|i| matches!(i.state, ItemState::Refused { .. }));
        return Ok(if refused { Outcome::Refused } else { Outcome::Ok });
    }
    let report = import::import_batch(ctx.storage(), scope, &requests, limits, &mut progress)
        .with_context(|| format!("could not start the import into {scope}"))?;
    finish();
    for item in &report.items {
        if let ImportState::Imported { warnings, .. } = &item.state {
            output::print_warnings(warnings);
        }
    }
    if flags.trust {
        approve_all(ctx, scope, &report)?;
    }
    let ready = if report.imported() > 0 { ready_for_next(ctx) } else { None };
    let auto = super::autosync::after_change();
    if flags.json {
        super::autosync::json(&BulkJson::of(&report, scope), &auto)?;
    } else {
        for item in &report.items {
            crate::output::outln!("{}", report_line(item, &risk));
        }
        for e in &report.errors {
            crate::output::outln!("refused    {}: {} [{}]", e.source, e.error.message, e.error.code);
        }
        crate::output::outln!("{}", summary(&report, scope));
        if let Some(line) = ready {
            crate::output::outln!("{line}");
        }
        super::autosync::print(&auto)?;
    }
    let refused = report.refused() > 0 || !report.errors.is_empty();
    Ok(if refused { Outcome::Refused } else { Outcome::Ok })
}

/// Leaves what was just stored ready for the next command: listed into the persisted parse
/// cache (digests included, as `list --json` wants them), so a `view` or `list` right after
/// reads and audits none of it again; and with the vectors ranking by meaning needs, so the
/// next `find` or `prompt --request` ranks it by meaning. Gives the line saying what the
/// vectors took, or why there are none yet; the import itself stands either way.
fn ready_for_next(ctx: &Ctx) -> Option<String> {
    skilldeck_core::SkillRegistry::new(ctx.storage().clone()).with_digests(true).cache_what_was_written();
    match super::model::index_after_change() {
        Ok(Some(done)) => {
            let skills = if done.computed == 1 { "skill" } else { "skills" };
            Some(format!("Ranked by meaning: {} {skills} embedded in {:.1} s.", done.computed, done.seconds))
        }
        Ok(None) => None,
        Err(e) => Some(format!("note: no meaning vectors yet ({e:#}); `skilldeck model index` computes them")),
    }
}

/// With `--trust`: approves the allowed-tools of every skill stored by (or already equal to)
/// this import, writing the approvals once.
fn approve_all(ctx: &Ctx, scope: Scope, report: &BatchReport) -> anyhow::Result<()> {
    // Each approval covers the files this import stored (or found equal): the item's digest.
    let asking: Vec<(&str, &skilldeck_skill::SkillMeta, _)> = report
        .items
        .iter()
        .filter(|i| !matches!(i.state, ImportState::Refused { .. }))
        .filter_map(|i| i.skill.as_ref())
        .filter(|s| GrantRequest::of(&s.meta).asks_for_shell())
        .map(|s| (s.name.as_str(), &s.meta, Some(&s.digest)))
        .collect();
    if !asking.is_empty() {
        Trust::load(ctx.storage().home())?.approve_all(scope, asking)?;
    }
    Ok(())
}

/// ` (from LOCATION)` for a skill of a collection, nothing for a path that is one skill.
fn from(item_location: &str, source: &str) -> String {
    if item_location == import::WHOLE { format!(" (from {source})") } else { format!(" (from {item_location})") }
}

/// `INVALID (code, code)` for a skill with errors, else nothing.
fn invalid_note(diags: &[Diagnostic], valid: bool) -> String {
    if valid {
        return String::new();
    }
    let codes: Vec<&str> = diags.iter().filter(|d| d.is_error()).map(|d| d.code.as_str()).collect();
    format!(", INVALID ({}): stored, never shown to models until fixed", codes.join(", "))
}

pub(crate) fn report_line(item: &ImportedItem, risk: &dyn Fn(&Incoming) -> String) -> String {
    let at = from(&item.location, &item.source);
    match (&item.state, &item.skill) {
        (ImportState::Imported { revision, .. }, Some(s)) => format!(
            "imported   {} as v:{revision} ({}, {} files){}{}{at}",
            s.name,
            s.digest,
            s.file_count,
            invalid_note(&s.diagnostics, s.valid),
            risk(s)
        ),
        (ImportState::Unchanged { revision }, Some(s)) => {
            format!("unchanged  {}, still v:{revision}{}{}{at}", s.name, invalid_note(&s.diagnostics, s.valid), risk(s))
        }
        (ImportState::Refused { error }, _) => {
            let place = if item.location == import::WHOLE { item.source.clone() } else { item.location.clone() };
            format!("refused    {place}: {} [{}]", error.message, error.code)
        }
        (ImportState::Imported { revision, .. } | ImportState::Unchanged { revision }, None) => {
            format!("imported   v:{revision}{at}")
        }
    }
}

pub(crate) fn preview_word(state: &ItemState) -> &'static str {
    match state {
        ItemState::New { .. } => "new",
        ItemState::Update { .. } => "to update",
        ItemState::Identical { .. } => "unchanged",
        ItemState::Refused { .. } => "refused",
    }
}

pub(crate) fn preview_line(item: &PreviewItem, risk: &dyn Fn(&Incoming) -> String) -> String {
    let at = from(&item.location, &item.source);
    let name = item.skill.as_ref().map_or("?", |s| s.name.as_str());
    let note = item.skill.as_ref().map(|s| invalid_note(&s.diagnostics, s.valid) + &risk(s)).unwrap_or_default();
    match &item.state {
        ItemState::New { revision } => format!("new        {name} would become v:{revision}{note}{at}"),
        ItemState::Update { revision, current } => {
            format!("update     {name} v:{current} would become v:{revision}{note}{at}")
        }
        ItemState::Identical { revision } => format!("unchanged  {name}, identical to v:{revision}{note}{at}"),
        ItemState::Refused { error } => {
            let place = if item.location == import::WHOLE { item.source.clone() } else { item.location.clone() };
            format!("refused    {place}: {} [{}]", error.message, error.code)
        }
    }
}

/// `Imported 196, unchanged 0, invalid but stored 1, refused 3 (…)`.
pub(crate) fn summary(report: &BatchReport, scope: Scope) -> String {
    let invalid = report.imported_invalid();
    let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
    for item in &report.items {
        if let ImportState::Refused { error } = &item.state {
            *reasons.entry(error.code.as_str()).or_default() += 1;
        }
    }
    let refused = report.refused();
    let mut line = format!(
        "Into {scope}: imported {}, unchanged {}, invalid but stored {invalid}, refused {refused}",
        report.imported() - invalid,
        report.unchanged()
    );
    if !reasons.is_empty() {
        let said: Vec<String> = reasons.iter().map(|(k, v)| format!("{v} {k}")).collect();
        line.push_str(&format!(" ({})", said.join(", ")));
    }
    if !report.errors.is_empty() {
        line.push_str(&format!("; {} path(s) held nothing to import", report.errors.len()));
    }
    line
}

/// The JSON of a bulk import: each skill, each path refused, and the counts.
#[derive(Debug, Serialize)]
struct BulkJson<'a> {
    skills: Vec<SkillJson<'a>>,
    errors: &'a [import::PathError],
    summary: SummaryJson,
}

#[derive(Debug, Serialize)]
struct SkillJson<'a> {
    source: &'a str,
    location: &'a str,
    name: Option<&'a str>,
    scope: Scope,
    /// `imported`, `unchanged` or `refused`.
    state: &'static str,
    revision: Option<u64>,
    digest: Option<String>,
    unchanged: bool,
    valid: Option<bool>,
    diagnostics: Vec<DiagJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a import::ErrorInfo>,
}

#[derive(Debug, Serialize)]
struct SummaryJson {
    imported: usize,
    unchanged: usize,
    invalid_stored: usize,
    refused: usize,
    paths_refused: usize,
}

impl<'a> BulkJson<'a> {
    fn of(report: &'a BatchReport, scope: Scope) -> Self {
        let skills = report
            .items
            .iter()
            .map(|i| {
                let (state, revision, error) = match &i.state {
                    ImportState::Imported { revision, .. } => ("imported", Some(revision.0), None),
                    ImportState::Unchanged { revision } => ("unchanged", Some(revision.0), None),
                    ImportState::Refused { error } => ("refused", None, Some(error)),
                };
                SkillJson {
                    source: &i.source,
                    location: &i.location,
                    name: i.skill.as_ref().map(|s| s.name.as_str()),
                    scope,
                    state,
                    revision,
                    digest: i.skill.as_ref().map(|s| s.digest.short()),
                    unchanged: state == "unchanged",
                    valid: i.skill.as_ref().map(|s| s.valid),
                    diagnostics: i.skill.as_ref().map(|s| output::diags_json(&s.diagnostics)).unwrap_or_default(),
                    error,
                }
            })
            .collect();
        let invalid = report.imported_invalid();
        Self {
            skills,
            errors: &report.errors,
            summary: SummaryJson {
                imported: report.imported() - invalid,
                unchanged: report.unchanged(),
                invalid_stored: invalid,
                refused: report.refused(),
                paths_refused: report.errors.len(),
            },
        }
    }
}
