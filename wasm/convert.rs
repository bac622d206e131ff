//! The one conversion layer between the WIT records (`wit/skillwire.wit`) and the core's
//! types, in both directions, for both sides of the component boundary: the guest
//! (`wasm/component`, bindings from wit-bindgen) and the wasmtime host (`host/src/wasm.rs`,
//! bindings from `wasmtime::component::bindgen!`) include this same file. Both
//! generators write a WIT record as a struct with the same field names and a WIT enum as
//! an enum with the same variant names, so one set of impls fits both; a record that
//! changes on one side stops compiling on both.
//!
//! The including module provides two names: `core` (the skillwire crate) and `wit` (the
//! generated `skillwire:engine/types` module). Conversions carry fields over; no rules.
//! Sizes are `usize` in the core and `u32` across the boundary (saturating).

use super::{core, wit};

/// A value crossing the boundary, in either direction.
pub(crate) trait Cross<T> {
    /// The same value on the other side.
    fn cross(self) -> T;
}

/// Types that are the same on both sides.
macro_rules! same {
    ($($t:ty),*) => {$(
        impl Cross<$t> for $t {
            fn cross(self) -> $t {
                self
            }
        }
    )*};
}
same!(String, bool, f32, f64, u8, u32, u64);

impl Cross<u32> for usize {
    fn cross(self) -> u32 {
        u32::try_from(self).unwrap_or(u32::MAX)
    }
}

impl Cross<usize> for u32 {
    fn cross(self) -> usize {
        usize::try_from(self).unwrap_or(usize::MAX)
    }
}

impl Cross<u32> for u64 {
    fn cross(self) -> u32 {
        u32::try_from(self).unwrap_or(u32::MAX)
    }
}

impl Cross<u64> for u32 {
    fn cross(self) -> u64 {
        u64::from(self)
    }
}

impl<A: Cross<B>, B> Cross<Vec<B>> for Vec<A> {
    fn cross(self) -> Vec<B> {
        self.into_iter().map(Cross::cross).collect()
    }
}

impl<A: Cross<B>, B> Cross<Option<B>> for Option<A> {
    fn cross(self) -> Option<B> {
        self.map(Cross::cross)
    }
}

impl<A: Cross<C>, B: Cross<D>, C, D> Cross<(C, D)> for (A, B) {
    fn cross(self) -> (C, D) {
        (self.0.cross(), self.1.cross())
    }
}

/// Records whose fields carry over one to one, both ways.
macro_rules! records {
    ($($core:path = $wit:ident { $($field:ident),* $(,)? })*) => {$(
        impl Cross<wit::$wit> for $core {
            fn cross(self) -> wit::$wit {
                wit::$wit { $($field: self.$field.cross()),* }
            }
        }
        impl Cross<$core> for wit::$wit {
            fn cross(self) -> $core {
                $core { $($field: self.$field.cross()),* }
            }
        }
    )*};
}

/// Enums whose variants carry over one to one, both ways (`Core = Wit` where the
/// generated name differs).
macro_rules! enums {
    ($($core:ident = $wit:ident { $($variant:ident $(= $wit_variant:ident)?),* $(,)? })*) => {$(
        impl Cross<wit::$wit> for core::$core {
            fn cross(self) -> wit::$wit {
                match self { $(core::$core::$variant => enums!(@wit $wit $variant $($wit_variant)?)),* }
            }
        }
        impl Cross<core::$core> for wit::$wit {
            fn cross(self) -> core::$core {
                match self { $(enums!(@wit $wit $variant $($wit_variant)?) => core::$core::$variant),* }
            }
        }
    )*};
    (@wit $wit:ident $variant:ident) => { wit::$wit::$variant };
    (@wit $wit:ident $variant:ident $wit_variant:ident) => { wit::$wit::$wit_variant };
}

enums! {
    Precedence = Precedence { FirstWins, LastWins }
    NotUserInvocable = NotUserInvocable { Hidden, MentionOnly }
    ScanBodies = ScanBodies { AtBuild, WhenRead }
    InjectFormat = InjectFormat { Bracket, Xml, Markdown }
    CatalogFormat = CatalogFormat { AgentSkills, SkillsRef, Markdown, Json }
    Action = ScanAction { Allow, Warn, Block }
    Category = ScanCategory {
        HiddenText, BidiControl, HomoglyphName, InstructionOverride, Exfiltration, DestructiveCommand
    }
    Reason = Reason { Mention, Description, Tag, Name, Rank, Selected }
    Skip = Skip { BudgetExhausted, BodyUnavailable, Gated, MentionOnly, RecentlyInjected, Unsafe }
    CompletionMatch = CompletionMatch { Prefix, Fuzzy }
    LeftOutReason = LeftOutReason { NeverCompleted, FallsBack }
    ReplyShape = ReplyShape { Object, List, Names, Unreadable }
    Provider = Provider { OpenAi = Openai, Anthropic }
    Severity = Severity { Error, Warning }
    FileKind = FileKind { Skill, Reference, Script, Asset }
    PathProblem = PathProblem { Empty, TooLong, TooDeep, Absolute, Parent, Backslash, ControlCharacter, Colon, Percent, DeviceName, TrailingDot, Hidden }
}

records! {
    core::Limits = Limits {
        max_skill_md_bytes, max_frontmatter_bytes, max_yaml_depth, max_yaml_aliases, max_message_bytes, max_skills,
        max_name_bytes, max_description_bytes, max_file_bytes, max_skill_files, max_file_path_bytes,
    }
    core::RankOptions = RankOptions {
        enabled, max_ranked, min_score, min_ratio, min_coverage, semantic_weight, min_similarity, headings,
    }
    core::ScanPolicy = ScanPolicy {
        hidden_text, bidi_control, homoglyph_name, instruction_override, exfiltration, destructive_command,
    }
    core::Finding = Finding { category, action, message, line, column, excerpt }
    core::SkillEntry = SkillEntry { location, text, origin, stamp, id }
    core::SourceError = ReadError { message, refused }
    core::ListedFile = ListedFile { path, size }
    core::SkillFile = SkillFile { path, size, kind, media_type }
    core::SkillFiles = SkillFiles { skill, files, left_out }
    core::FileContent = FileContent { skill, path, kind, media_type, size, digest, findings, body }
    core::ToolAnswer = ToolAnswer { content, is_error }
    core::TurnContext = TurnContext { recent, embedding, selected }
    core::EmbeddingText = EmbeddingText { skill, text }
    core::Match = SkillMatch { skill, id, reason, position, score }
    core::Decision = Decision { skill, id, matched, reason, score, injected_bytes, truncated, skipped, detail, findings }
    core::Summary = Summary { candidates, matched, injected_bytes, truncated_any }
    core::Injection = Injection { text, user_message, decisions, summary }
    core::SkillStats = SkillStats { skill, selected, applied, completed, fell_back }
    core::SelectOptions = SelectOptions {
        max_skills, shortlist_above, shortlist_size, never_completed_after, fallback_after, max_fallback_rate,
    }
    core::LeftOut = LeftOut { skill, reason, detail }
    core::SelectPrompt = SelectPrompt { prompt, candidates, shortlisted, left_out }
    core::Selection = Selection { skills, brief_plan, unknown, over_limit, reply }
    core::CatalogText = CatalogText { text, shortened, omitted, featured, names_only }
    core::Diagnostic = Diagnostic { severity, code, message, line, column }
    core::LintReport = LintReport { path, valid, errors, warnings, findings }
    core::SkippedSkill = SkippedSkill { location, reason, diagnostics }
    core::ShadowedSkill = ShadowedSkill { name, location, by }
    core::GatedSkill = GatedSkill { name, location, missing, kept_out }
    core::LocatedWarning = LocatedWarning { location, diagnostic }
    core::FlaggedSkill = FlaggedSkill { name, location, blocked, findings }
    core::Defaults = EngineDefaults { options, select, featured, completions }
    core::CatalogReport = CatalogReport { loaded, skipped, shadowed, gated, warnings, flagged, mention_only }
}

// The few that are not one to one.

/// `match` is a keyword in both Rust and WIT, so the generated field is `match_`.
impl Cross<wit::Completion> for core::Completion {
    fn cross(self) -> wit::Completion {
        wit::Completion { name: self.name, description: self.description, match_: self.matched.cross() }
    }
}

impl Cross<core::Completion> for wit::Completion {
    fn cross(self) -> core::Completion {
        core::Completion { name: self.name, description: self.description, matched: self.match_.cross() }
    }
}

/// WIT's options are one flat record; absent limits, scan policy and reading of
/// `user-invocable: false` are the core's defaults.
impl Cross<wit::Options> for core::Options {
    fn cross(self) -> wit::Options {
        let (catalog, render) = (self.catalog, self.render);
        wit::Options {
            precedence: catalog.precedence.cross(),
            available: catalog.available,
            format: render.format.cross(),
            budget: render.budget.cross(),
            base_dir: render.base_dir,
            min_truncated_bytes: render.min_truncated_bytes.cross(),
            list_files: render.list_files,
            rank: catalog.rank.cross(),
            limits: Some(catalog.limits.cross()),
            scan: Some(catalog.scan.cross()),
            not_user_invocable: Some(catalog.not_user_invocable.cross()),
            scan_bodies: Some(catalog.scan_bodies.cross()),
            allow: catalog.allow,
            deny: catalog.deny,
        }
    }
}

impl Cross<core::Options> for wit::Options {
    fn cross(self) -> core::Options {
        core::Options {
            catalog: core::CatalogOptions {
                precedence: self.precedence.cross(),
                available: self.available,
                limits: self.limits.cross().unwrap_or_default(),
                rank: self.rank.cross(),
                scan: self.scan.cross().unwrap_or_default(),
                not_user_invocable: self.not_user_invocable.cross().unwrap_or_default(),
                scan_bodies: self.scan_bodies.cross().unwrap_or_default(),
                allow: self.allow,
                deny: self.deny,
            },
            render: core::RenderOptions {
                format: self.format.cross(),
                budget: self.budget.cross(),
                base_dir: self.base_dir,
                min_truncated_bytes: self.min_truncated_bytes.cross(),
                list_files: self.list_files,
            },
        }
    }
}

impl Cross<wit::Error> for core::Error {
    fn cross(self) -> wit::Error {
        match self {
            core::Error::MessageTooLarge { bytes, limit } => wit::Error::MessageTooLarge((bytes, limit).cross()),
            core::Error::ReplyTooLarge { bytes, limit } => wit::Error::ReplyTooLarge((bytes, limit).cross()),
            core::Error::InvalidEmbedding { of, problem } => wit::Error::InvalidEmbedding((of, problem)),
            core::Error::StaleTurn => wit::Error::StaleTurn,
            core::Error::Unavailable { part, problem } => wit::Error::Unavailable((part, problem)),
        }
    }
}

impl Cross<core::Error> for wit::Error {
    fn cross(self) -> core::Error {
        match self {
            wit::Error::MessageTooLarge((bytes, limit)) => {
                core::Error::MessageTooLarge { bytes: bytes.cross(), limit: limit.cross() }
            }
            wit::Error::ReplyTooLarge((bytes, limit)) => {
                core::Error::ReplyTooLarge { bytes: bytes.cross(), limit: limit.cross() }
            }
            wit::Error::InvalidEmbedding((of, problem)) => core::Error::InvalidEmbedding { of, problem },
            wit::Error::StaleTurn => core::Error::StaleTurn,
            wit::Error::Unavailable((part, problem)) => core::Error::Unavailable { part, problem },
        }
    }
}

impl Cross<wit::FileBody> for core::FileBody {
    fn cross(self) -> wit::FileBody {
        match self {
            core::FileBody::Text(text) => wit::FileBody::Text(text),
            core::FileBody::Binary(bytes) => wit::FileBody::Binary(bytes),
        }
    }
}

impl Cross<core::FileBody> for wit::FileBody {
    fn cross(self) -> core::FileBody {
        match self {
            wit::FileBody::Text(text) => core::FileBody::Text(text),
            wit::FileBody::Binary(bytes) => core::FileBody::Binary(bytes),
        }
    }
}

impl Cross<wit::FileError> for core::FileError {
    fn cross(self) -> wit::FileError {
        match self {
            core::FileError::UnknownSkill { skill } => wit::FileError::UnknownSkill(skill),
            core::FileError::BlockedSkill { skill } => wit::FileError::BlockedSkill(skill),
            core::FileError::InvalidPath { path, problem } => wit::FileError::InvalidPath((path, problem.cross())),
            core::FileError::TooLarge { path, bytes, limit } => {
                wit::FileError::TooLarge((path, bytes.cross(), limit.cross()))
            }
            core::FileError::Unavailable { path, problem } => wit::FileError::Unavailable((path, problem)),
            core::FileError::Blocked { path, findings } => wit::FileError::Blocked((path, findings.cross())),
        }
    }
}

impl Cross<core::FileError> for wit::FileError {
    fn cross(self) -> core::FileError {
        match self {
            wit::FileError::UnknownSkill(skill) => core::FileError::UnknownSkill { skill },
            wit::FileError::BlockedSkill(skill) => core::FileError::BlockedSkill { skill },
            wit::FileError::InvalidPath((path, problem)) => {
                core::FileError::InvalidPath { path, problem: problem.cross() }
            }
            wit::FileError::TooLarge((path, bytes, limit)) => {
                core::FileError::TooLarge { path, bytes: bytes.cross(), limit: limit.cross() }
            }
            wit::FileError::Unavailable((path, problem)) => core::FileError::Unavailable { path, problem },
            wit::FileError::Blocked((path, findings)) => core::FileError::Blocked { path, findings: findings.cross() },
        }
    }
}

/// A tool's input schema crosses as JSON text.
impl Cross<wit::SkillTool> for core::SkillTool {
    fn cross(self) -> wit::SkillTool {
        wit::SkillTool {
            name: self.name,
            skill: self.skill,
            description: self.description,
            // Serialising a struct of strings cannot fail.
            input_schema: serde_json::to_string(&self.input_schema).unwrap_or_default(),
            max_turns: self.max_turns,
        }
    }
}

/// The host reads the schema back; text that does not parse means a broken guest.
impl Cross<Result<core::SkillTool, serde_json::Error>> for wit::SkillTool {
    fn cross(self) -> Result<core::SkillTool, serde_json::Error> {
        Ok(core::SkillTool {
            name: self.name,
            skill: self.skill,
            description: self.description,
            input_schema: serde_json::from_str(&self.input_schema)?,
            max_turns: self.max_turns,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Cross;

    #[test]
    fn sizes_saturate_at_the_boundary() {
        let big: u32 = (u64::from(u32::MAX) + 5).cross();
        assert_eq!(big, u32::MAX);
        let small: u32 = 17u64.cross();
        assert_eq!(small, 17);
        let back: u64 = u32::MAX.cross();
        assert_eq!(back, u64::from(u32::MAX));
        let count: u32 = usize::MAX.cross();
        assert_eq!(count, u32::MAX);
    }
}
