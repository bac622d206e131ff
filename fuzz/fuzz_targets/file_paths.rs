//! Fuzz target `file_paths`: see `fuzz/harness.rs`.
#![no_main]

#[allow(dead_code)] // each target uses one of the harness functions
#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::file_paths(data));
