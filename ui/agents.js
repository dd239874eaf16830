// @ts-check
// The Agents view: one card per agent (Claude Code, Codex, Cursor, Claude Desktop, …) showing
// how it gets skills — its skill folders (delivery on/off, each skill's state there, auto-sync,
// "Sync now" with the plan shown first, a drifted skill's edits as diffs) and/or Skilldeck's
// MCP server in its settings (Add/Remove) — what its own listing's budget does to them, with
// its own per-skill switches, and the next step. Also what the sidebar marks: which tools each
// skill is delivered to, and where it was edited.

import { $, el, showError, toast } from "./dom.js";
import { t } from "./i18n.js";
import { diffBlock } from "./diff.js";
import { mcpDetails, mcpWay } from "./mcp_clients.js";

import { invoke } from "./api.js";
const { listen } = window.__TAURI__.event;

const PROJECT_KEY = "skilldeck.agents.project";

/**
 * Counts the plans asked for and the syncs started: a plan that comes back after a newer plan
 * was asked for, or after a sync began, is dropped (it would show, and reopen the dialog on, a
 * state that no longer holds).
 */
let planShown = 0;

const view = {
  /** @type {import("./types/bindings").AgentsMerged | null} {agents, skills} from agents_overview: one card per agent */
  data: null,
  selected: null, // the agent whose card is expanded
  budgetOpen: new Map(), // agent id -> its budget details opened or closed by hand, against the default
  plan: null, // {targets, overwrite}: what the open sync dialog would do
  /** @type {(delivery: any) => void} */
  onChange: () => {},
  /** @type {(names: string[]) => Promise<void>} */
  onAdopted: async () => {},
};

const project = () => $("#agents-project").value.trim() || null;

/** States in the order they are shown. */
const STATES = ["drifted", "outdated", "missing", "in-sync", "unselected", "foreign"];

function stateChip(state, count) {
  const text = count === undefined ? t(`state_${state}`) : `${count} ${t(`state_${state}`)}`;
  return el("span", { class: `state ${state}`, dataset: { state }, text });
}

function totals(target) {
  const sum = {};
  for (const f of target.folders) for (const [s, n] of Object.entries(f.counts)) sum[s] = (sum[s] || 0) + n;
  return sum;
}

/** Every target's folders (the agents that have any). */
const targetsOf = (data) => data.agents.map((a) => a.folders).filter(Boolean);

/** Reads every agent again (for the project given) and redraws the view. */
export async function loadAgents() {
  view.data = await invoke("agents_overview", { project: project() });
  if (!view.data.agents.some((a) => a.id === view.selected)) view.selected = null;
  renderAgents();
  view.onChange(deliveryOf(view.data));
}

/** Agents found here first, then the others, each group in the backend's order. */
const ordered = () => [...view.data.agents].sort((a, b) => Number(b.detected) - Number(a.detected));

function renderAgents() {
  const cards = view.data.agents.length ? ordered().map(card) : [el("p", { class: "hint", text: t("agentsNone") })];
  $("#agents-tools").replaceChildren(...cards);
}

function toggle(id) {
  view.selected = view.selected === id ? null : id;
  renderAgents();
  const head = /** @type {HTMLElement | null} */ (document.querySelector(`.tool-card[data-tool="${CSS.escape(id)}"] .agent-toggle`));
  head?.focus();
  if (view.selected) head?.closest(".tool-card")?.scrollIntoView({ block: "nearest" });
}

/** What the tool's header says it is: off, auto-synced, found or not. */
function status(a) {
  const x = a.folders;
  if (x?.off) return t("toolOff");
  if (!a.detected) return t("toolAbsent");
  return x?.auto ? t("toolAuto") : t("toolDetected");
}

/** One agent's card: its header, how it gets skills, its budget meter, the next step; and,
 * expanded, everything about its folders, its listing and its MCP settings. */
function card(a) {
  const open = a.id === view.selected;
  const bodyId = `agent-body-${a.id}`;
  const x = a.folders;
  return el("article", {
    class: `tool-card${open ? " selected" : ""}${a.detected ? "" : " absent"}`,
    role: "listitem",
    "aria-label": a.name,
    dataset: { tool: a.id, next: a.next.kind },
  },
  el("div", { class: "agent-head" },
    el("button", {
      type: "button", class: "agent-toggle", "aria-expanded": String(open), "aria-controls": bodyId,
      title: t(open ? "agentCollapse" : "agentExpand", a.name), onclick: () => toggle(a.id),
    },
    el("span", { class: "chevron", "aria-hidden": "true", text: open ? "▾" : "▸" }),
    el("span", { class: "tool-title" }, el("span", { class: "tool-name", text: a.name }), el("span", { class: "hint", text: status(a) })))),
  el("div", { class: "agent-ways" },
    x ? folderWay(a, x) : el("div", { class: "way way-folders none" }, el("span", { class: "way-name", text: t("wayFolders") }), el("span", { class: "hint", text: t("noFolders") })),
    a.mcp ? mcpWay(a.name, a.mcp) : el("div", { class: "way none" }, el("span", { class: "way-name", text: t("wayMcp") }), el("span", { class: "hint", text: t("noMcp") })),
    a.budget ? meterLine(a) : null),
  el("div", { class: "next-row" },
    el("p", { class: `next-step next-${a.next.kind}`, dataset: { next: a.next.kind }, text: nextText(a) }),
    // Over its budget with Skilldeck's folders on: one action shows what fitting changes.
    a.next.kind === "over-budget" && x && x.active && !x.off && x.folders.some((f) => f.skills.some((k) => ["in-sync", "outdated", "missing"].includes(k.state)))
      ? el("button", { type: "button", class: "fit-budget", dataset: { fit: a.id }, text: t("fitToBudget"), onclick: () => openPlan([x.id]) })
      : null),
  open ? el("div", { class: "agent-body", id: bodyId }, ...detail(a)) : null);
}

/** The folders line: delivery on or off, and how many skills stand how there. */
function folderWay(a, x) {
  const sum = totals(x);
  const on = el("input", {
    type: "checkbox", class: "deliver-switch", checked: x.active, dataset: { deliver: x.id },
    "aria-label": t("deliverToNamed", a.name),
  });
  on.onchange = () => setSwitch("agents_set_enabled", x.id, on.checked);
  return el("div", { class: "way way-folders", dataset: { folders: x.id } },
    el("span", { class: "way-name", text: t("wayFolders") }),
    el("span", { class: "tool-counts" }, ...STATES.filter((s) => sum[s]).map((s) => stateChip(s, sum[s]))),
    STATES.some((s) => sum[s]) ? null : el("span", { class: "hint", text: t("noSkillsThere") }),
    el("span", { class: "grow" }),
    el("label", { class: "check deliver", title: t("deliverToNamed", a.name) }, on, el("span", { text: t("deliverShort") })));
}

/** The budget meter on the card, as the listing preview's. */
function meterLine(a) {
  const b = a.budget;
  // An agent that lists every skill whole (Gemini CLI) has no budget to fill: say what it costs.
  if (b.rule === "gemini") {
    return el("div", { class: "way way-budget" },
      el("span", { class: "way-name", text: t("wayListing") }),
      el("span", { class: "hint", text: t("budgetUncappedShort", b.full, t(`unit_${b.unit}`)) }));
  }
  const over = b.full > b.budget;
  const pct = Math.min(100, Math.round((100 * b.full) / Math.max(1, b.budget)));
  return el("div", { class: "way way-budget" },
    el("span", { class: "way-name", text: t("wayListing") }),
    el("div", { class: "meter", role: "meter", "aria-valuemin": "0", "aria-valuemax": String(b.budget), "aria-valuenow": String(Math.min(b.full, b.budget)), "aria-label": t("budgetTitle", a.name) },
      el("div", { class: `budget-bar${over ? " over" : ""}`, style: `width: ${pct}%` })),
    el("span", { class: `hint${over ? " error" : ""}`, text: t("budgetShort", b.full, b.budget, t(`unit_${b.unit}`)) }));
}

/** The next step in the current language (the backend's English when it has no translation). */
function nextText(a) {
  const n = a.next;
  const key = `next_${n.kind.replaceAll("-", "_")}`;
  const text = t(key, a.name, n);
  return text === key ? a.next_text : text;
}

/** The expanded card: folder switches and sync, the budget details, MCP details, the folders. */
function detail(a) {
  const x = a.folders;
  const out = [];
  if (x) {
    const auto = el("input", { type: "checkbox", id: "agents-auto", checked: x.auto, disabled: x.off });
    auto.onchange = () => setSwitch("agents_set_auto", x.id, auto.checked);
    const current = x.folders.find((f) => f.mode)?.mode ?? "copy";
    const mode = el("select", { id: "agents-mode" },
      el("option", { value: "copy", text: t("modeCopy"), selected: current === "copy" }),
      el("option", { value: "link", text: t("modeLink"), selected: current === "link" }));
    mode.onchange = async () => {
      try {
        await invoke("agents_set_mode", { target: x.id, mode: mode.value });
        await loadAgents();
      } catch (e) {
        showError(e);
      }
    };
    out.push(
      el("p", { class: "hint", text: a.detected ? t("toolDetectedLong") : t("toolAbsentLong") }),
      el("div", { class: "agents-switches" },
        el("label", { class: "check", title: t("autoSyncTitle") }, auto, el("span", { text: t("autoSync") })),
        el("label", { class: "check", title: t("modeTitle") }, el("span", { text: t("modeLabel") }), mode),
        el("button", { type: "button", id: "agents-sync-one", text: t("syncTool", a.name), disabled: !x.folders.length, onclick: () => openPlan([x.id]) })));
  }
  if (a.budget) out.push(budgetBlock(a));
  if (a.mcp) out.push(mcpDetails(a.mcp));
  // One skill name in two folders this agent reads: it meets the skill twice.
  if (x?.duplicates?.length) {
    out.push(el("div", { class: "duplicates warn-box", id: "agents-duplicates" },
      ...x.duplicates.map((d) => el("p", { class: "warn-text", text: t("duplicateSkill", d.name, x.name, d.folders.join(", ")) }))));
  }
  if (x) out.push(...x.folders.map((f) => folderBlock(x, f)));
  return out;
}

/** Budget states in the order they are listed. */
const SHOWN = ["full", "shortened", "name-only", "omitted", "hidden"];

/**
 * What agent `a`'s own listing does to the skills in its folders (for agents whose rule is
 * known), in a disclosure: the meter, each skill's fate (the worst case where the agent
 * chooses by use), what to switch off, and a switch per skill writing the agent's own setting.
 * Open by default when over budget.
 */
function budgetBlock(a) {
  const b = a.budget;
  const over = b.full > b.budget;
  const pct = Math.min(100, Math.round((100 * b.full) / Math.max(1, b.budget)));
  const unit = t(`unit_${b.unit}`);
  const uncapped = b.rule === "gemini";
  const differ = b.skills.some((k) => k.best.shown !== k.worst.shown);
  const ours = oursIn(a.folders);
  const rows = [...b.skills]
    .sort((p, q) => SHOWN.indexOf(p.worst.shown) - SHOWN.indexOf(q.worst.shown) || p.name.localeCompare(q.name))
    .map((k) => {
      const fate = k.worst;
      const mine = ours.has(k.name);
      const detailText = fate.shown === "shortened" ? t("keptOf", fate.kept, fate.of)
        : fate.shown === "hidden" ? t(`hiddenBy_${fate.by.replaceAll("-", "_")}`)
          : differ && k.best.shown !== fate.shown ? t("bestCase", t(`shown_${k.best.shown.replaceAll("-", "_")}`)) : "";
      return el("tr", { dataset: { budgetSkill: k.name, shown: fate.shown } },
        el("td", {}, mine ? el("span", { class: "hint", text: t("oursShort"), title: t("oursHere") }) : ownSwitch(a, k)),
        el("td", { text: k.name }),
        el("td", {}, el("span", { class: `shown ${fate.shown}`, text: t(`shown_${fate.shown.replaceAll("-", "_")}`) })),
        el("td", { class: "hint", text: [detailText, mine ? t("oursHere") : ""].filter(Boolean).join(" · ") }));
    });
  const open = view.budgetOpen.get(a.id) ?? over;
  const box = el("details", { class: "budget-block", id: "agents-budget", dataset: { target: b.target }, open },
    el("summary", {}, el("h3", { text: t("budgetTitle", a.name) })),
    uncapped ? null : el("div", { class: "meter" }, el("div", { class: `budget-bar${over ? " over" : ""}`, style: `width: ${pct}%` })),
    el("p", { class: `hint${over ? " error" : ""}`, id: "agents-budget-text", text: uncapped
      ? t("budgetUncapped", a.name, b.full, unit, Math.round(b.full / 4), b.context_window ?? "?")
      : t("budgetMeter", b.full, b.budget, unit, b.context_window ?? "?") }),
    over ? el("p", { class: "budget-advice", id: "agents-budget-advice", text: b.by_use
      ? t("budgetOverByUse", b.squeezed[0], b.squeezed[1], a.name, b.switch_off.join(", "))
      : t("budgetOver", b.skills.filter((k) => k.best.shown === "omitted").length, b.squeezed[0], b.switch_off.join(", ")) }) : null,
    b.settings_error ? el("p", { class: "error-text", text: b.settings_error }) : null,
    rows.length
      ? el("div", { class: "table-scroll" }, el("table", { class: "skills-in-folder budget-skills" },
        el("thead", {}, el("tr", {}, el("th", { text: t("agentSkillCol") }), el("th", { text: t("skillCol") }), el("th", { text: differ ? t("shownWorstCol") : t("shownCol") }), el("th"))),
        el("tbody", {}, ...rows)))
      : el("p", { class: "hint", text: t("folderEmpty") }),
    el("p", { class: "hint", text: t("budgetRule", b.source) }));
  // Remembered only where it differs from the default (open when over budget).
  box.addEventListener("toggle", () => { if (box.open === over) view.budgetOpen.delete(a.id); else view.budgetOpen.set(a.id, box.open); });
  return box;
}

/** The skills Skilldeck wrote into these folders (by name): their switch is Deliver. */
function oursIn(target) {
  const out = new Set();
  for (const f of target?.folders ?? []) for (const s of f.skills) if (["in-sync", "outdated", "drifted", "unselected"].includes(s.state)) out.add(s.name);
  return out;
}

/**
 * The agent's own setting for skill `k`, one Skilldeck did not deliver: on / names only / off
 * for Claude Code (`skillOverrides`), on / off for Codex (`[[skills.config]]`). A skill hidden
 * by its own frontmatter has no setting to change.
 */
function ownSwitch(a, k) {
  // Only Claude Code's and Codex's settings have a per-skill switch Skilldeck writes.
  if (a.id !== "claude-code" && a.id !== "codex") return el("span", { class: "hint", text: "—", title: t("noOwnSwitch", a.name) });
  const fate = k.worst;
  const fixed = fate.shown === "hidden" && !fate.by.startsWith("setting-");
  const label = t("agentSkillSwitch", k.name, a.name);
  if (a.id === "claude-code") {
    const now = a.own_settings?.[k.name] ?? "on";
    const words = ["on", "name-only", "off", ...(now === "user-invocable-only" ? [now] : [])];
    return el("select", {
      class: "own-setting", "aria-label": label, dataset: { agentSkill: k.name }, disabled: fixed,
      onchange: (e) => setAgentSkill(a.id, k.name, e.target.value),
    }, ...words.map((w) => el("option", { value: w, text: t(`own_${w.replaceAll("-", "_")}`), selected: w === now })));
  }
  const offHere = fate.shown === "hidden" && fate.by === "setting-off";
  return el("input", {
    type: "checkbox", checked: !offHere, "aria-label": label, dataset: { agentSkill: k.name }, disabled: fixed,
    onchange: (e) => setAgentSkill(a.id, k.name, e.target.checked ? "on" : "off"),
  });
}

async function setAgentSkill(agent, skill, to) {
  try {
    await invoke("agents_agent_skill", { agent, skill, to });
    toast(t(to === "off" ? "agentSkillOff" : to === "name-only" ? "agentSkillNameOnly" : "agentSkillOn", skill, toolName(agent)));
    await loadAgents();
  } catch (e) {
    showError(e);
    await loadAgents().catch(() => {});
  }
}

/** Whether skill `name` goes to folder `f` by its `skills`, `tags` and `exclude` lists. */
const chosenFor = (f, name) => f.takes.includes(name);

function folderBlock(x, f) {
  const byName = new Map(f.skills.map((s) => [s.name, s]));
  // Every deliverable skill gets a row (with its switch), and every other entry there.
  const names = [...new Set([...view.data.skills, ...byName.keys()])].sort();
  const rows = names.map((name) => {
    const s = byName.get(name);
    const deliverable = view.data.skills.includes(name);
    const chosen = chosenFor(f, name);
    // A chosen skill the fit keeps out, or that the agent reads in a shared folder, is not
    // missing: a sync would not write it here.
    const state = s?.state ?? (f.left_out?.includes(name) ? "left-out" : f.once?.includes(name) ? "elsewhere" : chosen && f.synced ? "missing" : null);
    const rev = s?.revision !== undefined && s?.store_revision !== undefined && s.revision !== s.store_revision
      ? `v:${s.revision} → v:${s.store_revision}`
      : s?.revision !== undefined ? `v:${s.revision}` : s?.store_revision !== undefined ? `v:${s.store_revision}` : "";
    const toggleBox = deliverable && s?.state !== "foreign"
      ? el("input", {
        type: "checkbox", checked: chosen, "aria-label": t("deliverSkill", name),
        dataset: { skillToggle: name },
        onchange: (e) => setSkill(x.id, name, e.target.checked),
      })
      : null;
    const action = s?.state === "drifted"
      ? el("button", { type: "button", class: "small", dataset: { drift: name }, text: t("showChanges"), onclick: () => showDrift(x, f, s) })
      : s?.state === "foreign" && s.digest && deliverable
        ? el("span", { class: "hint", text: t("clashHint") })
        : null;
    // The fields this agent ignores or rejects in the copy there (`targets`' per-skill check).
    const fields = s?.agent_fields ?? [];
    const invalid = fields.filter((v) => v.verdict === "invalid").length;
    const fieldMark = fields.length
      ? el("span", {
        class: `marker ${invalid ? "error" : "warn"} agent-fields`, dataset: { agentFields: name },
        title: fields.map((v) => `${v.field}: ${v.why}`).join("\n"),
        text: invalid ? t("fieldsInvalid", invalid, x.name) : t("fieldsIgnored", fields.length, x.name),
      })
      : null;
    return el("tr", { dataset: { skill: name } },
      el("td", {}, toggleBox),
      el("td", {}, el("span", { text: name }), fieldMark),
      el("td", {}, state ? stateChip(state) : el("span", { class: "hint", text: t("notDelivered") })),
      el("td", { class: "hint", text: rev }),
      el("td", {}, action));
  });
  return el("div", { class: "folder-block", dataset: { folder: f.path } },
    el("h3", {}, el("span", { text: t(`level_${f.level}`) }), el("code", { text: f.path }),
      f.exists ? null : el("span", { class: "hint", text: t("notThereYet") })),
    f.error ? el("p", { class: "error-text", text: f.error }) : null,
    rows.length
      ? el("div", { class: "table-scroll" }, el("table", { class: "skills-in-folder" },
        el("thead", {}, el("tr", {}, el("th", { text: t("deliverCol") }), el("th", { text: t("skillCol") }), el("th", { text: t("stateCol") }), el("th", { text: t("revisionCol") }), el("th"))),
        el("tbody", {}, ...rows)))
      : el("p", { class: "hint", text: t("folderEmpty") }));
}

async function setSwitch(command, target, on) {
  try {
    await invoke(command, { target, on });
    await loadAgents();
  } catch (e) {
    showError(e);
    await loadAgents().catch(() => {});
  }
}

async function setSkill(target, skill, on) {
  try {
    await invoke("agents_set_skill", { target, skill, on });
    await loadAgents();
  } catch (e) {
    showError(e);
  }
}

/** One step of a plan as a line of text. */
function stepText(a, dryRun) {
  const v = (n) => `v:${n}`;
  if (a.action === "write") return t(dryRun ? "planWrite" : "doneWrite", a.name, v(a.revision));
  if (a.action === "replace") return t(dryRun ? "planReplace" : "doneReplace", a.name, v(a.from), v(a.to)) + (a.keep ? ` — ${keepText(a.keep, dryRun)}` : "");
  if (a.action === "remove") return t(dryRun ? "planRemove" : "doneRemove", a.name, v(a.revision));
  if (a.reason === "drifted") return t("skipDrifted", a.name, v(a.revision));
  return t("skipForeign", a.name);
}

/** What happens to an edited copy before `--overwrite` replaces it (a plan step's `keep`). */
function keepText(k, dryRun) {
  const v = (n) => `v:${n}`;
  if (k.how === "history") return t(dryRun ? "keepHistoryPlan" : "keepHistoryDone", v(k.edit), v(k.from), v(k.restore));
  if (k.how === "user_history") return t(dryRun ? "keepUserPlan" : "keepUserDone", v(k.edit), k.of === "team");
  return k.same ? t("keepSame", v(k.same)) : t("keepLink");
}

/** The name people know a target by (its id for a folder of their own). */
const toolName = (id) => view.data?.agents.find((x) => x.id === id)?.name ?? id;

/**
 * What one agent's listing becomes after the sync (a plan's `fit`): a meter, what the model
 * sees of the skills, which stay out to fit, and the per-tool choice to go over.
 * @param {import("./types/bindings").Fit} f
 */
function fitView(f) {
  const l = f.after;
  const unit = t(`unit_${f.unit}`);
  const shape = [t("fitWhole", l.full)];
  if (l.shortened) shape.push(t("fitShortened", l.shortened));
  if (l.name_only) shape.push(t("fitNamesOnly", l.name_only));
  if (l.omitted) shape.push(t("fitOmitted", l.omitted));
  const over = f.budget !== null && l.cost > f.budget;
  const head = f.budget === null
    ? t("fitNoCap", f.name, l.cost, unit)
    : t("fitAfter", f.name, l.cost, f.budget, unit, Math.round((l.cost * 100) / Math.max(1, f.budget)));
  const everything = f.everything;
  const squeezed = everything.shortened + everything.name_only + everything.omitted;
  const chosen = f.delivered + f.left_out.length;
  return el("div", { class: `plan-fit${over ? " over" : ""}`, dataset: { fit: f.target } },
    el("p", { class: "fit-head", text: head }),
    f.budget === null ? null : el("div", { class: "meter" }, el("span", { style: `width:${Math.min(100, (l.cost * 100) / Math.max(1, f.budget))}%` })),
    el("p", { class: "hint", text: shape.join(" · ") + (f.by_use ? ` ${t("fitWorstCase")}` : "") }),
    f.once ? el("p", { class: "hint", text: t("fitOnce", f.once) }) : null,
    f.left_out.length
      ? el("details", { class: "fit-left-out" },
        el("summary", { text: t("fitLeftOut", f.left_out.length, chosen) }),
        el("p", { class: "hint", text: f.left_out.join(", ") }))
      : null,
    f.left_out.length && f.budget !== null
      ? el("p", { class: "hint", text: t("fitEverything", chosen, everything.cost, f.budget, unit, Math.round((everything.cost * 100) / Math.max(1, f.budget)), squeezed, squeezed + everything.full) })
      : null,
    f.budget === null || (!f.left_out.length && !f.over_budget)
      ? null
      : el("button", {
        type: "button",
        class: f.over_budget ? "" : "danger",
        dataset: { overBudget: f.target },
        text: f.over_budget ? t("fitBackToBudget") : t("fitGoOver", chosen),
        onclick: () => setOverBudget(f.target, !f.over_budget),
      }));
}

/** Lets `target` go over its budget (or not) and shows the plan again. */
async function setOverBudget(target, on) {
  // The plan on show is no longer what a sync would do: no sync until the new one is shown.
  $("#sync-confirm").disabled = true;
  planShown++;
  try {
    await invoke("agents_set_over_budget", { target, on });
    const { targets, overwrite } = view.plan;
    await openPlan(targets, overwrite);
  } catch (e) {
    showError(e);
  }
}

/** A folder's steps counted by kind: `write 61 · remove 3 · skip 2`. */
function stepCounts(p, dryRun) {
  const counts = new Map();
  for (const a of p.actions) counts.set(a.action, (counts.get(a.action) || 0) + 1);
  return [...counts].map(([k, n]) => t(dryRun ? `count_${k}` : `counted_${k}`, n)).join(" · ");
}

function planView(plans, dryRun) {
  if (!plans.length) return [el("p", { class: "hint", text: t("nothingToSync") })];
  const fits = plans.filter((p) => p.fit).map((p) => fitView(/** @type {any} */ (p.fit)));
  const folders = plans.map((p) => el("div", { class: "plan-folder", dataset: { plan: p.path } },
    el("h3", {}, el("span", { text: toolName(p.target) }), el("code", { text: p.path }), p.actions.length ? el("span", { class: "hint", text: stepCounts(p, dryRun) }) : null),
    p.same_as ? el("p", { class: "hint", text: t("sameFolder", p.same_as) }) : null,
    p.error ? el("p", { class: "error-text", text: p.error }) : null,
    p.once && p.once.length ? el("p", { class: "hint", text: t("planOnce", p.once.length, [...new Set(p.once.map((o) => o.folder))].join(", ")) }) : null,
    p.left_out && p.left_out.length ? el("p", { class: "hint", text: t("planLeftOut", p.left_out.length, [...new Set(p.left_out.flatMap((l) => l.agents))].map(toolName).join(", ")) }) : null,
    p.actions.length
      ? el("details", { class: "plan-steps", open: p.actions.length <= 12 },
        el("summary", { text: t("planSteps", p.actions.length) }),
        ...p.actions.map((a) => el("div", { class: `plan-step${a.action === "skip" ? " skip" : ""}`, text: stepText(a, dryRun) })))
      : null,
    p.error || p.same_as || (p.unchanged.length === 0 && p.actions.length)
      ? null
      : el("p", { class: "hint", text: t(p.actions.some((a) => a.action !== "skip") ? "alreadyInSync" : "upToDate", p.unchanged.length) })));
  return fits.length ? [el("div", { class: "plan-fits" }, el("h3", { text: t("fitTitle") }), ...fits), ...folders] : folders;
}

/** Shows what a sync of `targets` would do, and syncs when confirmed. */
async function openPlan(targets = [], overwrite = []) {
  const mine = ++planShown;
  $("#sync-confirm").disabled = true;
  try {
    const plans = await invoke("agents_plan", { project: project(), targets, overwrite });
    if (mine !== planShown) return;
    view.plan = { targets, overwrite };
    const changes = plans.reduce((n, p) => n + p.actions.filter((a) => a.action !== "skip").length, 0);
    $("#sync-plan").replaceChildren(...planView(plans, true));
    $("#sync-plan").scrollTop = 0;
    $("#sync-confirm").disabled = changes === 0;
    $("#sync-confirm").textContent = t("syncConfirmN", changes);
    $("#sync-dialog").showModal();
  } catch (e) {
    showError(e);
  }
}

async function confirmSync() {
  const { targets, overwrite } = view.plan;
  $("#sync-confirm").disabled = true;
  planShown++;
  try {
    const plans = await invoke("agents_sync", { project: project(), targets, overwrite });
    const done = plans.reduce((n, p) => n + p.done, 0);
    const failed = plans.filter((p) => p.error).length;
    $("#sync-plan").replaceChildren(...planView(plans, false));
    toast(failed ? t("syncedWithErrors", done, failed) : t("synced", done));
    $("#sync-dialog").close();
    await loadAgents();
  } catch (e) {
    showError(e);
  }
}

/** The edits made to drifted skill `s` in folder `f` of tool `x`, with a way to overwrite them. */
async function showDrift(x, f, s) {
  try {
    const diffs = await invoke("agents_drift", { folder: f.path, name: s.name });
    $("#drift-title").textContent = t("driftTitle", s.name, x.name);
    $("#drift-hint").textContent = t("driftHint", `v:${s.revision}`, f.path);
    $("#drift-files").replaceChildren(...(diffs.length ? diffs.map((d) => diffBlock(d)) : [el("p", { class: "hint", text: t("driftNone") })]));
    // Where the edits go on Overwrite: the plan of that very overwrite, not a guess.
    const plans = await invoke("agents_plan", { project: project(), targets: [x.id], overwrite: [s.name] });
    const step = plans.filter((p) => p.path === f.path).flatMap((p) => p.actions).find((a) => "keep" in a && a.name === s.name && a.keep);
    $("#drift-keep").textContent = step && "keep" in step ? t("driftKeeps", keepText(step.keep, true)) : "";
    const over = $("#drift-overwrite");
    over.textContent = t("overwriteWith", s.store_revision ? `v:${s.store_revision}` : "");
    over.hidden = !s.store_revision;
    over.onclick = () => { $("#drift-dialog").close(); openPlan([x.id], [s.name]); };
    $("#drift-dialog").showModal();
  } catch (e) {
    showError(e);
  }
}

/** Which tools each skill is delivered to (in sync or outdated) and where it was edited. */
export function deliveryOf(data) {
  const out = new Map();
  for (const x of targetsOf(data)) {
    for (const f of x.folders) {
      for (const s of f.skills) {
        const mark = out.get(s.name) || { tools: [], drifted: [] };
        if (s.state === "in-sync" || s.state === "outdated") { if (!mark.tools.includes(x.name)) mark.tools.push(x.name); } else if (s.state === "drifted") { if (!mark.drifted.includes(x.name)) mark.drifted.push(x.name); } else continue;
        out.set(s.name, mark);
      }
    }
  }
  return out;
}

// ---------- bringing skills in from the tools (scan and adopt) ----------

const OFFERED_KEY = "skilldeck.agents.adoptOffered";

/** The skills a scan found that there is something to bring in for: a valid copy not ours. */
function adoptable(report) {
  return report.skills.filter((s) => s.copies.some((c) => !allOurs(c)));
}

const allOurs = (c) => c.places.every((p) => ["in-sync", "outdated", "unselected"].includes(p.state));

function relationText(c) {
  const v = c.revision !== undefined ? `v:${c.revision}` : "";
  return t(`rel_${c.relation.replaceAll("-", "_")}`, v);
}

/** The tools holding skills to bring in, by name, for the banner. */
function toolsOf(skills) {
  const ids = new Set(skills.flatMap((s) => s.copies.flatMap((c) => c.places.map((p) => p.target))));
  return [...ids].map((id) => toolName(id));
}

/**
 * Looks for skills in the agent tools' folders once, at the app's first start, and offers to
 * bring them in (never doing it unasked).
 */
export async function offerAdoption() {
  if (localStorage.getItem(OFFERED_KEY)) return;
  if (!view.data) view.data = await invoke("agents_overview", { project: null });
  const report = await invoke("agents_scan", { project: null });
  const found = adoptable(report);
  if (!found.length) return;
  $("#adopt-banner-text").textContent = t("adoptBanner", found.length, toolsOf(found).join(", "));
  $("#adopt-banner").hidden = false;
}

function closeBanner() {
  localStorage.setItem(OFFERED_KEY, "1");
  $("#adopt-banner").hidden = true;
}

/** Scans the tools' folders and shows what can be brought in, each with a checkbox. */
async function openAdopt() {
  try {
    const report = await invoke("agents_scan", { project: project() });
    const found = adoptable(report);
    // Where the `skills` CLI says a skill came from (its lockfiles): adopting records it.
    const entries = (report.skillsCli?.locks ?? []).flatMap((l) => l.entries);
    const sourceOf = (name) => entries.find((e) => e.name === name || e.name.toLowerCase() === name);
    const list = el("ul", { class: "adopt-list" }, ...found.map((s) => {
      // Several different contents: the one in the most places is offered, the others shown.
      const groups = s.copies.filter((c) => !allOurs(c));
      const pick = groups.find((c) => c.valid);
      const box = el("input", { type: "checkbox", checked: Boolean(pick), disabled: !pick, dataset: { adopt: s.name, from: groups.length > 1 && pick ? pick.places[0].target : "" } });
      box.onchange = countChosen;
      const entry = sourceOf(s.name);
      return el("li", { dataset: { skill: s.name } },
        el("label", {}, box, el("strong", { text: s.name })),
        entry ? el("div", { class: "hint adopt-source", text: t("adoptSource", entry.source + (entry.path && entry.path !== "." ? `, ${entry.path}` : "") + (entry.ref ? ` @${entry.ref}` : "")) }) : null,
        el("div", { class: "copies" }, ...groups.map((c) => el("span", { class: c.valid ? "" : "error-text" },
          `${c.places.map((p) => toolName(p.target)).join(", ")} · ${relationText(c)}${c.valid ? "" : ` · ${t("copyInvalid", c.diagnostics.filter((d) => d.severity === "error").length)}`}`))));
    }));
    $("#adopt-list").replaceChildren(found.length ? list : el("p", { class: "hint", text: t("adoptNothing") }));
    countChosen();
    $("#adopt-dialog").showModal();
  } catch (e) {
    showError(e);
  }
}

function countChosen() {
  const n = document.querySelectorAll("#adopt-list input[data-adopt]:checked").length;
  $("#adopt-confirm").textContent = t("adoptConfirm", n);
  $("#adopt-confirm").disabled = n === 0;
}

function tickAll(on) {
  for (const b of /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll("#adopt-list input[data-adopt]:not(:disabled)"))) b.checked = on;
  countChosen();
}

async function confirmAdopt() {
  const chosen = [.../** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll("#adopt-list input[data-adopt]:checked"))];
  $("#adopt-confirm").disabled = true;
  // Skills with one content go together; one picked among several contents names its tool.
  const plain = chosen.filter((b) => !b.dataset.from).map((b) => b.dataset.adopt);
  const calls = [];
  if (plain.length) calls.push({ names: plain, from: null });
  for (const b of chosen.filter((x) => x.dataset.from)) calls.push({ names: [b.dataset.adopt], from: b.dataset.from });
  let adopted = 0;
  /** @type {string[]} */
  const names = [];
  let sourced = 0;
  const failed = [];
  const unfollowed = [];
  try {
    for (const c of calls) {
      const done = await invoke("agents_adopt", { project: project(), names: c.names, from: c.from });
      adopted += done.adopted.length;
      names.push(...done.adopted.map((a) => a.name));
      sourced += done.sources.length;
      failed.push(...done.failed.map((f) => f.error));
      unfollowed.push(...done.unfollowed.map((u) => `${u.name}: ${u.reason}`));
    }
    $("#adopt-dialog").close();
    closeBanner();
    toast(failed.length ? t("adoptFailed", failed[0])
      : unfollowed.length ? t("adoptedUnfollowed", adopted, unfollowed[0])
        : sourced ? t("adoptedSourced", adopted, sourced) : t("adopted", adopted));
    if (names.length) await view.onAdopted(names);
    await loadAgents();
  } catch (e) {
    showError(e);
    $("#adopt-confirm").disabled = false;
  }
}

/** Redraws the view in the current language. */
export function translateAgents() {
  if (view.data) renderAgents();
}

/**
 * Wires the view. `onChange(delivery)` runs with `deliveryOf` whenever the view reloads, so
 * the sidebar can mark each skill; `onAdopted(names)` after skills were brought in from the
 * tools' folders, so the sidebar can show them.
 */
export function initAgents({ onChange, onAdopted }) {
  view.onChange = onChange;
  view.onAdopted = onAdopted;
  $("#agents-project").value = localStorage.getItem(PROJECT_KEY) || "";
  $("#agents-project").addEventListener("change", () => {
    localStorage.setItem(PROJECT_KEY, $("#agents-project").value.trim());
    loadAgents().catch(showError);
  });
  $("#agents-browse").onclick = async () => {
    const picked = await window.__TAURI__.dialog.open({ directory: true, multiple: false }).catch(showError);
    if (typeof picked === "string") {
      $("#agents-project").value = picked;
      localStorage.setItem(PROJECT_KEY, picked);
      loadAgents().catch(showError);
    }
  };
  $("#agents-refresh").onclick = () => loadAgents().catch(showError);
  $("#agents-sync").onclick = () => openPlan();
  $("#sync-cancel").onclick = () => $("#sync-dialog").close();
  $("#sync-confirm").onclick = confirmSync;
  $("#drift-close").onclick = () => $("#drift-dialog").close();
  $("#agents-scan").onclick = openAdopt;
  $("#adopt-review").onclick = openAdopt;
  $("#adopt-later").onclick = closeBanner;
  $("#adopt-cancel").onclick = () => $("#adopt-dialog").close();
  $("#adopt-confirm").onclick = confirmAdopt;
  $("#adopt-all").onclick = () => tickAll(true);
  $("#adopt-none").onclick = () => tickAll(false);
  listen("agents://synced", (e) => {
    const d = e.payload;
    // A change that reached no folder (a sync with nothing to deliver) is not news.
    if (d.errors.length) toast(t("autoSyncFailed", d.errors[0]));
    else if (d.changes > 0) toast(t("autoSynced", d.changes, d.targets.join(", ")));
    loadAgents().catch(() => {});
  });
}


