//! The agents' frontmatter table, field by field: for every row of `agents::FIELDS`, a value the
//! agent accepts and one it does not, under `validate --for` that agent and under lenient
//! validation. Each case names the source the rule came from; the test checks the table cites
//! the same one.

use skilldeck_skill::DiagCode::{self, *};
use skilldeck_skill::Severity::{Error, Warning};
use skilldeck_skill::agents::{self, Agent, Agent::*};
use skilldeck_skill::codex_yaml;
use skilldeck_skill::validate::{ValidateOptions, Validated, validate_text, validate_text_for};

const BODY: &str = "\n# Use\n\nDo the thing.\n";
const OPTS: ValidateOptions<'static> = ValidateOptions { strict: false, dir_name: Some("pdf"), app_version: "1.4.0" };

fn doc(extra: &str) -> String {
    format!("---\nname: pdf\ndescription: Extract text from PDF files.\n{extra}---\n{BODY}")
}

fn for_agent(agent: Agent, extra: &str) -> Validated {
    validate_text_for(&doc(extra), OPTS, Some(agent))
}

/// One row: the agent, the field, the source, the frontmatter lines of a good value and of a
/// bad one, and the code the bad one raises (from the agent's rule, or Skilldeck's own reader
/// for a field of the spec).
struct Case {
    agent: Agent,
    field: &'static str,
    cite: &'static str,
    good: &'static str,
    bad: &'static str,
    code: DiagCode,
}

const fn case(
    agent: Agent,
    field: &'static str,
    cite: &'static str,
    good: &'static str,
    bad: &'static str,
    code: DiagCode,
) -> Case {
    Case { agent, field, cite, good, bad, code }
}

const CC_DOCS: &str = "https://code.claude.com/docs/en/skills#frontmatter-reference";
const CC_MODELS: &str = "https://code.claude.com/docs/en/model-config#model-aliases";
const CC_HOOKS: &str = "https://code.claude.com/docs/en/hooks#configuration";
const CODEX: &str = "github.com/openai/codex codex-rs/core-skills/src/loader.rs";
const GEMINI: &str = "github.com/google-gemini/gemini-cli packages/core/src/skills/skillLoader.ts";
const COPILOT: &str = "github.com/microsoft/vscode-docs docs/copilot/customization/agent-skills.md";
const CURSOR: &str = "https://cursor.com/docs/context/skills";

const HOOKS_GOOD: &str = "hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: ./check.sh\n";
const HOOKS_BAD: &str = "hooks:\n  PreToolUse: ./check.sh\n";
const LONG_NAME: &str = "name: pdf-pdf-pdf-pdf-pdf-pdf-pdf-pdf-pdf-pdf-pdf-pdf-pdf-pdf-pdf-pdf-pdf\n";

fn cases() -> Vec<Case> {
    vec![
        case(ClaudeCode, "name", CC_DOCS, "", "name: PDF_Tools\n", NameInvalid),
        case(ClaudeCode, "description", CC_DOCS, "", "description: [a, b]\n", FieldTypeInvalid),
        case(
            ClaudeCode,
            "when_to_use",
            CC_DOCS,
            "when_to_use: When a PDF is attached\n",
            "when_to_use: [a]\n",
            FieldTypeInvalid,
        ),
        case(ClaudeCode, "argument-hint", CC_DOCS, "argument-hint: [file]\n", "argument-hint: 3\n", FieldTypeInvalid),
        case(
            ClaudeCode,
            "arguments",
            CC_DOCS,
            "arguments: file pages\n",
            "arguments: file page(s)\n",
            FieldValueInvalid,
        ),
        case(
            ClaudeCode,
            "disable-model-invocation",
            CC_DOCS,
            "disable-model-invocation: true\n",
            "disable-model-invocation: \"yes\"\n",
            FieldTypeInvalid,
        ),
        case(ClaudeCode, "user-invocable", CC_DOCS, "user-invocable: false\n", "user-invocable: 0\n", FieldTypeInvalid),
        case(
            ClaudeCode,
            "allowed-tools",
            CC_DOCS,
            "allowed-tools: Bash(git diff:*) Read\n",
            "allowed-tools: Bash(git\n",
            AllowedToolsInvalid,
        ),
        case(
            ClaudeCode,
            "disallowed-tools",
            CC_DOCS,
            "disallowed-tools: Write Edit\n",
            "disallowed-tools: Bash(rm\n",
            FieldValueInvalid,
        ),
        case(ClaudeCode, "model", CC_MODELS, "model: claude-opus-4-1\n", "model: gpt-4o\n", FieldValueInvalid),
        case(ClaudeCode, "effort", CC_DOCS, "effort: xhigh\n", "effort: extreme\n", FieldValueInvalid),
        case(ClaudeCode, "context", CC_DOCS, "context: fork\n", "context: spawn\n", FieldValueInvalid),
        case(
            ClaudeCode,
            "agent",
            CC_DOCS,
            "context: fork\nagent: Explore\n",
            "context: fork\nagent: [Explore]\n",
            FieldTypeInvalid,
        ),
        case(ClaudeCode, "hooks", CC_HOOKS, HOOKS_GOOD, HOOKS_BAD, FieldValueInvalid),
        case(
            ClaudeCode,
            "paths",
            CC_DOCS,
            "paths: \"src/**/*.rs, *.{ts,tsx}\"\n",
            "paths: src/[abc\n",
            FieldValueInvalid,
        ),
        case(ClaudeCode, "shell", CC_DOCS, "shell: powershell\n", "shell: zsh\n", FieldValueInvalid),
        case(Codex, "name", CODEX, "", LONG_NAME, NameTooLong),
        case(Codex, "description", CODEX, "", "description: \"\"\n", DescriptionMissing),
        case(
            Codex,
            "metadata",
            CODEX,
            "metadata:\n  short-description: PDF tools\n",
            "metadata:\n  short-description: [a]\n",
            FieldTypeInvalid,
        ),
        case(Gemini, "name", GEMINI, "", "name: PDF\n", NameInvalid),
        case(Gemini, "description", GEMINI, "", "description: 12\n", FieldTypeInvalid),
        case(Copilot, "name", COPILOT, "", LONG_NAME, NameTooLong),
        case(Copilot, "description", COPILOT, "", "description: {a: b}\n", FieldTypeInvalid),
        case(
            Copilot,
            "argument-hint",
            COPILOT,
            "argument-hint: \"[test file]\"\n",
            "argument-hint: {a: b}\n",
            FieldTypeInvalid,
        ),
        case(
            Copilot,
            "user-invokable",
            COPILOT,
            "user-invokable: false\n",
            "user-invokable: \"no\"\n",
            FieldTypeInvalid,
        ),
        case(
            Copilot,
            "disable-model-invocation",
            COPILOT,
            "disable-model-invocation: false\n",
            "disable-model-invocation: 1\n",
            FieldTypeInvalid,
        ),
        case(Cursor, "name", CURSOR, "", "name: -pdf\n", NameInvalid),
        case(Cursor, "description", CURSOR, "", "description: [x]\n", FieldTypeInvalid),
        case(Cursor, "license", CURSOR, "license: MIT\n", "license: [MIT]\n", FieldTypeInvalid),
        case(Cursor, "compatibility", CURSOR, "compatibility: Python 3\n", "compatibility: [py]\n", FieldTypeInvalid),
        case(Cursor, "metadata", CURSOR, "metadata:\n  author: me\n", "metadata: me\n", FieldTypeInvalid),
        case(
            Cursor,
            "disable-model-invocation",
            CURSOR,
            "disable-model-invocation: true\n",
            "disable-model-invocation: on\n",
            FieldTypeInvalid,
        ),
    ]
}

/// A bad `name` or `description` replaces the good one instead of adding a second.
fn bad_doc(c: &Case) -> String {
    let text = doc(c.bad);
    match c.bad.split_once(':').map(|(k, _)| k) {
        Some("name") => text.replacen("name: pdf\n", "", 1),
        Some("description") => text.replacen("description: Extract text from PDF files.\n", "", 1),
        _ => text,
    }
}

#[test]
fn every_row_of_the_table_has_a_case_citing_the_same_source() {
    let cases = cases();
    for row in agents::FIELDS {
        let c = cases.iter().find(|c| c.agent == row.agent && c.field == row.field);
        let c = c.unwrap_or_else(|| panic!("no case for {} {}", row.agent.id(), row.field));
        assert_eq!(row.cite, c.cite, "{} {}", row.agent.id(), row.field);
        assert!(row.cite.starts_with("https://") || row.cite.starts_with("github.com/"), "{}", row.cite);
    }
    assert_eq!(cases.len(), agents::FIELDS.len(), "a case for a row the table lacks");
}

#[test]
fn each_agent_accepts_its_good_values_and_refuses_its_bad_ones() {
    for c in cases() {
        let who = format!("{} {}", c.agent.id(), c.field);
        let good = for_agent(c.agent, c.good);
        assert!(good.diagnostics.is_empty(), "{who}: {:#?}", good.diagnostics);

        let bad = validate_text_for(&bad_doc(&c), OPTS, Some(c.agent));
        let d = bad.diagnostics.iter().find(|d| d.code == c.code);
        let d = d.unwrap_or_else(|| panic!("{who}: no {:?} in {:#?}", c.code, bad.diagnostics));
        assert_eq!(d.severity, Error, "{who}: {d}");
        assert!(!bad.is_valid(), "{who}");
        if matches!(c.code, FieldValueInvalid) || (c.code == FieldTypeInvalid && d.args.get("read_by").is_some()) {
            assert!(d.message.contains(c.cite), "{who}: the message cites the source: {}", d.message);
            assert_eq!(d.args.get("read_by"), Some(c.agent.id()), "{who}");
        }
        assert!(d.line.is_some(), "{who}: {d}");
    }
}

#[test]
fn lenient_validation_names_the_agents_and_only_warns_about_their_values() {
    for c in cases() {
        let who = format!("{} {}", c.agent.id(), c.field);
        let good = validate_text(&doc(c.good), OPTS);
        assert!(good.is_valid(), "{who}: {:#?}", good.diagnostics);
        assert!(
            !good.diagnostics.iter().any(|d| d.message.contains("not a known field")),
            "{who}: a known field is never unknown: {:#?}",
            good.diagnostics
        );
        let bad = validate_text(&bad_doc(&c), OPTS);
        let d = bad.diagnostics.iter().find(|d| d.code == c.code);
        assert!(d.is_some(), "{who}: {:#?}", bad.diagnostics);
        // What only an agent reads never makes the skill invalid for Skilldeck.
        if d.and_then(|d| d.args.get("read_by")).is_some() {
            assert_eq!(d.map(|d| d.severity), Some(Warning), "{who}");
        }
    }
}

#[test]
fn lenient_says_who_reads_a_field_instead_of_unknown() {
    let v = validate_text(&doc("model: sonnet\nauthor: me\nwhen_to_use: x\n"), OPTS);
    let said: Vec<(DiagCode, &str, Option<&str>)> =
        v.diagnostics.iter().map(|d| (d.code, d.message.as_str(), d.args.get("read_by"))).collect();
    assert_eq!(said.len(), 2, "{said:#?}");
    assert_eq!(said[0].0, FieldUnknown);
    assert!(said[0].1.contains("read by Claude Code"), "{}", said[0].1);
    assert_eq!(said[0].2, Some("claude-code"));
    assert_eq!(said[1].0, FieldUnknown);
    assert!(said[1].1.contains("not a known field"), "{}", said[1].1);
    // Read by three agents, one check: one diagnostic naming all three.
    let v = validate_text(&doc("disable-model-invocation: 1\n"), OPTS);
    assert_eq!(v.diagnostics.len(), 1, "{:#?}", v.diagnostics);
    assert_eq!(v.diagnostics[0].args.get("read_by"), Some("claude-code,copilot,cursor"));
    assert!(
        v.diagnostics[0].message.contains("Claude Code, GitHub Copilot and Cursor read it"),
        "{}",
        v.diagnostics[0].message
    );
}

#[test]
fn for_an_agent_the_fields_it_ignores_are_warnings_naming_who_reads_them() {
    let v = for_agent(Codex, "model: sonnet\nallowed-tools: Read\nlicense: MIT\nversion: \"2\"\nauthor: me\n");
    let ignored: Vec<(&str, Option<&str>)> = v
        .diagnostics
        .iter()
        .map(|d| {
            assert_eq!((d.code, d.severity), (FieldIgnored, Warning), "{d}");
            assert_eq!(d.args.get("agent"), Some("codex"));
            (d.args.get("field").unwrap_or_default(), d.args.get("read_by"))
        })
        .collect();
    // `license` only informs: no agent loses anything by not reading it.
    assert_eq!(
        ignored,
        vec![
            ("model", Some("claude-code")),
            ("allowed-tools", Some("claude-code")),
            ("version", None),
            ("author", None)
        ]
    );
    assert!(v.is_valid());
    assert!(v.diagnostics[2].message.contains("Skilldeck reads it"), "{}", v.diagnostics[2].message);
}

const CLAUDE_SKILL: &str = "---\nname: pdf\ndescription: Extract text from PDF files.\nwhen_to_use: When a PDF is \
    attached\nargument-hint: [file]\narguments: file\ndisable-model-invocation: false\nuser-invocable: true\n\
    allowed-tools: Bash(pdftotext:*) Read\nmodel: sonnet\neffort: high\ncontext: fork\nagent: general-purpose\n\
    paths:\n  - \"**/*.pdf\"\nshell: bash\nhooks:\n  PostToolUse:\n    - matcher: Write\n      hooks:\n        - \
    type: command\n          command: ./lint.sh\n---\n\nRun `${CLAUDE_SKILL_DIR}/scripts/extract.sh $file`.\n";

#[test]
fn a_correct_claude_code_skill_passes_for_claude_code_and_strict_is_unchanged() {
    let v = validate_text_for(CLAUDE_SKILL, OPTS, Some(ClaudeCode));
    assert!(v.diagnostics.is_empty(), "{:#?}", v.diagnostics);
    // `spec` is the agentskills.io rules exactly, as `--strict` always was: every Claude Code
    // field is outside the spec.
    let strict = validate_text(CLAUDE_SKILL, ValidateOptions { strict: true, ..OPTS });
    let unknown: Vec<&str> = strict
        .diagnostics
        .iter()
        .filter(|d| d.code == FieldUnknown && d.severity == Error)
        .filter_map(|d| d.args.get("field"))
        .collect();
    assert_eq!(unknown.len(), 12, "{unknown:?}");
    assert_eq!(strict.diagnostics.len(), 12, "{:#?}", strict.diagnostics);
    // The same skill for Gemini CLI: valid, with each Claude Code field said to be ignored.
    let gemini = validate_text_for(CLAUDE_SKILL, OPTS, Some(Gemini));
    assert!(gemini.is_valid());
    assert_eq!(gemini.diagnostics.iter().filter(|d| d.code == FieldIgnored).count(), 13, "{:#?}", gemini.diagnostics);
}

#[test]
fn agent_without_a_forked_context_is_said_to_do_nothing() {
    let v = for_agent(ClaudeCode, "agent: Explore\n");
    assert_eq!(v.diagnostics.len(), 1);
    assert_eq!((v.diagnostics[0].code, v.diagnostics[0].severity), (FieldValueInvalid, Warning));
}

#[test]
fn agent_ids_parse_and_the_valid_names_are_listed() {
    for a in Agent::ALL {
        assert_eq!(Agent::parse(a.id()), Some(a));
        assert!(!a.source().is_empty());
    }
    assert_eq!(Agent::parse("Claude"), Some(ClaudeCode));
    assert_eq!(Agent::parse("windsurf"), None);
    assert_eq!(agents::valid_targets(), "spec, claude-code, codex, gemini, copilot, cursor");
}

#[test]
fn skilldeck_reads_the_fields_it_honours() {
    let meta = |extra: &str| validate_text(&doc(extra), OPTS).meta;
    assert!(meta("").model_invocable());
    assert!(!meta("disable-model-invocation: true\n").model_invocable());
    assert!(!meta("disable-model-invocation: \"true\"\n").model_invocable(), "quoted: hiding is the safe reading");
    assert!(meta("disable-model-invocation: false\n").model_invocable());
    assert!(meta("").user_invocable());
    assert!(!meta("user-invocable: false\n").user_invocable());
    assert!(!meta("user-invokable: false\n").user_invocable(), "Copilot's spelling");
    assert_eq!(meta("when_to_use: When a PDF is attached\n").when_to_use().as_deref(), Some("When a PDF is attached"));
    assert_eq!(meta("when_to_use: [a]\n").when_to_use(), None);
}

#[test]
fn codex_openai_yaml_is_checked_as_codex_reads_it() {
    let good = "interface:\n  display_name: PDF tools\n  short_description: Extract text\n  icon_small: ./assets/icon.png\n  \
                brand_color: \"#1A2B3C\"\n  default_prompt: Extract the tables\ndependencies:\n  tools:\n    - type: mcp\n      \
                value: github\n      transport: stdio\n      command: gh-mcp\npolicy:\n  allow_implicit_invocation: false\n";
    assert_eq!(codex_yaml::check(good), vec![]);
    let check = |text: &str| -> Vec<(DiagCode, String)> {
        codex_yaml::check(text)
            .into_iter()
            .map(|d| {
                assert_eq!(d.severity, Warning, "Codex fails open: {d}");
                assert_eq!(d.args.get("file"), Some(codex_yaml::PATH));
                (d.code, d.args.get("field").unwrap_or_default().to_owned())
            })
            .collect()
    };
    let field = |f: &str| (FieldValueInvalid, f.to_owned());
    assert_eq!(
        check("policy:\n  allow_implicit_invocation: \"no\"\n"),
        vec![field("policy.allow_implicit_invocation")]
    );
    assert_eq!(check("interface:\n  brand_color: red\n"), vec![field("interface.brand_color")]);
    assert_eq!(check("interface:\n  icon_large: ../icon.png\n"), vec![field("interface.icon_large")]);
    assert_eq!(check("dependencies:\n  tools:\n    - type: mcp\n"), vec![field("dependencies.tools[0].value")]);
    assert_eq!(check("theme: dark\n"), vec![(FieldIgnored, "theme".to_owned())]);
    assert_eq!(check("interface: [a\n"), vec![field("the file")]);
    let long = format!("interface:\n  display_name: {}\n", "x".repeat(65));
    assert_eq!(check(&long), vec![field("interface.display_name")]);
    assert!(codex_yaml::check("interface: 3\n")[0].message.contains("ignores the whole file"));
}
