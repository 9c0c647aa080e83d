//! Class: the bytes of a data directory. Every way the write-ahead log, the
//! table files or the anchor can be damaged, removed, truncated or put back from an older copy
//! ends in `pitboss serve` refusing with a message that names the file (and the offset where there
//! is one), the directory left as it was, and `pitboss verify` not saying OK. Undoing the damage,
//! or an explicit `pitboss recover` that records its loss, makes it servable again.

use std::path::Path;

use pitboss_ledger::tamper::Tamper;
use pitboss_ledger::Store;

use crate::support::*;
use pitboss_testkit::server::Server;

/// The directory's one write-ahead log file (a recorded directory has not flushed yet).
fn the_wal(data: &Path) -> std::path::PathBuf {
    let wals = files_ending(data, ".log");
    assert_eq!(wals.len(), 1, "{wals:?}");
    wals[0].clone()
}

fn name_of(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn a_flipped_byte_in_a_write_ahead_log_record_is_named_by_file_and_offset() {
    let r = recorded(6);
    let wal = the_wal(&r.data);
    let original = std::fs::read(&wal).unwrap();
    let at = original.len() as u64 / 2;
    flip(&wal, at);
    let name = name_of(&wal);
    let reason = serve_refuses_naming(
        &r.data,
        &[&name, "checksum mismatch", "pitboss recover --data"],
    );
    // The offset named is the start of the record holding the flipped byte (in its 32 KiB block).
    let offset = number_after(&reason, &format!("{name} at offset "));
    assert!(offset <= at && at - offset < 32 * 1024, "{offset} for {at}");
    verify_fails_naming(&r.data, &format!("{name} at offset {offset}"));

    // `recover` states what it would keep and lose, and changes nothing unless told.
    let before = fingerprint(&r.data);
    let (code, plan) = pitboss(&[
        "recover",
        "--data",
        r.data.to_str().unwrap(),
        "--reason",
        "test",
    ]);
    assert_eq!(code, Some(1), "{plan}");
    let kept = number_after(&plan, "lose acknowledged entries ");
    assert!(kept > 0 && kept < r.size, "{plan}");
    assert!(
        plan.contains(&format!("--accept-loss {kept}-{}", r.size - 1)),
        "{plan}"
    );
    assert_eq!(fingerprint(&r.data), before);

    // The byte put back: served again, everything acknowledged there.
    std::fs::write(&wal, original).unwrap();
    serves_and_verifies(&r.data);
}

#[test]
fn recover_keeps_what_checks_records_the_loss_and_a_checkpoint_shows_the_missing_tail() {
    let r = recorded(6);
    let wal = the_wal(&r.data);
    let at = std::fs::metadata(&wal).unwrap().len() / 2;
    flip(&wal, at);
    let damaged = std::fs::read(&wal).unwrap();
    let data = r.data.to_str().unwrap();
    let (_, plan) = pitboss(&["recover", "--data", data, "--reason", "x"]);
    let kept = number_after(&plan, "lose acknowledged entries ");
    let accept = format!("{kept}-{}", r.size - 1);
    // A wrong statement of the loss changes nothing.
    let before = fingerprint(&r.data);
    let (code, out) = pitboss(&[
        "recover",
        "--data",
        data,
        "--reason",
        "x",
        "--accept-loss",
        "none",
    ]);
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(fingerprint(&r.data), before);

    let (code, out) = pitboss(&[
        "recover",
        "--data",
        data,
        "--reason",
        "power lost during a write (test)",
        "--accept-loss",
        &accept,
    ]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains(&format!("recovered: entry {kept} records it")),
        "{out}"
    );
    // The damaged log was kept aside, byte for byte.
    let aside = std::fs::read_dir(&r.data)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| name_of(p).starts_with("recovery-"))
        .expect("a recovery folder");
    assert_eq!(std::fs::read(aside.join(name_of(&wal))).unwrap(), damaged);

    // The log verifies and says what was lost, and why.
    let (code, out) = verify(&r.data, &[]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains(&format!(
            "recorded recovery at entry {kept}: kept entries 0..{kept}, lost acknowledged entries {kept}..={}; reason: power lost during a write (test)",
            r.size - 1
        )),
        "{out}"
    );
    // Held to the checkpoint taken before, the log is missing its tail, and the recovery is named.
    let (code, out) = verify(
        &r.data,
        &[
            "--checkpoint",
            r.checkpoint.to_str().unwrap(),
            "--key",
            &r.key,
        ],
    );
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("checkpoint: signature valid (the pinned key)"),
        "{out}"
    );
    assert!(
        out.contains("MISSING TAIL") || out.contains("REWRITTEN"),
        "{out}"
    );
    assert!(
        out.contains(&format!("entry {kept} records a recovery")),
        "{out}"
    );
    serves_and_verifies(&r.data);
}

#[test]
fn a_flipped_byte_in_a_table_file_is_named_by_file_and_offset() {
    let r = recorded(6);
    // Move everything from the write-ahead log into table files, and find the log's.
    let sst = {
        let files = Tamper::open(&r.data).unwrap().entry_table_files().unwrap();
        let events = files.first().expect("a table file of the events family");
        events.to_str().unwrap().to_string()
    };
    let path = r.data.join(&sst);
    let original = std::fs::read(&path).unwrap();
    flip(&path, 100); // inside the first data block
    serve_refuses_naming(&r.data, &[&sst, "block checksum mismatch", "offset"]);
    verify_fails_naming(&r.data, &sst);
    // `recover` cannot repair a table file, says so, and changes nothing.
    let before = fingerprint(&r.data);
    let (code, out) = pitboss(&[
        "recover",
        "--data",
        r.data.to_str().unwrap(),
        "--reason",
        "x",
        "--accept-loss",
        "none",
    ]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("recovery cannot repair this"), "{out}");
    assert!(out.contains(&sst), "{out}");
    assert_eq!(fingerprint(&r.data), before);
    std::fs::write(&path, original).unwrap();
    serves_and_verifies(&r.data);
}

#[test]
fn a_truncated_write_ahead_log_is_a_lost_tail_named_with_the_missing_entries() {
    let r = recorded(6);
    let wal = the_wal(&r.data);
    let original = std::fs::read(&wal).unwrap();
    // Cut into the last record: RocksDB alone would take it for a write never finished.
    std::fs::write(&wal, &original[..original.len() - 40]).unwrap();
    let last = r.size - 1;
    serve_refuses_naming(
        &r.data,
        &[
            "the log lost its tail",
            "/anchor",
            &format!("entries 0..={last} were acknowledged"),
            &format!("..={last} are missing"),
            &format!("{} at offset", name_of(&wal)),
            "the file ends inside a record",
        ],
    );
    verify_fails_naming(&r.data, "the log lost its tail");
    std::fs::write(&wal, &original).unwrap();

    // A removed write-ahead log: nothing left of the log, and the anchor says what is missing.
    std::fs::remove_file(&wal).unwrap();
    serve_refuses_naming(
        &r.data,
        &[
            "holds 0 entries (none)",
            &format!("entries 0..={last} are missing"),
        ],
    );
    verify_fails_naming(&r.data, "the log lost its tail");
    std::fs::write(&wal, &original).unwrap();
    serves_and_verifies(&r.data);
}

#[test]
fn an_older_copy_put_back_is_refused_and_a_kept_checkpoint_catches_the_whole_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let older = tmp.path().join("older");
    let server = Server::start(&data);
    runtime().block_on(play(&server, "T-1", 3));
    server.kill();
    copy_dir(&data, &older);
    let server = Server::start(&data);
    let (note, size, key) = runtime().block_on(async {
        play(&server, "T-1", 3).await;
        checkpoint(&server).await
    });
    server.kill();
    let kept = tmp.path().join("kept.checkpoint");
    std::fs::write(&kept, note).unwrap();

    // The database files put back from the older copy; the anchor is the current one.
    let current = tmp.path().join("current");
    copy_dir(&data, &current);
    std::fs::remove_dir_all(&data).unwrap();
    copy_dir(&older, &data);
    std::fs::copy(current.join("anchor"), data.join("anchor")).unwrap();
    serve_refuses_naming(
        &data,
        &[
            "the log lost its tail",
            &format!("entries 0..={} were acknowledged", size - 1),
        ],
    );
    verify_fails_naming(&data, "the log lost its tail");

    // The whole directory put back, anchor included, is an older log consistent in itself: the
    // directory alone cannot tell. A checkpoint kept elsewhere can, and names the missing tail.
    std::fs::copy(older.join("anchor"), data.join("anchor")).unwrap();
    let (code, out) = verify(&data, &[]);
    assert_eq!(code, Some(0), "{out}");
    let older_size = number_after(&out, "verified ");
    assert!(older_size < size);
    let (code, out) = verify(
        &data,
        &["--checkpoint", kept.to_str().unwrap(), "--key", &key],
    );
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains(&format!(
            "MISSING TAIL: the checkpoint covers entries 0..={}, the log holds 0..={}: entries {older_size}..={} are missing",
            size - 1,
            older_size - 1,
            size - 1
        )),
        "{out}"
    );
    // Held to a checkpoint it does hold, the newer directory is good.
    let (code, out) = verify(
        &current,
        &["--checkpoint", kept.to_str().unwrap(), "--key", &key],
    );
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("have the checkpoint's Merkle root"), "{out}");
    // Without --key, the log's own keys check the signature, and the output says so.
    let (code, out) = verify(&current, &["--checkpoint", kept.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("by the log's own key"), "{out}");
    // A checkpoint whose signature is not the pinned key's is refused.
    let other = recorded(1);
    let (code, out) = verify(
        &current,
        &["--checkpoint", kept.to_str().unwrap(), "--key", &other.key],
    );
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("not by the given key"), "{out}");
    serves_and_verifies(&current);
}

#[test]
fn the_anchor_removed_altered_cut_or_swapped_is_refused() {
    let r = recorded(3);
    let anchor = r.data.join("anchor");
    let original = std::fs::read(&anchor).unwrap();
    let restore = || std::fs::write(&anchor, &original).unwrap();

    std::fs::remove_file(&anchor).unwrap();
    serve_refuses_naming(
        &r.data,
        &[
            "/anchor is missing",
            "a deleted anchor is a damaged directory",
            "pitboss recover",
        ],
    );
    verify_fails_naming(&r.data, "is missing");
    restore();

    for (at, slot) in [(40u64, "slot 0"), (512 + 90, "slot 1")] {
        flip(&anchor, at);
        serve_refuses_naming(&r.data, &["/anchor is damaged in", slot]);
        verify_fails_naming(&r.data, slot);
        restore();
    }

    std::fs::write(&anchor, &original[..512]).unwrap();
    serve_refuses_naming(&r.data, &["/anchor holds 512 bytes"]);
    restore();

    // Another log's anchor.
    let other = recorded(1);
    std::fs::copy(other.data.join("anchor"), &anchor).unwrap();
    serve_refuses_naming(&r.data, &["/anchor names another log"]);
    verify_fails_naming(&r.data, "names another log");
    restore();

    // An anchor for this log's very head, but signed by a key the log never established.
    let slots = pitboss_ledger::anchor::read(&anchor).unwrap().unwrap();
    std::fs::remove_file(&anchor).unwrap();
    pitboss_ledger::anchor::AnchorWriter::create(
        &anchor,
        slots.newer.size,
        slots.newer.head,
        slots.newer.origin,
        &pitboss_ledger::keys::Keypair::from_secret([7; 32]),
    )
    .unwrap();
    serve_refuses_naming(&r.data, &["which this log never established"]);
    verify_fails_naming(&r.data, "never established");
    restore();
    serves_and_verifies(&r.data);

    // Lost for good: `recover` re-anchors after checking the whole log, and records it.
    std::fs::remove_file(&anchor).unwrap();
    let data = r.data.to_str().unwrap();
    let (code, out) = pitboss(&["recover", "--data", data, "--reason", "anchor lost"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("--accept-loss unknown"), "{out}");
    let (code, out) = pitboss(&[
        "recover",
        "--data",
        data,
        "--reason",
        "anchor lost",
        "--accept-loss",
        "unknown",
    ]);
    assert_eq!(code, Some(0), "{out}");
    let (code, out) = verify(&r.data, &[]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("what was acknowledged was unknown (no anchor); reason: anchor lost"),
        "{out}"
    );
    serves_and_verifies(&r.data);
}

/// An anchor put back from an older copy, beside the current log, loses nothing: the entries after
/// it are checked (signatures included) and anchored, and the difference is said. (Put back with
/// the log truncated to match, it is a whole older directory: only a kept checkpoint tells, as in
/// the test above.)
#[test]
fn an_older_anchor_beside_the_current_log_is_said_and_re_anchored() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let server = Server::start(&data);
    runtime().block_on(play(&server, "T-1", 2));
    server.kill();
    let older_anchor = std::fs::read(data.join("anchor")).unwrap();
    let older_size = pitboss_ledger::anchor::read(&data.join("anchor"))
        .unwrap()
        .unwrap()
        .newer
        .size;
    let server = Server::start(&data);
    runtime().block_on(play(&server, "T-1", 2));
    server.kill();
    std::fs::write(data.join("anchor"), older_anchor).unwrap();
    let (code, out) = verify(&data, &[]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains(&format!("entries {older_size}..="))
            && out.contains("checked, signatures included, and kept"),
        "{out}"
    );
    serves_and_verifies(&data);
}

/// Turns a directory into what the previous release wrote: format 2, no anchor.
fn as_previous_release(data: &Path) {
    std::fs::remove_file(data.join("anchor")).unwrap();
    Tamper::open(data)
        .unwrap()
        .set_format_version(pitboss_ledger::store::LEGACY_FORMAT_VERSION)
        .unwrap();
}

/// Format 3 (an anchor, every entry signed) is read as it is and marked 4 when a server opens it,
/// so that a release reading only 3 refuses it by its format; a format this build does not know
/// is refused by its number, before any entry is read.
#[test]
fn a_format_3_directory_is_marked_4_and_an_unknown_format_is_refused_by_its_number() {
    let r = recorded(2);
    let format = |data: &Path| {
        Store::open_read_only(data)
            .unwrap()
            .format_version()
            .unwrap()
    };
    Tamper::open(&r.data)
        .unwrap()
        .set_format_version(pitboss_ledger::store::SIGNED_FORMAT_VERSION)
        .unwrap();
    assert_eq!(format(&r.data), Some(3));
    let (code, out) = verify(&r.data, &[]);
    assert_eq!(code, Some(0), "{out}");
    serves_and_verifies(&r.data);
    assert_eq!(format(&r.data), Some(pitboss_ledger::store::FORMAT_VERSION));

    Tamper::open(&r.data)
        .unwrap()
        .set_format_version(pitboss_ledger::store::FORMAT_VERSION + 1)
        .unwrap();
    serve_refuses_naming(&r.data, &["this build reads 2 to 4"]);
}

#[test]
fn a_directory_of_the_previous_release_is_verified_in_full_anchored_and_upgraded() {
    let r = recorded(3);
    as_previous_release(&r.data);
    let (code, out) = verify(&r.data, &[]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("anchor: none"), "{out}");
    assert!(out.contains("format 2"), "{out}");
    serves_and_verifies(&r.data);
    let store = Store::open_read_only(&r.data).unwrap();
    assert_eq!(
        store.format_version().unwrap(),
        Some(pitboss_ledger::store::FORMAT_VERSION)
    );
    drop(store);
    assert!(r.data.join("anchor").exists());

    // Upgrading checks every signature (no anchor vouches for any): a forged one is refused.
    let r = recorded(3);
    as_previous_release(&r.data);
    {
        use ed25519_dalek::Signer;
        let store = Tamper::open(&r.data).unwrap();
        let mut entry = pitboss_ledger::Entry::decode(&store.entry(5).unwrap().unwrap()).unwrap();
        entry.signature = Some(
            ed25519_dalek::SigningKey::from_bytes(&[9; 32])
                .sign(&entry.hash)
                .to_bytes(),
        );
        store.put_entry(5, &entry.encode()).unwrap();
    }
    serve_refuses_naming(&r.data, &["entry 5: bad signature"]);
    verify_fails_naming(&r.data, "FAILED at entry 5: bad signature");
}
