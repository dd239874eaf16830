//! `Remote`: a team store read through its local cache — refresh, listing, history, fetch,
//! publish and restore, falling back to the cache when the server is unreachable.
//! Holds the operations people run; not the wire requests (`store`) nor the files (`cache`).

use crate::cache::{Cache, State};
use crate::config::{RemoteConfig, load_remote};
use crate::credentials::Credentials;
use crate::error::{RemoteError, Result};
use crate::manifest::{Event, Manifest};
use crate::problem::{SkillProblem, is_per_skill};
use crate::store::{PublishReport, RemoteStore};
use futures_util::StreamExt as _;
use serde::Serialize;
use skilldeck_skill::{SkillFiles, SkillName};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Requests in flight at once for manifests and blobs.
const PARALLEL: usize = 16;

/// Set when an answer came from the cache because the server could not be reached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Offline {
    /// When the cache was last refreshed, if ever.
    pub last_refresh: Option<String>,
    /// Why the server could not be reached.
    pub reason: String,
}

/// One skill of the team store at its latest revision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillSummary {
    /// The skill.
    pub name: String,
    /// Its latest revision.
    pub revision: u64,
    /// Its digest, short form.
    pub digest: String,
    /// When that revision was published.
    pub published_at: String,
    /// Who published it.
    pub publisher: String,
}

/// The skills of a team store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Listing {
    /// The skills by name.
    pub skills: Vec<SkillSummary>,
    /// Set when served from the cache.
    pub offline: Option<Offline>,
}

/// What a refresh fetched.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RefreshReport {
    /// Skills in the store.
    pub skills: usize,
    /// Manifests downloaded (new since the last refresh).
    pub new_manifests: usize,
    /// Blobs downloaded.
    pub new_blobs: usize,
    /// Bytes of those blobs.
    pub blob_bytes: u64,
    /// Skills whose newest revision could not be used (a damaged manifest or blob): each
    /// keeps its last good revision, and the others were refreshed all the same.
    pub problems: Vec<SkillProblem>,
}

/// What a garbage collection removed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct GcReport {
    /// Blobs some manifest names (kept).
    pub referenced: usize,
    /// Unreferenced blobs younger than the grace period (kept).
    pub young: usize,
    /// The blobs removed (or, on a dry run, that would be).
    pub removed: Vec<String>,
    /// Their bytes.
    pub removed_bytes: u64,
}

/// A team store and its cache.
#[derive(Debug, Clone)]
pub struct Remote {
    name: String,
    store: RemoteStore,
    cache: Cache,
}

impl Remote {
    /// Opens remote `name` from `home`'s config.toml.
    pub fn open(home: &Path, name: &str) -> Result<Self> {
        let cfg = load_remote(&home.join("config.toml"), name)?;
        Self::with_config(home, name, &cfg)
    }

    /// Opens a remote from its settings, with the environment's credentials.
    pub fn with_config(home: &Path, name: &str, cfg: &RemoteConfig) -> Result<Self> {
        crate::config::check_remote_name(name)?;
        Ok(Self { name: name.to_owned(), store: RemoteStore::connect(name, cfg)?, cache: Cache::new(home, name) })
    }

    /// Opens a remote from its settings and explicit credentials.
    pub fn with_credentials(home: &Path, name: &str, cfg: &RemoteConfig, creds: &Credentials) -> Result<Self> {
        crate::config::check_remote_name(name)?;
        let store = RemoteStore::connect_with(name, cfg, creds)?;
        Ok(Self { name: name.to_owned(), store, cache: Cache::new(home, name) })
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The raw store.
    pub fn store(&self) -> &RemoteStore {
        &self.store
    }

    /// The local cache.
    pub fn cache(&self) -> &Cache {
        &self.cache
    }

    /// Fetches what changed: one LIST of the manifests' keys, the manifests not cached, and
    /// the missing blobs of each skill's latest revision. A skill whose latest manifest or one
    /// of its blobs is damaged or missing is skipped and reported (`problems`), keeping the
    /// revision the last refresh recorded; so is a listed key that cannot be a manifest's.
    /// Each skill's files are checked against its own manifest (sizes, digest), so no other
    /// skill's manifest can hold it back. A latest revision not yet recorded is fetched again
    /// even when cached, so a damaged manifest fixed in the bucket is seen by the next refresh.
    /// Only errors beyond one skill (the server unreachable or refusing, the cache failing)
    /// fail the refresh.
    pub async fn refresh(&self) -> Result<RefreshReport> {
        let (keys, stray) = self.store.manifest_keys().await?;
        let mut latest: BTreeMap<String, u64> = BTreeMap::new();
        for (name, rev) in &keys {
            let e = latest.entry(name.clone()).or_insert(*rev);
            *e = (*e).max(*rev);
        }
        let known = self.cache.state()?.skills;
        let (mut fetch, mut new_manifests) = (Vec::new(), 0);
        for (name, rev) in keys {
            let cached = self.cache.has_manifest(&name, rev);
            new_manifests += usize::from(!cached);
            // A cached latest revision the last refresh did not record may have been found
            // damaged: it is read again, in case the bucket was fixed since.
            if !cached || (latest.get(&name) == Some(&rev) && known.get(&name) != Some(&rev)) {
                fetch.push((name, rev));
            }
        }
        // An older revision's damaged manifest only matters to `history`, which reports it.
        let mut bad_manifests = self.try_fetch_manifests(fetch).await?;
        let mut problems: Vec<SkillProblem> = stray.iter().map(|k| SkillProblem::not_a_manifest(k)).collect();
        // Each skill's state after this refresh: its latest revision once all of it is cached.
        let mut settled: BTreeMap<String, u64> = BTreeMap::new();
        let mut needs: BTreeMap<&str, (u64, Vec<String>)> = BTreeMap::new();
        // Each blob at the largest size a manifest gives it: the blob is checked against its
        // hash, and each skill's own sizes are checked after (`Cache::files`).
        let mut want: BTreeMap<String, u64> = BTreeMap::new();
        let mut skip = |name: &str, rev: u64, reason: String, settled: &mut BTreeMap<String, u64>| {
            problems.push(SkillProblem::new(name, rev, reason));
            if let Some(good) = known.get(name) {
                settled.insert(name.to_owned(), *good);
            }
        };
        for (name, rev) in &latest {
            // A skill whose latest revision the last refresh recorded has its blobs already.
            if known.get(name) == Some(rev) {
                settled.insert(name.clone(), *rev);
                continue;
            }
            let manifest = match bad_manifests.remove(&(name.clone(), *rev)) {
                Some(e) => Err(e),
                None => self.cached_manifest(name, *rev),
            };
            match manifest {
                Ok(m) => {
                    for f in &m.files {
                        let size = want.entry(f.sha256.clone()).or_default();
                        *size = (*size).max(f.size);
                    }
                    needs.insert(name, (*rev, m.files.into_iter().map(|f| f.sha256).collect()));
                }
                Err(e) if is_per_skill(&e) => skip(name, *rev, e.to_string(), &mut settled),
                Err(e) => return Err(e),
            }
        }
        want.retain(|h, _| !self.cache.has_blob(h));
        let (new_blobs, blob_bytes, bad_blobs) = self.try_fetch_blobs(want).await?;
        for (name, (rev, hexes)) in needs {
            let checked = match hexes.iter().find_map(|h| bad_blobs.get(h)) {
                Some(e) => Err(e.to_string()),
                None => match self.cache.files(name, rev) {
                    Ok(Some(_)) => Ok(()),
                    Ok(None) => {
                        Err(RemoteError::NotFound { what: format!("a file of {name} revision {rev}") }.to_string())
                    }
                    Err(e) if is_per_skill(&e) => Err(e.to_string()),
                    Err(e) => return Err(e),
                },
            };
            match checked {
                Ok(()) => {
                    settled.insert(name.to_owned(), rev);
                }
                Err(reason) => skip(name, rev, reason, &mut settled),
            }
        }
        let now = crate::cache::now();
        self.cache.put_state(&State {
            last_refresh: now.clone(),
            skills: settled,
            last_attempt: now,
            last_error: None,
            problems: problems.clone(),
        })?;
        Ok(RefreshReport { skills: latest.len(), new_manifests, new_blobs, blob_bytes, problems })
    }

    /// Fetches manifests into the cache, all or nothing.
    async fn fetch_manifests(&self, which: Vec<(String, u64)>) -> Result<()> {
        match self.try_fetch_manifests(which).await?.into_values().next() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Fetches manifests into the cache; the ones damaged or gone come back with their error
    /// (any other error fails the whole fetch).
    async fn try_fetch_manifests(&self, which: Vec<(String, u64)>) -> Result<BTreeMap<(String, u64), RemoteError>> {
        let results: Vec<_> = futures_util::stream::iter(which)
            .map(|(name, rev)| async move {
                let got = match self.store.manifest(&name, rev).await {
                    Ok((_, bytes)) => self.cache.put_manifest(&name, rev, &bytes),
                    Err(e) => Err(e),
                };
                ((name, rev), got)
            })
            .buffer_unordered(PARALLEL)
            .collect()
            .await;
        Ok(per_skill(results)?.1)
    }

    /// Fetches blobs (hash → size from their manifest) into the cache, all or nothing.
    async fn fetch_blobs(&self, which: BTreeMap<String, u64>) -> Result<(usize, u64)> {
        let (n, bytes, mut bad) = self.try_fetch_blobs(which).await?;
        match bad.pop_first() {
            Some((_, e)) => Err(e),
            None => Ok((n, bytes)),
        }
    }

    /// Fetches blobs (hash → size from their manifest) into the cache, each written as it
    /// arrives so no more than `PARALLEL` are in memory. Returns how many came and their bytes,
    /// and the damaged or missing ones with their error (any other error fails the fetch).
    async fn try_fetch_blobs(
        &self,
        which: BTreeMap<String, u64>,
    ) -> Result<(usize, u64, BTreeMap<String, RemoteError>)> {
        let results: Vec<_> = futures_util::stream::iter(which)
            .map(|(hex, size)| async move {
                let got = match self.store.blob(&hex, size).await {
                    Ok(bytes) => self.cache.put_blob(&hex, &bytes).map(|()| bytes.len() as u64),
                    Err(e) => Err(e),
                };
                (hex, got)
            })
            .buffer_unordered(PARALLEL)
            .collect()
            .await;
        let (sizes, bad) = per_skill(results)?;
        Ok((sizes.len(), sizes.iter().sum(), bad))
    }

    fn cached_manifest(&self, name: &str, rev: u64) -> Result<Manifest> {
        self.cache.manifest(name, rev)?.ok_or_else(|| RemoteError::NotFound { what: format!("{name} revision {rev}") })
    }

    /// The skills at their latest revisions: refreshed first, or from the cache (marked
    /// offline) when the server cannot be reached.
    pub async fn skills(&self) -> Result<Listing> {
        let offline = self.refresh_or_offline().await?;
        let state = self.cache.state()?;
        let mut skills = Vec::with_capacity(state.skills.len());
        for (name, rev) in &state.skills {
            let m = self.cached_manifest(name, *rev)?;
            skills.push(SkillSummary {
                name: name.clone(),
                revision: *rev,
                digest: m.short_digest(),
                published_at: m.published_at,
                publisher: m.publisher,
            });
        }
        Ok(Listing { skills, offline })
    }

    async fn refresh_or_offline(&self) -> Result<Option<Offline>> {
        match self.refresh().await {
            Ok(_) => Ok(None),
            Err(e) if e.is_unreachable() => {
                Ok(Some(Offline { last_refresh: self.cache.state()?.last_refresh, reason: e.to_string() }))
            }
            Err(e) => Err(e),
        }
    }

    /// Every revision of a skill, oldest first: from the server (caching new manifests), or
    /// from the cache when the server cannot be reached.
    pub async fn history(&self, name: &str) -> Result<(Vec<Manifest>, Option<Offline>)> {
        let (revs, offline) = match self.store.revisions(name).await {
            Ok(revs) => {
                let missing =
                    revs.iter().filter(|r| !self.cache.has_manifest(name, **r)).map(|r| (name.to_owned(), *r));
                self.fetch_manifests(missing.collect()).await?;
                (revs, None)
            }
            Err(e) if e.is_unreachable() => {
                let off = Offline { last_refresh: self.cache.state()?.last_refresh, reason: e.to_string() };
                (self.cache.revisions(name)?, Some(off))
            }
            Err(e) => return Err(e),
        };
        if revs.is_empty() {
            return Err(RemoteError::NotFound { what: format!("skill {name:?}") });
        }
        let manifests = revs.iter().map(|r| self.cached_manifest(name, *r)).collect::<Result<Vec<_>>>()?;
        Ok((manifests, offline))
    }

    /// The files of revision `rev` of a skill (its latest when `None`), through the cache.
    pub async fn fetch(&self, name: &str, rev: Option<u64>) -> Result<(Manifest, SkillFiles)> {
        let rev = match rev {
            Some(r) => r,
            None => match self.store.revisions(name).await {
                Ok(revs) => *revs.last().ok_or_else(|| RemoteError::NotFound { what: format!("skill {name:?}") })?,
                Err(e) if e.is_unreachable() => *self.cache.revisions(name)?.last().ok_or(e)?,
                Err(e) => return Err(e),
            },
        };
        if !self.cache.has_manifest(name, rev) {
            self.fetch_manifests(vec![(name.to_owned(), rev)]).await?;
        }
        let m = self.cached_manifest(name, rev)?;
        let missing: BTreeMap<String, u64> =
            m.files.iter().filter(|f| !self.cache.has_blob(&f.sha256)).map(|f| (f.sha256.clone(), f.size)).collect();
        self.fetch_blobs(missing).await?;
        let files = self
            .cache
            .files(name, rev)?
            .ok_or_else(|| RemoteError::NotFound { what: format!("a file of {name} revision {rev}") })?;
        Ok((m, files))
    }

    /// Removes blobs no manifest names that are older than `grace` (left by publishes killed
    /// before their manifest). The manifests are listed again before deleting, so a revision
    /// committed meanwhile keeps its blobs; see docs/guide/team-store.md for the remaining window.
    pub async fn gc(&self, grace: std::time::Duration, dry_run: bool) -> Result<GcReport> {
        let referenced = self.referenced_blobs().await?;
        let mut young = 0;
        let mut candidates: BTreeMap<String, u64> = BTreeMap::new();
        for (hex, age, size) in self.store.blob_metas().await? {
            if referenced.contains(&hex) {
                continue;
            }
            if age < grace.as_secs() {
                young += 1;
            } else {
                candidates.insert(hex, size);
            }
        }
        for hex in self.referenced_blobs().await? {
            candidates.remove(&hex);
        }
        let removed_bytes = candidates.values().sum();
        if !dry_run {
            for hex in candidates.keys() {
                self.store.delete_blob(hex).await?;
            }
        }
        Ok(GcReport { referenced: referenced.len(), young, removed: candidates.into_keys().collect(), removed_bytes })
    }

    async fn referenced_blobs(&self) -> Result<BTreeSet<String>> {
        let (keys, _) = self.store.manifest_keys().await?;
        let missing = keys.iter().filter(|(n, r)| !self.cache.has_manifest(n, *r)).cloned().collect();
        self.fetch_manifests(missing).await?;
        let mut out = BTreeSet::new();
        for (name, rev) in &keys {
            out.extend(self.cached_manifest(name, *rev)?.files.into_iter().map(|f| f.sha256));
        }
        Ok(out)
    }

    /// Publishes `files` as the next revision of `name`.
    pub async fn publish(&self, name: &SkillName, files: &SkillFiles) -> Result<PublishReport> {
        self.publish_as(name, files, Event::Publish, None).await
    }

    async fn publish_as(
        &self,
        name: &SkillName,
        files: &SkillFiles,
        event: Event,
        from: Option<u64>,
    ) -> Result<PublishReport> {
        let report = self.store.publish(name, files, event, from).await?;
        let bytes = serde_json::to_vec_pretty(&report.manifest)
            .map_err(|e| RemoteError::Store(format!("could not encode the manifest: {e}")))?;
        self.cache.put_manifest(name.as_str(), report.revision, &bytes)?;
        for (_, b) in files.iter() {
            let hex = crate::manifest::sha256_hex(b);
            if !self.cache.has_blob(&hex) {
                self.cache.put_blob(&hex, b)?;
            }
        }
        Ok(report)
    }

    /// Publishes revision `rev`'s files again as a new revision (event `restore`).
    pub async fn restore(&self, name: &SkillName, rev: u64) -> Result<PublishReport> {
        let (_, files) = self.fetch(name.as_str(), Some(rev)).await?;
        self.publish_as(name, &files, Event::Restore, Some(rev)).await
    }
}

/// Splits fetch results into what came and what was damaged or gone, by key; any other error
/// (unreachable, refused, the cache failing) fails them all.
fn per_skill<K: Ord, T>(results: Vec<(K, Result<T>)>) -> Result<(Vec<T>, BTreeMap<K, RemoteError>)> {
    let (mut ok, mut bad) = (Vec::new(), BTreeMap::new());
    for (key, got) in results {
        match got {
            Ok(v) => ok.push(v),
            Err(e) if is_per_skill(&e) => {
                bad.insert(key, e);
            }
            Err(e) => return Err(e),
        }
    }
    Ok((ok, bad))
}
