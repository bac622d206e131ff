//! Reading a text 64 bytes at a time: tests on several bytes at once, packed into one bit
//! per byte — so the scan's passes skip what they need not look at without a branch per
//! byte.
//!
//! The bytes tested at once ([`Lanes`]) are held one of three ways, with the same tests and
//! the same answers: sixteen in a SIMD vector — WebAssembly's where the build enables
//! `simd128` (the component's guest), SSE2's on x86-64 (every x86-64 processor has it;
//! through `safe_arch`, since std's intrinsics need `unsafe` outside functions marked for
//! the feature) — else eight as arithmetic on a `u64` (no branch, no table: other native
//! targets, and the npm modules, which are built without SIMD).

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub(super) use simd::{Lanes, Passing};
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub(super) use sse2::{Lanes, Passing};
#[cfg(not(any(
    all(target_arch = "wasm32", target_feature = "simd128"),
    all(target_arch = "x86_64", target_feature = "sse2")
)))]
pub(super) use swar::{Lanes, Passing};

/// How many bytes [`mask`] reads at a time (one bit each in a `u64`).
pub(super) const BLOCK: usize = 64;

/// One bit per byte of `block` (its first [`BLOCK`] bytes), the first byte the lowest:
/// set where `test` says so.
pub(super) fn mask(block: &[u8], test: impl Fn(Lanes) -> Passing) -> u64 {
    match block.first_chunk::<BLOCK>() {
        Some(whole) => whole_mask(whole, &test),
        None => {
            // A short block is read padded with zeros, which are no text.
            let mut padded = [0u8; BLOCK];
            padded.iter_mut().zip(block).for_each(|(to, &from)| *to = from);
            whole_mask(&padded, &test) & ((1u64 << block.len()) - 1)
        }
    }
}

/// [`mask`] of a whole block (an array of known length: the compiler unrolls the tests).
fn whole_mask(block: &[u8; BLOCK], test: &impl Fn(Lanes) -> Passing) -> u64 {
    let parts = block.chunks_exact(Lanes::WIDTH).filter_map(|part| <&[u8; Lanes::WIDTH]>::try_from(part).ok());
    parts.enumerate().fold(0, |bits, (i, part)| bits | test(Lanes::load(part)).bits() << (Lanes::WIDTH * i))
}

/// Eight bytes in a `u64` (also compiled for the tests on x86-64, which hold it to the
/// same answers as the way used there).
#[cfg(any(
    all(test, target_arch = "x86_64", target_feature = "sse2"),
    not(any(
        all(target_arch = "wasm32", target_feature = "simd128"),
        all(target_arch = "x86_64", target_feature = "sse2")
    ))
))]
mod swar {
    use std::ops::{BitAnd, BitOr, Not};

    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;

    /// Eight bytes of text, to be tested at once.
    #[derive(Debug, Clone, Copy)]
    pub(in crate::scan) struct Lanes {
        /// Each byte's low seven bits.
        low: u64,
        /// Each byte's high bit (set for the bytes of a non-ASCII character).
        high: u64,
    }

    /// The bytes of a [`Lanes`] that passed a test, combined with `|`, `&` and `!`: 0x80
    /// in each byte that passed (the other bits are not read).
    #[derive(Debug, Clone, Copy)]
    pub(in crate::scan) struct Passing(u64);

    impl Lanes {
        /// How many bytes are tested at once.
        pub(super) const WIDTH: usize = 8;

        pub(super) fn load(eight: &[u8; Lanes::WIDTH]) -> Lanes {
            let word = u64::from_le_bytes(*eight);
            Lanes { low: word & !HIGH, high: word & HIGH }
        }

        /// The ASCII bytes from `lo` to `hi` (both ASCII).
        pub(in crate::scan) fn ascii(self, lo: u8, hi: u8) -> Passing {
            Passing(self.between(lo, hi) & !self.high)
        }

        /// The non-ASCII bytes whose low seven bits are from `lo` to `hi` (`0xC2` is
        /// `non_ascii(0x42, 0x42)`).
        pub(in crate::scan) fn non_ascii(self, lo: u8, hi: u8) -> Passing {
            Passing(self.between(lo, hi) & self.high)
        }

        /// Whether all the bytes are ASCII.
        pub(in crate::scan) fn all_ascii(self) -> bool {
            self.high == 0
        }

        /// The word bytes: ASCII letters, digits and `_`.
        pub(in crate::scan) fn word_bytes(self) -> Passing {
            let letters = Lanes { low: self.low | (0x20 * ONES), high: self.high }.between(b'a', b'z');
            Passing((letters | self.between(b'0', b'9') | self.between(b'_', b'_')) & !self.high)
        }

        /// The bytes whose low seven bits are from `lo` to `hi`, 0x80 each. No byte
        /// carries into the next: a low part is at most 0x7F and each addend at most 0x80.
        fn between(self, lo: u8, hi: u8) -> u64 {
            let (lo, hi) = (u64::from(lo & 0x7F), u64::from(hi & 0x7F));
            let at_least_lo = self.low.wrapping_add((0x80 - lo) * ONES);
            let above_hi = self.low.wrapping_add((0x7F - hi) * ONES);
            at_least_lo & !above_hi & HIGH
        }
    }

    impl Passing {
        /// One bit per byte that passed, the first byte the lowest.
        pub(super) fn bits(self) -> u64 {
            // Each byte's 0x80 moved to 0x01, then each of those into the top byte, in order.
            (((self.0 >> 7) & ONES).wrapping_mul(0x0102_0408_1020_4080)) >> 56
        }
    }

    impl BitOr for Passing {
        type Output = Passing;
        fn bitor(self, other: Passing) -> Passing {
            Passing(self.0 | other.0)
        }
    }

    impl BitAnd for Passing {
        type Output = Passing;
        fn bitand(self, other: Passing) -> Passing {
            Passing(self.0 & other.0)
        }
    }

    impl Not for Passing {
        type Output = Passing;
        fn not(self) -> Passing {
            Passing(!self.0)
        }
    }
}

/// Sixteen bytes in a WebAssembly SIMD vector.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd {
    use std::arch::wasm32::{self as wasm, v128};
    use std::ops::{BitAnd, BitOr, Not};

    /// Sixteen bytes of text, to be tested at once.
    #[derive(Debug, Clone, Copy)]
    pub(in crate::scan) struct Lanes(v128);

    /// The bytes of a [`Lanes`] that passed a test, combined with `|`, `&` and `!`: every
    /// bit set in each byte that passed, none in the others.
    #[derive(Debug, Clone, Copy)]
    pub(in crate::scan) struct Passing(v128);

    impl Lanes {
        /// How many bytes are tested at once.
        pub(super) const WIDTH: usize = 16;

        pub(super) fn load(sixteen: &[u8; Lanes::WIDTH]) -> Lanes {
            // (Two halves, which the compiler reads as one vector load.)
            let (first, last) = (sixteen.first_chunk::<8>(), sixteen.last_chunk::<8>());
            let half = |eight: Option<&[u8; 8]>| eight.map_or(0, |h| u64::from_le_bytes(*h));
            Lanes(wasm::u64x2(half(first), half(last)))
        }

        /// The ASCII bytes from `lo` to `hi` (both ASCII).
        pub(in crate::scan) fn ascii(self, lo: u8, hi: u8) -> Passing {
            Passing(self.between(lo & 0x7F, hi & 0x7F))
        }

        /// The non-ASCII bytes whose low seven bits are from `lo` to `hi` (`0xC2` is
        /// `non_ascii(0x42, 0x42)`).
        pub(in crate::scan) fn non_ascii(self, lo: u8, hi: u8) -> Passing {
            Passing(self.between(lo | 0x80, hi | 0x80))
        }

        /// Whether all the bytes are ASCII.
        pub(in crate::scan) fn all_ascii(self) -> bool {
            wasm::u8x16_bitmask(self.0) == 0
        }

        /// The word bytes: ASCII letters, digits and `_`.
        pub(in crate::scan) fn word_bytes(self) -> Passing {
            let letters = Lanes(wasm::v128_or(self.0, wasm::u8x16_splat(0x20))).between(b'a', b'z');
            let underscores = wasm::u8x16_eq(self.0, wasm::u8x16_splat(b'_'));
            Passing(wasm::v128_or(wasm::v128_or(letters, self.between(b'0', b'9')), underscores))
        }

        /// The bytes from `lo` to `hi` (all eight bits set in each).
        fn between(self, lo: u8, hi: u8) -> v128 {
            let from_lo = wasm::u8x16_sub(self.0, wasm::u8x16_splat(lo));
            wasm::u8x16_le(from_lo, wasm::u8x16_splat(hi.wrapping_sub(lo)))
        }
    }

    impl Passing {
        /// One bit per byte that passed, the first byte the lowest.
        pub(super) fn bits(self) -> u64 {
            u64::from(wasm::u8x16_bitmask(self.0))
        }
    }

    impl BitOr for Passing {
        type Output = Passing;
        fn bitor(self, other: Passing) -> Passing {
            Passing(wasm::v128_or(self.0, other.0))
        }
    }

    impl BitAnd for Passing {
        type Output = Passing;
        fn bitand(self, other: Passing) -> Passing {
            Passing(wasm::v128_and(self.0, other.0))
        }
    }

    impl Not for Passing {
        type Output = Passing;
        fn not(self) -> Passing {
            Passing(wasm::v128_not(self.0))
        }
    }
}

/// Sixteen bytes in an SSE2 register.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse2 {
    use safe_arch::{
        bitand_m128i, bitor_m128i, bitxor_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, m128i, min_u8_m128i,
        move_mask_i8_m128i, set_splat_i8_m128i, sub_i8_m128i,
    };
    use std::ops::{BitAnd, BitOr, Not};

    /// Sixteen bytes of text, to be tested at once.
    #[derive(Debug, Clone, Copy)]
    pub(in crate::scan) struct Lanes(m128i);

    /// The bytes of a [`Lanes`] that passed a test, combined with `|`, `&` and `!`: every
    /// bit set in each byte that passed, none in the others.
    #[derive(Debug, Clone, Copy)]
    pub(in crate::scan) struct Passing(m128i);

    /// `byte` in each of the sixteen lanes.
    fn splat(byte: u8) -> m128i {
        set_splat_i8_m128i(i8::from_ne_bytes([byte]))
    }

    impl Lanes {
        /// How many bytes are tested at once.
        pub(super) const WIDTH: usize = 16;

        pub(super) fn load(sixteen: &[u8; Lanes::WIDTH]) -> Lanes {
            Lanes(load_unaligned_m128i(sixteen))
        }

        /// The ASCII bytes from `lo` to `hi` (both ASCII).
        pub(in crate::scan) fn ascii(self, lo: u8, hi: u8) -> Passing {
            Passing(self.between(lo & 0x7F, hi & 0x7F))
        }

        /// The non-ASCII bytes whose low seven bits are from `lo` to `hi` (`0xC2` is
        /// `non_ascii(0x42, 0x42)`).
        pub(in crate::scan) fn non_ascii(self, lo: u8, hi: u8) -> Passing {
            Passing(self.between(lo | 0x80, hi | 0x80))
        }

        /// Whether all the bytes are ASCII.
        pub(in crate::scan) fn all_ascii(self) -> bool {
            move_mask_i8_m128i(self.0) == 0
        }

        /// The word bytes: ASCII letters, digits and `_`.
        pub(in crate::scan) fn word_bytes(self) -> Passing {
            let letters = Lanes(bitor_m128i(self.0, splat(0x20))).between(b'a', b'z');
            let underscores = cmp_eq_mask_i8_m128i(self.0, splat(b'_'));
            Passing(bitor_m128i(bitor_m128i(letters, self.between(b'0', b'9')), underscores))
        }

        /// The bytes from `lo` to `hi` (all eight bits set in each; `lo` ≤ `hi`, as every
        /// caller's range is): SSE2 compares bytes only as signed, so a byte is in the range
        /// when its distance above `lo` is at most the range's width, unsigned (its minimum
        /// with the width is itself).
        fn between(self, lo: u8, hi: u8) -> m128i {
            let from_lo = sub_i8_m128i(self.0, splat(lo));
            cmp_eq_mask_i8_m128i(min_u8_m128i(from_lo, splat(hi.wrapping_sub(lo))), from_lo)
        }
    }

    impl Passing {
        /// One bit per byte that passed, the first byte the lowest.
        pub(super) fn bits(self) -> u64 {
            // (Sixteen bits, from each byte's top bit, in an `i32`'s low half.)
            u64::from(u32::from_ne_bytes(move_mask_i8_m128i(self.0).to_ne_bytes()))
        }
    }

    impl BitOr for Passing {
        type Output = Passing;
        fn bitor(self, other: Passing) -> Passing {
            Passing(bitor_m128i(self.0, other.0))
        }
    }

    impl BitAnd for Passing {
        type Output = Passing;
        fn bitand(self, other: Passing) -> Passing {
            Passing(bitand_m128i(self.0, other.0))
        }
    }

    impl Not for Passing {
        type Output = Passing;
        fn not(self) -> Passing {
            Passing(bitxor_m128i(self.0, splat(0xFF)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each test of [`Lanes`], with the same test on one byte (a macro: each way of holding
    /// lanes has its own types).
    macro_rules! tests_with_one_byte {
        () => {
            [
                (|e| e.word_bytes(), |b| b.is_ascii_alphanumeric() || b == b'_'),
                (|e| e.ascii(b'0', b'9'), |b| b.is_ascii_digit()),
                (|e| e.ascii(0, 0x1F), |b| b < 0x20),
                (|e| e.ascii(0x7F, 0x7F), |b| b == 0x7F),
                (|e| e.non_ascii(0x61, 0x63), |b| (0xE1..=0xE3).contains(&b)),
                // Tests combined, as the invisible-character pass combines them.
                (
                    |e| (e.ascii(0, 0x1F) & !e.ascii(b'\t', b'\n')) | e.non_ascii(0x42, 0x42),
                    |b| (b < 0x20 && b != b'\t' && b != b'\n') || b == 0xC2,
                ),
            ]
        };
    }

    /// A test of lanes of type `L`, and the same test on one byte.
    type Test<L, P> = (fn(L) -> P, fn(u8) -> bool);

    /// Every byte value, at every place of a block, against the same test on one byte.
    #[test]
    fn each_test_agrees_with_a_byte_at_a_time() {
        let tests: [Test<Lanes, Passing>; 6] = tests_with_one_byte!();
        for (test, one) in tests {
            for byte in 0..=255u8 {
                for neighbour in [0u8, b'a', 0x7F, 0x80, 0xFF] {
                    let mut block = [neighbour; 70];
                    for place in 0..BLOCK {
                        block[place] = byte;
                        let want =
                            block.iter().take(BLOCK).enumerate().fold(0u64, |m, (k, &b)| m | u64::from(one(b)) << k);
                        assert_eq!(mask(&block, test), want, "{byte:#x} at {place} among {neighbour:#x}");
                        let part = block.get(place - place % Lanes::WIDTH..).and_then(|b| b.first_chunk());
                        let part: [u8; Lanes::WIDTH] = part.copied().unwrap_or_default();
                        assert_eq!(Lanes::load(&part).all_ascii(), part.is_ascii());
                        block[place] = neighbour;
                    }
                }
            }
        }
    }

    /// The same for the eight bytes in a `u64`, where SIMD is the way used (on x86-64
    /// the test above reads SSE2's lanes; the npm modules read these).
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[test]
    fn the_eight_byte_lanes_agree_with_a_byte_at_a_time() {
        let tests: [Test<swar::Lanes, swar::Passing>; 6] = tests_with_one_byte!();
        for (test, one) in tests {
            for byte in 0..=255u8 {
                for neighbour in [0u8, b'a', 0x7F, 0x80, 0xFF] {
                    for place in 0..swar::Lanes::WIDTH {
                        let mut lanes = [neighbour; swar::Lanes::WIDTH];
                        lanes[place] = byte;
                        let want = lanes.iter().enumerate().fold(0u64, |m, (k, &b)| m | u64::from(one(b)) << k);
                        let got = test(swar::Lanes::load(&lanes)).bits();
                        assert_eq!(got, want, "{byte:#x} at {place} among {neighbour:#x}");
                        assert_eq!(swar::Lanes::load(&lanes).all_ascii(), lanes.is_ascii());
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
        // Past one part of lanes, and ending inside another.
        assert_eq!(mask(&[b'a'; 17], |e| e.word_bytes()), 0x1_FFFF);
        let mut forty = [b' '; 40];
        forty[39] = b'x';
        assert_eq!(mask(&forty, |e| e.word_bytes()), 1 << 39);
    }
}
