//! `skilldeck model`: the sentence-embedding model behind ranking by meaning: where it is,
//! whether every skill has its vector, computing the missing ones (installing it is `model_install.rs`).

use crate::context::Ctx;
use crate::output::{self, Outcome, outln};
use anyhow::bail;
use skilldeck_core::semantic::Readiness;

/// The one line saying where ranking by meaning stands, when it is not in use (for commands
/// that rank: `prompt --request`, `find`); `None` when it is.
pub fn note(readiness: &Readiness) -> Option<String> {
    match readiness {
        Readiness::Ready => None,
        Readiness::Off(reason) => Some(format!("note: {reason}")),
        Readiness::Pending { missing, total, by_meaning: false } => Some(format!(
            "note: {missing} of {total} skills have no meaning vector yet, so ranking is by words only; \
             `skilldeck model index` computes them (about 100 a second on two cores)"
        )),
        Readiness::Pending { missing, total, by_meaning: true } => Some(format!(
            "note: {missing} of {total} skills have no vector from the English companion model yet, so \
             ranking is by words and the main model only; `skilldeck model index` computes them"
        )),
    }
}

/// Where the model is and whether every listed skill has its vector.
pub fn status(json: bool) -> anyhow::Result<Outcome> {
    let ctx = Ctx::open()?;
    let opts = ctx.listing_options()?;
    let Some(semantic) = ctx.registry.semantic() else { bail!("ranking by meaning is not set up for this store") };
    let readiness = ctx.registry.meaning(&opts.scopes)?.unwrap_or(Readiness::Off(String::new()));
    let installed = skilldeck_core::semantic::installed_models(ctx.storage().home().root());
    let state = match &readiness {
        Readiness::Ready => "ready",
        Readiness::Pending { .. } => "pending",
        Readiness::Off(_) => "off",
    };
    if json {
        let (missing, total) = match readiness {
            Readiness::Pending { missing, total, .. } => (Some(missing), Some(total)),
            _ => (None, None),
        };
        let reason = match &readiness {
            Readiness::Off(r) => Some(r.clone()),
            _ => None,
        };
        let companion = semantic
            .companion()
            .map(|(id, path)| serde_json::json!({ "model": id, "path": path, "error": semantic.companion_error() }));
        output::json(&serde_json::json!({
            "state": state,
            "by_meaning": matches!(readiness, Readiness::Ready | Readiness::Pending { by_meaning: true, .. }),
            "model": semantic.model_id(),
            "path": semantic.model_dir(),
            "companion": companion,
            "missing": missing,
            "total": total,
            "reason": reason,
            "installed": installed,
        }))?;
        return Ok(Outcome::Ok);
    }
    match semantic.model_dir() {
        Some(dir) => outln!("model: {} ({})", semantic.model_id(), dir.display()),
        None => outln!("model: none"),
    }
    if let Some((id, dir)) = semantic.companion() {
        match semantic.companion_error() {
            None => outln!("companion: {id} ({}), for requests in English", dir.display()),
            Some(why) => outln!("companion: {id} ({}) left out: {why}", dir.display()),
        }
    }
    match note(&readiness) {
        None => outln!("ranking by meaning: on, every listed skill has its vector"),
        Some(line) => outln!("{}", line.trim_start_matches("note: ")),
    }
    if !installed.is_empty() {
        outln!("installed in {}: {}", ctx.storage().home().root().join("models").display(), installed.join(", "));
    }
    Ok(Outcome::Ok)
}

/// Computes every missing vector of the listed skills, with a progress bar on a terminal.
pub fn index() -> anyhow::Result<Outcome> {
    let ctx = Ctx::open()?;
    let Some(semantic) = ctx.registry.semantic() else { bail!("ranking by meaning is not set up for this store") };
    if let Some(reason) = semantic.off_reason() {
        bail!("{reason}");
    }
    let done = compute(&ctx)?;
    outln!(
        "{} skills ranked by meaning with {}; {} skills embedded in {:.1} s",
        done.listed,
        semantic.label(),
        done.computed,
        done.seconds
    );
    Ok(Outcome::Ok)
}

/// What one indexing did.
pub struct Indexed {
    /// How many skills the listing holds.
    pub listed: usize,
    /// How many of them had a vector computed.
    pub computed: usize,
    /// How long it took.
    pub seconds: f64,
}

/// After a change that stored skills (an import): computes the vectors the listed skills
/// lack, so the next `find`, `prompt --request`, MCP `find_skills` or agent turn ranks them by
/// meaning without anyone running `model index`. `None` when ranking by meaning is off (no
/// model) or there was nothing to compute.
pub fn index_after_change() -> anyhow::Result<Option<Indexed>> {
    let ctx = Ctx::open()?;
    let Some(semantic) = ctx.registry.semantic() else { return Ok(None) };
    if semantic.off_reason().is_some() {
        return Ok(None);
    }
    let done = compute(&ctx)?;
    Ok((done.computed > 0).then_some(done))
}

/// Computes the missing vectors of the skills `ctx` lists, with a progress bar on a terminal.
fn compute(ctx: &Ctx) -> anyhow::Result<Indexed> {
    let opts = ctx.listing_options()?;
    let Some(semantic) = ctx.registry.semantic() else { bail!("ranking by meaning is not set up for this store") };
    let set = ctx.registry.ranked_set(&opts.scopes)?;
    let bar = output::stderr_bar("{bar:30} {pos}/{len} skills, {per_sec}, {eta} left");
    let started = std::time::Instant::now();
    let mut computed = 0;
    semantic.index_keeping(
        &set,
        || ctx.registry.stored_set(),
        |done, total| {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
            computed = total;
        },
    )?;
    bar.finish_and_clear();
    Ok(Indexed { listed: set.entries().len(), computed, seconds: started.elapsed().as_secs_f64() })
}
