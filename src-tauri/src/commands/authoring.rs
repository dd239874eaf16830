//! Writing and fixing skills in the app: a new skill from a template, drafts (working copies
//! the editor changes, never the store's live folder), their live checks and one-click fixes,
//! saving a draft as one revision, and the diff between two revisions.

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use base64::Engine as _;
use serde::Serialize;
use skilldeck_core::authoring::{self, Fix, Note, Template, TemplateInfo};
use skilldeck_skill::{RelPath, Revision, Scope, SkillFiles, SkillName};
use skilldeck_store::drafts::{Draft, DraftError, DraftInfo};
use skilldeck_targets::budget::preview::{self, AgentLine};
use skilldeck_targets::diff::{self, FileDiff};
use tauri::State;

impl From<DraftError> for ApiError {
    fn from(e: DraftError) -> Self {
        let current = match &e {
            DraftError::Stale { current, .. } => Some(current.map_or_else(String::new, |r| r.0.to_string())),
            _ => None,
        };
        let err = match e {
            DraftError::Storage(s) => return s.into(),
            other => ApiError::new(other.code(), other.to_string()),
        };
        match current {
            Some(c) => err.arg("current", c),
            None => err,
        }
    }
}

/// One file of a draft.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct DraftFile {
    /// Its path in the skill.
    pub path: String,
    /// Its text; `None` when it is not UTF-8 text (shown, not edited).
    pub text: Option<String>,
    /// Its size in bytes.
    pub size: u64,
}

/// How the stored skill moved on since a draft began.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct StaleView {
    /// The revision stored now (`None`: deleted).
    #[ts(type = "number | null")]
    pub current: Option<u64>,
    /// From the revision the draft began from to the one stored now.
    pub diff: Vec<FileDiff>,
}

/// A draft as the editor shows it.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct DraftView {
    /// Its scope.
    pub scope: Scope,
    /// Its skill.
    pub name: String,
    /// The revision it began from.
    #[ts(type = "number | null")]
    pub base: Option<u64>,
    /// Its files, by path.
    pub files: Vec<DraftFile>,
    /// Whether it differs from the revision it began from.
    pub changed: bool,
    /// Set when the stored skill changed since the draft began.
    pub stale: Option<StaleView>,
    /// When a file of it last changed, RFC 3339.
    pub at: String,
}

/// A draft found on disk, for "resume".
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct DraftRow {
    /// Its scope.
    pub scope: Scope,
    /// Its skill.
    pub name: String,
    /// The revision it began from.
    #[ts(type = "number | null")]
    pub base: Option<u64>,
    /// When it last changed.
    pub at: String,
}

/// What the checks say about a draft.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct DraftCheck {
    /// Validation's, each agent's and the audit's notes.
    pub notes: Vec<Note>,
    /// Whether the audit would hold the skill at the configured level.
    pub held: bool,
    /// The listing entry in each agent.
    pub agents: Vec<AgentLine>,
    /// What the draft changes against the revision it began from.
    pub changed: Vec<FileDiff>,
}

/// A name check as the new-skill form shows it.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct NameCheck {
    /// Whether a new skill can take the name.
    pub ok: bool,
    /// What is wrong with it.
    pub problem: Option<String>,
    /// Whether a skill of the user's has it already.
    pub taken: bool,
}

/// What a save stored.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct SavedView {
    /// The revision stored (the base one when nothing changed).
    pub revision: u64,
    /// Whether the draft matched its revision, so nothing was stored.
    pub unchanged: bool,
}

fn parse(name: &str) -> ApiResult<SkillName> {
    Ok(SkillName::parse(name)?)
}

fn limit(state: &AppState) -> u64 {
    state.storage().limits().max_file_bytes
}

/// The view of `draft`.
fn view(state: &AppState, draft: &Draft) -> ApiResult<DraftView> {
    let (files, _) = draft.files(limit(state))?;
    let stale = match draft.stale(state.storage())? {
        None => None,
        Some(now) => {
            let old = base_files(state, draft)?;
            let new = match now {
                Some(r) => state.storage().revision_files(draft.scope(), draft.name(), r)?,
                None => SkillFiles::new(),
            };
            let label = |r: Option<Revision>| r.map_or_else(|| "deleted".to_owned(), |r| format!("v:{r}"));
            Some(StaleView {
                current: now.map(|r| r.0),
                diff: diff::between(&old, &label(draft.base()), &new, &label(now)),
            })
        }
    };
    Ok(DraftView {
        scope: draft.scope(),
        name: draft.name().to_string(),
        base: draft.base().map(|r| r.0),
        files: files
            .iter()
            .map(|(p, b)| DraftFile {
                path: p.to_string(),
                text: std::str::from_utf8(b).ok().filter(|s| !s.contains('\0')).map(str::to_owned),
                size: b.len() as u64,
            })
            .collect(),
        changed: draft.changed(limit(state))?,
        stale,
        at: draft.changed_at(),
    })
}

/// The files of the revision a draft began from (none for a skill not stored yet).
fn base_files(state: &AppState, draft: &Draft) -> ApiResult<SkillFiles> {
    Ok(match draft.base() {
        Some(r) => state.storage().revision_files(draft.scope(), draft.name(), r)?,
        None => SkillFiles::new(),
    })
}

fn existing(state: &AppState, scope: Scope, name: &str) -> ApiResult<Draft> {
    let skill = parse(name)?;
    Draft::find(state.storage().home(), scope, &skill).ok_or_else(|| {
        ApiError::new("draft_not_found", format!("{name} has no draft open; open it in the editor again"))
    })
}

/// The templates a new skill can start from.
#[tauri::command]
pub async fn skill_templates() -> ApiResult<Vec<TemplateInfo>> {
    Ok(Template::ALL.iter().map(|t| t.info()).collect())
}

/// Whether `name` can name a new skill, as it is typed.
#[tauri::command]
pub async fn skill_name_check(state: State<'_, AppState>, name: String) -> ApiResult<NameCheck> {
    if let Some(problem) = authoring::name_problem(&name) {
        return Ok(NameCheck { ok: false, problem: Some(problem), taken: false });
    }
    let taken = state.storage().skill_dir(Scope::User, &parse(&name)?).is_dir();
    let problem = taken.then(|| format!("there is already a skill named {name}; choose another name"));
    Ok(NameCheck { ok: !taken, problem, taken })
}

/// Stores a new skill from a template as v:1 in the user scope and opens its draft.
#[tauri::command]
pub async fn skill_new(
    state: State<'_, AppState>,
    name: String,
    description: Option<String>,
    template: Option<String>,
) -> ApiResult<DraftView> {
    if let Some(problem) = authoring::name_problem(&name) {
        return Err(ApiError::new("invalid_name", problem));
    }
    let template = template
        .as_deref()
        .map_or(Ok(Template::Instructions), Template::parse)
        .map_err(|e| ApiError::new("invalid_template", e))?;
    let skill = parse(&name)?;
    if state.storage().skill_dir(Scope::User, &skill).is_dir() {
        return Err(ApiError::new("name_taken", format!("there is already a skill named {name}; choose another name"))
            .arg("name", &name));
    }
    state.registry.write_skill(Scope::User, &skill, &template.files(&skill, description.as_deref()))?;
    let draft = Draft::open(state.storage(), Scope::User, &skill)?;
    view(&state, &draft)
}

/// The draft of a skill: the one left open, else a new one from its current revision.
#[tauri::command]
pub async fn draft_open(state: State<'_, AppState>, scope: Scope, name: String) -> ApiResult<DraftView> {
    if scope.is_read_only() {
        return Err(ApiError::new(
            "read_only_scope",
            format!("{name} belongs to the team store; it is not edited here"),
        ));
    }
    let draft = Draft::open(state.storage(), scope, &parse(&name)?)?;
    view(&state, &draft)
}

/// The drafts left open (a closed window, a crash).
#[tauri::command]
pub async fn drafts_open(state: State<'_, AppState>) -> ApiResult<Vec<DraftRow>> {
    Ok(Draft::all(state.storage().home())
        .into_iter()
        .map(|d: DraftInfo| DraftRow { scope: d.scope, name: d.name.to_string(), base: d.base.map(|r| r.0), at: d.at })
        .collect())
}

/// Writes one text file of a draft.
#[tauri::command]
pub async fn draft_write(
    state: State<'_, AppState>,
    scope: Scope,
    name: String,
    path: String,
    text: String,
) -> ApiResult<()> {
    let draft = existing(&state, scope, &name)?;
    Ok(draft.write(&RelPath::parse(&path)?, text.as_bytes())?)
}

/// Adds a file (dropped or picked) to a draft, its bytes in base64.
#[tauri::command]
pub async fn draft_add_file(
    state: State<'_, AppState>,
    scope: Scope,
    name: String,
    path: String,
    base64: String,
) -> ApiResult<()> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(base64.as_bytes())
        .map_err(|e| ApiError::new("invalid_file", format!("the file's bytes did not arrive whole: {e}")))?;
    let max = limit(&state);
    if bytes.len() as u64 > max {
        return Err(ApiError::new(
            "file_too_large",
            format!("{path} is {} bytes; a skill's file may have at most {max}", bytes.len()),
        ));
    }
    let draft = existing(&state, scope, &name)?;
    Ok(draft.write(&RelPath::parse(&path)?, &bytes)?)
}

/// Adds files or folders dropped from the desktop to a draft, under folder `into` (`""`: the
/// top). Returns the paths added.
#[tauri::command]
pub async fn draft_add_paths(
    state: State<'_, AppState>,
    scope: Scope,
    name: String,
    into: String,
    paths: Vec<String>,
) -> ApiResult<Vec<String>> {
    let draft = existing(&state, scope, &name)?;
    let mut added = Vec::new();
    for p in paths {
        added.extend(draft.add_from(std::path::Path::new(&p), &into, &state.storage().limits())?);
    }
    Ok(added)
}

/// Removes a file or a folder of a draft.
#[tauri::command]
pub async fn draft_remove(state: State<'_, AppState>, scope: Scope, name: String, path: String) -> ApiResult<()> {
    let draft = existing(&state, scope, &name)?;
    Ok(draft.remove(&RelPath::parse(&path)?)?)
}

/// Renames a file or a folder of a draft.
#[tauri::command]
pub async fn draft_move(
    state: State<'_, AppState>,
    scope: Scope,
    name: String,
    from: String,
    to: String,
) -> ApiResult<()> {
    let draft = existing(&state, scope, &name)?;
    Ok(draft.rename(&RelPath::parse(&from)?, &RelPath::parse(&to)?)?)
}

/// Every check an author sees, on the draft as it is now.
#[tauri::command]
pub async fn draft_check(state: State<'_, AppState>, scope: Scope, name: String) -> ApiResult<DraftCheck> {
    let draft = existing(&state, scope, &name)?;
    let (files, _) = draft.files(limit(&state))?;
    let checked = authoring::check(draft.name(), &files);
    let held = match (state.registry.hold(), checked.worst) {
        (Some(hold), Some(worst)) => worst >= hold,
        _ => false,
    };
    let v = skilldeck_skill::validate::validate_bytes(files.skill_md(), Default::default());
    let meta = v.meta;
    let description = meta.description.as_deref().unwrap_or_default();
    // Skilldeck's own listing (its agent loop, the MCP server) first, in the contract's words,
    // at the revision a save would make; then each agent's.
    let next = draft.base().map_or(1, |r| r.0 + 1);
    let own = AgentLine {
        agent: "skilldeck",
        label: "Skilldeck (its agent, MCP)",
        line: format!("- **{name}** (v:{next}): {}", description.trim()),
        cut: false,
        limit: None,
        shown: "full",
    };
    let mut agents = vec![own];
    agents.extend(preview::alone(&name, description, meta.when_to_use().as_deref(), meta.model_invocable()));
    let base = base_files(&state, &draft)?;
    let label = draft.base().map_or_else(|| "new".to_owned(), |r| format!("v:{r}"));
    Ok(DraftCheck { notes: checked.notes, held, agents, changed: diff::between(&base, &label, &files, "draft") })
}

/// Applies a one-click fix to the draft's `SKILL.md`.
#[tauri::command]
pub async fn draft_fix(state: State<'_, AppState>, scope: Scope, name: String, fix: String) -> ApiResult<DraftView> {
    let draft = existing(&state, scope, &name)?;
    let fix = Fix::parse(&fix).ok_or_else(|| ApiError::new("invalid_fix", format!("there is no fix {fix:?}")))?;
    let (files, _) = draft.files(limit(&state))?;
    let text = files.skill_md().map(String::from_utf8_lossy).unwrap_or_default();
    let fixed = fix.apply(draft.name(), &text).ok_or_else(|| {
        ApiError::new("fix_not_applicable", format!("{} does not apply to this SKILL.md as it is now", fix.label()))
    })?;
    draft.write(&RelPath::parse("SKILL.md")?, fixed.as_bytes())?;
    view(&state, &draft)
}

/// Stores the draft as one new revision. Refused with `draft_invalid` when it has errors
/// (unless `force`), `draft_stale` when the stored skill moved on (unless `force`).
#[tauri::command]
pub async fn draft_save(state: State<'_, AppState>, scope: Scope, name: String, force: bool) -> ApiResult<SavedView> {
    let draft = existing(&state, scope, &name)?;
    let base = draft.base();
    let (files, _) = draft.files(limit(&state))?;
    let checked = authoring::check(draft.name(), &files);
    if checked.invalid && !force {
        let problems: Vec<String> = checked
            .notes
            .iter()
            .filter(|n| n.severity == "error")
            .map(|n| format!("{}{}: {}", n.path, n.line.map_or_else(String::new, |l| format!(":{l}")), n.message))
            .collect();
        return Err(ApiError::new(
            "draft_invalid",
            format!("{name} has problems; it was not saved:\n{}", problems.join("\n")),
        ));
    }
    match draft.save(state.storage(), force)? {
        Some(out) => {
            state.registry.invalidate(scope, Some(&name));
            Ok(SavedView { revision: out.revision.0, unchanged: false })
        }
        None => Ok(SavedView { revision: base.map_or(0, |r| r.0), unchanged: true }),
    }
}

/// Throws a draft away.
#[tauri::command]
pub async fn draft_discard(state: State<'_, AppState>, scope: Scope, name: String) -> ApiResult<()> {
    if let Ok(d) = existing(&state, scope, &name) {
        d.discard();
    }
    Ok(())
}

/// Opens one file of the draft (never the stored skill) in the system's editor.
#[tauri::command]
pub async fn draft_open_in_editor(
    state: State<'_, AppState>,
    scope: Scope,
    name: String,
    path: String,
) -> ApiResult<()> {
    let draft = existing(&state, scope, &name)?;
    let file = RelPath::parse(&path)?.under(&draft.files_dir());
    tauri_plugin_opener::open_path(&file, None::<&str>).map_err(|e| super::source::open_failed(&file, &e))
}

/// What changed from revision `from` (default: the one before `to`) to `to` (default: current).
#[tauri::command]
pub async fn revision_diff(
    state: State<'_, AppState>,
    scope: Scope,
    name: String,
    from: Option<u64>,
    to: Option<u64>,
) -> ApiResult<Vec<FileDiff>> {
    let d = diff::revisions(state.storage(), scope, &parse(&name)?, from.map(Revision), to.map(Revision))?;
    Ok(d.files)
}
