//! The stable snake_case ids of the engine's enumerations (bets, hand categories, paytable rows,
//! outcomes: `docs/games.md`), as their serde names give them. Logs, the API and the lab's reports
//! all name things by these ids.

use serde::Serialize;

/// The stable id of an engine enumeration's value (`"ante"`, `"royal_flush"`): its serde name.
/// Empty for a value that does not serialize to a bare string (a structure, not an id).
pub fn id_of<T: Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(id)) => id,
        _ => String::new(),
    }
}
