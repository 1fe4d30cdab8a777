//! Text for people: one-line messages (a user's text quoted in an error, a job name, a field,
//! what a JSON reader says about a value, may hold line breaks or other control characters,
//! which are escaped so that an error stays one line), byte sizes in SI units and counts with
//! thousands separators.

/// `bytes` for people, in SI units with one decimal (`10.3 GB`, `59.3 MB`, `512 B`), as sizes
/// are given to `--mem-limit`.
pub fn human_bytes(bytes: u64) -> String {
    bytesize::ByteSize::b(bytes).display().si().to_string()
}

/// A size that may pass `u64` bytes, for estimates: SI units up to exabytes, then powers of
/// ten (`1.2e25 B`).
pub fn about_bytes(bytes: f64) -> String {
    if bytes < 1e18 { human_bytes(bytes.max(0.0).round() as u64) } else { format!("{bytes:.1e} B") }
}

/// A duration for estimates, in the largest unit that keeps it at least 1 (`42 s`, `3.5 min`,
/// `2.1 h`, `4.0 days`, `12.5 years`, `101,403 years`), from a million in powers of ten
/// (`3.4e12 years`).
pub fn about_seconds(seconds: f64) -> String {
    const YEAR: f64 = 365.25 * 86400.0;
    let (v, unit) = match seconds {
        s if s < 60.0 => return format!("{s:.0} s"),
        s if s < 3600.0 => (s / 60.0, "min"),
        s if s < 86400.0 => (s / 3600.0, "h"),
        s if s < YEAR => (s / 86400.0, "days"),
        s => (s / YEAR, "years"),
    };
    match v {
        v if v >= 1e6 => format!("{v:.1e} {unit}"),
        v if v >= 100.0 => format!("{} {unit}", thousands(v.round() as u64)),
        v => format!("{v:.1} {unit}"),
    }
}

/// `n` and the noun, plural where n is not 1: `1 group`, `3 groups`, `2,873 jobs`.
pub fn count_of(n: u64, noun: &str) -> String {
    format!("{} {noun}{}", thousands(n), if n == 1 { "" } else { "s" })
}

/// `n` with a comma between thousands: `2,873`, `46,254,784,512`. Hand-made: three lines, where
/// a crate (num-format) would bring locale tables dab does not use.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let head = digits.len() % 3;
    let groups = std::iter::once(&digits[..head])
        .chain(digits.as_bytes()[head..].chunks(3).map(|c| std::str::from_utf8(c).expect("digits")));
    groups.filter(|g| !g.is_empty()).collect::<Vec<_>>().join(",")
}

/// `text` with every control character escaped (`\n`, `\r`, `\t`, `\u{1b}`, ...).
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn estimates_read_as_orders_of_magnitude() {
        use super::{about_bytes, about_seconds};
        assert_eq!(about_bytes(2e9), "2.0 GB");
        assert_eq!(about_bytes(3.2e25), "3.2e25 B");
        assert_eq!(about_seconds(42.4), "42 s");
        assert_eq!(about_seconds(210.0), "3.5 min");
        assert_eq!(about_seconds(4.0 * 86400.0), "4.0 days");
        assert_eq!(about_seconds(3.4e19), "1.1e12 years");
        assert_eq!(about_seconds(3.2e12), "101,402 years");
    }

    use super::*;

    #[test]
    fn sizes_and_counts_read_as_people_write_them() {
        assert_eq!(human_bytes(10_342_671_045), "10.3 GB");
        assert_eq!(human_bytes(59_300_000), "59.3 MB");
        assert_eq!(human_bytes(512), "512 B");
        for (n, text) in [(0, "0"), (999, "999"), (1000, "1,000"), (2873, "2,873"), (46_254_784_512, "46,254,784,512")]
        {
            assert_eq!(thousands(n), text);
        }
        assert_eq!(thousands(u64::MAX), "18,446,744,073,709,551,615");
        assert_eq!(
            (count_of(1, "group"), count_of(3, "group"), count_of(2873, "job")),
            ("1 group".into(), "3 groups".into(), "2,873 jobs".into())
        );
    }

    #[test]
    fn control_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(one_line("a\nb\r\tc\u{1b}é"), "a\\nb\\r\\tc\\u{1b}é");
        assert_eq!(one_line("plain"), "plain");
    }
}
