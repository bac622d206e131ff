//! Soak test of the wasmtime host (and, for comparison, the native core): a million
//! turns over the corpus, with memory sampled along the way. Not part of CI.
//!
//! ```sh
//! cargo run --release -p skillwire-host --example soak -- 1000000 wasm
//! ```
//!
//! The messages are the dev messages, every tenth with a word never seen before and every
//! thousandth repeated past 16 KiB, so that what a thread keeps between turns (the stems it
//! remembers, its buffers) is seen to stay bounded.
//!
//! Every twentieth of the run prints the turn count, the process's resident memory (from
//! `/proc/self/statm`, Linux) and, for the component, the guest's linear memory. Memory
//! is flat when the last sample is within a few percent of the one taken after warm-up
//! (a tenth of the run); the last line says which.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)] // a measuring tool

use skillwire::{Engine, MemorySource, Options, SkillSource, TurnContext};
use skillwire_host::wasm::{CallLimits, Runtime, WasmEngine};
use skillwire_host::{read_skill_file, Backend, FsSource};
use std::sync::Arc;
use std::time::Instant;

/// Resident memory of this process in bytes (0 where `/proc` is missing).
fn resident_bytes() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: usize = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).unwrap_or(0);
    pages * 4096
}

/// The message of turn `turn`: the dev messages in turn; every tenth with a word no turn
/// had before (the stems a thread remembers fill up and start again), every thousandth
/// repeated past 16 KiB (the buffers a thread keeps for messages are let go after one).
fn soak_message(messages: &[String], turn: usize) -> String {
    let message = &messages[turn % messages.len()];
    if turn % 1000 == 0 {
        return format!("{message} ").repeat(17 * 1024 / (message.len() + 1) + 1);
    }
    match turn % 10 {
        0 => format!("{message} zq{turn}"),
        _ => message.clone(),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let turns: usize = args.get(1).and_then(|t| t.parse().ok()).unwrap_or(1_000_000);
    let engine_kind = args.get(2).map_or("wasm", String::as_str).to_owned();
    // The real packs and labelled messages: third-party data kept outside the repository.
    let shared = std::env::var("SKILLWIRE_SHARED").unwrap_or_else(|_| "../shared".to_owned());
    let corpus = FsSource::discover(format!("{shared}/corpus").as_ref()).unwrap();
    let skills: MemorySource = corpus
        .files()
        .iter()
        .map(|f| (f.to_string_lossy().into_owned(), read_skill_file(f, usize::MAX).unwrap()))
        .collect();
    let messages: Vec<String> = std::fs::read_to_string(format!("{shared}/queries/dev.jsonl"))
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["q"].as_str().map(str::to_owned))
        .collect();

    enum Under {
        Native(Box<Engine<MemorySource>>),
        Wasm(Box<WasmEngine>),
    }
    let mut engine = match engine_kind.as_str() {
        "native" => Under::Native(Box::new(Engine::new(vec![skills], Options::default()))),
        _ => {
            let sources: Vec<Box<dyn SkillSource + Send + Sync>> = vec![Box::new(skills)];
            let runtime = Arc::new(Runtime::new().unwrap());
            Under::Wasm(Box::new(WasmEngine::new(runtime, sources, Options::default(), CallLimits::default()).unwrap()))
        }
    };
    let every = (turns / 20).max(1);
    let mut samples: Vec<(usize, usize, usize)> = Vec::new();
    let mut injected = 0usize;
    let started = Instant::now();
    println!("{:>9}  {:>12}  {:>12}  {:>8}", "turns", "resident", "guest", "µs/turn");
    let mut last = Instant::now();
    for turn in 1..=turns {
        // A conversation: every other turn knows what the previous one injected.
        let message = soak_message(&messages, turn);
        let message = &message;
        let recent = if turn % 2 == 0 { vec!["pdf".into()] } else { Vec::new() };
        let context = TurnContext { recent, ..TurnContext::default() };
        let out = match &mut engine {
            Under::Native(e) => e.inject(message, &context).unwrap(),
            Under::Wasm(e) => e.inject(message, &context).unwrap(),
        };
        injected += out.text.len();
        if turn % every == 0 {
            let guest = match &engine {
                Under::Native(_) => 0,
                Under::Wasm(e) => e.memory_bytes(),
            };
            let per_turn = last.elapsed().as_secs_f64() * 1e6 / every as f64;
            last = Instant::now();
            let resident = resident_bytes();
            println!("{turn:>9}  {:>10.1} M  {:>10.1} M  {per_turn:>8.1}", resident as f64 / 1e6, guest as f64 / 1e6);
            samples.push((turn, resident, guest));
        }
    }
    let warm = samples[samples.len() / 10];
    let end = samples[samples.len() - 1];
    let growth = |a: usize, b: usize| if a == 0 { 0.0 } else { (b as f64 - a as f64) / a as f64 * 100.0 };
    println!(
        "{engine_kind}: {turns} turns in {:.1} s ({injected} bytes injected); from turn {} to {}: resident {:+.1}%, guest {:+.1}% — {}",
        started.elapsed().as_secs_f64(),
        warm.0,
        end.0,
        growth(warm.1, end.1),
        growth(warm.2, end.2),
        if growth(warm.1, end.1) < 5.0 && growth(warm.2, end.2) <= 0.0 { "flat" } else { "GROWING" }
    );
}
