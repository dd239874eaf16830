//! "Add from…": a source (a Git repository, a `.well-known` index, an archive or `SKILL.md` URL)
//! fetched off the UI thread and previewed like a collection (what installing each skill would do,
//! its findings, the plugins grouping them, the skills it refused with why and what would let
//! them in, what was left out), then the chosen skills installed
//! from that same fetch, each revision recording where it came from and each skill remembered in
//! `sources.json`. Fetching and the clash rule are `skilldeck-sources`; the import is the core's.

use super::collection::{CollectionItemView, CollectionView, progress_sender, task_failed};
use crate::error::{ApiError, ApiResult};
use crate::sources::OriginView;
use crate::state::AppState;
use crate::views::{Assessor, shown};
use serde::Serialize;
use skilldeck_skill::{Scope, SkillName};
use skilldeck_sources::Source;
use skilldeck_sources::fetch::{Candidate, FetchSourceError, Fetched, fetch};
use skilldeck_sources::installed::{InstalledError, InstalledSkills};
use skilldeck_sources::rename::{self, RenameError, Renamed};
use skilldeck_sources::setup;
use skilldeck_store::import::{self, ErrorInfo, ImportRequest, ImportState, PathError};
use skilldeck_store::trust::Trust;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use tauri::{AppHandle, Runtime, State};

/// What a source holds, as the dialog shows it after "Look".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SourceLook {
    /// The key of the fetched source the app keeps for "Install".
    pub token: String,
    /// The source's top: its address, the commit or digest it resolved to.
    pub origin: OriginView,
    /// A marketplace's plugins, each a group of skill paths (as `items[].location`).
    pub plugins: Vec<PluginView>,
    /// A marketplace's plugins whose skills live in another repository: each can be looked at.
    pub elsewhere: Vec<ElsewhereView>,
    /// The skills the source refused as they stand (too big, a link out of the skill, an index
    /// entry that does not check out), each with why and what would let it in: they have no row
    /// in `preview` and cannot be chosen.
    pub refused: Vec<RefusedView>,
    /// What else was left out of the source, with why.
    pub notes: Vec<NoteView>,
    /// One row per skill found; `location` is its path inside the source.
    pub preview: CollectionView,
}

/// A plugin of a marketplace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct PluginView {
    /// Its name.
    pub name: String,
    /// Its description, if any.
    pub description: Option<String>,
    /// The paths of its skills inside the source.
    pub skills: Vec<String>,
}

/// A marketplace plugin whose skills live in another Git repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ElsewhereView {
    /// Its name.
    pub name: String,
    /// Its description, if any.
    pub description: Option<String>,
    /// The repository, as "Add from…" takes it.
    pub source: String,
    /// The commit or ref the marketplace pins it to.
    pub reference: Option<String>,
}

/// Something of the source that was left out (a file, a submodule, a plugin elsewhere).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct NoteView {
    /// The path inside the source it is about.
    pub path: String,
    /// What happened.
    pub what: String,
}

/// A skill of the source refused as it stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct RefusedView {
    /// Its name: its frontmatter's, else its folder's (an index entry's).
    pub name: String,
    /// Its path inside the source.
    pub path: String,
    /// A stable code the UI words its badge by: `skill_too_big`, `skill_file_too_big`,
    /// `skill_too_many_files`, `skill_link_leaves`, or an index entry's (`index_digest_mismatch`…).
    pub reason_code: String,
    /// Why, with the sizes and the limit.
    pub reason: String,
    /// What would let it in: the setting to raise, or what has to change upstream.
    pub fix: String,
}

/// Fetches `source` (at `reference` when given) into a scratch folder the app keeps, and says
/// what installing each of its skills into the user scope would do. Writes nothing to the store.
#[tauri::command]
pub async fn source_look<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    source: String,
    reference: Option<String>,
) -> ApiResult<SourceLook> {
    let storage = state.storage().clone();
    let (hosts, config) = setup::fetch_config(&storage).map_err(|e| ApiError::new("config_invalid", e.to_string()))?;
    let parsed = Source::parse(source.trim(), &hosts).map_err(|e| ApiError::new("source_invalid", e.to_string()))?;
    let reference = reference.map(|r| r.trim().to_owned()).filter(|r| !r.is_empty());
    let fetched = tauri::async_runtime::spawn_blocking(move || fetch(&parsed, reference.as_deref(), &config))
        .await
        .map_err(task_failed)?
        .map_err(fetch_failed)?;
    let installed = InstalledSkills::load(storage.home()).map_err(sources_file)?;
    let (fetched, preview) = tauri::async_runtime::spawn_blocking(move || {
        let chosen: Vec<&Candidate> = fetched.skills.iter().collect();
        let mut progress = progress_sender(app);
        let dirs: Vec<(&Candidate, PathBuf)> = chosen.iter().map(|c| (*c, c.dir.clone())).collect();
        let preview = import::preview_all(&storage, Scope::User, &requests(&dirs), storage.limits(), &mut progress);
        let clashes: Vec<Option<ErrorInfo>> = chosen.iter().map(|c| clash(&storage, &installed, c, None)).collect();
        (fetched, (preview, clashes))
    })
    .await
    .map_err(task_failed)?;
    let (preview, clashes) = preview;
    let trust = Trust::load(state.storage().home()).unwrap_or_default();
    let assess = Assessor { trust: &trust, hold: state.registry.hold() };
    let mut items = Vec::new();
    for (candidate, clash) in fetched.skills.iter().zip(clashes) {
        let dir = candidate.dir.display().to_string();
        let mut row = match preview.items.iter().find(|i| i.source == dir) {
            Some(item) => CollectionItemView::previewed(item.clone(), assess, Scope::User),
            None => refused_row(&candidate.path, unreadable(&preview.errors, &dir), assess),
        };
        row.location = candidate.path.clone();
        if let Some(clash) = clash {
            row = CollectionItemView { state: "refused", revision: None, current: None, error: Some(clash), ..row };
        }
        items.push(row);
    }
    let look = SourceLook {
        token: String::new(),
        origin: OriginView::of(&fetched.origin),
        plugins: fetched
            .plugins
            .iter()
            .map(|p| PluginView {
                name: p.name.clone(),
                description: p.description.as_deref().map(shown),
                skills: p.skills.clone(),
            })
            .collect(),
        elsewhere: fetched
            .elsewhere
            .iter()
            .map(|p| ElsewhereView {
                name: p.name.clone(),
                description: p.description.as_deref().map(shown),
                source: p.source.clone(),
                reference: p.reference.clone(),
            })
            .collect(),
        refused: fetched
            .notes
            .iter()
            .filter_map(|n| {
                let r = n.refused.as_ref()?;
                Some(RefusedView {
                    name: shown(&r.name),
                    path: shown(&n.path),
                    reason_code: r.code.to_owned(),
                    reason: shown(&n.what),
                    fix: shown(&r.fix),
                })
            })
            .collect(),
        // A plugin that lives elsewhere is shown with a way to look at it, not as left out.
        notes: fetched
            .notes
            .iter()
            .filter(|n| n.elsewhere.is_none() && !n.refuses())
            .map(|n| NoteView { path: n.path.clone(), what: shown(&n.what) })
            .collect(),
        preview: CollectionView::of(items),
    };
    Ok(SourceLook { token: state.sources.keep(fetched), ..look })
}

/// Installs the skills at `paths` of the source kept under `token` into the user scope, one
/// store batch, each revision recording its provenance; each skill stored (or already equal) is
/// remembered in `sources.json`. The kept source is let go whatever the outcome.
#[tauri::command]
pub async fn source_install<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    token: String,
    paths: Vec<String>,
    renames: Option<BTreeMap<String, String>>,
) -> ApiResult<CollectionView> {
    if paths.is_empty() {
        return Err(ApiError::new("nothing_chosen", "choose at least one skill to install"));
    }
    let fetched = state.sources.get(&token).ok_or_else(expired)?;
    state.sources.forget(&token);
    let storage = state.storage().clone();
    let renames = renames.unwrap_or_default();
    let (report, clashes) =
        tauri::async_runtime::spawn_blocking(move || install(&app, &storage, &fetched, &paths, &renames))
            .await
            .map_err(task_failed)??;
    state.registry.invalidate(Scope::User, None);
    let trust = Trust::load(state.storage().home()).unwrap_or_default();
    let assess = Assessor { trust: &trust, hold: state.registry.hold() };
    let mut items: Vec<CollectionItemView> = report
        .into_iter()
        .map(|(item, path)| {
            let mut row = CollectionItemView::imported(item, assess, Scope::User);
            row.location = path;
            row
        })
        .collect();
    items.extend(clashes.into_iter().map(|(path, error)| refused_row(&path, error, assess)));
    Ok(CollectionView::of(items))
}

/// Lets go of the source kept under `token` (the dialog was cancelled or closed).
#[tauri::command]
pub async fn source_forget(state: State<'_, AppState>, token: String) -> ApiResult<bool> {
    Ok(state.sources.forget(&token))
}

/// What installing the skill at `path` of the source kept under `token` would do if it were
/// kept here as `name` (for a skill whose own name another skill holds): its row in the
/// preview, refused with why when `name` is taken too. Writes nothing to the store.
#[tauri::command]
pub async fn source_preview_as(
    state: State<'_, AppState>,
    token: String,
    path: String,
    name: String,
) -> ApiResult<CollectionItemView> {
    let fetched = state.sources.get(&token).ok_or_else(expired)?;
    let new = new_name(&name)?;
    let storage = state.storage().clone();
    let (item, clash) = tauri::async_runtime::spawn_blocking(move || -> ApiResult<_> {
        let c = fetched.skills.iter().find(|c| c.path == path).ok_or_else(|| not_in_source(&path))?;
        let installed = InstalledSkills::load(storage.home()).map_err(sources_file)?;
        let clash = clash(&storage, &installed, c, Some(&new));
        let copy = rename::renamed_copy(&c.dir, &new, storage.limits()).map_err(rename_failed)?;
        let mut preview = import::preview_all(
            &storage,
            Scope::User,
            &requests(&[(c, copy.dir().to_path_buf())]),
            storage.limits(),
            &mut |_| {},
        );
        let item = match preview.items.pop() {
            Some(item) => Ok(item),
            None => Err(unreadable(&preview.errors, &copy.dir().display().to_string())),
        };
        Ok((item.map(|i| import::PreviewItem { location: c.path.clone(), ..i }), clash))
    })
    .await
    .map_err(task_failed)??;
    let trust = Trust::load(state.storage().home()).unwrap_or_default();
    let assess = Assessor { trust: &trust, hold: state.registry.hold() };
    let row = match (item, clash) {
        (Ok(item), None) => CollectionItemView::previewed(item, assess, Scope::User),
        (Ok(item), Some(clash)) => CollectionItemView {
            state: "refused",
            revision: None,
            current: None,
            error: Some(clash),
            ..CollectionItemView::previewed(item, assess, Scope::User)
        },
        (Err(error), _) => refused_row(&name, error, assess),
    };
    Ok(row)
}

/// An install's items (each with its path in the source) and the chosen skills refused for a
/// clash; records the skills stored in `sources.json`.
type Installed = (Vec<(import::ImportedItem, String)>, Vec<(String, ErrorInfo)>);

fn install<R: Runtime>(
    app: &AppHandle<R>,
    storage: &skilldeck_store::FsStorage,
    fetched: &Arc<Fetched>,
    paths: &[String],
    renames: &BTreeMap<String, String>,
) -> ApiResult<Installed> {
    let mut installed = InstalledSkills::load(storage.home()).map_err(sources_file)?;
    // Each chosen skill with the folder to import: its own, or a copy renamed as asked.
    let mut chosen: Vec<(&Candidate, Option<Renamed>)> = Vec::new();
    let mut clashes = Vec::new();
    for c in fetched.skills.iter().filter(|c| paths.contains(&c.path)) {
        let new = renames.get(&c.path).map(|n| new_name(n)).transpose()?;
        if let Some(error) = clash(storage, &installed, c, new.as_ref()) {
            clashes.push((c.path.clone(), error));
            continue;
        }
        let copy = match &new {
            Some(new) => Some(rename::renamed_copy(&c.dir, new, storage.limits()).map_err(rename_failed)?),
            None => None,
        };
        chosen.push((c, copy));
    }
    let dirs: Vec<(&Candidate, PathBuf)> = chosen
        .iter()
        .map(|(c, copy)| (*c, copy.as_ref().map_or_else(|| c.dir.clone(), |r| r.dir().to_path_buf())))
        .collect();
    let mut progress = progress_sender(app.clone());
    let report = import::import_batch(storage, Scope::User, &requests(&dirs), storage.limits(), &mut progress)?;
    if let Some(e) = report.errors.first() {
        return Err(ApiError::new(&e.error.code, e.error.message.clone()).arg("path", &e.source));
    }
    let by_dir = |source: &str| dirs.iter().find(|(_, dir)| dir.display().to_string() == source).map(|(c, _)| *c);
    for item in &report.items {
        let (ImportState::Imported { .. } | ImportState::Unchanged { .. }, Some(skill)) = (&item.state, &item.skill)
        else {
            continue;
        };
        if let Some(c) = by_dir(&item.source) {
            // The source's own name for it, when it is kept under another.
            let upstream = renames.contains_key(&c.path).then(|| setup::stored_name(c)).flatten();
            installed.record_as(
                skill.name.as_str(),
                c.provenance.clone(),
                skill.digest,
                upstream.map(|n| n.as_str().to_owned()),
            );
        }
    }
    installed.save().map_err(sources_file)?;
    let items = report
        .items
        .into_iter()
        .map(|item| {
            let path = by_dir(&item.source).map_or_else(|| item.location.clone(), |c| c.path.clone());
            (item, path)
        })
        .collect();
    Ok((items, clashes))
}

/// One import request per candidate, from the folder given for it, each carrying the
/// candidate's provenance.
fn requests(chosen: &[(&Candidate, PathBuf)]) -> Vec<ImportRequest> {
    chosen
        .iter()
        .map(|(c, dir)| ImportRequest { path: dir.clone(), only: None, origin: Some(c.provenance.clone()) })
        .collect()
}

/// The refusal of a candidate whose name here (its own, or `new`) a user skill from elsewhere
/// holds.
fn clash(
    storage: &skilldeck_store::FsStorage,
    installed: &InstalledSkills,
    c: &Candidate,
    new: Option<&SkillName>,
) -> Option<ErrorInfo> {
    let (name, from) = match new {
        Some(new) => (new.as_str().to_owned(), setup::clash_as(storage, installed, c, new)?),
        None => (c.name.clone(), setup::clash(storage, installed, c)?),
    };
    let message = match from {
        Some(from) => format!(
            "a skill named {name} already exists and came from {from}; install this one under another name, or delete that one first"
        ),
        None => format!(
            "a skill named {name} already exists and was made or imported here; install this one under another name, or delete that one first"
        ),
    };
    Some(ErrorInfo { code: "source_clash".to_owned(), message })
}

/// `name` as a skill name, or why it cannot be one.
fn new_name(name: &str) -> ApiResult<SkillName> {
    SkillName::parse(name.trim()).map_err(|e| ApiError::new("name_invalid", e.to_string()).arg("name", name))
}

fn rename_failed(e: RenameError) -> ApiError {
    ApiError::new("rename_failed", e.to_string())
}

fn not_in_source(path: &str) -> ApiError {
    ApiError::new("source_path_unknown", format!("the source holds no skill at {path}; press Look again"))
}

/// The row of a skill refused before it was read, with why.
fn refused_row(location: &str, error: ErrorInfo, assess: Assessor<'_>) -> CollectionItemView {
    let item = import::PreviewItem {
        source: String::new(),
        location: location.to_owned(),
        skill: None,
        state: import::ItemState::Refused { error },
    };
    CollectionItemView::previewed(item, assess, Scope::User)
}

/// Why the import could not open the candidate at `dir` at all.
fn unreadable(errors: &[PathError], dir: &str) -> ErrorInfo {
    errors.iter().find(|e| e.source == dir).map_or_else(
        || ErrorInfo { code: "source_unreadable".to_owned(), message: "this skill could not be read".to_owned() },
        |e| e.error.clone(),
    )
}

fn fetch_failed(e: FetchSourceError) -> ApiError {
    ApiError::new(e.code(), e.to_string())
}

fn sources_file(e: InstalledError) -> ApiError {
    ApiError::new("sources_file_failed", e.to_string())
}

fn expired() -> ApiError {
    ApiError::new("source_expired", "this source is no longer at hand; press Look again")
}
