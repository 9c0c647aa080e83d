//! HTML escaping: the one function every string from the model passes through before it reaches
//! the page, in text and in attribute values alike.
//!
//! This module owns escaping only. It must not decide what is shown or format anything.

/// `text` with `&`, `<`, `>`, `"` and `'` replaced by character references, so that it can stand
/// in element content and in a quoted attribute value without ending either.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn markup_and_quotes_are_neutralised() {
        assert_eq!(
            escape(r#"<script>alert("x" & 'y')</script>"#),
            "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;"
        );
        assert_eq!(escape("plain ♠ text"), "plain ♠ text");
        assert_eq!(escape(""), "");
        assert_eq!(
            escape("&amp;"),
            "&amp;amp;",
            "escaping is not idempotent by design"
        );
    }
}
