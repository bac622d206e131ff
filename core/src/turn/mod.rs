//! One turn: match a user message against the catalogue, read the bodies of the
//! skills that will be rendered, render them under the budget, and account for every
//! candidate in a decision.
//!
//! Candidates are the skills the message refers to by any rule (see
//! [`matching`](crate::select::rules)). A candidate is *matched* when it may be injected:
//! not gated, and either mentioned or open to automatic use. Unmatched candidates are
//! still reported (`gated`, `mention_only`, `unsafe`) so a host can tell a user why a
//! skill they expected stayed out. The SKILL.md read for a turn is scanned again
//! ([`scan`](crate::scan)): what reaches the model is what was read, not what was
//! listed. Matched candidates are rendered in order; a body is read only
//! when the budget still has room for it.
//!
//! A turn may know the conversation ([`TurnContext`]): a skill whose body recent turns
//! injected, and which is still in the model's context, is not injected again
//! (`recently_injected`). [`Session`] keeps that list for a host.

mod outcome;
pub(crate) mod render;
mod session;

pub use outcome::{Decision, Injection, Match, Matches, Skip, Summary};
pub use session::{Session, TurnContext};

use crate::catalog::{Catalog, CatalogSkill};
use crate::error::Error;
use crate::scan::{self, Finding};
use crate::select::rules::{Hit, Reason};
use crate::skill::frontmatter;
use crate::skill::truncate_chars;
use crate::turn::render::{prepare_body, Frame, RenderOptions};

/// A candidate of a turn: the hit, the skill it names, and why it may not be injected.
type Candidate<'a> = (Hit, &'a CatalogSkill, Option<Skip>);

impl Catalog {
    pub(crate) fn check_message(&self, message: &str) -> Result<(), Error> {
        let limit = self.limits().max_message_bytes;
        if message.len() > limit {
            return Err(Error::MessageTooLarge { bytes: message.len(), limit });
        }
        Ok(())
    }

    /// The candidates with the skill they name and why they may not be injected.
    fn candidates(&self, message: &str, context: &TurnContext) -> Result<Vec<Candidate<'_>>, Error> {
        let embedding = self.message_vector(context.embedding.as_deref())?;
        Ok(self.with_skips(self.hits(message, embedding.as_deref()), context))
    }

    /// The candidates of a turn whose skills the host's model chose: the skills the
    /// message `@mentions` (a user's explicit choice stands), then those in `selected`
    /// (names, ignoring case and `-`/`_`; unknown names and repeats are left out).
    fn selected_candidates(&self, message: &str, selected: &[String], context: &TurnContext) -> Vec<Candidate<'_>> {
        let mut hits = self.mention_hits(message);
        for name in selected {
            match self.index_of(name) {
                Some(skill) if !hits.iter().any(|h| h.skill == skill) => {
                    hits.push(Hit { skill, reason: Reason::Selected, position: 0, score: None });
                }
                _ => {}
            }
        }
        self.with_skips(hits, context)
    }

    /// Each hit with its skill and why it may not be injected.
    fn with_skips(&self, hits: Vec<Hit>, context: &TurnContext) -> Vec<Candidate<'_>> {
        hits.into_iter()
            .filter_map(|hit| {
                let entry = self.skills().get(hit.skill)?;
                let skip = if entry.blocked() {
                    Some(Skip::Unsafe)
                } else if entry.gated() {
                    Some(Skip::Gated)
                } else if hit.reason != Reason::Mention && !self.automatic(entry) {
                    Some(Skip::MentionOnly)
                } else if context.is_recent(&entry.skill.name) {
                    Some(Skip::RecentlyInjected)
                } else {
                    None
                };
                Some((hit, entry, skip))
            })
            .collect()
    }

    /// The skills the rules select for `message`, in order. Reads nothing.
    pub fn matches(&self, message: &str) -> Result<Vec<Match>, Error> {
        self.matches_turn(message, &TurnContext::default())
    }

    /// [`Catalog::matches`] for a turn that knows the conversation (recent skills
    /// left out, the message's embedding used).
    pub fn matches_turn(&self, message: &str, context: &TurnContext) -> Result<Vec<Match>, Error> {
        self.check_message(message)?;
        Ok(self
            .candidates(message, context)?
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
        self.plan_turn(message, &TurnContext::default())
    }

    /// [`Catalog::plan`] for a turn that knows the conversation: recently injected
    /// skills are not read.
    pub fn plan_turn(&self, message: &str, context: &TurnContext) -> Result<Vec<&CatalogSkill>, Error> {
        self.check_message(message)?;
        Ok(eligible(self.candidates(message, context)?))
    }

    /// [`Catalog::plan`] for [`Catalog::inject_selected`]: the skills that turn may read.
    pub fn plan_selected(
        &self,
        message: &str,
        selected: &[String],
        context: &TurnContext,
    ) -> Result<Vec<&CatalogSkill>, Error> {
        self.check_message(message)?;
        Ok(eligible(self.selected_candidates(message, selected, context)))
    }

    /// Runs a turn. `read` returns a skill's SKILL.md text; it is called only for
    /// skills that will be rendered, in order.
    pub fn inject<F>(&self, message: &str, options: &RenderOptions, read: F) -> Result<Injection, Error>
    where
        F: FnMut(&CatalogSkill) -> Result<String, String>,
    {
        self.inject_turn(message, &TurnContext::default(), options, read)
    }

    /// [`Catalog::inject`] for a turn that knows the conversation: skills in
    /// [`TurnContext::recent`] are not injected again.
    pub fn inject_turn<F>(
        &self,
        message: &str,
        context: &TurnContext,
        options: &RenderOptions,
        read: F,
    ) -> Result<Injection, Error>
    where
        F: FnMut(&CatalogSkill) -> Result<String, String>,
    {
        self.check_message(message)?;
        let candidates = self.candidates(message, context)?;
        Ok(self.run(message, candidates, options, read))
    }

    /// Runs a turn on the skills the host's model chose for `message` (`selected`, as
    /// [`Catalog::select_parse`] returns them) instead of the rules and ranking: the
    /// skills the message `@mentions` come first, then the selected ones with reason
    /// `selected`, each held to the same eligibility (gating, `disable-model-invocation`,
    /// the safety scan, recent turns) and budget as any turn. Names the catalogue does
    /// not know are left out.
    pub fn inject_selected<F>(
        &self,
        message: &str,
        selected: &[String],
        context: &TurnContext,
        options: &RenderOptions,
        read: F,
    ) -> Result<Injection, Error>
    where
        F: FnMut(&CatalogSkill) -> Result<String, String>,
    {
        self.check_message(message)?;
        let candidates = self.selected_candidates(message, selected, context);
        Ok(self.run(message, candidates, options, read))
    }

    /// Renders the eligible candidates in order under the budget, with a decision each.
    fn run<F>(&self, message: &str, candidates: Vec<Candidate<'_>>, options: &RenderOptions, mut read: F) -> Injection
    where
        F: FnMut(&CatalogSkill) -> Result<String, String>,
    {
        let mut text = String::new();
        let mut decisions = Vec::new();
        let mut summary = Summary::default();
        for (hit, entry, skip) in candidates {
            summary.candidates += 1;
            let mut decision = Decision {
                skill: entry.skill.name.clone(),
                matched: matches!(skip, None | Some(Skip::RecentlyInjected)),
                reason: hit.reason,
                score: hit.score,
                injected_bytes: 0,
                truncated: false,
                skipped: skip,
                detail: match skip {
                    Some(Skip::Gated) => Some(format!("requires {}", entry.missing.join(", "))),
                    Some(Skip::Unsafe) => first_block(&entry.findings),
                    _ => None,
                },
                findings: if skip == Some(Skip::Unsafe) { entry.findings.clone() } else { Vec::new() },
            };
            if decision.matched {
                summary.matched += 1;
            }
            if skip.is_none() {
                self.render_one(hit.skill, entry, options, &mut text, &mut decision, &mut read);
                summary.truncated_any |= decision.truncated;
            }
            decisions.push(decision);
        }
        summary.injected_bytes = text.len();
        let user_message = if text.is_empty() { message.to_owned() } else { format!("{text}\n\n{message}") };
        Injection { text, user_message, decisions, summary }
    }

    fn render_one<F>(
        &self,
        index: usize,
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
                let limit = self.limits().max_skill_md_bytes;
                decision.detail = Some(format!("SKILL.md is {} bytes; the limit is {limit}", t.len()));
                return;
            }
            Ok(t) => t,
            Err(e) => {
                decision.skipped = Some(Skip::BodyUnavailable);
                decision.detail = Some(e);
                return;
            }
        };
        // The text read now is what reaches the model: scan it, not the catalogue's copy.
        let findings = self.scanned.findings(index, &source_text, &entry.skill.name, self.scan_policy());
        if scan::blocked(&findings) {
            decision.skipped = Some(Skip::Unsafe);
            decision.detail = first_block(&findings);
            decision.findings = findings;
            return;
        }
        decision.findings = findings;
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

/// The skills of the candidates that may be injected, in order.
fn eligible(candidates: Vec<Candidate<'_>>) -> Vec<&CatalogSkill> {
    candidates.into_iter().filter(|(_, _, skip)| skip.is_none()).map(|(_, entry, _)| entry).collect()
}

/// The first blocking finding, for a decision's `detail`.
fn first_block(findings: &[Finding]) -> Option<String> {
    findings.iter().find(|f| f.blocks()).map(ToString::to_string)
}

#[cfg(test)]
mod embedding_tests;
#[cfg(test)]
mod tests;
