//! Runs `tests/vectors/conformance.json` (the reference validator's tests and probes)
//! against the core: lint messages and the `skills-ref` catalogue, byte for byte.
//! Cases that need a real folder (`fs_only`) run in `host/tests/cli.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::disallowed_methods)] // test code: a failed unwrap is a failed test; tests read their vector files

use serde_json::Value;
use skillwire::{lint, render_catalog, Catalog, CatalogFormat, CatalogOptions, Limits, MemorySource};
use std::path::Path;

fn vectors() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/conformance.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn skill_file<'a>(files: &'a serde_json::Map<String, Value>, dir: &str) -> Option<(String, &'a str)> {
    ["SKILL.md", "skill.md"].iter().find_map(|name| {
        let rel = format!("{dir}/{name}");
        files.get(&rel).and_then(Value::as_str).map(|text| (format!("{{ROOT}}/{rel}"), text))
    })
}

#[test]
fn conformance_vectors_match_byte_for_byte() {
    let doc = vectors();
    let cases = doc["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 94, "40 reference tests and 54 probes");
    let mut ran = 0;
    for case in cases {
        let name = case["case"].as_str().unwrap();
        if case["fs_only"].as_bool().unwrap() {
            continue;
        }
        let files = case["files"].as_object().unwrap();
        if let Some(dir) = case["lint"].as_str() {
            let (location, text) = skill_file(files, dir).unwrap();
            let got = lint(&location, text, &Limits::default()).errors;
            let want: Vec<String> = serde_json::from_value(case["skillwire"]["validate"].clone()).unwrap();
            assert_eq!(got, want, "lint of {name}");
        }
        if let Some(dirs) = case["prompt"].as_array() {
            let source: MemorySource = dirs.iter().map(|d| skill_file(files, d.as_str().unwrap()).unwrap()).collect();
            let catalog = Catalog::from_sources(&[source], &CatalogOptions::default());
            let got = render_catalog(&catalog, CatalogFormat::SkillsRef, None).text;
            assert_eq!(got, case["skillwire"]["to_prompt"].as_str().unwrap(), "to-prompt of {name}");
        }
        ran += 1;
    }
    assert!(ran >= 85, "only {ran} cases ran");
}

#[test]
fn every_difference_from_the_reference_is_documented() {
    let table = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/conformance.md")).unwrap();
    let doc = vectors();
    let mut divergent = 0;
    for case in doc["cases"].as_array().unwrap() {
        let name = case["case"].as_str().unwrap();
        let (reference, ours) = (&case["reference"], &case["skillwire"]);
        let agrees = reference.get("validate") == ours.get("validate")
            && reference.get("to_prompt") == ours.get("to_prompt")
            && reference.get("to_prompt_error").is_none();
        match case.get("divergence").and_then(Value::as_array) {
            None => assert!(agrees, "{name} differs from the reference without a documented divergence"),
            Some(ids) => {
                assert!(!agrees, "{name} agrees with the reference but is listed as divergent");
                divergent += 1;
                for id in ids {
                    let id = id.as_str().unwrap();
                    assert!(
                        table.contains(&format!("| `{id}` |")),
                        "{name}: divergence {id} not in docs/conformance.md"
                    );
                    assert!(table.contains(name), "{name} not listed in docs/conformance.md");
                }
            }
        }
    }
    assert!(table.contains(&format!("{divergent} differ")), "docs/conformance.md should say {divergent} cases differ");
}
