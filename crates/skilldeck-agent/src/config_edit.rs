//! Changes to `config.toml` made by the tools (the per-skill switch, pins, the listing budget)
//! and by the app's Settings (providers, the default one, `[shell]`, `[audit] hold`,
//! `[sources]`, a team remote's refresh interval), written in place.
//! Holds the edits; the user's comments and layout are kept (toml_edit), and a change that would
//! leave the file unreadable is never written.

use crate::config::{Api, Config, ConfigError, HoldAt, OFFLINE, ShellConfig};
use serde::{Deserialize, Serialize};
use skilldeck_skill::Tier;
use skilldeck_store::config_file;
use std::path::Path;
use toml_edit::{Array, DocumentMut, Item, Table, TableLike, Value};

fn write_error(path: &Path, source: std::io::Error) -> ConfigError {
    ConfigError::Read { path: path.display().to_string(), source }
}

/// Switches skill `name` on or off for agents: `[listing] disabled` gains or loses the name.
/// Returns whether the file changed.
pub fn set_skill_enabled(path: &Path, name: &str, enabled: bool) -> Result<bool, ConfigError> {
    edit(
        path,
        |before| before.listing.disabled.contains(name) == enabled,
        |doc, shown| {
            let listing = listing_table(doc, shown)?;
            let disabled = listing.entry("disabled").or_insert(Item::Value(Value::Array(Array::new())));
            let Some(array) = disabled.as_array_mut() else {
                return Err(ConfigError::Refused {
                    path: shown.to_owned(),
                    message: "`listing.disabled` must be an array".to_owned(),
                });
            };
            if enabled {
                array.retain(|v| v.as_str() != Some(name));
            } else {
                array.push(name);
            }
            Ok(())
        },
    )
}

/// Pins skill `name` (always shown in full in a ranked listing) or unpins it: `[listing] pinned`
/// gains or loses the name. Returns whether the file changed.
pub fn set_skill_pinned(path: &Path, name: &str, pinned: bool) -> Result<bool, ConfigError> {
    edit(
        path,
        |before| before.listing.pinned.contains(name) != pinned,
        |doc, shown| {
            let listing = listing_table(doc, shown)?;
            let list = listing.entry("pinned").or_insert(Item::Value(Value::Array(Array::new())));
            let Some(array) = list.as_array_mut() else {
                return Err(ConfigError::Refused {
                    path: shown.to_owned(),
                    message: "`listing.pinned` must be an array".to_owned(),
                });
            };
            if pinned {
                array.push(name);
            } else {
                array.retain(|v| v.as_str() != Some(name));
            }
            Ok(())
        },
    )
}

/// What of `[listing]` followed a renamed skill.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ListingFollowed {
    /// It was pinned, and the new name is.
    pub pinned: bool,
    /// It was switched off, and the new name is.
    pub disabled: bool,
}

/// Follows skill `from` renamed to `new` (`skilldeck rename`) in `[listing] pinned` and
/// `disabled`: the new name takes the old one's place. Both lists hold bare names, which every
/// scope's skill of that name answers to; with `keep_old` (another scope still has a skill
/// named `from`) the old name stays in them too.
pub fn rename_skill(path: &Path, from: &str, new: &str, keep_old: bool) -> Result<ListingFollowed, ConfigError> {
    let pinned = std::cell::Cell::new(false);
    let disabled = std::cell::Cell::new(false);
    edit(
        path,
        |before| {
            pinned.set(before.listing.pinned.contains(from));
            disabled.set(before.listing.disabled.contains(from));
            pinned.get() || disabled.get()
        },
        |doc, shown| {
            let listing = listing_table(doc, shown)?;
            for (key, on) in [("pinned", pinned.get()), ("disabled", disabled.get())] {
                let Some(array) = listing.get_mut(key).and_then(Item::as_array_mut).filter(|_| on) else { continue };
                if !keep_old {
                    array.retain(|v| v.as_str() != Some(from));
                }
                if !array.iter().any(|v| v.as_str() == Some(new)) {
                    array.push(new);
                }
            }
            Ok(())
        },
    )?;
    Ok(ListingFollowed { pinned: pinned.get(), disabled: disabled.get() })
}

/// The smallest and largest listing budgets accepted, in tokens.
pub const BUDGET_RANGE: std::ops::RangeInclusive<usize> = 100..=200_000;

/// Sets `[listing] budget_tokens`. Returns whether the file changed.
pub fn set_budget_tokens(path: &Path, tokens: usize) -> Result<bool, ConfigError> {
    if !BUDGET_RANGE.contains(&tokens) {
        return Err(ConfigError::Refused {
            path: path.display().to_string(),
            message: format!(
                "a listing budget of {tokens} tokens is out of range; choose {} to {}",
                BUDGET_RANGE.start(),
                BUDGET_RANGE.end()
            ),
        });
    }
    edit(
        path,
        |before| before.listing.budget_tokens != tokens,
        |doc, shown| {
            let listing = listing_table(doc, shown)?;
            listing.insert("budget_tokens", Item::Value(Value::from(i64::try_from(tokens).unwrap_or(i64::MAX))));
            Ok(())
        },
    )
}

/// Sets `[listing] suggest`: whether each turn names the closest skills to the model. Returns
/// whether the file changed.
pub fn set_listing_suggest(path: &Path, suggest: bool) -> Result<bool, ConfigError> {
    edit(
        path,
        |before| before.listing.suggest != suggest,
        |doc, shown| {
            listing_table(doc, shown)?.insert("suggest", Item::Value(Value::from(suggest)));
            Ok(())
        },
    )
}

/// Sets `[listing] model`, the sentence-embedding model that ranks by meaning (`None`: the
/// shipped one, and the key is removed). Returns whether the file changed.
pub fn set_listing_model(path: &Path, model: Option<&str>) -> Result<bool, ConfigError> {
    edit(
        path,
        |before| before.listing.model.as_deref() != model,
        |doc, shown| {
            let table = listing_table(doc, shown)?;
            match model {
                Some(id) => {
                    table.insert("model", Item::Value(Value::from(id)));
                }
                None => {
                    table.remove("model");
                }
            }
            Ok(())
        },
    )
}

/// A provider as the Settings form edits it: the keys people set; any other key of its table
/// (`context_window`, `idle_timeout_secs`, …) is kept as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ProviderForm {
    /// The wire format.
    pub api: Api,
    /// The server's address; empty or `None`: the key is removed.
    #[serde(default)]
    pub base_url: Option<String>,
    /// The model's name; empty or `None`: the key is removed.
    #[serde(default)]
    pub model: Option<String>,
    /// The NAME of the environment variable holding the key; empty or `None`: no key.
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// The model's tier.
    #[serde(default)]
    pub tier: Tier,
}

/// Whether `name` can name a provider: letters, digits, `-` and `_`, at most 64, not `offline`.
pub fn check_provider_name(name: &str) -> Result<(), String> {
    if name == OFFLINE {
        return Err("`offline` is the built-in router; choose another name".to_owned());
    }
    if crate::keychain::is_provider_name(name) {
        Ok(())
    } else {
        Err("a provider's name is letters, digits, `-` and `_` (at most 64), such as `local` or `claude`".to_owned())
    }
}

/// Whether `name` can be what `api_key_env` holds: an environment variable's NAME, never the key.
/// A value that is no variable name, or that looks like a key, is refused.
pub fn check_key_env(name: &str) -> Result<(), String> {
    let is_name = name.len() <= 64
        && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    // A long run of mixed case and digits with no `_` is how keys look, not variable names.
    let keyish = name.len() >= 24
        && !name.contains('_')
        && name.chars().any(|c| c.is_ascii_digit())
        && name.chars().any(|c| c.is_ascii_lowercase());
    if is_name && !keyish {
        Ok(())
    } else {
        Err("api_key_env takes the NAME of an environment variable (such as OPENAI_API_KEY), never the key itself; set the key in that variable before starting Skilldeck".to_owned())
    }
}

fn invalid(path: &Path, message: String) -> ConfigError {
    ConfigError::Refused { path: path.display().to_string(), message }
}

/// Adds provider `name` or changes its keys (`[providers.NAME]`), keeping its other keys and
/// every comment. Refuses a bad name, a key where a variable's name belongs, a missing base URL
/// or model, and (through the file's own check) a base URL that is not http(s). Returns whether
/// the file changed.
pub fn set_provider(path: &Path, name: &str, form: &ProviderForm) -> Result<bool, ConfigError> {
    check_provider_name(name).map_err(|m| invalid(path, m))?;
    let filled = |v: &Option<String>| v.as_deref().map(str::trim).filter(|v| !v.is_empty()).map(str::to_owned);
    let (base_url, model, key_env) = (filled(&form.base_url), filled(&form.model), filled(&form.api_key_env));
    if let Some(var) = &key_env {
        check_key_env(var).map_err(|m| invalid(path, format!("provider {name:?}: {m}")))?;
    }
    let needs = |what: &str| invalid(path, format!("provider {name:?}: this provider needs `{what}`"));
    match form.api {
        Api::Openai if base_url.is_none() => return Err(needs("base_url")),
        Api::Openai | Api::Anthropic if model.is_none() => return Err(needs("model")),
        _ => {}
    }
    edit(
        path,
        |before| {
            before.providers.get(name).is_none_or(|p| {
                (p.api, &p.base_url, &p.model, &p.api_key_env, p.tier)
                    != (form.api, &base_url, &model, &key_env, form.tier)
            })
        },
        |doc, shown| {
            let providers = doc
                .entry("providers")
                .or_insert_with(|| {
                    let mut t = Table::new();
                    t.set_implicit(true);
                    Item::Table(t)
                })
                .as_table_like_mut()
                .ok_or_else(|| ConfigError::Refused {
                    path: shown.to_owned(),
                    message: "`providers` must be a table".to_owned(),
                })?;
            let table = providers.entry(name).or_insert_with(|| Item::Table(Table::new()));
            let Some(table) = table.as_table_like_mut() else {
                return Err(ConfigError::Refused {
                    path: shown.to_owned(),
                    message: format!("`providers.{name}` must be a table"),
                });
            };
            let api = match form.api {
                Api::Openai => "openai",
                Api::Anthropic => "anthropic",
                Api::Offline => OFFLINE,
            };
            set_or_remove(table, "api", Some(api.to_owned()));
            set_or_remove(table, "base_url", base_url.clone());
            set_or_remove(table, "model", model.clone());
            set_or_remove(table, "api_key_env", key_env.clone());
            let tier = match form.tier {
                Tier::Lite => "lite",
                Tier::Ultra => "ultra",
            };
            // The default tier is written only where the file already names one.
            let keep_tier = form.tier != Tier::default() || table.contains_key("tier");
            set_or_remove(table, "tier", keep_tier.then(|| tier.to_owned()));
            Ok(())
        },
    )
}

/// Sets `key` to the string `value` in place (its comments kept), or removes it for `None`.
fn set_or_remove(table: &mut dyn TableLike, key: &str, value: Option<String>) {
    set_value(table, key, value.map(Value::from));
}

/// Sets `key` to `value` in place (its comments kept), or removes it for `None`.
fn set_value(table: &mut dyn TableLike, key: &str, value: Option<Value>) {
    match value {
        Some(v) => match table.get_mut(key).and_then(Item::as_value_mut) {
            Some(old) => {
                let decor = old.decor().clone();
                *old = v;
                *old.decor_mut() = decor;
            }
            None => {
                table.insert(key, Item::Value(v));
            }
        },
        None => {
            table.remove(key);
        }
    }
}

/// The table `name` at the top of `doc`, made when missing.
fn top_table<'a>(doc: &'a mut DocumentMut, name: &str, shown: &str) -> Result<&'a mut dyn TableLike, ConfigError> {
    doc.entry(name)
        .or_insert_with(|| Item::Table(Table::new()))
        .as_table_like_mut()
        .ok_or_else(|| ConfigError::Refused { path: shown.to_owned(), message: format!("`{name}` must be a table") })
}

/// Sets `[audit] hold`, the least serious unapproved finding that holds a skill back: `high`,
/// `critical` or `off` (anything else is refused). Returns whether the file changed.
pub fn set_audit_hold(path: &Path, hold: &str) -> Result<bool, ConfigError> {
    let level = match hold.trim() {
        "high" => HoldAt::High,
        "critical" => HoldAt::Critical,
        "off" => HoldAt::Off,
        other => {
            return Err(invalid(
                path,
                format!(
                    "[audit] hold = {other:?} is not a level: write \"high\" (the default), \"critical\" or \"off\""
                ),
            ));
        }
    };
    edit(
        path,
        |before| before.audit.hold != level,
        |doc, shown| {
            let audit = top_table(doc, "audit", shown)?;
            set_or_remove(audit, "hold", Some(hold.trim().to_owned()));
            Ok(())
        },
    )
}

/// `[sources]` as the Settings form edits it. An empty or missing value removes its key, so
/// its default applies (github.com, gitlab.com, a check a day).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct SourcesForm {
    /// The base URL `owner/repo` shorthand expands against.
    #[serde(default)]
    pub github: Option<String>,
    /// The base URL `gitlab:` shorthand expands against.
    #[serde(default)]
    pub gitlab: Option<String>,
    /// How often the app checks sourced skills for updates: `daily`, `hourly`, `6h`, `off`, …
    #[serde(default)]
    pub check_every: Option<String>,
}

/// Writes `[sources]`'s keys as `form` has them, each in place (comments kept). `check` is
/// `[sources]`'s own reading (`skilldeck-sources`, which this crate cannot name), run on the
/// whole new text: what it refuses is never written, and its message is the error's. Returns
/// whether the file changed.
pub fn set_sources(
    path: &Path,
    form: &SourcesForm,
    check: impl FnOnce(&str) -> Result<(), String>,
) -> Result<bool, ConfigError> {
    let filled = |v: &Option<String>| v.as_deref().map(str::trim).filter(|v| !v.is_empty()).map(str::to_owned);
    let wanted = [
        ("github", filled(&form.github)),
        ("gitlab", filled(&form.gitlab)),
        ("check_every", filled(&form.check_every)),
    ];
    let changed = |before: &Config| {
        wanted.iter().any(|(key, v)| before.sources.get(*key).and_then(toml::Value::as_str) != v.as_deref())
    };
    edit_checked(
        path,
        changed,
        |doc, shown| {
            let sources = top_table(doc, "sources", shown)?;
            for (key, v) in &wanted {
                set_or_remove(sources, key, v.clone());
            }
            Ok(())
        },
        check,
    )
}

/// The refresh intervals of a team remote accepted, in seconds: 0 (every command that lists
/// refreshes first; the app's background refresh runs at most every 30 s) to a week.
pub const REFRESH_RANGE: std::ops::RangeInclusive<u64> = 0..=604_800;

/// Why `secs` is no refresh interval of a team remote, in the words `remote add` and Settings
/// both give; `None` when it is one.
pub fn refresh_secs_problem(secs: u64) -> Option<String> {
    (!REFRESH_RANGE.contains(&secs)).then(|| {
        format!(
            "a refresh interval of {secs} seconds is out of range; choose {} to {} seconds",
            REFRESH_RANGE.start(),
            REFRESH_RANGE.end()
        )
    })
}

/// Sets `[remotes.NAME] refresh_secs` (how old the team scope's last refresh may get before it
/// is refreshed again); `None` removes it (five minutes). The remote must be there; a value
/// outside [`REFRESH_RANGE`] is refused. Returns whether the file changed.
pub fn set_remote_refresh_secs(path: &Path, remote: &str, secs: Option<u64>) -> Result<bool, ConfigError> {
    if let Some(problem) = secs.and_then(refresh_secs_problem) {
        return Err(invalid(path, problem));
    }
    let want = secs.map(|s| i64::try_from(s).unwrap_or(i64::MAX));
    let missing = |shown: &str| {
        invalid(
            Path::new(shown),
            format!("there is no remote named {remote:?}; add it first (`skilldeck remote add {remote} s3://BUCKET`)"),
        )
    };
    edit(
        path,
        |before| {
            let table = before.remotes.get(remote).and_then(toml::Value::as_table);
            table.is_none_or(|t| t.get("refresh_secs").and_then(toml::Value::as_integer) != want)
        },
        |doc, shown| {
            let table = doc
                .get_mut("remotes")
                .and_then(Item::as_table_like_mut)
                .and_then(|r| r.get_mut(remote))
                .and_then(Item::as_table_like_mut)
                .ok_or_else(|| missing(shown))?;
            set_value(table, "refresh_secs", want.map(Value::from));
            Ok(())
        },
    )
}

/// Removes provider `name`; when it was the default, `default_provider` goes too (the default
/// is then `offline`). Returns whether the file changed.
pub fn remove_provider(path: &Path, name: &str) -> Result<bool, ConfigError> {
    edit(
        path,
        |before| before.providers.contains_key(name),
        |doc, _| {
            if let Some(providers) = doc.get_mut("providers").and_then(Item::as_table_like_mut) {
                providers.remove(name);
            }
            if doc.get("default_provider").and_then(Item::as_str) == Some(name) {
                doc.remove("default_provider");
            }
            Ok(())
        },
    )
}

/// Makes `name` (a configured provider, or `offline`) the default. Returns whether the file
/// changed.
pub fn set_default_provider(path: &Path, name: &str) -> Result<bool, ConfigError> {
    edit(
        path,
        |before| before.default_provider != name,
        |doc, shown| {
            let config = Config::parse(&doc.to_string(), shown)?;
            config.provider(name)?;
            set_or_remove(doc.as_table_mut(), "default_provider", Some(name.to_owned()));
            Ok(())
        },
    )
}

/// Writes `[shell]` as `shell` has it: each key whose value differs from the file's (defaults
/// included) is set in place, a list emptied is removed, every other line is left as written.
/// The file's own check refuses what no command could run under. Returns whether it changed.
pub fn set_shell(path: &Path, shell: &ShellConfig) -> Result<bool, ConfigError> {
    let as_table = |s: &ShellConfig| {
        toml::Table::try_from(s).map_err(|e| invalid(path, format!("[shell] cannot be written: {e}")))
    };
    let new = as_table(shell)?;
    edit(
        path,
        |before| before.shell != *shell,
        |doc, shown| {
            let before = Config::parse(&doc.to_string(), shown)?;
            let old = as_table(&before.shell)?;
            let table =
                doc.entry("shell").or_insert_with(|| Item::Table(Table::new())).as_table_like_mut().ok_or_else(
                    || ConfigError::Refused { path: shown.to_owned(), message: "`shell` must be a table".to_owned() },
                )?;
            for key in old.keys().chain(new.keys()) {
                if old.get(key) == new.get(key) {
                    continue;
                }
                match new.get(key) {
                    Some(v) => {
                        let value: Value = v.to_string().parse().map_err(|e: toml_edit::TomlError| {
                            ConfigError::Refused { path: shown.to_owned(), message: format!("[shell] {key}: {e}") }
                        })?;
                        match table.get_mut(key).and_then(Item::as_value_mut) {
                            Some(slot) => {
                                let decor = slot.decor().clone();
                                *slot = value;
                                *slot.decor_mut() = decor;
                            }
                            None => {
                                table.insert(key, Item::Value(value));
                            }
                        }
                    }
                    None => {
                        table.remove(key);
                    }
                }
            }
            Ok(())
        },
    )
}

fn listing_table<'a>(doc: &'a mut DocumentMut, shown: &str) -> Result<&'a mut dyn TableLike, ConfigError> {
    doc.entry("listing")
        .or_insert_with(|| Item::Table(Table::new()))
        .as_table_like_mut()
        .ok_or_else(|| ConfigError::Refused { path: shown.to_owned(), message: "`listing` must be a table".to_owned() })
}

/// Applies `change` to the file when `needed` says the settings differ, keeping the user's
/// comments and layout; the result must parse, or nothing is written. Returns whether it wrote.
fn edit(
    path: &Path,
    needed: impl FnOnce(&Config) -> bool,
    change: impl FnOnce(&mut DocumentMut, &str) -> Result<(), ConfigError>,
) -> Result<bool, ConfigError> {
    edit_checked(path, needed, change, |_| Ok(()))
}

/// [`edit`], with `check` run on the new text too (a table this crate keeps whole and another
/// crate reads): what it refuses is not written, with its message.
fn edit_checked(
    path: &Path,
    needed: impl FnOnce(&Config) -> bool,
    change: impl FnOnce(&mut DocumentMut, &str) -> Result<(), ConfigError>,
    check: impl FnOnce(&str) -> Result<(), String>,
) -> Result<bool, ConfigError> {
    let shown = path.display().to_string();
    // Read, changed and written under config.toml's writers' lock (`config_file::edit`).
    config_file::edit(path, |text| {
        // The file must already be valid: a broken file is reported, not rewritten.
        let before = Config::parse(text, &shown)?;
        if !needed(&before) {
            return Ok(None);
        }
        let mut doc: DocumentMut = text
            .parse()
            .map_err(|e: toml_edit::TomlError| ConfigError::Invalid { path: shown.clone(), message: e.to_string() })?;
        change(&mut doc, &shown)?;
        let out = doc.to_string();
        Config::parse(&out, &shown).map_err(|e| match e {
            ConfigError::Invalid { path, message } => ConfigError::Refused { path, message },
            other => other,
        })?;
        check(&out).map_err(|message| ConfigError::Refused { path: shown.clone(), message })?;
        Ok(Some(out))
    })
}

impl From<config_file::ConfigFileError> for ConfigError {
    fn from(e: config_file::ConfigFileError) -> Self {
        write_error(&e.path, e.source)
    }
}
