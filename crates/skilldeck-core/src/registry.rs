//! `SkillRegistry`: discovery, parsing, validation and caching of the stored skills.
//! Holds the cache and its invalidation, the revision overlay and shadowing; not the listing text.

use crate::diagnostic::{DiagCode, Diagnostic};
use crate::digest::Digest;
use crate::files::SkillFiles;
use crate::find::{self, Found};
use crate::listing::{self, Listing, ListingOptions};
use crate::meta::SkillMeta;
use crate::name::SkillName;
use crate::ranker::Query;
use crate::safe_read::FileId;
use crate::storage::Summary;
use crate::storage::{DeleteOutcome, FsStorage, Revision, Scope, StorageError, WriteOutcome};
use crate::validate::{self, ValidateOptions, Validated};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

/// One discovered skill, valid or not.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkillEntry {
    /// Its scope.
    pub scope: Scope,
    /// Its folder name, which is its name.
    pub name: String,
    /// The typed frontmatter.
    pub meta: SkillMeta,
    /// Every problem found.
    pub diagnostics: Vec<Diagnostic>,
    /// The description on one line, when that differs from the description as written (most
    /// are one line already, and a store of 20,000 skills need not hold them twice).
    #[serde(skip)]
    one_line: Option<String>,
    /// The content digest, when it was read with the summary (a registry `with_digests`).
    #[serde(skip)]
    digest: Option<Digest>,
    /// The stored revision, from `.version`.
    pub revision: Option<Revision>,
    /// The version tag shown: the revision, else the frontmatter `version`, else none.
    pub version: Option<String>,
    /// Whether no diagnostic is an error.
    pub valid: bool,
    /// How many files it holds (never counting `.version`).
    pub file_count: usize,
    /// Their total size in bytes.
    pub total_bytes: u64,
    /// The headings of its SKILL.md, which the ranker searches too.
    #[serde(skip)]
    pub headings: Vec<String>,
}

/// `text` on one line: runs of white space made one space, none at either end.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl SkillEntry {
    /// The description on one line (runs of white space made one space), as listings show it.
    pub fn listing_description(&self) -> &str {
        self.one_line.as_deref().unwrap_or_else(|| self.meta.description.as_deref().unwrap_or_default())
    }

    /// Parses and validates one skill from its summary.
    pub fn from_summary(scope: Scope, dir_name: &str, summary: &Summary, strict: bool) -> Self {
        Self::from_validated(scope, dir_name, summary, validate_summary(dir_name, summary, strict))
    }

    /// One skill from its summary and what validating its `SKILL.md` found.
    fn from_validated(scope: Scope, dir_name: &str, summary: &Summary, v: Validated) -> Self {
        let revision = summary.revision;
        let mut diagnostics = v.diagnostics;
        if let Err(e) = SkillName::parse(dir_name)
            && !diagnostics.iter().any(|d| d.code == DiagCode::NameInvalid)
        {
            diagnostics.push(Diagnostic::error(
                DiagCode::NameInvalid,
                format!("the folder name {dir_name:?} is not a valid skill name: {e}"),
            ));
        }
        let version = revision.map(|r| r.to_string()).or_else(|| v.meta.version.clone());
        let description = v.meta.description.as_deref().unwrap_or_default();
        let one_line = one_line(description);
        let one_line = (one_line != description).then_some(one_line);
        let headings = summary
            .skill_md
            .as_deref()
            .map(|b| crate::ranker::headings(crate::frontmatter::strip(&String::from_utf8_lossy(b))))
            .unwrap_or_default();
        Self {
            scope,
            name: dir_name.to_owned(),
            valid: !diagnostics.iter().any(Diagnostic::is_error),
            one_line,
            digest: summary.digest,
            meta: v.meta,
            diagnostics,
            revision,
            version,
            file_count: summary.file_count,
            total_bytes: summary.total_bytes,
            headings,
        }
    }

    fn unreadable(scope: Scope, dir_name: &str, err: &StorageError) -> Self {
        let d = Diagnostic::error(DiagCode::SkillUnreadable, format!("the skill could not be read: {err}"));
        Self {
            scope,
            name: dir_name.to_owned(),
            meta: SkillMeta::default(),
            diagnostics: vec![d],
            one_line: None,
            digest: None,
            revision: None,
            version: None,
            valid: false,
            file_count: 0,
            total_bytes: 0,
            headings: Vec::new(),
        }
    }
}

/// Validates the `SKILL.md` of a summary; one that was there but refused (a link, a pipe, too
/// large) is its diagnostic.
fn validate_summary(dir_name: &str, summary: &Summary, strict: bool) -> Validated {
    match &summary.skill_md_problem {
        Some(d) => Validated { meta: SkillMeta::default(), diagnostics: vec![d.clone()] },
        None => validate::validate_bytes(
            summary.skill_md.as_deref(),
            ValidateOptions { strict, dir_name: Some(dir_name), app_version: crate::APP_VERSION },
        ),
    }
}

/// A skill as listed across scopes: the cached entry and whether another scope shadows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ListedEntry {
    /// The skill.
    #[serde(flatten)]
    pub entry: Arc<SkillEntry>,
    /// Whether a skill of the same name in a later scope (`user`) hides it.
    pub shadowed: bool,
}

#[derive(Debug, Default)]
struct ScopeCache {
    names: Option<Arc<Vec<String>>>,
    entries: HashMap<String, Arc<SkillEntry>>,
    digests: HashMap<String, Digest>,
    /// What validating each `SKILL.md` found, by the file's identity. Kept through
    /// `invalidate`: a watcher event or a whole-scope reload reads the folder again, but parses
    /// `SKILL.md` again only when it changed, so a slow or invalid file costs once per change.
    parsed: HashMap<String, (FileId, Arc<SkillEntry>)>,
}

/// Discovers and caches skills. Writes and deletes through it, and `invalidate` calls from a
/// watcher, drop the affected entries; the next listing reads only those again.
#[derive(Debug)]
pub struct SkillRegistry {
    storage: FsStorage,
    strict: bool,
    digests: bool,
    cache: RwLock<HashMap<Scope, ScopeCache>>,
}

impl SkillRegistry {
    /// A registry over `storage` with an empty cache.
    pub fn new(storage: FsStorage) -> Self {
        Self { storage, strict: false, digests: false, cache: RwLock::new(HashMap::new()) }
    }

    /// The same registry validating in strict (agentskills.io) mode.
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        if let Ok(cache) = self.cache.get_mut() {
            cache.clear();
        }
        self
    }

    /// The same registry reading each skill's content digest with its summary, for callers
    /// that show digests of many skills (`list --json`, the app): `digest` is then answered
    /// from the cache, and no skill is read twice. The digest comes from the revision's record
    /// when its files are as written, so this costs little beyond the listing itself.
    pub fn with_digests(mut self, digests: bool) -> Self {
        self.digests = digests;
        self
    }

    /// The store under it.
    pub fn storage(&self) -> &FsStorage {
        &self.storage
    }

    /// Every skill in `scope`, sorted by name, valid or not. Never stops at a bad skill.
    pub fn list_metas(&self, scope: Scope) -> Result<Vec<Arc<SkillEntry>>, StorageError> {
        let names = self.names(scope)?;
        let mut out = Vec::with_capacity(names.len());
        let mut missing = Vec::new();
        {
            let cache = self.cache.read().map_err(poisoned)?;
            let sc = cache.get(&scope);
            for n in names.iter() {
                match sc.and_then(|c| c.entries.get(n)) {
                    Some(e) => out.push(Arc::clone(e)),
                    None => missing.push(n.clone()),
                }
            }
        }
        if missing.is_empty() {
            return Ok(out);
        }
        let loaded = self.load_all(scope, &missing);
        {
            let mut cache = self.cache.write().map_err(poisoned)?;
            let sc = cache.entry(scope).or_default();
            for e in &loaded {
                sc.entries.insert(e.name.clone(), Arc::clone(e));
            }
        }
        out.extend(loaded);
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// Every skill in `scopes`, sorted by name then scope, with shadowing marked.
    pub fn list_metas_across(&self, scopes: &[Scope]) -> Result<Vec<ListedEntry>, StorageError> {
        let mut out = Vec::new();
        for &scope in scopes {
            out.extend(self.list_metas(scope)?.into_iter().map(|entry| ListedEntry { entry, shadowed: false }));
        }
        out.sort_by(|a, b| (a.entry.name.as_str(), a.entry.scope).cmp(&(b.entry.name.as_str(), b.entry.scope)));
        for i in 1..out.len() {
            if out[i - 1].entry.name == out[i].entry.name {
                out[i - 1].shadowed = true;
            }
        }
        Ok(out)
    }

    /// One skill, from the cache or the disk.
    pub fn get(&self, scope: Scope, name: &str) -> Result<Option<Arc<SkillEntry>>, StorageError> {
        Ok(self.list_metas(scope)?.into_iter().find(|e| e.name == name))
    }

    /// The L1 listing for a session, rebuilt from the (cached) entries.
    pub fn listing(&self, opts: &ListingOptions) -> Result<Listing, StorageError> {
        Ok(listing::build(&self.list_metas_across(&opts.scopes)?, opts))
    }

    /// The L1 listing for a turn of a conversation: ranked against `query` when not every
    /// skill fits the budget in full.
    pub fn listing_for(&self, opts: &ListingOptions, query: &Query) -> Result<Listing, StorageError> {
        Ok(listing::build_ranked(&self.list_metas_across(&opts.scopes)?, opts, query))
    }

    /// `find_skills`: the skills that best match `query` among every skill the session may be
    /// listed, shown or not.
    pub fn find_skills(&self, opts: &ListingOptions, query: &str, limit: usize) -> Result<Vec<Found>, StorageError> {
        Ok(find::find(&self.list_metas_across(&opts.scopes)?, opts, query, limit))
    }

    /// Stores `files` as the next revision through the one upload path, then invalidates.
    pub fn write_skill(
        &self,
        scope: Scope,
        name: &SkillName,
        files: &SkillFiles,
    ) -> Result<WriteOutcome, StorageError> {
        let out = self.storage.write_skill_sync(scope, name, files);
        self.invalidate(scope, Some(name.as_str()));
        out
    }

    /// Deletes a skill (to history), then invalidates.
    pub fn delete_skill(&self, scope: Scope, name: &SkillName) -> Result<DeleteOutcome, StorageError> {
        let out = self.storage.delete_skill_sync(scope, name);
        self.invalidate(scope, Some(name.as_str()));
        out
    }

    /// Restores a revision as a new one, then invalidates.
    pub fn restore(&self, scope: Scope, name: &SkillName, rev: Revision) -> Result<WriteOutcome, StorageError> {
        let out = self.storage.restore_sync(scope, name, rev);
        self.invalidate(scope, Some(name.as_str()));
        out
    }

    /// Drops cached knowledge: one skill (and the scope's name list, since it may be new or
    /// gone), or the whole scope when `name` is `None`.
    pub fn invalidate(&self, scope: Scope, name: Option<&str>) {
        if let Ok(mut cache) = self.cache.write() {
            let sc = cache.entry(scope).or_default();
            sc.names = None;
            match name {
                Some(n) => {
                    sc.entries.remove(n);
                    sc.digests.remove(n);
                }
                None => {
                    sc.entries.clear();
                    sc.digests.clear();
                }
            }
        }
    }

    /// The content digest of a skill as it is on disk, cached like the entries. It is the
    /// revision's recorded digest while its files are as written, else hashed from every file
    /// (see `FsStorage::digest_dir`); a registry `with_digests` has it from the listing.
    pub fn digest(&self, scope: Scope, dir_name: &str) -> Result<Digest, StorageError> {
        if let Some(sc) = self.cache.read().map_err(poisoned)?.get(&scope) {
            let listed = sc.entries.get(dir_name).and_then(|e| e.digest);
            if let Some(d) = listed.or_else(|| sc.digests.get(dir_name).copied()) {
                return Ok(d);
            }
        }
        let digest = self.storage.digest_dir(scope, dir_name)?;
        self.cache.write().map_err(poisoned)?.entry(scope).or_default().digests.insert(dir_name.to_owned(), digest);
        Ok(digest)
    }

    fn names(&self, scope: Scope) -> Result<Arc<Vec<String>>, StorageError> {
        if let Some(n) = self.cache.read().map_err(poisoned)?.get(&scope).and_then(|c| c.names.clone()) {
            return Ok(n);
        }
        let names = Arc::new(self.storage.list_skills_sync(scope)?);
        let mut cache = self.cache.write().map_err(poisoned)?;
        let sc = cache.entry(scope).or_default();
        sc.entries.retain(|k, _| names.binary_search(k).is_ok());
        sc.parsed.retain(|k, _| names.binary_search(k).is_ok());
        sc.names = Some(Arc::clone(&names));
        Ok(names)
    }

    /// Loads skills, on as many threads as there are cores when there are many.
    fn load_all(&self, scope: Scope, names: &[String]) -> Vec<Arc<SkillEntry>> {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
        if names.len() < 64 || threads < 2 {
            return names.iter().map(|n| self.load(scope, n)).collect();
        }
        let chunk = names.len().div_ceil(threads);
        std::thread::scope(|sc| {
            let workers: Vec<_> = names
                .chunks(chunk)
                .map(|part| sc.spawn(move || part.iter().map(|n| self.load(scope, n)).collect::<Vec<_>>()))
                .collect();
            workers
                .into_iter()
                .zip(names.chunks(chunk))
                .flat_map(|(w, part)| w.join().unwrap_or_else(|_| part.iter().map(|n| self.load(scope, n)).collect()))
                .collect()
        })
    }

    fn load(&self, scope: Scope, dir_name: &str) -> Arc<SkillEntry> {
        match self.storage.summary_dir_with(scope, dir_name, self.digests) {
            Ok(s) => match self.parsed_before(scope, dir_name, &s) {
                Some(v) => Arc::new(SkillEntry::from_validated(scope, dir_name, &s, v)),
                None => {
                    let v = validate_summary(dir_name, &s, self.strict);
                    let entry = Arc::new(SkillEntry::from_validated(scope, dir_name, &s, v));
                    if let (Some(id), Ok(mut cache)) = (s.skill_md_id, self.cache.write()) {
                        let parsed = &mut cache.entry(scope).or_default().parsed;
                        parsed.insert(dir_name.to_owned(), (id, Arc::clone(&entry)));
                    }
                    entry
                }
            },
            Err(e) => Arc::new(SkillEntry::unreadable(scope, dir_name, &e)),
        }
    }

    /// What validating the summary's `SKILL.md` found when this very file was parsed before
    /// (the parse cache holds the entry built then, so it costs no copy until it is reused).
    fn parsed_before(&self, scope: Scope, dir_name: &str, summary: &Summary) -> Option<Validated> {
        let id = summary.skill_md_id?;
        let cache = self.cache.read().ok()?;
        let (seen, e) = cache.get(&scope)?.parsed.get(dir_name)?;
        (*seen == id).then(|| Validated { meta: e.meta.clone(), diagnostics: e.diagnostics.clone() })
    }
}

fn poisoned<T>(_: std::sync::PoisonError<T>) -> StorageError {
    StorageError::Task("the registry cache lock was poisoned by a panic".into())
}
