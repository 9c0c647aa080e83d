//! Ledger benchmarks: durable, signed appends per second (one writer; many writers with group
//! commit), signing alone for reference, and verification speed (batched and one by one).
//! Run: `cargo bench --bench ledger` (numbers in `docs/PERFORMANCE.md`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use pitboss::proto;
use pitboss_ledger::{AppendRequest, Expected, Ledger};

fn payload() -> Vec<u8> {
    // About the size of a hand event (a settlement line is larger, a card shown smaller).
    prost::Message::encode_to_vec(&proto::Payload {
        kind: Some(proto::payload::Kind::CardsShown(proto::CardsShown {
            seat: "community".into(),
            positions: vec![2, 3, 4],
            cards: vec!["As".into(), "Kd".into(), "7c".into()],
        })),
    })
}

fn request(stream: String, entries: usize) -> AppendRequest {
    AppendRequest {
        stream,
        expected: Expected::Any,
        payloads: vec![payload(); entries],
        request: None,
        indexes: Vec::new(),
        secrets: Vec::new(),
        unindex: Vec::new(),
        recorded_at_ms: 0,
        actor: "bench".into(),
    }
}

/// Entries per second with `writers` concurrent tasks appending `entries` per append for `secs`.
fn appends(ledger: &Arc<Ledger>, writers: usize, entries: usize, secs: f64) -> (f64, f64) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs_f64(secs);
    let started = Instant::now();
    let total: u64 = runtime.block_on(async {
        let tasks: Vec<_> = (0..writers)
            .map(|w| {
                let ledger = ledger.clone();
                tokio::spawn(async move {
                    let mut n = 0u64;
                    while Instant::now() < deadline {
                        ledger
                            .append(request(format!("bench/{w}"), entries))
                            .await
                            .unwrap();
                        n += entries as u64;
                    }
                    n
                })
            })
            .collect();
        let mut total = 0;
        for t in tasks {
            total += t.await.unwrap();
        }
        total
    });
    let elapsed = started.elapsed().as_secs_f64();
    (
        total as f64 / elapsed,
        total as f64 / entries as f64 / elapsed,
    )
}

fn main() {
    // `cargo test --benches` runs this with `--test`-style arguments: keep it short then.
    let quick = !std::env::args().any(|a| a == "--bench");
    let secs = if quick { 0.2 } else { 3.0 };
    let dir = tempfile::tempdir().unwrap();
    let ledger = Arc::new(Ledger::open(dir.path(), 0).unwrap());
    println!("{:<44} {:>14} {:>14}", "case", "entries/s", "appends/s");
    for (writers, entries) in [(1, 1), (8, 1), (64, 1), (256, 1), (64, 8)] {
        let (per_entry, per_append) = appends(&ledger, writers, entries, secs);
        println!(
            "{:<44} {per_entry:>14.0} {per_append:>14.0}",
            format!("append: {writers} writers x {entries} entries, synced")
        );
    }

    // Signing alone, one core: the reference the write path is held to.
    let key = pitboss_ledger::keys::Keypair::from_secret([3; 32]);
    let n = if quick { 2_000 } else { 100_000 };
    let started = Instant::now();
    let mut acc = 0u8;
    for i in 0..n {
        let mut hash = [0u8; 32];
        hash[..8].copy_from_slice(&(i as u64).to_le_bytes());
        acc ^= key.sign(&hash)[0];
    }
    let signing = n as f64 / started.elapsed().as_secs_f64();
    println!(
        "{:<44} {signing:>14.0}   (checksum {acc})",
        "sign alone, one core"
    );

    let entries = ledger.head().unwrap().map_or(0, |(s, _)| s + 1);
    let started = Instant::now();
    let report = ledger.verify();
    assert!(report.ok());
    let batched = entries as f64 / started.elapsed().as_secs_f64();
    let started = Instant::now();
    let checked = ledger.verify_one_by_one().unwrap();
    let single = checked as f64 / started.elapsed().as_secs_f64();
    println!(
        "{:<44} {batched:>14.0}",
        format!("verify {entries} entries, batched")
    );
    println!("{:<44} {single:>14.0}", "verify, one by one");
}
