//! Each field's limit, with why: the longest string, the most entries of a repeated field and the
//! range of each number that each RPC accepts.

use super::kinds::{CountLimit, Range, Shape, TextLimit};
use crate::floor::{HAND_ID_LEN, MAX_HANDS_PAGE, MAX_NAME_CHARS};
use pitboss_engine::game::GameId;

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
/// `GetReturns`' page token: the last row of the page before (its key, its window), hex.
pub const RETURNS_PAGE_TOKEN: TextLimit = TextLimit::new(
    crate::returns::Cursor::TOKEN_MAX_LEN,
    false,
    Shape::HexBytes,
);
/// `GetReturns`' windows: each of `crate::returns::WINDOWS` at most once.
pub const RETURNS_WINDOWS: CountLimit = CountLimit { max: 4 };

/// `ListSignificantEvents`' page size (0: 200).
pub const EVENTS_REPORT_PAGE_SIZE: Range = Range { min: 0, max: 1000 };
/// `ListSignificantEvents`' page token: the next sequence to examine.
pub const EVENTS_REPORT_PAGE_TOKEN: TextLimit = TextLimit::new(20, false, Shape::Digits);
/// `ListSignificantEvents`' kinds: each of `audit::significant::KINDS`.
pub const EVENTS_REPORT_KINDS: CountLimit = CountLimit { max: 32 };

/// A player's seed sent with a round's bet, in bytes (0: none; `docs/rng.md` §1a).
pub const PLAYER_SEED_BYTES: usize = pitboss_engine::mix::PLAYER_SEED_MAX;

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
pub const TRANSCRIPT_JSON: usize = pitboss_lab::transcript::MAX_TEXT;
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

/// A round's seats in `DeriveDeal` (0: one player's hand): at most the most seats any game's
/// table deals (its own most is the engine's to check: `GameId::round_layout`).
pub const ROUND_SEATS: Range = Range {
    min: 0,
    max: most_seats(),
};

/// A round's id: as a hand's (32 hexadecimal digits).
pub const ROUND_ID: TextLimit = HAND_ID;

/// A round to export (empty: every round).
pub const ROUND_ID_FILTER: TextLimit = TextLimit::new(HAND_ID_LEN, false, Shape::Hex(HAND_ID_LEN));

/// `ListRounds`' page size (0: 10).
pub const ROUNDS_PAGE_SIZE: Range = HANDS_PAGE_SIZE;

/// `ListRounds`' page token: the last index key of the page before (owner, time, round id), hex.
pub const ROUNDS_PAGE_TOKEN: TextLimit = HANDS_PAGE_TOKEN;

/// `GetReturns`' grouping: `ReturnsBy` (0: per table, 1: per dealer).
pub const RETURNS_BY: Range = Range { min: 0, max: 1 };

/// A round's shape (`seats`, `shared_hand`, `one_shake`).
pub const ROUND_SHAPE: TextLimit = ID;

/// An optional reference (a shoe, a shaker, the player of a view).
pub const OPTIONAL_NAME: TextLimit = NAME_FILTER;

/// A round's seats at its opening, and a seat named in a command (0: none).
pub const SEAT: Range = ROUND_SEATS;

/// The commands of one batch of a round.
pub const ROUND_BATCH: CountLimit = CountLimit { max: 1000 };

/// The most players a round takes.
pub const ROUND_PLAYERS: Range = Range {
    min: 1,
    max: pitboss_engine::round::PLAYERS_MAX as u64,
};

/// Seats one player may hold (0 is read as 1).
pub const SEATS_PER_PLAYER: Range = Range { min: 0, max: 1 };

/// A round's decision window, in milliseconds.
pub const DECISION_WINDOW_MS: Range = Range {
    min: pitboss_engine::round::WINDOW_MIN_MS,
    max: pitboss_engine::round::WINDOW_MAX_MS,
};

/// The places one view of a round lists (0: 100).
pub const ROUND_PAGE_SIZE: Range = Range {
    min: 0,
    max: pitboss_engine::round::PAGE_MAX as u64,
};

/// The most seats any game's round deals, from the games' facts.
const fn most_seats() -> u64 {
    let mut most = 0;
    let mut k = 0;
    while k < GameId::ALL.len() {
        if let Some(seats) = GameId::ALL[k].facts().max_seats {
            if seats as u64 > most {
                most = seats as u64;
            }
        }
        k += 1;
    }
    most
}
