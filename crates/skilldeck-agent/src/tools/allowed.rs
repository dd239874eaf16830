//! Whether the approved `allowed-tools` of the skills active in a turn cover a shell command.
//! Holds parsing the command with a real shell parser and matching each simple command in it;
//! not who is active or trusted (the loop decides that) nor running it (the sandbox does).

use brush_parser::ast::{
    AndOr, Command, CommandPrefixOrSuffixItem, IoFileRedirectKind, IoFileRedirectTarget, IoRedirect, Pipeline, Program,
    SeparatorOperator, SimpleCommand,
};
use brush_parser::word::{WordPiece, WordPieceWithSource};
use brush_parser::{Parser, ParserOptions};
use skilldeck_skill::grants::Pattern;

/// Longer commands are never covered: the user reads and approves them.
const MAX_COMMAND: usize = 8 * 1024;

/// One grant in force: a pattern an active, approved skill asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    /// The skill that asked for it.
    pub skill: String,
    /// The pattern, as written.
    pub pattern: String,
}

impl Grant {
    /// How it is named to people: `skill (pattern)`.
    pub fn label(&self) -> String {
        format!("{} ({})", self.skill, self.pattern)
    }
}

/// Why no grant covers a command, in words for the user and the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotCovered(pub String);

/// The grants among `grants` that together cover every part of `command`, or why none do.
///
/// A broad grant (`Bash`, `Bash(*)`) covers any command. Otherwise the command is parsed as
/// `sh` would: it is covered only when it is simple commands of plain words joined by `;`,
/// `&&`, `||` or `|`, each matched by a prefix or exact pattern, none naming a path outside
/// the workspace (absolute, `~` or `..`). Substitutions, expansions, redirections other than
/// `2>&1`-style duplications, here-documents, background jobs, subshells, functions, loops and
/// assignments are never covered: the user is asked.
pub fn covering(grants: &[Grant], command: &str) -> Result<Vec<Grant>, NotCovered> {
    let parsed: Vec<(&Grant, Pattern)> =
        grants.iter().filter_map(|g| Pattern::parse(&g.pattern).map(|p| (g, p))).collect();
    if let Some((g, _)) = parsed.iter().find(|(_, p)| *p == Pattern::AnyCommand) {
        return Ok(vec![(*g).clone()]);
    }
    if parsed.iter().all(|(_, p)| matches!(p, Pattern::Other(_))) {
        return Err(NotCovered("no active skill's approved grants allow shell commands".into()));
    }
    let commands = simple_commands(command)?;
    let mut used: Vec<Grant> = Vec::new();
    for words in &commands {
        if let Some(arg) = words.iter().find(|w| leaves_workspace(w)) {
            return Err(NotCovered(format!("`{arg}` names a path outside the workspace")));
        }
        let hit = parsed.iter().find(|(_, p)| matches(p, words));
        match hit {
            Some((g, _)) if !used.contains(g) => used.push((*g).clone()),
            Some(_) => {}
            None => return Err(NotCovered(format!("no approved grant allows `{}`", words.join(" ")))),
        }
    }
    Ok(used)
}

fn matches(pattern: &Pattern, words: &[String]) -> bool {
    match pattern {
        Pattern::AnyCommand => true,
        Pattern::Prefix(p) => words.len() >= p.len() && words.iter().zip(p).all(|(w, p)| w == p),
        Pattern::Exact(p) => words == p.as_slice(),
        Pattern::Other(_) => false,
    }
}

/// Whether a word (after quote removal) names a path outside the workspace: absolute, from the
/// home folder, or climbing with `..`, also as the value of `--opt=` or after `:` or `,`.
fn leaves_workspace(word: &str) -> bool {
    word.split(['=', ':', ',', '{', '}', '@'])
        .any(|part| part.starts_with('/') || part.starts_with('~') || part.split('/').any(|c| c == ".."))
}

/// The plain words of every simple command in `command`, or why it is not plain enough.
pub fn simple_commands(command: &str) -> Result<Vec<Vec<String>>, NotCovered> {
    if command.len() > MAX_COMMAND {
        return Err(NotCovered("the command is too long to check".into()));
    }
    if command.contains('\0') {
        return Err(NotCovered("the command holds a NUL byte".into()));
    }
    let options = ParserOptions::default();
    let program: Program = Parser::new(command.as_bytes(), &options)
        .parse_program()
        .map_err(|e| NotCovered(format!("the command does not parse as shell ({e})")))?;
    let mut out = Vec::new();
    for list in &program.complete_commands {
        for item in &list.0 {
            if matches!(item.1, SeparatorOperator::Async) {
                return Err(NotCovered("it starts a background job (`&`)".into()));
            }
            pipeline(&item.0.first, &options, &mut out)?;
            for next in &item.0.additional {
                match next {
                    AndOr::And(p) | AndOr::Or(p) => pipeline(p, &options, &mut out)?,
                }
            }
        }
    }
    if out.is_empty() {
        return Err(NotCovered("it holds no command".into()));
    }
    Ok(out)
}

fn pipeline(p: &Pipeline, options: &ParserOptions, out: &mut Vec<Vec<String>>) -> Result<(), NotCovered> {
    if p.timed.is_some() {
        return Err(NotCovered("it times a pipeline".into()));
    }
    for c in &p.seq {
        match c {
            Command::Simple(s) => out.push(simple(s, options)?),
            Command::Compound(..) => {
                return Err(NotCovered("it holds a subshell, group, loop or condition".into()));
            }
            Command::Function(_) => return Err(NotCovered("it defines a function".into())),
            Command::ExtendedTest(..) => return Err(NotCovered("it holds a `[[ … ]]` test".into())),
        }
    }
    Ok(())
}

fn simple(s: &SimpleCommand, options: &ParserOptions) -> Result<Vec<String>, NotCovered> {
    if s.prefix.as_ref().is_some_and(|p| !p.0.is_empty()) {
        return Err(NotCovered("it sets variables or redirects before the command".into()));
    }
    let mut words = Vec::new();
    if let Some(w) = &s.word_or_name {
        words.push(literal(&w.value, options)?);
    }
    for item in s.suffix.iter().flat_map(|s| &s.0) {
        match item {
            CommandPrefixOrSuffixItem::Word(w) => words.push(literal(&w.value, options)?),
            CommandPrefixOrSuffixItem::IoRedirect(r) if is_fd_duplication(r) => {}
            CommandPrefixOrSuffixItem::IoRedirect(_) => {
                return Err(NotCovered("it redirects to or from a file or a here-document".into()));
            }
            CommandPrefixOrSuffixItem::AssignmentWord(..) => {
                return Err(NotCovered("it assigns a variable".into()));
            }
            CommandPrefixOrSuffixItem::ProcessSubstitution(..) => {
                return Err(NotCovered("it holds a process substitution".into()));
            }
        }
    }
    if words.is_empty() {
        return Err(NotCovered("it holds a command with no name".into()));
    }
    Ok(words)
}

/// `2>&1`, `>&2`, `<&0`, `2>&-`: joins or closes descriptors, touches no file.
fn is_fd_duplication(r: &IoRedirect) -> bool {
    match r {
        IoRedirect::File(_, IoFileRedirectKind::DuplicateInput | IoFileRedirectKind::DuplicateOutput, target) => {
            match target {
                IoFileRedirectTarget::Fd(_) => true,
                IoFileRedirectTarget::Duplicate(w) => {
                    w.value == "-" || (!w.value.is_empty() && w.value.bytes().all(|b| b.is_ascii_digit()))
                }
                IoFileRedirectTarget::Filename(_) | IoFileRedirectTarget::ProcessSubstitution(..) => false,
            }
        }
        IoRedirect::File(..) | IoRedirect::HereDocument(..) | IoRedirect::HereString(..) => false,
        IoRedirect::OutputAndError(..) => false,
    }
}

/// The word after quote removal, when it expands to nothing but itself.
fn literal(raw: &str, options: &ParserOptions) -> Result<String, NotCovered> {
    let pieces =
        brush_parser::word::parse(raw, options).map_err(|_| NotCovered(format!("the word `{raw}` does not parse")))?;
    let mut out = String::new();
    pieces_literal(&pieces, raw, &mut out)?;
    Ok(out)
}

fn pieces_literal(pieces: &[WordPieceWithSource], raw: &str, out: &mut String) -> Result<(), NotCovered> {
    for p in pieces {
        match &p.piece {
            WordPiece::Text(t) | WordPiece::SingleQuotedText(t) => out.push_str(t),
            WordPiece::EscapeSequence(e) => out.push_str(e.strip_prefix('\\').unwrap_or(e)),
            WordPiece::DoubleQuotedSequence(inner) => pieces_literal(inner, raw, out)?,
            WordPiece::TildeExpansion(_) => {
                return Err(NotCovered(format!("`{raw}` names the home folder")));
            }
            WordPiece::AnsiCQuotedText(_) | WordPiece::GettextDoubleQuotedSequence(_) => {
                return Err(NotCovered(format!("`{raw}` uses bash-only quoting")));
            }
            WordPiece::ParameterExpansion(_)
            | WordPiece::CommandSubstitution(_)
            | WordPiece::BackquotedCommandSubstitution(_)
            | WordPiece::ArithmeticExpression(_) => {
                return Err(NotCovered(format!("`{raw}` expands a variable or runs a substitution")));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grants(patterns: &[&str]) -> Vec<Grant> {
        patterns.iter().map(|p| Grant { skill: "s".into(), pattern: (*p).into() }).collect()
    }

    /// `expected`: the patterns that cover it, or `None` when the user must be asked.
    fn check(patterns: &[&str], command: &str, expected: Option<&[&str]>) {
        let got = covering(&grants(patterns), command);
        let got: Option<Vec<String>> = got.ok().map(|g| g.into_iter().map(|g| g.pattern).collect());
        let expected: Option<Vec<String>> = expected.map(|e| e.iter().map(|s| (*s).to_owned()).collect());
        assert_eq!(got, expected, "{patterns:?} on {command:?}");
    }

    #[test]
    fn prefix_and_exact_grants_cover_plain_commands() {
        let git = &["Bash(git diff:*)", "Bash(git log:*)"];
        check(git, "git diff", Some(&["Bash(git diff:*)"]));
        check(git, "git diff --stat HEAD~1 -- src/a.rs", Some(&["Bash(git diff:*)"]));
        check(git, "  git   'diff'  --cached", Some(&["Bash(git diff:*)"]));
        check(git, "git diff && git log -3 | head", None);
        check(
            &["Bash(git diff:*)", "Bash(git log:*)", "Bash(head:*)"],
            "git diff && git log -3 | head -5",
            Some(git_and_head()),
        );
        check(git, "git diff 2>&1", Some(&["Bash(git diff:*)"]));
        check(git, "git difftool", None);
        check(git, "git", None);
        check(&["Bash(npm test)"], "npm test", Some(&["Bash(npm test)"]));
        check(&["Bash(npm test)"], "npm test --watch", None);
        check(&["Read", "Write"], "ls", None);
        check(&["Bash", "Bash(git diff:*)"], "rm -rf build; curl x | sh", Some(&["Bash"]));
        check(&["Bash(*)"], "echo $(id)", Some(&["Bash(*)"]));
    }

    fn git_and_head() -> &'static [&'static str] {
        &["Bash(git diff:*)", "Bash(git log:*)", "Bash(head:*)"]
    }

    #[test]
    fn anything_that_is_not_plain_words_is_refused() {
        let g = &["Bash(git diff:*)", "Bash(echo:*)"];
        for command in [
            "git diff; rm -rf ~",
            "git diff && touch x",
            "git diff || sh",
            "git diff | sh",
            "git diff > out.txt",
            "git diff >> out.txt",
            "git diff < in",
            "git diff &> out",
            "git diff <<EOF\nhello\nEOF",
            "git diff <<< text",
            "git diff $(rm -rf x)",
            "git diff `rm -rf x`",
            "git diff \"$(id)\"",
            "git diff $HOME",
            "git diff ${X:-/etc}",
            "git diff $((1+1))",
            "git diff <(cat /etc/passwd)",
            "git diff &",
            "(git diff)",
            "{ git diff; }",
            "for f in a; do git diff; done",
            "if git diff; then echo; fi",
            "f() { git diff; }; f",
            "X=1 git diff",
            "LD_PRELOAD=/tmp/x.so git diff",
            "git diff $'\\x41'",
            "[[ -e x ]] && git diff",
            "time git diff",
            "git diff 'unclosed",
            "git diff a\0b",
            "",
        ] {
            check(g, command, None);
        }
    }

    #[test]
    fn paths_outside_the_workspace_are_refused() {
        let g = &["Bash(git diff:*)"];
        for command in [
            "git diff --no-index /etc/shadow /dev/null",
            "git diff --no-index --output=/outside/x a b",
            "git diff --output /outside/x",
            "git diff ~/.ssh/id_rsa x",
            "git diff ~root/x",
            "git diff ../x",
            "git diff a/../../x",
            "git diff --src-prefix=a:/etc",
            "git diff '/etc/shadow'",
            "git diff \"..\"/x",
        ] {
            check(g, command, None);
        }
        check(g, "git diff --output=out/diff.txt a.txt b.txt", Some(&["Bash(git diff:*)"]));
        check(g, "git diff HEAD~3..HEAD", Some(&["Bash(git diff:*)"]));
    }

    #[test]
    fn the_reason_says_what_is_not_covered() {
        let e = covering(&grants(&["Bash(git diff:*)"]), "git diff; rm -rf x").unwrap_err();
        assert_eq!(e, NotCovered("no approved grant allows `rm -rf x`".into()));
        let e = covering(&grants(&["Bash(git diff:*)"]), "git diff /etc/shadow").unwrap_err();
        assert_eq!(e, NotCovered("`/etc/shadow` names a path outside the workspace".into()));
        let e = covering(&[], "ls").unwrap_err();
        assert_eq!(e, NotCovered("no active skill's approved grants allow shell commands".into()));
    }
}
