//! An entry of the witness network's log lists (transparency-dev/witness-network,
//! `docs/log-list-format.md`, `logs/v0`): the log's Ed25519 vkey, its origin (`none`: the vkey's
//! name), a bastion (`none`: the log dials its witnesses), the `add-checkpoint` requests it makes
//! per day at most, and a contact — and the check of a checkpoint the log serves against every
//! rule the entry makes.
//!
//! Owns the entry's text and the rules; MUST NOT reach the network (the caller hands it the
//! checkpoint and the rate it is configured for).

use crate::checkpoint::Checkpoint as Text;
use crate::note::{Vkey, ED25519};
use pitboss_ledger::checkpoint::Checkpoint;

/// The list's first line.
pub const HEADER: &str = "logs/v0";

/// One log's entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogListEntry {
    /// The log's note key (type `0x01`).
    pub vkey: Vkey,
    /// The origin line when it is not the vkey's name (`origin none` otherwise).
    pub origin: Option<String>,
    /// A bastion URL, or none.
    pub bastion: Option<String>,
    /// `add-checkpoint` requests per day, at most (each witness).
    pub qpd: u64,
    /// How to reach the operator.
    pub contact: String,
}

/// The most `add-checkpoint` requests a day a pitboss log sends one witness when it looks for a
/// new checkpoint every `every_ms`: one a tick, and one more after a `409`.
pub fn requests_per_day(every_ms: u64) -> u64 {
    2 * 86_400_000u64.div_ceil(every_ms.max(1))
}

impl LogListEntry {
    /// A list holding this entry alone, in the list's line order.
    pub fn to_text(&self) -> String {
        format!(
            "{HEADER}\n\nvkey {}\norigin {}\nbastion {}\nqpd {}\ncontact {}\n",
            self.vkey,
            self.origin.as_deref().unwrap_or("none"),
            self.bastion.as_deref().unwrap_or("none"),
            self.qpd,
            self.contact
        )
    }

    /// Every rule this entry makes that the log's checkpoint `note` (as it sends it to
    /// witnesses), sent at most `per_day` times a day to each witness, breaks; empty when it meets
    /// them all.
    pub fn problems(&self, note: &str, per_day: u64) -> Vec<String> {
        let mut problems = Vec::new();
        if self.vkey.kind != ED25519 {
            problems.push("the vkey is not an Ed25519 note key (type 0x01)".into());
        }
        if self.contact.trim().is_empty() || self.contact.contains('\n') {
            problems.push("the contact is empty or more than one line".into());
        }
        if self.qpd < per_day {
            problems.push(format!(
                "qpd {} is below the {per_day} requests a day the log may send a witness",
                self.qpd
            ));
        }
        let origin = self.origin.as_deref().unwrap_or(&self.vkey.name);
        match Checkpoint::parse(note) {
            Err(e) => problems.push(format!("the checkpoint does not read: {e}")),
            Ok(checkpoint) => {
                if checkpoint.origin != origin {
                    problems.push(format!(
                        "the checkpoint's origin {} is not the listed {origin}",
                        checkpoint.origin
                    ));
                }
                if let Err(e) = checkpoint.verify(&self.vkey.key) {
                    problems.push(format!("the listed key did not sign the checkpoint: {e}"));
                }
                if !checkpoint.extensions.is_empty() {
                    problems.push("the checkpoint carries extension lines".into());
                }
                // Its text as tlog-checkpoint writes it, read again strictly.
                if Text::parse(&checkpoint.body()).is_err() {
                    problems.push("the checkpoint's text is not tlog-checkpoint's".into());
                }
            }
        }
        problems
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitboss_ledger::keys::Keypair;

    fn signed(origin: &str, key: &Keypair) -> String {
        let root = [1u8; 32];
        let body = pitboss_ledger::checkpoint::body(origin, 7, &root, &[]);
        Checkpoint {
            origin: origin.into(),
            size: 7,
            root,
            signature: key.sign_message(body.as_bytes()),
            key_hash: pitboss_ledger::checkpoint::key_hash(origin, &key.public()),
            extensions: Vec::new(),
        }
        .note()
    }

    /// A log's own checkpoint meets its entry; another key, another origin, a rate above qpd, an
    /// extension line are each named.
    #[test]
    fn a_checkpoint_meets_its_entry_and_each_broken_rule_is_named() {
        let key = Keypair::from_secret([4; 32]);
        let origin = "pitboss.v1/0011223344556677";
        let note = signed(origin, &key);
        let entry = LogListEntry {
            vkey: Vkey {
                name: origin.into(),
                kind: ED25519,
                key: key.public(),
            },
            origin: None,
            bastion: None,
            qpd: requests_per_day(60_000),
            contact: "ops@casino.example".into(),
        };
        assert_eq!(entry.qpd, 2_880);
        assert!(entry.problems(&note, 2_880).is_empty());
        let text = entry.to_text();
        assert!(text.starts_with("logs/v0\n\nvkey pitboss.v1/0011223344556677+"));
        assert!(
            text.ends_with("\norigin none\nbastion none\nqpd 2880\ncontact ops@casino.example\n")
        );

        assert_eq!(entry.problems(&note, 2_881).len(), 1);
        let other = Keypair::from_secret([5; 32]);
        let signed_by_other = signed(origin, &other);
        assert_eq!(entry.problems(&signed_by_other, 1).len(), 1);
        let elsewhere = LogListEntry {
            origin: Some("casino.example/log".into()),
            ..entry.clone()
        };
        assert_eq!(elsewhere.problems(&note, 1).len(), 1);
    }
}
