//! `skilldeck model install <owner>/<name>[@revision]` and `skilldeck model use`: a BERT
//! sentence-embedding model fetched from the Hugging Face Hub (or the mirror `$HF_ENDPOINT`
//! names) over its public HTTP API, and the choice of the model that ranks.
//!
//! The revision (a branch, tag or commit; `main` by default) is first resolved to its commit
//! with `GET /api/models/<id>/revision/<revision>`, which also lists the repository's files;
//! each file the engine reads is then fetched from `/<id>/resolve/<commit>/<file>` (the weights
//! with a progress bar), so every file comes from the same commit. The files go to a staging
//! folder, the model must load and embed a sentence there, and only then does it replace
//! `$SKILLDECK_HOME/models/<owner>--<name>/` and become `[listing] model` in config.toml.
//! `SOURCE.json` beside the files records where they came from and their SHA-256.
//! `$HF_TOKEN`, when set, is sent as a bearer token to the Hub (never to the CDN it redirects
//! large files to, and never written down), for private and gated models.

use crate::output::{Outcome, outln};
use anyhow::{Context as _, bail};
use serde::Deserialize;
use sha2::Digest as _;
use skilldeck_embed as embed;
use skilldeck_embed::{DEFAULT_MODEL_ID, Embedder, hf};
use skilldeck_sources::http::{BearerToken, HttpClient, HttpOptions};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The Hub's address when `$HF_ENDPOINT` does not name a mirror.
pub const DEFAULT_ENDPOINT: &str = "https://huggingface.co";

/// Largest file fetched: a base-size encoder's f32 weights are about 1.1 GB. Files are
/// streamed to disk, never held in memory.
const MAX_FILE_BYTES: u64 = 2 << 30;

/// What the Hub says of one revision of a model repository.
#[derive(Debug, Deserialize)]
struct RevisionInfo {
    /// The commit the revision resolves to.
    sha: String,
    /// The repository's files.
    #[serde(default)]
    siblings: Vec<Sibling>,
}

#[derive(Debug, Deserialize)]
struct Sibling {
    rfilename: String,
}

/// A hub id and the revision asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HubRef {
    /// `owner/name`.
    pub id: String,
    /// A branch, tag or commit.
    pub revision: String,
}

fn id_part_ok(part: &str) -> bool {
    !part.is_empty()
        && !part.starts_with(['.', '-'])
        && part.len() <= 96
        && part.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// `source` as a hub id (`owner/name`, optionally `@revision`), when it is one and no file or
/// folder of that name exists here.
pub fn parse(source: &str) -> Option<HubRef> {
    if Path::new(source).exists() || source.contains("://") {
        return None;
    }
    let (id, revision) = source.split_once('@').unwrap_or((source, "main"));
    let (owner, name) = id.split_once('/')?;
    let revision_ok = !revision.is_empty()
        && !revision.contains("..")
        && revision.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'));
    (id_part_ok(owner) && id_part_ok(name) && revision_ok)
        .then(|| HubRef { id: format!("{owner}/{name}"), revision: revision.to_owned() })
}

/// The Hub's address: `$HF_ENDPOINT` (a mirror; plain http only on this computer), else
/// [`DEFAULT_ENDPOINT`].
fn endpoint() -> String {
    std::env::var("HF_ENDPOINT")
        .ok()
        .filter(|e| !e.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_ENDPOINT.to_owned())
        .trim_end_matches('/')
        .to_owned()
}

fn url(s: &str) -> anyhow::Result<url::Url> {
    url::Url::parse(s).with_context(|| format!("{s} is not a URL; check $HF_ENDPOINT"))
}

/// A file being downloaded, hashed as it is written.
struct Hashing<W> {
    out: W,
    hash: sha2::Sha256,
}

impl<W: std::io::Write> std::io::Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.out.write(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// Installs `hub` into `$SKILLDECK_HOME/models/<owner>--<name>/` and makes it the model that
/// ranks.
pub fn install(hub: &HubRef) -> anyhow::Result<Outcome> {
    let home = skilldeck_store::SkilldeckHome::from_env()?;
    let ep = endpoint();
    // A blank $HF_TOKEN is no token; one that cannot be a token is refused before any request.
    let bearer_token = std::env::var("HF_TOKEN")
        .ok()
        .filter(|t| !t.trim().is_empty())
        .map(|t| {
            BearerToken::new(&t).context(
                "$HF_TOKEN is not a Hugging Face access token (it holds spaces or other characters a token has \
                 not); set it to the token as the Hub shows it, or unset it",
            )
        })
        .transpose()?;
    let options = HttpOptions {
        max_body_bytes: MAX_FILE_BYTES,
        total_timeout: Duration::from_secs(3600),
        bearer_token,
        ..HttpOptions::default()
    };
    let client = HttpClient::new(options)?;
    let HubRef { id, revision } = hub;
    let info_url = url(&format!("{ep}/api/models/{id}/revision/{revision}"))?;
    let fetched = client.get_capped(&info_url, 16 << 20).map_err(|e| match e {
        skilldeck_sources::http::HttpError::NotFound { .. } => anyhow::anyhow!(
            "{ep} has no model {id} at revision {revision}: check the id (owner/name, as on the model's page) and \
             the revision; if you meant a folder or file here, there is none at {id}"
        ),
        skilldeck_sources::http::HttpError::NeedsCredentials { status, .. } => refused(&client, &ep, id, status),
        e => anyhow::Error::from(e).context(format!("could not ask {ep} about {id}")),
    })?;
    let info: RevisionInfo = serde_json::from_slice(&fetched.bytes)
        .with_context(|| format!("{info_url} did not answer with the Hub's model information"))?;
    if info.sha.len() < 7 || !info.sha.chars().all(|c| c.is_ascii_hexdigit()) {
        bail!("{info_url} gave `{}` as the commit, which is not one", info.sha);
    }
    let listed: Vec<&str> = info.siblings.iter().map(|s| s.rfilename.as_str()).collect();
    let missing: Vec<&str> = hf::REQUIRED_FILES.iter().copied().filter(|f| !listed.contains(f)).collect();
    if !missing.is_empty() {
        bail!(
            "{id} has no {} at revision {revision}; Skilldeck runs BERT sentence-embedding models with \
             model.safetensors and tokenizer.json (as sentence-transformers publishes them), not PyTorch .bin or ONNX \
             weights alone",
            missing.join(", ")
        );
    }
    let files: Vec<&str> =
        hf::REQUIRED_FILES.iter().chain(hf::OPTIONAL_FILES.iter()).copied().filter(|f| listed.contains(f)).collect();

    let folder = embed::folder_name(id);
    let models = home.root().join("models");
    let staging = models.join(format!(".{folder}.installing"));
    let _ = std::fs::remove_dir_all(&staging);
    let result = fetch_into(&client, &ep, hub, &info.sha, &files, &staging).and_then(|()| check(&staging));
    if let Err(e) = result {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e);
    }
    let dest = models.join(&folder);
    if dest.exists() {
        std::fs::remove_dir_all(&dest).with_context(|| format!("could not replace {}", dest.display()))?;
    }
    std::fs::rename(&staging, &dest).with_context(|| format!("could not move the model into {}", dest.display()))?;
    skilldeck_agent::config_edit::set_listing_model(&home.config_path(), Some(id))?;
    let short = &info.sha[..info.sha.len().min(12)];
    outln!("installed {id} (commit {short}) into {}", dest.display());
    outln!(
        "ranking by meaning now uses it (`[listing] model` in config.toml; `skilldeck model use default` goes back to \
         the shipped model); `skilldeck model index` computes the skills' vectors with it"
    );
    Ok(Outcome::Ok)
}

/// The Hub's 401 or 403 for `id` to `client`, said with what to do about it.
fn refused(client: &HttpClient, ep: &str, id: &str, status: u16) -> anyhow::Error {
    if client.options().bearer_token.is_some() {
        anyhow::anyhow!(
            "{ep} refused the token in $HF_TOKEN for {id} (status {status}): accept the model's conditions on its \
             page with the account the token belongs to, or make a token that may read it"
        )
    } else {
        anyhow::anyhow!(
            "{ep} asks for credentials for {id} (status {status}): it is private or gated; set $HF_TOKEN to a \
             Hugging Face access token of an account that may read it (after accepting its conditions on the \
             model's page), or download it yourself and run `skilldeck model install FOLDER`"
        )
    }
}

/// Fetches `files` of `hub` at `commit` into `staging`, with `SOURCE.json`.
fn fetch_into(
    client: &HttpClient,
    ep: &str,
    hub: &HubRef,
    commit: &str,
    files: &[&str],
    staging: &Path,
) -> anyhow::Result<()> {
    let mut digests = serde_json::Map::new();
    for file in files {
        let from = url(&format!("{ep}/{}/resolve/{commit}/{file}", hub.id))?;
        let path = staging.join(file);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("could not create {}", parent.display()))?;
        }
        let out = std::fs::File::create(&path).with_context(|| format!("could not create {}", path.display()))?;
        let mut sink = Hashing { out: std::io::BufWriter::new(out), hash: sha2::Sha256::new() };
        let bar = crate::output::stderr_bar("{msg} {bar:30} {bytes}/{total_bytes}, {bytes_per_sec}, {eta} left");
        bar.set_message((*file).to_owned());
        client
            .get_into(&from, MAX_FILE_BYTES, &mut sink, &mut |read, total| {
                if let Some(total) = total {
                    bar.set_length(total);
                }
                bar.set_position(read);
            })
            .map_err(|e| match e {
                skilldeck_sources::http::HttpError::NeedsCredentials { status, .. } => {
                    refused(client, ep, &hub.id, status)
                }
                e => anyhow::Error::from(e),
            })
            .with_context(|| format!("could not download {file} of {}", hub.id))?;
        bar.finish_and_clear();
        std::io::Write::flush(&mut sink.out).with_context(|| format!("could not write {}", path.display()))?;
        let digest: String = sink.hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
        digests.insert((*file).to_owned(), digest.into());
    }
    let source = serde_json::json!({
        "hub": hub.id,
        "revision": hub.revision,
        "commit": commit,
        "endpoint": ep,
        "sha256": digests,
    });
    let path = staging.join("SOURCE.json");
    std::fs::write(&path, serde_json::to_string_pretty(&source)?)
        .with_context(|| format!("could not write {}", path.display()))?;
    Ok(())
}

/// The staged model must load and embed a sentence.
fn check(staging: &Path) -> anyhow::Result<()> {
    let e = Embedder::load(staging).context("the model does not load; nothing was installed")?;
    e.embed_query("a sentence to check the model").context("the model does not run; nothing was installed")?;
    Ok(())
}

/// `skilldeck model use ID|default`: the model that ranks by meaning, which must be installed.
pub fn use_model(id: &str) -> anyhow::Result<Outcome> {
    let home = skilldeck_store::SkilldeckHome::from_env()?;
    let chosen = if id == "default" || id == DEFAULT_MODEL_ID { None } else { Some(id) };
    if let Some(id) = chosen {
        let dir: PathBuf = home.root().join("models").join(embed::folder_name(id));
        if !embed::is_model_dir(&dir) {
            let have = skilldeck_core::semantic::installed_models(home.root());
            bail!(
                "{id} is not installed in {}; run `skilldeck model install {id}` first (installed: {})",
                dir.display(),
                if have.is_empty() { "none".to_owned() } else { have.join(", ") }
            );
        }
    }
    let changed = skilldeck_agent::config_edit::set_listing_model(&home.config_path(), chosen)?;
    let shown = chosen.unwrap_or("the shipped model");
    if changed {
        outln!("ranking by meaning now uses {shown}; `skilldeck model index` computes the skills' vectors with it");
    } else {
        outln!("ranking by meaning already uses {shown}");
    }
    Ok(Outcome::Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hub_ids_are_told_from_paths_and_urls() {
        let r = parse("intfloat/multilingual-e5-small").unwrap();
        assert_eq!((r.id.as_str(), r.revision.as_str()), ("intfloat/multilingual-e5-small", "main"));
        let r = parse("BAAI/bge-small-en-v1.5@refs/pr/3").unwrap();
        assert_eq!(r.revision, "refs/pr/3");
        for not in
            ["https://huggingface.co/x/y", "x", "/abs/path", "./x/y", "a/b/c", "../x", "x/..", "a/b@", "a/b@../c"]
        {
            assert!(parse(not).is_none(), "{not}");
        }
    }
}
