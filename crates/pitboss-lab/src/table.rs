//! A full table simulated through the engine's [`Round`]: each round of a run deals every seat
//! from one shuffle, each seat's player decides by the run's strategy as the round lets them (a
//! seat waits while the table has not seen a card its hand has been shown), and the round settles
//! every seat at one showdown. The report holds each seat's groups apart, each against the exact
//! PAR sheet of one player's hand: seats dealt from one deck are not independent of each other, but
//! every seat's cards are a uniformly drawn hand, so each seat's expectation is one hand's.
//!
//! Round `i` of a run is dealt from the seed a run's hand `i` would be (`simulate`), so a run is the
//! same whatever the number of threads.

use std::sync::Arc;

use pitboss_engine::config::Identified;
use pitboss_engine::game::GameId;
use pitboss_engine::games::Timestamp;
use pitboss_engine::round::{
    Decide, OpenRound, Phase, PlaceBet, Round, RoundCommand, RoundError, Shape,
};
use pitboss_engine::settlement::Wager;

use crate::error::LabError;
use crate::simulate::{
    exact_sheets, group_reports, hand_seed, reference_wagers, spread, tally, GroupReport,
    GroupTally, Player, Request,
};
use crate::strategy::Strategy;

/// One seat's report: its groups, each against the exact sheet.
#[derive(Clone, Debug)]
pub struct SeatReport {
    /// The seat's number, from 1.
    pub seat: u8,
    /// Per bet group.
    pub groups: Vec<GroupReport>,
}

/// A table run's report.
#[derive(Clone, Debug)]
pub struct TableReport {
    /// The game.
    pub game: GameId,
    /// Its configuration id.
    pub config_id: String,
    /// The strategy every seat plays.
    pub strategy: Strategy,
    /// Seats at the table, every one occupied.
    pub seats: u8,
    /// Rounds played.
    pub rounds: u64,
    /// Per seat.
    pub per_seat: Vec<SeatReport>,
    /// Wall-clock seconds of the rounds.
    pub seconds: f64,
}

/// Plays `request.hands` rounds of a full table of `seats` seats.
pub fn run(request: &Request, seats: u8, run: &crate::Run) -> Result<TableReport, LabError> {
    let config = Arc::new(request.config.clone());
    let game = config.game;
    let groups = game.facts().groups.len();
    let player = Player::new(&config, request.strategy, request.threads)?;
    let wagers = reference_wagers(&config)?;
    let identified = Identified::new(config.clone());
    // A table the game does not deal is refused before any round is played.
    round(0, request, seats, &identified, &wagers, &player)?;
    let started = std::time::Instant::now();
    let totals = spread(
        request,
        run,
        || vec![vec![GroupTally::default(); groups]; usize::from(seats)],
        |i, per_seat| {
            let round = round(i, request, seats, &identified, &wagers, &player)?;
            for (place, tallies) in round.places().iter().zip(per_seat.iter_mut()) {
                tally(game, place.hand(), tallies)?.ok_or(LabError::Unsettled { hand: i })?;
            }
            Ok(())
        },
        |total, part| {
            for (seat, part) in total.iter_mut().zip(part) {
                for (t, p) in seat.iter_mut().zip(part) {
                    t.merge(&p);
                }
            }
        },
    )?;
    let seconds = started.elapsed().as_secs_f64();
    let sheets = exact_sheets(&config, request.strategy, request.threads)?;
    Ok(TableReport {
        game,
        config_id: config.id().to_string(),
        strategy: request.strategy,
        seats,
        rounds: request.hands,
        per_seat: totals
            .into_iter()
            .enumerate()
            .map(|(k, tallies)| SeatReport {
                seat: k as u8 + 1,
                groups: group_reports(game, tallies, &sheets),
            })
            .collect(),
        seconds,
    })
}

/// Round `number` of a run, from its opening to its showdown.
fn round(
    number: u64,
    request: &Request,
    seats: u8,
    config: &Identified,
    wagers: &[Wager],
    player: &Player,
) -> Result<Round, LabError> {
    let refused = |source: RoundError| LabError::Round {
        round: number,
        source,
    };
    let mut round = Round::new(hand_seed(&request.seed, number), config.clone());
    let at = Timestamp(0);
    let step = |round: &mut Round, command: RoundCommand| {
        round.step(&command).map(|_| ()).map_err(refused)
    };
    step(
        &mut round,
        RoundCommand::Open(OpenRound {
            table: "lab".into(),
            dealer: "lab".into(),
            shoe: None,
            shape: Shape::Seats { seats },
            max_players: u32::from(seats),
            seats_per_player: 1,
            decision_window_ms: pitboss_engine::round::WINDOW_MIN_MS,
            at,
        }),
    )?;
    for seat in 1..=seats {
        step(
            &mut round,
            RoundCommand::Bet(PlaceBet {
                seed_digest: None,
                player: format!("seat {seat}"),
                seat: Some(seat),
                wagers: wagers.to_vec(),
                at,
            }),
        )?;
    }
    step(&mut round, RoundCommand::CloseBetting { at, shaker: None })?;
    while round.phase() == Phase::Playing {
        let ready: Vec<(String, Option<u8>)> = round
            .places()
            .iter()
            .filter(|p| p.in_play() && p.waiting().is_empty())
            .map(|p| (p.player().to_string(), p.seat()))
            .collect();
        if ready.is_empty() {
            return Err(LabError::Stuck { round: number });
        }
        for (who, seat) in ready {
            let Some(place) = round.places().iter().find(|p| p.seat() == seat) else {
                continue;
            };
            if !place.in_play() {
                continue;
            }
            let action = player.choose(place.hand())?;
            step(
                &mut round,
                RoundCommand::Decide(Decide {
                    player: who,
                    seat,
                    action,
                    at,
                }),
            )?;
        }
    }
    Ok(round)
}

impl TableReport {
    /// As JSON: each seat's groups.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "game": self.game.to_string(),
            "config_id": self.config_id,
            "strategy": self.strategy.to_string(),
            "seats": self.seats,
            "rounds": self.rounds,
            "seconds": self.seconds,
            "per_seat": self.per_seat.iter().map(|seat| serde_json::json!({
                "seat": seat.seat,
                "groups": seat.groups.iter().map(GroupReport::json).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })
    }

    /// As Markdown: each seat's groups.
    pub fn markdown(&self) -> String {
        let mut out = format!(
            "# {} simulated at a full table of {} seats, strategy {}: {} rounds ({} seat-hands) in {:.1} s\n\nconfiguration `{}`; every seat held against the exact sheet of one player's hand\n",
            self.game,
            self.seats,
            self.strategy,
            self.rounds,
            self.rounds * u64::from(self.seats),
            self.seconds,
            self.config_id,
        );
        for seat in &self.per_seat {
            for g in &seat.groups {
                out += &format!("\n## seat {}: {}\n\n", seat.seat, g.name);
                out += &g.markdown();
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitboss_engine::config::GameConfig;
    use pitboss_engine::rng::Seed;

    /// A full table of every card game through the engine's rounds (a fixed seed: the same result
    /// on every run). Every seat's row frequencies, for every group with an exact sheet, pass the
    /// chi-square against one hand's exact probabilities at 0.1 %; every seat's return on the main
    /// bet (where a table's shared deck could tilt a decision) lies inside its 99 % interval. A bonus's return rests on rows hit a
    /// few times in a million, which a per-seat interval of a few thousand rounds cannot hold; its
    /// row frequencies are held by the chi-square, its return by `pitboss simulate --seats` runs
    /// of a million rounds (`docs/rounds.md`).
    #[test]
    fn every_seat_of_a_full_table_keeps_one_hands_exact_return() {
        for (game, rounds) in [
            (GameId::CaribbeanStud, 6_000),
            (GameId::MississippiStud, 6_000),
            (GameId::FortunePaiGow, 3_000),
        ] {
            let seats = game.facts().max_seats.unwrap();
            let request = Request {
                config: GameConfig::default_for(game),
                hands: rounds,
                strategy: Strategy::Optimal,
                seed: Seed::from_bytes([7; 32]),
                threads: crate::threads(),
            };
            let report = run(&request, seats, &crate::Run::default()).unwrap();
            assert_eq!(report.per_seat.len(), usize::from(seats));
            let mut held = 0;
            for seat in &report.per_seat {
                for g in &seat.groups {
                    assert_eq!(
                        g.tally.hands, rounds,
                        "{game} seat {}: every round settled",
                        seat.seat
                    );
                    let Some(exact) = &g.exact else { continue };
                    let chi = g.chi_square.as_ref().unwrap();
                    assert!(
                        chi.p_value > 0.001,
                        "{game} seat {} {}: p = {}",
                        seat.seat,
                        g.name,
                        chi.p_value
                    );
                    held += 1;
                    if g.name != "main" {
                        continue;
                    }
                    let (low, high) = g.tally.interval_at(2.576);
                    assert!(
                        (low..=high).contains(&exact.return_rate()),
                        "{game} seat {} {}: exact {} outside {low}..{high}",
                        seat.seat,
                        g.name,
                        exact.return_rate()
                    );
                    let chi = g.chi_square.as_ref().unwrap();
                    assert!(
                        chi.p_value > 0.001,
                        "{game} seat {} {}: p = {}",
                        seat.seat,
                        g.name,
                        chi.p_value
                    );
                    held += 1;
                }
            }
            assert!(
                held >= usize::from(seats),
                "{game}: at least one exact group per seat"
            );
        }
    }

    #[test]
    fn a_table_the_game_does_not_deal_is_refused_before_any_round() {
        let request = Request {
            config: GameConfig::default_for(GameId::FortunePaiGow),
            hands: 10,
            strategy: Strategy::Optimal,
            seed: Seed::from_bytes([1; 32]),
            threads: 1,
        };
        let error = run(&request, 7, &crate::Run::default()).unwrap_err();
        assert!(matches!(error, LabError::Round { round: 0, .. }), "{error}");
    }
}
