//! `skilldeck show` and `skilldeck cat`: one skill's metadata and tree, and one file's text.

use crate::context::Ctx;
use crate::output;
use crate::output::Outcome;
use anyhow::Context as _;
use skilldeck_skill::{RelPath, Scope};
use skilldeck_sources::installed::{Installed, InstalledSkills};
use skilldeck_store::trust::Trust;
use std::io::Write as _;

/// Prints metadata, diagnostics and the file tree.
pub fn show(name: &str, scope: Option<Scope>, json: bool) -> anyhow::Result<Outcome> {
    let (ctx, sync) = Ctx::open_listing()?;
    let (scope, name) = ctx.resolve(name, scope)?;
    let entry = ctx.registry.get(scope, name.as_str())?.with_context(|| format!("{name} vanished while reading"))?;
    // The scope that hides this one: the last after it in shadowing order that holds the name.
    let shadowed_by =
        Scope::ALL.into_iter().filter(|s| *s > scope).rfind(|s| ctx.storage().skill_dir(*s, &name).is_dir());
    let shadowed = shadowed_by.is_some();
    let tree = ctx.storage().read_tree_sync(scope, &name)?;
    let digest = ctx.registry.digest(scope, name.as_str())?;
    let content = skilldeck_store::trust::bound_content(scope, Some(&digest));
    let grants = Trust::load(ctx.storage().home())?.view(scope, name.as_str(), &entry.meta, content);
    let report = skilldeck_store::audits::audit_stored(ctx.storage(), scope, name.as_str())?;
    let held_by = ctx.registry.held_by(&entry);
    let installed = sourced(&ctx, scope, name.as_str());
    if json {
        output::json(&serde_json::json!({
            "name": entry.name,
            "scope": entry.scope,
            "version": entry.version,
            "revision": entry.revision,
            "valid": entry.valid,
            "shadowed": shadowed,
            "shadowed_by": shadowed_by,
            "offline": if scope == Scope::Team { sync.offline } else { None },
            "digest": digest.short(),
            "meta": entry.meta,
            "diagnostics": output::diags_json(&entry.diagnostics),
            "grants": grants,
            "held": !held_by.is_empty(),
            "audit": {
                "worst": report.worst(),
                "held_by": held_by,
                "findings": report.findings,
            },
            "source": installed.as_ref().map(|i| &i.source),
            "installed_digest": installed.as_ref().map(|i| i.digest.short()),
            "installed_at": installed.as_ref().map(|i| i.at.as_str()),
            "changed_since_install": installed.as_ref().map(|i| i.digest != digest),
            "files": tree,
        }))?;
        return Ok(Outcome::Ok);
    }
    let m = &entry.meta;
    crate::output::outln!(
        "{} ({scope}{})  {}",
        entry.name,
        shadowed_by.map(|s| format!(", shadowed by {s}")).unwrap_or_default(),
        output::badge(entry.version.as_deref())
    );
    crate::output::outln!("  status:      {}", if entry.valid { "valid" } else { "INVALID" });
    crate::output::outln!("  digest:      {digest}");
    if let Some(i) = &installed {
        let changed = if i.digest == digest { "" } else { " (changed here since it was added)" };
        crate::output::outln!("  source:      {}{changed}", i.source.short());
    }
    if let Some(d) = &m.description {
        crate::output::outln!("  description: {}", d.split_whitespace().collect::<Vec<_>>().join(" "));
    }
    for (label, value) in [
        ("description_zh", m.description_zh.as_deref()),
        ("compatibility", m.compatibility.as_deref()),
        ("license", m.license.as_deref()),
    ] {
        if let Some(v) = value {
            crate::output::outln!("  {label}: {v}");
        }
    }
    if let Some(t) = m.min_tier {
        crate::output::outln!("  min_tier:    {t}");
    }
    super::trust::print_grants(&grants, name.as_str(), "  ")?;
    if !m.dependencies.python.is_empty() || !m.dependencies.node.is_empty() {
        crate::output::outln!(
            "  dependencies (not installed): python {:?}, node {:?}",
            m.dependencies.python,
            m.dependencies.node
        );
    }
    if !entry.diagnostics.is_empty() {
        crate::output::outln!("  problems:");
        output::print_diags(&entry.diagnostics, "    ")?;
    }
    if !report.findings.is_empty() {
        let worst = report.worst().map(|w| w.as_str()).unwrap_or_default();
        crate::output::outln!("  audit:       {} finding(s), the worst {worst}", report.findings.len());
        if !held_by.is_empty() {
            crate::output::outln!(
                "  HELD: not listed to models, offered over MCP or synced until you read the findings and run `skilldeck trust {name}`"
            );
        }
        super::audit::print_findings(&report.findings, "    ")?;
    }
    crate::output::outln!("  files:");
    for f in &tree {
        crate::output::outln!("    {:<40} {}", f.path.as_str(), output::size(f.size));
    }
    Ok(Outcome::Ok)
}

/// Where a user skill came from, when `skilldeck add` put it there; a `sources.json` that
/// cannot be read is a warning, not a failure of `show`.
fn sourced(ctx: &Ctx, scope: Scope, name: &str) -> Option<Installed> {
    if scope != Scope::User {
        return None;
    }
    match InstalledSkills::load(ctx.storage().home()) {
        Ok(installed) => installed.get(name).cloned(),
        Err(e) => {
            crate::output::errln!("warning: {e}; not showing where {name} came from");
            None
        }
    }
}

/// Prints one file: text as text (SKILL.md without frontmatter), other bytes unchanged. On a
/// terminal, text is shown as `outln!` shows it (control characters as escapes), so a file
/// cannot drive the terminal; piped, the bytes are the file's.
pub fn cat(name: &str, path: Option<&str>, scope: Option<Scope>) -> anyhow::Result<Outcome> {
    let ctx = Ctx::open()?;
    let (scope, name) = ctx.resolve(name, scope)?;
    let rel = RelPath::parse(path.unwrap_or("SKILL.md"))
        .with_context(|| format!("bad path {:?}", path.unwrap_or_default()))?;
    let bytes = if rel.is_skill_md() {
        ctx.storage().read_file_sync(scope, &name, &rel)?.into_bytes()
    } else {
        ctx.storage().read_raw_file_sync(scope, &name, &rel)?
    };
    let mut out = std::io::stdout().lock();
    match std::str::from_utf8(&bytes) {
        Ok(text) if std::io::IsTerminal::is_terminal(&out) => out.write_all(output::shown(text).as_bytes())?,
        _ => out.write_all(&bytes)?,
    }
    Ok(Outcome::Ok)
}
