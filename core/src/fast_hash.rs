//! The core's hashes for its tables.
//!
//! [`FastHash`] is fast and deterministic: the same hashes on every target skillwire builds
//! for (all little-endian), so a table filled in the same order on one target iterates in
//! the same order in every process — which the ranking index's word tables need, since a
//! snapshot writes them in that order. It is not flood-resistant: use it for the
//! catalogue's words and terms, and for numbers the core itself hands out.
//!
//! [`SeededMap`] is for tables keyed by what hosts and skill authors write (locations,
//! stamps, names, descriptions): as fast, but natively seeded per process (foldhash), so
//! that a catalogue crafted for its keys to collide cannot make filling a table quadratic.
//! No such table's order reaches what the core returns or writes.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The multiply-rotate step of rustc's FxHash, over eight bytes at a time.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct FastHasher(u64);

impl FastHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        // Eight bytes at a time, little-endian; the last chunk padded with zeros.
        let mut chunks = bytes.chunks_exact(8);
        for chunk in chunks.by_ref() {
            self.add(u64::from_le_bytes(chunk.try_into().unwrap_or_default()));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            self.add(padded(rest));
        }
    }

    /// (As `write(&[byte])` hashes it: the byte padded with zeros. `str`'s hash ends with
    /// one.)
    fn write_u8(&mut self, byte: u8) {
        self.add(u64::from(byte));
    }

    fn write_u32(&mut self, term: u32) {
        self.add(u64::from(term));
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Up to seven bytes as a little-endian number, padded with zeros: read as at most three
/// loads (four, two and one bytes) instead of a byte at a time.
fn padded(rest: &[u8]) -> u64 {
    let mut value = 0u64;
    let mut shift = 0;
    let mut rest = rest;
    if let Some((four, tail)) = rest.split_first_chunk::<4>() {
        value = u64::from(u32::from_le_bytes(*four));
        (shift, rest) = (32, tail);
    }
    if let Some((two, tail)) = rest.split_first_chunk::<2>() {
        value |= u64::from(u16::from_le_bytes(*two)) << shift;
        (shift, rest) = (shift + 16, tail);
    }
    if let Some(&one) = rest.first() {
        value |= u64::from(one) << shift;
    }
    value
}

pub(crate) type FastHash = BuildHasherDefault<FastHasher>;

/// A `HashMap` with [`FastHash`].
pub(crate) type FastMap<K, V> = HashMap<K, V, FastHash>;

/// A `HashMap` seeded per process, for keys hosts and skill authors choose.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) type SeededMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// WebAssembly has nothing to seed a hash with (no randomness, no address randomisation:
/// foldhash's seed would be the same in every instance), so there the tables keyed by what
/// hosts and authors write use [`FastHash`], and foldhash's code stays out of the modules.
#[cfg(target_arch = "wasm32")]
pub(crate) type SeededMap<K, V> = HashMap<K, V, FastHash>;

#[cfg(test)]
mod tests {
    use super::FastHasher;
    use std::hash::Hasher;

    #[test]
    fn words_hash_eight_bytes_at_a_time_as_they_always_did() {
        // The hash a byte at a time, as first written: the same values.
        let bytewise = |bytes: &[u8]| {
            let mut hasher = FastHasher::default();
            for chunk in bytes.chunks(8) {
                hasher.add(chunk.iter().rev().fold(0u64, |acc, &b| (acc << 8) | u64::from(b)));
            }
            hasher.finish()
        };
        for word in ["", "a", "pdf", "eightchr", "nine chars", "sixteen chars ok", "seventeen chars!!", "ünïcode wörds"]
        {
            let mut hasher = FastHasher::default();
            hasher.write(word.as_bytes());
            assert_eq!(hasher.finish(), bytewise(word.as_bytes()), "{word}");
        }
        // Every length of a last chunk, and a lone byte (the end of a `str`'s hash).
        let bytes: Vec<u8> = (1..=40).map(|b: u8| b.wrapping_mul(37) | 0x80).collect();
        for len in 0..=bytes.len() {
            let mut hasher = FastHasher::default();
            hasher.write(&bytes[..len]);
            assert_eq!(hasher.finish(), bytewise(&bytes[..len]), "{len} bytes");
        }
        let (mut one, mut written) = (FastHasher::default(), FastHasher::default());
        one.write_u8(0xff);
        written.write(&[0xff]);
        assert_eq!(one.finish(), written.finish());
    }
}
