//! Authoring: what writing and fixing a skill needs before it is stored — the templates a new
//! skill starts from, the checks an author sees while typing (validation, each agent's rules,
//! the audit) and the one-click fixes for the problems real skills have most.
//! Holds pure functions over a skill's files; not the drafts they work on (`skilldeck_store::drafts`)
//! nor any editor.

use serde::Serialize;
use skilldeck_audit::RiskLevel;
use skilldeck_skill::agents::Agent;
use skilldeck_skill::name_field::yaml_scalar;
use skilldeck_skill::validate::{self, ValidateOptions};
use skilldeck_skill::{DiagCode, RelPath, Severity, SkillFiles, SkillName, frontmatter};

/// The most characters a `description` may have (agentskills.io).
const DESCRIPTION_LIMIT: usize = 1024;

/// A shape a new skill can start from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Template {
    /// Instructions only: a `SKILL.md`.
    Instructions,
    /// Instructions that run a script in `scripts/`.
    Scripts,
    /// Instructions that send the agent to longer material in `references/` when it needs it.
    References,
}

/// A template as a list shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct TemplateInfo {
    /// Its id (`instructions`, `scripts`, `references`).
    pub id: Template,
    /// A short title.
    pub title: &'static str,
    /// What it holds, in a sentence.
    pub summary: &'static str,
}

impl Template {
    /// Every template, the plainest first.
    pub const ALL: [Self; 3] = [Self::Instructions, Self::Scripts, Self::References];

    /// Its id.
    pub fn id(self) -> &'static str {
        match self {
            Self::Instructions => "instructions",
            Self::Scripts => "scripts",
            Self::References => "references",
        }
    }

    /// The template named `id`; an unknown one names the valid ones.
    pub fn parse(id: &str) -> Result<Self, String> {
        Self::ALL.into_iter().find(|t| t.id() == id).ok_or_else(|| {
            let ids: Vec<&str> = Self::ALL.iter().map(|t| t.id()).collect();
            format!("there is no template {id:?}; use one of: {}", ids.join(", "))
        })
    }

    /// Its title and summary.
    pub fn info(self) -> TemplateInfo {
        let (title, summary) = match self {
            Self::Instructions => ("Instructions only", "A SKILL.md with steps the agent follows."),
            Self::Scripts => (
                "With a script",
                "A SKILL.md that runs scripts/run.sh for the part a program does better than the model.",
            ),
            Self::References => (
                "With references",
                "A short SKILL.md that sends the agent to references/guide.md only when it needs the detail.",
            ),
        };
        TemplateInfo { id: self, title, summary }
    }

    /// The files of a new skill `name` with `description` (a placeholder when empty).
    pub fn files(self, name: &SkillName, description: Option<&str>) -> SkillFiles {
        let description = description
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .unwrap_or("Describe what this skill does and when an agent should use it, in one or two sentences.");
        let title = name.as_str().split('-').map(capitalized).collect::<Vec<_>>().join(" ");
        let head = format!("---\nname: {name}\ndescription: {}\n---\n\n# {title}\n\n", yaml_scalar(description));
        let mut files = SkillFiles::new();
        let body = match self {
            Self::Instructions => "## Steps\n\n1. Say what the agent does first.\n2. Then what it checks.\n3. \
                                   And what it gives back.\n\n## Examples\n\n- A request this skill is for, and \
                                   what a good answer looks like.\n"
                .to_owned(),
            Self::Scripts => {
                files.insert(
                    rel("scripts/run.sh"),
                    b"#!/usr/bin/env bash\n# What this script does, its arguments, and what it prints.\nset -euo \
                      pipefail\necho \"hello from $(basename \"$0\")\"\n"
                        .to_vec(),
                );
                "## Steps\n\n1. Run `scripts/run.sh` from the skill's folder.\n2. Read what it prints and \
                 explain it to the user.\n\nThe script does the part a program does better than a model; keep the \
                 steps here short.\n"
                    .to_owned()
            }
            Self::References => {
                files.insert(
                    rel("references/guide.md"),
                    b"# Guide\n\nThe long material: tables, rules, examples the agent reads only when the task \
                      needs them.\n"
                        .to_vec(),
                );
                "## Steps\n\n1. Do the common case from these lines alone.\n2. For the details, read \
                 [references/guide.md](references/guide.md) — only when the task needs them.\n"
                    .to_owned()
            }
        };
        files.insert(rel("SKILL.md"), format!("{head}{body}").into_bytes());
        files
    }
}

fn rel(path: &str) -> RelPath {
    // The templates' paths are constants known to be valid.
    RelPath::parse(path).unwrap_or_else(|_| unreachable!("template path {path} is valid"))
}

fn capitalized(word: &str) -> String {
    let mut c = word.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// Why `name` cannot name a new skill, in words; `None` when it can.
pub fn name_problem(name: &str) -> Option<String> {
    SkillName::parse(name).err().map(|e| e.to_string())
}

/// A one-click fix for a common problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Fix {
    /// Put the frontmatter values YAML misreads in double quotes.
    QuoteValues,
    /// Set `name` to the skill's folder name.
    NameFromFolder,
    /// Add the frontmatter block (`name`, `description`) the file lacks.
    AddFrontmatter,
    /// Shorten `description` to the limit, moving the rest into the body.
    ShortenDescription,
}

impl Fix {
    /// Its id.
    pub fn id(self) -> &'static str {
        match self {
            Self::QuoteValues => "quote_values",
            Self::NameFromFolder => "name_from_folder",
            Self::AddFrontmatter => "add_frontmatter",
            Self::ShortenDescription => "shorten_description",
        }
    }

    /// The fix named `id`.
    pub fn parse(id: &str) -> Option<Self> {
        [Self::QuoteValues, Self::NameFromFolder, Self::AddFrontmatter, Self::ShortenDescription]
            .into_iter()
            .find(|f| f.id() == id)
    }

    /// What its button says.
    pub fn label(self) -> &'static str {
        match self {
            Self::QuoteValues => "Put the value in quotes",
            Self::NameFromFolder => "Use the skill's name",
            Self::AddFrontmatter => "Add the frontmatter",
            Self::ShortenDescription => "Shorten it, keeping the rest in the body",
        }
    }

    /// The fix for a diagnostic, when there is one.
    fn for_code(code: DiagCode) -> Option<Self> {
        match code {
            DiagCode::YamlRecovered | DiagCode::YamlInvalid => Some(Self::QuoteValues),
            DiagCode::NameDirMismatch | DiagCode::NameMissing => Some(Self::NameFromFolder),
            DiagCode::FrontmatterMissing => Some(Self::AddFrontmatter),
            DiagCode::DescriptionTooLong => Some(Self::ShortenDescription),
            _ => None,
        }
    }

    /// `SKILL.md` of the skill `name` with the fix applied; `None` when it does not apply.
    pub fn apply(self, name: &SkillName, skill_md: &str) -> Option<String> {
        match self {
            Self::QuoteValues => frontmatter::quoted(skill_md),
            Self::NameFromFolder => set_field(skill_md, "name", name.as_str()),
            Self::AddFrontmatter => {
                if frontmatter::split(skill_md).is_ok() {
                    return None;
                }
                let first = skill_md
                    .lines()
                    .map(str::trim)
                    .find(|l| !l.is_empty() && !l.starts_with('#'))
                    .map(|l| l.chars().take(200).collect::<String>())
                    .unwrap_or_else(|| "Describe what this skill does and when an agent should use it.".to_owned());
                Some(format!("---\nname: {name}\ndescription: {}\n---\n\n{skill_md}", yaml_scalar(&first)))
            }
            Self::ShortenDescription => {
                let meta = validate::validate_bytes(Some(skill_md.as_bytes()), ValidateOptions::default()).meta;
                let description = meta.description?;
                if description.chars().count() <= DESCRIPTION_LIMIT {
                    return None;
                }
                let keep: String = description.chars().take(DESCRIPTION_LIMIT - 1).collect();
                let cut = keep.rfind(|c: char| c.is_whitespace()).filter(|i| *i > DESCRIPTION_LIMIT / 2);
                let (short, rest) = match cut {
                    Some(i) => (format!("{}…", keep[..i].trim_end()), description[i..].trim().to_owned()),
                    None => (format!("{keep}…"), description[keep.len()..].trim().to_owned()),
                };
                let with_short = set_field(skill_md, "description", &short)?;
                let split = frontmatter::split(&with_short).ok()?;
                let at = with_short.len() - split.body.len();
                Some(format!("{}\n## More on when to use it\n\n{rest}\n{}", &with_short[..at], split.body))
            }
        }
    }
}

/// `skill_md` with the top-level frontmatter field `key` set to `value` (added after the
/// opening fence when missing); `None` without a frontmatter written as the spec writes it.
fn set_field(skill_md: &str, key: &str, value: &str) -> Option<String> {
    let split = frontmatter::split(skill_md).ok()?;
    if split.indent != 0 {
        return None;
    }
    let start = (split.yaml.as_ptr() as usize).checked_sub(skill_md.as_ptr() as usize)?;
    let end = start + split.yaml.len();
    let line = format!("{key}: {}", yaml_scalar(value));
    let mut lines: Vec<String> = split.yaml.lines().map(str::to_owned).collect();
    let prefix = format!("{key}:");
    match lines.iter().position(|l| l.starts_with(&prefix)) {
        Some(i) => {
            // The old value's continuation lines (indented) go with it.
            let mut j = i + 1;
            while j < lines.len() && lines[j].starts_with([' ', '\t']) {
                j += 1;
            }
            lines.splice(i..j, [line]);
        }
        None => lines.insert(0, line),
    }
    let mut out = String::with_capacity(skill_md.len() + 32);
    out.push_str(&skill_md[..start]);
    for l in lines {
        out.push_str(&l);
        out.push('\n');
    }
    out.push_str(&skill_md[end..]);
    Some(out)
}

/// One thing an author should see, on the line it concerns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct Note {
    /// The file (`SKILL.md` for validation).
    pub path: String,
    /// The 1-based line, when known.
    #[ts(type = "number | null")]
    pub line: Option<u32>,
    /// `error`, `warning` or `info`.
    #[ts(type = "\"error\" | \"warning\" | \"info\"")]
    pub severity: &'static str,
    /// The stable code (a diagnostic's, or an audit rule's).
    pub code: String,
    /// What is wrong and what to do.
    pub message: String,
    /// The one-click fix's id, when there is one.
    pub fix: Option<Fix>,
    /// What the fix's button says.
    pub fix_label: Option<&'static str>,
}

/// What the checks found in a skill's files.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Checked {
    /// Validation's and the agents' notes, then the audit's, in file and line order.
    pub notes: Vec<Note>,
    /// The audit's worst finding.
    pub worst: Option<RiskLevel>,
    /// Whether validation found an error (the skill would be stored, listed as invalid).
    pub invalid: bool,
}

/// Runs every check an author sees on the files of skill `name`: validation as Skilldeck reads
/// it, what each agent ignores or refuses (`validate --for`), and the audit.
pub fn check(name: &SkillName, files: &SkillFiles) -> Checked {
    let opts = || ValidateOptions { dir_name: Some(name.as_str()), ..ValidateOptions::default() };
    let skill_md = files.skill_md();
    let base = validate::validate_bytes(skill_md, opts());
    let mut notes: Vec<Note> = base.diagnostics.iter().map(|d| note("SKILL.md", d, None)).collect();
    let invalid = base.diagnostics.iter().any(|d| d.severity == Severity::Error);
    for agent in Agent::ALL {
        let theirs = validate::validate_bytes_for(skill_md, opts(), Some(agent));
        for d in theirs.diagnostics.iter().filter(|d| !base.diagnostics.contains(d)) {
            notes.push(note("SKILL.md", d, Some(agent)));
        }
    }
    let report = skilldeck_audit::audit(files.iter().map(|(p, b)| (p.as_str(), b)));
    for f in &report.findings {
        notes.push(Note {
            path: f.file.clone(),
            line: f.line,
            severity: if f.severity >= RiskLevel::High { "error" } else { "warning" },
            code: f.rule.to_owned(),
            message: format!("{} ({}): {}", f.title, f.severity.as_str(), f.why),
            fix: None,
            fix_label: None,
        });
    }
    notes.sort_by(|a, b| (a.path != "SKILL.md", &a.path, a.line).cmp(&(b.path != "SKILL.md", &b.path, b.line)));
    Checked { notes, worst: report.worst(), invalid }
}

fn note(path: &str, d: &skilldeck_skill::Diagnostic, agent: Option<Agent>) -> Note {
    let fix = Fix::for_code(d.code);
    // Validation's messages say what to do already; the fix's button does it.
    let message = match agent {
        Some(a) => format!("{}: {}", a.name(), d.message),
        None => d.message.clone(),
    };
    Note {
        path: path.to_owned(),
        line: d.line,
        severity: if d.severity == Severity::Error { "error" } else { "warning" },
        code: d.code.as_str().to_owned(),
        message,
        fix,
        fix_label: fix.map(Fix::label),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(s: &str) -> SkillName {
        SkillName::parse(s).unwrap()
    }

    #[test]
    fn every_template_makes_a_valid_skill_that_passes_the_audit() {
        for t in Template::ALL {
            let files = t.files(&name("release-notes"), Some("Writes release notes: from the log, grouped."));
            let c = check(&name("release-notes"), &files);
            assert!(!c.invalid, "{t:?}: {:?}", c.notes);
            assert!(c.worst.is_none_or(|w| w < RiskLevel::High), "{t:?}: {:?}", c.notes);
            let md = std::str::from_utf8(files.skill_md().unwrap()).unwrap();
            assert!(md.contains("description: \"Writes release notes: from the log, grouped.\""), "{md}");
        }
        assert!(Template::parse("nope").unwrap_err().contains("instructions, scripts, references"));
    }

    #[test]
    fn a_description_starting_with_stars_is_fixed_by_quoting_it() {
        let md = "---\nname: x\ndescription: **Bold** start: then text\n---\n\n# X\n";
        let mut files = SkillFiles::new();
        files.insert(RelPath::parse("SKILL.md").unwrap(), md.as_bytes().to_vec());
        let c = check(&name("x"), &files);
        let n = c.notes.iter().find(|n| n.fix == Some(Fix::QuoteValues)).expect("a quote fix is offered");
        assert_eq!(n.line, Some(3));
        let fixed = Fix::QuoteValues.apply(&name("x"), md).unwrap();
        assert_eq!(fixed, "---\nname: x\ndescription: \"**Bold** start: then text\"\n---\n\n# X\n");
        let mut files = SkillFiles::new();
        files.insert(RelPath::parse("SKILL.md").unwrap(), fixed.into_bytes());
        assert!(check(&name("x"), &files).notes.iter().all(|n| n.fix.is_none()), "nothing left to fix");
    }

    #[test]
    fn name_frontmatter_and_length_fixes_make_the_skill_valid() {
        let fixed = Fix::NameFromFolder.apply(&name("good"), "---\nname: Bad_Name\ndescription: d\n---\nb\n");
        assert_eq!(fixed.as_deref(), Some("---\nname: good\ndescription: d\n---\nb\n"));
        let fixed = Fix::AddFrontmatter.apply(&name("good"), "# Title\n\nDoes the thing.\n").unwrap();
        assert!(fixed.starts_with("---\nname: good\ndescription: Does the thing.\n---\n\n# Title"), "{fixed}");
        let long = "word ".repeat(300);
        let md = format!("---\nname: good\ndescription: {}\n---\nbody\n", long.trim());
        let fixed = Fix::ShortenDescription.apply(&name("good"), &md).unwrap();
        let v = validate::validate_bytes(Some(fixed.as_bytes()), ValidateOptions::default());
        assert!(v.diagnostics.iter().all(|d| d.severity != Severity::Error), "{:?}", v.diagnostics);
        assert!(fixed.contains("## More on when to use it"), "{fixed}");
        assert_eq!(fixed.matches("word").count(), 300, "no word is lost");
    }
}
