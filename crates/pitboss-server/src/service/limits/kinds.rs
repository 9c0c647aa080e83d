//! The kinds of limit — a string's length and shape, a repeated field's count, a number's range —
//! and the checks that refuse a value outside one, naming the field.

use tonic::Status;

use crate::service::status::invalid_argument;
use crate::service::status::out_of_range;

/// What a string field may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Text without control characters, counted in characters.
    Text,
    /// Printable ASCII without spaces (`!` to `~`): ids and names a client makes up.
    Token,
    /// Exactly this many hexadecimal digits.
    Hex(usize),
    /// Hexadecimal digits, an even number (a page token this service issued).
    HexBytes,
    /// Decimal digits (a page token this service issued).
    Digits,
    /// JSON text, counted in bytes.
    Json,
}

/// The limit of a string field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextLimit {
    /// At most this many characters (bytes for [`Shape::Json`]).
    pub max: usize,
    /// Empty is refused.
    pub required: bool,
    /// What it may hold.
    pub shape: Shape,
}

impl TextLimit {
    pub(super) const fn new(max: usize, required: bool, shape: Shape) -> TextLimit {
        TextLimit {
            max,
            required,
            shape,
        }
    }

    /// The limit in words, as the violation and `docs/limits.md` say it.
    pub fn describe(&self) -> String {
        let size = match (self.shape, self.required) {
            (Shape::Hex(n), true) => format!("exactly {n} hexadecimal digits"),
            (Shape::Hex(n), false) => format!("empty or exactly {n} hexadecimal digits"),
            (Shape::Json, true) => format!("1 to {} bytes", self.max),
            (Shape::Json, false) => format!("at most {} bytes", self.max),
            (_, true) => format!("1 to {} characters", self.max),
            (_, false) => format!("at most {} characters", self.max),
        };
        let what = match self.shape {
            Shape::Text => ", no control characters",
            Shape::Token => ", printable ASCII without spaces",
            Shape::Hex(_) => "",
            Shape::HexBytes => ", hexadecimal digits (a token this service issued)",
            Shape::Digits => ", decimal digits (a token this service issued)",
            Shape::Json => " of JSON",
        };
        format!("{size}{what}")
    }

    /// Checks `value` for the field named `field`.
    pub fn check(&self, field: &str, value: &str) -> Result<(), Status> {
        let refuse = |problem: &str| {
            Err(invalid_argument(
                field,
                format!("{problem}: {}", self.describe()),
            ))
        };
        if value.is_empty() {
            return if self.required {
                refuse("required")
            } else {
                Ok(())
            };
        }
        // Counting stops past the limit: the cost of a check does not grow with the input.
        let count = match self.shape {
            Shape::Json => value.len(),
            _ => value.chars().take(self.max + 1).count(),
        };
        if count > self.max {
            return refuse("too long");
        }
        let shaped = match self.shape {
            Shape::Text => !value.chars().any(char::is_control),
            Shape::Token => value.bytes().all(|b| b.is_ascii_graphic()),
            Shape::Hex(n) => value.len() == n && value.bytes().all(|b| b.is_ascii_hexdigit()),
            Shape::HexBytes => {
                value.len().is_multiple_of(2) && value.bytes().all(|b| b.is_ascii_hexdigit())
            }
            Shape::Digits => value.bytes().all(|b| b.is_ascii_digit()),
            Shape::Json => true,
        };
        if shaped {
            Ok(())
        } else {
            refuse("malformed")
        }
    }
}

/// The limit of a repeated field: at most this many entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CountLimit {
    /// At most this many entries.
    pub max: usize,
}

impl CountLimit {
    /// The limit in words.
    pub fn describe(&self) -> String {
        format!("at most {} entries", self.max)
    }

    /// Checks the number of entries of the field named `field`.
    pub fn check(&self, field: &str, len: usize) -> Result<(), Status> {
        if len > self.max {
            Err(invalid_argument(
                field,
                format!("{len} entries: {}", self.describe()),
            ))
        } else {
            Ok(())
        }
    }
}

/// The range of a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    /// The smallest accepted.
    pub min: u64,
    /// The largest accepted.
    pub max: u64,
}

impl Range {
    /// The range in words.
    pub fn describe(&self) -> String {
        format!("{} to {}", self.min, self.max)
    }

    /// Checks the number of the field named `field`.
    pub fn check(&self, field: &str, value: u64) -> Result<u64, Status> {
        if value < self.min || value > self.max {
            Err(invalid_argument(
                field,
                format!("{value} is out of range: {}", self.describe()),
            ))
        } else {
            Ok(value)
        }
    }
}

/// Checks that `value` is at most `max`, which is `what` ("the log's size", "the last sequence")
/// now: `OUT_OF_RANGE` naming the field otherwise.
pub fn within_log(field: &str, value: u64, max: u64, what: &str) -> Result<u64, Status> {
    if value > max {
        Err(out_of_range(
            field,
            format!("{value} is beyond the log: at most {what}, {max} now"),
        ))
    } else {
        Ok(value)
    }
}

/// The end `to_ms` of a time range that may be open: 0 (no bound; `zero` names what it means to
/// this request) or at least `from_ms`, naming `field` otherwise.
pub fn open_end(field: &str, from_ms: u64, to_ms: u64, zero: &str) -> Result<(), Status> {
    if to_ms != 0 && to_ms < from_ms {
        return Err(invalid_argument(
            field,
            format!("{to_ms} is before from_ms {from_ms}: 0 ({zero}) or at least from_ms"),
        ));
    }
    Ok(())
}

/// A seed: exactly 32 bytes (or, where `optional`, empty).
pub fn seed_bytes(field: &str, bytes: &[u8], optional: bool) -> Result<(), Status> {
    match bytes.len() {
        32 => Ok(()),
        0 if optional => Ok(()),
        n => Err(invalid_argument(
            field,
            format!(
                "{n} bytes: {}",
                if optional {
                    "empty or exactly 32 bytes"
                } else {
                    "exactly 32 bytes"
                }
            ),
        )),
    }
}

/// A message field that must be set.
pub fn present<T>(field: &str, value: Option<&T>) -> Result<(), Status> {
    match value {
        Some(_) => Ok(()),
        None => Err(invalid_argument(field, "required")),
    }
}
