//! A large build split between instances of the component. The guest runs on one thread;
//! the host has several. So before a build from the sources, the host lists them itself
//! and, when they hold at least [`SPLIT_FROM_ENTRIES`] stamped entries, hands each of a few
//! fresh instances, one per thread, sources that list a contiguous part of those entries:
//! each prepares its part (`prepare-part`: reads, loads and scans each SKILL.md) under its
//! own fuel and memory limits, and the engine's instance then builds from the sources,
//! taking what the parts prepared (`engine.from-parts`) instead of reading those entries
//! again — the catalogue a build in one instance makes (the core's `parts.rs`). A part whose
//! instance is stopped by a limit or fails is dropped: the build reads its entries itself.
//!
//! The host's own listing is the one the build sees: each source is listed once (twice
//! when the engine's instance is stopped while taking the parts and builds again alone).

use super::convert::Cross;
use super::{wit, CallLimits, Runtime};
use skillwire::{ListedFile, Options, SkillEntry, SkillSource, SourceError};
use std::sync::{Arc, Mutex};

/// A source as the engine's instances share it, each on its own thread.
pub(crate) type Shared = Arc<dyn SkillSource + Send + Sync>;

/// Builds from fewer stamped entries are not split: an instance's start and the parts'
/// copies would cost more than they save.
pub const SPLIT_FROM_ENTRIES: usize = 256;

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

/// What a build over `sources` starts from: the sources its instance lists (each
/// listing the host made, once), and what `instances` instances prepared of their stamped
/// entries, in parts (none when there are too few, or one instance).
pub(crate) fn prepare_in_parts(
    runtime: &Runtime,
    sources: &[Shared],
    options: &Options,
    limits: CallLimits,
    instances: usize,
) -> (Vec<Shared>, Vec<Vec<u8>>) {
    if instances <= 1 {
        return (sources.to_vec(), Vec::new());
    }
    let listings: Vec<Result<Vec<SkillEntry>, SourceError>> = sources.iter().map(|s| s.list()).collect();
    let stamped: Vec<(usize, &SkillEntry)> = (listings.iter().enumerate())
        .filter_map(|(index, listing)| listing.as_ref().ok().map(|entries| (index, entries)))
        .flat_map(|(index, entries)| entries.iter().filter(|e| e.stamp.is_some()).map(move |e| (index, e)))
        .take(options.catalog.limits.max_skills)
        .collect();
    let parts = if stamped.len() < SPLIT_FROM_ENTRIES {
        Vec::new()
    } else {
        let each = stamped.len().div_ceil(instances);
        let part_sources = |part: &[(usize, &SkillEntry)]| -> Vec<Shared> {
            let mut of: Vec<Vec<SkillEntry>> = vec![Vec::new(); sources.len()];
            for (index, entry) in part {
                if let Some(entries) = of.get_mut(*index) {
                    entries.push((*entry).clone());
                }
            }
            sources.iter().zip(of).map(|(source, entries)| Listed::shared(source, Ok(entries))).collect()
        };
        let parts: Vec<Vec<Shared>> = stamped.chunks(each).map(part_sources).collect();
        prepare_parts(runtime, parts, options, limits)
    };
    let listed = sources.iter().zip(listings).map(|(source, listing)| Listed::shared(source, listing)).collect();
    (listed, parts)
}

/// Each part prepared in an instance of its own, the first on this thread and the others
/// on threads of their own; the parts that could be.
fn prepare_parts(runtime: &Runtime, parts: Vec<Vec<Shared>>, options: &Options, limits: CallLimits) -> Vec<Vec<u8>> {
    let prepare = |sources: Vec<Shared>| -> Option<Vec<u8>> {
        let count = u32::try_from(sources.len()).unwrap_or(u32::MAX);
        let mut store = runtime.store(sources, options, limits);
        store.set_fuel(limits.fuel).ok()?;
        let instance = runtime.pre.instantiate(&mut store).ok()?;
        let options: wit::Options = options.clone().cross();
        instance.skillwire_engine_api().call_prepare_part(&mut store, count, &options).ok()?.ok()
    };
    let prepare = &prepare;
    let mut parts = parts.into_iter();
    let Some(first) = parts.next() else { return Vec::new() };
    std::thread::scope(|scope| {
        let others: Vec<_> = parts
            .map(|sources| {
                let builder = std::thread::Builder::new().name("skillwire-prepare".to_owned());
                // No thread: the part is left to the build.
                builder.spawn_scoped(scope, move || prepare(sources)).ok()
            })
            .collect();
        let mut prepared = vec![prepare(first)];
        prepared.extend(others.into_iter().map(|worker| worker.and_then(|w| w.join().ok().flatten())));
        prepared.into_iter().flatten().collect()
    })
}
