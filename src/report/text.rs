//! Escaping of text taken from a results folder (player names, commands, run.json) for the two
//! documents. A leaf module: the tables and both renderers use it, and it uses none of them, so
//! the report's modules import one another without a circle.

/// Escapes text for HTML element content and attribute values.
pub fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Escapes the characters that would break a table cell or start markup.
pub fn escape_markdown(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '|' | '\\' | '*' | '_' | '`' | '<' | '>' | '[' | ']' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// An RFC 3339 time (`run.json`'s `started`, with nanoseconds) as a reader wants it:
/// `2026-12-02 08:41:07 +00:00`. A text that does not parse is shown as it is.
pub fn readable_time(rfc3339: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(rfc3339).map_or_else(
        |_| rfc3339.to_string(),
        |t| t.format("%Y-%m-%d %H:%M:%S %:z").to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            escape_html(r#"<b>"a" & 'b'</b>"#),
            "&lt;b&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/b&gt;"
        );
    }

    #[test]
    fn escapes_table_breakers() {
        assert_eq!(escape_markdown("a|b*c_d"), "a\\|b\\*c\\_d");
        assert_eq!(escape_markdown("x\ny"), "x y");
    }
}
