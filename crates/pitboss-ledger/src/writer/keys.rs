//! Key entries staged in a group: a rotation (`KeyRotated`, signed by the new key, carrying the
//! old key's signature over it; the new key written beside the old one first) and the first key's
//! publication, and the files a rotation leaves once it is durable. Owns the key's files during a
//! rotation; the group's signing is `mod.rs`'s.

use std::sync::Arc;

use prost::Message;

use super::super::keys::{Keypair, KEY_FILE, RETIRED_DIR};
use super::super::store::cf;
use super::super::{proto, Expected, LedgerError};
use super::{AppendRequest, Group, Writer, CURRENT_KEY};

impl Writer {
    /// Stages a `KeyRotated` entry signed by a new key, with the old key's signature inside, and
    /// writes the new key to `signing.key.next` first, so a crash in between loses nothing.
    pub(super) fn stage_rotation(
        &mut self,
        at: u64,
        actor: &str,
        group: &mut Group,
        old: &Arc<Keypair>,
    ) -> Result<Arc<Keypair>, LedgerError> {
        let next = Arc::new(Keypair::generate()?);
        next.write_to(&self.key_dir.join(format!("{KEY_FILE}.next")))?;
        let rotated = proto::LedgerKind::KeyRotated(proto::KeyRotated {
            old_key_id: old.id().0.to_vec(),
            new_key_id: next.id().0.to_vec(),
            new_public_key: next.public().as_bytes().to_vec(),
            old_key_signature: old.sign_successor(&next).to_vec(),
        });
        self.stage_key_entry(at, actor, group, &next, rotated, Expected::Version(0))?;
        Ok(next)
    }

    /// Stages the `KeyPublished` entry of the current key, signed by itself.
    pub(super) fn stage_publish(
        &mut self,
        at: u64,
        group: &mut Group,
        key: &Arc<Keypair>,
    ) -> Result<(), LedgerError> {
        // Only entry 0 publishes a key: every later key is a rotation signed by a trusted one. Two
        // servers starting on one empty database both ask; the second finds the log begun.
        if group.sequence != 0 {
            // Another server with the same key file published it first: nothing to do.
            if self.stored_record(cf::KEYS, &key.id().0)?.as_deref()
                == Some(key.public().as_bytes().as_slice())
            {
                return Ok(());
            }
            return Err(LedgerError::KeyNotTrusted {
                entries: group.sequence,
                ours: key.id(),
            });
        }
        let published = proto::LedgerKind::KeyPublished(proto::KeyPublished {
            key_id: key.id().0.to_vec(),
            public_key: key.public().as_bytes().to_vec(),
        });
        self.stage_key_entry(
            at,
            super::super::SERVER_ACTOR,
            group,
            key,
            published,
            Expected::Any,
        )
    }

    /// Stages a key's entry in its stream `key/<id>`, signed by that key, and records the public
    /// key in the `keys` family in the same batch.
    pub(super) fn stage_key_entry(
        &mut self,
        at: u64,
        actor: &str,
        group: &mut Group,
        key: &Arc<Keypair>,
        kind: proto::LedgerKind,
        expected: Expected,
    ) -> Result<(), LedgerError> {
        let request = AppendRequest::entries(
            format!("key/{}", key.id()),
            expected,
            vec![proto::LedgerPayload { kind: Some(kind) }.encode_to_vec()],
            at,
            actor,
        );
        self.stage(&request, group, key)?;
        // A key entry is signed by its own key, always: it is what establishes that key.
        if let Some(entry) = group.pending.last_mut() {
            entry.sealed = true;
        }
        group
            .batch
            .put(cf::KEYS, key.id().0, key.public().as_bytes().to_vec());
        // The key signing from now on, for the other servers of a shared log to compare theirs to.
        group.batch.put(cf::META, CURRENT_KEY, key.id().0);
        Ok(())
    }
}

/// Replaces the key file with the new key (`signing.key.next`, written before the rotation entry)
/// and keeps the old one, if there is one, under `retired-keys/`; syncs the directory.
pub(crate) fn finish_rotation(
    dir: &std::path::Path,
    old: Option<&Keypair>,
) -> Result<(), crate::keys::KeyError> {
    let at = |path: std::path::PathBuf| {
        move |source: std::io::Error| crate::keys::KeyError::Io { path, source }
    };
    if let Some(old) = old {
        let retired = dir.join(RETIRED_DIR);
        std::fs::create_dir_all(&retired).map_err(at(retired.clone()))?;
        old.write_to(&retired.join(format!("{}.key", old.id())))?;
    }
    let file = dir.join(KEY_FILE);
    std::fs::rename(dir.join(format!("{KEY_FILE}.next")), &file).map_err(at(file))?;
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(at(dir.to_path_buf()))
}
