//! What a turn returns: the rules' matches, and for each candidate a [`Decision`] with
//! the [`Injection`]'s text and totals.

use crate::scan::Finding;
use crate::select::rules::Reason;
use serde::Serialize;

/// A skill the rules select for a message (no body read).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Match {
    /// The skill's name.
    pub skill: String,
    /// The skill's id ([`CatalogSkill::id`](crate::CatalogSkill)): the host's, or derived
    /// from its name.
    pub id: String,
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
#[serde(rename_all = "kebab-case")]
pub enum Skip {
    /// The budget had no room left for it.
    BudgetExhausted,
    /// Its SKILL.md could not be read, or no longer has a body.
    BodyUnavailable,
    /// It requires integrations the host lacks.
    Gated,
    /// It opts out of automatic use and was not `@mentioned`.
    MentionOnly,
    /// Its body is still in the model's context from a recent turn
    /// ([`TurnContext::recent`](crate::TurnContext::recent)).
    RecentlyInjected,
    /// The safety scan found something the host's policy blocks, in the SKILL.md the
    /// catalogue was built from or in the one read for this turn (see `findings`).
    Unsafe,
}

/// What happened to one candidate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decision {
    /// The skill's name.
    pub skill: String,
    /// The skill's id ([`CatalogSkill::id`](crate::CatalogSkill)): the host's, or derived
    /// from its name.
    pub id: String,
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
    /// More about a skip (the read error, the missing integrations, the first
    /// blocking finding).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// What the safety scan found in the skill's SKILL.md: why it was blocked, or the
    /// warnings about a skill that was injected anyway.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<Finding>,
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
