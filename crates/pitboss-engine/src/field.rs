//! Field paths: where in a request a refusal points (`wagers.ante`, `action.bet.multiple`,
//! `decisions[2].action`), as data rather than as the head of a message.
//!
//! The engine names the field of its own command a refusal is about ([`crate::games::RuleError`]);
//! an outer layer that wraps the command in a request puts its own place in front
//! ([`FieldPath::prefixed`]).

use std::borrow::Cow;
use std::fmt;

/// One step of a [`FieldPath`]: a field's name, or a position in a list.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Segment {
    /// A named field (`wagers`, `ante`).
    Name(Cow<'static, str>),
    /// A position in a list (`[2]`).
    Index(usize),
}

/// A path to a field: names joined by `.`, positions written `[i]` after the name they index
/// (`decisions[2].action`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FieldPath {
    segments: Vec<Segment>,
}

impl FieldPath {
    /// The path of one top-level field.
    pub fn new(name: impl Into<Cow<'static, str>>) -> FieldPath {
        FieldPath {
            segments: vec![Segment::Name(name.into())],
        }
    }

    /// The path of a dotted name, one segment per `.`-separated part (`"void.reason"`).
    pub fn dotted(path: &'static str) -> FieldPath {
        FieldPath {
            segments: path
                .split('.')
                .map(|name| Segment::Name(Cow::Borrowed(name)))
                .collect(),
        }
    }

    /// This path, then the field `name` inside it.
    pub fn key(mut self, name: impl Into<Cow<'static, str>>) -> FieldPath {
        self.segments.push(Segment::Name(name.into()));
        self
    }

    /// This path, then position `index` of the list it names.
    pub fn index(mut self, index: usize) -> FieldPath {
        self.segments.push(Segment::Index(index));
        self
    }

    /// This path inside `place`: `place`'s segments, then this path's (`action` under
    /// `decisions[2]` is `decisions[2].action`).
    pub fn prefixed(self, place: FieldPath) -> FieldPath {
        let mut segments = place.segments;
        segments.extend(self.segments);
        FieldPath { segments }
    }

    /// True for the empty path (no segment).
    pub fn is_empty(&self) -> bool {
        self.segments.is_empty()
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, segment) in self.segments.iter().enumerate() {
            match segment {
                Segment::Name(name) if i == 0 => f.write_str(name)?,
                Segment::Name(name) => write!(f, ".{name}")?,
                Segment::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_render_as_the_api_names_them() {
        assert_eq!(
            FieldPath::new("wagers").key("ante").to_string(),
            "wagers.ante"
        );
        assert_eq!(
            FieldPath::dotted("action.bet.multiple").to_string(),
            "action.bet.multiple"
        );
        assert_eq!(
            FieldPath::new("action")
                .prefixed(FieldPath::new("decisions").index(2))
                .to_string(),
            "decisions[2].action"
        );
        assert_eq!(
            FieldPath::new("x").index(1).index(0).key("y").to_string(),
            "x[1][0].y"
        );
        assert_eq!(
            FieldPath::dotted("void.reason"),
            FieldPath::new("void").key("reason".to_string())
        );
        assert_eq!(FieldPath::default().to_string(), "");
        assert!(FieldPath::default().is_empty());
    }
}
