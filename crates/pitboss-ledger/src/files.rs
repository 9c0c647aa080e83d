//! Small files replaced whole (a mirror's marker and held checkpoint, a server's cosigned
//! checkpoint): a temporary file written
//! and synced, renamed over the old one, the directory synced — after a crash the file holds the
//! old bytes or the new, never a mix, and a replacement that returned is on disk.

use std::fs::File;
use std::io::Write;
use std::path::Path;

/// Replaces `path` with `bytes`, durably.
pub fn replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp");
    let mut file = File::create(&tmp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&tmp, path)?;
    if let Some(parent) = path.parent() {
        File::open(parent)?.sync_all()?;
    }
    Ok(())
}
