//! Frontmatter read the fast way and by the YAML parser gives the same skills.
//!
//! Most frontmatter (one-line `key: value` entries, nested mappings of the same kind) is
//! read without the YAML parser; a comment line sends a frontmatter to the parser (the
//! unit tests in `skill/yaml` pin that, check that simple frontmatter is read the fast
//! way, and compare the two readings on generated documents). Here every real SKILL.md in `../shared` is loaded and linted as written and
//! with a comment line added at the end of its frontmatter, and the answers must agree.
#![allow(clippy::unwrap_used, clippy::disallowed_methods)] // test code reads the shared corpus

mod common;

use common::{shared, skill_files};
use skillwire::{lint, load, Limits};

/// `text` with a comment line before the line that closes its frontmatter, in the file's
/// own line ending; `None` when it has no frontmatter.
fn with_comment_at_the_end(text: &str) -> Option<String> {
    let first_end = text.find('\n')?;
    let ending = if text[..first_end].ends_with('\r') { "\r\n" } else { "\n" };
    let mut at = first_end + 1;
    while at < text.len() {
        let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
        if text[at..end].trim_end_matches([' ', '\t', '\r']) == "---" {
            return Some(format!("{}# read by the YAML parser{ending}{}", &text[..at], &text[at..]));
        }
        at = end + 1;
    }
    None
}

#[test]
fn every_shared_skill_loads_and_lints_the_same_either_way() {
    let shared = shared();
    let mut files = Vec::new();
    skill_files(&shared.join("corpus"), &mut files);
    skill_files(&shared.join("eval"), &mut files);
    assert!(files.len() > 400, "read {} SKILL.md files under {}", files.len(), shared.display());
    let limits = Limits::default();
    let mut compared = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let Some(commented) = with_comment_at_the_end(&text) else { continue };
        let location = file.display().to_string();
        assert_eq!(load(&location, &text, &limits), load(&location, &commented, &limits), "{location}");
        assert_eq!(lint(&location, &text, &limits), lint(&location, &commented, &limits), "{location}");
        compared += 1;
    }
    // Nearly every file has a frontmatter to compare (the corpus was read, not skipped).
    assert!(compared * 10 >= files.len() * 9, "compared {compared} of {} files", files.len());
}
