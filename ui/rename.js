// @ts-check
// Rename… (#rename-dialog, from a skill's view): the new name checked as it is typed, like New
// skill's; Rename moves the skill, its history, pin, switches, approvals and source to it.

import { $ } from "./dom.js";
import { errorText, t } from "./i18n.js";
import { invoke } from "./api.js";
import { debounced } from "./editor_logic.js";
import { nameState } from "./new_skill.js";

/** @type {{ scope: import("./types/bindings").Scope, name: string } | null} */
let skill = null;
/** @type {import("./new_skill.js").NameAnswer | null} */
let answer = null;
/** @type {(scope: string, name: string, revision: number) => Promise<void> | void} */
let renamed = () => {};

const input = () => /** @type {HTMLInputElement} */ ($("#rename-name"));
const dialog = () => /** @type {HTMLDialogElement} */ ($("#rename-dialog"));

const checker = debounced(async () => {
  const name = input().value.trim();
  return { name, result: await invoke("skill_name_check", { name }) };
}, {
  delay: 150,
  onResult: (a) => { answer = a; draw(); },
  onError: (e) => { $("#rename-problem").textContent = errorText(e); },
});

function draw() {
  const typed = input().value.trim();
  const same = skill !== null && typed === skill.name;
  const s = nameState(typed, answer);
  const line = $("#rename-problem");
  line.textContent = same ? t("renameSame") : s.problem || (s.taken ? t("nameTaken") : s.checking ? t("checking") : s.canCreate ? t("nameOk") : "");
  line.className = !same && (s.problem || s.taken) ? "hint error" : s.canCreate && !same ? "hint ok" : "hint";
  /** @type {HTMLButtonElement} */ ($("#rename-go")).disabled = same || !s.canCreate;
}

/** Opens the dialog for skill `d`. */
export function openRename(d) {
  skill = { scope: d.scope, name: d.name };
  answer = null;
  $("#rename-title").textContent = t("renameTitle", d.name);
  $("#rename-error").hidden = true;
  input().value = d.name;
  draw();
  dialog().showModal();
  input().select();
}

/** Wires the dialog; `onRenamed` shows the skill under its new name. */
export function initRename(onRenamed) {
  renamed = onRenamed;
  input().addEventListener("input", () => { answer = null; draw(); checker.request(); });
  $("#rename-cancel").addEventListener("click", () => dialog().close());
  $("#rename-go").addEventListener("click", async () => {
    if (!skill) return;
    const to = input().value.trim();
    try {
      const revision = await invoke("rename_skill", { scope: skill.scope, name: skill.name, to });
      dialog().close();
      await renamed(skill.scope, to, revision);
    } catch (e) {
      const err = $("#rename-error");
      err.textContent = errorText(e);
      err.hidden = false;
    }
  });
}
