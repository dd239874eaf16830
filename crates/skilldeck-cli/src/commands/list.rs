//! `skilldeck list`: every skill, valid or not, for people or as JSON.

use crate::context::Ctx;
use crate::output::Outcome;
use crate::output::{self, DiagJson};
use serde::Serialize;
use skilldeck_core::SkillRegistry;
use skilldeck_skill::risk::{RiskLevel, RiskMark};
use skilldeck_skill::{Scope, SkillEntry};
use skilldeck_sources::installed::InstalledSkills;
use skilldeck_store::trust::{GrantState, GrantsView, Trust};
use std::io::Write as _;

/// One skill in `list --json`.
#[derive(Debug, Serialize)]
struct Row<'a> {
    name: &'a str,
    scope: Scope,
    version: Option<&'a str>,
    revision: Option<u64>,
    valid: bool,
    shadowed: bool,
    /// For a team skill when the team store could not be refreshed: since when and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    offline: Option<&'a skilldeck_remote::Offline>,
    /// False when the user switched it off for agents (`skilldeck disable`).
    enabled: bool,
    description: Option<&'a str>,
    description_zh: Option<&'a str>,
    digest: Option<String>,
    file_count: usize,
    diagnostics: Vec<DiagJson<'a>>,
    /// What its allowed-tools asks for and whether the user approved it.
    grants: GrantsView,
    /// Whether the audit holds it back: not listed to models, not offered over MCP, not
    /// synced, until the user approves its findings (`skilldeck trust NAME`).
    held: bool,
    /// What the audit found.
    audit: AuditRow,
    /// Whether it came from a source (`skilldeck add`).
    sourced: bool,
    /// Where from, in short (`github.com/o/r@9d2f1ae, skills/pdf`), when sourced.
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<String>,
}

/// What the audit found in one skill, as `list --json` and `show --json` print it.
#[derive(Debug, Serialize)]
pub struct AuditRow {
    /// The most serious level found, if any.
    pub worst: Option<RiskLevel>,
    /// How many findings of each level.
    pub counts: std::collections::BTreeMap<&'static str, u32>,
    /// The unapproved findings that hold it back (empty when it is not held).
    pub held_by: Vec<RiskMark>,
}

impl AuditRow {
    /// The row for `entry` as `registry` sees it.
    pub fn of(registry: &SkillRegistry, entry: &SkillEntry) -> Self {
        let risk = entry.risk.clone().unwrap_or_default();
        let counts = RiskLevel::ALL.iter().map(|l| (l.as_str(), risk.count(*l))).collect();
        Self { worst: risk.worst(), counts, held_by: registry.held_by(entry) }
    }
}

/// Lists the skills of one scope or all.
pub fn run(scope: Option<Scope>, json: bool) -> anyhow::Result<Outcome> {
    let (mut ctx, sync) = Ctx::open_listing()?;
    if json {
        // The digests come with the one read of each skill (from its record when its files are
        // as written), not from a second pass over every file.
        ctx.registry = ctx.registry.with_digests(true);
    }
    let scopes = scope.map_or_else(|| Scope::ALL.to_vec(), |s| vec![s]);
    let entries = ctx.registry.list_metas_across(&scopes)?;
    let disabled = match ctx.config() {
        Ok(c) => c.listing.disabled,
        Err(e) => {
            crate::output::errln!("warning: {e:#}; showing every skill as enabled");
            Default::default()
        }
    };
    let trust = match Trust::load(ctx.storage().home()) {
        Ok(t) => t,
        Err(e) => {
            crate::output::errln!("warning: {e:#}; showing no skill's allowed-tools as approved");
            Trust::default()
        }
    };
    if json {
        // Read once for the listing; only user skills come from sources.
        let installed = match InstalledSkills::load(ctx.storage().home()) {
            Ok(i) => Some(i),
            Err(e) => {
                crate::output::errln!("warning: {e}; showing no skill as sourced");
                None
            }
        };
        let source_of = |scope: Scope, name: &str| {
            (scope == Scope::User).then(|| installed.as_ref()?.get(name).map(|i| i.source.short())).flatten()
        };
        // Rows are made and written a chunk at a time on every core, so a store of 20,000
        // skills never holds them all.
        output::json_rows(&entries, |l| {
            let e = &l.entry;
            let source = source_of(e.scope, &e.name);
            output::json_row(&Row {
                name: &e.name,
                scope: e.scope,
                version: e.version.as_deref(),
                revision: e.revision.map(|r| r.0),
                valid: e.valid,
                shadowed: l.shadowed,
                offline: if e.scope == Scope::Team { sync.offline.as_ref() } else { None },
                enabled: !disabled.contains(&e.name),
                description: e.meta.description.as_deref(),
                description_zh: e.meta.description_zh.as_deref(),
                digest: ctx.registry.digest(e.scope, &e.name).ok().map(|d| d.short()),
                file_count: e.file_count,
                diagnostics: output::diags_json(&e.diagnostics),
                grants: trust.view(
                    e.scope,
                    &e.name,
                    &e.meta,
                    ctx.registry.trust_content(e.scope, &e.name).ok().flatten().as_ref(),
                ),
                held: ctx.registry.is_held(e),
                audit: AuditRow::of(&ctx.registry, e),
                sourced: source.is_some(),
                source,
            })
        })?;
        // The process ends now: freeing every entry one at a time would only delay the exit.
        std::mem::forget(entries);
        std::mem::forget(ctx);
        return Ok(Outcome::Ok);
    }
    if entries.is_empty() {
        crate::output::outln!("No skills yet. Import one with `skilldeck import <folder-or-zip>`.");
        return Ok(Outcome::Ok);
    }
    // One write per 64 KiB, not one per line (stdout is line-buffered).
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    // Names as shown: a folder name a person made by hand may hold a control character.
    let width = entries.iter().map(|l| output::shown_line(&l.entry.name).len()).max().unwrap_or(4).max(4);
    for (i, l) in entries.iter().enumerate() {
        let e = &l.entry;
        let mut marks = Vec::new();
        if !e.valid {
            let n = e.diagnostics.iter().filter(|d| d.is_error()).count();
            marks.push(format!("INVALID ({n} error{})", if n == 1 { "" } else { "s" }));
        }
        if l.shadowed {
            // Entries are sorted by name then scope: the last of this name is the one listed.
            let by = entries[i..].iter().take_while(|o| o.entry.name == e.name).last().map(|o| o.entry.scope);
            marks.push(format!("shadowed by {}", by.unwrap_or(Scope::User)));
        }
        if disabled.contains(&e.name) {
            marks.push("off for agents".to_owned());
        }
        let held = ctx.registry.held_by(e);
        if let Some(worst) = held.iter().map(|m| m.severity).max() {
            marks.push(format!(
                "HELD: {} finding{}, the worst {worst}",
                held.len(),
                if held.len() == 1 { "" } else { "s" }
            ));
        }
        let content = ctx.registry.trust_content(e.scope, &e.name).ok().flatten();
        match trust.state(e.scope, &e.name, &e.meta, content.as_ref()) {
            GrantState::Untrusted | GrantState::Changed => marks.push("tools not approved".to_owned()),
            GrantState::None | GrantState::Bundled | GrantState::Trusted => {}
        }
        let desc = e.meta.description.as_deref().unwrap_or("");
        let desc: String = desc.split_whitespace().collect::<Vec<_>>().join(" ");
        let desc = skilldeck_select::listing::shorten(&desc, 80);
        // Each line as `outln!` prints it: what the skill wrote with its control characters escaped.
        writeln!(
            out,
            "{:<width$}  {:<6}  {:<7}  {}{}",
            output::shown_line(&e.name),
            e.scope.as_str(),
            output::shown_line(&output::badge(e.version.as_deref())),
            if marks.is_empty() { String::new() } else { format!("[{}] ", marks.join(", ")) },
            output::shown_line(&desc),
        )?;
    }
    out.flush()?;
    Ok(Outcome::Ok)
}
