//! Why a command is refused: [`RuleError`], with the field of the command it is about
//! ([`RuleError::field`]) and what is wrong there ([`RuleError::description`]) as values, and its
//! broad kind for the API's status codes ([`RuleError::kind`]).
//!
//! The message (`Display`) is `field: description`, or the description alone for a refusal about the
//! hand as a whole; the API shows it as is.

use std::fmt;

use crate::config::WrongRules;
use crate::field::FieldPath;
use crate::game::{GameId, Seat};
use crate::money::{Money, MoneyOverflow};
use crate::settlement::BetId;

use super::pai_gow::SettingRefused;
use super::void::VoidRefusal;
use super::Status;

/// Why a command was refused. The hand is unchanged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// A decision or void before the hand opened.
    NotOpened,
    /// A second opening.
    AlreadyOpened,
    /// A decision on a hand settled or voided.
    Ended(Status),
    /// A wager on a bet the game does not have.
    NotThisGame { game: GameId, bet: BetId },
    /// A required wager is absent.
    MissingWager { bet: BetId },
    /// A bet staked twice.
    DuplicateWager { bet: BetId },
    /// A stake outside the table limit.
    OutsideLimit {
        bet: BetId,
        amount: Money,
        min: Money,
        max: Money,
        /// The currency's minor digits, to show the amounts.
        minor_digits: u8,
    },
    /// A fixed-amount bet staked at another amount.
    FixedStake {
        bet: BetId,
        amount: Money,
        required: Money,
        /// The currency's minor digits, to show the amounts.
        minor_digits: u8,
    },
    /// No bet box staked (Nutz).
    NoWager,
    /// A decision the game does not have.
    ActionNotInGame { game: GameId, action: &'static str },
    /// A decision of the game, not legal at this point of the hand.
    NotLegalNow {
        action: &'static str,
        why: &'static str,
    },
    /// A street bet at a multiple of the ante the configuration does not allow.
    BadMultiple { multiple: u32, allowed: Vec<u32> },
    /// The player's Pai Gow setting is refused.
    BadSetting(SettingRefused),
    /// A void order the void rules refuse for this hand.
    VoidRefused(VoidRefusal),
    /// A required field of the command is empty.
    MissingField(FieldPath),
    /// An incomplete-game void before the hand is incomplete.
    TooEarly { opened: u64, deadline: u64, at: u64 },
    /// A decision on a hand already incomplete (rules version 2).
    Expired { opened: u64, deadline: u64, at: u64 },
    /// A command dated before the hand's last recorded event (rules version 2).
    BeforeLastEvent { at: u64, last: u64 },
    /// The configuration does not fit the game (our fault).
    Config(ConfigMisfit),
    /// An amount overflowed (our fault: validated limits exclude it).
    Overflow,
    /// An event that does not follow from the hand (a tampered or misordered log), in words.
    Inconsistent(String),
    /// The given dice ran out before the round ended (a vendor transcript).
    DiceUsedUp { given: usize },
}

/// Why a hand's configuration does not fit its game. Our own fault: a validated configuration
/// always fits.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigMisfit {
    /// The configuration holds another game's rules.
    #[error(transparent)]
    WrongRules(#[from] WrongRules),
    /// The Pai Gow rules name a house way this build does not know.
    #[error("unknown house way `{0}`")]
    UnknownHouseWay(String),
    /// A Caribbean Stud seat was not dealt its five cards.
    #[error("{} cards", .0.id())]
    NotFiveCards(Seat),
    /// A Pai Gow seat was not dealt its seven cards.
    #[error("{} has not seven cards", .0.id())]
    NotSevenCards(Seat),
    /// The incomplete-game rule asked to complete a game it refunds instead.
    #[error("the incomplete-game rule does not complete a {0} hand")]
    NotCompleted(GameId),
}

impl From<ConfigMisfit> for RuleError {
    fn from(misfit: ConfigMisfit) -> RuleError {
        RuleError::Config(misfit)
    }
}

impl From<WrongRules> for RuleError {
    fn from(wrong: WrongRules) -> RuleError {
        RuleError::Config(ConfigMisfit::WrongRules(wrong))
    }
}

impl From<MoneyOverflow> for RuleError {
    fn from(_: MoneyOverflow) -> RuleError {
        RuleError::Overflow
    }
}

/// The broad kind of a refusal, for mapping to API status codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefusalKind {
    /// The command itself is malformed or out of limits (`INVALID_ARGUMENT`).
    InvalidArgument,
    /// The command is well-formed but not allowed at this point (`FAILED_PRECONDITION`).
    FailedPrecondition,
    /// Our own fault (`INTERNAL`).
    Internal,
}

impl RuleError {
    /// The broad kind of this refusal.
    pub fn kind(&self) -> RefusalKind {
        use RuleError as E;
        match self {
            E::NotThisGame { .. }
            | E::MissingWager { .. }
            | E::DuplicateWager { .. }
            | E::OutsideLimit { .. }
            | E::FixedStake { .. }
            | E::NoWager
            | E::ActionNotInGame { .. }
            | E::BadMultiple { .. }
            | E::BadSetting(_)
            | E::MissingField(_)
            | E::DiceUsedUp { .. } => RefusalKind::InvalidArgument,
            E::NotOpened
            | E::AlreadyOpened
            | E::Ended(_)
            | E::NotLegalNow { .. }
            | E::VoidRefused(_)
            | E::TooEarly { .. }
            | E::Expired { .. }
            | E::BeforeLastEvent { .. } => RefusalKind::FailedPrecondition,
            E::Config(_) | E::Overflow | E::Inconsistent(_) => RefusalKind::Internal,
        }
    }

    /// The refusal of the hand's state by name, for a client to act on: the `PreconditionFailure`
    /// type a `FAILED_PRECONDITION` carries (`HAND_ENDED`, `NOT_LEGAL_NOW`, `VOID_REFUSED`, …);
    /// `None` for the other kinds, which name a field instead (or are our fault).
    pub fn precondition(&self) -> Option<&'static str> {
        use RuleError as E;
        Some(match self {
            E::NotOpened => "HAND_NOT_OPENED",
            E::AlreadyOpened => "HAND_ALREADY_OPENED",
            E::Ended(_) => "HAND_ENDED",
            E::NotLegalNow { .. } => "NOT_LEGAL_NOW",
            E::VoidRefused(_) => "VOID_REFUSED",
            E::TooEarly { .. } => "TOO_EARLY",
            E::Expired { .. } => "HAND_EXPIRED",
            E::BeforeLastEvent { .. } => "BEFORE_LAST_EVENT",
            _ => return None,
        })
    }

    /// The field of the command the refusal is about, as the API names it (`wagers.ante`,
    /// `action.bet.multiple`, `void.reason`); `None` for a refusal about the hand as a whole.
    pub fn field(&self) -> Option<FieldPath> {
        use RuleError as E;
        let wagers = || FieldPath::new("wagers");
        Some(match self {
            E::NotThisGame { bet, .. }
            | E::DuplicateWager { bet }
            | E::OutsideLimit { bet, .. }
            | E::FixedStake { bet, .. } => wagers().key(bet.id()),
            E::MissingWager { .. } | E::NoWager => wagers(),
            E::ActionNotInGame { .. } | E::NotLegalNow { .. } => FieldPath::new("action"),
            E::BadMultiple { .. } => FieldPath::dotted("action.bet.multiple"),
            E::BadSetting(_) => FieldPath::dotted("action.set_hand.low"),
            E::VoidRefused(_) | E::TooEarly { .. } => FieldPath::new("void"),
            E::MissingField(field) => field.clone(),
            E::BeforeLastEvent { .. } => FieldPath::new("at"),
            E::DiceUsedUp { .. } => FieldPath::new("dice"),
            E::NotOpened
            | E::AlreadyOpened
            | E::Ended(_)
            | E::Expired { .. }
            | E::Config(_)
            | E::Overflow
            | E::Inconsistent(_) => return None,
        })
    }

    /// What is wrong, without the field: the message is `field: description` (or the description
    /// alone when there is no field).
    pub fn description(&self) -> String {
        Description(self).to_string()
    }
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.field() {
            Some(field) => write!(f, "{field}: {}", Description(self)),
            None => Description(self).fmt(f),
        }
    }
}

/// A refusal's description, written without allocating.
struct Description<'a>(&'a RuleError);

impl fmt::Display for Description<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use RuleError as E;
        match self.0 {
            E::NotOpened => f.write_str("the hand has not been opened"),
            E::AlreadyOpened => f.write_str("the hand is already open"),
            E::Ended(status) => write!(
                f,
                "the hand has ended ({status:?}): no further decision is taken"
            ),
            E::NotThisGame { game, bet } => write!(f, "{bet} is not a bet of {game}"),
            E::MissingWager { bet } => write!(f, "the {bet} wager is required"),
            E::DuplicateWager { .. } => f.write_str("placed more than once"),
            E::OutsideLimit {
                amount,
                min,
                max,
                minor_digits,
                ..
            } => write!(
                f,
                "{} is outside the table limit {} to {}",
                amount.display(*minor_digits),
                min.display(*minor_digits),
                max.display(*minor_digits)
            ),
            E::FixedStake {
                amount,
                required,
                minor_digits,
                ..
            } => write!(
                f,
                "must be exactly {} or absent, got {}",
                required.display(*minor_digits),
                amount.display(*minor_digits)
            ),
            E::NoWager => f.write_str("at least one bet box must be staked"),
            E::ActionNotInGame { game, action } => {
                write!(f, "{action} is not a decision of {game}")
            }
            E::NotLegalNow { action, why } => write!(f, "{action} is not legal now: {why}"),
            E::BadMultiple { multiple, allowed } => write!(
                f,
                "{multiple} is not allowed; allowed multiples of the ante are {allowed:?}"
            ),
            E::BadSetting(refused) => refused.fmt(f),
            E::VoidRefused(refusal) => refusal.fmt(f),
            E::MissingField(_) => f.write_str("required"),
            E::TooEarly {
                opened,
                deadline,
                at,
            } => write!(
                f,
                "the hand opened at {opened} ms is not incomplete at {at} ms: its period ends at {deadline} ms, and it is incomplete only after that"
            ),
            E::Expired {
                opened,
                deadline,
                at,
            } => write!(
                f,
                "the hand opened at {opened} ms is incomplete since {deadline} ms: it takes no decision at {at} ms, and ends by the incomplete-game rule"
            ),
            E::BeforeLastEvent { at, last } => write!(
                f,
                "{at} ms is earlier than the hand's last recorded event, at {last} ms"
            ),
            E::Config(misfit) => write!(f, "the configuration does not fit this game: {misfit}"),
            E::Overflow => f.write_str("an amount overflowed"),
            E::Inconsistent(what) => write!(f, "event does not follow from the hand: {what}"),
            E::DiceUsedUp { given } => write!(
                f,
                "the {given} dice given are used up; the round needs more"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::parse_exact;
    use crate::config::ConfigId;
    use crate::house_way::SettingError;

    /// One refusal of every kind, with the message the API has always shown for it.
    fn every_refusal() -> Vec<(RuleError, &'static str)> {
        use RuleError as E;
        let cards = parse_exact::<7>("Ac Kd 9h 7s 5c 3d 2h").unwrap();
        vec![
            (E::NotOpened, "the hand has not been opened"),
            (E::AlreadyOpened, "the hand is already open"),
            (
                E::Ended(Status::Settled),
                "the hand has ended (Settled): no further decision is taken",
            ),
            (
                E::NotThisGame {
                    game: GameId::Nutz,
                    bet: BetId::Ante,
                },
                "wagers.ante: ante is not a bet of nutz",
            ),
            (
                E::MissingWager { bet: BetId::Main },
                "wagers: the main wager is required",
            ),
            (
                E::DuplicateWager { bet: BetId::Bonus },
                "wagers.bonus: placed more than once",
            ),
            (
                E::OutsideLimit {
                    bet: BetId::Ante,
                    amount: Money(1),
                    min: Money(100),
                    max: Money(50_000),
                    minor_digits: 2,
                },
                "wagers.ante: 0.01 is outside the table limit 1.00 to 500.00",
            ),
            (
                E::FixedStake {
                    bet: BetId::Bonus,
                    amount: Money(200),
                    required: Money(100),
                    minor_digits: 2,
                },
                "wagers.bonus: must be exactly 1.00 or absent, got 2.00",
            ),
            (E::NoWager, "wagers: at least one bet box must be staked"),
            (
                E::ActionNotInGame {
                    game: GameId::CaribbeanStud,
                    action: "shake",
                },
                "action: shake is not a decision of caribbean_stud",
            ),
            (
                E::NotLegalNow {
                    action: "shake",
                    why: "the round is over",
                },
                "action: shake is not legal now: the round is over",
            ),
            (
                E::BadMultiple {
                    multiple: 4,
                    allowed: vec![1, 2, 3],
                },
                "action.bet.multiple: 4 is not allowed; allowed multiples of the ante are [1, 2, 3]",
            ),
            (
                E::BadSetting(SettingRefused::NotTheHand(SettingError::NotTheHand(cards[0]))),
                "action.set_hand.low: Ac is not one of the player's cards (or is named twice)",
            ),
            (
                E::BadSetting(SettingRefused::Fouls {
                    low: [cards[0], cards[1]],
                    high: [cards[2], cards[3], cards[4], cards[5], cards[6]],
                }),
                "action.set_hand.low: Ac Kd low against 9h 7s 5c 3d 2h high fouls: the high hand must outrank the low hand",
            ),
            (
                E::VoidRefused(VoidRefusal::MalfunctionNotInPlay(Status::Pending)),
                "void: a malfunction void needs a hand in progress or settled; this one is Pending",
            ),
            (
                E::VoidRefused(VoidRefusal::IncompleteNotInProgress(Status::Voided)),
                "void: only a hand in progress is void as incomplete; this one is Voided",
            ),
            (
                E::VoidRefused(VoidRefusal::ForfeitNotThisGame(GameId::Nutz)),
                "void: a conduct forfeit applies to Caribbean Stud only",
            ),
            (
                E::VoidRefused(VoidRefusal::ForfeitNotInProgress(Status::Settled)),
                "void: a conduct forfeit applies to a hand in progress; this one is Settled",
            ),
            (
                E::MissingField(FieldPath::dotted("void.reason")),
                "void.reason: required",
            ),
            (
                E::TooEarly {
                    opened: 1,
                    deadline: 2,
                    at: 3,
                },
                "void: the hand opened at 1 ms is not incomplete at 3 ms: its period ends at 2 ms, and it is incomplete only after that",
            ),
            (
                E::Expired {
                    opened: 1,
                    deadline: 2,
                    at: 3,
                },
                "the hand opened at 1 ms is incomplete since 2 ms: it takes no decision at 3 ms, and ends by the incomplete-game rule",
            ),
            (
                E::BeforeLastEvent { at: 5, last: 6 },
                "at: 5 ms is earlier than the hand's last recorded event, at 6 ms",
            ),
            (
                E::Config(ConfigMisfit::WrongRules(WrongRules {
                    config: ConfigId([0xab; 32]),
                    found: GameId::Nutz,
                    expected: GameId::MississippiStud,
                })),
                "the configuration does not fit this game: configuration abababababababababababababababababababababababababababababababab is for nutz, not mississippi_stud",
            ),
            (
                E::Config(ConfigMisfit::UnknownHouseWay("x".into())),
                "the configuration does not fit this game: unknown house way `x`",
            ),
            (
                E::Config(ConfigMisfit::NotFiveCards(Seat::Dealer)),
                "the configuration does not fit this game: dealer cards",
            ),
            (
                E::Config(ConfigMisfit::NotSevenCards(Seat::Player)),
                "the configuration does not fit this game: player has not seven cards",
            ),
            (
                E::Config(ConfigMisfit::NotCompleted(GameId::FortunePaiGow)),
                "the configuration does not fit this game: the incomplete-game rule does not complete a fortune_pai_gow hand",
            ),
            (E::Overflow, "an amount overflowed"),
            (
                E::Inconsistent("opened twice".into()),
                "event does not follow from the hand: opened twice",
            ),
            (
                E::DiceUsedUp { given: 4 },
                "dice: the 4 dice given are used up; the round needs more",
            ),
        ]
    }

    #[test]
    fn a_message_is_its_field_then_its_description() {
        for (refusal, message) in every_refusal() {
            assert_eq!(refusal.to_string(), message);
            match refusal.field() {
                Some(field) => assert_eq!(
                    message,
                    format!("{field}: {}", refusal.description()),
                    "{refusal:?}"
                ),
                None => assert_eq!(message, refusal.description(), "{refusal:?}"),
            }
        }
    }

    #[test]
    fn refusals_about_the_whole_hand_name_no_field() {
        for (refusal, _) in every_refusal() {
            let whole_hand = matches!(
                refusal,
                RuleError::NotOpened
                    | RuleError::AlreadyOpened
                    | RuleError::Ended(_)
                    | RuleError::Expired { .. }
                    | RuleError::Config(_)
                    | RuleError::Overflow
                    | RuleError::Inconsistent(_)
            );
            assert_eq!(refusal.field().is_none(), whole_hand, "{refusal:?}");
        }
        assert_eq!(
            RuleError::DuplicateWager { bet: BetId::Ante }
                .field()
                .map(|f| f.prefixed(FieldPath::new("open")).to_string()),
            Some("open.wagers.ante".to_string())
        );
    }
}
