//! Relevance ranking: finds the skill for a message phrased in the user's own words,
//! where the substring rules of [`matching`](crate::select::rules) see nothing.
//!
//! A BM25 model over each skill's name (weight 3), tags (2), description and
//! `when_to_use` (1) and the body's "When to Use" sections (0.5), built once per
//! catalogue as an inverted index; a turn tokenises the message and walks only the
//! postings of its words, so its cost follows the message, not the catalogue. Words
//! are cut, stemmed and paired as [`words`](crate::select::words) says; a pair of adjacent
//! words is a term of its own (it adds to the score, not to coverage). What a skill's
//! text says against it is read as [`triggers`](crate::select::triggers) says: its
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

mod edits;
mod index;
mod reading;

pub(crate) use edits::Moved;
#[cfg(test)]
pub(crate) use edits::TAKEN_IN_PLACE;
pub(crate) use index::RankIndex;
#[cfg(feature = "snapshot")]
pub(crate) use reading::ReadAhead;

use crate::error::Error;
use crate::select::words::WordBuffers;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;

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

/// The average length BM25 weighs a skill's length against: the catalogue's, its
/// significand rounded to [`AVERAGE_LENGTH_BITS`] bits (off by at most 0.4%, bit for bit
/// the same everywhere). Every posting's weight depends on it, so an edit, an addition or
/// a removal that moved it would weigh every posting again; rounded, one seldom moves it
/// (at 10,000 skills, a description edit by half an average length about once in 100),
/// and an index can take the change in place. The dev sets route the same
/// with 7 to 10 bits as unrounded (5 or 6 bits lost one MetaTool message).
fn average_length(total: f64, skills: f64) -> f64 {
    if skills <= 0.0 {
        return 1.0;
    }
    let average = total / skills;
    // Rounded to the nearest (half away from zero): the bits dropped, plus half their unit.
    let dropped = 52 - AVERAGE_LENGTH_BITS;
    let half = 1u64 << (dropped - 1);
    f64::from_bits(average.to_bits().saturating_add(half) & !((1u64 << dropped) - 1))
}

/// The bits of its significand the average length keeps (past the leading one).
const AVERAGE_LENGTH_BITS: u32 = 7;

/// A message's informative weight (the IDFs of its words) is summed in fixed point, in
/// units of 1 / `FIXED_POINT`: whole numbers add up to the same sum in any order, so it
/// does not depend on the numbers the index gave its terms (which an edit in place would give
/// otherwise than a build). A skill's score, a sum of a few terms, is added in the order
/// the message first says them.
const FIXED_POINT: f64 = 4_294_967_296.0;

/// `x` in fixed point (truncated: a difference of at most 2⁻³² a term).
fn fixed(x: f64) -> i64 {
    (x * FIXED_POINT) as i64
}

/// A fixed-point sum back as a number.
fn unfixed(x: i64) -> f64 {
    x as f64 / FIXED_POINT
}

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
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "snapshot", derive(Serialize, Deserialize))]
struct Term {
    idf: f64,
    /// A pair of adjacent words (evidence of a phrase), not a word: it adds to the
    /// score but not to coverage.
    pair: bool,
    /// (skill, BM25 weight without the IDF), heaviest first, ties by skill: the
    /// [`CANDIDATES_PER_WORD`] heaviest, all a turn reads (the term's document frequency,
    /// in its IDF, counts every skill that has it).
    postings: Vec<(u32, f64)>,
}

impl Term {
    fn max_weight(&self) -> f64 {
        self.postings.first().map_or(0.0, |p| p.1)
    }
}

/// What a catalogue knows of a word.
#[derive(Debug)]
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
    /// Its first occurrence: byte offset times four plus its kind (see [`Occurrence`]).
    first: u64,
}

/// Where a word of the message occurs: its byte offset times four plus its kind, a
/// number no other word of the message has (one word, one pair and one compound at most
/// start or end at an offset) and the same whatever numbers the index gave its terms. A
/// term's first occurrence orders it among the message's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Occurrence {
    Word = 0,
    Pair = 1,
    Compound = 2,
}

impl Occurrence {
    fn at(self, offset: usize) -> u64 {
        (offset as u64).saturating_mul(4) | self as u64
    }
}

/// The byte offset of an occurrence.
fn offset_of(first: u64) -> usize {
    usize::try_from(first / 4).unwrap_or(usize::MAX)
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
    /// The buffers a turn reads the message's words into.
    words: MessageWords,
}

/// What a turn makes of the message's words: the known terms with their first offsets,
/// the hashes of the words the catalogue has not seen (by their stems), the query, the
/// word reader's buffers and one to stem a word in. Kept in [`Scratch`] between turns, so
/// that their capacity is reused.
#[derive(Debug, Default)]
struct MessageWords {
    /// Each known term with an occurrence ([`Occurrence::at`]).
    known: Vec<(u32, u64)>,
    unseen: Vec<u64>,
    query: Vec<QueryTerm>,
    reader: WordBuffers,
    /// A word the catalogue has not seen as written, stemmed.
    stemmed: String,
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
fn with_scratch<R>(skills: usize, turn: impl FnMut(&mut Scratch) -> R) -> R {
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
    // (Not `with`, which panics while the thread is being torn down: then a fresh one.)
    let mut turn = turn;
    let kept = SCRATCH.try_with(|cell| {
        let mut scratch = cell.try_borrow_mut().ok()?;
        prepare(&mut scratch);
        Some(turn(&mut scratch))
    });
    if let Ok(Some(result)) = kept {
        return result;
    }
    let mut scratch = Scratch::default();
    prepare(&mut scratch);
    turn(&mut scratch)
}

#[cfg(test)]
mod tests;
