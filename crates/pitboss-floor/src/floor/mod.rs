//! The floor: where hands are played. It joins the engine (the rules) and the ledger (the evidence):
//! draws each hand's seed from the operating system, decides commands with the engine, records the
//! events (with the seed kept secret beside the log until the hand ends), and answers with the
//! hand's state. It also keeps the published configurations and the recall indexes.
//!
//! A request id means one request (`requests.rs`): a retry is answered from the log, never from
//! state the floor computed for it, and the same id for anything else is refused.
//!
//! It decides nothing itself (the engine does) and stores nothing itself (the ledger does); it holds
//! no protobuf service code (the service layer does).

mod cache;
mod certifications;
mod configurations;
mod error;
mod export;
mod hands;
mod index;
mod log;
mod operations;
mod proposals;
mod recall;
mod records;
mod requests;
mod retries;
mod returns;
mod round_records;
mod rounds;
mod tally;
#[cfg(test)]
pub(crate) mod testing;

use crate::codec::EntryPayload;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, RwLock};

use crate::proto;
use pitboss_engine::config::{ConfigId, GameConfig};
use pitboss_engine::game::GameId;
use pitboss_ledger::Ledger;

use cache::HandCache;
pub use certifications::Certified;
pub use configurations::{ConfigPage, Listed, LOOKED_AT_MOST};
use error::invalid;
pub use error::{FloorError, ProposalProblem};
pub use export::{ExportCursor, ExportSelection, Exported, HandsPage};
pub use hands::{hand_of_stream, hand_stream, HandSnapshot, OpenRequest};
pub use index::{HandFilter, HandSummary, Page, MAX_PAGE as MAX_HANDS_PAGE};
use operations::operation_stream;
pub use operations::{Attribution, OperationCounts, OperationResult, MAX_LISTED_HANDS};
pub use pitboss_ledger::VerifyStopped;
pub use proposals::{Done, Proposal, PROPOSAL_TTL_MS};
pub use recall::{RoundFilter, ROUND_ENTRIES_READ};
pub use records::ReloadError;
pub use requests::Script;
pub use retries::RoundAnswer;
pub use round_records::{phase_name, phase_of_name, PlaceRecord, RoundRecord};
pub use rounds::{round_of_stream, round_stream, OpenRoundRequest, RoundCall};
pub use tally::{Happened, Tally};

/// A hand id: 16 random bytes as lower-case hex.
pub const HAND_ID_LEN: usize = 32;
/// The longest table or player reference recorded with a hand, in characters.
pub const MAX_NAME_CHARS: usize = 200;

/// True for a string shaped as a hand id (32 lower-case hexadecimal digits).
pub fn is_hand_id(id: &str) -> bool {
    id.len() == HAND_ID_LEN && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A name recorded with a hand or a round (a table, a player, a dealer, a shoe): within the
/// floor's bound, no control characters.
fn name_within(field: &str, value: &str) -> Result<(), FloorError> {
    if value.chars().any(char::is_control) || value.chars().count() > MAX_NAME_CHARS {
        return Err(invalid(
            field,
            format!("at most {MAX_NAME_CHARS} characters, no control characters"),
        ));
    }
    Ok(())
}

/// Every entry names who caused it: an empty actor is a caller's mistake, refused.
fn actor_given(actor: &str) -> Result<(), FloorError> {
    if actor.trim().is_empty() {
        return Err(invalid("actor", "required: who causes the entries"));
    }
    Ok(())
}

/// The floor.
pub struct Floor {
    ledger: Arc<Ledger>,
    configs: RwLock<BTreeMap<ConfigId, Arc<configurations::Kept>>>,
    defaults: HashMap<GameId, ConfigId>,
    locks: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    /// Hands in progress, bounded (`cache.rs`).
    cache: HandCache,
    /// Rounds in play, bounded (`rounds.rs`).
    rounds: std::sync::Arc<rounds::KeptRounds>,
    /// Operations over many hands run one at a time (a retry then finds the first one's record).
    operations: tokio::sync::Mutex<()>,
    clock: Arc<dyn Fn() -> u64 + Send + Sync>,
    /// Hands opened, settled and voided since it opened (for the metrics).
    tally: Tally,
    /// Hands open only under configurations whose latest certification report holds
    /// (`[certification] required`; [`Floor::require_certification`]).
    certification_required: bool,
    /// Told the id of each round that awaits its beacon round ([`Floor::watch_beacons`]).
    beacon_watch: std::sync::OnceLock<BeaconWatch>,
}

/// Told the id of a round that awaits its beacon round: whoever fetches beacons.
pub type BeaconWatch = Arc<dyn Fn(&str) + Send + Sync>;

/// Milliseconds since the Unix epoch from the system clock.
pub fn system_clock() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl Floor {
    /// Opens the floor on a ledger: loads the published configurations and publishes the default
    /// ones that are not yet in the log.
    pub async fn open(
        ledger: Arc<Ledger>,
        clock: Arc<dyn Fn() -> u64 + Send + Sync>,
    ) -> Result<Floor, FloorError> {
        let mut floor = Floor {
            ledger,
            configs: RwLock::new(BTreeMap::new()),
            defaults: HashMap::new(),
            locks: Mutex::new(HashMap::new()),
            cache: HandCache::new(cache::CAPACITY),
            rounds: std::sync::Arc::new(rounds::KeptRounds::default()),
            operations: tokio::sync::Mutex::new(()),
            clock,
            tally: Tally::default(),
            certification_required: false,
            beacon_watch: std::sync::OnceLock::new(),
        };
        floor.load_configs()?;
        for game in GameId::ALL {
            let config = GameConfig::default_for(game);
            if floor.ledger.read_only() {
                // A read-only server publishes nothing (and plays nothing under a default).
                floor.defaults.insert(game, config.id());
                continue;
            }
            let (id, _) = floor
                .publish(config, None, pitboss_ledger::SERVER_ACTOR)
                .await?;
            floor.defaults.insert(game, id);
        }
        Ok(floor)
    }

    /// Opens new hands only under configurations whose latest certification report in the log
    /// holds (`required`), or under any published one (docs/certification.md, "The
    /// configurations in play"). Hands already open go on either way.
    pub fn require_certification(mut self, required: bool) -> Floor {
        self.certification_required = required;
        self
    }

    /// Tells `watch` the id of every round that comes to await its beacon round (betting closed
    /// under a configuration whose seed a beacon mixes), and of every such round read from the
    /// log, so that it fetches the beacon and steps the round on (`pitboss_server::beacons`).
    /// Set once; a later call changes nothing.
    pub fn watch_beacons(&self, watch: BeaconWatch) {
        let _ = self.beacon_watch.set(watch);
    }

    /// Tells the beacon watcher, if any, that round `id` awaits its beacon.
    pub(crate) fn awaiting_beacon(&self, id: &str) {
        if let Some(watch) = self.beacon_watch.get() {
            watch(id);
        }
    }

    /// The beacon watcher, if one is set.
    pub(crate) fn beacon_watch(&self) -> Option<BeaconWatch> {
        self.beacon_watch.get().cloned()
    }

    /// What the floor recorded since it opened, by game.
    pub fn tally(&self) -> &Tally {
        &self.tally
    }

    /// Now, by the floor's clock.
    pub fn now(&self) -> u64 {
        (self.clock)()
    }

    /// Decodes a stored payload (for the audit layer and the service).
    pub fn payload(entry: &pitboss_ledger::Entry) -> Result<proto::Payload, FloorError> {
        entry.payload().map_err(|e| {
            FloorError::Corrupt(format!("entry {}", entry.envelope.sequence), e.to_string())
        })
    }
}
