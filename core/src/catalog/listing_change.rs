//! One entry added to or removed from the sources' listing, taken in place by a refresh
//! (see `update.rs`): the skill put in its place in the catalogue, or taken out, its
//! warnings and safety report with it, both indexes taking it in or out in place, as for a
//! field edit — instead of taking every entry back and building the catalogue again.
//!
//! Taken only when nothing else in the catalogue depends on it: the added skill loads,
//! its name and id are no other skill's, and the catalogue is not full; the removed skill
//! was listed under its own name and shadowed none; and no two skills of the catalogue
//! met under one name from two origins (a collision's warning is written when the second
//! comes, not with its own). Anything else — an entry that does not load, a name another
//! skill wants — takes the usual way, which gives the same catalogue.

use super::build::catalogue_order;
use super::prepare::{prepare, Prepared};
use super::update::Listed;
use super::{Catalog, CatalogInput, CatalogSkill, FlaggedSkill, LocatedWarning};
use crate::fast_hash::SeededMap;
use crate::scan::ScanCache;
pub(super) use crate::select::rank::Moved;
use crate::select::rules::mention_key;

/// The code of the warning two skills of one name from two origins give.
pub(super) const ORIGIN_COLLISION: &str = "origin_collision";

#[cfg(test)]
thread_local! {
    /// How many listing changes this thread took in place (tests tell the two ways apart).
    pub(crate) static TAKEN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// An entry the listing gained or lost since the catalogue last listed its sources.
#[derive(Debug)]
pub(crate) enum ListingChange {
    /// `input`, with its stamp, listed at `at` in the new listing.
    Added { at: usize, input: CatalogInput, stamp: String },
    /// The entry the last listing had at `at`, listed no more.
    Removed { at: usize },
}

/// A listing change checked against the catalogue, ready to be taken.
#[derive(Debug)]
pub(super) enum Reshape {
    /// The added entry, prepared, and where it goes: `at` in the listing, `position`
    /// among the skills.
    Added {
        at: usize,
        position: usize,
        listed: Listed,
        stamp: String,
        entry: Box<CatalogSkill>,
        warnings: Vec<LocatedWarning>,
    },
    /// The removed entry's place in the listing, and its skill's among the skills.
    Removed { at: usize, position: usize },
}

impl Catalog {
    /// `change` checked against the catalogue, without changing it: `None` when taking it
    /// in place would not give the catalogue a build gives (see the module's docs).
    pub(super) fn check_listing_change(&self, change: ListingChange) -> Option<Reshape> {
        let listing = self.listing.as_deref()?;
        let collisions = self.report.warnings.iter().any(|w| w.diagnostic.code == ORIGIN_COLLISION);
        if collisions {
            return None;
        }
        match change {
            ListingChange::Added { at, input, stamp } => {
                let Prepared::Loaded { warnings, scanned: Ok(entry) } = prepare(&input, &self.options) else {
                    return None;
                };
                let everyone = || self.skills.iter().chain(&self.shadowed);
                let free = at <= listing.len()
                    && !entry.skill.name.contains('@')
                    && self.index.by_mention(&mention_key(&entry.skill.name)).is_none()
                    && everyone().all(|s| s.id != entry.id)
                    && everyone().count() < self.options.limits.max_skills
                    && listing.iter().all(|l| l.location() != input.location);
                if !free {
                    return None;
                }
                let sources = everyone().map(|s| s.source).chain([entry.source]).max().unwrap_or(0);
                let order = catalogue_order(self.options.precedence, sources);
                let position = self.skills.partition_point(|s| order(s, &entry).is_lt());
                let listed = Listed::of(&input);
                Some(Reshape::Added { at, position, listed, stamp, entry, warnings })
            }
            ListingChange::Removed { at } => {
                // (The last entry gone leaves nothing stamped: a build of nothing keeps no
                // listing to refresh in place.)
                let listed = listing.get(at).filter(|_| listing.len() > 1)?;
                let position = self
                    .skills
                    .iter()
                    .position(|s| s.source == listed.source() && s.skill.location == listed.location())?;
                let name = &self.skills.get(position)?.skill.name;
                let key = mention_key(name);
                let alone = !name.contains('@') && self.shadowed.iter().all(|s| mention_key(&s.skill.name) != key);
                alone.then_some(Reshape::Removed { at, position })
            }
        }
    }

    /// Takes a checked change: the skill and its entry in the listing, stamps, warnings
    /// and safety report put in or taken out where a build puts them, the report's counts
    /// made again, and, with `rules_kept`, the rule automaton's targets
    /// (`MatchIndex::insert_skill`, `remove_skill`; false when it must be made whole, as it
    /// must without `rules_kept`). The ranking index is the caller's to make again; the
    /// bodies scanned so far are forgotten (they are remembered by position).
    pub(super) fn take_reshape(&mut self, reshape: Reshape, rules_kept: bool) -> (Moved, bool) {
        #[cfg(test)]
        TAKEN.with(|taken| taken.set(taken.get() + 1));
        let moved = match reshape {
            Reshape::Added { at, position, listed, stamp, entry, warnings } => {
                let Some(listing) = self.listing.as_mut() else { return (Moved::Nothing, false) };
                // Warnings and flags are in the order their entries are listed.
                let before: SeededMap<&str, ()> = listing.iter().take(at).map(|l| (l.location(), ())).collect();
                let listed_before = |location: &str| before.contains_key(location);
                let warnings_at = self.report.warnings.iter().take_while(|w| listed_before(&w.location)).count();
                let flagged_at = self.report.flagged.iter().take_while(|f| listed_before(&f.location)).count();
                drop(before);
                self.report.warnings.splice(warnings_at..warnings_at, warnings);
                if let Some(flagged) = FlaggedSkill::of(&entry) {
                    self.report.flagged.insert(flagged_at, flagged);
                }
                self.stamps.insert((entry.source, entry.skill.location.clone()), stamp);
                listing.insert(at.min(listing.len()), listed);
                let position = position.min(self.skills.len());
                let taken = rules_kept && self.index.insert_skill(position, &entry.skill);
                self.skills.insert(position, *entry);
                (Moved::Inserted(position), taken)
            }
            Reshape::Removed { at, position } => {
                let Some(listing) = self.listing.as_mut() else { return (Moved::Nothing, false) };
                if at >= listing.len() || position >= self.skills.len() {
                    return (Moved::Nothing, false);
                }
                let listed = listing.remove(at);
                let removed = self.skills.remove(position);
                let taken = rules_kept && self.index.remove_skill(position, &removed.skill);
                self.report.warnings.retain(|w| w.location != listed.location());
                self.report.flagged.retain(|f| f.location != listed.location());
                self.stamps.remove(&(listed.source(), listed.location().to_owned()));
                (Moved::Removed(position), taken)
            }
        };
        let Catalog { report, skills, options, .. } = self;
        report.set_from_skills(skills, options);
        self.scanned = ScanCache::default();
        self.report_index = std::sync::OnceLock::new();
        moved
    }
}
