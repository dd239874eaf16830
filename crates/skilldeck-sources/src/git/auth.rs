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

/// The authentication callback for one connection: the host's token, else the configured
/// credential helpers with prompting disabled.
pub(crate) fn authenticate(
    repo: &gix::Repository,
    url: &gix::Url,
    tokens: &Tokens,
    tried: Tried,
) -> impl FnMut(Action) -> gix::Result<Option<Outcome>> + 'static {
    let token = url.host().and_then(|host| tokens.for_host(host)).cloned();
    let helpers = repo.config_snapshot().credential_helpers(url.clone()).ok().map(|(cascade, _, mut prompt)| {
        prompt.mode = gix::prompt::Mode::Disable;
        prompt.askpass = None;
        (cascade, prompt)
    });
    let mut helpers = helpers;
    move |action| match (&action, &token) {
        (Action::Get(context), Some(token)) => {
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
        (_, None) => match helpers.as_mut() {
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
