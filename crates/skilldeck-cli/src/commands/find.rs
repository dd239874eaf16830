//! `skilldeck find`: the `find_skills` tool run from the command line.

use crate::context::Ctx;
use crate::output;
use crate::output::Outcome;
use skilldeck_select::catalogue::Catalogue;
use skilldeck_select::find::{self, DEFAULT_LIMIT};

/// Prints the best matches for `query` among the skills a model of the default provider may be
/// listed, one a line with why it matched; with `json`, exactly the result the model gets.
pub fn run(query: &str, json: bool) -> anyhow::Result<Outcome> {
    if query.trim().is_empty() {
        anyhow::bail!("the query is empty; give a few words about the task, e.g. `skilldeck find \"fill a PDF form\"`");
    }
    let ctx = Ctx::open()?;
    let opts = ctx.listing_options()?;
    if let Some(n) = ctx.registry.meaning(&opts.scopes)?.as_ref().and_then(super::model::note) {
        crate::output::errln!("{n}");
    }
    let found = ctx.registry.find_skills(&opts, query.trim(), DEFAULT_LIMIT)?;
    if json {
        output::json(&find::result_json(query.trim(), &found))?;
    } else if found.is_empty() {
        crate::output::outln!("No skill matches {query:?}; try other words.");
    } else {
        for f in &found {
            let v = f.version.as_deref().map(|v| format!(" (v:{v})")).unwrap_or_default();
            crate::output::outln!("{}{v}: {}\n    matched: {}", f.name, f.description, f.why);
        }
    }
    Ok(Outcome::Ok)
}
