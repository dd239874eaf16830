//! `SkillRegistry`: discovery, parsing, validation and caching of the stored skills.
//! Holds the cache and its invalidation, the revision overlay and shadowing; not the listing text.

use rayon::prelude::*;
use skilldeck_skill::digest::Digest;
pub use skilldeck_skill::entry::{ListedEntry, SkillEntry};
use skilldeck_skill::files::SkillFiles;
use skilldeck_skill::grants::GrantRequest;
use skilldeck_skill::name::SkillName;
use skilldeck_skill::risk::{RiskLevel, RiskMark};
use skilldeck_skill::validate::Validated;
use skilldeck_store::entries;
use skilldeck_store::parse_cache::{self, CachedSkill};
use skilldeck_store::safe_read::FileId;
use skilldeck_store::storage::Summary;
use skilldeck_store::storage::seal::Stamp;
use skilldeck_store::storage::stamps::{self, ScopeDir};
use skilldeck_store::storage::{DeleteOutcome, FsStorage, Revision, Scope, StorageError, WriteOutcome};
use skilldeck_store::trust::Trust;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, RwLock};

#[derive(Debug, Default)]
struct ScopeCache {
    names: Option<Arc<Vec<String>>>,
    entries: HashMap<String, Arc<SkillEntry>>,
    digests: HashMap<String, Digest>,
    /// What validating each `SKILL.md` found, by the file's identity. Kept through
    /// `invalidate`: a watcher event or a whole-scope reload reads the folder again, but parses
    /// `SKILL.md` again only when it changed, so a slow or invalid file costs once per change.
    parsed: HashMap<String, (FileId, Arc<SkillEntry>)>,
    /// Skills whose record in the persisted cache has no line costs yet: a listing that counts
    /// them has [`SkillRegistry::keep_line_tokens`] write them there.
    uncosted: HashSet<String>,
}

/// Discovers and caches skills. Writes and deletes through it, and `invalidate` calls from a
/// watcher, drop the affected entries; the next listing reads only those again.
///
/// A listing of a whole scope also starts from the persisted parse cache
/// (`$SKILLDECK_HOME/cache/<scope>.skills`, see `parse_cache`): a skill whose folder, files and
/// sidecars all have the stamps they had when it was parsed is taken from there, with one
/// `stat` per path and no read; any other is read and parsed, and the cache is rewritten. So
/// the CLI, the app and the agent loop start on a large store at the cost of those `stat`s.
#[derive(Debug)]
pub struct SkillRegistry {
    storage: FsStorage,
    strict: bool,
    digests: bool,
    persist: bool,
    settle: Option<std::time::Duration>,
    stats: DiskCacheCounters,
    cache: RwLock<HashMap<Scope, ScopeCache>>,
    /// Changed in place by [`SkillRegistry::set_hold`] (the app's Settings), so a shared
    /// registry follows config.toml's `[audit] hold` without being rebuilt.
    hold: RwLock<Option<RiskLevel>>,
    trust: RwLock<Option<(TrustStamp, Arc<Trust>)>>,
    /// Replaced by [`SkillRegistry::set_semantic`] (the app's Settings choosing another model).
    semantic: RwLock<Option<Arc<crate::semantic::Semantic>>>,
}

/// How many more skills' line costs a listing that loaded the tokenizer counts for the parse
/// cache (about 60 µs each on a 2-core machine: some 30 ms at most).
pub const EXTRA_COUNTS: usize = 500;

/// How many records of the persisted cache are decoded and checked at once (on every core).
const CACHE_BATCH: usize = 1024;

/// What `trust.json` looked like when it was read: a new write changes it.
type TrustStamp = Option<(std::time::SystemTime, u64)>;

/// What the persisted parse cache did for the whole-scope listings of a registry so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DiskCacheStats {
    /// Skills taken from the cache (their stamps held).
    pub cached: usize,
    /// Skills read and parsed (not cached, stale, or the cache was not usable).
    pub read: usize,
}

#[derive(Debug, Default)]
struct DiskCacheCounters {
    cached: std::sync::atomic::AtomicUsize,
    read: std::sync::atomic::AtomicUsize,
}

/// One skill as read: its entry and the stamps it was read at, when a later start may trust
/// them.
struct Loaded {
    entry: Arc<SkillEntry>,
    stamps: Option<Vec<(String, Stamp)>>,
}

impl SkillRegistry {
    /// A registry over `storage` with an empty cache.
    pub fn new(storage: FsStorage) -> Self {
        Self {
            storage,
            strict: false,
            digests: false,
            persist: true,
            settle: None,
            stats: DiskCacheCounters::default(),
            cache: RwLock::new(HashMap::new()),
            hold: RwLock::new(Some(RiskLevel::High)),
            trust: RwLock::new(None),
            semantic: RwLock::new(None),
        }
    }

    /// The same registry ranking by meaning too, with `semantic`'s model and vectors, in its
    /// ranked listings and `find_skills`.
    pub fn with_semantic(self, semantic: Arc<crate::semantic::Semantic>) -> Self {
        self.set_semantic(semantic);
        self
    }

    /// Ranks by meaning with `semantic` from now on (another model chosen), in place, so a
    /// shared registry follows config.toml's `[listing] model` without being rebuilt.
    pub fn set_semantic(&self, semantic: Arc<crate::semantic::Semantic>) {
        *self.semantic.write().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(semantic);
    }

    /// Its ranking by meaning, when it has one.
    pub fn semantic(&self) -> Option<Arc<crate::semantic::Semantic>> {
        self.semantic.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// The same registry holding back skills with an unapproved audit finding at `hold` or
    /// above (`None`: the audit holds nothing). The default is `high`, as config.toml's
    /// `[audit] hold`.
    pub fn with_hold(self, hold: Option<RiskLevel>) -> Self {
        self.set_hold(hold);
        self
    }

    /// Changes the hold level of this (possibly shared) registry from now on; returns whether
    /// it changed. Nothing is cached by it: the next listing holds back by the new level.
    pub fn set_hold(&self, hold: Option<RiskLevel>) -> bool {
        let mut slot = self.hold.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        std::mem::replace(&mut *slot, hold) != hold
    }

    /// The level at which an unapproved finding holds a skill back, if any.
    pub fn hold(&self) -> Option<RiskLevel> {
        *self.hold.read().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Why a skill is held back: its findings at the hold level or above that the user has not
    /// approved (empty: it is not held). A held skill is stored and shown, but never listed to
    /// a model, offered over MCP, synced to an agent, or mounted, until `skilldeck trust`.
    pub fn held_by(&self, entry: &SkillEntry) -> Vec<RiskMark> {
        let (Some(hold), Some(risk)) = (self.hold(), entry.risk.as_ref()) else { return Vec::new() };
        if risk.worst().is_none_or(|w| w < hold) {
            return Vec::new();
        }
        self.trust().unapproved(entry.scope, &entry.name, risk, hold).into_iter().cloned().collect()
    }

    /// Whether a skill is held back (see [`SkillRegistry::held_by`]).
    pub fn is_held(&self, entry: &SkillEntry) -> bool {
        !self.held_by(entry).is_empty()
    }

    /// The user's approvals, read again whenever `trust.json` changed (another process may
    /// have approved a skill). One that cannot be read approves nothing: a held skill stays
    /// held.
    pub fn trust(&self) -> Arc<Trust> {
        let path = self.storage.home().root().join(skilldeck_store::trust::TRUST_FILE);
        let stamp: TrustStamp = std::fs::metadata(&path).ok().and_then(|m| Some((m.modified().ok()?, m.len())));
        if let Ok(cached) = self.trust.read()
            && let Some((seen, trust)) = cached.as_ref()
            && *seen == stamp
        {
            return Arc::clone(trust);
        }
        let trust = Arc::new(Trust::load(self.storage.home()).unwrap_or_default());
        if let Ok(mut cached) = self.trust.write() {
            *cached = Some((stamp, Arc::clone(&trust)));
        }
        trust
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

    /// The same registry with the persisted parse cache used (the default) or not: without
    /// it, every skill is read and parsed, and no cache file is read or written.
    pub fn with_disk_cache(mut self, persist: bool) -> Self {
        self.persist = persist;
        self
    }

    /// The same registry trusting a skill's stamps once its files are `window` old by the
    /// system clock, instead of the default: once they are older than the file system's own
    /// clock read as the listing began (see `skilldeck_store::storage::stamps`). Tests that
    /// need a skill just written cached at once pass zero.
    pub fn with_settle_window(mut self, window: std::time::Duration) -> Self {
        self.settle = Some(window);
        self
    }

    /// Lists every scope whole once the file system's clock has ticked past the writes made
    /// so far (a few milliseconds at most; not waited for where it ticks by the second), so
    /// the persisted cache holds every skill just stored, with what its listing lines cost:
    /// the next process (a `view` right after an `import`, a `list`) reads, audits and weighs
    /// none of them again, nor the bundled skills a fresh home has never listed. Best effort,
    /// like the cache.
    pub fn cache_what_was_written(&self) {
        if !self.persist || self.strict {
            return;
        }
        let home = self.storage.home();
        let waited = std::time::Duration::from_millis(50);
        stamps::wait_for_tick(&parse_cache::clock_path(home.root()), &home.scope_dir(Scope::User), waited);
        for scope in Scope::ALL {
            let Ok(entries) = self.list_metas(scope) else { continue };
            // What each listing line costs, too: a listing then loads no tokenizer to weigh them.
            for e in entries.iter().filter(|e| e.valid && e.line_tokens.get().is_none()) {
                skilldeck_select::listing::line_tokens(e);
            }
        }
        self.keep_line_tokens(&Scope::ALL);
    }

    /// The limit a skill's stamps must be older than to be cached, read before any is taken.
    fn settle_limit(&self, scope: Scope) -> i64 {
        if let Some(window) = self.settle {
            return stamps::settle_limit(window);
        }
        let root = self.storage.home().root();
        stamps::fs_clock(&parse_cache::clock_path(root), &self.storage.home().scope_dir(scope))
            .unwrap_or_else(|| stamps::settle_limit(stamps::SETTLE))
    }

    /// How many skills whole-scope listings took from the persisted cache, and how many they
    /// read and parsed.
    pub fn disk_cache_stats(&self) -> DiskCacheStats {
        use std::sync::atomic::Ordering::Relaxed;
        DiskCacheStats { cached: self.stats.cached.load(Relaxed), read: self.stats.read.load(Relaxed) }
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
        let (loaded, uncosted) = self.load_all(scope, &missing, missing.len() == names.len());
        {
            let mut cache = self.cache.write().map_err(poisoned)?;
            let sc = cache.entry(scope).or_default();
            sc.uncosted.extend(uncosted);
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

    /// What an approval of the skill's `allowed-tools` is bound to besides its request: the
    /// skill's files' digest (an approval covers the content it was given for: a source's
    /// update, a teammate's revision or an outside edit asks again), nothing for a bundled skill
    /// (trusted as shipped). Pass it to `Trust::state`, `view` and `approve`.
    pub fn trust_content(&self, scope: Scope, dir_name: &str) -> Result<Option<Digest>, StorageError> {
        if scope == Scope::System { Ok(None) } else { self.digest(scope, dir_name).map(Some) }
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

    /// Loads skills, on as many threads as there are cores when there are many. With `whole`
    /// (every skill of the scope is loaded) the persisted cache is read first and, when
    /// anything in it was missing, stale or gone, written again. Also gives the names of the
    /// skills whose record there has no line costs.
    fn load_all(&self, scope: Scope, names: &[String], whole: bool) -> (Vec<Arc<SkillEntry>>, Vec<String>) {
        let use_disk = whole && self.persist && !self.strict;
        let cache_path = parse_cache::path(self.storage.home().root(), scope);
        let scope_dir = if use_disk { ScopeDir::open(&self.storage.home().scope_dir(scope)).ok() } else { None };
        // The cached parses whose stamps still hold, made entries as they are read: a batch of
        // records at a time, each batch decoded and its stamps checked on every core (rayon),
        // so a large cache is never held whole next to the entries.
        let mut hits: Vec<Option<Arc<SkillEntry>>> = vec![None; names.len()];
        let mut cached_count = 0;
        if let Some(dir) = &scope_dir {
            let undecodable = std::sync::atomic::AtomicBool::new(false);
            let whole = parse_cache::read_batches(&cache_path, scope, CACHE_BATCH, |batch| {
                cached_count += batch.len();
                let found: Vec<(usize, Arc<SkillEntry>)> = (0..batch.len())
                    .into_par_iter()
                    .with_min_len(16)
                    .filter_map(|k| {
                        let Some(c) = batch.decode(k) else {
                            undecodable.store(true, std::sync::atomic::Ordering::Relaxed);
                            return None;
                        };
                        let i = names.binary_search(&c.name).ok()?;
                        let trusted = (c.digest.is_some() || !self.digests) && dir.unchanged(&c.name, &c.stamps);
                        trusted.then(|| (i, Arc::new(c.into_entry(scope))))
                    })
                    .collect();
                for (i, entry) in found {
                    if let Some(slot) = hits.get_mut(i) {
                        *slot = Some(entry);
                    }
                }
            });
            if !whole || undecodable.into_inner() {
                hits.iter_mut().for_each(|h| *h = None);
                cached_count = 0;
            }
        }
        let hit_count = hits.iter().filter(|h| h.is_some()).count();
        let misses: Vec<(usize, &str)> = hits
            .iter()
            .zip(names)
            .enumerate()
            .filter(|(_, (h, _))| h.is_none())
            .map(|(i, (_, n))| (i, n.as_str()))
            .collect();
        // Read before any miss is stamped; only a listing that may cache needs it.
        let limit_ns = if scope_dir.is_some() && !misses.is_empty() { self.settle_limit(scope) } else { i64::MIN };
        let ctx = LoadCtx { scope, limit_ns };
        // Each miss is a read and a parse of its own: on every core (rayon), in order.
        let read: Vec<_> = misses.par_iter().with_min_len(16).map(|(_, n)| self.load(&ctx, n)).collect();
        if scope_dir.is_some() {
            use std::sync::atomic::Ordering::Relaxed;
            self.stats.cached.fetch_add(hit_count, Relaxed);
            self.stats.read.fetch_add(read.len(), Relaxed);
        }
        // Rewritten when a skill can be cached that was not, or a cached one is stale or gone;
        // not for a skill that cannot be (unsettled, unreadable), which would only rewrite it.
        let cacheable = read.iter().any(|l| l.stamps.is_some());
        let mut uncosted = Vec::new();
        if scope_dir.is_some() {
            let hit_names = hits.iter().flatten().filter(|e| e.line_tokens.get().is_none()).map(|e| e.name.clone());
            let fresh_names = read.iter().filter(|l| l.stamps.is_some()).map(|l| l.entry.name.clone());
            uncosted.extend(hit_names.chain(fresh_names));
        }
        if scope_dir.is_some() && (cacheable || hit_count != cached_count) {
            let keep = |c: &mut CachedSkill| names.binary_search(&c.name).is_ok_and(|i| hits[i].is_some());
            // Each record made as it is written: the new parses are never held twice.
            let fresh = || read.iter().filter_map(|l| Some(CachedSkill::of(&l.entry, l.stamps.clone()?)));
            // Best effort: a cache that cannot be written only makes the next start slower.
            let _ = parse_cache::rewrite(&cache_path, scope, keep, fresh);
        }
        for ((i, _), l) in misses.iter().zip(read) {
            if let Some(slot) = hits.get_mut(*i) {
                *slot = Some(l.entry);
            }
        }
        (hits.into_iter().flatten().collect(), uncosted)
    }

    /// Writes the line costs a listing counted into the persisted cache of each of `scopes`
    /// where they were missing, so the next process lists those skills without loading the
    /// tokenizer. A listing that had the tokenizer load also counts up to [`EXTRA_COUNTS`] more
    /// of the scope's valid skills (a ranked listing of a large store counts only the lines it
    /// weighs), so a few processes fill the cache however the store is asked. Best effort, like
    /// the cache itself; nothing to do (the usual case) costs a look at each scope.
    pub fn keep_line_tokens(&self, scopes: &[Scope]) {
        if !self.persist || self.strict {
            return;
        }
        for &scope in scopes {
            let (mut counted, rest): (Vec<Arc<SkillEntry>>, Vec<Arc<SkillEntry>>) = {
                let Ok(cache) = self.cache.read() else { return };
                let Some(sc) = cache.get(&scope) else { continue };
                sc.uncosted
                    .iter()
                    .filter_map(|n| sc.entries.get(n))
                    .map(Arc::clone)
                    .partition(|e| e.line_tokens.get().is_some())
            };
            if counted.is_empty() {
                continue;
            }
            for e in rest.into_iter().filter(|e| e.valid).take(EXTRA_COUNTS) {
                skilldeck_select::listing::line_tokens(&e);
                counted.push(e);
            }
            let counted: HashMap<&str, &SkillEntry> = counted.iter().map(|e| (e.name.as_str(), &**e)).collect();
            if let Ok(mut cache) = self.cache.write()
                && let Some(sc) = cache.get_mut(&scope)
            {
                sc.uncosted.retain(|n| !counted.contains_key(n.as_str()));
            }
            let path = parse_cache::path(self.storage.home().root(), scope);
            let add = |c: &mut CachedSkill| {
                if let Some(e) = counted.get(c.name.as_str()) {
                    c.add_line_tokens(e);
                }
                true
            };
            let _ = parse_cache::rewrite(&path, scope, add, std::iter::empty);
        }
    }

    /// One skill, read and parsed (or its parse reused when its `SKILL.md` was parsed before).
    fn load(&self, ctx: &LoadCtx, dir_name: &str) -> Loaded {
        let scope = ctx.scope;
        // One pass reads every file: the digest and the audit share it.
        match self.storage.summary_and_snapshot(scope, dir_name, self.digests) {
            Ok((mut s, snapshot)) => {
                let mut entry = match self.parsed_before(scope, dir_name, &s) {
                    Some(v) => entries::from_validated(scope, dir_name, &s, v),
                    None => {
                        let v = entries::validate_summary(dir_name, &s, self.strict);
                        let entry = entries::from_validated(scope, dir_name, &s, v);
                        if let (Some(id), Ok(mut cache)) = (s.skill_md_id, self.cache.write()) {
                            let parsed = &mut cache.entry(scope).or_default().parsed;
                            parsed.insert(dir_name.to_owned(), (id, Arc::new(entry.clone())));
                        }
                        entry
                    }
                };
                // Every file audited: what the audit found decides whether the skill is held,
                // whichever way it came in. One whose files cannot all be read is not cached by
                // its stamps, so it is audited again on the next load.
                // The audit is told what `allowed-tools` asks for rather than parsing the
                // frontmatter again, when the entry was validated (leniently, as the audit
                // reads it) from the very bytes the audit is given.
                let audit = snapshot.map(|snap| {
                    let same_bytes = s.skill_md.is_some() && snap.files.get("SKILL.md") == s.skill_md.as_deref();
                    let known = (same_bytes && !self.strict).then(|| GrantRequest::of(&entry.meta));
                    skilldeck_store::audits::audit_snapshot(&snap, known)
                });
                let audited = audit.is_ok();
                entry.risk = Some(match audit {
                    Ok(report) => {
                        skilldeck_store::audits::log_verdict(dir_name, &report);
                        report.summary()
                    }
                    Err(e) => unreadable_risk(&e),
                });
                let entry = Arc::new(entry);
                // Only a folder read whole and settled is worth trusting by its stamps later.
                let whole = audited && s.skill_md_problem.is_none() && (s.digest.is_some() || !self.digests);
                let stamps = std::mem::take(&mut s.stamps);
                let stamps = (whole && stamps::settled(&stamps, ctx.limit_ns)).then_some(stamps);
                Loaded { entry, stamps }
            }
            Err(e) => Loaded { entry: Arc::new(SkillEntry::unreadable(scope, dir_name, &e)), stamps: None },
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

/// A skill whose files could not be read for the audit: one finding that says so, so nothing
/// unread passes as clean (medium: it shows, and holds only at a `medium` threshold).
fn unreadable_risk(e: &StorageError) -> skilldeck_skill::risk::RiskSummary {
    let mut a = skilldeck_audit::Auditor::new();
    a.unreadable(".", &e.to_string());
    a.finish().summary()
}

/// What every load of one `load_all` shares.
struct LoadCtx {
    scope: Scope,
    /// What each stamp must be older than for the skill to be cached (`stamps::settled`).
    limit_ns: i64,
}

fn poisoned<T>(_: std::sync::PoisonError<T>) -> StorageError {
    StorageError::Task("the registry cache lock was poisoned by a panic".into())
}
