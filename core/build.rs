//! Build script: a digest of what decides this build's behaviour — the crate's sources,
//! its manifest, whether it has its own NFKC tables and, inside this repository's workspace,
//! the lock file (the versions of the stemmer, the YAML parser, the NFKC tables) — so
//! that a catalogue snapshot (`Catalog::snapshot`) written by one build is refused by
//! another, even when both carry the same version number (what a snapshot holds — scan
//! findings, the ranking index — follows from the code that built it). A crate built from
//! the registry has no lock file beside it: there the digest covers the rest.
// The build script reads the crate's sources; the library itself does no IO.
#![allow(clippy::disallowed_methods)]
// A source it cannot read stops the build, loudly: a digest that missed one would be wrong.
#![allow(clippy::panic)]

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`. A folder that cannot be read stops the build: a digest
/// that missed a file would let two different builds share snapshots.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display())).path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn hash_file(path: &Path, hasher: &mut DefaultHasher) {
    path.hash(hasher);
    std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display())).hash(hasher);
}

fn main() {
    let mut files = Vec::new();
    sources(Path::new("src"), &mut files);
    files.sort();
    let mut hasher = DefaultHasher::new();
    for file in &files {
        hash_file(file, &mut hasher);
    }
    hash_file(Path::new("Cargo.toml"), &mut hasher);
    let lock = Path::new("../Cargo.lock");
    if lock.is_file() {
        hash_file(lock, &mut hasher);
        println!("cargo:rerun-if-changed=../Cargo.lock");
    }
    // The one feature that changes what a catalogue holds: `nfkc` folds names with the
    // crate's own tables (without it, with the host's). Others (`snapshot`, `arbitrary`)
    // add code, and builds of the CLI and the component must share snapshots.
    std::env::var_os("CARGO_FEATURE_NFKC").is_some().hash(&mut hasher);
    println!("cargo:rustc-env=SKILLWIRE_SOURCE_DIGEST={:016x}", hasher.finish());
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.toml");
}
