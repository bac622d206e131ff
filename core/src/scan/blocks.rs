//! Reading a text 64 bytes at a time: tests on eight bytes at once as arithmetic on a
//! `u64` (no branch, no table, the same speed in WebAssembly, whose builds are optimised
//! for size and not vectorised), packed into one bit per byte — so the scan's passes skip
//! what they need not look at without a branch per byte.

/// How many bytes [`mask`] reads at a time (one bit each in a `u64`).
pub(super) const BLOCK: usize = 64;

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// Eight bytes of text, to be tested at once: each test gives 0x80 in every byte that
/// passes it and 0 in the others.
#[derive(Debug, Clone, Copy)]
pub(super) struct Eight {
    /// Each byte's low seven bits.
    low: u64,
    /// Each byte's high bit (set for the bytes of a non-ASCII character).
    high: u64,
}

impl Eight {
    fn new(word: u64) -> Eight {
        Eight { low: word & !HIGH, high: word & HIGH }
    }

    /// The ASCII bytes from `lo` to `hi` (both ASCII).
    pub(super) fn ascii(self, lo: u8, hi: u8) -> u64 {
        self.between(lo, hi) & !self.high
    }

    /// The non-ASCII bytes whose low seven bits are from `lo` to `hi` (`0xC2` is
    /// `non_ascii(0x42, 0x42)`).
    pub(super) fn non_ascii(self, lo: u8, hi: u8) -> u64 {
        self.between(lo, hi) & self.high
    }

    /// Whether all eight bytes are ASCII.
    pub(super) fn all_ascii(self) -> bool {
        self.high == 0
    }

    /// The word bytes: ASCII letters, digits and `_`.
    pub(super) fn word_bytes(self) -> u64 {
        let letters = Eight { low: self.low | (0x20 * ONES), high: self.high }.between(b'a', b'z');
        (letters | self.between(b'0', b'9') | self.between(b'_', b'_')) & !self.high
    }

    /// The bytes whose low seven bits are from `lo` to `hi`. No byte carries into the
    /// next: a low part is at most 0x7F and each addend at most 0x80.
    fn between(self, lo: u8, hi: u8) -> u64 {
        let (lo, hi) = (u64::from(lo & 0x7F), u64::from(hi & 0x7F));
        let at_least_lo = self.low.wrapping_add((0x80 - lo) * ONES);
        let above_hi = self.low.wrapping_add((0x7F - hi) * ONES);
        at_least_lo & !above_hi & HIGH
    }
}

/// One bit per byte of `block` (its first [`BLOCK`] bytes), the first byte the lowest:
/// set where `test` (on [`Eight`] bytes at a time) says so.
pub(super) fn mask(block: &[u8], test: impl Fn(Eight) -> u64) -> u64 {
    let mut bits = 0;
    for (i, chunk) in block.chunks(8).take(BLOCK / 8).enumerate() {
        let word = match <[u8; 8]>::try_from(chunk) {
            Ok(eight) => u64::from_le_bytes(eight),
            Err(_) => {
                let mut eight = [0u8; 8];
                eight.iter_mut().zip(chunk).for_each(|(to, &from)| *to = from);
                u64::from_le_bytes(eight)
            }
        };
        // Each byte's 0x80 moved to 0x01, then each of those into the top byte, in order.
        let ones = (test(Eight::new(word)) >> 7) & ONES;
        bits |= (ones.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * i);
    }
    // (A short block's padding is no text.)
    match block.len() {
        len if len < BLOCK => bits & ((1u64 << len) - 1),
        _ => bits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every byte value, at every place of a block, against the same test on one byte.
    #[test]
    fn each_test_agrees_with_a_byte_at_a_time() {
        type Test = (fn(Eight) -> u64, fn(u8) -> bool);
        let tests: [Test; 5] = [
            (|e| e.word_bytes(), |b| b.is_ascii_alphanumeric() || b == b'_'),
            (|e| e.ascii(b'0', b'9'), |b| b.is_ascii_digit()),
            (|e| e.ascii(0, 0x1F), |b| b < 0x20),
            (|e| e.ascii(0x7F, 0x7F), |b| b == 0x7F),
            (|e| e.non_ascii(0x61, 0x63), |b| (0xE1..=0xE3).contains(&b)),
        ];
        for (test, one) in tests {
            for byte in 0..=255u8 {
                for neighbour in [0u8, b'a', 0x7F, 0x80, 0xFF] {
                    let mut block = [neighbour; 70];
                    for place in [0, 5, 63] {
                        block[place] = byte;
                        let want =
                            block.iter().take(BLOCK).enumerate().fold(0u64, |m, (k, &b)| m | u64::from(one(b)) << k);
                        assert_eq!(mask(&block, test), want, "{byte:#x} at {place} among {neighbour:#x}");
                        block[place] = neighbour;
                    }
                }
            }
        }
    }

    #[test]
    fn a_short_block_has_bits_for_its_bytes_only() {
        assert_eq!(mask(b"a1", |e| e.ascii(0, 0x7F)), 0b11);
        assert_eq!(mask(b"", |e| e.ascii(0, 0x7F)), 0);
        assert_eq!(mask(&[0u8; 9], |e| e.ascii(0, 0)), 0x1FF);
    }
}
