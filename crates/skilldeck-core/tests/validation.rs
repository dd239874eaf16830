//! Data-driven validation cases: good skills and real-world messes, compared as whole values.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_core::DiagCode::{self, *};
use skilldeck_core::Severity::{self, Error, Warning};
use skilldeck_core::validate::{ValidateOptions, validate_bytes, validate_text};

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
    check("pdf", &doc("name: pdf\ndescription: [unclosed\n"), false, &[(YamlInvalid, Error, Some(4))]);
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
    check(
        "pdf",
        &doc("name: pdf\ndescription: x\ncompatibility: \">=2.0\"\n"),
        false,
        &[(CompatibilityUnmet, Error, Some(4))],
    );
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
    assert_eq!(v.meta.min_tier, Some(skilldeck_core::Tier::Ultra));
    assert_eq!(v.meta.dependencies.python, vec!["pypdf", "pandas"]);
    assert_eq!(v.meta.dependencies.node, vec!["pdfjs-dist"]);
    assert_eq!(v.meta.extra.get("author"), Some(&serde_json::json!("me")));
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

#[test]
fn hostile_yaml_gets_a_diagnostic_not_a_hang() {
    // Deep nesting.
    let deep = format!("name: pdf\ndescription: x\nmetadata: {}{}\n", "[".repeat(5000), "]".repeat(5000));
    let v = validate_text(&doc(&deep), ValidateOptions::default());
    assert!(v.diagnostics.iter().any(|d| d.code == YamlInvalid), "{:?}", v.diagnostics);
    // A billion-laughs alias bomb.
    let mut bomb = String::from("name: pdf\ndescription: x\na0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..12 {
        let p = i - 1;
        bomb.push_str(&format!("a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"));
    }
    let v = validate_text(&doc(&bomb), ValidateOptions::default());
    assert!(v.diagnostics.iter().any(|d| d.code == YamlInvalid), "{:?}", v.diagnostics);
    // A 10 MB frontmatter is refused unparsed.
    let huge = format!("name: pdf\ndescription: x\npad: \"{}\"\n", "x".repeat(10 << 20));
    let v = validate_text(&doc(&huge), ValidateOptions::default());
    assert_eq!(v.diagnostics.iter().map(|d| d.code).collect::<Vec<_>>(), vec![FrontmatterTooLarge]);
}

#[test]
fn every_code_has_a_fix_and_a_stable_name() {
    let json = serde_json::to_string(&NameDirMismatch).unwrap();
    assert_eq!(json, "\"name_dir_mismatch\"");
    assert_eq!(NameDirMismatch.as_str(), "name_dir_mismatch");
    assert!(!NameDirMismatch.fix().is_empty());
}
