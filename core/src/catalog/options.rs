//! How a catalogue is built (precedence, the reading of `user-invocable: false`, limits,
//! ranking, the scan policy) and what it holds per skill.

use crate::scan::{self, Finding, ScanPolicy};
use crate::select::rank::RankOptions;
use crate::skill::limits::Limits;
use crate::skill::Skill;
use serde::{Deserialize, Serialize};

/// Which skill keeps a name that several entries share.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
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
#[serde(rename_all = "kebab-case")]
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

/// When the safety scan reads a skill's body (everything after the frontmatter). Its
/// frontmatter — what a catalogue lists — is always scanned when the catalogue is built,
/// and a body is always scanned again, as read, before a turn injects it.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScanBodies {
    /// Every body while the catalogue is built (default): a skill whose body the policy
    /// blocks is never listed nor ranked, and the build's report has every finding.
    #[default]
    AtBuild,
    /// Only when a turn reads the body to inject it, so a build does not read past each
    /// frontmatter for the scan (about 1.5× faster on the corpus). The trade: a skill whose
    /// *body* the policy blocks stays listed and ranked while the catalogue lasts (until it
    /// is rebuilt); each turn that reads its body says `unsafe` and injects nothing. Its
    /// frontmatter is scanned at build as always, so a blocked name or description is
    /// never listed.
    WhenRead,
}

/// How a catalogue is built.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct CatalogOptions {
    /// Which entry keeps a shared name (between skills from one origin, or none: across
    /// origins, see [`SkillEntry::origin`](crate::SkillEntry)).
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
    /// When bodies are scanned.
    pub scan_bodies: ScanBodies,
    /// Glob patterns over skill names (`*`, `?`, case ignored; a skill from an origin also
    /// matches as `NAME@ORIGIN`); when not empty, only the skills matching one are used.
    /// Others are gated, reported with why.
    pub allow: Vec<String>,
    /// Glob patterns over skill names: a skill matching one is gated (it wins over `allow`).
    pub deny: Vec<String>,
}

/// Options are the same when equal, or when they differ only by NaNs in the same ranking
/// fields (NaN equals nothing, itself included). What a snapshot or a refresh may reuse
/// depends on it.
pub(crate) fn same_options(a: &CatalogOptions, b: &CatalogOptions) -> bool {
    let same = |x: f64, y: f64| x == y || (x.is_nan() && y.is_nan());
    let (r, s) = (&a.rank, &b.rank);
    // Everything but the floats, compared with `==` (every field named: a new one is a
    // compile error here, not one left out of the comparison).
    let without_floats = |o: &CatalogOptions| {
        let RankOptions {
            enabled,
            max_ranked,
            headings,
            min_score: _,
            min_ratio: _,
            min_coverage: _,
            semantic_weight: _,
            min_similarity: _,
        } = o.rank;
        CatalogOptions { rank: RankOptions { enabled, max_ranked, headings, ..RankOptions::default() }, ..o.clone() }
    };
    a == b
        || (same(r.min_score, s.min_score)
            && same(r.min_ratio, s.min_ratio)
            && same(r.min_coverage, s.min_coverage)
            && same(r.semantic_weight, s.semantic_weight)
            && same(r.min_similarity, s.min_similarity)
            && without_floats(a) == without_floats(b))
}

/// One entry handed to [`Catalog::build`](crate::Catalog::build): the source it came from (its index, which
/// ranks it for precedence), its location, and its SKILL.md text or why there is none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogInput {
    /// Index of the source in the host's list of sources.
    pub source: usize,
    /// The entry's location.
    pub location: String,
    /// Where it comes from, when not the host's own store ([`SkillEntry::origin`](crate::SkillEntry)).
    pub origin: Option<String>,
    /// The host's id for the skill ([`SkillEntry::id`](crate::SkillEntry)); None: derived.
    pub id: Option<String>,
    /// The SKILL.md text, or why the source could not give it.
    pub text: Result<String, crate::SourceError>,
}

/// A skill in the catalogue, with the source it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CatalogSkill {
    /// The skill.
    pub skill: Skill,
    /// Its id: the host's ([`SkillEntry::id`](crate::SkillEntry)), else its name as its
    /// SKILL.md gives it, or `NAME@ORIGIN` for a skill from an origin (even while listed under
    /// its bare name). Unique among the catalogue's skills.
    pub id: String,
    /// Index of its source.
    pub source: usize,
    /// Where it comes from, when not the host's own store ([`SkillEntry::origin`](crate::SkillEntry)).
    pub origin: Option<String>,
    /// Requirements the host has not declared available; non-empty means gated.
    pub missing: Vec<String>,
    /// Why the allow or deny list keeps the skill out; `Some` means gated.
    pub kept_out: Option<String>,
    /// What the safety scan found in its SKILL.md (warnings and blocks).
    pub findings: Vec<Finding>,
}

impl CatalogSkill {
    /// True when the skill's requirements are not all available, or the allow or deny
    /// list keeps it out.
    pub fn gated(&self) -> bool {
        !self.missing.is_empty() || self.kept_out.is_some()
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
