//! The L1 listing: the `### Skills` section a model sees, with gating and the token budget.
//! Holds the exact text format and filling the budget in rank order; ranking itself is `ranker`.

use crate::ranker::{Query, Ranked, SkillSet};
use crate::tokens::count_tokens;
use serde::Serialize;
use skilldeck_skill::entry::{LineTokens, ListedEntry, SkillEntry};
use skilldeck_skill::entry::{Revision, Scope};
use skilldeck_skill::meta::Tier;
use skilldeck_skill::visible::visible_line;
use std::collections::BTreeSet;
use std::sync::Arc;

/// The default budget for the whole section, in tokens.
pub const DEFAULT_BUDGET_TOKENS: usize = 1500;

/// The section's heading lines.
const HEADER: &str = "### Skills: `view_skill`\n\nAvailable Skills:\n";
/// What [`HEADER`] costs in o200k tokens (a test counts it again).
const HEADER_TOKENS: usize = 10;

/// What decides which skills a session's model is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListingOptions {
    /// Scopes the session has enabled.
    pub scopes: Vec<Scope>,
    /// Whether the session has the `view_skill` tool; without it there is no section.
    pub view_skill_enabled: bool,
    /// The model's tier.
    pub tier: Tier,
    /// Skills the user switched off, by name.
    pub disabled: BTreeSet<String>,
    /// The budget for the whole section, in o200k tokens.
    pub budget_tokens: usize,
    /// Skills always shown with their full description (config.toml `[listing] pinned`).
    pub pinned: BTreeSet<String>,
    /// Skills `find_skills` returned this session, oldest first: always listed, by name at
    /// least, so the model can load them.
    pub found: Vec<String>,
    /// Whether the session offers `find_skills`, so the last line can point to it.
    pub find_skills_enabled: bool,
    /// The workspace's profile (`.skilldeck.toml`): when set, only the skills it offers are
    /// listed or found.
    pub profile: Option<Profile>,
}

/// What a workspace offers its agents: skills by name, and skills by tag (the frontmatter's
/// `tags`, or `metadata.tags`, as a list or a comma-separated text).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Profile {
    /// Skills offered by name.
    pub skills: BTreeSet<String>,
    /// Skills offered by any of these tags.
    pub tags: BTreeSet<String>,
}

impl Profile {
    /// Whether the profile offers `e`.
    pub fn offers(&self, e: &SkillEntry) -> bool {
        self.skills.contains(&e.name) || (!self.tags.is_empty() && tags_of(e).iter().any(|t| self.tags.contains(t)))
    }
}

/// A skill's tags: frontmatter `tags` or `metadata.tags`, a list or a comma-separated text.
pub fn tags_of(e: &SkillEntry) -> Vec<String> {
    let from = |v: &serde_json::Value| -> Vec<String> {
        match v {
            serde_json::Value::Array(a) => a.iter().filter_map(|t| t.as_str()).map(|t| t.trim().to_owned()).collect(),
            serde_json::Value::String(t) => {
                t.split(',').map(|t| t.trim().to_owned()).filter(|t| !t.is_empty()).collect()
            }
            _ => Vec::new(),
        }
    };
    let mut tags = e.meta.extra.get("tags").map(|j| from(&j.value())).unwrap_or_default();
    if let Some(m) = &e.meta.metadata {
        tags.extend(from(&m.value()["tags"]));
    }
    tags
}

impl Default for ListingOptions {
    fn default() -> Self {
        Self {
            scopes: Scope::ALL.to_vec(),
            view_skill_enabled: true,
            tier: Tier::Ultra,
            disabled: BTreeSet::new(),
            budget_tokens: DEFAULT_BUDGET_TOKENS,
            pinned: BTreeSet::new(),
            found: Vec::new(),
            find_skills_enabled: true,
            profile: None,
        }
    }
}

/// One skill as listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct ListedSkill {
    /// Its name.
    pub name: String,
    /// Its scope.
    pub scope: Scope,
    /// The version tag shown, if any (with any control character escaped, as in the text).
    pub version: Option<String>,
    /// The stored revision, if any: what `view_skill` mounts for this listing.
    pub revision: Option<Revision>,
    /// The description as shown (maybe shortened, empty when only the name is shown), with any
    /// control, bidi or invisible character escaped as in the text.
    pub description: String,
    /// Whether the description was shortened (or left out) to fit the budget.
    pub shortened: bool,
    /// How it is shown.
    pub shown: Shown,
    /// Its place in the ranking for this turn (1 = best), when the listing was ranked.
    pub rank: Option<usize>,
}

/// How much of a skill the listing shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Shown {
    /// Its name and whole description.
    Full,
    /// Its name and the start of its description, ending in `…`.
    Shortened,
    /// Its name (and version) only.
    NameOnly,
}

/// The listing a model gets for one turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Listing {
    /// The exact section text; empty when no skill is listed.
    pub text: String,
    /// The skills listed: sorted by name when all fit in full, else in the order shown
    /// (pinned, found by search, then by rank).
    pub skills: Vec<ListedSkill>,
    /// The o200k token count of `text` (the name is kept for the app and scripts that read it).
    pub estimated_tokens: usize,
    /// The budget it was fitted to.
    pub budget_tokens: usize,
    /// Names whose descriptions were shortened or left out.
    pub shortened: Vec<String>,
    /// Whether it was ranked (not every skill fitted in full).
    pub ranked: bool,
    /// Listable skills not shown at all; `find_skills` finds them.
    pub more: usize,
}

impl Listing {
    /// The names listed, for the `view_skill` enum.
    pub fn names(&self) -> Vec<&str> {
        self.skills.iter().map(|s| s.name.as_str()).collect()
    }

    /// Whether the store holds more than this listing shows in full, so `find_skills` helps.
    pub fn is_partial(&self) -> bool {
        self.ranked
    }

    fn empty(budget_tokens: usize) -> Self {
        Self {
            text: String::new(),
            skills: Vec::new(),
            estimated_tokens: 0,
            budget_tokens,
            shortened: Vec::new(),
            ranked: false,
            more: 0,
        }
    }
}

/// Whether a skill passes the session's gates: valid, not shadowed, in an enabled scope,
/// not above the model's tier, not switched off.
pub fn is_listed(entry: &ListedEntry, opts: &ListingOptions) -> bool {
    entry.entry.valid && !entry.shadowed && passes_gates(&entry.entry, opts)
}

/// The session's gates on a valid, unshadowed skill: its author's `disable-model-invocation`
/// (never offered to a model), scope, tier, switched off, the profile.
fn passes_gates(e: &SkillEntry, opts: &ListingOptions) -> bool {
    let tier_ok = match (e.meta.min_tier, opts.tier) {
        (Some(Tier::Ultra), Tier::Lite) => false,
        (None | Some(Tier::Lite) | Some(Tier::Ultra), _) => true,
    };
    e.meta.model_invocable()
        && opts.scopes.contains(&e.scope)
        && tier_ok
        && !opts.disabled.contains(&e.name)
        && opts.profile.as_ref().is_none_or(|p| p.offers(e))
}

/// The skills of `entries` a session may be listed, as a ranked set and their positions in it.
pub(crate) fn listable(entries: &[ListedEntry], opts: &ListingOptions) -> (Arc<SkillSet>, Vec<usize>) {
    let set = SkillSet::of(entries);
    let eligible = if opts.view_skill_enabled {
        set.entries().iter().enumerate().filter(|(_, e)| passes_gates(e, opts)).map(|(i, _)| i).collect()
    } else {
        Vec::new()
    };
    (set, eligible)
}

/// Builds the listing for `entries` (any order) under `opts`, for a conversation not yet begun
/// (when it must be ranked, skills rank by name).
pub fn build(entries: &[ListedEntry], opts: &ListingOptions) -> Listing {
    build_ranked(entries, opts, &Query::default())
}

/// How much of the budget the full descriptions may take, then the shortened ones; names
/// fill the rest.
const FULL_SHARE: f64 = 0.6;
const SHORT_SHARE: f64 = 0.8;
/// How long a shortened description may be, in characters (the `…` included).
const SHORT_CHARS: usize = 100;

/// One listing line: `- **name** (v:N): description`, or `- **name** (v:N)` with no description.
/// What a skill wrote is shown as `visible_line` shows it: a control, bidi or invisible character
/// is an escape (`\e`, `\u{202E}`), never itself, so a description cannot hide text from the
/// people who read a listing, nor act on the terminal that prints it. Text without such a
/// character is unchanged.
fn line(e: &SkillEntry, description: Option<&str>) -> String {
    let mut l = String::with_capacity(e.name.len() + 16 + description.map_or(0, str::len));
    l.push_str("- **");
    l.push_str(&visible_line(&e.name));
    l.push_str("**");
    if let Some(v) = &e.version {
        l.push_str(" (v:");
        l.push_str(&visible_line(v));
        l.push(')');
    }
    if let Some(d) = description {
        l.push_str(": ");
        l.push_str(&visible_line(d));
    }
    l
}

/// The last line of a ranked listing.
fn footer(more: usize, find: bool) -> String {
    let what = if more == 1 { "1 more skill is".to_owned() } else { format!("{more} more skills are") };
    if find {
        format!("{what} not listed here. Call `find_skills` with a few words about the task to search all of them.")
    } else {
        format!("{what} not listed here.")
    }
}

/// Builds the listing for one turn. When every listed skill fits the budget in full, the text
/// is the plain listing sorted by name. Otherwise the skills are ranked against `query` and the
/// budget filled in order: pinned skills in full, then skills found by search, then the rest by
/// rank — full descriptions while they take under 60% of the budget, shortened ones to 80%, then
/// names only — and a last line says how many more exist. The text is counted with o200k (from
/// each line's cached costs) and never exceeds the budget unless pinned skills alone do.
pub fn build_ranked(entries: &[ListedEntry], opts: &ListingOptions, query: &Query) -> Listing {
    let (set, eligible) = listable(entries, opts);
    if eligible.is_empty() {
        return Listing::empty(opts.budget_tokens);
    }
    // Everything in full, sorted by name, when it fits: the lines' costs add up to the text's.
    let mut tokens = HEADER_TOKENS;
    let last = eligible.len() - 1;
    let fits = eligible.iter().enumerate().all(|(i, &pos)| {
        tokens += cost(&set.entries()[pos], Shown::Full, if i == last { After::End } else { After::Break });
        tokens <= opts.budget_tokens
    });
    if fits {
        let lines: Vec<String> = eligible
            .iter()
            .map(|&pos| {
                let e = &set.entries()[pos];
                line(e, Some(e.listing_description()))
            })
            .collect();
        let skills = eligible.iter().map(|&pos| shown_skill(&set.entries()[pos], Shown::Full, None)).collect();
        return Listing {
            text: format!("{HEADER}{}", lines.join("\n")),
            skills,
            estimated_tokens: tokens,
            ranked: false,
            ..Listing::empty(opts.budget_tokens)
        };
    }
    fill(&set, &eligible, opts, query)
}

/// What follows a listing line in the text: nothing, a line break, or the blank line before
/// the last line.
#[derive(Debug, Clone, Copy)]
enum After {
    End = 0,
    Break = 1,
    Gap = 2,
}

/// What `e`'s listing lines cost, counted the first time they are needed (so the tokenizer
/// loads only in a process that lists a skill whose costs no cache holds).
pub fn line_tokens(e: &SkillEntry) -> &LineTokens {
    e.line_tokens.get_or_init(|| {
        let forms = |description: Option<&str>| {
            let l = line(e, description);
            let n = |s: &str| u32::try_from(count_tokens(s)).unwrap_or(u32::MAX);
            [n(&l), n(&format!("{l}\n")), n(&format!("{l}\n\n"))]
        };
        let desc = e.listing_description();
        let full = forms(Some(desc));
        let short = match shorten_parts(desc, SHORT_CHARS) {
            (kept, true) => forms(Some(&format!("{kept}…"))),
            (_, false) => full,
        };
        LineTokens { full, short, name: forms(None) }
    })
}

/// What `e`'s line costs shown as `shown`, followed by `after`.
fn cost(e: &SkillEntry, shown: Shown, after: After) -> usize {
    let t = line_tokens(e);
    let form = match shown {
        Shown::Full => &t.full,
        Shown::Shortened => &t.short,
        Shown::NameOnly => &t.name,
    };
    form[after as usize] as usize
}

/// What the last line of a ranked listing costs (the blank line before it is the last listed
/// line's [`After::Gap`]): the number's digits (o200k has every run of up to three digits as
/// one token, and a number is cut into such runs) and the words after them.
fn footer_tokens(more: usize, find: bool) -> usize {
    let digits = more.to_string().len();
    let words = if find { 26 } else { 7 };
    digits.div_ceil(3) + words
}

fn shown_skill(e: &SkillEntry, shown: Shown, rank: Option<usize>) -> ListedSkill {
    let full = e.listing_description();
    // Shortened first, then escaped: the cut never falls inside an escape.
    let description = match shown {
        Shown::Full => visible_line(full).into_owned(),
        Shown::Shortened => visible_line(&shorten(full, SHORT_CHARS)).into_owned(),
        Shown::NameOnly => String::new(),
    };
    ListedSkill {
        name: e.name.clone(),
        scope: e.scope,
        version: e.version.as_deref().map(|v| visible_line(v).into_owned()),
        revision: e.revision,
        description,
        shortened: shown != Shown::Full,
        shown,
        rank,
    }
}

/// Why a skill is in the order: pinned, found by search, or by rank alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Must {
    Pinned,
    Found,
    No,
}

/// Fills the budget in rank order (see [`build_ranked`]).
fn fill(set: &SkillSet, eligible: &[usize], opts: &ListingOptions, query: &Query) -> Listing {
    let budget = opts.budget_tokens;
    let entries = set.entries();
    let ranking: Vec<Ranked> = set.rank(query, eligible);
    // Each position's rank (1 = best); 0 for a skill the session may not be listed.
    let mut rank_of = vec![0usize; entries.len()];
    for (i, r) in ranking.iter().enumerate() {
        rank_of[r.pos] = i + 1;
    }
    let pos_of = |name: &str| entries.binary_search_by(|x| x.name.as_str().cmp(name)).ok().filter(|&p| rank_of[p] > 0);
    let mut order: Vec<(usize, Must)> = Vec::new();
    let mut seen = vec![false; entries.len()];
    let mut first = |p: usize| !std::mem::replace(&mut seen[p], true);
    for name in &opts.pinned {
        if let Some(p) = pos_of(name)
            && first(p)
        {
            order.push((p, Must::Pinned));
        }
    }
    for name in &opts.found {
        if let Some(p) = pos_of(name)
            && first(p)
        {
            order.push((p, Must::Found));
        }
    }
    order.extend(ranking.iter().filter(|r| first(r.pos)).map(|r| (r.pos, Must::No)));

    // The footer, and one token for the blank line before it (lines are counted below as each
    // followed by one break; the text is counted exactly once they are chosen).
    let footer_cost = footer_tokens(eligible.len(), opts.find_skills_enabled) + 1;
    let mut used = HEADER_TOKENS + footer_cost;
    let full_limit = (budget as f64 * FULL_SHARE) as usize;
    let short_limit = (budget as f64 * SHORT_SHARE) as usize;
    let mut phase = Shown::Full;
    let mut chosen: Vec<(usize, Shown, Must)> = Vec::new();
    for &(pos, must) in &order {
        let e = &entries[pos];
        let (full, name) = (cost(e, Shown::Full, After::Break), cost(e, Shown::NameOnly, After::Break));
        if must == Must::Pinned {
            used += full;
            chosen.push((pos, Shown::Full, must));
            continue;
        }
        let mut shown = None;
        while shown.is_none() {
            match phase {
                Shown::Full if used + full <= full_limit => shown = Some(Shown::Full),
                Shown::Full => phase = Shown::Shortened,
                Shown::Shortened => {
                    let shortened = shorten_parts(e.listing_description(), SHORT_CHARS).1;
                    if used + cost(e, Shown::Shortened, After::Break) <= short_limit {
                        shown = Some(if shortened { Shown::Shortened } else { Shown::Full });
                    } else {
                        phase = Shown::NameOnly;
                    }
                }
                Shown::NameOnly => {
                    if used + name <= budget || must == Must::Found {
                        shown = Some(Shown::NameOnly);
                    } else {
                        break;
                    }
                }
            }
        }
        let Some(shown) = shown else { break };
        used += cost(e, shown, After::Break);
        chosen.push((pos, shown, must));
    }
    // The lines were counted each followed by a break; count the text as it ends and drop the
    // last lines that may go until it fits.
    loop {
        let listing = render(set, &chosen, &rank_of, eligible.len(), opts);
        let droppable = chosen.iter().rposition(|&(_, _, must)| must == Must::No);
        match droppable {
            Some(i) if listing.estimated_tokens > budget => {
                chosen.remove(i);
            }
            _ => return listing,
        }
    }
}

fn render(
    set: &SkillSet,
    chosen: &[(usize, Shown, Must)],
    rank_of: &[usize],
    eligible: usize,
    opts: &ListingOptions,
) -> Listing {
    let mut text = String::from(HEADER);
    let mut tokens = HEADER_TOKENS;
    let mut skills = Vec::with_capacity(chosen.len());
    let more = eligible - chosen.len();
    for (i, &(pos, shown, _)) in chosen.iter().enumerate() {
        let e = &set.entries()[pos];
        let s = shown_skill(e, shown, rank_of.get(pos).copied().filter(|&r| r > 0));
        if i > 0 {
            text.push('\n');
        }
        text.push_str(&line(e, (shown != Shown::NameOnly).then_some(s.description.as_str())));
        let after = match (i + 1 == chosen.len(), more > 0) {
            (false, _) => After::Break,
            (true, true) => After::Gap,
            (true, false) => After::End,
        };
        tokens += cost(e, shown, after);
        skills.push(s);
    }
    if more > 0 {
        if !chosen.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(&footer(more, opts.find_skills_enabled));
        tokens += footer_tokens(more, opts.find_skills_enabled);
    }
    Listing {
        estimated_tokens: tokens,
        budget_tokens: opts.budget_tokens,
        shortened: skills.iter().filter(|s| s.shortened).map(|s| s.name.clone()).collect(),
        ranked: true,
        more,
        text,
        skills,
    }
}

/// Characters in `s` (its length when ASCII).
fn char_len(s: &str) -> usize {
    if s.is_ascii() { s.len() } else { s.chars().count() }
}

/// The part of `desc` kept when it is shortened to `max_chars` characters (the `…` included),
/// and whether it was shortened. Cuts at a word boundary where there is one.
fn shorten_parts(desc: &str, max_chars: usize) -> (&str, bool) {
    if char_len(desc) <= max_chars {
        return (desc, false);
    }
    if max_chars <= 1 {
        return ("", true);
    }
    let cut = if desc.is_ascii() {
        max_chars - 1
    } else {
        desc.char_indices().nth(max_chars - 1).map_or(desc.len(), |(i, _)| i)
    };
    let prefix = &desc[..cut];
    let word_end = if desc[cut..].starts_with(char::is_whitespace) {
        prefix
    } else {
        match prefix.rfind(char::is_whitespace) {
            Some(i) if i > 0 => &prefix[..i],
            _ => prefix,
        }
    };
    (word_end.trim_end_matches(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':' | '-' | '(' | '—')), true)
}

/// Shortens `desc` to at most `max_chars` characters, at a word boundary, ending in `…`.
pub fn shorten(desc: &str, max_chars: usize) -> String {
    match shorten_parts(desc, max_chars) {
        (kept, true) => format!("{kept}…"),
        (kept, false) => kept.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The header's and footer's costs the listing adds without a tokenizer are o200k's.
    #[test]
    fn the_fixed_parts_cost_what_the_tokenizer_says() {
        assert_eq!(HEADER_TOKENS, count_tokens(HEADER));
        let mut numbers: Vec<usize> = (1..=2_100).collect();
        numbers.extend([9_999, 10_000, 10_007, 100_050, 999_999, 1_000_000, 1_000_500, 12_345_678, 100_000_007]);
        for more in numbers {
            for find in [true, false] {
                let text = footer(more, find);
                assert_eq!(footer_tokens(more, find), count_tokens(&text), "{text:?}");
            }
        }
    }

    /// A break before `- ` always ends a token, so a text of lines costs what its lines do.
    #[test]
    fn lines_joined_cost_the_sum_of_their_parts() {
        let ends = [
            "words",
            "ends in a dot.",
            "a paren)",
            "ellipsis…",
            "中文描述",
            "trailing: ",
            "emoji 🎉",
            "quote\"",
            "path/",
            "1234",
        ];
        for a in ends {
            for b in ends {
                let (x, y) = (format!("- **a**: {a}"), format!("- **b** (v:3): {b}"));
                let whole = count_tokens(&format!("{HEADER}{x}\n{y}\n\n12 more skills are not listed here."));
                let parts = HEADER_TOKENS
                    + count_tokens(&format!("{x}\n"))
                    + count_tokens(&format!("{y}\n\n"))
                    + count_tokens("12 more skills are not listed here.");
                assert_eq!(whole, parts, "{a:?} then {b:?}");
            }
        }
    }
}
