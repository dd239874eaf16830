//! `skilldeck new`, `edit` and `diff`: writing a skill, changing it through a working copy
//! (never the store's live folder), and what changed between two revisions.

use crate::context::Ctx;
use crate::output::{self, Outcome};
use anyhow::{Context as _, bail};
use skilldeck_core::authoring::{self, Template};
use skilldeck_skill::{RelPath, Revision, Scope, SkillFiles, SkillName};
use skilldeck_store::drafts::{Draft, DraftError};
use std::process::Command;

/// `skilldeck new NAME`: stores a new skill from a template as v:1 in the user scope.
pub fn new(name: &str, description: Option<&str>, template: Option<&str>, json: bool) -> anyhow::Result<Outcome> {
    if let Some(problem) = authoring::name_problem(name) {
        bail!("{problem}");
    }
    let template = template.map_or(Ok(Template::Instructions), Template::parse).map_err(anyhow::Error::msg)?;
    let ctx = Ctx::open()?;
    let skill = SkillName::parse(name)?;
    if ctx.storage().skill_dir(Scope::User, &skill).is_dir() {
        bail!("there is already a skill named {name}; change it with `skilldeck edit {name}`, or choose another name");
    }
    let files = template.files(&skill, description);
    let out = ctx.registry.write_skill(Scope::User, &skill, &files)?;
    output::print_warnings(&out.warnings);
    if json {
        output::json(&serde_json::json!({
            "name": out.name, "scope": Scope::User, "revision": out.revision, "template": template.id(),
        }))?;
    } else {
        output::outln!("Created {name} v:{} (user) from the {:?} template.", out.revision, template.info().title);
        output::outln!("Write it with: skilldeck edit {name}");
    }
    Ok(Outcome::Ok)
}

/// What `skilldeck edit` was asked.
#[derive(Debug, Clone, Copy)]
pub struct EditFlags {
    /// Store the result even when it has errors or the store changed meanwhile.
    pub force: bool,
    /// Throw away the draft instead of editing.
    pub discard: bool,
}

/// `skilldeck edit NAME [PATH]`: the editor on a working copy; its changes become one revision.
pub fn edit(name: &str, path: Option<&str>, scope: Option<Scope>, flags: EditFlags) -> anyhow::Result<Outcome> {
    let ctx = Ctx::open()?;
    let (scope, skill) = match ctx.resolve(name, scope) {
        Ok(found) => found,
        Err(e) => {
            // A draft whose skill was deleted meanwhile is still found, to save or discard.
            let parsed = SkillName::parse(name)?;
            let s = scope.unwrap_or(Scope::User);
            if Draft::find(ctx.storage().home(), s, &parsed).is_none() {
                return Err(e);
            }
            (s, parsed)
        }
    };
    if scope.is_read_only() {
        bail!("{name} is in the {scope} scope, which its store owns; copy it into yours with `skilldeck import`");
    }
    if flags.discard {
        match Draft::find(ctx.storage().home(), scope, &skill) {
            Some(d) => {
                d.discard();
                output::outln!("Discarded the draft of {name}.");
            }
            None => output::outln!("{name} has no draft."),
        }
        return Ok(Outcome::Ok);
    }
    let rel =
        RelPath::parse(path.unwrap_or("SKILL.md")).with_context(|| format!("{path:?} is not a path in a skill"))?;
    let reopened = Draft::find(ctx.storage().home(), scope, &skill).is_some();
    let draft = Draft::open(ctx.storage(), scope, &skill)?;
    if reopened {
        let base = draft.base().map_or_else(|| "no revision".to_owned(), |r| format!("v:{r}"));
        output::outln!("Reopening your draft of {name} (begun from {base}, last changed {}).", draft.changed_at());
    }
    let limit = ctx.storage().limits().max_file_bytes;
    let file = rel.under(&draft.files_dir());
    let was_text = std::fs::read(&file).map_or(true, |b| std::str::from_utf8(&b).is_ok());
    if let Some(parent) = file.parent() {
        std::fs::create_dir_all(parent).with_context(|| format!("cannot make {}", parent.display()))?;
    }
    run_editor(&file, name)?;

    let (files, skipped) = draft.files(limit)?;
    for s in &skipped {
        output::errln!("warning: {s} is a link or a special file; it is not stored");
    }
    if !draft.changed(limit)? && draft.stale(ctx.storage())?.is_none() {
        let base = draft.base().map_or_else(String::new, |r| format!("; v:{r} stays"));
        draft.discard();
        output::outln!("No changes{base}.");
        return Ok(Outcome::Ok);
    }
    let now_text = std::fs::read(&file).map_or(true, |b| std::str::from_utf8(&b).is_ok());
    if was_text && !now_text && !flags.force {
        output::outln!(
            "{rel} is no longer UTF-8 text (a binary was pasted or saved into it). Your draft is kept: \
             `skilldeck edit {name} {rel}` reopens it, `--force` stores it anyway, `--discard` throws it away."
        );
        return Ok(Outcome::Invalid);
    }
    if files.skill_md().is_none_or(|b| b.iter().all(u8::is_ascii_whitespace)) {
        output::outln!(
            "The draft of {name} has an empty or missing SKILL.md; nothing was stored and your draft is kept: \
             `skilldeck edit {name}` reopens it, `--discard` throws it away."
        );
        return Ok(Outcome::Refused);
    }
    let checked = authoring::check(&skill, &files);
    if checked.invalid && !flags.force {
        output::outln!("{name} has problems; nothing was stored:");
        for n in checked.notes.iter().filter(|n| n.severity == "error") {
            let line = n.line.map_or_else(String::new, |l| format!(":{l}"));
            output::outln!("  {}{line}: {}", n.path, n.message);
        }
        output::outln!(
            "Your draft is kept: `skilldeck edit {name}` reopens it, `--force` stores it as it is, `--discard` \
             throws it away."
        );
        return Ok(Outcome::Invalid);
    }
    save(&ctx, draft, flags.force, name, &files)
}

/// Saves `draft` and says what became of it.
fn save(ctx: &Ctx, draft: Draft, force: bool, name: &str, files: &SkillFiles) -> anyhow::Result<Outcome> {
    let scope = draft.scope();
    match draft.save(ctx.storage(), force) {
        Ok(Some(out)) => {
            ctx.registry.invalidate(scope, Some(name));
            output::print_warnings(&out.warnings);
            let was = out.replaced.map_or_else(String::new, |r| format!(" (was v:{r})"));
            output::outln!("Stored {name} v:{}{was}, {} files, {}.", out.revision, files.len(), out.digest);
            super::autosync::print(&super::autosync::after_change())?;
            Ok(Outcome::Ok)
        }
        Ok(None) => {
            output::outln!("No changes.");
            Ok(Outcome::Ok)
        }
        Err(e @ (DraftError::Stale { .. } | DraftError::Empty { .. })) => {
            output::outln!("{e}.");
            if matches!(e, DraftError::Stale { .. }) {
                output::outln!("See what changed with: skilldeck diff {name}");
            }
            Ok(Outcome::Refused)
        }
        Err(e) => Err(e.into()),
    }
}

/// Runs `$VISUAL` (else `$EDITOR`) on `file` through the shell, so an editor given with its
/// arguments (`code --wait`) works; waits for it.
fn run_editor(file: &std::path::Path, name: &str) -> anyhow::Result<()> {
    let editor = ["VISUAL", "EDITOR"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|e| !e.trim().is_empty()))
        .context("set $VISUAL or $EDITOR to the editor to use (for example `export EDITOR=nano`)")?;
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(file)
        .status()
        .with_context(|| format!("could not start the editor {editor:?}"))?;
    if !status.success() {
        let code = status.code().map_or_else(|| "a signal".to_owned(), |c| format!("status {c}"));
        bail!(
            "the editor {editor:?} exited with {code}; nothing was stored and your draft is kept: `skilldeck edit \
             {name}` reopens it, `skilldeck edit {name} --discard` throws it away"
        );
    }
    Ok(())
}

/// `skilldeck diff NAME [FROM] [TO]`: per file, what changed between two revisions (by default
/// the current one against the one before it; with one revision, that one against the current).
pub fn diff(
    name: &str,
    from: Option<u64>,
    to: Option<u64>,
    scope: Option<Scope>,
    json: bool,
) -> anyhow::Result<Outcome> {
    let ctx = Ctx::open()?;
    let (scope, skill) = ctx.resolve(name, scope)?;
    let d = skilldeck_targets::diff::revisions(ctx.storage(), scope, &skill, from.map(Revision), to.map(Revision))?;
    let (from, to, diffs) = (d.from, d.to, d.files);
    let label = |r: Option<Revision>| r.map_or_else(|| "empty".to_owned(), |r| format!("v:{r}"));
    if json {
        output::json(&serde_json::json!({"name": skill, "scope": scope, "from": from, "to": to, "files": diffs}))?;
        return Ok(Outcome::Ok);
    }
    if diffs.is_empty() {
        output::outln!("{name}: {} and {} hold the same files.", label(from), label(Some(to)));
    }
    for d in &diffs {
        match &d.unified {
            Some(u) => output::outln!("{}", u.trim_end_matches('\n')),
            None => output::outln!("Binary file {} {:?} ({:?} → {:?} bytes)", d.path, d.change, d.sizes.0, d.sizes.1),
        }
    }
    Ok(Outcome::Ok)
}
