// @ts-check
// The sidebar's multi-selection as plain functions over skill keys, no DOM (ui-tests/ tests
// them under Node): Ctrl/Cmd-click toggles one key, Shift-click picks a range among the keys
// shown, and a new list keeps only the picked keys it still shows.

/**
 * `picked` with `key` added, or taken out when it was in. A new set; `picked` is left as it was.
 * @param {Set<string>} picked
 * @param {string} key
 * @returns {Set<string>}
 */
export function toggleKey(picked, key) {
  const next = new Set(picked);
  if (!next.delete(key)) next.add(key);
  return next;
}

/**
 * The keys from `anchor` to `target` (both included, in list order, whichever comes first)
 * among `keys`, the keys shown. Only `target` when `anchor` is not shown (or none); nothing
 * when `target` is not shown.
 * @param {string[]} keys
 * @param {string | null} anchor
 * @param {string} target
 * @returns {string[]}
 */
export function rangeKeys(keys, anchor, target) {
  const to = keys.indexOf(target);
  if (to < 0) return [];
  const from = anchor === null ? -1 : keys.indexOf(anchor);
  if (from < 0) return [target];
  return keys.slice(Math.min(from, to), Math.max(from, to) + 1);
}

/**
 * What a Shift-click on `target` picks: the range from `anchor` (see `rangeKeys`), instead of
 * `picked`, or added to it when `add` (Ctrl/Cmd held too).
 * @param {Set<string>} picked
 * @param {string[]} keys
 * @param {string | null} anchor
 * @param {string} target
 * @param {boolean} add
 * @returns {Set<string>}
 */
export function pickRange(picked, keys, anchor, target, add) {
  const range = rangeKeys(keys, anchor, target);
  return new Set(add ? [...picked, ...range] : range);
}

/**
 * The picked keys still among `keys` (after a search, a chip or a reload), in list order.
 * @param {Set<string>} picked
 * @param {string[]} keys
 * @returns {Set<string>}
 */
export function keepShown(picked, keys) {
  return new Set(keys.filter((k) => picked.has(k)));
}
