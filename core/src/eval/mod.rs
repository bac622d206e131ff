//! Trigger evaluation: how a catalogue's routing does on labelled messages, for skill
//! authors and CI.
//!
//! A labelled message says which skills may answer it (`expect`; an empty list means
//! nothing should be injected) and which must not (`not`). Two formats are read:
//! JSON lines `{"q", "expect", "not"?}` ([`read_labelled_lines`]), and the trigger-eval
//! files skill authors keep in a skill's `evals/` folder ([`read_trigger_evals`]): a
//! JSON list of `{"query", "should_trigger"}`, or skill-creator's `{"evals": [{"prompt"}]}`
//! (prompts the skill is meant to handle).
//!
//! [`Catalog::evaluate`] runs the same matching as a turn (rules, ranking, thresholds)
//! on every message and [`EvalReport::score`] turns the outcomes into figures: hit rate,
//! top-1, precision, false injection, recall@K of the ranking (the order
//! [`Catalog::relevant`] gives), a table per skill, and the pairs of skills that take
//! each other's messages. Scoring is pure, so any runtime that can match can score.

pub use input::{read_labelled_lines, read_trigger_evals, EvalInputError, LabelledMessage};
mod input;

use crate::catalog::Catalog;
use crate::error::Error;
use crate::select::rules::mention_key;
use crate::turn::TurnContext;
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};

/// What routing did with one message.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Outcome {
    /// The skills a turn would inject, in order.
    pub injected: Vec<String>,
    /// The skills in relevance order (see [`Catalog::relevant`]), for recall@K.
    pub ranked: Vec<String>,
}

/// Recall of the ranking at one depth.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct RecallAt {
    /// How many of the first ranked skills count.
    pub k: usize,
    /// Share of the messages that expect a skill with one of them among the first `k`
    /// (`None` when no message expects one).
    pub recall: Option<f64>,
}

/// One skill's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct SkillFigures {
    /// The skill.
    pub skill: String,
    /// Messages that expect it (among others they accept).
    pub expected: usize,
    /// Of those, the messages where it was injected.
    pub recalled: usize,
    /// Injections where it was not acceptable: on a message with an expectation that
    /// does not accept it, or that names it in `not`.
    pub false_fires: usize,
    /// Skills injected on its missed messages instead, most often first.
    pub taken_by: Vec<Count>,
}

/// A name and how often.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Count {
    /// A skill.
    pub skill: String,
    /// How often.
    pub count: usize,
}

/// Two skills that compete: `taker` was injected on messages that expected `expected`
/// and did not accept `taker`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Competing {
    /// The skill the messages expected.
    pub expected: String,
    /// The skill injected instead (or beside it).
    pub taker: String,
    /// How many messages.
    pub count: usize,
}

/// A message routing got wrong.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Miss {
    /// The message.
    pub q: String,
    /// What it accepts (`None`: no expectation).
    pub expect: Option<Vec<String>>,
    /// What must not fire.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not: Vec<String>,
    /// What was injected.
    pub injected: Vec<String>,
}

/// The figures of an evaluation. Shares are rounded to thousandths; a share whose
/// denominator is zero is `None`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct EvalReport {
    /// Messages evaluated.
    pub messages: usize,
    /// Messages that expect some skill.
    pub positives: usize,
    /// Messages that expect nothing (`expect: []`).
    pub negatives: usize,
    /// Positives where an acceptable skill was injected.
    pub hit: Option<f64>,
    /// Positives whose first injected skill is acceptable.
    pub top1: Option<f64>,
    /// Injected skills that were acceptable, over the skills injected on messages with
    /// an expectation (on messages with only a `not`, only the forbidden injections
    /// count: nothing else is known to be right or wrong there).
    pub precision: Option<f64>,
    /// Negatives where something was injected.
    pub false_injection: Option<f64>,
    /// Messages where a skill in their `not` was injected.
    pub not_violated: usize,
    /// Recall of the ranking at each depth asked for.
    pub recall_at: Vec<RecallAt>,
    /// Per skill that some message expects or that was injected wrongly, by name.
    pub skills: Vec<SkillFigures>,
    /// Competing pairs, most frequent first (at most `MAX_PAIRS` (20)).
    pub pairs: Vec<Competing>,
    /// Skills injected where they were not acceptable, most often first.
    pub takers: Vec<Count>,
    /// The messages routing got wrong, in input order.
    pub misses: Vec<Miss>,
}

/// Most competing pairs reported.
pub const MAX_PAIRS: usize = 20;
/// Most skills listed in [`SkillFigures::taken_by`].
const MAX_TAKEN_BY: usize = 3;

/// One skill's counts while scoring ([`SkillFigures`] before it is sorted and cut).
struct Row {
    /// Its name as first seen.
    skill: String,
    expected: usize,
    recalled: usize,
    false_fires: usize,
    taken_by: BTreeMap<String, usize>,
}

impl Row {
    fn new(skill: &str) -> Row {
        Row { skill: skill.to_owned(), expected: 0, recalled: 0, false_fires: 0, taken_by: BTreeMap::new() }
    }
}

fn share(part: usize, whole: usize) -> Option<f64> {
    (whole > 0).then(|| ((part as f64 / whole as f64) * 1000.0).round() / 1000.0)
}

fn sorted_counts(counts: BTreeMap<String, usize>) -> Vec<Count> {
    let mut list: Vec<Count> = counts.into_iter().map(|(skill, count)| Count { skill, count }).collect();
    list.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.skill.cmp(&b.skill)));
    list
}

impl EvalReport {
    /// Scores `outcomes` (one per message, in order; entries past the shorter of the two
    /// lists are not scored) against `messages`, with recall at each depth in
    /// `recall_at`. Names are compared ignoring case and `-`/`_`.
    pub fn score(messages: &[LabelledMessage], outcomes: &[Outcome], recall_at: &[usize]) -> EvalReport {
        let key = |name: &String| mention_key(name);
        let (mut positives, mut negatives, mut hits, mut top1, mut injected_total, mut acceptable) = (0, 0, 0, 0, 0, 0);
        let (mut false_injections, mut not_violated) = (0, 0);
        let mut recalled_at = vec![0usize; recall_at.len()];
        let mut table: BTreeMap<String, Row> = BTreeMap::new();
        let mut pairs: BTreeMap<(String, String), Competing> = BTreeMap::new();
        let mut misses = Vec::new();
        for (message, outcome) in messages.iter().zip(outcomes) {
            let expected: Vec<String> = message.expect.iter().flatten().map(key).collect();
            let forbidden: HashSet<String> = message.not.iter().map(key).collect();
            let injected: Vec<String> = outcome.injected.iter().map(key).collect();
            let ok = |k: &String| expected.contains(k) && !forbidden.contains(k);
            // The injections that were wrong: (key, name as injected).
            let wrong: Vec<(&String, &String)> = (injected.iter().zip(&outcome.injected))
                .filter(|(k, _)| !ok(k) && (message.expect.is_some() || forbidden.contains(*k)))
                .collect();
            let violated = injected.iter().any(|k| forbidden.contains(k));
            not_violated += usize::from(violated);
            let mut missed = violated || !wrong.is_empty();
            if let Some(expect) = &message.expect {
                injected_total += injected.len();
                acceptable += injected.iter().filter(|k| ok(k)).count();
                if expect.is_empty() {
                    negatives += 1;
                    false_injections += usize::from(!injected.is_empty());
                } else {
                    positives += 1;
                    let hit = injected.iter().any(ok);
                    hits += usize::from(hit);
                    missed |= !hit;
                    top1 += usize::from(injected.first().is_some_and(ok));
                    for (slot, &k) in recalled_at.iter_mut().zip(recall_at) {
                        *slot += usize::from(outcome.ranked.iter().take(k).any(|r| ok(&key(r))));
                    }
                }
            } else {
                injected_total += injected.iter().filter(|k| forbidden.contains(*k)).count();
            }
            // Each acceptable skill once, however often (or however spelt) it is listed.
            let mut listed: Vec<&String> = Vec::new();
            for name in message.expect.iter().flatten() {
                if !listed.iter().any(|l| key(l) == key(name)) {
                    listed.push(name);
                }
            }
            for name in listed {
                let row = table.entry(key(name)).or_insert_with(|| Row::new(name));
                row.expected += 1;
                let recalled = injected.contains(&key(name));
                row.recalled += usize::from(recalled);
                for &(taker_key, taker) in &wrong {
                    if !recalled {
                        *row.taken_by.entry(taker.clone()).or_insert(0) += 1;
                    }
                    let pair = pairs.entry((key(name), taker_key.clone())).or_insert_with(|| Competing {
                        expected: name.clone(),
                        taker: taker.clone(),
                        count: 0,
                    });
                    pair.count += 1;
                }
            }
            for &(taker_key, taker) in &wrong {
                table.entry(taker_key.clone()).or_insert_with(|| Row::new(taker)).false_fires += 1;
            }
            if missed {
                misses.push(Miss {
                    q: message.q.clone(),
                    expect: message.expect.clone(),
                    not: message.not.clone(),
                    injected: outcome.injected.clone(),
                });
            }
        }
        // Takers are the skills with false fires, most first.
        let takers = sorted_counts(
            table.values().filter(|r| r.false_fires > 0).map(|r| (r.skill.clone(), r.false_fires)).collect(),
        );
        let skills = table
            .into_values()
            .map(|row| {
                let mut taken_by = sorted_counts(row.taken_by);
                taken_by.truncate(MAX_TAKEN_BY);
                SkillFigures {
                    skill: row.skill,
                    expected: row.expected,
                    recalled: row.recalled,
                    false_fires: row.false_fires,
                    taken_by,
                }
            })
            .collect();
        let mut pairs: Vec<Competing> = pairs.into_values().collect();
        pairs.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| (&a.expected, &a.taker).cmp(&(&b.expected, &b.taker))));
        pairs.truncate(MAX_PAIRS);
        EvalReport {
            messages: messages.len().min(outcomes.len()),
            positives,
            negatives,
            hit: share(hits, positives),
            top1: share(top1, positives),
            precision: share(acceptable, injected_total),
            false_injection: share(false_injections, negatives),
            not_violated,
            recall_at: recall_at
                .iter()
                .zip(recalled_at)
                .map(|(&k, n)| RecallAt { k, recall: share(n, positives) })
                .collect(),
            skills,
            pairs,
            takers,
            misses,
        }
    }
}

impl Catalog {
    /// Runs routing on every message (as [`Turn::matches`](crate::Turn::matches) does, plus the ranking
    /// for recall@K up to the largest depth in `recall_at`) and scores it.
    pub fn evaluate(&self, messages: &[LabelledMessage], recall_at: &[usize]) -> Result<EvalReport, Error> {
        self.evaluate_embedded(messages, recall_at, |_| None)
    }

    /// [`Catalog::evaluate`] with the host's embedding of each message (`None`: rank
    /// that message by words alone), for a catalogue whose skills have embeddings
    /// ([`Catalog::set_embeddings`]).
    pub fn evaluate_embedded(
        &self,
        messages: &[LabelledMessage],
        recall_at: &[usize],
        embedding_of: impl Fn(&str) -> Option<Vec<f32>>,
    ) -> Result<EvalReport, Error> {
        let depth = recall_at.iter().copied().max().unwrap_or(0);
        let mut outcomes = Vec::with_capacity(messages.len());
        for message in messages {
            let context = TurnContext { embedding: embedding_of(&message.q), ..TurnContext::default() };
            let injected = self.turn(&message.q, &context)?.matches().into_iter().map(|m| m.skill).collect();
            let ranked = self.relevant(&message.q, &context, depth)?.into_iter().map(|r| r.skill).collect();
            outcomes.push(Outcome { injected, ranked });
        }
        Ok(EvalReport::score(messages, &outcomes, recall_at))
    }
}

#[cfg(test)]
mod tests;
