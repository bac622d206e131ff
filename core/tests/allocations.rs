//! A turn's work allocates nothing that grows with the message: the folded message, the
//! message's words and the ranking's accumulators live in per-thread buffers reused from
//! turn to turn. What a turn allocates is its result (the copy of the message it keeps,
//! its candidates and matches, with their names and ids), and an entry when the thread's
//! cache of stems learns a word (bounded: 4,096 words). Counted with a counting global
//! allocator, per thread (tests run on several threads at once).
#![allow(unsafe_code, clippy::unwrap_used, clippy::indexing_slicing, clippy::disallowed_methods)]

mod common;

use skillwire::{Catalog, CatalogInput, CatalogOptions, TurnContext};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    /// Allocations and reallocations made by this thread.
    static COUNT: Cell<usize> = const { Cell::new(0) };
}

fn count() {
    // A thread being torn down has no counter left: not counted.
    let _ = COUNT.try_with(|count| count.set(count.get() + 1));
}

// SAFETY: every call is passed on to the system allocator unchanged; counting allocates
// nothing (a const-initialised thread-local Cell).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: the caller's contract, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The corpus's catalogue, and the dev messages without an `@` (a mention's name is
/// looked up as written: an allocation per `@`).
fn corpus() -> (Catalog, Vec<String>) {
    let mut files = Vec::new();
    common::skill_files(&common::shared().join("corpus"), &mut files);
    files.sort();
    let inputs = (files.iter().enumerate())
        .map(|(i, file)| CatalogInput {
            source: 0,
            id: None,
            origin: None,
            location: format!("s/{i}/SKILL.md"),
            text: Ok(std::fs::read_to_string(file).unwrap()),
        })
        .collect();
    let catalog = Catalog::build(inputs, &CatalogOptions::default());
    let dev = std::fs::read_to_string(common::shared().join("queries/dev.jsonl")).unwrap();
    let messages = (dev.lines().filter(|line| !line.trim().is_empty()))
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap()["q"].as_str().unwrap().to_owned())
        .filter(|message| !message.contains('@'))
        .collect();
    (catalog, messages)
}

/// The allocations of one turn and its matches, and the matches' names.
fn allocations(catalog: &Catalog, message: &str) -> (usize, Vec<String>) {
    let before = COUNT.with(Cell::get);
    let matches = catalog.turn(message, &TurnContext::default()).unwrap().matches();
    let after = COUNT.with(Cell::get);
    (after - before, matches.into_iter().map(|m| m.skill).collect())
}

#[test]
fn a_longer_message_costs_a_turn_no_more_allocations() {
    let (catalog, messages) = corpus();
    assert!(messages.len() > 30);
    // Warm: this thread's buffers grow to the longest message once.
    let longest = messages.iter().map(|m| [m.as_str(); 40].join(" ")).max_by_key(String::len).unwrap();
    allocations(&catalog, &longest);
    let mut found = 0;
    for message in &messages {
        // The message 40 times over: the same words, so the same matches.
        let repeated = [message.as_str(); 40].join(" ");
        // Warm: the stems of its words remembered (the thread's stem cache allocates when it
        // learns a word).
        allocations(&catalog, message);
        let (once, matched) = allocations(&catalog, message);
        let (forty_times, matched_again) = allocations(&catalog, &repeated);
        assert_eq!(matched, matched_again, "{message}");
        assert_eq!(forty_times, once, "{message}: {} bytes", repeated.len());
        found += matched.len();
    }
    assert!(found > 20, "the messages find skills ({found})");
}

#[test]
fn a_turn_that_finds_nothing_allocates_only_its_copy_of_the_message() {
    let (catalog, _) = corpus();
    let unknown = "zqxv wibblequark flonktastic ".repeat(40);
    let everyday = "hello there, thanks so much for that, have a nice day ".repeat(20);
    for message in [unknown.as_str(), everyday.as_str(), "hi"] {
        allocations(&catalog, message);
        assert_eq!(allocations(&catalog, message), (1, Vec::new()), "{message}");
    }
}

#[test]
fn buffers_are_let_go_after_a_message_past_16_kib() {
    let (catalog, messages) = corpus();
    let message = &messages[0];
    allocations(&catalog, message);
    let (warm, _) = allocations(&catalog, message);
    // A message of 12 KiB: the buffers grow for it and are kept (the next turn does not
    // make them again); one of 20 KiB: they are dropped after it, and made again.
    for (kilobytes, kept) in [(12, true), (20, false)] {
        let long = format!("{message} ").repeat((kilobytes << 10) / (message.len() + 1));
        allocations(&catalog, &long);
        let (after, _) = allocations(&catalog, message);
        assert_eq!(after == warm, kept, "{kilobytes} KiB: {after} allocations after it, {warm} warm");
    }
}
