//! What a request id means on the floor: one request. Each operation that takes an id binds it to a
//! fingerprint — SHA-256 over the method, its target (the hand, table or configuration it acts on)
//! and its content, in a canonical encoding — which the ledger stores with the first result. A retry
//! (same id, same fingerprint) is answered from the log; the same id for another method, another
//! target or other content is refused naming the id.
//!
//! Records of an earlier release carry no fingerprint: they are held to what the log can still
//! show, the stream of their first entry (a hand's opening for an open, the same hand for a
//! decision or a void, the same operation stream for an operation).
//!
//! Owns the canonical encoding of each request; decides nothing and stores nothing itself.

use prost::Message;
use sha2::{Digest, Sha256};

use super::{Attribution, OpenRequest, OpenRoundRequest};
use crate::codec;
use pitboss_engine::config::ConfigId;
use pitboss_engine::games::{Action, VoidKind, VoidOrder};
use pitboss_engine::round::{RoundCommand, Shape};
use pitboss_ledger::{Fingerprint, RequestKey};

/// Tags the encoding, so that a later change of it cannot collide with this one.
const DOMAIN: &[u8] = b"pitboss.request.v1\0";

/// What an id can be bound to (the method names of the API).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Method {
    OpenHand,
    PlayHand,
    Act,
    VoidHand,
    PublishConfig,
    RecordTableMalfunction,
    RunSweep,
    Propose,
    OpenRound,
    RoundCommand,
}

impl Method {
    fn name(self) -> &'static str {
        match self {
            Method::OpenHand => "OpenHand",
            Method::PlayHand => "PlayHand",
            Method::Act => "Act",
            Method::VoidHand => "VoidHand",
            Method::PublishConfig => "PublishConfig",
            Method::RecordTableMalfunction => "RecordTableMalfunction",
            Method::RunSweep => "RunSweep",
            Method::Propose => "Propose",
            Method::OpenRound => "OpenRound",
            // A round's commands and voids alike: their content names which.
            Method::RoundCommand => "RoundCommand",
        }
    }
}

/// The canonical encoding being hashed: every part length-prefixed, so no two different requests
/// encode alike.
struct Canon(Sha256);

impl Canon {
    fn new(method: Method, target: &str) -> Canon {
        let mut canon = Canon(Sha256::new());
        canon.0.update(DOMAIN);
        canon.bytes(method.name().as_bytes()).text(target)
    }

    fn bytes(mut self, bytes: &[u8]) -> Canon {
        self.0.update((bytes.len() as u64).to_be_bytes());
        self.0.update(bytes);
        self
    }

    fn text(self, text: &str) -> Canon {
        self.bytes(text.as_bytes())
    }

    fn number(self, n: u64) -> Canon {
        self.bytes(&n.to_be_bytes())
    }

    fn optional(self, text: Option<&str>) -> Canon {
        match text {
            None => self.number(0),
            Some(text) => self.number(1).text(text),
        }
    }

    fn action(self, action: &Action) -> Canon {
        self.bytes(&codec::action_to(action).encode_to_vec())
    }

    fn seat(self, seat: Option<u8>) -> Canon {
        match seat {
            None => self.number(0),
            Some(seat) => self.number(1).number(u64::from(seat)),
        }
    }

    fn wagers(self, wagers: &[pitboss_engine::settlement::Wager]) -> Canon {
        let mut canon = self.number(wagers.len() as u64);
        for wager in wagers {
            canon = canon.text(wager.bet.id()).number(wager.amount.0);
        }
        canon
    }

    fn order(self, order: &VoidOrder) -> Canon {
        self.text(&codec::id_of(&order.kind))
            .text(&order.reason)
            .text(&order.recorded_by)
            .optional(order.approved_by.as_deref())
    }

    /// A round's command without its time (the floor's clock dates it, a retry's differs).
    fn round_command(self, command: &RoundCommand) -> Canon {
        match command {
            RoundCommand::Open(open) => self.text("open").text(&open.table),
            RoundCommand::Bet(bet) => {
                let canon = self
                    .text("bet")
                    .text(&bet.player)
                    .seat(bet.seat)
                    .wagers(&bet.wagers);
                // Only when sent, so that a bet without a seed keeps the bytes it always had.
                match bet.seed_digest {
                    Some(digest) => canon.text("player_seed").bytes(&digest),
                    None => canon,
                }
            }
            RoundCommand::Beacon(arrival) => self
                .text("beacon")
                .number(arrival.value.round)
                .bytes(&arrival.signature),
            RoundCommand::BeaconLate { why, .. } => self.text("beacon_late").text(why),
            RoundCommand::CloseBetting { shaker, .. } => {
                self.text("close_betting").optional(shaker.as_deref())
            }
            RoundCommand::Decide(decide) => self
                .text("decide")
                .text(&decide.player)
                .seat(decide.seat)
                .action(&decide.action),
            RoundCommand::CloseWindow(order) => self.text("close_window").order(order),
            RoundCommand::VoidRound(order) => self.text("void_round").order(order),
            RoundCommand::ChangeDealer(change) => self
                .text("change_dealer")
                .text(&change.dealer)
                .text(&change.reason),
            RoundCommand::Forfeit {
                player,
                seat,
                order,
            } => self.text("forfeit").text(player).seat(*seat).order(order),
        }
    }

    /// Who records it; the approver only when there is one (so a one-person request's bytes are
    /// those of a release without approvals, and its stored fingerprint still matches).
    fn attribution(self, who: &Attribution<'_>) -> Canon {
        let canon = self.text(who.by);
        match who.approved_by {
            None => canon,
            Some(approver) => canon.text(approver),
        }
    }

    fn key(self, id: &str) -> RequestKey {
        RequestKey {
            id: id.to_string(),
            fingerprint: Fingerprint(self.0.finalize().into()),
        }
    }
}

/// What a `PlayHand` does after the opening: the listed decisions, then (with `follow_advice`) the
/// strategy's advice to the end.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Script {
    /// Decisions in order.
    pub decisions: Vec<Action>,
    /// Then follow the strategy's advice until the hand ends.
    pub follow_advice: bool,
}

/// The key of an opening (`OpenHand`, or `PlayHand` with its script).
pub(super) fn open(method: Method, request: &OpenRequest, script: &Script) -> Option<RequestKey> {
    let id = request.request_id.as_deref()?;
    let mut canon = Canon::new(method, &format!("table/{}", request.table))
        .optional(request.game.map(|g| g.id()))
        .optional(request.config_id.map(|c| c.to_string()).as_deref())
        .text(&request.table)
        .text(&request.player)
        .wagers(&request.wagers);
    canon = canon
        .optional(request.rebet_of.as_deref())
        .number(script.decisions.len() as u64);
    for action in &script.decisions {
        canon = canon.action(action);
    }
    Some(
        canon
            .number(u64::from(script.follow_advice))
            .text(&request.actor)
            .key(id),
    )
}

/// The key of a round's opening (its time is the floor's clock, left out).
pub(super) fn open_round(id: &str, request: &OpenRoundRequest) -> RequestKey {
    let open = &request.open;
    let seats = match open.shape {
        Shape::Seats { seats } => u64::from(seats),
        Shape::SharedHand | Shape::OneShake => 0,
    };
    Canon::new(Method::OpenRound, &format!("table/{}", open.table))
        .text(request.game.id())
        .optional(request.config_id.map(|c| c.to_string()).as_deref())
        .text(&open.dealer)
        .optional(open.shoe.as_deref())
        .text(open.shape.name())
        .number(seats)
        .number(u64::from(open.max_players))
        .number(u64::from(open.seats_per_player))
        .number(open.decision_window_ms)
        .text(&request.actor)
        .key(id)
}

/// The key of commands on a round (one, or a batch recorded in one append; a void too), their
/// times left out.
pub(super) fn round_commands(
    id: &str,
    round_id: &str,
    commands: &[RoundCommand],
    actor: &str,
) -> RequestKey {
    let mut canon = Canon::new(Method::RoundCommand, &super::round_stream(round_id))
        .number(commands.len() as u64);
    for command in commands {
        canon = canon.round_command(command);
    }
    canon.text(actor).key(id)
}

/// The key of a decision on a hand.
pub(super) fn act(
    id: &str,
    hand_id: &str,
    action: &Action,
    expected_version: Option<u64>,
    actor: &str,
) -> RequestKey {
    let canon = Canon::new(Method::Act, &super::hand_stream(hand_id))
        .action(action)
        .text(actor);
    match expected_version {
        None => canon.number(0),
        Some(v) => canon.number(1).number(v),
    }
    .key(id)
}

/// The key of a void of one hand.
pub(super) fn void(
    id: &str,
    hand_id: &str,
    kind: VoidKind,
    reason: &str,
    who: &Attribution<'_>,
) -> RequestKey {
    Canon::new(Method::VoidHand, &super::hand_stream(hand_id))
        .text(&codec::id_of(&kind))
        .text(reason)
        .attribution(who)
        .key(id)
}

/// The key of a configuration's publication (its id is the hash of its content).
pub(super) fn publish(id: &str, config: &ConfigId, actor: &str) -> RequestKey {
    Canon::new(Method::PublishConfig, &format!("config/{config}"))
        .text(actor)
        .key(id)
}

/// The key of a table malfunction over a time range.
pub(super) fn table_malfunction(
    id: &str,
    table: &str,
    from_ms: u64,
    to_ms: u64,
    reason: &str,
    who: &Attribution<'_>,
) -> RequestKey {
    Canon::new(Method::RecordTableMalfunction, &format!("table/{table}"))
        .number(from_ms)
        .number(to_ms)
        .text(reason)
        .attribution(who)
        .key(id)
}

/// The key of a proposal (the two-person rule): its action's bytes and its proposer.
pub(super) fn propose(id: &str, action: &[u8], by: &str) -> RequestKey {
    Canon::new(Method::Propose, "proposal")
        .bytes(action)
        .text(by)
        .key(id)
}

/// The key of a 30-day sweep.
pub(super) fn sweep(id: &str, as_of_ms: u64, recorded_by: &str) -> RequestKey {
    Canon::new(Method::RunSweep, "floor")
        .number(as_of_ms)
        .text(recorded_by)
        .key(id)
}

/// Where the first entry of a request recorded without a fingerprint must be for the id to still
/// name this request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Target {
    /// The opening of some hand: position 0 of a `hand/` stream.
    NewHand,
    /// The opening of some round: position 0 of a `round/` stream.
    NewRound,
    /// A decision or a void of this hand: a later position of its stream.
    OnHand(String),
    /// This stream (an operation's, a configuration's).
    Stream(String),
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitboss_engine::game::GameId;
    use pitboss_engine::money::Money;
    use pitboss_engine::settlement::{BetId, Wager};

    fn opening() -> OpenRequest {
        OpenRequest {
            request_id: Some("r".into()),
            game: Some(GameId::MississippiStud),
            table: "T".into(),
            player: "P".into(),
            wagers: vec![Wager {
                bet: BetId::Ante,
                amount: Money(500),
            }],
            ..Default::default()
        }
    }

    /// Every part of a request changes its fingerprint; the id alone does not.
    #[test]
    fn every_part_of_a_request_is_bound() {
        let script = Script::default();
        let base = open(Method::OpenHand, &opening(), &script).unwrap();
        let same = open(Method::OpenHand, &opening(), &script).unwrap();
        assert_eq!(base, same);
        let other_id = OpenRequest {
            request_id: Some("s".into()),
            ..opening()
        };
        assert_eq!(
            open(Method::OpenHand, &other_id, &script)
                .unwrap()
                .fingerprint,
            base.fingerprint
        );
        let variants = [
            open(Method::PlayHand, &opening(), &script).unwrap(),
            open(
                Method::OpenHand,
                &OpenRequest {
                    table: "T2".into(),
                    ..opening()
                },
                &script,
            )
            .unwrap(),
            open(
                Method::OpenHand,
                &OpenRequest {
                    player: "Q".into(),
                    ..opening()
                },
                &script,
            )
            .unwrap(),
            open(
                Method::OpenHand,
                &OpenRequest {
                    wagers: vec![Wager {
                        bet: BetId::Ante,
                        amount: Money(501),
                    }],
                    ..opening()
                },
                &script,
            )
            .unwrap(),
            open(
                Method::OpenHand,
                &OpenRequest {
                    rebet_of: Some(String::new()),
                    ..opening()
                },
                &script,
            )
            .unwrap(),
            open(
                Method::OpenHand,
                &OpenRequest {
                    game: Some(GameId::CaribbeanStud),
                    ..opening()
                },
                &script,
            )
            .unwrap(),
            open(
                Method::PlayHand,
                &opening(),
                &Script {
                    decisions: vec![Action::Fold],
                    follow_advice: false,
                },
            )
            .unwrap(),
            open(
                Method::PlayHand,
                &opening(),
                &Script {
                    decisions: Vec::new(),
                    follow_advice: true,
                },
            )
            .unwrap(),
        ];
        for (i, variant) in variants.iter().enumerate() {
            assert_ne!(variant.fingerprint, base.fingerprint, "variant {i}");
        }
        let bet = Action::Bet { multiple: 1 };
        let a = act("r", "ab", &bet, None, "p");
        assert_ne!(a, act("r", "ac", &bet, None, "p"), "another hand");
        assert_ne!(
            a,
            act("r", "ab", &Action::Fold, None, "p"),
            "another action"
        );
        assert_ne!(a, act("r", "ab", &bet, Some(0), "p"), "an expected version");
        assert_ne!(a, act("r", "ab", &bet, None, "q"), "another principal");
        let by = |who| Attribution::by(who);
        assert_ne!(
            void("r", "ab", VoidKind::Malfunction, "x", &by("y")).fingerprint,
            void("r", "ab", VoidKind::Malfunction, "x", &by("z")).fingerprint
        );
        let approved = Attribution {
            by: "y",
            approved_by: Some("z"),
        };
        assert_ne!(
            void("r", "ab", VoidKind::Malfunction, "x", &by("y")).fingerprint,
            void("r", "ab", VoidKind::Malfunction, "x", &approved).fingerprint,
            "an approver"
        );
        assert_ne!(
            table_malfunction("r", "T", 1, 2, "x", &by("y")),
            table_malfunction("r", "T", 1, 3, "x", &by("y"))
        );
        assert_ne!(
            propose("r", b"a", "y").fingerprint,
            propose("r", b"b", "y").fingerprint
        );
        assert_ne!(sweep("r", 1, "y"), sweep("r", 2, "y"));
        assert!(open(
            Method::OpenHand,
            &OpenRequest {
                request_id: None,
                ..opening()
            },
            &script
        )
        .is_none());
    }
}
