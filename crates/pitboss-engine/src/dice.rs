//! Die faces for the Nutz dice game: a value from 1 to 6, nothing else representable.
//!
//! Owns only the face type and its text form; rolling is the RNG's job (`engine::rng`), scoring the
//! game's.

use std::fmt;

/// One die's face, 1 to 6.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DieFace(u8);

/// A face value outside 1..=6.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0} is not a die face: expected 1 to 6")]
pub struct DieFaceError(pub u32);

impl DieFace {
    /// The face with this value, if it is 1..=6.
    pub fn new(value: u32) -> Result<DieFace, DieFaceError> {
        match value {
            1..=6 => Ok(DieFace(value as u8)),
            _ => Err(DieFaceError(value)),
        }
    }

    /// From a uniform draw in `0..6` (RNG.md §7: a die is `uniform(6) + 1`).
    pub(crate) const fn from_draw(draw: u32) -> DieFace {
        DieFace((draw % 6) as u8 + 1)
    }

    /// The face value, 1..=6.
    pub const fn value(self) -> u8 {
        self.0
    }
}

impl fmt::Display for DieFace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_one_to_six_are_faces() {
        assert!(DieFace::new(0).is_err());
        assert!(DieFace::new(7).is_err());
        for v in 1..=6 {
            assert_eq!(DieFace::new(v).unwrap().value() as u32, v);
        }
        assert_eq!(DieFace::from_draw(0).value(), 1);
        assert_eq!(DieFace::from_draw(5).value(), 6);
        assert_eq!(
            DieFace::new(9).unwrap_err().to_string(),
            "9 is not a die face: expected 1 to 6"
        );
    }
}
