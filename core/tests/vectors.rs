//! Runs `tests/vectors/turns.json` through the native core: for each named case, the
//! catalogue report, the catalogue texts, the matches and the injection must equal the
//! expectation exactly. The same files are run by every other runtime.
//!
//! After an intended change, `SKILLWIRE_BLESS=1 cargo test -p skillwire --test vectors`
//! rewrites the expectations; review the diff before committing it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::disallowed_methods)] // test code: a failed unwrap is a failed test; tests read their vector files

use serde::Deserialize;
use serde_json::{json, Value};
use skillwire::{render_catalog, CatalogFormat, Engine, Options, SkillEntry, SkillSource, SourceError};
use std::path::PathBuf;

#[derive(Deserialize, Clone)]
struct VectorSkill {
    location: String,
    text: String,
    /// When set, listing gives the text but reading the body fails with this error.
    #[serde(default)]
    read_error: Option<String>,
}

struct VectorSource(Vec<VectorSkill>);

impl SkillSource for VectorSource {
    fn list(&self) -> Result<Vec<SkillEntry>, SourceError> {
        Ok(self.0.iter().map(|s| SkillEntry { location: s.location.clone(), text: Some(s.text.clone()) }).collect())
    }
    fn read(&self, location: &str) -> Result<String, SourceError> {
        let skill = self.0.iter().find(|s| s.location == location).ok_or_else(|| SourceError("missing".into()))?;
        match &skill.read_error {
            Some(e) => Err(SourceError(e.clone())),
            None => Ok(skill.text.clone()),
        }
    }
}

#[derive(Deserialize)]
struct CatalogRequest {
    format: CatalogFormat,
    #[serde(default)]
    budget: Option<usize>,
}

fn path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/turns.json")
}

/// Everything a case produces, as JSON.
fn run_case(case: &Value) -> Value {
    let sources: Vec<Vec<VectorSkill>> = serde_json::from_value(case["sources"].clone()).unwrap();
    let options: Options = serde_json::from_value(case.get("options").cloned().unwrap_or(json!({}))).unwrap();
    let engine = Engine::new(sources.into_iter().map(VectorSource).collect(), options);
    let mut out = serde_json::Map::new();
    out.insert("report".into(), serde_json::to_value(engine.catalog().report()).unwrap());
    if let Some(requests) = case.get("catalog") {
        let requests: Vec<CatalogRequest> = serde_json::from_value(requests.clone()).unwrap();
        let texts: Vec<Value> = requests
            .iter()
            .map(|r| {
                let mut v = serde_json::to_value(render_catalog(engine.catalog(), r.format, r.budget)).unwrap();
                v["format"] = serde_json::to_value(r.format).unwrap();
                v["budget"] = json!(r.budget);
                v
            })
            .collect();
        out.insert("catalog".into(), Value::Array(texts));
    }
    if let Some(message) = case.get("message").and_then(Value::as_str) {
        let matches = engine.matches(message).unwrap();
        out.insert("matches".into(), json!({ "matches": matches }));
        out.insert("injection".into(), serde_json::to_value(engine.inject(message).unwrap()).unwrap());
    }
    Value::Object(out)
}

#[test]
fn turn_vectors() {
    let text = std::fs::read_to_string(path()).unwrap();
    let mut doc: Value = serde_json::from_str(&text).unwrap();
    let bless = std::env::var_os("SKILLWIRE_BLESS").is_some();
    let cases = doc["cases"].as_array_mut().unwrap();
    assert!(cases.len() >= 20, "the vector file lost cases");
    let mut failures = Vec::new();
    for case in cases.iter_mut() {
        let name = case["name"].as_str().unwrap().to_owned();
        let got = run_case(case);
        if bless {
            case["expect"] = got;
        } else if case["expect"] != got {
            failures.push(format!(
                "{name}:\n  want {}\n  got  {}",
                serde_json::to_string(&case["expect"]).unwrap(),
                serde_json::to_string(&got).unwrap()
            ));
        }
    }
    if bless {
        std::fs::write(path(), serde_json::to_string_pretty(&doc).unwrap() + "\n").unwrap();
    }
    assert!(failures.is_empty(), "{} vector(s) failed:\n{}", failures.len(), failures.join("\n"));
}
