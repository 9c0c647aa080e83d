//! Conversions between protobuf messages and engine types, and the `INVALID_ARGUMENT` errors that
//! name the offending field when a message does not convert.

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

use crate::engine::deal::Deal;
use crate::engine::game::GameId;
use crate::engine::rng::Seed;
use crate::proto;

/// An `INVALID_ARGUMENT` status whose details carry one field violation.
pub fn invalid_argument(field: &str, description: impl Into<String>) -> Status {
    let description = description.into();
    Status::with_error_details(
        Code::InvalidArgument,
        format!("{field}: {description}"),
        ErrorDetails::with_bad_request_violation(field, description),
    )
}

/// The engine's game id for a protobuf `Game`.
pub fn game(field: &str, value: i32) -> Result<GameId, Status> {
    match proto::Game::try_from(value) {
        Ok(proto::Game::MississippiStud) => Ok(GameId::MississippiStud),
        Ok(proto::Game::FortunePaiGow) => Ok(GameId::FortunePaiGow),
        Ok(proto::Game::Nutz) => Ok(GameId::Nutz),
        Ok(proto::Game::CaribbeanStud) => Ok(GameId::CaribbeanStud),
        Ok(proto::Game::Unspecified) => Err(invalid_argument(
            field,
            "the game is required: GAME_MISSISSIPPI_STUD, GAME_FORTUNE_PAI_GOW, GAME_NUTZ or GAME_CARIBBEAN_STUD",
        )),
        Err(_) => Err(invalid_argument(field, format!("{value} is not a known Game value"))),
    }
}

/// A 32-byte seed.
pub fn seed(field: &str, bytes: &[u8]) -> Result<Seed, Status> {
    Seed::from_slice(bytes).map_err(|err| invalid_argument(field, err.to_string()))
}

/// The protobuf form of a derived deal.
pub fn deal_to_proto(deal: &Deal) -> proto::DeriveDealResponse {
    proto::DeriveDealResponse {
        commitment: deal.commitment.to_string(),
        deck: deal.deck.iter().map(ToString::to_string).collect(),
        dice: deal.dice.iter().map(|d| u32::from(d.value())).collect(),
        seats: deal
            .seats
            .iter()
            .map(|seat| proto::Seat {
                name: seat.seat.id().to_string(),
                cards: seat.cards.iter().map(ToString::to_string).collect(),
                deck_positions: seat.positions.iter().map(|&p| p as u32).collect(),
            })
            .collect(),
    }
}
