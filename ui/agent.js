// @ts-check
// The agent panel: a session on a workspace folder, replies streamed over a Tauri channel,
// tool calls as chips (the client view, never a skill's text), shell approvals, stop, past sessions.

import { $, el, showError, toast } from "./dom.js";
import { errorText, t } from "./i18n.js";

import { invoke, channel } from "./api.js";

const WORKSPACE_KEY = "skilldeck.workspace";
const agent = {
  setup: null,
  sessionId: null,
  running: false,
  /** The assistant block streamed text goes into; a tool call or a new turn starts another. */
  block: null,
  chips: new Map(),
  question: null,
};

// ---------- the log ----------

function log() {
  return $("#chat-log");
}

function append(node) {
  const box = log();
  const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
  box.querySelector(".chat-empty")?.remove();
  box.append(node);
  if (atBottom || agent.running) box.scrollTop = box.scrollHeight;
  return node;
}

/** Ends the streamed block: its Markdown is rendered (sanitized by the backend) once complete. */
function finishBlock() {
  const block = agent.block;
  agent.block = null;
  if (!block) return;
  const bubble = block.firstChild;
  invoke("agent_markdown", { text: bubble.textContent })
    .then((html) => {
      bubble.innerHTML = html; // sanitized by the backend (ammonia)
      bubble.classList.add("markdown");
    })
    .catch((e) => console.error(e));
}

function note(text, kind = "") {
  finishBlock();
  return append(el("div", { class: `chat-note ${kind}`, text }));
}

function userMessage(text) {
  finishBlock();
  return append(el("div", { class: "msg user" }, el("div", { class: "bubble", text })));
}

function assistantText(text) {
  if (!agent.block) agent.block = append(el("div", { class: "msg assistant" }, el("div", { class: "bubble" })));
  const bubble = agent.block.firstChild;
  bubble.textContent += text;
  const box = log();
  if (agent.running) box.scrollTop = box.scrollHeight;
}

/** What a pending call is about, in a few words. */
function callSummary(name, args) {
  if (!args || typeof args !== "object") return "";
  if (name === "view_skill") return [args.name, args.path].filter(Boolean).join(" · ");
  if (name === "shell") return args.command || "";
  return args.path || "";
}

/**
 * One line saying what a finished tool did, in the reader's language, from the call and its
 * result (the backend's `display` is the English form, kept for the CLI and as a fallback).
 */
function toolText(name, args, outcome) {
  const r = outcome.client_view || {};
  const path = (p) => p || ".";
  if (!outcome.ok) {
    const message = r.error && r.error.message;
    return message ? t("toolFailed", name, message) : outcome.display;
  }
  if (name === "read_file") return t("toolRead", path(r.path));
  if (name === "write_file") return t("toolWrote", path(r.path), r.bytesWritten);
  if (name === "list_dir") return t("toolListed", path(r.path), Array.isArray(r.entries) ? r.entries.length : 0);
  if (name === "shell") {
    const exit = r.timedOut ? t("toolTimedOut") : typeof r.exitCode === "number" ? t("toolExit", r.exitCode) : t("toolKilled");
    return t("toolRan", (args && args.command) || "", exit);
  }
  return outcome.display;
}

/** A chip for a tool call: pending until `outcome` (ok, display, client_view, version) arrives. */
function chip(callId, name, args, outcome) {
  const node = agent.chips.get(callId) || el("div", { class: "chip pending", dataset: { call: callId, tool: name } });
  agent.chips.set(callId, node);
  // The finished call's event carries no arguments: keep the ones its start brought.
  if (args) node.callArgs = args;
  else args = node.callArgs;
  finishBlock();
  if (!outcome) {
    node.replaceChildren(el("span", { class: "chip-icon spinner", "aria-hidden": "true" }), el("span", { class: "chip-tool", text: name }), el("span", { class: "chip-arg", text: callSummary(name, args) }));
    if (!node.isConnected) append(node);
    return node;
  }
  node.className = `chip ${outcome.ok ? "ok" : "failed"}`;
  const view = outcome.client_view || {};
  if (name === "view_skill" && outcome.ok) {
    const parts = [
      el("span", { class: "chip-icon", "aria-hidden": "true", text: "✦" }),
      el("span", { class: "chip-text", text: view.content === "Skill activated." ? t("skillActivated") : view.content }),
      el("strong", { class: "chip-skill", text: view.skillName }),
      outcome.version ? el("span", { class: "badge", text: `v:${outcome.version}` }) : null,
      view.path ? el("span", { class: "chip-arg", text: view.path }) : null,
    ];
    node.replaceChildren(...parts.filter(Boolean)); // replaceChildren would print a null
    // The chip opens the skill it names in the Skills tab (the file, when it loaded one).
    const open = () => document.dispatchEvent(new CustomEvent("skilldeck:open-skill", { detail: { name: view.skillName, path: view.path } }));
    node.tabIndex = 0;
    node.setAttribute("role", "button");
    node.title = t("chipOpensSkill", view.skillName);
    node.onclick = open;
    node.onkeydown = (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); open(); } };
  } else {
    const detail = outcome.ok ? detailOf(name, view) : "";
    node.replaceChildren(...[
      el("span", { class: "chip-icon", "aria-hidden": "true", text: outcome.ok ? "✓" : "✕" }),
      el("span", { class: "chip-text", text: toolText(name, args, outcome) }),
      detail ? el("span", { class: "chip-more", "aria-hidden": "true", text: "▸" }) : null,
    ].filter(Boolean));
    if (detail) {
      node.tabIndex = 0;
      node.setAttribute("role", "button");
      node.setAttribute("aria-expanded", "false");
      node.onclick = () => toggleDetail(node, detail);
      node.onkeydown = (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); toggleDetail(node, detail); } };
    }
  }
  if (!node.title) node.title = outcome.display;
  if (!node.isConnected) append(node);
  return node;
}

/** What a finished tool returned, for people: a command's output, a file, a folder's entries. */
function detailOf(name, result) {
  if (!result || typeof result !== "object") return "";
  if (name === "shell") {
    const parts = [`$ ${result.command}`, result.stdout || ""];
    if (result.stderr) parts.push(`[stderr]\n${result.stderr}`);
    if (result.truncated) parts.push("[… output cut]");
    return parts.filter(Boolean).join("\n").trimEnd();
  }
  if (name === "read_file") return result.content || "";
  if (name === "list_dir") {
    return (result.entries || []).map((e) => (e.kind === "dir" ? `${e.name}/` : `${e.name}  ${e.size ?? ""}`.trimEnd())).join("\n");
  }
  return "";
}

/** Shows or hides a chip's detail below it. */
function toggleDetail(node, text) {
  const next = node.nextElementSibling;
  if (next?.classList.contains("chip-detail")) {
    next.remove();
    node.setAttribute("aria-expanded", "false");
    return;
  }
  node.after(el("pre", { class: "chip-detail", text }));
  node.setAttribute("aria-expanded", "true");
}

function turnEnded(end) {
  finishBlock();
  if (!end || end.kind === "answered") return;
  if (end.kind === "cancelled") note(t("turnCancelled"), "muted");
  else if (end.kind === "failed") note(t("turnFailed", end.message), "error");
  else if (end.kind === "step_limit") note(t("stepLimit", end.steps), "muted");
}

function emptyLog() {
  log().replaceChildren(el("div", { class: "chat-empty" }, el("p", { text: t("agentEmpty") }), el("p", { class: "hint", text: t("offlineNote") })));
  agent.block = null;
  agent.chips.clear();
}

// ---------- events from a running turn ----------

function onEvent(e) {
  switch (e.type) {
    case "session":
      agent.sessionId = e.id;
      showSessionHead(e.workspace, e.provider);
      if (!agent.setup?.sessions?.some((s) => s.id === e.id)) refreshSessions();
      break;
    case "turn_started":
      break;
    case "text_delta":
      assistantText(e.text);
      break;
    case "tool_started":
      chip(e.call_id, e.name, e.arguments, null);
      break;
    case "tool_finished":
      chip(e.call_id, e.name, null, e);
      break;
    case "compacted":
      note(t("compacted", e.results), "muted");
      break;
    case "approval":
      ask(e);
      break;
    case "write_approval":
      askWrite(e);
      break;
    case "turn_ended":
      closeQuestion();
      turnEnded(e.end);
      break;
    default:
      console.warn("unknown agent event", e);
  }
}

// ---------- approvals ----------

function ask(q) {
  agent.question = q.id;
  $("#approve-title").textContent = t("approveTitle");
  $("#approve-command").textContent = q.command;
  $("#approve-where").textContent = t("approveWhere", q.workspace);
  const sandbox = $("#approve-sandbox");
  sandbox.textContent = q.sandboxed ? t("approveSandboxed", q.sandbox) : t("approveUnsandboxed", q.sandbox);
  sandbox.classList.toggle("unsandboxed", !q.sandboxed);
  const grant = $("#approve-grant");
  const grantText = q.grant ? t("approveGrant", q.grant) : q.notCovered ? t("approveNotCovered", q.notCovered) : "";
  grant.textContent = grantText;
  grant.hidden = !grantText;
  const dlg = $("#approve-dialog");
  if (!dlg.open) dlg.showModal();
  $("#approve-deny").focus();
}

// `write_file` asks before writing a file that runs code later (a git hook, a build file).
function askWrite(q) {
  agent.question = q.id;
  $("#approve-title").textContent = t("approveWriteTitle");
  $("#approve-command").textContent = q.path;
  $("#approve-where").textContent = t("approveWriteWhere", q.workspace, q.bytes);
  const why = $("#approve-sandbox");
  why.textContent = t("approveWriteWhy", q.reason);
  why.classList.add("unsandboxed");
  $("#approve-grant").hidden = true;
  const dlg = $("#approve-dialog");
  if (!dlg.open) dlg.showModal();
  $("#approve-deny").focus();
}

function closeQuestion() {
  agent.question = null;
  const dlg = $("#approve-dialog");
  if (dlg.open) dlg.close();
}

// `answer`: "deny", "once" or "session" (the same command runs again in this session unasked).
async function answer(answer) {
  const id = agent.question;
  closeQuestion();
  if (id !== null) await invoke("agent_answer", { id, answer }).catch(showError);
}

// ---------- sending ----------

function setRunning(running) {
  agent.running = running;
  $("#agent-send").disabled = running;
  $("#agent-stop").hidden = !running;
  $("#agent-provider").disabled = running;
  document.body.dataset.agentRunning = running ? "true" : "false";
}

async function send() {
  const prompt = $("#agent-prompt").value.trim();
  if (!prompt || agent.running) return;
  const workspace = $("#agent-workspace").value.trim();
  if (!agent.sessionId && !workspace) {
    toast(t("needWorkspace"));
    $("#agent-workspace").focus();
    return;
  }
  if (!agent.sessionId) localStorage.setItem(WORKSPACE_KEY, workspace);
  $("#agent-prompt").value = "";
  const bubble = userMessage(prompt);
  let started = false;
  const events = channel();
  events.onmessage = (e) => {
    if (e.type === "session") started = true;
    onEvent(e);
  };
  setRunning(true);
  try {
    const network = $("#agent-network").checked;
    const request = { sessionId: agent.sessionId, workspace, provider: $("#agent-provider").value, prompt, network };
    const out = await invoke("agent_send", { request, events });
    agent.sessionId = out.sessionId;
  } catch (e) {
    if (started) {
      note(errorText(e), "error");
    } else {
      // Refused before the turn began: nothing was sent, so the request goes back to the box.
      bubble.remove();
      if (!$("#agent-prompt").value) $("#agent-prompt").value = prompt;
      if (!log().children.length) emptyLog();
      showError(e);
    }
    if (e.code === "workspace_invalid" || e.code === "workspace_missing") $("#agent-workspace").focus();
  } finally {
    setRunning(false);
    closeQuestion();
    await refreshSessions();
    if (!document.activeElement || document.activeElement === document.body) $("#agent-prompt").focus();
  }
}

async function stop() {
  if (agent.sessionId) await invoke("agent_stop", { id: agent.sessionId }).catch(showError);
}

// ---------- sessions ----------

function showSessionHead(workspace, provider) {
  const input = $("#agent-workspace");
  input.value = workspace;
  input.readOnly = true;
  $("#agent-browse").hidden = true;
  $("#agent-session-info").textContent = provider ? t("sessionWith", agent.sessionId, provider) : agent.sessionId;
  renderSessions();
}

function newSession() {
  if (agent.running) return;
  agent.sessionId = null;
  const input = $("#agent-workspace");
  input.readOnly = false;
  input.value = localStorage.getItem(WORKSPACE_KEY) || "";
  $("#agent-browse").hidden = false;
  $("#agent-session-info").textContent = "";
  emptyLog();
  renderSessions();
  (input.value ? $("#agent-prompt") : input).focus();
}

async function openSession(id) {
  if (agent.running) return;
  let view;
  try {
    view = await invoke("agent_session", { id });
  } catch (e) {
    showError(e);
    return;
  }
  agent.sessionId = view.id;
  log().replaceChildren();
  agent.block = null;
  agent.chips.clear();
  for (const item of view.items) {
    if (item.type === "user") userMessage(item.text);
    else if (item.type === "assistant") { finishBlock(); assistantText(item.text); }
    else if (item.type === "tool") chip(item.call_id, item.name, item.arguments, item);
    else if (item.type === "turn_ended") turnEnded(item.end);
    else if (item.type === "resumed") note(t("resumedWith", item.provider), "muted");
  }
  finishBlock();
  showSessionHead(view.workspace, view.provider);
  log().scrollTop = log().scrollHeight;
}

function renderSessions() {
  const list = $("#agent-sessions-list");
  const sessions = agent.setup?.sessions || [];
  list.replaceChildren();
  if (!sessions.length) list.append(el("p", { class: "empty", text: t("noSessions") }));
  for (const s of sessions) {
    const folder = String(s.workspace).split("/").filter(Boolean).pop() || s.workspace;
    list.append(el("button", {
      type: "button",
      class: `session-item${s.id === agent.sessionId ? " selected" : ""}`,
      dataset: { id: s.id },
      title: `${s.workspace}\n${s.provider}`,
      onclick: () => openSession(s.id),
    },
    el("span", { class: "session-title", text: s.title || t("untitled") }),
    el("span", { class: "session-meta", text: `${folder} · ${t("turns", s.turns)} · ${s.created.slice(0, 16).replace("T", " ")}` })));
  }
}

async function refreshSessions() {
  try {
    const setup = await invoke("agent_setup");
    agent.setup = { ...(agent.setup || {}), sessions: setup.sessions };
  } catch (e) {
    console.error(e);
  }
  renderSessions();
}

function renderProviders() {
  const select = $("#agent-provider");
  const current = select.value;
  select.replaceChildren();
  for (const p of agent.setup.providers) {
    const label = p.problem ? `${p.name} — ${t("unavailable")}` : p.label.startsWith(p.name) ? p.label : `${p.name} · ${p.label}`;
    select.append(el("option", { value: p.name, title: p.problem || p.label, disabled: Boolean(p.problem), text: label }));
  }
  const usable = (name) => agent.setup.providers.some((p) => p.name === name && !p.problem);
  select.value = usable(current) ? current : usable(agent.setup.defaultProvider) ? agent.setup.defaultProvider : "offline";
  const problem = agent.setup.configError;
  $("#agent-config").textContent = problem ? t("configBroken", problem) : t("configAt", agent.setup.configPath);
  $("#agent-config").classList.toggle("error", Boolean(problem));
}

/** Loads the providers and past sessions; called when the panel is first shown. */
export async function openAgent() {
  try {
    agent.setup = await invoke("agent_setup");
  } catch (e) {
    showError(e);
    return;
  }
  renderProviders();
  renderSessions();
  if (!agent.sessionId && !log().children.length) newSession();
  document.body.dataset.agentReady = "true";
}

/** Re-renders the texts that depend on the language. */
export function translateAgent() {
  if (!agent.setup) return;
  renderProviders();
  renderSessions();
  if (!log().querySelector(".msg, .chip, .chat-note")) emptyLog();
}

/** Wires the panel's controls. */
export function initAgent() {
  $("#agent-send").onclick = send;
  $("#agent-stop").onclick = stop;
  $("#agent-new").onclick = newSession;
  $("#agent-prompt").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      send();
    }
  });
  $("#agent-browse").onclick = async () => {
    const picked = await window.__TAURI__.dialog.open({ directory: true, multiple: false }).catch(showError);
    if (picked) $("#agent-workspace").value = picked;
  };
  $("#approve-run").onclick = () => answer("once");
  $("#approve-session").onclick = () => answer("session");
  $("#approve-deny").onclick = () => answer("deny");
  $("#approve-dialog").addEventListener("cancel", (e) => { e.preventDefault(); answer("deny"); });
  setRunning(false);
}
