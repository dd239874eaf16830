//! `skilldeck import` and `skilldeck export`: skills in from folders and archives, and back out.

use crate::Outcome;
use crate::context::Ctx;
use crate::output;
use anyhow::{Context as _, bail};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use skilldeck_core::grants::GrantRequest;
use skilldeck_core::import::{self, ImportError};
use skilldeck_core::trust::{GrantsView, Trust};
use skilldeck_core::{Scope, SkillFiles};
use std::io::{IsTerminal as _, Write as _};
use std::path::Path;

/// Imports below this size get no progress bar.
const PROGRESS_MIN_BYTES: u64 = 4 << 20;

#[derive(Debug, Serialize)]
struct Imported<'a> {
    name: &'a str,
    scope: Scope,
    revision: u64,
    digest: String,
    /// What its allowed-tools asks for and whether it is in force.
    grants: GrantsView,
}

/// How `import` runs.
#[derive(Debug, Clone, Copy)]
pub struct ImportFlags {
    /// Show what would happen; write nothing.
    pub dry_run: bool,
    /// Approve the skill's allowed-tools as well.
    pub trust: bool,
    /// Print JSON.
    pub json: bool,
}

/// A progress bar on stderr when it is a terminal, shown once the import turns out large.
fn progress_bar() -> impl FnMut(u64, u64) {
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

/// Imports a folder or archive as the skill's next revision.
pub fn import(path: &Path, scope: Scope, flags: ImportFlags) -> anyhow::Result<Outcome> {
    let ImportFlags { dry_run, trust, json } = flags;
    let ctx = Ctx::open()?;
    let mut progress = progress_bar();
    let loaded = import::load(path, ctx.storage().limits(), &mut progress).map_err(explain)?;
    let preview = import::preview(ctx.storage(), scope, &loaded);
    if dry_run {
        if json {
            output::json(&preview)?;
        } else {
            let what = if preview.is_new { "a new skill".to_owned() } else { format!("v:{}", preview.next_revision) };
            crate::outln!(
                "{} ({} files, {}) would become {what} in {scope}; {}",
                preview.name,
                preview.file_count,
                output::size(preview.total_bytes),
                if preview.valid { "valid" } else { "INVALID" }
            );
            output::print_diags(&preview.diagnostics, "  ")?;
            super::trust::print_grants(&preview.grants, preview.name.as_str(), "  ")?;
        }
        return Ok(Outcome::Ok);
    }
    let out = import::store(ctx.storage(), scope, &loaded).map_err(explain)?;
    // The revision is live; what could not be finished after that is said, not failed.
    output::print_warnings(&out.warnings);
    let mut approvals = Trust::load(ctx.storage().home())?;
    if trust && GrantRequest::of(&loaded.validation.meta).asks_for_shell() {
        approvals.approve(scope, out.name.as_str(), &loaded.validation.meta)?;
    }
    let grants = approvals.view(scope, out.name.as_str(), &loaded.validation.meta);
    if json {
        output::json(&Imported {
            name: out.name.as_str(),
            scope,
            revision: out.revision.0,
            digest: out.digest.short(),
            grants,
        })?;
        return Ok(Outcome::Ok);
    }
    crate::outln!(
        "Imported {} into {scope} as v:{} ({}, {} files)",
        out.name,
        out.revision,
        out.digest,
        loaded.files.len()
    );
    if !loaded.skipped.is_empty() {
        crate::outln!("  left out: {}", loaded.skipped.join(", "));
    }
    if !loaded.validation.is_valid() {
        crate::outln!("  it is INVALID, so models will not see it until it is fixed:");
    }
    output::print_diags(&loaded.validation.diagnostics, "  ")?;
    super::trust::print_grants(&grants, out.name.as_str(), "  ")?;
    Ok(Outcome::Ok)
}

/// Adds the stable code to an import error's message.
fn explain(e: ImportError) -> anyhow::Error {
    let code = e.code();
    anyhow::Error::new(e).context(format!("import failed [{code}]"))
}

/// Writes a skill to a new folder, or to a `.zip` when `dest` ends in `.zip`.
pub fn export(name: &str, dest: &Path, scope: Option<Scope>) -> anyhow::Result<Outcome> {
    let ctx = Ctx::open()?;
    let (scope, name) = ctx.resolve(name, scope)?;
    check_export_dest(dest, ctx.storage().home().root())?;
    let snap = ctx.storage().snapshot(scope, &name)?;
    let is_zip = dest.extension().is_some_and(|e| e.eq_ignore_ascii_case("zip") || e.eq_ignore_ascii_case("skill"));
    if is_zip {
        write_zip(&snap.files, name.as_str(), dest)?;
    } else {
        write_folder(&snap.files, dest)?;
    }
    crate::outln!("Exported {name} ({scope}, {} files) to {}", snap.files.len(), dest.display());
    Ok(Outcome::Ok)
}

/// Refuses a destination that is a symbolic link (dangling or not) or lies inside Skilldeck's
/// own data folder, where an export would write into the live store.
fn check_export_dest(dest: &Path, home: &Path) -> anyhow::Result<()> {
    if std::fs::symlink_metadata(dest).is_ok_and(|m| m.file_type().is_symlink()) {
        bail!("{} is a symbolic link; export to a real path instead", dest.display());
    }
    let absolute = std::path::absolute(dest).with_context(|| format!("could not resolve {}", dest.display()))?;
    // Resolve the deepest part that exists (symlinks included), then add the rest.
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                existing = parent;
            }
            _ => break,
        }
    }
    let mut resolved = std::fs::canonicalize(existing).unwrap_or_else(|_| existing.to_path_buf());
    resolved.extend(rest.iter().rev());
    let home = std::fs::canonicalize(home).unwrap_or_else(|_| home.to_path_buf());
    if resolved.starts_with(&home) {
        bail!("{} is inside Skilldeck's data folder ({}); export somewhere outside it", dest.display(), home.display());
    }
    Ok(())
}

fn write_folder(files: &SkillFiles, dest: &Path) -> anyhow::Result<()> {
    if dest.exists() && std::fs::read_dir(dest).map(|mut d| d.next().is_some()).unwrap_or(true) {
        bail!("{} already exists and is not empty; choose a new folder", dest.display());
    }
    for (rel, bytes) in files.iter() {
        let path = rel.under(dest);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("could not create {}", parent.display()))?;
        }
        std::fs::write(&path, bytes).with_context(|| format!("could not write {}", path.display()))?;
    }
    Ok(())
}

fn write_zip(files: &SkillFiles, root: &str, dest: &Path) -> anyhow::Result<()> {
    if dest.exists() {
        bail!("{} already exists; choose a new file name", dest.display());
    }
    // create_new never follows a symlink planted at `dest` between the check and here.
    let file = std::fs::File::create_new(dest).with_context(|| format!("could not create {}", dest.display()))?;
    let mut zip = zip::ZipWriter::new(file);
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (rel, bytes) in files.iter() {
        zip.start_file(format!("{root}/{rel}"), opts)?;
        zip.write_all(bytes)?;
    }
    zip.finish()?;
    Ok(())
}
