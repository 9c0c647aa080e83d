//! Signed statements of the returns (`ReturnsStatement`): the totals of every entry in a range of
//! sequences, per game, table, dealer (rounds'; none for hands), configuration and bet group, in parts of at most [`PER_PART`]
//! totals. Owns their making and their check: the statements chain (each begins where the one
//! before ended, the first at 0) and each states exactly what its range's hands add up to. The
//! check runs wherever the log is read in order — `pitboss verify`, and the server's own start.
//! MUST NOT write.

use std::collections::BTreeMap;

use super::feed::{Feed, FeedError, Read, Seen, Source};
use super::tally::{Key, Sums};
use crate::proto;

/// Totals per statement entry at most.
pub const PER_PART: usize = 256;

/// Bytes of totals per statement entry at most: an entry stays below the log's 65 535-byte bound
/// whatever its tables' and dealers' names (200 characters, up to 800 bytes each).
const PART_BYTES: usize = 48 * 1024;

/// The keys a period states at most (the server's own bound on keys): a total of a key beyond is
/// left out of the period, the same way wherever the log is read, so the statement and its
/// recomputation agree.
pub const PERIOD_KEYS: usize = super::MAX_KEYS;

/// Entries read at a time when a range is read again.
const BATCH: u64 = 1024;

/// The entries of one statement, from the totals of `from .. to`.
pub fn parts(
    totals: &BTreeMap<Key, Sums>,
    from: u64,
    to: u64,
    period: (u64, u64),
) -> Option<Vec<proto::ReturnsStatement>> {
    let rows: Vec<proto::ReturnsTotals> = totals
        .iter()
        .map(|(k, s)| s.to_proto(k))
        .collect::<Option<_>>()?;
    let mut chunks: Vec<&[proto::ReturnsTotals]> = Vec::new();
    let (mut start, mut bytes) = (0, 0);
    for (i, row) in rows.iter().enumerate() {
        let size = prost::Message::encoded_len(row) + 4;
        if i > start && (i - start >= PER_PART || bytes + size > PART_BYTES) {
            chunks.push(&rows[start..i]);
            (start, bytes) = (i, 0);
        }
        bytes += size;
    }
    chunks.push(&rows[start..]);
    let parts = u32::try_from(chunks.len()).ok()?;
    Some(
        chunks
            .into_iter()
            .enumerate()
            .map(|(i, chunk)| proto::ReturnsStatement {
                from_sequence: from,
                to_sequence: to,
                period_start_ms: period.0,
                period_end_ms: period.1,
                totals: chunk.to_vec(),
                part: i as u32 + 1,
                parts,
            })
            .collect(),
    )
}

/// The totals of entries `from .. to`, read again from `source`.
pub fn totals_of(
    source: &impl Source,
    from: u64,
    to: u64,
) -> Result<BTreeMap<Key, Sums>, FeedError> {
    let mut feed = Feed::default();
    let mut totals: BTreeMap<Key, Sums> = BTreeMap::new();
    let mut next = from;
    while next < to {
        let Read { entries, read } = source
            .entries(next, BATCH.min(to - next))
            .map_err(|e| FeedError::Read(next, e))?;
        if read == 0 {
            return Err(FeedError::Read(
                next,
                "the log ends before the range".into(),
            ));
        }
        for entry in &entries {
            if let Seen::Totals(added) = feed.see(entry, source)? {
                for (key, sums, _) in added {
                    if !totals.contains_key(&key) && totals.len() >= PERIOD_KEYS {
                        continue;
                    }
                    totals.entry(key).or_default().add(&sums)?;
                }
            }
        }
        next += read;
    }
    Ok(totals)
}

/// What a statement did not agree with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disagreement {
    /// The sequence of the statement's last part.
    pub sequence: u64,
    pub problem: String,
}

/// The totals since the last statement, and the check of each statement met, in log order.
#[derive(Default)]
pub struct Period {
    /// Where the current period began: the last statement's end (0 before any).
    pub from: u64,
    /// Its totals so far.
    pub totals: BTreeMap<Key, Sums>,
    /// When the last statement's period ended (0 before any).
    pub start_ms: u64,
    /// The parts of a statement met so far (its last part completes it).
    parts: Vec<proto::ReturnsStatement>,
    /// Statements checked.
    pub checked: u64,
    /// Totals left out of the periods (beyond [`PERIOD_KEYS`] keys).
    pub left_out: u64,
}

impl Period {
    /// Adds totals the feed saw (a key beyond [`PERIOD_KEYS`] is left out, counted).
    pub fn add(&mut self, key: &Key, sums: &Sums) -> Result<(), FeedError> {
        if !self.totals.contains_key(key) && self.totals.len() >= PERIOD_KEYS {
            self.left_out += 1;
            return Ok(());
        }
        self.totals.entry(key.clone()).or_default().add(sums)?;
        Ok(())
    }

    /// A statement part met at `sequence`: once its last part is met, the statement is checked
    /// against the totals of its range, and the period starts again at its end. The totals kept
    /// cover `from .. sequence`; those of `to .. sequence` are read again to take them apart.
    pub fn statement(
        &mut self,
        sequence: u64,
        part: proto::ReturnsStatement,
        source: &impl Source,
    ) -> Result<Option<Disagreement>, FeedError> {
        let complete = part.part == part.parts;
        self.parts.push(part);
        if !complete {
            return Ok(None);
        }
        let parts = std::mem::take(&mut self.parts);
        let first = &parts[0];
        let (from, to) = (first.from_sequence, first.to_sequence);
        let disagree = |problem: String| Some(Disagreement { sequence, problem });
        let mut found = None;
        if parts.iter().enumerate().any(|(i, p)| {
            p.from_sequence != from
                || p.to_sequence != to
                || p.part as usize != i + 1
                || p.parts as usize != parts.len()
        }) {
            found = disagree("its parts do not follow one another".into());
        } else if from != self.from || to < from || to > sequence {
            found = disagree(format!(
                "it covers entries {from}..{to}, but the last statement ended at {} and it stands at {sequence}",
                self.from
            ));
        }
        if found.is_some() {
            return Ok(found);
        }
        let after = totals_of(source, to, sequence)?;
        let mut recomputed = std::mem::take(&mut self.totals);
        for (key, later) in &after {
            if let Some(sums) = recomputed.get_mut(key) {
                *sums = minus(sums, later);
            }
        }
        recomputed.retain(|_, s| *s != Sums::default());
        let mut stated = BTreeMap::new();
        for p in &parts {
            for t in &p.totals {
                let Some((key, sums)) = Sums::from_proto(t) else {
                    return Ok(disagree(format!("a total does not read: {t:?}")));
                };
                if stated.insert(key.clone(), sums).is_some() {
                    return Ok(disagree(format!("{key:?} is stated twice")));
                }
            }
        }
        stated.retain(|_, s| *s != Sums::default());
        self.from = to;
        self.totals = after;
        self.start_ms = first.period_end_ms;
        self.checked += 1;
        if stated != recomputed {
            let differing = stated
                .keys()
                .chain(recomputed.keys())
                .find(|k| stated.get(k) != recomputed.get(k))
                .cloned();
            return Ok(differing.map(|k| Disagreement {
                sequence,
                problem: format!(
                    "entries {from}..{to}: {} {} {} {} {}: stated {:?}, the hands add up to {:?}",
                    k.game,
                    k.table,
                    if k.dealer.is_empty() {
                        "(no dealer)"
                    } else {
                        &k.dealer
                    },
                    k.config_id,
                    k.bet,
                    stated.get(&k),
                    recomputed.get(&k)
                ),
            }));
        }
        Ok(None)
    }
}

/// `a − b` field by field, where `b` counts a part of what `a` counts.
fn minus(a: &Sums, b: &Sums) -> Sums {
    Sums {
        hands: a.hands.saturating_sub(b.hands),
        staked: a.staked.saturating_sub(b.staked),
        paid: a.paid.saturating_sub(b.paid),
        initial: a.initial.saturating_sub(b.initial),
        initial_squares: a.initial_squares.saturating_sub(b.initial_squares),
        voided_hands: a.voided_hands.saturating_sub(b.voided_hands),
        voided_staked: a.voided_staked.saturating_sub(b.voided_staked),
        voided_paid: a.voided_paid.saturating_sub(b.voided_paid),
        voided_initial: a.voided_initial.saturating_sub(b.voided_initial),
        voided_initial_squares: a
            .voided_initial_squares
            .saturating_sub(b.voided_initial_squares),
    }
}

/// Every statement of the log checked by reading it from the start (`pitboss verify`): the
/// statements checked, and the first disagreement.
pub fn check_log(
    source: &impl Source,
    size: u64,
) -> Result<(u64, Option<Disagreement>), FeedError> {
    let mut feed = Feed::default();
    let mut period = Period::default();
    let mut next = 0;
    while next < size {
        let Read { entries, read } = source
            .entries(next, BATCH.min(size - next))
            .map_err(|e| FeedError::Read(next, e))?;
        if read == 0 {
            break;
        }
        for entry in &entries {
            match feed.see(entry, source)? {
                Seen::Totals(added) => {
                    for (key, sums, _) in &added {
                        period.add(key, sums)?;
                    }
                }
                Seen::Statement(part) => {
                    if let Some(d) = period.statement(entry.envelope.sequence, part, source)? {
                        return Ok((period.checked, Some(d)));
                    }
                }
                _ => {}
            }
        }
        next += read;
    }
    Ok((period.checked, None))
}
