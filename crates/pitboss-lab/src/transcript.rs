//! Vendor transcripts: a hand played by another system — its game and configuration, either a seed
//! (dealt by our derivation) or the cards and dice exactly as the other system dealt them, the
//! wagers, the decisions, and optionally the payouts it claimed — run through the engine's own
//! commands and settlement. The result is the deal and the settlement as JSON, and the list of
//! differences from the claimed payouts. A transcript that breaks the rules (an illegal decision, a
//! stake off limits, a wrong number of cards or dice) is refused with the reason.
//!
//! The format is in `docs/transcripts.md`. Money is integer minor units throughout. Pure: the
//! caller reads the files and prints.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{json, Value};

use pitboss_engine::card::{Card, CardParseError, Deck};
use pitboss_engine::config::{ConfigError, GameConfig};
use pitboss_engine::game::{GameId, Material};
use pitboss_engine::games::{
    Action, Command, Event, Hand, OpenHand, RuleError, Shaker, Status, Timestamp,
};
use pitboss_engine::money::Money;
use pitboss_engine::rng::{Seed, SeedError};
use pitboss_engine::settlement::{BetId, Settlement, UnknownBet, Wager};

/// The longest transcript text read (JSON, or one line of JSON Lines): 60 KiB.
pub const MAX_TEXT: usize = 60 * 1024;

/// A transcript as written by the other system.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Transcript {
    /// The other system's reference for the hand (echoed in the report).
    #[serde(default)]
    pub id: Option<String>,
    /// The game.
    pub game: GameId,
    /// The configuration as JSON (`docs/games.md`); the game's default when absent.
    #[serde(default)]
    pub config: Option<Value>,
    /// A 64-hex-digit seed, dealt by our derivation (`docs/rng.md`).
    #[serde(default)]
    pub seed: Option<String>,
    /// The cards as the other system dealt them, by seat (`player`, `dealer`, `community`), each
    /// seat's cards in deal order.
    #[serde(default)]
    pub cards: Option<BTreeMap<String, Vec<String>>>,
    /// Nutz: the dice each shake rolled, in order (five on the first shake, then only the dice not
    /// held, in position order).
    #[serde(default)]
    pub dice: Option<Vec<Vec<u8>>>,
    /// Stakes by bet id, in minor units.
    pub wagers: BTreeMap<String, u64>,
    /// The player's decisions in order: `bet 1|2|3`, `max_bet_all`, `fold`, `raise`,
    /// `set_hand As Kd` (the two low cards), `auto_set`, `shake`, `shake dealer`.
    #[serde(default)]
    pub decisions: Vec<String>,
    /// What the other system paid.
    #[serde(default)]
    pub claimed: Option<Claimed>,
}

/// The payouts another system claims for a hand (stake included where returned).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claimed {
    /// Payout by bet id, in minor units.
    #[serde(default)]
    pub payouts: BTreeMap<String, u64>,
    /// The hand's total payout, in minor units.
    #[serde(default)]
    pub total_paid: Option<u64>,
}

/// Why a transcript cannot be checked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The text is not a transcript (JSON, or its fields), in the parser's words.
    #[error("not a transcript: {0}")]
    Format(String),
    /// The configuration given is refused.
    #[error("config: {0}")]
    Config(#[from] ConfigError),
    /// The configuration given is another game's.
    #[error("config: the configuration is for {config}, not {game}")]
    ConfigOfGame { config: GameId, game: GameId },
    /// The seed is not 64 hexadecimal digits.
    #[error("seed: {0}")]
    Seed(#[from] SeedError),
    /// Neither or more than one of seed and cards (or dice) was given.
    #[error("give exactly one of seed or {material}")]
    SeedOrMaterial {
        /// `cards` or `dice`, as the game is played.
        material: &'static str,
    },
    /// Cards were given for a dice game.
    #[error("cards: {game} is played with dice")]
    CardsForDice { game: GameId },
    /// A seat the game does not have.
    #[error("cards.{seat}: {game} has no such seat (its seats: {})", known.join(", "))]
    NoSuchSeat {
        seat: String,
        game: GameId,
        known: Vec<&'static str>,
    },
    /// A seat given more or fewer cards than the game deals it.
    #[error("cards.{seat}: {given} cards given, {game} deals {deals} there")]
    CardCount {
        seat: &'static str,
        given: usize,
        game: GameId,
        deals: usize,
    },
    /// A card that does not read.
    #[error("cards.{seat}: {problem}")]
    Card {
        seat: &'static str,
        problem: CardParseError,
    },
    /// The joker in a game played without it.
    #[error("cards.{seat}: {game} is played without the joker")]
    Joker { seat: &'static str, game: GameId },
    /// One card given twice.
    #[error("cards.{seat}: {card} is dealt twice")]
    DealtTwice { seat: &'static str, card: Card },
    /// A wager on a bet no game has.
    #[error("wagers: {0}")]
    Wagers(#[from] UnknownBet),
    /// The engine refuses the opening.
    #[error("the opening is refused: {0}")]
    Open(RuleError),
    /// A decision that does not read, or that the engine refuses.
    #[error("decision {index} ({text:?}): {why}")]
    Decision {
        /// From 1.
        index: usize,
        text: String,
        why: DecisionRefused,
    },
    /// The decisions end before the hand does.
    #[error("the decisions end before the hand does; legal next: {}", legal.join(", "))]
    Unfinished {
        /// The decisions legal next, in the transcript's grammar.
        legal: Vec<String>,
    },
    /// The hand ended without a settlement (a void).
    #[error("the decisions end before the hand does; legal next: the hand has no settlement")]
    NoSettlement,
    /// A given die that is not a face.
    #[error("dice: shake {shake}: {face} is not a die face (1 to 6)")]
    NotADieFace { shake: usize, face: u8 },
    /// More or fewer shakes than the round took.
    #[error("dice: {given} shakes given, the round took {took}")]
    ShakeCount { given: usize, took: usize },
    /// A shake given more or fewer dice than it rolled.
    #[error("dice: shake {shake}: {given} dice given, {rolled} rolled (the others were held)")]
    ShakeDice {
        shake: usize,
        given: usize,
        rolled: usize,
    },
}

/// Why a decision of a transcript is refused (the `why` of [`Refusal::Decision`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecisionRefused {
    /// Its text is not a decision.
    #[error(transparent)]
    Unreadable(#[from] UnreadableDecision),
    /// The engine refuses it at this point of the hand.
    #[error(transparent)]
    Rule(#[from] RuleError),
}

/// One difference between the claimed payouts and ours.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// The bet, or `total_paid`.
    pub what: String,
    /// What the other system claimed (`None`: it claimed nothing for a line that pays).
    pub claimed: Option<u64>,
    /// What our settlement pays (`None`: no such line).
    pub ours: Option<u64>,
}

/// The result of checking one transcript.
#[derive(Clone, Debug)]
pub struct Checked {
    /// The transcript's id.
    pub id: Option<String>,
    /// The hand as our engine played it.
    pub hand: Hand,
    /// Our settlement.
    pub settlement: Settlement,
    /// Every event of the hand, in order.
    pub events: Vec<Event>,
    /// Differences from the claimed payouts (empty: none, or nothing claimed).
    pub differences: Vec<Difference>,
    /// Whether payouts were claimed at all.
    pub claimed: bool,
}

/// Parses one transcript.
pub fn parse(text: &str) -> Result<Transcript, Refusal> {
    serde_json::from_str(text).map_err(|e| Refusal::Format(e.to_string()))
}

/// Why a decision's text is not a decision.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UnreadableDecision {
    /// `bet X` where X is not a number.
    #[error("`{0}` is not a multiple")]
    Multiple(String),
    /// `set_hand` with a card that does not read.
    #[error(transparent)]
    Card(#[from] CardParseError),
    /// None of the grammar's words.
    #[error(
        "not a decision: bet N, max_bet_all, fold, raise, set_hand C1 C2, auto_set, shake [dealer]"
    )]
    Unknown,
}

pub(crate) fn parse_action(text: &str) -> Result<Action, UnreadableDecision> {
    let words: Vec<&str> = text.split_whitespace().collect();
    Ok(match words.as_slice() {
        ["bet", multiple] => Action::Bet {
            multiple: multiple
                .parse()
                .map_err(|_| UnreadableDecision::Multiple(multiple.to_string()))?,
        },
        ["max_bet_all"] => Action::MaxBetAll,
        ["fold"] => Action::Fold,
        ["raise"] => Action::Raise,
        ["auto_set"] => Action::AutoSet,
        ["set_hand", a, b] => Action::SetHand {
            low: [a.parse()?, b.parse()?],
        },
        ["shake"] | ["shake", "player"] => Action::Shake { by: Shaker::Player },
        ["shake", "dealer"] => Action::Shake { by: Shaker::Dealer },
        _ => return Err(UnreadableDecision::Unknown),
    })
}

/// A decision in the transcript grammar (the inverse of `parse_action`).
pub(crate) fn action_text(action: &Action) -> String {
    match action {
        Action::Bet { multiple } => format!("bet {multiple}"),
        Action::SetHand { low } => format!("set_hand {} {}", low[0], low[1]),
        Action::Shake { by: Shaker::Dealer } => "shake dealer".into(),
        other => other.name().into(),
    }
}

/// Why one given card cannot be dealt (the seat is named by the caller).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum BadCard {
    /// It does not read.
    Unreadable(CardParseError),
    /// The joker, in a game played without it.
    Joker,
}

/// Reads one given card of a game dealt from `kind`.
pub(crate) fn read_card(text: &str, kind: Deck) -> Result<Card, BadCard> {
    let card: Card = text.parse().map_err(BadCard::Unreadable)?;
    if card.is_joker() && kind == Deck::Standard52 {
        return Err(BadCard::Joker);
    }
    Ok(card)
}

/// A one-player hand's deck of `kind` with `placed` (deck position, card; no card twice) and the
/// cards no seat received filling the other positions in the canonical order.
pub(crate) fn fill_deck(kind: Deck, placed: &[(usize, Card)]) -> Vec<Card> {
    let mut deck: Vec<Option<Card>> = vec![None; kind.len()];
    let mut used = std::collections::HashSet::new();
    for &(position, card) in placed {
        if let Some(slot) = deck.get_mut(position) {
            *slot = Some(card);
            used.insert(card);
        }
    }
    let mut rest = (0..kind.len() as u8)
        .filter_map(Card::from_index)
        .filter(|c| !used.contains(c));
    deck.into_iter()
        .map(|slot| slot.or_else(|| rest.next()))
        .collect::<Option<Vec<Card>>>()
        .unwrap_or_default()
}

/// The deck positions of the given cards: each seat of the game's layout must be given in full.
fn deck_of(game: GameId, seats: &BTreeMap<String, Vec<String>>) -> Result<Vec<Card>, Refusal> {
    let Material::Cards(kind) = game.material() else {
        return Err(Refusal::CardsForDice { game });
    };
    let layout = game.layout();
    for seat in seats.keys() {
        if !layout.iter().any(|l| l.seat.id() == seat) {
            return Err(Refusal::NoSuchSeat {
                seat: seat.clone(),
                game,
                known: layout.iter().map(|l| l.seat.id()).collect(),
            });
        }
    }
    let mut placed = Vec::new();
    let mut used = std::collections::HashSet::new();
    for l in layout {
        let seat = l.seat.id();
        let given = seats.get(seat).map_or(&[][..], Vec::as_slice);
        if given.len() != l.positions.len() {
            return Err(Refusal::CardCount {
                seat,
                given: given.len(),
                game,
                deals: l.positions.len(),
            });
        }
        for (position, text) in l.positions.clone().zip(given) {
            let card = read_card(text, kind).map_err(|bad| match bad {
                BadCard::Unreadable(problem) => Refusal::Card { seat, problem },
                BadCard::Joker => Refusal::Joker { seat, game },
            })?;
            if !used.insert(card) {
                return Err(Refusal::DealtTwice { seat, card });
            }
            placed.push((position, card));
        }
    }
    Ok(fill_deck(kind, &placed))
}

/// The configuration a transcript names (the game's default when absent), checked and of its game.
pub(crate) fn configured(game: GameId, config: Option<&Value>) -> Result<Arc<GameConfig>, Refusal> {
    let config = match config {
        Some(value) => {
            let config = GameConfig::from_json(value.to_string().as_bytes())?;
            config.check_limits()?;
            config
        }
        None => GameConfig::default_for(game),
    };
    if config.game != game {
        return Err(Refusal::ConfigOfGame {
            config: config.game,
            game,
        });
    }
    Ok(Arc::new(config))
}

/// Where a transcript's cards or dice come from.
pub(crate) enum Source<'a> {
    /// Dealt by our derivation.
    Seed(Seed),
    /// The cards as the other system dealt them, by seat.
    Cards(&'a BTreeMap<String, Vec<String>>),
    /// The dice as the other system rolled them, by shake (every face a die's).
    Dice(&'a [Vec<u8>]),
}

/// Exactly one of a seed, cards (card games) or dice (Nutz).
pub(crate) fn source<'a>(
    game: GameId,
    seed: Option<&str>,
    cards: Option<&'a BTreeMap<String, Vec<String>>>,
    dice: Option<&'a [Vec<u8>]>,
) -> Result<Source<'a>, Refusal> {
    let dice_game = matches!(game.material(), Material::Dice { .. });
    match (seed, cards, dice) {
        (Some(hex), None, None) => Ok(Source::Seed(Seed::from_hex(hex)?)),
        (None, Some(cards), None) if !dice_game => Ok(Source::Cards(cards)),
        (None, None, Some(shakes)) if dice_game => {
            for (k, shake) in shakes.iter().enumerate() {
                if let Some(face) = shake.iter().find(|f| !(1..=6).contains(*f)) {
                    return Err(Refusal::NotADieFace {
                        shake: k + 1,
                        face: *face,
                    });
                }
            }
            Ok(Source::Dice(shakes))
        }
        _ => Err(Refusal::SeedOrMaterial {
            material: if dice_game { "dice" } else { "cards" },
        }),
    }
}

/// The wagers of a transcript, by bet id.
pub(crate) fn wagers_of(wagers: &BTreeMap<String, u64>) -> Result<Vec<Wager>, Refusal> {
    wagers
        .iter()
        .map(|(bet, &amount)| {
            Ok(Wager {
                bet: bet.parse::<BetId>()?,
                amount: Money(amount),
            })
        })
        .collect()
}

/// The decision a transcript's `index`-th decision (from 1) reads as, or its refusal.
pub(crate) fn decision(index: usize, text: &str) -> Result<Action, Refusal> {
    parse_action(text).map_err(|e| Refusal::Decision {
        index,
        text: text.to_string(),
        why: e.into(),
    })
}

/// The refusal of the hand's legal decisions running out before its end.
pub(crate) fn unfinished(hand: &Hand) -> Refusal {
    let legal: Vec<String> = hand
        .legal_actions()
        .iter()
        .filter(|a| !matches!(a, Action::SetHand { .. }))
        .map(action_text)
        .collect();
    Refusal::Unfinished { legal }
}

/// A hand played to its end: the hand, every event, the settlement.
pub(crate) struct Played {
    pub(crate) hand: Hand,
    pub(crate) events: Vec<Event>,
    pub(crate) settlement: Settlement,
}

/// Plays `hand` (not yet opened): opened by `player` with `wagers`, then each of `decisions`; it
/// must end settled, and given `dice` must each be used as given.
pub(crate) fn play(
    hand: Hand,
    player: &str,
    wagers: &BTreeMap<String, u64>,
    decisions: &[String],
    dice: Option<&[Vec<u8>]>,
) -> Result<Played, Refusal> {
    let wagers = wagers_of(wagers)?;
    let mut events = Vec::new();
    let mut apply = |hand: Hand, command: &Command| -> Result<Hand, RuleError> {
        let mut hand = hand;
        for event in hand.decide(command)? {
            hand = hand.evolve(&event)?;
            events.push(event);
        }
        Ok(hand)
    };
    let mut hand = apply(
        hand,
        &Command::Open(OpenHand {
            table: "transcript".into(),
            player: player.into(),
            wagers,
            at: Timestamp(0),
            rebet_of: None,
        }),
    )
    .map_err(Refusal::Open)?;
    for (index, text) in decisions.iter().enumerate() {
        let action = decision(index + 1, text)?;
        hand = apply(
            hand,
            &Command::Act {
                action,
                at: Timestamp(0),
            },
        )
        .map_err(|e| Refusal::Decision {
            index: index + 1,
            text: text.clone(),
            why: e.into(),
        })?;
    }
    if hand.status() != Status::Settled {
        return Err(unfinished(&hand));
    }
    if let Some(shakes) = dice {
        check_dice(&hand, &events, shakes)?;
    }
    let settlement = hand.settlement().cloned().ok_or(Refusal::NoSettlement)?;
    Ok(Played {
        hand,
        events,
        settlement,
    })
}

/// Runs a transcript through the engine.
pub fn check(t: &Transcript) -> Result<Checked, Refusal> {
    let config = configured(t.game, t.config.as_ref())?;
    let source = source(
        t.game,
        t.seed.as_deref(),
        t.cards.as_ref(),
        t.dice.as_deref(),
    )?;
    let (hand, dice) = match source {
        Source::Seed(seed) => (Hand::new(seed, config), None),
        Source::Cards(cards) => (
            Hand::with_material(config, deck_of(t.game, cards)?, Vec::new()),
            None,
        ),
        Source::Dice(shakes) => (
            Hand::with_material(config, Vec::new(), shakes.concat()),
            Some(shakes),
        ),
    };
    let Played {
        hand,
        events,
        settlement,
    } = play(hand, "transcript", &t.wagers, &t.decisions, dice)?;
    let differences = t
        .claimed
        .as_ref()
        .map(|c| differences(c, &settlement))
        .unwrap_or_default();
    Ok(Checked {
        id: t.id.clone(),
        hand,
        settlement,
        events,
        differences,
        claimed: t.claimed.is_some(),
    })
}

/// Every given die was used, each shake rolling as many as the transcript says.
fn check_dice(hand: &Hand, events: &[Event], shakes: &[Vec<u8>]) -> Result<(), Refusal> {
    let rolled: Vec<usize> = events
        .iter()
        .filter_map(|e| match e {
            Event::DiceShaken { rolled, .. } => Some(rolled.len()),
            _ => None,
        })
        .collect();
    if rolled.len() != shakes.len() {
        return Err(Refusal::ShakeCount {
            given: shakes.len(),
            took: rolled.len(),
        });
    }
    for (k, (given, used)) in shakes.iter().zip(&rolled).enumerate() {
        if given.len() != *used {
            return Err(Refusal::ShakeDice {
                shake: k + 1,
                given: given.len(),
                rolled: *used,
            });
        }
    }
    debug_assert_eq!(hand.given_dice_used(), rolled.iter().sum::<usize>());
    Ok(())
}

pub(crate) fn differences(claimed: &Claimed, settlement: &Settlement) -> Vec<Difference> {
    let mut out = Vec::new();
    for (bet, &amount) in &claimed.payouts {
        let ours = settlement
            .lines
            .iter()
            .find(|l| l.bet.id() == bet)
            .map(|l| l.payout.0);
        if ours != Some(amount) {
            out.push(Difference {
                what: bet.clone(),
                claimed: Some(amount),
                ours,
            });
        }
    }
    for line in &settlement.lines {
        if line.payout.0 > 0 && !claimed.payouts.contains_key(line.bet.id()) {
            out.push(Difference {
                what: line.bet.id().to_string(),
                claimed: None,
                ours: Some(line.payout.0),
            });
        }
    }
    if let Some(total) = claimed.total_paid {
        if total != settlement.total_paid.0 {
            out.push(Difference {
                what: "total_paid".into(),
                claimed: Some(total),
                ours: Some(settlement.total_paid.0),
            });
        }
    }
    out
}

impl Checked {
    /// The deal (cards by seat, or the dice of each shake), the settlement line by line, the cap
    /// line and totals, and the differences, as JSON. Money in integer minor units.
    pub fn json(&self) -> Value {
        let deal = match self.hand.game().material() {
            Material::Cards(_) => {
                let seats: serde_json::Map<String, Value> = self
                    .hand
                    .game()
                    .layout()
                    .iter()
                    .map(|l| {
                        (
                            l.seat.id().to_string(),
                            cards_json(self.hand.seat_cards(l.seat)),
                        )
                    })
                    .collect();
                json!({ "cards": seats })
            }
            Material::Dice { .. } => json!({ "shakes": shakes_json(&self.events) }),
        };
        json!({
            "id": self.id,
            "game": self.hand.game().to_string(),
            "config_id": self.hand.config().id().to_string(),
            "deal": deal,
            "settlement": settlement_json(&self.settlement),
            "claimed": self.claimed,
            "differences": differences_json(&self.differences),
            "agrees": self.differences.is_empty(),
        })
    }
}

/// Cards as their names.
pub(crate) fn cards_json(cards: &[Card]) -> Value {
    json!(cards.iter().map(ToString::to_string).collect::<Vec<_>>())
}

/// The shakes a hand's events record: the positions rolled, the faces and the dice held after.
pub(crate) fn shakes_json(events: &[Event]) -> Vec<Value> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::DiceShaken {
                shake,
                rolled,
                faces,
                held,
                ..
            } => Some(json!({
                "shake": shake, "rolled_positions": rolled, "faces": faces, "held_after": held,
            })),
            _ => None,
        })
        .collect()
}

/// A settlement line by line, its cap line and totals. Money in integer minor units.
pub(crate) fn settlement_json(s: &Settlement) -> Value {
    json!({
        "lines": s.lines.iter().map(|l| json!({
            "bet": l.bet.id(),
            "stake": l.stake.0,
            "judged_on": l.judged_on,
            "rule": l.rule,
            "outcome": pitboss_engine::id_of(&l.outcome),
            "uncapped": l.uncapped.0,
            "cap": l.cap.map(|c| c.0),
            "cut": l.cut.0,
            "payout": l.payout.0,
        })).collect::<Vec<_>>(),
        "game_cap": s.game_cap.map(|c| json!({
            "total_before": c.total_before.0, "cap": c.cap.0, "cut": c.cut.0,
        })),
        "total_staked": s.total_staked.0,
        "total_paid": s.total_paid.0,
        "net": i64::try_from(s.net()).map_or_else(|_| json!(s.net().to_string()), |n| json!(n)),
    })
}

/// Differences from a claim.
pub(crate) fn differences_json(differences: &[Difference]) -> Vec<Value> {
    differences
        .iter()
        .map(|d| json!({ "what": d.what, "claimed": d.claimed, "ours": d.ours }))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unreadable_decisions_say_why_as_before() {
        let why = |text: &str| parse_action(text).unwrap_err().to_string();
        assert_eq!(why("bet x"), "`x` is not a multiple");
        assert_eq!(
            why("set_hand As Zz"),
            "Zz".parse::<Card>().unwrap_err().to_string()
        );
        assert_eq!(
            why("dance"),
            "not a decision: bet N, max_bet_all, fold, raise, set_hand C1 C2, auto_set, shake [dealer]"
        );
        assert_eq!(parse_action("bet 2"), Ok(Action::Bet { multiple: 2 }));
    }
}
