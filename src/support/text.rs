//! Text for people: one-line messages (a user's text quoted in an error, a job name, a field,
//! what a JSON reader says about a value, may hold line breaks or other control characters,
//! which are escaped so that an error stays one line), byte sizes in SI units and counts with
//! thousands separators.

/// `bytes` for people, in SI units with one decimal (`10.3 GB`, `59.3 MB`, `512 B`), as sizes
/// are given to `--mem-limit`.
pub fn human_bytes(bytes: u64) -> String {
    bytesize::ByteSize::b(bytes).display().si().to_string()
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
