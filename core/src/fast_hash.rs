//! The core's hash for its tables of the catalogue's own keys — words, term numbers, skill
//! names, locations, patterns — and for a turn's small maps: fast and deterministic (the
//! same table order in every process and runtime, so what is written from a table comes
//! out the same). Not flood-resistant: each table holds only what one catalogue brings,
//! whose size [`Limits`](crate::Limits) bounds, and a message only probes them.

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
        if !chunks.remainder().is_empty() {
            let mut last = [0u8; 8];
            last.iter_mut().zip(chunks.remainder()).for_each(|(to, &from)| *to = from);
            self.add(u64::from_le_bytes(last));
        }
    }

    fn write_u32(&mut self, term: u32) {
        self.add(u64::from(term));
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

pub(crate) type FastHash = BuildHasherDefault<FastHasher>;

/// A `HashMap` with [`FastHash`].
pub(crate) type FastMap<K, V> = HashMap<K, V, FastHash>;

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
    }
}
