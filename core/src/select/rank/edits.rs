//! Taking a few skills' edits, an addition or a removal into a ranking index in place, in
//! time that follows the skills changed rather than the catalogue (but for a few passes
//! over flat per-term arrays, and, for an addition or a removal, over the skill numbers
//! in the index): the same answers a build gives (term numbers aside, which a turn does
//! not depend on).
//!
//! A build weighs each posting with BM25 against the catalogue's average length, rounded
//! so that one skill's change seldom moves it (`average_length`); counts how many skills
//! have each term (its IDF, which also follows the catalogue's size); and keeps each
//! term's [`CANDIDATES_PER_WORD`] heaviest postings. In place, with the readings kept:
//! - the changed skills are read again; a word no skill had gets a new number (appended),
//!   and a term no skill has any more stays, without postings: a turn does not see it
//!   (`RankIndex::lookup`), as a build would not have it;
//! - each term the changed skills had or have loses their old postings and gains their new
//!   ones. Where a term's kept postings lose one while more skills have it than were kept,
//!   which of the others comes next is found by reading every skill's reading for those
//!   terms, once for all of them (about a millisecond at 10,000 skills);
//! - the IDF of the terms whose counts moved is computed again; an addition or a removal
//!   moves the catalogue's size, so every IDF is (one value per count);
//! - the words against a skill, or that its texts send elsewhere, count where some term
//!   stands for them: the changed skills' are taken out and put in again, and a word that
//!   gets its first term takes the skills that were waiting for it ([`Pending`]).
//!
//! Should the average length move, every weight moves with it: the index is then assembled
//! again from the readings, as a refresh did before.

use super::index::{heaviest_first, idf_of, length_ratio, posting_weight, RankIndex};
use super::reading::{Reading, Vocabulary};
use super::{average_length, Term, CANDIDATES_PER_WORD};
use crate::fast_hash::FastMap;
use crate::order;
use crate::select::words::{for_each_lowercase_word_in, stem_remembered, WordBuffers};
use crate::skill::Skill;

/// A skill added to or removed from the catalogue, by its position, or neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Moved {
    Nothing,
    /// A skill put at this position; those from it on moved one down.
    Inserted(usize),
    /// The skill at this position taken out; those after it moved one up.
    Removed(usize),
}

impl Moved {
    /// Where the skill at `old` is now (the removed one has no place: `None`).
    pub(crate) fn now(self, old: usize) -> Option<usize> {
        match self {
            Moved::Nothing => Some(old),
            Moved::Inserted(at) => Some(if old < at { old } else { old + 1 }),
            Moved::Removed(at) if old == at => None,
            Moved::Removed(at) => Some(if old < at { old } else { old - 1 }),
        }
    }

    /// Where the skill now at `now` was (the added one was nowhere: `None`).
    pub(crate) fn before(self, now: usize) -> Option<usize> {
        match self {
            Moved::Nothing => Some(now),
            Moved::Inserted(at) if now == at => None,
            Moved::Inserted(at) => Some(if now < at { now } else { now - 1 }),
            Moved::Removed(at) => Some(if now < at { now } else { now + 1 }),
        }
    }
}

/// The skills whose texts against them (first list) or sending requests elsewhere (second)
/// have a word no term stands for, by the word's stem, each list in catalogue order: when
/// an edit gives the word a term, they count there.
pub(crate) type Pending = FastMap<Box<str>, (Vec<u32>, Vec<u32>)>;

/// What the catalogue's numbering says of a word (its written form or its stem): the term
/// standing for it, whether or not a skill still has it.
enum Numbered {
    Term(u32),
    Stop,
    /// No term: `word` is left stemmed.
    Unnumbered,
}

/// How many terms no skill has an index edited in place keeps, past as many as some skill
/// has, before it numbers its terms again as a build does (dropping them).
const COMPACT_PAST_DEAD_TERMS: usize = 4096;

#[cfg(test)]
thread_local! {
    /// How many edits were taken in place (not assembled again): for tests.
    pub(crate) static TAKEN_IN_PLACE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

impl RankIndex {
    /// The index of `skills` (the catalogue now, as ranking reads them), where the skills at
    /// `read_again` (positions now) changed what ranking reads and `moved` was added or
    /// removed, made from this index in place (see the module's docs); `None` when this
    /// index kept no readings.
    pub(crate) fn edited(
        mut self,
        skills: &[&Skill],
        read_again: &[usize],
        moved: Moved,
        headings: bool,
    ) -> Option<RankIndex> {
        let mut readings = self.readings.take()?;
        // (Embeddings are the caller's to set again: the skills' numbers move.)
        self.vectors = Vec::new();
        let before = readings.len();
        let count_fits = match moved {
            Moved::Nothing => before == skills.len(),
            Moved::Inserted(at) => before + 1 == skills.len() && at < skills.len(),
            Moved::Removed(at) => before == skills.len() + 1 && at < before,
        };
        if !count_fits || self.frequencies.len() != self.terms.len() || u32::try_from(before + 1).is_err() {
            return None;
        }
        let mut changed: Vec<usize> = read_again.iter().copied().filter(|&at| at < skills.len()).collect();
        if let Moved::Inserted(at) = moved {
            changed.push(at);
        }
        changed.sort_unstable();
        changed.dedup();

        // Skills renumbered past the one added or removed; the removed one's reading goes.
        let mut gone: Vec<Reading> = Vec::new();
        match moved {
            Moved::Nothing => {}
            Moved::Inserted(at) => {
                self.renumber_skills(moved);
                readings.insert(at, Reading::default());
            }
            Moved::Removed(at) => {
                self.renumber_skills(moved);
                gone.push(readings.remove(at));
            }
        }

        // The changed skills' texts against them leave the lists they were in.
        let mut words = WordBuffers::default();
        for &at in &changed {
            if let Some(old) = readings.get(at) {
                self.texts_against(old, &mut words, remove_from, at);
            }
        }

        // Read again, into the catalogue's vocabulary (new words numbered after the rest).
        let mut vocabulary = self.take_vocabulary();
        vocabulary.words_added = Some(Vec::new());
        for &at in &changed {
            if let (Some(skill), Some(slot)) = (skills.get(at), readings.get_mut(at)) {
                gone.push(std::mem::replace(slot, vocabulary.read(skill, headings)));
            }
        }
        let n = readings.len() as f64;
        let average = average_length(readings.iter().map(|r| r.length as f64).sum(), n);
        if average.to_bits() != self.average.to_bits() {
            // Every weight moves: assembled again (its vectors are the caller's to set).
            return Some(RankIndex::renumbered_and_assembled(vocabulary, readings));
        }
        let words_added = vocabulary.words_added.take().unwrap_or_default();
        let new_terms = vocabulary.is_pair.get(self.terms.len()..).unwrap_or_default();
        self.terms.extend(new_terms.iter().map(|&pair| Term { idf: 0.0, pair, postings: Vec::new() }));
        self.frequencies.resize(self.terms.len(), 0);
        self.put_vocabulary(vocabulary);

        // Counts: the old readings' terms lose a skill, the new ones' gain one.
        let new_readings = changed.iter().filter_map(|&at| readings.get(at));
        let mut touched: Vec<u32> = gone.iter().chain(new_readings).flat_map(|r| r.terms.iter().copied()).collect();
        touched.sort_unstable();
        touched.dedup();
        let count = |frequencies: &[u32]| {
            touched.iter().filter(|&&t| frequencies.get(t as usize).is_some_and(|&df| df > 0)).count()
        };
        let live_before = count(&self.frequencies);
        for old in &gone {
            for &term in old.terms.iter() {
                if let Some(df) = self.frequencies.get_mut(term as usize) {
                    *df = df.saturating_sub(1);
                }
            }
        }
        for &at in &changed {
            for &term in readings.get(at).map_or(&[][..], |r| &r.terms) {
                if let Some(df) = self.frequencies.get_mut(term as usize) {
                    *df += 1;
                }
            }
        }
        self.live_terms = (self.live_terms + count(&self.frequencies)).saturating_sub(live_before);
        if self.terms.len() > 2 * self.live_terms + COMPACT_PAST_DEAD_TERMS {
            // More terms no skill has than terms some skill has: numbered again, as a build.
            let vocabulary = self.take_vocabulary();
            return Some(RankIndex::renumbered_and_assembled(vocabulary, readings));
        }

        // IDFs: the terms whose counts moved, or every term when the catalogue's size did
        // (one logarithm per count: few counts are different).
        if moved == Moved::Nothing {
            for &term in &touched {
                if let (Some(t), Some(&df)) = (self.terms.get_mut(term as usize), self.frequencies.get(term as usize)) {
                    t.idf = idf_of(f64::from(df), n);
                }
            }
        } else {
            let mut idf_by_count: Vec<Option<f64>> = vec![None; readings.len() + 1];
            let mut idf = |df: u32| match idf_by_count.get_mut(df as usize) {
                Some(Some(idf)) => *idf,
                Some(slot) => *slot.insert(idf_of(f64::from(df), n)),
                None => idf_of(f64::from(df), n),
            };
            for (t, &df) in self.terms.iter_mut().zip(&self.frequencies) {
                t.idf = idf(df);
            }
            self.unseen_idf = idf(0);
        }
        self.skill_count = readings.len();

        // Postings: the changed skills' old ones out, their new ones in.
        let changed_u32: Vec<u32> = changed.iter().filter_map(|&at| u32::try_from(at).ok()).collect();
        let mut new_postings: FastMap<u32, Vec<(u32, f64)>> = FastMap::default();
        for (&at, &skill) in changed.iter().zip(&changed_u32) {
            let Some(reading) = readings.get(at) else { continue };
            let ratio = length_ratio(reading.length, average);
            for (term, f) in reading.weighted() {
                new_postings.entry(term).or_default().push((skill, posting_weight(f, ratio)));
            }
        }
        let mut refill: Vec<u32> = Vec::new();
        for &term in &touched {
            let (Some(t), Some(&df)) = (self.terms.get_mut(term as usize), self.frequencies.get(term as usize)) else {
                continue;
            };
            t.postings.retain(|(skill, _)| changed_u32.binary_search(skill).is_err());
            let mut new = new_postings.remove(&term).unwrap_or_default();
            // The kept postings are the heaviest of the skills not changed: all of them, or
            // (when fewer than those skills) the first ones, the rest weighing less than
            // the last. A merge is exact while the first CANDIDATES_PER_WORD are all known.
            let unchanged_holders = (df as usize).saturating_sub(new.len());
            let all_known = t.postings.len() >= unchanged_holders;
            let known_first = match t.postings.last() {
                Some(last) => t.postings.len() + new.iter().filter(|p| heaviest_first(p, last).is_lt()).count(),
                None => 0,
            };
            if !all_known && known_first < CANDIDATES_PER_WORD.min(df as usize) {
                refill.push(term);
                continue;
            }
            t.postings.append(&mut new);
            order::keep_first(&mut t.postings, CANDIDATES_PER_WORD, heaviest_first);
        }
        if !refill.is_empty() {
            self.refill(&readings, &refill, average);
        }

        // The changed skills' texts against them, and the skills that waited for a word
        // that now has its term.
        if !words_added.is_empty() {
            match self.pending.as_mut() {
                Some(pending) => {
                    for (stem, term) in &words_added {
                        if let Some((against, elsewhere)) = pending.remove(stem) {
                            for (map, skills) in [(&mut self.against, against), (&mut self.sent_elsewhere, elsewhere)] {
                                if !skills.is_empty() {
                                    merge_into(map.entry(*term).or_default(), skills);
                                }
                            }
                        }
                    }
                }
                None => self.find_pending(&readings, &mut words),
            }
        }
        for &at in &changed {
            if let Some(new) = readings.get(at) {
                self.texts_against(new, &mut words, insert_into, at);
            }
        }
        self.readings = Some(readings);
        #[cfg(test)]
        TAKEN_IN_PLACE.with(|taken| taken.set(taken.get() + 1));
        Some(self)
    }

    /// Gives every skill number in the postings and the lists of words against skills its
    /// number now (`moved`'s skill taken out).
    fn renumber_skills(&mut self, moved: Moved) {
        let new = |skill: u32| moved.now(skill as usize).and_then(|now| u32::try_from(now).ok());
        for term in &mut self.terms {
            term.postings.retain_mut(|(skill, _)| new(*skill).map(|now| *skill = now).is_some());
        }
        let renumbered = |list: &mut Vec<u32>| {
            list.retain_mut(|skill| new(*skill).map(|now| *skill = now).is_some());
            !list.is_empty()
        };
        // (A list the removed skill alone was in goes, as a build has none.)
        self.against.retain(|_, skills| renumbered(skills));
        self.sent_elsewhere.retain(|_, skills| renumbered(skills));
        if let Some(pending) = self.pending.as_mut() {
            pending.retain(|_, (against, elsewhere)| renumbered(against) | renumbered(elsewhere));
        }
    }

    /// Calls `change` with the list each word of `reading`'s texts against its skill (at
    /// `at`) or sending requests elsewhere belongs in: the term's, else the pending word's
    /// (when the index keeps them). A build fills the lists with it (no term is without
    /// skills there, and nothing waits).
    pub(super) fn texts_against(
        &mut self,
        reading: &Reading,
        words: &mut WordBuffers,
        change: impl Fn(&mut Vec<u32>, u32),
        at: usize,
    ) {
        let Ok(skill) = u32::try_from(at) else { return };
        let texts = reading.against.iter().map(|t| (t, true)).chain(reading.elsewhere.iter().map(|t| (t, false)));
        let mut stemmed = String::new();
        for (text, is_against) in texts {
            for_each_lowercase_word_in(text, words, |word, _, _| match self.numbered(word, &mut stemmed) {
                Numbered::Term(term) => {
                    let map = if is_against { &mut self.against } else { &mut self.sent_elsewhere };
                    let list = map.entry(term).or_default();
                    change(list, skill);
                    if list.is_empty() {
                        map.remove(&term);
                    }
                }
                Numbered::Stop => {}
                // (Kept by its stem, as a term would number it.)
                Numbered::Unnumbered => {
                    if let Some(pending) = self.pending.as_mut() {
                        let lists = pending.entry(stemmed.as_str().into()).or_default();
                        change(if is_against { &mut lists.0 } else { &mut lists.1 }, skill);
                        if lists.0.is_empty() && lists.1.is_empty() {
                            pending.remove(stemmed.as_str());
                        }
                    }
                }
            });
        }
    }

    /// Reads every skill's texts against it and sending requests elsewhere: each word a
    /// term stands for puts the skill in that term's list (the terms just numbered among
    /// them), the others in [`Pending`], kept from now on.
    fn find_pending(&mut self, readings: &[Reading], words: &mut WordBuffers) {
        self.pending = Some(Pending::default());
        for (at, reading) in readings.iter().enumerate() {
            self.texts_against(reading, words, insert_into, at);
        }
    }

    /// What the numbering says of `word` (lowercase; stemmed into `stemmed` when its
    /// written form is not known, so that `stemmed` holds its stem whenever the answer is
    /// [`Numbered::Unnumbered`]): unlike [`RankIndex::lookup`], a term no skill has any more
    /// is still its term.
    fn numbered(&self, word: &str, stemmed: &mut String) -> Numbered {
        match self.surface.get(word) {
            Some(&Some(term)) => Numbered::Term(term),
            Some(None) => Numbered::Stop,
            None => {
                stem_remembered(word, stemmed);
                self.words.get(stemmed.as_str()).map_or(Numbered::Unnumbered, |&term| Numbered::Term(term))
            }
        }
    }

    /// The postings of `terms` made again from every skill's reading.
    fn refill(&mut self, readings: &[Reading], terms: &[u32], average: f64) {
        let mut wanted = vec![false; self.terms.len()];
        for &term in terms {
            if let (Some(want), Some(t)) = (wanted.get_mut(term as usize), self.terms.get_mut(term as usize)) {
                *want = true;
                t.postings.clear();
            }
        }
        for (skill, reading) in readings.iter().enumerate() {
            let Ok(skill) = u32::try_from(skill) else { break };
            let ratio = length_ratio(reading.length, average);
            for (term, f) in reading.weighted() {
                if wanted.get(term as usize).copied().unwrap_or(false) {
                    if let Some(t) = self.terms.get_mut(term as usize) {
                        t.postings.push((skill, posting_weight(f, ratio)));
                    }
                }
            }
        }
        for &term in terms {
            if let Some(t) = self.terms.get_mut(term as usize) {
                order::keep_first(&mut t.postings, CANDIDATES_PER_WORD, heaviest_first);
                t.postings.shrink_to_fit();
            }
        }
    }

    /// The index's terms as a vocabulary to read skills into (until
    /// [`RankIndex::put_vocabulary`]).
    pub(super) fn take_vocabulary(&mut self) -> Vocabulary {
        let is_pair = self.terms.iter().map(|t| t.pair).collect();
        let (surface, words, pairs) =
            (std::mem::take(&mut self.surface), std::mem::take(&mut self.words), std::mem::take(&mut self.pairs));
        Vocabulary::from_parts(surface, words, pairs, is_pair)
    }

    /// Takes back the terms [`RankIndex::take_vocabulary`] lent.
    fn put_vocabulary(&mut self, vocabulary: Vocabulary) {
        let (surface, words, pairs) = vocabulary.into_maps();
        (self.surface, self.words, self.pairs) = (surface, words, pairs);
    }
}

/// Puts `skill` in `list` (in order, once).
fn insert_into(list: &mut Vec<u32>, skill: u32) {
    if let Err(at) = list.binary_search(&skill) {
        list.insert(at, skill);
    }
}

/// Takes `skill` out of `list`.
fn remove_from(list: &mut Vec<u32>, skill: u32) {
    if let Ok(at) = list.binary_search(&skill) {
        list.remove(at);
    }
}

/// Puts the skills of `more` (in order) in `list` (in order, once each).
fn merge_into(list: &mut Vec<u32>, more: Vec<u32>) {
    for skill in more {
        insert_into(list, skill);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::rank::reading::tests::{skill, WORDS};
    use crate::select::rank::{Lookup, RankOptions, Ranked};

    /// A skill made from `seed`: a few stock words, a word of its own (`own`), sometimes a
    /// sentence sending requests elsewhere and a text against it naming `rare`.
    fn made(seed: usize, own: &str, rare: &str) -> Skill {
        let mut next = crate::testing::numbers(0x9e37_79b9_7f4a_7c15 ^ seed as u64);
        let mut words = |n: usize| (0..n).map(|_| WORDS[next(WORDS.len())]).collect::<Vec<_>>().join(" ");
        let length = 3 + seed % 7;
        let mut description = format!("{} {own}.", words(length));
        if seed % 4 == 0 {
            description.push_str(&format!(" Not for {}; use another skill for that.", words(2)));
        }
        let against = (seed % 3 == 0).then(|| format!("{} {rare}", words(2)));
        let mut skill = skill(&format!("skill-{seed}"), &description, against.as_deref());
        skill.tags = vec![words(1)];
        skill
    }

    /// `edited` answers as `built` (a build of the same skills) does: every term a build
    /// has, by its stem (a pair by its words), with the same IDF and postings, bit for bit;
    /// no other term with postings; the same lists of words against skills and sent
    /// elsewhere where a term stands; the same unseen IDF; every written form found alike.
    fn assert_alike(edited: &RankIndex, built: &RankIndex) {
        assert_eq!(edited.skill_count, built.skill_count);
        assert_eq!(edited.unseen_idf.to_bits(), built.unseen_idf.to_bits());
        assert_eq!(edited.average.to_bits(), built.average.to_bits());
        let mut number = vec![u32::MAX; built.terms.len()];
        for (stem, &term) in &built.words {
            number[term as usize] = *edited.words.get(stem).unwrap_or_else(|| panic!("{stem} has no term"));
        }
        for (&(first, second), &pair) in &built.pairs {
            let words = (number[first as usize], number[second as usize]);
            number[pair as usize] = *edited.pairs.get(&words).expect("a pair has no term");
        }
        for (term, t) in built.terms.iter().enumerate() {
            let now = &edited.terms[number[term] as usize];
            assert_eq!((now.idf.to_bits(), now.pair), (t.idf.to_bits(), t.pair), "term {term}");
            assert_eq!(now.postings.len(), t.postings.len(), "term {term}");
            for (a, b) in now.postings.iter().zip(&t.postings) {
                assert_eq!((a.0, a.1.to_bits()), (b.0, b.1.to_bits()), "term {term}");
            }
            assert_eq!(edited.frequencies[number[term] as usize], built.frequencies[term], "term {term}");
        }
        assert_eq!(edited.terms_with_postings(), built.terms.len());
        assert_eq!(edited.live_terms, built.terms.len());
        for (edited_lists, built_lists) in
            [(&edited.against, &built.against), (&edited.sent_elsewhere, &built.sent_elsewhere)]
        {
            for (&term, skills) in built_lists {
                assert_eq!(edited_lists.get(&number[term as usize]), Some(skills), "term {term}");
            }
            let live = edited_lists.keys().filter(|&&t| !edited.terms[t as usize].postings.is_empty()).count();
            assert_eq!(live, built_lists.len());
        }
        for form in edited.surface.keys().chain(built.surface.keys()) {
            let (mut a, mut b) = (String::new(), String::new());
            let found = |lookup: Lookup| match lookup {
                Lookup::Known(term) => Some(Some(term)),
                Lookup::Stop => Some(None),
                Lookup::Unseen => None,
            };
            let want = found(built.lookup(form, &mut b)).map(|t| t.map(|t| number[t as usize]));
            assert_eq!(found(edited.lookup(form, &mut a)), want, "{form}");
            // The stem each looked up, or the form as written when it knew it so.
            let stem_or_form = |stemmed: String| if stemmed.is_empty() { form.to_string() } else { stemmed };
            assert_eq!(stem_or_form(a), stem_or_form(b), "{form}");
        }
    }

    /// What a turn makes of `messages` with every threshold open.
    fn ranked(index: &RankIndex, messages: &[String]) -> Vec<Vec<Ranked>> {
        let options =
            RankOptions { max_ranked: 1000, min_score: 0.0, min_ratio: 0.0, min_coverage: 0.0, ..Default::default() };
        messages.iter().map(|m| index.rank(m, None, &options, |_| true)).collect()
    }

    fn taken_in_place() -> usize {
        TAKEN_IN_PLACE.with(|taken| taken.get())
    }

    /// Edits, additions and removals at random into an index of 300 skills (words in more
    /// skills than a turn reads of a word, words only one skill has, texts against skills
    /// waiting for a word no skill has yet): after each, the index answers as a build does.
    #[test]
    fn edits_additions_and_removals_in_place_answer_as_a_build() {
        let mut skills: Vec<Skill> = (0..300).map(|at| made(at, &format!("own{at}"), "rare0")).collect();
        fn refs(skills: &[Skill]) -> Vec<&Skill> {
            skills.iter().collect()
        }
        let mut index = RankIndex::build_keeping(&skills, true, true);
        let mut messages: Vec<String> = vec![WORDS.join(" "), "file reports for the non-profit".into()];
        messages.push("own7 and own250, deploying charts; rare1 rare2 slow queries".into());
        let mut next = crate::testing::numbers(0x2545_f491_4f6c_dd1d);
        let (mut steps, start) = (0, taken_in_place());
        for step in 1..=60 {
            let moved = match step % 5 {
                0 => {
                    let at = next(skills.len() + 1);
                    skills.insert(at, made(1000 + step, &format!("new{step}"), &format!("rare{step}")));
                    Moved::Inserted(at)
                }
                3 => {
                    let at = next(skills.len());
                    skills.remove(at);
                    Moved::Removed(at)
                }
                _ => Moved::Nothing,
            };
            // One to three skills edited: a description of other words (a word of its own
            // gone, a new one come), and now and then a word texts against skills named.
            let mut read_again = Vec::new();
            for _ in 0..1 + next(3) {
                let at = next(skills.len());
                let own = if step % 7 == 0 { format!("rare{}", step / 2) } else { format!("edit{step}") };
                skills[at] = made(2000 + step * 3 + at, &own, &format!("rare{}", step + 1));
                read_again.push(at);
            }
            messages.push(format!("edit{step} rare{step} new{step} own{step} files"));
            index = index.edited(&refs(&skills), &read_again, moved, true).expect("the index kept its readings");
            let built = RankIndex::build_keeping(&skills, true, true);
            assert_alike(&index, &built);
            assert!(ranked(&index, &messages) == ranked(&built, &messages), "step {step}");
            for word in WORDS.iter().map(|w| w.to_string()).chain((0..70).map(|i| format!("rare{i}"))) {
                assert_eq!(index.shared_word(&word), built.shared_word(&word), "{word}, step {step}");
            }
            steps += 1;
        }
        // Most were taken in place: the rest moved the average length.
        let in_place = taken_in_place() - start;
        assert!(in_place * 2 > steps, "{in_place} of {steps} taken in place");
    }

    /// A word a skill's text against it names and no skill has waits (once an edit has
    /// needed the waiting words); when an edit gives the word its first skill, the texts
    /// count there; when its last skill loses it, and gets it back, they still do; when the
    /// skills naming it go, so does its list: the answers a build gives at each step.
    #[test]
    fn a_word_named_against_a_skill_counts_once_a_skill_has_it() {
        // Every skill as long as the others: neither an edit nor a removal moves the
        // average, so each is taken in place.
        let made = |at: usize, own: &str, rare: &str| {
            let against = (at % 3 == 0).then(|| format!("draft letters about {rare}"));
            let mut skill = skill(&format!("skill-{at}"), &format!("Review charts {own}."), against.as_deref());
            skill.tags = vec![WORDS[at % WORDS.len()].to_owned()];
            skill
        };
        let mut skills: Vec<Skill> = (0..300).map(|at| made(at, &format!("own{at}"), "rare0")).collect();
        let mut index = RankIndex::build_keeping(&skills, true, true);
        let start = taken_in_place();
        // A new word first, so that the waiting words are found; then texts against skills 6
        // and 9 (made with one) name a word no skill has, which skill 8's description takes,
        // drops and takes back.
        let steps = [
            (7, "fresh", "rare0"),
            (6, "own6", "zzwaiting"),
            (9, "own9", "zzwaiting"),
            (8, "zzwaiting", "rare0"),
            (8, "own8", "rare0"),
            (8, "zzwaiting", "rare0"),
        ];
        for (at, own, rare) in steps {
            skills[at] = made(at, own, rare);
            let refs: Vec<&Skill> = skills.iter().collect();
            index = index.edited(&refs, &[at], Moved::Nothing, true).expect("kept its readings");
            assert_alike(&index, &RankIndex::build_keeping(&skills, true, true));
        }
        assert_eq!(taken_in_place() - start, steps.len());
        let term = index.words["zzwait"];
        assert_eq!(index.against.get(&term), Some(&vec![6, 9]));
        // Skills 9 and 6 removed: the list loses them, then goes.
        for at in [9, 6] {
            skills.remove(at);
            let refs: Vec<&Skill> = skills.iter().collect();
            index = index.edited(&refs, &[], Moved::Removed(at), true).expect("kept its readings");
            assert_alike(&index, &RankIndex::build_keeping(&skills, true, true));
        }
        assert_eq!(index.against.get(&index.words["zzwait"]), None);
        assert_eq!(taken_in_place() - start, steps.len() + 2);
    }

    /// Edits that each take a skill's word of its own out and bring another leave terms no
    /// skill has; once they outnumber the others by `COMPACT_PAST_DEAD_TERMS`, the index
    /// numbers its terms again as a build does: it does not grow without bound.
    #[test]
    fn terms_no_skill_has_are_dropped_once_they_outnumber_the_others() {
        let mut skills: Vec<Skill> = (0..40).map(|at| made(at, &format!("own{at}"), "rare0")).collect();
        let mut index = RankIndex::build_keeping(&skills, false, true);
        let (mut most, mut dropped) = (0, false);
        for step in 0..3000 {
            // The same words but the last: the same length, so the average stays.
            let at = step % skills.len();
            skills[at] = made(at, &format!("edit{step}"), "rare0");
            let before = index.terms.len();
            let refs: Vec<&Skill> = skills.iter().collect();
            index = index.edited(&refs, &[at], Moved::Nothing, false).expect("kept its readings");
            dropped |= index.terms.len() < before;
            most = most.max(index.terms.len());
        }
        assert!(dropped, "never numbered again: {} terms", index.terms.len());
        assert!(most <= 2 * index.live_terms + COMPACT_PAST_DEAD_TERMS + 4, "{most} terms");
        assert_alike(&index, &RankIndex::build_keeping(&skills, false, true));
    }

    #[test]
    fn an_index_that_kept_no_readings_or_another_count_of_skills_is_not_edited() {
        let skills: Vec<Skill> = (0..20).map(|at| made(at, &format!("own{at}"), "rare0")).collect();
        let refs: Vec<&Skill> = skills.iter().collect();
        assert!(RankIndex::build_keeping(&skills, true, false).edited(&refs, &[0], Moved::Nothing, true).is_none());
        let kept = || RankIndex::build_keeping(&skills, true, true);
        assert!(kept().edited(&refs[1..], &[0], Moved::Nothing, true).is_none());
        assert!(kept().edited(&refs, &[0], Moved::Removed(3), true).is_none());
        assert!(kept().edited(&refs[1..], &[0], Moved::Inserted(0), true).is_none());
        assert!(kept().edited(&refs, &[0], Moved::Nothing, true).is_some());
    }
}
