//! A trust policy in C2SP `tlog-policy`'s language: the logs (`log <vkey> [<url>]`), the
//! witnesses (`witness <name> <vkey> [<url>]`), groups (`group <name> all|any|<k> <member>...`)
//! and the one `quorum <name>` (or `quorum none`). A witness reads the logs it knows from one; a
//! log reads the witnesses it asks, and a verifier the quorum a checkpoint must meet.
//!
//! Owns reading a policy strictly (every rule of the specification: names defined before use,
//! members listed once, `1 <= k <= n`, no duplicate keys, tab and newline the only control
//! characters) and deciding whether a set of witnesses meets the quorum.

use std::collections::{BTreeMap, BTreeSet};

use crate::cosigner::CosignerKey;
use crate::note::{Vkey, ED25519};

/// The largest policy read, in bytes.
pub const MAX_POLICY: usize = 64 * 1024;

/// Why a text is not a policy: the line (from 1) and the problem.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("policy line {line}: {problem}")]
pub struct PolicyError {
    /// The line, from 1 (0: the whole file).
    pub line: usize,
    /// What is wrong.
    pub problem: String,
}

/// A log the policy accepts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyLog {
    /// Its key (type `0x01`), named by its origin.
    pub vkey: Vkey,
    /// Where to reach it, if given.
    pub url: Option<String>,
}

/// A witness the policy names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyWitness {
    /// Its name in the policy (for groups and the quorum).
    pub name: String,
    /// Its cosigner key (type `0x04` Ed25519 or `0x06` ML-DSA-44).
    pub vkey: CosignerKey,
    /// Its submission prefix, if given.
    pub url: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Group {
    name: String,
    threshold: usize,
    members: Vec<String>,
}

/// A parsed policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    /// The logs, in the file's order.
    pub logs: Vec<PolicyLog>,
    /// The witnesses, in the file's order.
    pub witnesses: Vec<PolicyWitness>,
    /// In the file's order: a group names only witnesses and groups defined above it.
    groups: Vec<Group>,
    /// The quorum's name; `None` for `quorum none`.
    quorum: Option<String>,
}

impl Policy {
    /// Reads a policy.
    pub fn parse(text: &str) -> Result<Policy, PolicyError> {
        let at = |line: usize, problem: &str| PolicyError {
            line,
            problem: problem.to_string(),
        };
        if text.len() > MAX_POLICY {
            return Err(at(0, "longer than 64 KiB"));
        }
        if text
            .bytes()
            .any(|b| (b < 0x20 && b != b'\t' && b != b'\n') || b == 0x7f)
        {
            return Err(at(0, "a control character other than tab and newline"));
        }
        let mut policy = Policy {
            logs: Vec::new(),
            witnesses: Vec::new(),
            groups: Vec::new(),
            quorum: None,
        };
        let mut quorum_seen = false;
        // Duplicates are forbidden among the logs and among the witnesses (tlog-policy).
        let mut log_keys = BTreeSet::new();
        let mut witness_keys = BTreeSet::new();
        for (i, raw) in text.split('\n').enumerate() {
            let n = i + 1;
            let words: Vec<&str> = raw.split([' ', '\t']).filter(|w| !w.is_empty()).collect();
            let vkey = |text: &str, kind: u8, keys: &mut BTreeSet<(u8, Vec<u8>)>| {
                let vkey = Vkey::parse(text).map_err(|e| at(n, &e.to_string()))?;
                if vkey.kind != kind {
                    return Err(at(n, "a key of the wrong type for its role"));
                }
                if !keys.insert((vkey.kind, vkey.key.to_bytes().to_vec())) {
                    return Err(at(n, "a key listed twice"));
                }
                Ok(vkey)
            };
            let cosigner = |text: &str, keys: &mut BTreeSet<(u8, Vec<u8>)>| {
                let key = CosignerKey::parse(text).map_err(|e| at(n, &e.to_string()))?;
                if !keys.insert(key.key_bytes()) {
                    return Err(at(n, "a key listed twice"));
                }
                Ok(key)
            };
            match words.as_slice() {
                [] => {}
                [first, ..] if first.starts_with('#') => {}
                ["log", key, rest @ ..] if rest.len() <= 1 => policy.logs.push(PolicyLog {
                    vkey: vkey(key, ED25519, &mut log_keys)?,
                    url: rest.first().map(|u| u.to_string()),
                }),
                ["witness", name, key, rest @ ..] if rest.len() <= 1 => {
                    policy.define(name, n)?;
                    policy.witnesses.push(PolicyWitness {
                        name: name.to_string(),
                        vkey: cosigner(key, &mut witness_keys)?,
                        url: rest.first().map(|u| u.to_string()),
                    });
                }
                ["group", name, k, members @ ..] if !members.is_empty() => {
                    let mut listed = BTreeSet::new();
                    for member in members {
                        if !policy.is_defined(member) {
                            return Err(at(n, &format!("{member} is not defined above")));
                        }
                        if !listed.insert(*member) {
                            return Err(at(n, &format!("{member} is listed twice")));
                        }
                    }
                    let threshold = match *k {
                        "all" => members.len(),
                        "any" => 1,
                        k => Some(k)
                            .filter(|k| k.bytes().all(|b| b.is_ascii_digit()))
                            .and_then(|k| k.parse::<usize>().ok())
                            .filter(|k| (1..=members.len()).contains(k))
                            .ok_or_else(|| at(n, "the threshold is not all, any or 1..=n"))?,
                    };
                    policy.define(name, n)?;
                    let members = members.iter().map(|m| m.to_string()).collect();
                    policy.groups.push(Group {
                        name: name.to_string(),
                        threshold,
                        members,
                    });
                }
                ["quorum", name] => {
                    if quorum_seen {
                        return Err(at(n, "a second quorum line"));
                    }
                    quorum_seen = true;
                    if *name != "none" {
                        if !policy.is_defined(name) {
                            return Err(at(n, &format!("{name} is not defined above")));
                        }
                        policy.quorum = Some(name.to_string());
                    }
                }
                _ => return Err(at(n, "not a log, witness, group or quorum line")),
            }
        }
        if !quorum_seen {
            return Err(at(0, "no quorum line"));
        }
        Ok(policy)
    }

    fn is_defined(&self, name: &str) -> bool {
        self.groups.iter().any(|g| g.name == name) || self.witnesses.iter().any(|w| w.name == name)
    }

    fn define(&self, name: &str, line: usize) -> Result<(), PolicyError> {
        if name == "none" || self.is_defined(name) {
            return Err(PolicyError {
                line,
                problem: format!("{name} is already defined (or reserved)"),
            });
        }
        Ok(())
    }

    /// Whether the witnesses named in `cosigned` (policy names) meet the quorum. Each group is
    /// decided once, in the file's order (its members are above it), so the work is linear in
    /// the policy whatever its nesting.
    pub fn satisfied(&self, cosigned: &BTreeSet<String>) -> bool {
        let Some(quorum) = &self.quorum else {
            return true;
        };
        let mut witnessed: BTreeMap<&str, bool> = self
            .witnesses
            .iter()
            .map(|w| (w.name.as_str(), cosigned.contains(&w.name)))
            .collect();
        for group in &self.groups {
            let count = group
                .members
                .iter()
                .filter(|m| witnessed.get(m.as_str()).copied().unwrap_or(false))
                .count();
            witnessed.insert(&group.name, count >= group.threshold);
        }
        witnessed.get(quorum.as_str()).copied().unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::note::COSIGNATURE_V1;

    fn vkey(seed: u8, name: &str, kind: u8) -> String {
        Vkey {
            name: name.into(),
            kind,
            key: ed25519_dalek::SigningKey::from_bytes(&[seed; 32]).verifying_key(),
        }
        .to_string()
    }

    #[test]
    fn a_two_level_quorum_is_decided_by_its_groups() {
        let text = format!(
            "# example\nlog {} https://log.example\n\
             witness X1 {}\nwitness X2 {}\nwitness X3 {}\n\
             group X 2 X1 X2 X3\nwitness Y1 {} https://y1.example\n\
             group XY all X Y1\nquorum XY\n",
            vkey(1, "log.example/1", ED25519),
            vkey(2, "x1", COSIGNATURE_V1),
            vkey(3, "x2", COSIGNATURE_V1),
            vkey(4, "x3", COSIGNATURE_V1),
            vkey(5, "y1", COSIGNATURE_V1),
        );
        let policy = Policy::parse(&text).unwrap();
        assert_eq!(policy.logs.len(), 1);
        assert_eq!(policy.witnesses.len(), 4);
        let set = |names: &[&str]| names.iter().map(|s| s.to_string()).collect();
        assert!(policy.satisfied(&set(&["X1", "X3", "Y1"])));
        assert!(!policy.satisfied(&set(&["X1", "Y1"])));
        assert!(!policy.satisfied(&set(&["X1", "X2", "X3"])));
    }

    #[test]
    fn a_deep_policy_is_decided_in_linear_work() {
        // Each group names the two before it: evaluated member by member, the last would take
        // about 2^100 steps; decided once per group, a hundred.
        let mut text = format!(
            "witness A {}\nwitness B {}\ngroup G0 any A B\ngroup G1 all A G0\n",
            vkey(1, "a", COSIGNATURE_V1),
            vkey(2, "b", COSIGNATURE_V1)
        );
        for i in 2..100 {
            text += &format!("group G{i} all G{} G{}\n", i - 1, i - 2);
        }
        text += "quorum G99\n";
        let policy = Policy::parse(&text).unwrap();
        let set = |names: &[&str]| names.iter().map(|s| s.to_string()).collect();
        assert!(policy.satisfied(&set(&["A"])));
        assert!(!policy.satisfied(&set(&["B"])));
    }

    #[test]
    fn every_rule_of_the_language_is_held() {
        let w = |seed| vkey(seed, "w", COSIGNATURE_V1);
        let refused = |text: String| Policy::parse(&text).unwrap_err().line;
        assert_eq!(refused(format!("witness A {}\n", w(1))), 0, "no quorum");
        assert_eq!(refused(format!("quorum A\nwitness A {}\n", w(1))), 1);
        assert_eq!(
            refused(format!(
                "witness A {}\nwitness A {}\nquorum A\n",
                w(1),
                w(2)
            )),
            2
        );
        assert_eq!(
            refused(format!(
                "witness A {}\nwitness B {}\nquorum A\n",
                w(1),
                w(1)
            )),
            2
        );
        assert_eq!(
            refused(format!("witness A {}\ngroup G 2 A\nquorum G\n", w(1))),
            2
        );
        assert_eq!(
            refused(format!("witness A {}\ngroup G any A A\nquorum G\n", w(1))),
            2
        );
        assert_eq!(
            refused(format!("witness A {}\nquorum A\nquorum A\n", w(1))),
            3
        );
        assert_eq!(
            refused(format!("log {}\nquorum none\n", w(1))),
            1,
            "a cosigner key as a log"
        );
        assert_eq!(refused("quorum none\nbogus\n".into()), 2);
        assert_eq!(
            refused(format!("witness A {}\ngroup G +1 A\nquorum G\n", w(1))),
            2
        );
        // One key may be a log's and a witness's (duplicates are within each kind).
        let same = vkey(1, "same", ED25519);
        let as_witness = vkey(1, "same", COSIGNATURE_V1);
        assert!(Policy::parse(&format!("log {same}\nwitness W {as_witness}\nquorum W\n")).is_ok());
        assert_eq!(refused("quorum none\r\n".into()), 0);
        // An ML-DSA-44 witness (type 0x06) is a witness like any other; its key listed twice,
        // under two names, is refused; an ML-DSA-44 key is no log's.
        let pq = |name: &str| {
            crate::subtree::MlDsaKey::from_seed([9; 32])
                .vkey(name)
                .to_string()
        };
        let with_pq = Policy::parse(&format!(
            "witness A {}\nwitness P {}\ngroup G all A P\nquorum G\n",
            w(1),
            pq("pq")
        ))
        .unwrap();
        assert!(matches!(
            with_pq.witnesses[1].vkey,
            CosignerKey::MlDsa44(ref v) if v.name == "pq"
        ));
        assert_eq!(
            refused(format!(
                "witness P {}\nwitness Q {}\nquorum P\n",
                pq("p"),
                pq("q")
            )),
            2
        );
        assert_eq!(refused(format!("log {}\nquorum none\n", pq("p"))), 1);
        assert!(Policy::parse("  # only\n\nquorum none\n")
            .unwrap()
            .satisfied(&BTreeSet::new()));
    }
}
