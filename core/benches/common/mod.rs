//! The inputs the benchmarks share: catalogues made from the real corpus in
//! `../shared/corpus` (or `$SKILLWIRE_SHARED/corpus`), repeated with renamed copies past
//! its size, and messages made from the labelled dev messages.
#![allow(dead_code, clippy::unwrap_used, clippy::indexing_slicing, clippy::disallowed_methods)] // bench code; each benchmark uses part of it

use skillwire::CatalogInput;
use std::path::{Path, PathBuf};

/// Every SKILL.md under `dir`.
pub fn corpus_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            corpus_files(&path, out);
        } else if path.file_name().is_some_and(|n| n == "SKILL.md") {
            out.push(path);
        }
    }
}

/// The folder of the real packs and labelled messages.
pub fn shared() -> PathBuf {
    let dir = std::env::var_os("SKILLWIRE_SHARED")
        .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"), PathBuf::from);
    assert!(dir.join("corpus").is_dir(), "the benchmark reads {}/corpus: set SKILLWIRE_SHARED", dir.display());
    dir
}

/// A catalogue of `size` entries: the corpus, then renamed copies (nothing is shadowed).
pub fn inputs(size: usize) -> Vec<CatalogInput> {
    let mut files = Vec::new();
    corpus_files(&shared().join("corpus"), &mut files);
    files.sort();
    let texts: Vec<String> = files.iter().map(|f| std::fs::read_to_string(f).unwrap()).collect();
    (0..size)
        .map(|i| {
            let text = &texts[i % texts.len()];
            let copy = i / texts.len();
            // Copies get their own names (and folders), so nothing is shadowed.
            let text =
                if copy == 0 { text.clone() } else { text.replacen("\nname: ", &format!("\nname: c{copy}-"), 1) };
            CatalogInput { source: 0, id: None, origin: None, location: format!("s/{i}/SKILL.md"), text: Ok(text) }
        })
        .collect()
}

/// A message of about `bytes` bytes made of dev messages.
pub fn message(bytes: usize) -> String {
    let dev = std::fs::read_to_string(shared().join("queries/dev.jsonl")).unwrap();
    let mut out = String::new();
    for line in dev.lines().cycle() {
        let q = line.split("\"q\": \"").nth(1).and_then(|r| r.split('"').next()).unwrap_or("");
        if out.len() + q.len() + 1 > bytes {
            break;
        }
        out.push_str(q);
        out.push(' ');
    }
    out
}
