// The virtual list's arithmetic: where rows start, which are in view, where a reveal scrolls.
import { test } from "node:test";
import assert from "node:assert/strict";
import { revealScroll, rowAt, rowTops, rowWindow } from "../../ui/virtual_list.js";

// A head (30 px) and skill rows (48 px), as the sidebar mixes them.
const heights = [30, 48, 48, 48, 30, 48, 48];
const tops = rowTops(heights.length, (i) => heights[i]);
const n = heights.length;

test("rowTops: each row starts where the one before ends; the last entry is the height", () => {
  assert.deepEqual(tops, [0, 30, 78, 126, 174, 204, 252, 300]);
  assert.deepEqual(rowTops(0, () => 10), [0]);
});

test("rowAt: the first row whose bottom is below y", () => {
  assert.equal(rowAt(tops, n, 0), 0);
  assert.equal(rowAt(tops, n, 29), 0);
  assert.equal(rowAt(tops, n, 30), 1, "a row's bottom edge belongs to the next row");
  assert.equal(rowAt(tops, n, 299), 6);
  assert.equal(rowAt(tops, n, 300), n, "past the end: n");
  assert.equal(rowAt(tops, n, 10_000), n);
  assert.equal(rowAt([0], 0, 5), 0, "an empty list");
});

test("rowWindow: the rows in view plus the overscan, clamped to the list", () => {
  assert.deepEqual(rowWindow(tops, n, 0, 100, 0), [0, 3], "0..100 touches rows 0, 1, 2");
  assert.deepEqual(rowWindow(tops, n, 130, 50, 1), [2, 6], "rows 3-4 in view, one more each side, +1 past the last");
  assert.deepEqual(rowWindow(tops, n, 0, 100, 8), [0, n], "overscan never leaves the list");
  assert.deepEqual(rowWindow(tops, n, -500, 100, 0), [0, 1], "a list below the view's top starts at row 0");
  assert.deepEqual(rowWindow([0], 0, 0, 100, 8), [0, 0], "an empty list mounts nothing");
});

test("rowWindow: a long list mounts a bounded number of rows wherever it is scrolled", () => {
  const big = rowTops(100_000, () => 48);
  for (const y of [0, 48 * 5_000 + 17, 48 * 99_990]) {
    const [from, to] = rowWindow(big, 100_000, y, 800);
    assert.ok(to - from <= Math.ceil(800 / 48) + 2 + 16, `${to - from} rows at ${y}`);
    assert.ok(big[from] <= y && big[to] >= Math.min(y + 800, big[100_000]), "the window covers the view");
  }
});

test("revealScroll: scrolls as little as needed, or not at all", () => {
  // View 100 px tall, list at offset 10 in the scroller.
  assert.equal(revealScroll(tops, 1, 1, 10, 0, 100), null, "row 1 (40..88) shows already");
  assert.equal(revealScroll(tops, 3, 3, 10, 0, 100), 84, "row 3 spans 136..184: scroll so its bottom shows");
  assert.equal(revealScroll(tops, 0, 0, 10, 200, 100), 10, "row 0 above the view: its top goes to the top");
  assert.equal(revealScroll(tops, 6, 4, 10, 0, 100), 184, "from row 4: its top wins when both cannot show");
});
