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
 * each group's head followed by its rows that match, groups with none left out; the deleted
 * skills only when nothing narrows the list. `shown` counts the skills kept.
 * @template {{ hay: string, skill: SkillRow }} R
 * @template H
 * @template D
 * @param {{ head: H, rows: R[] }[]} groups
 * @param {D[]} deleted
 * @param {string} q
 * @param {Set<string>} flags
 * @returns {{ items: (H | R | D)[], shown: number }}
 */
export function filterRows(groups, deleted, q, flags) {
  /** @type {(H | R | D)[]} */
  const items = [];
  let shown = 0;
  const narrowed = flags.size > 0;
  for (const g of groups) {
    const hits = q || narrowed ? g.rows.filter((r) => (!q || r.hay.includes(q)) && passesChips(r.skill, flags)) : g.rows;
    if (!hits.length) continue;
    items.push(g.head, ...hits);
    shown += hits.length;
  }
  // Deleted skills are not searched: they show with the whole list only.
  if (!q && !narrowed) items.push(...deleted);
  return { items, shown };
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
