//! Class: the key files of a data directory. A key is created only for an empty
//! log; a missing, unreadable, malformed, exposed, foreign or retired key on a non-empty log stops
//! `pitboss serve` with the reason (the directory left as it was, no key written) and `pitboss
//! verify` does not say OK. Rotation is an explicit command, recorded in the log, signed by the old
//! and the new key, after which the directory verifies and serves.

use pitboss::codec::EntryPayload;
use std::path::Path;

use crate::support::*;
use pitboss_testkit::server::Server;

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Writes a key file as a careless operator would: the bytes, then the owner-only mode.
fn put_key(path: &Path, bytes: &[u8]) {
    std::fs::write(path, bytes).unwrap();
    set_mode(path, 0o600);
}

#[test]
fn a_missing_key_on_a_non_empty_log_stops_the_server_and_no_key_is_made() {
    let r = recorded(2);
    let key = r.data.join("signing.key");
    let original = std::fs::read(&key).unwrap();
    std::fs::remove_file(&key).unwrap();
    serve_refuses_naming(
        &r.data,
        &[
            "signing.key is missing",
            &format!("the log has {} entries", r.size),
            "a key is created only for an empty log",
        ],
    );
    assert!(!key.exists(), "a key was made for a non-empty log");
    verify_fails_naming(&r.data, "signing.key is missing");
    // A copy made without its secret key, as an auditor receives it, verifies with --without-keys.
    let (code, out) = verify(&r.data, &["--without-keys"]);
    assert_eq!(code, Some(0), "{out}");
    put_key(&key, &original);
    serves_and_verifies(&r.data);
}

#[test]
fn a_malformed_unreadable_or_exposed_key_stops_the_server() {
    let r = recorded(2);
    let key = r.data.join("signing.key");
    let original = std::fs::read(&key).unwrap();
    for (bytes, needle) in [
        (
            &original[..31],
            "holds 31 bytes, not a 32-byte Ed25519 secret",
        ),
        (&[original.as_slice(), b"\n"].concat()[..], "holds 33 bytes"),
        (&b""[..], "holds 0 bytes"),
    ] {
        put_key(&key, bytes);
        serve_refuses_naming(&r.data, &["signing.key", needle]);
        verify_fails_naming(&r.data, needle);
    }
    put_key(&key, &original);
    set_mode(&key, 0o644);
    serve_refuses_naming(&r.data, &["signing.key has mode 644", "chmod 600"]);
    verify_fails_naming(&r.data, "has mode 644");
    // A directory where the key file should be: it cannot be read.
    std::fs::remove_file(&key).unwrap();
    std::fs::create_dir(&key).unwrap();
    serve_refuses_naming(&r.data, &["signing.key"]);
    std::fs::remove_dir(&key).unwrap();
    put_key(&key, &original);
    serves_and_verifies(&r.data);
}

#[test]
fn a_foreign_key_stops_the_server() {
    let r = recorded(2);
    let other = recorded(1);
    let key = r.data.join("signing.key");
    let original = std::fs::read(&key).unwrap();
    put_key(
        &key,
        &std::fs::read(other.data.join("signing.key")).unwrap(),
    );
    serve_refuses_naming(
        &r.data,
        &["which is not this log's current signing key", "another log"],
    );
    verify_fails_naming(&r.data, "another log");
    put_key(&key, &original);
    serves_and_verifies(&r.data);
}

#[test]
fn rotation_by_the_command_is_recorded_signed_by_both_keys_and_a_retired_key_put_back_is_refused() {
    let r = recorded(2);
    let data = r.data.to_str().unwrap();
    let old_key = std::fs::read(r.data.join("signing.key")).unwrap();

    // A running server holds the directory: the command refuses and changes nothing.
    let server = Server::start(&r.data);
    let before = fingerprint(&r.data);
    let (code, out) = pitboss(&["rotate-key", "--data", data]);
    assert_ne!(code, Some(0), "{out}");
    assert!(out.contains("in use by another process"), "{out}");
    assert_eq!(fingerprint(&r.data), before);
    server.kill();

    let (code, out) = pitboss(&["rotate-key", "--data", data]);
    assert_eq!(code, Some(0), "{out}");
    let sequence = number_after(&out, "rotated: entry ");
    let new_id = out
        .split("publishes key ")
        .nth(1)
        .and_then(|s| s.split(',').next())
        .unwrap()
        .to_string();
    let new_public = out
        .split("new public key: ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    let old_id = out
        .split("and by the old key ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    let retired = r.data.join("retired-keys").join(format!("{old_id}.key"));
    assert_eq!(std::fs::read(&retired).unwrap(), old_key);

    // The rotation entry: signed by the new key, carrying the old key's signature over it.
    {
        use ed25519_dalek::Verifier;
        let store = pitboss_ledger::Store::open_read_only(&r.data).unwrap();
        let entry = pitboss_ledger::Entry::decode(
            &pitboss_ledger::LogStore::stored_entry(&store, sequence)
                .unwrap()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(hex::encode(&entry.envelope.key_id), new_id);
        let Some(pitboss::proto::payload::Kind::KeyRotated(rotated)) =
            entry.payload().unwrap().kind
        else {
            panic!("entry {sequence} is not a rotation");
        };
        assert_eq!(hex::encode(&rotated.old_key_id), old_id);
        assert_eq!(hex::encode(&rotated.new_public_key), new_public);
        let old_public =
            pitboss_ledger::keys::Keypair::from_secret(old_key.as_slice().try_into().unwrap())
                .public();
        let signature = ed25519_dalek::Signature::from_slice(&rotated.old_key_signature).unwrap();
        let new_public_key = ed25519_dalek::VerifyingKey::from_bytes(
            &rotated.new_public_key.as_slice().try_into().unwrap(),
        )
        .unwrap();
        old_public
            .verify(
                &pitboss_ledger::keys::rotation_message(
                    pitboss_ledger::KeyId::of(&new_public_key),
                    &new_public_key,
                ),
                &signature,
            )
            .expect("the old key signed its successor");
        new_public_key
            .verify(
                &entry.hash,
                &ed25519_dalek::Signature::from_bytes(
                    &entry.signature.expect("a key entry is signed"),
                ),
            )
            .expect("the new key signed the entry");
    }
    let (code, out) = verify(&r.data, &[]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains(&format!("current signing key {new_id}")),
        "{out}"
    );
    // The checkpoint taken before, signed by the retired key, still holds.
    let (code, out) = verify(
        &r.data,
        &[
            "--checkpoint",
            r.checkpoint.to_str().unwrap(),
            "--key",
            &r.key,
        ],
    );
    assert_eq!(code, Some(0), "{out}");
    serves_and_verifies(&r.data);

    // The retired key put back as the signing key.
    let key = r.data.join("signing.key");
    let current = std::fs::read(&key).unwrap();
    put_key(&key, &old_key);
    serve_refuses_naming(
        &r.data,
        &[
            &format!("holds key {old_id}, which this log retired"),
            &format!("its current signing key is {new_id}"),
        ],
    );
    verify_fails_naming(&r.data, "which this log retired");
    put_key(&key, &current);

    // The retired keys are checked too: damaged, or not what their name says.
    let retired_bytes = std::fs::read(&retired).unwrap();
    put_key(&retired, &retired_bytes[..16]);
    serve_refuses_naming(&r.data, &["retired-keys", "holds 16 bytes"]);
    put_key(&retired, &current);
    serve_refuses_naming(&r.data, &["retired-keys", &format!("holds key {new_id}")]);
    put_key(&retired, &retired_bytes);
    // Destroying a retired secret key is allowed (it signs nothing again).
    std::fs::remove_file(&retired).unwrap();
    serves_and_verifies(&r.data);
}

/// A rotation interrupted between its entry and its files (`signing.key.next` beside the old key)
/// is finished at the next start when the log records it, and a `.next` the log never heard of is
/// dropped: it never signed anything.
#[test]
fn an_interrupted_rotation_is_finished_or_dropped_by_what_the_log_says() {
    let r = recorded(1);
    let data = r.data.to_str().unwrap();
    let old_key = std::fs::read(r.data.join("signing.key")).unwrap();
    let (code, out) = pitboss(&["rotate-key", "--data", data]);
    assert_eq!(code, Some(0), "{out}");
    let new_key = std::fs::read(r.data.join("signing.key")).unwrap();
    let retired_dir = r.data.join("retired-keys");
    // As if the process had died after the rotation entry was durable, before the files moved.
    std::fs::remove_dir_all(&retired_dir).unwrap();
    put_key(&r.data.join("signing.key.next"), &new_key);
    put_key(&r.data.join("signing.key"), &old_key);
    let (code, out) = verify(&r.data, &[]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("the next start finishes it"), "{out}");
    serves_and_verifies(&r.data);
    assert_eq!(std::fs::read(r.data.join("signing.key")).unwrap(), new_key);
    assert!(!r.data.join("signing.key.next").exists());
    let retired: Vec<_> = std::fs::read_dir(&retired_dir).unwrap().collect();
    assert_eq!(retired.len(), 1);

    // A `.next` the log never established: dropped, the current key kept.
    put_key(&r.data.join("signing.key.next"), &[42u8; 32]);
    serves_and_verifies(&r.data);
    assert!(!r.data.join("signing.key.next").exists());
    assert_eq!(std::fs::read(r.data.join("signing.key")).unwrap(), new_key);
    // A `.next` holding the retired key: refused, nothing changed.
    put_key(&r.data.join("signing.key.next"), &old_key);
    serve_refuses_naming(&r.data, &["signing.key.next", "not its current key"]);
}
