//! Which MCP server an `mcp:` source names, and the label its skills are kept under.
//!
//! `mcp:[LABEL=]COMMAND ARGS…` starts a program that speaks MCP on its standard input and output
//! (the words split as a POSIX shell splits them, quotes honoured, nothing expanded; the program
//! inherits the environment, which is where its credentials belong). `mcp:[LABEL=]https://…`
//! connects over Streamable HTTP. The label is the server's half of each skill's identity: a
//! skill `refunds` from server `billing` is kept as `billing-refunds`. Without one, the label is
//! the host's name (`mcp.example.com` → `mcp-example-com`) or the last word of the command
//! (`python3 tools/acme_server.py` → `acme-server`). A server over HTTP gets the bearer token in
//! `SKILLDECK_MCP_TOKEN_<LABEL>`, its own variable, so no token reaches another server.

use url::Url;

/// What starts an MCP source.
pub const PREFIX: &str = "mcp:";

/// What a server's token variable starts with ([`McpSource::token_var`]).
pub const TOKEN_PREFIX: &str = "SKILLDECK_MCP_TOKEN_";

/// The longest label: a skill name has at most 64 characters, and the label and a hyphen come
/// before the server's own name.
pub const MAX_LABEL: usize = 32;

/// An MCP server to install skills from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpSource {
    /// The source as the user gave it (`mcp:…`), without any credential.
    pub given: String,
    /// The server's label: lowercase letters, digits and single hyphens.
    pub label: String,
    /// How to reach it.
    pub target: Target,
}

/// How an MCP server is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A program started with these words, speaking MCP over its standard input and output.
    Command {
        /// The program.
        program: String,
        /// Its arguments.
        args: Vec<String>,
    },
    /// A Streamable HTTP endpoint. A token in its query is used for this connection only.
    Http {
        /// The endpoint.
        url: Url,
    },
}

/// Why an `mcp:` source could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpSourceError {
    /// Nothing after `mcp:`.
    #[error("`mcp:` names no server: write mcp:COMMAND ARGS… for a program speaking MCP on stdio, or mcp:https://…")]
    Empty,
    /// Quotes that do not close.
    #[error("`{given}` cannot be split into words (a quote is not closed): check its quotes")]
    Unsplittable {
        /// The source as given.
        given: String,
    },
    /// A label that is not a usable name.
    #[error(
        "`{label}` is not a server label ({reason}): use up to {MAX_LABEL} lowercase letters, digits and single hyphens, e.g. mcp:billing=…"
    )]
    BadLabel {
        /// The label as given or made.
        label: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// An `http(s)` URL that does not parse, or another scheme.
    #[error("`{given}` is not an MCP endpoint ({reason}): give an https:// (or loopback http://) URL")]
    BadUrl {
        /// The URL, without credentials.
        given: String,
        /// What is wrong with it.
        reason: String,
    },
}

impl McpSource {
    /// Reads `text`, which starts with [`PREFIX`].
    pub fn parse(text: &str) -> Result<Self, McpSourceError> {
        let text = text.trim();
        let rest = text.strip_prefix(PREFIX).unwrap_or(text).trim();
        if rest.is_empty() {
            return Err(McpSourceError::Empty);
        }
        let (label, what) = match rest.split_once('=') {
            Some((label, what)) if !label.is_empty() && is_label_like(label) => (Some(label.to_owned()), what.trim()),
            _ => (None, rest),
        };
        let target = if what.starts_with("http://") || what.starts_with("https://") {
            let url = Url::parse(what)
                .map_err(|e| McpSourceError::BadUrl { given: crate::redact::strip(what), reason: e.to_string() })?;
            Target::Http { url }
        } else {
            let words = shlex::split(what).ok_or_else(|| McpSourceError::Unsplittable { given: text.to_owned() })?;
            let mut words = words.into_iter();
            let program = words.next().ok_or(McpSourceError::Empty)?;
            Target::Command { program, args: words.collect() }
        };
        // What is recorded never holds a credential; the URL connected to keeps it, this once.
        let given = match (&target, &label) {
            (Target::Http { .. }, Some(label)) => format!("{PREFIX}{label}={}", crate::redact::strip(what)),
            (Target::Http { .. }, None) => format!("{PREFIX}{}", crate::redact::strip(what)),
            (Target::Command { .. }, _) => text.to_owned(),
        };
        let label = match label {
            Some(label) => label,
            None => default_label(&target),
        };
        check_label(&label)?;
        Ok(Self { given, label, target })
    }

    /// The server as recorded in a provenance (`url`): the endpoint without credentials, or
    /// `mcp:` and the command line. The same for every skill of the server, whatever its label.
    pub fn recorded(&self) -> String {
        match &self.target {
            Target::Http { url } => {
                let mut url = url.clone();
                url.set_fragment(None);
                crate::redact::strip(url.as_str())
            }
            Target::Command { program, args } => {
                let words = std::iter::once(program.as_str()).chain(args.iter().map(String::as_str));
                format!("{PREFIX}{}", shlex::try_join(words).unwrap_or_else(|_| program.clone()))
            }
        }
    }

    /// The environment variable holding this server's bearer token: `SKILLDECK_MCP_TOKEN_` and
    /// the label in capitals, hyphens as underscores (`billing-eu` → `SKILLDECK_MCP_TOKEN_BILLING_EU`).
    /// One variable a server, so a token is only ever sent to the server it was given for.
    pub fn token_var(&self) -> String {
        format!("{TOKEN_PREFIX}{}", self.label.to_ascii_uppercase().replace('-', "_"))
    }

    /// The bearer token for this server over HTTP, read from [`Self::token_var`] for this
    /// connection (never recorded); `None` when unset or for a program. Refused for plain http
    /// to another machine, where it would travel readable.
    pub fn token(&self) -> Result<Option<String>, super::McpFetchError> {
        let Target::Http { url } = &self.target else { return Ok(None) };
        let var = self.token_var();
        let Some(token) = std::env::var(&var).ok().map(|t| t.trim().to_owned()).filter(|t| !t.is_empty()) else {
            return Ok(None);
        };
        let loopback = match url.host() {
            Some(url::Host::Domain(d)) => d == "localhost",
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        };
        if url.scheme() != "https" && !loopback {
            return Err(super::McpFetchError::TokenInClear { var, url: self.recorded() });
        }
        Ok(Some(token))
    }

    /// The name a skill `name` of this server is kept under: `LABEL-name`.
    pub fn kept_name(&self, name: &str) -> String {
        format!("{}-{name}", self.label)
    }
}

/// Whether `text` could be a label at all (so `mcp:python3 x=y` is not read as one).
fn is_label_like(text: &str) -> bool {
    text.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

fn check_label(label: &str) -> Result<(), McpSourceError> {
    let bad = |reason| Err(McpSourceError::BadLabel { label: label.to_owned(), reason });
    if label.is_empty() {
        return bad("it is empty");
    }
    if label.len() > MAX_LABEL {
        return bad("it is too long");
    }
    if !is_label_like(label) {
        return bad("it holds other characters");
    }
    if label.starts_with('-') || label.ends_with('-') || label.contains("--") {
        return bad("hyphens go between letters or digits, one at a time");
    }
    Ok(())
}

/// The label made from the server's address: its host, or the last word of its command.
fn default_label(target: &Target) -> String {
    let raw = match target {
        Target::Http { url } => url.host_str().unwrap_or("server").to_owned(),
        Target::Command { program, args } => {
            let word = args.iter().rev().find(|a| !a.starts_with('-')).unwrap_or(program);
            let last = word.trim_end_matches('/').rsplit(['/', '\\']).next().unwrap_or(word);
            let last = last.strip_prefix('@').unwrap_or(last);
            match last.rsplit_once('.') {
                Some((stem, ext)) if !stem.is_empty() && ext.len() <= 4 => stem.to_owned(),
                _ => last.to_owned(),
            }
        }
    };
    let mut label = String::new();
    for c in raw.chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            label.push(c);
        } else if !label.is_empty() && !label.ends_with('-') {
            label.push('-');
        }
    }
    let label: String = label.chars().take(MAX_LABEL).collect();
    let label = label.trim_end_matches('-');
    if label.is_empty() { "server".to_owned() } else { label.to_owned() }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_command_is_split_as_a_shell_splits_it_and_labelled_by_its_last_word() {
        let s = McpSource::parse("mcp:python3 'my tools/acme_server.py' --quiet").unwrap();
        assert_eq!(s.label, "acme-server");
        assert_eq!(
            s.target,
            Target::Command {
                program: "python3".into(),
                args: vec!["my tools/acme_server.py".into(), "--quiet".into()]
            }
        );
        assert_eq!(s.recorded(), "mcp:python3 'my tools/acme_server.py' --quiet");
        assert_eq!(McpSource::parse("mcp:npx -y @acme/skills-server").unwrap().label, "skills-server");
    }

    #[test]
    fn a_label_can_be_set_and_must_be_a_name() {
        let s = McpSource::parse("mcp:billing=python3 server.py").unwrap();
        assert_eq!(s.label, "billing");
        assert_eq!(s.kept_name("refunds"), "billing-refunds");
        assert!(matches!(McpSource::parse("mcp:bad--x=python3 s.py"), Err(McpSourceError::BadLabel { .. })));
        // An argument with `=` in it is not a label.
        let s = McpSource::parse("mcp:python3 s.py --mode=x").unwrap();
        assert_eq!(s.label, "s");
        assert!(matches!(McpSource::parse("mcp:"), Err(McpSourceError::Empty)));
        assert!(matches!(McpSource::parse("mcp:python3 'open"), Err(McpSourceError::Unsplittable { .. })));
    }

    #[test]
    fn an_endpoint_is_labelled_by_its_host_and_recorded_without_credentials() {
        let s = McpSource::parse("mcp:https://me:secret@mcp.example.com/mcp").unwrap();
        assert_eq!(s.label, "mcp-example-com");
        assert!(!s.given.contains("secret"));
        assert!(!s.recorded().contains("secret"));
        let s = McpSource::parse("mcp:team=http://127.0.0.1:8123/mcp").unwrap();
        assert_eq!(s.label, "team");
        assert_eq!(s.recorded(), "http://127.0.0.1:8123/mcp");
    }
}
