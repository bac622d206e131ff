//! One turn: match a user message against the catalogue, read the bodies of the
//! skills that will be rendered, render them under the budget, and account for every
//! candidate in a decision.
//!
//! Candidates are the skills the message refers to by any rule (see
//! [`matching`](crate::matching)). A candidate is *matched* when it may be injected:
//! not gated, and either mentioned or open to automatic use. Unmatched candidates are
//! still reported (`gated`, `mention_only`) so a host can tell a user why a skill they
//! expected stayed out. Matched candidates are rendered in order; a body is read only
//! when the budget still has room for it.

use crate::catalog::{Catalog, CatalogSkill};
use crate::error::Error;
use crate::frontmatter;
use crate::matching::{Hit, Reason};
use crate::render::{prepare_body, Frame, RenderOptions};
use crate::skill::truncate_chars;
use serde::Serialize;

/// A skill the rules select for a message (no body read).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Match {
    /// The skill's name.
    pub skill: String,
    /// The rule that selected it.
    pub reason: Reason,
    /// Byte offset in the message of what fired the rule.
    pub position: usize,
    /// The ranking score, when the reason is `rank`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
}

/// The matches of one message, as the `match` command prints them.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Matches {
    /// The skills selected, in order.
    pub matches: Vec<Match>,
}

/// Why a candidate was not injected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Skip {
    /// The budget had no room left for it.
    BudgetExhausted,
    /// Its SKILL.md could not be read, or no longer has a body.
    BodyUnavailable,
    /// It requires integrations the host lacks.
    Gated,
    /// It opts out of automatic use and was not `@mentioned`.
    MentionOnly,
}

/// What happened to one candidate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decision {
    /// The skill's name.
    pub skill: String,
    /// True when the skill was eligible for injection.
    pub matched: bool,
    /// The rule that made it a candidate.
    pub reason: Reason,
    /// The ranking score, when the reason is `rank`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// Bytes of its block in the injection (0 when skipped).
    pub injected_bytes: usize,
    /// Its body was cut to fit.
    pub truncated: bool,
    /// Why it was not injected, if it wasn't.
    pub skipped: Option<Skip>,
    /// More about a skip (the read error, the missing integrations).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// Totals for one turn.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Skills the message referred to.
    pub candidates: usize,
    /// Candidates eligible for injection.
    pub matched: usize,
    /// Bytes of the injection.
    pub injected_bytes: usize,
    /// Some body was cut to fit.
    pub truncated_any: bool,
}

/// The outcome of a turn.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Injection {
    /// The injected blocks alone (empty when nothing was injected).
    pub text: String,
    /// The message to send: the injection, a blank line, then the user's message; or
    /// the user's message unchanged when nothing was injected.
    pub user_message: String,
    /// One decision per candidate, in candidate order.
    pub decisions: Vec<Decision>,
    /// Totals.
    pub summary: Summary,
}

impl Catalog {
    fn check_message(&self, message: &str) -> Result<(), Error> {
        let limit = self.limits().max_message_bytes;
        if message.len() > limit {
            return Err(Error::MessageTooLarge { bytes: message.len(), limit });
        }
        Ok(())
    }

    /// The candidates with the skill they name and why they may not be injected.
    fn candidates(&self, message: &str) -> Vec<(Hit, &CatalogSkill, Option<Skip>)> {
        self.hits(message)
            .into_iter()
            .filter_map(|hit| {
                let entry = self.skills().get(hit.skill)?;
                let skip = if entry.gated() {
                    Some(Skip::Gated)
                } else if hit.reason != Reason::Mention && !entry.skill.auto_invocable() {
                    Some(Skip::MentionOnly)
                } else {
                    None
                };
                Some((hit, entry, skip))
            })
            .collect()
    }

    /// The skills the rules select for `message`, in order. Reads nothing.
    pub fn matches(&self, message: &str) -> Result<Vec<Match>, Error> {
        self.check_message(message)?;
        Ok(self
            .candidates(message)
            .into_iter()
            .filter(|(_, _, skip)| skip.is_none())
            .map(|(hit, entry, _)| Match {
                skill: entry.skill.name.clone(),
                reason: hit.reason,
                position: hit.position,
                score: hit.score,
            })
            .collect())
    }

    /// The skills a turn on `message` may read, in order: the eligible candidates. A
    /// host whose reads are asynchronous fetches these first, then calls
    /// [`Catalog::inject`] with a `read` that looks them up. (Skills past the budget
    /// are in the list too; `inject` reads only what it renders.)
    pub fn plan(&self, message: &str) -> Result<Vec<&CatalogSkill>, Error> {
        self.check_message(message)?;
        Ok(self
            .candidates(message)
            .into_iter()
            .filter(|(_, _, skip)| skip.is_none())
            .map(|(_, entry, _)| entry)
            .collect())
    }

    /// Runs a turn. `read` returns a skill's SKILL.md text; it is called only for
    /// skills that will be rendered, in order.
    pub fn inject<F>(&self, message: &str, options: &RenderOptions, mut read: F) -> Result<Injection, Error>
    where
        F: FnMut(&CatalogSkill) -> Result<String, String>,
    {
        self.check_message(message)?;
        let mut text = String::new();
        let mut decisions = Vec::new();
        let mut summary = Summary::default();
        for (hit, entry, skip) in self.candidates(message) {
            summary.candidates += 1;
            let mut decision = Decision {
                skill: entry.skill.name.clone(),
                matched: skip.is_none(),
                reason: hit.reason,
                score: hit.score,
                injected_bytes: 0,
                truncated: false,
                skipped: skip,
                detail: (skip == Some(Skip::Gated)).then(|| format!("requires {}", entry.missing.join(", "))),
            };
            if skip.is_none() {
                summary.matched += 1;
                self.render_one(entry, options, &mut text, &mut decision, &mut read);
                summary.truncated_any |= decision.truncated;
            }
            decisions.push(decision);
        }
        summary.injected_bytes = text.len();
        let user_message = if text.is_empty() { message.to_owned() } else { format!("{text}\n\n{message}") };
        Ok(Injection { text, user_message, decisions, summary })
    }

    fn render_one<F>(
        &self,
        entry: &CatalogSkill,
        options: &RenderOptions,
        text: &mut String,
        decision: &mut Decision,
        read: &mut F,
    ) where
        F: FnMut(&CatalogSkill) -> Result<String, String>,
    {
        let frame = Frame::new(options.format, &entry.skill.name);
        let separator = if text.is_empty() { 0 } else { 2 };
        let room = options.budget.saturating_sub(text.len() + separator);
        // Not even a block with a one-byte body fits: don't read the body.
        if room <= frame.open.len() + frame.close.len() {
            decision.skipped = Some(Skip::BudgetExhausted);
            return;
        }
        let source_text = match read(entry) {
            Ok(t) if t.len() > self.limits().max_skill_md_bytes => {
                decision.skipped = Some(Skip::BodyUnavailable);
                decision.detail = Some(format!("SKILL.md is over {} bytes", self.limits().max_skill_md_bytes));
                return;
            }
            Ok(t) => t,
            Err(e) => {
                decision.skipped = Some(Skip::BodyUnavailable);
                decision.detail = Some(e);
                return;
            }
        };
        let body = match frontmatter::body(&source_text) {
            Ok(body) => body,
            Err(e) => {
                decision.skipped = Some(Skip::BodyUnavailable);
                decision.detail = Some(e.message().to_owned());
                return;
            }
        };
        let base_dir = options.base_dir.then(|| entry.skill.directory());
        let body = prepare_body(body, options.format, base_dir);
        let whole = frame.open.len() + body.len() + frame.close.len();
        let before = text.len();
        if separator > 0 {
            text.push_str("\n\n");
        }
        if whole <= room {
            text.push_str(&frame.open);
            text.push_str(&body);
            text.push_str(frame.close);
        } else {
            let kept = truncate_chars(&body, room.saturating_sub(frame.truncated_overhead()));
            if kept.len() < options.min_truncated_bytes.min(body.len()).max(1) {
                text.truncate(before);
                decision.skipped = Some(Skip::BudgetExhausted);
                return;
            }
            text.push_str(&frame.open_truncated);
            text.push_str(kept);
            text.push_str(frame.close_truncated);
            decision.truncated = true;
        }
        decision.injected_bytes = text.len() - before - separator;
    }
}
