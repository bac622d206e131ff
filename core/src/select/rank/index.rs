//! The inverted index of a catalogue: assembled from what reading every skill's fields
//! gave (see [`reading`](super::reading): a refresh reads only the skills that changed),
//! walked by a turn only along the postings of the message's words.

use super::reading::{Reading, Vocabulary};
use super::{
    average_length, fixed, ln, offset_of, unfixed, with_scratch, Lookup, MessageWords, Occurrence, QueryTerm,
    RankOptions, Ranked, Scratch, Term, AGAINST_WEIGHT, B, CANDIDATES_PER_WORD, K1, MAX_QUERY_WORDS,
    REFERENCE_UNSEEN_IDF, UNSEEN_COVERAGE,
};
use crate::fast_hash::FastMap;
use crate::order;
use crate::parallel;
use crate::select::words::{for_each_lowercase_word_in, hash_word, stem_remembered, Link, WordBuffers, MAX_WORD_BYTES};
use crate::select::KEPT_BUFFERS_MESSAGE_BYTES;
use crate::skill::Skill;

/// The inverted index of a catalogue.
#[derive(Debug, Clone, Default)]
#[cfg_attr(feature = "snapshot", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct RankIndex {
    /// Lowercase word as written → its term number, or `None` for a stop word:
    /// most words of a message are found here with one lookup, without stemming.
    pub(super) surface: FastMap<Box<str>, Option<u32>>,
    /// Stemmed word → term number.
    pub(super) words: FastMap<Box<str>, u32>,
    /// Two adjacent words' term numbers → the pair's term number.
    pub(super) pairs: FastMap<(u32, u32), u32>,
    /// Word term number → the skills whose `when_not_to_use` has it.
    pub(super) against: FastMap<u32, Vec<u32>>,
    /// Word term number → the skills whose texts send requests with it elsewhere (not
    /// ranked, but counted when telling everyday words from distinctive ones).
    pub(super) sent_elsewhere: FastMap<u32, Vec<u32>>,
    pub(super) terms: Vec<Term>,
    pub(super) skill_count: usize,
    /// Per skill, the host's embedding as a unit vector (empty: no embeddings). Not
    /// kept by snapshots.
    #[cfg_attr(feature = "snapshot", serde(skip))]
    pub(super) vectors: Vec<Option<Box<[f32]>>>,
    /// IDF of a word no skill has.
    pub(super) unseen_idf: f64,
    /// What reading each skill gave, kept by a catalogue that may be refreshed
    /// ([`RankIndex::rebuild`], [`RankIndex::edited`]); not kept by snapshots.
    #[cfg_attr(feature = "snapshot", serde(skip))]
    pub(super) readings: Option<Vec<Reading>>,
    /// With the readings: how many skills have each term (the postings keep only the
    /// heaviest).
    #[cfg_attr(feature = "snapshot", serde(skip))]
    pub(super) frequencies: Vec<u32>,
    /// The average length the weights were computed with ([`average_length`]).
    #[cfg_attr(feature = "snapshot", serde(skip))]
    pub(super) average: f64,
    /// With the readings: how many terms some skill has (an edit in place keeps those no
    /// skill has any more, without postings).
    #[cfg_attr(feature = "snapshot", serde(skip))]
    pub(super) live_terms: usize,
    /// With the readings, once an edit in place has needed them: the skills whose texts
    /// against them or sending requests elsewhere have a word no term stands for (see
    /// `edits.rs`).
    #[cfg_attr(feature = "snapshot", serde(skip))]
    pub(super) pending: Option<super::edits::Pending>,
}

/// A posting's BM25 weight (without the IDF): `f`, the term's summed weight in the skill,
/// against `ratio`, the skill's length over the catalogue's average.
pub(super) fn posting_weight(f: f64, ratio: f64) -> f64 {
    f * (K1 + 1.0) / (f + K1 * (1.0 - B + B * ratio))
}

/// A skill's length over the average (1 when the average is none).
pub(super) fn length_ratio(length: usize, average: f64) -> f64 {
    if average > 0.0 {
        length as f64 / average
    } else {
        1.0
    }
}

/// The order a term's postings are kept in: heaviest first, ties in catalogue order (a
/// total order: a skill is in a term's postings once).
pub(super) fn heaviest_first(a: &(u32, f64), b: &(u32, f64)) -> std::cmp::Ordering {
    b.1.total_cmp(&a.1).then(a.0.cmp(&b.0))
}

/// BM25's inverse document frequency of a term `df` of `n` skills have.
pub(super) fn idf_of(df: f64, n: f64) -> f64 {
    ln(1.0 + (n - df + 0.5) / (df + 0.5))
}

impl RankIndex {
    /// Indexes `skills`; with `headings`, their bodies' headings too.
    #[cfg(test)]
    pub(crate) fn build<'a>(skills: impl IntoIterator<Item = &'a Skill>, headings: bool) -> RankIndex {
        RankIndex::build_keeping(skills, headings, false)
    }

    /// Indexes `skills`; with `headings`, their bodies' headings too; with `keep`, the index
    /// keeps what reading each skill gave, for [`RankIndex::rebuild`] (a catalogue that may
    /// be refreshed).
    pub(crate) fn build_keeping<'a>(
        skills: impl IntoIterator<Item = &'a Skill>,
        headings: bool,
        keep: bool,
    ) -> RankIndex {
        let skills: Vec<&Skill> = skills.into_iter().take(u32::MAX as usize).collect();
        let (vocabulary, readings) = super::reading::read_all(&skills, headings);
        RankIndex::assemble(vocabulary, readings, keep)
    }

    /// [`RankIndex::build_keeping`], and `alongside` run on another thread while the index
    /// is assembled (once the skills are read: reading takes every thread).
    pub(crate) fn build_keeping_alongside<'a, B: Send>(
        skills: impl IntoIterator<Item = &'a Skill>,
        headings: bool,
        keep: bool,
        alongside: impl Fn() -> B + Sync,
    ) -> (RankIndex, B) {
        let skills: Vec<&Skill> = skills.into_iter().take(u32::MAX as usize).collect();
        let (vocabulary, readings) = super::reading::read_all(&skills, headings);
        let worth_a_thread = skills.len() >= parallel::SPLIT_FROM_SKILLS;
        parallel::join(worth_a_thread, || RankIndex::assemble(vocabulary, readings, keep), alongside)
    }

    /// The index of the skills `readings` were read from, in catalogue order: each term's
    /// skills counted, weighed with BM25 and the heaviest kept; then the words that count
    /// against a skill, or that its texts send elsewhere. With `keep`, the readings are kept.
    pub(super) fn assemble(vocabulary: Vocabulary, readings: Vec<Reading>, keep: bool) -> RankIndex {
        let Vocabulary { surface, words, pairs, is_pair, .. } = vocabulary;
        let mut document_frequency: Vec<u32> = vec![0; is_pair.len()];
        for reading in &readings {
            for &term in &reading.terms {
                if let Some(df) = document_frequency.get_mut(term as usize) {
                    *df += 1;
                }
            }
        }
        let n = readings.len() as f64;
        let average = average_length(readings.iter().map(|r| r.length as f64).sum::<f64>(), n);
        let mut terms: Vec<Term> = document_frequency
            .iter()
            .zip(&is_pair)
            .map(|(&df, &pair)| Term { idf: idf_of(f64::from(df), n), pair, postings: Vec::with_capacity(df as usize) })
            .collect();
        for (skill, reading) in readings.iter().enumerate() {
            let ratio = length_ratio(reading.length, average);
            for (term, f) in reading.weighted() {
                if let (Some(t), Ok(skill)) = (terms.get_mut(term as usize), u32::try_from(skill)) {
                    t.postings.push((skill, posting_weight(f, ratio)));
                }
            }
        }
        // A turn reads a word's CANDIDATES_PER_WORD heaviest postings and no more, and
        // `shared_word` asks only whether two skills have it: the rest are not kept (they
        // were most of the index at 10,000 skills). The order is total, so the heaviest
        // are the first.
        for term in &mut terms {
            // (Made at the term's size: shrinking gives back only what was dropped.)
            order::keep_first(&mut term.postings, CANDIDATES_PER_WORD, heaviest_first);
            term.postings.shrink_to_fit();
        }
        let terms_count = terms.len();
        let mut index = RankIndex {
            surface,
            words,
            pairs,
            against: FastMap::default(),
            sent_elsewhere: FastMap::default(),
            terms,
            skill_count: readings.len(),
            vectors: Vec::new(),
            unseen_idf: idf_of(0.0, n),
            readings: None,
            frequencies: Vec::new(),
            average,
            live_terms: terms_count,
            pending: None,
        };
        // Words that count against a skill, and words skills' texts send elsewhere:
        // only those some skill is indexed by. (Skills come in order: one comparison keeps
        // each list free of repeats.)
        let mut reader = WordBuffers::default();
        let push_once = |skills: &mut Vec<u32>, skill: u32| {
            if skills.last() != Some(&skill) {
                skills.push(skill);
            }
        };
        for (skill, reading) in readings.iter().enumerate() {
            index.texts_against(reading, &mut reader, push_once, skill);
        }
        if keep {
            index.readings = Some(readings);
            index.frequencies = document_frequency;
        }
        index
    }

    /// The same index; without its readings unless `keep` (a catalogue that will not be
    /// refreshed has no use for them).
    pub(crate) fn keeping_readings(mut self, keep: bool) -> RankIndex {
        if !keep {
            self.readings = None;
            self.frequencies = Vec::new();
            self.pending = None;
        }
        self
    }

    /// What [`RankIndex::rebuild`] starts from: the terms known and each skill's reading;
    /// `None` when the index kept no readings.
    pub(super) fn into_vocabulary(mut self) -> Option<(Vocabulary, Vec<Reading>)> {
        let readings = self.readings.take()?;
        Some((self.take_vocabulary(), readings))
    }

    /// What the catalogue knows of a lowercase word. The word is stemmed, into `stemmed`,
    /// only when the catalogue does not know its written form as a live term or a stop
    /// word: `stemmed` then holds its stem (always when the answer is [`Lookup::Unseen`]),
    /// and otherwise whatever it held before.
    pub(super) fn lookup(&self, word: &str, stemmed: &mut String) -> Lookup {
        // (A term without postings, which no skill has, is unseen, as it is to a build.)
        match self.surface.get(word) {
            Some(&Some(term)) if self.is_live(term) => Lookup::Known(term),
            Some(None) => Lookup::Stop,
            _ => {
                stem_remembered(word, stemmed);
                match self.words.get(stemmed.as_str()) {
                    Some(&term) if self.is_live(term) => Lookup::Known(term),
                    _ => Lookup::Unseen,
                }
            }
        }
    }

    /// Whether some skill has `term` (an index edited in place may keep a term no skill
    /// has any more, without postings, where a build has none).
    fn is_live(&self, term: u32) -> bool {
        self.terms.get(term as usize).is_some_and(|t| !t.postings.is_empty())
    }

    /// True when `word` (lowercase) says little about which skill is meant: a stop
    /// word, or a word more than one skill's text has (name, tags, description,
    /// `when_to_use`, the sentences that send requests elsewhere included).
    pub(crate) fn shared_word(&self, word: &str) -> bool {
        let term = match self.lookup(word, &mut String::new()) {
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

    /// Takes the skills' embeddings out, leaving none.
    pub(crate) fn take_vectors(&mut self) -> Vec<Option<Box<[f32]>>> {
        std::mem::take(&mut self.vectors)
    }

    /// The skills' embeddings (by catalogue index; none when none was set).
    pub(crate) fn vectors(&self) -> &[Option<Box<[f32]>>] {
        &self.vectors
    }

    /// Sets the skills' embeddings (by catalogue index; unit vectors of one length).
    pub(crate) fn set_vectors(&mut self, vectors: Vec<Option<Box<[f32]>>>) {
        self.vectors = vectors;
    }

    /// Where the index keeps its terms: the same while it is the same index (for tests
    /// that tell an index kept from one made again).
    #[cfg(test)]
    pub(crate) fn terms_address(&self) -> usize {
        self.terms.as_ptr() as usize
    }

    /// Whether the index keeps what reading each skill gave (so that it can be rebuilt).
    pub(crate) fn keeps_readings(&self) -> bool {
        self.readings.is_some()
    }

    /// How many terms some skill has, counted (a build's count of terms; an edit in place
    /// keeps those no skill has any more, without postings).
    #[cfg(test)]
    pub(crate) fn terms_with_postings(&self) -> usize {
        self.terms.iter().filter(|t| !t.postings.is_empty()).count()
    }

    /// How many distinct stemmed words the index knows.
    #[cfg(test)]
    pub(crate) fn word_count(&self) -> usize {
        self.words.len()
    }

    /// How many skills the index was built for.
    #[cfg(feature = "snapshot")]
    pub(crate) fn skill_count(&self) -> usize {
        self.skill_count
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
        // The message's words go into this thread's buffers, reused from turn to turn: once
        // they have grown, reading and weighing a message allocates nothing.
        let mut top = with_scratch(self.skill_count, |scratch| {
            let mut words = std::mem::take(&mut scratch.words);
            let top = self.rank_in(message, embedding, options, &eligible, scratch, &mut words);
            if message.len() <= KEPT_BUFFERS_MESSAGE_BYTES {
                scratch.words = words;
            }
            top
        });
        let best = top.first().map_or(0.0, |r| r.score);
        top.retain(|r| r.score >= options.min_score && r.score >= best * options.min_ratio);
        top
    }

    /// [`RankIndex::rank`] in `scratch`, the message's words read into `words`: the
    /// candidates before the score thresholds.
    fn rank_in(
        &self,
        message: &str,
        embedding: Option<&[f32]>,
        options: &RankOptions,
        // Not generic: one copy of the turn's ranking whoever asks (each caller's own
        // would be another 6 KB of WebAssembly), for one indirect call per candidate.
        eligible: &dyn Fn(usize) -> bool,
        scratch: &mut Scratch,
        words: &mut MessageWords,
    ) -> Vec<Ranked> {
        let MessageWords { known, unseen, query, reader, stemmed } = words;
        known.clear();
        unseen.clear();
        query.clear();
        // Room for the message's words at once (a word and a space take three bytes or
        // more; a pair adds an entry at most per word): grown only by a message longer
        // than any before on this thread.
        known.reserve(message.len() / 2 + 1);
        unseen.reserve(message.len() / 3 + 1);
        stemmed.clear();
        stemmed.reserve(MAX_WORD_BYTES);
        let mut previous: Option<u32> = None;
        for_each_lowercase_word_in(message, reader, |word, offset, link| {
            let term = match self.lookup(word, stemmed) {
                Lookup::Known(term) => Some(term),
                Lookup::Stop => None,
                Lookup::Unseen => {
                    // (Counted by its stem, as a build would have numbered it.)
                    if link != Link::Compound {
                        unseen.push(hash_word(stemmed));
                    }
                    None
                }
            };
            if link == Link::Compound {
                known.extend(term.map(|t| (t, Occurrence::Compound.at(offset))));
                return;
            }
            if let (Link::Next, Some(first), Some(second)) = (link, previous, term) {
                known.extend(self.pairs.get(&(first, second)).map(|&pair| (pair, Occurrence::Pair.at(offset))));
            }
            known.extend(term.map(|t| (t, Occurrence::Word.at(offset))));
            previous = term;
        });
        // Sorted by (term, occurrence): each term keeps its first occurrence. (Compared as
        // one number when occurrences fit in 32 bits, as they do in a message under 1 GiB:
        // the same order, at a fraction of the cost.)
        match message.len() < 1 << 30 {
            true => known.sort_unstable_by_key(|&(term, first)| (u64::from(term) << 32) | first),
            false => known.sort_unstable(),
        }
        known.dedup_by_key(|&mut (term, _)| term);
        unseen.sort_unstable();
        unseen.dedup();
        // (A term without postings, which no skill has, is no word of the catalogue.)
        query.extend(known.iter().filter_map(|&(term, first)| {
            let t = self.terms.get(term as usize).filter(|t| !t.postings.is_empty())?;
            Some(QueryTerm { term, idf: t.idf, pair: t.pair, bound: t.idf * t.max_weight(), first })
        }));
        // (In fixed point: the same sum whatever the terms' order; see `fixed`.)
        let words = query.iter().filter(|q| !q.pair).map(|q| fixed(q.idf)).fold(0i64, i64::saturating_add);
        let unseen_count = i64::try_from(unseen.len()).unwrap_or(i64::MAX);
        let unseen_weight = fixed(self.unseen_idf * UNSEEN_COVERAGE).saturating_mul(unseen_count);
        let total = unfixed(words.saturating_add(unseen_weight));
        let embedding = embedding.filter(|_| options.semantic_weight > 0.0 && !self.vectors.is_empty());
        if total <= 0.0 && embedding.is_none() {
            return Vec::new();
        }
        if query.len() > MAX_QUERY_WORDS {
            // Terms are unique, and so are their first occurrences: the order is total, so
            // the words that can add most are the first MAX_QUERY_WORDS once the one at that
            // place is found (no sort needed).
            let most_first = |a: &QueryTerm, b: &QueryTerm| b.bound.total_cmp(&a.bound).then(a.first.cmp(&b.first));
            query.select_nth_unstable_by(MAX_QUERY_WORDS - 1, most_first);
            query.truncate(MAX_QUERY_WORDS);
        }
        // Scores are summed in the order the message first says each word: the same bits
        // whatever numbers the index gave its terms.
        query.sort_unstable_by_key(|q| q.first);
        let scale = REFERENCE_UNSEEN_IDF / self.unseen_idf;

        // Each word adds to the skills it weighs most in.
        let mut top: Vec<Ranked> = Vec::new();
        for q in query.iter() {
            let Some(term) = self.terms.get(q.term as usize) else { continue };
            let (coverage, offset) = (if q.pair { 0.0 } else { q.idf }, offset_of(q.first));
            for &(skill, weight) in term.postings.iter().take(CANDIDATES_PER_WORD) {
                scratch.add(skill, q.idf * weight, coverage, offset);
            }
        }
        // A word of the skill's `when_not_to_use` counts against it.
        for q in query.iter() {
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
        top
    }
}

/// Ranking order: higher score first, then the catalogue's order.
fn beats(a: &Ranked, b: &Ranked) -> bool {
    a.score > b.score || (a.score == b.score && a.skill < b.skill)
}
