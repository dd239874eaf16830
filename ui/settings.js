// @ts-check
// The Settings view (the gear at the top right): config.toml's providers, team stores, the shell
// tool's sandbox, the listing, sources, the audit's hold, and the store on disk, in sections
// behind vertical tabs. Every change
// goes through a backend command that edits config.toml the way the CLI does; a value the file
// would refuse comes back with the CLI's own message and is shown in the form. The watcher's
// `skills://changed` (config.toml included) redraws the open view, so an outside edit shows.

import { $, el, showError, size, toast } from "./dom.js";
import { formatDate } from "./i18n.js";
import { st, stErr } from "./settings_i18n.js";

import { invoke } from "./api.js";
const { listen } = window.__TAURI__.event;

const SECTIONS = ["models", "team", "sandbox", "listing", "sources", "audit", "storage", "about"];
const TITLES = {
  models: "secModels", team: "secTeam", sandbox: "secSandbox", listing: "secListing",
  sources: "secSources", audit: "secAudit", storage: "secStorage", about: "secAbout",
};

// `form`: the provider being added or edited ({adding, name, values, error}); `shellDirty`:
// the Sandbox form has edits not saved yet (an outside change then does not overwrite them);
// `tests`: each provider's last Test ({busy, ok, text}); `removing`: the provider whose Remove
// asks to be pressed again.
const view = {
  open: false, section: "models",
  /** @type {import("./types/bindings").SettingsView | null} */
  data: null,
  /** @type {import("./types/bindings").StorageView | null} */
  storage: null,
  /** @type {import("./types/bindings").AboutView | null} */
  about: null,
  form: null, shellDirty: false,
  shellError: null, tests: new Map(), removing: null, loadTurn: 0,
  budgetDraft: null, pinDraft: null, sourcesDraft: null, sourcesError: null, refreshDraft: null, refreshError: null,
  /** @type {import("./types/bindings").RemotesView | { error: string } | null} the remotes, or why they could not be read */
  remotes: null, remoteForm: { name: "team", url: "", endpoint: "", region: "", error: null }, remoteTests: new Map(),
};

/** Reads config.toml's settings again and redraws, keeping an open form as it is. Nothing is
 * redrawn when nothing changed (`force` aside): every store change sends `skills://changed`,
 * and a redraw for nothing would take the control being typed in or clicked from under the
 * user, and wipe a message just shown. */
export async function reloadSettings(force = false) {
  if (!view.open) return;
  const turn = ++view.loadTurn;
  const data = await invoke("settings_view");
  const remotes = view.section === "team" ? await invoke("team_remotes").catch((e) => ({ error: stErr(e) })) : view.remotes;
  if (turn !== view.loadTurn) return;
  const same = JSON.stringify([data, remotes]) === JSON.stringify([view.data, view.remotes]);
  view.data = data;
  view.remotes = remotes;
  if (same && !force) return;
  // Sandbox edits not saved yet stay on screen; saving writes them over the new file.
  if (view.section === "sandbox" && view.shellDirty) return;
  render();
}

/** Shows the view, reading everything afresh. */
export async function openSettings() {
  view.open = true;
  await reloadSettings(true);
  if (view.section === "storage") loadStorage();
  if (view.section === "about") loadAbout();
}

/** Called when another view is shown. */
export function closeSettings() {
  view.open = false;
}

/** Redraws in the current language. */
export function translateSettings() {
  const gear = $("#settings-btn");
  gear.setAttribute("aria-label", st("settings"));
  gear.title = st("settings");
  $("#settings").setAttribute("aria-label", st("settings"));
  if (view.open && view.data) render();
}

// ---------- the frame: section tabs and the panel ----------

function tabs() {
  const list = el("div", { class: "settings-nav", role: "tablist", "aria-orientation": "vertical", "aria-label": st("sections") });
  for (const s of SECTIONS) {
    const on = s === view.section;
    list.append(el("button", {
      type: "button", role: "tab", id: `settings-tab-${s}`, "aria-selected": String(on), "aria-controls": "settings-panel",
      tabindex: on ? "0" : "-1", dataset: { section: s }, text: st(TITLES[s]), onclick: () => choose(s, false),
    }));
  }
  list.addEventListener("keydown", (e) => {
    const i = SECTIONS.indexOf(view.section);
    const next = { ArrowDown: i + 1, ArrowRight: i + 1, ArrowUp: i - 1, ArrowLeft: i - 1, Home: 0, End: SECTIONS.length - 1 }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    choose(SECTIONS[(next + SECTIONS.length) % SECTIONS.length], true);
  });
  return list;
}

function choose(section, focusTab) {
  view.section = section;
  view.shellDirty = false;
  view.shellError = null;
  view.sourcesDraft = null;
  view.sourcesError = null;
  view.refreshError = null;
  render();
  if (focusTab) $(`#settings-tab-${section}`).focus();
  if (section === "storage") loadStorage();
  if (section === "about") loadAbout();
  if (section === "team") reloadSettings(true).catch(showError);
}

function render() {
  const active = document.activeElement?.id;
  const d = view.data;
  const panel = el("section", { id: "settings-panel", class: "settings-panel", role: "tabpanel", "aria-labelledby": `settings-tab-${view.section}`, dataset: { section: view.section } },
    el("h2", { text: st(TITLES[view.section]) }),
    d.configError ? el("div", { class: "settings-broken", role: "alert" },
      el("p", { text: st("configBroken") }), el("pre", { text: d.configError })) : null,
    ...({ models, team, sandbox, listing, sources, audit, storage, about }[view.section])(d));
  $("#settings").replaceChildren(tabs(), panel);
  // A redraw (an outside edit, a language switch) leaves the focus where it was.
  if (active && document.getElementById(active)) document.getElementById(active).focus();
}

/** A labelled field: its label, the control, and a hint the control is described by. */
function field(id, label, control, hint) {
  control.id = id;
  if (hint) control.setAttribute("aria-describedby", `${id}-hint`);
  return el("div", { class: "settings-field" },
    el("label", { for: id, text: label }), control,
    hint ? el("p", { class: "hint", id: `${id}-hint`, text: hint }) : null);
}

function where(d) {
  return el("p", { class: "hint settings-where", text: st("configAt", d.configPath) });
}

// ---------- Models ----------

function keyLine(p) {
  if (p.keyPresent) return el("span", { class: "key-state key-set", text: st("keySet", p.apiKeyEnv) });
  if (p.keychain) return el("span", { class: "key-state key-set", text: st(`keyKept_${p.keychain.replace("-", "_")}`) });
  if (!p.apiKeyEnv) return el("span", { class: "hint", text: st("noKey") });
  return el("span", { class: "key-state key-missing", text: st("keyMissingOrKeychain", p.apiKeyEnv) });
}

/**
 * Where a provider's key is typed to keep it in the system keychain (never config.toml): a
 * password field and Keep, or Remove when one is kept.
 */
function keychainRow(p) {
  if (p.api === "offline") return null;
  const field = el("input", { type: "password", class: "provider-key", autocomplete: "off", spellcheck: "false", placeholder: st("keyPlaceholder"), "aria-label": st("keyPlaceholder") });
  const keep = el("button", { type: "button", class: "provider-key-keep", text: st("keyKeep"), onclick: async () => {
    keep.disabled = true;
    try {
      view.data = await invoke("settings_set_provider_key", { name: p.name, key: field.value });
      field.value = "";
      render();
      toast(st("keyKeptToast", p.name));
    } catch (e) {
      showError(e);
    } finally {
      keep.disabled = false;
    }
  } });
  const remove = p.keychain ? el("button", { type: "button", class: "provider-key-remove", text: st("keyRemove"), onclick: async () => {
    try {
      view.data = await invoke("settings_remove_provider_key", { name: p.name });
      render();
      toast(st("keyRemovedToast", p.name));
    } catch (e) {
      showError(e);
    }
  } }) : null;
  return el("div", { class: "row provider-keychain" }, field, keep, remove);
}

function providerCard(p, d) {
  const isDefault = p.name === d.defaultProvider;
  const test = view.tests.get(p.name);
  const removing = view.removing === p.name;
  return el("li", { class: "provider-card", dataset: { provider: p.name } },
    el("div", { class: "provider-head" },
      el("strong", { text: p.name }),
      isDefault ? el("span", { class: "state default-badge", text: st("isDefault") }) : null,
      el("span", { class: "hint", text: st(`kind_${p.api}`) }),
      el("span", { class: "grow" }),
      el("button", { type: "button", class: "provider-test-btn", disabled: Boolean(test?.busy), text: test?.busy ? st("testing") : st("test"), onclick: () => testProvider(p.name) }),
      el("button", { type: "button", class: "provider-edit", text: st("edit"), onclick: () => editProvider(p) }),
      el("button", { type: "button", class: "provider-default", disabled: isDefault, text: st("makeDefault"), onclick: () => makeDefault(p.name) }),
      el("button", { type: "button", class: `provider-remove danger${removing ? " armed" : ""}`, text: removing ? st("removeSure") : st("remove"), onclick: () => removeProvider(p.name) })),
    el("dl", { class: "provider-facts" },
      el("dt", { text: st("baseUrl") }), el("dd", {}, el("code", { text: p.baseUrl || "—" })),
      el("dt", { text: st("model") }), el("dd", {}, el("code", { text: p.model || "—" })),
      el("dt", { text: st("keyVar") }), el("dd", {}, keyLine(p)),
      el("dt", { text: st("tier") }), el("dd", { text: p.tier })),
    keychainRow(p),
    testLine(test, () => (test.answer ? st("testOk", test.answer) : st("testEmpty"))));
}

/** A Test's outcome, worded when drawn (so in the language in force). */
function testLine(test, okText) {
  if (!test || test.busy) return null;
  const text = test.ok ? okText() : st("testFailed", stErr(test.error));
  return el("p", { class: `provider-test ${test.ok ? "ok" : "error-text"}`, role: "status", text });
}

function models(d) {
  const list = el("ul", { class: "provider-list", "aria-label": st("secModels") },
    ...d.providers.map((p) => providerCard(p, d)));
  const offline = el("p", { class: "hint provider-offline" }, st("offlineBuiltIn"),
    d.defaultProvider === "offline" ? el("span", { class: "state default-badge", text: st("isDefault") })
      : el("button", { type: "button", class: "provider-default", text: st("makeDefault"), onclick: () => makeDefault("offline") }));
  return [
    el("p", { class: "hint", text: st("modelsIntro") }), where(d),
    d.providers.length ? list : el("p", { class: "empty", text: st("noProviders") }),
    offline,
    view.form ? providerForm() : el("div", { class: "row" },
      el("button", { type: "button", id: "settings-add-provider", class: "primary", disabled: Boolean(d.configError), text: st("addProvider"), onclick: () => addProvider() })),
  ];
}

function providerForm() {
  const f = view.form;
  const v = f.values;
  const input = (key, attrs = {}) => {
    const i = el("input", { type: "text", spellcheck: "false", autocomplete: "off", ...attrs });
    i.value = v[key] ?? "";
    i.addEventListener("input", () => { v[key] = i.value; });
    return i;
  };
  const select = (key, options) => {
    const s = el("select", {}, ...options.map(([value, label]) => el("option", { value, text: label })));
    s.value = v[key];
    s.addEventListener("change", () => { v[key] = s.value; });
    return s;
  };
  const name = input("name", { readonly: !f.adding });
  return el("form", { class: "provider-form", "aria-labelledby": "settings-p-title", onsubmit: (e) => { e.preventDefault(); saveProvider(); } },
    el("h3", { id: "settings-p-title", text: f.adding ? st("adding") : st("editing", f.name) }),
    el("div", { class: "settings-grid" },
      field("settings-p-name", st("name"), name, st("nameHint")),
      field("settings-p-kind", st("kind"), select("api", [["openai", st("kind_openai")], ["anthropic", st("kind_anthropic")]])),
      field("settings-p-url", st("baseUrl"), input("base_url", { placeholder: "http://localhost:11434/v1" }), st("baseUrlHint")),
      field("settings-p-model", st("model"), input("model", { placeholder: "qwen3:8b" })),
      field("settings-p-key", st("keyVar"), input("api_key_env", { placeholder: "OPENAI_API_KEY" }), st("keyVarHint")),
      field("settings-p-tier", st("tier"), select("tier", [["ultra", st("tier_ultra")], ["lite", st("tier_lite")]]))),
    el("p", { id: "settings-p-error", class: "error-text", role: "alert", text: f.error || "" }),
    el("div", { class: "row end" },
      el("button", { type: "button", id: "settings-p-cancel", text: st("cancel"), onclick: () => { view.form = null; render(); } }),
      el("button", { type: "submit", id: "settings-p-save", class: "primary", text: st("save") })));
}

function addProvider() {
  view.form = { adding: true, name: "", values: { name: "", api: "openai", base_url: "", model: "", api_key_env: "", tier: "ultra" }, error: null };
  render();
  $("#settings-p-name").focus();
}

function editProvider(p) {
  view.form = {
    adding: false, name: p.name,
    values: { name: p.name, api: p.api === "anthropic" ? "anthropic" : "openai", base_url: p.baseUrl || "", model: p.model || "", api_key_env: p.apiKeyEnv || "", tier: p.tier },
    error: null,
  };
  render();
  $("#settings-p-url").focus();
}

async function saveProvider() {
  const f = view.form;
  const v = f.values;
  const blank = (s) => (s.trim() === "" ? null : s.trim());
  const form = { api: v.api, base_url: blank(v.base_url), model: blank(v.model), api_key_env: blank(v.api_key_env), tier: v.tier };
  try {
    view.data = await invoke("settings_save_provider", { name: v.name.trim(), form, adding: f.adding });
    view.tests.delete(v.name.trim());
    view.form = null;
    render();
    toast(st("saved"));
  } catch (e) {
    f.error = stErr(e);
    const box = $("#settings-p-error");
    if (box) box.textContent = f.error;
  }
}

async function testProvider(name) {
  view.tests.set(name, { busy: true });
  render();
  try {
    view.tests.set(name, { ok: true, answer: await invoke("settings_test_provider", { name }) });
  } catch (error) {
    view.tests.set(name, { ok: false, error });
  }
  if (view.open) render();
}

async function makeDefault(name) {
  try {
    view.data = await invoke("settings_default_provider", { name });
    render();
    toast(st("defaultSet", name));
  } catch (e) {
    showError(e);
  }
}

async function removeProvider(name) {
  if (view.removing !== name) {
    // The first press arms the button; a second within a few seconds removes.
    view.removing = name;
    render();
    clearTimeout(view.removeTimer);
    view.removeTimer = setTimeout(() => { if (view.removing === name) { view.removing = null; if (view.open) render(); } }, 5000);
    return;
  }
  view.removing = null;
  try {
    view.data = await invoke("settings_remove_provider", { name });
    view.tests.delete(name);
    render();
    toast(st("providerRemoved", name));
  } catch (e) {
    showError(e);
  }
}

// ---------- Team ----------

function remoteCard(r) {
  const test = view.remoteTests.get(r.name);
  const removing = view.removing === `remote:${r.name}`;
  return el("li", { class: "provider-card remote-card", dataset: { remote: r.name } },
    el("div", { class: "provider-head" },
      el("strong", { text: r.name }),
      r.name === "team" ? el("span", { class: "state default-badge", text: st("teamScopeBadge") }) : null,
      el("span", { class: "grow" }),
      el("button", { type: "button", class: "remote-test", disabled: Boolean(test?.busy), text: test?.busy ? st("testing") : st("test"), onclick: () => testRemote(r.name) }),
      r.name === "team" ? el("button", { type: "button", class: "remote-refresh", text: st("refreshNow"), onclick: refreshTeamNow }) : null,
      el("button", { type: "button", class: `remote-remove danger${removing ? " armed" : ""}`, text: removing ? st("removeSure") : st("remove"), onclick: () => removeRemote(r.name) })),
    el("dl", { class: "provider-facts" },
      el("dt", { text: "URL" }), el("dd", {}, el("code", { text: r.url })),
      el("dt", { text: st("endpoint") }), el("dd", {}, el("code", { text: r.endpoint || st("endpointAws") })),
      el("dt", { text: st("region") }), el("dd", { text: r.region || "—" }),
      el("dt", { text: st("refreshEvery") }), el("dd", {}, r.name === "team" ? refreshField(r) : st("seconds", r.refreshSecs)),
      el("dt", { text: st("lastRefresh") }), el("dd", { text: r.lastRefresh ? formatDate(r.lastRefresh) : st("never") }),
      r.lastError ? el("dt", { text: st("lastError") }) : null, r.lastError ? el("dd", { class: "error-text", text: r.lastError }) : null),
    testLine(test, () => st("remoteOk", test.skills, test.revisions)));
}

/** The team remote's refresh interval, editable: how old the team scope may get. */
function refreshField(r) {
  const secs = el("input", {
    type: "number", id: "settings-refresh-secs", min: "0", max: "604800", step: "1",
    "aria-label": st("refreshEvery"), "aria-describedby": "settings-refresh-hint",
    oninput: (e) => { view.refreshDraft = e.target.value; },
  });
  secs.value = view.refreshDraft ?? String(r.refreshSecs);
  return el("div", { class: "refresh-edit" },
    // novalidate: a value out of range reaches config_edit, which says why in its own words.
    el("form", { class: "row", novalidate: true, onsubmit: (e) => { e.preventDefault(); saveRefresh(r.name, secs.value); } },
      secs, el("span", { text: st("secondsUnit") }),
      el("button", { type: "submit", id: "settings-refresh-save", text: st("save") })),
    el("p", { class: "hint", id: "settings-refresh-hint", text: st("refreshHint") }),
    el("p", { id: "settings-refresh-error", class: "error-text", role: "alert", text: view.refreshError || "" }));
}

async function saveRefresh(name, value) {
  const raw = String(value).trim();
  const secs = raw === "" ? null : Number(raw);
  const shown = (text) => {
    view.refreshError = text;
    const box = $("#settings-refresh-error");
    if (box) box.textContent = text;
  };
  if (secs !== null && !Number.isInteger(secs)) {
    shown(st("badNumber", st("refreshEvery")));
    return;
  }
  try {
    view.remotes = await invoke("team_set_refresh", { name, secs });
    view.refreshDraft = null;
    view.refreshError = null;
    render();
    toast(st("saved"));
  } catch (e) {
    shown(stErr(e));
  }
}

function team(d) {
  const r = view.remotes;
  const f = view.remoteForm;
  const input = (key, placeholder) => {
    const i = el("input", { type: "text", spellcheck: "false", autocomplete: "off", placeholder });
    i.value = f[key];
    i.addEventListener("input", () => { f[key] = i.value; });
    return i;
  };
  const body = [el("p", { class: "hint", text: st("teamIntro") }), where(d)];
  if (!r) return [...body, el("p", { class: "hint", text: st("measuring") })];
  if ("error" in r) return [...body, el("p", { class: "error-text", role: "alert", text: r.error })];
  body.push(el("p", { id: "settings-credentials", class: r.credentialsFound ? "key-state key-set" : "key-state key-missing", text: r.credentialsFound ? st("credsFound", r.credentials) : st("credsMissing", r.credentials) }));
  body.push(r.remotes.length ? el("ul", { class: "provider-list", "aria-label": st("secTeam") }, ...r.remotes.map(remoteCard)) : el("p", { class: "empty", text: st("noRemotes") }));
  body.push(el("form", { class: "provider-form", "aria-labelledby": "settings-r-title", onsubmit: (e) => { e.preventDefault(); addRemote(); } },
    el("h3", { id: "settings-r-title", text: st("addRemote") }),
    el("div", { class: "settings-grid" },
      field("settings-r-name", st("name"), input("name", "team"), st("remoteNameHint")),
      field("settings-r-url", "URL", input("url", "s3://bucket/prefix"), st("remoteUrlHint")),
      field("settings-r-endpoint", st("endpoint"), input("endpoint", "https://s3.example.com"), st("endpointHint")),
      field("settings-r-region", st("region"), input("region", "us-east-1"))),
    el("p", { id: "settings-r-error", class: "error-text", role: "alert", text: f.error || "" }),
    el("div", { class: "row end" }, el("button", { type: "submit", id: "settings-r-add", class: "primary", disabled: Boolean(d.configError), text: st("addRemote") }))));
  return body;
}

async function addRemote() {
  const f = view.remoteForm;
  try {
    view.remotes = await invoke("team_add_remote", { name: f.name.trim(), url: f.url.trim(), endpoint: f.endpoint || null, region: f.region || null });
    view.remoteForm = { name: "", url: "", endpoint: "", region: "", error: null };
    render();
    toast(st("saved"));
  } catch (e) {
    f.error = stErr(e);
    const box = $("#settings-r-error");
    if (box) box.textContent = f.error;
  }
}

async function testRemote(name) {
  view.remoteTests.set(name, { busy: true });
  render();
  try {
    const [skills, revisions] = await invoke("team_test_remote", { name });
    view.remoteTests.set(name, { ok: true, skills, revisions });
  } catch (error) {
    view.remoteTests.set(name, { ok: false, error });
  }
  if (view.open) render();
}

async function refreshTeamNow() {
  try {
    const status = await invoke("team_refresh");
    toast(status.offline ? st("testFailed", status.offline) : st("refreshed"));
  } catch (e) {
    showError(e);
  }
  await reloadSettings().catch(showError);
}

async function removeRemote(name) {
  const key = `remote:${name}`;
  if (view.removing !== key) {
    view.removing = key;
    render();
    clearTimeout(view.removeTimer);
    view.removeTimer = setTimeout(() => { if (view.removing === key) { view.removing = null; if (view.open) render(); } }, 5000);
    return;
  }
  view.removing = null;
  try {
    view.remotes = await invoke("team_remove_remote", { name });
    view.remoteTests.delete(name);
    render();
    toast(st("providerRemoved", name));
  } catch (e) {
    showError(e);
  }
}

// ---------- Sandbox ----------

const LIMITS = [
  ["timeout_secs", "timeout"], ["output_cap_bytes", "outputCap"], ["max_memory_mib", "memory"],
  ["max_processes", "processes"], ["max_file_size_mib", "fileSize"], ["tmp_size_mib", "tmpSize"],
];

const portsText = (p) => (p === "all" ? "all" : p.join(", "));

function sandbox(d) {
  const s = d.shell;
  const dirty = () => { view.shellDirty = true; };
  const network = el("input", { type: "checkbox", id: "settings-network", "aria-describedby": "settings-network-hint", onchange: dirty });
  network.checked = s.network;
  const ports = el("input", { type: "text", spellcheck: "false", oninput: dirty });
  ports.value = portsText(s.network_ports);
  const homes = el("textarea", { rows: "3", spellcheck: "false", oninput: dirty });
  homes.value = (s.home_paths || []).join("\n");
  const env = el("input", { type: "text", spellcheck: "false", oninput: dirty });
  env.value = (s.env || []).join(", ");
  const limits = LIMITS.map(([key, label]) => {
    const i = el("input", { type: "number", min: "1", step: "1", oninput: dirty });
    i.value = String(s[key]);
    return field(`settings-${key}`, st(label), i, st("defaultIs", d.shellDefaults[key]));
  });
  return [
    el("p", { class: "hint", text: st("sandboxIntro") }), where(d),
    el("fieldset", { class: "settings-group" },
      el("legend", { text: st("network") }),
      el("label", { class: "check" }, network, el("span", { text: st("networkOn") })),
      el("p", { class: "hint", id: "settings-network-hint", text: st("networkHint") }),
      field("settings-ports", st("ports"), ports, st("portsHint"))),
    el("fieldset", { class: "settings-group" },
      el("legend", { text: st("homePaths") + " · " + st("envVars") }),
      field("settings-home-paths", st("homePaths"), homes, st("homePathsHint")),
      field("settings-env", st("envVars"), env, st("envVarsHint"))),
    el("fieldset", { class: "settings-group" },
      el("legend", { text: st("limits") }),
      el("p", { class: "hint", text: st("limitsHint") }),
      el("div", { class: "settings-grid limits" }, ...limits)),
    el("p", { id: "settings-shell-error", class: "error-text", role: "alert", text: view.shellError || "" }),
    el("div", { class: "row end" },
      el("button", { type: "button", id: "settings-shell-save", class: "primary", disabled: Boolean(d.configError), text: st("save"), onclick: saveShell })),
  ];
}

/** The Sandbox form as `[shell]`, or a message saying which field is wrong. */
function readShell() {
  const shell = { ...view.data.shell };
  shell.network = $("#settings-network").checked;
  const ports = $("#settings-ports").value.trim();
  if (ports.toLowerCase() === "all") shell.network_ports = "all";
  else {
    const list = ports === "" ? [] : ports.split(/[\s,]+/).filter(Boolean).map(Number);
    if (list.some((n) => !Number.isInteger(n) || n < 1 || n > 65535)) return { error: st("badPorts") };
    shell.network_ports = list;
  }
  shell.home_paths = $("#settings-home-paths").value.split("\n").map((l) => l.trim()).filter(Boolean);
  shell.env = $("#settings-env").value.split(/[\s,]+/).map((v) => v.trim()).filter(Boolean);
  for (const [key, label] of LIMITS) {
    const raw = $(`#settings-${key}`).value.trim();
    const n = Number(raw);
    if (raw === "" || !Number.isInteger(n) || n < 0) return { error: st("badNumber", st(label)) };
    shell[key] = n;
  }
  return { shell };
}

async function saveShell() {
  const { shell, error } = readShell();
  if (error) {
    view.shellError = error;
    $("#settings-shell-error").textContent = error;
    return;
  }
  try {
    view.data = await invoke("settings_save_shell", { shell });
    view.shellDirty = false;
    view.shellError = null;
    render();
    toast(st("saved"));
  } catch (e) {
    view.shellError = stErr(e);
    $("#settings-shell-error").textContent = view.shellError;
  }
}

// ---------- Listing ----------

function listing(d) {
  const l = d.listing;
  // What is typed here survives a redraw (an outside edit, the watcher after a save).
  const budget = el("input", { type: "number", min: String(l.budgetRange[0]), max: String(l.budgetRange[1]), step: "100", oninput: (e) => { view.budgetDraft = e.target.value; } });
  budget.value = view.budgetDraft ?? String(l.budgetTokens);
  const suggest = el("input", { type: "checkbox", id: "settings-suggest", "aria-describedby": "settings-suggest-hint", onchange: (e) => saveSuggest(e.target.checked) });
  suggest.checked = l.suggest;
  const pinName = el("input", { type: "text", spellcheck: "false", autocomplete: "off", placeholder: st("pinName"), oninput: (e) => { view.pinDraft = e.target.value; } });
  pinName.value = view.pinDraft ?? "";
  const pins = l.pinned.length
    ? el("ul", { class: "pinned-list", id: "settings-pinned" }, ...l.pinned.map((name) => el("li", { dataset: { skill: name } },
      el("code", { text: name }),
      el("button", { type: "button", class: "unpin", "aria-label": `${st("unpin")} ${name}`, text: st("unpin"), onclick: () => setPinned(name, false) }))))
    : el("p", { class: "empty", id: "settings-pinned", text: st("noPinned") });
  return [
    el("p", { class: "hint", text: st("listingIntro") }), where(d),
    el("fieldset", { class: "settings-group" },
      el("legend", { text: st("budget") }),
      el("div", { class: "row" },
        field("settings-budget", st("budget"), budget, st("budgetHint", l.budgetRange[0], l.budgetRange[1])),
        el("button", { type: "button", id: "settings-budget-save", class: "primary", text: st("save"), onclick: () => saveBudget(budget.value) })),
      el("p", { id: "settings-budget-error", class: "error-text", role: "alert" })),
    el("fieldset", { class: "settings-group" },
      el("legend", { text: st("suggest") }),
      el("label", { class: "check" }, suggest, el("span", { text: st("suggestOn") })),
      el("p", { class: "hint", id: "settings-suggest-hint", text: st("suggestHint") })),
    el("fieldset", { class: "settings-group" },
      el("legend", { text: st("pinned") }),
      el("p", { class: "hint", text: st("pinnedHint") }),
      pins,
      el("form", { class: "row", onsubmit: (e) => { e.preventDefault(); if (pinName.value.trim()) setPinned(pinName.value.trim(), true); } },
        field("settings-pin-name", st("pinName"), pinName),
        el("button", { type: "submit", id: "settings-pin", text: st("pin") }))),
    el("fieldset", { class: "settings-group" },
      el("legend", { text: st("tier") }),
      el("p", { id: "settings-tier", text: st("tierLine", d.defaultProvider, l.tier) }),
      el("p", { class: "hint", text: st("tierHint") })),
  ];
}

async function saveBudget(value) {
  try {
    await invoke("set_listing_budget", { tokens: Number(value) });
    view.budgetDraft = null;
    await reloadSettings();
    toast(st("saved"));
  } catch (e) {
    const box = $("#settings-budget-error");
    if (box) box.textContent = stErr(e);
  }
}

async function saveSuggest(on) {
  try {
    await invoke("set_listing_suggest", { suggest: on });
    await reloadSettings();
    toast(st("saved"));
  } catch (e) {
    showError(e);
    await reloadSettings();
  }
}

async function setPinned(name, pinned) {
  try {
    await invoke("set_skill_pinned", { name, pinned });
    if (pinned) view.pinDraft = null;
    await reloadSettings();
  } catch (e) {
    showError(e);
  }
}

// ---------- Sources ----------

/** What the running update check said it does: proof that a change reached it. */
function checkerLine(c) {
  if (!c) return st("checkerNotYet");
  if (c.everySecs == null) return st("checkerOff");
  return st("checkerOn", period(c.everySecs), c.nextMs ? formatDate(new Date(c.nextMs).toISOString()) : "—");
}

/** Seconds as the largest whole unit (d, h, min). */
function period(secs) {
  if (secs % 86400 === 0) return st("days", secs / 86400);
  if (secs % 3600 === 0) return st("hours", secs / 3600);
  return st("minutes", Math.round(secs / 60));
}

function sources(d) {
  const src = d.sources;
  // What is typed here survives a redraw (an outside edit, the watcher after a save).
  const draft = view.sourcesDraft ?? {
    github: src.github ?? "", gitlab: src.gitlab ?? "",
    on: src.checkEverySecs != null, every: src.checkEvery && src.checkEvery !== "off" && src.checkEvery !== "never" ? src.checkEvery : "",
  };
  const edit = (key) => (e) => { view.sourcesDraft = { ...draft, [key]: e.target.type === "checkbox" ? e.target.checked : e.target.value }; Object.assign(draft, view.sourcesDraft); };
  const text = (key, placeholder) => {
    const i = el("input", { type: "text", spellcheck: "false", autocomplete: "off", placeholder, oninput: edit(key) });
    i.value = draft[key];
    return i;
  };
  const on = el("input", { type: "checkbox", id: "settings-check-on", "aria-describedby": "settings-check-on-hint", onchange: (e) => { edit("on")(e); $("#settings-check-every").disabled = !e.target.checked; $("#settings-check-on-hint").textContent = st(e.target.checked ? "checkOnHintOn" : "checkOnHint"); } });
  on.checked = draft.on;
  const every = text("every", "daily");
  every.disabled = !draft.on;
  return [
    el("p", { class: "hint", text: st("sourcesIntro") }), where(d),
    src.error ? el("p", { class: "error-text", role: "alert", text: src.error }) : null,
    el("fieldset", { class: "settings-group" },
      el("legend", { text: st("checkUpdates") }),
      el("label", { class: "check" }, on, el("span", { text: st("checkOn") })),
      // The hint says what the box's state does, not what unticking it would.
      el("p", { class: "hint", id: "settings-check-on-hint", text: st(draft.on ? "checkOnHintOn" : "checkOnHint") }),
      field("settings-check-every", st("checkEvery"), every, st("checkEveryHint")),
      el("p", { id: "settings-checker", role: "status", text: checkerLine(src.checker) })),
    el("fieldset", { class: "settings-group" },
      el("legend", { text: st("hosts") }),
      el("p", { class: "hint", text: st("hostsHint") }),
      el("div", { class: "settings-grid" },
        field("settings-github", "github", text("github", src.githubInForce), st("githubHint")),
        field("settings-gitlab", "gitlab", text("gitlab", src.gitlabInForce), st("gitlabHint")))),
    el("p", { id: "settings-sources-error", class: "error-text", role: "alert", text: view.sourcesError || "" }),
    el("div", { class: "row end" },
      el("button", { type: "button", id: "settings-sources-save", class: "primary", disabled: Boolean(d.configError), text: st("save"), onclick: saveSources })),
  ];
}

async function saveSources() {
  const draft = view.sourcesDraft;
  const src = view.data.sources;
  const v = draft ?? { github: src.github ?? "", gitlab: src.gitlab ?? "", on: src.checkEverySecs != null, every: src.checkEvery ?? "" };
  const blank = (x) => (String(x).trim() === "" ? null : String(x).trim());
  const form = { github: blank(v.github), gitlab: blank(v.gitlab), check_every: v.on ? blank(v.every) : "off" };
  try {
    view.data = await invoke("settings_save_sources", { form });
    view.sourcesDraft = null;
    view.sourcesError = null;
    render();
    toast(st("saved"));
  } catch (e) {
    view.sourcesError = stErr(e);
    $("#settings-sources-error").textContent = view.sourcesError;
  }
}

// ---------- Audit ----------

const HOLDS = ["high", "critical", "off"];

function audit(d) {
  const radios = HOLDS.map((h) => {
    const r = el("input", { type: "radio", name: "settings-hold", id: `settings-hold-${h}`, value: h, "aria-describedby": `settings-hold-${h}-hint`, onchange: () => setHold(h) });
    r.checked = d.auditHold === h;
    return el("div", { class: "hold-option" },
      el("label", { class: "check" }, r, el("span", { text: st(`hold_${h}`) })),
      el("p", { class: "hint", id: `settings-hold-${h}-hint`, text: st(`hold_${h}_hint`) }));
  });
  return [
    el("p", { class: "hint", text: st("auditIntro") }), where(d),
    el("fieldset", { class: "settings-group", role: "radiogroup", "aria-describedby": "settings-hold-hint" },
      el("legend", { text: st("holdLegend") }),
      el("p", { class: "hint", id: "settings-hold-hint", text: st("holdHint") }),
      ...radios),
    el("p", { id: "settings-audit-error", class: "error-text", role: "alert" }),
    el("p", { class: "hint", text: st("auditOnlyKey") }),
  ];
}

async function setHold(hold) {
  try {
    view.data = await invoke("settings_set_audit_hold", { hold });
    render();
    $(`#settings-hold-${hold}`)?.focus();
    toast(st("holdSet", st(`hold_${hold}`)));
  } catch (e) {
    const box = $("#settings-audit-error");
    if (box) box.textContent = stErr(e);
  }
}

// ---------- Storage ----------

async function loadStorage() {
  try {
    view.storage = await invoke("settings_storage");
    if (view.open && view.section === "storage") render();
  } catch (e) {
    showError(e);
  }
}

function storage(d) {
  const s = view.storage;
  return [
    el("p", { class: "hint", text: st("storageIntro") }),
    el("dl", { class: "storage-facts" },
      el("dt", { text: st("home") }),
      el("dd", {}, el("code", { id: "settings-home", text: s ? s.home : "…" }),
        el("p", { class: "hint", text: s ? (s.fromEnv ? st("homeFromEnv") : st("homeDefault")) : "" }),
        el("p", { id: "settings-home-size", text: s ? st("homeSize", size(s.homeBytes), s.homeFiles) : st("measuring") })),
      el("dt", { text: st("configFile") }),
      el("dd", {}, el("code", { text: d.configPath })),
      el("dt", { text: st("logs") }),
      el("dd", {},
        el("button", { type: "button", id: "settings-open-logs", text: st("openLogFolder"), onclick: openLogFolder }),
        el("p", { class: "hint", text: st("logsHint") })),
      el("dt", { text: st("parseCache") }),
      el("dd", {},
        el("div", { class: "row" },
          el("span", { id: "settings-cache-size", text: s ? size(s.parseCacheBytes) : st("measuring") }),
          el("button", { type: "button", id: "settings-clear-cache", disabled: !s || s.parseCacheBytes === 0, text: st("clear"), onclick: clearCache })),
        el("p", { class: "hint", text: st("parseCacheHint") })),
      el("dt", { text: st("embedModel") }),
      el("dd", { id: "settings-model" }, ...modelFacts(s)),
      el("dt", { text: st("vectorCache") }),
      el("dd", {},
        el("div", { class: "row" },
          el("span", { id: "settings-vectors-size", text: s ? size(s.vectorCacheBytes) : st("measuring") }),
          el("button", { type: "button", id: "settings-clear-vectors", disabled: !s || s.vectorCacheBytes === 0, text: st("clear"), onclick: clearVectors })),
        s ? el("p", {}, el("code", { id: "settings-vectors-path", text: s.vectorCache })) : null,
        s?.meaning ? el("p", { id: "settings-meaning", text: meaningLine(s.meaning) }) : null,
        el("p", { class: "hint", text: st("vectorCacheHint") }))),
  ];
}

// ---------- About ----------

/** Reads what this app is (once: it does not change while the app runs) and redraws. */
async function loadAbout() {
  if (view.about) return;
  view.about = await invoke("about");
  if (view.open && view.section === "about") render();
}

function about() {
  const a = view.about;
  const commit = !a ? "…" : a.commit ? st("aboutCommitLine", a.commit.slice(0, 12), a.commitDate) : st("aboutCommitUnknown");
  return [
    el("p", { class: "hint", text: st("aboutIntro") }),
    el("dl", { class: "storage-facts" },
      el("dt", { text: st("aboutVersion") }),
      el("dd", {},
        el("div", { class: "row" },
          el("strong", { id: "about-version", text: a ? `Skilldeck ${a.version}` : "…" }),
          el("button", { type: "button", id: "about-copy", disabled: !a, text: st("aboutCopy"), onclick: copyVersion }))),
      el("dt", { text: st("aboutCommit") }),
      el("dd", {}, el("code", { id: "about-commit", title: a?.commit || "", text: commit })),
      el("dt", { text: st("aboutProgram") }),
      el("dd", {}, el("code", { id: "about-program", text: a?.program || "…" })),
      el("dt", { text: st("aboutCli") }),
      el("dd", { class: "hint", text: st("aboutCliHint") }),
      el("dt", { text: st("aboutLicense") }),
      el("dd", { class: "hint", text: st("aboutLicenseText") })),
  ];
}

async function copyVersion() {
  if (!view.about) return;
  await navigator.clipboard.writeText(`Skilldeck ${view.about.line}`);
  toast(st("aboutCopied"));
}

function modelFacts(s) {
  if (!s) return [st("measuring")];
  const facts = !s.model ? [el("p", { class: "hint", text: s.modelOff || st("modelNone") })] : [
    el("p", {}, el("strong", { text: s.model.id }), ` · ${size(s.model.bytes)}`),
    el("p", {}, el("code", { text: s.model.dir })),
    el("p", { class: "hint", text: st(`modelFrom_${s.model.foundIn}`) }),
  ];
  const c = s.model && s.companion;
  const companion = !c ? [] : [
    el("p", { id: "settings-companion" }, el("strong", { text: c.id }), ` · ${size(c.bytes)} · ${st("companionRole")}`),
    el("p", { class: c.error ? "error-text" : "hint", text: c.error ? st("companionLeftOut", c.error) : st("companionHint") }),
  ];
  return [...facts, ...companion, modelChoice(s)];
}

/** The installed models to choose from: the shipped one (value "") and each one from the Hub. */
function modelChoice(s) {
  const hub = (s.installed || []).filter((id) => id.includes("/"));
  const choice = el("select", { id: "settings-model-choice", "aria-label": st("modelChoose") },
    el("option", { value: "", text: st("modelShipped") }),
    ...hub.map((id) => el("option", { value: id, text: id })));
  choice.value = s.chosen && hub.includes(s.chosen) ? s.chosen : "";
  const use = el("button", { type: "button", id: "settings-model-use", disabled: true, text: st("modelUse"), onclick: () => useModel(choice.value) });
  choice.addEventListener("change", () => { use.disabled = choice.value === (s.chosen || ""); });
  return el("div", {},
    el("div", { class: "row" }, choice, use),
    el("p", { class: "hint", text: st("modelChoiceHint") }));
}

async function useModel(id) {
  try {
    view.storage = await invoke("settings_use_model", { id: id || null });
    toast(st("modelSwitched", id || st("modelShipped")));
    render();
  } catch (e) {
    showError(e);
  }
}

function meaningLine(m) {
  if (m.state === "ready") return st("meaningReady");
  if (m.state === "off") return m.reason || st("modelNone");
  return st("meaningPending", m.done, m.total);
}

async function clearVectors() {
  try {
    const freed = await invoke("settings_clear_vector_cache");
    toast(st("vectorsCleared", size(freed)));
    await loadStorage();
  } catch (e) {
    showError(e);
  }
}

async function openLogFolder() {
  try {
    await invoke("open_log_folder");
  } catch (e) {
    showError(e);
  }
}

async function clearCache() {
  try {
    const freed = await invoke("settings_clear_parse_cache");
    toast(st("cleared", size(freed)));
    await loadStorage();
  } catch (e) {
    showError(e);
  }
}

/** Wires the gear; `show` switches the window to this view. */
export function initSettings({ show }) {
  $("#settings-btn").onclick = show;
  translateSettings();
  // The running update check took a new interval: say so in Sources.
  listen("sources://schedule", () => { if (view.open && view.section === "sources") reloadSettings().catch(showError); });
  // The vectors computed again after a Clear: Storage counts them as they come (the ranking
  // keeps the vectors it holds meanwhile), then shows the file grown back.
  listen("meaning://progress", (e) => {
    if (!view.open || view.section !== "storage") return;
    if (e.payload?.state === "indexing" && view.storage) {
      view.storage.meaning = e.payload;
      render();
    } else {
      loadStorage();
    }
  });
}
