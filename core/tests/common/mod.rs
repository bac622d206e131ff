//! What the integration tests that read the shared corpus have in common: where it is, and
//! its SKILL.md files.
#![allow(dead_code, clippy::unwrap_used, clippy::disallowed_methods)] // test code reads the shared corpus

use std::path::{Path, PathBuf};

/// The folder of the real packs and labelled messages (`../shared`, or `$SKILLWIRE_SHARED`).
pub fn shared() -> PathBuf {
    let dir = std::env::var_os("SKILLWIRE_SHARED")
        .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"), PathBuf::from);
    assert!(dir.join("corpus").is_dir(), "this test reads {}/corpus: set SKILLWIRE_SHARED", dir.display());
    dir
}

/// Every SKILL.md under `dir`.
pub fn skill_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            skill_files(&path, out);
        } else if path.file_name().is_some_and(|n| n == "SKILL.md") {
            out.push(path);
        }
    }
}
