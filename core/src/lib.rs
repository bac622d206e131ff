//! # skillwire
//!
//! Agent Skills (folders with a `SKILL.md`, the agentskills.io standard) put to work
//! inside an LLM agent's turn: read the skills a host hands over, check them against
//! the standard, render the catalogue for the system prompt, decide which skills a
//! user message calls for, and inject their instructions under a hard byte budget,
//! with every decision returned as data.
//!
//! The crate does no IO: the host supplies skills through a [`SkillSource`], and every
//! output is a pure function of the inputs, byte-identical in every runtime.
//!
//! ```
//! use skillwire::{Engine, MemorySource, Options, TurnContext};
//!
//! let mut skills = MemorySource::new();
//! skills.insert(
//!     "skills/pdf/SKILL.md",
//!     "---\nname: pdf\ndescription: Fill PDF forms and merge PDF files.\n---\nUse pypdf.\n",
//! );
//! let engine = Engine::new(vec![skills], Options::default());
//!
//! let turn = engine.inject("please merge these pdf files", &TurnContext::default())?;
//! assert_eq!(turn.user_message, "[SKILL:pdf]\nUse pypdf.\n[/SKILL]\n\nplease merge these pdf files");
//! assert_eq!(turn.decisions[0].reason, skillwire::Reason::Name);
//! # Ok::<(), skillwire::Error>(())
//! ```
//!
//! Where things live, in the order a skill travels (see `docs/architecture.md`):
//! `skill/` reads one SKILL.md (frontmatter, YAML, lenient load, strict lint, limits),
//! `scan/` looks for what a stranger's skill should not slip into a model's context,
//! `catalog/` merges, gates and indexes the skills and writes them out (catalogue text,
//! `@` completion, tools), `select/` decides which skills a message calls for (rules,
//! ranking, the host model's choice), `turn/` reads and renders the chosen bodies under
//! the budget, `engine/` binds a catalogue to the host's sources, and `eval/` measures
//! routing on labelled messages. Every module is private; what a host uses is
//! re-exported here, once.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

// The README's examples are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

mod catalog;
mod engine;
mod error;
mod eval;
mod fast_hash;
mod files;
mod order;
mod parallel;
mod scan;
mod select;
mod skill;
#[cfg(test)]
mod testing;
mod text;
mod turn;

pub use catalog::complete::{Completion, CompletionMatch, DEFAULT_COMPLETIONS};
pub use catalog::text::{render_catalog, render_catalog_for, CatalogFormat, CatalogText, DEFAULT_FEATURED};
pub use catalog::tools::{
    FunctionDefinition, InputSchema, Provider, SkillTool, StringSchema, TaskProperty, ToolDefinition, ToolOptions,
};
pub use catalog::{
    glob_matches, origin_label, same_origin, Catalog, CatalogInput, CatalogOptions, CatalogReport, CatalogSkill,
    EmbeddingText, EntryUpdate, FlaggedSkill, GatedSkill, LocatedWarning, NotUserInvocable, Precedence, Relevant,
    ScanBodies, ShadowedSkill, SkippedSkill, MAX_ID_BYTES, MAX_NAME_PATTERNS, MAX_NAME_PATTERN_BYTES, MAX_ORIGIN_BYTES,
    MAX_RELEVANT,
};
#[cfg(feature = "snapshot")]
pub use catalog::{PartsBuild, SnapshotError, MAX_SNAPSHOT_BYTES};
pub use engine::source::{text_from_utf8, MemorySource, SkillEntry, SkillSource, SourceError, NO_FILES};
pub use engine::{CatalogBuild, Defaults, Embedder, Engine, Need, Options};
pub use error::Error;
pub use eval::{
    read_labelled_lines, read_trigger_evals, Competing, Count, EvalInputError, EvalReport, LabelledMessage, Miss,
    Outcome, RecallAt, SkillFigures,
};
pub use files::{
    file_kind, files_line, media_type, normalise_file_path, read_file_answer, read_file_arguments, read_file_tool,
    sha256_digest, FileBody, FileContent, FileError, FileKind, FileRequest, ListedFile, PathProblem, Property,
    ReadFileArguments, ReadFileFunction, ReadFileInput, ReadFileProperties, ReadFileTool, SkillFile, SkillFiles,
    ToolAnswer, MAX_FILES_IN_BLOCK, MAX_PATH_SEGMENTS, MAX_SEGMENT_BYTES, READ_FILE_TOOL,
};
pub use scan::{blocked, scan, Action, Category, Finding, ScanPolicy, MAX_FINDINGS};
pub use select::llm::{LeftOut, LeftOutReason, ReplyShape, SelectOptions, SelectPrompt, Selection, SkillStats};
pub use select::rank::{RankOptions, MAX_EMBEDDING_DIMENSIONS};
pub use select::rules::Reason;
pub use skill::diag::{Diagnostic, Severity};
pub use skill::limits::Limits;
pub use skill::lint::{lint, lint_with, LintOptions, LintReport};
pub use skill::{check_listed_frontmatter, frontmatter_json, listed_skill_text, load, BodySections, Loaded, Skill};
pub use text::set_nfkc_normaliser;
pub use turn::render::{block_name, parse_blocks, InjectFormat, ParsedBlock, RenderOptions};
pub use turn::{
    Decision, Injection, Match, Matches, Session, Skip, Summary, Turn, TurnContext, MAX_SESSION_SKILLS_PER_TURN,
};
