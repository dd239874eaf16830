// @ts-check
// Timings for scripts/bench-app, measured in the page with performance.now() and printed by the
// backend when SKILLDECK_TRACE_UI=1 (the `ui_trace` command). Does nothing otherwise.

import { invoke } from "./api.js";

/** Launch phases, in ms since the page's navigation started. */
const marks = [["page script started", performance.now()]];

/** Notes when launch phase `label` ended. */
export function mark(label) {
  marks.push([label, performance.now()]);
}

/** Resolves after the next frame is painted. */
export const nextPaint = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));

const trace = (label, ms) => invoke("ui_trace", { label, ms });

/**
 * When tracing is on: reports the launch phases, then times arrow steps (to the sidebar's
 * paint, and to the viewer showing the skill; `step()` moves the selection and resolves once
 * the skill shows) and search keystrokes typed into `search` (to the paint).
 */
export async function traceInteractions(step, search) {
  if (!(await trace("", 0).catch(() => false))) return;
  for (const [label, ms] of marks) await trace(`launch, ${label}`, ms);
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    const shown = step();
    const handled = performance.now() - t0;
    await nextPaint();
    const painted = performance.now() - t0;
    await trace("arrow step, script done", handled);
    await trace("arrow step, sidebar painted", painted);
    await shown;
    await nextPaint();
    await trace("arrow step, skill shown", performance.now() - t0);
  }
  let typed = "";
  for (const ch of "skill-19") {
    typed += ch;
    const t0 = performance.now();
    search.value = typed;
    search.dispatchEvent(new Event("input"));
    const handled = performance.now() - t0;
    await nextPaint();
    const painted = performance.now() - t0;
    await trace("search keystroke, script done", handled);
    await trace("search keystroke, painted", painted);
  }
  search.value = "";
  search.dispatchEvent(new Event("input"));
}
