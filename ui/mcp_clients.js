// The "Use in other agents" view: every MCP client Skilldeck knows (Claude Desktop, Cursor,
// Codex, …), detected or not, its settings file and Skilldeck's state there, Add and Remove
// with a confirmation naming the file and its backup, and the snippet to add by hand.

import { $, el, showError, toast } from "./dom.js";
import { t } from "./i18n.js";

const { invoke } = window.__TAURI__.core;

const view = { clients: null, pending: null };

/** The badge for a client's state: not_installed, installed, outdated or unreadable. */
function badge(c) {
  return el("span", { class: `state mcp-${c.state}`, dataset: { state: c.state }, text: t(`mcp_${c.state}`) });
}

function card(c) {
  const canAdd = c.state !== "installed" && c.state !== "unreadable";
  const canRemove = c.state === "installed" || c.state === "outdated";
  const copy = el("button", { type: "button", class: "mcp-copy", text: t("mcpCopy") });
  copy.onclick = () => navigator.clipboard.writeText(c.snippet).then(() => toast(t("mcpCopied")), showError);
  return el("article", { class: `mcp-client${c.detected ? "" : " absent"}`, dataset: { client: c.id, state: c.state } },
    el("div", { class: "mcp-head" },
      el("strong", { text: c.name }),
      el("span", { class: "hint", text: c.detected ? t("toolDetected") : t("toolAbsent") }),
      badge(c),
      el("span", { class: "grow" }),
      el("button", { type: "button", class: "primary mcp-add", disabled: !canAdd, text: c.state === "outdated" ? t("mcpUpdate") : t("mcpAdd"), onclick: () => ask(c, false) }),
      el("button", { type: "button", class: "mcp-remove", disabled: !canRemove, text: t("mcpRemove"), onclick: () => ask(c, true) })),
    el("code", { class: "mcp-path", text: c.path }),
    c.state === "unreadable" ? el("p", { class: "error-text mcp-error", text: c.error }) : null,
    el("details", { class: "mcp-snippet", open: c.state === "unreadable" },
      el("summary", { text: t("mcpByHand") }),
      el("p", { class: "hint", text: c.location }),
      el("pre", { text: c.snippet }),
      el("div", { class: "row" }, copy, el("span", { class: "hint", text: c.doc }))));
}

/** Reads every client's settings again and redraws the view. */
export async function loadMcpClients() {
  view.clients = await invoke("mcp_clients");
  const sorted = [...view.clients].sort((a, b) => Number(b.detected) - Number(a.detected));
  $("#mcp-list").replaceChildren(...sorted.map(card));
}

/** Shows what Add or Remove would do to the file, and asks. */
async function ask(c, remove) {
  try {
    const plan = await invoke("mcp_client_plan", { client: c.id, remove });
    if (plan.action === "unchanged") { toast(t("mcpNothing", c.name)); return loadMcpClients(); }
    view.pending = { client: c.id, remove };
    $("#mcp-confirm-title").textContent = remove ? t("mcpRemoveTitle", c.name) : t("mcpAddTitle", c.name);
    $("#mcp-confirm-file").textContent = plan.path;
    $("#mcp-confirm-backup").textContent = plan.backup ? t("mcpBackupHint", `${plan.path}.skilldeck-backup-…`) : t("mcpCreateHint");
    $("#mcp-confirm-dialog").showModal();
  } catch (e) {
    showError(e);
    loadMcpClients().catch(() => {});
  }
}

async function confirm() {
  const p = view.pending;
  $("#mcp-confirm-ok").disabled = true;
  try {
    const done = await invoke("mcp_client_apply", { client: p.client, remove: p.remove });
    $("#mcp-confirm-dialog").close();
    toast(done.backup ? t("mcpDoneBackup", done.backup) : t("mcpDone"));
  } catch (e) {
    $("#mcp-confirm-dialog").close();
    showError(e);
  } finally {
    $("#mcp-confirm-ok").disabled = false;
    await loadMcpClients().catch(showError);
  }
}

/** Redraws the view in the current language. */
export function translateMcpClients() {
  if (view.clients) $("#mcp-list").replaceChildren(...[...view.clients].sort((a, b) => Number(b.detected) - Number(a.detected)).map(card));
}

/** Wires the view's buttons. */
export function initMcpClients() {
  $("#mcp-refresh").onclick = () => loadMcpClients().catch(showError);
  $("#mcp-confirm-cancel").onclick = () => $("#mcp-confirm-dialog").close();
  $("#mcp-confirm-ok").onclick = confirm;
}
