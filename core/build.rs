//! Build script: a digest of this crate's sources, so that a catalogue snapshot
//! (`Catalog::snapshot`) written by one build is refused by a build of other code, even
//! when both carry the same version number (what a snapshot holds — scan findings, the
//! ranking index — follows from the code that built it).
// The build script reads the crate's sources; the library itself does no IO.
#![allow(clippy::disallowed_methods)]

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn main() {
    let src = Path::new("src");
    let mut files = Vec::new();
    sources(src, &mut files);
    files.sort();
    let mut hasher = DefaultHasher::new();
    for file in &files {
        file.hash(&mut hasher);
        std::fs::read(file).unwrap_or_default().hash(&mut hasher);
    }
    println!("cargo:rustc-env=SKILLWIRE_SOURCE_DIGEST={:016x}", hasher.finish());
    println!("cargo:rerun-if-changed=src");
}
