#!/bin/sh
# Create notes/YYYY-MM-DD-<slug>.md from a title, with a header for its kind.
# Never overwrites an existing note. POSIX sh; no dependencies beyond
# date, tr, sed and cut. Prints the new file's path on success.

set -eu

prog=new_note.sh

usage() {
    cat <<'USAGE'
Usage: new_note.sh [-k KIND] TITLE...

Create notes/YYYY-MM-DD-<slug>.md in the current directory.

  -k KIND   note (default), decision or handoff: picks the section headers
  -h        show this help

The slug is the title in lowercase ASCII letters and digits joined by "-"
(at most 60 characters). Set NOTES_DIR to use a folder other than "notes".
Exits 1 without writing anything if the note already exists.
USAGE
}

case "${1-}" in
    --help) usage; exit 0 ;;
esac

kind=note
while getopts 'k:h' opt; do
    case "$opt" in
        k) kind=$OPTARG ;;
        h) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))

case "$kind" in
    note|decision|handoff) ;;
    *) echo "$prog: unknown kind '$kind' (use note, decision or handoff)" >&2
       exit 2 ;;
esac

title=$*
if [ -z "$(printf '%s' "$title" | tr -d ' \t')" ]; then
    echo "$prog: a title is required" >&2
    usage >&2
    exit 2
fi

today=$(date +%Y-%m-%d)
slug=$(printf '%s\n' "$title" \
    | LC_ALL=C tr '[:upper:]' '[:lower:]' \
    | LC_ALL=C tr -cs 'a-z0-9' '-' \
    | sed -e 's/^-*//' -e 's/-*$//' \
    | cut -c1-60 \
    | sed -e 's/-*$//')
if [ -z "$slug" ]; then
    # Titles without ASCII letters or digits (e.g. Chinese) get a time-based slug.
    slug="note-$(date +%H%M%S)"
fi

dir=${NOTES_DIR:-notes}
file="$dir/$today-$slug.md"

if [ -e "$file" ]; then
    echo "$prog: $file already exists; edit it or choose another title" >&2
    exit 1
fi

write_note() {
    printf '# %s\n\n' "$title"
    printf -- '- Date: %s\n' "$today"
    printf -- '- Kind: %s\n' "$kind"
    case "$kind" in
        note)
            printf '\n## Context\n\n\n## Notes\n\n\n## Next\n\n'
            ;;
        decision)
            printf -- '- Status: proposed\n'
            printf '\n## Context\n\n\n## Options\n\n\n## Decision\n\n'
            printf '\n## Consequences\n\n'
            ;;
        handoff)
            printf -- '- From: \n- To: \n'
            printf '\n## Where things stand\n\n\n## In-flight changes\n\n'
            printf '\n## How to check it works\n\n\n## Next steps\n\n'
            printf '\n## Watch out for\n\n\n## References\n\n'
            ;;
    esac
}

mkdir -p "$dir"
# noclobber (set -C) makes the redirection fail if the file appeared meanwhile.
if ! (set -C; write_note > "$file") 2>/dev/null; then
    echo "$prog: could not create $file (it may already exist)" >&2
    exit 1
fi

printf '%s\n' "$file"
