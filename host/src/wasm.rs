//! skillwire's core as a sandboxed WebAssembly component under wasmtime.
//!
//! The component (built by `build.rs` from `wasm/component`, embedded in this crate)
//! imports only the host's skill sources (`wit/skillwire.wit`): no files, clocks,
//! randomness or network. [`Runtime`] compiles it once per process (or loads a
//! precompiled copy from a cache folder); [`WasmEngine`] mirrors the core's
//! [`Engine`](skillwire::Engine) and returns the core's own types, so a host can swap
//! one for the other and get the same bytes.
//!
//! **Limits.** Every call runs with a fuel budget and a memory cap ([`CallLimits`]).
//! When a call hits one, it returns [`WasmError::OutOfFuel`] or
//! [`WasmError::OutOfMemory`], the instance is thrown away, and a fresh one rebuilds the
//! catalogue from the sources (with unlimited-looking but still capped resources), so
//! the next call works. A source's `read` that returns more than
//! [`Limits::max_skill_md_bytes`](skillwire::Limits) is refused on the host side,
//! before it reaches the guest: the skill is skipped with a reason.
//!
//! ```
//! use skillwire_host::{wasm::{CallLimits, Runtime, WasmEngine}, FsSource};
//! use std::sync::Arc;
//!
//! let runtime = Arc::new(Runtime::new()?); // compile once per process (or Runtime::with_cache)
//! let skills = FsSource::discover(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/skills").as_ref())?;
//! let mut engine = WasmEngine::new(runtime, vec![Box::new(skills)], Default::default(), CallLimits::default())?;
//! let turn = engine.inject("write the commit message")?; // the core's own `Injection`
//! assert!(turn.text.starts_with("[SKILL:commit-message]\n"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use skillwire::{
    Action, CatalogFormat, CatalogReport, CatalogText, Category, Completion, CompletionMatch, Decision, Diagnostic,
    EmbeddingText, Finding, Injection, LeftOut, LeftOutReason, LintOptions, LintReport, Match, Options, Provider,
    Reason, ReplyShape, ScanPolicy, SelectOptions, SelectPrompt, Selection, Severity, SkillSource, SkillStats,
    SkillTool, Skip, Summary, ToolDefinition, ToolOptions, TurnContext,
};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use wasmtime::component::{Component, Linker, ResourceAny};
use wasmtime::{Config, ResourceLimiter, Store, StoreLimits, StoreLimitsBuilder};

/// Bindings generated from `wit/skillwire.wit`. (In a module of their own: the WIT
/// package's namespace, `skillwire`, would shadow the core crate's name.)
mod bindings {
    wasmtime::component::bindgen!({
        path: "../wit",
        world: "skillwire-component",
    });
}

use bindings::skillwire::engine::types as wit;

/// The component, as built from this source tree.
pub static COMPONENT: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/skillwire.component.wasm"));

/// Resources one call may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallLimits {
    /// WebAssembly fuel (about one unit per instruction) per call. The default,
    /// 20 billion, builds a catalogue of tens of thousands of skills; a turn uses a
    /// tiny fraction of it.
    pub fuel: u64,
    /// Largest linear memory the guest may grow to, in bytes (default 1 GiB).
    pub memory_bytes: usize,
}

impl Default for CallLimits {
    fn default() -> Self {
        CallLimits { fuel: 20_000_000_000, memory_bytes: 1 << 30 }
    }
}

/// Why a call into the component failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WasmError {
    /// The call used up its fuel. The instance was replaced; the next call works.
    OutOfFuel,
    /// The guest tried to grow its memory past the cap. The instance was replaced.
    OutOfMemory,
    /// The guest trapped for another reason. The instance was replaced.
    Trap(String),
    /// The component could not be compiled, loaded or instantiated.
    Setup(String),
    /// The engine refused the call (the same errors as the core's).
    Engine(skillwire::Error),
}

impl std::fmt::Display for WasmError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WasmError::OutOfFuel => f.write_str("the call ran out of fuel (CallLimits::fuel)"),
            WasmError::OutOfMemory => f.write_str("the call hit the memory cap (CallLimits::memory_bytes)"),
            WasmError::Trap(m) => write!(f, "the component trapped: {m}"),
            WasmError::Setup(m) => write!(f, "could not start the component: {m}"),
            WasmError::Engine(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for WasmError {}

/// What the store holds: the host's sources and the memory limiter.
struct HostState {
    sources: Vec<Box<dyn SkillSource>>,
    limits: GuestLimiter,
    max_text_bytes: usize,
}

/// The memory cap ([`StoreLimits`]), noting how large the guest's memory has grown.
struct GuestLimiter {
    cap: StoreLimits,
    /// The size of the largest linear memory, in bytes.
    memory_bytes: usize,
}

impl GuestLimiter {
    fn new(limits: CallLimits) -> GuestLimiter {
        let cap = StoreLimitsBuilder::new().memory_size(limits.memory_bytes).trap_on_grow_failure(true).build();
        GuestLimiter { cap, memory_bytes: 0 }
    }
}

impl ResourceLimiter for GuestLimiter {
    fn memory_growing(&mut self, current: usize, desired: usize, maximum: Option<usize>) -> wasmtime::Result<bool> {
        let allowed = self.cap.memory_growing(current, desired, maximum)?;
        if allowed {
            self.memory_bytes = self.memory_bytes.max(desired);
        }
        Ok(allowed)
    }
    fn memory_grow_failed(&mut self, error: wasmtime::Error) -> wasmtime::Result<()> {
        self.cap.memory_grow_failed(error)
    }
    fn table_growing(&mut self, current: usize, desired: usize, maximum: Option<usize>) -> wasmtime::Result<bool> {
        self.cap.table_growing(current, desired, maximum)
    }
    fn table_grow_failed(&mut self, error: wasmtime::Error) -> wasmtime::Result<()> {
        self.cap.table_grow_failed(error)
    }
    fn instances(&self) -> usize {
        self.cap.instances()
    }
    fn tables(&self) -> usize {
        self.cap.tables()
    }
    fn memories(&self) -> usize {
        self.cap.memories()
    }
}

impl wit::Host for HostState {}

impl bindings::skillwire::engine::skill_source::Host for HostState {
    fn list(&mut self, source: u32) -> Result<Vec<wit::SkillEntry>, String> {
        let max = self.max_text_bytes;
        let source = self.sources.get(source as usize).ok_or_else(|| format!("no source {source}"))?;
        let entries = source.list().map_err(|e| e.0)?;
        Ok(entries
            .into_iter()
            .map(|e| wit::SkillEntry {
                // Oversized inline text is dropped; the guest then reads it, and the
                // read is refused below with a reason.
                text: e.text.filter(|t| t.len() <= max),
                location: e.location,
            })
            .collect())
    }

    fn read(&mut self, source: u32, location: String) -> Result<String, String> {
        let source = self.sources.get(source as usize).ok_or_else(|| format!("no source {source}"))?;
        let text = source.read(&location).map_err(|e| e.0)?;
        if text.len() > self.max_text_bytes {
            return Err(format!("SKILL.md is {} bytes; the limit is {}", text.len(), self.max_text_bytes));
        }
        Ok(text)
    }
}

/// The compiled component, shared by every engine of a process.
pub struct Runtime {
    engine: wasmtime::Engine,
    pre: bindings::SkillwireComponentPre<HostState>,
}

impl Runtime {
    /// Compiles the embedded component (a few hundred milliseconds).
    pub fn new() -> Result<Runtime, WasmError> {
        let engine = new_engine()?;
        let component = Component::new(&engine, COMPONENT).map_err(setup)?;
        Runtime::from_component(engine, &component)
    }

    /// Loads the compiled component from `dir` if an earlier process left it there
    /// for this exact component and wasmtime build, else compiles it and stores it.
    /// Any cache problem falls back to compiling. The cache is trusted: keep it in a
    /// folder only the user can write.
    pub fn with_cache(dir: &Path) -> Result<Runtime, WasmError> {
        let engine = new_engine()?;
        let path = cache_path(&engine, dir);
        if path.is_file() {
            // SAFETY: wasmtime requires that the bytes were produced by
            // `Component::serialize` of a compatible engine; it checks the version and
            // configuration itself. The file is ours: written below, under a name that
            // hashes the component and the engine's compatibility settings.
            #[allow(unsafe_code)]
            let loaded = unsafe { Component::deserialize_file(&engine, &path) };
            if let Ok(component) = loaded {
                return Runtime::from_component(engine, &component);
            }
        }
        let component = Component::new(&engine, COMPONENT).map_err(setup)?;
        if let Ok(bytes) = component.serialize() {
            let tmp = path.with_extension(format!("tmp{}", std::process::id()));
            if std::fs::create_dir_all(dir).is_ok() && std::fs::write(&tmp, bytes).is_ok() {
                let _ = std::fs::rename(&tmp, &path);
            }
        }
        Runtime::from_component(engine, &component)
    }

    fn from_component(engine: wasmtime::Engine, component: &Component) -> Result<Runtime, WasmError> {
        let mut linker = Linker::<HostState>::new(&engine);
        bindings::SkillwireComponent::add_to_linker::<_, wasmtime::component::HasSelf<_>>(&mut linker, |s| s)
            .map_err(setup)?;
        let pre = linker.instantiate_pre(component).map_err(setup)?;
        let pre = bindings::SkillwireComponentPre::new(pre).map_err(setup)?;
        Ok(Runtime { engine, pre })
    }

    fn store(&self, sources: Vec<Box<dyn SkillSource>>, options: &Options, limits: CallLimits) -> Store<HostState> {
        let state = HostState {
            sources,
            limits: GuestLimiter::new(limits),
            max_text_bytes: options.catalog.limits.max_skill_md_bytes,
        };
        let mut store = Store::new(&self.engine, state);
        store.limiter(|s| &mut s.limits);
        store
    }

    /// The names of the interfaces the component imports: only the skill sources (and
    /// the types they use). No WASI.
    pub fn imports(&self) -> Vec<String> {
        let component = self.pre.instance_pre().component();
        component.component_type().imports(&self.engine).map(|(name, _)| name.to_owned()).collect()
    }

    /// Lints one SKILL.md text inside a fresh instance.
    pub fn lint(
        &self,
        location: &str,
        text: &str,
        options: &LintOptions,
        limits: CallLimits,
    ) -> Result<LintReport, WasmError> {
        let mut store = self.store(Vec::new(), &Options::default(), limits);
        store.set_fuel(limits.fuel).map_err(setup)?;
        let instance = self.pre.instantiate(&mut store).map_err(trap)?;
        let report = instance
            .skillwire_engine_api()
            .call_lint(
                &mut store,
                location,
                text,
                options.extensions,
                Some(limits_to_wit(&options.limits)),
                Some(scan_policy_to_wit(&options.scan)),
            )
            .map_err(trap)?;
        Ok(lint_report(report))
    }
}

fn new_engine() -> Result<wasmtime::Engine, WasmError> {
    let mut config = Config::new();
    config.consume_fuel(true);
    wasmtime::Engine::new(&config).map_err(setup)
}

fn cache_path(engine: &wasmtime::Engine, dir: &Path) -> PathBuf {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    COMPONENT.hash(&mut hasher);
    engine.precompile_compatibility_hash().hash(&mut hasher);
    dir.join(format!("skillwire-{}-{:016x}.cwasm", env!("CARGO_PKG_VERSION"), hasher.finish()))
}

fn setup(e: impl std::fmt::Display) -> WasmError {
    WasmError::Setup(format!("{e:#}"))
}

/// Classifies a failed call.
fn trap(e: wasmtime::Error) -> WasmError {
    if let Some(t) = e.downcast_ref::<wasmtime::Trap>() {
        if *t == wasmtime::Trap::OutOfFuel {
            return WasmError::OutOfFuel;
        }
    }
    let message = format!("{e:#}");
    if message.contains("forcing trap when growing memory") || message.contains("memory") && message.contains("grow") {
        return WasmError::OutOfMemory;
    }
    WasmError::Trap(message)
}

/// The core's [`Engine`](skillwire::Engine), running inside the component.
pub struct WasmEngine {
    runtime: Arc<Runtime>,
    options: Options,
    limits: CallLimits,
    live: Option<Live>,
    /// Kept here while no instance is live (between a trap and the rebuild).
    idle_sources: Vec<Box<dyn SkillSource>>,
    /// The skills' embeddings, set again on a new instance after a trap.
    embeddings: Option<Vec<(String, Vec<f32>)>>,
}

/// A live instance with its engine resource.
struct Live {
    store: Store<HostState>,
    instance: bindings::SkillwireComponent,
    engine: ResourceAny,
}

impl WasmEngine {
    /// Builds the catalogue from `sources` inside a new instance.
    pub fn new(
        runtime: Arc<Runtime>,
        sources: Vec<Box<dyn SkillSource>>,
        options: Options,
        limits: CallLimits,
    ) -> Result<WasmEngine, WasmError> {
        let mut engine = WasmEngine { runtime, options, limits, live: None, idle_sources: sources, embeddings: None };
        engine.start()?;
        Ok(engine)
    }

    /// A fresh instance: the guest lists the sources and builds its catalogue.
    fn start(&mut self) -> Result<(), WasmError> {
        let sources = std::mem::take(&mut self.idle_sources);
        let count = u32::try_from(sources.len()).unwrap_or(u32::MAX);
        let mut store = self.runtime.store(sources, &self.options, self.limits);
        let result = (|| {
            store.set_fuel(self.limits.fuel).map_err(setup)?;
            let instance = self.runtime.pre.instantiate(&mut store).map_err(trap)?;
            let api = instance.skillwire_engine_api().engine();
            let engine = api.call_constructor(&mut store, count, &options_to_wit(&self.options)).map_err(trap)?;
            if let Some(vectors) = &self.embeddings {
                // They were accepted before, by a catalogue built from the same sources.
                let _ = api.call_set_embeddings(&mut store, engine, vectors).map_err(trap)?;
            }
            Ok((instance, engine))
        })();
        match result {
            Ok((instance, engine)) => {
                self.live = Some(Live { store, instance, engine });
                Ok(())
            }
            Err(e) => {
                self.idle_sources = store.into_data().sources;
                Err(e)
            }
        }
    }

    /// Runs `f` on the live instance with fresh fuel; after a trap, replaces the
    /// instance so the next call works.
    fn call<T>(
        &mut self,
        f: impl FnOnce(&mut Store<HostState>, &bindings::SkillwireComponent, ResourceAny) -> wasmtime::Result<T>,
    ) -> Result<T, WasmError> {
        if self.live.is_none() {
            self.start()?;
        }
        let Some(live) = self.live.as_mut() else { return Err(WasmError::Setup("no instance".to_owned())) };
        live.store.set_fuel(self.limits.fuel).map_err(setup)?;
        match f(&mut live.store, &live.instance, live.engine) {
            Ok(value) => Ok(value),
            Err(e) => {
                let error = trap(e);
                if let Some(dead) = self.live.take() {
                    self.idle_sources = dead.store.into_data().sources;
                }
                // Rebuild now so the catalogue is ready for the next call; if that
                // fails too, the next call tries again.
                let _ = self.start();
                Err(error)
            }
        }
    }

    /// Changes the limits of later calls (an instance that was stopped by a limit is
    /// rebuilt with the new ones on the next call).
    pub fn set_limits(&mut self, limits: CallLimits) {
        self.limits = limits;
        if let Some(live) = self.live.as_mut() {
            let grown = live.store.data().limits.memory_bytes;
            live.store.data_mut().limits = GuestLimiter { memory_bytes: grown, ..GuestLimiter::new(limits) };
        }
    }

    /// How large the guest's linear memory has grown, in bytes (0 while no instance is
    /// live). Linear memory never shrinks; a soak run watches that it stops growing.
    pub fn memory_bytes(&self) -> usize {
        self.live.as_ref().map_or(0, |live| live.store.data().limits.memory_bytes)
    }

    /// Lists and loads the sources again (dropping the skills' embeddings).
    pub fn refresh(&mut self) -> Result<(), WasmError> {
        self.embeddings = None;
        self.call(|store, instance, engine| instance.skillwire_engine_api().engine().call_refresh(store, engine))
    }

    /// What to embed for each skill (see [`skillwire::Catalog::embedding_texts`]).
    pub fn embedding_texts(&mut self) -> Result<Vec<EmbeddingText>, WasmError> {
        let texts = self.call(|store, i, e| i.skillwire_engine_api().engine().call_embedding_texts(store, e))?;
        Ok(texts.into_iter().map(|t| EmbeddingText { skill: t.skill, text: t.text }).collect())
    }

    /// Sets the skills' embeddings (see [`skillwire::Catalog::set_embeddings`]).
    pub fn set_embeddings(&mut self, vectors: Vec<(String, Vec<f32>)>) -> Result<usize, WasmError> {
        let result =
            self.call(|store, i, e| i.skillwire_engine_api().engine().call_set_embeddings(store, e, &vectors))?;
        let count = result.map_err(engine_error)?;
        self.embeddings = Some(vectors);
        Ok(count as usize)
    }

    /// What building the catalogue found.
    pub fn report(&mut self) -> Result<CatalogReport, WasmError> {
        let report = self.call(|store, i, e| i.skillwire_engine_api().engine().call_report(store, e))?;
        Ok(catalog_report(report))
    }

    /// The skills the rules select for `message`. Reads nothing.
    pub fn matches(&mut self, message: &str) -> Result<Vec<Match>, WasmError> {
        self.matches_turn(message, &TurnContext::default())
    }

    /// The skills selected for `message` in a turn that knows the conversation.
    pub fn matches_turn(&mut self, message: &str, context: &TurnContext) -> Result<Vec<Match>, WasmError> {
        let turn = turn_to_wit(context);
        let result = self.call(|store, i, e| i.skillwire_engine_api().engine().call_match(store, e, message, &turn))?;
        let matches = result.map_err(engine_error)?;
        Ok(matches
            .into_iter()
            .map(|m| Match { skill: m.skill, reason: reason(m.reason), position: m.position as usize, score: m.score })
            .collect())
    }

    /// Runs a turn.
    pub fn inject(&mut self, message: &str) -> Result<Injection, WasmError> {
        self.inject_turn(message, &TurnContext::default())
    }

    /// Runs a turn that knows the conversation (see [`TurnContext`]).
    pub fn inject_turn(&mut self, message: &str, context: &TurnContext) -> Result<Injection, WasmError> {
        let turn = turn_to_wit(context);
        let result =
            self.call(|store, i, e| i.skillwire_engine_api().engine().call_inject(store, e, message, &turn))?;
        Ok(injection(result.map_err(engine_error)?))
    }

    /// The skills to offer as a user types `@` and `typed` ([`skillwire::Catalog::complete`]).
    pub fn complete(&mut self, typed: &str, limit: usize) -> Result<Vec<Completion>, WasmError> {
        let limit = clamp(limit);
        let list = self.call(|store, i, e| i.skillwire_engine_api().engine().call_complete(store, e, typed, limit))?;
        Ok(list
            .into_iter()
            .map(|c| Completion {
                name: c.name,
                description: c.description,
                matched: match c.match_ {
                    wit::CompletionMatch::Prefix => CompletionMatch::Prefix,
                    wit::CompletionMatch::Fuzzy => CompletionMatch::Fuzzy,
                },
            })
            .collect())
    }

    /// Runs a turn on the skills the host's model chose
    /// ([`skillwire::Catalog::inject_selected`]).
    pub fn inject_selected(
        &mut self,
        message: &str,
        selected: &[String],
        context: &TurnContext,
    ) -> Result<Injection, WasmError> {
        let turn = turn_to_wit(context);
        let result = self.call(|store, i, e| {
            i.skillwire_engine_api().engine().call_inject_selected(store, e, message, selected, &turn)
        })?;
        Ok(injection(result.map_err(engine_error)?))
    }

    /// The prompt asking the host's model to choose skills
    /// ([`skillwire::Catalog::select_prompt`]).
    pub fn select_prompt(
        &mut self,
        message: &str,
        context: &TurnContext,
        stats: &[SkillStats],
        options: &SelectOptions,
    ) -> Result<SelectPrompt, WasmError> {
        let turn = turn_to_wit(context);
        let stats: Vec<wit::SkillStats> = stats
            .iter()
            .map(|s| wit::SkillStats {
                skill: s.skill.clone(),
                selected: s.selected,
                applied: s.applied,
                completed: s.completed,
                fell_back: s.fell_back,
            })
            .collect();
        let options = wit::SelectOptions {
            max_skills: clamp(options.max_skills),
            shortlist_above: clamp(options.shortlist_above),
            shortlist_size: clamp(options.shortlist_size),
            never_completed_after: options.never_completed_after,
            fallback_after: options.fallback_after,
            max_fallback_rate: options.max_fallback_rate,
        };
        let result = self.call(|store, i, e| {
            i.skillwire_engine_api().engine().call_select_prompt(store, e, message, &turn, &stats, options)
        })?;
        let p = result.map_err(engine_error)?;
        Ok(SelectPrompt {
            prompt: p.prompt,
            candidates: p.candidates,
            shortlisted: p.shortlisted,
            left_out: p
                .left_out
                .into_iter()
                .map(|l| LeftOut {
                    skill: l.skill,
                    reason: match l.reason {
                        wit::LeftOutReason::NeverCompleted => LeftOutReason::NeverCompleted,
                        wit::LeftOutReason::FallsBack => LeftOutReason::FallsBack,
                    },
                    detail: l.detail,
                })
                .collect(),
        })
    }

    /// Reads the model's reply to a selection prompt ([`skillwire::Catalog::select_parse`]).
    pub fn select_parse(&mut self, reply: &str, max_skills: usize) -> Result<Selection, WasmError> {
        let max = clamp(max_skills);
        let result =
            self.call(|store, i, e| i.skillwire_engine_api().engine().call_select_parse(store, e, reply, max))?;
        let s = result.map_err(engine_error)?;
        Ok(Selection {
            skills: s.skills,
            brief_plan: s.brief_plan,
            unknown: s.unknown,
            over_limit: s.over_limit,
            reply: match s.reply {
                wit::ReplyShape::Object => ReplyShape::Object,
                wit::ReplyShape::List => ReplyShape::List,
                wit::ReplyShape::Names => ReplyShape::Names,
                wit::ReplyShape::Unreadable => ReplyShape::Unreadable,
            },
        })
    }

    /// The skills a model may invoke, as tools ([`skillwire::Catalog::tools`]).
    pub fn tools(&mut self, options: &ToolOptions) -> Result<Vec<SkillTool>, WasmError> {
        let list = self.call(|store, i, e| i.skillwire_engine_api().engine().call_tools(store, e, &options.exclude))?;
        list.into_iter()
            .map(|t| {
                Ok(SkillTool {
                    name: t.name,
                    skill: t.skill,
                    description: t.description,
                    input_schema: from_json(&t.input_schema)?,
                    max_turns: t.max_turns,
                })
            })
            .collect()
    }

    /// The tools in a provider's JSON shape ([`skillwire::Catalog::tool_definitions`]).
    pub fn tool_definitions(
        &mut self,
        provider: Provider,
        options: &ToolOptions,
    ) -> Result<Vec<ToolDefinition>, WasmError> {
        let provider = match provider {
            Provider::OpenAi => wit::Provider::Openai,
            Provider::Anthropic => wit::Provider::Anthropic,
        };
        let text = self.call(|store, i, e| {
            i.skillwire_engine_api().engine().call_tool_definitions(store, e, provider, &options.exclude)
        })?;
        from_json(&text)
    }

    /// The catalogue as text for the system prompt.
    pub fn catalog_text(&mut self, format: CatalogFormat, budget: Option<usize>) -> Result<CatalogText, WasmError> {
        let format = format_to_wit(format);
        let budget = budget.map(|b| u32::try_from(b).unwrap_or(u32::MAX));
        let t = self.call(|store, i, e| i.skillwire_engine_api().engine().call_catalog(store, e, format, budget))?;
        Ok(catalog_text(t))
    }

    /// The catalogue for a turn on `message` ([`skillwire::Catalog::catalog_for`]).
    pub fn catalog_for(
        &mut self,
        message: &str,
        context: &TurnContext,
        featured: usize,
        format: CatalogFormat,
        budget: Option<usize>,
    ) -> Result<CatalogText, WasmError> {
        let (turn, format, featured) = (turn_to_wit(context), format_to_wit(format), clamp(featured));
        let budget = budget.map(|b| u32::try_from(b).unwrap_or(u32::MAX));
        let result = self.call(|store, i, e| {
            i.skillwire_engine_api().engine().call_catalog_for(store, e, message, &turn, featured, format, budget)
        })?;
        Ok(catalog_text(result.map_err(engine_error)?))
    }
}

// Conversions between the WIT records and the core's types: field by field, no rules.

/// JSON text the guest wrote (a guest that writes anything else is broken: a trap).
fn from_json<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, WasmError> {
    serde_json::from_str(text)
        .map_err(|e| WasmError::Trap(format!("the component wrote JSON that does not parse: {e}")))
}

fn turn_to_wit(context: &TurnContext) -> wit::TurnContext {
    wit::TurnContext { recent: context.recent.clone(), embedding: context.embedding.clone() }
}

fn clamp(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn limits_to_wit(l: &skillwire::Limits) -> wit::Limits {
    wit::Limits {
        max_skill_md_bytes: clamp(l.max_skill_md_bytes),
        max_frontmatter_bytes: clamp(l.max_frontmatter_bytes),
        max_yaml_depth: clamp(l.max_yaml_depth),
        max_yaml_aliases: clamp(l.max_yaml_aliases),
        max_message_bytes: clamp(l.max_message_bytes),
        max_skills: clamp(l.max_skills),
        max_name_bytes: clamp(l.max_name_bytes),
        max_description_bytes: clamp(l.max_description_bytes),
    }
}

fn action_to_wit(a: Action) -> wit::ScanAction {
    match a {
        Action::Allow => wit::ScanAction::Allow,
        Action::Warn => wit::ScanAction::Warn,
        Action::Block => wit::ScanAction::Block,
    }
}

fn scan_policy_to_wit(p: &ScanPolicy) -> wit::ScanPolicy {
    wit::ScanPolicy {
        hidden_text: action_to_wit(p.hidden_text),
        bidi_control: action_to_wit(p.bidi_control),
        homoglyph_name: action_to_wit(p.homoglyph_name),
        instruction_override: action_to_wit(p.instruction_override),
        exfiltration: action_to_wit(p.exfiltration),
        destructive_command: action_to_wit(p.destructive_command),
    }
}

fn finding(f: wit::Finding) -> Finding {
    Finding {
        category: match f.category {
            wit::ScanCategory::HiddenText => Category::HiddenText,
            wit::ScanCategory::BidiControl => Category::BidiControl,
            wit::ScanCategory::HomoglyphName => Category::HomoglyphName,
            wit::ScanCategory::InstructionOverride => Category::InstructionOverride,
            wit::ScanCategory::Exfiltration => Category::Exfiltration,
            wit::ScanCategory::DestructiveCommand => Category::DestructiveCommand,
        },
        action: match f.action {
            wit::ScanAction::Allow => Action::Allow,
            wit::ScanAction::Warn => Action::Warn,
            wit::ScanAction::Block => Action::Block,
        },
        message: f.message,
        line: f.line as usize,
        column: f.column as usize,
        excerpt: f.excerpt,
    }
}

fn format_to_wit(format: CatalogFormat) -> wit::CatalogFormat {
    match format {
        CatalogFormat::AgentSkills => wit::CatalogFormat::Agentskills,
        CatalogFormat::SkillsRef => wit::CatalogFormat::SkillsRef,
        CatalogFormat::Markdown => wit::CatalogFormat::Markdown,
        CatalogFormat::Json => wit::CatalogFormat::Json,
    }
}

fn catalog_text(t: wit::CatalogText) -> CatalogText {
    CatalogText {
        text: t.text,
        shortened: t.shortened,
        omitted: t.omitted,
        featured: t.featured,
        names_only: t.names_only,
    }
}

fn options_to_wit(o: &Options) -> wit::Options {
    wit::Options {
        precedence: match o.catalog.precedence {
            skillwire::Precedence::FirstWins => wit::Precedence::FirstWins,
            skillwire::Precedence::LastWins => wit::Precedence::LastWins,
        },
        available: o.catalog.available.clone(),
        format: match o.render.format {
            skillwire::InjectFormat::Bracket => wit::InjectFormat::Bracket,
            skillwire::InjectFormat::Xml => wit::InjectFormat::Xml,
            skillwire::InjectFormat::Markdown => wit::InjectFormat::Markdown,
        },
        budget: clamp(o.render.budget),
        base_dir: o.render.base_dir,
        min_truncated_bytes: clamp(o.render.min_truncated_bytes),
        rank: wit::RankOptions {
            enabled: o.catalog.rank.enabled,
            max_ranked: clamp(o.catalog.rank.max_ranked),
            min_score: o.catalog.rank.min_score,
            min_ratio: o.catalog.rank.min_ratio,
            min_coverage: o.catalog.rank.min_coverage,
            semantic_weight: o.catalog.rank.semantic_weight,
            min_similarity: o.catalog.rank.min_similarity,
            headings: o.catalog.rank.headings,
        },
        limits: Some(limits_to_wit(&o.catalog.limits)),
        scan: Some(scan_policy_to_wit(&o.catalog.scan)),
        not_user_invocable: Some(match o.catalog.not_user_invocable {
            skillwire::NotUserInvocable::Hidden => wit::NotUserInvocable::Hidden,
            skillwire::NotUserInvocable::MentionOnly => wit::NotUserInvocable::MentionOnly,
        }),
    }
}

fn engine_error(e: wit::Error) -> WasmError {
    match e {
        wit::Error::MessageTooLarge((bytes, limit)) => WasmError::Engine(skillwire::Error::MessageTooLarge {
            bytes: usize::try_from(bytes).unwrap_or(usize::MAX),
            limit: usize::try_from(limit).unwrap_or(usize::MAX),
        }),
        wit::Error::ReplyTooLarge((bytes, limit)) => WasmError::Engine(skillwire::Error::ReplyTooLarge {
            bytes: usize::try_from(bytes).unwrap_or(usize::MAX),
            limit: usize::try_from(limit).unwrap_or(usize::MAX),
        }),
        wit::Error::InvalidEmbedding((of, problem)) => {
            WasmError::Engine(skillwire::Error::InvalidEmbedding { of, problem })
        }
    }
}

fn reason(r: wit::Reason) -> Reason {
    match r {
        wit::Reason::Mention => Reason::Mention,
        wit::Reason::Description => Reason::Description,
        wit::Reason::Tag => Reason::Tag,
        wit::Reason::Name => Reason::Name,
        wit::Reason::Rank => Reason::Rank,
        wit::Reason::Selected => Reason::Selected,
    }
}

fn skip(s: wit::Skip) -> Skip {
    match s {
        wit::Skip::BudgetExhausted => Skip::BudgetExhausted,
        wit::Skip::BodyUnavailable => Skip::BodyUnavailable,
        wit::Skip::Gated => Skip::Gated,
        wit::Skip::MentionOnly => Skip::MentionOnly,
        wit::Skip::RecentlyInjected => Skip::RecentlyInjected,
        wit::Skip::Unsafe => Skip::Unsafe,
    }
}

fn diagnostic(d: wit::Diagnostic) -> Diagnostic {
    Diagnostic {
        severity: match d.severity {
            wit::Severity::Error => Severity::Error,
            wit::Severity::Warning => Severity::Warning,
        },
        code: d.code,
        message: d.message,
        line: d.line.map(|l| l as usize),
        column: d.column.map(|c| c as usize),
    }
}

fn injection(t: wit::Injection) -> Injection {
    Injection {
        text: t.text,
        user_message: t.user_message,
        decisions: t
            .decisions
            .into_iter()
            .map(|d| Decision {
                skill: d.skill,
                matched: d.matched,
                reason: reason(d.reason),
                score: d.score,
                injected_bytes: d.injected_bytes as usize,
                truncated: d.truncated,
                skipped: d.skipped.map(skip),
                detail: d.detail,
                findings: d.findings.into_iter().map(finding).collect(),
            })
            .collect(),
        summary: Summary {
            candidates: t.summary.candidates as usize,
            matched: t.summary.matched as usize,
            injected_bytes: t.summary.injected_bytes as usize,
            truncated_any: t.summary.truncated_any,
        },
    }
}

fn lint_report(r: wit::LintReport) -> LintReport {
    LintReport {
        path: r.path,
        valid: r.valid,
        errors: r.errors,
        warnings: r.warnings.into_iter().map(diagnostic).collect(),
        findings: r.findings.into_iter().map(finding).collect(),
    }
}

fn catalog_report(r: wit::CatalogReport) -> CatalogReport {
    CatalogReport {
        loaded: r.loaded as usize,
        skipped: r
            .skipped
            .into_iter()
            .map(|s| skillwire::catalog::Skipped {
                location: s.location,
                reason: s.reason,
                diagnostics: s.diagnostics.into_iter().map(diagnostic).collect(),
            })
            .collect(),
        shadowed: r
            .shadowed
            .into_iter()
            .map(|s| skillwire::catalog::Shadowed { name: s.name, location: s.location, by: s.by })
            .collect(),
        gated: r
            .gated
            .into_iter()
            .map(|g| skillwire::catalog::Gated { name: g.name, location: g.location, missing: g.missing })
            .collect(),
        warnings: r
            .warnings
            .into_iter()
            .map(|w| skillwire::catalog::Warning { location: w.location, diagnostic: diagnostic(w.diagnostic) })
            .collect(),
        flagged: r
            .flagged
            .into_iter()
            .map(|f| skillwire::catalog::Flagged {
                name: f.name,
                location: f.location,
                blocked: f.blocked,
                findings: f.findings.into_iter().map(finding).collect(),
            })
            .collect(),
        mention_only: r.mention_only,
    }
}
