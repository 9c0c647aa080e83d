//! A forged history: entry `at` of a stopped server's directory changed by the test, every entry
//! after it re-chained and re-signed with the log's own key, and the head re-anchored — a log that
//! verifies link by link and signature by signature, so that only what reads its content (a
//! witness that kept the old tree, a statement recomputed from its hands) can tell.

use std::path::Path;

use prost::Message;

/// Rewrites entry `at` by `edit` (its envelope: the actor, the payload…) and re-signs what follows.
pub fn rewrite(data: &Path, at: u64, edit: impl FnOnce(&mut pitboss_ledger::proto::Envelope)) {
    use pitboss_ledger::entry::entry_hash;
    let key = pitboss_ledger::keys::Keypair::load(data).unwrap();
    let tamper = pitboss_ledger::tamper::Tamper::open(data).unwrap();
    let origin = pitboss_ledger::Entry::decode(&tamper.entry(0).unwrap().unwrap())
        .unwrap()
        .hash;
    let mut edit = Some(edit);
    let mut previous: Option<[u8; 32]> = None;
    let mut sequence = at;
    while let Some(bytes) = tamper.entry(sequence).unwrap() {
        let entry = pitboss_ledger::Entry::decode(&bytes).unwrap();
        let mut envelope = entry.envelope.clone();
        if let Some(edit) = edit.take() {
            edit(&mut envelope);
        }
        if let Some(previous) = previous {
            envelope.prev_hash = previous.to_vec();
        }
        let envelope = envelope.encode_to_vec();
        let hash = entry_hash(&envelope);
        let record = pitboss_ledger::proto::StoredEntry {
            envelope,
            hash: hash.to_vec(),
            signature: match entry.signature {
                Some(_) => key.sign(&hash).to_vec(),
                None => Vec::new(),
            },
        };
        tamper.put_entry(sequence, &record.encode_to_vec()).unwrap();
        previous = Some(hash);
        sequence += 1;
    }
    drop(tamper);
    pitboss_ledger::anchor::AnchorWriter::create(
        &pitboss_ledger::anchor::path_in(data),
        sequence,
        previous.unwrap(),
        origin,
        &key,
    )
    .unwrap();
}

/// Copies a directory tree (a stopped server's data directory, to forge in the copy).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("list") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}
