//! The software that runs: the SHA-256 of the server's own executable — the bytes of
//! the running process's file, read through `/proc/self/exe` on Linux, so an executable replaced
//! on disk after the start is not the one hashed — its HMAC-SHA256 under a caller's challenge
//! (`Operations.AuthenticateSoftware`), its version and its build's identity; and the check of
//! `pitboss.toml`'s approved hashes before a server starts (`docs/attestation.md`).
//!
//! Owns reading the executable (in bounded chunks, one pass for the hash and the HMAC). MUST NOT
//! hold the executable in memory, nor take the challenge for anything but the HMAC's key.

use std::io::Read;

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

/// The release.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The build's identity: the source commit and the compiler (from `build.rs`).
pub const BUILD: &str = env!("PITBOSS_BUILD");

/// A challenge's length: at least 16 bytes (a fresh random value), at most 64 (HMAC-SHA256's block).
pub const CHALLENGE_LEN: std::ops::RangeInclusive<usize> = 16..=64;

/// What the running executable is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Identity {
    /// SHA-256 of its bytes.
    pub sha256: [u8; 32],
}

/// The running process's executable file.
fn executable() -> std::io::Result<std::fs::File> {
    if cfg!(target_os = "linux") {
        std::fs::File::open("/proc/self/exe")
    } else {
        std::fs::File::open(std::env::current_exe()?)
    }
}

/// Reads the executable once, feeding every chunk to `feed`.
fn read_executable(mut feed: impl FnMut(&[u8])) -> std::io::Result<()> {
    let mut file = executable()?;
    let mut chunk = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut chunk)?;
        if n == 0 {
            return Ok(());
        }
        feed(&chunk[..n]);
    }
}

/// The running executable's SHA-256.
pub fn identify() -> std::io::Result<Identity> {
    let mut hash = Sha256::new();
    read_executable(|chunk| hash.update(chunk))?;
    Ok(Identity {
        sha256: hash.finalize().into(),
    })
}

/// HMAC-SHA256 keyed by `challenge` over the running executable, and its identity (one read).
pub fn authenticate(challenge: &[u8]) -> std::io::Result<([u8; 32], Identity)> {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(challenge)
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    let mut hash = Sha256::new();
    read_executable(|chunk| {
        mac.update(chunk);
        hash.update(chunk);
    })?;
    Ok((
        mac.finalize().into_bytes().into(),
        Identity {
            sha256: hash.finalize().into(),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hash is the executable's file hashed by another path (the test binary's own), and the
    /// HMAC is RFC 4231's construction (checked against test case 2's published value through the
    /// same crate, then against the file).
    #[test]
    fn the_executable_is_hashed_as_its_file() {
        let file = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        assert_eq!(
            identify().unwrap().sha256,
            <[u8; 32]>::from(Sha256::digest(&file))
        );
        let mut rfc = <Hmac<Sha256> as Mac>::new_from_slice(b"Jefe").unwrap();
        rfc.update(b"what do ya want for nothing?");
        assert_eq!(
            hex::encode(rfc.finalize().into_bytes()),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        let (answer, identity) = authenticate(&[7; 16]).unwrap();
        let mut expected = <Hmac<Sha256> as Mac>::new_from_slice(&[7; 16]).unwrap();
        expected.update(&file);
        assert_eq!(answer, <[u8; 32]>::from(expected.finalize().into_bytes()));
        assert_eq!(identity.sha256, <[u8; 32]>::from(Sha256::digest(&file)));
    }
}
