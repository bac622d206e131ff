//! Building a catalogue: listing the sources, loading each SKILL.md leniently, scanning
//! it, merging skills by name, gating them, and indexing the winners once.

use super::names::{qualified, same_origin};
use super::prepare::{prepare, prepare_batch, splits, Prepared, Waiting};
use super::{
    open_to_automatic_use, Catalog, CatalogInput, CatalogOptions, CatalogReport, CatalogSkill, FlaggedSkill,
    GatedSkill, KeptIndexes, LocatedWarning, Precedence, ShadowedSkill, SkippedSkill,
};
use crate::engine::source::SkillSource;
use crate::engine::CatalogBuild;
use crate::fast_hash::SeededMap;
use crate::order;
use crate::parallel;
use crate::scan::ScanCache;
use crate::select::rank::RankIndex;
use crate::select::rules::{mention_key, MatchIndex};
use crate::skill::Skill;
use crate::Diagnostic;
use std::sync::atomic::{AtomicU64, Ordering};

/// True when two skills come from one origin, or both from none: then one of them shadows
/// the other if they want one name. (Labels that differ only as names do — case, `_` and
/// `-` — are one origin.)
fn one_origin(a: Option<&str>, b: Option<&str>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => same_origin(a, b),
        _ => false,
    }
}

/// When two skills want one name and either comes from an origin, which of them is listed
/// as `NAME@ORIGIN` (true: the newcomer): the one from an origin, or of two origins the
/// one that loses on precedence. `None`: one shadows the other as precedence says (no
/// origin, or both from the same one).
fn qualify_newcomer(holder: &CatalogSkill, newcomer: &CatalogSkill, newcomer_wins: bool) -> Option<bool> {
    match (&holder.origin, &newcomer.origin) {
        (a, b) if one_origin(a.as_deref(), b.as_deref()) => None,
        (None, _) => Some(true),
        (_, None) => Some(false),
        (Some(_), Some(_)) => Some(!newcomer_wins),
    }
}

/// The first skill placed with an id: its name's mention key, its origin and location.
#[derive(Debug)]
struct IdHolder {
    key: String,
    origin: Option<String>,
    location: String,
}

/// A new number for each catalogue built in this process, so that a [`Turn`](crate::Turn)
/// planned before a refresh is not rendered against the new skills' indices. (A catalogue
/// updated in place keeps its number: its skills keep their indices, names and gates,
/// unless its indexes were made again around a field edit.)
pub(super) fn next_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl Catalog {
    /// Lists and loads every source's skills. A source whose listing fails, and an
    /// entry that cannot be read, are reported as skipped.
    pub fn from_sources<S: SkillSource>(sources: &[S], options: &CatalogOptions) -> Catalog {
        CatalogBuild::new(sources.len(), options.clone(), false).run(sources).0
    }

    /// Builds a catalogue from entries already read, in precedence order (no IO; hosts
    /// that list and read through callbacks use [`CatalogBuild`], which feeds the same
    /// builder one entry at a time).
    pub fn build(inputs: Vec<CatalogInput>, options: &CatalogOptions) -> Catalog {
        let mut builder = Builder::new(options.clone());
        for input in inputs {
            builder.add(input);
        }
        builder.finish(None, false)
    }
}

/// A catalogue built one entry at a time, in precedence order: each SKILL.md is loaded,
/// scanned and read for its body's sections, and its text dropped, so a build holds at
/// most a batch of texts (natively, entries wait until a [batch](super::prepare::BATCH) is
/// prepared on every thread, while this one takes the batch prepared before; on wasm32
/// each is prepared and taken as it arrives); the indexes are made once, by
/// [`Builder::finish`].
#[derive(Debug)]
pub(crate) struct Builder {
    options: CatalogOptions,
    report: CatalogReport,
    winners: Vec<CatalogSkill>,
    /// Skills that lost their name, each with the key of the name it lost.
    shadowed: Vec<(String, CatalogSkill)>,
    /// A winner's index in `winners`, by its name's mention key.
    by_key: SeededMap<String, usize>,
    /// The ids of the skills placed so far, each with who placed it first.
    ids: SeededMap<String, IdHolder>,
    /// Skills loaded so far (held to `limits.max_skills`).
    count: usize,
    /// Entries not prepared yet, in order.
    waiting: Waiting<CatalogInput>,
    /// Entries prepared but not taken yet, in order (after those taken, before `waiting`).
    prepared_ahead: Vec<Prepared>,
    /// Entries whose SKILL.md could not be read.
    unread: usize,
    /// The skills a build from parts read for ranking as it took the parts.
    #[cfg(feature = "snapshot")]
    parts_read: Option<super::PartsRead>,
}

impl Builder {
    pub(crate) fn new(options: CatalogOptions) -> Builder {
        Builder {
            options,
            report: CatalogReport::default(),
            winners: Vec::new(),
            shadowed: Vec::new(),
            by_key: SeededMap::default(),
            ids: SeededMap::default(),
            count: 0,
            waiting: Waiting::default(),
            prepared_ahead: Vec::new(),
            unread: 0,
            #[cfg(feature = "snapshot")]
            parts_read: None,
        }
    }

    /// Makes the ranking index from `read` (what a build from parts read of their skills)
    /// for each entry it takes from the parts.
    #[cfg(feature = "snapshot")]
    pub(crate) fn read_ahead(&mut self, read: super::PartsRead) {
        self.parts_read = Some(read);
    }

    /// The options it builds with.
    pub(crate) fn options(&self) -> &CatalogOptions {
        &self.options
    }

    /// Adds one entry, after the ones added before it.
    pub(crate) fn add(&mut self, input: CatalogInput) {
        #[cfg(feature = "snapshot")]
        if let Some(read) = &mut self.parts_read {
            read.read_by_build(&(input.source, input.location.clone()));
        }
        if cfg!(target_arch = "wasm32") {
            let prepared = self.prepare_unless_full(input);
            return self.take(prepared);
        }
        if self.waiting.push(input, |input| input) {
            self.prepare_waiting();
        }
    }

    /// Adds one entry prepared by an earlier build (see [`Reuse`](super::Reuse)), after
    /// the ones added before it, with the id its host gives it now.
    pub(crate) fn add_prepared(&mut self, mut prepared: Prepared, id: Option<String>) {
        self.take_waiting();
        if let Prepared::Loaded { scanned: Ok(entry), .. } = &mut prepared {
            entry.id = super::names::skill_id(id.as_deref(), &entry.skill.name, entry.origin.as_deref());
            #[cfg(feature = "snapshot")]
            if let Some(read) = &mut self.parts_read {
                read.taken(&(entry.source, entry.skill.location.clone()));
            }
        }
        self.take(prepared);
    }

    /// Once the catalogue is full, an entry with text is not loaded nor scanned: it can
    /// only be skipped (the count of loaded skills never goes down).
    fn full(&self) -> bool {
        self.count >= self.options.limits.max_skills
    }

    fn prepare_unless_full(&self, input: CatalogInput) -> Prepared {
        match input.text {
            Ok(_) if self.full() => Prepared::OverLimit { location: input.location },
            _ => prepare(&input, &self.options),
        }
    }

    /// Prepares the waiting entries. A batch worth splitting is prepared on every thread
    /// while this one takes the entries prepared before, and is taken next time or by
    /// [`Builder::take_waiting`]; fewer entries are prepared and taken here one at a time.
    /// Entries ahead that may fill the catalogue are taken before more are prepared, so an
    /// entry is prepared after the catalogue is full only in the batch that fills it (it is
    /// then skipped as one left unprepared is, unless it was not read).
    fn prepare_waiting(&mut self) {
        let waiting = self.waiting.take();
        let mut ahead = std::mem::take(&mut self.prepared_ahead);
        if self.count.saturating_add(ahead.len()) >= self.options.limits.max_skills {
            self.take_all(std::mem::take(&mut ahead));
        }
        if self.full() || !splits(waiting.len()) {
            self.take_all(ahead);
            for input in waiting {
                let prepared = self.prepare_unless_full(input);
                self.take(prepared);
            }
            return;
        }
        let options = self.options.clone();
        self.prepared_ahead = prepare_batch(&waiting, &options, || self.take_all(ahead));
    }

    /// Prepares and takes every entry added so far.
    fn take_waiting(&mut self) {
        if !self.waiting.is_empty() {
            self.prepare_waiting();
        }
        let ahead = std::mem::take(&mut self.prepared_ahead);
        self.take_all(ahead);
    }

    fn take_all(&mut self, prepared: Vec<Prepared>) {
        for prepared in prepared {
            self.take(prepared);
        }
    }

    /// Counts, reports and merges one prepared entry.
    fn take(&mut self, prepared: Prepared) {
        if let Prepared::Unread { location, reason } = prepared {
            self.unread += 1;
            self.report.skipped.push(SkippedSkill { location, reason, diagnostics: Vec::new() });
            return;
        }
        if self.full() {
            self.report.skipped.push(SkippedSkill {
                location: prepared.location().to_owned(),
                reason: format!("the catalogue already holds {} skills (the limit)", self.options.limits.max_skills),
                diagnostics: Vec::new(),
            });
            return;
        }
        let (warnings, scanned) = match prepared {
            Prepared::Loaded { warnings, scanned } => (warnings, scanned),
            Prepared::NotLoaded(skipped) => return self.report.skipped.push(skipped),
            // Not reached: an entry is left unprepared only once the catalogue is full.
            Prepared::Unread { .. } | Prepared::OverLimit { .. } => return,
        };
        if let Ok(entry) = &scanned {
            if let Some(skipped) = self.id_taken(entry) {
                return self.report.skipped.push(skipped);
            }
        }
        self.count += 1;
        self.report.warnings.extend(warnings);
        let entry = match scanned {
            Ok(entry) => *entry,
            Err(skipped) => return self.report.skipped.push(skipped),
        };
        if let Some(flagged) = FlaggedSkill::of(&entry) {
            self.report.flagged.push(flagged);
        }
        self.place(entry);
    }

    /// Why `entry` cannot be listed with its id, or `None` (its id is then taken): a skill
    /// listed before it holds the id under another name or from another origin. A skill
    /// with the same name from the same origin (or none) holds it without a conflict:
    /// precedence lists one of the two ([`Builder::place`]). Settled before the entry is
    /// counted or placed, so it takes no name from another skill. Skipped without a
    /// diagnostic: a refresh reads it again rather than reusing the skip, so an id its host
    /// corrects takes effect with the same stamp.
    fn id_taken(&mut self, entry: &CatalogSkill) -> Option<SkippedSkill> {
        let key = mention_key(&entry.skill.name);
        let same_slot =
            |holder: &IdHolder| holder.key == key && one_origin(holder.origin.as_deref(), entry.origin.as_deref());
        match self.ids.get(&entry.id) {
            Some(holder) if !same_slot(holder) => {
                let reason = format!("its id `{}` is also the id of {}", entry.id, holder.location);
                Some(SkippedSkill { location: entry.skill.location.clone(), reason, diagnostics: Vec::new() })
            }
            Some(_) => None,
            None => {
                let holder = IdHolder { key, origin: entry.origin.clone(), location: entry.skill.location.clone() };
                self.ids.insert(entry.id.clone(), holder);
                None
            }
        }
    }

    /// Gives `entry` its name, or settles who keeps it: within one origin (or none)
    /// precedence decides and the other is shadowed; across origins the name stays with one
    /// and the other is listed as `NAME@ORIGIN` (placed again under that name, where only a
    /// skill of its own origin can be: `@` is no part of a loaded name).
    fn place(&mut self, entry: CatalogSkill) {
        let key = mention_key(&entry.skill.name);
        let Some(slot) = self.by_key.get(&key).and_then(|&i| self.winners.get_mut(i)) else {
            self.by_key.insert(key, self.winners.len());
            return self.winners.push(entry);
        };
        let newcomer_wins = self.options.precedence == Precedence::LastWins;
        // A name already qualified is not qualified again.
        let qualify = qualify_newcomer(slot, &entry, newcomer_wins).filter(|_| !entry.skill.name.contains('@'));
        let Some(qualify_newcomer) = qualify else {
            let shadowed = match newcomer_wins {
                false => entry,
                true => std::mem::replace(slot, entry),
            };
            return self.shadowed.push((key, shadowed));
        };
        let (mut renamed, holder) = match qualify_newcomer {
            true => (entry, slot.skill.location.clone()),
            false => (std::mem::replace(slot, entry), slot.skill.location.clone()),
        };
        let name = qualified(&renamed.skill.name, renamed.origin.as_deref().unwrap_or_default());
        let message = format!("listed as `{name}`: `{}` is also the name of {holder}", renamed.skill.name);
        let diagnostic = Diagnostic::warning(super::listing_change::ORIGIN_COLLISION, message);
        self.report.warnings.push(LocatedWarning { location: renamed.skill.location.clone(), diagnostic });
        // Its safety report names it as the catalogue does.
        let location = &renamed.skill.location;
        let flagged =
            (self.report.flagged.iter_mut().rev()).find(|f| f.location == *location && f.name == renamed.skill.name);
        if let Some(flagged) = flagged {
            flagged.name = name.clone();
        }
        renamed.skill.name = name;
        self.place(renamed);
    }

    /// The catalogue: precedence settled, gates reported, the indexes built — or taken
    /// from `kept` (a previous catalogue's, see [`KeptIndexes`]) when its skills come out
    /// the same, or the ranking index made from `kept`'s reading only the skills that
    /// changed. With `refreshable`, the ranking index keeps what reading each skill gave,
    /// for the next refresh.
    pub(crate) fn finish(mut self, kept: Option<KeptIndexes>, refreshable: bool) -> Catalog {
        self.take_waiting();
        #[cfg(feature = "snapshot")]
        let parts_read = self.parts_read.take();
        let Builder { options, mut report, mut winners, shadowed, by_key, unread, .. } = self;
        // Who shadows whom, while `by_key` still indexes `winners`.
        for (key, s) in &shadowed {
            let by =
                (by_key.get(key).and_then(|&i| winners.get(i)).map(|w| w.skill.location.clone())).unwrap_or_default();
            report.shadowed.push(ShadowedSkill { name: s.skill.name.clone(), location: s.skill.location.clone(), by });
        }
        let shadowed: Vec<CatalogSkill> = shadowed.into_iter().map(|(_, s)| s).collect();
        let sources = winners.iter().chain(&shadowed).map(|s| s.source).max().unwrap_or(0);
        order::sort_by(&mut winners, catalogue_order(options.precedence, sources));
        report.set_from_skills(&winners, &options);
        let headings = options.rank.headings;
        let (ranking, rules) = match kept {
            Some(kept) if kept.same_skills(&winners) => kept.into_indexes(),
            Some(kept) if kept.can_rebuild_ranking() => {
                let rebuild = |ranked: &[&Skill]| kept.rebuild_ranking(&winners, ranked, headings);
                let (ranking, rules) = indexes_made_again(&winners, headings, refreshable, rebuild);
                (ranking, Some(rules))
            }
            #[cfg(feature = "snapshot")]
            _ if parts_read.is_some() => {
                // Most skills were read for ranking as their parts were taken.
                let rebuild = |ranked: &[&Skill]| parts_read.map(|read| read.into_index(&winners, ranked));
                let (ranking, rules) = indexes_made_again(&winners, headings, refreshable, rebuild);
                (ranking, Some(rules))
            }
            _ => {
                // The rule automaton needs the ranking index only to leave everyday one-word
                // names and tags to ranking: it is made while the ranking index is (once the
                // skills are read, which takes every thread), then settled.
                let nothing = Skill::default();
                let ranked = ranked(&winners, &nothing);
                let unsettled = || MatchIndex::build_unsettled(winners.iter().map(|s| &s.skill));
                let (ranking, rules) =
                    RankIndex::build_keeping_alongside(ranked.iter().copied(), headings, refreshable, unsettled);
                let rules = rules.settle(|word| ranking.shared_word(word));
                (ranking, Some(rules))
            }
        };
        let ranking = ranking.keeping_readings(refreshable);
        let mut catalog = Catalog::assemble(winners, shadowed, report, ranking, rules, &options);
        catalog.unread = unread;
        catalog
    }
}

impl Catalog {
    /// The catalogue of `skills` (in catalogue order) ranked by `ranking`, built with
    /// `options`: the rule index made from them unless `rules` is theirs already, with a
    /// new number (a build's last step, and a restore's).
    pub(super) fn assemble(
        skills: Vec<CatalogSkill>,
        shadowed: Vec<CatalogSkill>,
        report: CatalogReport,
        ranking: RankIndex,
        rules: Option<MatchIndex>,
        options: &CatalogOptions,
    ) -> Catalog {
        // A one-word name or tag that other skills use too is an everyday word here:
        // evidence for ranking, not a rule of its own.
        let index = rules
            .unwrap_or_else(|| MatchIndex::build(skills.iter().map(|s| &s.skill), |word| ranking.shared_word(word)));
        Catalog {
            skills,
            shadowed,
            report,
            index,
            ranking,
            options: options.clone(),
            unread: 0,
            stamps: SeededMap::default(),
            listing: None,
            scanned: ScanCache::default(),
            report_index: std::sync::OnceLock::new(),
            id: next_id(),
            model_vectors: false,
        }
    }
}

/// `skills` as ranking reads them: a blocked skill as `nothing` (an empty skill), so that it
/// keeps its position and never gets a score.
fn ranked<'a>(skills: &'a [CatalogSkill], nothing: &'a Skill) -> Vec<&'a Skill> {
    skills.iter().map(|s| if s.blocked() { nothing } else { &s.skill }).collect()
}

/// The ranking index of `skills` made again as [`indexes_made_again`] makes it, alone (the
/// rule automaton kept).
pub(super) fn ranking_made_again(
    skills: &[CatalogSkill],
    headings: bool,
    keep: bool,
    rebuild: impl FnOnce(&[&Skill]) -> Option<RankIndex>,
) -> RankIndex {
    let nothing = Skill::default();
    let ranked = ranked(skills, &nothing);
    rebuild(&ranked).unwrap_or_else(|| RankIndex::build_keeping(ranked.iter().copied(), headings, keep))
}

/// Both indexes of `skills` (in catalogue order) made again: the ranking index by `rebuild`
/// from what a previous one kept (given the skills as ranking reads them; a whole reading,
/// keeping its readings with `keep`, stands in should it fail), and meanwhile, on a second
/// thread, the rule automaton, settled once the ranking index says which one-word names and
/// tags are everyday words.
pub(super) fn indexes_made_again(
    skills: &[CatalogSkill],
    headings: bool,
    keep: bool,
    rebuild: impl FnOnce(&[&Skill]) -> Option<RankIndex>,
) -> (RankIndex, MatchIndex) {
    let worth_a_thread = skills.len() >= parallel::SPLIT_FROM_SKILLS;
    let unsettled = || MatchIndex::build_unsettled(skills.iter().map(|s| &s.skill));
    let ranking = || ranking_made_again(skills, headings, keep, rebuild);
    let (ranking, rules) = parallel::join(worth_a_thread, ranking, unsettled);
    let rules = rules.settle(|word| ranking.shared_word(word));
    (ranking, rules)
}

/// The catalogue's order: skills of the winning source first, then by name (`sources`:
/// the highest source among the skills, shadowed ones included).
pub(super) fn catalogue_order(
    precedence: Precedence,
    sources: usize,
) -> impl Fn(&CatalogSkill, &CatalogSkill) -> std::cmp::Ordering {
    let rank = move |source: usize| match precedence {
        Precedence::FirstWins => source,
        Precedence::LastWins => sources.saturating_sub(source),
    };
    move |a, b| rank(a.source).cmp(&rank(b.source)).then_with(|| a.skill.name.cmp(&b.skill.name))
}

impl CatalogReport {
    /// What the report says of the catalogue's skills (in catalogue order) as a whole:
    /// how many loaded, which are gated and which fire only when mentioned.
    pub(super) fn set_from_skills(&mut self, skills: &[CatalogSkill], options: &CatalogOptions) {
        self.gated = (skills.iter().filter(|s| s.gated()))
            .map(|s| GatedSkill {
                name: s.skill.name.clone(),
                location: s.skill.location.clone(),
                missing: s.missing.clone(),
                kept_out: s.kept_out.clone(),
            })
            .collect();
        self.loaded = skills.len();
        self.mention_only = (skills.iter())
            .filter(|s| !open_to_automatic_use(&s.skill, options.not_user_invocable))
            .map(|s| s.skill.name.clone())
            .collect();
    }
}

/// The requirements in `requires` that `available` does not meet.
pub(super) fn missing_requirements(requires: &[String], available: &[String]) -> Vec<String> {
    let has = |name: &str| available.iter().any(|a| a.trim().eq_ignore_ascii_case(name));
    requires
        .iter()
        .filter(|req| {
            let bare = req.split_once(':').map(|(_, n)| n);
            !(has(req) || bare.is_some_and(has))
        })
        .cloned()
        .collect()
}
