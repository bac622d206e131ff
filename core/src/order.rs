//! One sort for the core's sorts off the hot per-turn path (building a catalogue, tools,
//! completions, lint, and a scan's few findings). std's sort is generic: each element type and
//! comparator gets its own copy of the sorting code, 4–8 KB of WebAssembly apiece (the npm
//! build carried 16 of them, 12% of its code). Built for WebAssembly, the sorts here go
//! through one copy that orders positions with a comparator behind a reference and then
//! moves the items into place. Natively std's sort is used as it is, except for items over
//! [`LARGE_ITEM_BYTES`], which go through their positions as well (the sort then moves
//! positions, not items). A turn's own sorts (the ranking query, the rules' matches) stay
//! std's: through the shared copy a 1 KB turn in Node was 12% slower.

use std::cmp::Ordering;

/// Items larger than this are sorted through their positions natively too: then only
/// positions move while sorting, and the items are swapped into place once the order is
/// known, where std's sort would move the items themselves through its buffer (a
/// catalogue's skills, sorted at every build, are a few hundred bytes each).
const LARGE_ITEM_BYTES: usize = 64;

/// Sorts `items` stably by `compare`, as `slice::sort_by` does.
pub(crate) fn sort_by<T>(items: &mut [T], compare: impl FnMut(&T, &T) -> Ordering) {
    if cfg!(target_arch = "wasm32") || std::mem::size_of::<T>() > LARGE_ITEM_BYTES {
        sort_by_positions(items, compare);
    } else {
        items.sort_by(compare);
    }
}

/// Sorts `items` stably by the key `key` gives, as `slice::sort_by_key` does.
pub(crate) fn sort_by_key<T, K: Ord>(items: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// Keeps the `keep` first of `items` in `compare`'s order, sorted: what sorting them all
/// and keeping the first `keep` gives, at the cost of a selection when there are more.
/// `compare` must be a total order (no two items equal), or which of equal items are kept
/// could differ from the sort's.
pub(crate) fn keep_first<T: Copy>(items: &mut Vec<T>, keep: usize, mut compare: impl FnMut(&T, &T) -> Ordering) {
    if items.len() > keep {
        if keep == 0 {
            items.clear();
        } else if cfg!(target_arch = "wasm32") {
            select_by_positions(items, keep, &mut compare);
        } else {
            items.select_nth_unstable_by(keep - 1, &mut compare);
            items.truncate(keep);
        }
    }
    sort_by(items, compare);
}

/// The first `keep` (at least one) of `items` in `compare`'s order, in no order: the
/// positions selected through one shared (non-generic) selection, as the sort does.
fn select_by_positions<T: Copy>(items: &mut Vec<T>, keep: usize, compare: &mut impl FnMut(&T, &T) -> Ordering) {
    let mut order: Vec<usize> = (0..items.len()).collect();
    select_positions(&mut order, keep.saturating_sub(1), &mut |a, b| match (items.get(a), items.get(b)) {
        (Some(a), Some(b)) => compare(a, b),
        _ => Ordering::Equal,
    });
    let mut kept = Vec::with_capacity(keep);
    kept.extend(order.iter().take(keep).filter_map(|&at| items.get(at).copied()));
    *items = kept;
}

#[inline(never)]
fn select_positions(order: &mut [usize], nth: usize, compare: &mut dyn FnMut(usize, usize) -> Ordering) {
    order.select_nth_unstable_by(nth, |&a, &b| compare(a, b));
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
    use super::{keep_first, select_by_positions, sort_by, sort_by_positions};
    use crate::testing::numbers;

    /// Keeping the first few gives what sorting all and truncating gives, with as many,
    /// fewer and more items than kept (a total order: a key and a unique position).
    #[test]
    fn keeping_the_first_equals_sorting_and_truncating() {
        let mut random = numbers(7);
        for len in [0usize, 1, 2, 5, 31, 32, 33, 64, 500] {
            let items: Vec<(u64, usize)> = (0..len).map(|i| (random(20) as u64, i)).collect();
            for keep in [0usize, 1, 3, 32, 600] {
                let by_key_then_position = |a: &(u64, usize), b: &(u64, usize)| b.0.cmp(&a.0).then(a.1.cmp(&b.1));
                let mut want = items.clone();
                want.sort_by(by_key_then_position);
                want.truncate(keep);
                let mut got = items.clone();
                keep_first(&mut got, keep, by_key_then_position);
                assert_eq!(got, want, "{len} items, keep {keep}");
                // WebAssembly's way: positions selected, then the kept ones sorted.
                if (1..len).contains(&keep) {
                    let mut got = items.clone();
                    select_by_positions(&mut got, keep, &mut { by_key_then_position });
                    sort_by(&mut got, by_key_then_position);
                    assert_eq!(got, want, "{len} items, keep {keep}, by positions");
                }
            }
        }
    }

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
