//! A local beacon source for the tests (`docs/rng.md` §1a): drand's HTTP API on loopback, `GET
//! /<chain hash>/public/<round>` answered from what the test gives — real quicknet rounds from
//! `fixtures/beacon/quicknet.json`, rounds of a chain signed with the tests' own key
//! (`pitboss_beacon::signer`), or a wrong signature on purpose. No internet needed.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

pub use pitboss_beacon::signer::Signer;

/// What a source serves: the document of `round` of the chain whose hash (hex) is given, or none
/// (404, not published yet).
pub type Serve = Arc<dyn Fn(&str, u64) -> Option<String> + Send + Sync>;

/// A source serving on a loopback port, for the test's life.
pub struct BeaconSource {
    /// `http://127.0.0.1:<port>`.
    pub url: String,
    /// Requests answered so far.
    pub asked: Arc<AtomicU64>,
}

impl BeaconSource {
    /// Serves `serve`'s documents.
    pub fn start(serve: Serve) -> BeaconSource {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let url = format!("http://{}", listener.local_addr().expect("its address"));
        let asked = Arc::new(AtomicU64::new(0));
        let counted = asked.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && head.len() < 8192 {
                    match stream.read(&mut byte) {
                        Ok(1) => head.push(byte[0]),
                        _ => break,
                    }
                }
                counted.fetch_add(1, Ordering::SeqCst);
                let head = String::from_utf8_lossy(&head);
                let path = head.split_whitespace().nth(1).unwrap_or_default();
                let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
                let document = match parts.as_slice() {
                    [chain, "public", round] => round
                        .parse::<u64>()
                        .ok()
                        .and_then(|round| serve(chain, round)),
                    _ => None,
                };
                let answer = match document {
                    Some(body) => format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                        body.len()
                    ),
                    None => "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                        .to_string(),
                };
                let _ = stream.write_all(answer.as_bytes());
            }
        });
        BeaconSource { url, asked }
    }

    /// Serves the rounds of `signer`'s chains (any chain hash), each once its time has come by the
    /// chain's `period_s` and `genesis_s` and the system clock.
    pub fn signed(signer: Signer, period_s: u64, genesis_s: u64) -> BeaconSource {
        BeaconSource::start(Arc::new(move |_, round| {
            let now_s = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            let due = genesis_s + (round.checked_sub(1)? * period_s);
            (now_s >= due).then(|| signer.public_json(round))
        }))
    }
}

/// The real quicknet rounds of `fixtures/beacon/quicknet.json`, each as its `/public/<round>`
/// document, by round.
pub fn quicknet_rounds() -> std::collections::BTreeMap<u64, String> {
    let text = std::fs::read_to_string(crate::root().join("fixtures/beacon/quicknet.json"))
        .expect("the quicknet fixture");
    let fixture: serde_json::Value = serde_json::from_str(&text).expect("its JSON");
    fixture["rounds"]
        .as_array()
        .expect("its rounds")
        .iter()
        .map(|r| (r["round"].as_u64().expect("a round number"), r.to_string()))
        .collect()
}
