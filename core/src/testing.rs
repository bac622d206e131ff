//! Helpers for the crate's unit tests.

/// Numbers below the bound asked for, from a fixed seed: the same sequence on every run
/// (xorshift).
pub(crate) fn numbers(seed: u64) -> impl FnMut(usize) -> usize {
    let mut state = seed.max(1);
    move |below: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % below.max(1) as u64) as usize
    }
}
