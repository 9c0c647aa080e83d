//! `pitboss verify --data DIR`: checks a data directory read-only (a running server is not
//! disturbed) with the checks the server makes before it serves one (`ledger::integrity`): the
//! write-ahead log and table files, every entry's place, bytes, link, key and signature, the anchor
//! (the log holds everything acknowledged, unrewritten), and the key files. `--checkpoint FILE`
//! also holds the log to a checkpoint kept earlier: its signature, and that the log still holds its
//! entries with the same Merkle root (a shorter log reports the missing tail, another root a
//! rewrite). With `--server URL` instead, the server walks its log (`Audit.VerifyLog`).
//!
//! Exit status 0 when everything checks, 1 with every problem named, 2 when the directory or the
//! checkpoint cannot be read at all.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use ed25519_dalek::VerifyingKey;

use pitboss_ledger::anchor;
use pitboss_ledger::checkpoint::{self, Checkpoint};
use pitboss_ledger::integrity::{self, AnchorState, Examine, Examined, Refusal};
use pitboss_ledger::store::{LogStore, OpenOptions, StoreError};

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The data directory.
    #[arg(long, default_value = "./pitboss-data")]
    data: PathBuf,
    /// First sequence number to check (keys and the link come from the entry before it).
    #[arg(long, default_value_t = 0)]
    from: u64,
    /// Last sequence number to check.
    #[arg(long)]
    to: Option<u64>,
    /// Hold the log to this checkpoint (a file written by `pitboss checkpoint`): its signature,
    /// and that the log holds its entries with its Merkle root.
    #[arg(long, conflicts_with_all = ["from", "to", "server"])]
    checkpoint: Option<PathBuf>,
    /// The log's Ed25519 public key (64 hex digits), as you pinned it, to check the checkpoint's
    /// signature with. Without it the checkpoint is checked with the keys the log itself
    /// establishes, which proves less: a log and a checkpoint replaced together would agree.
    #[arg(long, requires = "checkpoint")]
    key: Option<String>,
    /// Do not check the secret key files (for a copy of a directory made without them, as an
    /// auditor should receive it): the log, the anchor and the tables are checked all the same.
    #[arg(long)]
    without_keys: bool,
    /// Ask this running server to verify its log instead of reading a data directory.
    #[arg(long, conflicts_with = "data")]
    server: Option<String>,
    /// Verify the log in this PostgreSQL database (`postgres://user@host:port/db`) instead: the
    /// same walk, and the head row must name the last entry.
    #[arg(long, conflicts_with_all = ["data", "server", "checkpoint", "without_keys"])]
    store: Option<String>,
}

pub fn run(args: VerifyArgs) -> ExitCode {
    if let Some(server) = &args.server {
        return remote(server.clone(), args.from, args.to);
    }
    if let Some(url) = &args.store {
        return database(url, args.from, args.to);
    }
    // A mirror's copy (`pitboss mirror`) has no anchor and no key of its own: its checkpoint is the
    // log's, held beside it, and the log it copies is named by its MIRROR file.
    let mirror_of = std::fs::read_to_string(args.data.join(pitboss_ledger::mirror::MIRROR_FILE))
        .ok()
        .map(|text| text.trim().chars().take(200).collect::<String>());
    let held = args.data.join(pitboss_ledger::mirror::HELD_FILE);
    let checkpoint_file = match (&args.checkpoint, &mirror_of) {
        (Some(path), _) => Some(path.clone()),
        (None, Some(_)) if held.exists() && args.from == 0 && args.to.is_none() => Some(held),
        _ => None,
    };
    let checkpoint = match &checkpoint_file {
        None => None,
        Some(path) => match read_checkpoint(path, args.key.as_deref()) {
            Ok(c) => Some(c),
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::from(2);
            }
        },
    };
    // The anchor first: a server writing may add to the log after this, never remove from it.
    let anchor = anchor::read_settled(&anchor::path_in(&args.data));
    let store = match integrity::open_store(&args.data, OpenOptions::READ_ONLY) {
        Ok(store) => store,
        Err(e @ Refusal::DamagedWal { .. }) => {
            println!("FAILED: {e}");
            return ExitCode::from(1);
        }
        Err(Refusal::Store(e @ StoreError::NoDatabase { .. })) => {
            eprintln!("cannot read {}: {e}", args.data.display());
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("cannot read {}: {e}", args.data.display());
            return ExitCode::from(2);
        }
    };
    let started = std::time::Instant::now();
    let walked = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let size = store.log_size().unwrap_or(0);
    let total = args.to.map_or(size, |to| size.min(to.saturating_add(1)));
    let examined =
        super::progress::while_running(&walked, total.saturating_sub(args.from), "entries", || {
            integrity::examine(
                &store,
                anchor,
                &Examine {
                    from: args.from,
                    to: args.to,
                    all_signatures: true,
                    recovering: false,
                    payloads: Some(pitboss::codec::check_payload),
                    progress: Some(walked.clone()),
                },
            )
        });
    let elapsed = started.elapsed();
    // Each failure as printed after "FAILED": an entry's problem as before ("FAILED at entry 6:
    // missing"), the others after a colon.
    let mut failed: Vec<String> = examined
        .problems
        .iter()
        .filter(|p| !(mirror_of.is_some() && matches!(p, Refusal::AnchorMissing { .. })))
        .map(|p| match p {
            Refusal::Log { problem } => format!(" at {problem}"),
            other => format!(": {other}"),
        })
        .collect();
    let report = &examined.walk.report;
    match report.head {
        Some((sequence, hash)) => println!(
            "verified {} entries ({}..={sequence}) in {:.3} s; last good entry {sequence}, hash {}",
            report.verified,
            args.from,
            elapsed.as_secs_f64(),
            hex::encode(hash)
        ),
        None => println!("verified 0 entries"),
    }
    let whole = args.from == 0 && args.to.is_none();
    print_anchor(&examined);
    if let Some(origin) = &mirror_of {
        println!("mirror: a copy of log {origin} (no anchor or key of its own; its checkpoint is the log's)");
        let copied = examined
            .walk
            .origin
            .map(|h| pitboss_ledger::checkpoint::origin_of(&h));
        if whole && copied.as_ref().is_some_and(|copied| copied != origin) {
            failed.push(format!(
                ": the MIRROR file names log {origin}, but the copy's first entry is log {}",
                copied.unwrap_or_default()
            ));
        }
    }
    if whole && report.ok() && !args.without_keys && mirror_of.is_none() {
        match integrity::check_key_files(
            &args.data,
            examined.log_size,
            examined.walk.last_key,
            &examined.walk.keys,
        ) {
            Ok(note) => {
                match examined.walk.last_key {
                    Some(key) => println!(
                        "keys: {} is the log's current signing key {key}",
                        pitboss_ledger::keys::KEY_FILE
                    ),
                    None => println!("keys: the log is empty (its key is made when it starts)"),
                }
                if let Some(note) = note {
                    println!("note: {note}");
                }
            }
            Err(e) => failed.push(format!(
                ": {e} (verifying a copy made without its secret key? add --without-keys)"
            )),
        }
    }
    if whole && report.ok() {
        failed.extend(statements(&store, examined.log_size));
    }
    if let Some((c, pinned)) = &checkpoint {
        failed.extend(
            check_checkpoint(&store, &examined, c, pinned.as_ref())
                .into_iter()
                .map(|f| format!(": {f}")),
        );
    }
    for (sequence, r) in &examined.walk.recoveries {
        println!(
            "recorded recovery at entry {sequence}: kept entries 0..{}{}; reason: {}",
            r.kept_size,
            if r.acknowledged_known && r.acknowledged_size > r.kept_size {
                format!(
                    ", lost acknowledged entries {}..={}",
                    r.kept_size,
                    r.acknowledged_size - 1
                )
            } else if r.acknowledged_known {
                ", lost no acknowledged entry".to_string()
            } else {
                ", what was acknowledged was unknown (no anchor)".to_string()
            },
            r.reason
        );
    }
    if examined.format == Some(pitboss_ledger::store::LEGACY_FORMAT_VERSION)
        && matches!(examined.anchor, AnchorState::Missing)
    {
        println!(
            "note: format {} (written by an earlier release): no anchor yet; the first start of this release verifies the whole log, signatures included, and anchors it",
            pitboss_ledger::store::LEGACY_FORMAT_VERSION
        );
    }
    for note in &examined.notes {
        println!("note: {note}");
    }
    if failed.is_empty() {
        println!(
            "OK: every link, hash and signature checks{}",
            if whole && !matches!(examined.anchor, AnchorState::Missing) {
                "; the log holds everything it acknowledged"
            } else {
                ""
            }
        );
        ExitCode::SUCCESS
    } else {
        for problem in &failed {
            println!("FAILED{problem}");
        }
        ExitCode::from(1)
    }
}

/// Every returns statement of the log recomputed from its hands (`docs/returns.md`): a line
/// saying how many agree, or the failure.
fn statements(store: &(impl pitboss_ledger::LogStore + ?Sized), size: u64) -> Option<String> {
    let started = std::time::Instant::now();
    match pitboss::returns::statement::check_log(&store, size) {
        Ok((checked, None)) => {
            println!(
                "returns: {checked} statement(s) recomputed from their hands and agree ({:.3} s)",
                started.elapsed().as_secs_f64()
            );
            None
        }
        Ok((_, Some(d))) => Some(format!(
            " at entry {}: the returns statement does not agree with its hands: {}",
            d.sequence, d.problem
        )),
        Err(e) => Some(format!(
            ": the returns statements could not be recomputed: {e}"
        )),
    }
}

fn print_anchor(examined: &Examined) {
    match &examined.anchor {
        AnchorState::Read(slots) if slots.newer.size > 0 => println!(
            "anchor: acknowledged entries 0..={} (last hash {}), signed by key {}",
            slots.newer.size - 1,
            hex::encode(slots.newer.head),
            slots.newer.key_id
        ),
        AnchorState::Read(_) => println!("anchor: nothing acknowledged yet"),
        AnchorState::Missing => println!("anchor: none"),
        AnchorState::Damaged => println!("anchor: damaged"),
    }
}

/// A checkpoint file and the pinned key, if given.
type Held = (Checkpoint, Option<VerifyingKey>);

/// A checkpoint note is a few hundred bytes; no more than this is read.
const MAX_CHECKPOINT: u64 = 64 * 1024;

fn read_checkpoint(path: &PathBuf, key: Option<&str>) -> Result<Held, String> {
    let cannot = |e: std::io::Error| format!("cannot read the checkpoint {}: {e}", path.display());
    let file = std::fs::File::open(path).map_err(cannot)?;
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut std::io::Read::take(file, MAX_CHECKPOINT + 1),
        &mut text,
    )
    .map_err(cannot)?;
    if text.len() as u64 > MAX_CHECKPOINT {
        return Err(format!(
            "{} is longer than {MAX_CHECKPOINT} bytes: not a checkpoint",
            path.display()
        ));
    }
    let checkpoint = Checkpoint::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let key = match key {
        None => None,
        Some(text) => {
            let bytes: [u8; 32] = hex::decode(text)
                .ok()
                .and_then(|b| b.try_into().ok())
                .ok_or("--key is not 64 hex digits")?;
            Some(VerifyingKey::from_bytes(&bytes).map_err(|_| "--key is not an Ed25519 key")?)
        }
    };
    Ok((checkpoint, key))
}

/// Holds the log to a checkpoint; prints what holds and returns what does not.
fn check_checkpoint(
    store: &pitboss_ledger::Store,
    examined: &Examined,
    c: &Checkpoint,
    pinned: Option<&VerifyingKey>,
) -> Vec<String> {
    let mut failed = Vec::new();
    let walk = &examined.walk;
    // The signature: with the pinned key, or with a key the log establishes.
    match pinned {
        Some(key) => match c.verify(key) {
            Ok(()) => println!("checkpoint: signature valid (the pinned key)"),
            Err(e) => failed.push(format!("checkpoint: {e}")),
        },
        None => {
            let signer = walk.keys.iter().find(|(_, key)| c.verify(key).is_ok());
            match signer {
                Some((id, _)) => println!(
                    "checkpoint: signature valid by the log's own key {id} (no --key given: a log and a checkpoint replaced together would also agree; pin the key)"
                ),
                None => failed.push(
                    "checkpoint: not signed by any key this log establishes (pass the key you pinned with --key)"
                        .into(),
                ),
            }
        }
    }
    if let Some(origin) = walk.origin {
        let ours = checkpoint::origin_of(&origin);
        if ours != c.origin {
            failed.push(format!(
                "checkpoint: it is of another log ({}), not this one ({ours})",
                c.origin
            ));
            return failed;
        }
    }
    let recoveries = |from: u64| -> String {
        let found: Vec<String> = walk
            .recoveries
            .iter()
            .filter(|(_, r)| r.kept_size < c.size.max(from))
            .map(|(seq, r)| {
                format!(
                    "entry {seq} records a recovery that kept entries 0..{} ({})",
                    r.kept_size, r.reason
                )
            })
            .collect();
        if found.is_empty() {
            String::new()
        } else {
            format!("; {}", found.join("; "))
        }
    };
    if examined.log_size < c.size {
        failed.push(format!(
            "checkpoint: MISSING TAIL: the checkpoint covers entries 0..={}, the log holds {}: entries {}..={} are missing{}",
            c.size - 1,
            if examined.log_size == 0 { "none".to_string() } else { format!("0..={}", examined.log_size - 1) },
            examined.log_size,
            c.size - 1,
            recoveries(0)
        ));
        return failed;
    }
    match pitboss_ledger::root_from_store(store, c.size) {
        Ok(root) if root == c.root => println!(
            "checkpoint: the log's first {} entries have the checkpoint's Merkle root",
            c.size
        ),
        Ok(_) => failed.push(format!(
            "checkpoint: REWRITTEN: the Merkle root of the log's first {} entries is not the checkpoint's: entries among them were altered, removed or reordered since{}",
            c.size,
            recoveries(0)
        )),
        Err(e) => failed.push(format!(
            "checkpoint: the first {} entries cannot be held to it: {e}{}",
            c.size,
            recoveries(0)
        )),
    }
    failed
}

/// Verification by a running server.
fn remote(server: String, from: u64, to: Option<u64>) -> ExitCode {
    let server_args = super::client::ServerArgs::at(server);
    let result = super::client::block_on(async {
        let mut audit =
            pitboss::proto::audit_client::AuditClient::new(server_args.connect().await?);
        audit
            .verify_log(pitboss::proto::VerifyLogRequest {
                from_sequence: from,
                to_sequence: to,
            })
            .await
            .map(tonic::Response::into_inner)
            .map_err(super::client::refused)
    });
    match result {
        Err(e) => {
            eprintln!("{e:#}");
            ExitCode::from(2)
        }
        Ok(r) => {
            println!(
                "verified {} entries; last good entry {}, hash {}",
                r.verified,
                r.head_sequence
                    .map_or("none".to_string(), |s| s.to_string()),
                r.head_hash
            );
            if r.ok {
                println!("OK: every link, hash and signature checks");
                ExitCode::SUCCESS
            } else {
                println!("FAILED at {}", r.problem);
                ExitCode::from(1)
            }
        }
    }
}

/// `--store`: the walk of `pitboss verify` over a PostgreSQL log, read a page at a time, and the
/// head row against the last entry walked.
fn database(url: &str, from: u64, to: Option<u64>) -> ExitCode {
    let store = match pitboss_ledger::pg::PgStore::connect_reading(url) {
        Ok(store) => store,
        Err(e) => {
            eprintln!("cannot read the database: {e}");
            return ExitCode::from(2);
        }
    };
    // The head row first: writing servers may append while the walk runs (a live log, or a
    // replica replaying), and the walk stops at the head read here.
    let head = store.head_row();
    let size = match &head {
        Ok(Some((size, _))) => *size,
        _ => store.log_size().unwrap_or(0),
    };
    let walk_to = to.or(size.checked_sub(1));
    let total = walk_to.map_or(size, |to| size.min(to.saturating_add(1)));
    let walked = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let started = std::time::Instant::now();
    let report =
        super::progress::while_running(&walked, total.saturating_sub(from), "entries", || {
            pitboss_ledger::walk(
                &store,
                &pitboss_ledger::WalkOptions {
                    from,
                    to: walk_to,
                    payloads: Some(pitboss::codec::check_payload),
                    progress: Some(walked.clone()),
                    ..Default::default()
                },
            )
            .report
        });
    let seconds = started.elapsed().as_secs_f64();
    let mut failed = Vec::new();
    if let Some(problem) = &report.problem {
        failed.push(format!(" at {problem}"));
    } else if from == 0 && to.is_none() {
        failed.extend(statements(&store, size));
    }
    match head {
        Ok(Some((size, hash))) => {
            let walked_to = report.head.map(|(s, h)| (s + 1, h.to_vec()));
            if to.is_none()
                && report.problem.is_none()
                && walked_to.unwrap_or((0, vec![0; 32])) != (size, hash.clone())
            {
                failed.push(format!(
                    ": the head row says {size} entries ending at {}, the walk ended at {:?}",
                    hex::encode(&hash),
                    report.head.map(|(s, h)| (s, hex::encode(h)))
                ));
            }
            // Nothing past the head: the head row and the last entry read in one snapshot.
            match store.head_and_last_entry() {
                Ok(Some((size, _, Some((last, _))))) if last.checked_add(1) != Some(size) => failed
                    .push(format!(
                        ": the head row says {size} entries, but the last entry is {last}"
                    )),
                Ok(Some((size, _, None))) if size > 0 => failed.push(format!(
                    ": the head row says {size} entries, but the log holds none"
                )),
                Ok(_) => {}
                Err(e) => failed.push(format!(": the head row cannot be read: {e}")),
            }
        }
        Ok(None) if size > 0 => failed.push(": the log has entries but no head row".into()),
        Ok(None) => {}
        Err(e) => failed.push(format!(": the head row cannot be read: {e}")),
    }
    if let Some((sequence, hash)) = report.head {
        println!(
            "verified {} entries ({from}..={sequence}) in {seconds:.3} s ({:.0} entries/s) from {}; last good entry {sequence}, hash {}",
            report.verified,
            report.verified as f64 / seconds.max(1e-9),
            store.describe(),
            hex::encode(hash)
        );
    } else {
        println!("verified 0 entries from {}", store.describe());
    }
    if failed.is_empty() {
        println!("OK");
        ExitCode::SUCCESS
    } else {
        for f in failed {
            println!("FAILED{f}");
        }
        ExitCode::from(1)
    }
}
