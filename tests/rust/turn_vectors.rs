//! The runner of `tests/vectors/turns.json`, shared by every Rust runtime's tests (the
//! native core in `core/tests/vectors.rs`, the component in `host/tests/wasm.rs`): a
//! runtime provides a [`Runtime`], and each case's report, catalogue texts, matches,
//! injection, completions, selection prompts and replies, and tools must equal the
//! expectation exactly.

use serde::Deserialize;
use serde_json::{json, Value};
use skillwire::{
    CatalogFormat, Error, Options, Provider, SelectOptions, SkillEntry, SkillSource, SkillStats, SourceError,
    TurnContext,
};
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
}

/// A source made of a vector's skills.
pub struct VectorSource(Vec<VectorSkill>);

impl SkillSource for VectorSource {
    fn list(&self) -> Result<Vec<SkillEntry>, SourceError> {
        Ok(self.0.iter().map(|s| SkillEntry { location: s.location.clone(), text: Some(s.text.clone()) }).collect())
    }
    fn read(&self, location: &str) -> Result<String, SourceError> {
        let skill = self.0.iter().find(|s| s.location == location).ok_or_else(|| SourceError("missing".into()))?;
        match &skill.read_error {
            Some(e) => Err(SourceError(e.clone())),
            None => Ok(skill.read_text.clone().unwrap_or_else(|| skill.text.clone())),
        }
    }
}

/// What a runtime must do for the vectors, answering in the core's JSON shapes.
pub trait Runtime {
    /// The catalogue report.
    fn report(&mut self) -> Value;
    /// One catalogue text (`CatalogText` as JSON).
    fn catalog(&mut self, format: CatalogFormat, budget: Option<usize>) -> Value;
    /// The catalogue for a turn on a message (`CatalogText` as JSON).
    fn catalog_for(&mut self, request: &CatalogForRequest) -> Result<Value, Error>;
    /// Sets the skills' embeddings; how many skills have one.
    fn set_embeddings(&mut self, vectors: Vec<(String, Vec<f32>)>) -> Result<usize, Error>;
    /// The `Matches` of a message, in a turn that knows the conversation.
    fn matches(&mut self, message: &str, context: &TurnContext) -> Result<Value, Error>;
    /// The `Injection` of a message, in a turn that knows the conversation.
    fn inject(&mut self, message: &str, context: &TurnContext) -> Result<Value, Error>;
    /// The completions (`[Completion]` as JSON) for what was typed after `@`.
    fn complete(&mut self, typed: &str, limit: usize) -> Value;
    /// The `SelectPrompt` for a message.
    fn select_prompt(
        &mut self,
        message: &str,
        context: &TurnContext,
        stats: &[SkillStats],
        options: &SelectOptions,
    ) -> Result<Value, Error>;
    /// The `Selection` read from a model's reply.
    fn select_parse(&mut self, reply: &str, max_skills: usize) -> Result<Value, Error>;
    /// The `Injection` of a turn on the skills a model selected.
    fn inject_selected(&mut self, message: &str, selected: &[String], context: &TurnContext) -> Result<Value, Error>;
    /// The skills as tools (`[SkillTool]`).
    fn tools(&mut self, exclude: &[String]) -> Value;
    /// The tools in a provider's shape (`[ToolDefinition]`).
    fn tool_definitions(&mut self, provider: Provider, exclude: &[String]) -> Value;
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

/// A request for the catalogue of one turn.
#[derive(Deserialize)]
pub struct CatalogForRequest {
    /// The message.
    pub message: String,
    /// The turn's context.
    #[serde(default)]
    pub turn: TurnContext,
    /// How many skills keep their descriptions.
    pub featured: usize,
    /// The format.
    pub format: CatalogFormat,
    /// The budget, if any.
    #[serde(default)]
    pub budget: Option<usize>,
}

#[derive(Deserialize)]
struct CatalogRequest {
    format: CatalogFormat,
    #[serde(default)]
    budget: Option<usize>,
}

pub fn path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/turns.json")
}

/// Everything a case produces, as JSON.
pub fn run_case(case: &Value, make: &mut dyn FnMut(Vec<VectorSource>, Options) -> Box<dyn Runtime>) -> Value {
    let sources: Vec<Vec<VectorSkill>> = serde_json::from_value(case["sources"].clone()).unwrap();
    let options: Options = serde_json::from_value(case.get("options").cloned().unwrap_or(json!({}))).unwrap();
    let mut runtime = make(sources.into_iter().map(VectorSource).collect(), options);
    let mut out = serde_json::Map::new();
    out.insert("report".into(), runtime.report());
    if let Some(requests) = case.get("catalog") {
        let requests: Vec<CatalogRequest> = serde_json::from_value(requests.clone()).unwrap();
        let texts: Vec<Value> = requests
            .iter()
            .map(|r| {
                let mut v = runtime.catalog(r.format, r.budget);
                v["format"] = serde_json::to_value(r.format).unwrap();
                v["budget"] = json!(r.budget);
                v
            })
            .collect();
        out.insert("catalog".into(), Value::Array(texts));
    }
    if let Some(requests) = case.get("catalog_for") {
        let requests: Vec<CatalogForRequest> = serde_json::from_value(requests.clone()).unwrap();
        let answers = requests.iter().map(|r| answer(runtime.catalog_for(r))).collect();
        out.insert("catalog_for".into(), Value::Array(answers));
    }
    if let Some(requests) = case.get("complete") {
        let requests: Vec<CompleteRequest> = serde_json::from_value(requests.clone()).unwrap();
        let lists: Vec<Value> = requests.iter().map(|r| runtime.complete(&r.typed, r.limit)).collect();
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
        let answers =
            requests.iter().map(|r| answer(runtime.inject_selected(&r.message, &r.selected, &r.turn))).collect();
        out.insert("inject_selected".into(), Value::Array(answers));
    }
    if let Some(requests) = case.get("tools") {
        let requests: Vec<ToolsRequest> = serde_json::from_value(requests.clone()).unwrap();
        let answers = requests
            .iter()
            .map(|r| {
                json!({
                    "tools": runtime.tools(&r.exclude),
                    "openai": runtime.tool_definitions(Provider::OpenAi, &r.exclude),
                    "anthropic": runtime.tool_definitions(Provider::Anthropic, &r.exclude),
                })
            })
            .collect();
        out.insert("tools".into(), Value::Array(answers));
    }
    if let Some(vectors) = case.get("embeddings") {
        let vectors: Vec<(String, Vec<f32>)> = serde_json::from_value(vectors.clone()).unwrap();
        out.insert("embeddings".into(), answer(runtime.set_embeddings(vectors).map(|n| json!(n))));
    }
    if let Some(message) = case.get("message").and_then(Value::as_str) {
        let context: TurnContext = serde_json::from_value(case.get("turn").cloned().unwrap_or(json!({}))).unwrap();
        out.insert("matches".into(), answer(runtime.matches(message, &context)));
        out.insert("injection".into(), answer(runtime.inject(message, &context)));
    }
    Value::Object(out)
}

/// A result as the vectors record it: the value, or `{"error": code, "message"}`.
fn answer(result: Result<Value, Error>) -> Value {
    result.unwrap_or_else(|e| json!({ "error": e.code(), "message": e.to_string() }))
}

/// Runs every case; with `bless`, rewrites the expectations instead.
pub fn run_all(bless: bool, make: &mut dyn FnMut(Vec<VectorSource>, Options) -> Box<dyn Runtime>) {
    let text = std::fs::read_to_string(path()).unwrap();
    let mut doc: Value = serde_json::from_str(&text).unwrap();
    let cases = doc["cases"].as_array_mut().unwrap();
    assert!(cases.len() >= 20, "the vector file lost cases");
    let mut failures = Vec::new();
    for case in cases.iter_mut() {
        let name = case["name"].as_str().unwrap().to_owned();
        let got = run_case(case, make);
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
