//! Target `rpc`: protobuf bytes into every RPC handler, in-process — the services the server
//! mounts, over a real ledger in a temporary directory. Each input picks an RPC, builds a valid
//! request for it from the live state (hands in progress, the log's size, published
//! configurations), mutates its bytes, and decodes them as that RPC's request type exactly as
//! tonic would; bytes that do not decode are refused by the transport and go no further. Then:
//!
//! - the handler must not panic (caught per call, as the server's guard does) and must not answer
//!   `INTERNAL` or `UNKNOWN`;
//! - a refused call must not have written anything (the log's size unchanged);
//! - calls that only read never write;
//! - reads that take long (the lab, verification) are cut off after a moment: dropping the call is
//!   what a client's cancellation does, and the pools must go on serving.

use std::sync::Arc;
use std::time::Duration;

use pitboss::access::{Access, Caller};
use pitboss::floor::Floor;
use pitboss::proto;
use pitboss::proto::audit_server::Audit;
use pitboss::proto::lab_server::Lab;
use pitboss::proto::operations_server::Operations;
use pitboss::proto::play_server::Play;
use pitboss::service::audit::AuditService;
use pitboss::service::guard::catch_panic;
use pitboss::service::lab::LabService;
use pitboss::service::operations::OperationsService;
use pitboss::service::play::PlayService;
use pitboss::service::work::{Pool, Shutdown};
use pitboss_ledger::Ledger;
use prost::Message;
use tokio_stream::StreamExt;

use crate::mutate::{self, Gen};
use crate::Tally;

/// The services, as the server mounts them, and what the inputs have made.
pub struct Target {
    pub floor: Arc<Floor>,
    /// The principal every call is made as (every role), as the transport's layer would hand it
    /// over; and a second one, who approves the first one's proposals.
    admin: Caller,
    second: Caller,
    play: PlayService,
    audit: AuditService,
    ops: OperationsService,
    lab: LabService,
    /// Hands opened by earlier inputs (the newest few), so that later ones act on them.
    hands: Vec<String>,
    /// Configurations published by earlier inputs.
    configs: Vec<String>,
    /// Proposals made by earlier inputs (the newest few).
    proposals: Vec<String>,
    /// Rounds opened by earlier inputs (the newest few), with their games.
    rounds: Vec<(String, proto::Game)>,
    _dir: tempfile::TempDir,
}

/// A game's wagers: bet id and stake.
type Wagers = &'static [(&'static str, u64)];

const GAMES: [(proto::Game, Wagers); 4] = [
    (
        proto::Game::MississippiStud,
        &[("ante", 500), ("bonus", 100)],
    ),
    (
        proto::Game::FortunePaiGow,
        &[("main", 1000), ("fortune_bonus", 100)],
    ),
    (proto::Game::Nutz, &[("box_one_pair", 500)]),
    (proto::Game::CaribbeanStud, &[("ante", 500), ("bonus", 100)]),
];

/// The RPCs, by name; an input's first choice.
pub const RPCS: [&str; 44] = [
    "OpenHand",
    "Act",
    "GetHand",
    "PlayHand",
    "DeriveDeal",
    "ReplayHand",
    "VerifyLog",
    "GetHandEvents",
    "ListHands",
    "StreamEvents",
    "GetCheckpoint",
    "GetInclusionProof",
    "GetConsistencyProof",
    "GetHandBundle",
    "GetDisputePacket",
    "ExportHands",
    "PublishConfig",
    "ListConfigs",
    "VoidHand",
    "RecordTableMalfunction",
    "RunSweep",
    "GetParSheets",
    "Simulate",
    "TestRng",
    "Certify",
    "StreamRngWords",
    "StreamShuffles",
    "ApproveProposal",
    "RejectProposal",
    "ListProposals",
    "ReloadAccess",
    "RotateSigningKey",
    "AuthenticateSoftware",
    "GetReturns",
    "RecordInvestigation",
    "ListSignificantEvents",
    "OpenRound",
    "RoundCommand",
    "GetRound",
    "VoidRound",
    "ReplayRound",
    "ListRounds",
    "GetRoundBundle",
    "GetRoundDisputePacket",
];

/// What became of one call.
enum Outcome {
    Served,
    Refused(tonic::Code),
    /// Cut off after its moment (a read, dropped as a cancelled client's would be).
    CutOff,
}

impl Target {
    pub async fn new() -> Target {
        let dir = tempfile::tempdir().expect("a temporary directory");
        // Durability is not what the fuzzer holds the handlers to: a log in memory.
        let log = pitboss_ledger::mem::MemoryLog::new();
        let ledger =
            Arc::new(Ledger::open_memory(&log, dir.path(), 0, None).expect("a new ledger"));
        let floor = Arc::new(
            Floor::open(ledger, Arc::new(pitboss::floor::system_clock))
                .await
                .expect("a floor"),
        );
        let stop = Shutdown::default();
        let access_file = dir.path().join("access.toml");
        let every =
            r#"["game_client", "supervisor", "config_admin", "regulator", "lab", "key_admin"]"#;
        std::fs::write(
            &access_file,
            format!(
                "[[principal]]\nid = \"admin\"\ntoken_sha256 = \"{}\"\nroles = {every}\n\n\
                 [[principal]]\nid = \"second\"\ntoken_sha256 = \"{}\"\nroles = {every}\n",
                hex::encode(pitboss::access::token_sha256("a")),
                hex::encode(pitboss::access::token_sha256("b")),
            ),
        )
        .expect("an access file");
        let (access, _) = Access::load(&access_file).expect("the access file");
        let admin = Caller(access.by_token("a").expect("admin"));
        let second = Caller(access.by_token("b").expect("second"));
        Target {
            admin,
            second,
            proposals: Vec::new(),
            play: PlayService::new(
                floor.clone(),
                std::sync::Arc::new(pitboss::service::advice::Strategies::new(
                    floor.clone(),
                    Pool::new("tables", 1, stop.clone()),
                )),
            ),
            audit: AuditService::new(
                floor.clone(),
                Pool::new("audit", 2, stop.clone()),
                stop.clone(),
                None,
                None,
                // The returns read the log beside the calls; they open no alert and write no
                // statement here (a read must leave the log as it was).
                Some(pitboss::returns::Returns::start(
                    floor.clone(),
                    pitboss::returns::Settings {
                        check_every: std::time::Duration::from_secs(3600),
                        min_hands: u64::MAX,
                        statement_every: None,
                    },
                    Vec::new(),
                )),
            ),
            ops: OperationsService::new(floor.clone(), Arc::new(access)),
            lab: LabService::new(floor.clone(), Pool::new("lab", 1, stop.clone()), stop),
            floor,
            hands: Vec::new(),
            configs: Vec::new(),
            rounds: Vec::new(),
            _dir: dir,
        }
    }

    fn size(&self) -> u64 {
        self.floor.log().tree_size().expect("the log's size")
    }

    /// A proposal id: a recent one mostly, sometimes one that does not exist.
    fn proposal(&self, gen: &mut Gen) -> String {
        if self.proposals.is_empty() || gen.chance(8) {
            hex::encode(gen.bytes(16))
        } else {
            gen.pick(&self.proposals).clone()
        }
    }

    /// Keeps a proposal's id for later inputs.
    fn remember(&mut self, proposal: Option<proto::Proposal>) {
        if let Some(p) = proposal {
            self.proposals.push(p.proposal_id);
            if self.proposals.len() > 64 {
                self.proposals.remove(0);
            }
        }
    }

    /// A hand id: a live one mostly, sometimes one that does not exist.
    fn hand(&self, gen: &mut Gen) -> String {
        if self.hands.is_empty() || gen.chance(8) {
            hex::encode(gen.bytes(16))
        } else {
            gen.pick(&self.hands).clone()
        }
    }

    /// A round id and its game: a live one mostly, sometimes one that does not exist.
    fn round(&self, gen: &mut Gen) -> (String, proto::Game) {
        if self.rounds.is_empty() || gen.chance(8) {
            (hex::encode(gen.bytes(16)), gen.pick(&GAMES).0)
        } else {
            gen.pick(&self.rounds).clone()
        }
    }

    /// A round's opening: any game, any shape (the wrong one for the game sometimes).
    fn round_opening(&self, gen: &mut Gen) -> proto::OpenRoundRequest {
        let game = gen.pick(&GAMES).0;
        let shape = match (game, gen.chance(8)) {
            (_, true) => *gen.pick(&["seats", "one_shake", "shared_hand", "x"]),
            (proto::Game::Nutz, false) => "one_shake",
            (_, false) => *gen.pick(&["seats", "shared_hand"]),
        };
        proto::OpenRoundRequest {
            game: game as i32,
            config_id: String::new(),
            table: format!("T-{}", gen.below(4)),
            dealer: format!("D-{}", gen.below(3)),
            shoe: String::new(),
            shape: shape.into(),
            seats: if shape == "seats" {
                1 + gen.below(7) as u32
            } else {
                0
            },
            max_players: 1 + gen.below(20) as u32,
            seats_per_player: 0,
            decision_window_ms: 60_000,
            request_id: if gen.chance(4) {
                format!("round-{}", gen.below(20))
            } else {
                String::new()
            },
        }
    }

    /// A command for a round of `game`: a bet, a decision, betting or the window closed, or a
    /// batch of bets and decisions.
    fn round_command(gen: &mut Gen, game: proto::Game) -> proto::round_command_request::Command {
        use proto::round_command_request::Command;
        let wagers = GAMES
            .iter()
            .find(|(g, _)| *g == game)
            .map_or(&[][..], |(_, w)| *w);
        let bet = |gen: &mut Gen| proto::RoundBetCommand {
            // None, within the bound, or over it (under configurations that take none).
            player_seed: {
                let len = [0, 1, 64, 65][gen.below(4)];
                gen.bytes(len)
            },
            player: format!("P-{}", gen.below(8)),
            seat: gen.below(8) as u32,
            wagers: wagers
                .iter()
                .map(|(bet, amount)| proto::Wager {
                    bet: bet.to_string(),
                    amount: *amount,
                })
                .collect(),
        };
        let decide = |gen: &mut Gen| proto::RoundDecisionCommand {
            player: format!("P-{}", gen.below(8)),
            seat: gen.below(8) as u32,
            action: Some(Self::action(gen)),
        };
        match gen.below(6) {
            0 => Command::Bet(bet(gen)),
            1 => Command::Decide(decide(gen)),
            2 => Command::CloseBetting(proto::RoundCloseBettingCommand {
                shaker: if gen.chance(2) {
                    format!("P-{}", gen.below(8))
                } else {
                    String::new()
                },
            }),
            3 => Command::CloseWindow(proto::RoundCloseWindowCommand {
                reason: "fuzz".into(),
            }),
            4 => Command::ChangeDealer(proto::RoundChangeDealerCommand {
                // Another dealer, the dealer dealing, or a player of the round.
                dealer: gen.pick(&["D-0", "D-1", "D-2", "P-1"]).to_string(),
                reason: "fuzz".into(),
            }),
            _ => Command::Batch(proto::RoundBatchCommand {
                commands: (0..1 + gen.below(6))
                    .map(|_| proto::RoundBatchItem {
                        command: Some(if gen.chance(2) {
                            proto::round_batch_item::Command::Bet(bet(gen))
                        } else {
                            proto::round_batch_item::Command::Decide(decide(gen))
                        }),
                    })
                    .collect(),
            }),
        }
    }

    fn opening(&self, gen: &mut Gen) -> proto::OpenHandRequest {
        let (game, wagers) = *gen.pick(&GAMES);
        proto::OpenHandRequest {
            request_id: if gen.chance(3) {
                format!("r{}", gen.below(50))
            } else {
                String::new()
            },
            game: game as i32,
            config_id: if !self.configs.is_empty() && gen.chance(32) {
                gen.pick(&self.configs).clone()
            } else {
                String::new()
            },
            table: format!("T-{}", gen.below(4)),
            player: format!("P-{}", gen.below(8)),
            wagers: wagers
                .iter()
                .map(|(bet, amount)| proto::Wager {
                    bet: bet.to_string(),
                    amount: *amount,
                })
                .collect(),
            rebet_of: String::new(),
        }
    }

    fn action(gen: &mut Gen) -> proto::Action {
        let (kind, multiple) = *gen.pick(&[
            ("bet", 1),
            ("bet", 3),
            ("fold", 0),
            ("raise", 0),
            ("auto_set", 0),
            ("shake", 0),
            ("max_bet_all", 0),
            ("set_hand", 0),
        ]);
        proto::Action {
            kind: kind.into(),
            multiple,
            low: if kind == "set_hand" {
                vec!["As".into(), "Kd".into()]
            } else {
                Vec::new()
            },
            by: if gen.chance(4) {
                "dealer".into()
            } else {
                String::new()
            },
        }
    }

    /// A valid request for RPC `rpc`, encoded.
    fn seed(&self, gen: &mut Gen, rpc: usize) -> Vec<u8> {
        let size = self.size();
        let game = gen.pick(&GAMES).0 as i32;
        match RPCS[rpc] {
            "OpenHand" => self.opening(gen).encode_to_vec(),
            "Act" => proto::ActRequest {
                request_id: String::new(),
                hand_id: self.hand(gen),
                action: Some(Self::action(gen)),
                expected_version: None,
            }
            .encode_to_vec(),
            "GetHand" | "ReplayHand" | "GetHandBundle" | "GetDisputePacket" => {
                proto::GetHandRequest {
                    hand_id: self.hand(gen),
                }
                .encode_to_vec()
            }
            "PlayHand" => proto::PlayHandRequest {
                open: Some(self.opening(gen)),
                decisions: Vec::new(),
                follow_advice: true,
            }
            .encode_to_vec(),
            "DeriveDeal" => proto::DeriveDealRequest {
                game,
                seed: gen.bytes(32),
                seats: 0,
            }
            .encode_to_vec(),
            "VerifyLog" => proto::VerifyLogRequest {
                from_sequence: size.saturating_sub(20),
                to_sequence: None,
            }
            .encode_to_vec(),
            "GetHandEvents" => proto::GetHandEventsRequest {
                hand_id: self.hand(gen),
                page_size: 10,
                page_token: String::new(),
            }
            .encode_to_vec(),
            "ListHands" => proto::ListHandsRequest {
                table: format!("T-{}", gen.below(4)),
                page_size: 20,
                ..Default::default()
            }
            .encode_to_vec(),
            "StreamEvents" => proto::StreamEventsRequest {
                from_sequence: size.saturating_sub(5),
                stored_entries: size.is_multiple_of(2),
            }
            .encode_to_vec(),
            "ExportHands" => proto::ExportHandsRequest {
                table: format!("T-{}", gen.below(4)),
                game,
                ..Default::default()
            }
            .encode_to_vec(),
            "GetCheckpoint" => proto::GetCheckpointRequest { tree_size: size }.encode_to_vec(),
            "GetInclusionProof" => proto::GetInclusionProofRequest {
                sequence: gen.below(size as usize) as u64,
                tree_size: size,
            }
            .encode_to_vec(),
            "GetConsistencyProof" => proto::GetConsistencyProofRequest {
                first_size: 1 + gen.below(size as usize) as u64,
                second_size: size,
            }
            .encode_to_vec(),
            "PublishConfig" => {
                let game = *gen.pick(&pitboss_engine::game::GameId::ALL);
                let config = pitboss_engine::config::GameConfig::default_for(game);
                let mut doc: serde_json::Value =
                    serde_json::from_slice(&config.canonical_bytes()).expect("canonical JSON");
                let json = mutate::json_text(gen, &doc);
                if gen.chance(2) {
                    doc = serde_json::from_slice(&json).unwrap_or(doc);
                }
                proto::PublishConfigRequest {
                    request_id: String::new(),
                    config_json: serde_json::to_string(&doc).unwrap_or_default(),
                }
                .encode_to_vec()
            }
            "ListConfigs" => proto::ListConfigsRequest {
                game,
                page_size: 5,
                page_token: String::new(),
                uncertified_only: gen.chance(2),
            }
            .encode_to_vec(),
            "VoidHand" => proto::VoidHandRequest {
                request_id: String::new(),
                hand_id: self.hand(gen),
                kind: gen
                    .pick(&["malfunction", "incomplete", "conduct_forfeit"])
                    .to_string(),
                reason: "fuzz".into(),
                recorded_by: if gen.chance(8) {
                    "admin".into()
                } else {
                    String::new()
                },
            }
            .encode_to_vec(),
            "RecordTableMalfunction" => {
                let now = pitboss::floor::system_clock();
                proto::RecordTableMalfunctionRequest {
                    request_id: String::new(),
                    table: format!("T-{}", gen.below(4)),
                    from_ms: now - 1_000,
                    to_ms: now,
                    reason: "fuzz".into(),
                    recorded_by: if gen.chance(8) {
                        "admin".into()
                    } else {
                        String::new()
                    },
                }
                .encode_to_vec()
            }
            "RunSweep" => proto::RunSweepRequest {
                request_id: String::new(),
                as_of_ms: 0,
                recorded_by: if gen.chance(8) {
                    "admin".into()
                } else {
                    String::new()
                },
            }
            .encode_to_vec(),
            "GetParSheets" => proto::GetParSheetsRequest {
                game,
                config_id: String::new(),
                main_bet_rounds: 100,
                seed: gen.bytes(32),
            }
            .encode_to_vec(),
            "Simulate" => proto::SimulateRequest {
                game,
                config_id: String::new(),
                hands: 1 + gen.below(200) as u64,
                strategy: 1,
                seed: gen.bytes(32),
            }
            .encode_to_vec(),
            "TestRng" => proto::TestRngRequest {
                sequences: 1 + gen.below(3) as u32,
                bits: 32 * (4 + gen.below(200) as u64),
                seed: gen.bytes(32),
            }
            .encode_to_vec(),
            "Certify" => proto::CertifyRequest {
                game,
                hands: 10_000 + gen.below(50) as u64,
                seed: gen.bytes(32),
                battery_sequences: 55,
                battery_bits: 128,
                ..Default::default()
            }
            .encode_to_vec(),
            "StreamRngWords" => proto::StreamRngWordsRequest {
                words: 100,
                words_per_seed: 10,
            }
            .encode_to_vec(),
            "StreamShuffles" => proto::StreamShufflesRequest {
                shuffles: 3,
                deck: 1,
            }
            .encode_to_vec(),
            "ApproveProposal" => proto::ApproveProposalRequest {
                proposal_id: self.proposal(gen),
            }
            .encode_to_vec(),
            "RejectProposal" => proto::RejectProposalRequest {
                proposal_id: self.proposal(gen),
                reason: "fuzz".into(),
            }
            .encode_to_vec(),
            "AuthenticateSoftware" => proto::AuthenticateSoftwareRequest {
                challenge: vec![gen.below(256) as u8; 16 + gen.below(49)],
            }
            .encode_to_vec(),
            "GetReturns" => proto::GetReturnsRequest {
                game: gen
                    .pick(&["", "nutz", "caribbean_stud", "mississippi_stud"])
                    .to_string(),
                table: format!("T-{}", gen.below(4)),
                windows: vec![*gen.pick(&[0u32, 1, 7, 30])],
                page_size: 5,
                ..Default::default()
            }
            .encode_to_vec(),
            "RecordInvestigation" => proto::RecordInvestigationRequest {
                alert_id: hex::encode([gen.below(256) as u8; 16]),
                outcome: gen.pick(&["explained", "other"]).to_string(),
                reason: "fuzzed".into(),
            }
            .encode_to_vec(),
            "ListSignificantEvents" => proto::ListSignificantEventsRequest {
                from_ms: 0,
                to_ms: 0,
                kinds: Vec::new(),
                page_size: 5,
                page_token: if gen.chance(2) {
                    String::new()
                } else {
                    gen.below(size as usize + 2).to_string()
                },
            }
            .encode_to_vec(),
            "ListProposals" => proto::ListProposalsRequest {
                state: gen
                    .pick(&["", "pending", "approved", "rejected", "expired"])
                    .to_string(),
                page_size: 5,
                page_token: String::new(),
            }
            .encode_to_vec(),
            "ReloadAccess" => proto::ReloadAccessRequest {}.encode_to_vec(),
            "RotateSigningKey" => proto::RotateSigningKeyRequest {
                expected_key_id: if gen.chance(2) {
                    self.floor
                        .log()
                        .key_id()
                        .map(|k| k.to_string())
                        .unwrap_or_default()
                } else {
                    String::new()
                },
            }
            .encode_to_vec(),
            "OpenRound" => self.round_opening(gen).encode_to_vec(),
            "RoundCommand" => {
                let (round_id, game) = self.round(gen);
                proto::RoundCommandRequest {
                    round_id,
                    command: Some(Self::round_command(gen, game)),
                    request_id: String::new(),
                }
                .encode_to_vec()
            }
            "GetRound" => proto::GetRoundRequest {
                round_id: self.round(gen).0,
                player: format!("P-{}", gen.below(8)),
                from_place: 0,
                page_size: 5,
            }
            .encode_to_vec(),
            "VoidRound" => {
                let forfeit = gen.chance(3);
                proto::VoidRoundRequest {
                    round_id: self.round(gen).0,
                    kind: if forfeit {
                        "conduct_forfeit"
                    } else {
                        "malfunction"
                    }
                    .into(),
                    reason: "fuzz".into(),
                    player: if forfeit {
                        format!("P-{}", gen.below(8))
                    } else {
                        String::new()
                    },
                    seat: if forfeit { gen.below(8) as u32 } else { 0 },
                    request_id: String::new(),
                }
                .encode_to_vec()
            }
            "ReplayRound" => proto::ReplayRoundRequest {
                round_id: self.round(gen).0,
                player: String::new(),
                from_place: 0,
                page_size: 5,
                from_event: 0,
            }
            .encode_to_vec(),
            "ListRounds" => proto::ListRoundsRequest {
                table: format!("T-{}", gen.below(4)),
                dealer: if gen.chance(3) {
                    format!("D-{}", gen.below(3))
                } else {
                    String::new()
                },
                phase: gen
                    .pick(&["", "betting", "playing", "ended", "voided"])
                    .to_string(),
                page_size: 5,
                ..Default::default()
            }
            .encode_to_vec(),
            "GetRoundBundle" => proto::GetRoundBundleRequest {
                round_id: self.round(gen).0,
            }
            .encode_to_vec(),
            "GetRoundDisputePacket" => proto::GetRoundDisputePacketRequest {
                round_id: self.round(gen).0,
                player: format!("P-{}", gen.below(8)),
            }
            .encode_to_vec(),
            other => unreachable!("no seed for {other}"),
        }
    }

    /// One input: an RPC, a valid request for it, mutated (or not: a quarter go through intact,
    /// so the state moves on), run and checked.
    pub async fn run_one(&mut self, gen: &mut Gen, tally: &mut Tally) {
        let rpc = gen.below(RPCS.len());
        let mut bytes = self.seed(gen, rpc);
        if !gen.chance(4) {
            bytes = mutate::protobuf(gen, bytes);
        }
        let before = self.size();
        let outcome = match catch_panic(self.call(rpc, &bytes)).await {
            Ok(outcome) => outcome,
            Err(panic) => {
                panic!("{} panicked on {}: {panic}", RPCS[rpc], hex::encode(&bytes))
            }
        };
        let after = self.size();
        let writes = matches!(
            RPCS[rpc],
            "OpenHand"
                | "Act"
                | "PlayHand"
                | "PublishConfig"
                | "VoidHand"
                | "RecordTableMalfunction"
                | "RunSweep"
                | "ApproveProposal"
                | "RejectProposal"
                | "ReloadAccess"
                | "RotateSigningKey"
                | "AuthenticateSoftware"
                | "RecordInvestigation"
                | "OpenRound"
                | "RoundCommand"
                | "VoidRound"
        );
        match outcome {
            Outcome::Served => tally.accepted += 1,
            Outcome::Refused(code) => {
                assert!(
                    !matches!(code, tonic::Code::Internal | tonic::Code::Unknown),
                    "{} answered {code:?} to {}",
                    RPCS[rpc],
                    hex::encode(&bytes)
                );
                assert_eq!(
                    before,
                    after,
                    "{} was refused ({code:?}) yet wrote to the log: {}",
                    RPCS[rpc],
                    hex::encode(&bytes)
                );
                tally.refused += 1;
            }
            Outcome::CutOff => tally.cut_off += 1,
        }
        if !writes {
            assert_eq!(before, after, "{}, a read, wrote to the log", RPCS[rpc]);
        }
    }

    async fn call(&mut self, rpc: usize, bytes: &[u8]) -> Outcome {
        /// Decodes as tonic would; a message that does not decode never reaches the handler.
        macro_rules! decoded {
            ($ty:ty) => {
                match <$ty>::decode(bytes) {
                    Ok(message) => {
                        let mut request = tonic::Request::new(message);
                        request.extensions_mut().insert(self.admin.clone());
                        request
                    }
                    Err(_) => return Outcome::Refused(tonic::Code::InvalidArgument),
                }
            };
        }
        /// Writes run to their end (they never take long); reads are cut off after a moment.
        macro_rules! unary {
            ($call:expr, $patience:expr) => {
                match tokio::time::timeout($patience, $call).await {
                    Ok(Ok(_)) => Outcome::Served,
                    Ok(Err(status)) => Outcome::Refused(status.code()),
                    Err(_) => Outcome::CutOff,
                }
            };
        }
        macro_rules! streamed {
            ($call:expr) => {
                match tokio::time::timeout(READ, $call).await {
                    Ok(Ok(response)) => {
                        let mut stream = response.into_inner();
                        // A few messages, then the client goes away.
                        let mut outcome = Outcome::Served;
                        for _ in 0..3 {
                            match tokio::time::timeout(READ, stream.next()).await {
                                Ok(Some(Err(status))) => {
                                    outcome = Outcome::Refused(status.code());
                                    break;
                                }
                                Ok(Some(Ok(_))) => {}
                                Ok(None) | Err(_) => break,
                            }
                        }
                        outcome
                    }
                    Ok(Err(status)) => Outcome::Refused(status.code()),
                    Err(_) => Outcome::CutOff,
                }
            };
        }
        const WRITE: Duration = Duration::from_secs(60);
        const READ: Duration = Duration::from_millis(25);
        match RPCS[rpc] {
            "OpenHand" => {
                let request = decoded!(proto::OpenHandRequest);
                match self.play.open_hand(request).await {
                    Ok(response) => {
                        if let Some(hand) = response.into_inner().hand {
                            self.hands.push(hand.hand_id);
                            if self.hands.len() > 64 {
                                self.hands.remove(0);
                            }
                        }
                        Outcome::Served
                    }
                    Err(status) => Outcome::Refused(status.code()),
                }
            }
            "Act" => unary!(self.play.act(decoded!(proto::ActRequest)), WRITE),
            "GetHand" => unary!(self.play.get_hand(decoded!(proto::GetHandRequest)), READ),
            "PlayHand" => unary!(self.play.play_hand(decoded!(proto::PlayHandRequest)), WRITE),
            "DeriveDeal" => unary!(
                self.audit.derive_deal(decoded!(proto::DeriveDealRequest)),
                READ
            ),
            "ReplayHand" => unary!(
                self.audit.replay_hand(decoded!(proto::ReplayHandRequest)),
                READ
            ),
            "VerifyLog" => unary!(
                self.audit.verify_log(decoded!(proto::VerifyLogRequest)),
                READ
            ),
            "GetHandEvents" => {
                unary!(
                    self.audit
                        .get_hand_events(decoded!(proto::GetHandEventsRequest)),
                    READ
                )
            }
            "ListHands" => unary!(
                self.audit.list_hands(decoded!(proto::ListHandsRequest)),
                READ
            ),
            "StreamEvents" => {
                streamed!(self
                    .audit
                    .stream_events(decoded!(proto::StreamEventsRequest)))
            }
            "GetCheckpoint" => {
                unary!(
                    self.audit
                        .get_checkpoint(decoded!(proto::GetCheckpointRequest)),
                    READ
                )
            }
            "GetInclusionProof" => unary!(
                self.audit
                    .get_inclusion_proof(decoded!(proto::GetInclusionProofRequest)),
                READ
            ),
            "GetConsistencyProof" => unary!(
                self.audit
                    .get_consistency_proof(decoded!(proto::GetConsistencyProofRequest)),
                READ
            ),
            "GetHandBundle" => {
                unary!(
                    self.audit
                        .get_hand_bundle(decoded!(proto::GetHandBundleRequest)),
                    READ
                )
            }
            "GetDisputePacket" => {
                unary!(
                    self.audit
                        .get_dispute_packet(decoded!(proto::GetDisputePacketRequest)),
                    READ
                )
            }
            "ExportHands" => {
                streamed!(self.audit.export_hands(decoded!(proto::ExportHandsRequest)))
            }
            "PublishConfig" => {
                let request = decoded!(proto::PublishConfigRequest);
                match self.ops.publish_config(request).await {
                    Ok(response) => {
                        let response = response.into_inner();
                        // The second principal approves it, so that the configuration is
                        // published and later inputs play under it.
                        if let Some(p) = &response.proposal {
                            let mut approve = tonic::Request::new(proto::ApproveProposalRequest {
                                proposal_id: p.proposal_id.clone(),
                            });
                            approve.extensions_mut().insert(self.second.clone());
                            if let Err(e) = self.ops.approve_proposal(approve).await {
                                panic!("a proposed configuration was not approved: {e:?}");
                            }
                        }
                        let id = response.config_id;
                        if !self.configs.contains(&id) && self.configs.len() < 64 {
                            self.configs.push(id);
                        }
                        Outcome::Served
                    }
                    Err(status) => Outcome::Refused(status.code()),
                }
            }
            "ListConfigs" => unary!(
                self.ops.list_configs(decoded!(proto::ListConfigsRequest)),
                READ
            ),
            "VoidHand" => match self.ops.void_hand(decoded!(proto::VoidHandRequest)).await {
                Ok(response) => {
                    self.remember(response.into_inner().proposal);
                    Outcome::Served
                }
                Err(status) => Outcome::Refused(status.code()),
            },
            "RecordTableMalfunction" => match self
                .ops
                .record_table_malfunction(decoded!(proto::RecordTableMalfunctionRequest))
                .await
            {
                Ok(response) => {
                    self.remember(response.into_inner().proposal);
                    Outcome::Served
                }
                Err(status) => Outcome::Refused(status.code()),
            },
            "ApproveProposal" => {
                // As the second principal half the time (who may approve), the proposer otherwise
                // (who may not).
                let mut request = decoded!(proto::ApproveProposalRequest);
                if gen_second(bytes) {
                    request.extensions_mut().insert(self.second.clone());
                }
                unary!(self.ops.approve_proposal(request), WRITE)
            }
            "RejectProposal" => unary!(
                self.ops
                    .reject_proposal(decoded!(proto::RejectProposalRequest)),
                WRITE
            ),
            "ListProposals" => unary!(
                self.ops
                    .list_proposals(decoded!(proto::ListProposalsRequest)),
                READ
            ),
            "ReloadAccess" => unary!(
                self.ops.reload_access(decoded!(proto::ReloadAccessRequest)),
                WRITE
            ),
            "RotateSigningKey" => unary!(
                self.ops
                    .rotate_signing_key(decoded!(proto::RotateSigningKeyRequest)),
                WRITE
            ),
            "RunSweep" => unary!(self.ops.run_sweep(decoded!(proto::RunSweepRequest)), WRITE),
            "GetParSheets" => {
                unary!(
                    self.lab
                        .get_par_sheets(decoded!(proto::GetParSheetsRequest)),
                    READ
                )
            }
            "Simulate" => unary!(self.lab.simulate(decoded!(proto::SimulateRequest)), READ),
            "TestRng" => unary!(self.lab.test_rng(decoded!(proto::TestRngRequest)), READ),
            // Its computation takes seconds: cut off after its moment, as a client gone away.
            "Certify" => unary!(self.lab.certify(decoded!(proto::CertifyRequest)), READ),
            "StreamRngWords" => {
                streamed!(self
                    .lab
                    .stream_rng_words(decoded!(proto::StreamRngWordsRequest)))
            }
            "StreamShuffles" => {
                streamed!(self
                    .lab
                    .stream_shuffles(decoded!(proto::StreamShufflesRequest)))
            }
            "AuthenticateSoftware" => unary!(
                self.ops
                    .authenticate_software(decoded!(proto::AuthenticateSoftwareRequest)),
                WRITE
            ),
            "GetReturns" => unary!(
                self.audit.get_returns(decoded!(proto::GetReturnsRequest)),
                READ
            ),
            "RecordInvestigation" => unary!(
                self.ops
                    .record_investigation(decoded!(proto::RecordInvestigationRequest)),
                WRITE
            ),
            "ListSignificantEvents" => unary!(
                self.audit
                    .list_significant_events(decoded!(proto::ListSignificantEventsRequest)),
                READ
            ),
            "OpenRound" => {
                let request = decoded!(proto::OpenRoundRequest);
                match self.play.open_round(request).await {
                    Ok(response) => {
                        if let Some(round) = response.into_inner().round {
                            let game = proto::Game::try_from(round.game)
                                .unwrap_or(proto::Game::Unspecified);
                            self.rounds.push((round.round_id, game));
                            if self.rounds.len() > 32 {
                                self.rounds.remove(0);
                            }
                        }
                        Outcome::Served
                    }
                    Err(status) => Outcome::Refused(status.code()),
                }
            }
            "RoundCommand" => unary!(
                self.play
                    .round_command(decoded!(proto::RoundCommandRequest)),
                WRITE
            ),
            "GetRound" => unary!(self.play.get_round(decoded!(proto::GetRoundRequest)), READ),
            "VoidRound" => match self.ops.void_round(decoded!(proto::VoidRoundRequest)).await {
                Ok(response) => {
                    self.remember(response.into_inner().proposal);
                    Outcome::Served
                }
                Err(status) => Outcome::Refused(status.code()),
            },
            "ReplayRound" => unary!(
                self.audit.replay_round(decoded!(proto::ReplayRoundRequest)),
                READ
            ),
            "ListRounds" => unary!(
                self.audit.list_rounds(decoded!(proto::ListRoundsRequest)),
                READ
            ),
            "GetRoundBundle" => unary!(
                self.audit
                    .get_round_bundle(decoded!(proto::GetRoundBundleRequest)),
                READ
            ),
            "GetRoundDisputePacket" => unary!(
                self.audit
                    .get_round_dispute_packet(decoded!(proto::GetRoundDisputePacketRequest)),
                READ
            ),
            other => unreachable!("no call for {other}"),
        }
    }
}

/// Whether an approval is made as the second principal: by the input's bytes, so that a failing
/// input replays the same way.
fn gen_second(bytes: &[u8]) -> bool {
    bytes.iter().fold(0u8, |a, b| a.wrapping_add(*b)) % 2 == 0
}
