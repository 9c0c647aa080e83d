//! What the hostile tests share: the clients of a running server, the log's head, health,
//! verification, the field violation of a refusal and the server's resident memory; and for the
//! classes about data at rest, a data directory recorded by a real server, the binary's offline
//! commands, a fingerprint of a directory's files (a refused directory must be left as it was), and
//! the check every class ends with (the server answers health, the log verifies).

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pitboss::proto;
use pitboss::proto::audit_client::AuditClient;
use pitboss::proto::play_client::PlayClient;
use pitboss_client::Authorized as Channel;
use sha2::{Digest, Sha256};
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_health::pb::HealthCheckRequest;

use pitboss_testkit::server::Server;

pub use pitboss_testkit::clients::Clients;

/// What every hostile class asks of a server's clients at its end.
pub trait Checked {
    /// The log's head: its size and Merkle root.
    async fn head(&mut self) -> (u64, Vec<u8>);
    /// Health says SERVING for the server and every pitboss service.
    async fn assert_serving(&mut self);
    /// The whole log verifies.
    async fn assert_verifies(&mut self);
    /// Opens a hand of Mississippi Stud (an ante of 500) at `table`.
    async fn open_mississippi(&mut self, table: &str, request_id: &str) -> proto::HandView;
}

impl Checked for Clients {
    async fn head(&mut self) -> (u64, Vec<u8>) {
        let c = self
            .audit
            .get_checkpoint(proto::GetCheckpointRequest { tree_size: 0 })
            .await
            .expect("checkpoint")
            .into_inner();
        (c.tree_size, c.root_hash)
    }

    async fn assert_serving(&mut self) {
        for service in [
            "",
            "pitboss.v1.Play",
            "pitboss.v1.Audit",
            "pitboss.v1.Operations",
            "pitboss.v1.Lab",
        ] {
            let status = self
                .health
                .check(HealthCheckRequest {
                    service: service.into(),
                })
                .await
                .expect("health answers")
                .into_inner()
                .status;
            assert_eq!(status, 1, "`{service}` is SERVING");
        }
    }

    async fn assert_verifies(&mut self) {
        let report = self
            .audit
            .verify_log(proto::VerifyLogRequest::default())
            .await
            .expect("verify")
            .into_inner();
        assert!(report.ok, "the log verifies: {}", report.problem);
    }

    async fn open_mississippi(&mut self, table: &str, request_id: &str) -> proto::HandView {
        self.play
            .open_hand(opening(table, request_id))
            .await
            .expect("open")
            .into_inner()
            .hand
            .expect("hand")
    }
}

/// An opening of Mississippi Stud at `table` (player "P", an ante of 500).
pub fn opening(table: &str, request_id: &str) -> proto::OpenHandRequest {
    proto::OpenHandRequest {
        request_id: request_id.into(),
        game: proto::Game::MississippiStud as i32,
        table: table.into(),
        player: "P".into(),
        wagers: vec![proto::Wager {
            bet: "ante".into(),
            amount: 500,
        }],
        ..Default::default()
    }
}

/// A bet of `multiple` times the ante.
pub fn bet(multiple: u32) -> proto::Action {
    proto::Action {
        kind: "bet".into(),
        multiple,
        ..Default::default()
    }
}

/// The first field violation of a refusal: (field, description); a refusal without one fails.
pub fn violation(status: &tonic::Status) -> (String, String) {
    pitboss_testkit::refusal::violation(status)
        .unwrap_or_else(|| panic!("a field violation in {status:?}"))
}

/// The server's resident memory, KiB (`VmRSS` of `/proc/<pid>/status`).
pub fn resident_kib(server: &Server) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.pid()))
        .expect("the server's /proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

/// A runtime for the gRPC parts of a test.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

/// Plays one whole Mississippi Stud hand (an ante of 500, one `PlayHand` following the strategy's
/// advice) on `table` for `player`; it must end.
pub async fn whole_hand(
    play: &mut PlayClient<Channel>,
    table: &str,
    player: &str,
) -> proto::HandView {
    let hand = play
        .play_hand(proto::PlayHandRequest {
            open: Some(proto::OpenHandRequest {
                player: player.into(),
                ..opening(table, "")
            }),
            decisions: Vec::new(),
            follow_advice: true,
        })
        .await
        .expect("a hand is played")
        .into_inner()
        .hand
        .expect("a view");
    assert_ne!(hand.status, "in_progress");
    hand
}

/// Plays `hands` complete Mississippi Stud hands (one `PlayHand` each) on `table`.
pub async fn play(server: &Server, table: &str, hands: usize) {
    let mut play = PlayClient::new(server.channel().await);
    for i in 0..hands {
        whole_hand(&mut play, table, &format!("p{i}")).await;
    }
}

/// The server's signed checkpoint of its whole log: the note and the public key (hex).
pub async fn checkpoint(server: &Server) -> (String, u64, String) {
    let c = AuditClient::new(server.channel().await)
        .get_checkpoint(proto::GetCheckpointRequest::default())
        .await
        .expect("a checkpoint")
        .into_inner();
    (c.note, c.tree_size, hex::encode(c.public_key))
}

/// The server answers health with SERVING.
pub async fn healthy(server: &Server) {
    let status = HealthClient::new(server.channel().await)
        .check(HealthCheckRequest {
            service: String::new(),
        })
        .await
        .expect("health answers")
        .into_inner()
        .status;
    assert_eq!(status, ServingStatus::Serving as i32);
}

/// A data directory recorded by a real `pitboss serve`.
pub struct Recorded {
    /// Holds the directory.
    pub tmp: tempfile::TempDir,
    /// The data directory.
    pub data: PathBuf,
    /// Entries in the log when the server stopped.
    pub size: u64,
    /// A checkpoint of all of them, as a file.
    pub checkpoint: PathBuf,
    /// The log's public key (hex), as a regulator pins it.
    pub key: String,
}

/// Starts a server on a fresh directory, plays `hands` hands, takes a checkpoint of the whole log
/// and kills the server (SIGKILL: whatever was acknowledged must be there).
pub fn recorded(hands: usize) -> Recorded {
    let tmp = tempfile::tempdir().expect("temp dir");
    let data = tmp.path().join("data");
    let server = Server::start(&data);
    let (note, size, key) = runtime().block_on(async {
        play(&server, "T-1", hands).await;
        checkpoint(&server).await
    });
    server.kill();
    let checkpoint = tmp.path().join("taken.checkpoint");
    std::fs::write(&checkpoint, note).expect("write the checkpoint");
    Recorded {
        tmp,
        data,
        size,
        checkpoint,
        key,
    }
}

/// Runs `pitboss` with `args`; returns the exit code and everything it printed.
pub fn pitboss(args: &[&str]) -> (Option<i32>, String) {
    let out: Output = Command::new(env!("CARGO_BIN_EXE_pitboss"))
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .env("NO_COLOR", "1")
        .output()
        .expect("run pitboss");
    (
        out.status.code(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// `pitboss verify --data DATA` with `extra` arguments.
pub fn verify(data: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let data = data.to_str().expect("a UTF-8 path");
    let mut args = vec!["verify", "--data", data];
    args.extend_from_slice(extra);
    pitboss(&args)
}

/// `pitboss verify` must not say OK, and must name `needle`.
pub fn verify_fails_naming(data: &Path, needle: &str) -> String {
    let (code, out) = verify(data, &[]);
    assert_ne!(code, Some(0), "verify said OK:\n{out}");
    assert!(!out.contains("\nOK:"), "{out}");
    assert!(out.contains(needle), "`{needle}` not named:\n{out}");
    out
}

/// The data files of a directory and a hash of each: what a refusal must leave as it was
/// (RocksDB's own diagnostic files `LOG*` and its `LOCK` are not data).
pub fn fingerprint(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("list") {
            let path = entry.expect("entry").path();
            let name = path
                .strip_prefix(dir)
                .expect("inside")
                .to_string_lossy()
                .into_owned();
            if path.is_dir() {
                stack.push(path);
            } else if !name.starts_with("LOG") && name != "LOCK" {
                let bytes = std::fs::read(&path).expect("read");
                out.insert(name, hex::encode(Sha256::digest(&bytes)));
            }
        }
    }
    out
}

/// Refused by `pitboss serve` (the reason must name every needle) and left as it was.
pub fn serve_refuses_naming(data: &Path, needles: &[&str]) -> String {
    let before = fingerprint(data);
    let reason = Server::refuses(data);
    for needle in needles {
        assert!(reason.contains(needle), "`{needle}` not named:\n{reason}");
    }
    assert_eq!(
        fingerprint(data),
        before,
        "a refused directory was changed:\n{reason}"
    );
    reason
}

/// After the damage is undone or repaired: the server serves it (health, one more hand), and the
/// log verifies with everything acknowledged.
pub fn serves_and_verifies(data: &Path) {
    let server = Server::start(data);
    runtime().block_on(async {
        healthy(&server).await;
        play(&server, "T-after", 1).await;
    });
    server.kill();
    let (code, out) = verify(data, &[]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("the log holds everything it acknowledged"),
        "{out}"
    );
}

pub use pitboss_testkit::forge::copy_dir;

/// Flips one bit of the byte at `offset` in `path`.
pub fn flip(path: &Path, offset: u64) {
    let mut bytes = std::fs::read(path).expect("read");
    bytes[offset as usize] ^= 0x10;
    std::fs::write(path, bytes).expect("write");
}

/// The files in `dir` whose names end with `suffix`, largest first.
pub fn files_ending(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("list")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    files.sort_by_key(|p| std::cmp::Reverse(std::fs::metadata(p).map_or(0, |m| m.len())));
    files
}

/// The number after `marker` in `text`.
pub fn number_after(text: &str, marker: &str) -> u64 {
    text.split(marker)
        .nth(1)
        .and_then(|rest| {
            rest.split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or_else(|| panic!("no number after `{marker}` in:\n{text}"))
}
