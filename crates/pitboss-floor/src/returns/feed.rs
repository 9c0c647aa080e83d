//! The log read for the returns, entry by entry, in order: what each entry means to the totals (a
//! settlement, a void of a settled hand), and the returns' own entries (statements, alerts,
//! investigations). The same feed serves the server (`Returns`) and `pitboss verify`, over a
//! [`Source`] each provides. Owns the cache of hands' openings; a hand it no longer holds is read
//! back from its stream. MUST NOT write.

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
        let stream = crate::floor::hand_stream(hand_id);
        self.stream_entries(&stream, 0)
            .map_err(|e| e.to_string())?
            .into_iter()
            .map(|(sequence, stored)| {
                let stored = stored.ok_or(format!("the log lacks entry {sequence} of {stream}"))?;
                Entry::decode(&stored).map_err(|e| e.to_string())
            })
            .collect()
    }
}

/// What one entry means to the returns.
#[derive(Debug)]
pub enum Seen {
    /// Nothing (an entry of play that moves no money, a configuration, a key…).
    Nothing,
    /// Totals to add, each with the time of the hand's opening (the day a window counts it in).
    Totals(Vec<(Key, Sums, u64)>),
    Statement(proto::ReturnsStatement),
    Alert(proto::ReturnsAlert),
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

/// The feed's memory of hands' openings.
pub struct Feed {
    hands: crate::lru::Lru<String, Opened>,
}

impl Default for Feed {
    fn default() -> Feed {
        Feed {
            hands: crate::lru::bounded(HANDS_KEPT),
        }
    }
}

/// The field numbers in `pitboss.v1.Payload` of the kinds the feed reads: `hand_opened`,
/// `settled`, `voided`, `returns_statement`, `returns_alert`, `returns_investigated` (a test holds
/// them to the encoder's).
const FED_KINDS: [u32; 6] = [1, 6, 7, 20, 21, 22];

impl Feed {
    /// What `entry` means, reading a hand's stream from `source` when its opening is not kept.
    pub fn see(&mut self, entry: &Entry, source: &impl Source) -> Result<Seen, FeedError> {
        let sequence = entry.envelope.sequence;
        let payload = entry
            .payload()
            .map_err(|e| FeedError::Read(sequence, e.to_string()))?;
        let hand = crate::floor::hand_of_stream(&entry.envelope.stream);
        Ok(match (payload.kind, hand) {
            (Some(Kind::HandOpened(opened)), Some(hand)) => {
                if let Some(o) = Opened::of(&opened) {
                    self.hands.put(hand.to_string(), o);
                }
                Seen::Nothing
            }
            (Some(Kind::Settled(settled)), Some(hand)) => {
                let Some(opened) = self.opened(hand, sequence, source)? else {
                    return Ok(Seen::Nothing);
                };
                let added = tally::settled(&opened, &settled)?;
                if let Some(o) = self.hands.get_mut(hand) {
                    o.settled = true;
                }
                Seen::Totals(with_time(added, opened.at_ms))
            }
            (Some(Kind::Voided(voided)), Some(hand)) => {
                let Some(opened) = self.opened(hand, sequence, source)? else {
                    return Ok(Seen::Nothing);
                };
                let reversed = tally::voided(&opened, &voided)?;
                Seen::Totals(with_time(reversed, opened.at_ms))
            }
            (Some(Kind::ReturnsStatement(s)), _) => Seen::Statement(s),
            (Some(Kind::ReturnsAlert(a)), _) => Seen::Alert(a),
            (Some(Kind::ReturnsInvestigated(i)), _) => {
                Seen::Investigated(i, entry.envelope.actor.clone())
            }
            _ => Seen::Nothing,
        })
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
