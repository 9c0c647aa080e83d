//! Rounds in the returns, recall and the export (`docs/returns.md`, `docs/rounds.md`,
//! `docs/export.md`): rounds of three dealers at two tables and a one-player hand played over
//! gRPC; `GetReturns` per table and per dealer equals what the test adds up from the places'
//! settlements as the table saw them; `ListRounds` by table, dealer and player lists the rounds
//! with their places' totals, pages, filters by phase and time, and keeps a scoped principal to
//! its tables; `pitboss export` by dealer, round and player writes the places and their bet lines,
//! read back by DuckDB (Parquet, CSV, JSON Lines), equal to the rounds' places; a table malfunction voids
//! the table's rounds in its range, once.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::{clients, export, python_reads, wager, Clients};
use pitboss::proto;
use pitboss::proto::round_command_request::Command as RoundCmd;
use pitboss_testkit::clients::list_rounds;
use pitboss_testkit::server::{principal, write_access, Server};
use tonic::Code;

const SCOPED_TOKEN: &str = "pb_test_t1_supervisor_0123";

/// A round played by the test: its id, table, dealer and game.
struct Played {
    id: String,
    table: &'static str,
    dealer: &'static str,
    game: proto::Game,
}

async fn command(c: &mut Clients, round: &str, command: RoundCmd) -> proto::RoundView {
    crate::support::round_command(c, round, command)
        .await
        .expect("the command is taken")
}

fn decide(player: &str, seat: u32, kind: &str, by: &str) -> RoundCmd {
    RoundCmd::Decide(proto::RoundDecisionCommand {
        player: player.into(),
        seat,
        action: Some(proto::Action {
            kind: kind.into(),
            by: by.into(),
            ..Default::default()
        }),
    })
}

/// Opens a round of `game` at `table` dealt by `dealer` and places each (player, wagers) bet, a
/// seat each in the card games: its id.
async fn open_and_bet(
    c: &mut Clients,
    game: proto::Game,
    table: &str,
    dealer: &str,
    bets: &[(&str, Vec<proto::Wager>)],
) -> String {
    let (shape, seats) = match game {
        proto::Game::Nutz => ("one_shake", 0),
        _ => ("seats", 7),
    };
    let id = c
        .play
        .open_round(proto::OpenRoundRequest {
            game: game as i32,
            table: table.into(),
            dealer: dealer.into(),
            shape: shape.into(),
            seats,
            max_players: 7,
            decision_window_ms: 600_000,
            ..Default::default()
        })
        .await
        .expect("the round opens")
        .into_inner()
        .round
        .expect("a view")
        .round_id;
    for (i, (player, wagers)) in bets.iter().enumerate() {
        let seat = if seats == 0 { 0 } else { i as u32 + 1 };
        command(
            c,
            &id,
            RoundCmd::Bet(proto::RoundBetCommand {
                player_seed: Vec::new(),
                player: player.to_string(),
                seat,
                wagers: wagers.clone(),
            }),
        )
        .await;
    }
    command(
        c,
        &id,
        RoundCmd::CloseBetting(proto::RoundCloseBettingCommand::default()),
    )
    .await;
    id
}

/// A Caribbean Stud round: each (player, ante, bonus, raise or fold) a seat, to its showdown.
async fn caribbean(
    c: &mut Clients,
    table: &'static str,
    dealer: &'static str,
    seats: &[(&str, u64, u64, &str)],
) -> Played {
    let bets: Vec<(&str, Vec<proto::Wager>)> = seats
        .iter()
        .map(|(player, ante, bonus, _)| {
            let mut w = vec![wager("ante", *ante)];
            if *bonus > 0 {
                w.push(wager("bonus", *bonus));
            }
            (*player, w)
        })
        .collect();
    let id = open_and_bet(c, proto::Game::CaribbeanStud, table, dealer, &bets).await;
    for (i, (player, _, _, action)) in seats.iter().enumerate() {
        command(c, &id, decide(player, i as u32 + 1, action, "")).await;
    }
    Played {
        id,
        table,
        dealer,
        game: proto::Game::CaribbeanStud,
    }
}

/// The round's whole view (every place, as the table sees it).
async fn table_view(c: &mut Clients, round: &str) -> proto::RoundView {
    c.play
        .get_round(proto::GetRoundRequest {
            round_id: round.into(),
            player: String::new(),
            from_place: 0,
            page_size: 500,
        })
        .await
        .expect("the round")
        .into_inner()
        .round
        .expect("a view")
}

/// The bet group of a line, as `docs/returns.md` states it (not taken from the server's code).
fn group(bet: &str) -> String {
    match bet {
        "ante" | "raise" | "street_3" | "street_4" | "street_5" => "main".into(),
        other => other.into(),
    }
}

/// (hands, staked, paid) by (table or dealer, game, bet group).
type Totals = BTreeMap<(String, String, String), (u64, u64, u64)>;

fn add(totals: &mut Totals, owner: &str, game: &str, settled: &proto::Settled) {
    let mut groups: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for line in &settled.lines {
        let g = groups.entry(group(&line.bet)).or_default();
        g.0 += line.stake;
        g.1 += line.payout;
    }
    for (name, (staked, paid)) in groups {
        let t = totals
            .entry((owner.to_string(), game.to_string(), name))
            .or_default();
        t.0 += 1;
        t.1 += staked;
        t.2 += paid;
    }
}

fn game_id(game: proto::Game) -> String {
    game.as_str_name()
        .trim_start_matches("GAME_")
        .to_lowercase()
}

/// Once the returns have read the whole log as it stands now.
async fn returns_caught_up(c: &mut Clients) {
    let size = crate::support::head(c).await.0.expect("entries") + 1;
    let waited = Instant::now();
    loop {
        let r = c
            .audit
            .get_returns(proto::GetReturnsRequest::default())
            .await
            .unwrap()
            .into_inner();
        if r.caught_up && r.through_sequence >= size {
            return;
        }
        assert!(
            waited.elapsed() < Duration::from_secs(60),
            "the returns never caught up"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The returns rows of `request` (lifetime) as totals net of voids, by their table (`by`
/// table) or dealer; every row's other name is empty.
async fn returns_by(
    audit: &mut proto::audit_client::AuditClient<pitboss_client::Authorized>,
    request: proto::GetReturnsRequest,
) -> Totals {
    let by_dealer = request.by == proto::ReturnsBy::Dealer as i32;
    let answer = audit
        .get_returns(proto::GetReturnsRequest {
            windows: vec![0],
            page_size: 1000,
            ..request
        })
        .await
        .expect("the returns")
        .into_inner();
    assert!(answer.next_page_token.is_empty());
    let mut out = Totals::new();
    for row in answer.rows {
        let t = row.totals.expect("totals");
        let hands = t.hands - t.voided_hands;
        if hands == 0 {
            continue;
        }
        let owner = if by_dealer {
            assert!(t.table.is_empty(), "a dealer's row sums every table: {t:?}");
            t.dealer.clone()
        } else {
            assert!(
                t.dealer.is_empty(),
                "a table's row sums every dealer: {t:?}"
            );
            t.table.clone()
        };
        let previous = out.insert(
            (owner, t.game.clone(), t.bet.clone()),
            (hands, t.staked - t.voided_staked, t.paid - t.voided_paid),
        );
        assert!(previous.is_none(), "one row per key: {t:?}");
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn rounds_are_in_the_returns_per_table_and_dealer_in_recall_and_in_the_export() {
    let data = tempfile::tempdir().unwrap();
    write_access(
        data.path(),
        &principal("t1-super", SCOPED_TOKEN, &["supervisor"], Some(&["T-1"])),
    );
    let server = Server::in_process(data.path());
    let mut c = clients(&server).await;
    let started = pitboss::floor::system_clock();

    let mut played = vec![
        caribbean(
            &mut c,
            "T-1",
            "d-ann",
            &[
                ("p1", 500, 100, "raise"),
                ("p2", 200, 0, "fold"),
                ("p3", 300, 100, "raise"),
            ],
        )
        .await,
    ];
    played.push(
        caribbean(
            &mut c,
            "T-1",
            "d-bob",
            &[("p1", 400, 0, "raise"), ("p4", 600, 100, "raise")],
        )
        .await,
    );
    played.push(
        caribbean(
            &mut c,
            "T-2",
            "d-ann",
            &[("p2", 1000, 100, "raise"), ("p5", 700, 0, "fold")],
        )
        .await,
    );
    // A shake at T-2 by d-cy: the cup offered to nobody, the dealer shakes.
    let nutz = open_and_bet(
        &mut c,
        proto::Game::Nutz,
        "T-2",
        "d-cy",
        &[
            ("p1", vec![wager("box_one_pair", 500)]),
            (
                "p6",
                vec![wager("box_nutz", 100), wager("box_two_pairs", 300)],
            ),
        ],
    )
    .await;
    for _ in 0..16 {
        if command(&mut c, &nutz, decide("d-cy", 0, "shake", "dealer"))
            .await
            .phase
            == "ended"
        {
            break;
        }
    }
    played.push(Played {
        id: nutz,
        table: "T-2",
        dealer: "d-cy",
        game: proto::Game::Nutz,
    });
    // d-bob's round at T-2, voided in play: every stake refunded, nothing counted.
    let voided = open_and_bet(
        &mut c,
        proto::Game::CaribbeanStud,
        "T-2",
        "d-bob",
        &[("p1", vec![wager("ante", 800)])],
    )
    .await;
    c.ops
        .void_round(proto::VoidRoundRequest {
            round_id: voided.clone(),
            kind: "malfunction".into(),
            reason: "the shuffler jammed".into(),
            ..Default::default()
        })
        .await
        .expect("voided in play");
    played.push(Played {
        id: voided.clone(),
        table: "T-2",
        dealer: "d-bob",
        game: proto::Game::CaribbeanStud,
    });
    // A one-player hand at T-1: it has no dealer.
    let hand = c
        .play
        .play_hand(proto::PlayHandRequest {
            open: Some(crate::support::open(
                proto::Game::CaribbeanStud,
                "T-1",
                "p1",
                vec![wager("ante", 900), wager("bonus", 100)],
            )),
            decisions: vec![],
            follow_advice: true,
        })
        .await
        .expect("a hand")
        .into_inner()
        .hand
        .expect("its view");

    // What the table was shown: every place's settlement or void.
    let mut views = BTreeMap::new();
    let (mut by_table, mut by_dealer) = (Totals::new(), Totals::new());
    for p in &played {
        let view = table_view(&mut c, &p.id).await;
        assert!(
            view.phase == "ended" || view.phase == "voided",
            "{}",
            view.phase
        );
        for place in &view.places {
            if let (Some(settled), None) = (&place.settlement, &place.void) {
                add(&mut by_table, p.table, &game_id(p.game), settled);
                add(&mut by_dealer, p.dealer, &game_id(p.game), settled);
            }
        }
        views.insert(p.id.clone(), view);
    }
    add(
        &mut by_table,
        "T-1",
        "caribbean_stud",
        hand.settlement.as_ref().expect("settled"),
    );
    assert_eq!(
        by_dealer
            .keys()
            .map(|k| k.0.as_str())
            .collect::<std::collections::BTreeSet<_>>(),
        ["d-ann", "d-bob", "d-cy"].into(),
    );

    // The returns, once they have read the whole log.
    returns_caught_up(&mut c).await;
    let mut audit = c.audit.clone();
    let by = |by: proto::ReturnsBy| proto::GetReturnsRequest {
        by: by as i32,
        ..Default::default()
    };
    assert_eq!(
        returns_by(&mut audit, by(proto::ReturnsBy::Table)).await,
        by_table
    );
    assert_eq!(
        returns_by(&mut audit, by(proto::ReturnsBy::Dealer)).await,
        by_dealer
    );
    let ann = returns_by(
        &mut audit,
        proto::GetReturnsRequest {
            dealer: "d-ann".into(),
            ..by(proto::ReturnsBy::Dealer)
        },
    )
    .await;
    let ann_expected: Totals = by_dealer
        .iter()
        .filter(|(k, _)| k.0 == "d-ann")
        .map(|(k, v)| (k.clone(), *v))
        .collect();
    assert_eq!(ann, ann_expected);
    // A principal scoped to T-1: a dealer's rows sum that dealer's rounds at T-1 only.
    let mut scoped =
        proto::audit_client::AuditClient::new(server.channel_as(Some(SCOPED_TOKEN)).await);
    let mut t1_dealers = Totals::new();
    for p in played.iter().filter(|p| p.table == "T-1") {
        for place in &views[&p.id].places {
            if let (Some(settled), None) = (&place.settlement, &place.void) {
                add(&mut t1_dealers, p.dealer, &game_id(p.game), settled);
            }
        }
    }
    assert_eq!(
        returns_by(&mut scoped, by(proto::ReturnsBy::Dealer)).await,
        t1_dealers
    );
    let refused = audit
        .get_returns(proto::GetReturnsRequest {
            by: 7,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::InvalidArgument);

    // Recall: by table, dealer and player, newest first.
    let list = |r: proto::ListRoundsRequest| proto::ListRoundsRequest {
        page_size: 100,
        ..r
    };
    let ids = |answer: &proto::ListRoundsResponse| -> Vec<String> {
        answer.rounds.iter().map(|r| r.round_id.clone()).collect()
    };
    let newest_first = |pick: &dyn Fn(&Played) -> bool| -> Vec<String> {
        played
            .iter()
            .rev()
            .filter(|p| pick(p))
            .map(|p| p.id.clone())
            .collect()
    };
    let t1 = list_rounds(
        &mut audit,
        list(proto::ListRoundsRequest {
            table: "T-1".into(),
            ..Default::default()
        }),
    )
    .await;
    assert_eq!(ids(&t1), newest_first(&|p| p.table == "T-1"));
    assert!(t1.next_page_token.is_empty());
    for summary in &t1.rounds {
        let view = &views[&summary.round_id];
        let staked: u64 = view
            .places
            .iter()
            .flat_map(|p| &p.stakes)
            .map(|w| w.amount)
            .sum();
        let paid: u64 = view
            .places
            .iter()
            .map(|p| match (&p.settlement, &p.void) {
                (_, Some(void)) => void.paid_now,
                (Some(settled), None) => settled.total_paid,
                (None, None) => 0,
            })
            .sum();
        assert_eq!(
            (
                summary.total_staked,
                summary.total_paid,
                summary.place_count as usize,
                summary.phase.as_str(),
                summary.dealer.as_str(),
                summary.opened_at_ms
            ),
            (
                staked,
                paid,
                view.places.len(),
                view.phase.as_str(),
                view.dealer.as_str(),
                view.opened_at_ms
            ),
        );
        assert!(
            summary.places.is_empty(),
            "listed by table: no player's places"
        );
    }
    let ann_rounds = list_rounds(
        &mut audit,
        list(proto::ListRoundsRequest {
            dealer: "d-ann".into(),
            ..Default::default()
        }),
    )
    .await;
    assert_eq!(ids(&ann_rounds), newest_first(&|p| p.dealer == "d-ann"));
    assert_eq!(
        ann_rounds
            .rounds
            .iter()
            .map(|r| r.table.as_str())
            .collect::<Vec<_>>(),
        ["T-2", "T-1"],
        "a dealer's rounds at both tables"
    );
    // Paged, one a page: the same rounds.
    let mut paged = Vec::new();
    let mut token = String::new();
    loop {
        let page = list_rounds(
            &mut audit,
            proto::ListRoundsRequest {
                dealer: "d-ann".into(),
                page_size: 1,
                page_token: token.clone(),
                ..Default::default()
            },
        )
        .await;
        assert!(page.rounds.len() <= 1);
        paged.extend(ids(&page));
        if page.next_page_token.is_empty() {
            break;
        }
        token = page.next_page_token;
    }
    assert_eq!(paged, ids(&ann_rounds));
    // By player: the rounds p1 bet on, with p1's places only.
    let p1 = list_rounds(
        &mut audit,
        list(proto::ListRoundsRequest {
            player: "p1".into(),
            ..Default::default()
        }),
    )
    .await;
    let p1_rounds = newest_first(&|p| views[&p.id].places.iter().any(|pl| pl.player == "p1"));
    assert_eq!(ids(&p1), p1_rounds);
    for summary in &p1.rounds {
        assert_eq!(summary.places.len(), 1, "{}", summary.round_id);
        let place = &summary.places[0];
        let seen = &views[&summary.round_id].places[place.place as usize];
        assert_eq!(
            (place.player.as_str(), place.seat, place.status.as_str()),
            (seen.player.as_str(), seen.seat, seen.status.as_str())
        );
        assert_eq!(
            place.staked,
            seen.stakes.iter().map(|w| w.amount).sum::<u64>()
        );
    }
    // Filters: a phase, a dealer with a table, a time after every round.
    let voided_list = list_rounds(
        &mut audit,
        list(proto::ListRoundsRequest {
            dealer: "d-bob".into(),
            phase: "voided".into(),
            ..Default::default()
        }),
    )
    .await;
    assert_eq!(ids(&voided_list), std::slice::from_ref(&voided));
    let bob_t1 = list_rounds(
        &mut audit,
        list(proto::ListRoundsRequest {
            dealer: "d-bob".into(),
            table: "T-1".into(),
            ..Default::default()
        }),
    )
    .await;
    assert_eq!(
        ids(&bob_t1),
        newest_first(&|p| p.dealer == "d-bob" && p.table == "T-1")
    );
    let later = list_rounds(
        &mut audit,
        list(proto::ListRoundsRequest {
            table: "T-1".into(),
            from_ms: pitboss::floor::system_clock() + 60_000,
            ..Default::default()
        }),
    )
    .await;
    assert!(later.rounds.is_empty() && later.next_page_token.is_empty());
    let since = list_rounds(
        &mut audit,
        list(proto::ListRoundsRequest {
            table: "T-1".into(),
            from_ms: started,
            ..Default::default()
        }),
    )
    .await;
    assert_eq!(ids(&since), ids(&t1));
    // Scoped to T-1: d-ann's rounds there only; T-2 by name refused.
    let scoped_ann = list_rounds(
        &mut scoped,
        list(proto::ListRoundsRequest {
            dealer: "d-ann".into(),
            ..Default::default()
        }),
    )
    .await;
    assert_eq!(
        ids(&scoped_ann),
        newest_first(&|p| p.dealer == "d-ann" && p.table == "T-1")
    );
    let denied = scoped
        .list_rounds(list(proto::ListRoundsRequest {
            table: "T-2".into(),
            ..Default::default()
        }))
        .await
        .unwrap_err();
    assert_eq!(denied.code(), Code::PermissionDenied, "{denied:?}");
    let neither = audit
        .list_rounds(proto::ListRoundsRequest::default())
        .await
        .unwrap_err();
    assert_eq!(neither.code(), Code::InvalidArgument, "{neither:?}");

    // The export: by dealer (Parquet), by round (CSV), by player (JSON Lines), read by DuckDB.
    let out = tempfile::tempdir().unwrap();
    let expected_places = |pick: &dyn Fn(&Played, &proto::RoundPlaceView) -> bool| {
        let mut rows = Vec::new();
        for p in &played {
            let view = &views[&p.id];
            for place in view.places.iter().filter(|pl| pick(p, pl)) {
                let staked: u64 = place.stakes.iter().map(|w| w.amount).sum();
                let paid = match (&place.settlement, &place.void) {
                    (_, Some(void)) => void.paid_now,
                    (Some(settled), None) => settled.total_paid,
                    (None, None) => 0,
                };
                rows.push(serde_json::json!({
                    "round_id": p.id,
                    "place": place.place,
                    "seat": (place.seat != 0).then_some(place.seat),
                    "player": place.player,
                    "table": p.table,
                    "dealer": p.dealer,
                    "game": game_id(p.game),
                    "round_phase": view.phase,
                    "status": place.status,
                    "staked": staked,
                    "paid": paid,
                    "net": paid as i64 - staked as i64,
                    "void_kind": place.void.as_ref().map(|v| v.kind.clone()),
                    "opened_at_ms": view.opened_at_ms,
                }));
            }
        }
        rows.sort_by_key(|r| (r["round_id"].to_string(), r["place"].as_u64()));
        rows
    };
    let cases: [(&str, Vec<&str>, Vec<serde_json::Value>); 3] = [
        (
            "parquet",
            vec!["--dealer", "d-ann"],
            expected_places(&|p, _| p.dealer == "d-ann"),
        ),
        (
            "csv",
            vec!["--round", &voided],
            expected_places(&|p, _| p.id == voided),
        ),
        (
            "jsonl",
            vec!["--player", "p1"],
            expected_places(&|_, place| place.player == "p1"),
        ),
    ];
    for (format, filter, expected) in cases {
        let dir = out.path().join(format);
        let mut args = vec![
            "--from",
            "0",
            "--format",
            format,
            "--out",
            dir.to_str().unwrap(),
        ];
        args.extend(filter.iter().copied());
        let (ok, stdout, stderr) = export(&server, &args);
        assert!(ok, "{format}: {stderr}");
        assert_eq!(stdout.lines().count(), 4, "a line per table: {stdout}");
        let read = read_places(&dir, format);
        assert_eq!(
            read["places"],
            serde_json::Value::from(expected.clone()),
            "{format}"
        );
        // Each place's bet lines: a settled place's settlement lines pay its `paid`, a voided
        // place's void lines its `paid` now; a place in play has none, and the lines are those of
        // the places exported only.
        let lines = &read["place_lines"];
        for place in &expected {
            let key = format!("{}/{}", place["round_id"].as_str().unwrap(), place["place"]);
            let kind = match place["status"].as_str().unwrap() {
                "settled" => "settlement",
                "voided" => "void",
                _ => {
                    assert!(
                        lines.get(&key).is_none(),
                        "{format}: {key} in play has lines"
                    );
                    continue;
                }
            };
            assert_eq!(
                lines[&key][kind], place["paid"],
                "{format}: {key}'s {kind} lines"
            );
        }
        assert_eq!(
            lines.as_object().map_or(0, |l| l.len()),
            expected
                .iter()
                .filter(|p| p["status"] != "in_progress")
                .count(),
            "{format}: lines of the exported places only"
        );
        let rounds: std::collections::BTreeSet<&str> = expected
            .iter()
            .filter_map(|r| r["round_id"].as_str())
            .collect();
        // Every entry of each exported round, and no hand but the player's.
        let entries: u64 = rounds.iter().map(|id| views[*id].version).sum();
        assert_eq!(read["round_events"], entries, "{format}");
        let hands = if filter[0] == "--player" { 1 } else { 0 };
        assert_eq!(
            read["hands"], hands,
            "{format}: hands have no dealer and no round"
        );
    }
}

/// The places, hands and round entries DuckDB reads in an export (`tests/python/export_places.py`).
fn read_places(dir: &Path, format: &str) -> serde_json::Value {
    python_reads("export_places.py", dir, format)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_table_malfunction_voids_the_tables_rounds_in_its_range_once() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process(data.path());
    let mut c = clients(&server).await;
    let folded = [("p1", 100, 0, "fold"), ("p2", 200, 100, "raise")];
    let mut rounds = Vec::new();
    for i in 0..5 {
        let id = if i == 2 {
            // Still in play: its players have not decided.
            let bets = [("p1", vec![wager("ante", 300)])];
            open_and_bet(&mut c, proto::Game::CaribbeanStud, "T-m", "d", &bets).await
        } else {
            caribbean(&mut c, "T-m", "d", &folded).await.id
        };
        rounds.push(table_view(&mut c, &id).await);
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // Another table's round in the range is not touched.
    let elsewhere = caribbean(&mut c, "T-n", "d", &folded).await.id;
    let (from, to) = (rounds[1].opened_at_ms, rounds[3].opened_at_ms);
    let malfunction = proto::RecordTableMalfunctionRequest {
        table: "T-m".into(),
        from_ms: from,
        to_ms: to,
        reason: "the shuffler dealt from a stale deck".into(),
        ..Default::default()
    };
    let proposed = c
        .ops
        .record_table_malfunction(malfunction.clone())
        .await
        .unwrap()
        .into_inner();
    let done = c
        .approve(&proposed.proposal)
        .await
        .expect("approved")
        .table_malfunction
        .expect("the malfunction's result");
    let mut voided = done.voided_round_ids.clone();
    voided.sort();
    let mut expected: Vec<String> = rounds[1..4].iter().map(|r| r.round_id.clone()).collect();
    expected.sort();
    assert_eq!(voided, expected);
    assert_eq!((done.voided_round_count, done.skipped_round_count), (3, 0));
    for (i, before) in rounds.iter().enumerate() {
        let after = table_view(&mut c, &before.round_id).await;
        if !(1..4).contains(&i) {
            assert_eq!(
                (after.phase.as_str(), after.version),
                (before.phase.as_str(), before.version),
                "round {i}"
            );
            continue;
        }
        assert_eq!(after.phase, "voided", "round {i}");
        for place in &after.places {
            let v = place.void.as_ref().expect("every place voided");
            assert_eq!(v.kind, "malfunction");
            assert_eq!(
                v.paid_now, v.total_staked,
                "round {i}: every stake refunded"
            );
            assert_eq!(
                (v.recorded_by.as_str(), v.approved_by.as_str()),
                ("admin", "second")
            );
        }
    }
    assert_eq!(table_view(&mut c, &elsewhere).await.phase, "ended");
    // Again: the range's rounds are voided already.
    let again = c
        .ops
        .record_table_malfunction(proto::RecordTableMalfunctionRequest {
            reason: "again".into(),
            ..malfunction
        })
        .await
        .unwrap()
        .into_inner();
    let again = c
        .approve(&again.proposal)
        .await
        .expect("approved")
        .table_malfunction
        .expect("the malfunction's result");
    assert_eq!(
        (again.voided_round_count, again.skipped_round_count),
        (0, 3)
    );
    assert!(again.voided_round_ids.is_empty());
}

/// Another dealer takes over a table's round between the deal and the showdown: refused to the
/// dealer already dealing and to a player of the round (naming `change_dealer.dealer`, writing
/// nothing) and after the round ended; from the change on the round is the new dealer's — its
/// settlements in the returns per dealer, the round listed under both dealers (with both named),
/// the change a significant event; recall and the export by seat list only that seat's place.
#[tokio::test(flavor = "multi_thread")]
async fn a_dealer_who_takes_over_a_round_is_its_dealer_from_then_on_and_a_seat_is_found() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process(data.path());
    let mut c = clients(&server).await;
    let bets: Vec<(&str, Vec<proto::Wager>)> = ["p1", "p2", "p3"]
        .iter()
        .map(|p| (*p, vec![wager("ante", 500), wager("bonus", 100)]))
        .collect();
    let id = open_and_bet(&mut c, proto::Game::CaribbeanStud, "T-9", "d-first", &bets).await;
    let change = |dealer: &str| {
        RoundCmd::ChangeDealer(proto::RoundChangeDealerCommand {
            dealer: dealer.into(),
            reason: "shift change".into(),
        })
    };
    let before = crate::support::head(&mut c).await;
    for dealer in ["d-first", "p2"] {
        let refused = crate::support::round_command(&mut c, &id, change(dealer))
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
        assert!(
            refused.message().starts_with("change_dealer.dealer"),
            "{}",
            refused.message()
        );
    }
    assert_eq!(
        crate::support::head(&mut c).await,
        before,
        "a refused change writes nothing"
    );
    let view = command(&mut c, &id, change("d-second")).await;
    assert_eq!(view.dealer, "d-second");
    for (seat, player) in [(1, "p1"), (2, "p2"), (3, "p3")] {
        command(&mut c, &id, decide(player, seat, "raise", "")).await;
    }
    let ended = table_view(&mut c, &id).await;
    assert_eq!(
        (ended.phase.as_str(), ended.dealer.as_str()),
        ("ended", "d-second")
    );
    let late = crate::support::round_command(&mut c, &id, change("d-third"))
        .await
        .unwrap_err();
    assert_eq!(late.code(), Code::FailedPrecondition, "{late:?}");

    // The returns: every settlement under the dealer who took over, none under the first.
    returns_caught_up(&mut c).await;
    let mut expected = Totals::new();
    for place in &ended.places {
        let settled = place.settlement.as_ref().expect("settled at the showdown");
        add(&mut expected, "d-second", "caribbean_stud", settled);
    }
    let by_dealer = returns_by(
        &mut c.audit,
        proto::GetReturnsRequest {
            by: proto::ReturnsBy::Dealer as i32,
            ..Default::default()
        },
    )
    .await;
    assert_eq!(by_dealer, expected);

    // Recall: the round under each dealer who dealt it, both named, the last its dealer.
    for dealer in ["d-first", "d-second"] {
        let listed = list_rounds(
            &mut c.audit,
            proto::ListRoundsRequest {
                dealer: dealer.into(),
                ..Default::default()
            },
        )
        .await
        .rounds;
        assert_eq!(listed.len(), 1, "{dealer}: {listed:?}");
        assert_eq!(listed[0].round_id, id);
        assert_eq!(listed[0].dealer, "d-second");
        assert_eq!(listed[0].dealers, ["d-first", "d-second"]);
    }
    // By seat: the round with that seat's place only; a seat nobody sat at lists nothing.
    let seat = |seat: u32| proto::ListRoundsRequest {
        table: "T-9".into(),
        seat,
        ..Default::default()
    };
    let at_two = list_rounds(&mut c.audit, seat(2)).await.rounds;
    assert_eq!(at_two.len(), 1);
    let places: Vec<(u32, &str)> = at_two[0]
        .places
        .iter()
        .map(|p| (p.seat, p.player.as_str()))
        .collect();
    assert_eq!(places, [(2, "p2")]);
    assert_eq!(
        at_two[0].places[0].paid,
        ended.places[1].settlement.as_ref().unwrap().total_paid
    );
    let at_five = list_rounds(&mut c.audit, seat(5)).await.rounds;
    assert!(at_five.is_empty(), "{at_five:?}");
    // A player and a seat: only a round where that player sat there.
    let p1_at = |seat: u32| proto::ListRoundsRequest {
        player: "p1".into(),
        seat,
        ..Default::default()
    };
    let p1_at_two = list_rounds(&mut c.audit, p1_at(2)).await.rounds;
    assert!(p1_at_two.is_empty(), "p1 sat at seat 1: {p1_at_two:?}");
    let p1_at_one = list_rounds(&mut c.audit, p1_at(1)).await.rounds;
    assert_eq!(p1_at_one.len(), 1);
    assert_eq!(p1_at_one[0].places.len(), 1);

    // The significant event: who before, who after, why, by whom.
    let events = c
        .audit
        .list_significant_events(proto::ListSignificantEventsRequest {
            kinds: vec!["round_dealer_changed".into()],
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .events;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(
        (
            events[0].before.as_str(),
            events[0].after.as_str(),
            events[0].reason.as_str()
        ),
        ("dealer d-first", "dealer d-second", "shift change")
    );
    assert_eq!(events[0].subject, format!("round {id}"));

    // The export by seat, read by DuckDB: seat 2's place alone, under the dealer at the end.
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("seat");
    let (ok, _, stderr) = export(
        &server,
        &[
            "--from",
            "0",
            "--table",
            "T-9",
            "--seat",
            "2",
            "--format",
            "parquet",
            "--out",
            dir.to_str().unwrap(),
        ],
    );
    assert!(ok, "{stderr}");
    let read = read_places(&dir, "parquet");
    let rows = read["places"].as_array().expect("places");
    assert_eq!(rows.len(), 1, "{read}");
    assert_eq!(rows[0]["seat"], 2);
    assert_eq!(rows[0]["player"], "p2");
    assert_eq!(rows[0]["dealer"], "d-second");
    assert_eq!(read["hands"], 0, "no hand has a seat");
}
