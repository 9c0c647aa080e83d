//! The log as C2SP tlog-tiles: a tile directory published step by step across every
//! kind of boundary (a partial tile, a full one, level 1, level 2) and read back at each step by
//! readers nobody here wrote (`tlog_tiles`, `signed_note`: `pitboss_testkit::tiles`); full tiles
//! never rewritten; a checkpoint whose root the tiles do not give, a fork and a shrink refused with
//! nothing published; an entry too long for a bundle refused before it is written; and a live
//! server keeping its tiles current and serving them over HTTP.

use std::path::Path;

use pitboss::proto;
use pitboss_ledger::tiles::{TileDir, TilesError, MAX_RECORD};
use pitboss_ledger::{AppendRequest, Expected, Ledger, LedgerError};
use pitboss_testkit::tiles::{read, Dir, Http};

fn payload(n: u64, padding: usize) -> Vec<u8> {
    prost::Message::encode_to_vec(&proto::Payload {
        kind: Some(proto::payload::Kind::ConfigPublished(
            proto::ConfigPublished {
                config_id: vec![7; 32],
                canonical_json: format!("{{\"n\":{n},\"pad\":\"{}\"}}", "x".repeat(padding))
                    .into_bytes(),
            },
        )),
    })
}

/// Appends `count` entries in appends of up to 500.
fn fill(ledger: &Ledger, count: u64) {
    let mut done = 0;
    while done < count {
        let n = (count - done).min(500);
        ledger
            .append_blocking(AppendRequest::entries(
                format!("s/{}", done % 7),
                Expected::Any,
                (done..done + n).map(|i| payload(i, 0)).collect(),
                1_700_000_000_000 + done,
                "test",
            ))
            .unwrap();
        done += n;
    }
}

/// The log's verifier key (a signed-note vkey).
fn vkey(ledger: &Ledger) -> String {
    let (checkpoint, key) = ledger.checkpoint_blocking(None).unwrap();
    pitboss_witness::note::Vkey {
        name: checkpoint.origin,
        kind: pitboss_witness::note::ED25519,
        key,
    }
    .to_string()
}

fn publish(
    dir: &TileDir,
    ledger: &Ledger,
    size: u64,
) -> Result<pitboss_ledger::tiles::Published, TilesError> {
    let (checkpoint, _) = ledger.checkpoint_blocking(Some(size)).unwrap();
    dir.publish(&checkpoint.note(), |from, count| {
        ledger
            .stored_entries(from, count)
            .map_err(|e| e.to_string())
    })
}

/// Every file under `root`, relative, sorted.
fn files(root: &Path) -> Vec<String> {
    fn walk(root: &Path, at: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(at).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                out.push(path.strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

#[test]
fn tiles_published_step_by_step_read_back_by_outside_readers() {
    let dirs = tempfile::tempdir().unwrap();
    let ledger = Ledger::open(&dirs.path().join("log"), 0).unwrap();
    fill(&ledger, 70_100);
    let size = ledger.tree_size().unwrap();
    let vkey = vkey(&ledger);
    let stored = ledger.stored_entries(0, size).unwrap();
    let out = dirs.path().join("tiles");
    let dir = TileDir::open(&out).unwrap();
    assert!(
        matches!(TileDir::open(&out), Err(TilesError::Busy(_))),
        "one writer per directory"
    );

    let mut first_full: Option<Vec<u8>> = None;
    for step in [
        1, 255, 256, 257, 1_000, 65_535, 65_536, 65_537, 70_000, size,
    ] {
        let published = publish(&dir, &ledger, step).unwrap();
        assert_eq!(published.size, step);
        // Read back as a client: every hash tile authenticated by the checkpoint's root, every
        // entry hashing to its leaf, every record to its entry, all of them the log's own bytes.
        let got = read(&Dir(out.clone()), &vkey).unwrap_or_else(|e| panic!("size {step}: {e}"));
        assert_eq!(got.size, step);
        assert_eq!(got.records.len() as u64, step);
        for (i, record) in got.records.iter().enumerate() {
            assert_eq!(record, &stored[i].1, "size {step}: record {i} as stored");
        }
        // A full tile, once written, is never rewritten; its partial versions are gone.
        let full = out.join("tile/0/000");
        if step >= 256 {
            let bytes = std::fs::read(&full).unwrap();
            assert_eq!(bytes.len(), 8192);
            match &first_full {
                None => first_full = Some(bytes),
                Some(first) => assert_eq!(first, &bytes, "size {step}: tile/0/000 rewritten"),
            }
            assert!(!out.join("tile/0/000.p").exists(), "size {step}");
        }
    }
    // The spec's own example of sizes: level 2 holds one partial tile of width 1 at 65 536 and
    // above; level 1 a full tile and one of width 17 at 70 000.
    assert!(out.join("tile/2/000.p/1").exists());
    assert!(out.join("tile/1/000").exists());
    assert!(out.join("tile/1/001.p/17").exists());

    // The same tree again writes nothing; a checkpoint of it with another signature line (a
    // cosignature) replaces only the checkpoint.
    let (checkpoint, _) = ledger.checkpoint_blocking(Some(size)).unwrap();
    let again = dir
        .publish(&checkpoint.note(), |_, _| Err("nothing is read".into()))
        .unwrap();
    assert_eq!((again.files, again.size), (0, size));
    let cosigned = format!(
        "{}\u{2014} witness.test/w1 AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n",
        checkpoint.note()
    );
    let again = dir
        .publish(&cosigned, |_, _| Err("nothing is read".into()))
        .unwrap();
    assert_eq!(again.files, 1);
    assert_eq!(
        std::fs::read_to_string(out.join("checkpoint")).unwrap(),
        cosigned
    );

    // Refused, and nothing published: a tree of the same size with another root (a fork), a
    // smaller tree, a larger one whose root the tiles do not give, another log.
    let before = files(&out);
    let body = |size: u64, root: [u8; 32]| {
        pitboss_ledger::checkpoint::Checkpoint {
            origin: checkpoint.origin.clone(),
            size,
            root,
            signature: [0; 64],
            key_hash: [0; 4],
            extensions: Vec::new(),
        }
        .note()
    };
    let read_log = |from: u64, count: u64| {
        ledger
            .stored_entries(from, count)
            .map_err(|e| e.to_string())
    };
    assert!(matches!(
        dir.publish(&body(size, [9; 32]), read_log),
        Err(TilesError::Fork { .. })
    ));
    assert!(matches!(
        dir.publish(&body(size - 1, checkpoint.root), read_log),
        Err(TilesError::Shrinks { .. })
    ));
    fill(&ledger, 300);
    assert!(matches!(
        dir.publish(&body(size + 300, [9; 32]), read_log),
        Err(TilesError::Root { .. })
    ));
    let other = body(size + 300, checkpoint.root).replace(&checkpoint.origin, "example.com/other");
    assert!(matches!(
        dir.publish(&other, read_log),
        Err(TilesError::OtherLog { .. })
    ));
    assert_eq!(
        files(&out),
        before,
        "a refused publication leaves nothing behind"
    );
    // A source that answers other entries than those asked for is refused.
    let shifted = |from: u64, count: u64| {
        ledger
            .stored_entries(from + 1, count)
            .map(|r| r.into_iter().map(|(s, b)| (s - 1, b)).collect())
            .map_err(|e| e.to_string())
    };
    let err = publish_with(&dir, &ledger, size + 300, shifted).unwrap_err();
    assert!(matches!(err, TilesError::Entry { .. }), "{err}");
    assert_eq!(files(&out), before);
    // The honest source then publishes it.
    let published = publish(&dir, &ledger, size + 300).unwrap();
    assert_eq!((published.from, published.size), (size, size + 300));
    assert_eq!(read(&Dir(out.clone()), &vkey).unwrap().size, size + 300);

    // The readers catch an altered byte anywhere: a hash tile, an entry, a record.
    for (path, at) in [
        ("tile/1/000", 100),
        ("tile/entries/005", 40),
        ("tile/records/007", 300),
    ] {
        let file = out.join(path);
        let honest = std::fs::read(&file).unwrap();
        let mut altered = honest.clone();
        altered[at] ^= 1;
        std::fs::write(&file, &altered).unwrap();
        assert!(
            read(&Dir(out.clone()), &vkey).is_err(),
            "{path} altered, unnoticed"
        );
        std::fs::write(&file, &honest).unwrap();
    }
    assert!(read(&Dir(out.clone()), &vkey).is_ok());
}

fn publish_with(
    dir: &TileDir,
    ledger: &Ledger,
    size: u64,
    read: impl FnMut(u64, u64) -> Result<Vec<(u64, Vec<u8>)>, String>,
) -> Result<pitboss_ledger::tiles::Published, TilesError> {
    let (checkpoint, _) = ledger.checkpoint_blocking(Some(size)).unwrap();
    dir.publish(&checkpoint.note(), read)
}

/// No entry longer than a bundle frames is ever written: the append is refused whole, the log
/// unchanged; the longest that is accepted fits its bundle.
#[test]
fn an_entry_too_long_for_a_tile_bundle_is_refused_before_it_is_written() {
    let dirs = tempfile::tempdir().unwrap();
    let ledger = Ledger::open(&dirs.path().join("log"), 0).unwrap();
    let before = ledger.tree_size().unwrap();
    let refused = ledger.append_blocking(AppendRequest::entries(
        "s/big".into(),
        Expected::Any,
        vec![payload(1, 10), payload(2, MAX_RECORD)],
        1,
        "test",
    ));
    assert!(
        matches!(refused, Err(LedgerError::EntryTooLarge { ref stream, bytes }) if stream == "s/big" && bytes > MAX_RECORD),
        "{refused:?}"
    );
    assert_eq!(
        ledger.tree_size().unwrap(),
        before,
        "nothing of the append written"
    );
    ledger
        .append_blocking(AppendRequest::entries(
            "s/big".into(),
            Expected::Any,
            vec![payload(3, MAX_RECORD - 600)],
            1,
            "test",
        ))
        .expect("an entry within the bound");
    let size = ledger.tree_size().unwrap();
    let longest = ledger.stored_entries(size - 1, 1).unwrap()[0].1.len();
    assert!(
        longest > MAX_RECORD - 600 && longest <= MAX_RECORD,
        "{longest}"
    );
    let out = dirs.path().join("tiles");
    publish(&TileDir::open(&out).unwrap(), &ledger, size).unwrap();
    let got = read(&Dir(out), &vkey(&ledger)).unwrap();
    assert_eq!(got.records.last().map(Vec::len), Some(longest));
}

/// A live server keeps its tiles current as hands are played, and serves them over HTTP: read
/// back there by the same outside readers, every record the log's.
#[tokio::test(flavor = "multi_thread")]
async fn a_server_keeps_and_serves_its_tiles() {
    use pitboss::proto::audit_client::AuditClient;
    use pitboss::proto::play_client::PlayClient;
    let dirs = tempfile::tempdir().unwrap();
    let tiles = dirs.path().join("tiles");
    let server = pitboss_testkit::server::Server::start_with(
        &dirs.path().join("log"),
        &[
            "--tiles",
            tiles.to_str().unwrap(),
            "--tiles-listen",
            "127.0.0.1:0",
            "--cosign-every-ms",
            "50",
        ],
    );
    let address = server.tiles.clone().expect("the tiles' address");
    let channel = server.channel().await;
    let mut audit = AuditClient::new(channel.clone());
    let mut play = PlayClient::new(channel);
    for _ in 0..80 {
        play.play_hand(pitboss_testkit::load::nutz_hand("T-1", "p", "box_nutz"))
            .await
            .unwrap();
    }
    let checkpoint = audit
        .get_checkpoint(proto::GetCheckpointRequest::default())
        .await
        .unwrap()
        .into_inner();
    let vkey = pitboss_witness::note::Vkey {
        name: checkpoint.origin.clone(),
        kind: pitboss_witness::note::ED25519,
        key: ed25519_dalek::VerifyingKey::from_bytes(&checkpoint.public_key.try_into().unwrap())
            .unwrap(),
    }
    .to_string();
    assert!(
        checkpoint.tree_size > 256,
        "more than one tile: {}",
        checkpoint.tree_size
    );
    // Polled (each look one request) until the tiles reach the log; a minute is a failure.
    let started = std::time::Instant::now();
    let got = loop {
        if let Ok(got) = read(&Http(address.clone()), &vkey) {
            if got.size >= checkpoint.tree_size {
                break got;
            }
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(60),
            "the tiles never caught up"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    // Every record served is the entry the log holds (its hash, as the Audit API names it).
    let mut events = audit
        .stream_events(proto::StreamEventsRequest {
            from_sequence: 0,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    for (i, entry) in got.entries.iter().enumerate() {
        let event = events.message().await.unwrap().expect("an event");
        assert_eq!(event.sequence, i as u64);
        assert_eq!(event.hash, hex::encode(entry), "entry {i}");
    }
    // The same bytes as the directory's, and nothing but tiles is served.
    let from_dir = read(&Dir(tiles.clone()), &vkey).unwrap();
    assert!(from_dir.size >= got.size);
    let (status, content_type, _) = pitboss_testkit::http::get_bytes(&address, "/tile/0/000");
    assert_eq!(
        (status, content_type.as_str()),
        (200, "application/octet-stream")
    );
    for path in [
        "/",
        "/tile/0/0",
        "/tile/0/../checkpoint",
        "/.lock",
        "/tile/0/000.tmp",
        "/checkpoint.tmp",
    ] {
        assert_eq!(
            pitboss_testkit::http::get_bytes(&address, path).0,
            404,
            "{path}"
        );
    }
    assert_eq!(
        pitboss_testkit::http::request_bytes(&address, "POST", "/checkpoint", b"x").0,
        405
    );

    // `pitboss tiles` writes the same log from the server over gRPC, incrementally, once the
    // server's checkpoint is signed by the pinned key; refused for another key, nothing written.
    let archive = dirs.path().join("archive");
    let tiles_cli = |log: &str| {
        std::process::Command::new(pitboss_testkit::binary())
            .args(["tiles", "--out", archive.to_str().unwrap(), "--log", log])
            .args(["--server", &server.address])
            .env("PITBOSS_TOKEN_FILE", server.data.join("admin.token"))
            .output()
            .unwrap()
    };
    let stranger = pitboss_witness::note::Vkey {
        name: checkpoint.origin.clone(),
        kind: pitboss_witness::note::ED25519,
        key: ed25519_dalek::SigningKey::from_bytes(&[5; 32]).verifying_key(),
    }
    .to_string();
    let out = tiles_cli(&stranger);
    assert!(!out.status.success(), "another key's log archived");
    assert!(!archive.join("checkpoint").exists());
    let out = tiles_cli(&vkey);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let first = read(&Dir(archive.clone()), &vkey).unwrap();
    for _ in 0..40 {
        play.play_hand(pitboss_testkit::load::nutz_hand("T-1", "p", "box_nutz"))
            .await
            .unwrap();
    }
    let out = tiles_cli(&vkey);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    let second = read(&Dir(archive.clone()), &vkey).unwrap();
    assert!(second.size > first.size, "{said}");
    assert_eq!(second.records[..first.records.len()], first.records[..]);
    assert!(
        said.contains(&format!("({} new entries", second.size - first.size)),
        "incremental: {said}"
    );
    let served = read(&Dir(tiles.clone()), &vkey).unwrap();
    let common = served.records.len().min(second.records.len());
    assert_eq!(served.records[..common], second.records[..common]);
}

/// A log that changed an entry the published tree holds — in its last partial tile, where a new
/// publication reads entries again — is refused even when the new checkpoint's root is the one its
/// entries give: the tiles must also give the published tree's root at its size.
#[test]
fn a_rewritten_entry_of_the_published_partial_tile_is_refused() {
    use pitboss_ledger::entry::entry_hash;
    use prost::Message;
    let dirs = tempfile::tempdir().unwrap();
    let ledger = Ledger::open(&dirs.path().join("log"), 0).unwrap();
    fill(&ledger, 600);
    let out = dirs.path().join("tiles");
    let dir = TileDir::open(&out).unwrap();
    publish(&dir, &ledger, 300).unwrap();
    let before = files(&out);
    let size = ledger.tree_size().unwrap();
    // Entry 280 rewritten and the entries after it chained again: a history that holds together.
    let mut forged = ledger.stored_entries(0, size).unwrap();
    let mut previous = None;
    for (sequence, stored) in forged.iter_mut().skip(280) {
        let entry = pitboss_ledger::Entry::decode(stored).unwrap();
        let mut envelope = entry.envelope.clone();
        if *sequence == 280 {
            envelope.actor = "forger".into();
        }
        if let Some(previous) = previous {
            envelope.prev_hash = Vec::from(previous);
        }
        let bytes = envelope.encode_to_vec();
        let hash = entry_hash(&bytes);
        *stored = pitboss_ledger::proto::StoredEntry {
            envelope: bytes,
            hash: hash.to_vec(),
            signature: entry.signature.map(Vec::from).unwrap_or_default(),
        }
        .encode_to_vec();
        previous = Some(hash);
    }
    let leaves: Vec<[u8; 32]> = forged
        .iter()
        .map(|(_, b)| {
            pitboss_ledger::merkle::leaf_hash(&pitboss_ledger::Entry::decode(b).unwrap().hash)
        })
        .collect();
    let (honest, _) = ledger.checkpoint_blocking(Some(size)).unwrap();
    let note = pitboss_ledger::checkpoint::Checkpoint {
        root: pitboss_ledger::merkle::root_of(&leaves),
        ..honest
    }
    .note();
    let refused = dir.publish(&note, |from, count| {
        Ok(forged[from as usize..(from + count) as usize].to_vec())
    });
    assert!(
        matches!(refused, Err(TilesError::Fork { size: 300, .. })),
        "{refused:?}"
    );
    assert_eq!(files(&out), before, "nothing published");
}
