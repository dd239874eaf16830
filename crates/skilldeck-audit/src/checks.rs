//! The hand-written checks the rule table names (`Matcher::Check`): what a pattern cannot
//! say, such as decoding hidden characters, file magic, or a secret read together with a
//! network call in the same script. Each reports through a callback; the engine records.

use crate::rules::Check;
use crate::text::{self, EVIDENCE_CHARS, FileText, Kind, Lines};
use regex::bytes::{Regex, RegexBuilder};
use skilldeck_skill::grants::GrantRequest;
use skilldeck_skill::secrets::{HOME_SECRETS, MAC_HOME_SECRETS, SYSTEM_SECRETS};
use std::sync::OnceLock;

/// The shortest run of base64 or hex characters reported as a blob.
const BLOB_CHARS: usize = 1024;
/// The longest line of code not called minified.
const MINIFIED_LINE: usize = 1500;

/// Reports the executable formats: ELF, Mach-O (thin and fat) and PE.
pub fn executable(bytes: &[u8], report: &mut dyn FnMut(Check, String)) {
    let what = if bytes.starts_with(b"\x7fELF") {
        Some("an ELF executable or library (Linux)")
    } else if [b"\xfe\xed\xfa\xce", b"\xfe\xed\xfa\xcf", b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe", b"\xca\xfe\xba\xbe"]
        .iter()
        .any(|m| bytes.starts_with(*m))
    {
        Some("a Mach-O executable or library (macOS)")
    } else if is_pe(bytes) {
        Some("a PE executable or DLL (Windows)")
    } else {
        None
    };
    if let Some(what) = what {
        report(Check::Executable, what.to_owned());
    }
}

fn is_pe(bytes: &[u8]) -> bool {
    if !bytes.starts_with(b"MZ") {
        return false;
    }
    let Some(off) = bytes.get(0x3c..0x40).and_then(|b| <[u8; 4]>::try_from(b).ok()) else { return false };
    let off = u32::from_le_bytes(off) as usize;
    bytes.get(off..off.saturating_add(4)) == Some(b"PE\0\0")
}

/// The checks on a text file. `report(check, line, evidence, hidden)`.
pub fn text(
    f: &FileText<'_>,
    skill_md_tools: Option<&GrantRequest>,
    report: &mut dyn FnMut(Check, Option<u32>, String, Option<String>),
) {
    let bytes = f.bytes;
    if may_hide(bytes) {
        invisible(bytes, report);
    }
    if f.kind == Kind::Markdown && text::find(&f.view, b"<!--", 0).is_some() {
        for c in &f.regions().comments {
            let body = f.view.get(c.clone()).unwrap_or_default();
            let inner = String::from_utf8_lossy(body);
            let inner = inner.trim_start_matches("<!--").trim_end_matches("-->");
            let inner = skilldeck_skill::entry::one_line(inner);
            if inner.chars().any(char::is_alphanumeric) {
                let shown = text::visible(&inner, 0, EVIDENCE_CHARS);
                let hidden = text::visible(&inner, 0, 1000);
                report(Check::HtmlComment, Some(f.lines().number(c.start)), shown, Some(hidden));
            }
        }
    }
    if f.kind != Kind::Binary {
        secrets(f, report);
        env_exfil(f, report);
    }
    blob(f, report);
    if f.kind == Kind::Script {
        minified(f, report);
    }
    if f.path == "SKILL.md" {
        broad_tools(f, skill_md_tools, report);
    }
}

/// Whether `bytes` may hold a tag, zero-width or bidi character: a cheap look at the lead
/// bytes of their UTF-8 forms (E1, E2, EF and F3), so that a file without one is not decoded.
fn may_hide(bytes: &[u8]) -> bool {
    let char_at = |at: usize| {
        let len = if bytes.get(at) == Some(&0xF3) { 4 } else { 3 };
        bytes.get(at..at + len).and_then(|b| std::str::from_utf8(b).ok()).and_then(|s| s.chars().next())
    };
    // One variation selector picks an emoji's or ideograph's form (`⚠️`): only a run of them
    // can carry anything (`invisible` reports runs of four or more).
    let hides = |at: usize| {
        char_at(at).is_some_and(|c| {
            text::is_tag(c)
                || text::is_zero_width(c)
                || text::is_bidi(c)
                || crate::norm::is_variation_selector(c)
                    && char_at(at + c.len_utf8()).is_some_and(crate::norm::is_variation_selector)
        })
    };
    memchr::memchr3_iter(0xE1, 0xE2, 0xEF, bytes).any(hides) || memchr::memchr_iter(0xF3, bytes).any(hides)
}

/// Tag characters, zero-width characters in words or runs, and bidi controls.
fn invisible(bytes: &[u8], report: &mut dyn FnMut(Check, Option<u32>, String, Option<String>)) {
    let text = String::from_utf8_lossy(bytes);
    let lines = Lines::of(text.as_bytes());
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let shown = |at: usize| {
        let n = lines.number(at);
        let r = lines.range(text.as_bytes(), n);
        (n, text::visible(text.get(r.clone()).unwrap_or_default(), at.saturating_sub(r.start), EVIDENCE_CHARS))
    };
    let mut i = 0;
    let mut reported_tags = std::collections::HashSet::new();
    let mut reported_zw = std::collections::HashSet::new();
    let mut reported_bidi = std::collections::HashSet::new();
    while let Some(&(at, c)) = chars.get(i) {
        if text::is_tag(c) {
            let run: Vec<char> =
                chars.get(i..).unwrap_or_default().iter().map(|p| p.1).take_while(|c| text::is_tag(*c)).collect();
            let flag = i > 0
                && chars.get(i - 1).is_some_and(|p| p.1 == '\u{1F3F4}')
                && run.last() == Some(&'\u{E007F}')
                && run.iter().rev().skip(1).all(|c| matches!(*c as u32 - 0xE0000, 0x30..=0x39 | 0x61..=0x7A));
            if !flag && reported_tags.insert(lines.number(at)) && reported_tags.len() <= 10 {
                let decoded: String = run
                    .iter()
                    .filter_map(|c| char::from_u32(*c as u32 - 0xE0000))
                    .filter(|c| !c.is_control())
                    .collect();
                let (n, ev) = shown(at);
                report(Check::TagChars, Some(n), ev, Some(decoded));
            }
            i += run.len();
            continue;
        }
        if text::is_zero_width(c) && !(c == '\u{FEFF}' && at == 0) {
            let run = chars.get(i..).unwrap_or_default().iter().take_while(|p| text::is_zero_width(p.1)).count();
            let before = i.checked_sub(1).and_then(|j| chars.get(j)).map(|p| p.1);
            let after = chars.get(i + run).map(|p| p.1);
            let in_word =
                before.is_some_and(|b| b.is_ascii_alphanumeric()) && after.is_some_and(|a| a.is_ascii_alphanumeric());
            if (in_word || run >= 4) && reported_zw.len() < 10 && reported_zw.insert(lines.number(at)) {
                let (n, ev) = shown(at);
                report(Check::ZeroWidth, Some(n), ev, None);
            }
            i += run;
            continue;
        }
        if crate::norm::is_variation_selector(c) {
            let run: Vec<char> = chars
                .get(i..)
                .unwrap_or_default()
                .iter()
                .map(|p| p.1)
                .take_while(|c| crate::norm::is_variation_selector(*c))
                .collect();
            // One selector picks an emoji or ideograph's form; a run of them carries bytes.
            if run.len() >= 4 && reported_tags.insert(lines.number(at)) && reported_tags.len() <= 10 {
                let bytes: Vec<u8> = run
                    .iter()
                    .filter_map(|c| match u32::from(*c) {
                        v @ 0xFE00..=0xFE0F => u8::try_from(v - 0xFE00).ok(),
                        v => u8::try_from(v - 0xE0100 + 16).ok(),
                    })
                    .collect();
                let decoded: String = String::from_utf8_lossy(&bytes).chars().filter(|c| !c.is_control()).collect();
                let (n, ev) = shown(at);
                report(Check::TagChars, Some(n), ev, Some(format!("{} variation selectors: {decoded}", run.len())));
            }
            i += run.len();
            continue;
        }
        if text::is_bidi(c) && reported_bidi.len() < 10 && reported_bidi.insert(lines.number(at)) {
            let r = lines.range(text.as_bytes(), lines.number(at));
            if !text.get(r).unwrap_or_default().chars().any(text::is_rtl_letter) {
                let (n, ev) = shown(at);
                report(Check::Bidi, Some(n), ev, None);
            }
        }
        i += 1;
    }
}

fn secret_paths() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| {
        // `/root` is any root-run example's working folder: too common to call a secret.
        let home: Vec<String> = HOME_SECRETS.iter().chain(MAC_HOME_SECRETS).map(|s| regex::escape(s)).collect();
        let system: Vec<String> =
            SYSTEM_SECRETS.iter().filter(|s| **s != "/root").map(|s| regex::escape(s)).collect();
        let re = format!(
            r#"(?:~|\$HOME|\$\{{HOME\}}|%USERPROFILE%|\$env:USERPROFILE|homedir\(\)|home\(\)|expanduser\(\s*["']~)\s*(?:[/\\]|["']?\s*[,+/]\s*["'])\s*(?:{})(?:[/\\"'\s)\]]|$)|(?:{})(?:[/\s"')]|$)|\bsecurity\s+(?:find-generic-password|find-internet-password|dump-keychain)\b"#,
            home.join("|"),
            system.join("|")
        );
        RegexBuilder::new(&re).unicode(false).size_limit(32 << 20).build().ok()
    })
    .as_ref()
}

/// What every secret path the regex above finds starts near: a cheap first look (a literal
/// search) so most files never run the long pattern.
fn secret_hint() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| {
        RegexBuilder::new(r"~/|~\\|HOME|USERPROFILE|home\(\)|homedir|expanduser|/etc/|security ")
            .unicode(false)
            .build()
            .ok()
    })
    .as_ref()
}

fn network_send() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| {
        RegexBuilder::new(
            r"(?i)\b(?:curl|wget|nc|ncat|netcat|scp|rsync|sftp|ftp|telnet|socat|dig|nslookup|drill)\b|\bhost\s+[\x22']?\$|\b(?:gethostbyname|getaddrinfo)\s*\(|\bdns\.resolver\b|\bhttps?\.request\s*\(|\burlopen\s*\(|\brequests\.get\s*\(|\brequests\.(?:post|put|patch)\b|\burllib\.request\b|\bhttp\.client\b|\bhttpx\.(?:post|put)\b|\baiohttp\b|\bfetch\s*\(|\baxios\b|\bXMLHttpRequest\b|\bsocket\.(?:socket|connect|create_connection)\b|\bInvoke-(?:WebRequest|RestMethod)\b|\bNet\.WebClient\b|\bsmtplib\b",
        )
        .unicode(false)
        .build()
        .ok()
    })
    .as_ref()
}

/// A secret path read from code; in the same script or code block as a network call, a
/// likely theft.
fn secrets(f: &FileText<'_>, report: &mut dyn FnMut(Check, Option<u32>, String, Option<String>)) {
    let (Some(re), Some(net), Some(hint), Some(asks)) = (secret_paths(), network_send(), secret_hint(), asks_to_send())
    else {
        return;
    };
    let bytes: &[u8] = &f.view;
    if !hint.is_match(bytes) {
        return;
    }
    let mut seen = std::collections::HashSet::new();
    for m in re.find_iter(bytes) {
        let unit = match f.kind {
            Kind::Script => 0..bytes.len(),
            Kind::Markdown | Kind::Data => match f.regions().fence_at(m.start()) {
                Some(r) => r,
                None => {
                    // Prose: a credential named in a comment a reader never sees, or in a
                    // sentence asking for it to be sent or shown, is an instruction to steal it.
                    let hidden = f.regions().comments.iter().any(|c| c.contains(&m.start()));
                    let n = f.lines().number(m.start());
                    let sentence = bytes.get(f.lines().range(bytes, n)).unwrap_or_default();
                    let warned = warns().is_some_and(|w| w.is_match(sentence));
                    if hidden || (asks.is_match(sentence) && !warned) {
                        let line = f.lines().number(m.start());
                        if seen.insert(line) && seen.len() <= 10 {
                            report(Check::SecretExfil, Some(line), f.evidence(line, m.start()), None);
                        }
                    }
                    continue;
                }
            },
            Kind::Binary => continue,
        };
        let token_end = bytes
            .get(m.start()..)
            .unwrap_or_default()
            .iter()
            .position(|b| b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b')' | b';'))
            .map_or(bytes.len(), |p| p + m.start());
        let token = bytes.get(m.start()..token_end).unwrap_or_default();
        if token.ends_with(b".pub") || token.ends_with(b"known_hosts") {
            continue;
        }
        let line = f.lines().number(m.start());
        if !seen.insert(line) || seen.len() > 10 {
            continue;
        }
        let sends = net.is_match(bytes.get(unit).unwrap_or_default());
        report(
            if sends { Check::SecretExfil } else { Check::SecretRead },
            Some(line),
            f.evidence(line, m.start()),
            None,
        );
    }
}

/// Which bytes may be part of a base64 (or hex) run.
const B64: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'-' | b'_');
        i += 1;
    }
    t
};

/// A run of at least [`BLOB_CHARS`] base64 characters (hex is a subset), not an embedded
/// image or font. Looks at every `BLOB_CHARS`th byte first: a run that long holds one of them.
fn blob(f: &FileText<'_>, report: &mut dyn FnMut(Check, Option<u32>, String, Option<String>)) {
    let bytes = f.bytes;
    let is_b64 = |i: usize| bytes.get(i).is_some_and(|b| B64[usize::from(*b)]);
    // Every run of BLOB_CHARS or more starting at or after `from` holds byte `from + BLOB_CHARS - 1`.
    let mut from = 0usize;
    while let Some(probe) = from.checked_add(BLOB_CHARS - 1).filter(|p| *p < bytes.len()) {
        if !is_b64(probe) {
            from = probe + 1;
            continue;
        }
        let start = (from..probe).rev().find(|i| !is_b64(*i)).map_or(from, |i| i + 1);
        let end = (probe..bytes.len()).find(|i| !is_b64(*i)).unwrap_or(bytes.len());
        if end - start >= BLOB_CHARS && report_blob(f, start, end - start, report) {
            return;
        }
        from = end + 1;
    }
}

/// Reports the blob at `start` unless it is an embedded image or font; whether it reported.
fn report_blob(
    f: &FileText<'_>,
    start: usize,
    run: usize,
    report: &mut dyn FnMut(Check, Option<u32>, String, Option<String>),
) -> bool {
    let before = f.bytes.get(start.saturating_sub(48)..start).unwrap_or_default();
    if text::find(before, b"data:image/", 0).is_some() || text::find(before, b"data:font/", 0).is_some() {
        return false;
    }
    let head = String::from_utf8_lossy(f.bytes.get(start..start + 60).unwrap_or_default()).into_owned();
    report(Check::EncodedBlob, Some(f.lines().number(start)), format!("{head}… ({run} characters)"), None);
    true
}

fn minified(f: &FileText<'_>, report: &mut dyn FnMut(Check, Option<u32>, String, Option<String>)) {
    let mut at = 0;
    for line in f.bytes.split(|b| *b == b'\n') {
        if line.len() > MINIFIED_LINE {
            let head = String::from_utf8_lossy(line.get(..80).unwrap_or(line)).into_owned();
            report(
                Check::Minified,
                Some(f.lines().number(at)),
                format!("{head}… (a line of {} characters)", line.len()),
                None,
            );
            return;
        }
        at += line.len() + 1;
    }
    if f.path.ends_with(".min.js") {
        report(Check::Minified, None, format!("{} is named as minified", f.path), None);
    }
}

/// `allowed-tools` asking for more than a skill should: from `known` when the caller validated
/// these bytes already, else from validating them here.
fn broad_tools(
    f: &FileText<'_>,
    known: Option<&GrantRequest>,
    report: &mut dyn FnMut(Check, Option<u32>, String, Option<String>),
) {
    let request = known.cloned().unwrap_or_else(|| {
        let options = skilldeck_skill::validate::ValidateOptions::default();
        GrantRequest::of(&skilldeck_skill::validate::validate_bytes(Some(f.bytes), options).meta)
    });
    if !request.is_broad() {
        return;
    }
    let broad: Vec<String> = request.describe().into_iter().filter(|t| t.broad).map(|t| t.pattern).collect();
    let line = text::find(f.bytes, b"allowed-tools", 0).map(|at| f.lines().number(at));
    report(Check::BroadTools, line, format!("allowed-tools: {}", broad.join(" ")), None);
}

/// Whether `text` holds an IPv4 address outside loopback, private, link-local, unspecified and
/// broadcast ranges.
pub fn has_public_ipv4(text: &[u8]) -> bool {
    let s = String::from_utf8_lossy(text);
    s.split(|c: char| !(c.is_ascii_digit() || c == '.')).filter_map(|w| w.parse::<std::net::Ipv4Addr>().ok()).any(
        |ip| !(ip.is_loopback() || ip.is_private() || ip.is_link_local() || ip.is_unspecified() || ip.is_broadcast()),
    )
}

/// A sentence that asks for what it names to be sent, shown or put somewhere, not one that
/// warns against it.
fn asks_to_send() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| {
        RegexBuilder::new(
            r"(?i)\b(?:send|upload|post|transmit|exfiltrate|e-?mail|forward|paste|include|append|attach|embed|encode)\b",
        )
        .unicode(false)
        .build()
        .ok()
    })
    .as_ref()
}

/// A sentence that warns against what it names.
fn warns() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| {
        RegexBuilder::new(r"(?i)\b(?:never|not|don'?t|avoid|must\s+not|without)\b").unicode(false).build().ok()
    })
    .as_ref()
}

/// The names of environment variables that hold secrets.
macro_rules! secret_var {
    () => {
        r"[A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?|SESSION_KEY)[A-Z0-9_]*"
    };
}

/// Environment secrets put in what a request sends (its body, a form, an upload, its query, a
/// DNS name) or the whole environment sent: not a token in an `Authorization` header, which is
/// how a tool talks to its own API.
fn env_sent() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| {
        let re = concat!(
            r#"(?:\s-d|\s-F|\s-T|--data(?:-binary|-raw|-urlencode|-ascii)?|--form|--upload-file|--json|--post-data)(?:\s+|=)(?:"[^"\n]*|[^\s"']*)\$\{?"#,
            secret_var!(),
            r#"\b|https?://[^\s"'|]*[?&][\w.-]+=\$\{?"#,
            secret_var!(),
            r#"\b|\b(?:dig|nslookup|drill|host)\b[^\n]*\$\{?"#,
            secret_var!(),
            r#"\b|\b(?:env|printenv|set|export\s+-p)\s*\|[^\n]*\b(?:curl|wget|nc|ncat|netcat|socat)\b|/proc/self/environ\b[^\n]*\b(?:curl|wget|nc|ncat|netcat)\b|\b(?:curl|wget)\b[^\n]*@?/proc/self/environ|\b(?:data|json|params|body|files)\s*=\s*(?:dict\s*\(\s*)?os\.environ\b|\b(?:data|json|params)\s*=\s*\{[^}\n]*os\.(?:environ\s*\[|environ\.get\s*\(|getenv\s*\()\s*["']"#,
            secret_var!(),
            r#"|\bbody\s*:\s*(?:JSON\.stringify\s*\(\s*)?process\.env\b(?:\s*[),}]|\.)"#,
        );
        RegexBuilder::new(re).unicode(false).size_limit(16 << 20).build().ok()
    })
    .as_ref()
}

/// What every match of [`env_sent`] holds: a literal search first, so most files never run it.
fn env_hint() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| {
        RegexBuilder::new(
            r"TOKEN|SECRET|PASSW|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIAL|SESSION_KEY|environ|process\.env|env\s*\|",
        )
        .unicode(false)
        .build()
        .ok()
    })
    .as_ref()
}

/// Secrets from the environment sent out, in code (a script or a fenced code block): only
/// code is searched.
fn env_exfil(f: &FileText<'_>, report: &mut dyn FnMut(Check, Option<u32>, String, Option<String>)) {
    let Some(re) = env_sent() else { return };
    let view: &[u8] = &f.view;
    let code: Vec<std::ops::Range<usize>> = match f.kind {
        Kind::Script => std::iter::once(0..view.len()).collect(),
        Kind::Markdown if text::find(view, b"```", 0).is_some() || text::find(view, b"~~~", 0).is_some() => {
            f.regions().fences.clone()
        }
        Kind::Markdown | Kind::Data | Kind::Binary => return,
    };
    let mut seen = std::collections::HashSet::new();
    for r in code {
        let part = view.get(r.clone()).unwrap_or_default();
        if !env_hint().is_some_and(|h| h.is_match(part)) {
            continue;
        }
        for m in re.find_iter(part) {
            let at = r.start + m.start();
            let line = f.lines().number(at);
            let sentence = view.get(f.logical_range(at)).unwrap_or_default();
            if !to_its_own_service(m.as_bytes(), sentence) && seen.insert(line) && seen.len() <= 10 {
                report(Check::SecretExfil, Some(line), f.evidence(line, at), None);
            }
        }
    }
}

/// Whether a token sent in a request goes to the service it is named for: `STEAM_API_KEY` to
/// `api.steampowered.com`, or to a host the script names by a variable (`$WALLABAG_URL`), which
/// is how a tool signs in to its own API. The whole environment or a DNS name never is.
fn to_its_own_service(matched: &[u8], line: &[u8]) -> bool {
    let m = String::from_utf8_lossy(matched);
    if m.contains("env") && !m.contains('$') || ["dig", "nslookup", "drill", "host "].iter().any(|d| m.starts_with(d)) {
        return false;
    }
    let Some(var) = m.rsplit('$').next() else { return false };
    let var = var.trim_start_matches('{');
    let service = var.split('_').next().unwrap_or_default().to_ascii_lowercase();
    let line = String::from_utf8_lossy(line).to_ascii_lowercase();
    let hosts: Vec<&str> = line.match_indices("://").filter_map(|(i, _)| line.get(i + 3..)).collect();
    if hosts.is_empty() {
        // No literal URL: the request goes wherever a variable says.
        return true;
    }
    hosts.iter().any(|h| {
        let host: String =
            h.chars().take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '$' | '{' | '_')).collect();
        host.starts_with('$') || host.starts_with('{') || (service.len() >= 3 && host.contains(&service))
    })
}
