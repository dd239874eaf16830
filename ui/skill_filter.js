// @ts-check
// What the sidebar's search and filter chips keep, and where a keyboard step lands: plain
// functions over the skills' rows, no DOM (ui-tests/ tests them under Node).

/** @typedef {import("./types/bindings").SkillRow} SkillRow */

/**
 * The filter chips: what each keeps, and in which group (chips of one group widen each other).
 * @type {[string, string, (s: SkillRow) => boolean][]}
 */
export const CHIPS = [
  ["invalid", "state", (s) => !s.valid],
  ["warnings", "state", (s) => s.warnings > 0],
  ["off", "state", (s) => !s.enabled],
  ["held", "state", (s) => s.held],
  ["user", "scope", (s) => s.scope === "user"],
  ["team", "scope", (s) => s.scope === "team"],
  ["system", "scope", (s) => s.scope === "system"],
];

/**
 * What a search looks in: the name and both descriptions, lowercased.
 * @param {SkillRow} skill
 */
export function haystack(skill) {
  return `${skill.name} ${skill.description || ""} ${skill.descriptionZh || ""}`.toLowerCase();
}

/**
 * What a search needs of one skill, worked out once per load so a keystroke over thousands of
 * rows only compares strings: the haystack, the name lowercased, and the name with its `-` and
 * `_` as spaces.
 * @typedef {{ hay: string, name: string, flat: string }} Searchable
 */

/** What a name's words, and a query's, are joined by. */
const JOINERS = /[\s\-_]+/g;

/**
 * The search fields of `skill` (see `Searchable`).
 * @param {SkillRow} skill
 * @returns {Searchable}
 */
export function searchable(skill) {
  const name = skill.name.toLowerCase();
  return { hay: haystack(skill), name, flat: name.replace(JOINERS, " ") };
}

/**
 * A word with a plural or verb ending taken off ("slides" → "slide", "policies" → "polic",
 * "making" → "mak", "created" → "creat"), so it still matches as the start of its other forms.
 * Short words are left alone: "us", "bus" and "used" stay as typed.
 * @param {string} word
 */
export function stem(word) {
  if (word.length >= 7 && word.endsWith("ies")) return word.slice(0, -3);
  if (word.length >= 5 && /(x|z|ch|sh|ss)es$/.test(word)) return word.slice(0, -2);
  if (word.length >= 4 && /[^siu]s$/.test(word)) return word.slice(0, -1);
  if (word.length >= 6 && word.endsWith("ing")) return word.slice(0, -3);
  if (word.length >= 5 && word.endsWith("ed")) return word.slice(0, -2);
  return word;
}

/**
 * A query's words (split on spaces), each with its stem; the query as typed is already trimmed
 * and lowercased. A word typed with `-` or `_` ("skill-19", "git-worktree") stays one word: it
 * matches a name as typed.
 * @typedef {{ word: string, stem: string }} QueryWord
 * @param {string} q
 * @returns {QueryWord[]}
 */
export function queryWords(q) {
  return q.split(/\s+/).filter((w) => /[^\-_]/.test(w)).map((word) => ({ word, stem: stem(word) }));
}

/**
 * Words a person types around what they look for ("make slides", "how to use git"): a match
 * neither needs them nor ranks by them. A query of these alone needs them all.
 */
const FILLER = new Set([
  "a", "an", "the", "to", "for", "of", "with", "and", "or", "in", "on", "my", "me", "i", "how", "do",
  "make", "create", "build", "write", "generate", "help", "use", "get", "want", "need",
]);

/**
 * The query words a match needs: all but the filler ones, or all when every one is filler.
 * @param {QueryWord[]} words
 */
export function neededWords(words) {
  const needed = words.filter((w) => !FILLER.has(w.word));
  return needed.length ? needed : words;
}

/**
 * Whether `text` holds `part` where a word starts: at the start or after a character that is
 * not a Latin letter or digit (a space, `-`, `_`, punctuation). Chinese has no spaces between
 * words, so after a Chinese character counts as a start too, and a Chinese query matches
 * anywhere.
 * @param {string} text
 * @param {string} part
 */
export function atWordStart(text, part) {
  for (let i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
    if (i === 0 || !/[a-z0-9]/.test(text[i - 1])) return true;
  }
  return false;
}

/**
 * Whether a skill matches every query word, in any order: each starts a word of its name or of
 * a description ("git" and "worktree" in using-git-worktrees; not the "m" inside "commit").
 * A word is looked for by its stem, which every form of the word starts with.
 * @param {Searchable} f
 * @param {QueryWord[]} words
 */
export function matches(f, words) {
  return words.every((w) => atWordStart(f.hay, w.stem));
}

/**
 * Where a match ranks, best first: 0 the name starts with the query ("git work" for
 * git-worktrees); 1 each word starts a word of the name, in any order ("worktree git" for
 * using-git-worktrees); 2 some word is in the name, the rest in the descriptions; 3 only the
 * descriptions have them.
 * @param {Searchable} f
 * @param {QueryWord[]} words
 */
export function tier(f, words) {
  if (f.flat.startsWith(words.map((w) => w.word.replace(JOINERS, " ")).join(" "))) return 0;
  const inName = words.filter((w) => atWordStart(f.name, w.stem)).length;
  if (inName === words.length) return 1;
  return inName ? 2 : 3;
}

/**
 * Whether skill `s` passes the chips turned on (`flags`): any chip of a group, every group.
 * @param {SkillRow} s
 * @param {Set<string>} flags
 */
export function passesChips(s, flags) {
  for (const group of ["state", "scope"]) {
    const on = CHIPS.filter(([id, g]) => g === group && flags.has(id));
    if (on.length && !on.some(([, , keep]) => keep(s))) return false;
  }
  return true;
}

/**
 * The list the sidebar shows for search `q` (already trimmed and lowercased) and chips `flags`:
 * each group's head followed by its rows that match, best matches first (see `tier`; rows of one
 * tier keep their order), groups with none left out; the deleted skills only when nothing
 * narrows the list. A skill matches when it has every needed word of the query (see
 * `neededWords` and `matches`), in any order. When no skill holds them all, the words no skill holds at all
 * are left out and named in `ignored`. `shown` counts the skills kept.
 * @template {{ search: Searchable, skill: SkillRow }} R
 * @template H
 * @template D
 * @param {{ head: H, rows: R[] }[]} groups
 * @param {D[]} deleted
 * @param {string} q
 * @param {Set<string>} flags
 * @returns {{ items: (H | R | D)[], shown: number, ignored: string[] }}
 */
export function filterRows(groups, deleted, q, flags) {
  const narrowed = flags.size > 0;
  const words = queryWords(q);
  let needed = neededWords(words);
  // The rows the chips keep: the search looks among these only.
  const kept = narrowed ? groups.map((g) => g.rows.filter((r) => passesChips(r.skill, flags))) : groups.map((g) => g.rows);
  /** @type {string[]} */
  let ignored = [];
  let hits = kept.map((rows) => search(rows, needed));
  if (needed.length > 1 && hits.every((rows) => !rows.length)) {
    const found = needed.filter((w) => kept.some((rows) => rows.some((r) => matches(r.search, [w]))));
    if (found.length && found.length < needed.length) {
      ignored = needed.filter((w) => !found.includes(w)).map((w) => w.word);
      needed = found;
      hits = kept.map((rows) => search(rows, needed));
    }
  }
  /** @type {(H | R | D)[]} */
  const items = [];
  let shown = 0;
  groups.forEach((g, i) => {
    if (!hits[i].length) return;
    items.push(g.head, ...hits[i]);
    shown += hits[i].length;
  });
  // Deleted skills are not searched: they show with the whole list only.
  if (!words.length && !narrowed) items.push(...deleted);
  return { items, shown, ignored };
}

/**
 * The rows among `rows` holding every one of `needed`, best first (all the rows, in order, when
 * there are no words).
 * @template {{ search: Searchable }} R
 * @param {R[]} rows
 * @param {QueryWord[]} needed
 * @returns {R[]}
 */
function search(rows, needed) {
  if (!needed.length) return rows;
  /** @type {R[][]} */
  const tiers = [[], [], [], []];
  for (const r of rows) if (matches(r.search, needed)) tiers[tier(r.search, needed)].push(r);
  return tiers.flat();
}

/**
 * The key `delta` rows from `key` among `keys` (the first when `key` is not among them);
 * ±Infinity goes to an end. `null` when there are no keys.
 * @param {string[]} keys
 * @param {string | null} key
 * @param {number} delta
 * @returns {string | null}
 */
export function stepKey(keys, key, delta) {
  if (!keys.length) return null;
  const at = key === null ? -1 : keys.indexOf(key);
  // With none selected a step lands on the first; Home and End (±Infinity) still go to an end.
  const to = at < 0 ? (Number.isFinite(delta) ? 0 : delta) : at + delta;
  return keys[Math.max(0, Math.min(keys.length - 1, to))];
}
