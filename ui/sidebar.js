// @ts-check
// The sidebar: every skill grouped by scope, then the deleted ones, as a listbox of which only
// the rows in view are in the DOM (see virtual_list.js). Holds search, the highlight and the
// skills picked for a bulk action (Ctrl/Cmd-click, Shift-click, Ctrl/Cmd-A); what a selection
// opens, and what the bulk bar does, is app.js's and bulk.js's.

import { $, el } from "./dom.js";
import { language, t } from "./i18n.js";
import { CHIPS, filterRows, passesChips, searchable, stepKey } from "./skill_filter.js";
import { invoke } from "./api.js";
import { keepShown, pickRange, toggleKey } from "./selection.js";
import { VirtualList } from "./virtual_list.js";

// In shadowing order, the one that wins first: user over team over system.
const SCOPES = [["user", "userScope"], ["team", "teamScope"], ["system", "systemScope"]];

/** The names of the user's skills whose source has an update waiting. */
let updatesWaiting = new Set();

const side = {
  list: null, // the VirtualList
  box: null, // the listbox element
  empty: null, // "No skills match."
  groups: [], // [{head, rows}] per scope, rows as built by `setSkills`
  deleted: [], // rows of deleted skills
  total: 0,
  query: "",
  flags: new Set(), // the filter chips turned on: invalid, warnings, off, user, system
  chips: null,
  selected: null,
  /** @type {Set<string>} the skills picked for a bulk action (Ctrl/Cmd-click, Shift-click) */
  picked: new Set(),
  /** @type {string | null} where a Shift-click's range starts: the last row clicked */
  anchor: null,
  bar: null, // the bulk bar above the list (bulk.js draws it)
  options: 0, // how many options the filtered list holds (aria-setsize)
  /** @type {{ q: string, keys: string[] }} what ranking by meaning found for query `q` */
  meaning: { q: "", keys: [] },
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  meaningTimer: undefined,
  /** @type {(key: string) => void} */
  onSelect: () => {},
  /** @type {(...args: any[]) => void} */
  onDeleted: () => {},
  /** @type {(...args: any[]) => void} */
  onTeamRefresh: () => {},
  /** @type {(skills: import("./types/bindings").SkillRow[]) => void} */
  onPicked: () => {},
  team: null, // the team store's status: {configured, url, lastRefresh, offline}
};

/** `${scope}/${name}`: a skill's key everywhere in the UI. */
export const keyOf = (s) => `${s.scope}/${s.name}`;

/** Markdown emphasis, code and links as the plain text a person reads in the sidebar. */
function plainText(md) {
  return md
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/(\*\*|__)(.+?)\1/g, "$2")
    .replace(/(^|[\s(])[*_]([^*_\s][^*_]*?)[*_](?=[\s).,;:!?]|$)/g, "$1$2")
    .replace(/`([^`]*)`/g, "$1")
    .replace(/^\s*#+\s*/, "")
    .replace(/\s+/g, " ")
    .trim();
}

function description(skill) {
  return plainText((language() === "zh" && skill.descriptionZh) || skill.description || "");
}

/**
 * Puts the sidebar into `#sidebar`. `onSelect(key)` runs when a skill's row is clicked,
 * `onDeleted(row)` when a deleted skill's is, `onPicked(skills)` whenever the skills picked for
 * a bulk action change (or the list is drawn again), with those skills in list order.
 */
export function initSidebar({ onSelect, onDeleted, onTeamRefresh, onPicked }) {
  Object.assign(side, { onSelect, onDeleted, onTeamRefresh, onPicked });
  // The skills whose source has an update (updates.js says so after every check).
  window.addEventListener("skilldeck:updates", (e) => {
    const names = /** @type {CustomEvent<string[]>} */ (e).detail;
    const same = names.length === updatesWaiting.size && names.every((n) => updatesWaiting.has(n));
    if (same) return;
    updatesWaiting = new Set(names);
    if (side.list) filter(side.query, true);
  });
  const scroller = $("#sidebar");
  side.box = el("div", {
    id: "skill-list", class: "vlist", role: "listbox", tabindex: "0", "aria-label": t("tabSkills"), "aria-multiselectable": "true",
  });
  side.empty = el("p", { class: "empty", hidden: true });
  side.chips = el("div", { class: "filters", role: "group", id: "sidebar-filters" });
  side.bar = el("div", { id: "bulk-bar", class: "bulk-bar", role: "toolbar", hidden: true });
  scroller.replaceChildren(side.chips, side.bar, side.box, side.empty);
  renderChips();
  side.box.addEventListener("keydown", pageKeys);
  side.box.addEventListener("keydown", pickKeys);
  side.bar.addEventListener("keydown", pickKeys);
  side.list = new VirtualList({
    scroller,
    list: side.box,
    kindOf: (item) => item.kind,
    keyOf: (item) => item.key,
    render: renderItem,
    place: placeItem,
  });
}

/** Shows a new load of skills and deleted skills (or the same in another language). */
export function setSkills(skills, deleted) {
  let id = 0;
  const row = (skill) => ({
    kind: "skill",
    key: keyOf(skill),
    id: `skill-opt-${id++}`,
    skill,
    // What a search matches and ranks on, worked out once per load, not per keystroke.
    search: searchable(skill),
    pos: 0,
  });
  side.groups = SCOPES.map(([scope, label]) => ({
    head: headOf(scope, label),
    rows: skills.filter((s) => s.scope === scope).map(row),
  }));
  side.deleted = deleted.length
    ? [{ kind: "head", key: "head:deleted", text: t("deletedScope") },
      ...deleted.map((d) => ({ kind: "deleted", key: `deleted:${keyOf(d)}`, id: `skill-opt-${id++}`, skill: d, pos: 0 }))]
    : [];
  side.total = skills.length;
  side.empty.textContent = t("noSkills");
  side.box.setAttribute("aria-label", t("tabSkills"));
  renderChips();
  filter(side.query, true);
}

/** A group's heading; the team's carries its refresh state in its key, so a new state redraws it. */
function headOf(scope, label) {
  const st = scope === "team" ? side.team : null;
  const key = st ? `head:team:${st.lastRefresh || ""}:${st.offline ? "off" : "on"}` : `head:${scope}`;
  return { kind: "head", key, text: t(label), team: st };
}

/** Shows the team store's refresh state in the team group's heading. */
export function setTeamStatus(status) {
  side.team = status && status.configured ? status : null;
  if (side.chips) renderChips();
  const g = side.groups.find((x) => x.head.key.startsWith("head:team"));
  if (!g) return;
  g.head = headOf("team", "teamScope");
  filter(side.query, false);
}

/** The team heading: its name, when it was last refreshed, an offline marker, and Refresh. */
function teamHead(item) {
  const st = item.team;
  const at = st.lastRefresh ? new Date(st.lastRefresh) : null;
  // Today's time alone, else the date: the heading has room for one short word.
  const when = !at ? t("teamNever")
    : at.toDateString() === new Date().toDateString() ? at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })
      : at.toLocaleDateString();
  return el("div", { class: "scope team-head", role: "presentation", dataset: { team: st.offline ? "offline" : "online" } },
    el("span", { text: item.text }),
    el("span", { class: "team-state", id: "team-state", title: at ? at.toLocaleString() : "", text: t("teamRefreshed", when) }),
    st.offline ? el("span", { class: "marker warn", id: "team-offline", title: st.offline, text: t("teamOffline") }) : null,
    st.problems?.length
      ? el("span", { class: "marker warn", id: "team-problems", title: st.problems.join("\n"), text: t("teamProblems", st.problems.length) })
      : null,
    el("button", { type: "button", class: "link", id: "team-refresh", text: t("teamRefresh"), onclick: () => side.onTeamRefresh() }));
}

/**
 * Shows the skills whose name or description holds every word of `text` (any case, any order),
 * those whose name starts with it first; the count says how many.
 */
export function setFilter(text) {
  filter(text.trim().toLowerCase(), false);
}

/** Whether skill `key` is in the list as the search and the chips leave it. */
export function isShown(key) {
  return side.list.indexOf(key) >= 0;
}

/** Turns every chip off and shows the whole list (the search box is the caller's to empty). */
export function clearFilters() {
  side.flags.clear();
  renderChips();
  filter("", false);
}

/** Whether the store has a team scope to filter by: a team remote, or team skills on disk. */
function hasTeam() {
  return !!side.team || (side.groups || []).some((g) => g.head.key.startsWith("head:team") && g.rows.length > 0);
}

/** Draws the chips in the current language, each pressed or not; "Team" only when there is one. */
function renderChips() {
  side.chips.setAttribute("aria-label", t("filtersLabel"));
  if (!hasTeam()) side.flags.delete("team");
  const chips = CHIPS.filter(([id]) => id !== "team" || hasTeam());
  side.chips.replaceChildren(...chips.map(([id]) => el("button", {
    type: "button",
    class: `chip-filter${side.flags.has(id) ? " on" : ""}`,
    dataset: { filter: id },
    "aria-pressed": String(side.flags.has(id)),
    text: t(`filter_${id}`),
    onclick: () => {
      if (!side.flags.delete(id)) side.flags.add(id);
      renderChips();
      filter(side.query, false);
    },
  })));
}

function filter(q, fresh) {
  if (q !== side.query) askMeaning(q);
  side.query = q;
  const narrowed = side.flags.size > 0;
  const { items, shown, ignored } = filterRows(side.groups, side.deleted, q, side.flags);
  // When no name or description holds the words: what ranking by meaning finds instead.
  const related = q && !shown && side.meaning.q === q ? relatedRows(items) : [];
  if (related.length) items.push({ kind: "head", key: "head:related", text: t("relatedByMeaning") }, ...related);
  let pos = 0;
  for (const item of items) if (item.kind !== "head") item.pos = ++pos;
  side.options = pos;
  side.list.setItems(items, fresh);
  // A bulk action acts on what the list shows: picked skills a search or chip hides are dropped.
  side.picked = keepShown(side.picked, shownKeys());
  paintPicked();
  side.empty.hidden = shown > 0;
  side.empty.textContent = related.length ? t("noSkillsButRelated") : t("noSkills");
  const count = $("#search-count");
  count.textContent = !(q || narrowed) ? ""
    : ignored.length ? t("searchCountIgnoring", shown, side.total, ignored.join(" ")) : t("searchCount", shown, side.total);
  count.title = count.textContent;
  count.hidden = !(q || narrowed);
  markActive();
}

/** How long typing must pause before the search asks for ranking by meaning, in ms. */
const MEANING_PAUSE = 150;

/**
 * Asks the backend what `q` finds by meaning (and by words), once typing pauses; the answer
 * redraws the list when it is still the query shown. A failure leaves the literal matches.
 * @param {string} q
 */
function askMeaning(q) {
  clearTimeout(side.meaningTimer);
  if (!q) {
    side.meaning = { q: "", keys: [] };
    return;
  }
  side.meaningTimer = setTimeout(async () => {
    try {
      const hits = await invoke("search_by_meaning", { query: q, limit: 8 });
      if (side.query !== q) return;
      side.meaning = { q, keys: hits.map((h) => `${h.scope}/${h.name}`) };
      filter(q, false);
    } catch {
      // Ranking by meaning is a help: without it the literal matches stand.
    }
  }, MEANING_PAUSE);
}

/**
 * The rows ranking by meaning found for the current query that the list does not show yet
 * (and that the chips let through), in its order.
 * @param {any[]} items
 */
function relatedRows(items) {
  const shownKeys = new Set(items.map((i) => i.key));
  const byKey = new Map(side.groups.flatMap((g) => g.rows).map((r) => [r.key, r]));
  return side.meaning.keys
    .filter((k) => !shownKeys.has(k))
    .map((k) => byKey.get(k))
    .filter((r) => r && passesChips(r.skill, side.flags));
}

/** The keys of the skills the list shows, in order (deleted skills are not among them). */
function shownKeys() {
  return side.list.items.filter((i) => i.kind === "skill").map((i) => i.key);
}

/** The key `delta` rows from the selected skill among those shown (the first if none is). */
export function stepFrom(key, delta) {
  return stepKey(shownKeys(), key, delta);
}

// ---------- picking skills for a bulk action ----------

/**
 * A click on skill `key`'s row: Ctrl/Cmd toggles it among the picked (the skill on show joins
 * the first time), Shift picks the range from the last row clicked (added with Ctrl/Cmd), a
 * plain click drops the picked and opens the skill.
 * @param {MouseEvent} e
 * @param {string} key
 */
function clickRow(e, key) {
  const toggle = e.ctrlKey || e.metaKey;
  if (e.shiftKey) {
    setPicked(pickRange(side.picked, shownKeys(), side.anchor ?? side.selected, key, toggle));
    return;
  }
  if (toggle) {
    const shownSelected = side.selected && side.selected !== key && side.list.indexOf(side.selected) >= 0;
    const from = side.picked.size === 0 && shownSelected ? new Set([side.selected]) : side.picked;
    setPicked(toggleKey(from, key));
    side.anchor = key;
    return;
  }
  if (side.picked.size) setPicked(new Set());
  side.onSelect(key);
}

/** Ctrl/Cmd-A picks every skill shown; Escape drops the picked. */
function pickKeys(e) {
  if (e.key.toLowerCase() === "a" && (e.ctrlKey || e.metaKey) && e.currentTarget === side.box) {
    e.preventDefault();
    setPicked(new Set(shownKeys()));
  } else if (e.key === "Escape" && side.picked.size) {
    e.preventDefault();
    setPicked(new Set());
    side.box.focus();
  }
}

/** @param {Set<string>} picked */
function setPicked(picked) {
  side.picked = picked;
  paintPicked();
}

/** Marks the picked rows in the DOM and tells `onPicked` which skills they are. */
function paintPicked() {
  for (const [key, row] of side.list.mounted) {
    if (row.getAttribute("role") !== "option") continue;
    row.classList.toggle("picked", side.picked.has(key));
    row.setAttribute("aria-selected", String(key === side.selected || side.picked.has(key)));
  }
  side.onPicked(side.list.items.filter((i) => i.kind === "skill" && side.picked.has(i.key)).map((i) => i.skill));
}

/** Drops the skills picked for a bulk action. */
export function clearPicked() {
  setPicked(new Set());
}

/** Home, End, PageUp and PageDown select the first, the last, or a view's worth away. */
function pageKeys(e) {
  const page = Math.max(1, Math.floor(side.list.scroller.clientHeight / (side.list.heights.get("skill") || 48)) - 1);
  const delta = { Home: -Infinity, End: Infinity, PageUp: -page, PageDown: page }[e.key];
  if (delta === undefined) return;
  e.preventDefault();
  const key = stepFrom(side.selected, delta);
  if (key) side.onSelect(key);
}

/** Highlights the skill `key` (or nothing), wherever the list is scrolled. */
export function markSelected(key) {
  side.list.rowOf(side.selected)?.classList.remove("selected");
  side.list.rowOf(side.selected)?.setAttribute("aria-selected", String(side.picked.has(side.selected)));
  side.selected = key;
  // A Shift-click after moving with the keys ranges from the skill on show.
  if (!side.picked.size) side.anchor = key;
  const row = side.list.rowOf(key);
  row?.classList.add("selected");
  row?.setAttribute("aria-selected", "true");
  markActive();
}

/** Scrolls the list so skill `key` shows (with its scope's heading when it is the first). */
export function reveal(key) {
  const i = side.list.indexOf(key);
  if (i < 0) return;
  side.list.reveal(i, side.list.items[i - 1]?.kind === "head" ? i - 1 : i);
  markActive();
}

/** Tells assistive technology which option is the current one, when it is in the DOM. */
function markActive() {
  const row = side.list.rowOf(side.selected);
  if (row) side.box.setAttribute("aria-activedescendant", row.id);
  else side.box.removeAttribute("aria-activedescendant");
}

function renderItem(item) {
  if (item.kind === "head" && item.team) return teamHead(item);
  if (item.kind === "head") return el("div", { class: "scope", role: "presentation", text: item.text });
  const s = item.skill;
  const selected = item.key === side.selected;
  const picked = side.picked.has(item.key);
  const attrs = {
    id: item.id,
    role: "option",
    "aria-selected": String(selected || picked),
    "aria-posinset": String(item.pos),
    "aria-setsize": String(side.options),
  };
  if (item.kind === "deleted") {
    return el("div", {
      ...attrs,
      class: "skill-item deleted",
      dataset: { deleted: keyOf(s) },
      onclick: () => side.onDeleted(s),
    }, el("span", { class: "skill-name", text: s.name }), el("span", { class: "badge", text: `v:${s.revision}` }));
  }
  const text = description(s);
  return el("div", {
    ...attrs,
    class: `skill-item${s.valid ? "" : " invalid"}${selected ? " selected" : ""}${picked ? " picked" : ""}`,
    dataset: { key: item.key },
    title: text,
    onclick: (e) => clickRow(e, item.key),
  },
  el("span", { class: "skill-name", text: s.name }),
  s.version ? el("span", { class: "badge", text: `v:${s.version}` }) : null,
  el("span", { class: "skill-sub" },
    s.valid ? null : el("span", { class: "marker error", text: `⚠ ${t("invalid", s.errors)}` }),
    s.held ? el("span", { class: "marker held", title: t("heldTitle", t(`sev_${s.risk}`)), text: `⛔ ${t("held")}` }) : null,
    updatesWaiting.has(s.name) && s.scope === "user" ? el("span", { class: "marker update", title: t("updateWaitingTitle"), text: `↻ ${t("updateWaiting")}` }) : null,
    s.riskApproved ? el("span", { class: "marker approved-risk", title: t("riskApprovedTitle", t(`sev_${s.risk}`)), text: `⚠✓ ${t("riskApproved")}` }) : null,
    s.userInvokedOnly ? el("span", { class: "marker muted user-only", title: t("userInvokedOnlyTitle"), text: t("userInvokedOnly") }) : null,
    s.shadowed ? el("span", { class: "marker muted", title: t("shadowedTitle"), text: t("shadowed") }) : null,
    s.enabled ? null : el("span", { class: "marker muted off", title: t("offTitle"), text: t("off") }),
    s.pinned ? el("span", { class: "marker pinned", title: t("pinnedTitle"), text: t("pinnedMark") }) : null,
    s.toolsUnapproved ? el("span", { class: "marker warn tools", title: t("toolsUnapprovedTitle"), text: t("toolsUnapproved") }) : null,
    s.delivery?.drifted.length ? el("span", { class: "marker drift", title: t("driftMarkTitle", s.delivery.drifted.join(", ")), text: `✎ ${t("driftMark")}` }) : null,
    s.delivery?.tools.length ? el("span", { class: "marker delivered", title: t("deliveredTitle", s.delivery.tools.join(", ")), text: t("deliveredMark", s.delivery.tools.length) }) : null,
    el("span", { class: "skill-desc", text })));
}

/** A kept row after a filter: its place in the set may have changed. */
function placeItem(row, item) {
  if (item.kind === "head") return;
  row.setAttribute("aria-posinset", String(item.pos));
  row.setAttribute("aria-setsize", String(side.options));
}
