//! Ranking by meaning for one home: where the sentence-embedding model is, each skill's vector
//! (kept in the vector cache, computed when missing), and giving a ranked set its vectors.
//! Holds the bookkeeping only: the model runs in `skilldeck-embed`, the fusion is the ranker's
//! (`ranker::dense`), the file is the store's (`vector_cache`).

use skilldeck_embed::{EmbedError, Embedder};
use skilldeck_select::ranker::SkillSet;
use skilldeck_select::ranker::dense::{self, Dense, Encoder};
use skilldeck_store::vector_cache::{self, Key, Vectors};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// How many skills' vectors a ranking computes on the spot when they are missing (about a
/// second on two cores); with more missing it ranks by words and leaves them to
/// [`Semantic::index`] (the app's background indexing, `skilldeck model index`).
pub const INLINE_LIMIT: usize = 16;

/// How many texts one pass of the model reads.
const BATCH: usize = 8;

/// How many new vectors are computed between two writes of the vector file while indexing.
const SAVE_EVERY: usize = 256;

/// How many requests' vectors a process keeps.
const QUERY_MEMO: usize = 256;

/// The cache key of a skill's vector: the model, and the text it read with the side it was read
/// on. Skills are embedded as peers of the request ([`Embedder::embed_peers`]) since
/// 2026-12-05; the side in the key keeps vectors embedded as passages before from being reused.
fn vector_key(model_id: &str, e: &skilldeck_skill::entry::SkillEntry) -> Key {
    vector_cache::key(model_id, &format!("peer\0{}", dense::passage(e)))
}

/// Where ranking by meaning stands for a set of skills.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Readiness {
    /// Every skill has its vector: rankings fuse words and meaning.
    Ready,
    /// `missing` of `total` skills have no vector yet: rankings use words only until they do.
    Pending {
        /// Skills without a vector.
        missing: usize,
        /// Skills in the set.
        total: usize,
    },
    /// No model: rankings use words only.
    Off(String),
}

/// The sentence-embedding model of a home, loaded on first use, and the vectors it made.
#[derive(Debug)]
pub struct Semantic {
    root: PathBuf,
    model_dir: Option<PathBuf>,
    model_id: String,
    /// Why the model chosen in config.toml cannot be used, when it is not installed.
    not_installed: Option<String>,
    model: OnceLock<Result<Arc<Model>, String>>,
    cache: Mutex<Option<Vectors>>,
    /// Serialises indexing, so two callers never run the model over the same skills at once.
    indexing: Mutex<()>,
}

/// The loaded model as the ranker's [`Encoder`], with the vectors of recent requests.
struct Model {
    embedder: Embedder,
    id: String,
    queries: Mutex<HashMap<String, Arc<[f32]>>>,
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model").field("id", &self.id).finish_non_exhaustive()
    }
}

impl Encoder for Model {
    fn model_id(&self) -> &str {
        &self.id
    }

    fn encode_query(&self, request: &str) -> Option<Arc<[f32]>> {
        if let Some(v) = self.queries.lock().ok().and_then(|m| m.get(request).cloned()) {
            return Some(v);
        }
        let v: Arc<[f32]> = self.embedder.embed_query(request).ok()?.into();
        if let Ok(mut m) = self.queries.lock() {
            if m.len() >= QUERY_MEMO {
                m.clear();
            }
            m.insert(request.to_owned(), Arc::clone(&v));
        }
        Some(v)
    }
}

/// The folders a model may be shipped in beside the program: `$SKILLDECK_MODELS_DIR`, then
/// `models/` beside the executable, then `../share/skilldeck/models/` (an installed layout).
pub fn shipped_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("SKILLDECK_MODELS_DIR").map(PathBuf::from).into_iter().collect();
    if let Some(exe_dir) = std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf)) {
        dirs.push(exe_dir.join("models"));
        dirs.push(exe_dir.join("../share/skilldeck/models"));
    }
    dirs
}

/// The models installed in `root/models/` by id, sorted: [`DEFAULT_MODEL_ID`] for the shipped
/// one, a hub id (`owner/name`) for a folder `owner--name` (staging folders left out).
///
/// [`DEFAULT_MODEL_ID`]: skilldeck_embed::DEFAULT_MODEL_ID
pub fn installed_models(root: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(root.join("models")) else { return Vec::new() };
    let mut ids: Vec<String> = entries
        .flatten()
        .filter(|e| skilldeck_embed::is_model_dir(&e.path()))
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .filter(|n| !n.starts_with('.'))
        .map(|n| if n == skilldeck_embed::DEFAULT_MODEL_ID { n } else { n.replacen("--", "/", 1) })
        .collect();
    ids.sort();
    ids
}

impl Semantic {
    /// Ranking by meaning for the home at `root` with the model `chosen` in config.toml
    /// (`[listing] model`, a hub id installed in `$SKILLDECK_HOME/models/<owner>--<name>/`);
    /// without one, the shipped model in `$SKILLDECK_HOME/models/<id>/`, else in a shipped
    /// folder ([`shipped_dirs`]); off when there is none, or when the chosen one is not there.
    pub fn for_home(root: &Path, chosen: Option<&str>) -> Self {
        if let Some(id) = chosen.filter(|id| *id != skilldeck_embed::DEFAULT_MODEL_ID) {
            let dir = root.join("models").join(skilldeck_embed::folder_name(id));
            if skilldeck_embed::is_model_dir(&dir) {
                return Self::with_model(root, Some(dir));
            }
            let mut off = Self::with_model(root, None);
            off.model_id = skilldeck_embed::folder_name(id);
            off.not_installed = Some(format!(
                "ranking by meaning is off: the model {id} chosen by `[listing] model` in config.toml is not \
                 installed in {}; run `skilldeck model install {id}`, or `skilldeck model use default` for the \
                 shipped model",
                dir.display()
            ));
            return off;
        }
        let model_dir = std::iter::once(None)
            .chain(shipped_dirs().into_iter().map(Some))
            .find_map(|shipped| skilldeck_embed::locate(root, shipped.as_deref()));
        Self::with_model(root, model_dir)
    }

    /// Ranking by meaning for the home at `root` with the model folder `model_dir` (`None`:
    /// off).
    pub fn with_model(root: &Path, model_dir: Option<PathBuf>) -> Self {
        let model_id = model_dir
            .as_deref()
            .and_then(Path::file_name)
            .map_or_else(|| skilldeck_embed::DEFAULT_MODEL_ID.to_owned(), |n| n.to_string_lossy().into_owned());
        Self {
            root: root.to_path_buf(),
            model_dir,
            model_id,
            not_installed: None,
            model: OnceLock::new(),
            cache: Mutex::new(None),
            indexing: Mutex::new(()),
        }
    }

    /// The model's id.
    pub fn model_id(&self) -> &str {
        &self.model_id
    }

    /// The model's folder, when there is one.
    pub fn model_dir(&self) -> Option<&Path> {
        self.model_dir.as_deref()
    }

    /// Why ranking by meaning is off, in words a user can act on; `None` when a model is there
    /// (it may still fail to load: [`prepare`](Self::prepare) says so).
    pub fn off_reason(&self) -> Option<String> {
        if let Some(reason) = &self.not_installed {
            return Some(reason.clone());
        }
        if self.model_dir.is_some() {
            return None;
        }
        Some(format!(
            "ranking by meaning is off: no embedding model in {} or beside the program; run ./scripts/setup (which \
             unpacks one into .tools/models) and set SKILLDECK_MODELS_DIR to that folder, or `skilldeck model install PATH` \
             (or OWNER/NAME, a model from the Hugging Face Hub)",
            self.root.join("models").display()
        ))
    }

    fn model(&self) -> Result<Arc<Model>, String> {
        self.model
            .get_or_init(|| {
                let dir = self.model_dir.as_deref().ok_or_else(|| self.off_reason().unwrap_or_default())?;
                let embedder = Embedder::load(dir).map_err(|e| format!("ranking by meaning is off: {e}"))?;
                Ok(Arc::new(Model { embedder, id: self.model_id.clone(), queries: Mutex::new(HashMap::new()) }))
            })
            .clone()
    }

    /// The loaded model as the ranker's [`Encoder`] (loading it on first use).
    pub fn encoder(&self) -> Result<Arc<dyn Encoder>, SemanticError> {
        let model: Arc<dyn Encoder> = self.model().map_err(SemanticError::Off)?;
        Ok(model)
    }

    fn cache_path(&self) -> PathBuf {
        vector_cache::path(&self.root, &self.model_id)
    }

    /// The vector cache's file (`$SKILLDECK_HOME/cache/vectors-<model>.bin`).
    pub fn vector_cache_path(&self) -> PathBuf {
        self.cache_path()
    }

    /// Forgets every vector of this model: the vector cache's file and the copy in memory
    /// (after an indexing under way ends, so it cannot write them back). The next ranking or
    /// [`index`](Self::index) computes them again; nothing else is lost. Returns the bytes
    /// freed.
    pub fn clear_vectors(&self) -> std::io::Result<u64> {
        let _one = self.indexing.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut cache = self.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        *cache = None;
        let path = self.cache_path();
        let size = match std::fs::metadata(&path) {
            Ok(m) => m.len(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(e),
        };
        std::fs::remove_file(&path)?;
        Ok(size)
    }

    /// The set's keys, and those the cache has no vector for.
    fn keys(&self, set: &SkillSet) -> (Vec<Key>, Vec<usize>) {
        let keys: Vec<Key> = set.entries().iter().map(|e| vector_key(&self.model_id, e)).collect();
        let mut cache = self.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let dim = self.model().map_or(0, |m| m.embedder.dim());
        let vectors = cache.get_or_insert_with(|| vector_cache::read(&self.cache_path(), &self.model_id, dim));
        let missing = keys.iter().enumerate().filter(|(_, k)| !vectors.contains_key(*k)).map(|(i, _)| i).collect();
        (keys, missing)
    }

    /// Gives `set` its vectors when every skill has one, computing up to [`INLINE_LIMIT`]
    /// missing ones on the spot; says where ranking by meaning stands.
    pub fn prepare(&self, set: &SkillSet) -> Readiness {
        self.prepare_keeping(set, || None)
    }

    /// [`prepare`](Self::prepare), keeping in the vector cache the vectors of `stored` too
    /// (see [`index_keeping`](Self::index_keeping)).
    pub fn prepare_keeping(&self, set: &SkillSet, stored: impl FnOnce() -> Option<Arc<SkillSet>>) -> Readiness {
        if set.dense().is_some() {
            return Readiness::Ready;
        }
        if let Some(reason) = self.off_reason() {
            return Readiness::Off(reason);
        }
        if let Err(e) = self.model() {
            return Readiness::Off(e);
        }
        let (_, missing) = self.keys(set);
        if missing.len() > INLINE_LIMIT {
            return Readiness::Pending { missing: missing.len(), total: set.entries().len() };
        }
        match self.index_keeping(set, stored, |_, _| {}) {
            Ok(()) => Readiness::Ready,
            Err(e) => Readiness::Off(format!("ranking by meaning is off: {e}")),
        }
    }

    /// Computes every missing vector of `set` (telling `progress` how many of how many are
    /// done), keeps them in the vector cache (vectors no skill of the set reads are dropped
    /// from it) and gives the set its vectors.
    pub fn index(&self, set: &SkillSet, progress: impl FnMut(usize, usize)) -> Result<(), SemanticError> {
        self.index_keeping(set, || None, progress)
    }

    /// [`index`](Self::index), dropping from the vector cache only the vectors that neither
    /// `set` nor `stored` (every skill of the store, in any scope) reads: so indexing the
    /// skills of some scopes keeps the vectors of another client's, and a deleted or changed
    /// skill's old vector still goes. `stored` is asked only when the cache is written or
    /// holds more than `set`'s vectors.
    pub fn index_keeping(
        &self,
        set: &SkillSet,
        stored: impl FnOnce() -> Option<Arc<SkillSet>>,
        mut progress: impl FnMut(usize, usize),
    ) -> Result<(), SemanticError> {
        let _one = self.indexing.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let model = self.model().map_err(SemanticError::Off)?;
        let (keys, missing) = self.keys(set);
        let mut stored = Some(stored);
        let mut kept: Option<Vec<Key>> = None;
        let mut keep = |keys: &[Key]| -> Vec<Key> {
            kept.get_or_insert_with(|| {
                let mut all = keys.to_vec();
                if let Some(other) = stored.take().and_then(|f| f()) {
                    all.extend(other.entries().iter().map(|e| vector_key(&self.model_id, e)));
                    all.sort_unstable();
                    all.dedup();
                }
                all
            })
            .clone()
        };
        let passages: Vec<String> = missing.iter().map(|&i| dense::passage(&set.entries()[i])).collect();
        let mut done = 0;
        let mut unsaved = 0;
        progress(0, missing.len());
        for (chunk, texts) in missing.chunks(BATCH).zip(passages.chunks(BATCH)) {
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let vectors = model.embedder.embed_peers(&refs)?;
            let mut cache = self.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let cached = cache.get_or_insert_with(Vectors::new);
            for (&i, v) in chunk.iter().zip(vectors) {
                cached.insert(keys[i], v.into());
            }
            drop(cache);
            done += chunk.len();
            unsaved += chunk.len();
            if unsaved >= SAVE_EVERY {
                self.save(&keep(&keys));
                unsaved = 0;
            }
            progress(done, missing.len());
        }
        if !missing.is_empty() || self.has_stale(keys.len()) {
            let keep = keep(&keys);
            if !missing.is_empty() || self.has_stale(keep.len()) {
                self.save(&keep);
            }
        }
        let cache = self.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let vectors: Option<Vec<Arc<[f32]>>> =
            keys.iter().map(|k| cache.as_ref().and_then(|c| c.get(k).cloned())).collect();
        drop(cache);
        if let Some(vectors) = vectors {
            set.attach(Dense::new(model, vectors));
        }
        Ok(())
    }

    /// Whether the cache holds more vectors than `kept`, the count of those worth keeping.
    fn has_stale(&self, kept: usize) -> bool {
        let cache = self.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        cache.as_ref().is_some_and(|c| c.len() > kept)
    }

    /// Writes the vectors of `keys`, dropping the others (best effort: one not written is
    /// computed again later).
    fn save(&self, keys: &[Key]) {
        let Ok(model) = self.model() else { return };
        let mut cache = self.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some(cached) = cache.as_mut() else { return };
        let wanted: std::collections::HashSet<&Key> = keys.iter().collect();
        cached.retain(|k, _| wanted.contains(k));
        let _ = vector_cache::write(&self.cache_path(), &self.model_id, model.embedder.dim(), cached);
    }
}

/// Why ranking by meaning could not be prepared.
#[derive(Debug, thiserror::Error)]
pub enum SemanticError {
    /// No model, or it did not load.
    #[error("{0}")]
    Off(String),
    /// The model failed on a text.
    #[error(transparent)]
    Embed(#[from] EmbedError),
}
