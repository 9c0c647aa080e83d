//! A real `pitboss mirror` following a server, on loopback ports it keeps across restarts (its
//! Audit API, its witness door and its tiles), killed on drop.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use pitboss_client::{authorized, Authorized};

/// A running mirror.
pub struct MirrorProcess {
    child: Child,
    /// `http://127.0.0.1:PORT`: its Audit API.
    pub address: String,
    /// `127.0.0.1:PORT`: its witness door.
    pub witness: String,
    /// `127.0.0.1:PORT`: its tiles.
    pub tiles: String,
    /// Its cosigner key (type 0x04), for a policy's `witness` line.
    pub vkey: String,
    /// Its data directory.
    pub data: PathBuf,
    args: Vec<String>,
}

impl MirrorProcess {
    /// Starts a mirror named `name` over `data` following the server at `from` (as its first
    /// administrator), whose log is `log_vkey`; it asks for the log's checkpoint every 50 ms.
    pub fn start(data: &Path, name: &str, from: &str, log_vkey: &str) -> MirrorProcess {
        if !data.join("access.toml").exists() {
            crate::server::write_access(data, "");
        }
        let token = data.join("upstream.token");
        std::fs::write(&token, crate::server::ADMIN_TOKEN).expect("the upstream token");
        let port = || format!("127.0.0.1:{}", crate::postgres::free_port());
        let args = vec![
            "mirror".to_string(),
            "--from".into(),
            from.into(),
            "--from-token-file".into(),
            token.display().to_string(),
            "--log".into(),
            log_vkey.into(),
            "--name".into(),
            name.into(),
            "--data".into(),
            data.display().to_string(),
            "--listen".into(),
            port(),
            "--witness-listen".into(),
            port(),
            "--tiles".into(),
            data.join("tiles").display().to_string(),
            "--tiles-listen".into(),
            port(),
            "--every-ms".into(),
            "50".into(),
        ];
        MirrorProcess::start_with(data, args)
    }

    fn start_with(data: &Path, args: Vec<String>) -> MirrorProcess {
        let mut child = Command::new(crate::binary())
            .args(&args)
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start pitboss mirror");
        let line = crate::server::ready_line(&mut child);
        let ready: serde_json::Value = serde_json::from_str(&line)
            .unwrap_or_else(|_| panic!("the mirror's ready line: {line:?}"));
        let text = |v: &serde_json::Value| v.as_str().expect("a string").to_string();
        MirrorProcess {
            child,
            address: format!("http://{}", text(&ready["listening"])),
            witness: text(&ready["mirror"]["witness"]),
            tiles: text(&ready["tiles"]),
            vkey: text(&ready["mirror"]["vkey"]),
            data: data.to_path_buf(),
            args,
        }
    }

    /// Kills it with SIGKILL and starts it again on the same directory and ports.
    pub fn kill_and_restart(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let (data, args) = (self.data.clone(), self.args.clone());
        *self = MirrorProcess::start_with(&data, args);
    }

    /// A connected channel as the first administrator of its access file.
    pub async fn channel(&self) -> Authorized {
        let channel = tonic::transport::Channel::from_shared(self.address.clone())
            .expect("uri")
            .connect()
            .await
            .expect("connect");
        authorized(channel, Some(crate::server::ADMIN_TOKEN)).expect("a token")
    }
}

impl Drop for MirrorProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
