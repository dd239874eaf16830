//! The pre-scan that bounds the YAML parser's work: nesting depth and alias expansion, counted in
//! one linear pass over the text before it reaches the parser. Holds the limits; not the parsing.
//!
//! Why: libyaml (under `serde_yaml_ng`) spends time quadratic in the flow nesting depth — 32 KB
//! of `[` took 1.5 s, 64 KB 9 s — and an alias bomb builds a value tree far larger than its
//! text. Both are refused here, so every frontmatter under the size cap parses in milliseconds.
//!
//! The scan is a small tokenizer: it knows quotes, comments, plain scalars (where `[`, `'` or `*`
//! are text), block scalars and multi-line plain scalars, so ordinary text never counts as
//! structure. Where it must guess it over-counts, which can only refuse, never let through.

use crate::diagnostic::{DiagCode, Diagnostic};
use std::collections::HashMap;

/// The deepest nesting of lists and mappings accepted, block and flow levels together. Real
/// frontmatter nests a handful of levels (`metadata.aibuddy.dependencies.python: [..]` is five);
/// the parser's own limit is 128, and its cost grows with the depth of every token it scans.
pub const MAX_DEPTH: usize = 32;

/// The most values the frontmatter may expand to once aliases (`*name`) are replaced by what
/// their anchors (`&name`) hold. A frontmatter at the size cap has at most about 8,000 values
/// written out; this leaves room for ordinary alias use and stops a "billion laughs" early.
pub const MAX_EXPANDED_VALUES: u64 = 20_000;

/// Checks that `yaml` (line ends `\n`, tabs already spaces) stays within the limits. The error
/// names the line where a limit was crossed; `first_line` is the file line of `yaml`'s first.
pub fn check(yaml: &str, first_line: u32) -> Result<(), Diagnostic> {
    let mut scan = Scan::default();
    for (i, line) in yaml.split('\n').enumerate() {
        let line_no = first_line.saturating_add(u32::try_from(i).unwrap_or(u32::MAX));
        scan.line(line.as_bytes()).map_err(|over| over.diagnostic().at(Some(line_no)))?;
    }
    Ok(())
}

/// Which limit was crossed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Over {
    Depth,
    Aliases,
}

impl Over {
    fn diagnostic(self) -> Diagnostic {
        match self {
            Self::Depth => Diagnostic::error(
                DiagCode::YamlTooDeep,
                format!(
                    "the frontmatter nests lists and mappings more than {MAX_DEPTH} levels deep, so it was not \
                     parsed; flatten it to the few levels real fields need"
                ),
            ),
            Self::Aliases => Diagnostic::error(
                DiagCode::YamlTooManyAliases,
                format!(
                    "the frontmatter's aliases (`*name`) would expand to more than {MAX_EXPANDED_VALUES} values, \
                     so it was not parsed; write the values out instead of repeating them with `&`/`*`"
                ),
            ),
        }
    }
}

/// An open quoted scalar, which may run over lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quote {
    Double,
    Single,
}

/// Where an anchored value starts and (once known) ends, in expanded values counted so far.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: u64,
    end: Option<u64>,
}

/// A block scalar's text: lines indented past `parent`, as deep as its first line (`content`).
#[derive(Debug, Clone, Copy)]
struct BlockScalar {
    parent: usize,
    content: Option<usize>,
}

#[derive(Debug, Default)]
struct Scan {
    /// Indentation of the open block levels.
    indents: Vec<usize>,
    /// Open flow collections, each with the anchor it carries.
    flow: Vec<Option<String>>,
    quote: Option<Quote>,
    /// Inside a plain scalar (carried over lines only in flow context).
    plain: bool,
    /// A block plain scalar that may continue on lines indented more than this.
    plain_continues: Option<usize>,
    /// An open block scalar (`|`, `>`).
    block_scalar: Option<BlockScalar>,
    /// The column of the innermost block collection on this line: where its first key or
    /// entry starts. A plain or block scalar's text continues on lines indented past it.
    line_col: usize,
    /// A `- ` or `? ` was just read; the next token sets `line_col`.
    after_dash: bool,
    /// Whether the next token would start a value.
    expect_value: bool,
    /// An anchor waiting for its value.
    pending_anchor: Option<String>,
    /// Anchors on block collections, closed when a line is indented no deeper than theirs.
    block_anchors: Vec<(String, usize)>,
    anchors: HashMap<String, Span>,
    /// Values so far, with every alias counted as the values it stands for.
    expanded: u64,
}

/// Whether byte `i` of `line` is followed by white space or the end of the line.
fn space_after(line: &[u8], i: usize) -> bool {
    line.get(i + 1).is_none_or(|b| *b == b' ')
}

/// Whether `b` ends a plain scalar or name inside a flow collection.
fn flow_indicator(b: u8) -> bool {
    matches!(b, b',' | b'[' | b']' | b'{' | b'}')
}

impl Scan {
    fn line(&mut self, line: &[u8]) -> Result<(), Over> {
        let indent = line.iter().take_while(|b| **b == b' ').count();
        let rest = &line[indent..];
        let mut start = 0;
        if self.quote.is_none() && self.flow.is_empty() {
            if let Some(block) = &mut self.block_scalar {
                match block.content {
                    _ if rest.is_empty() => return Ok(()),
                    None if indent > block.parent => {
                        block.content = Some(indent);
                        return Ok(());
                    }
                    Some(content) if indent >= content => return Ok(()),
                    _ => self.block_scalar = None,
                }
            }
            if rest.is_empty() {
                return Ok(());
            }
            if rest.first() == Some(&b'#') {
                self.plain_continues = None;
                return Ok(());
            }
            match self.plain_continues {
                // More text of a plain scalar begun on an earlier line.
                Some(parent) if indent > parent => self.plain = true,
                _ => {
                    self.plain_continues = None;
                    self.open_block_level(indent)?;
                    self.expect_value = true;
                    self.line_col = indent;
                    self.after_dash = false;
                }
            }
            start = indent;
        }
        let depth_here = self.indents.len();
        let mut dashes = 0;
        let mut i = start;
        while i < line.len() {
            let b = line[i];
            if let Some(q) = self.quote {
                i = self.in_quote(q, line, i);
                continue;
            }
            if self.plain {
                match b {
                    b':' if space_after(line, i)
                        || (!self.flow.is_empty() && line.get(i + 1).is_some_and(|n| flow_indicator(*n))) =>
                    {
                        self.plain = false;
                        self.expect_value = true;
                        i += 1;
                        continue;
                    }
                    b'#' if i > 0 && line[i - 1] == b' ' => break,
                    b if !self.flow.is_empty() && flow_indicator(b) => self.plain = false,
                    _ => {
                        i += 1;
                        continue;
                    }
                }
            }
            match b {
                b' ' => {}
                b'#' if i == 0 || line[i - 1] == b' ' => break,
                b'[' | b'{' => {
                    self.token_at(i);
                    self.value()?;
                    let anchor = self.pending_anchor.take();
                    if let Some(name) = &anchor {
                        self.anchors.insert(name.clone(), Span { start: self.expanded - 1, end: None });
                    }
                    self.flow.push(anchor);
                    self.expect_value = true;
                    if depth_here + dashes + self.flow.len() > MAX_DEPTH {
                        return Err(Over::Depth);
                    }
                }
                b']' | b'}' => {
                    if let Some(Some(name)) = self.flow.pop() {
                        let end = self.expanded;
                        if let Some(span) = self.anchors.get_mut(&name) {
                            span.end = Some(end);
                        }
                    }
                    self.expect_value = false;
                }
                b',' => self.expect_value = true,
                b':' if space_after(line, i) || !self.flow.is_empty() => self.expect_value = true,
                b'-' | b'?' if space_after(line, i) && self.flow.is_empty() => {
                    dashes += 1;
                    self.expect_value = true;
                    self.after_dash = self.flow.is_empty();
                    if depth_here + dashes > MAX_DEPTH {
                        return Err(Over::Depth);
                    }
                }
                b'"' | b'\'' => {
                    self.token_at(i);
                    self.quote = Some(if b == b'"' { Quote::Double } else { Quote::Single });
                    self.scalar()?;
                }
                b'*' => {
                    let (name, next) = self.name(line, i + 1);
                    self.alias(&name)?;
                    self.expect_value = false;
                    i = next;
                    continue;
                }
                b'&' | b'!' => {
                    let (name, next) = self.name(line, i + 1);
                    if b == b'&' {
                        self.pending_anchor = Some(name);
                    }
                    i = next;
                    continue;
                }
                b'|' | b'>' if self.flow.is_empty() && self.expect_value => {
                    self.scalar()?;
                    self.block_scalar = Some(BlockScalar { parent: self.line_col, content: None });
                    return Ok(());
                }
                _ => {
                    self.token_at(i);
                    self.scalar()?;
                    self.plain = true;
                }
            }
            i += 1;
        }
        if self.plain && self.flow.is_empty() {
            self.plain = false;
            self.plain_continues = Some(self.plain_continues.unwrap_or(self.line_col));
        }
        if self.flow.is_empty()
            && let Some(name) = self.pending_anchor.take()
        {
            // An anchor ending its line names the block collection on the lines below.
            self.anchors.insert(name.clone(), Span { start: self.expanded, end: None });
            self.block_anchors.push((name, indent));
        }
        Ok(())
    }

    /// A token starts at column `col`: right after a `- `, it is where a nested collection starts.
    fn token_at(&mut self, col: usize) {
        if self.after_dash {
            self.line_col = col;
            self.after_dash = false;
        }
    }

    /// Enters a block line at `indent`: closes deeper levels (and their anchors), opens one.
    fn open_block_level(&mut self, indent: usize) -> Result<(), Over> {
        while self.indents.last().is_some_and(|top| *top > indent) {
            self.indents.pop();
        }
        if self.indents.last().is_none_or(|top| *top < indent) {
            self.indents.push(indent);
        }
        let end = self.expanded;
        while let Some((name, at)) = self.block_anchors.last() {
            if *at < indent {
                break;
            }
            if let Some(span) = self.anchors.get_mut(name) {
                span.end = Some(end);
            }
            self.block_anchors.pop();
        }
        if self.indents.len() > MAX_DEPTH {
            return Err(Over::Depth);
        }
        Ok(())
    }

    /// Steps through a quoted scalar from byte `i`; returns the next byte to look at.
    fn in_quote(&mut self, q: Quote, line: &[u8], i: usize) -> usize {
        match (q, line[i]) {
            (Quote::Double, b'\\') => i + 2,
            (Quote::Double, b'"') => {
                self.quote = None;
                self.expect_value = false;
                i + 1
            }
            (Quote::Single, b'\'') if line.get(i + 1) == Some(&b'\'') => i + 2,
            (Quote::Single, b'\'') => {
                self.quote = None;
                self.expect_value = false;
                i + 1
            }
            _ => i + 1,
        }
    }

    /// Reads an anchor, alias or tag name starting at byte `i`; returns it and the byte after.
    /// A name ends at a space, and inside a flow collection at a flow indicator too.
    fn name(&self, line: &[u8], i: usize) -> (String, usize) {
        let from = i.min(line.len());
        let in_flow = !self.flow.is_empty();
        let len = line[from..].iter().take_while(|b| **b != b' ' && !(in_flow && flow_indicator(**b))).count();
        (String::from_utf8_lossy(&line[from..from + len]).into_owned(), from + len)
    }

    /// Counts one value.
    fn value(&mut self) -> Result<(), Over> {
        self.expanded += 1;
        if self.expanded > MAX_EXPANDED_VALUES {
            return Err(Over::Aliases);
        }
        Ok(())
    }

    /// Counts one scalar, closing an anchor that names it.
    fn scalar(&mut self) -> Result<(), Over> {
        self.value()?;
        self.expect_value = false;
        if let Some(name) = self.pending_anchor.take() {
            self.anchors.insert(name, Span { start: self.expanded - 1, end: Some(self.expanded) });
        }
        Ok(())
    }

    /// Counts an alias as every value its anchor holds (all values since the anchor while the
    /// anchored collection is still open).
    fn alias(&mut self, name: &str) -> Result<(), Over> {
        let weight =
            self.anchors.get(name).map_or(1, |s| s.end.unwrap_or(self.expanded).saturating_sub(s.start)).max(1);
        self.expanded = self.expanded.saturating_add(weight);
        if self.expanded > MAX_EXPANDED_VALUES {
            return Err(Over::Aliases);
        }
        Ok(())
    }
}
