//! The access file: who may call the service, read from TOML and checked whole before it is used.
//!
//! Owns the file's format (`docs/access.example.toml` is the documented example) and its limits; a
//! file with any problem is refused naming the principal and the field, and the access in force
//! stays as it was. Knows nothing of requests or the transport.

use std::collections::BTreeSet;

use serde::Deserialize;
use sha2::{Digest, Sha256};

use super::roles::Role;
use pitboss_engine::game::GameId;

/// The largest access file read (bytes).
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// The most principals in one file.
pub const MAX_PRINCIPALS: usize = 10_000;
/// The most tables in one principal's scope.
pub const MAX_TABLES: usize = 1_024;
/// The longest principal id, certificate subject or table name (characters).
pub const MAX_NAME_CHARS: usize = 200;

/// The file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileText {
    #[serde(default)]
    principal: Vec<PrincipalText>,
}

/// One `[[principal]]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PrincipalText {
    id: String,
    /// SHA-256 of the bearer token, 64 hexadecimal digits: the token itself is never stored.
    #[serde(default)]
    token_sha256: Option<String>,
    /// The subject of its client certificate, as RFC 4514 prints it (`CN=table-7,O=Casino`).
    #[serde(default)]
    certificate_subject: Option<String>,
    roles: Vec<Role>,
    /// Absent: every table.
    #[serde(default)]
    tables: Option<Vec<String>>,
    /// Absent: every game.
    #[serde(default)]
    games: Option<Vec<GameId>>,
}

/// A principal: who a credential says the caller is, and what it may reach.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Principal {
    /// Its id, recorded as the actor of every event its calls write.
    pub id: String,
    /// SHA-256 of its bearer token.
    pub token_sha256: Option<[u8; 32]>,
    /// Its client certificate's subject.
    pub certificate_subject: Option<String>,
    /// Its roles.
    pub roles: BTreeSet<Role>,
    /// The tables it reaches (`None`: every table).
    pub tables: Option<BTreeSet<String>>,
    /// The games it reaches (`None`: every game).
    pub games: Option<BTreeSet<GameId>>,
}

impl Principal {
    /// Whether it holds `role`.
    pub fn has(&self, role: Role) -> bool {
        self.roles.contains(&role)
    }

    /// Whether it reaches `table`.
    pub fn reaches_table(&self, table: &str) -> bool {
        self.tables.as_ref().is_none_or(|t| t.contains(table))
    }

    /// Whether it reaches `game`.
    pub fn reaches_game(&self, game: GameId) -> bool {
        self.games.as_ref().is_none_or(|g| g.contains(&game))
    }

    /// Whether it reaches every table and game (what reading the whole log needs).
    pub fn unscoped(&self) -> bool {
        self.tables.is_none() && self.games.is_none()
    }
}

/// Why an access file was refused.
#[derive(Debug, thiserror::Error)]
pub enum AccessFileError {
    #[error("cannot read the access file {path}: {source}")]
    Read {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("the access file has {bytes} bytes, more than the {max} allowed")]
    TooLarge { bytes: u64, max: u64 },
    #[error("the access file is not valid TOML for pitboss: {0}")]
    Syntax(String),
    #[error("the access file has {count} principals, more than the {max} allowed")]
    TooManyPrincipals { count: usize, max: usize },
    #[error("principal[{index}].{field}: {problem}")]
    Field {
        /// The principal's place in the file, from 0.
        index: usize,
        /// The field, as the file names it.
        field: &'static str,
        problem: String,
    },
}

/// An access file, parsed and checked.
#[derive(Clone, Debug)]
pub struct AccessFile {
    /// The principals, in the file's order.
    pub principals: Vec<Principal>,
    /// SHA-256 of the file's bytes.
    pub sha256: [u8; 32],
}

/// A principal id: 1 to 200 characters of letters, digits and `.-_@:`.
fn id_problem(id: &str) -> Option<String> {
    if id.is_empty() || id.chars().count() > MAX_NAME_CHARS {
        return Some(format!("1 to {MAX_NAME_CHARS} characters"));
    }
    if !id
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || ".-_@:".contains(c))
    {
        return Some("letters, digits and . - _ @ : only".into());
    }
    // The server's own actors: no principal may sign entries as the server or a local tool.
    if id == pitboss_ledger::SERVER_ACTOR || id.starts_with("local:") {
        return Some(format!(
            "`{}` and ids starting with `local:` are the server's own actors",
            pitboss_ledger::SERVER_ACTOR
        ));
    }
    None
}

/// A name (a table, a certificate subject): 1 to 200 characters, none a control character.
fn name_problem(name: &str) -> Option<String> {
    if name.trim().is_empty() || name.chars().count() > MAX_NAME_CHARS {
        return Some(format!("1 to {MAX_NAME_CHARS} characters"));
    }
    if name.chars().any(char::is_control) {
        return Some("no control characters".into());
    }
    None
}

impl AccessFile {
    /// Parses and checks an access file's bytes: every id unique, every principal with a
    /// credential and a role, every token hash and certificate subject naming one principal.
    pub fn parse(bytes: &[u8]) -> Result<AccessFile, AccessFileError> {
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(AccessFileError::TooLarge {
                bytes: bytes.len() as u64,
                max: MAX_FILE_BYTES,
            });
        }
        let text = std::str::from_utf8(bytes)
            .map_err(|e| AccessFileError::Syntax(format!("not UTF-8: {e}")))?;
        let file: FileText =
            toml::from_str(text).map_err(|e| AccessFileError::Syntax(e.message().to_string()))?;
        if file.principal.len() > MAX_PRINCIPALS {
            return Err(AccessFileError::TooManyPrincipals {
                count: file.principal.len(),
                max: MAX_PRINCIPALS,
            });
        }
        let mut ids = BTreeSet::new();
        let mut tokens = BTreeSet::new();
        let mut subjects = BTreeSet::new();
        let mut principals = Vec::with_capacity(file.principal.len());
        for (index, p) in file.principal.into_iter().enumerate() {
            let field = |field, problem: String| AccessFileError::Field {
                index,
                field,
                problem,
            };
            if let Some(problem) = id_problem(&p.id) {
                return Err(field("id", problem));
            }
            if !ids.insert(p.id.clone()) {
                return Err(field("id", format!("`{}` is used twice", p.id)));
            }
            let token_sha256 = match &p.token_sha256 {
                None => None,
                Some(hex_text) => {
                    let mut hash = [0u8; 32];
                    hex::decode_to_slice(hex_text, &mut hash).map_err(|_| {
                        field("token_sha256", "64 hexadecimal digits (SHA-256)".into())
                    })?;
                    if !tokens.insert(hash) {
                        return Err(field("token_sha256", "names a second principal".into()));
                    }
                    Some(hash)
                }
            };
            if let Some(subject) = &p.certificate_subject {
                if let Some(problem) = name_problem(subject) {
                    return Err(field("certificate_subject", problem));
                }
                if !subjects.insert(subject.clone()) {
                    return Err(field(
                        "certificate_subject",
                        "names a second principal".into(),
                    ));
                }
            }
            if token_sha256.is_none() && p.certificate_subject.is_none() {
                return Err(field(
                    "token_sha256",
                    "a principal needs a credential: token_sha256, certificate_subject or both"
                        .into(),
                ));
            }
            if p.roles.is_empty() {
                return Err(field("roles", "at least one role".into()));
            }
            let tables = match p.tables {
                None => None,
                Some(tables) => {
                    if tables.is_empty() || tables.len() > MAX_TABLES {
                        return Err(field(
                            "tables",
                            format!("1 to {MAX_TABLES} tables (leave it out for every table)"),
                        ));
                    }
                    if let Some(problem) = tables.iter().find_map(|t| name_problem(t)) {
                        return Err(field("tables", problem));
                    }
                    Some(tables.into_iter().collect())
                }
            };
            let games = match p.games {
                None => None,
                Some(games) if games.is_empty() => {
                    return Err(field(
                        "games",
                        "at least one game (leave it out for every game)".into(),
                    ))
                }
                Some(games) => Some(games.into_iter().collect()),
            };
            principals.push(Principal {
                id: p.id,
                token_sha256,
                certificate_subject: p.certificate_subject,
                roles: p.roles.into_iter().collect(),
                tables,
                games,
            });
        }
        Ok(AccessFile {
            principals,
            sha256: Sha256::digest(bytes).into(),
        })
    }

    /// Reads and parses the file at `path` (at most [`MAX_FILE_BYTES`] are read).
    pub fn read(path: &std::path::Path) -> Result<AccessFile, AccessFileError> {
        use std::io::Read;
        let read = |source| AccessFileError::Read {
            path: path.to_path_buf(),
            source,
        };
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .map_err(read)?
            .take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(read)?;
        AccessFile::parse(&bytes)
    }
}

/// SHA-256 of a bearer token: what the access file stores, and what a presented token is looked up
/// by (so a lookup's time says nothing of the stored tokens).
pub fn token_sha256(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
[[principal]]
id = "alice"
token_sha256 = "0000000000000000000000000000000000000000000000000000000000000001"
roles = ["supervisor", "regulator"]
tables = ["T1"]

[[principal]]
id = "table-7"
certificate_subject = "CN=table-7,O=Casino"
roles = ["game_client"]
games = ["nutz"]
"#;

    #[test]
    fn a_good_file_reads() {
        let file = AccessFile::parse(GOOD.as_bytes()).unwrap();
        assert_eq!(file.principals.len(), 2);
        let alice = &file.principals[0];
        assert!(alice.has(Role::Supervisor) && !alice.has(Role::GameClient));
        assert!(alice.reaches_table("T1") && !alice.reaches_table("T2"));
        assert!(alice.reaches_game(GameId::Nutz));
        let table = &file.principals[1];
        assert!(table.reaches_table("any") && !table.reaches_game(GameId::CaribbeanStud));
        assert!(!table.unscoped());
    }

    /// Each mistake is refused naming the principal's place and its field.
    #[test]
    fn every_mistake_names_its_principal_and_field() {
        let cases: [(&str, &str); 11] = [
            (
                r#"[[principal]]
id = "pitboss"
certificate_subject = "CN=a"
roles = ["lab"]"#,
                "principal[0].id: `pitboss`",
            ),
            (
                r#"[[principal]]
id = "local:signal"
certificate_subject = "CN=a"
roles = ["lab"]"#,
                "principal[0].id",
            ),
            (
                r#"[[principal]]
id = "a b"
token_sha256 = "00"
roles = ["lab"]"#,
                "principal[0].id",
            ),
            (
                r#"[[principal]]
id = "a"
token_sha256 = "00"
roles = ["lab"]"#,
                "principal[0].token_sha256",
            ),
            (
                r#"[[principal]]
id = "a"
roles = ["lab"]"#,
                "principal[0].token_sha256: a principal needs a credential",
            ),
            (
                r#"[[principal]]
id = "a"
certificate_subject = "CN=a"
roles = []"#,
                "principal[0].roles",
            ),
            (
                r#"[[principal]]
id = "a"
certificate_subject = "CN=a"
roles = ["lab"]
[[principal]]
id = "a"
certificate_subject = "CN=b"
roles = ["lab"]"#,
                "principal[1].id: `a` is used twice",
            ),
            (
                r#"[[principal]]
id = "a"
certificate_subject = "CN=a"
roles = ["lab"]
[[principal]]
id = "b"
certificate_subject = "CN=a"
roles = ["lab"]"#,
                "principal[1].certificate_subject",
            ),
            (
                r#"[[principal]]
id = "a"
certificate_subject = "CN=a"
roles = ["lab"]
tables = []"#,
                "principal[0].tables",
            ),
            (
                r#"[[principal]]
id = "a"
certificate_subject = "CN=a"
roles = ["croupier"]"#,
                "not valid TOML for pitboss",
            ),
            (
                r#"[[principal]]
id = "a"
certificate_subject = "CN=a"
roles = ["lab"]
password = "x""#,
                "not valid TOML for pitboss",
            ),
        ];
        for (text, want) in cases {
            let e = AccessFile::parse(text.as_bytes()).unwrap_err().to_string();
            assert!(e.contains(want), "{e:?} should contain {want:?}");
        }
    }

    /// The documented example is a valid access file.
    #[test]
    fn the_documented_example_reads() {
        let text = include_str!("../../../../docs/access.example.toml");
        let file = AccessFile::parse(text.as_bytes()).unwrap();
        assert_eq!(file.principals.len(), 8);
        assert!(file.principals.iter().any(|p| p.has(Role::KeyAdmin)));
    }

    #[test]
    fn a_file_too_large_is_refused_before_parsing() {
        let big = vec![b'#'; MAX_FILE_BYTES as usize + 1];
        assert!(matches!(
            AccessFile::parse(&big),
            Err(AccessFileError::TooLarge { .. })
        ));
    }
}
