//! `pitboss deal --game GAME --seed HEX64 [--seats N]`: one JSON object with the commitment, the
//! shuffled deck (or the dice) and each seat's cards in the game's deal order — one player's hand,
//! or with `--seats` a round's seats dealt from the one shuffle (`docs/rng.md` §6a).

use clap::Args;
use serde_json::{json, Value};

use pitboss_engine::deal::{self, Deal};
use pitboss_engine::game::GameId;
use pitboss_engine::rng::Seed;

#[derive(Debug, Args)]
pub struct DealArgs {
    /// mississippi_stud, fortune_pai_gow, nutz or caribbean_stud.
    #[arg(long)]
    game: GameId,
    /// The hand's seed: 64 hexadecimal digits.
    #[arg(long, value_parser = |s: &str| Seed::from_hex(s))]
    seed: Seed,
    /// A round's player seats, dealt from the one shuffle (card games: 1 to the table's most).
    #[arg(long)]
    seats: Option<u8>,
}

pub fn run(args: DealArgs) -> anyhow::Result<()> {
    let json = match args.seats {
        None => deal_json(&deal::derive(args.game, &args.seed), &args.seed),
        Some(seats) => round_json(
            &deal::derive_round(args.game, &args.seed, seats)?,
            &args.seed,
        ),
    };
    println!("{}", serde_json::to_string_pretty(&json)?);
    Ok(())
}

/// The JSON form of a round's deal (also used by the RNG test vectors): its deck, and each place
/// — a numbered player seat, the dealer, the community cards — with its positions and cards.
pub fn round_json(deal: &Deal, seed: &Seed) -> Value {
    let places: Vec<Value> = deal
        .seats
        .iter()
        .map(|place| {
            let mut object = json!({
                "seat": place.seat.id(),
                "positions": place.positions,
                "cards": place.cards.iter().map(ToString::to_string).collect::<Vec<_>>(),
            });
            if let Some(number) = place.number {
                object["number"] = json!(number);
            }
            object
        })
        .collect();
    let seats = deal.seats.iter().filter(|p| p.number.is_some()).count();
    json!({
        "game": deal.game.id(),
        "seed": seed.to_hex(),
        "commitment": deal.commitment.to_string(),
        "seats": seats,
        "deck": deal.deck.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "places": places,
    })
}

/// The JSON form of a derived deal (also used by the RNG test vectors).
pub fn deal_json(deal: &Deal, seed: &Seed) -> Value {
    let strings = |cards: &[pitboss_engine::card::Card]| -> Vec<String> {
        cards.iter().map(ToString::to_string).collect()
    };
    let mut object = json!({
        "game": deal.game.id(),
        "seed": seed.to_hex(),
        "commitment": deal.commitment.to_string(),
    });
    if deal.seats.is_empty() {
        object["dice"] = json!(deal.dice.iter().map(|d| d.value()).collect::<Vec<_>>());
        object["dice_note"] = json!(
            "the first 15 draws of uniform(6)+1; shake 1 takes the first five, each later shake takes \
             the next draws for the dice it re-shakes, in ascending die position"
        );
    } else {
        object["deck"] = json!(strings(&deal.deck));
        let layouts = deal.game.layout();
        object["seats"] = json!(deal
            .seats
            .iter()
            .zip(layouts)
            .map(|(seat, layout)| json!({
                "seat": seat.seat.id(),
                "positions": seat.positions,
                "cards": strings(&seat.cards),
                "note": layout.note,
            }))
            .collect::<Vec<_>>());
    }
    object
}
