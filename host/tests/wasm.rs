//! The component under wasmtime: the same vectors as the native core, byte for byte;
//! limits that stop a call with a typed error and leave the engine working; sources
//! that fail or return oversized text.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)] // test code

#[path = "../../tests/rust/shared_data.rs"]
mod shared_data;
#[path = "../../tests/rust/turn_vectors.rs"]
mod turn_vectors;

use serde_json::{json, Value};
use skillwire::{
    CatalogFormat, Engine, Error, InjectFormat, LintOptions, MemorySource, Options, RenderOptions, SkillEntry,
    SkillSource, SourceError, TurnContext,
};
use skillwire_host::wasm::{CallLimits, Runtime as WasmRuntime, WasmEngine, WasmError};
use skillwire_host::{Backend, FsSource};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// One compiled component for the whole test binary.
fn runtime() -> Arc<WasmRuntime> {
    static RUNTIME: OnceLock<Arc<WasmRuntime>> = OnceLock::new();
    RUNTIME.get_or_init(|| Arc::new(WasmRuntime::new().unwrap())).clone()
}

fn boxed<S: SkillSource + Send + Sync + 'static>(sources: Vec<S>) -> Vec<Box<dyn SkillSource + Send + Sync>> {
    sources.into_iter().map(|s| Box::new(s) as Box<dyn SkillSource + Send + Sync>).collect()
}

#[test]
fn turn_vectors_through_the_component() {
    let rt = runtime();
    turn_vectors::run_all(false, &mut |sources, options| {
        Box::new(WasmEngine::new(rt.clone(), boxed(sources), options, CallLimits::default()).unwrap())
    });
}

#[test]
fn conformance_lint_through_the_component() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/conformance.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let rt = runtime();
    let mut ran = 0;
    for case in doc["cases"].as_array().unwrap().iter().filter(|c| c["fs_only"] == false && c["lint"].is_string()) {
        let dir = case["lint"].as_str().unwrap();
        let rel = format!("{dir}/SKILL.md");
        let text = case["files"][&rel].as_str().unwrap();
        let report = rt.lint(&format!("{{ROOT}}/{rel}"), text, &LintOptions::default(), CallLimits::default()).unwrap();
        let want: Vec<String> = serde_json::from_value(case["skillwire"]["validate"].clone()).unwrap();
        assert_eq!(report.errors, want, "{}", case["case"]);
        ran += 1;
    }
    assert!(ran > 70, "{ran}");
}

/// The real skill packs (see [`shared_data`]).
fn corpus_dir() -> Option<std::path::PathBuf> {
    shared_data::shared().map(|s| s.join("corpus"))
}

fn corpus(dir: &Path) -> Vec<Box<dyn SkillSource + Send + Sync>> {
    boxed(vec![FsSource::discover(dir).unwrap()])
}

/// How many times over [`Growing`] lists the corpus once grown.
const COPIES: usize = 30;

/// The corpus, listed [`COPIES`] times over (under distinct locations) once `grown` is set:
/// rebuilding the catalogue then needs far more memory than building it did.
struct Growing {
    corpus: FsSource,
    grown: Arc<AtomicBool>,
}

impl SkillSource for Growing {
    fn list(&self) -> Result<Vec<SkillEntry>, SourceError> {
        let entries = self.corpus.list()?;
        let copies = if self.grown.load(Ordering::SeqCst) { COPIES } else { 1 };
        Ok((0..copies)
            .flat_map(|copy| {
                entries.iter().map(move |e| SkillEntry { location: format!("{copy}:{}", e.location), ..e.clone() })
            })
            .collect())
    }
    fn read(&self, location: &str) -> Result<String, SourceError> {
        self.corpus.read(location.split_once(':').map_or(location, |(_, l)| l))
    }
}

#[test]
fn fuel_and_memory_limits_stop_a_call_and_the_engine_recovers() {
    let Some(dir) = corpus_dir() else { return };
    let grown = Arc::new(AtomicBool::new(false));
    let source = Growing { corpus: FsSource::discover(&dir).unwrap(), grown: grown.clone() };
    let mut engine =
        WasmEngine::new(runtime(), boxed(vec![source]), Options::default(), CallLimits::default()).unwrap();
    let before = engine.inject("@pdf merge these files", &TurnContext::default()).unwrap();
    assert_eq!(engine.report().unwrap().loaded, 249);
    // Turns reuse the guest's memory: after warming up, it does not grow.
    let warm = engine.memory_bytes();
    assert!(warm > 0 && warm <= CallLimits::default().memory_bytes, "{warm}");
    for turn in 0..300 {
        engine
            .inject(
                "@pdf merge these files",
                &TurnContext { recent: vec![format!("s{turn}")], ..TurnContext::default() },
            )
            .unwrap();
    }
    assert_eq!(engine.memory_bytes(), warm);

    // Too little fuel: the call stops with a typed error...
    engine.set_limits(CallLimits { fuel: 10_000, fuel_per_input_byte: 0, ..CallLimits::default() });
    assert_eq!(engine.inject("@pdf merge these files", &TurnContext::default()), Err(WasmError::OutOfFuel));
    // ...and with the limits back, the next call works and answers the same.
    engine.set_limits(CallLimits::default());
    assert_eq!(engine.inject("@pdf merge these files", &TurnContext::default()).unwrap(), before);

    // A memory cap at what the guest holds now, less than rebuilding the catalogue (now
    // listed COPIES times over) needs: a typed error, then recovery.
    grown.store(true, Ordering::SeqCst);
    engine.set_limits(CallLimits { memory_bytes: engine.memory_bytes(), ..CallLimits::default() });
    assert_eq!(engine.refresh(), Err(WasmError::OutOfMemory));
    engine.set_limits(CallLimits::default());
    assert_eq!(engine.inject("@pdf merge these files", &TurnContext::default()).unwrap(), before);
    let report = engine.report().unwrap();
    assert_eq!(report.loaded, 249);
    assert!(report.shadowed.len() >= (COPIES - 1) * 249, "{}", report.shadowed.len());

    // A small cap on a new engine: it cannot even build its catalogue.
    let small = CallLimits { memory_bytes: 2 << 20, ..CallLimits::default() };
    assert!(matches!(WasmEngine::new(runtime(), corpus(&dir), Options::default(), small), Err(WasmError::OutOfMemory)));
}

/// `WasmEngine::restore_or_build` with the default options and limits.
fn restore(
    sources: Vec<Box<dyn SkillSource + Send + Sync>>,
    snapshot: &[u8],
    key: &str,
) -> (WasmEngine, Result<(), String>) {
    WasmEngine::restore_or_build(runtime(), sources, Options::default(), CallLimits::default(), snapshot, key).unwrap()
}

#[test]
fn a_snapshot_restores_in_the_component_and_one_that_stops_it_is_built_instead() {
    let mut skills = MemorySource::new();
    skills.insert("s/pdf/SKILL.md", "---\nname: pdf\ndescription: Fill PDF forms.\n---\nUse pypdf.\n");
    let native = Engine::new(vec![skills.clone()], Options::default());
    let snapshot = native.snapshot("v1").unwrap();
    let expected = native.inject("fill the pdf form", &TurnContext::default()).unwrap();
    // Written natively, restored in the component: without listing the sources.
    let (mut restored, used) = restore(boxed(vec![MemorySource::new()]), &snapshot, "v1");
    assert_eq!(used, Ok(()));
    assert_eq!(restored.report().unwrap().loaded, 1);
    // Its snapshot restores natively in turn.
    let again = restored.snapshot("v1").unwrap();
    let (_, used) = Engine::restore_or_build(vec![skills.clone()], Options::default(), &again, "v1");
    assert_eq!(used, Ok(()));
    // Under another key: built from the sources, and why.
    let (mut built, used) = restore(boxed(vec![skills.clone()]), &snapshot, "v2");
    assert!(used.unwrap_err().contains("key differs"));
    assert_eq!(built.inject("fill the pdf form", &TurnContext::default()).unwrap(), expected);
    // Bytes too large for the guest's memory stop the restore: the catalogue is built
    // instead (so a host can replace the file), not an error on every run.
    let limits = CallLimits { memory_bytes: 48 << 20, ..CallLimits::default() };
    let junk = vec![7u8; 64 << 20];
    let (mut built, used) =
        WasmEngine::restore_or_build(runtime(), boxed(vec![skills]), Options::default(), limits, &junk, "v1").unwrap();
    assert!(used.unwrap_err().contains("stopped the component"));
    assert_eq!(built.inject("fill the pdf form", &TurnContext::default()).unwrap(), expected);
}

/// A call's fuel grows with what it takes in: the corpus (3.4 MB of SKILL.md, about 360
/// million fuel to build with bodies scanned at build) builds on a base budget far below
/// that, as its listing and reads earn their fuel, and is stopped when they earn none; a
/// snapshot restored earns its own. (So a catalogue as large as the core's limits allow
/// builds under the default limits: 20 billion fuel alone stopped 50,000 skills.)
#[test]
fn a_call_earns_fuel_with_what_it_takes_in() {
    let Some(dir) = corpus_dir() else { return };
    let base = CallLimits { fuel: 50_000_000, ..CallLimits::default() };
    let mut engine = WasmEngine::new(runtime(), corpus(&dir), Options::default(), base).unwrap();
    assert_eq!(engine.report().unwrap().loaded, 249);
    let turn = engine.inject("@pdf merge these files", &TurnContext::default()).unwrap();
    assert!(turn.text.starts_with("[SKILL:pdf]"), "{}", turn.text);
    let unearned = CallLimits { fuel_per_input_byte: 0, ..base };
    assert!(matches!(
        WasmEngine::new(runtime(), corpus(&dir), Options::default(), unearned),
        Err(WasmError::OutOfFuel)
    ));

    let snapshot = engine.snapshot("v1").unwrap();
    let restore = |limits| {
        let nothing = boxed(vec![MemorySource::new()]);
        WasmEngine::restore_or_build(runtime(), nothing, Options::default(), limits, &snapshot, "v1").unwrap()
    };
    let small = CallLimits { fuel: 5_000_000, ..CallLimits::default() };
    let (mut restored, used) = restore(small);
    assert_eq!(used, Ok(()));
    assert_eq!(restored.report().unwrap().loaded, 249);
    let (_, used) = restore(CallLimits { fuel_per_input_byte: 0, ..small });
    assert!(used.unwrap_err().contains("out of fuel"));
}

/// A source that lists its texts inline earns the build's fuel through its listing alone.
#[test]
fn a_listing_with_inline_texts_earns_fuel() {
    let Some(dir) = corpus_dir() else { return };
    let mut inline = MemorySource::new();
    for entry in FsSource::discover(&dir).unwrap().list().unwrap() {
        let text = std::fs::read_to_string(&entry.location).unwrap();
        inline.insert(entry.location, text);
    }
    let base = CallLimits { fuel: 50_000_000, ..CallLimits::default() };
    let mut engine = WasmEngine::new(runtime(), boxed(vec![inline.clone()]), Options::default(), base).unwrap();
    assert_eq!(engine.report().unwrap().loaded, 249);
    let unearned = CallLimits { fuel_per_input_byte: 0, ..base };
    let stopped = WasmEngine::new(runtime(), boxed(vec![inline]), Options::default(), unearned);
    assert!(matches!(stopped, Err(WasmError::OutOfFuel)));
}

/// One skill with a 256 KiB file beside its SKILL.md.
struct WithLargeFile;

const LARGE_FILE_BYTES: usize = 256 << 10;

impl SkillSource for WithLargeFile {
    fn list(&self) -> Result<Vec<SkillEntry>, SourceError> {
        Ok(vec![SkillEntry::new("s/big/SKILL.md")])
    }
    fn read(&self, _: &str) -> Result<String, SourceError> {
        Ok("---\nname: big\ndescription: Reads a large file.\n---\nSee data.txt.\n".into())
    }
    fn list_files(&self, _: &str) -> Result<Vec<skillwire::ListedFile>, SourceError> {
        let file = |path: &str, size| skillwire::ListedFile { path: path.into(), size };
        Ok(vec![file("SKILL.md", 62), file("data.txt", LARGE_FILE_BYTES as u64)])
    }
    fn read_file(&self, _: &str, path: &str, max_bytes: usize) -> Result<Vec<u8>, SourceError> {
        let size = if path == "data.txt" { LARGE_FILE_BYTES } else { 0 };
        Ok(b"data line\n".iter().copied().cycle().take(size.min(max_bytes)).collect())
    }
}

/// A file read earns its fuel: read on a base budget its reading alone exceeds.
#[test]
fn a_file_read_earns_fuel() {
    let mut engine =
        WasmEngine::new(runtime(), boxed(vec![WithLargeFile]), Options::default(), CallLimits::default()).unwrap();
    let whole = engine.read_file("big", "data.txt").unwrap();
    engine.set_limits(CallLimits { fuel: 20_000, ..CallLimits::default() });
    assert_eq!(engine.read_file("big", "data.txt").unwrap(), whole);
    engine.set_limits(CallLimits { fuel: 20_000, fuel_per_input_byte: 0, ..CallLimits::default() });
    assert_eq!(engine.read_file("big", "data.txt"), Err(WasmError::OutOfFuel));
}

/// Skills stamped with their text's length; reads counted (the count shared with the test).
struct Stamped(Vec<(String, String)>, Arc<std::sync::atomic::AtomicUsize>);

impl SkillSource for Stamped {
    fn list(&self) -> Result<Vec<SkillEntry>, SourceError> {
        Ok(self.0.iter().map(|(l, t)| SkillEntry::new(l).with_stamp(t.len().to_string())).collect())
    }
    fn read(&self, location: &str) -> Result<String, SourceError> {
        self.1.fetch_add(1, Ordering::Relaxed);
        let found = self.0.iter().find(|(l, _)| l == location).map(|(_, t)| t.clone());
        found.ok_or_else(|| SourceError::new("gone".to_owned()))
    }
}

#[test]
fn stamps_cross_into_the_component_so_a_stale_snapshot_is_refreshed_reading_only_what_changed() {
    let pdf = "---\nname: pdf\ndescription: Fill PDF forms.\n---\nUse pypdf.\n";
    let sql = "---\nname: sql\ndescription: Review SQL queries.\n---\nCheck the indexes.\n";
    let skills = vec![("s/pdf/SKILL.md".to_owned(), pdf.to_owned()), ("s/sql/SKILL.md".to_owned(), sql.to_owned())];
    let reads = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut engine = WasmEngine::new(
        runtime(),
        boxed(vec![Stamped(skills.clone(), Arc::clone(&reads))]),
        Options::default(),
        CallLimits::default(),
    )
    .unwrap();
    assert_eq!(reads.load(Ordering::Relaxed), 2);
    engine.refresh().unwrap();
    assert_eq!(reads.load(Ordering::Relaxed), 2, "a refresh in the component reads nothing unchanged");
    let snapshot = engine.snapshot("v1").unwrap();
    // The sql skill edited: restored under another key, only it is read.
    let mut edited = skills;
    edited[1].1 = sql.replace("Check the indexes.", "Check the indexes and the query plan.");
    let reads = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let (mut refreshed, used) = restore(boxed(vec![Stamped(edited.clone(), Arc::clone(&reads))]), &snapshot, "v2");
    assert!(used.unwrap_err().contains("key differs"));
    // One read while refreshing, before any turn.
    assert_eq!(reads.load(Ordering::Relaxed), 1);
    let turn = refreshed.inject("@sql", &TurnContext::default()).unwrap();
    assert!(turn.user_message.contains("query plan"), "{}", turn.user_message);
}

/// Skills the test edits while the engine holds them, stamped with their text's length;
/// reads counted.
#[derive(Clone, Default)]
struct Editable(Arc<std::sync::Mutex<Vec<(String, String)>>>, Arc<std::sync::atomic::AtomicUsize>);

impl SkillSource for Editable {
    fn list(&self) -> Result<Vec<SkillEntry>, SourceError> {
        let skills = self.0.lock().unwrap();
        Ok(skills.iter().map(|(l, t)| SkillEntry::new(l).with_stamp(t.len().to_string())).collect())
    }
    fn read(&self, location: &str) -> Result<String, SourceError> {
        self.1.fetch_add(1, Ordering::Relaxed);
        let found = self.0.lock().unwrap().iter().find(|(l, _)| l == location).map(|(_, t)| t.clone());
        found.ok_or_else(|| SourceError::new("gone".to_owned()))
    }
}

#[test]
fn one_changed_entry_crosses_into_the_component_and_is_taken_in_place() {
    let pdf = "---\nname: pdf\ndescription: Fill PDF forms.\n---\nUse pypdf.\n";
    let sql = "---\nname: sql\ndescription: Review SQL queries.\n---\nCheck the indexes.\n";
    let source = Editable::default();
    *source.0.lock().unwrap() =
        vec![("s/pdf/SKILL.md".to_owned(), pdf.to_owned()), ("s/sql/SKILL.md".to_owned(), sql.to_owned())];
    let mut engine =
        WasmEngine::new(runtime(), boxed(vec![source.clone()]), Options::default(), CallLimits::default()).unwrap();
    let entry = |at: usize| {
        let (location, text) = source.0.lock().unwrap()[at].clone();
        SkillEntry::new(location).with_stamp(text.len().to_string())
    };
    let edit = |at: usize, text: String| source.0.lock().unwrap()[at].1 = text;
    let native = |messages: &[String]| -> Vec<Value> {
        let mut built = Engine::new(vec![source.clone()], Options::default());
        answers(&mut built, messages)
    };
    // A body edit: that entry alone is read, in the guest, and taken in place.
    edit(1, sql.replace("Check the indexes.", "Check the indexes and the query plan."));
    let reads = source.1.load(Ordering::Relaxed);
    assert_eq!(engine.update(0, entry(1)), Ok(true));
    assert_eq!(source.1.load(Ordering::Relaxed) - reads, 1);
    let turn = engine.inject("@sql", &TurnContext::default()).unwrap();
    assert!(turn.user_message.contains("query plan"), "{}", turn.user_message);
    let messages = ["@sql".to_owned(), "review my sql queries".to_owned()];
    assert_eq!(answers(&mut engine, &messages), native(&messages));
    // A description edit: the guest takes it with its indexes made again (false, as after a
    // refresh: the host's embeddings go).
    edit(1, sql.replace("Review SQL queries.", "Review SQL queries and migrations."));
    assert_eq!(engine.update(0, entry(1)), Ok(false));
    assert_eq!(answers(&mut engine, &messages), native(&messages));
    // A skill taken out: nothing read, the guest takes it out in place (true); one it has
    // not listed: it refreshes (false).
    let messages = ["@pdf".to_owned(), "fill the pdf form".to_owned()];
    let reads = source.1.load(Ordering::Relaxed);
    source.0.lock().unwrap().remove(1);
    assert_eq!(engine.remove(0, "s/sql/SKILL.md"), Ok(true));
    assert_eq!(source.1.load(Ordering::Relaxed), reads);
    assert_eq!(answers(&mut engine, &messages), native(&messages));
    assert!(engine.matches("@sql", &TurnContext::default()).unwrap().is_empty());
    assert_eq!(engine.remove(0, "s/none/SKILL.md"), Ok(false));
    assert_eq!(answers(&mut engine, &messages), native(&messages));
}

/// A source whose reads fail or return far too much text.
struct Hostile;

impl SkillSource for Hostile {
    fn list(&self) -> Result<Vec<SkillEntry>, SourceError> {
        Ok(["broken", "huge", "fine"].iter().map(|n| SkillEntry::new(format!("h/{n}/SKILL.md"))).collect())
    }
    fn read(&self, location: &str) -> Result<String, SourceError> {
        match location {
            "h/broken/SKILL.md" => Err(SourceError::new("disk on fire")),
            "h/huge/SKILL.md" => Ok(format!("---\nname: huge\ndescription: x\n---\n{}", "y".repeat(64 << 20))),
            _ => Ok("---\nname: fine\ndescription: Fine.\n---\nFine body.\n".into()),
        }
    }
}

#[test]
fn failing_and_oversized_reads_are_skipped_skills() {
    let mut engine =
        WasmEngine::new(runtime(), boxed(vec![Hostile]), Options::default(), CallLimits::default()).unwrap();
    let report = engine.report().unwrap();
    assert_eq!(report.loaded, 1);
    let reasons: Vec<&str> = report.skipped.iter().map(|s| s.reason.as_str()).collect();
    assert_eq!(reasons, vec!["disk on fire", "SKILL.md is 67108898 bytes; the limit is 1048576"]);
    let turn = engine.inject("@fine", &TurnContext::default()).unwrap();
    assert_eq!(turn.text, "[SKILL:fine]\nFine body.\n[/SKILL]");
}

#[test]
fn precompiled_cache_round_trip() {
    let dir = std::env::temp_dir().join(format!("skillwire-cache-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    {
        let first = WasmRuntime::with_cache(&dir).unwrap();
        let files: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(files.len(), 1, "the compiled component is cached");
        let second = WasmRuntime::with_cache(&dir).unwrap();
        let text = "---\nname: a\ndescription: b\n---\n";
        let opts = LintOptions::default();
        assert_eq!(
            first.lint("a/SKILL.md", text, &opts, CallLimits::default()).unwrap(),
            second.lint("a/SKILL.md", text, &opts, CallLimits::default()).unwrap()
        );
    }
    // A damaged cache file is ignored: the component is compiled again. (The file is
    // replaced, not written in place: a loaded component maps it.)
    for f in std::fs::read_dir(&dir).unwrap() {
        let path = f.unwrap().path();
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, b"garbage").unwrap();
    }
    assert!(WasmRuntime::with_cache(&dir).is_ok());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A compile (a new version's first run) removes the compiled components other versions
/// left and nothing loaded for `UNUSED_CACHE_DAYS`; recent ones and other files stay.
#[test]
fn a_compile_prunes_compiled_components_left_unused() {
    let dir = std::env::temp_dir().join(format!("skillwire-cache-prune-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let days = |n: u64| std::time::SystemTime::now() - std::time::Duration::from_secs(n * 24 * 60 * 60);
    let write = |name: &str, age_days: u64| {
        let file = std::fs::File::create(dir.join(name)).unwrap();
        let at = days(age_days);
        file.set_times(std::fs::FileTimes::new().set_accessed(at).set_modified(at)).unwrap();
    };
    let old = skillwire_host::wasm::UNUSED_CACHE_DAYS + 1;
    write("skillwire-0.0.1-0000000000000001.cwasm", old);
    write("skillwire-0.0.2-0000000000000002.cwasm", 2);
    write("notes.cwasm", old);
    write("skillwire-cache.json", old);
    WasmRuntime::with_cache(&dir).unwrap();
    let mut names: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    assert_eq!(names.len(), 4, "{names:?}");
    assert!(!names.contains(&"skillwire-0.0.1-0000000000000001.cwasm".to_owned()), "{names:?}");
    for kept in ["notes.cwasm", "skillwire-0.0.2-0000000000000002.cwasm", "skillwire-cache.json"] {
        assert!(names.contains(&kept.to_owned()), "{kept}: {names:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_component_imports_only_the_skill_sources() {
    assert_eq!(runtime().imports(), vec!["skillwire:engine/types@0.1.0", "skillwire:engine/skill-source@0.1.0"]);
}

#[test]
fn embeddings_survive_an_instance_being_replaced() {
    let mut source = MemorySource::new();
    source.insert("a/SKILL.md", "---\nname: k8s-debug\ndescription: Debug Kubernetes pods.\n---\nUse kubectl.\n");
    source.insert("b/SKILL.md", "---\nname: sql-review\ndescription: Review SQL queries.\n---\nRead the plan.\n");
    let mut engine =
        WasmEngine::new(runtime(), boxed(vec![source]), Options::default(), CallLimits::default()).unwrap();
    let texts = engine.embedding_texts().unwrap();
    assert_eq!(texts[0].text, "k8s-debug: Debug Kubernetes pods.");
    assert_eq!(
        engine.set_embeddings(vec![("k8s-debug".into(), vec![1.0, 0.0]), ("sql-review".into(), vec![0.0, 1.0])]),
        Ok(2)
    );
    let turn = TurnContext { embedding: Some(vec![0.9, 0.1]), ..TurnContext::default() };
    let found = engine.matches("my containers keep dying", &turn).unwrap();
    assert_eq!(found[0].skill, "k8s-debug");
    // A trap replaces the instance; the embeddings come back with it.
    engine.set_limits(CallLimits { fuel: 1_000, fuel_per_input_byte: 0, ..CallLimits::default() });
    assert_eq!(engine.matches("my containers keep dying", &turn), Err(WasmError::OutOfFuel));
    engine.set_limits(CallLimits::default());
    assert_eq!(engine.matches("my containers keep dying", &turn).unwrap(), found);
    // Bad vectors are the core's typed error; a refresh drops the embeddings.
    let bad = engine.set_embeddings(vec![("k8s-debug".into(), vec![0.0, 0.0])]);
    assert!(matches!(bad, Err(WasmError::Engine(Error::InvalidEmbedding { .. }))), "{bad:?}");
    engine.refresh().unwrap();
    assert_eq!(engine.matches("my containers keep dying", &turn).unwrap(), vec![]);
}

/// The labelled messages of `shared()/queries/dev.jsonl`.
fn dev_messages() -> Vec<String> {
    let Some(shared) = shared_data::shared() else { return Vec::new() };
    let dev = std::fs::read_to_string(shared.join("queries/dev.jsonl")).unwrap();
    dev.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["q"].as_str().unwrap().to_owned())
        .collect()
}

/// Every answer of `engine` on `messages` and the catalogue texts, as JSON.
fn answers(engine: &mut dyn Backend, messages: &[String]) -> Vec<Value> {
    let mut out = vec![json!(engine.report().unwrap())];
    for message in messages {
        out.push(json!(engine.matches(message, &TurnContext::default()).unwrap()));
        out.push(json!(engine.inject(message, &TurnContext::default()).unwrap()));
    }
    for format in [CatalogFormat::AgentSkills, CatalogFormat::SkillsRef, CatalogFormat::Markdown, CatalogFormat::Json] {
        out.push(json!(engine.catalog_text(format, None).unwrap()));
        out.push(json!(engine.catalog_text(format, Some(5000)).unwrap()));
    }
    out
}

/// The component and the native core give the same answers, byte for byte, on the
/// real skill packs with every labelled message (reports, matches, injections in each
/// format, catalogue texts with and without a budget) and lint every SKILL.md alike.
#[test]
fn native_and_component_agree_on_the_corpus_and_the_examples() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/skills");
    let mut packs =
        vec![(examples, vec!["sql and csv, @release-notes".to_owned(), "write the commit message".to_owned()])];
    if let Some(dir) = corpus_dir() {
        packs.push((dir, dev_messages()));
    }
    for (dir, messages) in &packs {
        for format in [InjectFormat::Bracket, InjectFormat::Xml, InjectFormat::Markdown] {
            let render = RenderOptions { format, budget: 700, ..RenderOptions::default() };
            let options = Options { render, ..Options::default() };
            let mut native = Engine::new(vec![FsSource::discover(dir).unwrap()], options.clone());
            let mut wasm = WasmEngine::new(runtime(), corpus(dir), options, CallLimits::default()).unwrap();
            let (n, w) = (answers(&mut native, messages), answers(&mut wasm, messages));
            assert_eq!(n.len(), w.len());
            for (n, w) in n.iter().zip(&w) {
                assert_eq!(n, w, "{} {format:?}", dir.display());
            }
        }
        let options = LintOptions::default();
        for file in FsSource::discover(dir).unwrap().files().iter() {
            let text = std::fs::read_to_string(file).unwrap();
            let location = file.to_string_lossy();
            let native = skillwire::lint_with(&location, &text, &options);
            let wasm = runtime().lint(&location, &text, &options, CallLimits::default()).unwrap();
            assert_eq!(json!(native), json!(wasm), "{location}");
        }
    }
}

/// The component's scan classes bytes sixteen at a time with WebAssembly SIMD, the
/// native one with SSE2 on x86-64 (eight at a time in a `u64` on other targets, as the npm
/// modules do; the core's block tests hold each way to a byte at a time): every ASCII character, and for each lead byte
/// the invisible-character pass looks for a character it reports (with neighbours it
/// does not), beside trigger phrases at every place of a 16-byte vector, give the same
/// findings at the same places in both.
#[test]
fn the_components_scan_finds_what_the_native_scan_finds_beside_every_character() {
    // Per lead byte the pass looks for, a character it reports (and neighbours it does not);
    // `°` and `¹` end in bytes that would read as digits if their high bit were not seen.
    let non_ascii = "\u{80}\u{AD}\u{B0}\u{B9}\u{BF}é\u{33F}\u{34F}\u{37F}\u{380}\u{61C}\u{FFF}\u{1000}\u{115F}\
                     \u{1160}\u{180E}\u{200B}\u{200D}\u{202A}\u{202E}\u{2060}\u{2066}\u{2069}\u{3164}\u{4E2D}\
                     \u{EFFF}\u{FEFF}\u{FFA0}\u{1F600}\u{E0041}\u{E0100}\u{F0000}";
    let probes = (0u8..0x80).map(char::from).chain(non_ascii.chars());
    let options = LintOptions::default();
    let mut findings = 0;
    for probe in probes {
        for shift in 0..=20 {
            let pad = "a".repeat(shift);
            let text = format!(
                "---\nname: probe\ndescription: Probes the scan.\n---\n{pad}{probe}rm -rf /{probe}ignore previous \
                 instructions{probe}x{probe}curl{probe}$(env){probe}\u{200B}{probe}y\n"
            );
            let native = skillwire::lint_with("probe/SKILL.md", &text, &options);
            let wasm = runtime().lint("probe/SKILL.md", &text, &options, CallLimits::default()).unwrap();
            findings += native.findings.len();
            assert_eq!(json!(native), json!(wasm), "{probe:?} after {shift} bytes");
        }
    }
    // (Triggers start words or punctuation: which probes hide one is part of what is compared.)
    assert!(findings > 5_000, "{findings} findings");
}

/// The component exports the core's defaults, so a component host restates none.
#[test]
fn the_component_exports_the_cores_defaults() {
    assert_eq!(runtime().defaults().unwrap(), skillwire::Defaults::default());
}

/// Every corpus skill's files, listed and read natively and in the component: the same
/// listings, contents, digests and refusals; a model's call answered the same.
#[test]
fn native_and_component_agree_on_skill_files() {
    let Some(dir) = corpus_dir() else { return };
    let mut native = Engine::new(vec![FsSource::discover(&dir).unwrap()], Options::default());
    let mut wasm = WasmEngine::new(runtime(), corpus(&dir), Options::default(), CallLimits::default()).unwrap();
    let names: Vec<String> = native.catalog().skills().iter().map(|s| s.skill.name.clone()).collect();
    let (mut listed, mut read) = (0, 0);
    for name in &names {
        let (n, w) = (Backend::files(&mut native, name), wasm.files(name));
        assert_eq!(format!("{n:?}"), format!("{w:?}"), "{name}");
        let Ok(files) = n else { continue };
        listed += files.files.len();
        for file in &files.files {
            let (n, w) = (Backend::read_file(&mut native, name, &file.path), wasm.read_file(name, &file.path));
            assert_eq!(format!("{n:?}"), format!("{w:?}"), "{name} {}", file.path);
            read += usize::from(n.is_ok());
        }
    }
    assert!(listed > names.len() && read > names.len(), "{listed} listed, {read} read");
    // The real packs' reference files, as a model asks for them.
    let call = r#"{"skill": "mcp-builder", "path": "reference/evaluation.md"}"#;
    let (n, w) = (Backend::answer_read_file(&mut native, call).unwrap(), wasm.answer_read_file(call).unwrap());
    assert_eq!(n, w);
    assert!(!n.is_error && n.content.len() > 1000, "{n:?}");
    let escape = r#"{"skill": "mcp-builder", "path": "../skill-creator/SKILL.md"}"#;
    assert!(wasm.answer_read_file(escape).unwrap().content.ends_with("(invalid_path)"));
}

/// A build of many stamped entries is split between instances of the component, each
/// preparing part of the entries on a thread of its own; the engine's instance takes what
/// they prepared. The catalogue is the one a build in one instance (and the native core)
/// makes, and each entry is read once. Stopped while taking the parts, the engine's
/// instance builds again alone.
#[test]
fn a_large_build_split_between_instances_gives_the_catalogue_of_one() {
    let Some(dir) = corpus_dir() else { return };
    /// Skills stamped with their text's length but the last, which has no stamp; reads
    /// counted, with the threads they came from.
    #[derive(Clone)]
    struct Counted(Arc<std::sync::Mutex<Vec<(String, String)>>>, Arc<std::sync::Mutex<Vec<std::thread::ThreadId>>>);
    impl SkillSource for Counted {
        fn list(&self) -> Result<Vec<SkillEntry>, SourceError> {
            let entry = |(l, t): &(String, String)| SkillEntry::new(l).with_stamp(t.len().to_string());
            let mut entries: Vec<SkillEntry> = self.0.lock().unwrap().iter().map(entry).collect();
            if let Some(last) = entries.last_mut() {
                last.stamp = None;
            }
            Ok(entries)
        }
        fn read(&self, location: &str) -> Result<String, SourceError> {
            self.1.lock().unwrap().push(std::thread::current().id());
            let found = self.0.lock().unwrap().iter().find(|(l, _)| l == location).map(|(_, t)| t.clone());
            found.ok_or_else(|| SourceError::new("gone".to_owned()))
        }
    }
    // The corpus twice over, under two roots: every name is shared, so the second half
    // is shadowed by the first, across the parts.
    let read =
        |file: &std::path::PathBuf| (file.to_string_lossy().into_owned(), std::fs::read_to_string(file).unwrap());
    let files: Vec<(String, String)> = FsSource::discover(&dir).unwrap().files().iter().map(read).collect();
    let skills: Vec<(String, String)> =
        ["a", "b"].iter().flat_map(|root| files.iter().map(move |(l, t)| (format!("{root}{l}"), t.clone()))).collect();
    assert!(skills.len() > skillwire_host::wasm::SPLIT_FROM_ENTRIES, "{}", skills.len());
    let messages = dev_messages();
    let source = |reads: &Arc<std::sync::Mutex<Vec<std::thread::ThreadId>>>| {
        Counted(Arc::new(std::sync::Mutex::new(skills.clone())), Arc::clone(reads))
    };
    let mut expected = answers(&mut Engine::new(boxed(vec![source(&Arc::default())]), Options::default()), &messages);
    // How far each build grew the engine's instance's memory.
    let mut grown: Vec<usize> = Vec::new();
    for instances in [1, 3] {
        let runtime = Arc::new((*runtime()).clone().with_build_instances(instances));
        let reads = Arc::default();
        let counted = source(&reads);
        let sources = boxed(vec![counted.clone()]);
        let mut wasm = WasmEngine::new(runtime, sources, Options::default(), CallLimits::default()).unwrap();
        grown.push(wasm.memory_bytes());
        let threads: std::collections::HashSet<_> = reads.lock().unwrap().iter().copied().collect();
        assert_eq!(reads.lock().unwrap().len(), skills.len(), "{instances}: each entry read once");
        // Split: the preparing instances' threads, and the build's, which reads the entry
        // that has no stamp.
        let expected_threads = if instances == 1 { 1 } else { instances + 1 };
        assert_eq!(threads.len(), expected_threads, "{instances}: read on as many threads");
        let got = answers(&mut wasm, &messages);
        assert!(got == expected, "{instances} instances: the catalogue differs from the native one");
        expected = got;
        // A refresh lists the source again (not the listing the split build was given):
        // an edited skill is read, with the entry that has no stamp, and its text is used.
        let at = skills.iter().position(|(_, text)| text.contains("\nname: pdf\n")).unwrap();
        let first = counted.0.lock().unwrap()[at].clone();
        let edited = first.1.replacen("\n---\n", "\n---\nZebra wrangling, step one.\n", 1);
        assert_ne!(edited, first.1);
        counted.0.lock().unwrap()[at].1 = edited;
        let before = reads.lock().unwrap().len();
        wasm.refresh().unwrap();
        assert_eq!(reads.lock().unwrap().len(), before + 2, "{instances}: the edited entry and the unstamped one");
        let turn = wasm.inject("@pdf", &TurnContext::default()).unwrap();
        assert!(turn.user_message.contains("Zebra wrangling"), "{instances}: {}", turn.user_message);
        counted.0.lock().unwrap()[at].1 = first.1;
    }
    // Stopped while taking or assembling the parts (here by a memory cap one page short of
    // what the build needs, split or alone: which needs more depends on how the allocator
    // placed them), the engine's instance builds again alone, reading every entry itself,
    // and says what stopped it when that fails too.
    let least = grown.iter().copied().min().unwrap();
    let reads = Arc::default();
    let limits = CallLimits { memory_bytes: least - 65536, ..CallLimits::default() };
    let runtime = Arc::new((*runtime()).clone().with_build_instances(3));
    let stopped = WasmEngine::new(runtime, boxed(vec![source(&reads)]), Options::default(), limits).err();
    assert!(matches!(stopped, Some(skillwire_host::wasm::WasmError::OutOfMemory)), "{stopped:?}");
    // (Without the retry, only the parts would have read the entries.)
    let read = reads.lock().unwrap().len();
    assert!(read > skills.len(), "{read} reads: the build alone did not read the entries again");
}
