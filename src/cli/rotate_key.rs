//! `pitboss rotate-key --data DIR`: replaces the log's signing key (the server stopped). The new
//! key is published by a `KeyRotated` entry signed by the new key and carrying the old key's
//! signature over it; the old key moves to `retired-keys/` and never signs again. The directory is
//! checked first, as a server would check it.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use pitboss_ledger::Ledger;

#[derive(Debug, Args)]
pub struct RotateKeyArgs {
    /// The data directory (its server stopped: a running server holds it locked).
    #[arg(long)]
    data: PathBuf,
}

pub fn run(args: RotateKeyArgs) -> anyhow::Result<()> {
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let ledger = Ledger::open_checked(&args.data, now_ms, pitboss::codec::check_payload)
        .with_context(|| format!("cannot open {}", args.data.display()))?;
    let old = ledger.key_id().context("the ledger has no key")?;
    let new = ledger
        .rotate_key_blocking(now_ms, "local:rotate-key")
        .context("the rotation failed")?;
    let (sequence, _) = ledger.head()?.context("the log is empty")?;
    let public = ledger
        .public_key(new)?
        .context("the new key is not in the log")?;
    ledger.close();
    println!(
        "rotated: entry {sequence} publishes key {new}, signed by it and by the old key {old}"
    );
    println!("new public key: {}", hex::encode(public));
    println!(
        "the old key is kept in {}/retired-keys/{old}.key and signs nothing again",
        args.data.display()
    );
    Ok(())
}
