//! A real `pitboss serve` on a loopback port with its own data directory, killed on drop: the
//! server as in production, for the tests that go through gRPC.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// A running server.
pub struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub address: String,
    /// The data directory.
    pub data: PathBuf,
}

impl Server {
    /// Starts a server on a fresh port with `data` as its data directory.
    pub fn start(data: &Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pitboss"))
            .args(["serve", "--listen", "127.0.0.1:0", "--data"])
            .arg(data)
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn pitboss serve");
        let stdout = child.stdout.take().expect("stdout");
        let mut lines = BufReader::new(stdout).lines();
        let address = loop {
            let line = lines
                .next()
                .expect("serve exited before listening")
                .expect("read log line");
            if let Some(rest) = line.split("address=").nth(1) {
                break rest.split_whitespace().next().expect("address").to_string();
            }
        };
        // Keep draining the log so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        Server {
            child,
            address: format!("http://{address}"),
            data: data.to_path_buf(),
        }
    }

    /// The server's process id (to read its resident memory from `/proc`).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Runs `pitboss serve` on `data` and requires that it refuse to start: it exits with a failure
    /// before listening. Returns what it printed on standard error (the reason).
    pub fn refuses(data: &Path) -> String {
        let out = Command::new(env!("CARGO_BIN_EXE_pitboss"))
            .args(["serve", "--listen", "127.0.0.1:0", "--data"])
            .arg(data)
            .env("RUST_LOG", "info")
            .env("RUST_BACKTRACE", "0")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .output()
            .expect("run pitboss serve");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(
            !out.status.success() && !stdout.contains("address="),
            "serve started on a directory it must refuse:\n{stdout}\n{stderr}"
        );
        stderr
    }

    /// Kills the server with SIGKILL (no clean shutdown) and waits for it.
    pub fn kill(mut self) -> PathBuf {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.data.clone()
    }

    /// A connected channel.
    pub async fn channel(&self) -> tonic::transport::Channel {
        tonic::transport::Channel::from_shared(self.address.clone())
            .expect("uri")
            .connect()
            .await
            .expect("connect")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
