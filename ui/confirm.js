// @ts-check
// The shared confirmation dialog (#confirm-dialog). One dialog asks before deleting, approving
// findings and publishing, so every opening sets all of it: the question, the yes button's words
// and colour, and what yes does. What the button says is a plain function (tested under Node).

import { $, showError } from "./dom.js";
import { t } from "./i18n.js";

/**
 * What a confirmation can do: delete skills (red), approve audit findings, publish a skill to
 * the team store, discard a draft (red) or save one that has errors (red).
 * @typedef {"delete" | "approve" | "publish" | "withdraw" | "discard" | "saveAnyway"} ConfirmAction
 */

/**
 * The yes button of a confirmation of `action` on `n` things (skills to delete, findings to
 * approve): its words, which name the action, and whether it is red (it destroys something).
 * @param {ConfirmAction} action
 * @param {number} [n]
 * @returns {{ label: string, danger: boolean }}
 */
export function confirmButton(action, n = 1) {
  if (action === "delete") return { label: n === 1 ? t("delete") : t("deleteSkillsN", n), danger: true };
  if (action === "approve") return { label: t("approveFindingsN", n), danger: false };
  if (action === "withdraw") return { label: t("withdrawApprovalYes"), danger: false };
  if (action === "discard") return { label: t("discardDraftYes"), danger: true };
  if (action === "saveAnyway") return { label: t("saveAnyway"), danger: true };
  return { label: t("publishYes"), danger: false };
}

/**
 * Opens the confirmation dialog asking `text`; its yes button names `action` (on `n` things)
 * and runs `onYes` after the dialog closed. Cancel, Escape or a click outside do nothing.
 * @param {{ text: string, action: ConfirmAction, n?: number, onYes: () => void | Promise<void> }} ask
 */
export function openConfirm({ text, action, n = 1, onYes }) {
  const dlg = /** @type {HTMLDialogElement} */ ($("#confirm-dialog"));
  const { label, danger } = confirmButton(action, n);
  $("#confirm-text").textContent = text;
  const yes = $("#confirm-yes");
  yes.textContent = label;
  // Both classes every time: the last opening may have been a Delete (red) or an Approve.
  yes.classList.toggle("danger", danger);
  yes.classList.toggle("primary", !danger);
  yes.dataset.action = action;
  yes.onclick = () => {
    dlg.close();
    Promise.resolve(onYes()).catch(showError);
  };
  $("#confirm-no").onclick = () => dlg.close();
  dlg.showModal();
  // The safe answer has the focus: Enter never deletes by accident.
  $("#confirm-no").focus();
}
