//! Relevance ranking: finds the skill for a message phrased in the user's own words,
//! where the substring rules of [`matching`](crate::matching) see nothing.
//!
//! A BM25 model over each skill's name (weight 3), tags (2), description and
//! `when_to_use` (1) and the body's "When to Use" sections (0.5), built once per
//! catalogue as an inverted index; a turn tokenises the message and walks only the
//! postings of its words, so its cost follows the message, not the catalogue. Words
//! are cut, stemmed and paired as [`words`](crate::words) says; a pair of adjacent
//! words is a term of its own (it adds to the score, not to coverage). What a skill's
//! text says against it is read as [`triggers`](crate::triggers) says: its
//! `when_not_to_use` words lower its score.
//!
//! Scores are scaled to the catalogue's size (see `REFERENCE_UNSEEN_IDF`). A ranked
//! skill is selected only when its score is at least
//! [`RankOptions::min_score`], at least [`RankOptions::min_ratio`] of the best score,
//! and the words it matched carry at least [`RankOptions::min_coverage`] of the
//! message's informative weight; at most [`RankOptions::max_ranked`] are selected.
//!
//! Scores use only IEEE basic arithmetic (a series logarithm, not the platform's), and
//! are rounded to thousandths, so every runtime computes the same bytes.

use crate::error::Error;
use crate::skill::Skill;
use crate::triggers::{triggers, Triggers};
use crate::words::{for_each_lowercase_word, hash_word, stem, stop_words, Link, WordHash};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::HashMap;

/// How ranking selects skills.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RankOptions {
    /// Rank at all (default on). Off: only mentions and the substring rules select.
    pub enabled: bool,
    /// Most skills ranking adds to a turn (default 1; the rules may add more).
    pub max_ranked: usize,
    /// Lowest score selected (default 9.0).
    pub min_score: f64,
    /// Lowest score selected, as a fraction of the best score of the turn (default 0.7).
    pub min_ratio: f64,
    /// Lowest share of the message's informative weight the skill must match
    /// (default 0.1), unless its embedding is similar enough (`min_similarity`). Words
    /// no skill has count half.
    pub min_coverage: f64,
    /// With host embeddings: what a perfect cosine similarity adds to the score
    /// (default 30.0, tuned on all-MiniLM-L6-v2; similarity at `min_similarity` adds
    /// nothing).
    pub semantic_weight: f64,
    /// With host embeddings: the cosine similarity from which a skill's embedding
    /// counts as evidence (default 0.45, tuned on all-MiniLM-L6-v2). Depends on the
    /// model: raise it for models whose unrelated texts score high.
    pub min_similarity: f64,
    /// Also index the Markdown headings of each skill's body, at a lower weight than
    /// its description (default off; read when the catalogue is built).
    pub headings: bool,
}

impl Default for RankOptions {
    fn default() -> Self {
        RankOptions {
            enabled: true,
            max_ranked: 1,
            min_score: 9.0,
            min_ratio: 0.7,
            min_coverage: 0.1,
            semantic_weight: 30.0,
            min_similarity: 0.45,
            headings: false,
        }
    }
}

/// Longest embedding vector accepted (a host's model with more dimensions is refused
/// with [`Error::InvalidEmbedding`]).
pub const MAX_EMBEDDING_DIMENSIONS: usize = 8192;

/// `vector` scaled to length 1, checked: `of` names it in the error.
pub(crate) fn unit_vector(of: &str, vector: &[f32], dimensions: Option<usize>) -> Result<Box<[f32]>, Error> {
    let invalid = |problem: String| Error::InvalidEmbedding { of: of.to_owned(), problem };
    if vector.is_empty() || vector.len() > MAX_EMBEDDING_DIMENSIONS {
        return Err(invalid(format!("has {} dimensions (1 to {MAX_EMBEDDING_DIMENSIONS} accepted)", vector.len())));
    }
    if let Some(expected) = dimensions.filter(|&d| d != vector.len()) {
        return Err(invalid(format!("has {} dimensions; the catalogue's have {expected}", vector.len())));
    }
    if vector.iter().any(|x| !x.is_finite()) {
        return Err(invalid("holds a NaN or an infinity".to_owned()));
    }
    let norm = vector.iter().map(|&x| f64::from(x) * f64::from(x)).sum::<f64>().sqrt();
    if norm == 0.0 {
        return Err(invalid("is all zeros".to_owned()));
    }
    Ok(vector.iter().map(|&x| (f64::from(x) / norm) as f32).collect())
}

impl Eq for RankOptions {}

/// The IDF of an unseen word in the catalogue the thresholds were calibrated on (the
/// ~110 skills of the labelled dev set). Scores are scaled by this over the catalogue's
/// own unseen-word IDF, so thresholds mean the same in a catalogue of 10 skills or
/// 10,000 (IDF grows with the logarithm of the catalogue's size).
const REFERENCE_UNSEEN_IDF: f64 = 5.4;
const K1: f64 = 1.2;
const B: f64 = 0.75;
const NAME_WEIGHT: f64 = 3.0;
const TAG_WEIGHT: f64 = 2.0;
const DESCRIPTION_WEIGHT: f64 = 1.0;
const HEADING_WEIGHT: f64 = 0.25;
/// What a word of the body's "When to use" sections weighs.
const SECTION_WEIGHT: f64 = 0.5;
/// What a word of a skill's `when_not_to_use` takes off its score, times the word's IDF.
const AGAINST_WEIGHT: f64 = 0.5;
/// How much a message word no skill has counts toward coverage, relative to its IDF:
/// long, chatty messages are mostly words no skill has, and should not fail coverage
/// for that alone; but a message that is nearly all unknown words is not about a skill.
const UNSEEN_COVERAGE: f64 = 0.5;
/// What a pair of adjacent words weighs, relative to its field's weight.
const PAIR_WEIGHT: f64 = 1.0;

/// Natural logarithm from basic IEEE operations only (the same bits everywhere).
fn ln(x: f64) -> f64 {
    if x <= 0.0 {
        return f64::NEG_INFINITY;
    }
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mantissa = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    let s = (mantissa - 1.0) / (mantissa + 1.0);
    let s2 = s * s;
    let (mut term, mut sum) = (s, 0.0);
    for k in 0..24 {
        sum += term / f64::from(2 * k + 1);
        term *= s2;
    }
    2.0 * sum + exponent as f64 * std::f64::consts::LN_2
}

/// A ranked skill: index, score (rounded to thousandths), offset of its first word.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Ranked {
    pub skill: usize,
    pub score: f64,
    pub position: usize,
}

/// At most this many of a message's words bring in candidates: those that can add
/// the most to a score. The rest of the message still counts toward coverage.
const MAX_QUERY_WORDS: usize = 24;

/// Each of those words brings in at most this many candidates: the skills it weighs
/// most in (ties in catalogue order). Exact whenever fewer skills have the word.
const CANDIDATES_PER_WORD: usize = 32;

/// A word of the catalogue.
#[derive(Debug, Clone)]
struct Term {
    idf: f64,
    /// A pair of adjacent words (evidence of a phrase), not a word: it adds to the
    /// score but not to coverage.
    pair: bool,
    /// (skill, BM25 weight without the IDF), heaviest first, ties by skill.
    postings: Vec<(u32, f64)>,
}

impl Term {
    fn max_weight(&self) -> f64 {
        self.postings.first().map_or(0.0, |p| p.1)
    }
}

/// What a catalogue knows of a word.
enum Lookup {
    /// A term of the index.
    Known(u32),
    /// A stop word: says nothing.
    Stop,
    /// A word no skill has.
    Unseen,
}

/// A word of the message that the catalogue knows.
#[derive(Debug, Clone, Copy)]
struct QueryTerm {
    term: u32,
    idf: f64,
    /// A pair of adjacent words.
    pair: bool,
    /// The most this word adds to any skill's (unscaled) score.
    bound: f64,
    /// Byte offset of its first occurrence.
    offset: usize,
}

/// A skill's score so far in a turn.
#[derive(Debug, Default, Clone, Copy)]
struct Candidate {
    /// The turn it belongs to (see [`Scratch`]).
    generation: u32,
    score: f64,
    /// The IDF of the message's words it has.
    coverage: f64,
    /// What the embeddings add (already scaled).
    semantic: f64,
    /// Byte offset of the first of them.
    position: usize,
}

/// Score accumulators, one per skill, reused from turn to turn (one set per thread):
/// a turn touches only its candidates' entries, and the generation number tells a
/// stale entry from a live one, so a turn neither clears nor allocates them.
#[derive(Debug, Default)]
struct Scratch {
    generation: u32,
    slots: Vec<Candidate>,
    touched: Vec<u32>,
}

impl Scratch {
    fn add(&mut self, skill: u32, score: f64, coverage: f64, position: usize) {
        let Some(slot) = self.slots.get_mut(skill as usize) else { return };
        if slot.generation != self.generation {
            *slot = Candidate { generation: self.generation, score: 0.0, coverage: 0.0, semantic: 0.0, position };
            self.touched.push(skill);
        }
        slot.score += score;
        slot.coverage += coverage;
        slot.position = slot.position.min(position);
    }

    /// Lowers the score of a skill this turn already counts (others stay untouched).
    fn subtract(&mut self, skill: u32, score: f64) {
        if let Some(slot) = self.slots.get_mut(skill as usize).filter(|s| s.generation == self.generation) {
            slot.score -= score;
        }
    }

    /// Adds the embeddings' part of a skill's score; a skill only they found is placed
    /// at the start of the message.
    fn add_semantic(&mut self, skill: u32, semantic: f64) {
        let Some(slot) = self.slots.get_mut(skill as usize) else { return };
        if slot.generation != self.generation {
            let position = 0;
            *slot = Candidate { generation: self.generation, score: 0.0, coverage: 0.0, semantic: 0.0, position };
            self.touched.push(skill);
        }
        slot.semantic += semantic;
    }

    /// This turn's candidates, in the order they were first touched.
    fn candidates(&self) -> impl Iterator<Item = (usize, &Candidate)> {
        self.touched.iter().filter_map(|&skill| self.slots.get(skill as usize).map(|c| (skill as usize, c)))
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Runs `turn` with this thread's scratch, sized for `skills` and set to a new
/// generation (or with a fresh one, if the thread's is in use).
fn with_scratch<R>(skills: usize, turn: impl FnOnce(&mut Scratch) -> R) -> R {
    let prepare = |scratch: &mut Scratch| {
        scratch.touched.clear();
        scratch.generation = match scratch.generation.checked_add(1) {
            Some(next) => next,
            None => {
                scratch.slots.iter_mut().for_each(|slot| slot.generation = 0);
                1
            }
        };
        if scratch.slots.len() < skills {
            scratch.slots.resize(skills, Candidate::default());
        }
    };
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut scratch) => {
            prepare(&mut scratch);
            turn(&mut scratch)
        }
        Err(_) => {
            let mut scratch = Scratch::default();
            prepare(&mut scratch);
            turn(&mut scratch)
        }
    })
}

/// The inverted index of a catalogue.
#[derive(Debug, Clone, Default)]
pub(crate) struct RankIndex {
    /// Lowercase word as written → its term number, or `None` for a stop word:
    /// most words of a message are found here with one lookup, without stemming.
    surface: HashMap<Box<str>, Option<u32>, WordHash>,
    /// Stemmed word → term number.
    words: HashMap<Box<str>, u32, WordHash>,
    /// Two adjacent words' term numbers → the pair's term number.
    pairs: HashMap<(u32, u32), u32>,
    /// Word term number → the skills whose `when_not_to_use` has it.
    against: HashMap<u32, Vec<u32>>,
    /// Word term number → the skills whose texts send requests with it elsewhere (not
    /// ranked, but counted when telling everyday words from distinctive ones).
    sent_elsewhere: HashMap<u32, Vec<u32>>,
    terms: Vec<Term>,
    skill_count: usize,
    /// Per skill, the host's embedding as a unit vector (empty: no embeddings).
    vectors: Vec<Option<Box<[f32]>>>,
    /// IDF of a word no skill has.
    unseen_idf: f64,
}

impl RankIndex {
    /// Indexes `skills`; with `headings`, their bodies' headings too.
    pub(crate) fn build<'a>(skills: impl IntoIterator<Item = &'a Skill>, headings: bool) -> RankIndex {
        let stop = stop_words();
        let mut words: HashMap<Box<str>, u32, WordHash> = HashMap::default();
        let mut pairs: HashMap<(u32, u32), u32> = HashMap::new();
        let mut surface: HashMap<Box<str>, Option<u32>, WordHash> =
            stop.iter().map(|&w| (Box::<str>::from(w), None)).collect();
        let mut document_frequency: Vec<u32> = Vec::new();
        let mut is_pair: Vec<bool> = Vec::new();
        let mut frequencies: Vec<Vec<(u32, f64)>> = Vec::new();
        let mut lengths: Vec<f64> = Vec::new();
        let skills: Vec<&Skill> = skills.into_iter().collect();
        let read: Vec<Triggers<'_>> = skills.iter().map(|s| triggers(s)).collect();
        for (index, skill) in skills.iter().enumerate() {
            if u32::try_from(frequencies.len()).is_err() {
                break;
            }
            let mut tf: Vec<(u32, f64)> = Vec::new();
            let mut length = 0usize;
            {
                let mut new_term = |pair: bool| -> Option<u32> {
                    let term = u32::try_from(document_frequency.len()).ok()?;
                    document_frequency.push(0);
                    is_pair.push(pair);
                    Some(term)
                };
                // Indexes one field's text; returns how many of its words count
                // toward the skill's length.
                let mut field = |text: &str, weight: f64| -> usize {
                    let mut counted = 0;
                    let mut previous: Option<u32> = None;
                    for_each_lowercase_word(text, |word, _, link| {
                        if stop.contains(word.as_str()) {
                            if link != Link::Compound {
                                previous = None;
                            }
                            return;
                        }
                        // A form seen before is not stemmed again.
                        let term = match surface.get(word.as_str()) {
                            Some(&Some(term)) => term,
                            _ => {
                                let form = Box::<str>::from(word.as_str());
                                stem(word);
                                let term = match words.get(word.as_str()) {
                                    Some(&term) => term,
                                    None => {
                                        let Some(term) = new_term(false) else { return };
                                        words.insert(word.as_str().into(), term);
                                        term
                                    }
                                };
                                surface.insert(form, Some(term));
                                term
                            }
                        };
                        tf.push((term, weight));
                        if link == Link::Compound {
                            return;
                        }
                        counted += 1;
                        if let (Link::Next, Some(first)) = (link, previous) {
                            let pair = match pairs.get(&(first, term)) {
                                Some(&pair) => Some(pair),
                                None => new_term(true).inspect(|&pair| {
                                    pairs.insert((first, term), pair);
                                }),
                            };
                            if let Some(pair) = pair {
                                tf.push((pair, weight * PAIR_WEIGHT));
                            }
                        }
                        previous = Some(term);
                    });
                    counted
                };
                field(&skill.name.replace(['-', '_'], " "), NAME_WEIGHT);
                for tag in &skill.tags {
                    field(tag, TAG_WEIGHT);
                }
                for text in read.get(index).map(|r| r.for_it.as_slice()).unwrap_or_default() {
                    length += field(text, DESCRIPTION_WEIGHT);
                }
                for text in read.get(index).map(|r| r.sections.as_slice()).unwrap_or_default() {
                    field(text, SECTION_WEIGHT);
                }
                if headings {
                    for heading in &skill.headings {
                        field(heading, HEADING_WEIGHT);
                    }
                }
            }
            tf.sort_by_key(|&(term, _)| term);
            let mut merged: Vec<(u32, f64)> = Vec::with_capacity(tf.len());
            for (term, weight) in tf {
                match merged.last_mut() {
                    Some(last) if last.0 == term => last.1 += weight,
                    _ => merged.push((term, weight)),
                }
            }
            for &(term, _) in &merged {
                if let Some(df) = document_frequency.get_mut(term as usize) {
                    *df += 1;
                }
            }
            frequencies.push(merged);
            lengths.push(length as f64);
        }
        let n = lengths.len() as f64;
        let average = if n > 0.0 { lengths.iter().sum::<f64>() / n } else { 1.0 };
        let idf_of = |df: f64| ln(1.0 + (n - df + 0.5) / (df + 0.5));
        let mut terms: Vec<Term> = document_frequency
            .iter()
            .zip(&is_pair)
            .map(|(&df, &pair)| Term { idf: idf_of(f64::from(df)), pair, postings: Vec::with_capacity(df as usize) })
            .collect();
        for (skill, (tf, &length)) in frequencies.into_iter().zip(&lengths).enumerate() {
            let ratio = if average > 0.0 { length / average } else { 1.0 };
            let weighted: Vec<(u32, f64)> =
                tf.into_iter().map(|(term, f)| (term, f * (K1 + 1.0) / (f + K1 * (1.0 - B + B * ratio)))).collect();
            for (term, weight) in weighted {
                if let (Some(t), Ok(skill)) = (terms.get_mut(term as usize), u32::try_from(skill)) {
                    t.postings.push((skill, weight));
                }
            }
        }
        for term in &mut terms {
            term.postings.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        }
        let mut index = RankIndex {
            surface,
            words,
            pairs,
            against: HashMap::new(),
            sent_elsewhere: HashMap::new(),
            terms,
            skill_count: lengths.len(),
            vectors: Vec::new(),
            unseen_idf: idf_of(0.0),
        };
        // Words that count against a skill, and words skills' texts send elsewhere:
        // only those some skill is indexed by.
        for (skill, found) in read.iter().enumerate() {
            let Ok(skill) = u32::try_from(skill) else { break };
            let texts = found.against.iter().map(|t| (t, true)).chain(found.elsewhere.iter().map(|t| (t, false)));
            for (text, is_against) in texts {
                for_each_lowercase_word(text, |word, _, _| {
                    if let Lookup::Known(term) = index.lookup(word) {
                        let map = if is_against { &mut index.against } else { &mut index.sent_elsewhere };
                        // Skills come in order: one comparison keeps each list free of repeats.
                        let skills = map.entry(term).or_default();
                        if skills.last() != Some(&skill) {
                            skills.push(skill);
                        }
                    }
                });
            }
        }
        index
    }

    /// What the catalogue knows of a lowercase word; the word is stemmed (in place)
    /// only when its written form is new to the catalogue.
    fn lookup(&self, word: &mut String) -> Lookup {
        match self.surface.get(word.as_str()) {
            Some(&Some(term)) => Lookup::Known(term),
            Some(None) => Lookup::Stop,
            None => {
                stem(word);
                self.words.get(word.as_str()).map_or(Lookup::Unseen, |&term| Lookup::Known(term))
            }
        }
    }

    /// True when `word` (lowercase) says little about which skill is meant: a stop
    /// word, or a word more than one skill's text has (name, tags, description,
    /// `when_to_use`, the sentences that send requests elsewhere included).
    pub(crate) fn shared_word(&self, word: &str) -> bool {
        let term = match self.lookup(&mut word.to_owned()) {
            Lookup::Stop => return true,
            Lookup::Unseen => return false,
            Lookup::Known(term) => term,
        };
        // Two different skills have it: ranked on it, or sending requests with it elsewhere.
        let ranked = self.terms.get(term as usize).into_iter().flat_map(|t| t.postings.iter().map(|p| p.0));
        let elsewhere = self.sent_elsewhere.get(&term).into_iter().flatten().copied();
        let mut skills = ranked.chain(elsewhere);
        let first = skills.next();
        skills.any(|s| Some(s) != first)
    }

    /// Sets the skills' embeddings (by catalogue index; unit vectors of one length).
    pub(crate) fn set_vectors(&mut self, vectors: Vec<Option<Box<[f32]>>>) {
        self.vectors = vectors;
    }

    /// The length of the skills' embeddings, if there are any.
    pub(crate) fn dimensions(&self) -> Option<usize> {
        self.vectors.iter().flatten().map(|v| v.len()).next()
    }

    /// The skills `message` is about, best first, as the options select them.
    /// `eligible` says which skills may be ranked at all.
    ///
    /// The work is bounded by the message, not the catalogue: the
    /// [`MAX_QUERY_WORDS`] words that can add most to a score each bring in at most
    /// [`CANDIDATES_PER_WORD`] skills, where the word weighs most; a candidate's
    /// score is summed from those postings, and only candidates that could still
    /// pass the thresholds are scored exactly against the whole query.
    ///
    /// With `embedding` (the message's unit vector) and skill vectors, every skill's
    /// cosine similarity is also computed — a pass over all vectors, the one part of a
    /// turn that grows with the catalogue — and fused into its score.
    pub(crate) fn rank(
        &self,
        message: &str,
        embedding: Option<&[f32]>,
        options: &RankOptions,
        eligible: impl Fn(usize) -> bool,
    ) -> Vec<Ranked> {
        if !options.enabled || options.max_ranked == 0 || self.unseen_idf <= 0.0 {
            return Vec::new();
        }
        let mut known: Vec<(u32, usize)> = Vec::new();
        let mut unseen: Vec<u64> = Vec::new();
        let mut previous: Option<u32> = None;
        for_each_lowercase_word(message, |word, offset, link| {
            let term = match self.lookup(word) {
                Lookup::Known(term) => Some(term),
                Lookup::Stop => None,
                Lookup::Unseen => {
                    if link != Link::Compound {
                        unseen.push(hash_word(word));
                    }
                    None
                }
            };
            if link == Link::Compound {
                known.extend(term.map(|t| (t, offset)));
                return;
            }
            if let (Link::Next, Some(first), Some(second)) = (link, previous, term) {
                known.extend(self.pairs.get(&(first, second)).map(|&pair| (pair, offset)));
            }
            known.extend(term.map(|t| (t, offset)));
            previous = term;
        });
        // Sorted by (term, offset): each term keeps its first offset.
        known.sort_unstable();
        known.dedup_by_key(|&mut (term, _)| term);
        unseen.sort_unstable();
        unseen.dedup();
        let mut query: Vec<QueryTerm> = known
            .iter()
            .filter_map(|&(term, offset)| {
                let t = self.terms.get(term as usize)?;
                Some(QueryTerm { term, idf: t.idf, pair: t.pair, bound: t.idf * t.max_weight(), offset })
            })
            .collect();
        let words = query.iter().filter(|q| !q.pair);
        let total = words.map(|q| q.idf).sum::<f64>() + unseen.len() as f64 * self.unseen_idf * UNSEEN_COVERAGE;
        let embedding = embedding.filter(|_| options.semantic_weight > 0.0 && !self.vectors.is_empty());
        if total <= 0.0 && embedding.is_none() {
            return Vec::new();
        }
        if query.len() > MAX_QUERY_WORDS {
            query.sort_by(|a, b| b.bound.total_cmp(&a.bound).then(a.term.cmp(&b.term)));
            query.truncate(MAX_QUERY_WORDS);
            query.sort_by_key(|q| q.term);
        }
        let scale = REFERENCE_UNSEEN_IDF / self.unseen_idf;

        // Each word adds to the skills it weighs most in.
        let mut top: Vec<Ranked> = Vec::with_capacity(options.max_ranked.min(16));
        with_scratch(self.skill_count, |scratch| {
            for q in &query {
                let Some(term) = self.terms.get(q.term as usize) else { continue };
                for &(skill, weight) in term.postings.iter().take(CANDIDATES_PER_WORD) {
                    scratch.add(skill, q.idf * weight, if q.pair { 0.0 } else { q.idf }, q.offset);
                }
            }
            // A word of the skill's `when_not_to_use` counts against it.
            for q in &query {
                for &skill in self.against.get(&q.term).into_iter().flatten() {
                    scratch.subtract(skill, q.idf * AGAINST_WEIGHT);
                }
            }
            if let Some(query_vector) = embedding {
                let floor = options.min_similarity.min(0.999);
                for (skill, vector) in self.vectors.iter().enumerate() {
                    let (Some(vector), Ok(skill)) = (vector, u32::try_from(skill)) else { continue };
                    let cosine: f64 = vector.iter().zip(query_vector).map(|(&a, &b)| f64::from(a) * f64::from(b)).sum();
                    if cosine >= floor {
                        scratch.add_semantic(skill, options.semantic_weight * (cosine - floor) / (1.0 - floor));
                    }
                }
            }
            for (skill, c) in scratch.candidates() {
                let covered = total > 0.0 && c.coverage / total >= options.min_coverage;
                if !(covered || c.semantic > 0.0) || !eligible(skill) {
                    continue;
                }
                let score = ((c.score * scale + c.semantic) * 1000.0).round() / 1000.0;
                let found = Ranked { skill, score, position: c.position };
                if top.len() == options.max_ranked && top.last().is_some_and(|last| !beats(&found, last)) {
                    continue;
                }
                let at = top.iter().position(|r| beats(&found, r)).unwrap_or(top.len());
                top.insert(at, found);
                top.truncate(options.max_ranked);
            }
        });
        let best = top.first().map_or(0.0, |r| r.score);
        top.retain(|r| r.score >= options.min_score && r.score >= best * options.min_ratio);
        top
    }
}

/// Ranking order: higher score first, then the catalogue's order.
fn beats(a: &Ranked, b: &Ranked) -> bool {
    a.score > b.score || (a.score == b.score && a.skill < b.skill)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logarithm_matches_the_platform_closely() {
        for x in [0.001, 0.5, 1.0, 1.5, 2.0, 10.0, 1234.5678, 1e9] {
            assert!((ln(x) - x.ln()).abs() < 1e-12, "{x}");
        }
    }

    fn skills() -> Vec<Skill> {
        let make = |name: &str, description: &str| {
            let text = format!("---\nname: {name}\ndescription: {description}\n---\nbody\n");
            crate::skill::load(&format!("{name}/SKILL.md"), &text, &crate::Limits::default()).skill.unwrap()
        };
        let mut v = vec![
            make("k8s-debug", "Debug Kubernetes pods that crash, restart or fail their readiness probes."),
            make("sql-review", "Review SQL queries and database migrations for injection risks."),
        ];
        for i in 0..30 {
            v.push(make(&format!("filler-{i}"), &format!("Unrelated topic number {i} about gardening and cooking.")));
        }
        v
    }

    #[test]
    fn ranks_natural_requests_and_ignores_small_talk() {
        let skills = skills();
        let index = RankIndex::build(&skills, false);
        let options = RankOptions::default();
        let found = index.rank("my kubernetes pods keep crashing, please debug", None, &options, |_| true);
        assert_eq!(found.len(), 1);
        assert_eq!(skills[found[0].skill].name, "k8s-debug");
        assert!(found[0].score >= options.min_score);
        assert_eq!(found[0].position, "my ".len());
        assert!(index.rank("thanks, have a nice weekend!", None, &options, |_| true).is_empty());
        // Ineligible skills are never ranked; disabled ranking ranks nothing.
        assert!(index.rank("my kubernetes pods keep crashing", None, &options, |i| i != 0).is_empty());
        let off = RankOptions { enabled: false, ..RankOptions::default() };
        assert!(index.rank("my kubernetes pods keep crashing", None, &off, |_| true).is_empty());
    }

    /// BM25 over every posting, no bounds: what `rank` must agree with while no
    /// word is in more than `CANDIDATES_PER_WORD` skills.
    fn exhaustive(
        index: &RankIndex,
        message: &str,
        options: &RankOptions,
        eligible: impl Fn(usize) -> bool,
    ) -> Vec<Ranked> {
        // Every word and every pair of adjacent words, once, with the offset it is first at.
        let stop = stop_words();
        let mut found: Vec<(Option<u32>, String, usize)> = Vec::new();
        let mut previous: Option<u32> = None;
        for_each_lowercase_word(message, |w, at, link| {
            if stop.contains(w.as_str()) {
                if link != Link::Compound {
                    previous = None;
                }
                return;
            }
            stem(w);
            let term = index.words.get(w.as_str()).copied();
            if link == Link::Compound {
                found.extend(term.map(|t| (Some(t), w.clone(), at)));
                return;
            }
            if let (Link::Next, Some(a), Some(b)) = (link, previous, term) {
                found.extend(index.pairs.get(&(a, b)).map(|&p| (Some(p), format!("{a} {b}"), at)));
            }
            found.push((term, w.clone(), at));
            previous = term;
        });
        let mut seen = std::collections::HashSet::new();
        let mut total = 0.0;
        let mut scores: HashMap<usize, (f64, f64, usize)> = HashMap::new();
        for (term, text, at) in found {
            if !seen.insert(text) {
                continue;
            }
            let Some(term) = term else {
                total += index.unseen_idf * UNSEEN_COVERAGE;
                continue;
            };
            let t = &index.terms[term as usize];
            if !t.pair {
                total += t.idf;
            }
            for &(skill, weight) in &t.postings {
                let e = scores.entry(skill as usize).or_insert((0.0, 0.0, at));
                e.0 += t.idf * weight;
                e.1 += if t.pair { 0.0 } else { t.idf };
                e.2 = e.2.min(at);
            }
        }
        let scale = REFERENCE_UNSEEN_IDF / index.unseen_idf;
        let mut all: Vec<Ranked> = scores
            .into_iter()
            .filter(|&(skill, (_, coverage, _))| eligible(skill) && coverage / total >= options.min_coverage)
            .map(|(skill, (score, _, position))| Ranked {
                skill,
                score: (score * scale * 1000.0).round() / 1000.0,
                position,
            })
            .collect();
        all.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.skill.cmp(&b.skill)));
        let best = all.first().map_or(0.0, |r| r.score);
        all.retain(|r| r.score >= options.min_score && r.score >= best * options.min_ratio);
        all.truncate(options.max_ranked);
        all
    }

    fn copies(skills: &mut Vec<Skill>, count: usize) {
        for i in 0..count {
            let text = format!(
                "---\nname: k8s-copy-{i}\ndescription: Debug Kubernetes pods {}\n---\nbody\n",
                if i % 3 == 0 { "that crash" } else { "and services" }
            );
            skills.push(crate::skill::load("x/SKILL.md", &text, &crate::Limits::default()).skill.unwrap());
        }
    }

    #[test]
    fn agrees_with_exhaustive_scoring_below_the_candidate_cap() {
        let mut skills = skills();
        copies(&mut skills, CANDIDATES_PER_WORD - 2);
        let index = RankIndex::build(&skills, false);
        for max_ranked in [1, 3, 50, usize::MAX] {
            let options = RankOptions { max_ranked, min_score: 1.0, min_ratio: 0.5, ..RankOptions::default() };
            for message in ["kubernetes pods crash", "debug sql queries", "crash gardening pods", "cooking topic 7"] {
                let eligible = |i: usize| i % 7 != 3;
                let got = index.rank(message, None, &options, eligible);
                assert!(!got.is_empty(), "{message}");
                assert_eq!(got, exhaustive(&index, message, &options, eligible), "{message} {max_ranked}");
            }
        }
    }

    #[test]
    fn a_common_word_brings_in_only_its_heaviest_skills() {
        let mut skills = skills();
        copies(&mut skills, 3 * CANDIDATES_PER_WORD);
        let index = RankIndex::build(&skills, false);
        let options = RankOptions {
            max_ranked: usize::MAX,
            min_score: 0.0,
            min_ratio: 0.0,
            min_coverage: 0.0,
            ..Default::default()
        };
        let got = index.rank("kubernetes", None, &options, |_| true);
        assert_eq!(got.len(), CANDIDATES_PER_WORD);
        // The copies that mention "crash" have shorter descriptions: the word weighs more there.
        let everything = exhaustive(&index, "kubernetes", &options, |_| true);
        assert_eq!(got[..], everything[..CANDIDATES_PER_WORD]);
    }

    #[test]
    fn long_messages_rank_on_their_most_informative_words() {
        let hobbies = "baking hiking sewing knitting painting singing dancing fishing camping reading writing \
                       swimming cycling climbing skating skiing surfing sailing rowing boxing fencing golf tennis \
                       chess poker bowling archery karate judo yoga";
        let mut skills = skills();
        skills.truncate(1);
        for i in 0..30 {
            let text = format!("---\nname: hobby-{i}\ndescription: Hobbies: {hobbies}\n---\nbody\n");
            skills.push(crate::skill::load("x/SKILL.md", &text, &crate::Limits::default()).skill.unwrap());
        }
        let index = RankIndex::build(&skills, false);
        // Thirty common words, then the few that say what the message is about.
        let message = format!("{hobbies} kubernetes pods crashing readiness probes restart");
        let options = RankOptions { min_coverage: 0.0, ..RankOptions::default() };
        let got = index.rank(&message, None, &options, |_| true);
        assert_eq!(got.iter().map(|r| skills[r.skill].name.as_str()).collect::<Vec<_>>(), vec!["k8s-debug"]);
    }

    #[test]
    fn headings_are_indexed_only_when_asked() {
        let mut skills = skills();
        skills[1].headings = vec!["Index tuning".into(), "Deadlock triage".into()];
        // Headings weigh a quarter of a description word: alone, they score low.
        let options = RankOptions { min_score: 1.0, ..RankOptions::default() };
        let message = "deadlock triage for our postgres";
        assert!(RankIndex::build(&skills, false).rank(message, None, &options, |_| true).is_empty());
        let found = RankIndex::build(&skills, true).rank(message, None, &options, |_| true);
        assert_eq!(found.iter().map(|r| skills[r.skill].name.as_str()).collect::<Vec<_>>(), vec!["sql-review"]);
    }
}
