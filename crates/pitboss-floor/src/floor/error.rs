//! Why a floor operation failed, as data: each variant carries what the service needs to answer
//! (the field, the hand, the proposal) without reading the message. Owns no behaviour.

use pitboss_engine::config::{ConfigError, ConfigId};
use pitboss_engine::games::RuleError;
use pitboss_ledger::LedgerError;

/// Why a floor operation failed. Nothing was recorded.
#[derive(Debug, thiserror::Error)]
pub enum FloorError {
    #[error("{what} `{id}` not found")]
    NotFound { what: &'static str, id: String },
    #[error("{field}: {problem}")]
    Invalid { field: String, problem: String },
    #[error(transparent)]
    Rule(#[from] RuleError),
    /// A table's round refuses the command (`docs/rounds.md`).
    #[error(transparent)]
    Round(#[from] pitboss_engine::round::RoundError),
    /// A round refuses one command of a batch, `index`: none of them is recorded.
    #[error("commands[{index}]: {source}")]
    RoundBatch {
        index: usize,
        source: pitboss_engine::round::RoundError,
    },
    /// A whole hand's script (`PlayHand`) cannot be played as written: `field` is named from the
    /// request's top (`decisions[3]`, `follow_advice`), not under its opening.
    #[error("{field}: {problem}")]
    Script { field: String, problem: String },
    #[error("decisions[{index}]: {source}")]
    Decision { index: usize, source: RuleError },
    #[error("hand {hand} is at version {actual}, not the expected {expected}")]
    Conflict {
        hand: String,
        expected: u64,
        actual: u64,
    },
    #[error("{}", pitboss_ledger::reused_message(.id))]
    RequestReused { id: String },
    #[error(transparent)]
    Ledger(LedgerError),
    /// The operating system gave no randomness for a seed or an id.
    #[error("no randomness from the operating system: {0}")]
    Randomness(#[source] getrandom::Error),
    #[error("the record of {0} is damaged: {1}")]
    Corrupt(String, String),
    #[error("config_id: configuration {id} opens no new hand: {problem}")]
    ConfigNotPlayable { id: ConfigId, problem: ConfigError },
    /// The server opens hands only under certified configurations (`[certification] required`)
    /// and this one's latest report, `latest` (its entry's sequence; `None`: no report), does not
    /// hold.
    #[error(
        "config_id: configuration {id} opens no new hand: {}; this server opens hands only under a configuration whose latest certification report holds",
        match latest {
            None => "the log holds no certification report for it".to_string(),
            Some(sequence) => format!("its latest certification report (entry {sequence}) fails"),
        }
    )]
    NotCertified { id: ConfigId, latest: Option<u64> },
    #[error("hand {hand} is settled: voiding it moves money after the fact, so a second principal must approve it (a proposal)")]
    SecondPersonRequired { hand: String },
    #[error("proposal {id}: {problem}")]
    Proposal {
        id: String,
        problem: ProposalProblem,
    },
    /// The log has no signing key to rotate (a read-only server holds none).
    #[error("the log has no signing key")]
    NoSigningKey,
    /// A rotation named the key it expected in use, and another is: nothing changed.
    #[error("expected_key_id: the key in use is {in_use}, not {expected}")]
    KeyChanged { expected: String, in_use: String },
    /// A returns alert is investigated once.
    #[error("alert_id: alert {alert_id} is investigated already")]
    Investigated { alert_id: String },
}

/// Why a proposal cannot be approved or rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProposalProblem {
    #[error("its proposer cannot approve it: a second, different principal must")]
    OwnProposal,
    #[error("it is {state} already")]
    Decided { state: String },
    #[error("it expired at {expires_at_ms} ms, unapproved")]
    Expired { expires_at_ms: u64 },
}

/// A configuration refused, as a field of the request that carried it (`config_json.<path>`).
impl From<ConfigError> for FloorError {
    fn from(e: ConfigError) -> FloorError {
        match e.field() {
            Some(path) if !path.is_empty() => invalid(&format!("config_json.{path}"), e.problem()),
            // The whole configuration (its length), or JSON that does not parse.
            Some(_) => invalid("config_json", e.problem()),
            None => invalid("config_json", e.to_string()),
        }
    }
}

impl From<LedgerError> for FloorError {
    fn from(e: LedgerError) -> FloorError {
        match e {
            LedgerError::RequestReused { id } => FloorError::RequestReused { id },
            other => FloorError::Ledger(other),
        }
    }
}

pub(super) fn invalid(field: &str, problem: impl Into<String>) -> FloorError {
    FloorError::Invalid {
        field: field.to_string(),
        problem: problem.into(),
    }
}
