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
    copies(size, false)
}

/// [`inputs`], with each copy's description made its own by a first word naming the copy
/// (`c1 Fill PDF forms…`): a catalogue of that many different descriptions, as a real
/// one has (the copies in [`inputs`] share their originals' descriptions, which the rule
/// automaton then holds once).
pub fn inputs_with_distinct_descriptions(size: usize) -> Vec<CatalogInput> {
    copies(size, true)
}

fn copies(size: usize, distinct_descriptions: bool) -> Vec<CatalogInput> {
    let mut files = Vec::new();
    corpus_files(&shared().join("corpus"), &mut files);
    files.sort();
    let texts: Vec<String> = files.iter().map(|f| std::fs::read_to_string(f).unwrap()).collect();
    (0..size)
        .map(|i| {
            let mut text = texts[i % texts.len()].clone();
            let copy = i / texts.len();
            // Copies get their own names (and folders), so nothing is shadowed.
            if copy > 0 {
                text = text.replacen("\nname: ", &format!("\nname: c{copy}-"), 1);
            }
            if copy > 0 && distinct_descriptions {
                text = with_first_word(&text, &format!("c{copy}"));
            }
            CatalogInput { source: 0, id: None, origin: None, location: format!("s/{i}/SKILL.md"), text: Ok(text) }
        })
        .collect()
}

/// `text` (a SKILL.md) with `word` first in its description: plain or quoted, the word
/// goes first (inside the quotes); a block scalar (`>`, `|`): at the start of its first line.
pub fn with_first_word(text: &str, word: &str) -> String {
    let mut text = text.to_owned();
    let at = text.find("\ndescription:").unwrap() + "\ndescription:".len();
    let value = text[at..].trim_start_matches(' ');
    let start = text.len() - value.len();
    let insert = match value.chars().next().unwrap() {
        '"' | '\'' => start + 1,
        '>' | '|' => {
            let line = start + value.find('\n').unwrap() + 1;
            line + text[line..].len() - text[line..].trim_start_matches(' ').len()
        }
        _ => start,
    };
    text.insert_str(insert, &format!("{word} "));
    text
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
