//! The ML-DSA-44 cosignature against vectors nobody here made: C2SP's Wycheproof vectors of
//! ML-DSA-44 itself (a key from each seed, and each deterministic signature byte for byte, as
//! FIPS 204 defines them), and a `subtree/v1` cosignature made by litewitness (FiloSottile's
//! torchwood, another language and another ML-DSA implementation): its vkey re-derived from its
//! seed, its key id, its line verified over the message `tlog-cosignature` defines — and refused
//! once any part of that message changes.

use pitboss_witness::note::Note;
use pitboss_witness::subtree::{message, MlDsaKey, MlDsaVkey};
use sha2::{Digest, Sha256};

fn vectors(name: &str) -> String {
    std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/vectors")
            .join(name),
    )
    .unwrap()
}

#[test]
fn wycheproof_keys_and_deterministic_signatures() {
    let file: serde_json::Value =
        serde_json::from_str(&vectors("wycheproof-mldsa44-sign-seed.json")).unwrap();
    let mut checked = 0;
    for group in file["testGroups"].as_array().unwrap() {
        let seed: [u8; 32] = hex::decode(group["privateSeed"].as_str().unwrap())
            .unwrap()
            .try_into()
            .unwrap();
        let key = MlDsaKey::from_seed(seed);
        assert_eq!(
            hex::encode(key.public()),
            group["publicKey"].as_str().unwrap()
        );
        let vkey = key.vkey("wycheproof");
        for test in group["tests"].as_array().unwrap() {
            let msg = hex::decode(test["msg"].as_str().unwrap()).unwrap();
            let expected = test["sig"].as_str().unwrap();
            assert_eq!(
                hex::encode(key.sign_raw(&msg)),
                expected,
                "tcId {}",
                test["tcId"]
            );
            assert!(vkey.verify_raw(&msg, &hex::decode(expected).unwrap()));
            checked += 1;
        }
    }
    assert_eq!(checked, 6);
}

#[test]
fn a_litewitness_cosignature_verifies_and_nothing_else_does() {
    let text = vectors("torchwood-mldsa.txt");
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    let [seed, vkey_text, origin, end, record, line] = lines[..] else {
        panic!("{lines:?}")
    };
    let vkey = MlDsaVkey::parse(vkey_text).unwrap();
    assert_eq!(hex::encode(vkey.id()), "b5df45c5");
    let seed: [u8; 32] = hex::decode(seed).unwrap().try_into().unwrap();
    assert_eq!(
        MlDsaKey::from_seed(seed).vkey(&vkey.name).to_string(),
        vkey_text
    );
    let end: u64 = end.parse().unwrap();
    let hash: [u8; 32] = Sha256::new()
        .chain_update([0u8])
        .chain_update(record.as_bytes())
        .finalize()
        .into();
    let signature = Note::parse(&format!("x\n\n{line}\n"))
        .unwrap()
        .signatures
        .remove(0);
    assert_eq!(vkey.verify(origin, 0, end, &hash, &signature), Ok(0));
    // Another end, origin or hash: another message, refused.
    assert!(vkey.verify(origin, 0, end + 1, &hash, &signature).is_err());
    assert!(vkey
        .verify("example.com/other", 0, end, &hash, &signature)
        .is_err());
    assert!(vkey.verify(origin, 0, end, &[0; 32], &signature).is_err());
    // The message is the one `tlog-cosignature` lays out, byte for byte.
    let m = message(&vkey.name, 0, origin, 0, end, &hash).unwrap();
    assert_eq!(&m[..12], b"subtree/v1\n\0");
    assert_eq!(
        m.len(),
        12 + 1 + vkey.name.len() + 8 + 1 + origin.len() + 16 + 32
    );
    // Ours over the same message verifies with our key, and is refused under litewitness's.
    let ours = MlDsaKey::from_seed([7; 32])
        .sign(&vkey.name, 0, origin, 0, end, &hash)
        .unwrap();
    assert!(vkey.verify(origin, 0, end, &hash, &ours).is_err());
    assert!(message("", 0, origin, 0, end, &hash).is_none());
    assert!(message(&"x".repeat(256), 0, origin, 0, end, &hash).is_none());
}
