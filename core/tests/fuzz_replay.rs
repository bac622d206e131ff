//! Replays every input saved under `tests/fuzz/<target>/` (crashers the fuzzers found,
//! and seeds) through the fuzz targets' own checks (`fuzz/harness.rs`). CI runs this,
//! not the fuzzers.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::disallowed_methods)] // test code reads its inputs

#[path = "../../fuzz/harness.rs"]
mod harness;

use std::path::Path;

fn replay(target: &str, run: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fuzz").join(target);
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        let outcome = std::panic::catch_unwind(|| run(&data));
        assert!(outcome.is_ok(), "{} fails again", path.display());
        count += 1;
    }
    count
}

#[test]
fn saved_fuzz_inputs_pass() {
    assert!(replay("parse_and_lint", harness::parse_and_lint) > 0);
    assert!(replay("build_catalogue", harness::build_catalogue) > 0);
    assert!(replay("turn", harness::turn) > 0);
    assert!(replay("file_paths", harness::file_paths) > 0);
}
