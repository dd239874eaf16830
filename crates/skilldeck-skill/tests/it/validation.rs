//! Data-driven validation cases: good skills and real-world messes, compared as whole values.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_skill::DiagCode::{self, *};
use skilldeck_skill::Severity::{self, Error, Warning};
use skilldeck_skill::validate::{ValidateOptions, validate_bytes, validate_text};

/// Validates `text` in folder `dir` and compares every diagnostic as `(code, severity, line)`.
fn check(dir: &str, text: &str, strict: bool, expected: &[(DiagCode, Severity, Option<u32>)]) {
    let v = validate_text(text, ValidateOptions { strict, dir_name: Some(dir), app_version: "1.4.0" });
    let got: Vec<_> = v.diagnostics.iter().map(|d| (d.code, d.severity, d.line)).collect();
    assert_eq!(got, expected, "for {text:?}: {:#?}", v.diagnostics);
}

const BODY: &str = "\n# Use\n\nDo the thing.\n";

fn doc(front: &str) -> String {
    format!("---\n{front}---\n{BODY}")
}

#[test]
fn good_skills() {
    check("pdf", &doc("name: pdf\ndescription: Extract text and tables from PDF files\n"), false, &[]);
    check(
        "pdf",
        &doc(
            "name: pdf\ndescription: Extract text\nlicense: MIT\nallowed-tools: Bash(git diff:*) Read\nmetadata:\n  author: me\n",
        ),
        true,
        &[],
    );
    check(
        "pdf",
        &doc(
            "name: pdf\ndescription: Extract text\ndescription_zh: 从 PDF 中提取文本\nversion: 1.10\nmin_tier: lite\ncompatibility: \">=1.0\"\n",
        ),
        false,
        &[],
    );
}

#[test]
fn frontmatter_shape() {
    check("pdf", "# Just markdown\n", false, &[(FrontmatterMissing, Error, Some(1))]);
    check("pdf", "", false, &[(FrontmatterMissing, Error, Some(1))]);
    check("pdf", "---\nname: pdf\ndescription: x\n", false, &[(FrontmatterUnclosed, Error, Some(1))]);
    check("pdf", "---\n- a\n- b\n---\nbody\n", false, &[(YamlNotMapping, Error, Some(2))]);
    check("pdf", "---\n---\nbody\n", false, &[(NameMissing, Error, Some(2)), (DescriptionMissing, Error, Some(2))]);
    check("pdf", "---\nname: pdf\ndescription: x\n---\n", false, &[(BodyEmpty, Warning, None)]);
}

#[test]
fn real_world_messes() {
    // CRLF line ends and a BOM read the same as LF.
    check("pdf", "\u{feff}---\r\nname: pdf\r\ndescription: Extract text\r\n---\r\nbody\r\n", false, &[]);
    // Tabs in indentation are read as spaces.
    check("pdf", "---\nname: pdf\ndescription: x\nmetadata:\n\tauthor: me\n---\nbody\n", false, &[]);
    // An unquoted colon is recovered with a warning; strict mode refuses it.
    let colon = doc("name: pdf\ndescription: Use when: the user has a PDF\n");
    check("pdf", &colon, false, &[(YamlRecovered, Warning, Some(3))]);
    let v = validate_text(&colon, ValidateOptions::default());
    assert_eq!(v.meta.description.as_deref(), Some("Use when: the user has a PDF"));
    check("pdf", &colon, true, &[(YamlInvalid, Error, Some(3))]);
    // A stray `*` at the start of a value is an alias to YAML; recovered the same way.
    check("pdf", &doc("name: pdf\ndescription: *Important* tool\n"), false, &[(YamlRecovered, Warning, Some(3))]);
    // YAML that cannot be repaired reports its line.
    check("pdf", &doc("name: pdf\ndescription: [unclosed\n"), false, &[(YamlInvalid, Error, Some(3))]);
    // A number or list where text belongs.
    check("pdf", &doc("name: 123\ndescription: x\n"), false, &[(NameInvalid, Error, Some(2))]);
    check("pdf", &doc("name: [pdf]\ndescription: x\n"), false, &[(NameInvalid, Error, Some(2))]);
    check("pdf", &doc("name: pdf\ndescription:\n  - a\n"), false, &[(FieldTypeInvalid, Error, Some(3))]);
    check("pdf", &doc("name: pdf\ndescription:\n"), false, &[(DescriptionMissing, Error, Some(3))]);
    check("pdf", &doc("name: pdf\ndescription: \"   \"\n"), false, &[(DescriptionMissing, Error, Some(3))]);
}

#[test]
fn chinese_descriptions() {
    let v = validate_text(
        &doc("name: pdf\ndescription: Extract text\ndescription_zh: 提取 PDF 文本\n"),
        ValidateOptions::default(),
    );
    assert_eq!(v.meta.description_zh.as_deref(), Some("提取 PDF 文本"));
    assert!(v.diagnostics.is_empty());
    check(
        "pdf",
        &doc("name: pdf\ndescription: 从 PDF 文件中提取文本和表格\n"),
        false,
        &[(DescriptionNotEnglish, Warning, Some(3))],
    );
}

#[test]
fn field_rules() {
    check(
        "pdf-x",
        &doc("name: PDF\ndescription: x\n"),
        false,
        &[(NameInvalid, Error, Some(2)), (NameDirMismatch, Error, Some(2))],
    );
    check("a--b", &doc("name: a--b\ndescription: x\n"), false, &[(NameInvalid, Error, Some(2))]);
    let long = "a".repeat(65);
    check(&long, &doc(&format!("name: {long}\ndescription: x\n")), false, &[(NameTooLong, Error, Some(2))]);
    check("other", &doc("name: pdf\ndescription: x\n"), false, &[(NameDirMismatch, Error, Some(2))]);
    check("pdf", &doc("description: x\n"), false, &[(NameMissing, Error, Some(2))]);
    // Given but empty: at its line, and said once in strict mode too.
    check("pdf", &doc("description: x\nname:\n"), true, &[(NameMissing, Error, Some(3))]);
    check(
        "pdf",
        &doc(&format!("name: pdf\ndescription: {}\n", "word ".repeat(210))),
        false,
        &[(DescriptionTooLong, Error, Some(3))],
    );
    check(
        "pdf",
        &doc(&format!("name: pdf\ndescription: x\nversion: 1.0.0-{}\n", "a".repeat(27))),
        false,
        &[(VersionTooLong, Error, Some(4))],
    );
    check(
        "pdf",
        &doc(&format!("name: pdf\ndescription: x\ncompatibility: {}\n", "c".repeat(501))),
        false,
        &[(CompatibilityTooLong, Error, Some(4))],
    );
    // A bare range in a skill not written for Skilldeck means another host: shown, not checked.
    check("pdf", &doc("name: pdf\ndescription: x\ncompatibility: \">=2.0\"\n"), false, &[]);
    check("pdf", &doc("name: pdf\ndescription: x\ncompatibility: Claude Code 1.x\n"), false, &[]);
    check("pdf", &doc("name: pdf\ndescription: x\nmin_tier: mega\n"), false, &[(MinTierInvalid, Error, Some(4))]);
    check(
        "pdf",
        &doc("name: pdf\ndescription: x\nallowed-tools: Bash(git:*) 9bad\n"),
        false,
        &[(AllowedToolsInvalid, Error, Some(4))],
    );
    check("pdf", &doc("name: pdf\ndescription: x\nmetadata: nope\n"), false, &[(FieldTypeInvalid, Error, Some(4))]);
    check(
        "pdf",
        &doc("name: pdf\ndescription: x\nmetadata:\n  aibuddy:\n    dependencies:\n      python: pandas\n"),
        false,
        &[(DependenciesInvalid, Warning, Some(4))],
    );
}

#[test]
fn parsed_fields() {
    let text = doc(
        "name: pdf\ndescription: x\nversion: 1.10\nallowed-tools: \"Bash(git diff:*) Read, Write\"\nmin_tier: ultra\nmetadata:\n  aibuddy:\n    dependencies:\n      python: [pypdf, pandas]\n      node: [pdfjs-dist]\nauthor: me\n",
    );
    let v = validate_text(&text, ValidateOptions::default());
    assert_eq!(v.meta.version.as_deref(), Some("1.10"), "numbers are taken as written");
    assert_eq!(v.meta.allowed_tools, vec!["Bash(git diff:*)", "Read", "Write"]);
    assert_eq!(v.meta.min_tier, Some(skilldeck_skill::Tier::Ultra));
    assert_eq!(v.meta.dependencies.python, vec!["pypdf", "pandas"]);
    assert_eq!(v.meta.dependencies.node, vec!["pdfjs-dist"]);
    assert_eq!(v.meta.extra.get("author").map(|a| a.value()), Some(serde_json::json!("me")));
}

#[test]
fn unknown_fields_warn_and_strict_refuses() {
    let text = doc("name: pdf\ndescription: x\nauthor: me\ntags: [a, b]\n");
    check("pdf", &text, false, &[(FieldUnknown, Warning, Some(4)), (FieldUnknown, Warning, Some(5))]);
    check("pdf", &text, true, &[(FieldUnknown, Error, Some(4)), (FieldUnknown, Error, Some(5))]);
    // Skilldeck's own fields are fine by default and outside the agentskills.io format in strict mode.
    let ours = doc("name: pdf\ndescription: x\nversion: \"2\"\nmin_tier: lite\n");
    check("pdf", &ours, false, &[]);
    check("pdf", &ours, true, &[(FieldUnknown, Error, Some(4)), (FieldUnknown, Error, Some(5))]);
}

#[test]
fn missing_and_binary_skill_md() {
    let codes = |b: Option<&[u8]>| {
        validate_bytes(b, ValidateOptions::default()).diagnostics.iter().map(|d| d.code).collect::<Vec<_>>()
    };
    assert_eq!(codes(None), vec![SkillMdMissing]);
    assert_eq!(codes(Some(b"---\nname: \xff\xfe\n---\n")), vec![SkillMdNotUtf8]);
}

/// A diagnostic as compared: `(code, severity, line)`.
type Expected = (DiagCode, Severity, Option<u32>);

/// Frontmatter built to exhaust the parser, each with the one diagnostic it must get (code,
/// severity, line): a bounded pre-scan refuses it before the YAML parser sees it.
fn hostile_cases() -> Vec<(&'static str, String, Vec<Expected>)> {
    let head = "name: pdf\ndescription: x\n";
    let nested = |open: &str, close: &str, n: usize| format!("{head}metadata: {}{}\n", open.repeat(n), close.repeat(n));
    let mut block = String::from(head);
    for i in 0..40 {
        block.push_str(&format!("{}k{i}:\n", " ".repeat(i)));
    }
    // A billion laughs: each level repeats the one before nine times.
    let mut bomb = format!("{head}a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..12 {
        let p = i - 1;
        bomb.push_str(&format!("a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"));
    }
    // A few aliases of one large anchor.
    let mut wide = format!("{head}big: &big [{}]\n", "x, ".repeat(2000));
    for i in 0..12 {
        wide.push_str(&format!("copy{i}: *big\n"));
    }
    let to_the_cap = format!("{head}m: {}\n", "[".repeat(16_000));
    let issue_8 = format!("{head}m: {}\n", "[".repeat(65_500 - head.len() - 4));
    vec![
        ("flow [ nesting", nested("[", "]", 5000), vec![(YamlTooDeep, Error, Some(4))]),
        ("flow { nesting", nested("{a: ", "}", 3000), vec![(YamlTooDeep, Error, Some(4))]),
        ("unclosed [ to the cap", to_the_cap, vec![(YamlTooDeep, Error, Some(4))]),
        ("block indentation", block, vec![(YamlTooDeep, Error, Some(36))]),
        ("compact - entries", format!("{head}m:\n{}x\n", "- ".repeat(100)), vec![(YamlTooDeep, Error, Some(5))]),
        ("flow lines", format!("{head}m:\n{}", "- [\n".repeat(40)), vec![(YamlTooDeep, Error, Some(36))]),
        ("billion laughs", bomb, vec![(YamlTooManyAliases, Error, Some(8))]),
        ("wide aliases", wide, vec![(YamlTooManyAliases, Error, Some(13))]),
        // The 65,500-byte frontmatter of issue 8, and a 10 MB one: refused unparsed.
        ("64 KB of [", issue_8, vec![(FrontmatterTooLarge, Error, Some(2))]),
        ("10 MB", format!("{head}pad: \"{}\"\n", "x".repeat(10 << 20)), vec![(FrontmatterTooLarge, Error, Some(2))]),
    ]
}

#[test]
fn hostile_yaml_gets_its_diagnostic_not_a_hang() {
    for (label, front, expected) in hostile_cases() {
        for strict in [false, true] {
            let opts = ValidateOptions { strict, dir_name: Some("pdf"), app_version: "1.4.0" };
            let v = validate_text(&doc(&front), opts);
            let got: Vec<_> = v.diagnostics.iter().map(|d| (d.code, d.severity, d.line)).collect();
            assert_eq!(got, expected, "{label}: {:#?}", v.diagnostics);
        }
    }
}

#[test]
fn hostile_yaml_messages_say_what_is_wrong_and_what_to_do() {
    let messages: Vec<String> = hostile_cases()
        .into_iter()
        .filter(|(label, ..)| ["flow [ nesting", "billion laughs", "64 KB of ["].contains(label))
        .map(|(_, front, _)| validate_text(&doc(&front), ValidateOptions::default()).diagnostics[0].message.clone())
        .collect();
    assert_eq!(
        messages,
        vec![
            "the frontmatter nests lists and mappings more than 32 levels deep, so it was not parsed; flatten it to \
             the few levels real fields need",
            "the frontmatter's aliases (`*name`) would expand to more than 20000 values, so it was not parsed; write \
             the values out instead of repeating them with `&`/`*`",
            "the frontmatter is 65500 bytes; the limit is 16384 bytes, so it was not parsed; keep a few short fields \
             there and move long text into the body or references/",
        ]
    );
}

/// Real frontmatter: nested metadata, flow and block lists, brackets, quotes, `*`, `&` and `#`
/// inside text, block scalars, multi-line plain text and a few aliases — nothing to refuse.
const NESTED: &str = r#"name: pdf
description: "Use when: the user has [a PDF] {or two}; it's *bold* & fast"
license: 'MIT [or not] ''quoted'''
allowed-tools: Bash(git:*) Read
metadata:
  author: me # a comment with [ and {
  tags: [pdf, 'a [b', "c {d", e*f]
  notes: |
    [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[ not structure
    {{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{ nor this
  summary: a long plain text that goes on
    [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[ and on,
    it's *still* text & more
  defaults: &defaults {retries: 3, timeout: 10}
  primary: *defaults
  backup: *defaults
  aibuddy:
    dependencies:
      python: [pdfplumber, pandas]
      node:
        - pdf-parse
        - sharp
  deep: [[[[[[[[[[[[[[[[[[[[[[[[[x]]]]]]]]]]]]]]]]]]]]]]]]]
"#;

#[test]
fn nested_metadata_and_text_that_looks_like_structure_still_parse() {
    check("pdf", &doc(NESTED), false, &[]);
    let v = validate_text(&doc(NESTED), ValidateOptions { dir_name: Some("pdf"), ..ValidateOptions::default() });
    assert_eq!(v.meta.dependencies.python, vec!["pdfplumber", "pandas"]);
    assert_eq!(v.meta.dependencies.node, vec!["pdf-parse", "sharp"]);
    assert_eq!(v.meta.license.as_deref(), Some("MIT [or not] 'quoted'"));
    let m = v.meta.metadata.unwrap().value();
    assert_eq!(m["primary"], serde_json::json!({"retries": 3, "timeout": 10}));
    assert_eq!(m["backup"], m["primary"]);
    assert_eq!(m["tags"], serde_json::json!(["pdf", "a [b", "c {d", "e*f"]));
    // An unquoted `*` or `&` at the start of a value is still recovered, not refused.
    let stray = doc("name: pdf\ndescription: *bold* claims & more\n");
    check("pdf", &stray, false, &[(YamlRecovered, Warning, Some(3))]);
    let anchored = validate_text(&doc("name: pdf\ndescription: &more tools\n"), ValidateOptions::default());
    assert_eq!(anchored.meta.description.as_deref(), Some("&more tools"));
}

#[test]
fn every_code_has_a_fix_and_a_stable_name() {
    let json = serde_json::to_string(&NameDirMismatch).unwrap();
    assert_eq!(json, "\"name_dir_mismatch\"");
    assert_eq!(NameDirMismatch.as_str(), "name_dir_mismatch");
    assert!(!NameDirMismatch.fix().is_empty());
}

/// A diagnostic as compared by message: `(code, line, message)`.
type Said = (DiagCode, u32, &'static str);

/// Validates `front` as the frontmatter of skill `pdf` and compares every diagnostic as
/// `(code, line, message)`.
fn check_messages(front: &str, strict: bool, expected: &[Said]) {
    let opts = ValidateOptions { strict, dir_name: Some("pdf"), app_version: "1.4.0" };
    let v = validate_text(&doc(front), opts);
    let got: Vec<_> = v.diagnostics.iter().map(|d| (d.code, d.line.unwrap_or(0), d.message.as_str())).collect();
    assert_eq!(got, expected, "for {front:?} (strict: {strict})");
}

const STAR: &str = "the value of `description` starts with `*`, which YAML reads as an alias (a reference to an \
                    `&anchor`); a value that starts with `*` must be in quotes";

#[test]
fn yaml_errors_are_said_in_our_words_at_the_right_line() {
    let cases: Vec<(&str, bool, Vec<Said>)> = vec![
        ("name: pdf\ndescription: **bold** tool\n", true, vec![(YamlInvalid, 3, STAR)]),
        (
            "name: pdf\ndescription: @mention the tool\n",
            true,
            vec![(
                YamlInvalid,
                3,
                "the value of `description` starts with `@`, which YAML reads as a reserved character; a value that \
                 starts with `@` must be in quotes",
            )],
        ),
        (
            "name: pdf\ndescription: x\nmetadata:\n  tags:\n    - `code`\n",
            true,
            vec![(
                YamlInvalid,
                6,
                "this value starts with `` ` ``, which YAML reads as a reserved character; a value that starts with \
                 `` ` `` must be in quotes",
            )],
        ),
        (
            "name: pdf\ndescription: |bold claims\n",
            false,
            vec![(
                YamlInvalid,
                3,
                "the value of `description` starts with `|`, which YAML reads as the start of a block of text on \
                 the lines below; a value that starts with `|` must be in quotes",
            )],
        ),
        // An unclosed quote is reported where it opens, not where the text ends.
        (
            "name: pdf\ndescription: \"Extract text\nlicense: MIT\nversion: 1\n",
            false,
            vec![(
                YamlInvalid,
                3,
                "the \" that opens the value of `description` is never closed; add the closing \" at the end of \
                 the value",
            )],
        ),
        (
            "name: pdf\ndescription: 'it's a tool'\nlicense: MIT\n",
            false,
            vec![(
                YamlInvalid,
                3,
                "the value of `description` is in ' quotes and holds a ' of its own, which ends it early; write \
                 that ' as '', or quote the value with \" instead",
            )],
        ),
        // An unquoted `: ` as strict mode reads it (lenient recovers it), and on a continuation.
        (
            "name: pdf\ndescription: Use when: the user has a PDF\n  or two\n",
            true,
            vec![(
                YamlInvalid,
                3,
                "the value of `description` holds `: `, which YAML reads as the start of another field; put the \
                 whole value in double quotes",
            )],
        ),
        (
            "name: pdf\ndescription: Extract text\n  Use when: the user has a PDF\n",
            false,
            vec![(
                YamlInvalid,
                4,
                "this line is indented under `description`, so YAML reads it as more of that value, where `: ` is \
                 not allowed; remove the indentation if it is a field of its own, or put the whole value in double \
                 quotes",
            )],
        ),
        // A tab before a field makes it part of the value above.
        (
            "name: pdf\ndescription: x\n\tlicense: MIT\n",
            false,
            vec![(
                YamlInvalid,
                4,
                "this line is indented with a tab, which puts it at a different depth than the lines around it; \
                 indent with spaces only",
            )],
        ),
        // A duplicated key is reported at its second place, naming the first.
        (
            "name: pdf\ndescription: x\nname: pdf\n",
            false,
            vec![(YamlInvalid, 4, "`name` is given twice (first on line 2); keep one")],
        ),
        (
            "name: pdf\ndescription: x\nmetadata:\n  author: me\n  tags: [a]\n  author: you\n",
            false,
            vec![(YamlInvalid, 7, "`metadata.author` is given twice (first on line 5); keep one")],
        ),
        // An unclosed `[` is reported where it opens.
        (
            "name: pdf\ndescription: x\nmetadata:\n  tags: [a, b\nlicense: MIT\n",
            false,
            vec![(
                YamlInvalid,
                5,
                "the `[` that opens the value of `tags` is never closed with `]`; close it, or put the value in \
                 quotes if the `[` is text",
            )],
        ),
        (
            "name: pdf\ndescription: x\nmetadata:\n    author: me\n  tags: a\n",
            false,
            vec![(
                YamlInvalid,
                6,
                "this line is indented by 2 spaces, which matches none of the fields above it; line it up with the \
                 fields it belongs with",
            )],
        ),
        // Recovered values say why, at their line.
        (
            "name: pdf\ndescription: **bold** tool\n",
            false,
            vec![(
                YamlRecovered,
                3,
                "the value of `description` starts with `*`, which YAML reads as an alias (a reference to an \
                 `&anchor`); Skilldeck read it as text, but other tools may not — put the whole value in double \
                 quotes",
            )],
        ),
        (
            "name: pdf\ndescription: Use when: the user has a PDF\n",
            false,
            vec![(
                YamlRecovered,
                3,
                "the value of `description` holds `: `, which YAML reads as the start of another field; Skilldeck \
                 read it as text, but other tools may not — put the whole value in double quotes",
            )],
        ),
        // An anchor or tag before words parses, but loses the words: read as text instead.
        (
            "name: pdf\ndescription: &more tools for PDFs\n",
            false,
            vec![(
                YamlRecovered,
                3,
                "the value of `description` starts with `&`, which YAML reads as an anchor name; Skilldeck read it \
                 as text, but other tools may not — put the whole value in double quotes",
            )],
        ),
        (
            "name: pdf\ndescription: &more tools for PDFs\n",
            true,
            vec![(
                YamlInvalid,
                3,
                "the value of `description` starts with `&`, which YAML reads as an anchor name; a value that \
                 starts with `&` must be in quotes",
            )],
        ),
        ("name: pdf\ndescription: x\nversion: !!str 1.0\n", false, vec![]),
        // What no rule knows keeps the parser's words at the parser's line.
        (
            "name: pdf\ndescription: x\n- y\n",
            false,
            vec![(YamlInvalid, 4, "the frontmatter is not valid YAML: did not find expected key")],
        ),
    ];
    for (front, strict, expected) in cases {
        check_messages(front, strict, &expected);
    }
}

/// Validates `text` in folder `dir` with the given strictness.
fn run(dir: &str, text: &str, strict: bool) -> skilldeck_skill::validate::Validated {
    validate_text(text, ValidateOptions { strict, dir_name: Some(dir), app_version: "1.4.0" })
}

/// Each rule of the agentskills.io table with one frontmatter that keeps it and one that breaks
/// it: `(rule id, folder, valid, invalid)`. Fields not under test are the minimal valid ones.
fn conformance_cases() -> Vec<(&'static str, &'static str, String, String)> {
    let base = "name: pdf\ndescription: Extract text from PDFs. Use when the user has a PDF.\n";
    let with = |extra: &str| doc(&format!("{base}{extra}"));
    let named = |name: &str| doc(&format!("name: {name}\ndescription: Extract text.\n"));
    vec![
        ("frontmatter.present", "pdf", doc(base), format!("{base}{BODY}")),
        ("frontmatter.fields", "pdf", with("license: MIT\n"), with("author: me\n")),
        ("name.required", "pdf", doc(base), doc("description: Extract text.\n")),
        ("name.text", "pdf", named("pdf"), named("123")),
        ("name.min", "pdf", named("pdf"), named("\"\"")),
        ("name.max", "a", named("a"), named(&"a".repeat(65))),
        ("name.chars", "pdf-processing", named("pdf-processing"), named("PDF-Processing")),
        ("name.edges", "pdf", named("pdf"), named("-pdf")),
        ("name.consecutive", "pdf-processing", named("pdf-processing"), named("pdf--processing")),
        ("name.folder", "pdf", named("pdf"), named("other")),
        ("description.required", "pdf", doc(base), doc("name: pdf\n")),
        ("description.text", "pdf", doc(base), doc("name: pdf\ndescription: [a, b]\n")),
        ("description.not-empty", "pdf", doc(base), doc("name: pdf\ndescription: \"  \"\n")),
        (
            "description.max",
            "pdf",
            doc(&format!("name: pdf\ndescription: {}\n", "d".repeat(1024))),
            doc(&format!("name: pdf\ndescription: {}\n", "d".repeat(1025))),
        ),
        ("license.text", "pdf", with("license: Proprietary. LICENSE.txt has complete terms\n"), with("license: 2\n")),
        (
            "compatibility.text",
            "pdf",
            with("compatibility: Requires git, docker, jq, and access to the internet\n"),
            with("compatibility: 3.14\n"),
        ),
        ("compatibility.min", "pdf", with("compatibility: Designed for Claude Code\n"), with("compatibility: \"\"\n")),
        (
            "compatibility.max",
            "pdf",
            with(&format!("compatibility: {}\n", "c".repeat(500))),
            with(&format!("compatibility: {}\n", "c".repeat(501))),
        ),
        (
            "metadata.string-map",
            "pdf",
            with("metadata:\n  author: example-org\n  version: \"1.0\"\n"),
            with("metadata:\n  author: example-org\n  version: 1.0\n"),
        ),
        (
            "allowed-tools.string",
            "pdf",
            with("allowed-tools: Bash(git:*) Bash(jq:*) Read\n"),
            with("allowed-tools:\n  - Bash(git:*)\n  - Read\n"),
        ),
    ]
}

#[test]
fn strict_mode_is_the_spec_rule_by_rule() {
    let cases = conformance_cases();
    for rule in skilldeck_skill::spec::RULES {
        assert!(cases.iter().any(|(id, ..)| *id == rule.id), "rule {} has no conformance case", rule.id);
    }
    for (id, dir, valid, invalid) in cases {
        let rule = skilldeck_skill::spec::rule(id).unwrap_or_else(|| panic!("no rule {id}"));
        let ok = run(dir, &valid, true);
        assert!(ok.is_valid(), "{id}: the valid example is refused: {:#?}", ok.diagnostics);
        let bad = run(dir, &invalid, true);
        assert!(
            bad.diagnostics.iter().any(|d| d.code == rule.code && d.is_error()),
            "{id}: the invalid example has no {} error: {:#?}",
            rule.code,
            bad.diagnostics
        );
        // What only strict mode enforces, default validation reads and accepts.
        if !rule.everywhere {
            let lenient = run(dir, &invalid, false);
            assert!(lenient.is_valid(), "{id}: default validation refuses {invalid:?}: {:#?}", lenient.diagnostics);
        }
    }
}

#[test]
fn every_spec_rule_quotes_the_spec() {
    for rule in skilldeck_skill::spec::RULES {
        assert!(!rule.says.is_empty() && rule.cite.starts_with('#'), "{}", rule.id);
        let field_known = rule.field == "*" || skilldeck_skill::spec::FIELDS.contains(&rule.field);
        assert!(field_known, "{}: {} is not a spec field", rule.id, rule.field);
    }
}

/// The seed's own shape: dependencies as nested lists under `metadata.aibuddy`.
const SEED: &str = "name: pdf\ndescription: Extract text from PDFs.\nmetadata:\n  author: me\n  aibuddy:\n    \
                    dependencies:\n      python: [pypdf]\n      node:\n        - pdf-parse\n";

#[test]
fn nested_metadata_is_ours_by_default_and_not_portable_in_strict() {
    let lenient = run("pdf", &doc(SEED), false);
    assert_eq!(lenient.diagnostics, vec![]);
    assert_eq!(lenient.meta.dependencies.python, vec!["pypdf"]);
    assert_eq!(lenient.meta.dependencies.node, vec!["pdf-parse"]);
    let strict = run("pdf", &doc(SEED), true);
    let got: Vec<_> = strict.diagnostics.iter().map(|d| (d.code, d.severity, d.line)).collect();
    assert_eq!(got, vec![(MetadataNotPortable, Error, Some(6))]);
    let d = &strict.diagnostics[0];
    assert!(d.message.contains("`metadata.aibuddy` is a mapping, not text, so it is not portable"), "{}", d.message);
    assert_eq!(d.args.get("field"), Some("metadata.aibuddy"));
    assert_eq!(d.args.get("kind"), Some("mapping"));
    // Numbers and true/false are text to the seed, not to the spec: one error each, at its line.
    let scalars = doc("name: pdf\ndescription: x\nmetadata:\n  version: 1.0\n  internal: true\n  owner: me\n");
    check("pdf", &scalars, false, &[]);
    check("pdf", &scalars, true, &[(MetadataNotPortable, Error, Some(5)), (MetadataNotPortable, Error, Some(6))]);
    // A flow mapping on one line is reported at `metadata`.
    check(
        "pdf",
        &doc("name: pdf\ndescription: x\nmetadata: {tags: [a, b]}\n"),
        true,
        &[(MetadataNotPortable, Error, Some(4))],
    );
}

#[test]
fn allowed_tools_as_a_list_is_read_by_default_and_not_portable_in_strict() {
    let text = doc("name: pdf\ndescription: x\nallowed-tools:\n  - Bash(git:*)\n  - Read\n");
    let lenient = run("pdf", &text, false);
    assert_eq!(lenient.diagnostics, vec![]);
    assert_eq!(lenient.meta.allowed_tools, vec!["Bash(git:*)", "Read"]);
    let strict = run("pdf", &text, true);
    let got: Vec<_> = strict.diagnostics.iter().map(|d| (d.code, d.severity, d.line)).collect();
    assert_eq!(got, vec![(AllowedToolsNotPortable, Error, Some(4))]);
    assert!(strict.diagnostics[0].message.contains("`allowed-tools: Bash(git:*) Read`"));
}

#[test]
fn unknown_fields_say_kept_only_where_they_are_kept() {
    let text = doc("name: pdf\ndescription: x\nauthor: me\n");
    let lenient = run("pdf", &text, false);
    assert!(lenient.diagnostics[0].message.contains("kept but ignored"), "{}", lenient.diagnostics[0].message);
    let strict = run("pdf", &text, true);
    let d = &strict.diagnostics[0];
    assert_eq!((d.code, d.severity), (FieldUnknown, Error));
    assert!(!d.message.contains("kept but ignored"), "{}", d.message);
    assert!(d.message.contains("not an agentskills.io field"), "{}", d.message);
    assert_eq!(strict.meta.extra.get("author").map(|a| a.value()), Some(serde_json::json!("me")), "still kept");
}

#[test]
fn compatibility_is_checked_only_when_it_is_about_skilldeck_and_never_invalidates() {
    let compat = |value: &str, extra: &str, app: &str| {
        let text = doc(&format!("name: pdf\ndescription: x\n{extra}compatibility: {value}\n"));
        let v = validate_text(&text, ValidateOptions { strict: false, dir_name: Some("pdf"), app_version: app });
        let strict = validate_text(&text, ValidateOptions { strict: true, dir_name: Some("pdf"), app_version: app });
        assert!(v.is_valid(), "{value}: {:#?}", v.diagnostics);
        let unmet = |v: &skilldeck_skill::validate::Validated| {
            v.diagnostics.iter().filter(|d| d.code == CompatibilityUnmet).map(|d| d.severity).collect::<Vec<_>>()
        };
        assert_eq!(unmet(&v), unmet(&strict), "{value}: strict says the same");
        unmet(&v)
    };
    // Free text and bare ranges in the wild mean another host.
    assert_eq!(compat("\">=1.0.0\"", "", "0.5.0"), vec![]);
    assert_eq!(compat("Claude Code >=2.0", "", "0.5.0"), vec![]);
    assert_eq!(compat("Requires Python 3.14+ and uv", "", "0.5.0"), vec![]);
    // A range that names Skilldeck is checked, and an unmet one is a warning.
    assert_eq!(compat("skilldeck >=2.0", "", "1.4.0"), vec![Warning]);
    assert_eq!(compat("Requires Skilldeck >= 1.2, git and network access", "", "1.4.0"), vec![]);
    assert_eq!(compat("Skilldeck 2.x or Claude Code", "", "1.4.0"), vec![Warning]);
    // The seed's bare range, in a skill written for Skilldeck.
    assert_eq!(compat("\">=2.0\"", "min_tier: lite\n", "1.4.0"), vec![Warning]);
    assert_eq!(compat("\">=2.0\"", "description_zh: 提取文本\n", "1.4.0"), vec![Warning]);
    assert_eq!(compat("\">=1.0\"", "description_zh: 提取文本\n", "1.4.0"), vec![]);
    let v = run("pdf", &doc("name: pdf\ndescription: x\ncompatibility: skilldeck >=9\n"), false);
    let d = v.diagnostics.iter().find(|d| d.code == CompatibilityUnmet).unwrap();
    assert_eq!(d.args.get("range"), Some(">=9"));
    assert_eq!(d.args.get("app_version"), Some("1.4.0"));
}

#[test]
fn values_starting_with_a_star_are_read_as_text_at_any_depth() {
    // `**bold**` over two lines, as many real descriptions are written.
    let text = doc(
        "name: pdf\ndescription: **Extract** text from PDFs,\n  tables too. Use when: a PDF is shared.\nlicense: MIT\n",
    );
    check("pdf", &text, false, &[(YamlRecovered, Warning, Some(3))]);
    let v = run("pdf", &text, false);
    assert_eq!(
        v.meta.description.as_deref(),
        Some("**Extract** text from PDFs, tables too. Use when: a PDF is shared.")
    );
    assert_eq!(v.meta.license.as_deref(), Some("MIT"));
    check("pdf", &text, true, &[(YamlInvalid, Error, Some(3))]);
    // In metadata and in a list, and a real alias is left alone.
    let nested = doc(
        "name: pdf\ndescription: x\nmetadata:\n  base: &b plain\n  note: *Important* read first\n  same: *b\n  tags:\n    - *new* tag\n",
    );
    check("pdf", &nested, false, &[(YamlRecovered, Warning, Some(6)), (YamlRecovered, Warning, Some(9))]);
    let m = run("pdf", &nested, false).meta.metadata.unwrap().value();
    assert_eq!(m["note"], "*Important* read first");
    assert_eq!(m["same"], "plain");
    assert_eq!(m["tags"], serde_json::json!(["*new* tag"]));
    let recovered = &run("pdf", &nested, false).diagnostics[0];
    assert_eq!(recovered.args.get("field"), Some("note"));
}

#[test]
fn json_surrogate_escapes_are_decoded_as_javascript_does() {
    let text = doc("name: pdf\ndescription: \"Anatomy \\ud83e\\udec0 and more \\u00e9\"\n");
    let v = run("pdf", &text, false);
    assert_eq!(v.meta.description.as_deref(), Some("Anatomy \u{1fac0} and more \u{e9}"));
    check("pdf", &text, false, &[(YamlRecovered, Warning, Some(3))]);
    let d = &v.diagnostics[0];
    assert!(d.message.contains("`\\ud83e\\udec0`") && d.message.contains("U+1FAC0"), "{}", d.message);
    assert_eq!(d.args.get("char"), Some("U+1FAC0"));
    // A lone half becomes U+FFFD; the same text in single quotes is literal and untouched.
    let lone = run("pdf", &doc("name: pdf\ndescription: \"half \\ud83e only\"\nlicense: 'MIT \\ud83e'\n"), false);
    assert_eq!(lone.meta.description.as_deref(), Some("half \u{fffd} only"));
    assert_eq!(lone.meta.license.as_deref(), Some("MIT \\ud83e"));
    // Strict mode reads YAML as written, and says where and what.
    let strict = run("pdf", &text, true);
    let got: Vec<_> = strict.diagnostics.iter().map(|d| (d.code, d.line)).collect();
    assert_eq!(got, vec![(YamlInvalid, Some(3))]);
    assert!(strict.diagnostics[0].message.starts_with("the value of `description` holds `\\ud83e\\udec0`"));
}

#[test]
fn loose_fences_are_read_as_meant() {
    // Text after the closing `---` on its line.
    let trailing = "---\nname: pdf\ndescription: x\n--- # Usage\n\nDo the thing.\n";
    check("pdf", trailing, false, &[(FrontmatterRecovered, Warning, Some(4))]);
    check("pdf", trailing, true, &[(FrontmatterUnclosed, Error, Some(1))]);
    assert_eq!(skilldeck_skill::frontmatter::strip(trailing), "# Usage\n\nDo the thing.\n");
    // A frontmatter indented as a block (fences too), as templates in code often leave it.
    let indented = "  ---\n  name: pdf\n  description: Extract text\n  metadata:\n    author: me\n  ---\n\n# Use\n";
    check("pdf", indented, false, &[(FrontmatterRecovered, Warning, Some(1))]);
    let v = run("pdf", indented, false);
    assert_eq!(v.meta.description.as_deref(), Some("Extract text"));
    assert_eq!(v.meta.metadata.map(|m| m.value()), Some(serde_json::json!({"author": "me"})));
    check("pdf", indented, true, &[(FrontmatterMissing, Error, Some(1))]);
    // Fields indented under unindented fences: key lines still known.
    check("pdf", "---\nname: pdf\ndescription: x\n  ---\nbody\n", false, &[(FrontmatterRecovered, Warning, Some(4))]);
    // Fields indented as a block under unindented fences are YAML as written; lines still known.
    let fields_indented = "---\n  name: pdf\n  description: x\n  author: me\n---\nbody\n";
    check("pdf", fields_indented, false, &[(FieldUnknown, Warning, Some(4))]);
    check("other", fields_indented, true, &[(NameDirMismatch, Error, Some(2)), (FieldUnknown, Error, Some(4))]);
    // A horizontal rule of more dashes is not a fence.
    check("pdf", "---\nname: pdf\ndescription: x\n-----\nbody\n", false, &[(FrontmatterUnclosed, Error, Some(1))]);
}

#[test]
fn broken_frontmatter_is_reported_where_the_problem_is() {
    let said = |text: &str| {
        let v = run("pdf", text, false);
        v.diagnostics.iter().map(|d| (d.code, d.line.unwrap_or(0), d.message.clone())).collect::<Vec<_>>()
    };
    // A line with no `: `: at that line, not the one after it.
    let stray = doc("name: pdf\ndescription: Extract text.\nUse when the user has a PDF.\nlicense: MIT\n");
    assert_eq!(
        said(&stray),
        vec![(
            YamlInvalid,
            4,
            "this line is not a `field: value` line (it has no `: `), so YAML cannot read it; if it continues the \
             value of `description`, indent it under that field; if it is instructions, the frontmatter's closing \
             `---` is missing above it"
                .to_owned()
        )]
    );
    // No closing fence at all: at the opening one, naming the last field.
    assert_eq!(
        said("---\nname: pdf\ndescription: x\n\n# Title\n\nText.\n"),
        vec![(
            FrontmatterUnclosed,
            1,
            "the frontmatter opened on line 1 is never closed: no line `---` follows it (read to line 7); add a line \
             `---` after its last field (line 3)"
                .to_owned()
        )]
    );
    // No closing fence, but a horizontal rule later: the body was read as YAML.
    let runs_on = "---\nname: pdf\ndescription: x\n\n# Title\n\nSome words here.\nMore: text\n---\nmore\n";
    assert_eq!(
        said(runs_on),
        vec![(
            FrontmatterUnclosed,
            1,
            "the frontmatter opened on line 1 is not closed before the Markdown: the first `---` after it is on line \
             9, so the heading on line 5 (\"# Title\") and the text after it were read as YAML; add a line `---` \
             after the last field (line 3)"
                .to_owned()
        )]
    );
}

#[test]
fn a_comment_heading_between_fields_is_yaml_not_the_body() {
    let text = doc("name: pdf\n\n# Description\ndescription: Use when: a PDF is shared\n");
    check("pdf", &text, false, &[(YamlRecovered, Warning, Some(5))]);
    check("pdf", &text, true, &[(YamlInvalid, Error, Some(5))]);
}

#[test]
fn diagnostics_carry_args_for_translated_templates() {
    let args = |text: &str, strict: bool| {
        run("pdf", text, strict)
            .diagnostics
            .into_iter()
            .map(|d| (d.code, d.args_map().into_iter().collect::<Vec<_>>()))
            .collect::<Vec<_>>()
    };
    let s = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<Vec<_>>();
    assert_eq!(
        args(&doc("description: x\nauthor: me\n"), false),
        vec![
            (NameMissing, s(&[("field", "name"), ("line", "2")])),
            (FieldUnknown, s(&[("field", "author"), ("line", "3")]))
        ]
    );
    assert_eq!(
        args(&doc(&format!("name: pdf\ndescription: {}\n", "d".repeat(1100))), false),
        vec![(
            DescriptionTooLong,
            s(&[("field", "description"), ("length", "1100"), ("limit", "1024"), ("line", "3")])
        )]
    );
    assert_eq!(
        args(&doc("name: Pdf\ndescription: x\n"), false)[0],
        (NameInvalid, s(&[("char", "P"), ("field", "name"), ("line", "2"), ("reason", "bad_char"), ("value", "Pdf")]))
    );
    assert_eq!(
        args(&doc("name: pdf\ndescription: x\n- y\n"), false),
        vec![(YamlInvalid, s(&[("line", "4"), ("problem", "did not find expected key")]))]
    );
    assert_eq!(
        args(&doc("name: pdf\ndescription: x\nmetadata:\n  n: 1\n"), true),
        vec![(
            MetadataNotPortable,
            s(&[("field", "metadata.n"), ("kind", "number"), ("line", "5"), ("rule", "metadata.string-map")])
        )]
    );
    // In JSON, `args` is an object of strings, left out when empty.
    let body_empty = run("pdf", "---\nname: pdf\ndescription: x\n---\n", false).diagnostics;
    let json = serde_json::to_value(&body_empty).unwrap();
    assert_eq!(
        json,
        serde_json::json!([{"code": "body_empty", "severity": "warning", "message": "SKILL.md has no instructions after the frontmatter", "line": null}])
    );
    let missing = serde_json::to_value(&run("pdf", &doc("description: x\n"), false).diagnostics[0]).unwrap();
    assert_eq!(missing["args"], serde_json::json!({"field": "name", "line": "2"}));
    let back: skilldeck_skill::Diagnostic = serde_json::from_value(json[0].clone()).unwrap();
    assert!(back.args.is_empty());
    // A round trip gives the same diagnostic: `line` in `args` is the diagnostic's own line.
    let d = run("pdf", &doc("description: x\n"), false).diagnostics.remove(0);
    let back: skilldeck_skill::Diagnostic = serde_json::from_value(serde_json::to_value(&d).unwrap()).unwrap();
    assert_eq!(back, d);
}

/// Issue 42, item 4: a description written with YAML escapes holds ESC, BEL or a C1 control
/// that a terminal acts on (`\e]52;c;…\a` writes the clipboard). Strict validation refuses it,
/// naming the character and the line; lenient validation warns; tab and line ends are text.
#[test]
fn control_characters_in_the_description_are_refused_in_strict_mode() {
    let osc52 = doc("name: pdf\ndescription: \"x\\e]52;c;QkFTRTY0\\a\"\n");
    check("pdf", &osc52, true, &[(DescriptionControlChars, Error, Some(3))]);
    check("pdf", &osc52, false, &[(DescriptionControlChars, Warning, Some(3))]);
    let d = run("pdf", &osc52, true).diagnostics.remove(0);
    assert_eq!(d.message.matches("ESC (U+001B, shown as \\e)").count(), 1, "{}", d.message);
    assert!(d.message.contains("at character 2") && d.message.contains("and 1 more"), "{}", d.message);
    assert!(d.message.is_ascii() && !d.message.contains(['\u{1b}', '\u{7}']), "{}", d.message);
    let args: Vec<_> = d.args_map().into_iter().collect();
    let s = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<Vec<_>>();
    assert_eq!(args, s(&[("char", "U+001B"), ("field", "description"), ("line", "3"), ("position", "2")]));
    assert!(DescriptionControlChars.fix().contains("Remove the control character"));
    assert_eq!(DescriptionControlChars.as_str(), "description_control_chars");
    // CSI as one C1 character, a BEL, a DEL, a carriage return alone, a NUL: each refused.
    for escape in ["\\x9b2K", "\\a", "\\x7f", "a\\rb", "\\0", "\\x1b[1A\\x1b[2K"] {
        let text = doc(&format!("name: pdf\ndescription: \"Use it {escape}\"\n"));
        check("pdf", &text, true, &[(DescriptionControlChars, Error, Some(3))]);
    }
    // On a later line of a multi-line value, in `description_zh`, and nowhere else.
    let zh = doc("name: pdf\ndescription: Extract text\ndescription_zh: \"提取\\e[2K\"\n");
    check("pdf", &zh, false, &[(DescriptionControlChars, Warning, Some(4))]);
    // Tabs, line ends (a folded or literal block, CRLF) and non-control Unicode stay valid.
    for fine in [
        "name: pdf\ndescription: \"Tab\\tseparated\\nlines\\r\\nend\"\n",
        "name: pdf\ndescription: |\n  Two\n  lines\n",
        "name: pdf\ndescription: Naïve café ❤️ 日本語 and ünïcödé\n",
    ] {
        check("pdf", &doc(fine), true, &[]);
        check("pdf", &doc(fine), false, &[]);
    }
    // A control character in `name` was refused already, by the name's own rule.
    let name = doc("name: \"p\\edf\"\ndescription: x\n");
    let v = run("p\u{1b}df", &name, true);
    assert!(v.diagnostics.iter().any(|d| d.code == NameInvalid && d.line == Some(2) && d.is_error()));
    for d in &v.diagnostics {
        let shown = format!("{} {:?}", d.message, d.args_map());
        assert!(!d.message.contains('\u{1b}'), "{shown}");
        assert!(d.args.iter().all(|(_, v)| !v.contains('\u{1b}')), "args show the character escaped: {shown}");
    }
}
