// @ts-check
// The import dialog for a folder or archive holding many skills: a preview of each (new,
// will become v:N, identical to v:N, refused) with checkboxes, then the import of the chosen
// ones as one batch, with progress from the backend's `import://progress` events.

import { el, size } from "./dom.js";
import { errorText, t } from "./i18n.js";
import { diagMessage } from "./diag_i18n.js";
import { itemFindings } from "./risks.js";

import { invoke } from "./api.js";
const { listen } = window.__TAURI__.event;

/** The badge text of an item's state. */
function stateText(item) {
  if (item.state === "new") return t("newSkill");
  if (item.state === "update") return t("willBecome", item.revision);
  if (item.state === "identical") return t("identicalTo", item.revision);
  if (item.state === "imported") return `v:${item.revision}`;
  return t("refusedItem");
}

/** Runs `work` while a progress bar in `box` follows the backend's progress events. */
export async function withProgress(box, work) {
  const bar = el("progress", { id: "import-progress", max: "1", value: "0" });
  const label = el("span", { class: "hint", id: "import-progress-text", text: t("checking") });
  const row = el("div", { class: "progress-row" }, bar, label);
  box.append(row);
  const stop = await listen("import://progress", (e) => {
    const { phase, done, total } = e.payload;
    bar.max = String(Math.max(total, 1));
    bar.value = String(done);
    label.textContent = t(phase === "writing" ? "progressWriting" : "progressReading", done, total);
  });
  try {
    return await work();
  } finally {
    stop();
    row.remove();
  }
}

/** One row of the list: checkbox, name, where it is, what importing it would do, problems. */
export function itemRow(item, index) {
  const choosable = item.state === "new" || item.state === "update";
  const where = item.name && item.location !== "." && item.location !== item.name;
  const box = el("input", {
    type: "checkbox", class: "pick", dataset: { location: item.location },
    checked: choosable, disabled: !choosable, "aria-label": item.name || item.location,
  });
  const errors = item.diagnostics.filter((d) => d.severity === "error");
  const warnings = item.diagnostics.length - errors.length;
  const problems = item.error
    ? el("div", { class: "error reason", text: errorText(item.error) })
    : errors.length
      ? el("div", { class: "error reason", text: `${t("invalid", errors.length)}: ${diagMessage(errors[0])}` })
      : null;
  const [riskMarker, findings] = itemFindings(item.audit);
  return el("li", { class: `collection-item state-${item.state}`, dataset: { location: item.location, index: String(index) } },
    el("label", { class: "check" },
      box,
      el("span", { class: "item-name", text: item.name || item.location }),
      where ? el("span", { class: "muted item-location", text: item.location }) : null,
      el("span", { class: `badge state-badge state-${item.state}`, text: stateText(item) }),
      !item.valid && item.name ? el("span", { class: "marker error", text: t("invalidShort") }) : null,
      warnings && !errors.length ? el("span", { class: "marker warn", text: t("warningsN", warnings) }) : null,
      item.asksForTools ? el("span", { class: "marker", title: t("asksForToolsTitle"), text: t("asksForTools") }) : null,
      riskMarker,
      item.fileCount ? el("span", { class: "muted item-size", text: size(item.totalBytes) }) : null,
    ),
    problems,
    findings,
  );
}

/**
 * Previews the collection at `path` into `box`; returns the chosen locations' getter, or null
 * when the preview failed (the error is shown in `box`). `onChange(count)` hears the choice.
 */
export async function previewCollection(box, path, onChange) {
  const view = await withProgress(box, () => invoke("import_collection_preview", { path, scope: "user" }));
  const counts = { new: 0, update: 0, identical: 0, refused: 0 };
  for (const i of view.items) counts[i.state] = (counts[i.state] || 0) + 1;
  const list = el("ul", { class: "collection", id: "collection-list" }, ...view.items.map(itemRow));
  const chosen = () => [...list.querySelectorAll("input.pick:checked")].map((c) => c.dataset.location);
  const setAll = (on) => {
    for (const c of list.querySelectorAll("input.pick:not(:disabled)")) c.checked = on;
    onChange(chosen().length);
  };
  list.addEventListener("change", () => onChange(chosen().length));
  box.replaceChildren(
    el("div", { class: "preview-head" },
      el("strong", { id: "collection-count", text: t("collectionFound", view.items.length) }),
      el("span", { class: "hint", text: t("collectionCounts", counts.new, counts.update, counts.identical, counts.refused) }),
    ),
    el("div", { class: "row" },
      el("button", { type: "button", id: "pick-all", text: t("selectAll"), onclick: () => setAll(true) }),
      el("button", { type: "button", id: "pick-none", text: t("selectNone"), onclick: () => setAll(false) }),
    ),
    list,
  );
  onChange(chosen().length);
  return chosen;
}

/** Imports `locations` of the collection at `path`; returns the backend's report. */
export async function importCollection(box, path, locations) {
  return withProgress(box, () => invoke("import_collection", { path, scope: "user", locations }));
}
