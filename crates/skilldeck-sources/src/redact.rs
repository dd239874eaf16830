//! URLs made safe to show: credentials in a URL's userinfo are replaced by `***`.
//! It knows nothing of where a URL came from; every error and log line naming a URL goes through it.

/// `text` with any password removed from its userinfo, and for HTTP(S) the user name too (a
/// token is often written as the user name): `https://***@host/x`. Text that is not a URL with
/// userinfo is returned as is.
pub fn url(text: &str) -> String {
    let Some((scheme, rest)) = text.split_once("://") else { return text.to_string() };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let Some(at) = rest[..authority_end].rfind('@') else { return text.to_string() };
    let userinfo = &rest[..at];
    let http = scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https");
    let kept = match userinfo.split_once(':') {
        _ if http => "***".to_string(),
        Some((user, _)) => format!("{user}:***"),
        None => userinfo.to_string(),
    };
    format!("{scheme}://{kept}{}", &rest[at..])
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
    }
}
