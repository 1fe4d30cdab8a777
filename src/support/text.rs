//! Text for one-line messages: a user's text quoted in an error (a job name, a field, what a
//! JSON reader says about a value) may hold line breaks or other control characters, which are
//! escaped so that an error stays one line.

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
    fn control_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(one_line("a\nb\r\tc\u{1b}é"), "a\\nb\\r\\tc\\u{1b}é");
        assert_eq!(one_line("plain"), "plain");
    }
}
