// @ts-check
// A windowed list: of a long array of items, only the rows in (or near) the scroller's view are
// in the DOM, placed over a spacer as tall as the whole list. Knows nothing about skills.
// The arithmetic (where each row starts, which rows are in view) is in plain functions below,
// which ui-tests/ tests under Node without a DOM.

/** Rows rendered above and below the view, so a fast scroll rarely shows a gap. */
const OVERSCAN = 8;
/** A row's height before it could be measured (the list was hidden). */
const GUESS = 48;

/**
 * Where each of `n` rows starts, from each row's height: `tops[i]` is row i's top and `tops[n]`
 * the list's height.
 * @param {number} n
 * @param {(i: number) => number} heightOf
 * @returns {number[]}
 */
export function rowTops(n, heightOf) {
  const tops = new Array(n + 1);
  let y = 0;
  for (let i = 0; i < n; i++) {
    tops[i] = y;
    y += heightOf(i);
  }
  tops[n] = y;
  return tops;
}

/**
 * The first of the `n` rows (laid out by `tops`) whose bottom is below `y`; `n` when none is.
 * @param {number[]} tops
 * @param {number} n
 * @param {number} y
 */
export function rowAt(tops, n, y) {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tops[mid + 1] <= y) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The rows to mount, `[from, to)`, for a view `height` tall scrolled to `y` (relative to the
 * list's top, possibly negative when the list starts below the view's top), with `overscan`
 * rows more on each side.
 * @param {number[]} tops
 * @param {number} n
 * @param {number} y
 * @param {number} height
 * @param {number} [overscan]
 * @returns {[number, number]}
 */
export function rowWindow(tops, n, y, height, overscan = OVERSCAN) {
  const from = Math.max(0, rowAt(tops, n, Math.max(0, y)) - overscan);
  const to = Math.min(n, rowAt(tops, n, y + height) + 1 + overscan);
  return [from, to];
}

/**
 * The scroll position that shows rows `from`..=`index` moving as little as needed, or `null`
 * when they already show. `offset` is the list's top inside the scroller.
 * @param {number[]} tops
 * @param {number} index
 * @param {number} from
 * @param {number} offset
 * @param {number} scrollTop
 * @param {number} view
 * @returns {number | null}
 */
export function revealScroll(tops, index, from, offset, scrollTop, view) {
  const top = offset + tops[Math.max(0, Math.min(from, index))];
  const bottom = offset + tops[index + 1];
  if (top < scrollTop) return top;
  if (bottom > scrollTop + view) return Math.min(top, bottom - view);
  return null;
}

/** @template T */
export class VirtualList {
  /**
   * `scroller` scrolls; `list` (inside it) holds the rows. `kindOf(item)` names the row's kind
   * (every row of one kind has the same height, measured once from a rendered row);
   * `keyOf(item)` is a stable key; `render(item, index)` builds a row's element and
   * `place(row, item, index)` (optional) updates a mounted row whose index may have changed.
   * The scroller must be positioned (`position: relative`), so offsets are measured from it.
   */
  /**
   * @param {{
   *   scroller: HTMLElement,
   *   list: HTMLElement,
   *   kindOf: (item: T) => string,
   *   keyOf: (item: T) => string,
   *   render: (item: T, index: number) => HTMLElement,
   *   place?: (row: HTMLElement, item: T, index: number) => void,
   * }} options
   */
  constructor({ scroller, list, kindOf, keyOf, render, place = () => {} }) {
    this.scroller = scroller;
    this.list = list;
    this.kindOf = kindOf;
    this.keyOf = keyOf;
    this.render = render;
    this.place = place;
    /** @type {T[]} */
    this.items = [];
    this.tops = [0]; // tops[i]: where item i starts; tops[n]: the list's height
    /** @type {Map<string, number>} kind -> px */
    this.heights = new Map();
    /** @type {Map<string, HTMLElement>} key -> element, the rows in the DOM now */
    this.mounted = new Map();
    this.list.style.position = "relative";
    let queued = false;
    const onScroll = () => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => { queued = false; this.renderWindow(); });
    };
    scroller.addEventListener("scroll", onScroll, { passive: true });
    new ResizeObserver(onScroll).observe(scroller);
  }

  /**
   * Replaces the items. `fresh`: their content changed, so no mounted row can be kept.
   * @param {T[]} items
   */
  setItems(items, fresh = false) {
    if (fresh) this.unmountAll();
    this.items = items;
    this.layout();
    this.renderWindow();
  }

  /** The index of the item with `key`, or -1. @param {string} key */
  indexOf(key) {
    return this.items.findIndex((item) => this.keyOf(item) === key);
  }

  /** The mounted row of `key`, if it is in the DOM now. @param {string} key */
  rowOf(key) {
    return this.mounted.get(key);
  }

  /** Scrolls as little as needed for item `index` (and `from`, an item above it) to show. */
  /** @param {number} index @param {number} [from] */
  reveal(index, from = index) {
    if (index < 0 || index >= this.items.length) return;
    const to = revealScroll(this.tops, index, from, this.list.offsetTop, this.scroller.scrollTop, this.scroller.clientHeight);
    if (to !== null) this.scroller.scrollTop = to;
    this.renderWindow();
  }

  /** Measures each row kind not measured yet, then the top of every item. */
  layout() {
    for (const item of this.items) {
      const kind = this.kindOf(item);
      if (this.heights.has(kind)) continue;
      const probe = this.render(item, this.items.indexOf(item));
      probe.style.visibility = "hidden";
      this.list.append(probe);
      const height = probe.getBoundingClientRect().height;
      probe.remove();
      // A hidden list measures 0: guess now, measure again next time.
      if (height > 0) this.heights.set(kind, height);
    }
    this.tops = rowTops(this.items.length, (i) => this.heights.get(this.kindOf(this.items[i])) ?? GUESS);
    this.list.style.height = `${this.tops[this.items.length]}px`;
  }

  /** The first item whose bottom is below `y`. @param {number} y */
  indexAt(y) {
    return rowAt(this.tops, this.items.length, y);
  }

  /** Mounts the rows in view (plus the overscan) and unmounts the rest; keeps rows already in. */
  renderWindow() {
    const y = this.scroller.scrollTop - this.list.offsetTop;
    const [from, to] = rowWindow(this.tops, this.items.length, y, this.scroller.clientHeight);
    /** @type {Map<string, number>} */
    const wanted = new Map();
    for (let i = from; i < to; i++) wanted.set(this.keyOf(this.items[i]), i);
    for (const [key, row] of this.mounted) {
      if (!wanted.has(key)) {
        row.remove();
        this.mounted.delete(key);
      }
    }
    // In item order in the DOM too, as a screen reader reads them.
    /** @type {HTMLElement | null} */
    let prev = null;
    for (const [key, i] of wanted) {
      let row = this.mounted.get(key);
      if (!row) {
        row = this.render(this.items[i], i);
        row.style.position = "absolute";
        row.style.left = "0";
        row.style.right = "0";
        this.mounted.set(key, row);
      } else {
        this.place(row, this.items[i], i);
      }
      row.style.top = `${this.tops[i]}px`;
      if (row.previousElementSibling !== prev || !row.isConnected) {
        if (prev) prev.after(row);
        else this.list.prepend(row);
      }
      prev = row;
    }
  }

  /** Drops every mounted row (the next render builds them again). */
  unmountAll() {
    for (const row of this.mounted.values()) row.remove();
    this.mounted.clear();
  }
}
