//! One turn: match a user message against the catalogue, read the bodies of the
//! skills that will be rendered, render them under the budget, and account for every
//! candidate in a decision.
//!
//! Candidates are the skills the message refers to by any rule (see
//! [`rules`](crate::select::rules)). A candidate is *matched* when it may be injected:
//! not gated, and either mentioned or open to automatic use. Unmatched candidates are
//! still reported (`gated`, `mention-only`, `unsafe`) so a host can tell a user why a
//! skill they expected stayed out. The SKILL.md read for a turn is scanned again
//! ([`scan`](crate::scan)): what reaches the model is what was read, not what was
//! listed. Matched candidates are rendered in order; a body is read only
//! when the budget still has room for it.
//!
//! A turn may know the conversation ([`TurnContext`]): a skill whose body recent turns
//! injected, and which is still in the model's context, is not injected again
//! (`recently-injected`). [`Session`] keeps that list for a host.

mod outcome;
pub(crate) mod render;
mod session;

pub use outcome::{Decision, Injection, Match, Matches, Skip, Summary};
pub use session::{Session, TurnContext, MAX_SESSION_SKILLS_PER_TURN};

use crate::catalog::{Catalog, CatalogSkill};
use crate::error::Error;
use crate::files::{files_line, ListedFile};
use crate::scan::{self, Finding};
use crate::select::rules::{Hit, Reason};
use crate::skill::frontmatter;
use crate::skill::Fences;
use crate::turn::render::{prepare_body, Blocks, Frame, Placed, RenderOptions};

/// A turn on one message, planned: every skill the message calls for with why it may
/// not be injected, before any body is read. [`Turn::matches`] says what matched
/// (nothing is read); [`Catalog::reads`] lists the SKILL.md files rendering it may read
/// (a host with asynchronous sources fetches these first); [`Catalog::render`] renders
/// it under the budget.
///
/// ```
/// # use skillwire::{Catalog, CatalogInput, CatalogOptions, RenderOptions, TurnContext};
/// let text = "---\nname: pdf\ndescription: Merge PDF files.\n---\nUse qpdf.\n".to_owned();
/// let input = CatalogInput { source: 0, id: None, origin: None, location: "pdf/SKILL.md".into(), text: Ok(text.clone()) };
/// let catalog = Catalog::build(vec![input], &CatalogOptions::default());
///
/// let turn = catalog.turn("@pdf merge these", &TurnContext::default())?;
/// assert_eq!(turn.matches()[0].skill, "pdf");
/// assert_eq!(catalog.reads(&turn)?.len(), 1); // fetch these, then render
/// let injection = catalog.render(&turn, &RenderOptions::default(), |_| Ok(text.clone()))?;
/// assert!(injection.text.starts_with("[SKILL:pdf]"));
/// # Ok::<(), skillwire::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    message: String,
    catalog: u64,
    candidates: Vec<Candidate>,
}

/// A candidate of a turn: the hit, the name and id of the skill it names, and why it may
/// not be injected.
#[derive(Debug, Clone, PartialEq)]
struct Candidate {
    hit: Hit,
    name: String,
    id: String,
    skip: Option<Skip>,
}

impl Turn {
    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The skills that may be injected, in order (skills held back by gating, the safety
    /// scan, `disable-model-invocation` or a recent turn are not matches).
    pub fn matches(&self) -> Vec<Match> {
        let eligible = self.candidates.iter().filter(|c| c.skip.is_none());
        eligible
            .map(|c| Match {
                skill: c.name.clone(),
                id: c.id.clone(),
                reason: c.hit.reason,
                position: c.hit.position,
                score: c.hit.score,
            })
            .collect()
    }
}

impl Catalog {
    pub(crate) fn check_message(&self, message: &str) -> Result<(), Error> {
        let limit = self.limits().max_message_bytes;
        if message.len() > limit {
            return Err(Error::MessageTooLarge { bytes: message.len(), limit });
        }
        Ok(())
    }

    /// Plans a turn on `message`: the skills it `@mentions`, then those the rules and
    /// ranking find; or, when [`TurnContext::selected`] holds the host model's choice,
    /// the mentioned skills then the selected ones (reason `selected`). Each is held to
    /// the same eligibility: gating, `disable-model-invocation`, the safety scan, recent
    /// turns. Reads nothing.
    pub fn turn(&self, message: &str, context: &TurnContext) -> Result<Turn, Error> {
        self.check_message(message)?;
        let hits = match &context.selected {
            Some(selected) => self.selected_hits(message, selected)?,
            None => self.hits(message, self.message_vector(context.embedding.as_deref())?.as_deref())?,
        };
        let candidates = self.with_skips(hits, context);
        Ok(Turn { message: message.to_owned(), catalog: self.id, candidates })
    }

    /// The skills rendering `turn` may read, in order: its matches. (Skills past the
    /// budget are in the list too; [`Catalog::render`] reads only what it renders.)
    pub fn reads(&self, turn: &Turn) -> Result<Vec<&CatalogSkill>, Error> {
        self.check_turn(turn)?;
        let eligible = turn.candidates.iter().filter(|c| c.skip.is_none());
        Ok(eligible.filter_map(|c| self.skills().get(c.hit.skill)).collect())
    }

    /// Renders `turn` under the budget, with a decision for every candidate. `read`
    /// returns a skill's SKILL.md text; it is called only for skills that will be
    /// rendered, in order. A turn planned by another catalogue is [`Error::StaleTurn`].
    pub fn render<F>(&self, turn: &Turn, options: &RenderOptions, read: F) -> Result<Injection, Error>
    where
        F: FnMut(&CatalogSkill) -> Result<String, String>,
    {
        self.render_with_files(turn, options, read, |_| Ok(Vec::new()))
    }

    /// [`Catalog::render`], and with [`RenderOptions::list_files`] each block ends with the
    /// skill's other files: `list` returns its folder's listing (the source's
    /// `list_files`), called only for skills rendered; a failing listing lists nothing.
    pub fn render_with_files<F, L>(
        &self,
        turn: &Turn,
        options: &RenderOptions,
        mut read: F,
        mut list: L,
    ) -> Result<Injection, Error>
    where
        F: FnMut(&CatalogSkill) -> Result<String, String>,
        L: FnMut(&CatalogSkill) -> Result<Vec<ListedFile>, String>,
    {
        self.check_turn(turn)?;
        Ok(self.run(turn, options, &mut read, &mut list))
    }

    /// Plans and renders a turn in one call ([`Catalog::turn`], [`Catalog::render`]),
    /// for hosts whose reads are synchronous.
    pub fn inject<F>(
        &self,
        message: &str,
        context: &TurnContext,
        options: &RenderOptions,
        read: F,
    ) -> Result<Injection, Error>
    where
        F: FnMut(&CatalogSkill) -> Result<String, String>,
    {
        self.render(&self.turn(message, context)?, options, read)
    }

    fn check_turn(&self, turn: &Turn) -> Result<(), Error> {
        match turn.catalog == self.id {
            true => Ok(()),
            false => Err(Error::StaleTurn),
        }
    }

    /// The hits of a turn whose skills the host's model chose: the skills the message
    /// `@mentions` (a user's explicit choice stands), then those in `selected` (names,
    /// ignoring case and `-`/`_`; unknown names and repeats are left out).
    fn selected_hits(&self, message: &str, selected: &[String]) -> Result<Vec<Hit>, Error> {
        let mut hits = self.mention_hits(message)?;
        for name in selected {
            match self.index_of(name) {
                Some(skill) if !hits.iter().any(|h| h.skill == skill) => {
                    hits.push(Hit { skill, reason: Reason::Selected, position: 0, score: None });
                }
                _ => {}
            }
        }
        Ok(hits)
    }

    /// Each hit with its skill's name and why it may not be injected.
    fn with_skips(&self, hits: Vec<Hit>, context: &TurnContext) -> Vec<Candidate> {
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
                Some(Candidate { hit, name: entry.skill.name.clone(), id: entry.id.clone(), skip })
            })
            .collect()
    }

    /// Renders the eligible candidates in order under the budget, with a decision each.
    fn run<F, L>(&self, turn: &Turn, options: &RenderOptions, read: &mut F, list: &mut L) -> Injection
    where
        F: FnMut(&CatalogSkill) -> Result<String, String>,
        L: FnMut(&CatalogSkill) -> Result<Vec<ListedFile>, String>,
    {
        let mut blocks = Blocks::new(options);
        let mut decisions = Vec::new();
        let mut summary = Summary::default();
        for &Candidate { hit, skip, .. } in &turn.candidates {
            let Some(entry) = self.skills().get(hit.skill) else { continue };
            summary.candidates += 1;
            let mut decision = Decision {
                skill: entry.skill.name.clone(),
                id: entry.id.clone(),
                matched: matches!(skip, None | Some(Skip::RecentlyInjected)),
                reason: hit.reason,
                score: hit.score,
                injected_bytes: 0,
                truncated: false,
                skipped: skip,
                detail: match skip {
                    Some(Skip::Gated) => Some(crate::catalog::gate_reason(&entry.missing, entry.kept_out.as_deref())),
                    Some(Skip::Unsafe) => first_block(&entry.findings),
                    _ => None,
                },
                findings: if skip == Some(Skip::Unsafe) { entry.findings.clone() } else { Vec::new() },
            };
            if decision.matched {
                summary.matched += 1;
            }
            if skip.is_none() {
                self.render_one(hit.skill, entry, &mut blocks, &mut decision, read, list);
                summary.truncated_any |= decision.truncated;
            }
            decisions.push(decision);
        }
        let text = blocks.text;
        summary.injected_bytes = text.len();
        let message = &turn.message;
        let user_message = if text.is_empty() { message.clone() } else { format!("{text}\n\n{message}") };
        Injection { text, user_message, decisions, summary }
    }

    fn render_one<F, L>(
        &self,
        index: usize,
        entry: &CatalogSkill,
        blocks: &mut Blocks<'_>,
        decision: &mut Decision,
        read: &mut F,
        list: &mut L,
    ) where
        F: FnMut(&CatalogSkill) -> Result<String, String>,
        L: FnMut(&CatalogSkill) -> Result<Vec<ListedFile>, String>,
    {
        let options = blocks.options();
        let frame = Frame::new(options.format, &entry.skill.name);
        // Not even a block with a one-byte body fits: don't read the body.
        if blocks.full_for(&frame) {
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
        let findings = match self.scanned.findings(index, &source_text, &entry.skill.name, self.scan_policy()) {
            Ok(findings) => findings,
            Err(e) => {
                // Unscanned is not clean: the body is not injected.
                decision.skipped = Some(Skip::Unsafe);
                decision.detail = Some(e.to_string());
                return;
            }
        };
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
        // The listing goes through the same preparation as the body (a file name cannot
        // forge a delimiter either), and only into a block that fits whole with it: the
        // body is never cut, nor left out, for its sake.
        let listed = match options.list_files {
            true => list(entry).ok().and_then(|files| files_line(&files, self.limits())),
            false => None,
        };
        let with_files = listed
            .map(|line| prepare_body(&body_with_files_line(body, &line), options.format, base_dir))
            .filter(|with| blocks.fits_whole(&frame, with));
        let body = match with_files {
            Some(with) => with,
            None => prepare_body(body, options.format, base_dir),
        };
        match blocks.place(&frame, &body) {
            Placed::Whole(bytes) => decision.injected_bytes = bytes,
            Placed::Truncated(bytes) => (decision.injected_bytes, decision.truncated) = (bytes, true),
            Placed::NoRoom => decision.skipped = Some(Skip::BudgetExhausted),
        }
    }
}

/// `body` followed by the files line, after a line closing the fenced code block the body
/// leaves open (if any), so the listing is read as text, not as code.
fn body_with_files_line(body: &str, line: &str) -> String {
    let body = body.trim_end();
    match Fences::after(body).closing_line() {
        Some(close) => format!("{body}\n{close}\n\n{line}\n"),
        None => format!("{body}\n\n{line}\n"),
    }
}

/// The first blocking finding, for a decision's `detail`.
fn first_block(findings: &[Finding]) -> Option<String> {
    findings.iter().find(|f| f.blocks()).map(ToString::to_string)
}

#[cfg(test)]
mod embedding_tests;
#[cfg(test)]
mod tests;
