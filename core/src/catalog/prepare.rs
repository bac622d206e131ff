//! Preparing a catalogue entry: loading its SKILL.md, reading its body's sections and
//! scanning it — the work of a build that depends on one entry alone — and preparing a
//! batch of entries on several threads where the target has them.

use super::{CatalogInput, CatalogOptions, CatalogSkill, LocatedWarning, ScanBodies, SkippedSkill};
use crate::parallel;
use crate::scan;
use crate::skill;

/// Entries a native build prepares together once they are waiting, or fewer once their
/// texts reach [`BATCH_BYTES`] ([`Waiting`]): what a build holds of its entries' texts at a
/// time. A batch is prepared on every thread, [`CHUNK`] entries at a time.
pub(crate) const BATCH: usize = 512;

/// The texts' bytes from which waiting entries are prepared, however few.
const BATCH_BYTES: usize = 16 << 20;

/// Entries a thread takes at a time from a batch being prepared: small enough that the
/// threads finish together, whatever the entries' sizes.
const CHUNK: usize = 16;

/// Fewer entries than this are prepared on the build's own thread (a small build, or the
/// last entries of one): not worth a thread's start.
const SPLIT_FROM: usize = 64;

/// Whether `count` entries are prepared on several threads ([`prepare_batch`]).
pub(crate) fn splits(count: usize) -> bool {
    count >= SPLIT_FROM && parallel::threads() > 1
}

/// Entries waiting to be prepared (each an input, or an input with what its caller keeps
/// beside it), and their texts' bytes.
#[derive(Debug)]
pub(crate) struct Waiting<T> {
    entries: Vec<T>,
    bytes: usize,
}

impl<T> Default for Waiting<T> {
    fn default() -> Self {
        Waiting { entries: Vec::new(), bytes: 0 }
    }
}

impl<T> Waiting<T> {
    /// Adds `entry`, whose input is `input`; true when the entries waiting are a batch to
    /// prepare: [`BATCH`] of them, or [`BATCH_BYTES`] of text. With one thread (wasm32)
    /// each entry is: a batch would only hold texts longer.
    pub(crate) fn push(&mut self, entry: T, input: impl FnOnce(&T) -> &CatalogInput) -> bool {
        self.bytes += input(&entry).text.as_ref().map_or(0, String::len);
        self.entries.push(entry);
        parallel::threads() <= 1 || self.entries.len() >= BATCH || self.bytes >= BATCH_BYTES
    }

    /// The entries waiting, in order; none wait after.
    pub(crate) fn take(&mut self) -> Vec<T> {
        self.bytes = 0;
        std::mem::take(&mut self.entries)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// The diagnostic code of an entry its source refused for what its SKILL.md is
/// ([`SourceError::refused`](crate::SourceError::refused)).
pub(crate) const UNREADABLE: &str = "unreadable";

/// One entry, prepared without knowing the others.
#[derive(Debug)]
pub(crate) enum Prepared {
    /// The host could not give its text, for a reason that may pass: why.
    Unread { location: String, reason: String },
    /// Its SKILL.md did not load.
    NotLoaded(SkippedSkill),
    /// It loaded, with these warnings; and it was scanned (or the scan could not run).
    Loaded { warnings: Vec<LocatedWarning>, scanned: Result<Box<CatalogSkill>, SkippedSkill> },
    /// Not prepared: it came with its text after the catalogue was full.
    OverLimit { location: String },
}

impl Prepared {
    /// The entry's location.
    pub(crate) fn location(&self) -> &str {
        match self {
            Prepared::Unread { location, .. } | Prepared::OverLimit { location } => location,
            Prepared::NotLoaded(skipped) => &skipped.location,
            Prepared::Loaded { scanned: Ok(entry), .. } => &entry.skill.location,
            Prepared::Loaded { scanned: Err(skipped), .. } => &skipped.location,
        }
    }
}

/// Loads, reads and scans one entry.
pub(crate) fn prepare(input: &CatalogInput, options: &CatalogOptions) -> Prepared {
    let text = match &input.text {
        Ok(text) => text.as_str(),
        // Refused for what the SKILL.md is: skipped as one that does not load is, with a
        // diagnostic (so a refresh keeps it while its stamp holds).
        Err(refused) if refused.refused => {
            let (location, reason) = (input.location.clone(), refused.message.clone());
            let diagnostics = vec![crate::Diagnostic::error(UNREADABLE, reason.clone())];
            return Prepared::NotLoaded(SkippedSkill { location, reason, diagnostics });
        }
        Err(failed) => return Prepared::Unread { location: input.location.clone(), reason: failed.message.clone() },
    };
    let problem = |check: fn(&str) -> Option<String>, value: &Option<String>| value.as_deref().and_then(check);
    if let Some(reason) =
        problem(super::names::origin_problem, &input.origin).or(problem(super::names::id_problem, &input.id))
    {
        return Prepared::Unread { location: input.location.clone(), reason };
    }
    let loaded = skill::load(&input.location, text, &options.limits);
    let Some(mut skill) = loaded.skill else {
        let reason = (loaded.diagnostics.iter())
            .find(|d| d.is_error())
            .map_or_else(|| "not loaded".to_owned(), |d| d.message.clone());
        let location = input.location.clone();
        return Prepared::NotLoaded(SkippedSkill { location, reason, diagnostics: loaded.diagnostics });
    };
    let (frontmatter, body) = skill::frontmatter::head_and_body(text);
    (skill.sections, skill.headings) = skill::read_body(body, options.rank.headings);
    let warnings = (loaded.diagnostics.into_iter())
        .map(|diagnostic| LocatedWarning { location: skill.location.clone(), diagnostic })
        .collect();
    let missing = super::build::missing_requirements(&skill.requires, &options.available);
    let kept_out = super::names::kept_out(&skill.name, input.origin.as_deref(), &options.allow, &options.deny);
    let scanned = match options.scan_bodies {
        ScanBodies::AtBuild => text,
        ScanBodies::WhenRead => frontmatter,
    };
    // A skill the scan cannot read is not listed: unscanned is not clean.
    let scanned = match scan::scan_loaded(scanned, frontmatter, &skill, &options.scan) {
        Ok(findings) => {
            let (source, origin) = (input.source, input.origin.clone());
            let id = super::names::skill_id(input.id.as_deref(), &skill.name, origin.as_deref());
            Ok(Box::new(CatalogSkill { skill, id, source, origin, missing, kept_out, findings }))
        }
        Err(e) => Err(SkippedSkill { location: skill.location, reason: e.to_string(), diagnostics: Vec::new() }),
    };
    Prepared::Loaded { warnings, scanned }
}

/// Prepares `inputs`, in order: split between the machine's threads when it [`splits`]
/// them, on this thread otherwise. This thread runs `first` before it joins in.
pub(crate) fn prepare_batch(inputs: &[CatalogInput], options: &CatalogOptions, first: impl FnOnce()) -> Vec<Prepared> {
    let chunk = if splits(inputs.len()) { CHUNK } else { inputs.len() };
    parallel::map_in_chunks(inputs, chunk, first, |input| prepare(input, options))
}
