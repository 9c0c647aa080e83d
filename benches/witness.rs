//! The second cosignature's cost (issue 41): per checkpoint, a witness's Ed25519 `cosignature/v1`
//! against its ML-DSA-44 `subtree/v1` — making one, checking one, the line's bytes — and the whole
//! `add-checkpoint` decision (parse, the log's signature, the consistency proof, the state synced
//! to disk, the lines) with Ed25519 only against both, in the same run. Run: `cargo bench --bench
//! witness` (numbers in `docs/PERFORMANCE.md`). A fixed amount of work; nothing here asserts a
//! speed.

use std::time::Instant;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ed25519_dalek::{Signer, SigningKey};
use pitboss_ledger::keys::Keypair;
use pitboss_ledger::merkle::{consistency_proof, root_of};
use pitboss_witness::checkpoint::Checkpoint;
use pitboss_witness::cosignature;
use pitboss_witness::note::{key_id, Note, NoteSignature, Vkey, ED25519};
use pitboss_witness::request::AddCheckpoint;
use pitboss_witness::state::State;
use pitboss_witness::subtree::MlDsaKey;
use pitboss_witness::Witness;

const ORIGIN: &str = "pitboss.example/casino-1";

fn per_second(n: u64, started: Instant) -> f64 {
    n as f64 / started.elapsed().as_secs_f64()
}

/// The log's note of the first `size` leaves.
fn note(size: u64, leaves: &[[u8; 32]], log: &SigningKey) -> Note {
    let text = format!(
        "{ORIGIN}\n{size}\n{}\n",
        STANDARD.encode(root_of(&leaves[..size as usize]))
    );
    Note {
        signatures: vec![NoteSignature {
            name: ORIGIN.into(),
            key_id: key_id(ORIGIN, ED25519, log.verifying_key().as_bytes()),
            bytes: log.sign(text.as_bytes()).to_bytes().to_vec(),
        }],
        text,
    }
}

/// `n` checkpoints of a growing log through a witness: add-checkpoint decisions per second.
fn decisions(n: u64, ml_dsa: Option<bool>) -> f64 {
    let dir = tempfile::tempdir().expect("a directory");
    let log = SigningKey::from_bytes(&[1; 32]);
    let log_vkey = Vkey {
        name: ORIGIN.into(),
        kind: ED25519,
        key: log.verifying_key(),
    };
    let witness = Witness::new(
        "witness.example/w1".into(),
        Keypair::from_secret([2; 32]),
        vec![log_vkey],
        State::open(dir.path()).expect("its state"),
    );
    let witness = match ml_dsa {
        None => witness,
        Some(ed25519) => witness
            .with_ml_dsa(MlDsaKey::from_seed([3; 32]), ed25519)
            .expect("a short name"),
    };
    let leaves: Vec<[u8; 32]> = (0..=n + 1).map(|i| [i as u8; 32]).collect();
    let bodies: Vec<Vec<u8>> = (1..=n)
        .map(|size| {
            AddCheckpoint {
                old: size - 1,
                proof: consistency_proof(&mut leaves.as_slice(), size - 1, size).expect("a proof"),
                note: note(size, &leaves, &log),
            }
            .to_body()
            .into_bytes()
        })
        .collect();
    let started = Instant::now();
    for body in &bodies {
        witness
            .add_checkpoint(body, 1_800_000_000)
            .expect("cosigned");
    }
    per_second(n, started)
}

fn main() {
    // `cargo test --benches` runs this without `--bench`: a quick pass that the code runs.
    let quick = !std::env::args().any(|a| a == "--bench");
    let n = if quick { 20 } else { 2_000u64 };
    let leaves: Vec<[u8; 32]> = (0..1024u32).map(|i| [i as u8; 32]).collect();
    let log = SigningKey::from_bytes(&[1; 32]);
    let text = note(1000, &leaves, &log).text;
    let checkpoint = Checkpoint::parse(&text).expect("a checkpoint");
    let ed = Keypair::from_secret([2; 32]);
    let ed_vkey = Vkey {
        name: "witness.example/w1".into(),
        kind: pitboss_witness::note::COSIGNATURE_V1,
        key: ed.public(),
    };
    let pq = MlDsaKey::from_seed([3; 32]);
    let pq_vkey = pq.vkey("witness.example/w1");

    let started = Instant::now();
    let mut ed_line = None;
    for t in 0..n {
        ed_line = Some(cosignature::sign(&ed_vkey.name, &ed, 1 + t, &text));
    }
    let ed_sign = per_second(n, started);
    let ed_line = ed_line.expect("a line");
    let started = Instant::now();
    for _ in 0..n {
        cosignature::verify(&ed_vkey, &text, &ed_line).expect("it verifies");
    }
    let ed_verify = per_second(n, started);

    let started = Instant::now();
    let mut pq_line = None;
    for t in 0..n {
        pq_line = pq.sign_checkpoint(&pq_vkey.name, 1 + t, &checkpoint);
    }
    let pq_sign = per_second(n, started);
    let pq_line = pq_line.expect("a line");
    let started = Instant::now();
    for _ in 0..n {
        pq_vkey
            .verify_checkpoint(&text, &pq_line)
            .expect("it verifies");
    }
    let pq_verify = per_second(n, started);

    println!("one checkpoint cosigned ({n} each, one thread):");
    println!(
        "  Ed25519 cosignature/v1:   sign {ed_sign:>9.0}/s  verify {ed_verify:>9.0}/s  line {} bytes",
        ed_line.line().len()
    );
    println!(
        "  ML-DSA-44 subtree/v1:     sign {pq_sign:>9.0}/s  verify {pq_verify:>9.0}/s  line {} bytes",
        pq_line.line().len()
    );
    println!(
        "  ML-DSA-44 / Ed25519:      sign {:.2}x the time, verify {:.2}x the time",
        ed_sign / pq_sign,
        ed_verify / pq_verify
    );
    let decisions_n = if quick { 10 } else { 300 };
    let only_ed = decisions(decisions_n, None);
    let both = decisions(decisions_n, Some(true));
    let only_pq = decisions(decisions_n, Some(false));
    println!(
        "add-checkpoint decisions ({decisions_n} checkpoints of a growing log, state synced each):"
    );
    println!("  Ed25519 only:  {only_ed:>8.0}/s");
    println!(
        "  both lines:    {both:>8.0}/s  ({:.2}x Ed25519 only)",
        both / only_ed
    );
    println!(
        "  ML-DSA-44 only:{only_pq:>8.0}/s  ({:.2}x Ed25519 only)",
        only_pq / only_ed
    );
}
