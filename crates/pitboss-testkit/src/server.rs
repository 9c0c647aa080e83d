//! A server on a loopback port with its own data directory, stopped on drop, for the tests that go
//! through gRPC: a real `pitboss serve` process ([`Server::start`]) where the process is the point
//! (its flags, its start and refusals, signals, a crash), or the same service served in the test's
//! own process ([`Server::in_process`], `in_process.rs`) on the same data directory or database.
//!
//! Its access file (written before the first start unless the directory has one) names two
//! administrators with every role, so that a test can propose with one and approve with the
//! other (the two-person rule); `admin.token` holds the first one's token, where the CLI finds it.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use pitboss_client::{authorized, Authorized};

use super::in_process::InProcess;

/// Why a test may not ask a server started in process for its process.
const IN_PROCESS: &str =
    "a server started in process has no process of its own: start it with Server::start";

/// What serves: a `pitboss serve` child, or the service in this process.
enum Running {
    Process(Child),
    InProcess(InProcess),
}

/// The first administrator's token (principal `admin`).
pub const ADMIN_TOKEN: &str = "pb_test_admin_0123456789";
/// The second administrator's token (principal `second`).
pub const SECOND_TOKEN: &str = "pb_test_second_0123456789";

/// An access file's `[[principal]]` with a token.
pub fn principal(id: &str, token: &str, roles: &[&str], tables: Option<&[&str]>) -> String {
    let quoted = |items: &[&str]| {
        items
            .iter()
            .map(|r| format!("\"{r}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut text = format!(
        "[[principal]]\nid = \"{id}\"\ntoken_sha256 = \"{}\"\nroles = [{}]\n",
        hex::encode(pitboss::access::token_sha256(token)),
        quoted(roles)
    );
    if let Some(tables) = tables {
        text.push_str(&format!("tables = [{}]\n", quoted(tables)));
    }
    text + "\n"
}

/// Every role.
pub const ALL_ROLES: &[&str] = &[
    "game_client",
    "supervisor",
    "config_admin",
    "regulator",
    "lab",
    "key_admin",
];

/// Writes the test access file (the two administrators, and `more`) into `data`.
pub fn write_access(data: &Path, more: &str) {
    std::fs::create_dir_all(data).expect("data directory");
    let text = principal("admin", ADMIN_TOKEN, ALL_ROLES, None)
        + &principal("second", SECOND_TOKEN, ALL_ROLES, None)
        + more;
    std::fs::write(data.join("access.toml"), text).expect("access file");
    std::fs::write(data.join("admin.token"), ADMIN_TOKEN).expect("token file");
}

/// Whether the servers of this run keep their logs in PostgreSQL: `PITBOSS_TEST_STORE=postgres`
/// (`scripts/test` runs the API suite both ways).
pub fn on_postgres() -> bool {
    std::env::var("PITBOSS_TEST_STORE").as_deref() == Ok("postgres")
}

/// Where the log of a server on `data` is kept: in the data directory (no arguments), or on
/// PostgreSQL a database of its own in the process's shared cluster, the same one every time a
/// server starts on `data` (its URL kept in `data/test-store-url`).
fn store_args(data: &Path, args: &[&str]) -> Vec<String> {
    match store_url(data) {
        Some(url) if !args.contains(&"--store") => vec!["--store".into(), url],
        _ => Vec::new(),
    }
}

/// On PostgreSQL, the database of the servers on `data` (created the first time).
pub fn store_url(data: &Path) -> Option<String> {
    if !on_postgres() {
        return None;
    }
    let file = data.join("test-store-url");
    Some(match std::fs::read_to_string(&file) {
        Ok(url) => url,
        Err(_) => {
            std::fs::create_dir_all(data).expect("data directory");
            let url = super::postgres::Cluster::shared().create_database();
            std::fs::write(&file, &url).expect("the test's store URL");
            url
        }
    })
}

/// The ledger a server on `data` would open, opened by the test itself (the server stopped):
/// the data directory's, or on PostgreSQL its database's with the directory's key.
pub fn open_ledger(data: &Path, now_ms: u64) -> pitboss_ledger::Ledger {
    let payloads = pitboss::codec::check_payload;
    match store_url(data) {
        None => pitboss_ledger::Ledger::open_checked(data, now_ms, payloads),
        Some(url) => pitboss_ledger::Ledger::open_postgres(&url, data, now_ms, Some(payloads)),
    }
    .expect("the test's ledger")
}

/// A server started and not yet ready.
pub struct Starting {
    /// Taken by [`Starting::ready`].
    child: Option<Child>,
    log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    data: PathBuf,
}

impl Starting {
    /// Waits for the server's ready line (a minute at most): the server, serving.
    pub fn ready(mut self) -> Server {
        let mut child = self.child.take().expect("a child not yet taken");
        let line = ready_line(&mut child);
        let ready: serde_json::Value = serde_json::from_str(&line).unwrap_or_else(|_| {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "serve was not ready ({line:?}: stopped, or silent for a minute); its log ends:\n{}",
                self.log.lock().unwrap().join("\n")
            )
        });
        let address = ready["listening"].as_str().expect("listening").to_string();
        Server {
            running: Running::Process(child),
            address: format!("http://{address}"),
            data: self.data.clone(),
            metrics: ready["metrics"].as_str().map(str::to_string),
            tiles: ready["tiles"].as_str().map(str::to_string),
        }
    }

    /// Whether the server has exited (it failed to start).
    pub fn exited(&mut self) -> bool {
        self.child
            .as_mut()
            .is_none_or(|child| child.try_wait().is_ok_and(|status| status.is_some()))
    }
}

impl Drop for Starting {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A running server.
pub struct Server {
    running: Running,
    /// `http://127.0.0.1:PORT`.
    pub address: String,
    /// The data directory.
    pub data: PathBuf,
    /// The metrics endpoint's address (`127.0.0.1:PORT`), when started with `--metrics`.
    pub metrics: Option<String>,
    /// The tiles' address (`127.0.0.1:PORT`), when started with `--tiles-listen`.
    pub tiles: Option<String>,
}

impl Server {
    /// Starts a server on a fresh port with `data` as its data directory (and the test access
    /// file if it has none).
    pub fn start(data: &Path) -> Server {
        Server::start_with(data, &[])
    }

    /// [`Server::start`] with more arguments for `serve`.
    pub fn start_with(data: &Path, args: &[&str]) -> Server {
        if !data.join("access.toml").exists() {
            write_access(data, "");
        }
        Server::start_bare_with(data, args)
    }

    /// Starts a server on `data` as it is (no access file written: the server makes its local
    /// administrator's when there is none).
    pub fn start_bare(data: &Path) -> Server {
        Server::start_bare_with(data, &[])
    }

    fn start_bare_with(data: &Path, args: &[&str]) -> Server {
        Server::spawn(data, args).ready()
    }

    /// Starts a server on `data` (the test access file written if it has none) and returns at
    /// once, before it says it is ready: for the tests of what a server answers while it starts.
    pub fn starting(data: &Path, args: &[&str]) -> Starting {
        if !data.join("access.toml").exists() {
            write_access(data, "");
        }
        Server::spawn(data, args)
    }

    fn spawn(data: &Path, args: &[&str]) -> Starting {
        let listen: &[&str] = if args.contains(&"--listen") {
            &[]
        } else {
            &["--listen", "127.0.0.1:0"]
        };
        // Test servers build strategy tables when a hand first needs them (`--warm false`): most
        // tests play no advised hand, and a build per server would cost CI minutes of CPU. Tests of
        // the warm start ask for it with `--warm true`.
        let warm: &[&str] = if args.contains(&"--warm") {
            &[]
        } else {
            &["--warm", "false"]
        };
        let mut child = Command::new(crate::binary())
            .args(["serve", "--data"])
            .arg(data)
            .args(listen)
            .args(warm)
            .args(store_args(data, args))
            .args(args)
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn pitboss serve");
        // Keep draining the log so the server never blocks on a full pipe; keep its end for the
        // message of a server that stops before it is ready.
        let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
        {
            let log = log.clone();
            let stderr = BufReader::new(child.stderr.take().expect("stderr"));
            std::thread::spawn(move || {
                for line in stderr.lines().map_while(Result::ok) {
                    let mut log = log.lock().unwrap();
                    if log.len() == 50 {
                        log.remove(0);
                    }
                    log.push(line);
                }
            });
        }
        Starting {
            child: Some(child),
            log,
            data: data.to_path_buf(),
        }
    }
    /// The service on `data` served in this process (`in_process.rs`; the test access file
    /// written if it has none), ready: for the tests of what the API answers, where the process is
    /// not the point.
    pub fn in_process(data: &Path) -> Server {
        Server::in_process_beacon(data, None)
    }

    /// [`Server::in_process`] fetching beacon rounds from `beacon_source`
    /// (`http://host:port[/prefix]`; `None`: no source).
    pub fn in_process_beacon(data: &Path, beacon_source: Option<&str>) -> Server {
        if !data.join("access.toml").exists() {
            write_access(data, "");
        }
        let dir = data.to_path_buf();
        let (serving, at) = super::in_process::serve(
            move || open_ledger(&dir, pitboss::floor::system_clock()),
            data.join("access.toml"),
            beacon_source.map(str::to_string),
        );
        Server {
            running: Running::InProcess(serving),
            address: format!("http://{at}"),
            data: data.to_path_buf(),
            metrics: None,
            tiles: None,
        }
    }

    /// The server's process id (to read its resident memory from `/proc`).
    pub fn pid(&self) -> u32 {
        match &self.running {
            Running::Process(child) => child.id(),
            Running::InProcess(_) => panic!("{IN_PROCESS}"),
        }
    }

    /// The server's process: a test that asks for it is one where the process is the point.
    fn process(&mut self) -> &mut Child {
        match &mut self.running {
            Running::Process(child) => child,
            Running::InProcess(_) => panic!("{IN_PROCESS}"),
        }
    }

    /// Runs `pitboss serve` on `data` and requires that it refuse to start: it exits with a failure
    /// before listening. Returns what it printed on standard error (the reason).
    pub fn refuses(data: &Path) -> String {
        Server::refuses_with(data, &["--listen", "127.0.0.1:0"])
    }

    /// [`Server::refuses`] with these arguments (`--listen` among them).
    pub fn refuses_with(data: &Path, args: &[&str]) -> String {
        let out = Command::new(crate::binary())
            .args(["serve", "--data"])
            .arg(data)
            .args(args)
            .env("RUST_LOG", "info")
            .env("RUST_BACKTRACE", "0")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .output()
            .expect("run pitboss serve");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(
            !out.status.success() && !stdout.contains("listening"),
            "serve started on a directory it must refuse:\n{stdout}\n{stderr}"
        );
        stderr
    }

    /// Kills the server with SIGKILL (no clean shutdown) and waits for it.
    pub fn kill(mut self) -> PathBuf {
        let child = self.process();
        let _ = child.kill();
        let _ = child.wait();
        self.data.clone()
    }

    /// A connected channel as the first administrator (`admin`).
    pub async fn channel(&self) -> Authorized {
        self.channel_as(Some(ADMIN_TOKEN)).await
    }

    /// A connected channel with `token` on every call (`None`: no credential).
    pub async fn channel_as(&self, token: Option<&str>) -> Authorized {
        let channel = tonic::transport::Channel::from_shared(self.address.clone())
            .expect("uri")
            .connect()
            .await
            .expect("connect");
        authorized(channel, token).expect("a token")
    }

    /// Publishes a Nutz configuration named `name` (otherwise the default) through this server,
    /// as the two-person rule asks: proposed by `admin`, approved by `second`. Its id.
    pub async fn publish_nutz(&self, name: &str) -> String {
        let mut config =
            pitboss_engine::config::GameConfig::default_for(pitboss_engine::game::GameId::Nutz);
        config.name = name.into();
        self.publish(&config).await
    }

    /// Publishes `config` through this server as the two-person rule asks: proposed by `admin`,
    /// approved by `second`. Its id.
    pub async fn publish(&self, config: &pitboss_engine::config::GameConfig) -> String {
        use pitboss::proto;
        use pitboss::proto::operations_client::OperationsClient;
        let proposed = OperationsClient::new(self.channel().await)
            .publish_config(proto::PublishConfigRequest {
                config_json: String::from_utf8(config.canonical_bytes()).expect("UTF-8"),
                ..Default::default()
            })
            .await
            .expect("proposed")
            .into_inner();
        OperationsClient::new(self.channel_as(Some(SECOND_TOKEN)).await)
            .approve_proposal(proto::ApproveProposalRequest {
                proposal_id: proposed.proposal.expect("a proposal").proposal_id,
            })
            .await
            .expect("approved");
        proposed.config_id
    }
}

/// The ready line of a `pitboss serve` child started with its standard output piped: the only
/// thing `serve` writes there (`docs/operations.md`). Empty when the server stopped, or wrote
/// nothing for a minute (a test then fails rather than hangs).
pub fn ready_line(child: &mut Child) -> String {
    let mut stdout = BufReader::new(child.stdout.take().expect("a piped standard output"));
    let (sent, read) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = stdout.read_line(&mut line);
        let _ = sent.send(line);
    });
    read.recv_timeout(std::time::Duration::from_secs(60))
        .unwrap_or_default()
}

impl Server {
    /// Stops the server cleanly (SIGTERM, as an operator's service manager does) and waits for it:
    /// whether it exited with success.
    pub fn stop(mut self) -> bool {
        match &mut self.running {
            Running::Process(child) => {
                // SAFETY: a signal to our own child, by the pid we started it with.
                unsafe {
                    libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
                }
                child.wait().is_ok_and(|s| s.success())
            }
            Running::InProcess(serving) => serving.stop(),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        match &mut self.running {
            Running::Process(child) => {
                let _ = child.kill();
                let _ = child.wait();
            }
            Running::InProcess(serving) => {
                serving.stop();
            }
        }
    }
}
