//! The runner of the turn vectors (`tests/vectors/turns/*.toml`, one file per topic; their
//! form is described in `vector_toml.rs`),
//! shared by every Rust runtime's tests (the native core in `host/tests/vectors.rs`, the
//! component in `host/tests/wasm.rs`): each
//! runtime is a [`Backend`], and each case's report, catalogue texts, matches,
//! injection, completions, selection prompts and replies, and tools must equal the
//! expectation exactly.

#[path = "vector_toml.rs"]
mod vector_toml;

use serde::Deserialize;
use serde::Serialize;
use serde_json::{json, Value};
use skillwire::{
    CatalogFormat, ListedFile, Options, Provider, SelectOptions, SkillEntry, SkillSource, SkillStats, SourceError,
    ToolOptions, TurnContext,
};
use skillwire_host::wasm::WasmError;
use skillwire_host::Backend;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One skill of a vector: where it lives and its text.
#[derive(Deserialize, Clone)]
pub struct VectorSkill {
    location: String,
    text: String,
    /// When set, listing gives the text but reading the body fails with this error.
    #[serde(default)]
    read_error: Option<String>,
    /// When set, listing gives `text` but reading gives this (the file changed since).
    #[serde(default)]
    read_text: Option<String>,
    /// The other files of the skill's folder: path → contents (`\u0000` makes one binary).
    #[serde(default)]
    files: BTreeMap<String, String>,
    /// Where the skill comes from, when not the host's own store.
    #[serde(default)]
    origin: Option<String>,
    /// The host's id for the skill.
    #[serde(default)]
    id: Option<String>,
}

/// A source made of a vector's skills.
pub struct VectorSource(Vec<VectorSkill>);

impl SkillSource for VectorSource {
    fn list(&self) -> Result<Vec<SkillEntry>, SourceError> {
        Ok(self
            .0
            .iter()
            .map(|s| SkillEntry {
                origin: s.origin.clone(),
                id: s.id.clone(),
                ..SkillEntry::new(s.location.clone()).with_text(s.text.clone())
            })
            .collect())
    }
    fn read(&self, location: &str) -> Result<String, SourceError> {
        let skill = self.skill(location)?;
        match &skill.read_error {
            Some(e) => Err(SourceError::new(e.clone())),
            None => Ok(skill.read_text.clone().unwrap_or_else(|| skill.text.clone())),
        }
    }
    fn list_files(&self, location: &str) -> Result<Vec<ListedFile>, SourceError> {
        let skill = self.skill(location)?;
        let skill_md = ListedFile { path: "SKILL.md".to_owned(), size: skill.text.len() as u64 };
        let others = skill.files.iter().map(|(path, text)| ListedFile { path: path.clone(), size: text.len() as u64 });
        Ok(std::iter::once(skill_md).chain(others).collect())
    }
    fn read_file(&self, location: &str, path: &str, max_bytes: usize) -> Result<Vec<u8>, SourceError> {
        let skill = self.skill(location)?;
        let text = match path {
            "SKILL.md" => &skill.text,
            _ => skill.files.get(path).ok_or_else(|| SourceError::new(format!("no file {path}")))?,
        };
        Ok(text.bytes().take(max_bytes.saturating_add(1)).collect())
    }
}

impl VectorSource {
    fn skill(&self, location: &str) -> Result<&VectorSkill, SourceError> {
        self.0.iter().find(|s| s.location == location).ok_or_else(|| SourceError::new("missing"))
    }
}

#[derive(Deserialize)]
struct ReadFileRequest {
    skill: String,
    path: String,
}

#[derive(Deserialize)]
struct SelectPromptRequest {
    message: String,
    #[serde(default)]
    turn: TurnContext,
    #[serde(default)]
    stats: Vec<SkillStats>,
    #[serde(default)]
    options: SelectOptions,
}

#[derive(Deserialize)]
struct SelectParseRequest {
    reply: String,
    max_skills: usize,
}

#[derive(Deserialize)]
struct InjectSelectedRequest {
    message: String,
    selected: Vec<String>,
    #[serde(default)]
    turn: TurnContext,
}

#[derive(Deserialize)]
struct ToolsRequest {
    #[serde(default)]
    exclude: Vec<String>,
}

#[derive(Deserialize)]
struct CompleteRequest {
    typed: String,
    limit: usize,
}

#[derive(Deserialize)]
struct CatalogForRequest {
    message: String,
    #[serde(default)]
    turn: TurnContext,
    featured: usize,
    format: CatalogFormat,
    #[serde(default)]
    budget: Option<usize>,
}

#[derive(Deserialize)]
struct CatalogRequest {
    format: CatalogFormat,
    #[serde(default)]
    budget: Option<usize>,
}

/// The folder of turn vector files, one per topic.
fn folder() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/turns")
}

/// The vector files, by name.
fn files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
}

/// Everything a case produces, as JSON.
pub fn run_case(case: &Value, make: &mut dyn FnMut(Vec<VectorSource>, Options) -> Box<dyn Backend>) -> Value {
    let sources: Vec<Vec<VectorSkill>> = serde_json::from_value(case["sources"].clone()).unwrap();
    let options: Options = serde_json::from_value(case.get("options").cloned().unwrap_or(json!({}))).unwrap();
    let mut runtime = make(sources.into_iter().map(VectorSource).collect(), options);
    let mut out = serde_json::Map::new();
    out.insert("report".into(), json_of(runtime.report().unwrap()));
    if let Some(requests) = case.get("catalog") {
        let requests: Vec<CatalogRequest> = serde_json::from_value(requests.clone()).unwrap();
        let texts: Vec<Value> = requests
            .iter()
            .map(|r| {
                let mut v = json_of(runtime.catalog_text(r.format, r.budget).unwrap());
                v["format"] = serde_json::to_value(r.format).unwrap();
                v["budget"] = json!(r.budget);
                v
            })
            .collect();
        out.insert("catalog".into(), Value::Array(texts));
    }
    if let Some(requests) = case.get("catalog_for") {
        let requests: Vec<CatalogForRequest> = serde_json::from_value(requests.clone()).unwrap();
        let answers = requests
            .iter()
            .map(|r| answer(runtime.catalog_for(&r.message, &r.turn, r.featured, r.format, r.budget)))
            .collect();
        out.insert("catalog_for".into(), Value::Array(answers));
    }
    if let Some(requests) = case.get("complete") {
        let requests: Vec<CompleteRequest> = serde_json::from_value(requests.clone()).unwrap();
        let lists: Vec<Value> =
            requests.iter().map(|r| json_of(runtime.complete(&r.typed, r.limit).unwrap())).collect();
        out.insert("complete".into(), Value::Array(lists));
    }
    if let Some(requests) = case.get("select_prompt") {
        let requests: Vec<SelectPromptRequest> = serde_json::from_value(requests.clone()).unwrap();
        let answers =
            requests.iter().map(|r| answer(runtime.select_prompt(&r.message, &r.turn, &r.stats, &r.options))).collect();
        out.insert("select_prompt".into(), Value::Array(answers));
    }
    if let Some(requests) = case.get("select_parse") {
        let requests: Vec<SelectParseRequest> = serde_json::from_value(requests.clone()).unwrap();
        let answers = requests.iter().map(|r| answer(runtime.select_parse(&r.reply, r.max_skills))).collect();
        out.insert("select_parse".into(), Value::Array(answers));
    }
    if let Some(requests) = case.get("inject_selected") {
        let requests: Vec<InjectSelectedRequest> = serde_json::from_value(requests.clone()).unwrap();
        let answers = requests
            .iter()
            .map(|r| {
                let context = TurnContext { selected: Some(r.selected.clone()), ..r.turn.clone() };
                answer(runtime.inject(&r.message, &context))
            })
            .collect();
        out.insert("inject_selected".into(), Value::Array(answers));
    }
    if let Some(requests) = case.get("tools") {
        let requests: Vec<ToolsRequest> = serde_json::from_value(requests.clone()).unwrap();
        let answers = requests
            .iter()
            .map(|r| {
                let options = ToolOptions { exclude: r.exclude.clone() };
                json!({
                    "tools": runtime.tools(&options).unwrap(),
                    "openai": runtime.tool_definitions(Provider::OpenAi, &options).unwrap(),
                    "anthropic": runtime.tool_definitions(Provider::Anthropic, &options).unwrap(),
                })
            })
            .collect();
        out.insert("tools".into(), Value::Array(answers));
    }
    if let Some(skills) = case.get("files") {
        let skills: Vec<String> = serde_json::from_value(skills.clone()).unwrap();
        out.insert("files".into(), skills.iter().map(|skill| answer(runtime.files(skill))).collect());
    }
    if let Some(requests) = case.get("read_files") {
        let requests: Vec<ReadFileRequest> = serde_json::from_value(requests.clone()).unwrap();
        let answers = requests.iter().map(|r| answer(runtime.read_file(&r.skill, &r.path))).collect();
        out.insert("read_files".into(), Value::Array(answers));
    }
    if let Some(calls) = case.get("read_file_calls") {
        let calls: Vec<String> = serde_json::from_value(calls.clone()).unwrap();
        out.insert("read_file_calls".into(), calls.iter().map(|c| answer(runtime.answer_read_file(c))).collect());
    }
    if let Some(vectors) = case.get("embeddings") {
        let vectors: Vec<(String, Vec<f32>)> = serde_json::from_value(vectors.clone()).unwrap();
        out.insert("embeddings".into(), answer(runtime.set_embeddings(vectors)));
    }
    if let Some(message) = case.get("message").and_then(Value::as_str) {
        let context: TurnContext = serde_json::from_value(case.get("turn").cloned().unwrap_or(json!({}))).unwrap();
        out.insert(
            "matches".into(),
            answer(runtime.matches(message, &context).map(|matches| json!({ "matches": matches }))),
        );
        out.insert("injection".into(), answer(runtime.inject(message, &context)));
    }
    Value::Object(out)
}

/// A result as the vectors record it: the value, or `{"error": code, "message"}` for
/// the engine's refusals (a trap or a limit fails the test).
fn answer<T: Serialize>(result: Result<T, WasmError>) -> Value {
    match result {
        Ok(value) => json_of(value),
        Err(WasmError::Engine(e)) => json!({ "error": e.code(), "message": e.to_string() }),
        Err(WasmError::File(e)) => json!({ "error": e.code(), "message": e.to_string() }),
        Err(e) => panic!("the call failed: {e}"),
    }
}

fn json_of<T: Serialize>(value: T) -> Value {
    serde_json::to_value(value).unwrap()
}

/// Runs every case of every file; with `bless`, rewrites the expectations instead.
pub fn run_all(bless: bool, make: &mut dyn FnMut(Vec<VectorSource>, Options) -> Box<dyn Backend>) {
    let mut failures = Vec::new();
    let mut count = 0;
    for file in files() {
        let text = std::fs::read_to_string(&file).unwrap();
        let topic = file.file_stem().unwrap().to_string_lossy().into_owned();
        let cases = vector_toml::cases(&text, &topic);
        let mut sections = Vec::new();
        let mut gots = Vec::new();
        for case in &cases {
            count += 1;
            let name = case["name"].as_str().unwrap().to_owned();
            let got = vector_toml::compact(&run_case(case, make));
            let want = vector_toml::compact(case.get("expect").unwrap_or(&json!({})));
            if bless {
                sections.push(vector_toml::expect_section(&got));
                gots.push(got);
            } else if want != got {
                failures.push(format!(
                    "{topic}/{name}: want\n{}\ngot\n{}",
                    vector_toml::expect_section(&want),
                    vector_toml::expect_section(&got)
                ));
            }
        }
        if bless {
            let blessed = vector_toml::splice(&text, &sections);
            // The rewrite must keep every input and read back as what was written.
            let after = vector_toml::cases(&blessed, &topic);
            assert_eq!(cases.len(), after.len(), "{topic}: blessing lost cases");
            for ((old, new), got) in cases.iter().zip(&after).zip(&gots) {
                let inputs = |case: &Value| {
                    let mut case = case.clone();
                    case.as_object_mut().unwrap().remove("expect");
                    case
                };
                assert_eq!(inputs(old), inputs(new), "{topic}: blessing changed the inputs of {}", old["name"]);
                assert_eq!(&new["expect"], got, "{topic}: {} does not read back as blessed", old["name"]);
            }
            std::fs::write(&file, blessed).unwrap();
        }
    }
    assert!(count >= 60, "the vector files lost cases: {count}");
    assert!(failures.is_empty(), "{} vector(s) failed:\n{}", failures.len(), failures.join("\n"));
}
