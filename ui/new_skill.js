// @ts-check
// New skill (#new-skill-dialog, the top bar's button and Ctrl+N): a name checked as it is
// typed, an optional description and a template; Create stores v:1 and opens its draft in the
// editor. The name field's state is a plain function (tested under Node).

import { $, el, showError } from "./dom.js";
import { errorText, t } from "./i18n.js";
import { call } from "./authoring_api.js";
import { debounced } from "./editor_logic.js";

/**
 * @typedef {import("./types/bindings").NameCheck} NameCheck
 * @typedef {import("./types/bindings").DraftView} DraftView
 * @typedef {{ name: string, result: NameCheck }} NameAnswer
 */

/**
 * What the name field shows for `typed`, given the last answer of `skill_name_check`: Create is
 * possible only when that answer is about the name as typed now and says it is ok; `problem` is
 * the answer's own words (a taken name with none: `taken`).
 * @param {string} typed
 * @param {NameAnswer | null} answer
 * @returns {{ canCreate: boolean, checking: boolean, problem: string | null, taken: boolean }}
 */
export function nameState(typed, answer) {
  const name = typed.trim();
  if (!name) return { canCreate: false, checking: false, problem: null, taken: false };
  if (!answer || answer.name !== name) return { canCreate: false, checking: true, problem: null, taken: false };
  const { ok, problem, taken } = answer.result;
  return { canCreate: ok, checking: false, problem: ok ? null : problem, taken: !ok && taken };
}

/** @type {NameAnswer | null} */
let answer = null;
/** @type {import("./types/bindings").TemplateInfo[] | null} */
let templates = null;
/** @type {(view: DraftView) => Promise<void> | void} */
let created = () => {};

const nameInput = () => /** @type {HTMLInputElement} */ ($("#new-skill-name"));

const checker = debounced(async () => {
  const name = nameInput().value.trim();
  return { name, result: await call("skill_name_check", { name }) };
}, {
  delay: 150,
  onResult: (a) => { answer = a; drawName(); },
  onError: (e) => { $("#new-skill-problem").textContent = errorText(e); },
});

function drawName() {
  const s = nameState(nameInput().value, answer);
  const line = $("#new-skill-problem");
  line.textContent = s.problem || (s.taken ? t("nameTaken") : s.checking ? t("checking") : s.canCreate ? t("nameOk") : "");
  line.className = s.problem || s.taken ? "hint error" : s.canCreate ? "hint ok" : "hint";
  nameInput().setAttribute("aria-invalid", String(Boolean(s.problem || s.taken)));
  /** @type {HTMLButtonElement} */ ($("#new-skill-create")).disabled = !s.canCreate;
}

async function drawTemplates() {
  const box = $("#new-skill-templates");
  if (!templates) templates = await call("skill_templates").catch((e) => { showError(e); return null; });
  box.replaceChildren(el("legend", { text: t("newSkillTemplate") }), ...(templates || []).map((tpl, i) => el("label", { class: "template" },
    el("input", { type: "radio", name: "new-skill-template", value: tpl.id, checked: i === 0 }),
    el("span", {}, el("strong", { text: tpl.title }), el("span", { class: "hint", text: tpl.summary })))));
}

/** Opens the New skill dialog, empty. */
export function openNewSkill() {
  const dlg = /** @type {HTMLDialogElement} */ ($("#new-skill-dialog"));
  if (dlg.open) return;
  checker.cancel();
  answer = null;
  nameInput().value = "";
  /** @type {HTMLTextAreaElement} */ ($("#new-skill-description")).value = "";
  $("#new-skill-error").hidden = true;
  drawName();
  drawTemplates();
  dlg.showModal();
  nameInput().focus();
}

async function create() {
  const name = nameInput().value.trim();
  if (!nameState(name, answer).canCreate) return;
  const description = /** @type {HTMLTextAreaElement} */ ($("#new-skill-description")).value.trim();
  const picked = /** @type {HTMLInputElement | null} */ (document.querySelector("input[name='new-skill-template']:checked"));
  const button = /** @type {HTMLButtonElement} */ ($("#new-skill-create"));
  button.disabled = true;
  try {
    const view = await call("skill_new", { name, description: description || null, template: picked ? picked.value : null });
    /** @type {HTMLDialogElement} */ ($("#new-skill-dialog")).close();
    await created(view);
  } catch (e) {
    const box = $("#new-skill-error");
    box.textContent = errorText(e);
    box.hidden = false;
    button.disabled = false;
  }
}

/**
 * Wires the button, the dialog and Ctrl+N; `onCreated(view)` opens the new skill's draft.
 * @param {{ onCreated: (view: DraftView) => Promise<void> | void }} hooks
 */
export function initNewSkill({ onCreated }) {
  created = onCreated;
  $("#new-skill-btn").onclick = openNewSkill;
  $("#new-skill-cancel").onclick = () => /** @type {HTMLDialogElement} */ ($("#new-skill-dialog")).close();
  $("#new-skill-create").onclick = () => { create().catch(showError); };
  nameInput().addEventListener("input", () => { drawName(); checker.request(); });
  nameInput().addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); create().catch(showError); } });
  document.addEventListener("keydown", (e) => {
    const view = document.body.dataset.view;
    if ((view !== "skills" && view !== "editor") || document.querySelector("dialog[open]")) return;
    if (e.key.toLowerCase() === "n" && (e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey) {
      e.preventDefault();
      openNewSkill();
    }
  });
}
