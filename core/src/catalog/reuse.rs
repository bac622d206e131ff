//! Building a catalogue again without reading what did not change. A host that stamps its
//! entries ([`SkillEntry::stamp`](crate::SkillEntry)) lets a rebuild take, for every entry
//! listed again with the same stamp, what preparing it gave last time (the loaded skill,
//! its warnings and scan findings, or why it did not load) instead of reading, loading and
//! scanning its SKILL.md again. Everything after preparation — who keeps a shared name,
//! gates, the ranking and rule indexes — runs as in any build, over the same prepared
//! entries in the same order, so the catalogue is the one a full build would give.
//!
//! Kept for reuse: skills (listed or shadowed), entries that did not load (they carry
//! the loader's diagnostics) and entries their source refused for what their SKILL.md is
//! (an `unreadable` diagnostic). Not kept, so read again: entries whose read failed (it
//! may pass now), whose scan could not run, that came past the catalogue's limit, and any
//! whose location two entries share (their warnings cannot be told apart).

use super::prepare::Prepared;
use super::{Catalog, CatalogOptions, CatalogReport, CatalogSkill, LocatedWarning};
use std::collections::HashMap;

/// The code of the warning placement adds (not preparation): left out of what is reused.
const ORIGIN_COLLISION: &str = "origin_collision";

/// What a previous build of a catalogue prepared, by source and location, with the stamp
/// each entry had.
#[derive(Debug, Default)]
pub(crate) struct Reuse {
    options: Option<CatalogOptions>,
    entries: HashMap<(usize, String), (String, Prepared)>,
}

impl Catalog {
    /// What this catalogue's build prepared, for the next build of the same sources to
    /// reuse where an entry's stamp did not change.
    pub(crate) fn into_reuse(self) -> Reuse {
        let Catalog { skills, shadowed, report, options, stamps, .. } = self;
        Reuse::new(skills, shadowed, report, options, stamps)
    }

    /// [`Catalog::into_reuse`] of a catalogue still in use: its prepared parts are copied
    /// (not its indexes).
    pub(crate) fn reuse(&self) -> Reuse {
        if self.stamps.is_empty() {
            return Reuse::default();
        }
        let (skills, shadowed) = (self.skills.clone(), self.shadowed.clone());
        Reuse::new(skills, shadowed, self.report.clone(), self.options.clone(), self.stamps.clone())
    }
}

impl Reuse {
    /// What a catalogue's build prepared, from its parts.
    pub(crate) fn new(
        skills: Vec<CatalogSkill>,
        shadowed: Vec<CatalogSkill>,
        report: CatalogReport,
        options: CatalogOptions,
        stamps: HashMap<(usize, String), String>,
    ) -> Reuse {
        if stamps.is_empty() {
            return Reuse::default();
        }
        let mut seen: HashMap<String, usize> = HashMap::new();
        let locations = (skills.iter().chain(&shadowed).map(|s| &s.skill.location))
            .chain(report.skipped.iter().map(|s| &s.location));
        for location in locations {
            *seen.entry(location.clone()).or_default() += 1;
        }
        let mut warnings: HashMap<String, Vec<LocatedWarning>> = HashMap::new();
        for warning in report.warnings.into_iter().filter(|w| w.diagnostic.code != ORIGIN_COLLISION) {
            warnings.entry(warning.location.clone()).or_default().push(warning);
        }
        let once = |location: &str| seen.get(location) == Some(&1);
        let mut entries = HashMap::new();
        for mut entry in skills.into_iter().chain(shadowed).filter(|s| once(&s.skill.location)) {
            let key = (entry.source, entry.skill.location.clone());
            let Some(stamp) = stamps.get(&key) else { continue };
            // Listed as NAME@ORIGIN after a collision: prepared as NAME (`@` is no part
            // of a loaded name).
            if let Some((name, _)) = entry.skill.name.split_once('@') {
                entry.skill.name = name.to_owned();
            }
            let warnings = warnings.remove(&entry.skill.location).unwrap_or_default();
            entries.insert(key, (stamp.clone(), Prepared::Loaded { warnings, scanned: Ok(Box::new(entry)) }));
        }
        // Entries that did not load or were refused: their diagnostics say why (a read that
        // failed, a scan that could not run and the limit leave none). Their source is not kept:
        // any source with the location and the stamp fits (loading reads the text alone).
        let mut not_loaded: HashMap<String, super::SkippedSkill> = (report.skipped.into_iter())
            .filter(|s| !s.diagnostics.is_empty() && once(&s.location))
            .map(|s| (s.location.clone(), s))
            .collect();
        for ((source, location), stamp) in stamps {
            if let Some(skipped) = not_loaded.remove(&location) {
                entries.insert((source, location), (stamp, Prepared::NotLoaded(skipped)));
            }
        }
        Reuse { options: Some(options), entries }
    }

    /// Keeps nothing unless the next build has the same `options` (preparing depends on
    /// them: limits, the scan policy, gates).
    pub(crate) fn for_options(self, options: &CatalogOptions) -> Reuse {
        match self.options.as_ref().is_some_and(|o| super::same_options(o, options)) {
            true => self,
            false => Reuse::default(),
        }
    }

    /// What the entry at `location` in `source`, from `origin`, gave last time, if it had
    /// the same `stamp` then.
    pub(crate) fn take(
        &mut self,
        source: usize,
        location: &str,
        origin: Option<&str>,
        stamp: &str,
    ) -> Option<Prepared> {
        let key = (source, location.to_owned());
        let (kept, prepared) = self.entries.remove(&key)?;
        let same_origin = match &prepared {
            Prepared::Loaded { scanned: Ok(entry), .. } => entry.origin.as_deref() == origin,
            _ => true,
        };
        (kept == stamp && same_origin).then_some(prepared)
    }
}
