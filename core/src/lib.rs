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
//! use skillwire::{Engine, MemorySource, Options};
//!
//! let mut skills = MemorySource::new();
//! skills.insert(
//!     "skills/pdf/SKILL.md",
//!     "---\nname: pdf\ndescription: Fill PDF forms and merge PDF files.\n---\nUse pypdf.\n",
//! );
//! let engine = Engine::new(vec![skills], Options::default());
//!
//! let turn = engine.inject("please merge these pdf files")?;
//! assert_eq!(turn.user_message, "[SKILL:pdf]\nUse pypdf.\n[/SKILL]\n\nplease merge these pdf files");
//! assert_eq!(turn.decisions[0].reason, skillwire::Reason::Name);
//! # Ok::<(), skillwire::Error>(())
//! ```
//!
//! Where things live: [`frontmatter`] splits a SKILL.md, [`yaml`] reads its
//! frontmatter, [`skill`] loads it leniently, [`lint`] checks it strictly,
//! [`catalog`] merges and gates skills, [`catalog_text`] renders the catalogue,
//! [`complete`] offers skill names for `@` as a user types,
//! [`matching`] applies the mention and substring rules, [`rank`] finds skills for
//! messages in the user's own words, [`scan`] looks for what a stranger's skill should
//! not slip into a model's context, [`select`] lets the host's model choose skills,
//! [`tools`] offers skills as tools a model can call, [`render`] writes the blocks, [`turn`] runs a
//! turn, [`engine`] binds a catalogue to its sources.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

// The README's examples are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

pub mod catalog;
pub mod catalog_text;
pub mod complete;
pub mod diag;
pub mod engine;
pub mod error;
pub mod eval;
pub mod frontmatter;
pub mod limits;
pub mod lint;
pub mod location;
pub mod matching;
pub mod rank;
pub mod render;
pub mod scan;
pub mod select;
pub mod skill;
pub mod source;
pub mod tools;
mod triggers;
pub mod turn;
mod words;
pub mod yaml;

pub use catalog::{
    Catalog, CatalogInput, CatalogOptions, CatalogReport, CatalogSkill, EmbeddingText, NotUserInvocable, Precedence,
    Relevant,
};
pub use catalog_text::{render_catalog, render_catalog_for, CatalogFormat, CatalogText, DEFAULT_FEATURED};
pub use complete::{Completion, CompletionMatch};
pub use diag::{Diagnostic, Severity};
pub use engine::{Embedder, Engine, Options};
pub use error::Error;
pub use eval::{read_labelled_lines, read_trigger_evals, EvalInputError, EvalReport, LabelledMessage, Outcome};
pub use limits::Limits;
pub use lint::{lint, lint_with, LintOptions, LintReport};
pub use matching::Reason;
pub use rank::{RankOptions, MAX_EMBEDDING_DIMENSIONS};
pub use render::{block_name, parse_blocks, InjectFormat, RenderOptions};
pub use scan::{Action, Category, Finding, ScanPolicy};
pub use select::{LeftOut, LeftOutReason, ReplyShape, SelectOptions, SelectPrompt, Selection, SkillStats};
pub use skill::{load, Loaded, Skill};
pub use source::{MemorySource, SkillEntry, SkillSource, SourceError};
pub use tools::{Provider, SkillTool, ToolDefinition, ToolOptions};
pub use turn::{Decision, Injection, Match, Matches, Session, Skip, Summary, TurnContext};
