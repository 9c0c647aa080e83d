//! Why a round refuses a command ([`RoundError`]), with the command's field as a value
//! ([`RoundError::field`]) and the broad kind for the API's status codes ([`RoundError::kind`]).
//! A refused command changes nothing.

use crate::config::RulesVersion;
use crate::field::FieldPath;
use crate::game::{GameId, SeatsRefused};
use crate::games::{RefusalKind, RuleError, VoidKind};

/// Where a round stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Not opened yet.
    Pending,
    /// Open, taking bets.
    Betting,
    /// Betting closed, the beacon round that mixes the deal seed awaited: nothing dealt yet.
    AwaitingBeacon,
    /// Dealt, decisions awaited.
    Playing,
    /// Every place settled or voided at the showdown.
    Ended,
    /// Void as a whole.
    Voided,
}

/// Why a round command was refused. The round is unchanged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RoundError {
    /// A command before the round opened.
    #[error("the round has not been opened")]
    NotOpened,
    /// A second opening.
    #[error("the round is already open")]
    AlreadyOpened,
    /// A configuration older than rounds (the decision window ends places by the incomplete-game
    /// rule of rules version 2).
    #[error("rounds are played under rules version 2 or later; this configuration is {}", .0 .0)]
    RulesVersion(RulesVersion),
    /// A required field is empty.
    #[error("{0}: required")]
    Missing(FieldPath),
    /// A number outside its bounds.
    #[error("{field}: {value} is outside {min}..={max}")]
    Outside {
        field: FieldPath,
        value: u64,
        min: u64,
        max: u64,
    },
    /// A shape the game does not deal.
    #[error("shape: {game} is not dealt as {shape}")]
    ShapeNotThisGame { game: GameId, shape: &'static str },
    /// A number of seats the game does not deal.
    #[error("shape.seats: {0}")]
    Seats(SeatsRefused),
    /// A bet after betting closed.
    #[error("betting is closed")]
    BettingClosed,
    /// A bet dated at or after the betting deadline of a round whose seed a beacon mixes.
    #[error(
        "at: betting closed at {closes} (before the beacon round exists); this bet is dated {at}"
    )]
    BettingDeadline { closes: u64, at: u64 },
    /// A player's seed under a configuration that does not take players' seeds.
    #[error(
        "player_seed: this configuration's rounds take no player's seed (seed sources: {sources})"
    )]
    PlayerSeedNotTaken { sources: &'static str },
    /// A decision, a window's close or a forfeit while the beacon round is awaited.
    #[error("the beacon round is awaited: nothing is dealt yet")]
    AwaitingBeacon,
    /// A beacon, or its lateness, for a round that awaits none.
    #[error("the round awaits no beacon")]
    NoBeaconAwaited,
    /// A beacon round other than the one the round named, or whose randomness is not its
    /// signature's digest.
    #[error("{field}: {why}")]
    WrongBeacon { field: FieldPath, why: String },
    /// A beacon round arriving after its wait was over (the late rule applies instead).
    #[error("at: the beacon round was awaited until {until}; it arrived at {at}")]
    BeaconTooLate { until: u64, at: u64 },
    /// A late beacon's rule applied before the wait is over.
    #[error("at: the beacon round is awaited until {until}; this is dated {at}")]
    BeaconNotLate { until: u64, at: u64 },
    /// A decision, a window's close or a forfeit before betting closed.
    #[error("betting is still open: nothing is dealt yet")]
    BettingOpen,
    /// A command on a round that has ended.
    #[error("the round has ended ({0:?})")]
    Ended(Phase),
    /// A round of seats needs the seat; a shared hand or a shake has none.
    #[error("seat: {}", if *.needed { "required in a round of seats" } else { "this round deals no seats" })]
    Seat { needed: bool },
    /// A seat the round does not have.
    #[error("seat: {seat} is not a seat of this round (1..={seats})")]
    NoSuchSeat { seat: u8, seats: u8 },
    /// A seat another bet already holds.
    #[error("seat: seat {seat} is taken")]
    SeatTaken { seat: u8 },
    /// A player already on as many seats as the round allows.
    #[error("seat: a player holds at most {limit} seat(s) of this round")]
    SeatsPerPlayer { limit: u8 },
    /// A bet by a dealer of the round (the dealer now, or one who dealt it before).
    #[error("player: a dealer of the round does not bet on it")]
    DealerBets,
    /// A dealer change to someone who has dealt the round already (the dealer now among them).
    #[error("dealer: {dealer} has dealt this round already; each dealer deals a round once")]
    DealtBefore { dealer: String },
    /// A dealer change past the round's most dealers.
    #[error("dealer: a round has at most {max} dealers")]
    TooManyDealers { max: usize },
    /// A dealer change to one of the round's players.
    #[error("dealer: {dealer} bets on this round and cannot deal it")]
    DealerPlays { dealer: String },
    /// A second bet by one player on a shared hand or a shake.
    #[error("player: {player} has already bet on this round")]
    AlreadyBet { player: String },
    /// A new player when the round is full.
    #[error("player: the round takes at most {max} players")]
    Full { max: u32 },
    /// Too many wagers in one bet.
    #[error("wagers: at most {max} wagers in one bet")]
    TooManyWagers { max: usize },
    /// Closing betting with no bet.
    #[error("no bet has been placed: void the round instead")]
    NoBets,
    /// The Nutz cup offered to someone not betting, or to anyone in a round without a cup.
    #[error("shaker: {}", if *.cup { "the cup is offered to a bettor of the round" } else { "this round has no cup" })]
    Shaker { cup: bool },
    /// A decision by someone not holding the place.
    #[error("player: {player} does not hold this place")]
    NotYourPlace { player: String },
    /// A shake by someone other than the bettor offered the cup or the dealer.
    #[error("player: the cup is shaken by the bettor offered it or by the dealer")]
    NotTheShaker,
    /// A decision that is not a shake in a round of one shake, or a shake elsewhere.
    #[error("action: {}", if *.shake { "the only decision of a shake is the shake" } else { "a shake is a round of dice's decision" })]
    Shake { shake: bool },
    /// A decision on a place that has ended (folded, settled, forfeited).
    #[error("the place has ended: no further decision is taken")]
    PlaceEnded,
    /// A decision before the table has seen what this place has already been shown: the other
    /// places have not decided yet.
    #[error("waiting for the other places to decide on this street (positions {positions:?})")]
    Waiting { positions: Vec<u8> },
    /// A command dated before the round's last recorded event.
    #[error("at: {at} is before the round's last event at {last}")]
    BeforeLastEvent { at: u64, last: u64 },
    /// A decision after the decision window closed.
    #[error("at: the decision window closed at {closes}; this decision is dated {at}")]
    WindowClosed { closes: u64, at: u64 },
    /// Closing the decision window before it closes.
    #[error(
        "order.at: the decision window closes at {closes}, not before; this order is dated {at}"
    )]
    WindowOpen { closes: u64, at: u64 },
    /// A void order of a kind this command does not take.
    #[error("order.kind: {what}")]
    VoidKind { kind: VoidKind, what: &'static str },
    /// A settled round's void without a second person, or approved by the person who recorded it.
    #[error("order.approved_by: a settled round's void needs a second person, other than the one recording it")]
    SecondPerson,
    /// The place's one-player hand refuses it (a wager, a decision, a void).
    #[error("{0}")]
    Hand(RuleError),
    /// A recorded event that does not follow from the round (a tampered or misordered log).
    #[error("event {index}: {why}")]
    Replay { index: usize, why: String },
}

impl RoundError {
    /// The broad kind of this refusal.
    pub fn kind(&self) -> RefusalKind {
        use RoundError as E;
        match self {
            E::Missing(_)
            | E::Outside { .. }
            | E::ShapeNotThisGame { .. }
            | E::Seats(_)
            | E::Seat { .. }
            | E::NoSuchSeat { .. }
            | E::TooManyWagers { .. }
            | E::Shaker { .. }
            | E::Shake { .. }
            | E::DealerBets
            | E::DealtBefore { .. }
            | E::DealerPlays { .. }
            | E::WrongBeacon { .. }
            | E::VoidKind { .. } => RefusalKind::InvalidArgument,
            E::NotOpened
            | E::AlreadyOpened
            | E::RulesVersion(_)
            | E::BettingClosed
            | E::BettingOpen
            | E::Ended(_)
            | E::SeatTaken { .. }
            | E::SeatsPerPlayer { .. }
            | E::AlreadyBet { .. }
            | E::Full { .. }
            | E::TooManyDealers { .. }
            | E::NoBets
            | E::NotYourPlace { .. }
            | E::NotTheShaker
            | E::PlaceEnded
            | E::Waiting { .. }
            | E::BeforeLastEvent { .. }
            | E::WindowClosed { .. }
            | E::WindowOpen { .. }
            | E::SecondPerson
            | E::BettingDeadline { .. }
            | E::PlayerSeedNotTaken { .. }
            | E::AwaitingBeacon
            | E::NoBeaconAwaited
            | E::BeaconNotLate { .. }
            | E::BeaconTooLate { .. } => RefusalKind::FailedPrecondition,
            E::Hand(error) => error.kind(),
            E::Replay { .. } => RefusalKind::Internal,
        }
    }

    /// The refusal of the round's state by name, for a client to act on (`BETTING_CLOSED`,
    /// `WAITING`, …): the `PreconditionFailure` type a `FAILED_PRECONDITION` carries; `None` for
    /// the other kinds.
    pub fn precondition(&self) -> Option<&'static str> {
        use RoundError as E;
        Some(match self {
            E::NotOpened => "ROUND_NOT_OPENED",
            E::AlreadyOpened => "ROUND_ALREADY_OPENED",
            E::RulesVersion(_) => "RULES_VERSION",
            E::BettingClosed => "BETTING_CLOSED",
            E::BettingOpen => "BETTING_OPEN",
            E::Ended(_) => "ROUND_ENDED",
            E::SeatTaken { .. } => "SEAT_TAKEN",
            E::SeatsPerPlayer { .. } => "SEATS_PER_PLAYER",
            E::AlreadyBet { .. } => "ALREADY_BET",
            E::Full { .. } => "ROUND_FULL",
            E::TooManyDealers { .. } => "TOO_MANY_DEALERS",
            E::NoBets => "NO_BETS",
            E::NotYourPlace { .. } => "NOT_YOUR_PLACE",
            E::NotTheShaker => "NOT_THE_SHAKER",
            E::PlaceEnded => "PLACE_ENDED",
            E::Waiting { .. } => "WAITING",
            E::BeforeLastEvent { .. } => "BEFORE_LAST_EVENT",
            E::WindowClosed { .. } => "WINDOW_CLOSED",
            E::WindowOpen { .. } => "WINDOW_OPEN",
            E::SecondPerson => "SECOND_PERSON_REQUIRED",
            E::BettingDeadline { .. } => "BETTING_DEADLINE",
            E::PlayerSeedNotTaken { .. } => "PLAYER_SEED_NOT_TAKEN",
            E::AwaitingBeacon => "AWAITING_BEACON",
            E::NoBeaconAwaited => "NO_BEACON_AWAITED",
            E::BeaconNotLate { .. } => "BEACON_NOT_LATE",
            E::BeaconTooLate { .. } => "BEACON_TOO_LATE",
            E::Hand(error) => return error.precondition(),
            _ => return None,
        })
    }

    /// The field of the command the refusal is about; `None` for a refusal about the round as a
    /// whole.
    pub fn field(&self) -> Option<FieldPath> {
        use RoundError as E;
        Some(match self {
            E::Missing(field) | E::Outside { field, .. } | E::WrongBeacon { field, .. } => {
                field.clone()
            }
            E::PlayerSeedNotTaken { .. } => FieldPath::new("player_seed"),
            E::BettingDeadline { .. } | E::BeaconNotLate { .. } | E::BeaconTooLate { .. } => {
                FieldPath::new("at")
            }
            E::ShapeNotThisGame { .. } => FieldPath::new("shape"),
            E::Seats(_) => FieldPath::dotted("shape.seats"),
            E::Seat { .. }
            | E::NoSuchSeat { .. }
            | E::SeatTaken { .. }
            | E::SeatsPerPlayer { .. } => FieldPath::new("seat"),
            E::AlreadyBet { .. }
            | E::Full { .. }
            | E::NotYourPlace { .. }
            | E::NotTheShaker
            | E::DealerBets => FieldPath::new("player"),
            E::DealtBefore { .. } | E::DealerPlays { .. } | E::TooManyDealers { .. } => {
                FieldPath::new("dealer")
            }
            E::TooManyWagers { .. } => FieldPath::new("wagers"),
            E::Shaker { .. } => FieldPath::new("shaker"),
            E::Shake { .. } => FieldPath::new("action"),
            E::BeforeLastEvent { .. } | E::WindowClosed { .. } => FieldPath::new("at"),
            E::WindowOpen { .. } => FieldPath::dotted("order.at"),
            E::VoidKind { .. } => FieldPath::dotted("order.kind"),
            E::SecondPerson => FieldPath::dotted("order.approved_by"),
            E::Hand(error) => return error.field(),
            E::NotOpened
            | E::AlreadyOpened
            | E::RulesVersion(_)
            | E::BettingClosed
            | E::BettingOpen
            | E::Ended(_)
            | E::NoBets
            | E::PlaceEnded
            | E::Waiting { .. }
            | E::AwaitingBeacon
            | E::NoBeaconAwaited
            | E::Replay { .. } => return None,
        })
    }
}

impl From<RuleError> for RoundError {
    fn from(error: RuleError) -> RoundError {
        RoundError::Hand(error)
    }
}

impl From<SeatsRefused> for RoundError {
    fn from(refused: SeatsRefused) -> RoundError {
        RoundError::Seats(refused)
    }
}
