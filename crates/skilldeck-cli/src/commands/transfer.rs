//! `skilldeck export`: a stored skill back out to a folder or a `.zip` archive.
//! Holds the export and its destination checks; importing is `import`.

use crate::context::Ctx;
use crate::output::Outcome;
use anyhow::{Context as _, bail};
use skilldeck_skill::{Scope, SkillFiles};
use std::io::Write as _;
use std::path::Path;

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
    crate::output::outln!("Exported {name} ({scope}, {} files) to {}", snap.files.len(), dest.display());
    if let Some(note) = hold_note(&ctx, scope, name.as_str())? {
        eprintln!("{note}");
    }
    Ok(Outcome::Ok)
}

/// The note for a skill the audit holds back: exported all the same (the copy is the user's to
/// read), but whoever gets it should know why it is held. `None` when it is not held.
fn hold_note(ctx: &Ctx, scope: Scope, name: &str) -> anyhow::Result<Option<String>> {
    let Some(entry) = ctx.registry.get(scope, name)? else { return Ok(None) };
    let held_by = ctx.registry.held_by(&entry);
    if held_by.is_empty() {
        return Ok(None);
    }
    let findings: Vec<String> = held_by
        .iter()
        .map(|m| {
            let at = m.line.map_or_else(|| m.file.clone(), |l| format!("{}:{l}", m.file));
            format!("{} {} at {at}", m.severity, m.rule)
        })
        .collect();
    Ok(Some(format!(
        "note: {name} is HELD by the audit ({}): models, MCP clients and agents' folders do not get it here. \
         The export holds it as it is; read `skilldeck audit {name}` before anyone uses the copy",
        findings.join("; ")
    )))
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

pub(crate) fn write_folder(files: &SkillFiles, dest: &Path) -> anyhow::Result<()> {
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
