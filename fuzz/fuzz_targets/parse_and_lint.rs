//! Fuzz target `parse_and_lint`: see `fuzz/harness.rs`.
#![no_main]

#[allow(dead_code)] // each target uses one of the harness functions
#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::parse_and_lint(data));
