//! skillwire's core as a sandboxed WebAssembly component under wasmtime.
//!
//! The component (built by `build.rs` from `wasm/component`, embedded in this crate)
//! imports only the host's skill sources (`wit/skillwire.wit`): no files, clocks,
//! randomness or network. [`Runtime`] compiles it once per process (or loads a
//! precompiled copy from a cache folder); [`WasmEngine`] runs the core's
//! [`Engine`](skillwire::Engine) and returns the core's own types, so a host can swap
//! one for the other and get the same bytes.
//!
//! **Limits.** Every call runs with a fuel budget and a memory cap ([`CallLimits`]). The
//! budget grows with what the sources hand the guest during the call (SKILL.md texts,
//! listed entries, files, as far as the guest keeps them) and with a snapshot it restores:
//! [`CallLimits::fuel_per_input_byte`] a byte. So a catalogue of any size the core's
//! limits allow builds, and a call that works out of proportion to its input is stopped;
//! the bound is on work per byte of input, not on time (a flat budget: set
//! `fuel_per_input_byte` to 0). When a call hits one, it returns [`WasmError::OutOfFuel`] or
//! [`WasmError::OutOfMemory`], the instance is thrown away, and a fresh one rebuilds the
//! catalogue from the sources under the same limits (and sets the skills' embeddings
//! again), so the next call works; a rebuild that fails is the next call's error. A source's `read` that returns more than
//! [`Limits::max_skill_md_bytes`](skillwire::Limits) is refused on the host side,
//! before it reaches the guest: the skill is skipped with a reason.
//!
//! **Threads.** The guest has one; a build of many stamped entries is split between
//! instances, one per thread, each preparing chunks of the entries under its own limits,
//! while the engine's instance takes each part as it is ready and then builds from what
//! they prepared (`wasm/split.rs`, [`Runtime::with_build_instances`]). So sources are
//! `Send + Sync`.
//!
//! ```
//! use skillwire_host::{wasm::{CallLimits, Runtime, WasmEngine}, Backend, FsSource};
//! use std::sync::Arc;
//!
//! let runtime = Arc::new(Runtime::new()?); // compile once per process (or Runtime::with_cache)
//! let skills = FsSource::discover(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/skills").as_ref())?;
//! let mut engine = WasmEngine::new(runtime, vec![Box::new(skills)], Default::default(), CallLimits::default())?;
//! let turn = engine.inject("write the commit message", &Default::default())?; // the core's own `Injection`
//! assert!(turn.text.starts_with("[SKILL:commit-message]\n"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::Backend;
use skillwire::{
    CatalogFormat, CatalogReport, CatalogText, Completion, Defaults, EmbeddingText, FileContent, Injection,
    LintOptions, LintReport, Match, Options, Provider, SelectOptions, SelectPrompt, Selection, SkillEntry, SkillFiles,
    SkillSource, SkillStats, SkillTool, SourceError, ToolAnswer, ToolDefinition, ToolOptions, TurnContext,
};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use wasmtime::component::{Component, Linker, ResourceAny};
use wasmtime::{CallHook, Config, ResourceLimiter, Store, StoreLimits, StoreLimitsBuilder};

/// Bindings generated from `wit/skillwire.wit`. (In a module of their own: the WIT
/// package's namespace, `skillwire`, would shadow the core crate's name.)
mod bindings {
    wasmtime::component::bindgen!({
        path: "../wit",
        world: "skillwire-component",
    });
}

use bindings::skillwire::engine::types as wit;
use skillwire as core;

#[path = "../../wasm/convert.rs"]
mod convert;
use convert::Cross;

mod split;
use split::Shared;
pub use split::SPLIT_FROM_ENTRIES;

/// The component, as built from this source tree.
pub static COMPONENT: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/skillwire.component.wasm"));

/// Resources one call may use. A build split between instances
/// ([`Runtime::with_build_instances`]) gives each of them these limits: its memory is then
/// up to that many times `memory_bytes` at once, and the engine's instance's beside them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallLimits {
    /// WebAssembly fuel (about one unit per instruction) per call, before what its input
    /// adds (`fuel_per_input_byte`). The default, 20 billion, is about ten seconds of the
    /// guest's work; a turn uses a tiny fraction of it.
    pub fuel: u64,
    /// Fuel added for each byte the sources hand the guest during the call, as far as
    /// the guest keeps it: a SKILL.md text read (up to the SKILL.md limit), a listed
    /// entry's inline text and location (the first 4 KiB of it), each listed entry
    /// counting [`ENTRY_INPUT_BYTES`] more for the work every skill costs whatever its
    /// size (up to `max_skills` entries a listing), a file's path in a listing (up to
    /// `max_skill_files` paths, each up to `max_file_path_bytes`), a file read (up to
    /// the file limit); and each byte of a snapshot restored. What a call is given as
    /// arguments (a message, a text to lint, an entry to update) earns nothing. The
    /// default, 1,000, is about ten times what building a catalogue takes (about 106 a
    /// byte with bodies scanned at build, 49 when read, and 123 thousand a skill for
    /// skills of a few lines, measured on 10,000 skills). 0 holds a call to `fuel`.
    pub fuel_per_input_byte: u64,
    /// Largest linear memory the guest may grow to, in bytes (default 1 GiB).
    pub memory_bytes: usize,
}

impl Default for CallLimits {
    fn default() -> Self {
        CallLimits { fuel: 20_000_000_000, fuel_per_input_byte: 1_000, memory_bytes: 1 << 30 }
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
    /// The engine refused to list or read a skill's file (the core's [`FileError`](skillwire::FileError)).
    File(skillwire::FileError),
    /// The catalogue could not be written as a snapshot (the core's [`SnapshotError`](skillwire::SnapshotError)).
    Snapshot(String),
}

impl std::fmt::Display for WasmError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WasmError::OutOfFuel => f.write_str("the call ran out of fuel (CallLimits::fuel and fuel_per_input_byte)"),
            WasmError::OutOfMemory => f.write_str("the call hit the memory cap (CallLimits::memory_bytes)"),
            WasmError::Trap(m) => write!(f, "the component trapped: {m}"),
            WasmError::Setup(m) => write!(f, "could not start the component: {m}"),
            WasmError::Engine(e) => e.fmt(f),
            WasmError::File(e) => e.fmt(f),
            WasmError::Snapshot(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for WasmError {}

impl From<skillwire::Error> for WasmError {
    fn from(e: skillwire::Error) -> Self {
        WasmError::Engine(e)
    }
}

/// The bytes a listed entry counts as besides its text and location, in the fuel its
/// call earns ([`CallLimits::fuel_per_input_byte`]).
pub const ENTRY_INPUT_BYTES: u64 = 1024;

/// Most bytes of a listed entry's location that earn fuel.
const COUNTED_LOCATION_BYTES: usize = 4096;

/// What the store holds: the host's sources, the memory limiter and the fuel the call's
/// input has earned.
struct HostState {
    sources: Vec<Shared>,
    limits: GuestLimiter,
    /// `CallLimits::fuel_per_input_byte`.
    fuel_per_input_byte: u64,
    /// Fuel earned by what the sources handed over since the guest last got it (the
    /// store's call hook adds it before the guest runs again).
    earned: u64,
    /// The catalogue's limits: what the host holds reads to, and how much of a listing
    /// earns fuel (the guest skips the rest).
    catalog_limits: skillwire::Limits,
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

impl HostState {
    /// Notes `bytes` of input handed to the guest.
    fn earn(&mut self, bytes: u64) {
        self.earned = self.earned.saturating_add(bytes.saturating_mul(self.fuel_per_input_byte));
    }
}

impl bindings::skillwire::engine::skill_source::Host for HostState {
    fn list(&mut self, source: u32) -> Result<Vec<wit::SkillEntry>, String> {
        let max = self.catalog_limits.max_skill_md_bytes;
        let source = self.sources.get(source as usize).ok_or_else(|| format!("no source {source}"))?;
        let entries = source.list().map_err(|e| e.message)?;
        // Oversized inline text is dropped; the guest then reads it, and the read is
        // refused below with a reason.
        let entries: Vec<SkillEntry> =
            entries.into_iter().map(|e| SkillEntry { text: e.text.filter(|t| t.len() <= max), ..e }).collect();
        let kept =
            |e: &SkillEntry| e.location.len().min(COUNTED_LOCATION_BYTES) + e.text.as_ref().map_or(0, String::len);
        let bytes = entries.iter().take(self.catalog_limits.max_skills.saturating_add(1)).map(|e| kept(e) as u64);
        self.earn(bytes.fold(0, |sum, bytes| sum.saturating_add(ENTRY_INPUT_BYTES).saturating_add(bytes)));
        Ok(entries.into_iter().map(Cross::cross).collect())
    }

    fn read(&mut self, source: u32, location: String) -> Result<String, wit::ReadError> {
        let no_source = || SourceError::new(format!("no source {source}")).cross();
        let source = self.sources.get(source as usize).ok_or_else(no_source)?;
        let text = source.read(&location).map_err(Cross::cross)?;
        let max = self.catalog_limits.max_skill_md_bytes;
        if text.len() > max {
            let too_large = format!("SKILL.md is {} bytes; the limit is {max}", text.len());
            return Err(SourceError::refusal(too_large).cross());
        }
        self.earn(text.len() as u64);
        Ok(text)
    }

    fn list_files(&mut self, source: u32, location: String) -> Result<Vec<wit::ListedFile>, String> {
        let source = self.sources.get(source as usize).ok_or_else(|| format!("no source {source}"))?;
        // All of them, as every runtime hands them to the core (which keeps
        // `max_skill_files` and counts the rest); the guest's memory cap bounds the copy.
        let files = source.list_files(&location).map_err(|e| e.message)?;
        let limits = &self.catalog_limits;
        let counted = files.iter().take(limits.max_skill_files.saturating_add(1));
        let path_bytes =
            |f: &skillwire::ListedFile| f.path.len().min(limits.max_file_path_bytes.saturating_add(1)) as u64;
        self.earn(counted.map(path_bytes).fold(0, u64::saturating_add));
        Ok(files.cross())
    }

    fn read_file(&mut self, source: u32, location: String, path: String, max_bytes: u32) -> Result<Vec<u8>, String> {
        let source = self.sources.get(source as usize).ok_or_else(|| format!("no source {source}"))?;
        // The guest asks for at most its own limit; the host holds it to the options' too.
        let max_bytes = usize::try_from(max_bytes).unwrap_or(usize::MAX).min(self.catalog_limits.max_file_bytes);
        let mut bytes = source.read_file(&location, &path, max_bytes).map_err(|e| e.message)?;
        // One byte past the limit is enough for the guest to refuse the file.
        bytes.truncate(max_bytes.saturating_add(1));
        self.earn(bytes.len() as u64);
        Ok(bytes)
    }
}

/// The compiled component, shared by every engine of a process (a clone shares it too).
#[derive(Clone)]
pub struct Runtime {
    engine: wasmtime::Engine,
    pre: bindings::SkillwireComponentPre<HostState>,
    /// Instances a large build is split between (see [`Runtime::with_build_instances`]).
    build_instances: usize,
}

impl Runtime {
    /// Compiles the embedded component (about a second of CPU, spread over the machine's
    /// threads).
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
            prune_unused(dir, &path);
        }
        Runtime::from_component(engine, &component)
    }

    fn from_component(engine: wasmtime::Engine, component: &Component) -> Result<Runtime, WasmError> {
        let mut linker = Linker::<HostState>::new(&engine);
        bindings::SkillwireComponent::add_to_linker::<_, wasmtime::component::HasSelf<_>>(&mut linker, |s| s)
            .map_err(setup)?;
        let pre = linker.instantiate_pre(component).map_err(setup)?;
        let pre = bindings::SkillwireComponentPre::new(pre).map_err(setup)?;
        Ok(Runtime { engine, pre, build_instances: crate::parallel::threads().min(MAX_BUILD_INSTANCES) })
    }

    /// The same runtime, splitting a build of at least [`SPLIT_FROM_ENTRIES`] stamped
    /// entries between `instances` instances of the component, each preparing chunks of
    /// them on a thread of its own (the guest has one), under its own [`CallLimits`], while
    /// the engine's instance takes the parts on the calling thread: 1 builds in the
    /// engine's instance alone. The default: the machine's threads, at most
    /// [`MAX_BUILD_INSTANCES`]. The catalogue is the same either way.
    pub fn with_build_instances(mut self, instances: usize) -> Runtime {
        self.build_instances = instances.clamp(1, MAX_BUILD_INSTANCES);
        self
    }

    fn store(&self, sources: Vec<Shared>, options: &Options, limits: CallLimits) -> Store<HostState> {
        let state = HostState {
            sources,
            limits: GuestLimiter::new(limits),
            fuel_per_input_byte: limits.fuel_per_input_byte,
            earned: 0,
            catalog_limits: options.catalog.limits.clone(),
        };
        let mut store = Store::new(&self.engine, state);
        store.limiter(|s| &mut s.limits);
        // What a host call handed over adds its fuel before the guest runs again: when the
        // host calls into the guest (the guest's allocator, which the call's result is
        // copied through) or returns to it. Not only on the return: the allocator may grow
        // memory, whose return to the guest also runs this hook, and fuel set then, in the
        // middle of the allocator, would be overwritten by the allocator's own count.
        store.call_hook(|mut store, hook| {
            if matches!(hook, CallHook::CallingWasm | CallHook::ReturningFromHost) {
                let earned = std::mem::take(&mut store.data_mut().earned);
                if earned > 0 {
                    let fuel = store.get_fuel()?;
                    store.set_fuel(fuel.saturating_add(earned))?;
                }
            }
            Ok(())
        });
        store
    }

    /// The names of the interfaces the component imports: only the skill sources (and
    /// the types they use). No WASI.
    pub fn imports(&self) -> Vec<String> {
        let component = self.pre.instance_pre().component();
        component.component_type().imports(&self.engine).map(|(name, _)| name.to_owned()).collect()
    }

    /// The defaults the component exports (`defaults` in the WIT world): the core's own,
    /// read back through the boundary.
    pub fn defaults(&self) -> Result<Defaults, WasmError> {
        let limits = CallLimits::default();
        let mut store = self.store(Vec::new(), &Options::default(), limits);
        store.set_fuel(limits.fuel).map_err(setup)?;
        let instance = self.pre.instantiate(&mut store).map_err(trap)?;
        Ok(instance.skillwire_engine_api().call_defaults(&mut store).map_err(trap)?.cross())
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
                Some(options.limits.clone().cross()),
                Some(options.scan.clone().cross()),
                options.files.as_deref(),
            )
            .map_err(trap)?;
        Ok(report.cross())
    }
}

fn new_engine() -> Result<wasmtime::Engine, WasmError> {
    let mut config = Config::new();
    config.consume_fuel(true);
    wasmtime::Engine::new(&config).map_err(setup)
}

/// Most instances a build is split between ([`Runtime::with_build_instances`]).
pub const MAX_BUILD_INSTANCES: usize = 8;

/// How long a compiled component no process loaded stays in the cache folder.
pub const UNUSED_CACHE_DAYS: u64 = 30;

/// Removes from `dir` the compiled components (`skillwire-*.cwasm`, each several megabytes)
/// other versions or builds left there and no process loaded for [`UNUSED_CACHE_DAYS`],
/// by the time the file was last read (or written, where reads are not kept): every
/// upgrade leaves one. `keep` (the one just written) stays. Runs only after a compile.
fn prune_unused(dir: &Path, keep: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let now = std::time::SystemTime::now();
    let unused = std::time::Duration::from_secs(UNUSED_CACHE_DAYS * 24 * 60 * 60);
    for entry in entries.flatten() {
        let path = entry.path();
        let ours = (entry.file_name().to_str()).is_some_and(|n| n.starts_with("skillwire-") && n.ends_with(".cwasm"));
        if !ours || path == keep {
            continue;
        }
        let used = entry.metadata().and_then(|m| m.accessed().or_else(|_| m.modified()));
        if used.is_ok_and(|at| now.duration_since(at).is_ok_and(|age| age > unused)) {
            let _ = std::fs::remove_file(&path);
        }
    }
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
    /// The host's sources (each instance holds them too).
    sources: Vec<Shared>,
    /// The skills' embeddings, set again on a new instance after a trap.
    embeddings: Option<Vec<(String, Vec<f32>)>>,
    /// Why the skills lost their embeddings when an instance was rebuilt, if they did.
    embedding_error: Option<String>,
}

/// A live instance with its engine resource.
struct Live {
    store: Store<HostState>,
    instance: bindings::SkillwireComponent,
    engine: ResourceAny,
}

impl WasmEngine {
    /// `options` as the component receives them: sizes cross as 32-bit numbers, so larger
    /// ones saturate. A snapshot the component writes records these, so a host checks one
    /// against them ([`skillwire::Catalog::check_snapshot`]), not against its own.
    pub fn crossed(options: Options) -> Options {
        let wit: wit::Options = options.cross();
        wit.cross()
    }

    /// Builds the catalogue from `sources` inside a new instance (a large build split
    /// between several: [`Runtime::with_build_instances`]).
    pub fn new(
        runtime: Arc<Runtime>,
        sources: Vec<Box<dyn SkillSource + Send + Sync>>,
        options: Options,
        limits: CallLimits,
    ) -> Result<WasmEngine, WasmError> {
        let mut engine = WasmEngine::idle(runtime, sources, options, limits);
        engine.start(None)?;
        Ok(engine)
    }

    /// An engine with no instance yet.
    fn idle(
        runtime: Arc<Runtime>,
        sources: Vec<Box<dyn SkillSource + Send + Sync>>,
        options: Options,
        limits: CallLimits,
    ) -> WasmEngine {
        WasmEngine {
            runtime,
            options,
            limits,
            live: None,
            sources: sources.into_iter().map(Shared::from).collect(),
            embeddings: None,
            embedding_error: None,
        }
    }

    /// The catalogue `snapshot` holds, restored inside a new instance when this build of
    /// skillwire wrote it under `key` with `options.catalog`
    /// ([`skillwire::Engine::restore_or_build`]); otherwise built from `sources`, and the
    /// second value says why the snapshot was not used. (An instance replaced after a
    /// trap builds from the sources.)
    pub fn restore_or_build(
        runtime: Arc<Runtime>,
        sources: Vec<Box<dyn SkillSource + Send + Sync>>,
        options: Options,
        limits: CallLimits,
        snapshot: &[u8],
        key: &str,
    ) -> Result<(WasmEngine, Result<(), String>), WasmError> {
        let mut engine = WasmEngine::idle(runtime, sources, options, limits);
        match engine.start(Some((snapshot, key))) {
            Ok(not_restored) => Ok((engine, not_restored.map_or(Ok(()), Err))),
            Err(WasmError::Setup(e)) => Err(WasmError::Setup(e)),
            // A snapshot that stops the guest (past its fuel or memory) is not used: the
            // catalogue is built, so the host can replace the snapshot.
            Err(stopped) => {
                engine.start(None)?;
                Ok((engine, Err(format!("restoring it stopped the component: {stopped}"))))
            }
        }
    }

    /// A fresh instance: the guest restores `snapshot` if it can, or lists the sources and
    /// builds its catalogue (taking what other instances prepared of it, when it is large:
    /// `wasm/split.rs`). Returns why a snapshot given was not used.
    fn start(&mut self, snapshot: Option<(&[u8], &str)>) -> Result<Option<String>, WasmError> {
        let split = match snapshot {
            Some(_) => split::Split { listed: self.sources.clone(), chunks: Vec::new() },
            None => split::plan(&self.sources, &self.options, self.runtime.build_instances),
        };
        match self.start_with(split.listed, snapshot, split.chunks) {
            // Stopped while taking the parts (say by its memory cap, which each part's bytes
            // and its skills' readings count against): built again in one instance.
            Err(StartError::TakingParts(_)) => {
                self.start_with(self.sources.clone(), None, Vec::new()).map_err(StartError::into_error)
            }
            result => result.map_err(StartError::into_error),
        }
    }

    /// [`WasmEngine::start`] over `sources`, taking what other instances prepare of
    /// `chunks` (of their stamped entries) when there are any.
    fn start_with(
        &mut self,
        sources: Vec<Shared>,
        snapshot: Option<(&[u8], &str)>,
        chunks: Vec<Vec<Shared>>,
    ) -> Result<Option<String>, StartError> {
        let count = u32::try_from(sources.len()).unwrap_or(u32::MAX);
        let mut store = self.runtime.store(sources, &self.options, self.limits);
        let result = (|| -> Result<_, StartError> {
            // A snapshot is input too: restoring one earns its fuel (added as the guest is
            // called, as what a source hands over is); so are prepared parts (as taken).
            let input = snapshot.map_or(0, |(bytes, _)| bytes.len());
            store.data_mut().earn(input as u64);
            store.set_fuel(self.limits.fuel).map_err(setup)?;
            let instance = self.runtime.pre.instantiate(&mut store).map_err(trap)?;
            let api = instance.skillwire_engine_api().engine();
            let options = self.options.clone().cross();
            let (engine, restored) = match snapshot {
                Some((bytes, key)) => {
                    api.call_restore_or_build(&mut store, count, &options, bytes, key).map_err(trap)?
                }
                None if !chunks.is_empty() => (self.build_from_chunks(&mut store, &instance, chunks)?, None),
                None => (api.call_constructor(&mut store, count, &options).map_err(trap)?, None),
            };
            // Accepted before, by a catalogue built from the same sources; the sources
            // may have changed since, so a refusal is kept, not dropped.
            let refused = match &self.embeddings {
                Some(vectors) => api.call_set_embeddings(&mut store, engine, vectors).map_err(trap)?.err(),
                None => None,
            };
            Ok((instance, engine, refused, restored))
        })();
        let (instance, engine, refused, restored) = result?;
        self.live = Some(Live { store, instance, engine });
        if let Some(refusal) = refused {
            let error: skillwire::Error = refusal.cross();
            self.embedding_error = Some(format!("the rebuilt catalogue refused the embeddings: {error}"));
            self.embeddings = None;
        }
        Ok(restored)
    }

    /// The engine `instance` builds from the sources `store` holds, taking each part other
    /// instances prepare of `chunks` as it is ready (`split.rs`). A part not taken, or a
    /// build that takes none (neither expected: this process's component wrote them, with
    /// these options), leaves its entries to the build, which reads them: why is not kept.
    fn build_from_chunks(
        &self,
        store: &mut Store<HostState>,
        instance: &bindings::SkillwireComponent,
        chunks: Vec<Vec<Shared>>,
    ) -> Result<ResourceAny, StartError> {
        let taking = |e: wasmtime::Error| StartError::TakingParts(trap(e));
        let count = u32::try_from(store.data().sources.len()).unwrap_or(u32::MAX);
        let options = self.options.clone().cross();
        let build_api = instance.skillwire_engine_api().parts_build();
        let build = build_api.call_constructor(&mut *store, &options).map_err(taking)?;
        let (runtime, instances) = (&self.runtime, self.runtime.build_instances);
        split::prepare_while(runtime, chunks, &self.options, self.limits, instances, |part| {
            let Some(part) = part else { return Ok(()) };
            store.data_mut().earn(part.len() as u64);
            build_api.call_take(&mut *store, build, &part).map(|_| ()).map_err(taking)
        })?;
        let api = instance.skillwire_engine_api().engine();
        Ok(api.call_from_parts_build(&mut *store, count, &options, build).map_err(taking)?.0)
    }

    /// Runs `f` on the live instance with fresh fuel; after a trap, replaces the
    /// instance so the next call works.
    fn call<T>(
        &mut self,
        f: impl FnOnce(&mut Store<HostState>, &bindings::SkillwireComponent, ResourceAny) -> wasmtime::Result<T>,
    ) -> Result<T, WasmError> {
        if self.live.is_none() {
            self.start(None)?;
        }
        let Some(live) = self.live.as_mut() else { return Err(WasmError::Setup("no instance".to_owned())) };
        live.store.data_mut().earned = 0;
        live.store.set_fuel(self.limits.fuel).map_err(setup)?;
        match f(&mut live.store, &live.instance, live.engine) {
            Ok(value) => Ok(value),
            Err(e) => {
                let error = trap(e);
                self.live = None;
                // Rebuild now so the catalogue is ready for the next call; if that
                // fails too, the next call tries again.
                let _ = self.start(None);
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
            live.store.data_mut().fuel_per_input_byte = limits.fuel_per_input_byte;
        }
    }

    /// Why the skills have no embeddings any more: a rebuilt instance (after a trap)
    /// refused the ones set before. `None` while they hold (or none were set).
    pub fn embedding_error(&self) -> Option<&str> {
        self.embedding_error.as_deref()
    }

    /// How large the guest's linear memory has grown, in bytes (0 while no instance is
    /// live). Linear memory never shrinks; a soak run watches that it stops growing.
    pub fn memory_bytes(&self) -> usize {
        self.live.as_ref().map_or(0, |live| live.store.data().limits.memory_bytes)
    }
}

/// Why an instance did not start.
enum StartError {
    /// Stopped while taking the parts other instances prepared.
    TakingParts(WasmError),
    Other(WasmError),
}

impl From<WasmError> for StartError {
    fn from(error: WasmError) -> Self {
        StartError::Other(error)
    }
}

impl StartError {
    fn into_error(self) -> WasmError {
        match self {
            StartError::TakingParts(error) | StartError::Other(error) => error,
        }
    }
}

/// A call's engine resource (each call gets the instance and the resource handle).
macro_rules! api {
    ($instance:ident) => {
        $instance.skillwire_engine_api().engine()
    };
}

impl Backend for WasmEngine {
    fn refresh(&mut self) -> Result<(), WasmError> {
        self.embeddings = None;
        self.embedding_error = None;
        self.call(|store, i, e| api!(i).call_refresh(store, e))
    }

    fn update(&mut self, source: usize, entry: SkillEntry) -> Result<bool, WasmError> {
        let source = u32::try_from(source).unwrap_or(u32::MAX);
        // As a listing crosses: oversized text is dropped, and the guest's read refused.
        let max = self.options.catalog.limits.max_skill_md_bytes;
        let entry = SkillEntry { text: entry.text.filter(|t| t.len() <= max), ..entry }.cross();
        // Kept only when the guest took the entry in place: had it refreshed (or trapped, and
        // the instance been rebuilt), the embeddings set before are gone.
        let (embeddings, embedding_error) = (self.embeddings.take(), self.embedding_error.take());
        let taken = self.call(|store, i, e| api!(i).call_update(store, e, source, &entry))?;
        if taken {
            (self.embeddings, self.embedding_error) = (embeddings, embedding_error);
        }
        Ok(taken)
    }

    fn remove(&mut self, source: usize, location: &str) -> Result<bool, WasmError> {
        let source = u32::try_from(source).unwrap_or(u32::MAX);
        // The embeddings set before are gone either way (the indexes are made again).
        (self.embeddings, self.embedding_error) = (None, None);
        self.call(|store, i, e| api!(i).call_remove(store, e, source, location))
    }

    fn embedding_texts(&mut self) -> Result<Vec<EmbeddingText>, WasmError> {
        Ok(self.call(|store, i, e| api!(i).call_embedding_texts(store, e))?.cross())
    }

    fn set_embeddings(&mut self, vectors: Vec<(String, Vec<f32>)>) -> Result<usize, WasmError> {
        self.embedding_error = None;
        let count = self.call(|store, i, e| api!(i).call_set_embeddings(store, e, &vectors))?;
        let count = engine(count)?;
        self.embeddings = Some(vectors);
        Ok(count)
    }

    fn report(&mut self) -> Result<CatalogReport, WasmError> {
        Ok(self.call(|store, i, e| api!(i).call_report(store, e))?.cross())
    }

    fn snapshot(&mut self, key: &str) -> Result<Vec<u8>, WasmError> {
        self.call(|store, i, e| api!(i).call_snapshot(store, e, key))?.map_err(WasmError::Snapshot)
    }

    fn matches(&mut self, message: &str, context: &TurnContext) -> Result<Vec<Match>, WasmError> {
        let turn = context.clone().cross();
        engine(self.call(|store, i, e| api!(i).call_match(store, e, message, &turn))?)
    }

    fn inject(&mut self, message: &str, context: &TurnContext) -> Result<Injection, WasmError> {
        let turn = context.clone().cross();
        engine(self.call(|store, i, e| api!(i).call_inject(store, e, message, &turn))?)
    }

    fn complete(&mut self, typed: &str, limit: usize) -> Result<Vec<Completion>, WasmError> {
        let limit = limit.cross();
        Ok(self.call(|store, i, e| api!(i).call_complete(store, e, typed, limit))?.cross())
    }

    fn select_prompt(
        &mut self,
        message: &str,
        context: &TurnContext,
        stats: &[SkillStats],
        options: &SelectOptions,
    ) -> Result<SelectPrompt, WasmError> {
        let (turn, options) = (context.clone().cross(), options.clone().cross());
        let stats: Vec<wit::SkillStats> = stats.to_vec().cross();
        engine(self.call(|store, i, e| api!(i).call_select_prompt(store, e, message, &turn, &stats, options))?)
    }

    fn select_parse(&mut self, reply: &str, max_skills: usize) -> Result<Selection, WasmError> {
        let max = max_skills.cross();
        engine(self.call(|store, i, e| api!(i).call_select_parse(store, e, reply, max))?)
    }

    fn tools(&mut self, options: &ToolOptions) -> Result<Vec<SkillTool>, WasmError> {
        let tools = self.call(|store, i, e| api!(i).call_tools(store, e, &options.exclude))?;
        tools.into_iter().map(|t| t.cross().map_err(broken_json)).collect()
    }

    fn tool_definitions(
        &mut self,
        provider: Provider,
        options: &ToolOptions,
    ) -> Result<Vec<ToolDefinition>, WasmError> {
        let provider = provider.cross();
        let text = self.call(|store, i, e| api!(i).call_tool_definitions(store, e, provider, &options.exclude))?;
        serde_json::from_str(&text).map_err(broken_json)
    }

    fn catalog_text(&mut self, format: CatalogFormat, budget: Option<usize>) -> Result<CatalogText, WasmError> {
        let (format, budget) = (format.cross(), budget.cross());
        Ok(self.call(|store, i, e| api!(i).call_catalog(store, e, format, budget))?.cross())
    }

    fn catalog_for(
        &mut self,
        message: &str,
        context: &TurnContext,
        featured: usize,
        format: CatalogFormat,
        budget: Option<usize>,
    ) -> Result<CatalogText, WasmError> {
        let (turn, featured, format, budget) =
            (context.clone().cross(), featured.cross(), format.cross(), budget.cross());
        engine(self.call(|store, i, e| api!(i).call_catalog_for(store, e, message, &turn, featured, format, budget))?)
    }

    fn files(&mut self, skill: &str) -> Result<SkillFiles, WasmError> {
        file(self.call(|store, i, e| api!(i).call_files(store, e, skill))?)
    }

    fn read_file(&mut self, skill: &str, path: &str) -> Result<FileContent, WasmError> {
        file(self.call(|store, i, e| api!(i).call_read_file(store, e, skill, path))?)
    }

    fn answer_read_file(&mut self, arguments: &str) -> Result<ToolAnswer, WasmError> {
        Ok(self.call(|store, i, e| api!(i).call_answer_read_file(store, e, arguments))?.cross())
    }

    fn guest_memory_bytes(&self) -> Option<usize> {
        Some(self.memory_bytes())
    }
}

/// A file the engine handed out: its value, or its refusal as a core file error.
fn file<W: Cross<T>, T>(result: Result<W, wit::FileError>) -> Result<T, WasmError> {
    match result {
        Ok(value) => Ok(value.cross()),
        Err(e) => Err(WasmError::File(e.cross())),
    }
}

/// A result the engine answered: its value, or its refusal as a core error.
fn engine<W: Cross<T>, T>(result: Result<W, wit::Error>) -> Result<T, WasmError> {
    match result {
        Ok(value) => Ok(value.cross()),
        Err(e) => Err(WasmError::Engine(e.cross())),
    }
}

/// JSON text the guest wrote (a guest that writes anything else is broken: a trap).
fn broken_json(e: serde_json::Error) -> WasmError {
    WasmError::Trap(format!("the component wrote JSON that does not parse: {e}"))
}
