//! Per-turn time of the native core and of the component, on a folder of skills and a
//! file of messages (one JSON object with a `q` field per line, or plain lines).
//!
//! ```sh
//! cargo run --release -p skillwire-host --example turn_time -- ../shared/corpus ../shared/queries/dev.jsonl 50
//! ```
//!
//! Prints the median and 99th percentile of `inject` per turn, for each engine, and the
//! time to build the catalogue. A quick price tag, not a benchmark suite.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)] // a measuring tool

use skillwire::{Engine, Options, SkillSource};
use skillwire_host::wasm::{CallLimits, Runtime, WasmEngine};
use skillwire_host::{Backend, FsSource};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn percentile(times: &mut [Duration], p: f64) -> Duration {
    times.sort();
    times[((times.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let skills = Path::new(args.get(1).map_or("../shared/corpus", String::as_str)).to_path_buf();
    let messages_path = args.get(2).map_or("../shared/queries/dev.jsonl", String::as_str);
    let rounds: usize = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(50);
    let messages: Vec<String> = std::fs::read_to_string(messages_path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| match serde_json::from_str::<serde_json::Value>(l) {
            Ok(v) if v["q"].is_string() => v["q"].as_str().unwrap().to_owned(),
            _ => l.to_owned(),
        })
        .collect();

    let t = Instant::now();
    let native = Engine::new(vec![FsSource::discover(&skills).unwrap()], Options::default());
    let native_build = t.elapsed();
    let t = Instant::now();
    let runtime = Arc::new(Runtime::new().unwrap());
    let compile = t.elapsed();
    let t = Instant::now();
    let sources: Vec<Box<dyn SkillSource + Send + Sync>> = vec![Box::new(FsSource::discover(&skills).unwrap())];
    let mut wasm = WasmEngine::new(runtime, sources, Options::default(), CallLimits::default()).unwrap();
    let wasm_build = t.elapsed();

    let (mut n, mut w) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        for m in &messages {
            let t = Instant::now();
            let a = native.inject(m, &Default::default()).unwrap();
            n.push(t.elapsed());
            let t = Instant::now();
            let b = wasm.inject(m, &Default::default()).unwrap();
            w.push(t.elapsed());
            assert_eq!(a, b, "engines disagree on {m:?}");
        }
    }
    let turns = n.len();
    let (n50, n99, w50, w99) =
        (percentile(&mut n, 0.5), percentile(&mut n, 0.99), percentile(&mut w, 0.5), percentile(&mut w, 0.99));
    println!("skills: {} | messages: {} | turns per engine: {turns}", native.catalog().skills().len(), messages.len());
    println!("catalogue build: native {native_build:?}, wasm {wasm_build:?} (component compile {compile:?})");
    println!(
        "inject per turn: native p50 {n50:?} p99 {n99:?} | wasm p50 {w50:?} p99 {w99:?} | wasm/native p50 {:.2}x",
        w50.as_secs_f64() / n50.as_secs_f64()
    );
}
