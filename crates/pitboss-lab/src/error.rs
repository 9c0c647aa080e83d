//! Why a lab computation gave no result, as data: a stopped run is [`LabError::Stopped`] (match it
//! rather than compare messages), a configuration the lab cannot analyse names what is wrong with
//! it, and an error from the engine keeps its own type. Every message is the one the lab has
//! always written.

use pitboss_engine::config::ConfigError;
use pitboss_engine::game::GameId;
use pitboss_engine::games::{Action, RuleError};
use pitboss_engine::money::{Money, MoneyOverflow};

use crate::strategy::{Strategy, UnknownStrategy};

/// Why a lab computation (an exact sheet, a strategy's tables, a simulation) failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LabError {
    /// A stream of bits to test that cannot be read as the plan asks.
    #[error("input: {problem}")]
    Input {
        /// What went wrong, and how far the stream was read.
        problem: String,
    },
    /// The run was asked to stop ([`crate::Run::stop`]) before the end: nobody waits for the result.
    #[error("{}", crate::STOPPED)]
    Stopped,
    /// Stored tables that do not read back ([`crate::advice::StrategyTables::from_bytes`]).
    #[error("the stored strategy tables do not read: {reason}")]
    Stored {
        /// What is wrong with them.
        reason: String,
    },
    /// The configuration is another game's.
    #[error(transparent)]
    WrongGame(#[from] pitboss_engine::config::WrongRules),
    /// A Nutz computation was given another game's configuration.
    #[error("not a Nutz configuration")]
    NotNutz {
        /// The configuration's game.
        game: GameId,
    },
    /// The configuration is one the lab cannot analyse: its tables would not fit the budget, or a
    /// row cannot be counted ([`crate::analysable::check`], which names the field).
    #[error(transparent)]
    NotAnalysable(#[from] ConfigError),
    /// A fixed-amount row on a bet whose return the lab computes per unit staked.
    #[error("{}", fixed_amount_row(*.game))]
    FixedAmountRow {
        /// The game (Caribbean Stud's ante or raise, Mississippi Stud's ante and streets).
        game: GameId,
        /// The row's id (`ante` for Caribbean Stud's ante win).
        row: String,
    },
    /// A bonus row whose payout is not a whole multiple of the fixed stake.
    #[error(
        "bonus row {row} pays {} for a stake of {}: not a whole multiple",
        payout.display(*minor_digits),
        stake.display(*minor_digits)
    )]
    BonusNotWholeMultiple {
        /// The row's id.
        row: String,
        /// What it pays for the stake.
        payout: Money,
        /// The bonus's fixed stake.
        stake: Money,
        /// The currency's minor digits, to show the amounts.
        minor_digits: u8,
    },
    /// An amount too large to represent.
    #[error(transparent)]
    Overflow(#[from] MoneyOverflow),
    /// Fortune Pai Gow: a house way the engine does not know.
    #[error("unknown house way `{0}`")]
    UnknownHouseWay(String),
    /// A strategy name that is neither `optimal` nor `always`.
    #[error(transparent)]
    UnknownStrategy(#[from] UnknownStrategy),
    /// A strategy the game cannot be played with ([`crate::strategy::supports`]).
    #[error(
        "{game} has one way to play (the house way, or shaking): strategy {strategy} does not apply"
    )]
    UnsupportedStrategy { game: GameId, strategy: Strategy },
    /// The strategy has no decision for a hand that awaits one.
    #[error("the strategy has no decision for this hand")]
    NoAdvice,
    /// The strategy chose an action the hand does not allow now.
    #[error("the strategy chose {action:?}, not legal now ({legal:?})")]
    IllegalChoice { action: Action, legal: Vec<Action> },
    /// The engine refused a command or an event of a simulated hand.
    #[error("{source}")]
    Rule {
        /// The hand's number in its run (its seed is [`crate::simulate`]'s `hand_seed(seed, hand)`).
        hand: u64,
        source: RuleError,
    },
    /// The engine refused a command of a simulated table's round.
    #[error("round {round}: {source}")]
    Round {
        /// The round's number in its run (its seed is the run's hand seed of that number).
        round: u64,
        source: pitboss_engine::round::RoundError,
    },
    /// A simulated round in which no place in play could decide.
    #[error("round {round}: no place in play can decide")]
    Stuck {
        /// The round's number in its run.
        round: u64,
    },
    /// A simulated hand ended without a settlement.
    #[error("hand {hand} ended unsettled")]
    Unsettled {
        /// The hand's number in its run.
        hand: u64,
    },
    /// A worker thread panicked.
    #[error("a worker panicked")]
    WorkerPanicked,
}

fn fixed_amount_row(game: GameId) -> &'static str {
    match game {
        GameId::CaribbeanStud => "fixed-amount rows on the ante or raise are not analysed (the return would depend on the stake)",
        _ => "fixed-amount rows on the ante and streets are not analysed",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitboss_engine::config::{GameConfig, NutzRules};

    #[test]
    fn the_messages_are_the_ones_written_before() {
        assert_eq!(
            LabError::Stopped.to_string(),
            "stopped before the end: nobody waits for the result any more"
        );
        let config = GameConfig::default_for(GameId::MississippiStud);
        let engine = config.rules_of::<NutzRules>().unwrap_err();
        let ours = LabError::from(engine);
        assert_eq!(ours.to_string(), engine.to_string());
        assert_eq!(ours, LabError::WrongGame(engine));
        assert_eq!(
            LabError::Overflow(MoneyOverflow).to_string(),
            "money arithmetic overflowed"
        );
        assert_eq!(
            LabError::BonusNotWholeMultiple {
                row: "flush".into(),
                payout: Money(1050),
                stake: Money(100),
                minor_digits: 2
            }
            .to_string(),
            "bonus row flush pays 10.50 for a stake of 1.00: not a whole multiple"
        );
        assert_eq!(
            LabError::FixedAmountRow {
                game: GameId::CaribbeanStud,
                row: "ante".into()
            }
            .to_string(),
            "fixed-amount rows on the ante or raise are not analysed (the return would depend on the stake)"
        );
        assert_eq!(
            LabError::FixedAmountRow {
                game: GameId::MississippiStud,
                row: "pair".into()
            }
            .to_string(),
            "fixed-amount rows on the ante and streets are not analysed"
        );
        assert_eq!(
            LabError::UnsupportedStrategy {
                game: GameId::Nutz,
                strategy: Strategy::Always
            }
            .to_string(),
            format!("{} has one way to play (the house way, or shaking): strategy always does not apply", GameId::Nutz)
        );
        assert_eq!(
            LabError::IllegalChoice {
                action: Action::Raise,
                legal: vec![Action::Fold]
            }
            .to_string(),
            "the strategy chose Raise, not legal now ([Fold])"
        );
        assert_eq!(
            LabError::Rule {
                hand: 7,
                source: RuleError::Overflow
            }
            .to_string(),
            RuleError::Overflow.to_string()
        );
        assert_eq!(
            "sometimes".parse::<Strategy>().unwrap_err().to_string(),
            "unknown strategy \"sometimes\": optimal, or always (never fold)"
        );
    }
}
