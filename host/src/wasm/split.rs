//! A large build split between instances of the component. The guest runs on one thread;
//! the host has several. So before a build from the sources, the host lists them itself
//! and, when they hold at least [`SPLIT_FROM_ENTRIES`] stamped entries, cuts those entries
//! into contiguous chunks, a few for each of a few fresh instances, one per thread: each
//! prepares its chunks in turn (`prepare-part`: reads, loads and scans each SKILL.md) under
//! its own fuel and memory limits. Meanwhile the engine's instance takes each part as it
//! is ready, in order (`parts-build.take`, which reads the part's skills for ranking), and
//! then builds from the sources taking what the parts prepared (`engine.from-parts-build`)
//! instead of reading those entries again — the catalogue a build in one instance makes
//! (the core's `parts.rs`). A part whose instance is stopped by a limit or fails is left
//! out: the build reads its entries itself.
//!
//! The host's own listing is the one the build sees: each source is listed once (twice
//! when the engine's instance is stopped while taking the parts and builds again alone).

use super::convert::Cross;
use super::{bindings, wit, CallLimits, HostState, Runtime};
use skillwire::{ListedFile, Options, SkillEntry, SkillSource, SourceError};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use wasmtime::Store;

/// A source as the engine's instances share it, each on its own thread.
pub(crate) type Shared = Arc<dyn SkillSource + Send + Sync>;

/// Builds from fewer stamped entries are not split: an instance's start and the parts'
/// copies would cost more than they save.
pub const SPLIT_FROM_ENTRIES: usize = 256;

/// Chunks each preparing instance is given, in turn: the engine's instance takes the first
/// parts while the last are being prepared.
const CHUNKS_PER_INSTANCE: usize = 8;

/// Fewest entries in a chunk, unless that leaves fewer chunks than instances.
const MIN_CHUNK: usize = 64;

/// A source whose next listing is one the host has already made (then it lists itself).
struct Listed {
    source: Shared,
    listing: Mutex<Option<Result<Vec<SkillEntry>, SourceError>>>,
}

impl Listed {
    /// `source`, its next listing `listing`.
    fn shared(source: &Shared, listing: Result<Vec<SkillEntry>, SourceError>) -> Shared {
        Arc::new(Listed { source: Arc::clone(source), listing: Mutex::new(Some(listing)) })
    }
}

impl SkillSource for Listed {
    fn list(&self) -> Result<Vec<SkillEntry>, SourceError> {
        let held = self.listing.lock().ok().and_then(|mut held| held.take());
        held.unwrap_or_else(|| self.source.list())
    }
    fn read(&self, location: &str) -> Result<String, SourceError> {
        self.source.read(location)
    }
    fn list_files(&self, location: &str) -> Result<Vec<ListedFile>, SourceError> {
        self.source.list_files(location)
    }
    fn read_file(&self, location: &str, path: &str, max_bytes: usize) -> Result<Vec<u8>, SourceError> {
        self.source.read_file(location, path, max_bytes)
    }
}

/// How a build over some sources is split: the sources its instance lists (each listing
/// the host made, once), and the chunks of their stamped entries to prepare, in order, each
/// as sources listing only that chunk (none when there are too few entries, or one
/// instance).
pub(crate) struct Split {
    pub(crate) listed: Vec<Shared>,
    pub(crate) chunks: Vec<Vec<Shared>>,
}

/// The split of a build over `sources` between `instances` preparing instances.
pub(crate) fn plan(sources: &[Shared], options: &Options, instances: usize) -> Split {
    if instances <= 1 {
        return Split { listed: sources.to_vec(), chunks: Vec::new() };
    }
    let listings: Vec<Result<Vec<SkillEntry>, SourceError>> = sources.iter().map(|s| s.list()).collect();
    let stamped: Vec<(usize, &SkillEntry)> = (listings.iter().enumerate())
        .filter_map(|(index, listing)| listing.as_ref().ok().map(|entries| (index, entries)))
        .flat_map(|(index, entries)| entries.iter().filter(|e| e.stamp.is_some()).map(move |e| (index, e)))
        .take(options.catalog.limits.max_skills)
        .collect();
    let chunks = if stamped.len() < SPLIT_FROM_ENTRIES {
        Vec::new()
    } else {
        let count = (instances * CHUNKS_PER_INSTANCE).min(stamped.len() / MIN_CHUNK).max(instances);
        let each = stamped.len().div_ceil(count);
        let chunk_sources = |chunk: &[(usize, &SkillEntry)]| -> Vec<Shared> {
            let mut of: Vec<Vec<SkillEntry>> = vec![Vec::new(); sources.len()];
            for (index, entry) in chunk {
                if let Some(entries) = of.get_mut(*index) {
                    entries.push((*entry).clone());
                }
            }
            sources.iter().zip(of).map(|(source, entries)| Listed::shared(source, Ok(entries))).collect()
        };
        stamped.chunks(each).map(chunk_sources).collect()
    };
    let listed = sources.iter().zip(listings).map(|(source, listing)| Listed::shared(source, listing)).collect();
    Split { listed, chunks }
}

/// Prepares `chunks` on `instances` threads, chunk `i` in turn by instance `i % instances`,
/// and hands each part to `take` on this thread in chunk order as soon as it and those
/// before it are ready (`None`: the chunk could not be prepared; its entries are left to
/// the build). Stops at the first error `take` returns.
pub(crate) fn prepare_while<E>(
    runtime: &Runtime,
    chunks: Vec<Vec<Shared>>,
    options: &Options,
    limits: CallLimits,
    instances: usize,
    mut take: impl FnMut(Option<Vec<u8>>) -> Result<(), E>,
) -> Result<(), E> {
    let instances = instances.clamp(1, chunks.len().max(1));
    let mut turns: Vec<Vec<(usize, Vec<Shared>)>> = (0..instances).map(|_| Vec::new()).collect();
    for (at, chunk) in chunks.into_iter().enumerate() {
        if let Some(turn) = turns.get_mut(at % instances) {
            turn.push((at, chunk));
        }
    }
    let options_crossed: wit::Options = options.clone().cross();
    let (sender, receiver) = std::sync::mpsc::channel::<(usize, Option<Vec<u8>>)>();
    std::thread::scope(|scope| {
        // Owned here, so that an early return drops it and the threads stop sending.
        let receiver = receiver;
        for turn in turns {
            let sender = sender.clone();
            let options_crossed = &options_crossed;
            let preparing = move || {
                let mut live = None;
                for (at, chunk) in turn {
                    let part = prepare(runtime, &mut live, chunk, options, options_crossed, limits);
                    // The build stopped taking parts: no more are needed.
                    if sender.send((at, part)).is_err() {
                        break;
                    }
                }
            };
            // No thread: its chunks are left to the build.
            let _ = std::thread::Builder::new().name("skillwire-prepare".to_owned()).spawn_scoped(scope, preparing);
        }
        drop(sender);
        let mut ready = BTreeMap::new();
        let mut next = 0;
        for (at, part) in receiver.iter() {
            ready.insert(at, part);
            while let Some(part) = ready.remove(&next) {
                take(part)?;
                next += 1;
            }
        }
        // Those after a chunk that never came (its thread could not start).
        ready.into_values().try_for_each(take)
    })
}

/// One chunk prepared in the instance `live` holds (started first if none does; dropped
/// when a call fails, so that the next chunk starts a fresh one).
fn prepare(
    runtime: &Runtime,
    live: &mut Option<(Store<HostState>, bindings::SkillwireComponent)>,
    chunk: Vec<Shared>,
    options: &Options,
    options_crossed: &wit::Options,
    limits: CallLimits,
) -> Option<Vec<u8>> {
    if live.is_none() {
        let mut store = runtime.store(Vec::new(), options, limits);
        // (Starting an instance runs the guest: it takes fuel too.)
        store.set_fuel(limits.fuel).ok()?;
        let instance = runtime.pre.instantiate(&mut store).ok()?;
        *live = Some((store, instance));
    }
    let (store, instance) = live.as_mut()?;
    let count = u32::try_from(chunk.len()).unwrap_or(u32::MAX);
    store.data_mut().sources = chunk;
    store.data_mut().earned = 0;
    store.set_fuel(limits.fuel).ok()?;
    match instance.skillwire_engine_api().call_prepare_part(&mut *store, count, options_crossed) {
        Ok(part) => part.ok(),
        Err(_) => {
            *live = None;
            None
        }
    }
}
