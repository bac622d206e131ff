//! One sort for the core's sorts off the hot per-turn path (building a catalogue, tools,
//! completions, lint, and a scan's few findings). std's sort is generic: each element type and
//! comparator gets its own copy of the sorting code, 4–8 KB of WebAssembly apiece (the npm
//! build carried 16 of them, 12% of its code). Built for WebAssembly, the sorts here go
//! through one copy that orders positions with a comparator behind a reference and then
//! moves the items into place; natively std's sort is used as it is. A turn's own sorts
//! (the ranking query, the rules' matches) stay std's: through the shared copy a 1 KB turn
//! in Node was 12% slower.

use std::cmp::Ordering;

/// Sorts `items` stably by `compare`, as `slice::sort_by` does.
pub(crate) fn sort_by<T>(items: &mut [T], compare: impl FnMut(&T, &T) -> Ordering) {
    if cfg!(target_arch = "wasm32") {
        sort_by_positions(items, compare);
    } else {
        items.sort_by(compare);
    }
}

/// Sorts `items` stably by the key `key` gives, as `slice::sort_by_key` does.
pub(crate) fn sort_by_key<T, K: Ord>(items: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// The shared sort: the positions ordered by one (non-generic) sort, then each cycle of
/// the permutation followed with swaps.
fn sort_by_positions<T>(items: &mut [T], mut compare: impl FnMut(&T, &T) -> Ordering) {
    let mut order: Vec<usize> = (0..items.len()).collect();
    sort_positions(&mut order, &mut |a, b| match (items.get(a), items.get(b)) {
        (Some(a), Some(b)) => compare(a, b),
        _ => Ordering::Equal,
    });
    // `order[k]` is the position of the item that goes to `k`; a placed position is
    // marked by pointing at itself.
    for start in 0..items.len() {
        let mut at = start;
        while let Some(slot) = order.get_mut(at) {
            let from = std::mem::replace(slot, at);
            if from == at || from == start {
                break;
            }
            items.swap(at, from);
            at = from;
        }
    }
}

#[inline(never)]
fn sort_positions(order: &mut [usize], compare: &mut dyn FnMut(usize, usize) -> Ordering) {
    order.sort_by(|&a, &b| compare(a, b));
}

#[cfg(test)]
mod tests {
    use super::sort_by_positions;

    /// The shared sort gives std's stable order, equal keys in their first order, on
    /// many shapes (sorted, reversed, repeated keys, a pseudo-random mix).
    #[test]
    fn positions_sort_equals_the_std_stable_sort() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        for len in (0..40).chain([100, 257, 1000]) {
            for keys in [3u64, 50, 1 << 20] {
                let items: Vec<(u64, usize)> = (0..len)
                    .map(|i| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        (seed % keys, i)
                    })
                    .collect();
                for shaped in [
                    items.clone(),
                    {
                        let mut s = items.clone();
                        s.sort();
                        s
                    },
                    {
                        let mut r = items.clone();
                        r.sort();
                        r.reverse();
                        r
                    },
                ] {
                    let mut want = shaped.clone();
                    want.sort_by_key(|&(k, _)| k);
                    let mut got = shaped;
                    sort_by_positions(&mut got, |a, b| a.0.cmp(&b.0));
                    assert_eq!(got, want, "len {len}, keys {keys}");
                }
            }
        }
    }
}
