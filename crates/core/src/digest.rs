//! Digests as the station writes them: SHA-256 as lowercase hex.
//!
//! One helper for lexicon manifests, the lexicon's pinned identities and the
//! audit chain, so the same bytes always print as the same text everywhere.

use sha2::{Digest, Sha256};

/// SHA-256 of `bytes` as lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Bytes as lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// A reader that hashes what passes through it: a file's SHA-256 taken
/// while it is parsed, with no second read and no whole copy in memory.
pub struct HashingReader<R> {
    inner: R,
    hasher: Sha256,
}

impl<R: std::io::Read> HashingReader<R> {
    pub fn new(inner: R) -> HashingReader<R> {
        HashingReader { inner, hasher: Sha256::new() }
    }
    /// The SHA-256 of every byte read so far, as lowercase hex.
    pub fn sha256_hex(self) -> String {
        hex(&self.hasher.finalize())
    }
}

impl<R: std::io::Read> std::io::Read for HashingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn sha256_of_abc_is_the_fips_vector() {
        assert_eq!(super::sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
