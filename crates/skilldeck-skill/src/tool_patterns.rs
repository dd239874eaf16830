//! Tool patterns as `allowed-tools` writes them (`Bash(git diff:*) Read`): splitting a text
//! into patterns and telling a pattern from anything else. Holds no grant logic (`grants`).

/// Splits `Bash(git diff:*) Read, Write` into patterns, keeping spaces inside parentheses.
pub fn split_tool_patterns(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut depth = 0usize;
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth == 0 && (c.is_whitespace() || c == ',') {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        } else {
            cur.push(c);
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Whether a pattern is `Tool` or `Tool(args)`.
pub fn is_tool_pattern(p: &str) -> bool {
    let (head, args) = match p.find('(') {
        Some(i) => (&p[..i], Some(&p[i..])),
        None => (p, None),
    };
    let head_ok = head.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && head.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':' | '*'));
    let args_ok = args.is_none_or(|a| a.ends_with(')') && a.matches('(').count() == a.matches(')').count());
    head_ok && args_ok
}
