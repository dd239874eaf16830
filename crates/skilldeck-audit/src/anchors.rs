//! The literals a pattern cannot match without: from a pattern's syntax tree, a set of strings
//! at least one of which (ASCII case ignored) is inside every match. One Aho-Corasick pass over
//! a file then says which pattern rules can hit it, and only those run their regex: most files
//! name no sudoers file, no miner and no reverse shell, and a scan of every regex over every
//! byte cost more than the reading. Holds no rule; `scan` builds the searcher from the table.

use regex_syntax::hir::{Class, Hir, HirKind, Look};

/// The least an anchor must be worth (its length, and one more for each end that must be a
/// word boundary): a weaker one would be found on nearly every line.
const WEAKEST: usize = 3;

/// A string every match of a pattern (or of one of its branches) contains.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Anchor {
    /// The string, lowercase; a file holds it with ASCII case ignored.
    pub text: Vec<u8>,
    /// Whether a word boundary (`\b`) comes right before it in the pattern.
    pub word_start: bool,
    /// Whether a word boundary comes right after it.
    pub word_end: bool,
    /// Whether nothing the pattern consumes comes before it in the part it was taken from.
    flush_start: bool,
    /// Whether nothing the pattern consumes comes after it.
    flush_end: bool,
}

impl Anchor {
    fn new(text: Vec<u8>) -> Self {
        Self { text, word_start: false, word_end: false, flush_start: true, flush_end: true }
    }

    /// How much finding it narrows the search: its length and its word boundaries.
    fn worth(&self) -> usize {
        self.text.len() + usize::from(self.word_start) + usize::from(self.word_end)
    }

    /// Whether the anchor found at `start..end` of `hay` has the word boundaries it needs.
    pub fn bounded_in(&self, hay: &[u8], start: usize, end: usize) -> bool {
        let word =
            |i: Option<usize>| i.and_then(|i| hay.get(i)).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_');
        let boundary = |at: usize| word(at.checked_sub(1)) != word(Some(at));
        (!self.word_start || boundary(start)) && (!self.word_end || boundary(end))
    }
}

/// The anchors of `pattern`: every match contains at least one of them (ASCII case ignored,
/// with its word boundaries), or `None` when the pattern has no such set worth searching for
/// (its rule must then be tried on every file). Parsed as `scan` compiles it: bytes, no
/// Unicode classes.
pub fn of(pattern: &str) -> Option<Vec<Anchor>> {
    let hir = regex_syntax::ParserBuilder::new().unicode(false).utf8(false).build().parse(pattern).ok()?;
    let set = need(&hir)?;
    (worth(&set) >= WEAKEST).then_some(set)
}

fn worth(set: &[Anchor]) -> usize {
    set.iter().map(Anchor::worth).min().unwrap_or(0)
}

/// The one byte the pattern matches here, lowercased, when it matches exactly one letter (in
/// either case) or one byte.
fn one_byte(hir: &Hir) -> Option<u8> {
    match hir.kind() {
        HirKind::Literal(lit) if lit.0.len() == 1 => lit.0.first().map(u8::to_ascii_lowercase),
        HirKind::Class(Class::Bytes(c)) => {
            let mut bytes = c.iter().flat_map(|r| r.start()..=r.end());
            let lower = bytes.next()?.to_ascii_lowercase();
            let rest: Vec<u8> = bytes.collect();
            (rest.len() <= 1 && rest.iter().all(|b| b.to_ascii_lowercase() == lower)).then_some(lower)
        }
        HirKind::Class(Class::Unicode(c)) => {
            let mut chars = c.iter().flat_map(|r| r.start()..=r.end());
            let lower = u8::try_from(u32::from(chars.next()?)).ok()?.to_ascii_lowercase();
            let rest: Vec<char> = chars.collect();
            let same = |c: &char| u8::try_from(u32::from(*c)).is_ok_and(|b| b.to_ascii_lowercase() == lower);
            (rest.len() <= 1 && rest.iter().all(same)).then_some(lower)
        }
        HirKind::Capture(c) => one_byte(&c.sub),
        _ => None,
    }
}

fn is_look(hir: &Hir) -> bool {
    matches!(hir.kind(), HirKind::Look(_))
}

fn is_word_boundary(hir: Option<&Hir>) -> bool {
    hir.is_some_and(|h| matches!(h.kind(), HirKind::Look(Look::WordAscii | Look::WordUnicode)))
}

/// A set of anchors one of which every match of `hir` contains; `None` when there is none.
fn need(hir: &Hir) -> Option<Vec<Anchor>> {
    match hir.kind() {
        HirKind::Literal(lit) => Some(vec![Anchor::new(lit.0.to_ascii_lowercase())]),
        HirKind::Capture(c) => need(&c.sub),
        HirKind::Repetition(r) if r.min >= 1 => {
            let mut set = need(&r.sub)?;
            if r.max != Some(1) {
                set.iter_mut().for_each(|a| a.flush_end = false);
            }
            Some(set)
        }
        HirKind::Alternation(alts) => {
            let mut all = Vec::new();
            for alt in alts {
                all.extend(need(alt)?);
            }
            all.sort();
            all.dedup();
            Some(all)
        }
        HirKind::Concat(parts) => concat(parts),
        _ => one_byte(hir).map(|b| vec![Anchor::new(vec![b])]),
    }
}

/// The best anchors of a concatenation: of each run of single bytes in a row and each part's
/// own set, the one whose weakest anchor is worth most.
fn concat(parts: &[Hir]) -> Option<Vec<Anchor>> {
    // Whether parts[range] consume nothing.
    let empty = |from: usize, to: usize| parts.get(from..to).is_none_or(|p| p.iter().all(is_look));
    // Fixes an anchor taken from parts[first..=last] to its place in the concatenation.
    let place = |mut a: Anchor, first: usize, last: usize| {
        if a.flush_start {
            a.word_start |= first.checked_sub(1).is_some_and(|i| is_word_boundary(parts.get(i)));
            a.flush_start = empty(0, first);
        }
        if a.flush_end {
            a.word_end |= is_word_boundary(parts.get(last + 1));
            a.flush_end = empty(last + 1, parts.len());
        }
        a
    };
    let mut candidates: Vec<Vec<Anchor>> = Vec::new();
    let mut run: Option<(usize, Vec<u8>)> = None;
    for (i, part) in parts.iter().enumerate() {
        let bytes = match part.kind() {
            HirKind::Literal(lit) => Some(lit.0.to_ascii_lowercase()),
            _ => one_byte(part).map(|b| vec![b]),
        };
        if let Some(bytes) = bytes {
            run.get_or_insert_with(|| (i, Vec::new())).1.extend(bytes);
            continue;
        }
        if let Some((first, text)) = run.take() {
            candidates.push(vec![place(Anchor::new(text), first, i - 1)]);
        }
        if let Some(set) = need(part) {
            candidates.push(set.into_iter().map(|a| place(a, i, i)).collect());
        }
    }
    if let Some((first, text)) = run.take() {
        candidates.push(vec![place(Anchor::new(text), first, parts.len() - 1)]);
    }
    candidates.into_iter().filter(|set| !set.is_empty()).max_by_key(|set| worth(set))
}

#[cfg(test)]
mod tests {
    use super::of;

    /// The anchors as `\btext\b` strings, for reading.
    fn shown(pattern: &str) -> Option<Vec<String>> {
        of(pattern).map(|set| {
            set.into_iter()
                .map(|a| {
                    let b = |on: bool| if on { "\\b" } else { "" };
                    format!("{}{}{}", b(a.word_start), String::from_utf8_lossy(&a.text), b(a.word_end))
                })
                .collect()
        })
    }

    #[test]
    fn a_literal_run_is_its_own_anchor_in_lowercase() {
        assert_eq!(shown(r"(?i)\bNOPASSWD\s*:\s*ALL\b"), Some(vec!["\\bnopasswd".to_owned()]));
    }

    #[test]
    fn an_alternation_needs_an_anchor_in_every_branch() {
        assert_eq!(
            shown(r"(?i)\bxmrig\b|stratum\+tcp://"),
            Some(vec!["stratum+tcp://".to_owned(), "\\bxmrig\\b".to_owned()])
        );
        // One branch with nothing to hold on to: the rule is tried everywhere.
        assert_eq!(shown(r"\bxmrig\b|\d+\.\d+"), None);
    }

    #[test]
    fn optional_parts_are_never_anchors() {
        assert_eq!(shown(r"(?:sudo\s+)?/etc/sudoers"), Some(vec!["/etc/sudoers".to_owned()]));
        assert_eq!(shown(r"(?:sudoers)?x"), None);
    }

    #[test]
    fn the_strongest_part_of_a_concatenation_is_chosen() {
        assert_eq!(shown(r"(?i)(?:>>?|\btee\s+)\s*/etc/sudoers"), Some(vec!["/etc/sudoers".to_owned()]));
    }

    #[test]
    fn a_short_word_counts_only_with_its_word_boundaries() {
        assert_eq!(shown(r"(?i)\b(?:nc|socat)\b\s+-e"), Some(vec!["\\bnc\\b".to_owned(), "\\bsocat\\b".to_owned()]));
        assert_eq!(shown(r"(?i)\brm\s"), Some(vec!["\\brm".to_owned()]));
        assert_eq!(shown(r"(?i)nc\s+-e"), None);
    }

    #[test]
    fn word_boundaries_are_checked_where_the_anchor_is_found() {
        let set = of(r"\bnc\b\s").unwrap_or_default();
        let nc = &set[0];
        assert!(nc.bounded_in(b"run nc -l", 4, 6));
        assert!(!nc.bounded_in(b"function", 2, 4));
        assert!(nc.bounded_in(b"nc", 0, 2));
    }
}
