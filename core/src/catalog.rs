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

use crate::diag::Diagnostic;
use crate::error::Error;
use crate::limits::Limits;
use crate::matching::{mention_key, Hit, MatchIndex, Reason};
use crate::rank::{unit_vector, RankIndex, RankOptions};
use crate::scan::{self, Finding, ScanCache, ScanPolicy};
use crate::skill::{self, Skill};
use crate::source::{SkillSource, SourceError};
use crate::turn::TurnContext;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Which skill keeps a name that several entries share.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Precedence {
    /// The earliest entry wins (a user's own skills listed before a shared pack).
    #[default]
    FirstWins,
    /// The latest entry wins (later sources override earlier ones).
    LastWins,
}

/// How a catalogue reads `user-invocable: false`.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotUserInvocable {
    /// As skill authors write it for Claude Code (default): the skill is hidden from
    /// the user's own menu (`@` autocomplete), and the model may still use it
    /// automatically. An explicit `@mention` still injects it.
    #[default]
    Hidden,
    /// skillwire 0.1's reading: hidden from the menu, and only an explicit `@mention`
    /// injects it (as with `disable-model-invocation: true`).
    MentionOnly,
}

/// How a catalogue is built.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct CatalogOptions {
    /// Which entry keeps a shared name.
    pub precedence: Precedence,
    /// Integrations the host provides (for `requires`).
    pub available: Vec<String>,
    /// Input limits.
    pub limits: Limits,
    /// Relevance ranking.
    pub rank: RankOptions,
    /// What the safety scan looks for and what it blocks.
    pub scan: ScanPolicy,
    /// How `user-invocable: false` is read.
    pub not_user_invocable: NotUserInvocable,
}

/// One entry handed to [`Catalog::build`]: the source it came from (its index, which
/// ranks it for precedence), its location, and its SKILL.md text or why there is none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogInput {
    /// Index of the source in the host's list of sources.
    pub source: usize,
    /// The entry's location.
    pub location: String,
    /// The SKILL.md text, or the reason it could not be read.
    pub text: Result<String, String>,
}

/// A skill in the catalogue, with the source it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogSkill {
    /// The skill.
    pub skill: Skill,
    /// Index of its source.
    pub source: usize,
    /// Requirements the host has not declared available; non-empty means gated.
    pub missing: Vec<String>,
    /// What the safety scan found in its SKILL.md (warnings and blocks).
    pub findings: Vec<Finding>,
}

impl CatalogSkill {
    /// True when the skill's requirements are not all available.
    pub fn gated(&self) -> bool {
        !self.missing.is_empty()
    }

    /// True when the scan policy blocks the skill.
    pub fn blocked(&self) -> bool {
        scan::blocked(&self.findings)
    }

    /// True when the catalogue lists the skill for a model: not gated, not blocked.
    pub fn listed(&self) -> bool {
        !self.gated() && !self.blocked()
    }
}

/// An entry that did not become a skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// The entry's location (empty for a source whose listing failed).
    pub location: String,
    /// Why, in one line.
    pub reason: String,
    /// Everything the loader found.
    pub diagnostics: Vec<Diagnostic>,
}

/// A skill that lost its name to another entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Shadowed {
    /// The shared name.
    pub name: String,
    /// The shadowed skill's location.
    pub location: String,
    /// The location of the skill that kept the name.
    pub by: String,
}

/// A skill left out because the host lacks an integration it requires.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Gated {
    /// The skill's name.
    pub name: String,
    /// Its location.
    pub location: String,
    /// The requirements not met.
    pub missing: Vec<String>,
}

/// A skill the safety scan found something in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Flagged {
    /// The skill's name.
    pub name: String,
    /// Its location.
    pub location: String,
    /// True when a finding blocks it.
    pub blocked: bool,
    /// The findings, in text order.
    pub findings: Vec<Finding>,
}

/// A warning about a skill that loaded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    /// The skill's location.
    pub location: String,
    /// The warning.
    pub diagnostic: Diagnostic,
}

/// What building the catalogue found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CatalogReport {
    /// Skills in the catalogue (gated ones included).
    pub loaded: usize,
    /// Entries that did not load.
    pub skipped: Vec<Skipped>,
    /// Skills that lost their name to another entry.
    pub shadowed: Vec<Shadowed>,
    /// Skills left out for missing integrations.
    pub gated: Vec<Gated>,
    /// Skills with safety findings, blocked or not (shadowed ones included).
    pub flagged: Vec<Flagged>,
    /// Warnings about skills that loaded.
    pub warnings: Vec<Warning>,
    /// Skills that fire only when `@mentioned` (`disable-model-invocation: true`, or
    /// `user-invocable: false` read as [`NotUserInvocable::MentionOnly`]), by name.
    pub mention_only: Vec<String>,
}

/// Most skills [`Catalog::relevant`] returns (and a catalogue for one turn features):
/// past a few dozen, relevance says little, and the work grows with the number asked.
pub const MAX_RELEVANT: usize = 100;

/// A skill relevant to a message ([`Catalog::relevant`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Relevant {
    /// The skill's name.
    pub skill: String,
    /// True when a turn on the message would select it.
    pub selected: bool,
    /// The rule that selected it, when selected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<Reason>,
    /// Its ranking score, when ranking found it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
}

/// A text a host embeds for one skill ([`Catalog::embedding_texts`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EmbeddingText {
    /// The skill's name.
    pub skill: String,
    /// What to embed: name, description and tags.
    pub text: String,
}

/// The indexed catalogue of skills.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    skills: Vec<CatalogSkill>,
    shadowed: Vec<CatalogSkill>,
    report: CatalogReport,
    index: MatchIndex,
    ranking: RankIndex,
    rank: RankOptions,
    limits: Limits,
    scan: ScanPolicy,
    not_user_invocable: NotUserInvocable,
    /// Bodies turns have read and scanned.
    pub(crate) scanned: ScanCache,
}

impl Catalog {
    /// Lists and loads every source's skills. A source whose listing fails, and an
    /// entry that cannot be read, are reported as skipped.
    pub fn from_sources<S: SkillSource>(sources: &[S], options: &CatalogOptions) -> Catalog {
        let mut inputs = Vec::new();
        let mut failures = Vec::new();
        for (i, source) in sources.iter().enumerate() {
            match source.list() {
                Ok(entries) => {
                    for entry in entries {
                        let text = match entry.text {
                            Some(text) => Ok(text),
                            None => source.read(&entry.location).map_err(|SourceError(e)| e),
                        };
                        inputs.push(CatalogInput { source: i, location: entry.location, text });
                    }
                }
                Err(SourceError(e)) => failures.push(Skipped {
                    location: String::new(),
                    reason: format!("source {i} could not list its skills: {e}"),
                    diagnostics: Vec::new(),
                }),
            }
        }
        let mut catalog = Catalog::build(inputs, options);
        catalog.report.skipped.splice(0..0, failures);
        catalog
    }

    /// Builds a catalogue from entries already read (the no-IO entry point that
    /// every binding uses).
    pub fn build(inputs: Vec<CatalogInput>, options: &CatalogOptions) -> Catalog {
        let limits = &options.limits;
        let mut report = CatalogReport::default();
        let mut winners: Vec<CatalogSkill> = Vec::new();
        let mut shadowed: Vec<CatalogSkill> = Vec::new();
        let mut by_key: HashMap<String, usize> = HashMap::new();
        let mut count = 0usize;
        for input in inputs {
            let text = match input.text {
                Ok(text) => text,
                Err(reason) => {
                    report.skipped.push(Skipped { location: input.location, reason, diagnostics: Vec::new() });
                    continue;
                }
            };
            if count >= limits.max_skills {
                report.skipped.push(Skipped {
                    location: input.location,
                    reason: format!("the catalogue already holds {} skills (the limit)", limits.max_skills),
                    diagnostics: Vec::new(),
                });
                continue;
            }
            let loaded = skill::load(&input.location, &text, limits);
            let Some(mut skill) = loaded.skill else {
                let reason = loaded
                    .diagnostics
                    .iter()
                    .find(|d| d.is_error())
                    .map_or_else(|| "not loaded".to_owned(), |d| d.message.clone());
                report.skipped.push(Skipped { location: input.location, reason, diagnostics: loaded.diagnostics });
                continue;
            };
            count += 1;
            let body = crate::frontmatter::body(&text).unwrap_or_default();
            if options.rank.headings {
                skill.headings = skill::body_headings(body);
            }
            skill.sections = skill::body_sections(body);
            report.warnings.extend(
                loaded
                    .diagnostics
                    .into_iter()
                    .map(|diagnostic| Warning { location: skill.location.clone(), diagnostic }),
            );
            let missing = missing_requirements(&skill.requires, &options.available);
            let findings = scan::scan(&text, Some(&skill.name), &options.scan);
            if !findings.is_empty() {
                report.flagged.push(Flagged {
                    name: skill.name.clone(),
                    location: skill.location.clone(),
                    blocked: scan::blocked(&findings),
                    findings: findings.clone(),
                });
            }
            let entry = CatalogSkill { skill, source: input.source, missing, findings };
            let key = mention_key(&entry.skill.name);
            match by_key.get(&key).copied() {
                None => {
                    by_key.insert(key, winners.len());
                    winners.push(entry);
                }
                Some(i) => {
                    let Some(slot) = winners.get_mut(i) else {
                        continue;
                    };
                    match options.precedence {
                        Precedence::FirstWins => shadowed.push(entry),
                        Precedence::LastWins => shadowed.push(std::mem::replace(slot, entry)),
                    }
                }
            }
        }
        // Who shadows whom, while `by_key` still indexes `winners`.
        for s in &shadowed {
            let by = by_key
                .get(&mention_key(&s.skill.name))
                .and_then(|&i| winners.get(i))
                .map(|w| w.skill.location.clone())
                .unwrap_or_default();
            report.shadowed.push(Shadowed { name: s.skill.name.clone(), location: s.skill.location.clone(), by });
        }
        // Precedence rank of a source: the winning side first.
        let sources = winners.iter().chain(&shadowed).map(|s| s.source).max().unwrap_or(0);
        let rank = |source: usize| match options.precedence {
            Precedence::FirstWins => source,
            Precedence::LastWins => sources - source,
        };
        winners.sort_by(|a, b| rank(a.source).cmp(&rank(b.source)).then_with(|| a.skill.name.cmp(&b.skill.name)));
        for s in winners.iter().filter(|s| s.gated()) {
            report.gated.push(Gated {
                name: s.skill.name.clone(),
                location: s.skill.location.clone(),
                missing: s.missing.clone(),
            });
        }
        report.loaded = winners.len();
        report.mention_only = (winners.iter())
            .filter(|s| !open_to_automatic_use(&s.skill, options.not_user_invocable))
            .map(|s| s.skill.name.clone())
            .collect();
        // A blocked skill ranks as an empty one: it keeps its position, never a score.
        let nothing = Skill::default();
        let ranked = winners.iter().map(|s| if s.blocked() { &nothing } else { &s.skill });
        let ranking = RankIndex::build(ranked, options.rank.headings);
        // A one-word name or tag that other skills use too is an everyday word here:
        // evidence for ranking, not a rule of its own.
        let index = MatchIndex::build(winners.iter().map(|s| &s.skill), |word| ranking.shared_word(word));
        Catalog {
            skills: winners,
            shadowed,
            report,
            index,
            ranking,
            rank: options.rank.clone(),
            limits: limits.clone(),
            scan: options.scan.clone(),
            not_user_invocable: options.not_user_invocable,
            scanned: ScanCache::default(),
        }
    }

    /// True when `entry` may be injected without an explicit `@mention`: not gated,
    /// not blocked by the scan, and open to automatic use as this catalogue reads its
    /// fields. The one rule for every automatic path (rules, ranking, LLM selection,
    /// skills as tools).
    pub fn automatic(&self, entry: &CatalogSkill) -> bool {
        entry.listed() && open_to_automatic_use(&entry.skill, self.not_user_invocable)
    }

    /// The skills that kept their names, in catalogue order (gated ones included).
    pub fn skills(&self) -> &[CatalogSkill] {
        &self.skills
    }

    /// The scan policy the catalogue was built with (it also applies to what each
    /// turn reads).
    pub fn scan_policy(&self) -> &ScanPolicy {
        &self.scan
    }

    /// The limits the catalogue was built with (they also bound each turn).
    pub fn limits(&self) -> &Limits {
        &self.limits
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
        Ok(count)
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
    pub(crate) fn hits(&self, message: &str, embedding: Option<&[f32]>) -> Vec<Hit> {
        let (mut hits, at_spans) = self.index.find_with_spans(message);
        let eligible =
            |i: usize| self.skills.get(i).is_some_and(|s| self.automatic(s)) && !hits.iter().any(|h| h.skill == i);
        let ranked = self.ranking.rank(&without_mentions(message, &at_spans), embedding, &self.rank, eligible);
        hits.extend(ranked.into_iter().map(|r| Hit {
            skill: r.skill,
            reason: Reason::Rank,
            position: r.position,
            score: Some(r.score),
        }));
        hits
    }

    /// The skills `message` mentions (`@name`), in message order.
    pub(crate) fn mention_hits(&self, message: &str) -> Vec<Hit> {
        let (hits, _) = self.index.find_with_spans(message);
        hits.into_iter().filter(|h| h.reason == Reason::Mention).collect()
    }

    /// Up to `size` skills among those `eligible`, best first, that share any word (or,
    /// with embeddings, any meaning) with `message`: ranking without its thresholds.
    pub(crate) fn shortlist(
        &self,
        message: &str,
        embedding: Option<&[f32]>,
        size: usize,
        eligible: impl Fn(usize) -> bool,
    ) -> Vec<usize> {
        self.ranked_without_thresholds(message, embedding, size, eligible).into_iter().map(|r| r.skill).collect()
    }

    /// Ranking of `message` with none of its thresholds: up to `size` skills among those
    /// `eligible`, best first, `@` words not read.
    fn ranked_without_thresholds(
        &self,
        message: &str,
        embedding: Option<&[f32]>,
        size: usize,
        eligible: impl Fn(usize) -> bool,
    ) -> Vec<crate::rank::Ranked> {
        let (_, at_spans) = self.index.find_with_spans(message);
        let options = RankOptions {
            enabled: true,
            max_ranked: size,
            min_score: 0.0,
            min_ratio: 0.0,
            min_coverage: 0.0,
            ..self.rank.clone()
        };
        self.ranking.rank(&without_mentions(message, &at_spans), embedding, &options, eligible)
    }

    /// The `k` skills most relevant to `message`, best first: those a turn would
    /// select (as [`Catalog::matches_turn`] orders them, `selected: true`), then the
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
            .matches_turn(message, context)?
            .into_iter()
            .map(|m| Relevant { skill: m.skill, selected: true, reason: Some(m.reason), score: m.score })
            .collect();
        found.truncate(k);
        if found.len() < k {
            let embedding = self.message_vector(context.embedding.as_deref())?;
            let taken: Vec<usize> = found.iter().filter_map(|r| self.index_of(&r.skill)).collect();
            let listed = |i: usize| self.skills.get(i).is_some_and(CatalogSkill::listed) && !taken.contains(&i);
            let ranked = self.ranked_without_thresholds(message, embedding.as_deref(), k - found.len(), listed);
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
    // Whole characters became spaces, so the text is still UTF-8.
    std::borrow::Cow::Owned(String::from_utf8_lossy(&bytes).into_owned())
}

/// True when `skill`'s fields open it to automatic use, `user-invocable: false` read
/// as `reading` says.
fn open_to_automatic_use(skill: &Skill, reading: NotUserInvocable) -> bool {
    skill.auto_invocable() && (skill.user_invocable || reading == NotUserInvocable::Hidden)
}

/// The requirements in `requires` that `available` does not meet.
fn missing_requirements(requires: &[String], available: &[String]) -> Vec<String> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::MemorySource;

    fn md(name: &str, extra: &str) -> String {
        format!("---\nname: {name}\ndescription: about {name}\n{extra}---\nBody of {name}\n")
    }

    #[test]
    fn precedence_first_and_last_wins_with_shadowing() {
        let a: MemorySource =
            [("a/pdf/SKILL.md", md("pdf", "")), ("a/x/SKILL.md", md("x-y", ""))].into_iter().collect();
        let b: MemorySource =
            [("b/pdf/SKILL.md", md("PDF", "")), ("b/z/SKILL.md", md("x_y", ""))].into_iter().collect();
        let first = Catalog::from_sources(&[&a, &b], &CatalogOptions::default());
        assert_eq!(first.get("pdf").unwrap().skill.location, "a/pdf/SKILL.md");
        assert_eq!(first.report().shadowed.len(), 2);
        assert_eq!(first.report().shadowed[0].by, "a/pdf/SKILL.md");
        assert_eq!(first.get_by_location("b/pdf/SKILL.md").unwrap().skill.name, "PDF");

        let opts = CatalogOptions { precedence: Precedence::LastWins, ..CatalogOptions::default() };
        let last = Catalog::from_sources(&[&a, &b], &opts);
        assert_eq!(last.get("pdf").unwrap().skill.location, "b/pdf/SKILL.md");
        assert_eq!(last.get("x-y").unwrap().skill.location, "b/z/SKILL.md");
        // The winning source comes first in catalogue order.
        let order: Vec<_> = last.skills().iter().map(|s| s.skill.location.as_str()).collect();
        assert_eq!(order, vec!["b/pdf/SKILL.md", "b/z/SKILL.md"]);
    }

    #[test]
    fn gating_by_requires() {
        let src: MemorySource = [
            ("s/a/SKILL.md", md("a", "requires: {mcp: [rube]}\n")),
            ("s/b/SKILL.md", md("b", "requires: github, slack\n")),
        ]
        .into_iter()
        .collect();
        let none = Catalog::from_sources(&[&src], &CatalogOptions::default());
        assert_eq!(none.report().gated.len(), 2);
        assert_eq!(none.report().gated[0].missing, vec!["mcp:rube"]);
        let opts = CatalogOptions { available: vec!["Rube".into(), "github".into()], ..CatalogOptions::default() };
        let some = Catalog::from_sources(&[&src], &opts);
        assert!(!some.get("a").unwrap().gated());
        assert_eq!(some.get("b").unwrap().missing, vec!["slack"]);
    }

    #[test]
    fn failures_are_reported_not_fatal() {
        let inputs = vec![
            CatalogInput { source: 0, location: "x/SKILL.md".into(), text: Err("permission denied".into()) },
            CatalogInput { source: 0, location: "y/SKILL.md".into(), text: Ok("no frontmatter".into()) },
            CatalogInput { source: 0, location: "z/SKILL.md".into(), text: Ok(md("z", "")) },
        ];
        let c = Catalog::build(inputs, &CatalogOptions::default());
        assert_eq!(c.skills().len(), 1);
        let reasons: Vec<_> = c.report().skipped.iter().map(|s| s.reason.as_str()).collect();
        assert_eq!(reasons, vec!["permission denied", "SKILL.md must start with YAML frontmatter (---)"]);
    }

    #[test]
    fn skill_count_limit() {
        let limits = Limits { max_skills: 1, ..Limits::default() };
        let inputs = (0..3)
            .map(|i| CatalogInput { source: 0, location: format!("s{i}/SKILL.md"), text: Ok(md(&format!("s{i}"), "")) })
            .collect();
        let c = Catalog::build(inputs, &CatalogOptions { limits, ..CatalogOptions::default() });
        assert_eq!(c.skills().len(), 1);
        assert_eq!(c.report().skipped.len(), 2);
    }

    #[test]
    fn a_mention_is_not_evidence_for_other_skills() {
        let skill = |name: &str, description: &str| CatalogInput {
            source: 0,
            location: format!("{name}/SKILL.md"),
            text: Ok(format!("---\nname: {name}\ndescription: {description}\n---\nBody\n")),
        };
        let mut inputs = vec![skill("pdf", "Fill PDF forms."), skill("zotero", "Zotero PDF attachments.")];
        inputs.extend((0..20).map(|i| skill(&format!("filler-{i}"), &format!("Unrelated topic {i}: gardening."))));
        let rank = RankOptions { min_score: 0.0, min_ratio: 0.0, max_ranked: 5, ..RankOptions::default() };
        let catalog = Catalog::build(inputs, &CatalogOptions { rank, ..CatalogOptions::default() });
        let zotero = |message: &str| -> f64 {
            let matches = catalog.matches(message).unwrap();
            matches.iter().find(|m| m.skill == "zotero").and_then(|m| m.score).unwrap()
        };
        // The word `pdf` is evidence for zotero; the mention `@pdf` is not.
        assert!(zotero("pdf attachments") > zotero("attachments"));
        assert_eq!(zotero("@pdf attachments"), zotero("attachments"));
        assert_eq!(catalog.matches("@pdf attachments").unwrap()[0].skill, "pdf");
    }
}
