#!/usr/bin/env python3
"""Quick, dependency-free checks for one Agent Skill folder.

Prints one line per problem on stdout as `LEVEL code: message`
(LEVEL is ERROR or WARNING), a one-line summary on stderr, and exits 1
when there is at least one error.

This is a first pass with a tiny frontmatter reader (simple `key: value`
lines, quoted strings, block scalars, nested blocks skipped). It is not a
YAML parser. `skilldeck validate` is the full validator; use
`skilldeck validate --strict` before publishing outside Skilldeck.
"""

import argparse
import os
import re
import sys

KNOWN_FIELDS = (
    "name",
    "description",
    "description_zh",
    "version",
    "compatibility",
    "allowed-tools",
    "min_tier",
    "license",
    "metadata",
)
NAME_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
KEY_RE = re.compile(r"^([^\s#:'\"][^:]*?):(?=\s|$)\s*(.*)$")
NOT_STRING_RE = re.compile(
    r"^(?:[-+]?\d[\d_]*(?:\.\d*)?(?:[eE][-+]?\d+)?|true|false|yes|no|on|off"
    r"|null|~)$",
    re.IGNORECASE,
)
CJK_RE = re.compile("[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
PATH_RE = re.compile(
    r"(?<![\w./-])(?:\.skills/([a-z0-9-]+)/)?"
    r"((?:references|scripts|assets)/[\w./-]*\w)"
)
L3_DIRS = ("references", "scripts", "assets")
STRAY_NAMES = {".DS_Store", "Thumbs.db", "__pycache__", ".pytest_cache"}
TRIGGER_WORDS = ("when", "use for", "use it", "use this", "trigger", "if the user")


class Report:
    def __init__(self):
        self.items = []

    def error(self, code, message, line=None):
        self.items.append(("ERROR", code, message, line))

    def warn(self, code, message, line=None):
        self.items.append(("WARNING", code, message, line))

    def count(self, level):
        return sum(1 for item in self.items if item[0] == level)

    def lines(self):
        # Frontmatter problems in line order, then the ones without a line.
        ordered = sorted(self.items, key=lambda item: item[3] or float("inf"))
        for level, code, message, line in ordered:
            where = " (line %d)" % line if line else ""
            yield "%s %s: %s%s" % (level, code, message, where)


# --- tiny frontmatter reader ---------------------------------------------

class Field:
    """One top-level key: its kind ('str', 'nested', 'flow') and value."""

    def __init__(self, kind, value, line, quoted=False):
        self.kind = kind
        self.value = value
        self.line = line
        self.quoted = quoted


def split_frontmatter(text, report):
    """Return (frontmatter lines with numbers, body text) or None."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        report.error("frontmatter_missing",
                     "SKILL.md must start with a line that is exactly `---`", 1)
        return None
    for index in range(1, len(lines)):
        if lines[index].rstrip() == "---":
            numbered = [(n + 1, lines[n]) for n in range(1, index)]
            return numbered, "\n".join(lines[index + 1:])
    report.error("frontmatter_unclosed",
                 "no closing `---` line after the frontmatter", 1)
    return None


def unquote_double(raw, report, line):
    match = re.match(r'^"((?:[^"\\]|\\.)*)"\s*(#.*)?$', raw, re.DOTALL)
    if not match:
        report.error("yaml_invalid",
                     "unclosed double quote or text after the closing quote",
                     line)
        return None
    escapes = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "/": "/", " ": " "}
    return re.sub(r"\\(.)", lambda m: escapes.get(m.group(1), m.group(1)),
                  match.group(1))


def unquote_single(raw, report, line):
    match = re.match(r"^'((?:[^']|'')*)'\s*(#.*)?$", raw, re.DOTALL)
    if not match:
        report.error("yaml_invalid",
                     "unclosed single quote or text after the closing quote",
                     line)
        return None
    return match.group(1).replace("''", "'")


def plain_value(key, raw, report, line):
    if raw[0] in "*@`%":
        report.error("yaml_invalid",
                     "`%s` starts with `%s`, which YAML does not allow in a "
                     "plain value; quote it" % (key, raw[0]), line)
        return None
    if raw[0] in "&!":
        report.warn("yaml_special_start",
                    "`%s` starts with `%s` (a YAML anchor or tag); quote it"
                    % (key, raw[0]), line)
    if " #" in raw:
        report.warn("yaml_comment_in_value",
                    "` #` starts a YAML comment, so `%s` is cut at it; "
                    "quote the value" % key, line)
        raw = raw.split(" #", 1)[0].rstrip()
    if ": " in raw or raw.endswith(":"):
        report.warn("yaml_unquoted_colon",
                    "`%s` has an unquoted `: `; strict YAML parsers reject it, "
                    "wrap the value in double quotes" % key, line)
    return raw


def read_frontmatter(numbered, report):
    """Parse simple top-level `key: value` lines into {key: Field}."""
    entries = []  # [key, first value, line, continuation lines]
    for line, text in numbered:
        indent = text[: len(text) - len(text.lstrip(" \t"))]
        if "\t" in indent:
            report.error("yaml_invalid", "tab used for indentation", line)
            continue
        stripped = text.strip()
        if not stripped or (not indent and stripped.startswith("#")):
            if entries:
                entries[-1][3].append("")
            continue
        if indent or stripped.startswith("- "):
            if not entries:
                report.error("yaml_invalid",
                             "indented line before any `key:`", line)
            else:
                entries[-1][3].append(text)
            continue
        match = KEY_RE.match(text)
        if not match:
            report.error("yaml_invalid",
                         "expected `key: value`, got `%s`" % stripped[:40], line)
            continue
        entries.append([match.group(1).strip(), match.group(2).strip(), line, []])

    fields = {}
    for key, raw, line, more in entries:
        if key in fields:
            report.error("yaml_invalid",
                         "duplicate key `%s` (first on line %d)"
                         % (key, fields[key].line), line)
            continue
        field = build_field(key, raw, line, more, report)
        # A value that could not be read is already reported; keep the key
        # so that later rules do not also call it missing.
        fields[key] = field if field is not None else Field("broken", None, line)
    return fields


def build_field(key, raw, line, more, report):
    while more and not more[-1].strip():
        more.pop()
    if raw.startswith(("|", ">")):
        parts = [m.strip() for m in more]
        joiner = "\n" if raw.startswith("|") else " "
        return Field("str", joiner.join(parts).strip(), line, quoted=True)
    if raw == "" or raw.startswith("#"):
        if more:
            return Field("nested", None, line)
        return Field("str", "", line)
    if raw.startswith(("{", "[")):
        return Field("flow", raw, line)
    joined = " ".join([raw] + [m.strip() for m in more if m.strip()])
    if raw.startswith('"'):
        value = unquote_double(joined, report, line)
        return None if value is None else Field("str", value, line, True)
    if raw.startswith("'"):
        value = unquote_single(joined, report, line)
        return None if value is None else Field("str", value, line, True)
    value = plain_value(key, joined, report, line)
    return None if value is None else Field("str", value, line)


# --- rules -----------------------------------------------------------------

def check_fields(all_fields, folder_name, strict, report):
    # Values that could not be read were reported already; skip their rules.
    fields = {k: f for k, f in all_fields.items() if f.kind != "broken"}
    if "name" in fields or "name" not in all_fields:
        check_name(fields.get("name"), folder_name, report)
    if "description" in fields or "description" not in all_fields:
        check_description(fields.get("description"), report)

    zh = fields.get("description_zh")
    if zh is not None and (zh.kind != "str" or not CJK_RE.search(zh.value)):
        report.warn("description_zh_invalid",
                    "`description_zh` should be a Chinese translation of "
                    "`description`", zh.line)

    version = fields.get("version")
    if version is not None:
        if version.kind != "str":
            report.error("version_invalid", "`version` must be a string",
                         version.line)
        elif len(version.value) > 32:
            report.error("version_too_long",
                         "`version` is %d characters (max 32)"
                         % len(version.value), version.line)
        elif not version.quoted and NOT_STRING_RE.match(version.value):
            report.warn("version_not_string",
                        "`version: %s` is a number in YAML; quote it"
                        % version.value, version.line)

    compat = fields.get("compatibility")
    if compat is not None and compat.kind == "str" and len(compat.value) > 500:
        report.error("compatibility_too_long",
                     "`compatibility` is %d characters (max 500)"
                     % len(compat.value), compat.line)

    tier = fields.get("min_tier")
    if tier is not None and (tier.kind != "str"
                             or tier.value not in ("lite", "ultra")):
        report.error("min_tier_invalid",
                     "`min_tier` must be `lite` or `ultra`", tier.line)

    tools = fields.get("allowed-tools")
    if tools is not None and tools.kind != "str":
        report.warn("allowed_tools_not_string",
                    "`allowed-tools` should be one space-separated string, "
                    "e.g. `Bash(git diff:*) Read`", tools.line)

    meta = fields.get("metadata")
    if meta is not None and meta.kind == "str":
        report.warn("metadata_not_mapping",
                    "`metadata` should be a mapping, e.g. "
                    "`metadata: {author: me}`", meta.line)

    for key, field in all_fields.items():
        if key in KNOWN_FIELDS:
            continue
        message = ("unknown field `%s`; move it under `metadata`" % key)
        if strict:
            report.error("field_unknown", message, field.line)
        else:
            report.warn("field_unknown", message, field.line)


def check_name(field, folder_name, report):
    if field is None or (field.kind == "str" and not field.value):
        report.error("name_missing", "`name` is required",
                     field.line if field else None)
        return
    if field.kind != "str":
        report.error("name_invalid", "`name` must be a string", field.line)
        return
    name = field.value
    if len(name) > 64:
        report.error("name_too_long",
                     "`name` is %d characters (max 64)" % len(name), field.line)
    if not NAME_RE.match(name):
        if re.search(r"[^a-z0-9-]", name):
            why = "use only lowercase a-z, 0-9 and `-`"
        elif "--" in name:
            why = "no `--`"
        else:
            why = "no leading or trailing `-`"
        report.error("name_invalid", "`name: %s` is invalid: %s" % (name, why),
                     field.line)
    elif not field.quoted and NOT_STRING_RE.match(name):
        report.warn("value_not_string",
                    "`name: %s` is not a string in YAML; quote it" % name,
                    field.line)
    if name != folder_name:
        report.error("name_dir_mismatch",
                     "`name: %s` does not match the folder name `%s`"
                     % (name, folder_name), field.line)


def check_description(field, report):
    if field is None or field.kind != "str" or not field.value.strip():
        report.error("description_missing",
                     "`description` is required and must be non-empty text",
                     field.line if field else None)
        return
    text = field.value.strip()
    size = len(text)
    if size > 1024:
        report.error("description_too_long",
                     "`description` is %d characters (max 1024)" % size,
                     field.line)
    elif size > 400:
        report.warn("description_long",
                    "`description` is %d characters; 150-300 lists better "
                    "and is not shortened as much" % size, field.line)
    elif size < 50:
        report.warn("description_short",
                    "`description` is %d characters; say what the skill does "
                    "and when to use it" % size, field.line)
    if CJK_RE.search(text):
        report.warn("description_not_english",
                    "`description` should be English; put Chinese in "
                    "`description_zh`", field.line)
    lowered = text.lower()
    if not any(word in lowered for word in TRIGGER_WORDS):
        report.warn("description_no_trigger",
                    "`description` does not say when to use the skill "
                    "(add a `Use when ...` clause)", field.line)


def check_layout(skill_dir, name, body, report):
    body_lines = body.strip().splitlines()
    if not body_lines:
        report.warn("body_empty", "SKILL.md has no instructions after the "
                    "frontmatter")
    elif len(body_lines) > 300:
        report.warn("body_long", "SKILL.md body is %d lines; move detail into "
                    "references/" % len(body_lines))

    for match in PATH_RE.finditer(body):
        owner, rel = match.group(1), match.group(2)
        if owner and owner != name:
            continue
        if not os.path.exists(os.path.join(skill_dir, rel)):
            report.warn("reference_missing",
                        "SKILL.md names `%s`, which does not exist" % rel)

    for top in L3_DIRS:
        root = os.path.join(skill_dir, top)
        if not os.path.isdir(root):
            continue
        for current, dirs, files in os.walk(root):
            for entry in sorted(dirs + files):
                if entry in STRAY_NAMES or entry.endswith(("~", ".pyc", ".swp")):
                    rel = os.path.relpath(os.path.join(current, entry), skill_dir)
                    report.warn("stray_file", "remove `%s` before publishing"
                                % rel.replace(os.sep, "/"))
            dirs[:] = sorted(d for d in dirs if d not in STRAY_NAMES)
            for entry in sorted(files):
                if entry in STRAY_NAMES or entry.endswith(("~", ".pyc", ".swp")):
                    continue
                path = os.path.join(current, entry)
                rel = os.path.relpath(path, skill_dir).replace(os.sep, "/")
                if not is_mentioned(rel, body):
                    report.warn("file_unreferenced",
                                "`%s` is never named in SKILL.md, so an agent "
                                "will not find it" % rel)
                if top == "scripts" and os.name == "posix":
                    check_script(path, rel, report)


def is_mentioned(rel, body):
    if rel in body:
        return True
    parts = rel.split("/")
    # A named sub-folder (e.g. `assets/templates/`) covers the files inside.
    for depth in range(2, len(parts)):
        if "/".join(parts[:depth]) + "/" in body:
            return True
    return False


def check_script(path, rel, report):
    try:
        with open(path, "rb") as handle:
            head = handle.read(2)
    except OSError:
        return
    if head == b"#!" and not os.access(path, os.X_OK):
        report.warn("script_not_executable",
                    "`%s` has a shebang but is not executable (chmod +x)" % rel)


# --- main -----------------------------------------------------------------

def check_skill(skill_dir, strict):
    report = Report()
    if not os.path.isdir(skill_dir):
        report.error("skill_dir_missing", "`%s` is not a folder" % skill_dir)
        return report
    entries = os.listdir(skill_dir)
    if "SKILL.md" not in entries:
        near = [e for e in entries if e.lower() == "skill.md"]
        hint = "; rename `%s` to `SKILL.md`" % near[0] if near else ""
        report.error("skill_md_missing", "no SKILL.md in the folder" + hint)
        return report

    with open(os.path.join(skill_dir, "SKILL.md"), "rb") as handle:
        data = handle.read()
    if data.startswith(b"\xef\xbb\xbf"):
        report.warn("bom_present", "SKILL.md starts with a UTF-8 BOM; remove it")
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        report.error("encoding_invalid",
                     "SKILL.md is not valid UTF-8 (byte %d)" % err.start)
        return report
    if "\r\n" in text:
        report.warn("line_endings_crlf", "SKILL.md uses CRLF; use LF")
        text = text.replace("\r\n", "\n")

    folder_name = os.path.basename(os.path.normpath(os.path.abspath(skill_dir)))
    split = split_frontmatter(text, report)
    if split is None:
        return report
    numbered, body = split
    fields = read_frontmatter(numbered, report)
    check_fields(fields, folder_name, strict, report)
    name_field = fields.get("name")
    name = name_field.value if name_field and name_field.kind == "str" else ""
    check_layout(skill_dir, name or folder_name, body, report)
    return report


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Check an Agent Skill folder's SKILL.md frontmatter and "
        "layout. Prints `LEVEL code: message` per problem; exits 1 on errors. "
        "This is a quick check: `skilldeck validate` is the full validator.")
    parser.add_argument("skill_dir",
                        help="path to the skill folder (or to its SKILL.md)")
    parser.add_argument("--strict", action="store_true",
                        help="treat unknown frontmatter fields as errors")
    args = parser.parse_args(argv)

    skill_dir = args.skill_dir
    if os.path.basename(skill_dir) == "SKILL.md" and os.path.isfile(skill_dir):
        skill_dir = os.path.dirname(skill_dir) or "."
    report = check_skill(skill_dir, args.strict)
    for line in report.lines():
        print(line)
    errors, warnings = report.count("ERROR"), report.count("WARNING")
    if errors or warnings:
        summary = "%d error(s), %d warning(s)" % (errors, warnings)
    else:
        summary = "ok"
    print("%s: %s" % (skill_dir, summary), file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
