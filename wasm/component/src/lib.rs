//! skillwire's WebAssembly component: the WIT world `skillwire-component`
//! (`wit/skillwire.wit`) implemented over the core. Glue only: conversions between
//! WIT records and core types, and a `SkillSource` that calls the host's imports.
//! Every rule lives in the `skillwire` crate.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

wit_bindgen::generate!({
    path: "../../wit",
    world: "skillwire-component",
});

use exports::skillwire::engine::api::{self, GuestEngine};
use skillwire::engine::skill_source as host;
use skillwire::engine::types as wit;

// The core crate, renamed in Cargo.toml: the generated module `skillwire` (the WIT
// package's namespace) would shadow it.
use skillwire_core as core;
use std::cell::RefCell;

/// A host source, seen by the core.
struct HostSource(u32);

impl core::SkillSource for HostSource {
    fn list(&self) -> Result<Vec<core::SkillEntry>, core::SourceError> {
        host::list(self.0)
            .map(|entries| {
                entries.into_iter().map(|e| core::SkillEntry { location: e.location, text: e.text }).collect()
            })
            .map_err(core::SourceError)
    }

    fn read(&self, location: &str) -> Result<String, core::SourceError> {
        host::read(self.0, location).map_err(core::SourceError)
    }
}

struct Component;

/// The exported resource; `refresh` needs to rebuild through `&self`.
struct Engine(RefCell<core::Engine<HostSource>>);

fn u32_of(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn limits_from(l: wit::Limits) -> core::Limits {
    let n = |v: u32| v as usize;
    core::Limits {
        max_skill_md_bytes: n(l.max_skill_md_bytes),
        max_frontmatter_bytes: n(l.max_frontmatter_bytes),
        max_yaml_depth: n(l.max_yaml_depth),
        max_yaml_aliases: n(l.max_yaml_aliases),
        max_message_bytes: n(l.max_message_bytes),
        max_skills: n(l.max_skills),
        max_name_bytes: n(l.max_name_bytes),
        max_description_bytes: n(l.max_description_bytes),
    }
}

fn action_from(a: wit::ScanAction) -> core::Action {
    match a {
        wit::ScanAction::Allow => core::Action::Allow,
        wit::ScanAction::Warn => core::Action::Warn,
        wit::ScanAction::Block => core::Action::Block,
    }
}

fn scan_policy_from(p: wit::ScanPolicy) -> core::ScanPolicy {
    core::ScanPolicy {
        hidden_text: action_from(p.hidden_text),
        bidi_control: action_from(p.bidi_control),
        homoglyph_name: action_from(p.homoglyph_name),
        instruction_override: action_from(p.instruction_override),
        exfiltration: action_from(p.exfiltration),
        destructive_command: action_from(p.destructive_command),
    }
}

fn finding(f: core::Finding) -> wit::Finding {
    wit::Finding {
        category: match f.category {
            core::Category::HiddenText => wit::ScanCategory::HiddenText,
            core::Category::BidiControl => wit::ScanCategory::BidiControl,
            core::Category::HomoglyphName => wit::ScanCategory::HomoglyphName,
            core::Category::InstructionOverride => wit::ScanCategory::InstructionOverride,
            core::Category::Exfiltration => wit::ScanCategory::Exfiltration,
            core::Category::DestructiveCommand => wit::ScanCategory::DestructiveCommand,
        },
        action: match f.action {
            core::Action::Allow => wit::ScanAction::Allow,
            core::Action::Warn => wit::ScanAction::Warn,
            core::Action::Block => wit::ScanAction::Block,
        },
        message: f.message,
        line: u32_of(f.line),
        column: u32_of(f.column),
        excerpt: f.excerpt,
    }
}

fn format_from(format: wit::CatalogFormat) -> core::CatalogFormat {
    match format {
        wit::CatalogFormat::Agentskills => core::CatalogFormat::AgentSkills,
        wit::CatalogFormat::SkillsRef => core::CatalogFormat::SkillsRef,
        wit::CatalogFormat::Markdown => core::CatalogFormat::Markdown,
        wit::CatalogFormat::Json => core::CatalogFormat::Json,
    }
}

fn catalog_text(t: core::CatalogText) -> wit::CatalogText {
    wit::CatalogText {
        text: t.text,
        shortened: t.shortened,
        omitted: t.omitted,
        featured: t.featured,
        names_only: t.names_only,
    }
}

fn options_from(o: wit::Options) -> core::Options {
    core::Options {
        catalog: core::CatalogOptions {
            precedence: match o.precedence {
                wit::Precedence::FirstWins => core::Precedence::FirstWins,
                wit::Precedence::LastWins => core::Precedence::LastWins,
            },
            available: o.available,
            limits: o.limits.map(limits_from).unwrap_or_default(),
            rank: core::RankOptions {
                enabled: o.rank.enabled,
                max_ranked: o.rank.max_ranked as usize,
                min_score: o.rank.min_score,
                min_ratio: o.rank.min_ratio,
                min_coverage: o.rank.min_coverage,
                semantic_weight: o.rank.semantic_weight,
                min_similarity: o.rank.min_similarity,
                headings: o.rank.headings,
            },
            scan: o.scan.map(scan_policy_from).unwrap_or_default(),
            not_user_invocable: match o.not_user_invocable {
                None | Some(wit::NotUserInvocable::Hidden) => core::NotUserInvocable::Hidden,
                Some(wit::NotUserInvocable::MentionOnly) => core::NotUserInvocable::MentionOnly,
            },
        },
        render: core::RenderOptions {
            format: match o.format {
                wit::InjectFormat::Bracket => core::InjectFormat::Bracket,
                wit::InjectFormat::Xml => core::InjectFormat::Xml,
                wit::InjectFormat::Markdown => core::InjectFormat::Markdown,
            },
            budget: o.budget as usize,
            base_dir: o.base_dir,
            min_truncated_bytes: o.min_truncated_bytes as usize,
        },
    }
}

fn reason(r: core::Reason) -> wit::Reason {
    match r {
        core::Reason::Mention => wit::Reason::Mention,
        core::Reason::Description => wit::Reason::Description,
        core::Reason::Tag => wit::Reason::Tag,
        core::Reason::Name => wit::Reason::Name,
        core::Reason::Rank => wit::Reason::Rank,
        core::Reason::Selected => wit::Reason::Selected,
    }
}

fn skip(s: core::Skip) -> wit::Skip {
    match s {
        core::Skip::BudgetExhausted => wit::Skip::BudgetExhausted,
        core::Skip::BodyUnavailable => wit::Skip::BodyUnavailable,
        core::Skip::Gated => wit::Skip::Gated,
        core::Skip::MentionOnly => wit::Skip::MentionOnly,
        core::Skip::RecentlyInjected => wit::Skip::RecentlyInjected,
        core::Skip::Unsafe => wit::Skip::Unsafe,
    }
}

fn diagnostic(d: core::Diagnostic) -> wit::Diagnostic {
    wit::Diagnostic {
        severity: match d.severity {
            core::Severity::Error => wit::Severity::Error,
            core::Severity::Warning => wit::Severity::Warning,
        },
        code: d.code,
        message: d.message,
        line: d.line.map(u32_of),
        column: d.column.map(u32_of),
    }
}

fn error(e: core::Error) -> wit::Error {
    match e {
        core::Error::MessageTooLarge { bytes, limit } => wit::Error::MessageTooLarge((bytes as u64, limit as u64)),
        core::Error::ReplyTooLarge { bytes, limit } => wit::Error::ReplyTooLarge((bytes as u64, limit as u64)),
        core::Error::InvalidEmbedding { of, problem } => wit::Error::InvalidEmbedding((of, problem)),
    }
}

impl api::Guest for Component {
    type Engine = Engine;

    fn lint(
        location: String,
        text: String,
        extensions: bool,
        limits: Option<wit::Limits>,
        scan: Option<wit::ScanPolicy>,
    ) -> wit::LintReport {
        let options = core::LintOptions {
            limits: limits.map(limits_from).unwrap_or_default(),
            extensions,
            scan: scan.map(scan_policy_from).unwrap_or_default(),
        };
        let r = core::lint_with(&location, &text, &options);
        wit::LintReport {
            path: r.path,
            valid: r.valid,
            errors: r.errors,
            warnings: r.warnings.into_iter().map(diagnostic).collect(),
            findings: r.findings.into_iter().map(finding).collect(),
        }
    }
}

fn injection(t: core::Injection) -> wit::Injection {
    wit::Injection {
        text: t.text,
        user_message: t.user_message,
        decisions: t
            .decisions
            .into_iter()
            .map(|d| wit::Decision {
                skill: d.skill,
                matched: d.matched,
                reason: reason(d.reason),
                score: d.score,
                injected_bytes: u32_of(d.injected_bytes),
                truncated: d.truncated,
                skipped: d.skipped.map(skip),
                detail: d.detail,
                findings: d.findings.into_iter().map(finding).collect(),
            })
            .collect(),
        summary: wit::Summary {
            candidates: u32_of(t.summary.candidates),
            matched: u32_of(t.summary.matched),
            injected_bytes: u32_of(t.summary.injected_bytes),
            truncated_any: t.summary.truncated_any,
        },
    }
}

fn turn_context(turn: wit::TurnContext) -> core::TurnContext {
    core::TurnContext { recent: turn.recent, embedding: turn.embedding }
}

impl GuestEngine for Engine {
    fn embedding_texts(&self) -> Vec<wit::EmbeddingText> {
        let texts = self.0.borrow().embedding_texts();
        texts.into_iter().map(|t| wit::EmbeddingText { skill: t.skill, text: t.text }).collect()
    }

    fn set_embeddings(&self, vectors: Vec<(String, Vec<f32>)>) -> Result<u32, wit::Error> {
        self.0.borrow_mut().set_embeddings(vectors).map(u32_of).map_err(error)
    }

    fn new(sources: u32, options: wit::Options) -> Self {
        Engine(RefCell::new(core::Engine::new((0..sources).map(HostSource).collect(), options_from(options))))
    }

    fn refresh(&self) {
        self.0.borrow_mut().refresh();
    }

    fn report(&self) -> wit::CatalogReport {
        let r = self.0.borrow().catalog().report().clone();
        wit::CatalogReport {
            loaded: u32_of(r.loaded),
            skipped: r
                .skipped
                .into_iter()
                .map(|s| wit::SkippedSkill {
                    location: s.location,
                    reason: s.reason,
                    diagnostics: s.diagnostics.into_iter().map(diagnostic).collect(),
                })
                .collect(),
            shadowed: r
                .shadowed
                .into_iter()
                .map(|s| wit::ShadowedSkill { name: s.name, location: s.location, by: s.by })
                .collect(),
            gated: r
                .gated
                .into_iter()
                .map(|g| wit::GatedSkill { name: g.name, location: g.location, missing: g.missing })
                .collect(),
            warnings: r
                .warnings
                .into_iter()
                .map(|w| wit::LocatedWarning { location: w.location, diagnostic: diagnostic(w.diagnostic) })
                .collect(),
            flagged: r
                .flagged
                .into_iter()
                .map(|f| wit::FlaggedSkill {
                    name: f.name,
                    location: f.location,
                    blocked: f.blocked,
                    findings: f.findings.into_iter().map(finding).collect(),
                })
                .collect(),
            mention_only: r.mention_only,
        }
    }

    fn match_(&self, message: String, turn: wit::TurnContext) -> Result<Vec<wit::SkillMatch>, wit::Error> {
        let matches = self.0.borrow().matches_turn(&message, &turn_context(turn)).map_err(error)?;
        Ok(matches
            .into_iter()
            .map(|m| wit::SkillMatch {
                skill: m.skill,
                reason: reason(m.reason),
                position: u32_of(m.position),
                score: m.score,
            })
            .collect())
    }

    fn inject(&self, message: String, turn: wit::TurnContext) -> Result<wit::Injection, wit::Error> {
        self.0.borrow().inject_turn(&message, &turn_context(turn)).map(injection).map_err(error)
    }

    fn inject_selected(
        &self,
        message: String,
        selected: Vec<String>,
        turn: wit::TurnContext,
    ) -> Result<wit::Injection, wit::Error> {
        self.0.borrow().inject_selected(&message, &selected, &turn_context(turn)).map(injection).map_err(error)
    }

    fn select_prompt(
        &self,
        message: String,
        turn: wit::TurnContext,
        stats: Vec<wit::SkillStats>,
        options: wit::SelectOptions,
    ) -> Result<wit::SelectPrompt, wit::Error> {
        let stats: Vec<core::SkillStats> = stats
            .into_iter()
            .map(|s| core::SkillStats {
                skill: s.skill,
                selected: s.selected,
                applied: s.applied,
                completed: s.completed,
                fell_back: s.fell_back,
            })
            .collect();
        let options = core::SelectOptions {
            max_skills: options.max_skills as usize,
            shortlist_above: options.shortlist_above as usize,
            shortlist_size: options.shortlist_size as usize,
            never_completed_after: options.never_completed_after,
            fallback_after: options.fallback_after,
            max_fallback_rate: options.max_fallback_rate,
        };
        let p = self.0.borrow().select_prompt(&message, &turn_context(turn), &stats, &options).map_err(error)?;
        Ok(wit::SelectPrompt {
            prompt: p.prompt,
            candidates: p.candidates,
            shortlisted: p.shortlisted,
            left_out: p
                .left_out
                .into_iter()
                .map(|l| wit::LeftOut {
                    skill: l.skill,
                    reason: match l.reason {
                        core::LeftOutReason::NeverCompleted => wit::LeftOutReason::NeverCompleted,
                        core::LeftOutReason::FallsBack => wit::LeftOutReason::FallsBack,
                    },
                    detail: l.detail,
                })
                .collect(),
        })
    }

    fn select_parse(&self, reply: String, max_skills: u32) -> Result<wit::Selection, wit::Error> {
        let s = self.0.borrow().select_parse(&reply, max_skills as usize).map_err(error)?;
        Ok(wit::Selection {
            skills: s.skills,
            brief_plan: s.brief_plan,
            unknown: s.unknown,
            over_limit: s.over_limit,
            reply: match s.reply {
                core::ReplyShape::Object => wit::ReplyShape::Object,
                core::ReplyShape::List => wit::ReplyShape::List,
                core::ReplyShape::Names => wit::ReplyShape::Names,
                core::ReplyShape::Unreadable => wit::ReplyShape::Unreadable,
            },
        })
    }

    fn tools(&self, exclude: Vec<String>) -> Vec<wit::SkillTool> {
        let tools = self.0.borrow().tools(&core::ToolOptions { exclude });
        tools
            .into_iter()
            .map(|t| wit::SkillTool {
                name: t.name,
                skill: t.skill,
                description: t.description,
                input_schema: serde_json::to_string(&t.input_schema).unwrap_or_default(),
                max_turns: t.max_turns,
            })
            .collect()
    }

    fn tool_definitions(&self, provider: wit::Provider, exclude: Vec<String>) -> String {
        let provider = match provider {
            wit::Provider::Openai => core::Provider::OpenAi,
            wit::Provider::Anthropic => core::Provider::Anthropic,
        };
        let definitions = self.0.borrow().tool_definitions(provider, &core::ToolOptions { exclude });
        serde_json::to_string(&definitions).unwrap_or_default()
    }

    fn complete(&self, typed: String, limit: u32) -> Vec<wit::Completion> {
        let completions = self.0.borrow().complete(&typed, limit as usize);
        completions
            .into_iter()
            .map(|c| wit::Completion {
                name: c.name,
                description: c.description,
                match_: match c.matched {
                    core::CompletionMatch::Prefix => wit::CompletionMatch::Prefix,
                    core::CompletionMatch::Fuzzy => wit::CompletionMatch::Fuzzy,
                },
            })
            .collect()
    }

    fn catalog(&self, format: wit::CatalogFormat, budget: Option<u32>) -> wit::CatalogText {
        let t = self.0.borrow().catalog_text(format_from(format), budget.map(|b| b as usize));
        catalog_text(t)
    }

    fn catalog_for(
        &self,
        message: String,
        turn: wit::TurnContext,
        featured: u32,
        format: wit::CatalogFormat,
        budget: Option<u32>,
    ) -> Result<wit::CatalogText, wit::Error> {
        let engine = self.0.borrow();
        let format = format_from(format);
        let t = engine
            .catalog_for(&message, &turn_context(turn), featured as usize, format, budget.map(|b| b as usize))
            .map_err(error)?;
        Ok(catalog_text(t))
    }
}

export!(Component);
