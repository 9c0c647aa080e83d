//! The explicit repair of a damaged data directory (`pitboss recover`), and its record in the log.
//!
//! A directory whose write-ahead log is damaged (a record that does not check, as after a power
//! loss in the middle of a write), whose log lost its tail (a WAL truncated or removed, table files
//! put back from an older backup), or whose anchor is damaged or missing is refused by every open
//! (`integrity.rs`). Recovery keeps the longest prefix of the log that RocksDB's point-in-time
//! recovery can read and that verifies in full, signatures included, and states against the anchor
//! exactly which acknowledged entries that loses. It proceeds only when the operator's
//! `--accept-loss` repeats that statement, copies the write-ahead log files, the manifest and the
//! anchor aside (`recovery-<ms>/` in the directory), appends a `LogRecovered` entry (the reason,
//! the findings, what was kept and lost), and only then writes a new anchor. A crash in between
//! leaves the directory refused again (never silently shorter): running the recovery again records
//! it again.
//!
//! It repairs nothing else: damaged table files, entries that do not verify, a rewritten log and
//! unusable keys block it, with the reason (restore from a backup; then recovery records what the
//! backup lacks).

use std::path::{Path, PathBuf};

use prost::Message;

use super::anchor;
use super::entry::Hash;
use super::integrity::{self, AnchorState, Examine, Examined, Refusal};
use super::store::{OpenOptions, StoreError, WalRecovery};
use super::{AppendRequest, Expected, Ledger, OpenError};
use crate::proto;

/// Longest `--reason` kept.
pub const MAX_REASON: usize = 4096;

/// What a recovery would do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The directory.
    pub dir: PathBuf,
    /// What the ordinary checks refuse (empty: the directory is sound and needs no recovery).
    pub findings: Vec<String>,
    /// Why recovery cannot help (empty: it can).
    pub blocked: Vec<String>,
    /// The log would keep entries 0 .. kept_size − 1.
    pub kept_size: u64,
    /// The acknowledged head from the anchor (size, hash), if it can be read.
    pub acknowledged: Option<(u64, Hash)>,
    /// Acknowledged entries lost: first ..= last.
    pub lost: Option<(u64, u64)>,
    /// What `--accept-loss` must say: `none`, `FIRST-LAST`, or `unknown` (no readable anchor).
    pub accept: String,
}

impl Plan {
    /// Nothing to recover.
    pub fn healthy(&self) -> bool {
        self.findings.is_empty()
    }
}

/// Why a recovery did not run.
#[derive(Debug, thiserror::Error)]
pub enum RecoveryError {
    #[error("nothing to recover: {0} passes every check")]
    Healthy(PathBuf),
    #[error("recovery cannot repair this: {}", .0.join("; "))]
    Blocked(Vec<String>),
    #[error("the recovery would lose {stated}; run again with --accept-loss {accept} to proceed (you gave {given:?})")]
    NotAccepted {
        stated: String,
        accept: String,
        given: String,
    },
    #[error("a reason is required (at most {MAX_REASON} bytes): it is recorded in the log")]
    Reason,
    #[error("cannot copy {path} aside: {source}")]
    Preserve {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Open(#[from] OpenError),
    #[error("after the recovery the directory still does not check: {0}")]
    Afterwards(#[from] Afterwards),
}

/// Why a repaired directory still does not check.
#[derive(Debug, thiserror::Error)]
pub enum Afterwards {
    #[error("the log opened with {opened} entries, the plan kept {kept}")]
    Kept { opened: u64, kept: u64 },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Refused(#[from] Refusal),
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Problems(Vec<Refusal>),
}

/// What was done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recovered {
    /// The plan carried out.
    pub plan: Plan,
    /// The `LogRecovered` entry's sequence.
    pub sequence: u64,
    /// Files copied aside, relative to the directory.
    pub preserved: Vec<String>,
}

/// Says what a recovery of `dir` would find, keep and lose. Reads only.
pub fn plan(dir: &Path) -> Plan {
    let mut plan = Plan {
        dir: dir.to_path_buf(),
        findings: Vec::new(),
        blocked: Vec::new(),
        kept_size: 0,
        acknowledged: None,
        lost: None,
        accept: "none".into(),
    };
    // What the ordinary checks say.
    let strict = examine(dir, WalRecovery::Strict, false);
    match &strict {
        Err(refusal) => plan.findings.push(refusal.to_string()),
        Ok(examined) => plan
            .findings
            .extend(examined.problems.iter().map(|p| p.to_string())),
    }
    if plan.healthy() {
        return plan;
    }
    // What point-in-time recovery keeps, checked in full.
    let examined = match examine(dir, WalRecovery::PointInTime, true) {
        Err(refusal) => {
            plan.blocked.push(refusal.to_string());
            return plan;
        }
        Ok(examined) => examined,
    };
    plan.blocked
        .extend(examined.problems.iter().map(|p| p.to_string()));
    plan.kept_size = examined.log_size;
    match &examined.anchor {
        AnchorState::Read(slots) => {
            let newer = &slots.newer;
            plan.acknowledged = Some((newer.size, newer.head));
            if newer.size > examined.log_size {
                plan.lost = Some((examined.log_size, newer.size - 1));
                plan.accept = format!("{}-{}", examined.log_size, newer.size - 1);
            }
        }
        AnchorState::Missing | AnchorState::Damaged => plan.accept = "unknown".into(),
    }
    plan
}

/// Opens `dir` read-only as `wal` says and examines it in full (every signature, keys included);
/// `Err` with the reason when it cannot even be opened.
fn examine(dir: &Path, wal: WalRecovery, recovering: bool) -> Result<Examined, Refusal> {
    let anchor = anchor::read_settled(&anchor::path_in(dir));
    let store = integrity::open_store(
        dir,
        OpenOptions {
            write: false,
            create: false,
            wal,
        },
    )?;
    let mut examined = integrity::examine(
        &store,
        anchor,
        &Examine {
            all_signatures: true,
            recovering,
            ..Examine::default()
        },
    );
    if examined.walk.report.ok() {
        if let Err(e) = integrity::check_key_files(
            dir,
            examined.log_size,
            examined.walk.last_key,
            &examined.walk.keys,
        ) {
            examined.problems.push(integrity::Refusal::Key(e));
        }
    }
    Ok(examined)
}

/// What the plan says is lost, in words.
pub fn stated_loss(plan: &Plan) -> String {
    match (plan.lost, plan.acknowledged) {
        (Some((first, last)), _) => format!(
            "acknowledged entries {first}..={last} ({} entries)",
            last - first + 1
        ),
        (None, Some(_)) => "no acknowledged entry".into(),
        (None, None) => format!(
            "an unknown number of acknowledged entries after entry {} (no anchor can be read)",
            plan.kept_size.saturating_sub(1)
        ),
    }
}

/// Carries out the recovery of `dir` if it is needed, possible, and its loss is `accept` (as
/// [`Plan::accept`] states it). `reason` is recorded in the log.
pub fn recover(
    dir: &Path,
    reason: &str,
    accept: &str,
    now_ms: u64,
) -> Result<Recovered, RecoveryError> {
    if reason.trim().is_empty() || reason.len() > MAX_REASON {
        return Err(RecoveryError::Reason);
    }
    let plan = plan(dir);
    if plan.healthy() {
        return Err(RecoveryError::Healthy(dir.to_path_buf()));
    }
    if !plan.blocked.is_empty() {
        return Err(RecoveryError::Blocked(plan.blocked));
    }
    if accept != plan.accept {
        return Err(RecoveryError::NotAccepted {
            stated: stated_loss(&plan),
            accept: plan.accept.clone(),
            given: accept.to_string(),
        });
    }
    let preserved = preserve(dir, now_ms)?;
    let opened = integrity::open_for_writing(dir, WalRecovery::PointInTime, true, None)
        .map_err(OpenError::from)?;
    if opened.next_sequence != plan.kept_size {
        return Err(Afterwards::Kept {
            opened: opened.next_sequence,
            kept: plan.kept_size,
        }
        .into());
    }
    let (acknowledged_size, head, known) = match plan.acknowledged {
        Some((size, head)) => (size, head.to_vec(), true),
        None => (0, Vec::new(), false),
    };
    let record = proto::LedgerPayload {
        kind: Some(proto::LedgerKind::LogRecovered(proto::LogRecovered {
            reason: reason.to_string(),
            findings: plan.findings.clone(),
            kept_size: plan.kept_size,
            acknowledged_size,
            acknowledged_head_hash: head,
            acknowledged_known: known,
            preserved_files: preserved.clone(),
            at_ms: now_ms,
        })),
    };
    let request = AppendRequest::entries(
        format!("recovery/{}", plan.kept_size),
        Expected::Version(0),
        vec![record.encode_to_vec()],
        now_ms,
        super::SERVER_ACTOR,
    );
    let (ledger, appended) =
        Ledger::start(opened, now_ms, Some(request)).map_err(OpenError::from)?;
    let sequence = appended.map_or(plan.kept_size, |a| a.first_sequence);
    // The damaged write-ahead log is not needed any more: what it held that checks is in tables.
    if let Some(store) = ledger.rocks() {
        store.flush_all().map_err(Afterwards::from)?;
    }
    ledger.close();
    drop(ledger);
    let after = examine(dir, WalRecovery::Strict, false).map_err(Afterwards::from)?;
    if !after.problems.is_empty() {
        return Err(Afterwards::Problems(after.problems).into());
    }
    Ok(Recovered {
        plan,
        sequence,
        preserved,
    })
}

/// Copies the write-ahead log files, the manifest, `CURRENT` and the anchor into
/// `recovery-<now_ms>/` in the directory; returns their paths relative to it.
fn preserve(dir: &Path, now_ms: u64) -> Result<Vec<String>, RecoveryError> {
    let aside = format!("recovery-{now_ms}");
    let target = dir.join(&aside);
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| RecoveryError::Preserve { path, source }
    };
    std::fs::create_dir_all(&target).map_err(io(&target))?;
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(io(dir))?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| {
            name.ends_with(".log")
                || name.starts_with("MANIFEST-")
                || name == "CURRENT"
                || name == anchor::ANCHOR_FILE
        })
        .collect();
    names.sort();
    let mut out = Vec::new();
    for name in names {
        let from = dir.join(&name);
        std::fs::copy(&from, target.join(&name)).map_err(io(&from))?;
        out.push(format!("{aside}/{name}"));
    }
    std::fs::File::open(&target)
        .and_then(|d| d.sync_all())
        .map_err(io(&target))?;
    Ok(out)
}
