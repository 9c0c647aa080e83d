//! A real `pitboss witness` on a loopback port it keeps across restarts, killed on drop; and the one
//! HTTP call a log makes to it (`POST /add-checkpoint`).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// A running witness.
pub struct WitnessProcess {
    child: Child,
    /// `127.0.0.1:PORT`.
    pub address: String,
    /// Its Ed25519 verifier key (type 0x04), for a policy's `witness` line (empty when it
    /// cosigns with ML-DSA-44 only).
    pub vkey: String,
    /// Its ML-DSA-44 verifier key (type 0x06), when it cosigns with one.
    pub ml_dsa_vkey: Option<String>,
    /// Its data directory.
    pub data: PathBuf,
    name: String,
    policy: PathBuf,
    args: Vec<String>,
}

use crate::http::{post, Answer};

impl WitnessProcess {
    /// Starts a witness named `name` over `data`, knowing the logs of the policy file `policy`,
    /// on a free loopback port it keeps across restarts.
    pub fn start(data: &Path, name: &str, policy: &Path) -> WitnessProcess {
        WitnessProcess::start_with(data, name, policy, &[])
    }

    /// [`WitnessProcess::start`] with more arguments for `witness`.
    pub fn start_with(data: &Path, name: &str, policy: &Path, args: &[&str]) -> WitnessProcess {
        let address = format!("127.0.0.1:{}", crate::postgres::free_port());
        WitnessProcess::start_on(data, name, policy, &address, args)
    }

    fn start_on(
        data: &Path,
        name: &str,
        policy: &Path,
        address: &str,
        args: &[&str],
    ) -> WitnessProcess {
        let mut child = Command::new(crate::binary())
            .args(["witness", "--listen", address, "--name", name, "--data"])
            .arg(data)
            .arg("--policy")
            .arg(policy)
            .args(args)
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start pitboss witness");
        let line = crate::server::ready_line(&mut child);
        let ready: serde_json::Value = serde_json::from_str(&line)
            .unwrap_or_else(|_| panic!("the witness's ready line: {line:?}"));
        WitnessProcess {
            child,
            address: ready["witness"].as_str().expect("its address").to_string(),
            vkey: ready["vkey"].as_str().unwrap_or_default().to_string(),
            ml_dsa_vkey: ready["ml_dsa_vkey"].as_str().map(str::to_string),
            data: data.to_path_buf(),
            name: name.to_string(),
            policy: policy.to_path_buf(),
            args: args.iter().map(|a| a.to_string()).collect(),
        }
    }

    /// Its submission URL, for a policy's `witness` line.
    pub fn url(&self) -> String {
        format!("http://{}", self.address)
    }

    /// Kills it with SIGKILL (nothing flushed, nothing said).
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Starts it again on the same data directory and port (after [`WitnessProcess::kill`]).
    pub fn restart(&mut self) {
        self.kill();
        let (data, name, policy, address, args) = (
            self.data.clone(),
            self.name.clone(),
            self.policy.clone(),
            self.address.clone(),
            self.args.clone(),
        );
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        *self = WitnessProcess::start_on(&data, &name, &policy, &address, &args);
    }

    /// Kills it with SIGKILL and starts it again on the same data directory and port.
    pub fn kill_and_restart(&mut self) {
        self.restart();
    }

    /// `POST /add-checkpoint` with `body`.
    pub fn add_checkpoint(&self, body: &str) -> Answer {
        post(&self.address, "/add-checkpoint", body.as_bytes())
    }
}

impl Drop for WitnessProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Three witnesses (`witness.test/w1` … `w3`, directories `dir/w1` … `w3`) that know the log
/// `log_vkey`, and the log's policy naming them with their URLs, two of three the quorum (group
/// `two`), written to `dir/log.policy`: the witnesses and that file.
pub fn three_for(dir: &Path, log_vkey: &str) -> (Vec<WitnessProcess>, PathBuf) {
    let known = dir.join("witness.policy");
    std::fs::write(&known, format!("log {log_vkey}\nquorum none\n"))
        .expect("the witnesses' policy");
    let witnesses: Vec<WitnessProcess> = (1..=3)
        .map(|i| {
            WitnessProcess::start(
                &dir.join(format!("w{i}")),
                &format!("witness.test/w{i}"),
                &known,
            )
        })
        .collect();
    let mut policy = format!("log {log_vkey}\n");
    for (i, w) in witnesses.iter().enumerate() {
        policy += &format!("witness W{} {} {}\n", i + 1, w.vkey, w.url());
    }
    policy += "group two 2 W1 W2 W3\nquorum two\n";
    let path = dir.join("log.policy");
    std::fs::write(&path, policy).expect("the log's policy");
    (witnesses, path)
}
