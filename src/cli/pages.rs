//! The pages the CLI writes (`pitboss report events`, `pitboss certify`): a new file, never over
//! an existing one; and a page printed to PDF by headless Chromium (Debian's `chromium`), with the
//! flags a closed network needs and a fresh profile each time (the pages' print stylesheet sets
//! A4 and Letter).

use std::path::Path;

use anyhow::Context;

/// Prints `html` to the new file `out` (never over an existing one) with `chromium`.
pub fn print_pdf(html: &str, out: &Path, chromium: &str) -> anyhow::Result<()> {
    if out.exists() {
        anyhow::bail!("{} exists: refusing to overwrite it", out.display());
    }
    let work = tempfile::tempdir()?;
    let page = work.path().join("page.html");
    std::fs::write(&page, html)?;
    let target = std::path::absolute(out)?;
    let ran = std::process::Command::new(chromium)
        .args(pitboss_packet::CHROMIUM_FLAGS)
        .arg(format!(
            "--user-data-dir={}",
            work.path().join("profile").display()
        ))
        .arg(format!("--print-to-pdf={}", target.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .with_context(|| format!("cannot run {chromium} (Debian's chromium) to print the PDF"))?;
    if !ran.status.success() || !target.exists() {
        anyhow::bail!(
            "{chromium} did not print the PDF: {}",
            String::from_utf8_lossy(&ran.stderr)
        );
    }
    Ok(())
}

/// Writes a new file (never over an existing one).
pub fn write_new(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    use std::io::Write;
    let mut file = match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
    {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            anyhow::bail!("{} exists: refusing to overwrite it", path.display())
        }
        opened => opened.with_context(|| format!("cannot create {}", path.display()))?,
    };
    file.write_all(bytes)?;
    file.sync_all()?;
    Ok(())
}
