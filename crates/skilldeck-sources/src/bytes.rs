//! Sizes in bytes as people write and read them: `65536`, `64 KiB`, `512 MiB`, `1 GiB` read from
//! config.toml, and a count of bytes shown as `812 bytes`, `64.0 KiB` or `40.0 MiB`. Holds the
//! reading and the showing; which limit a size is for is the caller's.

/// `bytes` as people read it: `812 bytes`, `64.0 KiB`, `40.0 MiB`, `1.5 GiB`.
pub fn shown(bytes: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    match UNITS.iter().find(|(unit, _)| bytes >= *unit) {
        Some((unit, name)) => format!("{:.1} {name}", bytes as f64 / *unit as f64),
        None => format!("{bytes} bytes"),
    }
}

/// The smallest size of whole units at least `bytes`, as config.toml takes it: `"101 KiB"`,
/// `"256 MiB"`, `512`.
pub fn written(bytes: u64) -> String {
    const UNITS: [(u64, &str); 2] = [(1 << 20, "MiB"), (1 << 10, "KiB")];
    match UNITS.iter().find(|(unit, _)| bytes >= *unit) {
        Some((unit, name)) => format!("\"{} {name}\"", bytes.div_ceil(*unit)),
        None => bytes.to_string(),
    }
}

/// A size as written in config.toml: a whole number of bytes, or a whole number with a unit,
/// `KiB`, `MiB`, `GiB` (1024s) or `KB`, `MB`, `GB` (1000s), any case, a space optional. `None`
/// when it is none of those or does not fit in 64 bits.
pub fn parse(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: u64 = number.parse().ok()?;
    let factor: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" | "bytes" => 1,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        _ => return None,
    };
    number.checked_mul(factor)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::{parse, shown, written};

    #[test]
    fn sizes_read_and_shown() {
        let check = |text: &str, expected: Option<u64>| assert_eq!(parse(text), expected, "{text:?}");
        check("65536", Some(65536));
        check("64 KiB", Some(65536));
        check("64kib", Some(65536));
        check("512 MiB", Some(512 << 20));
        check("1 GiB", Some(1 << 30));
        check("100 MB", Some(100_000_000));
        check("2 kb", Some(2000));
        check(" 7 bytes ", Some(7));
        check("1.5 GiB", None);
        check("-1", None);
        check("MiB", None);
        check("12 parsecs", None);
        check("99999999999999 GiB", None);
        assert_eq!(shown(812), "812 bytes");
        assert_eq!(shown(64 << 10), "64.0 KiB");
        assert_eq!(shown(100 * 1024 + 512), "100.5 KiB");
        assert_eq!(shown(40 << 20), "40.0 MiB");
        assert_eq!(shown(3 << 29), "1.5 GiB");
        assert_eq!(written(100), "100");
        assert_eq!(written(100 * 1024 + 1), "\"101 KiB\"");
        assert_eq!(written(256 << 20), "\"256 MiB\"");
        for n in [1000, 1024, 100 * 1024 + 1, (40 << 20) + 3] {
            let text = written(n);
            let back = parse(text.trim_matches('"')).unwrap();
            assert!(back >= n && back - n < 1 << 20, "{n} as {text}");
        }
    }
}
