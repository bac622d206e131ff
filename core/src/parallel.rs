//! Work split over the machine's threads. A native build reads skills' texts in contiguous
//! parts, each on its own scoped thread, and prepares entries a few at a time on whichever
//! thread is free; either way it takes the results in order, so what comes out is what one
//! thread gives. It makes its ranking index and rule automaton at once. wasm32 has one
//! thread.

use std::sync::OnceLock;

/// Catalogues from this many skills up are read in parts and make their rule automaton
/// on a thread of its own (natively); smaller ones are not worth a thread's start.
pub(crate) const SPLIT_FROM_SKILLS: usize = 256;

/// Most threads one piece of work is split over.
const MAX_THREADS: usize = 8;

/// Threads work may be split over: the machine's parallelism (asked once per process),
/// one on wasm32.
pub(crate) fn threads() -> usize {
    static THREADS: OnceLock<usize> = OnceLock::new();
    if cfg!(target_arch = "wasm32") {
        return 1;
    }
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from).min(MAX_THREADS))
}

/// `work` over `parts` contiguous parts of `items` of about one size (fewer parts when
/// there are fewer items), each part's result in the parts' order. The first part runs on
/// this thread, each other one on a scoped thread (all joined before this returns), or on
/// this thread when its thread cannot be started or stops.
pub(crate) fn in_parts<T: Sync, R: Send>(items: &[T], parts: usize, work: impl Fn(&[T]) -> R + Sync) -> Vec<R> {
    if parts <= 1 || items.len() <= 1 {
        return vec![work(items)];
    }
    let work = &work;
    let mut chunks = items.chunks(items.len().div_ceil(parts));
    let first = chunks.next().unwrap_or_default();
    std::thread::scope(|scope| {
        let workers: Vec<_> =
            chunks.map(|part| (part, std::thread::Builder::new().spawn_scoped(scope, move || work(part)))).collect();
        let mut results = Vec::with_capacity(workers.len() + 1);
        results.push(work(first));
        for (part, worker) in workers {
            match worker.map(|w| w.join()) {
                Ok(Ok(result)) => results.push(result),
                // No thread, or it stopped: the part runs here.
                _ => results.push(work(part)),
            }
        }
        results
    })
}

/// `work` on each of `items`, the results in the items' order: the items are handed out
/// `chunk` at a time to whichever thread is free — this one and up to [`threads`] − 1
/// scoped ones — so that a slow item holds up only its own chunk's thread. This thread
/// runs `first` before it takes chunks (work of its own that the others need not wait
/// for). A chunk whose thread cannot be started or stops is worked on this thread.
pub(crate) fn map_in_chunks<T: Sync, R: Send>(
    items: &[T],
    chunk: usize,
    first: impl FnOnce(),
    work: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let chunks: Vec<&[T]> = items.chunks(chunk.max(1)).collect();
    let helpers = threads().saturating_sub(1).min(chunks.len().saturating_sub(1));
    if helpers == 0 {
        first();
        return items.iter().map(&work).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    // Takes the next chunk not taken yet, until there is none: (chunk number, results).
    let take_chunks = || {
        let mut done = Vec::new();
        loop {
            let at = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(items) = chunks.get(at) else { return done };
            done.push((at, items.iter().map(&work).collect::<Vec<R>>()));
        }
    };
    let mut results: Vec<Option<Vec<R>>> = std::iter::repeat_with(|| None).take(chunks.len()).collect();
    std::thread::scope(|scope| {
        let take_chunks = &take_chunks;
        let workers: Vec<_> =
            (0..helpers).map(|_| std::thread::Builder::new().spawn_scoped(scope, take_chunks)).collect();
        first();
        let mut done = take_chunks();
        for worker in workers {
            // No thread (it took nothing), or it stopped (what it took is worked below).
            if let Ok(Ok(theirs)) = worker.map(|w| w.join()) {
                done.extend(theirs);
            }
        }
        for (at, chunk_results) in done {
            if let Some(slot) = results.get_mut(at) {
                *slot = Some(chunk_results);
            }
        }
    });
    let chunk_results = results.into_iter().zip(&chunks);
    chunk_results.flat_map(|(done, items)| done.unwrap_or_else(|| items.iter().map(&work).collect())).collect()
}

/// With `worth_a_thread`: `first` on this thread and `second` on another at the same time
/// (joined before this returns). Else, and where there is one thread, the other cannot be
/// started or `second` stops there: both here, one after the other.
pub(crate) fn join<A, B: Send>(
    worth_a_thread: bool,
    first: impl FnOnce() -> A,
    second: impl Fn() -> B + Sync,
) -> (A, B) {
    if !worth_a_thread || threads() <= 1 {
        return (first(), second());
    }
    let second = &second;
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new().spawn_scoped(scope, second);
        let a = first();
        match worker.map(|w| w.join()) {
            Ok(Ok(b)) => (a, b),
            _ => (a, second()),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn parts_come_back_in_order_and_cover_every_item() {
        let items: Vec<u32> = (0..103).collect();
        for parts in [0, 1, 2, 3, 8, 200] {
            let results = in_parts(&items, parts, |part| part.to_vec());
            assert!(results.len() <= parts.max(1), "{parts}");
            assert_eq!(results.concat(), items, "{parts}");
        }
        assert_eq!(in_parts(&[] as &[u32], 4, |part| part.len()), vec![0]);
    }

    #[test]
    fn chunks_come_back_in_order_each_item_worked_once_first_run_once() {
        let items: Vec<u32> = (0..103).collect();
        for chunk in [0, 1, 7, 16, 103, 500] {
            let (worked, firsts) = (AtomicUsize::new(0), AtomicUsize::new(0));
            let first = || {
                firsts.fetch_add(1, Ordering::Relaxed);
            };
            let results = map_in_chunks(&items, chunk, first, |&item| {
                worked.fetch_add(1, Ordering::Relaxed);
                item * 2
            });
            assert_eq!(results, items.iter().map(|i| i * 2).collect::<Vec<_>>(), "{chunk}");
            assert_eq!((worked.into_inner(), firsts.into_inner()), (items.len(), 1), "{chunk}");
        }
        assert!(map_in_chunks(&[] as &[u32], 4, || (), |&i| i).is_empty());
    }

    /// Items that take different times still come back in order (threads finish chunks
    /// out of order).
    #[test]
    fn uneven_chunks_come_back_in_order() {
        let items: Vec<u64> = (0..64).collect();
        let results = map_in_chunks(
            &items,
            3,
            || (),
            |&item| {
                std::thread::sleep(std::time::Duration::from_micros((item % 5) * 200));
                item
            },
        );
        assert_eq!(results, items);
    }

    #[test]
    fn both_halves_of_a_join_run_once_each() {
        let runs = std::sync::atomic::AtomicUsize::new(0);
        let count = || runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        for worth_a_thread in [true, false] {
            runs.store(0, std::sync::atomic::Ordering::Relaxed);
            let (a, b) = join(worth_a_thread, || (count(), "first").1, || (count(), "second").1);
            assert_eq!((a, b, runs.load(std::sync::atomic::Ordering::Relaxed)), ("first", "second", 2));
        }
    }
}
