// @ts-check
// The sidebar's bulk actions: with two or more skills picked (see sidebar.js), a bar above the
// list says how many and switches them off or on, pins or unpins them, or deletes them after
// one confirmation. The calls go one after another; a toast follows the progress and then says
// what was done and what failed; the list is reloaded once at the end. Which skills an action
// changes is a plain function (planBulk), tested under Node.

import { $, el, toast } from "./dom.js";
import { errorText, t } from "./i18n.js";
import { openConfirm } from "./confirm.js";

import { invoke } from "./api.js";

/** @typedef {import("./types/bindings").SkillRow} SkillRow */
/** @typedef {"off" | "on" | "pin" | "unpin" | "delete"} BulkAction */

/** The bar's action buttons, in order: the action, its label's key, and its class. */
const ACTIONS = /** @type {[BulkAction, string, string][]} */ ([
  ["off", "bulkOff", ""],
  ["on", "bulkOn", ""],
  ["pin", "bulkPin", ""],
  ["unpin", "bulkUnpin", ""],
  ["delete", "bulkDelete", "danger"],
]);

/** How many names a toast or a confirmation spells out before "and N more". */
const NAMES_SHOWN = 5;

const bulk = {
  /** @type {SkillRow[]} the skills picked, in list order */
  skills: [],
  busy: false,
  /** @type {() => Promise<void>} reloads the skills (and the viewer) once a bulk action is done */
  reload: async () => {},
  /** @type {() => void} drops the picked skills */
  clear: () => {},
};

/**
 * The skills `action` would change among `skills`: Switch off/on and Pin/Unpin take a skill by
 * its name (config.toml keeps them by name), so a name picked in two scopes is called once and a
 * skill already so is left out; Delete leaves out team skills, which change only by publishing.
 * `kept` are the picked skills left as they are.
 * @param {BulkAction} action
 * @param {SkillRow[]} skills
 * @returns {{ todo: SkillRow[], kept: SkillRow[] }}
 */
export function planBulk(action, skills) {
  if (action === "delete") {
    return { todo: skills.filter((s) => s.scope !== "team"), kept: skills.filter((s) => s.scope === "team") };
  }
  const needs = {
    off: (s) => s.enabled,
    on: (s) => !s.enabled,
    pin: (s) => !s.pinned,
    unpin: (s) => s.pinned,
  }[action];
  const names = new Set();
  /** @type {SkillRow[]} */
  const todo = [];
  for (const s of skills) {
    if (!needs(s) || names.has(s.name)) continue;
    names.add(s.name);
    todo.push(s);
  }
  return { todo, kept: skills.filter((s) => !todo.includes(s)) };
}

/**
 * `names` for a sentence: all of them, or the first few and how many more.
 * @param {string[]} names
 */
export function nameList(names) {
  if (names.length <= NAMES_SHOWN) return names.join(", ");
  return `${names.slice(0, NAMES_SHOWN).join(", ")} ${t("andMore", names.length - NAMES_SHOWN)}`;
}

/**
 * Wires the bar. `reload()` reloads the skills once a bulk action is done; `clear()` drops the
 * picked skills (the sidebar's).
 * @param {{ reload: () => Promise<void>, clear: () => void }} hooks
 */
export function initBulk({ reload, clear }) {
  Object.assign(bulk, { reload, clear });
}

/**
 * Shows the bar for the picked `skills` (hidden with fewer than two); the sidebar calls it
 * whenever they change.
 * @param {SkillRow[]} skills
 */
export function showPicked(skills) {
  bulk.skills = skills;
  const bar = $("#bulk-bar");
  if (!bar) return;
  bar.hidden = skills.length < 2;
  if (bar.hidden) {
    bar.replaceChildren();
    return;
  }
  bar.setAttribute("aria-label", t("bulkBarLabel"));
  bar.replaceChildren(
    el("span", { class: "bulk-count", id: "bulk-count", role: "status", text: t("bulkPicked", skills.length) }),
    ...ACTIONS.map(([action, label, cls]) => el("button", {
      type: "button", class: cls, dataset: { bulk: action }, text: t(label),
      // An action that would change none of them is off (all already on, say).
      disabled: bulk.busy || !planBulk(action, skills).todo.length,
      onclick: () => (action === "delete" ? confirmDelete() : run(action)),
    })),
    el("button", { type: "button", id: "bulk-clear", text: t("bulkClear"), disabled: bulk.busy, onclick: () => bulk.clear() }),
  );
}

/** Asks once, naming how many skills (and which), before deleting the picked ones. */
function confirmDelete() {
  const { todo, kept } = planBulk("delete", bulk.skills);
  const text = t("confirmDeleteMany", todo.length, nameList(todo.map((s) => s.name)))
    + (kept.length ? ` ${t("bulkTeamKept", kept.length)}` : "");
  openConfirm({ text, action: "delete", n: todo.length, onYes: () => run("delete") });
}

/**
 * The one call `action` makes for skill `s`; Delete's answer is the revision moved to history.
 * @param {BulkAction} action
 * @param {SkillRow} s
 */
function call(action, s) {
  if (action === "off" || action === "on") return invoke("set_skill_enabled", { name: s.name, enabled: action === "on" });
  if (action === "pin" || action === "unpin") return invoke("set_skill_pinned", { name: s.name, pinned: action === "pin" });
  return invoke("delete_skill", { scope: s.scope, name: s.name });
}

/**
 * Runs `action` on the picked skills it changes, one after another, with the progress in a
 * toast; then reloads once and says what was done and what failed (by name). Deleted skills
 * can come back with the toast's Undo.
 * @param {BulkAction} action
 */
async function run(action) {
  const { todo } = planBulk(action, bulk.skills);
  if (!todo.length || bulk.busy) return;
  bulk.busy = true;
  showPicked(bulk.skills);
  /** @type {{ skill: SkillRow, answer: any }[]} */
  const done = [];
  /** @type {string[]} */
  const failed = [];
  try {
    for (const [i, s] of todo.entries()) {
      toast(t("bulkProgress", i + 1, todo.length));
      try {
        done.push({ skill: s, answer: await call(action, s) });
      } catch (e) {
        failed.push(`${s.name} (${errorText(e)})`);
      }
    }
  } finally {
    bulk.busy = false;
  }
  if (action === "delete") bulk.clear();
  await bulk.reload();
  showPicked(bulk.skills);
  const text = t(`bulkDone_${action}`, done.length) + (failed.length ? ` · ${t("bulkFailed", failed.length, nameList(failed))}` : "");
  const undo = action === "delete" && done.length
    ? { label: t("undo"), run: () => restoreAll(done.map(({ skill, answer }) => ({ skill, revision: answer }))) }
    : undefined;
  toast(text, undo);
}

/**
 * Brings deleted skills back, each from the revision its delete moved to history.
 * @param {{ skill: SkillRow, revision: number }[]} deleted
 */
async function restoreAll(deleted) {
  /** @type {string[]} */
  const failed = [];
  let restored = 0;
  for (const { skill, revision } of deleted) {
    try {
      await invoke("restore_skill", { scope: skill.scope, name: skill.name, revision });
      restored++;
    } catch (e) {
      failed.push(`${skill.name} (${errorText(e)})`);
    }
  }
  await bulk.reload();
  toast(t("bulkRestored", restored) + (failed.length ? ` · ${t("bulkFailed", failed.length, nameList(failed))}` : ""));
}
