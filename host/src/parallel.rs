//! Filesystem work shared by the machine's threads. Walking a root's folders and looking at
//! every listed SKILL.md's metadata cost a few system calls per skill, and at thousands of
//! skills the kernel's side of them is most of a run that restores its catalogue (the hook,
//! on every prompt). Each thread takes the next item no thread has taken (a root's folders
//! differ in size), and the results come back in the items' order.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Items from which work is shared (fewer are not worth a thread's start).
pub(crate) const SHARE_FROM: usize = 256;

/// Most threads one piece of work is shared by.
const MAX_THREADS: usize = 8;

/// The machine's parallelism (asked once per process), at most [`MAX_THREADS`].
pub(crate) fn threads() -> usize {
    static THREADS: OnceLock<usize> = OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from).min(MAX_THREADS))
}

/// `each` of every item, in the items' order. From [`SHARE_FROM`] items, this thread and up
/// to `threads() - 1` scoped ones (joined before this returns) each take the next item not
/// yet taken; an item whose thread could not give its result back (it stopped) is done here.
pub(crate) fn map<T: Sync, R: Send>(items: &[T], each: impl Fn(&T) -> R + Sync) -> Vec<R> {
    if items.len() < SHARE_FROM || threads() <= 1 {
        return items.iter().map(each).collect();
    }
    let next = AtomicUsize::new(0);
    let take = || {
        let mut done = Vec::new();
        loop {
            let at = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(at) else { return done };
            done.push((at, each(item)));
        }
    };
    let take = &take;
    let done = std::thread::scope(|scope| {
        let helpers: Vec<_> =
            (1..threads()).filter_map(|_| std::thread::Builder::new().spawn_scoped(scope, take).ok()).collect();
        let mut done = take();
        for helper in helpers {
            done.extend(helper.join().unwrap_or_default());
        }
        done
    });
    let mut results: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    for (at, result) in done {
        if let Some(slot) = results.get_mut(at) {
            *slot = Some(result);
        }
    }
    results.into_iter().zip(items).map(|(result, item)| result.unwrap_or_else(|| each(item))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_the_items_order() {
        for n in [0, 1, SHARE_FROM - 1, SHARE_FROM, 1_003] {
            let items: Vec<usize> = (0..n).collect();
            let on = std::sync::Mutex::new(std::collections::HashSet::new());
            let doubled = map(&items, |i| {
                on.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(std::thread::current().id());
                i * 2
            });
            assert_eq!(doubled, items.iter().map(|i| i * 2).collect::<Vec<_>>(), "{n} items");
            let threads_used = on.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner).len();
            assert!(n >= SHARE_FROM || threads_used <= 1, "{n} items: on {threads_used} threads");
        }
    }
}
