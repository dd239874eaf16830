//! URLs made safe to show and to keep. [`url`] masks credentials for a message or a log line;
//! [`strip`] removes them from what is recorded (`given`, `url` in `sources.json`, revisions,
//! history, `skilldeck.lock`), and [`credentials`] says what a URL carries, for the note that
//! they were left out. A credential is an HTTP(S) URL's userinfo (a token is often written as the
//! user name), any password in a URL, and a query parameter named like a secret
//! (`private_token`, `access_token`, `token`, `key`, `sig`, `X-Amz-Signature`…).
//! It knows nothing of where a URL came from; every error and log line naming a URL goes through it.

/// Whether a query parameter of this name carries a credential: a token, key, signature,
/// password or secret (`private_token`, `access_token`, `token`, `key`, `api_key`, `sig`,
/// `signature`, `X-Amz-Signature`, `X-Amz-Credential`, `password`, `client_secret`…).
pub fn is_credential_param(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    const EXACT: [&str; 8] = ["key", "sig", "auth", "authorization", "pat", "jwt", "code", "pass"];
    const PARTS: [&str; 9] =
        ["token", "secret", "passw", "signature", "credential", "apikey", "api_key", "api-key", "access_key"];
    EXACT.contains(&name.as_str()) || PARTS.iter().any(|part| name.contains(part))
}

/// The parts of `text` (a URL as given, with an optional `#ref`) that are credentials, named for
/// a message without their values: `the user name`, `the password`, `the query parameter
/// private_token`. Empty for text that is not a URL or carries none.
pub fn credentials(text: &str) -> Vec<String> {
    let Some(parts) = Parts::of(text) else { return Vec::new() };
    let mut found = Vec::new();
    if let Some(userinfo) = parts.userinfo {
        match userinfo.split_once(':') {
            Some(_) => found.push("the user name and password".to_owned()),
            None if parts.http => found.push("the user name".to_owned()),
            None => {}
        }
    }
    for (name, _) in parts.params() {
        if is_credential_param(&decoded(name)) {
            found.push(format!("the query parameter {}", decoded(name)));
        }
    }
    found
}

/// `text` with its credentials removed, as it may be recorded: an HTTP(S) URL's userinfo goes
/// whole, another scheme's password goes (its user name, `git@`, is no secret), and query
/// parameters named like secrets go (the `?` too when none is left). Any `#ref` is kept. Text
/// that is not a URL with credentials is returned as is.
pub fn strip(text: &str) -> String {
    let Some(parts) = Parts::of(text) else { return text.to_owned() };
    if credentials(text).is_empty() {
        return text.to_owned();
    }
    parts.rebuild(
        |user| match (parts.http, user.split_once(':')) {
            (true, _) => None,
            (false, Some((user, _))) => Some(user.to_owned()),
            (false, None) => Some(user.to_owned()),
        },
        |_| None,
    )
}

/// `text` with any password removed from its userinfo, and for HTTP(S) the user name too (a
/// token is often written as the user name): `https://***@host/x`; a query parameter named like
/// a secret keeps its name, its value becomes `***`. Text that is not a URL is returned as is.
pub fn url(text: &str) -> String {
    let Some(parts) = Parts::of(text) else { return text.to_string() };
    if parts.userinfo.is_none() && !parts.params().any(|(name, _)| is_credential_param(&decoded(name))) {
        return text.to_string();
    }
    parts.rebuild(
        |userinfo| {
            Some(match userinfo.split_once(':') {
                _ if parts.http => "***".to_string(),
                Some((user, _)) => format!("{user}:***"),
                None => userinfo.to_string(),
            })
        },
        |name| Some(format!("{name}=***")),
    )
}

/// A URL cut where its credentials may sit: `scheme://[userinfo@]rest[?query][#fragment]`.
struct Parts<'a> {
    scheme: &'a str,
    http: bool,
    userinfo: Option<&'a str>,
    /// The host and path, after any userinfo, before any query.
    rest: &'a str,
    query: Option<&'a str>,
    /// The fragment, `#` included.
    fragment: &'a str,
}

impl<'a> Parts<'a> {
    fn of(text: &'a str) -> Option<Self> {
        let (scheme, after) = text.split_once("://")?;
        if scheme.is_empty() || !scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)) {
            return None;
        }
        let http = scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https");
        let (body, fragment) = match after.find('#') {
            Some(i) => (&after[..i], &after[i..]),
            None => (after, ""),
        };
        let authority_end = body.find(['/', '?']).unwrap_or(body.len());
        let (userinfo, rest) = match body[..authority_end].rfind('@') {
            Some(at) => (Some(&body[..at]), &body[at + 1..]),
            None => (None, body),
        };
        let (rest, query) = match rest.split_once('?') {
            Some((rest, query)) => (rest, Some(query)),
            None => (rest, None),
        };
        Some(Self { scheme, http, userinfo, rest, query, fragment })
    }

    /// The query's `name=value` pairs, undecoded.
    fn params(&self) -> impl Iterator<Item = (&'a str, Option<&'a str>)> {
        self.query.into_iter().flat_map(|q| q.split('&')).filter(|p| !p.is_empty()).map(|p| match p.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (p, None),
        })
    }

    /// The URL again, its userinfo as `userinfo` makes it (`None`: left out) and each secret
    /// parameter as `secret` makes it from its name (`None`: left out).
    fn rebuild(&self, userinfo: impl Fn(&str) -> Option<String>, secret: impl Fn(&str) -> Option<String>) -> String {
        let mut out = format!("{}://", self.scheme);
        if let Some(kept) = self.userinfo.and_then(userinfo) {
            out.push_str(&kept);
            out.push('@');
        }
        out.push_str(self.rest);
        if self.query.is_some() {
            let kept: Vec<String> = self
                .params()
                .filter_map(|(name, value)| match is_credential_param(&decoded(name)) {
                    true => secret(name),
                    false => Some(value.map_or_else(|| name.to_owned(), |v| format!("{name}={v}"))),
                })
                .collect();
            if !kept.is_empty() || self.query == Some("") {
                out.push('?');
                out.push_str(&kept.join("&"));
            }
        }
        out.push_str(self.fragment);
        out
    }
}

/// A query parameter's name, percent-decoded (`private%5Ftoken` is `private_token`).
fn decoded(name: &str) -> String {
    url::form_urlencoded::parse(name.as_bytes()).next().map_or_else(|| name.to_owned(), |(n, _)| n.into_owned())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    fn check(input: &str, expected: &str) {
        assert_eq!(super::url(input), expected, "{input}");
    }

    #[test]
    fn userinfo_is_hidden() {
        check("https://github.com/o/r.git", "https://github.com/o/r.git");
        check("https://tok@github.com/o/r.git", "https://***@github.com/o/r.git");
        check("https://u:secret@host/x?q=a@b", "https://***@host/x?q=a@b");
        check("ssh://git@host/o/r.git", "ssh://git@host/o/r.git");
        check("ssh://git:pw@host/o/r.git", "ssh://git:***@host/o/r.git");
        check("git@github.com:o/r.git", "git@github.com:o/r.git");
        check("https://host/a@b", "https://host/a@b");
        check("https://host/p.zip?private_token=abc&v=1", "https://host/p.zip?private_token=***&v=1");
    }

    #[test]
    fn credentials_are_stripped_from_what_is_kept() {
        let strip = |input: &str, expected: &str| assert_eq!(super::strip(input), expected, "{input}");
        strip("https://github.com/o/r.git#v1", "https://github.com/o/r.git#v1");
        strip("http://ghp_abc@127.0.0.1:9/o/r.git#main", "http://127.0.0.1:9/o/r.git#main");
        strip("https://u:p@host/x", "https://host/x");
        strip("ssh://git@host/o/r.git", "ssh://git@host/o/r.git");
        strip("ssh://git:pw@host/o/r.git", "ssh://git@host/o/r.git");
        strip("https://host/p.zip?private_token=abc", "https://host/p.zip");
        strip("https://host/p.zip?ref=main&access_token=abc&x", "https://host/p.zip?ref=main&x");
        strip(
            "https://b.s3.example/p.zip?X-Amz-Credential=a&X-Amz-Signature=b&sig=c&key=d&Token=e&private%5Ftoken=f",
            "https://b.s3.example/p.zip",
        );
        strip("https://host/a@b?q=1", "https://host/a@b?q=1");
        strip("git@github.com:o/r.git", "git@github.com:o/r.git");
        strip("owner/repo@v1", "owner/repo@v1");

        assert_eq!(super::credentials("https://host/o/r.git"), Vec::<String>::new());
        assert_eq!(super::credentials("ssh://git@host/o/r.git"), Vec::<String>::new());
        assert_eq!(super::credentials("http://ghp_abc@host/r.git"), ["the user name"]);
        assert_eq!(
            super::credentials("https://host/p.zip?ref=main&private_token=x&sig=y"),
            ["the query parameter private_token", "the query parameter sig"]
        );
        for name in ["token", "access_token", "private_token", "key", "sig", "X-Amz-Signature", "client_secret"] {
            assert!(super::is_credential_param(name), "{name}");
        }
        for name in ["ref", "v", "path", "format", "download", "file"] {
            assert!(!super::is_credential_param(name), "{name}");
        }
    }
}
