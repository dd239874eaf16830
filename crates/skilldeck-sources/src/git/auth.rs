//! Credentials for HTTPS remotes: a token for the host from the environment first, then Git's
//! configured credential helpers, never a prompt. It never logs, prints or stores a secret.

use std::cell::RefCell;
use std::rc::Rc;

use gix::credentials::helper::{Action, NextAction};
use gix::credentials::protocol::{Context, Outcome};
use gix::sec::identity::Credentials;

use crate::source::Hosts;

/// A token to send to one host, with the user name that host expects beside it.
#[derive(Clone, PartialEq, Eq)]
pub struct HostToken {
    /// The host name, lower case, e.g. `github.com`.
    pub host: String,
    /// The user name sent with the token (`x-access-token` for GitHub, `oauth2` for GitLab).
    pub username: String,
    /// The token.
    pub token: String,
    /// Where it came from, e.g. `GITHUB_TOKEN`, for messages.
    pub origin: String,
}

impl std::fmt::Debug for HostToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostToken")
            .field("host", &self.host)
            .field("username", &self.username)
            .field("token", &"***")
            .field("origin", &self.origin)
            .finish()
    }
}

/// Tokens by host; empty by default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tokens(pub Vec<HostToken>);

impl Tokens {
    /// Tokens from the environment: `GITHUB_TOKEN`, else `GH_TOKEN`, for `github.com` and the
    /// configured GitHub host; `GITLAB_TOKEN` for `gitlab.com` and the configured GitLab host.
    pub fn from_env(hosts: &Hosts) -> Self {
        Self::from_vars(hosts, |name| std::env::var(name).ok())
    }

    /// Like [`Tokens::from_env`], reading variables through `var` (for tests).
    pub fn from_vars(hosts: &Hosts, var: impl Fn(&str) -> Option<String>) -> Self {
        let mut tokens = Vec::new();
        let mut add = |base: &str, default: &str, names: &[&str], username: &str| {
            let Some((origin, token)) = names
                .iter()
                .find_map(|name| var(name).filter(|t| !t.trim().is_empty()).map(|t| (*name, t.trim().to_string())))
            else {
                return;
            };
            let configured = url::Url::parse(base).ok().and_then(|u| u.host_str().map(str::to_ascii_lowercase));
            let mut hosts = vec![default.to_string()];
            hosts.extend(configured.filter(|h| h != default));
            for host in hosts {
                tokens.push(HostToken { host, username: username.into(), token: token.clone(), origin: origin.into() });
            }
        };
        add(&hosts.github, "github.com", &["GITHUB_TOKEN", "GH_TOKEN"], "x-access-token");
        add(&hosts.gitlab, "gitlab.com", &["GITLAB_TOKEN"], "oauth2");
        Self(tokens)
    }

    /// The token for `host`, if any.
    pub fn for_host(&self, host: &str) -> Option<&HostToken> {
        self.0.iter().find(|t| t.host.eq_ignore_ascii_case(host))
    }
}

/// What answered a request for credentials, so an error can say what was tried.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tried(Rc<RefCell<Option<String>>>);

impl Tried {
    pub(crate) fn get(&self) -> Option<String> {
        self.0.borrow().clone()
    }
}

/// Where a URL points, as far as a credential cares: scheme, lower-case host and port.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Authority {
    scheme: String,
    host: String,
    port: Option<u16>,
}

impl Authority {
    fn of(url: &gix::Url) -> Option<Self> {
        Some(Self {
            scheme: url.scheme.as_str().to_ascii_lowercase(),
            host: url.host()?.to_ascii_lowercase(),
            port: url.port_or_default(),
        })
    }

    /// The URL a request for credentials is for: its `url`, else its `protocol` and `host`
    /// (`host` may carry a port). `None` when it names none, which no token answers.
    fn asked(context: &Context) -> Option<Self> {
        let url: gix::bstr::BString = match (&context.url, &context.protocol, &context.host) {
            (Some(url), _, _) => url.clone(),
            (None, Some(protocol), Some(host)) => format!("{protocol}://{host}/").into(),
            _ => return None,
        };
        gix::url::parse(gix::bstr::BStr::new(url.as_slice())).ok().as_ref().and_then(Self::of)
    }
}

/// The authentication callback for one connection: the host's token, else the configured
/// credential helpers with prompting disabled. The token answers only a request for the very
/// scheme, host and port the connection was made to and the token belongs to: a server that
/// redirected elsewhere and is asked for credentials there gets none of it (a credential helper
/// may still answer for that host, as Git's own would).
pub(crate) fn authenticate(
    repo: &gix::Repository,
    url: &gix::Url,
    tokens: &Tokens,
    tried: Tried,
) -> impl FnMut(Action) -> gix::Result<Option<Outcome>> + 'static {
    let token = url.host().and_then(|host| tokens.for_host(host)).cloned();
    let home = Authority::of(url);
    let helpers = repo.config_snapshot().credential_helpers(url.clone()).ok().map(|(cascade, _, mut prompt)| {
        prompt.mode = gix::prompt::Mode::Disable;
        prompt.askpass = None;
        (cascade, prompt)
    });
    let mut helpers = helpers;
    move |action| match (&action, &token) {
        (Action::Get(context), Some(token)) if home.is_some() && Authority::asked(context) == home => {
            *tried.0.borrow_mut() = Some(token.origin.clone());
            let next: NextAction = Context { username: Some(token.username.clone()), ..context.clone() }.into();
            Ok(Some(Outcome {
                credentials: Credentials::UsernamePassword {
                    username: token.username.clone(),
                    password: token.token.clone(),
                    oauth_refresh_token: None,
                },
                next,
            }))
        }
        // A token from the environment is neither stored in nor erased from a helper.
        (Action::Store(_) | Action::Erase(_), Some(_)) => Ok(None),
        (_, _) => match helpers.as_mut() {
            Some((cascade, prompt)) => {
                let got = cascade.invoke(action, prompt.clone());
                if matches!(got, Ok(Some(_))) {
                    *tried.0.borrow_mut() = Some("a Git credential helper".into());
                }
                got
            }
            None => Ok(None),
        },
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn url(text: &str) -> gix::Url {
        gix::url::parse(gix::bstr::BStr::new(text)).unwrap()
    }

    #[test]
    fn a_request_for_credentials_names_its_own_authority() {
        let home = Authority::of(&url("https://GitHub.com/o/r.git"));
        let asked = |text: &str| Authority::asked(&Context::from_url(text, Default::default()));
        assert_eq!(asked("https://github.com/o/other.git"), home);
        assert_eq!(asked("https://github.com:443/o/r.git"), home);
        assert_ne!(asked("https://evil.example/o/r.git"), home);
        assert_ne!(asked("https://github.com:8443/o/r.git"), home);
        assert_ne!(asked("http://github.com/o/r.git"), home);
        let fields = Context { protocol: Some("https".into()), host: Some("github.com".into()), ..Context::default() };
        assert_eq!(Authority::asked(&fields), home);
        assert_eq!(Authority::asked(&Context::default()), None);
    }
}
