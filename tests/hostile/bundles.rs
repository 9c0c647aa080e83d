//! Class: offline bundles. A bundle is exactly the named hand's stream, from its
//! first event to its last at the checkpoint, or it is refused with the reason — by `pitboss
//! verify-bundle` and by the independent Python checker alike. The forgeries below use only genuine
//! material (entries really in the log, with valid signatures and inclusion proofs in the same
//! tree), so what catches them is the completeness check, not a broken hash.

use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine;
use pitboss::proto;
use serde_json::Value;

use crate::support::*;
use pitboss_testkit::server::Server;

/// Plays a Mississippi Stud hand to settlement and returns its id.
async fn settled_hand(clients: &mut Clients, table: &str) -> String {
    let view = whole_hand(&mut clients.play, table, "P").await;
    assert_eq!(view.status, "settled");
    view.hand_id
}

async fn bundle_of(clients: &mut Clients, hand: &str) -> Value {
    let json = clients
        .audit
        .get_hand_bundle(proto::GetHandBundleRequest {
            hand_id: hand.into(),
        })
        .await
        .expect("a bundle")
        .into_inner()
        .bundle_json;
    serde_json::from_str(&json).expect("a bundle is JSON")
}

/// `pitboss verify-bundle` and the Python checker on `bundle`: (exit 0?, output) of each.
fn check(dir: &Path, name: &str, bundle: &Value, key: &str) -> ((bool, String), (bool, String)) {
    let path: PathBuf = dir.join(name);
    std::fs::write(&path, serde_json::to_string(bundle).unwrap()).unwrap();
    let (code, ours) = pitboss(&["verify-bundle", path.to_str().unwrap(), "--key", key]);
    let python = Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/reference/verify_bundle.py"
        ))
        .arg(&path)
        .arg(key)
        .output()
        .expect("python3 is part of the test toolchain");
    (
        (code == Some(0), ours),
        (
            python.status.success(),
            String::from_utf8_lossy(&python.stdout).into_owned()
                + &String::from_utf8_lossy(&python.stderr),
        ),
    )
}

fn tree_size(bundle: &Value) -> u64 {
    number_after(bundle["checkpoint"].as_str().unwrap(), "\n")
}

#[test]
fn cut_padded_or_relabelled_bundles_are_refused_with_the_reason() {
    let data = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    let server = Server::start(data.path());
    let rt = runtime();
    let (a, b, key, before) = rt.block_on(async {
        let mut clients = Clients::of(&server).await;
        let a_id = settled_hand(&mut clients, "T-A").await;
        // Hand A voided after settlement: its last entry is the void, and without it the hand
        // would still read as a settled hand that replays consistently.
        clients
            .ops
            .void_hand(proto::VoidHandRequest {
                hand_id: a_id.clone(),
                kind: "malfunction".into(),
                reason: "the shuffler jammed".into(),
                recorded_by: String::new(),
                ..Default::default()
            })
            .await
            .expect("a void");
        let b_id = settled_hand(&mut clients, "T-B").await;
        let before = clients.head().await;
        let key = clients
            .audit
            .get_checkpoint(proto::GetCheckpointRequest::default())
            .await
            .expect("a checkpoint")
            .into_inner()
            .public_key;
        let a = bundle_of(&mut clients, &a_id).await;
        let b = bundle_of(&mut clients, &b_id).await;
        // Bundles write nothing.
        assert_eq!(clients.head().await, before);
        clients.assert_serving().await;
        clients.assert_verifies().await;
        (a, b, hex::encode(key), before)
    });
    // Both bundles are proven in the same tree, so every entry below has a valid inclusion proof
    // in either bundle's checkpoint.
    assert_eq!(tree_size(&a), before.0);
    assert_eq!(tree_size(&b), before.0);
    let entries = |v: &Value| v["entries"].as_array().unwrap().clone();
    assert!(entries(&a).len() >= 4, "open, cards, …, settled, voided");

    let ((ok, out), (py_ok, py_out)) = check(files.path(), "a.json", &a, &key);
    assert!(ok && out.contains("bundle verified"), "{out}");
    assert!(py_ok && py_out.ends_with("bundle verified\n"), "{py_out}");
    // The entries of one append are sealed by the last one's signature: some carry none, and both
    // checkers accept them on the checkpoint's signature, through their inclusion.
    assert!(py_out.contains("unsigned: sealed by its group"), "{py_out}");

    let with_entries = |list: Vec<Value>| {
        let mut v = a.clone();
        v["entries"] = Value::Array(list);
        v
    };
    let mut cut_last = entries(&a);
    cut_last.pop();
    let mut cut_middle = entries(&a);
    cut_middle.remove(1);
    let mut cut_first = entries(&a);
    cut_first.remove(0);
    let mut padded = entries(&a);
    padded.push(entries(&b)[entries(&b).len() - 1].clone());
    let mut repeated = entries(&a);
    repeated.insert(2, entries(&a)[1].clone());
    let mut relabelled = a.clone();
    relabelled["hand_id"] = b["hand_id"].clone();
    let mut under_b = a.clone();
    under_b["checkpoint"] = b["checkpoint"].clone();
    let mut plain = a.clone();
    let plain_note = rt.block_on(async {
        let (note, size, _) = checkpoint(&server).await;
        assert_eq!(size, before.0);
        note
    });
    plain["checkpoint"] = plain_note.into();
    let mut v1 = a.clone();
    v1["format"] = "pitboss.bundle.v1".into();
    // An unsigned entry given a signature that is not the key's.
    let mut forged = entries(&a);
    let unsigned = forged
        .iter()
        .position(|e| {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(e["stored"].as_str().unwrap())
                .unwrap();
            <proto::StoredEntry as prost::Message>::decode(bytes.as_slice())
                .unwrap()
                .signature
                .is_empty()
        })
        .expect("an unsigned entry");
    let stored = base64::engine::general_purpose::STANDARD
        .decode(forged[unsigned]["stored"].as_str().unwrap())
        .unwrap();
    let mut record = <proto::StoredEntry as prost::Message>::decode(stored.as_slice()).unwrap();
    record.signature = vec![7; 64];
    forged[unsigned]["stored"] = base64::engine::general_purpose::STANDARD
        .encode(prost::Message::encode_to_vec(&record))
        .into();
    // The keys removed: an entry whose key the bundle does not list fails, signed or not.
    let mut no_keys = a.clone();
    no_keys["keys"] = serde_json::json!({});
    let mut extra_line = a.clone();
    extra_line["checkpoint"] = a["checkpoint"]
        .as_str()
        .unwrap()
        .replacen("\nstream ", "\nstream hand/x 1 0\nstream ", 1)
        .into();

    let cases: Vec<(&str, Value, &str, &str)> = vec![
        (
            "cut_last",
            with_entries(cut_last),
            "entries were cut out",
            "FAIL count, last",
        ),
        (
            "cut_middle",
            with_entries(cut_middle),
            "entries were cut out",
            "FAIL count",
        ),
        (
            "cut_first",
            with_entries(cut_first),
            "where position 0 was due",
            "FAIL count",
        ),
        (
            "padded",
            with_entries(padded),
            "entries were added",
            "FAIL count, last",
        ),
        (
            "repeated",
            with_entries(repeated),
            "is at position 1 of its stream, where position 2 was due",
            "FAIL count, order",
        ),
        (
            "relabelled",
            relabelled,
            "the checkpoint states the end of stream hand/",
            "FAIL stream",
        ),
        (
            "under_b",
            under_b,
            "but the bundle is for hand/",
            "FAIL stream",
        ),
        (
            "plain_checkpoint",
            plain,
            "does not state, exactly once, where the hand's stream ends",
            "CANNOT SHOW IT IS COMPLETE",
        ),
        (
            "two_statements",
            extra_line,
            "checkpoint: the checkpoint's signature does not verify",
            "BAD SIGNATURE",
        ),
        (
            "forged_signature",
            with_entries(forged),
            "signature does not verify with key",
            "FAIL signature",
        ),
        (
            "no_keys",
            no_keys,
            "is not among the bundle's keys",
            "FAIL key id",
        ),
        (
            "v1",
            v1,
            "cannot show that no entry was cut",
            "a v1 bundle cannot show it is complete",
        ),
    ];
    for (name, bundle, ours_names, python_names) in cases {
        let ((ok, out), (py_ok, py_out)) =
            check(files.path(), &format!("{name}.json"), &bundle, &key);
        assert!(!ok, "{name}: verify-bundle accepted it:\n{out}");
        assert!(
            out.contains(ours_names),
            "{name}: `{ours_names}` not named:\n{out}"
        );
        assert!(!out.contains("bundle verified"), "{name}:\n{out}");
        assert!(!py_ok, "{name}: the Python checker accepted it:\n{py_out}");
        assert!(
            py_out.contains(python_names),
            "{name}: `{python_names}` not named:\n{py_out}"
        );
    }

    // An entry's own envelope names its stream: a genuine entry of B in A's list is named as such.
    let mut swapped = entries(&a);
    let last = swapped.len() - 1;
    swapped[last] = entries(&b)[entries(&b).len() - 1].clone();
    let ((ok, out), (py_ok, py_out)) =
        check(files.path(), "swapped.json", &with_entries(swapped), &key);
    assert!(!ok && !py_ok, "{out}\n{py_out}");
    let b_stream = format!(
        "belongs to stream \"hand/{}\"",
        b["hand_id"].as_str().unwrap()
    );
    assert!(out.contains(&b_stream), "{out}");
    assert!(
        py_out.contains("FAIL") && py_out.contains("stream"),
        "{py_out}"
    );

    // A file too large to be a bundle is refused before it is parsed.
    let huge = files.path().join("huge.json");
    let file = std::fs::File::create(&huge).unwrap();
    file.set_len(17 << 20).unwrap();
    let (code, out) = pitboss(&["verify-bundle", huge.to_str().unwrap(), "--key", &key]);
    assert_ne!(code, Some(0));
    assert!(
        out.contains("more than the 16777216 a bundle may have"),
        "{out}"
    );
    // A stored record that is not base64 is named, not a panic.
    let mut garbage = a.clone();
    garbage["entries"][0]["stored"] = base64::engine::general_purpose::STANDARD
        .encode([0xff; 7])
        .into();
    let ((ok, out), _) = check(files.path(), "garbage.json", &garbage, &key);
    assert!(!ok && out.contains("does not decode"), "{out}");

    rt.block_on(async {
        let mut clients = Clients::of(&server).await;
        assert_eq!(
            clients.head().await,
            before,
            "checking bundles wrote nothing"
        );
        clients.assert_serving().await;
        clients.assert_verifies().await;
    });
}
