//! `RemoteStore`: the raw operations on one team store in a bucket (blobs, manifests, lists).
//! Holds the requests and the revision claim; not the local cache (see `cache`).

use crate::config::{BucketUrl, RemoteConfig};
use crate::credentials::{self, Credentials};
use crate::error::{RemoteError, Result};
use crate::layout::{Layout, MAX_REVISION};
use crate::manifest::{Event, Manifest, sha256_hex};
use futures_util::{StreamExt as _, TryStreamExt as _};
use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::list::{PaginatedListOptions, PaginatedListStore as _};
use object_store::{BackoffConfig, ClientOptions, ObjectStore, ObjectStoreExt as _, PutMode, PutOptions, RetryConfig};
use skilldeck_skill::{SkillFiles, SkillName};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

/// The crash point between the blob uploads and the manifest (for tests: the process aborts
/// there when `SKILLDECK_TEST_CRASH_AT` holds this value).
pub const CRASH_AFTER_BLOBS: &str = "remote-after-blobs";

/// The variable naming a crash point (the same one the core's storage tests use).
pub const CRASH_ENV: &str = "SKILLDECK_TEST_CRASH_AT";

/// Requests in flight at once for blob HEADs, PUTs and GETs.
const PARALLEL: usize = 16;

/// The most revisions tried before giving up a publish to contention.
const MAX_CLAIMS: u32 = 1000;

/// Keys asked for in one LIST page (S3 answers at most 1,000).
const PAGE_KEYS: usize = 1000;

/// What a publish did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishReport {
    /// The revision claimed.
    pub revision: u64,
    /// Blobs uploaded (missing before).
    pub uploaded_blobs: usize,
    /// Bytes uploaded in those blobs.
    pub uploaded_bytes: u64,
    /// Blobs the store already held.
    pub reused_blobs: usize,
    /// The manifest written.
    pub manifest: Manifest,
}

/// One team store: a bucket and a prefix, reached with the environment's credentials.
#[derive(Debug, Clone)]
pub struct RemoteStore {
    bucket: String,
    layout: Layout,
    store: Arc<AmazonS3>,
}

impl RemoteStore {
    /// Connects to the remote `name` configured as `cfg` with the credentials of the
    /// environment or the AWS profile files (no request is sent yet; see `credentials`).
    pub fn connect(name: &str, cfg: &RemoteConfig) -> Result<Self> {
        let (creds, _) = credentials::resolve(name, &|v| std::env::var(v).ok())?;
        Self::connect_with(name, cfg, &creds)
    }

    /// Connects with the given credentials.
    pub fn connect_with(name: &str, cfg: &RemoteConfig, creds: &Credentials) -> Result<Self> {
        let url = BucketUrl::parse(name, &cfg.url)?;
        let retry = RetryConfig {
            backoff: BackoffConfig {
                init_backoff: Duration::from_millis(100),
                max_backoff: Duration::from_secs(2),
                base: 2.0,
            },
            max_retries: 4,
            retry_timeout: Duration::from_secs(30),
        };
        let options =
            ClientOptions::new().with_connect_timeout(Duration::from_secs(3)).with_timeout(Duration::from_secs(120));
        // Only what config.toml and the resolved credentials say: `from_env` would let any
        // AWS_* variable (AWS_ENDPOINT_URL, AWS_ALLOW_HTTP, AWS_SKIP_SIGNATURE,
        // AWS_CONDITIONAL_PUT, ...) redirect or weaken the signed requests. The credentials
        // still come from AWS_ACCESS_KEY_ID & co. or the profile files (`credentials::resolve`).
        let mut b = AmazonS3Builder::new()
            .with_bucket_name(&url.bucket)
            .with_region(cfg.region.as_deref().unwrap_or("us-east-1"))
            .with_retry(retry)
            .with_client_options(options)
            .with_access_key_id(&creds.access_key_id)
            .with_secret_access_key(&creds.secret_access_key);
        if let Some(t) = &creds.session_token {
            b = b.with_token(t);
        }
        if let Some(endpoint) = &cfg.endpoint {
            b = b.with_endpoint(endpoint).with_allow_http(endpoint.starts_with("http://"));
        }
        let store = b.build().map_err(|e| RemoteError::BadConfig { name: name.to_owned(), reason: e.to_string() })?;
        Ok(Self { bucket: url.bucket, layout: Layout::new(&url.prefix), store: Arc::new(store) })
    }

    /// The key scheme.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    fn err(&self, key: &object_store::path::Path) -> impl Fn(object_store::Error) -> RemoteError + '_ {
        let key = key.to_string();
        move |e| RemoteError::from_store(e, &self.bucket, &key)
    }

    /// Uploads the blobs of `files` the store lacks (HEAD first); returns (uploaded, bytes,
    /// reused). Until a manifest names them they are invisible (the first step of a publish).
    pub async fn upload_missing_blobs(&self, files: &SkillFiles) -> Result<(usize, u64, usize)> {
        let mut unique: BTreeMap<String, Vec<u8>> = BTreeMap::new();
        for (_, bytes) in files.iter() {
            unique.entry(sha256_hex(bytes)).or_insert_with(|| bytes.to_vec());
        }
        let results: Vec<Option<u64>> = futures_util::stream::iter(unique)
            .map(|(hex, bytes)| async move {
                let key = self.layout.blob(&hex);
                match self.store.head(&key).await.map_err(self.err(&key)) {
                    Ok(_) => Ok(None),
                    Err(RemoteError::NotFound { .. }) => {
                        let size = bytes.len() as u64;
                        self.store.put(&key, bytes.into()).await.map_err(self.err(&key))?;
                        Ok(Some(size))
                    }
                    Err(e) => Err(e),
                }
            })
            .buffer_unordered(PARALLEL)
            .try_collect()
            .await?;
        let uploaded = results.iter().flatten().count();
        let bytes = results.iter().flatten().sum();
        Ok((uploaded, bytes, results.len() - uploaded))
    }

    /// Publishes `files` as the next revision of `name`: missing blobs first, then the
    /// manifest, claimed with `If-None-Match: *` (on a lost race, the next number).
    pub async fn publish(
        &self,
        name: &SkillName,
        files: &SkillFiles,
        event: Event,
        restored_from: Option<u64>,
    ) -> Result<PublishReport> {
        // What every reader checks (limits, colliding paths), checked before anything is sent.
        Manifest::new(name, 1, files, event, restored_from)
            .check(crate::untrusted::limits())
            .map_err(|reason| RemoteError::Unpublishable { name: name.to_string(), reason })?;
        let (uploaded_blobs, uploaded_bytes, reused_blobs) = self.upload_missing_blobs(files).await?;
        if std::env::var(CRASH_ENV).is_ok_and(|v| v == CRASH_AFTER_BLOBS) {
            std::process::abort();
        }
        let latest = self.revisions(name.as_str()).await?.last().copied().unwrap_or(0);
        for (revision, _) in (latest + 1..).zip(0..MAX_CLAIMS) {
            // Past the last revision a key can hold the claim would "succeed" at a key no
            // client reads: refuse, naming the key that took the numbers.
            if revision > MAX_REVISION {
                let top = latest.max(MAX_REVISION);
                return Err(RemoteError::RevisionsExhausted {
                    name: name.to_string(),
                    key: self.layout.manifest(name.as_str(), top).to_string(),
                    revision: top,
                });
            }
            let manifest = Manifest::new(name, revision, files, event, restored_from);
            if self.claim(&manifest).await? {
                return Ok(PublishReport { revision, uploaded_blobs, uploaded_bytes, reused_blobs, manifest });
            }
        }
        Err(RemoteError::Contended { name: name.to_string(), attempts: MAX_CLAIMS })
    }

    /// Writes `manifest` at its revision's key only if no manifest is there yet
    /// (`If-None-Match: *`); false when another publisher holds that revision.
    /// A revision past `MAX_REVISION` (or 0) is refused: no client would ever list it.
    pub async fn claim(&self, manifest: &Manifest) -> Result<bool> {
        let key = self.layout.manifest(&manifest.name, manifest.revision);
        if !(1..=MAX_REVISION).contains(&manifest.revision) {
            return Err(RemoteError::Store(format!(
                "revision {} of {} was not written: a manifest key holds revisions 1 to {MAX_REVISION}",
                manifest.revision, manifest.name
            )));
        }
        let body = serde_json::to_vec_pretty(manifest)
            .map_err(|e| RemoteError::Store(format!("could not encode the manifest: {e}")))?;
        if body.len() as u64 > crate::untrusted::MAX_MANIFEST_BYTES {
            return Err(RemoteError::Unpublishable {
                name: manifest.name.clone(),
                reason: format!(
                    "its manifest would be {} bytes, more than the {} readers accept (shorter paths or fewer files)",
                    body.len(),
                    crate::untrusted::MAX_MANIFEST_BYTES
                ),
            });
        }
        let opts = PutOptions { mode: PutMode::Create, ..Default::default() };
        match self.store.put_opts(&key, body.into(), opts).await {
            Ok(_) => Ok(true),
            Err(object_store::Error::AlreadyExists { .. } | object_store::Error::Precondition { .. }) => Ok(false),
            Err(e) => Err(self.err(&key)(e)),
        }
    }

    /// Every manifest key in the store as `(skill, revision)`, in key order, and the keys
    /// under `skills/` that cannot be a manifest's, as listed (not escaped): a name that is no
    /// skill name, a revision of other than ten digits, a key no object path can hold (`..`,
    /// an empty segment). Those are left out, so one stray object never hides the others.
    pub async fn manifest_keys(&self) -> Result<(Vec<(String, u64)>, Vec<String>)> {
        let (metas, mut stray) = self.list_all(&self.layout.skills()).await?;
        let mut keys = Vec::with_capacity(metas.len());
        for m in &metas {
            match self.layout.parse_manifest(&m.location) {
                Some(k) => keys.push(k),
                None => stray.push(m.location.to_string()),
            }
        }
        stray.sort();
        Ok((keys, stray))
    }

    /// The revisions of one skill, ascending (empty when it has none).
    pub async fn revisions(&self, name: &str) -> Result<Vec<u64>> {
        let (metas, _) = self.list_all(&self.layout.revisions(name)).await?;
        let mut revs: Vec<u64> = metas
            .iter()
            .filter_map(|m| self.layout.parse_manifest(&m.location))
            .filter(|(n, _)| n == name)
            .map(|(_, r)| r)
            .collect();
        revs.sort_unstable();
        Ok(revs)
    }

    /// Reads one manifest (refused unread when the object is larger than
    /// `untrusted::MAX_MANIFEST_BYTES`).
    pub async fn manifest(&self, name: &str, revision: u64) -> Result<(Manifest, Vec<u8>)> {
        let key = self.layout.manifest(name, revision);
        let bytes = self.get_capped(&key, crate::untrusted::MAX_MANIFEST_BYTES, "a manifest").await?;
        Ok((Manifest::parse(&bytes, key.as_ref(), name, revision)?, bytes))
    }

    /// Reads one blob of `size` bytes (as its manifest says), checking its bytes against its
    /// hash; a blob larger than `size` is refused without reading past it.
    pub async fn blob(&self, hex: &str, size: u64) -> Result<Vec<u8>> {
        let key = self.layout.blob(hex);
        let bytes = self.get_capped(&key, size, "its manifest's size").await?;
        if sha256_hex(&bytes) != hex {
            return Err(RemoteError::Corrupt {
                key: key.to_string(),
                reason: "its bytes do not match its hash".into(),
            });
        }
        Ok(bytes)
    }

    /// Every blob as `(hash, age in seconds, size)`.
    pub async fn blob_metas(&self) -> Result<Vec<(String, u64, u64)>> {
        let (metas, _) = self.list_all(&self.layout.blobs()).await?;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or_default();
        Ok(metas
            .iter()
            .filter_map(|m| {
                let age = u64::try_from(now - m.last_modified.timestamp()).unwrap_or(0);
                Some((m.location.filename()?.to_owned(), age, m.size))
            })
            .collect())
    }

    /// Deletes one blob.
    pub async fn delete_blob(&self, hex: &str) -> Result<()> {
        let key = self.layout.blob(hex);
        self.store.delete(&key).await.map_err(self.err(&key))
    }

    /// The hashes of every blob in the store.
    pub async fn blob_hashes(&self) -> Result<BTreeSet<String>> {
        let (metas, _) = self.list_all(&self.layout.blobs()).await?;
        Ok(metas.iter().filter_map(|m| m.location.filename().map(str::to_owned)).collect())
    }

    /// Every object under `prefix/`, and apart the keys no object path can hold (`..`, `.`, an
    /// empty segment, a control character), which `object_store` refuses along with the whole
    /// page that lists them. A page holding such a key is asked for again in halves until the
    /// key is alone, which is then stepped over (`start-after`); pages grow back to
    /// `PAGE_KEYS` after: each such key costs a few dozen extra requests at most.
    async fn list_all(
        &self,
        prefix: &object_store::path::Path,
    ) -> Result<(Vec<object_store::ObjectMeta>, Vec<String>)> {
        let raw_prefix = format!("{prefix}/");
        let (mut metas, mut stray) = (Vec::new(), Vec::new());
        let (mut token, mut after): (Option<String>, Option<String>) = (None, None);
        let mut keys = PAGE_KEYS;
        loop {
            let opts = PaginatedListOptions {
                offset: if token.is_none() { after.clone() } else { None },
                page_token: token.clone(),
                max_keys: Some(keys),
                ..Default::default()
            };
            match self.store.list_paginated(Some(&raw_prefix), opts).await {
                Ok(page) => {
                    metas.extend(page.result.objects);
                    match page.page_token {
                        Some(next) => token = Some(next),
                        None => break,
                    }
                    keys = (keys * 2).min(PAGE_KEYS);
                }
                Err(e) => match unlistable_key(&e) {
                    Some(key) if keys == 1 => {
                        stray.push(key.to_owned());
                        (token, after) = (None, Some(key.to_owned()));
                        keys = 2;
                    }
                    Some(_) => keys /= 2,
                    None => return Err(self.err(prefix)(e)),
                },
            }
        }
        Ok((metas, stray))
    }

    /// Reads an object of at most `max` bytes: refused before its body when the server says it
    /// is larger, and reading stops as soon as the body passes `max` (`what` names the limit).
    async fn get_capped(&self, key: &object_store::path::Path, max: u64, what: &str) -> Result<Vec<u8>> {
        let too_big = |size: String| RemoteError::Corrupt {
            key: key.to_string(),
            reason: format!("it is {size} bytes, more than {what} ({max} bytes); not read further"),
        };
        let res = self.store.get(key).await.map_err(self.err(key))?;
        if res.meta.size > max {
            return Err(too_big(res.meta.size.to_string()));
        }
        let mut out = Vec::with_capacity(usize::try_from(res.meta.size).unwrap_or(0));
        let mut body = res.into_stream();
        while let Some(chunk) = body.try_next().await.map_err(self.err(key))? {
            if (out.len() + chunk.len()) as u64 > max {
                return Err(too_big(format!("more than {}", out.len() + chunk.len())));
            }
            out.extend_from_slice(&chunk);
        }
        Ok(out)
    }
}

/// The key of a listing entry `object_store` could not take as a path, from its error.
fn unlistable_key(e: &object_store::Error) -> Option<&str> {
    use object_store::path::Error as PathError;
    match e {
        object_store::Error::InvalidPath {
            source: PathError::BadSegment { path, .. } | PathError::EmptySegment { path },
        } => Some(path),
        _ => None,
    }
}
