//! What a reader may see of a round ([`Round::view`]): as one player — their own places' cards once
//! dealt and the decisions open to them, the other players' names masked — or as the table. Never
//! a card the table has not been shown (a place's own cards are its player's until the showdown),
//! never a settlement before the showdown announces it, never the seed before the round has ended.

use super::{BeaconArrived, BeaconMissed, Phase, Place, Round, RoundOpened, Shape};
use crate::card::Card;
use crate::games::view::{player_view, DiceView};
use crate::games::{Action, Status, Timestamp, Void};
use crate::rng::Seed;
use crate::settlement::{Settlement, Wager};

/// The most places one view lists.
pub const PAGE_MAX: u32 = 500;

/// One place as the reader may see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlaceView {
    /// The place's number.
    pub place: u32,
    /// Its seat, in a round of seats.
    pub seat: Option<u8>,
    /// Its player; `None` when masked (another player's place, in a player's view).
    pub player: Option<String>,
    /// The view's player's own place.
    pub yours: bool,
    /// As the table knows it: a place settled in its hand before the showdown is in progress.
    pub status: Status,
    /// Every stake placed on it.
    pub stakes: Vec<Wager>,
    /// Its own cards (a seat's), with the round's deck positions: its player's once dealt,
    /// everyone's at the showdown; `None` face down.
    pub cards: Vec<(u8, Option<Card>)>,
    /// What the view's player may decide on it now.
    pub legal: Vec<Action>,
    /// Its player has decided and waits for the other places.
    pub waiting: bool,
    /// Its settlement, from the showdown on.
    pub settlement: Option<Settlement>,
    /// Its void, once recorded.
    pub void: Option<Void>,
    /// The digest of the seed its player sent with the bet (every reader sees every digest: a
    /// digest tells nothing of the seed, and each player needs all of them to re-derive the deal).
    pub seed_digest: Option<[u8; 32]>,
}

/// A round as the reader may see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundView {
    /// Where the round stands.
    pub phase: Phase,
    /// How many events it has caused.
    pub version: u64,
    /// Its opening record (the commitment, not the seed).
    pub opened: Option<RoundOpened>,
    /// When the decision window closes, once dealt.
    pub window_closes: Option<Timestamp>,
    /// Nutz: the bettor offered the cup.
    pub shaker: Option<String>,
    /// The cards turned for the table, by round position.
    pub table_cards: Vec<(u8, Card)>,
    /// Nutz: the dice, once shaken (the same for every bettor).
    pub dice: Option<DiceView>,
    /// The places listed.
    pub places: Vec<PlaceView>,
    /// How many places the round has.
    pub place_count: u32,
    /// The next page's first place, when there is one.
    pub next_place: Option<u32>,
    /// The seed, once the round has ended.
    pub seed: Option<Seed>,
    /// The beacon round that mixed the deal seed, once it arrived.
    pub beacon: Option<BeaconArrived>,
    /// The late-beacon rule, once applied.
    pub beacon_late: Option<BeaconMissed>,
}

impl Round {
    /// The round as `reader` may see it (`None`: as the table). A player's view lists their own
    /// places, and at a table of seats every seat (the others' names masked); the table's view
    /// lists the places from `from`, at most `page` of them (at most [`PAGE_MAX`]).
    pub fn view(&self, reader: Option<&str>, from: u32, page: u32) -> RoundView {
        let shown_all = self.seed_revealed;
        let seats = matches!(self.shape(), Some(Shape::Seats { .. }));
        let count = self.places.len() as u32;
        let (numbers, next): (Vec<u32>, Option<u32>) = match reader {
            Some(player) if !seats => (self.players.get(player).cloned().unwrap_or_default(), None),
            Some(_) => ((0..count).collect(), None),
            None => {
                let end = from.saturating_add(page.clamp(1, PAGE_MAX)).min(count);
                let start = from.min(end);
                ((start..end).collect(), (end < count).then_some(end))
            }
        };
        let places = numbers
            .into_iter()
            .filter_map(|n| self.places.get(n as usize).map(|p| (n, p)))
            .map(|(n, place)| self.place_view(n, place, reader, shown_all))
            .collect();
        let table_cards = self
            .layout
            .table_positions()
            .filter_map(|p| self.table_card(p).map(|c| (p, c)))
            .collect();
        // Only a shake has dice (a card game's view of a hand would be worked out for nothing:
        // Fortune Pai Gow's suggests a setting by the house way).
        let dice = match self.shape() {
            Some(Shape::OneShake) => self.places.first().and_then(|p| player_view(&p.hand).dice),
            _ => None,
        };
        RoundView {
            phase: self.phase,
            version: self.version,
            opened: self.opened.clone(),
            window_closes: self.window_closes(),
            shaker: self.shaker.clone(),
            table_cards,
            dice,
            places,
            place_count: count,
            next_place: next,
            seed: self.revealed_seed(),
            beacon: self.beacon.clone(),
            beacon_late: self.beacon_late.clone(),
        }
    }

    fn place_view(
        &self,
        number: u32,
        place: &Place,
        reader: Option<&str>,
        shown_all: bool,
    ) -> PlaceView {
        let yours = reader == Some(place.player.as_str());
        let hand = &place.hand;
        let status = match hand.status() {
            Status::Settled if self.phase != Phase::Ended => Status::InProgress,
            status => status,
        };
        let cards = place
            .seat
            .map(|seat| {
                // Nothing is shown of a round that never dealt (voided while betting, or while its
                // beacon was awaited): its shuffle was never the table's.
                let visible = self.dealt_at.is_some() && (shown_all || yours);
                self.layout
                    .seat_positions(seat)
                    .map(|p| {
                        let card = self.deck.get(p).copied().filter(|_| visible);
                        (p as u8, card)
                    })
                    .collect()
            })
            .unwrap_or_default();
        let decides = match self.shape() {
            Some(Shape::OneShake) => reader.is_some() && self.shaker.as_deref() == reader,
            _ => yours,
        };
        let legal = if decides
            && self.phase == Phase::Playing
            && place.in_play()
            && place.waiting.is_empty()
        {
            hand.legal_actions()
        } else {
            Vec::new()
        };
        PlaceView {
            place: number,
            seat: place.seat,
            player: (reader.is_none() || yours).then(|| place.player.clone()),
            yours,
            status,
            stakes: hand.stakes().to_vec(),
            cards,
            legal,
            waiting: place.in_play() && !place.waiting.is_empty(),
            // Announced at the showdown only: a round voided after it shows what the void
            // reversed; one voided before it never announced any.
            settlement: hand.settlement().filter(|_| self.showdown_done).cloned(),
            void: hand.void().cloned(),
            seed_digest: place.seed_digest,
        }
    }
}
