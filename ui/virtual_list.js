// A windowed list: of a long array of items, only the rows in (or near) the scroller's view are
// in the DOM, placed over a spacer as tall as the whole list. Knows nothing about skills.

/** Rows rendered above and below the view, so a fast scroll rarely shows a gap. */
const OVERSCAN = 8;
/** A row's height before it could be measured (the list was hidden). */
const GUESS = 48;

export class VirtualList {
  /**
   * `scroller` scrolls; `list` (inside it) holds the rows. `kindOf(item)` names the row's kind
   * (every row of one kind has the same height, measured once from a rendered row);
   * `keyOf(item)` is a stable key; `render(item, index)` builds a row's element and
   * `place(row, item, index)` (optional) updates a mounted row whose index may have changed.
   * The scroller must be positioned (`position: relative`), so offsets are measured from it.
   */
  constructor({ scroller, list, kindOf, keyOf, render, place = () => {} }) {
    Object.assign(this, { scroller, list, kindOf, keyOf, render, place });
    this.items = [];
    this.tops = [0]; // tops[i]: where item i starts; tops[n]: the list's height
    this.heights = new Map(); // kind -> px
    this.mounted = new Map(); // key -> element, the rows in the DOM now
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

  /** Replaces the items. `fresh`: their content changed, so no mounted row can be kept. */
  setItems(items, fresh = false) {
    if (fresh) this.unmountAll();
    this.items = items;
    this.layout();
    this.renderWindow();
  }

  /** The index of the item with `key`, or -1. */
  indexOf(key) {
    return this.items.findIndex((item) => this.keyOf(item) === key);
  }

  /** The mounted row of `key`, if it is in the DOM now. */
  rowOf(key) {
    return this.mounted.get(key);
  }

  /** Scrolls as little as needed for item `index` (and `from`, an item above it) to show. */
  reveal(index, from = index) {
    if (index < 0 || index >= this.items.length) return;
    const offset = this.list.offsetTop;
    const top = offset + this.tops[Math.max(0, Math.min(from, index))];
    const bottom = offset + this.tops[index + 1];
    const view = this.scroller.clientHeight;
    if (top < this.scroller.scrollTop) this.scroller.scrollTop = top;
    else if (bottom > this.scroller.scrollTop + view) this.scroller.scrollTop = Math.min(top, bottom - view);
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
    const tops = new Array(this.items.length + 1);
    let y = 0;
    for (let i = 0; i < this.items.length; i++) {
      tops[i] = y;
      y += this.heights.get(this.kindOf(this.items[i])) ?? GUESS;
    }
    tops[this.items.length] = y;
    this.tops = tops;
    this.list.style.height = `${y}px`;
  }

  /** The first item whose bottom is below `y`. */
  indexAt(y) {
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.tops[mid + 1] <= y) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Mounts the rows in view (plus the overscan) and unmounts the rest; keeps rows already in. */
  renderWindow() {
    const y = this.scroller.scrollTop - this.list.offsetTop;
    const from = Math.max(0, this.indexAt(Math.max(0, y)) - OVERSCAN);
    const to = Math.min(this.items.length, this.indexAt(y + this.scroller.clientHeight) + 1 + OVERSCAN);
    const wanted = new Map();
    for (let i = from; i < to; i++) wanted.set(this.keyOf(this.items[i]), i);
    for (const [key, row] of this.mounted) {
      if (!wanted.has(key)) {
        row.remove();
        this.mounted.delete(key);
      }
    }
    // In item order in the DOM too, as a screen reader reads them.
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
