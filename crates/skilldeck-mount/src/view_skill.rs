//! `view_skill`: the tool that loads a listed skill into the workspace and returns its text.
//! Holds the per-turn spec, the per-turn memo and the call itself; results live in `view_result`.

use crate::mount::{self, MOUNT_DIR, MountError, MountRecord};
use crate::sandbox::{EntryKind, Sandbox, SandboxError};
use crate::view_result::{ViewErrorCode, ViewOk, ViewResult};
use serde_json::{Value, json};
use skilldeck_select::catalogue::Catalogue;
use skilldeck_select::listing::{ListedSkill, Listing, ListingOptions};
use skilldeck_skill::frontmatter;
use skilldeck_skill::name::{self, SkillName};
use skilldeck_skill::relpath::RelPath;
use skilldeck_store::storage::FsStorage;
use std::collections::HashMap;

/// The tool's name.
pub const TOOL_NAME: &str = "view_skill";

/// The largest file `view_skill` returns, in bytes (256 KiB). Larger files stay in the mount,
/// where a shell can use them.
pub const MAX_VIEW_BYTES: u64 = 256 * 1024;

/// The system-prompt rule that lets a model notice and reload a changed skill.
pub const SELF_HEAL_RULE: &str = "If a skill you already loaded now shows a different version in the skills listing, \
     load it again with view_skill before relying on it.";

pub use skilldeck_select::tool::ToolSpec;

/// The spec for one turn: `name` is an `enum` of exactly the listed skills. `None` when no
/// skill is listed, since a schema cannot have an empty enum and the model has nothing to load.
pub fn tool_spec(listing: &Listing) -> Option<ToolSpec> {
    if listing.skills.is_empty() {
        return None;
    }
    let description = format!(
        "Load a skill listed under \"Skills\": without `path`, returns its instructions (SKILL.md) and copies \
         the whole skill into the workspace at {MOUNT_DIR}/<name>/ so its scripts can run from there. With `path`, \
         returns one of the skill's files (e.g. references/guide.md) as the instructions point to it."
    );
    Some(ToolSpec {
        name: TOOL_NAME.to_owned(),
        description,
        parameters: json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "enum": listing.names(), "description": "The skill's name, as listed."},
                "path": {"type": "string", "description": "A file inside the skill, relative to its folder. Omit it to load the instructions."}
            },
            "required": ["name"],
            "additionalProperties": false
        }),
    })
}

/// One turn of a session: the listing the model was shown and what it mounted so far.
#[derive(Debug, Clone)]
pub struct Turn {
    id: String,
    listing: Listing,
    mounted: HashMap<String, MountRecord>,
}

impl Turn {
    /// Starts a turn: rebuilds the listing from the catalogue (the registry).
    pub fn begin<C: Catalogue + ?Sized>(
        catalogue: &C,
        opts: &ListingOptions,
        id: impl Into<String>,
    ) -> Result<Self, C::Error> {
        Ok(Self::new(id, catalogue.listing(opts)?))
    }

    /// A turn over a listing already built.
    pub fn new(id: impl Into<String>, listing: Listing) -> Self {
        Self { id: id.into(), listing, mounted: HashMap::new() }
    }

    /// The turn's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The listing the model was shown this turn.
    pub fn listing(&self) -> &Listing {
        &self.listing
    }

    /// Shows the model a new listing from the next call on (after `find_skills` added to it),
    /// keeping what this turn mounted.
    pub fn set_listing(&mut self, listing: Listing) {
        self.listing = listing;
    }

    /// This turn's tool spec.
    pub fn spec(&self) -> Option<ToolSpec> {
        tool_spec(&self.listing)
    }
}

/// Runs one `view_skill` call. Every failure comes back as an error result, never as a panic
/// or a Rust error.
pub fn view_skill(store: &impl AsRef<FsStorage>, sandbox: &Sandbox, turn: &mut Turn, input: &Value) -> ViewResult {
    let raw_name = input.get("name").and_then(Value::as_str).unwrap_or_default();
    let raw_path = input.get("path").filter(|p| !p.is_null());
    let path = match raw_path {
        None => None,
        Some(Value::String(s)) => Some(s.as_str()),
        Some(_) => {
            return ViewResult::error(raw_name, None, ViewErrorCode::SkillPathInvalid, "`path` must be a string");
        }
    };
    let err = |code, msg: String| ViewResult::error(raw_name, path, code, msg);
    // Paths are checked before anything is mounted.
    let rel = match path.map(RelPath::parse).transpose() {
        Ok(r) => r,
        Err(e) => {
            return err(
                ViewErrorCode::SkillPathInvalid,
                format!("{e}; give a path relative to the skill folder, such as references/guide.md"),
            );
        }
    };
    let Some(listed) = turn.listing.skills.iter().find(|s| s.name == raw_name).cloned() else {
        let names = turn.listing.names();
        let close = name::suggestions(raw_name, names.iter().copied());
        let hint = if close.is_empty() {
            format!("Listed skills: {}.", names.join(", "))
        } else {
            format!("Did you mean {}?", close.join(", "))
        };
        let what = if raw_name.is_empty() {
            "`name` is required".to_owned()
        } else {
            format!("No listed skill is named {raw_name:?}")
        };
        return err(ViewErrorCode::SkillNotFound, format!("{what}. {hint}"));
    };
    let Ok(skill) = SkillName::parse(&listed.name) else {
        return err(ViewErrorCode::SkillNotFound, format!("{raw_name:?} is not a valid skill name"));
    };
    if let Err(message) = ensure_mounted(store.as_ref(), sandbox, turn, &skill, &listed) {
        return err(ViewErrorCode::SkillCopyFailed, message);
    }
    let version = turn.mounted.get(skill.as_str()).and_then(|r| r.version.clone()).or(listed.version.clone());
    let file = rel.as_ref().map_or("SKILL.md", RelPath::as_str);
    let in_mount = format!("{}/{file}", mount::mount_path(&skill));
    let bytes = match sandbox.read(&in_mount, MAX_VIEW_BYTES) {
        Ok(b) => b,
        Err(SandboxError::NotFound { .. } | SandboxError::WrongKind { .. }) => {
            return err(ViewErrorCode::SkillFileNotFound, format!("The skill {skill} has no file {file:?}."));
        }
        Err(SandboxError::TooLarge { size, .. }) => {
            return err(
                ViewErrorCode::SkillFileTooLarge,
                format!(
                    "{file} is {size} bytes, over the {MAX_VIEW_BYTES}-byte limit of view_skill. It is in the workspace at {in_mount}; read parts of it with a shell."
                ),
            );
        }
        Err(SandboxError::Escapes { .. } | SandboxError::InvalidPath { .. }) => {
            return err(ViewErrorCode::SkillPathInvalid, format!("{file:?} leads outside the skill."));
        }
        Err(e) => return err(ViewErrorCode::SkillFileNotFound, format!("Could not read {file}: {e}.")),
    };
    let text = match String::from_utf8(bytes) {
        Ok(t) if !t.contains('\0') => t,
        Ok(t) => return binary(raw_name, path, file, t.len(), &in_mount),
        Err(e) => return binary(raw_name, path, file, e.as_bytes().len(), &in_mount),
    };
    let content = if rel.is_none() { frontmatter::strip(&text).to_owned() } else { text };
    let note = skill_dir_note(&content, &mount::mount_path(&skill));
    ViewResult::Ok(ViewOk { skill_name: skill.to_string(), path: path.map(str::to_owned), version, content, note })
}

/// The variables agents set to a skill's own folder: Claude Code's (`${CLAUDE_SKILL_DIR}`, in
/// <https://code.claude.com/docs/en/skills>, "String substitutions").
const SKILL_DIR_VARIABLES: &[&str] = &["CLAUDE_SKILL_DIR"];

/// A result's `note` when `content` names the skill's folder by an agent's variable
/// (`${CLAUDE_SKILL_DIR}` or `$CLAUDE_SKILL_DIR`): what it stands for here, the mount (`mount`,
/// relative to the workspace), since nothing substitutes it. `None` when the text names none.
pub fn skill_dir_note(content: &str, mount: &str) -> Option<String> {
    let named: Vec<String> = SKILL_DIR_VARIABLES
        .iter()
        .filter(|v| {
            content.contains(&format!("${{{v}}}"))
                || content
                    .match_indices(&format!("${v}"))
                    .any(|(i, m)| !content[i + m.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_'))
        })
        .map(|v| format!("${{{v}}}"))
        .collect();
    (!named.is_empty()).then(|| {
        format!(
            "In this skill {} stands for {mount}, the folder the skill is mounted in (relative to the workspace): use \
             that path wherever the text writes the variable.",
            named.join(" and ")
        )
    })
}

fn binary(name: &str, path: Option<&str>, file: &str, size: usize, in_mount: &str) -> ViewResult {
    ViewResult::error(
        name,
        path,
        ViewErrorCode::SkillFileBinary,
        format!(
            "{file} is a binary file ({size} bytes). It is in the workspace at {in_mount}; use a shell or a script to work with it."
        ),
    )
}

/// Mounts the skill's listed revision unless this turn already did. Returns a message for
/// the model on failure.
fn ensure_mounted(
    storage: &FsStorage,
    sandbox: &Sandbox,
    turn: &mut Turn,
    skill: &SkillName,
    listed: &ListedSkill,
) -> Result<(), String> {
    if turn.mounted.contains_key(skill.as_str()) {
        return Ok(());
    }
    // Another process may have mounted it for this same turn (the CLI's `--turn`).
    if let Some(record) = mount::read_record(sandbox, skill)
        && record.turn == turn.id
        && matches!(sandbox.stat(&mount::mount_path(skill)), Ok((EntryKind::Dir, _)))
    {
        turn.mounted.insert(skill.to_string(), record);
        return Ok(());
    }
    // The revision the listing announced, even if a newer one was uploaded since the turn began.
    let record = MountRecord {
        turn: turn.id.clone(),
        scope: listed.scope,
        revision: listed.revision,
        version: listed.version.clone(),
    };
    let mut attempts = 0;
    loop {
        let (dir, live) = storage
            .revision_dir(listed.scope, skill, listed.revision)
            .map_err(|e| format!("Could not read the skill from the store: {e}."))?;
        let still_valid = || {
            !live
                || listed.revision.is_none()
                || storage.revision_sync(listed.scope, skill).ok().flatten() == listed.revision
        };
        match mount::mount(sandbox, skill, &dir, storage.limits(), &still_valid, &record) {
            Ok(()) => break,
            // A write swapped the live folder while it was copied: the revision is in history now.
            Err(MountError::SourceChanged) if attempts < 3 => attempts += 1,
            Err(e @ (MountError::InTheWay { .. } | MountError::NotOurs { .. } | MountError::RecordInTheWay { .. })) => {
                return Err(e.to_string());
            }
            Err(e) => {
                return Err(format!("Could not copy the skill into the workspace: {e}. Nothing was left half-copied."));
            }
        }
    }
    turn.mounted.insert(skill.to_string(), record);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::skill_dir_note;

    #[test]
    fn the_note_names_the_variable_only_when_the_text_does() {
        let said = |t: &str| skill_dir_note(t, ".skills/pdf");
        assert!(said("run ${CLAUDE_SKILL_DIR}/x.sh").is_some_and(|n| n.contains(".skills/pdf")));
        assert!(said("cd $CLAUDE_SKILL_DIR").is_some());
        assert!(said("cd $CLAUDE_SKILL_DIR/scripts").is_some());
        assert_eq!(said("$CLAUDE_SKILL_DIRS is another variable"), None);
        assert_eq!(said("no variable; ${CLAUDE_SESSION_ID} is not the folder"), None);
    }
}
