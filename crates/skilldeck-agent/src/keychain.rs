//! Providers' keys in the system keychain, for an app started from a desktop menu (which gets
//! no shell's environment variables): the Secret Service (GNOME Keyring, KWallet, KeePassXC)
//! where the session has one, else the kernel's per-user persistent keyring (kept across
//! sessions for a few days after the last use, never on disk). Never config.toml.
//!
//! Each key is the entry of service `skilldeck` (`SKILLDECK_KEYCHAIN_SERVICE` moves it, for
//! tests), user `provider:NAME`. The CLI (`skilldeck key`) and the app's Settings › Models read
//! and write the same entry; a provider's `api_key_env`, when that variable is set, wins.

use keyring_core::{CredentialStore, Entry, Error as KeyringError};
use std::sync::Arc;

/// The service name entries are kept under.
pub const SERVICE: &str = "skilldeck";

/// The environment variable that moves the service name (tests keep their keys apart with it).
pub const SERVICE_ENV: &str = "SKILLDECK_KEYCHAIN_SERVICE";

/// Which keychain holds a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "kebab-case")]
pub enum Keychain {
    /// The desktop session's Secret Service.
    SecretService,
    /// The kernel's per-user persistent keyring.
    Kernel,
}

impl Keychain {
    /// Its name for people.
    pub fn describe(self) -> &'static str {
        match self {
            Self::SecretService => "the desktop's keychain (Secret Service)",
            Self::Kernel => "the kernel's keyring for your user (kept while you use it; not on disk)",
        }
    }
}

/// Why a key could not be kept, read or removed.
#[derive(Debug, thiserror::Error)]
pub enum KeychainError {
    /// Neither keychain could be used.
    #[error(
        "no keychain could be used ({0}); start Skilldeck from a desktop session with a keychain (GNOME Keyring, KWallet), or set the key in the environment variable api_key_env names"
    )]
    Unavailable(String),
    /// The provider's name cannot name an entry.
    #[error("{0:?} is not a provider's name")]
    BadName(String),
    /// An empty key.
    #[error("the key is empty; paste the whole key")]
    Empty,
}

impl KeychainError {
    /// A stable code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Unavailable(_) => "keychain_unavailable",
            Self::BadName(_) => "provider_invalid",
            Self::Empty => "key_empty",
        }
    }
}

fn service() -> String {
    std::env::var(SERVICE_ENV).ok().filter(|s| !s.is_empty()).unwrap_or_else(|| SERVICE.to_owned())
}

/// Whether `name` has the shape of a provider's name: letters, digits, `-` and `_`, at most 64
/// (`config_edit::check_provider_name` adds the names it keeps for itself).
pub fn is_provider_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= 64 && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

fn user(provider: &str) -> Result<String, KeychainError> {
    if !is_provider_name(provider) {
        return Err(KeychainError::BadName(provider.to_owned()));
    }
    Ok(format!("provider:{provider}"))
}

/// Whether a session bus is there to reach the Secret Service on, without trying it (a try
/// with none can wait for a time-out).
fn session_bus() -> bool {
    std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some_and(|v| !v.is_empty())
        || std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|d| std::path::Path::new(&d).join("bus").exists())
}

/// The keychains to try, most lasting first.
fn stores() -> Vec<(Keychain, Result<Arc<CredentialStore>, String>)> {
    let mut out = Vec::new();
    if session_bus() {
        let ss = zbus_secret_service_keyring_store::Store::new()
            .map(|s| s as Arc<CredentialStore>)
            .map_err(|e| e.to_string());
        out.push((Keychain::SecretService, ss));
    }
    let kernel =
        linux_keyutils_keyring_store::Store::new().map(|s| s as Arc<CredentialStore>).map_err(|e| e.to_string());
    out.push((Keychain::Kernel, kernel));
    out
}

/// Whether `e` says the keychain itself cannot be used (rather than that the entry is absent).
fn unusable(e: &KeyringError) -> bool {
    matches!(
        e,
        KeyringError::NoStorageAccess(_) | KeyringError::PlatformFailure(_) | KeyringError::NotSupportedByStore(_)
    )
}

/// Keeps `key` for `provider` in the first keychain that takes it; says which.
pub fn set(provider: &str, key: &str) -> Result<Keychain, KeychainError> {
    let key = key.trim();
    if key.is_empty() {
        return Err(KeychainError::Empty);
    }
    let (service, user) = (service(), user(provider)?);
    let mut why = Vec::new();
    for (kind, store) in stores() {
        let result = store.map_err(|e| e.to_string()).and_then(|s| {
            let entry = Entry::new_in_store(&s, &service, &user).map_err(|e| e.to_string())?;
            entry.set_password(key).map_err(|e| e.to_string())
        });
        match result {
            Ok(()) => {
                tracing::info!(provider, keychain = ?kind, "provider key kept in the keychain");
                return Ok(kind);
            }
            Err(e) => why.push(format!("{}: {e}", kind.describe())),
        }
    }
    Err(KeychainError::Unavailable(why.join("; ")))
}

/// The key kept for `provider`, and where; `None` when no keychain holds one (or none can be
/// used: then the provider simply has no key from here).
pub fn get(provider: &str) -> Result<Option<(String, Keychain)>, KeychainError> {
    let (service, user) = (service(), user(provider)?);
    for (kind, store) in stores() {
        let Ok(store) = store else { continue };
        let Ok(entry) = Entry::new_in_store(&store, &service, &user) else { continue };
        match entry.get_password() {
            Ok(key) => return Ok(Some((key, kind))),
            Err(KeyringError::NoEntry) => {}
            Err(e) if unusable(&e) => tracing::debug!(keychain = ?kind, error = %e, "keychain not usable"),
            Err(e) => tracing::warn!(keychain = ?kind, error = %e, "keychain entry not readable"),
        }
    }
    Ok(None)
}

/// Removes the key kept for `provider` from every keychain holding one; whether one did.
pub fn remove(provider: &str) -> Result<bool, KeychainError> {
    let (service, user) = (service(), user(provider)?);
    let mut removed = false;
    for (kind, store) in stores() {
        let Ok(store) = store else { continue };
        let Ok(entry) = Entry::new_in_store(&store, &service, &user) else { continue };
        match entry.delete_credential() {
            Ok(()) => {
                tracing::info!(provider, keychain = ?kind, "provider key removed from the keychain");
                removed = true;
            }
            Err(KeyringError::NoEntry) => {}
            Err(e) => tracing::debug!(keychain = ?kind, error = %e, "keychain entry not removed"),
        }
    }
    Ok(removed)
}
