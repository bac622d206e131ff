//! The catalogue: the skills a host's sources hold, loaded, merged by name, gated and
//! indexed once, so that each turn only looks things up.
//!
//! - **Merging.** Entries are taken in order: sources in the order given, each
//!   source's entries in its list order. Two skills share a name when their names are
//!   equal ignoring case and `-`/`_`. With [`Precedence::FirstWins`] the earliest
//!   entry keeps the name, with [`Precedence::LastWins`] the latest; the others are
//!   *shadowed*: reported, and still reachable by location.
//! - **Gating.** A skill whose `requires` names an integration the host has not
//!   declared available is *gated*: left out of the catalogue text and never injected.
//!   A requirement `kind:name` (from `requires: {kind: [name]}`) is met by an available
//!   `kind:name` or `name`; comparison ignores case.
//! - **Scanning.** Every skill's SKILL.md is scanned ([`scan`](crate::scan)) with the
//!   host's [`ScanPolicy`]. A skill with a finding the policy blocks is *blocked*: like
//!   a gated skill it stays out of the catalogue text and is never injected, and it
//!   takes no part in ranking (so it cannot crowd out a skill that may be injected).
//! - **Order.** Skills are ordered by precedence (the winning source first), then by
//!   name. The catalogue text follows this order, and a catalogue budget leaves out
//!   entries from its end.

mod build;
pub(crate) use build::Builder;
pub(crate) mod complete;
pub(crate) mod names;
mod options;
mod prepare;
pub(crate) use prepare::Prepared;
mod report;
mod reuse;
pub(crate) use reuse::{KeptIndexes, Reuse};
mod listing_change;
pub(crate) use listing_change::ListingChange;
mod update;
pub use update::EntryUpdate;
pub(crate) use update::{changed_input, locations_unique, Listed, ReportIndex, MAX_IN_PLACE};
#[cfg(feature = "snapshot")]
mod parts;
#[cfg(feature = "snapshot")]
mod snapshot;
#[cfg(feature = "snapshot")]
pub use parts::PartsBuild;
#[cfg(feature = "snapshot")]
pub(crate) use parts::PartsRead;
pub(crate) use report::gate_reason;
pub(crate) mod text;
pub(crate) mod tools;

pub use names::{
    glob_matches, origin_label, same_origin, MAX_ID_BYTES, MAX_NAME_PATTERNS, MAX_NAME_PATTERN_BYTES, MAX_ORIGIN_BYTES,
};
pub(crate) use names::{id_problem, origin_problem};
pub(crate) use options::same_options;
pub use options::{CatalogInput, CatalogOptions, CatalogSkill, NotUserInvocable, Precedence, ScanBodies};
pub use report::{
    CatalogReport, EmbeddingText, FlaggedSkill, GatedSkill, LocatedWarning, Relevant, ShadowedSkill, SkippedSkill,
    MAX_RELEVANT,
};
#[cfg(feature = "snapshot")]
pub use snapshot::{SnapshotError, MAX_SNAPSHOT_BYTES};

use crate::error::Error;
use crate::fast_hash::SeededMap;
use crate::scan::{ScanCache, ScanPolicy};
use crate::select::rank::{unit_vector, RankIndex, RankOptions};
use crate::select::rules::{mention_key, Hit, MatchIndex, Reason};
use crate::skill::limits::Limits;
use crate::skill::Skill;
use crate::turn::TurnContext;

/// The indexed catalogue of skills.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    skills: Vec<CatalogSkill>,
    shadowed: Vec<CatalogSkill>,
    report: CatalogReport,
    index: MatchIndex,
    ranking: RankIndex,
    /// The options it was built with (ranking, limits and the scan policy also apply to
    /// each turn).
    options: CatalogOptions,
    /// Entries (and sources' listings) the build could not read: a failure that may pass,
    /// which a snapshot would keep (so none is written).
    pub(crate) unread: usize,
    /// The stamp of each entry the host stamped, by source and location (see
    /// [`SkillEntry::stamp`](crate::SkillEntry)): what a rebuild may reuse.
    pub(crate) stamps: SeededMap<(usize, String), String>,
    /// Every entry as the sources listed it, in order, when every source listed, entries
    /// were stamped and no two share a location: what a refresh compares the next
    /// listing with to update the catalogue in place (see `update.rs`); snapshots keep it.
    /// None for a catalogue built from inputs.
    pub(crate) listing: Option<Vec<Listed>>,
    /// Bodies turns have read and scanned.
    pub(crate) scanned: ScanCache,
    /// Where each entry's warnings and safety report stand in the report, made when the
    /// catalogue is first updated in place (see `update.rs`).
    pub(crate) report_index: std::sync::OnceLock<ReportIndex>,
    /// This catalogue's number (see `build::next_id`): a turn is rendered only by the
    /// catalogue that planned it.
    pub(crate) id: u64,
    /// Whether its skills' embeddings are those the host's model gave for their texts to
    /// embed (not vectors the host set by name): a refresh keeps each for a skill whose
    /// text is the same.
    pub(crate) model_vectors: bool,
}

/// An embedding step: each skill's kept vector (by position), and the texts of the others,
/// which the host's model is asked for.
#[derive(Debug)]
pub(crate) struct EmbeddingPlan {
    pub(crate) kept: Vec<Option<Box<[f32]>>>,
    pub(crate) asked: Vec<String>,
}

impl Catalog {
    /// True when `entry` may be injected without an explicit `@mention`: not gated,
    /// not blocked by the scan, and open to automatic use as this catalogue reads its
    /// fields. The one rule for every automatic path (rules, ranking, LLM selection,
    /// skills as tools).
    pub fn automatic(&self, entry: &CatalogSkill) -> bool {
        entry.listed() && open_to_automatic_use(&entry.skill, self.options.not_user_invocable)
    }

    /// The skills that kept their names, in catalogue order (gated ones included).
    pub fn skills(&self) -> &[CatalogSkill] {
        &self.skills
    }

    /// The scan policy the catalogue was built with (it also applies to what each
    /// turn reads).
    pub fn scan_policy(&self) -> &ScanPolicy {
        &self.options.scan
    }

    /// The limits the catalogue was built with (they also bound each turn).
    pub fn limits(&self) -> &Limits {
        &self.options.limits
    }

    /// The skills that lost their names to another entry.
    pub fn shadowed(&self) -> &[CatalogSkill] {
        &self.shadowed
    }

    /// What building found: skipped, shadowed and gated skills, warnings.
    pub fn report(&self) -> &CatalogReport {
        &self.report
    }

    /// What a host embeds for each skill to rank with its own embedding model (see
    /// [`Catalog::set_embeddings`]): the skill's name and description, and its tags.
    pub fn embedding_texts(&self) -> Vec<EmbeddingText> {
        self.skills
            .iter()
            .map(|s| {
                let mut text = format!("{}: {}", s.skill.name, s.skill.listing_description());
                if !s.skill.tags.is_empty() {
                    text.push_str(&format!(" ({})", s.skill.tags.join(", ")));
                }
                EmbeddingText { skill: s.skill.name.clone(), text }
            })
            .collect()
    }

    /// Sets the host's embeddings of the skills (by name, ignoring case and `-`/`_`;
    /// unknown names are ignored), replacing any set before, and returns how many
    /// skills have one. A turn whose [`TurnContext`](crate::TurnContext) carries the
    /// message's embedding then fuses cosine similarity into the ranking score. All
    /// vectors must have one length; nothing is set if one is invalid. Building a new
    /// catalogue (a refresh) starts without embeddings.
    pub fn set_embeddings(&mut self, vectors: Vec<(String, Vec<f32>)>) -> Result<usize, Error> {
        let mut unit: Vec<Option<Box<[f32]>>> = vec![None; self.skills.len()];
        let mut dimensions = None;
        for (name, vector) in vectors {
            let Some(index) = self.index.by_mention(&mention_key(&name)) else { continue };
            let v = unit_vector(&name, &vector, dimensions)?;
            dimensions = Some(v.len());
            if let Some(slot) = unit.get_mut(index) {
                *slot = Some(v);
            }
        }
        let count = unit.iter().flatten().count();
        self.ranking.set_vectors(if count == 0 { Vec::new() } else { unit });
        self.model_vectors = false;
        Ok(count)
    }

    /// Reports `failures` (sources that could not list their skills) before the entries
    /// skipped while building.
    pub(crate) fn report_failures_first(&mut self, failures: Vec<SkippedSkill>) {
        self.unread += failures.len();
        self.report.skipped.splice(0..0, failures);
    }

    /// Sets the embeddings the host's model returned for [`Catalog::embedding_texts`]: for
    /// each skill `kept` has no vector for (by position; an empty `kept` has none), the next
    /// of `fresh` (the model's vectors for those skills' texts, in order, or why it failed);
    /// the others keep theirs (unit vectors the model gave for the same texts before).
    /// Returns how many skills have one, or why none was set (the model failed, gave another
    /// number of vectors, or vectors [`Catalog::set_embeddings`] refuses).
    pub(crate) fn take_embeddings_keeping(
        &mut self,
        kept: Vec<Option<Box<[f32]>>>,
        fresh: Result<Vec<Vec<f32>>, String>,
    ) -> Result<usize, String> {
        // The vectors set before go either way: a failure leaves ranking lexical.
        self.ranking.set_vectors(Vec::new());
        self.model_vectors = false;
        let fresh = fresh?;
        let asked = self.skills.len() - kept.iter().take(self.skills.len()).flatten().count();
        if fresh.len() != asked {
            return Err(format!("the embedder returned {} vectors for {asked} texts", fresh.len()));
        }
        self.set_model_vectors(kept, fresh).map_err(|e| e.to_string())
    }

    /// Sets each skill's vector: the one `kept` has for it (by position), else the next of
    /// `fresh` (as many as `kept` lacks), as a unit vector; all of one length.
    fn set_model_vectors(&mut self, kept: Vec<Option<Box<[f32]>>>, fresh: Vec<Vec<f32>>) -> Result<usize, Error> {
        let mut fresh = fresh.into_iter();
        // (As many as asked for: counted by the callers.)
        let unit = self.unit_vectors(kept, |_| fresh.next())?;
        let count = unit.len();
        self.ranking.set_vectors(unit);
        self.model_vectors = true;
        Ok(count)
    }

    /// Each skill's vector: the one `kept` has for it (by position), else the one `fresh`
    /// gives for its position made a unit vector, else none; all of one length.
    fn unit_vectors(
        &self,
        mut kept: Vec<Option<Box<[f32]>>>,
        mut fresh: impl FnMut(usize) -> Option<Vec<f32>>,
    ) -> Result<Vec<Option<Box<[f32]>>>, Error> {
        kept.resize(self.skills.len(), None);
        let mut dimensions = None;
        for (at, (entry, slot)) in self.skills.iter().zip(kept.iter_mut()).enumerate() {
            let name = &entry.skill.name;
            if slot.is_none() {
                *slot = fresh(at).map(|vector| unit_vector(name, &vector, dimensions)).transpose()?;
            }
            let Some(vector) = slot else { continue };
            if let Some(expected) = dimensions.filter(|&d| d != vector.len()) {
                let problem = format!("has {} dimensions; the catalogue's have {expected}", vector.len());
                return Err(Error::InvalidEmbedding { of: name.clone(), problem });
            }
            dimensions = Some(vector.len());
        }
        Ok(kept)
    }

    /// The model's vectors `vectors` (by position, as [`Catalog::take_vectors`] gives them)
    /// by the text each embeds (`texts`, in the same order): what a later catalogue of the
    /// same host keeps for a skill whose text to embed did not change.
    pub(crate) fn vectors_by_text(
        texts: Vec<EmbeddingText>,
        vectors: Vec<Option<Box<[f32]>>>,
    ) -> SeededMap<String, Box<[f32]>> {
        texts.into_iter().zip(vectors).filter_map(|(text, vector)| Some((text.text, vector?))).collect()
    }

    /// The texts to embed of the skills that have no vector while the others have the ones
    /// the host's model gave them (after an update that read a skill again, see
    /// [`EntryUpdate::Reindexed`]): every skill's when none has one.
    pub fn missing_embedding_texts(&self) -> Vec<EmbeddingText> {
        let vectors = self.ranking.vectors();
        let missing = |at: usize| vectors.get(at).is_none_or(Option::is_none);
        let texts = self.embedding_texts().into_iter().enumerate();
        texts.filter(|(at, _)| missing(*at)).map(|(_, text)| text).collect()
    }

    /// Sets the model's vectors for skills without one, each given with the text it embeds
    /// (`(text, vector)`, as [`Catalog::missing_embedding_texts`] gave the text): a vector
    /// goes to the skill without one whose text to embed it is; one for a text no such skill
    /// has now (the skill edited again meanwhile) is left out. Returns how many skills have
    /// one. Nothing is set if a vector is invalid (another length than the others, all
    /// zeros, NaN). The vectors count as the model's unless the host set the others by name.
    pub fn take_missing_embeddings(&mut self, vectors: Vec<(String, Vec<f32>)>) -> Result<usize, Error> {
        let mut given: SeededMap<String, Vec<f32>> = vectors.into_iter().collect();
        let texts = self.embedding_texts();
        let had_vectors = self.ranking.vectors().iter().any(Option::is_some);
        let vectors = self.unit_vectors(self.ranking.vectors().to_vec(), |at| given.remove(&texts.get(at)?.text))?;
        let count = vectors.iter().flatten().count();
        self.model_vectors = self.model_vectors || !had_vectors;
        self.ranking.set_vectors(vectors);
        Ok(count)
    }

    /// What to ask the host's model for: the vector `kept` gives for each skill's text to
    /// embed (by position; none for a skill past its end), and the texts of the skills
    /// without one, in order.
    pub(crate) fn embedding_plan(
        &self,
        kept: impl FnOnce(&[EmbeddingText]) -> Vec<Option<Box<[f32]>>>,
    ) -> EmbeddingPlan {
        let texts = self.embedding_texts();
        let kept = kept(&texts);
        let asked = (texts.into_iter().enumerate())
            .filter(|(at, _)| kept.get(*at).is_none_or(Option::is_none))
            .map(|(_, t)| t.text)
            .collect();
        EmbeddingPlan { kept, asked }
    }

    /// For each of `texts` (a catalogue's texts to embed, in order), the vector `known` holds
    /// for it, taken out of `known`: what [`Catalog::take_embeddings_keeping`] keeps.
    pub(crate) fn kept_for(
        texts: &[EmbeddingText],
        known: &mut SeededMap<String, Box<[f32]>>,
    ) -> Vec<Option<Box<[f32]>>> {
        texts.iter().map(|t| known.remove(&t.text)).collect()
    }

    /// [`Catalog::vectors_by_text`] of a copy of this catalogue's vectors, when they are the
    /// model's (none when the host set them).
    pub(crate) fn model_vectors_by_text(&self) -> SeededMap<String, Box<[f32]>> {
        match self.model_vectors {
            true => Catalog::vectors_by_text(self.embedding_texts(), self.ranking.vectors().to_vec()),
            false => SeededMap::default(),
        }
    }

    /// The message's embedding as a unit vector, checked against the skills'.
    pub(crate) fn message_vector(&self, embedding: Option<&[f32]>) -> Result<Option<Box<[f32]>>, Error> {
        match (embedding, self.ranking.dimensions()) {
            (Some(vector), Some(dimensions)) => unit_vector("message", vector, Some(dimensions)).map(Some),
            _ => Ok(None),
        }
    }

    /// The skill named `name` (ignoring case and `-`/`_`).
    pub fn get(&self, name: &str) -> Option<&CatalogSkill> {
        self.index.by_mention(&mention_key(name)).and_then(|i| self.skills.get(i))
    }

    /// The skill at `location`, shadowed or not.
    pub fn get_by_location(&self, location: &str) -> Option<&CatalogSkill> {
        self.skills.iter().chain(&self.shadowed).find(|s| s.skill.location == location)
    }

    /// Every skill `message` refers to, in DESIGN order, before eligibility is applied.
    /// Ranked skills come after the rules' hits, best first, among the skills that may
    /// be injected automatically and that no rule found.
    pub(crate) fn hits(&self, message: &str, embedding: Option<&[f32]>) -> Result<Vec<Hit>, Error> {
        let (mut hits, at_spans) = self.index.find_with_spans(message)?;
        let eligible =
            |i: usize| self.skills.get(i).is_some_and(|s| self.automatic(s)) && !hits.iter().any(|h| h.skill == i);
        let ranked = self.ranking.rank(&without_mentions(message, &at_spans), embedding, &self.options.rank, eligible);
        hits.extend(ranked.into_iter().map(|r| Hit {
            skill: r.skill,
            reason: Reason::Rank,
            position: r.position,
            score: Some(r.score),
        }));
        Ok(hits)
    }

    /// The skills `message` mentions (`@name`), in message order.
    pub(crate) fn mention_hits(&self, message: &str) -> Result<Vec<Hit>, Error> {
        let (hits, _) = self.index.find_with_spans(message)?;
        Ok(hits.into_iter().filter(|h| h.reason == Reason::Mention).collect())
    }

    /// Up to `size` skills among those `eligible`, best first, that share any word (or,
    /// with embeddings, any meaning) with `message`: ranking without its thresholds.
    pub(crate) fn shortlist(
        &self,
        message: &str,
        embedding: Option<&[f32]>,
        size: usize,
        eligible: impl Fn(usize) -> bool,
    ) -> Result<Vec<usize>, Error> {
        let ranked = self.ranked_without_thresholds(message, embedding, size, eligible)?;
        Ok(ranked.into_iter().map(|r| r.skill).collect())
    }

    /// Ranking of `message` with none of its thresholds: up to `size` skills among those
    /// `eligible`, best first, `@` words not read.
    fn ranked_without_thresholds(
        &self,
        message: &str,
        embedding: Option<&[f32]>,
        size: usize,
        eligible: impl Fn(usize) -> bool,
    ) -> Result<Vec<crate::select::rank::Ranked>, Error> {
        let (_, at_spans) = self.index.find_with_spans(message)?;
        let options = RankOptions {
            enabled: true,
            max_ranked: size,
            min_score: 0.0,
            min_ratio: 0.0,
            min_coverage: 0.0,
            ..self.options.rank.clone()
        };
        Ok(self.ranking.rank(&without_mentions(message, &at_spans), embedding, &options, eligible))
    }

    /// The `k` skills most relevant to `message`, best first: those a turn would
    /// select (as [`Turn::matches`](crate::Turn::matches) orders them, `selected: true`), then the
    /// rest by ranking score without its thresholds (`selected: false`). Only skills
    /// the catalogue lists are counted (not gated, not blocked). Skills that share no
    /// word (nor, with embeddings, meaning) with the message are not listed, so fewer
    /// than `k` may come back; at most [`MAX_RELEVANT`] do. Skills a recent turn injected
    /// are still relevant here (a turn would not inject them again, but a catalogue lists
    /// them).
    pub fn relevant(&self, message: &str, context: &TurnContext, k: usize) -> Result<Vec<Relevant>, Error> {
        let k = k.min(MAX_RELEVANT);
        if k == 0 {
            self.check_message(message)?;
            return Ok(Vec::new());
        }
        let mut found: Vec<Relevant> = self
            .turn(message, context)?
            .matches()
            .into_iter()
            .map(|m| Relevant { skill: m.skill, selected: true, reason: Some(m.reason), score: m.score })
            .collect();
        found.truncate(k);
        if found.len() < k {
            let embedding = self.message_vector(context.embedding.as_deref())?;
            let taken: Vec<usize> = found.iter().filter_map(|r| self.index_of(&r.skill)).collect();
            let listed = |i: usize| self.skills.get(i).is_some_and(CatalogSkill::listed) && !taken.contains(&i);
            let ranked = self.ranked_without_thresholds(message, embedding.as_deref(), k - found.len(), listed)?;
            found.extend(ranked.into_iter().filter_map(|r| {
                let entry = self.skills.get(r.skill)?;
                Some(Relevant { skill: entry.skill.name.clone(), selected: false, reason: None, score: Some(r.score) })
            }));
        }
        Ok(found)
    }

    /// The index of the skill named `name` (ignoring case and `-`/`_`).
    pub(crate) fn index_of(&self, name: &str) -> Option<usize> {
        self.index.by_mention(&mention_key(name))
    }
}

/// `message` with its `@` mentions blanked: ranking does not read them (a mention names
/// its skill, not a topic).
fn without_mentions<'a>(message: &'a str, at_spans: &[(usize, usize)]) -> std::borrow::Cow<'a, str> {
    if at_spans.is_empty() {
        return std::borrow::Cow::Borrowed(message);
    }
    let mut bytes = message.as_bytes().to_vec();
    for &(start, end) in at_spans {
        bytes.get_mut(start..end).into_iter().flatten().for_each(|b| *b = b' ');
    }
    // Whole characters became spaces, so the text is still UTF-8 (checked again, which
    // costs less than reading it as possibly not: the lossy reading is never needed).
    std::borrow::Cow::Owned(
        String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
    )
}

/// True when `skill`'s fields open it to automatic use, `user-invocable: false` read
/// as `reading` says.
fn open_to_automatic_use(skill: &Skill, reading: NotUserInvocable) -> bool {
    skill.auto_invocable() && (skill.user_invocable || reading == NotUserInvocable::Hidden)
}

#[cfg(test)]
mod tests;
