//! The L1 listing: the `### Skills` section a model sees, with gating and the token budget.
//! Holds the exact text format and the even shortening of descriptions; not discovery.

use crate::meta::Tier;
use crate::registry::ListedEntry;
use crate::storage::{Revision, Scope};
use crate::tokens::{TokenCount, estimate_tokens};
use serde::Serialize;
use std::collections::BTreeSet;

/// The default budget for the whole section, in tokens.
pub const DEFAULT_BUDGET_TOKENS: usize = 1500;

/// The section's heading lines.
const HEADER: &str = "### Skills: `view_skill`\n\nAvailable Skills:\n";

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
    /// The budget for the whole section, in estimated tokens.
    pub budget_tokens: usize,
}

impl Default for ListingOptions {
    fn default() -> Self {
        Self {
            scopes: Scope::ALL.to_vec(),
            view_skill_enabled: true,
            tier: Tier::Ultra,
            disabled: BTreeSet::new(),
            budget_tokens: DEFAULT_BUDGET_TOKENS,
        }
    }
}

/// One skill as listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListedSkill {
    /// Its name.
    pub name: String,
    /// Its scope.
    pub scope: Scope,
    /// The version tag shown, if any.
    pub version: Option<String>,
    /// The stored revision, if any: what `view_skill` mounts for this listing.
    pub revision: Option<Revision>,
    /// The description as shown (maybe shortened).
    pub description: String,
    /// Whether the description was shortened to fit the budget.
    pub shortened: bool,
}

/// The listing a model gets for one turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Listing {
    /// The exact section text; empty when no skill is listed.
    pub text: String,
    /// The skills listed, sorted by name.
    pub skills: Vec<ListedSkill>,
    /// The estimated token cost of `text`.
    pub estimated_tokens: usize,
    /// The budget it was fitted to.
    pub budget_tokens: usize,
    /// Names whose descriptions were shortened.
    pub shortened: Vec<String>,
}

impl Listing {
    /// The names listed, for the `view_skill` enum.
    pub fn names(&self) -> Vec<&str> {
        self.skills.iter().map(|s| s.name.as_str()).collect()
    }
}

/// Whether a skill passes the session's gates: valid, not shadowed, in an enabled scope,
/// not above the model's tier, not switched off.
pub fn is_listed(entry: &ListedEntry, opts: &ListingOptions) -> bool {
    let e = &entry.entry;
    let tier_ok = match (e.meta.min_tier, opts.tier) {
        (Some(Tier::Ultra), Tier::Lite) => false,
        (None | Some(Tier::Lite) | Some(Tier::Ultra), _) => true,
    };
    e.valid && !entry.shadowed && opts.scopes.contains(&e.scope) && tier_ok && !opts.disabled.contains(&e.name)
}

/// Builds the listing for `entries` (any order) under `opts`.
pub fn build(entries: &[ListedEntry], opts: &ListingOptions) -> Listing {
    let mut chosen: Vec<&ListedEntry> =
        if opts.view_skill_enabled { entries.iter().filter(|e| is_listed(e, opts)).collect() } else { Vec::new() };
    chosen.sort_by(|a, b| a.entry.name.cmp(&b.entry.name));
    chosen.dedup_by(|a, b| a.entry.name == b.entry.name);
    if chosen.is_empty() {
        return Listing {
            text: String::new(),
            skills: Vec::new(),
            estimated_tokens: 0,
            budget_tokens: opts.budget_tokens,
            shortened: Vec::new(),
        };
    }
    // The cost of everything but the descriptions, counted once: the header, and per line
    // `- **name** (v:N): ` and the newline (the last line has none, so one comes off).
    let fixed: TokenCount = chosen
        .iter()
        .map(|e| {
            let v = e
                .entry
                .version
                .as_deref()
                .map_or(TokenCount::default(), |v| TokenCount::of(v) + TokenCount::of(" (v:)"));
            TokenCount::of(&e.entry.name) + TokenCount::of("- ****: \n") + v
        })
        .sum::<TokenCount>()
        + TokenCount::of(HEADER);
    let fixed = TokenCount { ascii: fixed.ascii - 1, ..fixed };
    let descs: Vec<&str> = chosen.iter().map(|e| e.entry.listing_description()).collect();
    let cost = |cap: usize| -> usize {
        let descs: TokenCount = descs
            .iter()
            .map(|d| {
                let (prefix, cut) = shorten_parts(d, cap);
                TokenCount::of(prefix) + if cut { TokenCount { ascii: 0, other: 1 } } else { TokenCount::default() }
            })
            .sum();
        (fixed + descs).tokens()
    };
    let longest = descs.iter().map(|d| char_len(d)).max().unwrap_or(0);
    let cap = if cost(longest) <= opts.budget_tokens {
        longest
    } else if cost(0) > opts.budget_tokens {
        0
    } else {
        // The largest cap that fits: the cost only grows with the cap, so bisect.
        let (mut lo, mut hi) = (0usize, longest);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if cost(mid) <= opts.budget_tokens { lo = mid } else { hi = mid - 1 }
        }
        lo
    };
    let mut text = String::from(HEADER);
    let mut skills = Vec::with_capacity(chosen.len());
    for (e, d) in chosen.iter().zip(&descs) {
        let (prefix, cut) = shorten_parts(d, cap);
        let description = if cut { format!("{prefix}…") } else { prefix.to_owned() };
        text.push_str("- **");
        text.push_str(&e.entry.name);
        text.push_str("**");
        if let Some(v) = &e.entry.version {
            text.push_str(" (v:");
            text.push_str(v);
            text.push(')');
        }
        text.push_str(": ");
        text.push_str(&description);
        text.push('\n');
        skills.push(ListedSkill {
            name: e.entry.name.clone(),
            scope: e.entry.scope,
            version: e.entry.version.clone(),
            revision: e.entry.revision,
            shortened: cut,
            description,
        });
    }
    text.pop();
    Listing {
        estimated_tokens: estimate_tokens(&text),
        budget_tokens: opts.budget_tokens,
        shortened: skills.iter().filter(|s| s.shortened).map(|s| s.name.clone()).collect(),
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
