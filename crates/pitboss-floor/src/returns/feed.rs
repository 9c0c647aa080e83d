//! The log read for the returns, entry by entry, in order: what each entry means to the totals (a
//! hand's or a round's place's settlement, a void of a settled one), and the returns' own entries
//! (statements, alerts, investigations). The same feed serves the server (`Returns`) and
//! `pitboss verify`, over a [`Source`] each provides. Owns the caches of hands' openings and of
//! rounds' openings with their places' bets; a hand or round it no longer holds is read back from
//! its stream. MUST NOT write.
//!
//! A round's place counts as a hand does: its settlement (announced at the showdown) adds its
//! lines under its round's game, table, dealer and configuration, its bet's wagers its initial
//! stakes; a void of a settled place (a settled round voided) reverses it; a place voided before
//! it settled (a forfeit, the window's refunds, a round voided before the showdown) counts nothing.

use std::collections::HashMap;

use pitboss_engine::config::ConfigId;
use pitboss_ledger::Entry;

use super::tally::{self, Key, Opened, Sums};
use crate::codec::EntryPayload;
use crate::proto;
use crate::proto::payload::Kind;

/// Entries read for the feed: those it may read something from, decoded, and how many entries
/// of the log were read (the rest were passed over undecoded: [`fed`]).
pub struct Read {
    pub entries: Vec<Entry>,
    pub read: u64,
}

/// Whether the feed may read something from a stored entry: not when its payload is, by its
/// tag, a kind the feed passes over (a hand's deals and decisions: most of the log), which is
/// then not decoded at all. A payload passed over would have decoded to that other kind or not
/// at all (the log's payloads are checked when the server opens it and as they are appended).
pub fn fed(stored: &[u8]) -> bool {
    Entry::stored_payload(stored)
        .and_then(crate::codec::payload_kind_number)
        .is_none_or(|number| FED_KINDS.contains(&number))
}

/// Where the feed reads entries: the server's floor, or a store `pitboss verify` opened.
pub trait Source {
    /// Entries `from .. from + count` (fewer at the log's end), in order, those [`fed`] passes
    /// over left out.
    fn entries(&self, from: u64, count: u64) -> Result<Read, String>;
    /// Every entry of a hand's stream, in order.
    fn hand(&self, hand_id: &str) -> Result<Vec<Entry>, String>;
    /// Every entry of a round's stream, in order.
    fn round(&self, round_id: &str) -> Result<Vec<Entry>, String>;
}

/// The entries of `stored` the feed reads, decoded.
fn decoded(stored: impl IntoIterator<Item = Result<Vec<u8>, String>>) -> Result<Read, String> {
    let mut out = Read {
        entries: Vec::new(),
        read: 0,
    };
    for bytes in stored {
        let bytes = bytes?;
        out.read += 1;
        if fed(&bytes) {
            out.entries
                .push(Entry::decode(&bytes).map_err(|e| e.to_string())?);
        }
    }
    Ok(out)
}

impl Source for crate::floor::Floor {
    fn entries(&self, from: u64, count: u64) -> Result<Read, String> {
        let stored = self
            .log()
            .stored_entries(from, count)
            .map_err(|e| e.to_string())?;
        decoded(stored.into_iter().map(|(_, bytes)| Ok(bytes)))
    }

    fn hand(&self, hand_id: &str) -> Result<Vec<Entry>, String> {
        self.hand_stream_entries(hand_id).map_err(|e| e.to_string())
    }

    fn round(&self, round_id: &str) -> Result<Vec<Entry>, String> {
        self.round_stream_entries(round_id)
            .map_err(|e| e.to_string())
    }
}

impl<S: pitboss_ledger::LogStore + ?Sized> Source for &S {
    fn entries(&self, from: u64, count: u64) -> Result<Read, String> {
        let stored = self
            .entries_from(from)
            .map_err(|e| e.to_string())?
            .take(usize::try_from(count).unwrap_or(usize::MAX))
            .map(|item| item.map(|(_, bytes)| bytes).map_err(|e| e.to_string()));
        decoded(stored)
    }

    fn hand(&self, hand_id: &str) -> Result<Vec<Entry>, String> {
        stream_of(*self, &crate::floor::hand_stream(hand_id))
    }

    fn round(&self, round_id: &str) -> Result<Vec<Entry>, String> {
        stream_of(*self, &crate::floor::round_stream(round_id))
    }
}

/// Every entry of `stream` in a store, in order.
fn stream_of<S: pitboss_ledger::LogStore + ?Sized>(
    store: &S,
    stream: &str,
) -> Result<Vec<Entry>, String> {
    store
        .stream_entries(stream, 0)
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|(sequence, stored)| {
            let stored = stored.ok_or(format!("the log lacks entry {sequence} of {stream}"))?;
            Entry::decode(&stored).map_err(|e| e.to_string())
        })
        .collect()
}

/// What one entry means to the returns.
#[derive(Debug)]
pub enum Seen {
    /// Nothing (an entry of play that moves no money, a configuration, a key…).
    Nothing,
    /// Totals to add, each with the time of the hand's opening (the day a window counts it in).
    Totals(Vec<(Key, Sums, u64)>),
    Statement(proto::ReturnsStatement),
    Alert(Box<proto::ReturnsAlert>),
    /// An investigation and who recorded it (the entry's actor).
    Investigated(proto::ReturnsInvestigated, String),
}

/// Why the feed cannot go on.
#[derive(Debug, thiserror::Error)]
pub enum FeedError {
    #[error("entry {0}: {1}")]
    Read(u64, String),
    #[error(transparent)]
    Overflow(#[from] tally::Overflow),
}

/// How many hands' openings the feed keeps (a hand is settled within moments of its opening; an
/// older one is read back from its stream).
const HANDS_KEPT: usize = 65_536;

/// How many rounds the feed keeps (their openings and their places' bets), and how many places in
/// all: a round is settled at its showdown, all its places in one append; one pushed out before is
/// read back from its stream.
const ROUNDS_KEPT: usize = 4_096;
const PLACES_KEPT: usize = 65_536;

/// What the totals need of a round: its opening, and each place's bet and whether it settled.
#[derive(Clone, Debug)]
struct RoundKept {
    /// The round's opening, as a place's (its `initial` empty, `settled` false).
    opened: Opened,
    /// By place number: the bet's wagers, and whether the place's settlement was announced.
    places: HashMap<u32, (Vec<(String, u64)>, bool)>,
}

impl RoundKept {
    fn of(opened: &proto::RoundOpened) -> Option<RoundKept> {
        Some(RoundKept {
            opened: Opened {
                game: crate::codec::from_id("game", &opened.game).ok()?,
                table: opened.table.clone(),
                dealer: opened.dealer.clone(),
                config_id: ConfigId(opened.config_id.as_slice().try_into().ok()?),
                initial: Vec::new(),
                at_ms: opened.at_ms,
                settled: false,
            },
            places: HashMap::new(),
        })
    }

    /// Place `place`'s opening: the round's, with the bet's wagers; `None` for a place with no bet.
    fn place(&self, place: u32) -> Option<Opened> {
        let (initial, settled) = self.places.get(&place)?;
        Some(Opened {
            initial: initial.clone(),
            settled: *settled,
            ..self.opened.clone()
        })
    }

    /// Takes an event of the round's stream (after its opening) into account.
    fn see(&mut self, kind: &Kind) -> isize {
        match kind {
            Kind::RoundBet(bet) => {
                let wagers = bet
                    .wagers
                    .iter()
                    .map(|w| (w.bet.clone(), w.amount))
                    .collect();
                match self.places.insert(bet.place, (wagers, false)) {
                    Some(_) => 0,
                    None => 1,
                }
            }
            Kind::RoundSettled(settled) => {
                if let Some(place) = self.places.get_mut(&settled.place) {
                    place.1 = true;
                }
                0
            }
            // What follows counts under the dealer who took over.
            Kind::RoundDealerChanged(changed) => {
                self.opened.dealer.clone_from(&changed.to);
                0
            }
            _ => 0,
        }
    }
}

/// The rounds kept, with their places counted against [`PLACES_KEPT`].
struct Rounds {
    kept: crate::lru::Lru<String, RoundKept>,
    places: usize,
}

impl Rounds {
    /// Keeps `round` as `id`'s, dropping the least recently used rounds beyond the bounds.
    fn put(&mut self, id: &str, round: RoundKept) {
        self.places = self.places.saturating_add(round.places.len());
        if let Some((_, out)) = self.kept.push(id.to_string(), round) {
            self.places = self.places.saturating_sub(out.places.len());
        }
        self.trim(id);
    }

    /// Takes a kept round's event into account.
    fn see(&mut self, id: &str, kind: &Kind) {
        if let Some(round) = self.kept.get_mut(id) {
            let added = round.see(kind);
            self.places = self.places.saturating_add_signed(added);
            self.trim(id);
        }
    }

    /// Drops the least recently used rounds (never `keep`) while the places pass their bound.
    fn trim(&mut self, keep: &str) {
        while self.places > PLACES_KEPT {
            if self.kept.peek_lru().is_some_and(|(id, _)| id == keep) {
                return;
            }
            match self.kept.pop_lru() {
                Some((_, out)) => self.places = self.places.saturating_sub(out.places.len()),
                None => return,
            }
        }
    }
}

/// The feed's memory of hands' and rounds' openings.
pub struct Feed {
    hands: crate::lru::Lru<String, Opened>,
    rounds: Rounds,
}

impl Default for Feed {
    fn default() -> Feed {
        Feed {
            hands: crate::lru::bounded(HANDS_KEPT),
            rounds: Rounds {
                kept: crate::lru::bounded(ROUNDS_KEPT),
                places: 0,
            },
        }
    }
}

/// The field numbers in `pitboss.v1.Payload` of the kinds the feed reads: `hand_opened`,
/// `settled`, `voided`, `returns_statement`, `returns_alert`, `returns_investigated`,
/// `round_opened`, `round_bet`, `round_settled`, `round_place_voided`, `round_dealer_changed` (a
/// test holds them to the encoder's).
const FED_KINDS: [u32; 11] = [1, 6, 7, 20, 21, 22, 24, 25, 33, 35, 39];

impl Feed {
    /// What `entry` means, reading a hand's or round's stream from `source` when its opening is
    /// not kept.
    pub fn see(&mut self, entry: &Entry, source: &impl Source) -> Result<Seen, FeedError> {
        let sequence = entry.envelope.sequence;
        let payload = entry
            .payload()
            .map_err(|e| FeedError::Read(sequence, e.to_string()))?;
        let Some(kind) = payload.kind else {
            return Ok(Seen::Nothing);
        };
        if let Some(round) = crate::floor::round_of_stream(&entry.envelope.stream) {
            return self.see_round(round, entry, kind, source);
        }
        let hand = crate::floor::hand_of_stream(&entry.envelope.stream);
        Ok(match (kind, hand) {
            (Kind::HandOpened(opened), Some(hand)) => {
                if let Some(o) = Opened::of(&opened) {
                    self.hands.put(hand.to_string(), o);
                }
                Seen::Nothing
            }
            (Kind::Settled(settled), Some(hand)) => {
                let Some(opened) = self.opened(hand, sequence, source)? else {
                    return Ok(Seen::Nothing);
                };
                let added = tally::settled(&opened, &settled)?;
                if let Some(o) = self.hands.get_mut(hand) {
                    o.settled = true;
                }
                Seen::Totals(with_time(added, opened.at_ms))
            }
            (Kind::Voided(voided), Some(hand)) => {
                let Some(opened) = self.opened(hand, sequence, source)? else {
                    return Ok(Seen::Nothing);
                };
                let reversed = tally::voided(&opened, &voided)?;
                Seen::Totals(with_time(reversed, opened.at_ms))
            }
            (Kind::ReturnsStatement(s), _) => Seen::Statement(s),
            (Kind::ReturnsAlert(a), _) => Seen::Alert(Box::new(a)),
            (Kind::ReturnsInvestigated(i), _) => {
                Seen::Investigated(i, entry.envelope.actor.clone())
            }
            _ => Seen::Nothing,
        })
    }

    /// What an entry of round `round`'s stream means: its opening and bets are kept; a place's
    /// settlement adds as a hand's does, a void of a settled place reverses it.
    fn see_round(
        &mut self,
        round: &str,
        entry: &Entry,
        kind: Kind,
        source: &impl Source,
    ) -> Result<Seen, FeedError> {
        let sequence = entry.envelope.sequence;
        match &kind {
            Kind::RoundOpened(opened) if entry.envelope.stream_position == 0 => {
                if let Some(kept) = RoundKept::of(opened) {
                    self.rounds.put(round, kept);
                }
                return Ok(Seen::Nothing);
            }
            Kind::RoundBet(_) | Kind::RoundDealerChanged(_) => {
                self.rounds.see(round, &kind);
                return Ok(Seen::Nothing);
            }
            _ => {}
        }
        let (place, counted) = match &kind {
            Kind::RoundSettled(settled) => {
                let Some(settlement) = &settled.settlement else {
                    return Ok(Seen::Nothing);
                };
                let Some(opened) = self.round_place(round, settled.place, sequence, source)? else {
                    return Ok(Seen::Nothing);
                };
                (opened.clone(), tally::settled(&opened, settlement)?)
            }
            Kind::RoundPlaceVoided(voided) => {
                let Some(void) = &voided.void else {
                    return Ok(Seen::Nothing);
                };
                let Some(opened) = self.round_place(round, voided.place, sequence, source)? else {
                    return Ok(Seen::Nothing);
                };
                (opened.clone(), tally::voided(&opened, void)?)
            }
            _ => return Ok(Seen::Nothing),
        };
        self.rounds.see(round, &kind);
        Ok(Seen::Totals(with_time(counted, place.at_ms)))
    }

    /// Place `place` of `round` as it stood before entry `before`: kept, or read back from the
    /// round's stream (its opening, its bets, the settlements announced before that entry).
    fn round_place(
        &mut self,
        round: &str,
        place: u32,
        before: u64,
        source: &impl Source,
    ) -> Result<Option<Opened>, FeedError> {
        if let Some(kept) = self.rounds.kept.get(round) {
            return Ok(kept.place(place));
        }
        let entries = source
            .round(round)
            .map_err(|e| FeedError::Read(before, e))?;
        let mut kept: Option<RoundKept> = None;
        for e in entries.iter().take_while(|e| e.envelope.sequence < before) {
            let Some(kind) = e.payload().ok().and_then(|p| p.kind) else {
                continue;
            };
            match kept.as_mut() {
                Some(round) => {
                    round.see(&kind);
                }
                None => {
                    if let Kind::RoundOpened(opened) = &kind {
                        kept = RoundKept::of(opened);
                    }
                }
            }
        }
        let Some(kept) = kept else {
            return Ok(None);
        };
        let opened = kept.place(place);
        self.rounds.put(round, kept);
        Ok(opened)
    }

    /// The opening of `hand` as it stood before entry `before`: kept, or read back from its
    /// stream (whether a settlement came before that entry included).
    fn opened(
        &mut self,
        hand: &str,
        before: u64,
        source: &impl Source,
    ) -> Result<Option<Opened>, FeedError> {
        if let Some(o) = self.hands.get(hand) {
            return Ok(Some(o.clone()));
        }
        let entries = source.hand(hand).map_err(|e| FeedError::Read(before, e))?;
        let mut opened = None;
        for e in entries.iter().take_while(|e| e.envelope.sequence < before) {
            match e.payload().ok().and_then(|p| p.kind) {
                Some(Kind::HandOpened(o)) => opened = Opened::of(&o),
                Some(Kind::Settled(_)) => {
                    if let Some(o) = opened.as_mut() {
                        o.settled = true;
                    }
                }
                _ => {}
            }
        }
        if let Some(o) = &opened {
            self.hands.put(hand.to_string(), o.clone());
        }
        Ok(opened)
    }
}

fn with_time(totals: Vec<(Key, Sums)>, at_ms: u64) -> Vec<(Key, Sums, u64)> {
    totals.into_iter().map(|(k, s)| (k, s, at_ms)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    /// Every kind's number as the encoder writes it: the fed kinds are exactly those `see` reads.
    #[test]
    fn the_fed_kinds_are_the_numbers_the_encoder_writes_for_them() {
        let fed = [
            Kind::HandOpened(Default::default()),
            Kind::Settled(Default::default()),
            Kind::Voided(Default::default()),
            Kind::ReturnsStatement(Default::default()),
            Kind::ReturnsAlert(Default::default()),
            Kind::ReturnsInvestigated(Default::default()),
            Kind::RoundOpened(Default::default()),
            Kind::RoundBet(Default::default()),
            Kind::RoundSettled(Default::default()),
            Kind::RoundPlaceVoided(Default::default()),
            Kind::RoundDealerChanged(Default::default()),
        ];
        let numbers: Vec<u32> = fed
            .into_iter()
            .map(|kind| {
                let bytes = proto::Payload { kind: Some(kind) }.encode_to_vec();
                crate::codec::payload_kind_number(&bytes).expect("one field")
            })
            .collect();
        assert_eq!(numbers, FED_KINDS);
        // Another kind is skipped; bytes of more than one field are left to a full decoding.
        let other = proto::Payload {
            kind: Some(Kind::SoftwareAttested(Default::default())),
        }
        .encode_to_vec();
        let number = crate::codec::payload_kind_number(&other).expect("one field");
        assert!(!FED_KINDS.contains(&number));
        let mut two = other.clone();
        two.extend_from_slice(&other);
        assert_eq!(crate::codec::payload_kind_number(&two), None);
        assert_eq!(
            crate::codec::payload_kind_number(&other[..other.len() - 1]),
            None
        );
    }
}
