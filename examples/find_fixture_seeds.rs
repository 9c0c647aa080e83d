//! Finds the seeds of the scripted hands in `fixtures/hands/`: for each scenario, the first counter
//! `n` such that the seed `SHA-256("pitboss fixture <name> <n>")` deals what the scenario needs.
//! Run: `cargo run --release --example find_fixture_seeds`. The fixtures record the name and `n`, and
//! `tests/scripted_hands.rs` re-derives the seed from them.

use std::sync::Arc;

use pitboss_engine::card::{Card, Rank};
use pitboss_engine::config::GameConfig;
use pitboss_engine::deal;
use pitboss_engine::game::GameId;
use pitboss_engine::games::{
    nutz_hand, Action, Command, Event, Hand, NutzHand, OpenHand, Shaker, Timestamp,
};
use pitboss_engine::hand::{poker5, three_card};
use pitboss_engine::house_way::{house_way_unchecked, Edition};
use pitboss_engine::money::Money;
use pitboss_engine::rng::Seed;
use pitboss_engine::settlement::{BetId, Wager};
use sha2::{Digest, Sha256};

fn seed(name: &str, n: u64) -> Seed {
    Seed::from_bytes(Sha256::digest(format!("pitboss fixture {name} {n}")).into())
}

fn find(name: &str, accept: impl Fn(&Seed) -> bool) {
    for n in 0.. {
        let s = seed(name, n);
        if accept(&s) {
            println!("{name}: n = {n}, seed = {}", s.to_hex());
            let game = match &name[..2] {
                "ms" => GameId::MississippiStud,
                "pg" => GameId::FortunePaiGow,
                "cs" => GameId::CaribbeanStud,
                _ => GameId::Nutz,
            };
            if game == GameId::Nutz {
                println!("    shakes {:?}", nutz_shakes(&s));
            } else {
                for seat in deal::derive(game, &s).seats {
                    println!(
                        "    {} {}",
                        seat.seat.id(),
                        pitboss_engine::card::format_cards(&seat.cards)
                    );
                }
            }
            return;
        }
    }
}

fn cards(game: GameId, s: &Seed) -> Vec<Card> {
    deal::derive(game, s).deck
}

fn five(c: &[Card]) -> [Card; 5] {
    [c[0], c[1], c[2], c[3], c[4]]
}

/// Plays a Nutz hand to the end, shaking as the player; returns the shakes' faces.
fn nutz_shakes(s: &Seed) -> Vec<(u8, [u8; 5])> {
    let mut hand = Hand::new(*s, Arc::new(GameConfig::default_for(GameId::Nutz)));
    let open = Command::Open(OpenHand {
        table: "t".into(),
        player: "p".into(),
        wagers: vec![Wager {
            bet: BetId::BoxNutz,
            amount: Money(100),
        }],
        at: Timestamp(0),
        rebet_of: None,
    });
    let mut shakes = Vec::new();
    let mut command = open;
    loop {
        let events = hand.decide(&command).expect("legal");
        for e in &events {
            if let Event::DiceShaken { shake, faces, .. } = e {
                shakes.push((*shake, *faces));
            }
            hand = hand.evolve(e).expect("consistent");
        }
        if hand.legal_actions().is_empty() {
            return shakes;
        }
        command = Command::Act {
            action: Action::Shake { by: Shaker::Player },
            at: Timestamp(1),
        };
    }
}

fn main() {
    let ms = GameId::MississippiStud;
    find("ms_royal_akq_max_bets", |s| {
        let c = cards(ms, s);
        let v = poker5::evaluate_unchecked(&five(&c));
        let community = [c[2], c[3], c[4]];
        v.category() == poker5::Category::RoyalFlush
            && three_card::evaluate_unchecked(&community).category()
                == three_card::Category::MiniRoyal
    });
    find("ms_fold_bonus_pays", |s| {
        let c = cards(ms, s);
        three_card::evaluate_unchecked(&[c[2], c[3], c[4]]).category()
            >= three_card::Category::Straight
    });
    find("ms_max_bet_all", |s| {
        let c = cards(ms, s);
        poker5::evaluate_unchecked(&five(&c)).category() == poker5::Category::TwoPair
    });
    find("ms_push_pair_of_sixes_to_tens", |s| {
        let c = cards(ms, s);
        let v = poker5::evaluate_unchecked(&five(&c));
        v.pair_rank()
            .is_some_and(|r| (Rank::Six..=Rank::Ten).contains(&r))
    });
    let pg = GameId::FortunePaiGow;
    let settings = |s: &Seed| {
        let c = cards(pg, s);
        let p: [Card; 7] = c[0..7].try_into().unwrap();
        let d: [Card; 7] = c[7..14].try_into().unwrap();
        (
            house_way_unchecked(&p, Edition::CURRENT).setting,
            house_way_unchecked(&d, Edition::CURRENT).setting,
        )
    };
    find("pg_copy_goes_to_dealer", |s| {
        let (p, d) = settings(s);
        let nine_high = !d.low_value().is_pair() && d.low_value().top_rank() == Rank::Nine;
        p.low_value() == d.low_value() && p.high_value() > d.high_value() && !nine_high
    });
    find("pg_dealer_nine_high_pushes_a_loss", |s| {
        let (p, d) = settings(s);
        let nine_high = !d.low_value().is_pair() && d.low_value().top_rank() == Rank::Nine;
        nine_high && p.low_value() <= d.low_value() && p.high_value() <= d.high_value()
    });
    find("pg_foul_refused", |s| {
        let c = cards(pg, s);
        // A pair of kings or better among the player's cards, so low = that pair fouls a weak high.
        let p: [Card; 7] = c[0..7].try_into().unwrap();
        let hw = house_way_unchecked(&p, Edition::CURRENT);
        hw.setting.high_value().category() == pitboss_engine::hand::pai_gow::Category::Pair
    });
    find("pg_royal_ace_joker_exception", |s| {
        // A seat whose seven cards the two house way editions set differently: a natural ace, the
        // joker and a royal flush through both (HOUSE_WAY.md rule 9).
        let c = cards(pg, s);
        [&c[0..7], &c[7..14]].iter().any(|seat| {
            let hand: [Card; 7] = (*seat).try_into().unwrap();
            house_way_unchecked(&hand, Edition::AtlanticCity2026_1).setting
                != house_way_unchecked(&hand, Edition::CURRENT).setting
        })
    });
    let nutz_final = |s: &Seed| -> (NutzHand, u8) {
        let shakes = nutz_shakes(s);
        let &(n, faces) = shakes.last().unwrap();
        (nutz_hand(faces), n)
    };
    find("nutz_first_shake_nutz", |s| {
        nutz_final(s) == (NutzHand::Nutz, 1)
    });
    find("nutz_later_nutz", |s| {
        let (h, n) = nutz_final(s);
        h == NutzHand::Nutz && n > 1
    });
    find("nutz_one_pair_after_three_shakes", |s| {
        nutz_final(s) == (NutzHand::OnePair, 3)
    });
    find("nutz_incomplete_completed_by_dealer", |s| {
        // The round goes on after the player's first shake, and ends on a paying one pair.
        let shakes = nutz_shakes(s);
        shakes.len() == 3 && nutz_hand(shakes[2].1) == NutzHand::OnePair
    });
    let cs = GameId::CaribbeanStud;
    let hands = |s: &Seed| {
        let c = cards(cs, s);
        (
            poker5::evaluate_unchecked(&five(&c[0..5])),
            poker5::evaluate_unchecked(&five(&c[5..10])),
        )
    };
    find("cs_dealer_not_qualifying", |s| {
        let (p, d) = hands(s);
        d.category() == poker5::Category::HighCard
            && (d.raw() >> 13) & 0x1800 != 0x1800
            && p.category() == poker5::Category::Pair
    });
    find("cs_stand_off", |s| {
        let (p, d) = hands(s);
        p == d && (d.category() >= poker5::Category::Pair || (d.raw() >> 13) & 0x1800 == 0x1800)
    });
    find("cs_fold_forfeits_bonus", |s| {
        hands(s).0.category() >= poker5::Category::Flush
    });
}
