//! What a catalogue holds in memory, per skill: the bytes a build leaves allocated.
//!
//!     cargo bench -p skillwire --features snapshot --bench memory
//!
//! divan's allocation profiler counts every allocation and free made while a sample
//! runs; each sample here restores a catalogue from its snapshot and returns it, and divan
//! drops returned values outside the sample, so `alloc` bytes minus `dealloc` bytes is what
//! the catalogue keeps (the restore's temporaries are freed inside the sample). Catalogues
//! as in the `turn` benchmark.
#![allow(clippy::unwrap_used)]

mod common;

use common::{inputs, inputs_with_distinct_descriptions};
use skillwire::{Catalog, CatalogOptions};

#[global_allocator]
static ALLOC: divan::AllocProfiler = divan::AllocProfiler::system();

fn main() {
    divan::main();
}

const SIZES: [usize; 3] = [100, 1_000, 10_000];

/// A catalogue restored from its snapshot: the same skills and indexes as a build gives
/// (`tests/snapshot.rs`), without a build's inputs being freed inside the sample.
#[divan::bench(args = SIZES, sample_count = 3, sample_size = 1)]
fn catalogue_kept_after_restore(bencher: divan::Bencher, size: usize) {
    let options = CatalogOptions::default();
    let snapshot = Catalog::build(inputs(size), &options).snapshot("memory").unwrap();
    bencher.bench(|| Catalog::from_snapshot(&snapshot, "memory", &options).unwrap());
}

/// The same with every copy's description its own.
#[divan::bench(args = [1_000, 10_000], sample_count = 3, sample_size = 1)]
fn catalogue_kept_after_restore_distinct_descriptions(bencher: divan::Bencher, size: usize) {
    let options = CatalogOptions::default();
    let snapshot = Catalog::build(inputs_with_distinct_descriptions(size), &options).snapshot("memory").unwrap();
    bencher.bench(|| Catalog::from_snapshot(&snapshot, "memory", &options).unwrap());
}
