//! Reading skills' texts into terms, and making a ranking index again after some skills
//! changed without reading the others.
//!
//! Making an index has two parts. Reading gives each skill its terms (words, stemmed, and
//! pairs of adjacent words) with their weights, and numbers each term the first time any
//! skill has it; it is most of the work (the word reader, stop words, stemming, hashing).
//! Assembling counts every term's skills, weighs each posting with BM25 — whose weights
//! depend on the whole catalogue (its size, its average length) — and keeps each term's
//! heaviest postings. A large catalogue is read in parts, one per thread, each part with a
//! vocabulary of its own, taken into the first in order ([`read_all`]): the numbers come
//! out as one thread reading every skill gives them. A catalogue that may be refreshed
//! keeps each skill's [`Reading`], so that a refresh not taken in place (and a build from
//! parts read ahead) reads only the skills that changed and [`RankIndex::rebuild`]
//! assembles the index again: the same index a build gives, term numbers included (terms
//! are numbered again in the order a build would first see them), except that the map of
//! written forms may keep forms no skill has any more, each still naming the term its stem
//! does (it only saves stemming them again). An edit taken in place goes further and
//! assembles nothing (`edits.rs`).

use super::index::RankIndex;
use super::{DESCRIPTION_WEIGHT, HEADING_WEIGHT, NAME_WEIGHT, PAIR_WEIGHT, SECTION_WEIGHT, TAG_WEIGHT};
use crate::fast_hash::FastMap;
use crate::parallel;
use crate::select::triggers::{triggers, Triggers};
use crate::select::words::{for_each_lowercase_word_in, stem, stop_words, Link, WordBuffers};
use crate::skill::Skill;

/// What reading one skill gave: each term it has, in the order it first has them, with
/// the sum of its weights there; its length (the description's and `when_to_use`'s words
/// that count); and its texts against it and sending requests elsewhere (their words count
/// only where some skill has them, so they are looked up when the index is assembled).
/// Kept between refreshes by a catalogue that may be refreshed, so it is kept small: the
/// weights as whole quarters (every field weighs a multiple of a quarter, so sums of them
/// are too) — or as read, should one not be.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Reading {
    pub(super) terms: Box<[u32]>,
    weights: Weights,
    pub(super) length: usize,
    pub(super) against: Option<Box<str>>,
    pub(super) elsewhere: Box<[Box<str>]>,
}

#[derive(Debug, Clone, PartialEq)]
enum Weights {
    Quarters(Box<[u32]>),
    Exact(Box<[f64]>),
}

impl Default for Weights {
    fn default() -> Self {
        Weights::Quarters(Box::default())
    }
}

impl Weights {
    /// `sums` as quarters when each is exactly a whole number of them.
    fn new(sums: &[f64]) -> Weights {
        let quarter = |w: f64| {
            let q = w * 4.0;
            let whole = (0.0..=f64::from(u32::MAX)).contains(&q) && q.fract() == 0.0;
            whole.then_some(q as u32).filter(|&q| f64::from(q) / 4.0 == w)
        };
        match sums.iter().map(|&w| quarter(w)).collect::<Option<Box<[u32]>>>() {
            Some(quarters) => Weights::Quarters(quarters),
            None => Weights::Exact(sums.into()),
        }
    }
}

impl Reading {
    /// Each term with its summed weight, in order.
    pub(super) fn weighted(&self) -> impl Iterator<Item = (u32, f64)> + '_ {
        self.terms.iter().enumerate().map(|(at, &term)| (term, self.weight(at)))
    }

    fn weight(&self, at: usize) -> f64 {
        match &self.weights {
            Weights::Quarters(quarters) => quarters.get(at).map_or(0.0, |&q| f64::from(q) / 4.0),
            Weights::Exact(sums) => sums.get(at).copied().unwrap_or(0.0),
        }
    }
}

/// A vocabulary's maps: written forms, stems and pairs to terms.
pub(super) type WordMaps = (FastMap<Box<str>, Option<u32>>, FastMap<Box<str>, u32>, FastMap<(u32, u32), u32>);

/// The terms known while an index is made, numbered in the order they were first seen.
#[derive(Debug)]
pub(super) struct Vocabulary {
    /// Lowercase form as written → its term, or `None` for a stop word.
    pub(super) surface: FastMap<Box<str>, Option<u32>>,
    /// Stemmed word → term.
    pub(super) words: FastMap<Box<str>, u32>,
    /// Two adjacent words' terms → the pair's term.
    pub(super) pairs: FastMap<(u32, u32), u32>,
    /// Per term: a pair (not a word).
    pub(super) is_pair: Vec<bool>,
    /// By term number, where the term stands in the reading of the skill being read, plus
    /// one (0: not in it). Reset for that skill's terms only when the next is read.
    seen: Vec<u32>,
    /// The skill being read: its terms, and their weights summed so far (reused).
    terms: Vec<u32>,
    sums: Vec<f64>,
    /// When kept: every written form added to `surface`, in the order added (a part read
    /// on its own thread keeps them, so that taking it in adds its forms in the order one
    /// thread would have: the same map, down to the order a snapshot writes it in).
    forms_in_order: Option<Vec<Box<str>>>,
    /// When kept: each word numbered, stemmed, with its term (an edit in place looks up
    /// who was waiting for it: see `edits.rs`).
    pub(super) words_added: Option<Vec<(Box<str>, u32)>>,
    /// The word reader's buffers, reused from field to field.
    reader: WordBuffers,
}

impl Vocabulary {
    /// No terms yet; the stop words known as forms of no term.
    pub(super) fn new() -> Vocabulary {
        let surface = stop_words().iter().map(|&w| (Box::<str>::from(w), None)).collect();
        Vocabulary {
            surface,
            words: FastMap::default(),
            pairs: FastMap::default(),
            is_pair: Vec::new(),
            seen: Vec::new(),
            terms: Vec::new(),
            sums: Vec::new(),
            forms_in_order: None,
            words_added: None,
            reader: WordBuffers::default(),
        }
    }

    /// No terms yet, and every written form kept in the order added.
    fn keeping_form_order() -> Vocabulary {
        Vocabulary { forms_in_order: Some(Vec::new()), ..Vocabulary::new() }
    }

    /// The terms an index knows, to read more skills into.
    pub(super) fn from_parts(
        surface: FastMap<Box<str>, Option<u32>>,
        words: FastMap<Box<str>, u32>,
        pairs: FastMap<(u32, u32), u32>,
        is_pair: Vec<bool>,
    ) -> Vocabulary {
        let (seen, terms, sums) = (Vec::new(), Vec::new(), Vec::new());
        let reader = WordBuffers::default();
        Vocabulary {
            surface,
            words,
            pairs,
            is_pair,
            seen,
            terms,
            sums,
            forms_in_order: None,
            words_added: None,
            reader,
        }
    }

    /// Its maps of written forms, stems and pairs.
    pub(super) fn into_maps(self) -> WordMaps {
        (self.surface, self.words, self.pairs)
    }

    fn new_term(&mut self, pair: bool) -> Option<u32> {
        // (`u32::MAX` is no term's number: it stands for none.)
        let term = u32::try_from(self.is_pair.len()).ok().filter(|&term| term != UNNUMBERED)?;
        self.is_pair.push(pair);
        Some(term)
    }

    /// Reads `skill`'s fields (`found`: its texts for and against it) into its terms,
    /// numbering the terms no skill read before had; with `headings`, its body's headings
    /// too.
    pub(super) fn read(&mut self, skill: &Skill, headings: bool) -> Reading {
        let found: Triggers<'_> = triggers(skill);
        for &term in &self.terms {
            if let Some(seen) = self.seen.get_mut(term as usize) {
                *seen = 0;
            }
        }
        self.terms.clear();
        self.sums.clear();
        let mut length = 0;
        self.field(&skill.name.replace(['-', '_'], " "), NAME_WEIGHT);
        for tag in &skill.tags {
            self.field(tag, TAG_WEIGHT);
        }
        for text in &found.for_it {
            length += self.field(text, DESCRIPTION_WEIGHT);
        }
        for text in &found.sections {
            self.field(text, SECTION_WEIGHT);
        }
        if headings {
            for heading in &skill.headings {
                self.field(heading, HEADING_WEIGHT);
            }
        }
        Reading {
            terms: self.terms.as_slice().into(),
            weights: Weights::new(&self.sums),
            length,
            against: found.against.map(Box::from),
            elsewhere: found.elsewhere.iter().map(|&text| Box::from(text)).collect(),
        }
    }

    /// Reads one field's text into the skill being read; returns how many of its words
    /// count toward the skill's length.
    fn field(&mut self, text: &str, weight: f64) -> usize {
        let mut counted = 0;
        let mut previous: Option<u32> = None;
        let mut reader = std::mem::take(&mut self.reader);
        for_each_lowercase_word_in(text, &mut reader, |word, _, link| {
            // A form seen before is not stemmed again; the stop words are there from the
            // start, as forms of no term.
            let term = match self.surface.get(word) {
                Some(&Some(term)) => term,
                Some(None) => {
                    if link != Link::Compound {
                        previous = None;
                    }
                    return;
                }
                None => {
                    let form = Box::<str>::from(word);
                    let mut stemmed = String::from(word);
                    stem(&mut stemmed);
                    let term = match self.words.get(stemmed.as_str()) {
                        Some(&term) => term,
                        None => {
                            let Some(term) = self.new_term(false) else { return };
                            self.words.insert(stemmed.as_str().into(), term);
                            if let Some(added) = self.words_added.as_mut() {
                                added.push((stemmed.into_boxed_str(), term));
                            }
                            term
                        }
                    };
                    if let Some(forms) = self.forms_in_order.as_mut() {
                        forms.push(form.clone());
                    }
                    self.surface.insert(form, Some(term));
                    term
                }
            };
            self.add(term, weight);
            if link == Link::Compound {
                return;
            }
            counted += 1;
            if let (Link::Next, Some(first)) = (link, previous) {
                let pair = match self.pairs.get(&(first, term)) {
                    Some(&pair) => Some(pair),
                    None => self.new_term(true).inspect(|&pair| {
                        self.pairs.insert((first, term), pair);
                    }),
                };
                if let Some(pair) = pair {
                    self.add(pair, weight * PAIR_WEIGHT);
                }
            }
            previous = Some(term);
        });
        self.reader = reader;
        counted
    }

    /// Adds `weight` to `term` in the skill being read (first seen: added last).
    fn add(&mut self, term: u32, weight: f64) {
        let slot = term as usize;
        if slot >= self.seen.len() {
            self.seen.resize(slot + 1, 0);
        }
        let Some(seen) = self.seen.get_mut(slot) else { return };
        match (*seen as usize).checked_sub(1).and_then(|at| self.sums.get_mut(at)) {
            Some(sum) => *sum += weight,
            None => {
                // (A skill has far fewer terms than `u32` counts: its texts are bounded.)
                let Ok(place) = u32::try_from(self.terms.len() + 1) else { return };
                *seen = place;
                self.terms.push(term);
                self.sums.push(weight);
            }
        }
    }
}

/// Reads `skills` (in catalogue order) into their terms, each skill's reading in order,
/// numbering terms as reading them one after another on one thread does.
pub(super) fn read_all(skills: &[&Skill], headings: bool) -> (Vocabulary, Vec<Reading>) {
    let parts = if skills.len() < parallel::SPLIT_FROM_SKILLS { 1 } else { parallel::threads() };
    read_in_parts(skills, headings, parts)
}

/// [`read_all`] with the skills read in `parts` contiguous parts, each with a vocabulary
/// of its own, taken into the first part's in order.
fn read_in_parts(skills: &[&Skill], headings: bool, parts: usize) -> (Vocabulary, Vec<Reading>) {
    let first = skills.as_ptr() as usize;
    let read = |part: &[&Skill]| {
        // Parts after the first keep the order of their forms, for `absorb`.
        let mut vocabulary = match part.as_ptr() as usize == first {
            true => Vocabulary::new(),
            false => Vocabulary::keeping_form_order(),
        };
        let readings: Vec<Reading> = part.iter().map(|skill| vocabulary.read(skill, headings)).collect();
        (vocabulary, readings)
    };
    let mut parts = parallel::in_parts(skills, parts, read).into_iter();
    let (mut vocabulary, mut readings) = parts.next().unwrap_or_else(|| (Vocabulary::new(), Vec::new()));
    for (part, part_readings) in parts {
        let numbers = vocabulary.absorb(part);
        readings.extend(part_readings.into_iter().map(|reading| reading.renumbered(&numbers)));
    }
    (vocabulary, readings)
}

impl Reading {
    /// The same reading with each term `numbers` gives it (a term it gives no number is
    /// dropped, with its weight).
    fn renumbered(mut self, numbers: &[u32]) -> Reading {
        let number = |term: u32| numbers.get(term as usize).copied().filter(|&n| n != UNNUMBERED);
        if self.terms.iter().all(|&term| number(term).is_some()) {
            self.terms.iter_mut().for_each(|term| *term = number(*term).unwrap_or(*term));
            return self;
        }
        let kept: Vec<(u32, f64)> =
            self.weighted().filter_map(|(term, weight)| Some((number(term)?, weight))).collect();
        let sums: Vec<f64> = kept.iter().map(|&(_, weight)| weight).collect();
        Reading { terms: kept.into_iter().map(|(term, _)| term).collect(), weights: Weights::new(&sums), ..self }
    }
}

/// The number of a term that has none (past `u32`'s terms).
const UNNUMBERED: u32 = u32::MAX;

impl Vocabulary {
    /// Takes in the terms of `other`, a vocabulary that read the skills after the ones
    /// this one read: returns the number here of each of `other`'s terms. Terms new here
    /// are numbered in `other`'s order — the order in which its skills first have them —
    /// so they get the numbers reading those skills here would have given them.
    fn absorb(&mut self, other: Vocabulary) -> Vec<u32> {
        let count = other.is_pair.len();
        let mut words: Vec<Option<Box<str>>> = vec![None; count];
        for (word, term) in other.words {
            if let Some(slot) = words.get_mut(term as usize) {
                *slot = Some(word);
            }
        }
        let mut pairs: Vec<Option<(u32, u32)>> = vec![None; count];
        for (pair, term) in other.pairs {
            if let Some(slot) = pairs.get_mut(term as usize) {
                *slot = Some(pair);
            }
        }
        // A pair's words were seen before it, so they have their numbers when it comes.
        let mut numbers: Vec<u32> = Vec::with_capacity(count);
        for (word, pair) in words.into_iter().zip(pairs) {
            let number = match (word, pair) {
                (Some(word), _) => match self.words.get(&word) {
                    Some(&term) => Some(term),
                    None => self.new_term(false).inspect(|&term| {
                        self.words.insert(word, term);
                    }),
                },
                (None, Some((first, second))) => {
                    let number = |term: u32| numbers.get(term as usize).copied().filter(|&n| n != UNNUMBERED);
                    match (number(first), number(second)) {
                        (Some(first), Some(second)) => match self.pairs.get(&(first, second)) {
                            Some(&term) => Some(term),
                            None => self.new_term(true).inspect(|&term| {
                                self.pairs.insert((first, second), term);
                            }),
                        },
                        _ => None,
                    }
                }
                (None, None) => None,
            };
            numbers.push(number.unwrap_or(UNNUMBERED));
        }
        // Its forms, in the order it added them (after the stop words, which every
        // vocabulary starts with); a form known here stays as it is (the same stem).
        let mut surface = other.surface;
        let in_order = other.forms_in_order.unwrap_or_default().into_iter();
        let forms: Vec<(Box<str>, Option<u32>)> = match in_order.len() {
            // Not kept: in the map's order (the same map, its forms added in another order).
            0 => surface.drain().filter(|(_, term)| term.is_some()).collect(),
            _ => in_order.filter_map(|form| surface.remove_entry(&form)).collect(),
        };
        for (form, term) in forms {
            let Some(&number) = term.and_then(|t| numbers.get(t as usize)).filter(|&&n| n != UNNUMBERED) else {
                continue;
            };
            self.surface.entry(form).or_insert(Some(number));
        }
        numbers
    }
}

impl RankIndex {
    /// The index of `skills` (in catalogue order; a blocked one as an empty skill), made
    /// from `previous` — the index of the catalogue before, which kept its readings — by
    /// reading only the skills `unchanged` does not map to one of `previous`'s (by its
    /// position there: the same skill, fields and blocked flag alike). `None` when
    /// `previous` kept no readings. The result keeps its readings too.
    pub(crate) fn rebuild(
        previous: RankIndex,
        skills: &[&Skill],
        unchanged: impl Fn(usize) -> Option<usize>,
        headings: bool,
    ) -> Option<RankIndex> {
        let (vocabulary, old) = previous.into_vocabulary()?;
        Some(RankIndex::rebuild_from(vocabulary, old, skills, unchanged, headings))
    }

    /// [`RankIndex::rebuild`] from the terms known and the readings kept (`unchanged` maps a
    /// skill's position to one of `old`'s).
    pub(super) fn rebuild_from(
        mut vocabulary: Vocabulary,
        old: Vec<Reading>,
        skills: &[&Skill],
        unchanged: impl Fn(usize) -> Option<usize>,
        headings: bool,
    ) -> RankIndex {
        let mut old: Vec<Option<Reading>> = old.into_iter().map(Some).collect();
        let mut readings: Vec<Reading> = Vec::with_capacity(skills.len());
        for (at, skill) in skills.iter().enumerate().take(u32::MAX as usize) {
            // Each kept reading serves one skill at most (a second claim reads its skill).
            let kept = unchanged(at).and_then(|from| old.get_mut(from)).and_then(Option::take);
            readings.push(kept.unwrap_or_else(|| vocabulary.read(skill, headings)));
        }
        RankIndex::renumbered_and_assembled(vocabulary, readings)
    }

    /// The index of the skills `readings` were read from (in catalogue order) by
    /// `vocabulary`, which may number terms no skill has and number the others in another
    /// order than a build: terms numbered again as a build numbers them, then assembled.
    pub(super) fn renumbered_and_assembled(mut vocabulary: Vocabulary, mut readings: Vec<Reading>) -> RankIndex {
        // Numbered again in the order a build first sees each term: skills in order, each
        // skill's terms in the order it first has them. Terms no skill has are dropped.
        let unnumbered = u32::MAX;
        let mut renumber = vec![unnumbered; vocabulary.is_pair.len()];
        let mut is_pair = Vec::with_capacity(vocabulary.is_pair.len());
        for reading in &mut readings {
            for term in reading.terms.iter_mut() {
                let Some(slot) = renumber.get_mut(*term as usize) else { continue };
                if *slot == unnumbered {
                    *slot = u32::try_from(is_pair.len()).unwrap_or(unnumbered);
                    is_pair.push(vocabulary.is_pair.get(*term as usize).copied().unwrap_or(false));
                }
                *term = *slot;
            }
        }
        let new = |term: u32| renumber.get(term as usize).copied().filter(|&t| t != unnumbered);
        vocabulary.words = vocabulary.words.into_iter().filter_map(|(word, term)| Some((word, new(term)?))).collect();
        vocabulary.pairs = (vocabulary.pairs.into_iter())
            .filter_map(|((first, second), pair)| Some(((new(first)?, new(second)?), new(pair)?)))
            .collect();
        // A form of a dropped term goes; a stop word (a form of no term) stays.
        vocabulary.surface.retain(|_, term| term.as_mut().is_none_or(|t| new(*t).map(|n| *t = n).is_some()));
        vocabulary.is_pair = is_pair;
        RankIndex::assemble(vocabulary, readings, true)
    }
}

/// Skills read for ranking before the build that ranks them knows its skills' order: a
/// build from parts handed over one at a time reads each part's skills as it takes the
/// part (while the other parts are still being prepared), and makes its ranking index from
/// these readings as a refresh does from kept ones ([`RankIndex::rebuild`]: the same index
/// a build gives, term numbers included, but for the map of written forms, which may keep
/// forms of skills not ranked, each naming the term its stem does, in another order).
#[cfg(feature = "snapshot")]
#[derive(Debug)]
pub(crate) struct ReadAhead {
    vocabulary: Vocabulary,
    readings: Vec<Reading>,
    headings: bool,
}

#[cfg(feature = "snapshot")]
impl ReadAhead {
    /// Nothing read yet; `headings`: the catalogue's option.
    pub(crate) fn new(headings: bool) -> ReadAhead {
        ReadAhead { vocabulary: Vocabulary::new(), readings: Vec::new(), headings }
    }

    /// Reads `skill` (as ranking reads it: a blocked skill as an empty one); returns the
    /// number of its reading.
    pub(crate) fn read(&mut self, skill: &Skill) -> usize {
        let reading = self.vocabulary.read(skill, self.headings);
        self.readings.push(reading);
        self.readings.len() - 1
    }

    /// The ranking index of `skills` (in catalogue order, as ranking reads them): a skill
    /// `read` maps to a reading (the number [`ReadAhead::read`] gave) takes it, the others
    /// are read now.
    pub(crate) fn into_index(self, skills: &[&Skill], read: impl Fn(usize) -> Option<usize>) -> RankIndex {
        RankIndex::rebuild_from(self.vocabulary, self.readings, skills, read, self.headings)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A skill with `description` and, maybe, a text against it; its body a "When to use"
    /// section naming it.
    pub(in crate::select::rank) fn skill(name: &str, description: &str, against: Option<&str>) -> Skill {
        let against = against.map(|a| format!("when_not_to_use: {a}\n")).unwrap_or_default();
        let text = format!(
            "---\nname: {name}\ndescription: {description}\n{against}---\n## When to use\n\nFor {name} work.\n"
        );
        let loaded = crate::skill::load::load(&format!("{name}/SKILL.md"), &text, &crate::Limits::default());
        let mut skill = loaded.skill.unwrap_or_default();
        skill.sections = crate::skill::body_sections(crate::skill::frontmatter::body(&text).unwrap_or_default());
        skill.headings = crate::skill::body_headings(crate::skill::frontmatter::body(&text).unwrap_or_default());
        skill
    }

    /// Twelve skills sharing some words, with a pair or two and texts against them.
    fn catalogue() -> Vec<Skill> {
        let topics = ["pdf forms", "sql queries", "kubernetes pods", "release notes", "csv files", "docker images"];
        let mut skills = Vec::new();
        for (i, topic) in topics.iter().enumerate() {
            let other = topics[(i + 1) % topics.len()];
            let description = format!("Fill and review {topic}. Not for {other}; use another skill for that.");
            skills.push(skill(&format!("{}-helper", topic.replace(' ', "-")), &description, None));
            let against = format!("questions about {other}");
            skills.push(skill(
                &format!("{}-expert", topic.replace(' ', "-")),
                &format!("Expert {topic} help."),
                Some(&against),
            ));
        }
        skills
    }

    /// `index` equals `built` (a build of the same skills): every term, posting and map,
    /// and each written form a build knows, with what it stands for; a form it does not
    /// know stands for what the build finds by stemming it.
    fn assert_same(index: &RankIndex, built: &RankIndex) {
        assert_eq!(index.terms, built.terms);
        assert_eq!(index.words, built.words);
        assert_eq!(index.pairs, built.pairs);
        assert_eq!(index.against, built.against);
        assert_eq!(index.sent_elsewhere, built.sent_elsewhere);
        assert_eq!((index.skill_count, index.unseen_idf.to_bits()), (built.skill_count, built.unseen_idf.to_bits()));
        assert_eq!(index.readings, built.readings);
        for (form, term) in &built.surface {
            assert_eq!(index.surface.get(form), Some(term), "{form}");
        }
        for form in index.surface.keys().filter(|f| !built.surface.contains_key(*f)) {
            let (index_found, built_found) =
                (index.lookup(form, &mut String::new()), built.lookup(form, &mut String::new()));
            assert_eq!(format!("{index_found:?}"), format!("{built_found:?}"), "{form}");
        }
    }

    /// Rebuilds `before`'s index for `after`, reusing the readings of skills unchanged by name.
    fn rebuilt(before: &[Skill], previous: RankIndex, after: &[Skill]) -> RankIndex {
        let by_name: std::collections::HashMap<&str, usize> =
            before.iter().enumerate().map(|(i, s)| (s.name.as_str(), i)).collect();
        let unchanged = |at: usize| {
            let now = &after[at];
            by_name.get(now.name.as_str()).copied().filter(|&was| before[was] == *now)
        };
        let skills: Vec<&Skill> = after.iter().collect();
        RankIndex::rebuild(previous, &skills, unchanged, true).unwrap()
    }

    /// The words test skills are made of: forms of one stem, stop words, words in many
    /// skills and in few, compounds, and words past ASCII.
    pub(in crate::select::rank) const WORDS: [&str; 31] = [
        "file",
        "files",
        "filing",
        "report",
        "reports",
        "the",
        "and",
        "for",
        "deploy",
        "deploying",
        "invoice",
        "chart",
        "charts",
        "kubernetes",
        "pod",
        "pods",
        "query",
        "queries",
        "slow",
        "schema",
        "review",
        "reviewed",
        "draft",
        "letter",
        "non-profit",
        "e-mail",
        "a/b",
        "café",
        "Über",
        "naïve",
        "ΟΔΟΣ",
    ];

    /// `count` skills whose texts draw on one small stock of words (inflected forms of one
    /// stem, stop words, words in many skills and in few), some with texts against them.
    fn generated(count: usize) -> Vec<Skill> {
        let mut next = crate::testing::numbers(0x2545_f491_4f6c_dd1d);
        (0..count)
            .map(|at| {
                let mut words = |n: usize| (0..n).map(|_| WORDS[next(WORDS.len())]).collect::<Vec<_>>().join(" ");
                let description = format!("{} word{at}.", words(8));
                let against = (at % 5 == 0).then(|| words(3));
                let mut skill = skill(&format!("skill-{at}-{}", words(1)), &description, against.as_deref());
                skill.tags = vec![words(2)];
                skill
            })
            .collect()
    }

    #[test]
    fn skills_read_in_parts_give_the_index_read_on_one_thread() {
        let skills = generated(700);
        let refs: Vec<&Skill> = skills.iter().collect();
        let index = |(vocabulary, readings)| RankIndex::assemble(vocabulary, readings, true);
        let one = index(read_in_parts(&refs, true, 1));
        // The maps in the same order too (a snapshot writes them in it).
        let order = |index: &RankIndex| {
            let surface: Vec<(Box<str>, Option<u32>)> = index.surface.iter().map(|(f, t)| (f.clone(), *t)).collect();
            let words: Vec<(Box<str>, u32)> = index.words.iter().map(|(w, t)| (w.clone(), *t)).collect();
            let pairs: Vec<((u32, u32), u32)> = index.pairs.iter().map(|(p, t)| (*p, *t)).collect();
            (surface, words, pairs)
        };
        for parts in [2, 3, 8] {
            let in_parts = index(read_in_parts(&refs, true, parts));
            assert_same(&in_parts, &one);
            assert!(order(&in_parts) == order(&one), "{parts} parts");
        }
        // Also the small catalogue, in more parts than some words have skills.
        let small = catalogue();
        let refs: Vec<&Skill> = small.iter().collect();
        assert_same(&index(read_in_parts(&refs, false, 5)), &index(read_in_parts(&refs, false, 1)));
        // And the index a build makes (in as many parts as the machine has threads).
        assert_same(&RankIndex::build_keeping(&skills, true, true), &one);
    }

    /// Skills read ahead in another order, some of them never ranked and some ranked
    /// under another name: the index their build makes is the one a build gives.
    #[cfg(feature = "snapshot")]
    #[test]
    fn skills_read_ahead_in_any_order_give_the_index_a_build_gives() {
        let skills = generated(300);
        let mut ahead = ReadAhead::new(true);
        let mut number = vec![None; skills.len()];
        // Backwards, every third left out of the catalogue (read, never ranked).
        for (at, skill) in skills.iter().enumerate().rev() {
            number[at] = Some(ahead.read(skill));
        }
        let mut ranked: Vec<Skill> = skills.iter().step_by(3).cloned().collect();
        // Renamed since it was read: read again.
        ranked[1].name = "renamed@origin".to_owned();
        let refs: Vec<&Skill> = ranked.iter().collect();
        let read_as = |at: usize| (at != 1).then(|| number[at * 3]).flatten();
        let index = ahead.into_index(&refs, read_as);
        assert_same(&index, &RankIndex::build_keeping(refs.iter().copied(), true, true));
    }

    #[test]
    fn a_term_without_a_number_is_dropped_from_a_reading_with_its_weight() {
        let skills = catalogue();
        let reading = Vocabulary::new().read(&skills[0], true);
        let count = reading.terms.len() as u32;
        // Every term numbered: the same reading, terms renumbered.
        let reversed: Vec<u32> = (0..count).rev().collect();
        let renumbered = reading.clone().renumbered(&reversed);
        assert_eq!(renumbered.terms.iter().map(|&t| count - 1 - t).collect::<Vec<_>>(), &*reading.terms);
        assert_eq!(renumbered.weights, reading.weights);
        // The first term without a number: gone, and its weight with it.
        let mut numbers: Vec<u32> = (0..count).collect();
        numbers[reading.terms[0] as usize] = UNNUMBERED;
        let dropped = reading.clone().renumbered(&numbers);
        assert_eq!(&*dropped.terms, &reading.terms[1..]);
        assert_eq!(dropped.weighted().collect::<Vec<_>>(), reading.weighted().skip(1).collect::<Vec<_>>());
    }

    #[test]
    fn weights_are_kept_as_quarters_only_when_exact() {
        assert_eq!(Weights::new(&[3.0, 0.25, 4.5]), Weights::Quarters([12, 1, 18].into()));
        assert_eq!(Weights::new(&[3.0, 0.3]), Weights::Exact([3.0, 0.3].into()));
        assert_eq!(Weights::new(&[-1.0]), Weights::Exact([-1.0].into()));
    }

    #[test]
    fn a_rebuild_gives_the_index_a_build_gives() {
        let before = catalogue();
        let mut after = before.clone();
        // A description edited with new words, one removed (some words only it had), one
        // added in the middle (new words and a new pair), one emptied (as a blocked skill
        // is ranked), and two swapped (term numbers follow the new order).
        after[2] = skill("sql-queries-helper", "Fill and review sql queries, and tune slow joins.", None);
        after.remove(7);
        after.insert(4, skill("graph-drawing", "Draw graphs and charts of kubernetes pods.", Some("pdf forms")));
        after[9] = Skill::default();
        after.swap(0, 5);
        let previous = RankIndex::build_keeping(&before, true, true);
        let index = rebuilt(&before, previous, &after);
        assert_same(&index, &RankIndex::build_keeping(&after, true, true));
        // Again from the rebuilt index: what it kept is as good as a build's.
        let again: Vec<Skill> = after.iter().skip(1).cloned().collect();
        assert_same(&rebuilt(&after, index, &again), &RankIndex::build_keeping(&again, true, true));
        // An index that kept no readings cannot be rebuilt.
        let skills: Vec<&Skill> = before.iter().collect();
        assert!(RankIndex::rebuild(RankIndex::build(&before, true), &skills, |_| None, true).is_none());
    }
}
