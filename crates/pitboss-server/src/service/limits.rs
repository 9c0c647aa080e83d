//! Every request's limits, in one place: the longest string, the most entries of a repeated field
//! and the range of each number that each RPC accepts, with why, and the check each handler runs
//! on its request before any other work — before a lock, a cache or map entry, an allocation sized
//! by the request, or a read of the log — so that a refused request costs nothing and writes
//! nothing. A refusal is `INVALID_ARGUMENT` with a `BadRequest` field violation naming the field as
//! the client wrote it (`open.wagers[1].bet`, `decisions[3].low`) and saying the limit.
//!
//! Limits that depend on the log (a sequence or a tree size beyond it: `OUT_OF_RANGE`) are checked
//! by the handlers against the log's size with [`within_log`]; limits that depend on a
//! configuration (stakes, bet multiples) are the engine's.
//!
//! Also the transport's limits of each service (message sizes both ways, the deadline of a unary
//! call) and of each connection ([`Transport`]). `docs/limits.md` is the same table for clients.
//!
//! Must not: do the work of a request, or hold game rules.

use std::time::Duration;

use tonic::Status;

use super::status::invalid_argument;
use super::status::out_of_range;
use crate::floor::{HAND_ID_LEN, MAX_HANDS_PAGE, MAX_NAME_CHARS};
use crate::proto;

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
    const fn new(max: usize, required: bool, shape: Shape) -> TextLimit {
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

// ---- The limits, by what they bound. ----

/// A client's request id (idempotency key): one id, one request.
pub const REQUEST_ID: TextLimit = TextLimit::new(128, false, Shape::Token);
/// A hand id as this service issues them.
pub const HAND_ID: TextLimit = TextLimit::new(HAND_ID_LEN, true, Shape::Hex(HAND_ID_LEN));
/// The hand a rebet repeats.
pub const REBET_OF: TextLimit = TextLimit::new(HAND_ID_LEN, false, Shape::Hex(HAND_ID_LEN));
/// A configuration id (SHA-256, hex); empty for the game's default.
pub const CONFIG_ID: TextLimit = TextLimit::new(64, false, Shape::Hex(64));
/// A table or player reference recorded with each hand.
pub const NAME: TextLimit = TextLimit::new(MAX_NAME_CHARS, true, Shape::Text);
/// A table or player to list hands by (one of them is required).
pub const NAME_FILTER: TextLimit = TextLimit::new(MAX_NAME_CHARS, false, Shape::Text);
/// A bet id, an action kind, a void kind, a hand status: ids of `docs/games.md`.
pub const ID: TextLimit = TextLimit::new(32, true, Shape::Token);
/// An optional id (a shaker, a status filter).
pub const OPTIONAL_ID: TextLimit = TextLimit::new(32, false, Shape::Token);
/// A card's text form ("As", "JK").
pub const CARD: TextLimit = TextLimit::new(3, true, Shape::Token);
/// Why a hand or a table's hands are voided, recorded in the log.
pub const REASON: TextLimit = TextLimit::new(500, true, Shape::Text);
/// Who records a void or runs a sweep: empty, or the caller's own principal id (the server records
/// the authenticated principal; a client cannot write another name).
pub const RECORDED_BY: TextLimit = TextLimit::new(MAX_NAME_CHARS, false, Shape::Text);
/// A proposal id as this service issues them.
pub const PROPOSAL_ID: TextLimit = TextLimit::new(32, true, Shape::Hex(32));
/// A proposal state to list by (empty: every state).
pub const PROPOSAL_STATE: TextLimit = OPTIONAL_ID;
/// `ListProposals`' page token: the last index key of the page before (time, id), hex.
pub const PROPOSALS_PAGE_TOKEN: TextLimit = TextLimit::new(2 * (8 + 32), false, Shape::HexBytes);
/// A signing key's id (16 bytes, hex); empty for "whichever is in use".
pub const KEY_ID: TextLimit = TextLimit::new(32, false, Shape::Hex(32));
/// Proposals in one page.
pub const PROPOSALS_PAGE_SIZE: Range = Range { min: 0, max: 100 };
/// A published configuration's JSON.
pub const CONFIG_JSON: TextLimit = TextLimit::new(64 * 1024, true, Shape::Json);
/// `GetHandEvents`' page token: a position in the hand's stream.
pub const EVENTS_PAGE_TOKEN: TextLimit = TextLimit::new(20, false, Shape::Digits);
/// `ListHands`' page token: the last index key of the page before (owner, time, hand id), hex.
pub const HANDS_PAGE_TOKEN: TextLimit = TextLimit::new(
    2 * (4 * MAX_NAME_CHARS + 1 + 8 + HAND_ID_LEN),
    false,
    Shape::HexBytes,
);
/// `ListConfigs`' page token: the last configuration id of the page before.
pub const CONFIGS_PAGE_TOKEN: TextLimit = CONFIG_ID;

/// A returns alert's id as this service issues them.
pub const ALERT_ID: TextLimit = TextLimit::new(32, true, Shape::Hex(32));
/// An investigation's findings, recorded in the log.
pub const FINDINGS: TextLimit = TextLimit::new(2000, true, Shape::Text);
/// What an investigation found.
pub const OUTCOMES: [&str; 4] = ["explained", "malfunction", "fraud", "other"];
/// `GetReturns`' page size (0: 200).
pub const RETURNS_PAGE_SIZE: Range = Range { min: 0, max: 1000 };
/// `GetReturns`' page token: the index of the first row of the page.
pub const RETURNS_PAGE_TOKEN: TextLimit = TextLimit::new(10, false, Shape::Digits);
/// `GetReturns`' windows: each of `crate::returns::WINDOWS` at most once.
pub const RETURNS_WINDOWS: CountLimit = CountLimit { max: 4 };

/// `ListSignificantEvents`' page size (0: 200).
pub const EVENTS_REPORT_PAGE_SIZE: Range = Range { min: 0, max: 1000 };
/// `ListSignificantEvents`' page token: the next sequence to examine.
pub const EVENTS_REPORT_PAGE_TOKEN: TextLimit = TextLimit::new(20, false, Shape::Digits);
/// `ListSignificantEvents`' kinds: each of `audit::significant::KINDS`.
pub const EVENTS_REPORT_KINDS: CountLimit = CountLimit { max: 32 };

/// Wagers of one opening: each bet at most once (the games have 15 bets in all).
pub const WAGERS: CountLimit = CountLimit { max: 16 };
/// Decisions of one `PlayHand`: more than any hand of any configuration takes (Nutz: at most
/// 255 shakes).
pub const DECISIONS: CountLimit = CountLimit { max: 256 };
/// The low hand of a Pai Gow setting: two cards.
pub const LOW_CARDS: CountLimit = CountLimit { max: 2 };

/// `GetHandEvents` page size (0: 100).
pub const EVENTS_PAGE_SIZE: Range = Range { min: 0, max: 1000 };
/// `ListHands` page size (0: 10).
pub const HANDS_PAGE_SIZE: Range = Range {
    min: 0,
    max: MAX_HANDS_PAGE as u64,
};
/// `ListConfigs` page size (0: 50): 100 configurations of at most 64 KiB fit a reply.
pub const CONFIGS_PAGE_SIZE: Range = Range { min: 0, max: 100 };
/// Hands of one simulation.
pub const SIMULATED_HANDS: Range = Range {
    min: 1,
    max: 100_000_000,
};
/// Sequences of one RNG battery (`TestRng`).
pub const RNG_SEQUENCES: Range = Range {
    min: 1,
    max: pitboss_lab::rng_battery::MAX_SEQUENCES as u64,
};
/// Bits per sequence of one RNG battery (also a multiple of 32, and sequences × bits at most
/// 5 × 10^9: `pitboss_lab::rng_battery::Plan`).
pub const RNG_SEQUENCE_BITS: Range = Range {
    min: pitboss_lab::rng_battery::MIN_BITS,
    max: pitboss_lab::rng_battery::MAX_BITS,
};
/// The largest transcript or configuration, as JSON (`CheckTranscripts`, `Certify`).
pub const TRANSCRIPT_JSON: usize = 60 * 1024;
/// Hands simulated for one certification report: enough that a recorded verdict rests on
/// evidence.
pub const CERTIFIED_HANDS: Range = Range {
    min: 10_000,
    max: 10_000_000,
};
/// The battery's sequences for one certification report: from 55, the publication's uniformity
/// rule is asked.
pub const CERTIFIED_SEQUENCES: Range = Range {
    min: 55,
    max: pitboss_lab::rng_battery::MAX_SEQUENCES as u64,
};
/// The vendor's transcripts given with one certification report.
pub const CERTIFIED_TRANSCRIPTS: CountLimit = CountLimit { max: 256 };
/// Rounds of one Pai Gow main-bet simulation (0: none).
pub const MAIN_BET_ROUNDS: Range = Range {
    min: 0,
    max: 1_000_000_000,
};
/// Words of one RNG stream.
pub const RNG_WORDS: Range = Range {
    min: 1,
    max: 1 << 32,
};
/// Words per seed of an RNG stream (0: 1 024).
pub const WORDS_PER_SEED: Range = Range {
    min: 0,
    max: 1 << 32,
};
/// Shuffles of one stream.
pub const SHUFFLES: Range = Range {
    min: 1,
    max: 100_000_000,
};

// ---- The transport. ----

/// The transport limits of one service.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transport {
    /// Largest request message (bytes, after the gRPC length prefix).
    pub max_request: usize,
    /// Largest reply message.
    pub max_reply: usize,
    /// How long a unary call may take before it is answered `DEADLINE_EXCEEDED` (a client's
    /// shorter `grpc-timeout` wins). Server streams answer at once and are not cut.
    pub deadline: Duration,
}

const KIB: usize = 1024;
const MIB: usize = 1024 * 1024;

/// Play: small requests (the largest `PlayHand` within its field limits is 24 KiB) and one hand's
/// view per reply; a call waits for at most one hand's lock and one append.
pub const PLAY: Transport = Transport {
    max_request: 64 * KIB,
    max_reply: MIB,
    deadline: Duration::from_secs(30),
};
/// Audit: small requests; the largest replies are a bundle of a long hand and a page of 1 000
/// events. Verification of a large log takes minutes.
pub const AUDIT: Transport = Transport {
    max_request: 64 * KIB,
    max_reply: 16 * MIB,
    deadline: Duration::from_secs(600),
};
/// Operations: a configuration's JSON (64 KiB) per request; a page of 100 configurations, or the
/// hand ids a table malfunction or a sweep voided, per reply. Voiding many hands takes minutes.
pub const OPERATIONS: Transport = Transport {
    max_request: 256 * KIB,
    max_reply: 16 * MIB,
    deadline: Duration::from_secs(600),
};
/// Lab: small requests; PAR sheets per reply. Simulations of 10^8 hands take tens of minutes.
pub const LAB: Transport = Transport {
    max_request: 64 * KIB,
    max_reply: 16 * MIB,
    deadline: Duration::from_secs(3600),
};
/// Health and reflection.
pub const OTHER: Transport = Transport {
    max_request: 64 * KIB,
    max_reply: 4 * MIB,
    deadline: Duration::from_secs(30),
};

/// The transport limits of the service a request path (`/pitboss.v1.Play/OpenHand`) names.
pub fn transport_of(path: &str) -> Transport {
    let service = path
        .trim_start_matches('/')
        .split('/')
        .next()
        .unwrap_or_default();
    match service {
        "pitboss.v1.Play" => PLAY,
        "pitboss.v1.Audit" => AUDIT,
        "pitboss.v1.Operations" => OPERATIONS,
        "pitboss.v1.Lab" => LAB,
        _ => OTHER,
    }
}

/// Per connection: concurrent HTTP/2 streams (calls).
pub const MAX_CONCURRENT_STREAMS: u32 = 128;
/// Per connection: the largest header list (metadata) of a call.
pub const MAX_HEADER_LIST: u32 = 16 * 1024;
/// HTTP/2 keepalive: a ping after this long without frames…
pub const HTTP2_KEEPALIVE_INTERVAL: Duration = Duration::from_secs(30);
/// … closes the connection unless answered within this.
pub const HTTP2_KEEPALIVE_TIMEOUT: Duration = Duration::from_secs(10);
/// TCP keepalive: probes after this long idle…
pub const TCP_KEEPALIVE: Duration = Duration::from_secs(60);
/// … every this long…
pub const TCP_KEEPALIVE_INTERVAL: Duration = Duration::from_secs(10);
/// … this many times before the connection is dropped.
pub const TCP_KEEPALIVE_RETRIES: u32 = 3;

// ---- The server's resources. ----

/// gRPC connections kept at once (`connections.rs`): beyond, a newcomer takes the place of one
/// doing nothing, or is closed at once. Sized for many idle clients (a connection waiting for its
/// handshake holds a few kilobytes), within the process's file descriptors.
pub const MAX_CONNECTIONS: usize = 10_000;
/// gRPC connections kept at once from one peer (an IPv4 address, an IPv6 /64).
pub const MAX_CONNECTIONS_PER_PEER: usize = 1_000;
/// Unary calls being handled at once, over every connection; beyond, a call is answered
/// `RESOURCE_EXHAUSTED` at once (before its message is decoded).
pub const MAX_IN_FLIGHT: usize = 4_096;
/// Lab computations (PAR sheets, simulations, strategy-table builds) at once: each takes every core.
pub const LAB_WORKERS: usize = 1;
/// Audit jobs (verification, replay, bundles, proofs) at once: one per core, twice.
pub fn audit_workers() -> usize {
    2 * pitboss_lab::threads()
}
/// Lab streams (RNG words, shuffles) at once, each with a producer thread; beyond,
/// `RESOURCE_EXHAUSTED`.
pub const LAB_STREAMS: usize = 4;
/// `StreamEvents` streams at once; beyond, `RESOURCE_EXHAUSTED`.
pub const EVENT_STREAMS: usize = 256;
/// A stream whose client reads nothing for this long is ended (`DEADLINE_EXCEEDED`), freeing what
/// it holds.
pub const STREAM_STALL: Duration = Duration::from_secs(60);

/// Sends `item` on a stream's channel, waiting at most [`STREAM_STALL`] for the client to make
/// room: whether it was sent. A stalled client is told why (`DEADLINE_EXCEEDED`, "the `what` is
/// ended", best effort); a client gone is nothing to tell.
pub async fn send_within_stall<M>(
    tx: &tokio::sync::mpsc::Sender<Result<M, Status>>,
    item: Result<M, Status>,
    what: &str,
) -> bool {
    use tokio::sync::mpsc::error::SendTimeoutError;
    match tx.send_timeout(item, STREAM_STALL).await {
        Ok(()) => true,
        Err(SendTimeoutError::Closed(_)) => false,
        Err(SendTimeoutError::Timeout(_)) => {
            let _ = tx.try_send(Err(Status::deadline_exceeded(format!(
                "the client read nothing for {} s: the {what} is ended",
                STREAM_STALL.as_secs()
            ))));
            false
        }
    }
}
/// Configurations whose strategy tables (at most 64 MiB each, `lab/budget.rs`) are kept; the
/// least recently used is dropped first.
pub const STRATEGY_TABLES_KEPT: usize = 4;
/// Configurations whose exact PAR sheets (a few KiB each) are kept.
pub const PAR_SHEETS_KEPT: usize = 256;

// ---- Each request's check. ----

/// A request message's limits, checked before any work.
pub trait Bounded {
    /// Checks every field; fields are named under `place` (`""`, or `"open."` for a nested one).
    fn check_in(&self, place: &str) -> Result<(), Status>;

    /// Checks every field of a top-level request.
    fn check(&self) -> Result<(), Status> {
        self.check_in("")
    }
}

fn at(place: &str, name: &str) -> String {
    format!("{place}{name}")
}

impl Bounded for proto::Wager {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        ID.check(&at(place, "bet"), &self.bet)
    }
}

impl Bounded for proto::Action {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        ID.check(&at(place, "kind"), &self.kind)?;
        LOW_CARDS.check(&at(place, "low"), self.low.len())?;
        for (i, card) in self.low.iter().enumerate() {
            CARD.check(&format!("{place}low[{i}]"), card)?;
        }
        OPTIONAL_ID.check(&at(place, "by"), &self.by)
    }
}

impl Bounded for proto::OpenHandRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        REQUEST_ID.check(&at(place, "request_id"), &self.request_id)?;
        CONFIG_ID.check(&at(place, "config_id"), &self.config_id)?;
        NAME.check(&at(place, "table"), &self.table)?;
        NAME.check(&at(place, "player"), &self.player)?;
        WAGERS.check(&at(place, "wagers"), self.wagers.len())?;
        for (i, wager) in self.wagers.iter().enumerate() {
            wager.check_in(&format!("{place}wagers[{i}]."))?;
        }
        REBET_OF.check(&at(place, "rebet_of"), &self.rebet_of)
    }
}

impl Bounded for proto::PlayHandRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        let open = self.open.as_ref();
        present(&at(place, "open"), open)?;
        if let Some(open) = open {
            open.check_in(&at(place, "open."))?;
        }
        DECISIONS.check(&at(place, "decisions"), self.decisions.len())?;
        for (i, action) in self.decisions.iter().enumerate() {
            action.check_in(&format!("{place}decisions[{i}]."))?;
        }
        Ok(())
    }
}

impl Bounded for proto::ActRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        REQUEST_ID.check(&at(place, "request_id"), &self.request_id)?;
        HAND_ID.check(&at(place, "hand_id"), &self.hand_id)?;
        let action = self.action.as_ref();
        present(&at(place, "action"), action)?;
        if let Some(action) = action {
            action.check_in(&at(place, "action."))?;
        }
        Ok(())
    }
}

/// The requests that name one hand and nothing else.
macro_rules! hand_id_only {
    ($($message:ty),*) => {$(
        impl Bounded for $message {
            fn check_in(&self, place: &str) -> Result<(), Status> {
                HAND_ID.check(&at(place, "hand_id"), &self.hand_id)
            }
        }
    )*};
}

hand_id_only!(
    proto::GetHandRequest,
    proto::ReplayHandRequest,
    proto::GetHandBundleRequest,
    proto::GetDisputePacketRequest
);

impl Bounded for proto::ExportHandsRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        NAME_FILTER.check(&at(place, "table"), &self.table)?;
        if self.to_ms != 0 && self.to_ms < self.from_ms {
            return Err(invalid_argument(
                &at(place, "to_ms"),
                format!(
                    "{} is before from_ms {}: 0 (no bound) or at least from_ms",
                    self.to_ms, self.from_ms
                ),
            ));
        }
        Ok(())
    }
}

impl Bounded for proto::GetHandEventsRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        HAND_ID.check(&at(place, "hand_id"), &self.hand_id)?;
        EVENTS_PAGE_SIZE.check(&at(place, "page_size"), u64::from(self.page_size))?;
        EVENTS_PAGE_TOKEN.check(&at(place, "page_token"), &self.page_token)
    }
}

impl Bounded for proto::ListHandsRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        NAME_FILTER.check(&at(place, "player"), &self.player)?;
        NAME_FILTER.check(&at(place, "table"), &self.table)?;
        OPTIONAL_ID.check(&at(place, "status"), &self.status)?;
        if self.to_ms != 0 && self.to_ms < self.from_ms {
            return Err(invalid_argument(
                &at(place, "to_ms"),
                format!(
                    "{} is before from_ms {}: 0 (no bound) or at least from_ms",
                    self.to_ms, self.from_ms
                ),
            ));
        }
        HANDS_PAGE_SIZE.check(&at(place, "page_size"), u64::from(self.page_size))?;
        HANDS_PAGE_TOKEN.check(&at(place, "page_token"), &self.page_token)
    }
}

impl Bounded for proto::DeriveDealRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        seed_bytes(&at(place, "seed"), &self.seed, false)
    }
}

/// The requests whose numbers are positions in the log, checked against its size by the handler,
/// and that have nothing else to bound.
macro_rules! positions_only {
    ($($message:ty),*) => {$(
        impl Bounded for $message {
            fn check_in(&self, _place: &str) -> Result<(), Status> {
                Ok(())
            }
        }
    )*};
}

positions_only!(
    proto::VerifyLogRequest,
    proto::StreamEventsRequest,
    proto::GetCheckpointRequest,
    proto::GetInclusionProofRequest,
    proto::GetConsistencyProofRequest
);

impl Bounded for proto::PublishConfigRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        REQUEST_ID.check(&at(place, "request_id"), &self.request_id)?;
        CONFIG_JSON.check(&at(place, "config_json"), &self.config_json)
    }
}

impl Bounded for proto::ListConfigsRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        CONFIGS_PAGE_SIZE.check(&at(place, "page_size"), u64::from(self.page_size))?;
        CONFIGS_PAGE_TOKEN.check(&at(place, "page_token"), &self.page_token)
    }
}

impl Bounded for proto::VoidHandRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        REQUEST_ID.check(&at(place, "request_id"), &self.request_id)?;
        HAND_ID.check(&at(place, "hand_id"), &self.hand_id)?;
        ID.check(&at(place, "kind"), &self.kind)?;
        REASON.check(&at(place, "reason"), self.reason.trim())?;
        RECORDED_BY.check(&at(place, "recorded_by"), &self.recorded_by)
    }
}

impl Bounded for proto::RecordTableMalfunctionRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        REQUEST_ID.check(&at(place, "request_id"), &self.request_id)?;
        NAME.check(&at(place, "table"), self.table.trim())?;
        if self.to_ms < self.from_ms {
            return Err(invalid_argument(
                &at(place, "to_ms"),
                format!(
                    "the range ends before it starts: {} is before from_ms {}",
                    self.to_ms, self.from_ms
                ),
            ));
        }
        REASON.check(&at(place, "reason"), self.reason.trim())?;
        RECORDED_BY.check(&at(place, "recorded_by"), &self.recorded_by)
    }
}

impl Bounded for proto::RunSweepRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        REQUEST_ID.check(&at(place, "request_id"), &self.request_id)?;
        RECORDED_BY.check(&at(place, "recorded_by"), &self.recorded_by)
    }
}

impl Bounded for proto::ApproveProposalRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        PROPOSAL_ID.check(&at(place, "proposal_id"), &self.proposal_id)
    }
}

impl Bounded for proto::RejectProposalRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        PROPOSAL_ID.check(&at(place, "proposal_id"), &self.proposal_id)?;
        REASON.check(&at(place, "reason"), self.reason.trim())
    }
}

impl Bounded for proto::ListProposalsRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        PROPOSAL_STATE.check(&at(place, "state"), &self.state)?;
        PROPOSALS_PAGE_SIZE.check(&at(place, "page_size"), u64::from(self.page_size))?;
        PROPOSALS_PAGE_TOKEN.check(&at(place, "page_token"), &self.page_token)
    }
}

impl Bounded for proto::RotateSigningKeyRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        KEY_ID.check(&at(place, "expected_key_id"), &self.expected_key_id)
    }
}

impl Bounded for proto::GetReturnsRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        OPTIONAL_ID.check(&at(place, "game"), &self.game)?;
        NAME_FILTER.check(&at(place, "table"), &self.table)?;
        CONFIG_ID.check(&at(place, "config_id"), &self.config_id)?;
        OPTIONAL_ID.check(&at(place, "bet"), &self.bet)?;
        RETURNS_WINDOWS.check(&at(place, "windows"), self.windows.len())?;
        for (i, w) in self.windows.iter().enumerate() {
            if self.windows[..i].contains(w) {
                return Err(invalid_argument(
                    &format!("{place}windows[{i}]"),
                    format!("{w}: each window at most once"),
                ));
            }
            if !crate::returns::WINDOWS.contains(w) {
                return Err(invalid_argument(
                    &format!("{place}windows[{i}]"),
                    format!("{w}: each window is 0 (the lifetime), 1, 7 or 30 days"),
                ));
            }
        }
        RETURNS_PAGE_SIZE.check(&at(place, "page_size"), u64::from(self.page_size))?;
        RETURNS_PAGE_TOKEN.check(&at(place, "page_token"), &self.page_token)
    }
}

impl Bounded for proto::ListSignificantEventsRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        if self.to_ms != 0 && self.to_ms < self.from_ms {
            return Err(invalid_argument(
                &at(place, "to_ms"),
                format!(
                    "{} is before from_ms {}: 0 (no end) or at least from_ms",
                    self.to_ms, self.from_ms
                ),
            ));
        }
        EVENTS_REPORT_KINDS.check(&at(place, "kinds"), self.kinds.len())?;
        for (i, kind) in self.kinds.iter().enumerate() {
            if !crate::audit::significant::KINDS.contains(&kind.as_str()) {
                return Err(invalid_argument(
                    &format!("{place}kinds[{i}]"),
                    format!(
                        "{:?}: one of {}",
                        kind.chars().take(40).collect::<String>(),
                        crate::audit::significant::KINDS.join(", ")
                    ),
                ));
            }
        }
        EVENTS_REPORT_PAGE_SIZE.check(&at(place, "page_size"), u64::from(self.page_size))?;
        EVENTS_REPORT_PAGE_TOKEN.check(&at(place, "page_token"), &self.page_token)
    }
}

impl Bounded for proto::RecordInvestigationRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        ALERT_ID.check(&at(place, "alert_id"), &self.alert_id)?;
        if !OUTCOMES.contains(&self.outcome.as_str()) {
            return Err(invalid_argument(
                &at(place, "outcome"),
                format!(
                    "{:?}: one of {}",
                    self.outcome.chars().take(40).collect::<String>(),
                    OUTCOMES.join(", ")
                ),
            ));
        }
        FINDINGS.check(&at(place, "reason"), &self.reason)
    }
}

impl Bounded for proto::AuthenticateSoftwareRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        let range = crate::software::CHALLENGE_LEN;
        if range.contains(&self.challenge.len()) {
            Ok(())
        } else {
            Err(invalid_argument(
                &at(place, "challenge"),
                format!(
                    "{} bytes: {} to {} bytes (a fresh random value)",
                    self.challenge.len(),
                    range.start(),
                    range.end()
                ),
            ))
        }
    }
}

impl Bounded for proto::ReloadAccessRequest {
    fn check_in(&self, _place: &str) -> Result<(), Status> {
        Ok(())
    }
}

impl Bounded for proto::GetParSheetsRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        CONFIG_ID.check(&at(place, "config_id"), &self.config_id)?;
        MAIN_BET_ROUNDS.check(&at(place, "main_bet_rounds"), self.main_bet_rounds)?;
        seed_bytes(&at(place, "seed"), &self.seed, true)
    }
}

impl Bounded for proto::SimulateRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        CONFIG_ID.check(&at(place, "config_id"), &self.config_id)?;
        SIMULATED_HANDS.check(&at(place, "hands"), self.hands)?;
        seed_bytes(&at(place, "seed"), &self.seed, true)
    }
}

impl Bounded for proto::StreamRngWordsRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        RNG_WORDS.check(&at(place, "words"), self.words)?;
        WORDS_PER_SEED.check(&at(place, "words_per_seed"), self.words_per_seed)?;
        Ok(())
    }
}

impl Bounded for proto::TestRngRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        RNG_SEQUENCES.check(&at(place, "sequences"), u64::from(self.sequences))?;
        RNG_SEQUENCE_BITS.check(&at(place, "bits"), self.bits)?;
        seed_bytes(&at(place, "seed"), &self.seed, true)
    }
}

impl Bounded for proto::CertifyRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        CONFIG_ID.check(&at(place, "config_id"), &self.config_id)?;
        CERTIFIED_HANDS.check(&at(place, "hands"), self.hands)?;
        seed_bytes(&at(place, "seed"), &self.seed, true)?;
        CERTIFIED_SEQUENCES.check(
            &at(place, "battery_sequences"),
            u64::from(self.battery_sequences),
        )?;
        RNG_SEQUENCE_BITS.check(&at(place, "battery_bits"), self.battery_bits)?;
        seed_bytes(&at(place, "battery_seed"), &self.battery_seed, true)?;
        CERTIFIED_TRANSCRIPTS.check(&at(place, "transcripts"), self.transcripts.len())?;
        for (i, t) in self.transcripts.iter().enumerate() {
            if t.len() > TRANSCRIPT_JSON {
                return Err(invalid_argument(
                    &at(place, &format!("transcripts[{i}]")),
                    format!("{} bytes: at most {TRANSCRIPT_JSON}", t.len()),
                ));
            }
        }
        NAME_FILTER.check(&at(place, "transcripts_source"), &self.transcripts_source)
    }
}

impl Bounded for proto::StreamShufflesRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        SHUFFLES.check(&at(place, "shuffles"), self.shuffles)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic::Code;
    use tonic_types::StatusExt;

    fn violation(status: &Status) -> (String, String) {
        let details = status.get_details_bad_request().expect("a BadRequest");
        let v = &details.field_violations[0];
        (v.field.clone(), v.description.clone())
    }

    #[test]
    fn strings_are_held_to_their_shape_and_length() {
        assert!(REQUEST_ID.check("request_id", "").is_ok());
        assert!(REQUEST_ID.check("request_id", "retry-7:a/b").is_ok());
        for bad in ["has space", "tab\t", "é", &"x".repeat(129)] {
            let e = REQUEST_ID.check("request_id", bad).unwrap_err();
            assert_eq!(e.code(), Code::InvalidArgument);
            let (field, description) = violation(&e);
            assert_eq!(field, "request_id");
            assert!(
                description.contains("at most 128 characters"),
                "{description}"
            );
        }
        assert!(HAND_ID.check("hand_id", &"ab".repeat(16)).is_ok());
        for bad in ["", "ab", &"g".repeat(32), &"a".repeat(33)] {
            let (_, d) = violation(&HAND_ID.check("hand_id", bad).unwrap_err());
            assert!(d.contains("exactly 32 hexadecimal digits"), "{d}");
        }
        // Characters, not bytes: 200 two-byte characters are a name, 201 are not.
        assert!(NAME.check("table", &"é".repeat(200)).is_ok());
        assert!(NAME.check("table", &"é".repeat(201)).is_err());
        assert!(NAME.check("table", "a\nb").is_err());
        let (_, d) = violation(&NAME.check("table", "").unwrap_err());
        assert_eq!(d, "required: 1 to 200 characters, no control characters");
        assert!(CONFIG_JSON.check("config_json", "{\n}").is_ok());
        assert!(CONFIG_JSON
            .check("config_json", &" ".repeat(64 * 1024 + 1))
            .is_err());
        assert!(EVENTS_PAGE_TOKEN
            .check("page_token", "18446744073709551615")
            .is_ok());
        assert!(EVENTS_PAGE_TOKEN.check("page_token", "-1").is_err());
        assert!(HANDS_PAGE_TOKEN.check("page_token", "abc").is_err());
    }

    #[test]
    fn numbers_and_counts_say_their_limit() {
        for n in [0, u64::from(u32::MAX), u64::MAX] {
            let result = SIMULATED_HANDS.check("hands", n);
            let e = result.unwrap_err();
            let (field, d) = violation(&e);
            assert_eq!(field, "hands");
            assert!(d.ends_with("1 to 100000000"), "{d}");
        }
        assert_eq!(RNG_WORDS.check("words", 1 << 32).unwrap(), 1 << 32);
        assert!(RNG_WORDS.check("words", (1 << 32) + 1).is_err());
        let (field, d) = violation(&WAGERS.check("open.wagers", 17).unwrap_err());
        assert_eq!(field, "open.wagers");
        assert_eq!(d, "17 entries: at most 16 entries");
        let e = within_log("sequence", u64::MAX, 9, "the last sequence").unwrap_err();
        assert_eq!(e.code(), Code::OutOfRange);
        assert_eq!(violation(&e).0, "sequence");
    }

    #[test]
    fn nested_fields_are_named_as_the_client_wrote_them() {
        let request = proto::PlayHandRequest {
            open: Some(proto::OpenHandRequest {
                table: "T".into(),
                player: "P".into(),
                wagers: vec![
                    proto::Wager {
                        bet: "ante".into(),
                        amount: 5,
                    },
                    proto::Wager {
                        bet: "x".repeat(33),
                        amount: 5,
                    },
                ],
                ..Default::default()
            }),
            decisions: vec![
                proto::Action {
                    kind: "bet".into(),
                    ..Default::default()
                };
                4
            ],
            follow_advice: false,
        };
        assert_eq!(
            violation(&request.check().unwrap_err()).0,
            "open.wagers[1].bet"
        );
        let mut request = request;
        request.open.as_mut().unwrap().wagers.pop();
        request.decisions[3].low = vec!["As".into(), "Kd".into(), "Qh".into()];
        assert_eq!(
            violation(&request.check().unwrap_err()).0,
            "decisions[3].low"
        );
        request.decisions[3].low = vec!["As".into(), "Kd is long".into()];
        assert_eq!(
            violation(&request.check().unwrap_err()).0,
            "decisions[3].low[1]"
        );
        request.decisions[3].low.clear();
        assert!(request.check().is_ok());
        request.open = None;
        assert_eq!(violation(&request.check().unwrap_err()).0, "open");
    }

    #[test]
    fn each_service_has_its_transport_limits() {
        assert_eq!(transport_of("/pitboss.v1.Play/OpenHand"), PLAY);
        assert_eq!(transport_of("/pitboss.v1.Lab/Simulate"), LAB);
        assert_eq!(transport_of("/pitboss.v1.Audit/VerifyLog"), AUDIT);
        assert_eq!(transport_of("/pitboss.v1.Operations/RunSweep"), OPERATIONS);
        assert_eq!(transport_of("/grpc.health.v1.Health/Check"), OTHER);
        assert_eq!(transport_of(""), OTHER);
        // A page of configurations fits a reply.
        assert!(CONFIGS_PAGE_SIZE.max as usize * (CONFIG_JSON.max + KIB) < OPERATIONS.max_reply);
    }
}
