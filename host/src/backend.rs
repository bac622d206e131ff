//! One interface to the engine, wherever it runs: natively ([`skillwire::Engine`]) or
//! sandboxed in the component ([`WasmEngine`](crate::wasm::WasmEngine)). The CLI, the
//! benchmarks and the tests (the turn vectors, the engine-agreement test) speak to a
//! `dyn Backend`, so a new operation is added here once and both engines answer it.

use crate::wasm::WasmError;
use skillwire::{
    CatalogFormat, CatalogReport, CatalogText, Completion, EmbeddingText, Engine, FileContent, Injection, Match,
    Provider, SelectOptions, SelectPrompt, Selection, SkillEntry, SkillFiles, SkillSource, SkillStats, SkillTool,
    ToolAnswer, ToolDefinition, ToolOptions, TurnContext,
};

/// What a host asks of an engine. Natively every error is [`WasmError::Engine`]; in the
/// component a call can also stop at a limit or a trap (the instance is rebuilt).
pub trait Backend {
    /// What building the catalogue found.
    fn report(&mut self) -> Result<CatalogReport, WasmError>;
    /// The catalogue as bytes, to restore under `key` ([`skillwire::Engine::snapshot`]).
    fn snapshot(&mut self, key: &str) -> Result<Vec<u8>, WasmError>;
    /// Lists and loads the sources again (dropping the skills' embeddings).
    fn refresh(&mut self) -> Result<(), WasmError>;
    /// Takes one changed entry of source `source` without listing the sources, in place
    /// when it changes nothing but the entry, else refreshes ([`skillwire::Engine::update`]):
    /// true when taken in place.
    fn update(&mut self, source: usize, entry: SkillEntry) -> Result<bool, WasmError>;
    /// Takes the entry of source `source` at `location` out without listing the sources,
    /// else refreshes ([`skillwire::Engine::remove`]): true when taken out in place.
    fn remove(&mut self, source: usize, location: &str) -> Result<bool, WasmError>;
    /// What to embed for each skill ([`skillwire::Catalog::embedding_texts`]).
    fn embedding_texts(&mut self) -> Result<Vec<EmbeddingText>, WasmError>;
    /// Sets the skills' embeddings ([`skillwire::Catalog::set_embeddings`]).
    fn set_embeddings(&mut self, vectors: Vec<(String, Vec<f32>)>) -> Result<usize, WasmError>;
    /// The skills a turn on `message` would inject ([`skillwire::Turn::matches`]); reads
    /// no bodies.
    fn matches(&mut self, message: &str, context: &TurnContext) -> Result<Vec<Match>, WasmError>;
    /// Runs a turn ([`skillwire::Engine::inject`]); with [`TurnContext::selected`], on
    /// the skills the host's model chose.
    fn inject(&mut self, message: &str, context: &TurnContext) -> Result<Injection, WasmError>;
    /// The prompt asking the host's model to choose skills.
    fn select_prompt(
        &mut self,
        message: &str,
        context: &TurnContext,
        stats: &[SkillStats],
        options: &SelectOptions,
    ) -> Result<SelectPrompt, WasmError>;
    /// Reads the model's reply to a selection prompt.
    fn select_parse(&mut self, reply: &str, max_skills: usize) -> Result<Selection, WasmError>;
    /// The skills to offer as a user types `@` and `typed`.
    fn complete(&mut self, typed: &str, limit: usize) -> Result<Vec<Completion>, WasmError>;
    /// The skills a model may invoke, as tools.
    fn tools(&mut self, options: &ToolOptions) -> Result<Vec<SkillTool>, WasmError>;
    /// The tools in a provider's JSON shape.
    fn tool_definitions(&mut self, provider: Provider, options: &ToolOptions)
        -> Result<Vec<ToolDefinition>, WasmError>;
    /// The catalogue as text for the system prompt.
    fn catalog_text(&mut self, format: CatalogFormat, budget: Option<usize>) -> Result<CatalogText, WasmError>;
    /// The catalogue for a turn on `message`: the `featured` most relevant skills first.
    fn catalog_for(
        &mut self,
        message: &str,
        context: &TurnContext,
        featured: usize,
        format: CatalogFormat,
        budget: Option<usize>,
    ) -> Result<CatalogText, WasmError>;
    /// The files of skill `skill`'s folder ([`skillwire::Engine::files`]).
    fn files(&mut self, skill: &str) -> Result<SkillFiles, WasmError>;
    /// File `path` of skill `skill`'s folder ([`skillwire::Engine::read_file`]).
    fn read_file(&mut self, skill: &str, path: &str) -> Result<FileContent, WasmError>;
    /// Answers a model's call of the read-file tool ([`skillwire::Engine::answer_read_file`]).
    fn answer_read_file(&mut self, arguments: &str) -> Result<ToolAnswer, WasmError>;
    /// How large the component's linear memory has grown, in bytes (it never shrinks: the
    /// most the catalogue and any call have held at once); `None` natively, where the
    /// engine's memory is the process's.
    fn guest_memory_bytes(&self) -> Option<usize> {
        None
    }
}

impl<S: SkillSource> Backend for Engine<S> {
    fn report(&mut self) -> Result<CatalogReport, WasmError> {
        Ok(self.catalog().report().clone())
    }
    fn snapshot(&mut self, key: &str) -> Result<Vec<u8>, WasmError> {
        Engine::snapshot(self, key).map_err(|e| WasmError::Snapshot(e.to_string()))
    }
    fn refresh(&mut self) -> Result<(), WasmError> {
        Engine::refresh(self);
        Ok(())
    }
    fn update(&mut self, source: usize, entry: SkillEntry) -> Result<bool, WasmError> {
        Ok(Engine::update(self, source, entry))
    }
    fn remove(&mut self, source: usize, location: &str) -> Result<bool, WasmError> {
        Ok(Engine::remove(self, source, location))
    }
    fn embedding_texts(&mut self) -> Result<Vec<EmbeddingText>, WasmError> {
        Ok(Engine::embedding_texts(self))
    }
    fn set_embeddings(&mut self, vectors: Vec<(String, Vec<f32>)>) -> Result<usize, WasmError> {
        Ok(Engine::set_embeddings(self, vectors)?)
    }
    fn matches(&mut self, message: &str, context: &TurnContext) -> Result<Vec<Match>, WasmError> {
        Ok(Engine::turn(self, message, context)?.matches())
    }
    fn inject(&mut self, message: &str, context: &TurnContext) -> Result<Injection, WasmError> {
        Ok(Engine::inject(self, message, context)?)
    }
    fn select_prompt(
        &mut self,
        message: &str,
        context: &TurnContext,
        stats: &[SkillStats],
        options: &SelectOptions,
    ) -> Result<SelectPrompt, WasmError> {
        Ok(Engine::select_prompt(self, message, context, stats, options)?)
    }
    fn select_parse(&mut self, reply: &str, max_skills: usize) -> Result<Selection, WasmError> {
        Ok(Engine::select_parse(self, reply, max_skills)?)
    }
    fn complete(&mut self, typed: &str, limit: usize) -> Result<Vec<Completion>, WasmError> {
        Ok(Engine::complete(self, typed, limit))
    }
    fn tools(&mut self, options: &ToolOptions) -> Result<Vec<SkillTool>, WasmError> {
        Ok(Engine::tools(self, options))
    }
    fn tool_definitions(
        &mut self,
        provider: Provider,
        options: &ToolOptions,
    ) -> Result<Vec<ToolDefinition>, WasmError> {
        Ok(Engine::tool_definitions(self, provider, options))
    }
    fn catalog_text(&mut self, format: CatalogFormat, budget: Option<usize>) -> Result<CatalogText, WasmError> {
        Ok(Engine::catalog_text(self, format, budget))
    }
    fn catalog_for(
        &mut self,
        message: &str,
        context: &TurnContext,
        featured: usize,
        format: CatalogFormat,
        budget: Option<usize>,
    ) -> Result<CatalogText, WasmError> {
        Ok(Engine::catalog_for(self, message, context, featured, format, budget)?)
    }
    fn files(&mut self, skill: &str) -> Result<SkillFiles, WasmError> {
        Engine::files(self, skill).map_err(WasmError::File)
    }
    fn read_file(&mut self, skill: &str, path: &str) -> Result<FileContent, WasmError> {
        Engine::read_file(self, skill, path).map_err(WasmError::File)
    }
    fn answer_read_file(&mut self, arguments: &str) -> Result<ToolAnswer, WasmError> {
        Ok(Engine::answer_read_file(self, arguments))
    }
}
