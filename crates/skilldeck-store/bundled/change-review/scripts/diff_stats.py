#!/usr/bin/env python3
"""Per-file added/removed line counts for a unified diff.

Reads a unified diff (git diff, git show, diff -u, a .patch file) from a file
argument or stdin, and prints one row per file, a total row, and a
`WARNING large_file: ...` line for each file whose added + removed lines
exceed the threshold (default 400). Standard library only.

Examples:
    git diff main...HEAD | python3 diff_stats.py
    python3 diff_stats.py change.patch --sort
"""

import argparse
import codecs
import re
import sys

HUNK_RE = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


class FileStat:
    def __init__(self, git_header=None):
        self.git_header = git_header  # text after `diff --git `, if any
        self.old_path = None
        self.new_path = None
        self.added = 0
        self.removed = 0
        self.new = False
        self.deleted = False
        self.binary = False
        self.combined = False
        self.mode_changed = False
        self.renamed_from = None
        self.seen_minus = False
        self.seen_hunk = False

    @property
    def changed(self):
        return self.added + self.removed

    @property
    def path(self):
        if self.deleted and self.old_path:
            return self.old_path
        if self.new_path:
            return self.new_path
        if self.old_path:
            return self.old_path
        return path_from_git_header(self.git_header) or "(unknown file)"

    def label(self):
        notes = []
        if self.new:
            notes.append("new")
        if self.deleted:
            notes.append("deleted")
        if self.renamed_from and self.renamed_from != self.path:
            notes.append("renamed from %s" % self.renamed_from)
        if self.mode_changed:
            notes.append("mode changed")
        if self.binary:
            notes.append("binary")
        if self.combined:
            notes.append("combined diff, not counted")
        return self.path + (" (%s)" % ", ".join(notes) if notes else "")


def unquote_path(text):
    """Undo git's C-style quoting of unusual file names."""
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
        raw = text[1:-1].encode("latin-1", "backslashreplace")
        try:
            return codecs.escape_decode(raw)[0].decode("utf-8", "replace")
        except ValueError:
            return text[1:-1]
    return text


def clean_path(text, prefix):
    """Path from a `---`/`+++`/rename line; None for /dev/null."""
    text = text.split("\t", 1)[0].rstrip()  # diff -u appends a timestamp
    text = unquote_path(text)
    if text == "/dev/null":
        return None
    if prefix and text.startswith(prefix):
        text = text[len(prefix):]
    return text


def path_from_git_header(header):
    """Best guess at the path in `a/P b/P`, used when nothing better exists."""
    if not header:
        return None
    if header.startswith('"'):
        end = header.find('"', 1)
        return clean_path(header[: end + 1], "a/") if end > 0 else None
    size = (len(header) - 5) // 2
    path = header[2: 2 + size]
    if header == "a/%s b/%s" % (path, path):
        return path
    cut = header.rfind(" b/")
    return header[cut + 3:] if cut >= 0 else header


def parse(lines):
    files = []
    current = None
    old_left = new_left = 0

    def start(git_header=None):
        stat = FileStat(git_header)
        files.append(stat)
        return stat

    for index, raw in enumerate(lines):
        line = raw.rstrip("\n")
        if old_left > 0 or new_left > 0:
            tag = line[:1]
            if tag == "+":
                current.added += 1
                new_left -= 1
                continue
            if tag == "-":
                current.removed += 1
                old_left -= 1
                continue
            if tag in (" ", "") or line == "\r":
                old_left -= 1
                new_left -= 1
                continue
            if tag == "\\":  # "\ No newline at end of file"
                continue
            old_left = new_left = 0  # malformed hunk: fall back to headers
        if line.startswith("\\"):
            continue
        line = line.rstrip("\r")

        if line.startswith("diff --git "):
            current = start(line[len("diff --git "):])
        elif line.startswith(("diff --cc ", "diff --combined ")):
            current = start()
            current.new_path = unquote_path(line.split(" ", 2)[2])
            current.combined = True
        elif current is not None and current.combined:
            continue  # skip a combined (merge) diff until the next file
        elif line.startswith("--- ") and index + 1 < len(lines) \
                and lines[index + 1].startswith("+++ "):
            # Without `diff --git` headers (plain diff -u), `---` starts a file.
            if current is None or current.seen_minus or current.seen_hunk:
                current = start()
            current.seen_minus = True
            path = clean_path(line[4:], "a/")
            if path is None:
                current.new = True
            else:
                current.old_path = path
        elif line.startswith("+++ ") and current is not None:
            path = clean_path(line[4:], "b/")
            if path is None:
                current.deleted = True
            else:
                current.new_path = path
        elif line.startswith("new file mode") and current is not None:
            current.new = True
        elif line.startswith("deleted file mode") and current is not None:
            current.deleted = True
        elif line.startswith("new mode ") and current is not None:
            current.mode_changed = True
        elif line.startswith("rename from ") and current is not None:
            current.renamed_from = clean_path(line[len("rename from "):], None)
            current.old_path = current.renamed_from
        elif line.startswith("rename to ") and current is not None:
            current.new_path = clean_path(line[len("rename to "):], None)
        elif (line.startswith("Binary files ") or line == "GIT binary patch") \
                and current is not None:
            current.binary = True
        else:
            match = HUNK_RE.match(line)
            if match:
                if current is None:
                    current = start()
                current.seen_hunk = True
                old_left = int(match.group(1) or 1)
                new_left = int(match.group(2) or 1)
    # A `---`/`+++` pair with no hunk and no `diff --git` line is not a file
    # (e.g. text in a commit message); drop it.
    return [f for f in files if f.git_header or f.seen_hunk or f.combined]


def report(files, threshold, out):
    width = max([5] + [len(str(f.added)) for f in files]
                + [len(str(sum(f.added for f in files)))])
    rwidth = max([7] + [len(str(sum(f.removed for f in files)))])
    row = "%{0}s  %{1}s  %s".format(width, rwidth)
    print(row % ("added", "removed", "file"), file=out)
    for stat in files:
        print(row % (stat.added, stat.removed, stat.label()), file=out)
    added = sum(f.added for f in files)
    removed = sum(f.removed for f in files)
    print(row % (added, removed, "total: %d file(s), %d changed line(s)"
                 % (len(files), added + removed)), file=out)
    for stat in files:
        if stat.changed > threshold:
            print("WARNING large_file: %s has %d changed lines (> %d); review "
                  "it in passes or ask for a split"
                  % (stat.path, stat.changed, threshold), file=out)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Print per-file added/removed line counts for a unified "
        "diff, a total, and a warning for files over the threshold.")
    parser.add_argument("diff", nargs="?", default="-",
                        help="diff file to read (default: stdin, or '-')")
    parser.add_argument("--threshold", type=int, default=400, metavar="N",
                        help="warn when a file has more than N changed lines "
                        "(default: 400)")
    parser.add_argument("--sort", action="store_true",
                        help="list files by changed lines, largest first")
    args = parser.parse_args(argv)

    try:
        if args.diff == "-":
            if sys.stdin.isatty():
                parser.error("no diff given: pass a file or pipe a diff in")
            data = sys.stdin.buffer.read()
        else:
            with open(args.diff, "rb") as handle:
                data = handle.read()
    except OSError as err:
        print("diff_stats: cannot read %s: %s" % (args.diff, err.strerror),
              file=sys.stderr)
        return 2

    text = data.decode("utf-8", "replace")
    files = parse(text.splitlines(True))
    if args.sort:
        files.sort(key=lambda f: f.changed, reverse=True)
    if not files:
        print("diff_stats: no file changes found in the input", file=sys.stderr)
    report(files, args.threshold, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
