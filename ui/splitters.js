// @ts-check
// Draggable splitters between the sidebar, the file tree and the viewer: widths follow the
// pointer (or the arrow keys), stay within bounds, and are remembered across launches.

const KEY = "skilldeck.widths";
const BOUNDS = { sidebar: [160, 520], files: [140, 480] };

function load() {
  try {
    return JSON.parse(localStorage.getItem(KEY)) || {};
  } catch {
    return {};
  }
}

function apply(layout, widths) {
  for (const [pane, px] of Object.entries(widths)) {
    const [lo, hi] = BOUNDS[pane] || [0, 0];
    // Never wider than a third of the window each, so the viewer keeps its room.
    const max = Math.min(hi, Math.floor(window.innerWidth / 3));
    layout.style.setProperty(`--${pane}-w`, `${Math.max(lo, Math.min(max, px))}px`);
  }
}

/** Wires `#split-sidebar` and `#split-files` in `.layout`. */
export function initSplitters() {
  const layout = document.querySelector(".layout");
  const widths = load();
  apply(layout, widths);
  window.addEventListener("resize", () => apply(layout, widths));
  for (const [id, pane] of [["split-sidebar", "sidebar"], ["split-files", "files"]]) {
    const bar = document.getElementById(id);
    const target = document.getElementById(pane);
    const set = (px) => {
      widths[pane] = Math.round(px);
      apply(layout, widths);
      localStorage.setItem(KEY, JSON.stringify(widths));
    };
    bar.addEventListener("pointerdown", (e) => {
      e.preventDefault();
      bar.setPointerCapture(e.pointerId);
      bar.classList.add("dragging");
      const left = target.getBoundingClientRect().left;
      const move = (ev) => set(ev.clientX - left);
      const up = () => {
        bar.classList.remove("dragging");
        bar.removeEventListener("pointermove", move);
        bar.removeEventListener("pointerup", up);
      };
      bar.addEventListener("pointermove", move);
      bar.addEventListener("pointerup", up);
    });
    bar.addEventListener("keydown", (e) => {
      if (e.key !== "ArrowLeft" && e.key !== "ArrowRight") return;
      e.preventDefault();
      set(target.getBoundingClientRect().width + (e.key === "ArrowRight" ? 16 : -16));
    });
  }
}
