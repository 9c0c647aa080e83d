//! A private PostgreSQL cluster for a test: `initdb` in a temporary directory, the server on a free
//! loopback port (and its socket in that directory), stopped and removed when dropped. Debian's
//! PostgreSQL 15 (`scripts/test` installs `postgresql-15` when missing). PostgreSQL refuses to run
//! as root: as root, the cluster runs as the `postgres` user the package creates.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Where Debian puts the server's programs.
const BIN: &str = "/usr/lib/postgresql/15/bin";

pub struct Cluster {
    dir: tempfile::TempDir,
    pub port: u16,
}

fn as_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// `program` of the server's, as the `postgres` user when we are root.
fn pg(program: &str) -> Command {
    let path = Path::new(BIN).join(program);
    if as_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(path);
        c
    } else {
        Command::new(path)
    }
}

fn run(mut command: Command, what: &str) {
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("{what}: {e} (scripts/test installs postgresql-15)"));
    assert!(
        out.status.success(),
        "{what} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A temporary directory the cluster's user owns.
fn owned_dir(prefix: &str) -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix(prefix)
        .tempdir()
        .expect("a temporary directory");
    if as_root() {
        let mut chown = Command::new("chown");
        chown.arg("postgres:postgres").arg(dir.path());
        run(chown, "chown");
    }
    dir
}

/// A loopback port free now (for a process that must come back on the same one).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

impl Cluster {
    /// Starts the server of the cluster in `dir` (its data in `dir/data`) on `port`.
    fn run_server(dir: &Path, port: u16) {
        let mut start = pg("pg_ctl");
        start
            .arg("-D")
            .arg(dir.join("data"))
            .arg("-l")
            .arg(dir.join("server.log"))
            .arg("-o")
            .arg(format!(
                "-c listen_addresses=127.0.0.1 -p {port} -k {}",
                dir.display()
            ))
            .args(["-w", "-t", "60", "start"]);
        run(start, "pg_ctl start");
    }

    /// A streaming standby of `primary`, named `name` (its `application_name`), running: a base
    /// backup of the primary, then recovery following it.
    pub fn standby_of(primary: &Cluster, name: &str) -> Cluster {
        let dir = owned_dir("pitboss-pg-standby");
        let data = dir.path().join("data");
        let mut backup = pg("pg_basebackup");
        backup
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &primary.port.to_string(),
                "-U",
                "pitboss",
            ])
            .arg("-D")
            .arg(&data)
            .args(["-X", "stream", "-R", "--no-sync"]);
        run(backup, "pg_basebackup");
        let conninfo = format!(
            "\nprimary_conninfo = 'host=127.0.0.1 port={} user=pitboss application_name={name}'\n",
            primary.port
        );
        let auto = data.join("postgresql.auto.conf");
        let mut text = std::fs::read_to_string(&auto).expect("postgresql.auto.conf");
        text.push_str(&conninfo);
        std::fs::write(&auto, text).expect("postgresql.auto.conf");
        let port = free_port();
        Cluster::run_server(dir.path(), port);
        Cluster { dir, port }
    }

    /// Makes `standby` the primary's synchronous standby (`synchronous_commit = on`: a commit
    /// returns once the standby has it on disk) and waits until it is.
    pub fn make_synchronous(&self, standby: &str) {
        self.sql(&format!(
            "ALTER SYSTEM SET synchronous_standby_names = '{standby}'"
        ));
        self.sql("SELECT pg_reload_conf()");
        let started = std::time::Instant::now();
        while self.sql("SELECT string_agg(application_name || ':' || sync_state, ',') FROM pg_stat_replication")
            != format!("{standby}:sync")
        {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(60),
                "the standby never became synchronous"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    /// Stops the server at once, as a crash would (no checkpoint, connections cut).
    pub fn kill(&self) {
        self.stop();
    }

    /// Promotes a standby to a primary, waiting until it accepts writes.
    pub fn promote(&self) {
        let mut promote = pg("pg_ctl");
        promote
            .arg("-D")
            .arg(self.dir.path().join("data"))
            .args(["-w", "-t", "60", "promote"]);
        run(promote, "pg_ctl promote");
    }

    /// A client program of PostgreSQL's (`psql`, `createdb`) connecting to this cluster.
    fn client(&self, program: &str) -> Command {
        let mut command = Command::new(Path::new(BIN).join(program));
        command.args([
            "-h",
            "127.0.0.1",
            "-p",
            &self.port.to_string(),
            "-U",
            "pitboss",
        ]);
        command
    }

    /// Runs `sql` in the `postgres` database; its output, unaligned, trimmed.
    pub fn sql(&self, sql: &str) -> String {
        self.sql_in("postgres", sql)
    }

    /// Runs `sql` in database `name`; its output, unaligned, trimmed.
    pub fn sql_in(&self, name: &str, sql: &str) -> String {
        let out = self
            .client("psql")
            .args(["-d", name, "-v", "ON_ERROR_STOP=1", "-Atc", sql])
            .output()
            .expect("psql");
        assert!(
            out.status.success(),
            "{sql}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// A fresh cluster, running.
    pub fn start() -> Cluster {
        let dir = owned_dir("pitboss-pg");
        let data = dir.path().join("data");
        let mut init = pg("initdb");
        init.arg("-D").arg(&data).args([
            "-U",
            "pitboss",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
        ]);
        run(init, "initdb");
        let port = free_port();
        Cluster::run_server(dir.path(), port);
        Cluster { dir, port }
    }

    /// The connection settings of the cluster's `postgres` database.
    pub fn url(&self) -> String {
        format!("postgres://pitboss@127.0.0.1:{}/postgres", self.port)
    }

    /// The connection settings of database `name`.
    pub fn url_of(&self, name: &str) -> String {
        format!("postgres://pitboss@127.0.0.1:{}/{name}", self.port)
    }

    /// A new, empty database in the cluster; its connection settings.
    pub fn create_database(&self) -> String {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let name = format!(
            "log_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        );
        let mut create = self.client("createdb");
        create.arg(&name);
        run(create, "createdb");
        self.url_of(&name)
    }

    /// A cluster shared by every test of this process, stopped when the process exits.
    pub fn shared() -> &'static Cluster {
        static SHARED: std::sync::OnceLock<Cluster> = std::sync::OnceLock::new();
        extern "C" fn stop_shared() {
            if let Some(cluster) = SHARED.get() {
                cluster.stop();
            }
        }
        SHARED.get_or_init(|| {
            let cluster = Cluster::start();
            // SAFETY: registers a plain function, run once at `exit`; it only runs `pg_ctl`.
            unsafe { libc::atexit(stop_shared) };
            cluster
        })
    }

    fn stop(&self) {
        let mut stop = pg("pg_ctl");
        stop.arg("-D")
            .arg(self.dir.path().join("data"))
            .args(["-m", "immediate", "-w", "stop"]);
        let _ = stop.output();
    }

    /// The server's log.
    pub fn log(&self) -> PathBuf {
        self.dir.path().join("server.log")
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.stop();
    }
}
