//! `allowed-tools` patterns: whether an active skill pre-approves a shell command.
//! Holds the pattern grammar (`Bash`, `Bash(git diff:*)`, `Bash(ls)`); not who is active.

/// Characters that chain or redirect commands. A pattern with a prefix never pre-approves a
/// command holding one, so `Bash(git diff:*)` does not approve `git diff; rm -rf ~`.
const CHAINING: &[char] = &[';', '&', '|', '`', '$', '<', '>', '(', ')', '\n', '\r'];

/// Whether `pattern` (one entry of a skill's `allowed-tools`) pre-approves running `command`.
///
/// - `Bash` or `Bash(*)`: any command.
/// - `Bash(git diff:*)` or `Bash(git diff*)`: `git diff` alone or followed by arguments.
/// - `Bash(npm test)`: exactly that command.
///
/// `Shell` is accepted as a synonym of `Bash`; other tools (`Read`, `Write`, …) approve no command.
pub fn allows(pattern: &str, command: &str) -> bool {
    let pattern = pattern.trim();
    let (tool, spec) = match pattern.split_once('(') {
        Some((tool, rest)) => match rest.strip_suffix(')') {
            Some(spec) => (tool.trim(), Some(spec.trim())),
            None => return false,
        },
        None => (pattern, None),
    };
    if !matches!(tool.to_ascii_lowercase().as_str(), "bash" | "shell") {
        return false;
    }
    let command = command.trim();
    let spec = match spec {
        None | Some("*") => return true,
        Some(s) => s,
    };
    if command.contains(CHAINING) {
        return false;
    }
    let prefix = spec.strip_suffix(":*").or_else(|| spec.strip_suffix('*')).map(str::trim_end);
    match prefix {
        Some(p) if !p.is_empty() => {
            command == p || command.strip_prefix(p).is_some_and(|rest| rest.starts_with(char::is_whitespace))
        }
        Some(_) => true,
        None => command == spec,
    }
}

/// The first pattern among `patterns` that pre-approves `command`.
pub fn first_allowing<'a>(patterns: &'a [String], command: &str) -> Option<&'a str> {
    patterns.iter().map(String::as_str).find(|p| allows(p, command))
}
