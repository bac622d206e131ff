//! skillwire's WebAssembly component: the WIT world `skillwire-component`
//! (`wit/skillwire.wit`) implemented over the core. Glue only: each export calls the
//! core's `Engine` and crosses its values through `wasm/convert.rs` (shared with the
//! wasmtime host), and a `SkillSource` calls the host's imports. Every rule lives in the
//! `skillwire` crate.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

wit_bindgen::generate!({
    path: "../../wit",
    world: "skillwire-component",
});

use exports::skillwire::engine::api::{self, GuestEngine, GuestPartsBuild};
use skillwire::engine::skill_source as host;
use skillwire::engine::types as wit;

// The core crate, renamed in Cargo.toml: the generated module `skillwire` (the WIT
// package's namespace) would shadow it.
use skillwire_core as core;
use std::cell::RefCell;

#[path = "../../convert.rs"]
mod convert;
use convert::Cross;

/// A host source, seen by the core.
struct HostSource(u32);

impl core::SkillSource for HostSource {
    fn list(&self) -> Result<Vec<core::SkillEntry>, core::SourceError> {
        host::list(self.0).map(Cross::cross).map_err(core::SourceError::new)
    }

    fn read(&self, location: &str) -> Result<String, core::SourceError> {
        host::read(self.0, location).map_err(Cross::cross)
    }

    fn list_files(&self, location: &str) -> Result<Vec<core::ListedFile>, core::SourceError> {
        host::list_files(self.0, location).map(Cross::cross).map_err(core::SourceError::new)
    }

    fn read_file(&self, location: &str, path: &str, max_bytes: usize) -> Result<Vec<u8>, core::SourceError> {
        host::read_file(self.0, location, path, max_bytes.cross()).map_err(core::SourceError::new)
    }
}

struct Component;

/// The exported resource; `refresh` needs to rebuild through `&self`.
struct Engine(RefCell<core::Engine<HostSource>>);

/// The exported parts build; `take` adds to it through `&self`.
struct PartsBuild(RefCell<core::PartsBuild>);

impl GuestPartsBuild for PartsBuild {
    fn new(options: wit::Options) -> Self {
        let options: core::Options = options.cross();
        PartsBuild(RefCell::new(core::PartsBuild::new(&options.catalog)))
    }

    fn take(&self, part: Vec<u8>) -> Result<(), String> {
        self.0.borrow_mut().take(part).map_err(|why| why.to_string())
    }
}

impl api::Guest for Component {
    type Engine = Engine;
    type PartsBuild = PartsBuild;

    fn read_file_tool(provider: wit::Provider) -> String {
        // Serialising a JSON value cannot fail.
        serde_json::to_string(&core::read_file_tool(provider.cross())).unwrap_or_default()
    }

    fn defaults() -> wit::EngineDefaults {
        core::Defaults::default().cross()
    }

    fn default_options() -> wit::Options {
        core::Options::default().cross()
    }

    fn prepare_part(sources: u32, options: wit::Options) -> Result<Vec<u8>, String> {
        let sources: Vec<HostSource> = (0..sources).map(HostSource).collect();
        let options: core::Options = options.cross();
        core::Catalog::prepare_part(&sources, &options.catalog).map_err(|e| e.to_string())
    }

    fn lint(
        location: String,
        text: String,
        extensions: bool,
        limits: Option<wit::Limits>,
        scan: Option<wit::ScanPolicy>,
        files: Option<Vec<String>>,
    ) -> wit::LintReport {
        let options = core::LintOptions {
            limits: limits.cross().unwrap_or_default(),
            extensions,
            scan: scan.cross().unwrap_or_default(),
            files,
        };
        core::lint_with(&location, &text, &options).cross()
    }
}

impl GuestEngine for Engine {
    fn new(sources: u32, options: wit::Options) -> Self {
        Engine(RefCell::new(core::Engine::new((0..sources).map(HostSource).collect(), options.cross())))
    }

    fn restore_or_build(
        sources: u32,
        options: wit::Options,
        snapshot: Vec<u8>,
        key: String,
    ) -> (api::Engine, Option<String>) {
        let sources = (0..sources).map(HostSource).collect();
        let (engine, restored) = core::Engine::restore_or_build(sources, options.cross(), &snapshot, &key);
        (api::Engine::new(Engine(RefCell::new(engine))), restored.err().map(|why| why.to_string()))
    }

    fn from_parts(sources: u32, options: wit::Options, parts: Vec<Vec<u8>>) -> (api::Engine, Option<String>) {
        let sources = (0..sources).map(HostSource).collect();
        let (engine, taken) = core::Engine::from_parts(sources, options.cross(), parts);
        (api::Engine::new(Engine(RefCell::new(engine))), taken.err().map(|why| why.to_string()))
    }

    fn from_parts_build(sources: u32, options: wit::Options, build: api::PartsBuild) -> (api::Engine, Option<String>) {
        let sources = (0..sources).map(HostSource).collect();
        let build = build.into_inner::<PartsBuild>().0.into_inner();
        let (engine, taken) = core::Engine::from_parts_build(sources, options.cross(), build);
        (api::Engine::new(Engine(RefCell::new(engine))), taken.err().map(|why| why.to_string()))
    }

    fn snapshot(&self, key: String) -> Result<Vec<u8>, String> {
        self.0.borrow().snapshot(&key).map_err(|e| e.to_string())
    }

    fn refresh(&self) {
        self.0.borrow_mut().refresh();
    }

    fn update(&self, source: u32, entry: wit::SkillEntry) -> bool {
        self.0.borrow_mut().update(source as usize, entry.cross())
    }

    fn remove(&self, source: u32, location: String) -> bool {
        self.0.borrow_mut().remove(source as usize, &location)
    }

    fn report(&self) -> wit::CatalogReport {
        self.0.borrow().catalog().report().clone().cross()
    }

    fn embedding_texts(&self) -> Vec<wit::EmbeddingText> {
        self.0.borrow().embedding_texts().cross()
    }

    fn set_embeddings(&self, vectors: Vec<(String, Vec<f32>)>) -> Result<u32, wit::Error> {
        self.0.borrow_mut().set_embeddings(vectors).map(Cross::cross).map_err(Cross::cross)
    }

    fn match_(&self, message: String, turn: wit::TurnContext) -> Result<Vec<wit::SkillMatch>, wit::Error> {
        let turn = self.0.borrow().turn(&message, &turn.cross());
        turn.map(|t| t.matches().cross()).map_err(Cross::cross)
    }

    fn inject(&self, message: String, turn: wit::TurnContext) -> Result<wit::Injection, wit::Error> {
        self.0.borrow().inject(&message, &turn.cross()).map(Cross::cross).map_err(Cross::cross)
    }

    fn select_prompt(
        &self,
        message: String,
        turn: wit::TurnContext,
        stats: Vec<wit::SkillStats>,
        options: wit::SelectOptions,
    ) -> Result<wit::SelectPrompt, wit::Error> {
        let stats: Vec<core::SkillStats> = stats.cross();
        let prompt = self.0.borrow().select_prompt(&message, &turn.cross(), &stats, &options.cross());
        prompt.map(Cross::cross).map_err(Cross::cross)
    }

    fn select_parse(&self, reply: String, max_skills: u32) -> Result<wit::Selection, wit::Error> {
        self.0.borrow().select_parse(&reply, max_skills.cross()).map(Cross::cross).map_err(Cross::cross)
    }

    fn tools(&self, exclude: Vec<String>) -> Vec<wit::SkillTool> {
        self.0.borrow().tools(&core::ToolOptions { exclude }).cross()
    }

    fn tool_definitions(&self, provider: wit::Provider, exclude: Vec<String>) -> String {
        let definitions = self.0.borrow().tool_definitions(provider.cross(), &core::ToolOptions { exclude });
        // Serialising strings and maps of strings cannot fail.
        serde_json::to_string(&definitions).unwrap_or_default()
    }

    fn complete(&self, typed: String, limit: u32) -> Vec<wit::Completion> {
        self.0.borrow().complete(&typed, limit.cross()).cross()
    }

    fn catalog(&self, format: wit::CatalogFormat, budget: Option<u32>) -> wit::CatalogText {
        self.0.borrow().catalog_text(format.cross(), budget.cross()).cross()
    }

    fn catalog_for(
        &self,
        message: String,
        turn: wit::TurnContext,
        featured: u32,
        format: wit::CatalogFormat,
        budget: Option<u32>,
    ) -> Result<wit::CatalogText, wit::Error> {
        let engine = self.0.borrow();
        let text = engine.catalog_for(&message, &turn.cross(), featured.cross(), format.cross(), budget.cross());
        text.map(Cross::cross).map_err(Cross::cross)
    }

    fn files(&self, skill: String) -> Result<wit::SkillFiles, wit::FileError> {
        self.0.borrow().files(&skill).map(Cross::cross).map_err(Cross::cross)
    }

    fn read_file(&self, skill: String, path: String) -> Result<wit::FileContent, wit::FileError> {
        self.0.borrow().read_file(&skill, &path).map(Cross::cross).map_err(Cross::cross)
    }

    fn answer_read_file(&self, arguments: String) -> wit::ToolAnswer {
        self.0.borrow().answer_read_file(&arguments).cross()
    }
}

export!(Component);
