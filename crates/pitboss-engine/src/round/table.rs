//! Where a round's cards go and when the table sees them.
//!
//! [`Layout`]: each place's projection of the one shuffle onto a one-player hand's deck positions
//! (seat `k`'s block and the dealer's or community cards of `GameId::round_layout`; a shared hand's
//! one-seat deal, which is exactly a one-player hand's), and which round positions the whole table
//! sees once turned (the dealer's and community cards; every card of a shared hand).
//!
//! [`Sight`]: which table positions are turned, and how many places still in play are waiting for
//! each. A place's one-player hand turns a card the moment its player decides (a Mississippi Stud
//! street's community card, a Caribbean Stud dealer's hand); the table sees it only once every place
//! still in play has come to it, so no player learns a card before another has decided without it.
//! Nothing here decides a rule.

use std::ops::Range;
use std::sync::Arc;

use super::command::Shape;
use super::error::RoundError;
use crate::card::Card;
use crate::game::{GameId, Material, Seat};

/// Where a round's cards go.
#[derive(Clone, Debug, Default)]
pub(super) struct Layout {
    /// One projection per seat (index `seat − 1`), or one for a shared hand: a one-player hand's
    /// deck position → the round's.
    maps: Vec<Arc<[u8]>>,
    /// The round positions each seat receives (index `seat − 1`); empty unless seats.
    seats: Vec<Range<usize>>,
    /// Per round position: whether the whole table sees it once turned.
    table: Vec<bool>,
}

impl Layout {
    /// The layout of `shape` for `game`, or the refusal of a shape the game does not deal.
    pub(super) fn new(game: GameId, shape: Shape) -> Result<Layout, RoundError> {
        let not_dealt = || RoundError::ShapeNotThisGame {
            game,
            shape: shape.name(),
        };
        let deck = match game.material() {
            Material::Cards(deck) => deck.len(),
            Material::Dice { .. } => {
                return match shape {
                    Shape::OneShake => Ok(Layout::default()),
                    _ => Err(not_dealt()),
                }
            }
        };
        let one = game.layout();
        let hand_len = one.iter().map(|l| l.positions.end).max().unwrap_or(0);
        match shape {
            Shape::OneShake => Err(not_dealt()),
            Shape::SharedHand => {
                let identity: Vec<u8> = (0..hand_len).map(|p| p as u8).collect();
                let mut table = vec![false; deck];
                table[..hand_len].iter_mut().for_each(|t| *t = true);
                Ok(Layout {
                    maps: vec![identity.into()],
                    seats: Vec::new(),
                    table,
                })
            }
            Shape::Seats { seats } => {
                let round = game.round_layout(seats)?;
                let (players, others): (Vec<_>, Vec<_>) =
                    round.into_iter().partition(|p| p.seat == Seat::Player);
                let mut table = vec![false; deck];
                for place in &others {
                    table[place.positions.clone()]
                        .iter_mut()
                        .for_each(|t| *t = true);
                }
                let maps = players
                    .iter()
                    .map(|seat| {
                        let mut map = vec![0u8; hand_len];
                        let mut others = others.iter();
                        for place in one {
                            let target = if place.seat == Seat::Player {
                                Some(&seat.positions)
                            } else {
                                others.next().map(|o| &o.positions)
                            };
                            for (from, to) in place
                                .positions
                                .clone()
                                .zip(target.cloned().into_iter().flatten())
                            {
                                map[from] = to as u8;
                            }
                        }
                        map.into()
                    })
                    .collect();
                Ok(Layout {
                    maps,
                    seats: players.into_iter().map(|p| p.positions).collect(),
                    table,
                })
            }
        }
    }

    /// The projection of a place: its seat's, or the shared hand's (`None`); empty for dice.
    pub(super) fn map(&self, seat: Option<u8>) -> Arc<[u8]> {
        let index = seat.map_or(0, |s| usize::from(s.saturating_sub(1)));
        self.maps
            .get(index)
            .cloned()
            .unwrap_or_else(|| Arc::from([]))
    }

    /// The round positions seat `seat` receives.
    pub(super) fn seat_positions(&self, seat: u8) -> Range<usize> {
        seat.checked_sub(1)
            .and_then(|s| self.seats.get(usize::from(s)))
            .cloned()
            .unwrap_or(0..0)
    }

    /// Whether the table sees round position `position` once turned.
    pub(super) fn is_table(&self, position: u8) -> bool {
        self.table
            .get(usize::from(position))
            .copied()
            .unwrap_or(false)
    }

    /// Every table position, in order.
    pub(super) fn table_positions(&self) -> impl Iterator<Item = u8> + '_ {
        (0..self.table.len())
            .filter(|&p| self.table[p])
            .map(|p| p as u8)
    }

    /// How many round positions the deck has (0 for dice).
    pub(super) fn deck_len(&self) -> usize {
        self.table.len()
    }
}

/// A place's one-player deck: the round's cards at its projection.
pub(super) fn projected(deck: &[Card], map: &[u8]) -> Vec<Card> {
    map.iter()
        .filter_map(|&p| deck.get(usize::from(p)).copied())
        .collect()
}

/// Which table positions are turned and how many places in play wait for each.
#[derive(Clone, Debug, Default)]
pub(super) struct Sight {
    /// Per round position: turned for the table.
    revealed: Vec<bool>,
    /// Per round position: how many places in play have been shown it, unturned.
    wanting: Vec<u32>,
    /// How many places are in play.
    live: u32,
}

impl Sight {
    /// Nothing turned, no place yet, over a deck of `len` positions.
    pub(super) fn new(len: usize) -> Sight {
        Sight {
            revealed: vec![false; len],
            wanting: vec![0; len],
            live: 0,
        }
    }

    /// How many places are in play.
    pub(super) fn live(&self) -> u32 {
        self.live
    }

    /// Whether the table has seen round position `position`.
    pub(super) fn revealed(&self, position: u8) -> bool {
        self.revealed
            .get(usize::from(position))
            .copied()
            .unwrap_or(false)
    }

    /// A place leaves play or stops waiting for `waiting`.
    pub(super) fn leave(&mut self, live: bool, waiting: &[u8]) {
        if live {
            for &p in waiting {
                self.wanting[usize::from(p)] -= 1;
            }
            self.live -= 1;
        }
    }

    /// A place enters play (or stays in it) waiting for `waiting`.
    pub(super) fn enter(&mut self, live: bool, waiting: &[u8]) {
        if live {
            for &p in waiting {
                self.wanting[usize::from(p)] += 1;
            }
            self.live += 1;
        }
    }

    /// The table positions every place in play is waiting for: they can be turned.
    pub(super) fn ready(&self, layout: &Layout) -> Vec<u8> {
        if self.live == 0 {
            return Vec::new();
        }
        layout
            .table_positions()
            .filter(|&p| !self.revealed(p) && self.wanting[usize::from(p)] == self.live)
            .collect()
    }

    /// Turns `positions` for the table (no place waits for them any more: the caller drops them
    /// from each place's waiting list).
    pub(super) fn turn(&mut self, positions: &[u8]) {
        for &p in positions {
            self.revealed[usize::from(p)] = true;
            self.wanting[usize::from(p)] = 0;
        }
    }
}
