//! The floor's door to the log for everything above it (the audit, the service, the CLI): the
//! ledger's narrow read handle ([`Floor::log`], `pitboss_ledger::LogRead`: entries, the head,
//! proofs, checkpoints, verification and the ledger's state), and what only the floor may do to the
//! log — a mirror's copy grown with its indexes, a held checkpoint, the key's rotation recorded with
//! its actor, closing. Nothing above the floor holds the `Ledger` (`tests/layers.rs` fails if a
//! reach-around comes back).
//!
//! A hand's stream is read only through [`hand_stream`], never rebuilt from text.

use pitboss_ledger::mirror::{Held, HoldError, MirrorState, Mirrored};
use pitboss_ledger::{Entry, KeyId, LedgerError, LogRead};

use super::{hand_stream, index, proposals, Floor, FloorError};

impl Floor {
    /// The log, to read: entries, the head, proofs and checkpoints, verification, the ledger's
    /// state (`pitboss_ledger::LogRead`).
    pub fn log(&self) -> &dyn LogRead {
        &*self.ledger
    }

    /// Offers the next entries of another server's log to this mirror's copy, each with the index
    /// entries the floor writes with it (`index::of_entry`): each verified run is durable when
    /// this returns; an entry that does not verify stops the copy (`LedgerError::NotTheLog`).
    pub async fn mirror(&self, records: Vec<(u64, Vec<u8>)>) -> Result<MirrorState, LedgerError> {
        let offered = records
            .into_iter()
            .map(|(sequence, stored)| Mirrored {
                indexes: Entry::decode(&stored)
                    .map(|entry| indexes_of(&entry))
                    .unwrap_or_default(),
                sequence,
                stored,
            })
            .collect();
        self.ledger.mirror(offered).await
    }

    /// Holds `note`, a checkpoint of the log this mirror copies, once it checks against the copy.
    pub fn hold_checkpoint(&self, note: &str) -> Result<Held, HoldError> {
        self.ledger.hold_checkpoint(note)
    }

    /// Every entry of hand `hand_id`'s stream, in order (empty if the log has none): for the audit,
    /// which reports a hand the log does not hold as its own finding.
    pub fn hand_stream_entries(&self, hand_id: &str) -> Result<Vec<Entry>, LedgerError> {
        self.ledger.read_stream(&hand_stream(hand_id), 0)
    }

    /// At most `limit` entries of any stream from `position` on, in order.
    pub fn stream_entries(
        &self,
        stream: &str,
        position: u64,
        limit: usize,
    ) -> Result<Vec<Entry>, LedgerError> {
        self.ledger.read_stream_up_to(stream, position, limit)
    }

    /// Every entry of a round's stream, in order.
    pub fn round_stream_entries(&self, round_id: &str) -> Result<Vec<Entry>, LedgerError> {
        self.ledger.read_stream(&super::round_stream(round_id), 0)
    }

    /// Rotates the signing key, recorded as done by `actor`: the old key's id, the new key's id and
    /// its public key. `expected`, when given, must be the key in use (else nothing changes).
    pub async fn rotate_key(
        &self,
        expected: Option<&str>,
        actor: &str,
    ) -> Result<(KeyId, KeyId, [u8; 32]), FloorError> {
        let old = self.ledger.key_id().ok_or(FloorError::NoSigningKey)?;
        if let Some(expected) = expected.filter(|e| *e != old.to_string()) {
            return Err(FloorError::KeyChanged {
                expected: expected.to_string(),
                in_use: old.to_string(),
            });
        }
        let new = self.ledger.rotate_key(self.now(), actor).await?;
        let public = self
            .ledger
            .public_key(new)?
            .and_then(|bytes| <[u8; 32]>::try_from(bytes.as_slice()).ok())
            .ok_or_else(|| {
                FloorError::Corrupt(
                    format!("key {new}"),
                    "its public key is not in the log".into(),
                )
            })?;
        Ok((old, new, public))
    }

    /// Completes when the ledger's writer has stopped: nothing more can be recorded.
    pub async fn log_stopped(&self) {
        self.ledger.stopped().await
    }

    /// Closes the log once every call has drained: the writer finishes what it holds.
    pub fn close_log(&self) {
        self.ledger.close()
    }

    /// Builds the Merkle tree's block roots now (at start, so the first checkpoint is quick),
    /// counting entries in `progress`; the entries covered.
    pub fn warm_tree(&self, progress: &std::sync::atomic::AtomicU64) -> Result<u64, LedgerError> {
        self.ledger.warm_tree(progress)
    }

    /// Makes the ledger's writer panic: for the tests of what a dead writer means to a server.
    #[cfg(any(test, feature = "testing"))]
    pub fn crash_writer(&self) {
        self.ledger.crash_writer()
    }
}

/// The index entries the floor writes with `entry`, derived from the entry alone: what a mirror's
/// copy (`Floor::mirror`) writes so that its recall answers as the log's own server does (a round's
/// are those `rounds.rs` writes with the same events). The
/// index of open hands is left out: it serves only the sweep, which a read-only server never runs.
fn indexes_of(entry: &pitboss_ledger::Entry) -> Vec<(String, Vec<u8>)> {
    use crate::codec::EntryPayload;
    use crate::proto::payload::Kind;
    let Ok(payload) = entry.payload() else {
        return Vec::new();
    };
    match payload.kind {
        Some(Kind::HandOpened(opened)) => match super::hand_of_stream(&entry.envelope.stream) {
            Some(hand_id) if entry.envelope.stream_position == 0 => {
                let mut entries =
                    index::for_opened_hand(hand_id, &opened.table, &opened.player, opened.at_ms);
                entries.retain(|(name, _)| name != index::OPEN);
                entries
            }
            _ => Vec::new(),
        },
        Some(Kind::ConfigPublished(published)) => {
            vec![(index::CONFIG.to_string(), published.config_id)]
        }
        Some(Kind::RoundOpened(opened)) => match super::round_of_stream(&entry.envelope.stream) {
            Some(round_id) if entry.envelope.stream_position == 0 => {
                index::for_opened_round(round_id, &opened.table, &opened.dealer, opened.at_ms)
            }
            _ => Vec::new(),
        },
        Some(Kind::RoundBet(bet)) => match super::round_of_stream(&entry.envelope.stream) {
            Some(round_id) => vec![index::for_round_bet(round_id, &bet.player, bet.at_ms)],
            None => Vec::new(),
        },
        Some(Kind::RoundDealerChanged(changed)) => {
            match super::round_of_stream(&entry.envelope.stream) {
                Some(round_id) => vec![index::for_dealer_change(
                    round_id,
                    &changed.to,
                    changed.at_ms,
                )],
                None => Vec::new(),
            }
        }
        Some(Kind::ProposalRecorded(recorded)) => {
            vec![proposals::index_entry(
                &recorded.proposal_id,
                recorded.at_ms,
            )]
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::super::testing::floor_in;
    use super::super::{OpenRoundRequest, RoundCall};
    use super::*;
    use pitboss_engine::game::GameId;
    use pitboss_engine::games::{Action, Timestamp};
    use pitboss_engine::money::Money;
    use pitboss_engine::round::{Decide, OpenRound, PlaceBet, RoundCommand, Shape};
    use pitboss_engine::settlement::{BetId, Wager};

    /// The recall index entries a mirror's copy derives from a round's entries alone are exactly
    /// those the round's own appends wrote: the table's and the dealer's with the opening, a
    /// player's with each bet (and nothing for the other events).
    #[tokio::test]
    async fn a_rounds_indexes_derived_from_its_entries_are_those_its_appends_wrote() {
        let dir = tempfile::tempdir().unwrap();
        let (floor, clock) = floor_in(dir.path()).await;
        let opened = floor
            .open_round(
                OpenRoundRequest {
                    game: GameId::CaribbeanStud,
                    config_id: None,
                    open: OpenRound {
                        table: "T7".into(),
                        dealer: "dealer-9".into(),
                        shoe: None,
                        shape: Shape::Seats { seats: 3 },
                        max_players: 3,
                        seats_per_player: 1,
                        decision_window_ms: 60_000,
                        at: Timestamp(0),
                    },
                    actor: "table-T7".into(),
                    request_id: None,
                },
                |_| (),
            )
            .await
            .unwrap();
        let id = opened.id;
        let call = RoundCall::by("table-T7");
        for (seat, player) in [(1u8, "ann"), (2, "bob")] {
            clock.fetch_add(1_000, std::sync::atomic::Ordering::SeqCst);
            floor
                .round_command(
                    &id,
                    |at| {
                        RoundCommand::Bet(PlaceBet {
                            seed_digest: None,
                            player: player.into(),
                            seat: Some(seat),
                            wagers: vec![Wager {
                                bet: BetId::Ante,
                                amount: Money(500),
                            }],
                            at,
                        })
                    },
                    &call,
                    |_, _| (),
                )
                .await
                .unwrap();
        }
        floor
            .round_command(
                &id,
                |at| RoundCommand::CloseBetting { at, shaker: None },
                &call,
                |_, _| (),
            )
            .await
            .unwrap();
        for (seat, player) in [(1u8, "ann"), (2, "bob")] {
            floor
                .round_command(
                    &id,
                    |at| {
                        RoundCommand::Decide(Decide {
                            player: player.into(),
                            seat: Some(seat),
                            action: Action::Fold,
                            at,
                        })
                    },
                    &call,
                    |_, _| (),
                )
                .await
                .unwrap();
        }
        let entries = floor.round_stream_entries(&id).unwrap();
        assert!(entries.len() > 6, "the round's every event");
        let derived: BTreeSet<(String, Vec<u8>)> = entries.iter().flat_map(indexes_of).collect();
        let mut written = BTreeSet::new();
        for (name, owner) in [
            (index::ROUND_TABLE, "T7"),
            (index::ROUND_DEALER, "dealer-9"),
            (index::ROUND_PLAYER, "ann"),
            (index::ROUND_PLAYER, "bob"),
        ] {
            let prefix = [owner.as_bytes(), &[0]].concat();
            for (key, _) in floor
                .ledger
                .index_page(name, &prefix, &prefix, 100)
                .unwrap()
            {
                written.insert((name.to_string(), key));
            }
        }
        assert_eq!(written.len(), 4, "{written:?}");
        assert_eq!(derived, written);
    }
}
