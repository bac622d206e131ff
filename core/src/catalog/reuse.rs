//! Building a catalogue again without reading what did not change. A host that stamps its
//! entries ([`SkillEntry::stamp`](crate::SkillEntry)) lets a rebuild take, for every entry
//! listed again with the same stamp, what preparing it gave last time (the loaded skill,
//! its warnings and scan findings, or why it did not load) instead of reading, loading and
//! scanning its SKILL.md again. Everything after preparation — who keeps a shared name,
//! gates, the ranking and rule indexes — runs as in any build, over the same prepared
//! entries in the same order, so the catalogue is the one a full build would give; the
//! indexes are taken as they were when the skills come out equal to those they were made
//! from ([`KeptIndexes`]: an edit to a body outside its "When to use" sections); otherwise
//! the ranking index is made again reading only the skills that changed, when the previous
//! one kept what reading each skill gave (a catalogue built from stamped entries does).
//!
//! Kept for reuse: skills (listed or shadowed), entries that did not load (they carry
//! the loader's diagnostics) and entries their source refused for what their SKILL.md is
//! (an `unreadable` diagnostic). Not kept, so read again: entries whose read failed (it
//! may pass now), whose scan could not run, that came past the catalogue's limit, and any
//! whose location two entries share (their warnings cannot be told apart).

use super::listing_change::ORIGIN_COLLISION;
use super::prepare::Prepared;
use super::{Catalog, CatalogOptions, CatalogReport, CatalogSkill, LocatedWarning};
use crate::fast_hash::SeededMap;
use crate::select::rank::RankIndex;
use crate::select::rules::MatchIndex;
use crate::skill::Skill;

/// What a previous build of a catalogue prepared, by source and location, with the stamp
/// each entry had.
#[derive(Debug, Default)]
pub(crate) struct Reuse {
    options: Option<CatalogOptions>,
    entries: SeededMap<(usize, String), (String, Prepared)>,
    /// The previous catalogue's indexes, for a build whose skills come out the same.
    indexes: Option<KeptIndexes>,
}

/// A catalogue's ranking and rule indexes and what they were made from: each skill in
/// catalogue order, and whether it was blocked (a blocked skill ranks as an empty one).
/// Both indexes are functions of that list and the options alone, so a build whose list is
/// equal takes them as they are instead of making them again — after an edit to a body
/// outside its "When to use" sections, the most common one, which leaves every skill's
/// fields as they were.
#[derive(Debug)]
pub(crate) struct KeptIndexes {
    skills: Vec<(Skill, bool)>,
    ranking: RankIndex,
    /// None from a snapshot (its automaton is not kept): made again from the skills.
    rules: Option<MatchIndex>,
}

impl KeptIndexes {
    /// The indexes a catalogue of `skills` (in catalogue order) has.
    pub(crate) fn new(skills: &[CatalogSkill], ranking: RankIndex, rules: Option<MatchIndex>) -> KeptIndexes {
        let skills = skills.iter().map(|s| (s.skill.clone(), s.blocked())).collect();
        KeptIndexes { skills, ranking, rules }
    }

    /// Whether `skills` (in catalogue order) are what the indexes were made from.
    pub(crate) fn same_skills(&self, skills: &[CatalogSkill]) -> bool {
        self.skills.len() == skills.len()
            && self.skills.iter().zip(skills).all(|(was, now)| KeptIndexes::equal(was, now))
    }

    /// The indexes as they are, the ranking without the host's embeddings (a build has
    /// none until it embeds).
    pub(crate) fn into_indexes(self) -> (RankIndex, Option<MatchIndex>) {
        let KeptIndexes { mut ranking, rules, .. } = self;
        ranking.set_vectors(Vec::new());
        (ranking, rules)
    }

    /// Whether the ranking index can be made again from the kept one (it kept its
    /// readings).
    pub(crate) fn can_rebuild_ranking(&self) -> bool {
        self.ranking.keeps_readings()
    }

    /// The ranking index of `skills` made again from the kept one, reading only the
    /// skills that are not among those it was made from (by name, with the same fields and
    /// blocked flag); `None` when it kept no readings. `ranked`: each skill as ranking
    /// reads it (a blocked one empty); `headings`: the catalogue's option, the same both
    /// times.
    pub(crate) fn rebuild_ranking(
        self,
        skills: &[CatalogSkill],
        ranked: &[&Skill],
        headings: bool,
    ) -> Option<RankIndex> {
        let KeptIndexes { skills: before, ranking, .. } = self;
        let at: SeededMap<&str, usize> = before.iter().enumerate().map(|(i, (s, _))| (s.name.as_str(), i)).collect();
        let unchanged = |now: usize| {
            let now = skills.get(now)?;
            let was = *at.get(now.skill.name.as_str())?;
            before.get(was).is_some_and(|was| KeptIndexes::equal(was, now)).then_some(was)
        };
        RankIndex::rebuild(ranking, ranked, unchanged, headings)
    }

    /// A kept skill is `now`: the same fields and blocked flag.
    fn equal((skill, blocked): &(Skill, bool), now: &CatalogSkill) -> bool {
        *blocked == now.blocked() && *skill == now.skill
    }
}

impl Catalog {
    /// What this catalogue's build prepared, for the next build of the same sources to
    /// reuse where an entry's stamp did not change.
    pub(crate) fn into_reuse(self) -> Reuse {
        let Catalog { skills, shadowed, report, options, stamps, ranking, index, .. } = self;
        let indexes = Some(KeptIndexes::new(&skills, ranking, Some(index)));
        Reuse::new(skills, shadowed, report, options, stamps).with_indexes(indexes)
    }

    /// [`Catalog::into_reuse`] of a catalogue still in use: its parts are copied.
    pub(crate) fn reuse(&self) -> Reuse {
        if self.stamps.is_empty() {
            return Reuse::default();
        }
        let (skills, shadowed) = (self.skills.clone(), self.shadowed.clone());
        let indexes = Some(KeptIndexes::new(&skills, self.ranking.clone(), Some(self.index.clone())));
        Reuse::new(skills, shadowed, self.report.clone(), self.options.clone(), self.stamps.clone())
            .with_indexes(indexes)
    }
}

impl Reuse {
    /// With the previous catalogue's indexes (kept only with what it prepared: a build
    /// that reuses nothing makes them anew).
    pub(crate) fn with_indexes(mut self, indexes: Option<KeptIndexes>) -> Reuse {
        if self.options.is_some() {
            self.indexes = indexes;
        }
        self
    }

    /// The previous catalogue's indexes, for the build's last step.
    pub(crate) fn take_indexes(&mut self) -> Option<KeptIndexes> {
        self.indexes.take()
    }

    /// What a catalogue's build prepared, from its parts.
    pub(crate) fn new(
        skills: Vec<CatalogSkill>,
        shadowed: Vec<CatalogSkill>,
        report: CatalogReport,
        options: CatalogOptions,
        stamps: SeededMap<(usize, String), String>,
    ) -> Reuse {
        if stamps.is_empty() {
            return Reuse::default();
        }
        let mut seen: SeededMap<String, usize> = SeededMap::default();
        let locations = (skills.iter().chain(&shadowed).map(|s| &s.skill.location))
            .chain(report.skipped.iter().map(|s| &s.location));
        for location in locations {
            *seen.entry(location.clone()).or_default() += 1;
        }
        let mut warnings: SeededMap<String, Vec<LocatedWarning>> = SeededMap::default();
        for warning in report.warnings.into_iter().filter(|w| w.diagnostic.code != ORIGIN_COLLISION) {
            warnings.entry(warning.location.clone()).or_default().push(warning);
        }
        let once = |location: &str| seen.get(location) == Some(&1);
        let mut entries = SeededMap::default();
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
        let mut not_loaded: SeededMap<String, super::SkippedSkill> = (report.skipped.into_iter())
            .filter(|s| !s.diagnostics.is_empty() && once(&s.location))
            .map(|s| (s.location.clone(), s))
            .collect();
        for ((source, location), stamp) in stamps {
            if let Some(skipped) = not_loaded.remove(&location) {
                entries.insert((source, location), (stamp, Prepared::NotLoaded(skipped)));
            }
        }
        Reuse { options: Some(options), entries, indexes: None }
    }

    /// Takes what `other` holds too (what another part of a build prepared, with the same
    /// options; with other options, nothing). An entry two parts hold is taken from none
    /// (`conflicts` keeps them over the parts): the build reads it.
    #[cfg(feature = "snapshot")]
    pub(crate) fn absorb(&mut self, other: Reuse, conflicts: &mut SeededMap<(usize, String), ()>) {
        let Some(options) = other.options else { return };
        match &self.options {
            None => self.options = Some(options),
            Some(mine) if super::same_options(mine, &options) => {}
            Some(_) => return,
        }
        for (key, prepared) in other.entries {
            if conflicts.contains_key(&key) || self.entries.remove(&key).is_some() {
                conflicts.insert(key, ());
            } else {
                self.entries.insert(key, prepared);
            }
        }
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

#[cfg(test)]
mod tests {
    use crate::{Engine, Options, SkillEntry, SkillSource, SourceError, TurnContext};
    use std::cell::RefCell;
    use std::rc::Rc;

    /// Skills by location, each entry stamped with its text; the test edits them in place.
    #[derive(Clone)]
    struct Texts(Rc<RefCell<Vec<(String, String)>>>);

    impl SkillSource for Texts {
        fn list(&self) -> Result<Vec<SkillEntry>, SourceError> {
            Ok(self.0.borrow().iter().map(|(at, text)| SkillEntry::new(at.clone()).with_stamp(text.clone())).collect())
        }
        fn read(&self, location: &str) -> Result<String, SourceError> {
            let texts = self.0.borrow();
            texts.iter().find(|(at, _)| at == location).map(|(_, t)| t.clone()).ok_or_else(|| SourceError::new("gone"))
        }
    }

    const PDF: &str = "---\nname: pdf\ndescription: Merge and split PDF files.\n---\nUse pypdf.\n";
    const SQL: &str = "---\nname: sql-review\ndescription: Review SQL migrations.\n---\nCheck indexes.\n";

    #[test]
    fn a_body_edit_keeps_the_indexes_and_a_field_edit_makes_them_again() {
        let texts = Texts(Rc::new(RefCell::new(vec![
            ("pdf/SKILL.md".to_owned(), PDF.to_owned()),
            ("sql/SKILL.md".to_owned(), SQL.to_owned()),
        ])));
        let mut engine = Engine::new(vec![texts.clone()], Options::default());
        // Stamped entries: the catalogue may be refreshed, so its ranking index keeps what
        // reading each skill gave; a catalogue without stamps does not.
        assert!(engine.catalog().ranking.keeps_readings());
        let mut unstamped = crate::MemorySource::new();
        unstamped.insert("pdf/SKILL.md", PDF);
        assert!(!Engine::new(vec![unstamped], Options::default()).catalog().ranking.keeps_readings());
        // Where the ranking index keeps its terms: the same place when it was taken as it was.
        let terms = engine.catalog().ranking.terms_address();
        let edit = |at: usize, text: String| texts.0.borrow_mut()[at].1 = text;

        // The body changes, no field does: the indexes are the previous catalogue's.
        edit(0, format!("{PDF}More about pypdf.\n"));
        engine.refresh();
        assert_eq!(engine.catalog().ranking.terms_address(), terms, "the ranking index was made again");
        let matched = engine.catalog().turn("merge these pdf files", &TurnContext::default()).unwrap().matches();
        assert_eq!(matched.first().map(|m| m.skill.as_str()), Some("pdf"));

        // The description changes: the indexes take it, and know its new words.
        edit(1, SQL.replace("Review SQL migrations", "Review SQL migrations for postgres"));
        let words = engine.catalog().ranking.word_count();
        engine.refresh();
        assert!(engine.catalog().ranking.word_count() > words);
        // It keeps what reading each skill gave, for the next refresh.
        assert!(engine.catalog().ranking.keeps_readings());
        // The rule automaton knows the new description (the old one is not in the message).
        let message = "please review sql migrations for postgres today";
        let matched = engine.catalog().turn(message, &TurnContext::default()).unwrap().matches();
        assert!(matched.iter().any(|m| m.skill == "sql-review" && m.reason == crate::Reason::Description));
    }

    /// A location, its SKILL.md text and the host's id for it.
    type Listed = (String, String, Option<String>);

    /// Skills by location with the host's ids, each entry stamped with its text.
    #[derive(Clone)]
    struct WithIds(Rc<RefCell<Vec<Listed>>>);

    impl SkillSource for WithIds {
        fn list(&self) -> Result<Vec<SkillEntry>, SourceError> {
            let entries = self.0.borrow();
            Ok(entries
                .iter()
                .map(|(at, text, id)| SkillEntry {
                    id: id.clone(),
                    ..SkillEntry::new(at.clone()).with_stamp(text.clone())
                })
                .collect())
        }
        fn read(&self, location: &str) -> Result<String, SourceError> {
            let entries = self.0.borrow();
            entries
                .iter()
                .find(|(at, ..)| at == location)
                .map(|(_, t, _)| t.clone())
                .ok_or_else(|| SourceError::new("gone"))
        }
    }

    #[test]
    fn an_id_the_host_changes_takes_effect_on_refresh_with_the_same_stamp() {
        let ids = |engine: &Engine<WithIds>| -> Vec<(String, String)> {
            engine.catalog().skills().iter().map(|s| (s.skill.name.clone(), s.id.clone())).collect()
        };
        let entries = WithIds(Rc::new(RefCell::new(vec![
            ("pdf/SKILL.md".to_owned(), PDF.to_owned(), Some("row-1".to_owned())),
            ("sql/SKILL.md".to_owned(), SQL.to_owned(), Some("row-1".to_owned())),
        ])));
        let mut engine = Engine::new(vec![entries.clone()], Options::default());
        // Two skills, one id: the later one is skipped, with the reason.
        assert_eq!(ids(&engine), [("pdf".to_owned(), "row-1".to_owned())]);
        let skipped = &engine.catalog().report().skipped;
        assert_eq!(skipped.len(), 1);
        assert!(skipped[0].reason.contains("`row-1` is also the id of pdf/SKILL.md"), "{}", skipped[0].reason);

        // The host fixes it (no SKILL.md changed: same stamps) and drops the other id.
        entries.0.borrow_mut()[1].2 = Some("row-2".to_owned());
        entries.0.borrow_mut()[0].2 = None;
        engine.refresh();
        assert_eq!(ids(&engine), [("pdf".to_owned(), "pdf".to_owned()), ("sql-review".to_owned(), "row-2".to_owned())]);
        assert!(engine.catalog().report().skipped.is_empty());
        let turn = engine.catalog().turn("@sql-review and @pdf", &TurnContext::default()).unwrap();
        let matched: Vec<(String, String)> = turn.matches().into_iter().map(|m| (m.skill, m.id)).collect();
        assert_eq!(matched, [("sql-review".to_owned(), "row-2".to_owned()), ("pdf".to_owned(), "pdf".to_owned())]);
    }
}
