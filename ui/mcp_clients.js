// @ts-check
// Skilldeck's MCP server in an agent's settings, as each card of the Agents view shows it:
// its state (not installed, installed, outdated, unreadable), Add / Update and Remove with a
// confirmation naming the file and its backup, and the snippet to add by hand.

import { $, el, showError, toast } from "./dom.js";
import { t } from "./i18n.js";

import { invoke } from "./api.js";

const view = { pending: null, reload: async () => {} };

/** The badge for a client's state: not_installed, installed, outdated or unreadable. */
function badge(c) {
  return el("span", { class: `state mcp-${c.state}`, dataset: { state: c.state }, text: t(`mcp_${c.state}`) });
}

/**
 * The MCP line of agent `agent`'s card for client `c`: its state, Add/Update and Remove, and
 * the parser's error when its settings cannot be read.
 */
export function mcpWay(agent, c) {
  const canAdd = c.state !== "installed" && c.state !== "unreadable";
  const canRemove = c.state === "installed" || c.state === "outdated";
  const where = c.name === agent ? "" : t("mcpIn", c.name);
  return el("div", { class: "way mcp-client", dataset: { client: c.id, state: c.state } },
    el("span", { class: "way-name", text: t("wayMcp") }),
    badge(c),
    where ? el("span", { class: "hint", text: where }) : null,
    el("span", { class: "grow" }),
    el("button", {
      type: "button", class: "small primary mcp-add", disabled: !canAdd,
      text: c.state === "outdated" ? t("mcpUpdate") : t("mcpAdd"),
      "aria-label": t(c.state === "outdated" ? "mcpUpdateFor" : "mcpAddFor", agent),
      onclick: () => ask(c, false),
    }),
    el("button", {
      type: "button", class: "small mcp-remove", disabled: !canRemove, text: t("mcpRemove"),
      "aria-label": t("mcpRemoveFor", agent), onclick: () => ask(c, true),
    }),
    c.state === "unreadable" ? el("p", { class: "error-text mcp-error", text: c.error }) : null);
}

/** The expanded card's MCP details: the settings file and the snippet to add by hand. */
export function mcpDetails(c) {
  const copy = el("button", { type: "button", class: "small mcp-copy", text: t("mcpCopy") });
  copy.onclick = () => navigator.clipboard.writeText(c.snippet).then(() => toast(t("mcpCopied")), showError);
  return el("div", { class: "mcp-details", dataset: { client: c.id } },
    el("h3", { text: t("mcpTitle") }),
    el("p", { class: "hint", text: t("mcpIntro") }),
    el("p", { class: "hint" }, el("span", { text: t("mcpFile") }), " ", el("code", { class: "mcp-path", text: c.path })),
    el("details", { class: "mcp-snippet", open: c.state === "unreadable" },
      el("summary", { text: t("mcpByHand") }),
      el("p", { class: "hint", text: c.location }),
      el("pre", { text: c.snippet }),
      el("div", { class: "row" }, copy, el("span", { class: "hint", text: c.doc }))));
}

/** Shows what Add or Remove would do to the file, and asks. */
async function ask(c, remove) {
  try {
    const plan = await invoke("mcp_client_plan", { client: c.id, remove });
    if (plan.action === "unchanged") { toast(t("mcpNothing", c.name)); return view.reload(); }
    view.pending = { client: c.id, remove };
    $("#mcp-confirm-title").textContent = remove ? t("mcpRemoveTitle", c.name) : t("mcpAddTitle", c.name);
    // The button names what it does, each time: the dialog serves Add and Remove.
    $("#mcp-confirm-ok").textContent = remove ? t("mcpRemoveYes") : t("mcpAddYes");
    $("#mcp-confirm-file").textContent = plan.path;
    $("#mcp-confirm-backup").textContent = plan.backup ? t("mcpBackupHint", `${plan.path}.skilldeck-backup-…`) : t("mcpCreateHint");
    $("#mcp-confirm-dialog").showModal();
  } catch (e) {
    showError(e);
    view.reload().catch(() => {});
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
    await view.reload().catch(showError);
  }
}

/** Wires the confirmation; `reload` redraws the cards after a change. */
export function initMcpClients({ reload }) {
  view.reload = reload;
  $("#mcp-confirm-cancel").onclick = () => $("#mcp-confirm-dialog").close();
  $("#mcp-confirm-ok").onclick = confirm;
}
