// @ts-check
// Small DOM helpers shared by the skills view and the agent panel: building elements, toasts.

import { errorText } from "./i18n.js";

/** The first element matching `sel`. */
export const $ = (sel) => document.querySelector(sel);

/** An element with attributes (`text`, `class`, `dataset`, `style`, `on*` handlers) and children. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(node.dataset, v);
    else if (k === "style") node.style.cssText = v; // CSSOM: allowed under the strict CSP
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c);
  return node;
}

/** A byte count for people. */
export function size(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let toastTimer;

/** Shows `message` briefly at the bottom, with an optional `{label, run}` action. */
export function toast(message, action) {
  const box = $("#toast");
  box.replaceChildren(el("span", { text: message }));
  if (action) box.append(el("button", { type: "button", text: action.label, onclick: () => { box.hidden = true; action.run(); } }));
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (box.hidden = true), action ? 8000 : 4000);
}

/** Shows a backend `{code, message}` error (or any error) as a toast. */
export function showError(err) {
  const message = errorText(err);
  toast(message);
  console.error(err);
}
