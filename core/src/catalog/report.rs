//! What building a catalogue found (loaded, skipped, shadowed, gated, flagged skills)
//! and the small records catalogue queries return.

use crate::scan::Finding;
use crate::select::rules::Reason;
use crate::skill::diag::Diagnostic;
use serde::Serialize;

/// An entry that did not become a skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedSkill {
    /// The entry's location (empty for a source whose listing failed).
    pub location: String,
    /// Why, in one line.
    pub reason: String,
    /// Everything the loader found.
    pub diagnostics: Vec<Diagnostic>,
}

/// A skill that lost its name to another entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "snapshot", derive(serde::Deserialize))]
pub struct ShadowedSkill {
    /// The shared name.
    pub name: String,
    /// The shadowed skill's location.
    pub location: String,
    /// The location of the skill that kept the name.
    pub by: String,
}

/// A skill left out because the host lacks an integration it requires.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GatedSkill {
    /// The skill's name.
    pub name: String,
    /// Its location.
    pub location: String,
    /// The requirements not met.
    pub missing: Vec<String>,
    /// Why the allow or deny list keeps it out, when it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept_out: Option<String>,
}

impl GatedSkill {
    /// Why it is gated, as a sentence: the allow or deny list's reason, then the
    /// requirements not met (`requires github, jira`).
    pub fn reason(&self) -> String {
        gate_reason(&self.missing, self.kept_out.as_deref())
    }
}

/// Why a skill is gated (see [`GatedSkill::reason`]).
pub(crate) fn gate_reason(missing: &[String], kept_out: Option<&str>) -> String {
    let requires = (!missing.is_empty()).then(|| format!("requires {}", missing.join(", ")));
    kept_out.map(str::to_owned).into_iter().chain(requires).collect::<Vec<_>>().join("; ")
}

/// A skill the safety scan found something in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "snapshot", derive(serde::Deserialize))]
pub struct FlaggedSkill {
    /// The skill's name.
    pub name: String,
    /// Its location.
    pub location: String,
    /// True when a finding blocks it.
    pub blocked: bool,
    /// The findings, in text order.
    pub findings: Vec<Finding>,
}

impl FlaggedSkill {
    /// What the safety report says of `entry`: `None` when the scan found nothing in it.
    pub(crate) fn of(entry: &super::CatalogSkill) -> Option<FlaggedSkill> {
        (!entry.findings.is_empty()).then(|| FlaggedSkill {
            name: entry.skill.name.clone(),
            location: entry.skill.location.clone(),
            blocked: crate::scan::blocked(&entry.findings),
            findings: entry.findings.clone(),
        })
    }
}

/// A warning about a skill that loaded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LocatedWarning {
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
    /// Entries that did not load, could not be read, came past the limit of skills, or
    /// repeat an id another skill holds.
    pub skipped: Vec<SkippedSkill>,
    /// Skills that lost their name to another entry.
    pub shadowed: Vec<ShadowedSkill>,
    /// Skills left out for missing integrations.
    pub gated: Vec<GatedSkill>,
    /// Skills with safety findings, blocked or not (shadowed ones included).
    pub flagged: Vec<FlaggedSkill>,
    /// Warnings about skills that loaded.
    pub warnings: Vec<LocatedWarning>,
    /// Skills that fire only when `@mentioned` (`disable-model-invocation: true`, or
    /// `user-invocable: false` read as [`NotUserInvocable::MentionOnly`](crate::NotUserInvocable::MentionOnly)), by name.
    pub mention_only: Vec<String>,
}

/// Most skills [`Catalog::relevant`](crate::Catalog::relevant) returns (and a catalogue for one turn features):
/// past a few dozen, relevance says little, and the work grows with the number asked.
pub const MAX_RELEVANT: usize = 100;

/// A skill relevant to a message ([`Catalog::relevant`](crate::Catalog::relevant)).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
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

/// A text a host embeds for one skill ([`Catalog::embedding_texts`](crate::Catalog::embedding_texts)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EmbeddingText {
    /// The skill's name.
    pub skill: String,
    /// What to embed: name, description and tags.
    pub text: String,
}
