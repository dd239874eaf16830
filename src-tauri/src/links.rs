//! Links in rendered Markdown: which web links the app hands to the system browser, and the
//! guard that keeps the window on the app whatever the content. Holds no UI.

use tauri::Url;
use tauri::plugin::TauriPlugin;

/// The schemes a link may open outside the app.
const EXTERNAL_SCHEMES: &[&str] = &["http", "https", "mailto"];

/// Why a link was not opened.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LinkError {
    /// Not a URL at all.
    #[error("{0:?} is not a web address")]
    NotAUrl(String),
    /// A scheme the app never opens (`file:`, `javascript:`, `tauri:` …).
    #[error("links to {scheme}: addresses are not opened; only http, https and mailto links open in your browser")]
    Scheme {
        /// The scheme.
        scheme: String,
    },
    /// The system could not open it.
    #[error("could not open {url} in your browser: {reason}")]
    Open {
        /// The address.
        url: String,
        /// What the system said.
        reason: String,
    },
}

impl LinkError {
    /// A stable code for the UI.
    pub fn code(&self) -> &'static str {
        match self {
            Self::NotAUrl(_) | Self::Scheme { .. } => "link_refused",
            Self::Open { .. } => "open_failed",
        }
    }
}

/// Checks that `link` is an http, https or mailto address, and returns it parsed.
pub fn external(link: &str) -> Result<Url, LinkError> {
    let url = Url::parse(link.trim()).map_err(|_| LinkError::NotAUrl(link.to_owned()))?;
    if EXTERNAL_SCHEMES.contains(&url.scheme()) {
        Ok(url)
    } else {
        Err(LinkError::Scheme { scheme: url.scheme().to_owned() })
    }
}

/// Opens a checked web link in the system browser (or mail client).
pub fn open_external(link: &str) -> Result<(), LinkError> {
    let url = external(link)?;
    tauri_plugin_opener::open_url(url.as_str(), None::<&str>)
        .map_err(|e| LinkError::Open { url: url.to_string(), reason: e.to_string() })
}

/// Whether the webview may load `url`: only the app's own pages. A link that slips past the
/// UI's handler (or a script) cannot take the window away from the app.
pub fn may_navigate(url: &Url) -> bool {
    match url.scheme() {
        "tauri" => url.host_str() == Some("localhost"),
        "http" | "https" => url.host_str() == Some("tauri.localhost"),
        _ => false,
    }
}

/// A plugin that refuses every navigation away from the app's own pages, in every webview.
pub fn navigation_guard<R: tauri::Runtime>() -> TauriPlugin<R> {
    tauri::plugin::Builder::new("navigation-guard").on_navigation(|_, url| may_navigate(url)).build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_web_links_open_and_only_app_pages_load() {
        assert!(external("https://agentskills.io/spec").is_ok());
        assert!(external("mailto:a@b.c").is_ok());
        assert_eq!(external("file:///etc/passwd"), Err(LinkError::Scheme { scheme: "file".into() }));
        assert_eq!(external("javascript:alert(1)").map_err(|e| e.code()), Err("link_refused"));
        assert_eq!(external("references/x.md"), Err(LinkError::NotAUrl("references/x.md".into())));
        let url = |s: &str| Url::parse(s).unwrap();
        assert!(may_navigate(&url("tauri://localhost/index.html")));
        assert!(may_navigate(&url("http://tauri.localhost/")));
        assert!(!may_navigate(&url("tauri://localhost.evil/")));
        assert!(!may_navigate(&url("https://example.com/")));
        assert!(!may_navigate(&url("file:///etc/passwd")));
    }
}
