//! Who may call the service: principals, their credentials (a bearer token kept only as its
//! SHA-256, or a client certificate's subject), their roles and scopes, read from an access file
//! (`file.rs`), and what each RPC needs (`roles.rs`).
//!
//! [`Access`] holds the file in force and swaps it whole on a reload, so that a removed credential
//! is refused from the next call. [`bootstrap`] makes the local administrator of a new data
//! directory. Nothing here sees a request: the transport's layer (`service/auth.rs`) asks
//! [`Access::by_token`] and [`Access::by_subject`], and handlers read the [`Caller`].

mod file;
mod roles;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

pub use file::{token_sha256, AccessFile, AccessFileError, Principal, MAX_FILE_BYTES};
pub use roles::{need, writes_log, Need, Role, LOG_WRITERS, METHODS};

/// The authenticated principal of a call, put in the request's extensions by the transport.
#[derive(Clone, Debug)]
pub struct Caller(pub Arc<Principal>);

/// The access file's name in a data directory.
pub const ACCESS_FILE: &str = "access.toml";
/// The local administrator's token file's name in a data directory (mode 0600).
pub const ADMIN_TOKEN_FILE: &str = "admin.token";
/// The local administrator's principal id.
pub const LOCAL_ADMIN: &str = "local-admin";

/// The principals in force, looked up by credential.
#[derive(Debug, Default)]
struct Registry {
    by_token: HashMap<[u8; 32], Arc<Principal>>,
    by_subject: HashMap<String, Arc<Principal>>,
    by_id: HashMap<String, Arc<Principal>>,
    sha256: [u8; 32],
}

impl Registry {
    fn from(file: AccessFile) -> Registry {
        let mut registry = Registry {
            sha256: file.sha256,
            ..Registry::default()
        };
        for principal in file.principals {
            let principal = Arc::new(principal);
            if let Some(hash) = principal.token_sha256 {
                registry.by_token.insert(hash, principal.clone());
            }
            if let Some(subject) = &principal.certificate_subject {
                registry
                    .by_subject
                    .insert(subject.clone(), principal.clone());
            }
            registry.by_id.insert(principal.id.clone(), principal);
        }
        registry
    }
}

/// What a reload changed, by principal id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AccessChange {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    /// Principals whose credentials, roles or scopes changed.
    pub changed: Vec<String>,
    /// SHA-256 of the file now in force.
    pub sha256: [u8; 32],
}

impl AccessChange {
    /// Whether anything changed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

/// The access in force, read from a file and reloaded from it.
#[derive(Debug)]
pub struct Access {
    path: PathBuf,
    current: RwLock<Arc<Registry>>,
}

impl Access {
    /// Reads the access file at `path`. Returns the access and what it holds (everything added).
    pub fn load(path: &Path) -> Result<(Access, AccessChange), AccessFileError> {
        let access = Access {
            path: path.to_path_buf(),
            current: RwLock::new(Arc::new(Registry::default())),
        };
        let change = access.reload()?;
        Ok((access, change))
    }

    /// Reads the file again and puts it in force whole; on any problem the access in force stays.
    pub fn reload(&self) -> Result<AccessChange, AccessFileError> {
        let next = Registry::from(AccessFile::read(&self.path)?);
        let mut current = self.current.write().unwrap_or_else(PoisonError::into_inner);
        let mut change = AccessChange {
            sha256: next.sha256,
            ..AccessChange::default()
        };
        for (id, principal) in &next.by_id {
            match current.by_id.get(id) {
                None => change.added.push(id.clone()),
                Some(before) if before != principal => change.changed.push(id.clone()),
                Some(_) => {}
            }
        }
        change.removed = current
            .by_id
            .keys()
            .filter(|id| !next.by_id.contains_key(*id))
            .cloned()
            .collect();
        change.added.sort();
        change.removed.sort();
        change.changed.sort();
        *current = Arc::new(next);
        Ok(change)
    }

    fn registry(&self) -> Arc<Registry> {
        self.current
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The principal whose token this is.
    pub fn by_token(&self, token: &str) -> Option<Arc<Principal>> {
        self.registry().by_token.get(&token_sha256(token)).cloned()
    }

    /// The principal whose client certificate has this subject.
    pub fn by_subject(&self, subject: &str) -> Option<Arc<Principal>> {
        self.registry().by_subject.get(subject).cloned()
    }

    /// The file this access is read from.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// What [`bootstrap`] did.
#[derive(Debug, PartialEq, Eq)]
pub enum Bootstrap {
    /// The access file was there already.
    Present,
    /// It was made, with the local administrator's token in this file.
    Created { token_file: PathBuf },
}

/// Makes a data directory's access file when there is none: one principal, [`LOCAL_ADMIN`], with
/// every role and a fresh random token written to [`ADMIN_TOKEN_FILE`] (mode 0600, created new:
/// an existing token file is never overwritten). The access file holds only the token's SHA-256.
pub fn bootstrap(data: &Path) -> std::io::Result<Bootstrap> {
    let access = data.join(ACCESS_FILE);
    if access.exists() {
        return Ok(Bootstrap::Present);
    }
    std::fs::create_dir_all(data)?;
    let token_file = data.join(ADMIN_TOKEN_FILE);
    if token_file.exists() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            format!(
                "{} exists but {ACCESS_FILE} does not: restore {ACCESS_FILE}, or move the token \
                 file away to make a new local administrator",
                token_file.display()
            ),
        ));
    }
    let mut secret = [0u8; 32];
    getrandom::fill(&mut secret).map_err(|e| std::io::Error::other(e.to_string()))?;
    let token = format!("pb_{}", hex::encode(secret));
    write_new_private(&token_file, format!("{token}\n").as_bytes())?;
    let roles: Vec<String> = Role::ALL
        .iter()
        .map(|r| format!("\"{}\"", r.id()))
        .collect();
    let text = format!(
        "# pitboss access file: who may call the service (docs/security.md, docs/access.example.toml).\n\
         # Made on first start for the local administrator, whose token is in {ADMIN_TOKEN_FILE}\n\
         # (only its SHA-256 is here). Edit, then reload: SIGHUP, or the ReloadAccess RPC.\n\n\
         [[principal]]\n\
         id = \"{LOCAL_ADMIN}\"\n\
         token_sha256 = \"{}\"\n\
         roles = [{}]\n",
        hex::encode(token_sha256(&token)),
        roles.join(", ")
    );
    write_new_private(&access, text.as_bytes())?;
    Ok(Bootstrap::Created { token_file })
}

/// Creates `path` (it must not exist) readable and writable by its owner only, and syncs it.
fn write_new_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A new data directory gets a token file only its owner can read and an access file that
    /// knows the token by its hash alone; a second start changes nothing.
    #[test]
    fn bootstrap_makes_a_private_token_and_an_access_file_with_its_hash() {
        let dir = tempfile::tempdir().unwrap();
        let Bootstrap::Created { token_file } = bootstrap(dir.path()).unwrap() else {
            panic!("not created");
        };
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&token_file).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let token = std::fs::read_to_string(&token_file).unwrap();
        let token = token.trim();
        let text = std::fs::read_to_string(dir.path().join(ACCESS_FILE)).unwrap();
        assert!(
            !text.contains(token),
            "the access file holds the token itself"
        );
        let (access, change) = Access::load(&dir.path().join(ACCESS_FILE)).unwrap();
        assert_eq!(change.added, vec![LOCAL_ADMIN.to_string()]);
        let admin = access.by_token(token).expect("the token names the admin");
        assert!(Role::ALL.iter().all(|r| admin.has(*r)) && admin.unscoped());
        assert!(access.by_token("pb_wrong").is_none());
        assert_eq!(bootstrap(dir.path()).unwrap(), Bootstrap::Present);
        assert_eq!(std::fs::read_to_string(&token_file).unwrap().trim(), token);
        // An access file lost beside its token: refused, the token file never overwritten.
        std::fs::remove_file(dir.path().join(ACCESS_FILE)).unwrap();
        let e = bootstrap(dir.path()).unwrap_err();
        assert!(
            e.to_string().contains("exists but access.toml does not"),
            "{e}"
        );
        assert_eq!(std::fs::read_to_string(&token_file).unwrap().trim(), token);
    }

    /// A reload puts the new file in force whole: a removed principal's token is refused at once;
    /// a file with a mistake leaves the access in force as it was.
    #[test]
    fn a_reload_revokes_at_once_and_a_bad_file_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(ACCESS_FILE);
        let line = |id: &str, token: &str| {
            format!(
                "[[principal]]\nid = \"{id}\"\ntoken_sha256 = \"{}\"\nroles = [\"lab\"]\n",
                hex::encode(token_sha256(token))
            )
        };
        std::fs::write(&path, line("a", "ta") + &line("b", "tb")).unwrap();
        let (access, _) = Access::load(&path).unwrap();
        assert!(access.by_token("tb").is_some());
        std::fs::write(
            &path,
            line("a", "ta2") + &line("c", "tc").replace("lab", "regulator"),
        )
        .unwrap();
        let change = access.reload().unwrap();
        assert_eq!(change.added, vec!["c".to_string()]);
        assert_eq!(change.removed, vec!["b".to_string()]);
        assert_eq!(change.changed, vec!["a".to_string()]);
        assert!(
            access.by_token("tb").is_none(),
            "a removed token still works"
        );
        assert!(
            access.by_token("ta").is_none(),
            "a replaced token still works"
        );
        assert!(access.by_token("ta2").is_some());
        std::fs::write(&path, "[[principal]]\nid = \"broken\"\n").unwrap();
        assert!(access.reload().is_err());
        assert!(
            access.by_token("tc").is_some(),
            "a bad file changed the access"
        );
    }
}
