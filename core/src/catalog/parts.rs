//! Preparing a catalogue's entries in several places at once. Where the core runs on one
//! thread (the WebAssembly component) but its host has several, the host can split a
//! build: a few instances each prepare part of the sources' entries
//! ([`Catalog::prepare_part`]) — loading, reading the body's sections and scanning each
//! SKILL.md, the work that depends on one entry alone — and hand the prepared entries back
//! as bytes; one instance then builds the catalogue taking them
//! ([`Engine::from_parts`](crate::Engine::from_parts)) as a refresh takes what the last
//! build prepared: an entry listed with the stamp it was prepared under is not read again,
//! the others are read and prepared as in any build, and everything after preparing (who
//! keeps a shared name, gates, ids, the indexes) is done there, over all entries in order.
//! So the catalogue is the one a build in one place gives.
//!
//! Only entries with a [stamp](crate::SkillEntry::stamp) are prepared in a part: the stamp
//! is how the build knows an entry is the one that was prepared. Kept, as a refresh keeps
//! them: skills that loaded and were scanned, and entries that did not load (with the
//! loader's diagnostics) or that their source refused. Left to the build: reads that
//! failed (they may pass), scans that could not run. Parts are bytes for the build of
//! skillwire that wrote them (its version is checked), passed within one host, with no
//! checksum; a part that does not fit is not taken, and the build reads its entries.

use super::prepare::{prepare_batch, Prepared, Waiting};
use super::snapshot::{version, Entries, Output, WireEntry, WireReport};
use super::{Catalog, CatalogInput, CatalogOptions, CatalogReport, CatalogSkill, Reuse, SnapshotError};
use crate::engine::source::SkillSource;
use crate::fast_hash::SeededMap;
use crate::select::rank::{RankIndex, ReadAhead};
use crate::skill::Skill;
use serde::{Deserialize, Serialize};

/// What every part starts with.
const MAGIC: &[u8] = b"skillwire prepared entries\n";

/// A part as written.
#[derive(Serialize)]
struct PartRef<'a> {
    version: String,
    options: &'a CatalogOptions,
    skills: Entries<'a>,
    /// The warnings of the skills, and the entries that did not load.
    report: WireReport,
    /// Source, location and stamp of each entry kept.
    stamps: &'a [(usize, String, String)],
}

/// A part as read (the fields [`PartRef`] writes).
#[derive(Deserialize)]
struct Part {
    version: String,
    options: CatalogOptions,
    skills: Vec<WireEntry<'static>>,
    report: WireReport,
    stamps: Vec<(usize, String, String)>,
}

/// The entries of a part prepared so far: what a build may take of them.
#[derive(Default)]
struct Kept {
    skills: Vec<CatalogSkill>,
    report: CatalogReport,
    stamps: Vec<(usize, String, String)>,
}

impl Kept {
    /// Prepares `waiting` (each entry with its stamp), keeping what a build may take.
    fn prepare(&mut self, waiting: Vec<(CatalogInput, String)>, options: &CatalogOptions) {
        let (inputs, stamps): (Vec<CatalogInput>, Vec<String>) = waiting.into_iter().unzip();
        for ((input, stamp), prepared) in inputs.iter().zip(stamps).zip(prepare_batch(&inputs, options, || ())) {
            match prepared {
                Prepared::Loaded { warnings, scanned: Ok(entry) } => {
                    self.report.warnings.extend(warnings);
                    self.skills.push(*entry);
                }
                // It did not load, or its source refused it: the diagnostics say why.
                Prepared::NotLoaded(skipped) if !skipped.diagnostics.is_empty() => self.report.skipped.push(skipped),
                // A read that failed, a scan that could not run: the build tries again.
                _ => continue,
            }
            self.stamps.push((input.source, input.location.clone(), stamp));
        }
    }
}

impl Catalog {
    /// Prepares every entry with a [stamp](crate::SkillEntry::stamp) that `sources` list
    /// (read, loaded, scanned as a build with `options` would), as bytes for
    /// [`Engine::from_parts`](crate::Engine::from_parts) over the same sources (the same
    /// indices) and options. A host splits a build by handing each of a few instances
    /// sources that list part of the entries (see the module docs of `parts.rs`); at most
    /// `options.limits.max_skills` entries are prepared. A source whose listing fails is
    /// left to the build, which reports it.
    pub fn prepare_part<S: SkillSource>(sources: &[S], options: &CatalogOptions) -> Result<Vec<u8>, SnapshotError> {
        let mut kept = Kept::default();
        let mut waiting: Waiting<(CatalogInput, String)> = Waiting::default();
        let mut room = options.limits.max_skills;
        'sources: for (index, source) in sources.iter().enumerate() {
            let Ok(entries) = source.list() else { continue };
            for entry in entries {
                let Some(stamp) = entry.stamp else { continue };
                if room == 0 {
                    break 'sources;
                }
                room -= 1;
                let text = match entry.text {
                    Some(text) => Ok(text),
                    None => source.read(&entry.location),
                };
                let input =
                    CatalogInput { source: index, location: entry.location, origin: entry.origin, id: entry.id, text };
                if waiting.push((input, stamp), |(input, _)| input) {
                    kept.prepare(waiting.take(), options);
                }
            }
        }
        kept.prepare(waiting.take(), options);
        let part = PartRef {
            version: version(),
            options,
            skills: Entries(&kept.skills),
            report: WireReport::from(&kept.report),
            stamps: &kept.stamps,
        };
        Output::write(&part, MAGIC.to_vec()).map_err(|e| SnapshotError::Unwritable(e.to_string()))
    }
}

/// A build's parts taken one at a time, as each is prepared: each part's skills are read
/// for ranking as it is taken, so that a host preparing the other parts meanwhile keeps
/// the build's instance busy; the build then takes the part's entries as
/// [`Engine::from_parts`](crate::Engine::from_parts) does, and makes its ranking index from
/// these readings ([`Engine::from_parts_build`](crate::Engine::from_parts_build)). The
/// catalogue is the one a build in one place gives.
#[derive(Debug)]
pub struct PartsBuild {
    options: CatalogOptions,
    reuse: Reuse,
    conflicts: SeededMap<(usize, String), ()>,
    read: PartsRead,
}

/// The parts' skills read for ranking: the readings, and which skill each is, by source
/// and location.
#[derive(Debug)]
pub(crate) struct PartsRead {
    ahead: ReadAhead,
    by_entry: SeededMap<(usize, String), ReadSkill>,
}

/// A part's skill as read for ranking.
#[derive(Debug)]
struct ReadSkill {
    /// The number of its reading.
    reading: usize,
    /// The name it was read under.
    name: String,
    /// Whether the build took its prepared entry.
    taken: bool,
}

impl PartsRead {
    /// The build read an entry at `key` itself: no reading of a part's skill there serves
    /// (a source listing one location twice).
    pub(crate) fn read_by_build(&mut self, key: &(usize, String)) {
        self.by_entry.remove(key);
    }

    /// The build took the prepared entry at `key`: its skill's reading may serve.
    pub(crate) fn taken(&mut self, key: &(usize, String)) {
        if let Some(read) = self.by_entry.get_mut(key) {
            read.taken = true;
        }
    }

    /// The ranking index of `skills` (in catalogue order; `ranked`: each as ranking reads
    /// it): a skill whose prepared entry the build took, and which still has the name it
    /// was read under, takes its reading; the others are read now.
    pub(crate) fn into_index(self, skills: &[CatalogSkill], ranked: &[&Skill]) -> RankIndex {
        let by_entry = &self.by_entry;
        let reading_of = |at: usize| {
            let skill = skills.get(at)?;
            let read = by_entry.get(&(skill.source, skill.skill.location.clone()))?;
            (read.taken && read.name == skill.skill.name).then_some(read.reading)
        };
        self.ahead.into_index(ranked, reading_of)
    }
}

impl PartsBuild {
    /// No part taken yet, for a build with `options`.
    pub fn new(options: &CatalogOptions) -> PartsBuild {
        let read = PartsRead { ahead: ReadAhead::new(options.rank.headings), by_entry: SeededMap::default() };
        PartsBuild { options: options.clone(), reuse: Reuse::default(), conflicts: SeededMap::default(), read }
    }

    /// Takes a part [`Catalog::prepare_part`] wrote (its bytes are let go once read),
    /// reading its skills for ranking; or says why it does not fit (another build of
    /// skillwire wrote it, other options, not a part: the build reads its entries).
    pub fn take(&mut self, part: Vec<u8>) -> Result<(), SnapshotError> {
        let decoded = decode_part(&part, &self.options);
        drop(part);
        let (skills, report, options, stamps) = decoded?;
        let nothing = Skill::default();
        for skill in &skills {
            let reading = self.read.ahead.read(if skill.blocked() { &nothing } else { &skill.skill });
            let key = (skill.source, skill.skill.location.clone());
            self.read.by_entry.insert(key, ReadSkill { reading, name: skill.skill.name.clone(), taken: false });
        }
        let part = Reuse::new(skills, Vec::new(), report, options, stamps);
        self.reuse.absorb(part, &mut self.conflicts);
        Ok(())
    }

    /// What a build with `options` takes: the parts' entries and their skills' readings;
    /// nothing for a build with other options.
    pub(crate) fn into_parts(self, options: &CatalogOptions) -> Result<(Reuse, PartsRead), SnapshotError> {
        match super::same_options(&self.options, options) {
            true => Ok((self.reuse, self.read)),
            false => Err(SnapshotError::OtherOptions),
        }
    }
}

/// The stamps of a part's entries, by source and location.
type Stamps = SeededMap<(usize, String), String>;

/// One part's skills, report, options and stamps, if it fits.
fn decode_part(
    bytes: &[u8],
    options: &CatalogOptions,
) -> Result<(Vec<CatalogSkill>, CatalogReport, CatalogOptions, Stamps), SnapshotError> {
    let unreadable = |why: &str| SnapshotError::Unreadable(format!("prepared entries: {why}"));
    let body = bytes.strip_prefix(MAGIC).ok_or_else(|| unreadable("not written by prepare_part"))?;
    let part: Part = postcard::from_bytes(body).map_err(|e| unreadable(&e.to_string()))?;
    if part.version != version() {
        return Err(SnapshotError::OtherVersion { found: part.version });
    }
    if !super::same_options(&part.options, options) {
        return Err(SnapshotError::OtherOptions);
    }
    if part.skills.len() > options.limits.max_skills {
        return Err(unreadable("more skills than the limit"));
    }
    let skills = part.skills.into_iter().map(CatalogSkill::from).collect();
    let stamps = part.stamps.into_iter().map(|(source, location, stamp)| ((source, location), stamp)).collect();
    Ok((skills, part.report.into(), part.options, stamps))
}
