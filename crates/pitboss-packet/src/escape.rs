//! Text from the packet as it stands on the page. Maud escapes every value a template interpolates
//! (`&`, `<`, `>` and `"`); [`Text`] is that same escaping, done by maud's own [`Escaper`], with
//! `'` also written `&#39;`, so that a packet's page keeps the same bytes from release to release.
//!
//! This module owns escaping only. It must not decide what is shown or format anything.

use std::fmt::Write;

use maud::{Escaper, Render};

/// A text from the log or from people (a reference, an actor, a reason, a note, a report line),
/// interpolated as `(Text(&value))`: maud's escaping, and `'` as `&#39;`. Maud alone leaves `'`
/// as it is, which is safe in content and in the double-quoted attributes it writes; `Text` escapes
/// it anyway, so that a page's bytes do not depend on the template engine's choice.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Text<'a>(pub &'a str);

impl Render for Text<'_> {
    fn render_to(&self, buffer: &mut String) {
        for (i, part) in self.0.split('\'').enumerate() {
            if i > 0 {
                buffer.push_str("&#39;");
            }
            // Writing to a `String` cannot fail.
            let _ = Escaper::new(buffer).write_str(part);
        }
    }
}

#[cfg(test)]
mod tests {
    use maud::{html, Render};

    use super::Text;

    fn escape(text: &str) -> String {
        Text(text).render().into_string()
    }

    #[test]
    fn markup_and_quotes_are_neutralised() {
        assert_eq!(
            escape(r#"<script>alert("x" & 'y')</script>"#),
            "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;"
        );
        assert_eq!(escape("plain ♠ text"), "plain ♠ text");
        assert_eq!(escape(""), "");
        assert_eq!(escape("'"), "&#39;");
        assert_eq!(escape("''a'"), "&#39;&#39;a&#39;");
        assert_eq!(
            escape("&amp;"),
            "&amp;amp;",
            "escaping is not idempotent by design"
        );
    }

    #[test]
    fn maud_escapes_the_same_but_for_the_apostrophe() {
        let text = r#"<b class="x">'&'</b>"#;
        let by_maud = html! { (text) }.into_string();
        assert_eq!(by_maud.replace('\'', "&#39;"), escape(text));
        let in_attribute = html! { span title=(Text(text)) {} }.into_string();
        assert_eq!(
            in_attribute,
            format!("<span title=\"{}\"></span>", escape(text))
        );
    }
}
