//! The safety scan: what in a SKILL.md written by a stranger should not reach a model
//! unread.
//!
//! Six categories, each with an [`Action`] the host chooses in a [`ScanPolicy`]:
//!
//! - [`Category::HiddenText`]: text a reader cannot see — Unicode tag characters
//!   (decoded into the finding, since they usually spell an instruction), zero-width
//!   and other invisible formatting characters, control characters (NUL, ESC, …).
//!   A zero-width joiner or non-joiner counts only between two ASCII letters or
//!   digits, since elsewhere (emoji sequences, Persian, Indic scripts) it is ordinary.
//!   And an HTML comment outside fenced code that speaks to the model: Markdown viewers
//!   hide it from the person reviewing the skill.
//! - [`Category::BidiControl`]: bidirectional embeddings, overrides and isolates,
//!   which make text display in another order than the model reads it.
//! - [`Category::HomoglyphName`]: a name that looks like ASCII but is not: Cyrillic,
//!   Greek or other look-alike letters mixed with Latin ones, or a name made only of
//!   look-alikes (`рdf` impersonating `pdf`).
//! - [`Category::InstructionOverride`]: phrasing aimed at the model rather than at
//!   the task — "ignore previous instructions", "do not tell the user", "reveal your
//!   system prompt", chat-template role markers.
//! - [`Category::Exfiltration`]: credential files or the whole environment sent over
//!   the network (a network command and a secret within a few lines of each other).
//!   An API key in an `Authorization` header is how APIs are called, not exfiltration.
//! - [`Category::DestructiveCommand`]: commands that wipe a machine — `rm -rf` of `/`,
//!   `~` or a system directory, `mkfs`, `dd` onto a device, a fork bomb, `DROP DATABASE`.
//!   `rm -rf` of a project path and fetch-and-run installers (`curl … | sh`) are how
//!   real skills install and clean up; they are not findings.
//!
//! Phrases start from trigger words found, case-insensitively, where a word starts
//! (`triggers.rs`: one table look-up at each place one can start); each trigger is confirmed by reading the few
//! words around it across line breaks, extra spaces and invisible characters
//! (`ignore\n  all previous instructions`). A word split by an invisible character
//! (`ig\u{200B}nore`) is not a trigger, but the character is itself a `hidden-text`
//! finding. A scan costs one pass over the text plus a few words per trigger, and
//! reports at most [`MAX_FINDINGS`]: past them, a finding that blocks takes a warning's
//! place (warnings never hide what blocks), and once they are held with one that blocks,
//! the scan stops.
mod blocks;
mod cache;
mod commands;
mod comments;
mod decoded;
mod hidden;

pub(crate) use hidden::unseen_in_text;
mod phrases;
mod triggers;

pub(crate) use cache::ScanCache;
use comments::hidden_comments;
pub(crate) use decoded::{scan_loaded, scan_skill_file, scan_skill_md};
use hidden::{homoglyph_name, invisible_characters, invisible_kind, is_bidi_control, is_tag};
use phrases::phrases;

use crate::error::Error;
use crate::order;
use serde::{Deserialize, Serialize};

/// Most findings one scan reports (findings that block are kept before warnings).
pub const MAX_FINDINGS: usize = 32;
/// Longest excerpt a finding carries, in characters.
const MAX_EXCERPT_CHARS: usize = 80;
/// Lines within which a network command and a secret count as one exfiltration.
const EXFILTRATION_WINDOW_LINES: usize = 3;

/// What a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    /// Invisible text: tag characters, zero-width and control characters.
    HiddenText,
    /// Bidirectional embedding, override and isolate controls.
    BidiControl,
    /// A name written with look-alike letters.
    HomoglyphName,
    /// Phrasing that tells the model to drop its instructions or hide things.
    InstructionOverride,
    /// Secrets or the environment sent over the network.
    Exfiltration,
    /// Commands that wipe a machine or a database.
    DestructiveCommand,
}

impl Category {
    /// Every category, in the order findings are listed in documentation.
    pub const ALL: [Category; 6] = [
        Category::HiddenText,
        Category::BidiControl,
        Category::HomoglyphName,
        Category::InstructionOverride,
        Category::Exfiltration,
        Category::DestructiveCommand,
    ];

    /// The category's name as written in JSON and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::HiddenText => "hidden-text",
            Category::BidiControl => "bidi-control",
            Category::HomoglyphName => "homoglyph-name",
            Category::InstructionOverride => "instruction-override",
            Category::Exfiltration => "exfiltration",
            Category::DestructiveCommand => "destructive-command",
        }
    }

    /// The category named `name` (as [`Category::as_str`] writes it; `_` for `-` is
    /// accepted too, as in the [`ScanPolicy`] field names).
    pub fn parse(name: &str) -> Option<Category> {
        let name = name.replace('_', "-");
        Category::ALL.into_iter().find(|c| c.as_str() == name)
    }
}

/// What a host does with a category's findings.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// Don't look for it.
    Allow,
    /// Report it; the skill is still used.
    Warn,
    /// Report it and never inject the skill: it stays out of the catalogue text and
    /// out of ranking, and a turn that names it says `unsafe`.
    Block,
}

impl Action {
    /// The action's name as written in JSON and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Allow => "allow",
            Action::Warn => "warn",
            Action::Block => "block",
        }
    }

    /// The action named `name` (`allow`, `warn` or `block`).
    pub fn parse(name: &str) -> Option<Action> {
        [Action::Allow, Action::Warn, Action::Block].into_iter().find(|a| a.as_str() == name)
    }
}

/// The action for each category. The defaults block what has no innocent use in a
/// SKILL.md and warn about what real skills sometimes contain for good reasons: on
/// the 250 public skills in the test corpus they block nothing (see
/// `docs/safety.md`).
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ScanPolicy {
    /// Invisible text (default `block`).
    pub hidden_text: Action,
    /// Bidi controls (default `block`).
    pub bidi_control: Action,
    /// Look-alike names (default `block`).
    pub homoglyph_name: Action,
    /// Instruction overrides aimed at the model (default `block`).
    pub instruction_override: Action,
    /// Secrets sent over the network (default `block`).
    pub exfiltration: Action,
    /// Destructive commands (default `warn`: a skill may document what not to run).
    pub destructive_command: Action,
}

impl Default for ScanPolicy {
    fn default() -> Self {
        ScanPolicy {
            hidden_text: Action::Block,
            bidi_control: Action::Block,
            homoglyph_name: Action::Block,
            instruction_override: Action::Block,
            exfiltration: Action::Block,
            destructive_command: Action::Warn,
        }
    }
}

impl ScanPolicy {
    /// A policy that looks for nothing.
    pub fn allow_all() -> ScanPolicy {
        ScanPolicy::uniform(Action::Allow)
    }

    /// The same action for every category.
    pub fn uniform(action: Action) -> ScanPolicy {
        ScanPolicy {
            hidden_text: action,
            bidi_control: action,
            homoglyph_name: action,
            instruction_override: action,
            exfiltration: action,
            destructive_command: action,
        }
    }

    /// The action for `category`.
    pub fn action(&self, category: Category) -> Action {
        match category {
            Category::HiddenText => self.hidden_text,
            Category::BidiControl => self.bidi_control,
            Category::HomoglyphName => self.homoglyph_name,
            Category::InstructionOverride => self.instruction_override,
            Category::Exfiltration => self.exfiltration,
            Category::DestructiveCommand => self.destructive_command,
        }
    }

    /// Sets the action for `category`.
    pub fn set(&mut self, category: Category, action: Action) {
        let slot = match category {
            Category::HiddenText => &mut self.hidden_text,
            Category::BidiControl => &mut self.bidi_control,
            Category::HomoglyphName => &mut self.homoglyph_name,
            Category::InstructionOverride => &mut self.instruction_override,
            Category::Exfiltration => &mut self.exfiltration,
            Category::DestructiveCommand => &mut self.destructive_command,
        };
        *slot = action;
    }

    fn looks_for(&self, category: Category) -> bool {
        self.action(category) != Action::Allow
    }
}

/// One thing the scan found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "snapshot", derive(serde::Deserialize))]
pub struct Finding {
    /// What it is about.
    pub category: Category,
    /// What the policy does with it (`warn` or `block`).
    pub action: Action,
    /// A sentence for a person.
    pub message: String,
    /// 1-based line in the SKILL.md.
    pub line: usize,
    /// 1-based column (in characters).
    pub column: usize,
    /// The text found, invisible characters written as `<U+XXXX>`, at most 80 characters.
    pub excerpt: String,
}

impl Finding {
    /// True when the policy blocks the skill for this finding.
    pub fn blocks(&self) -> bool {
        self.action == Action::Block
    }
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (action, category) = (self.action.as_str(), self.category.as_str());
        write!(f, "{action}[{category}] {}:{}: {}", self.line, self.column, self.message)
    }
}

/// Scans a SKILL.md whose frontmatter names the skill `name` (pass the loaded name,
/// or `None` when it did not load). Findings are in text order (the name's first),
/// at most [`MAX_FINDINGS`]. [`Error::Unavailable`] when the scan cannot run (its trigger
/// table could not be made): a skill is then treated as unscanned, never as clean.
pub fn scan(text: &str, name: Option<&str>, policy: &ScanPolicy) -> Result<Vec<Finding>, Error> {
    let mut out = Findings { text, lines: LineCounter::default(), policy, list: Vec::new(), blocks: false };
    if let Some(name) = name {
        if policy.looks_for(Category::HomoglyphName) {
            homoglyph_name(&mut out, name);
        }
    }
    if policy.looks_for(Category::HiddenText) || policy.looks_for(Category::BidiControl) {
        invisible_characters(&mut out);
    }
    if policy.looks_for(Category::HiddenText) {
        hidden_comments(&mut out);
    }
    if [Category::InstructionOverride, Category::Exfiltration, Category::DestructiveCommand]
        .into_iter()
        .any(|c| policy.looks_for(c))
    {
        phrases(&mut out)?;
    }
    order::sort_by_key(&mut out.list, |f| (f.line, f.column));
    keep_at_most(&mut out.list);
    Ok(out.list)
}

/// `findings` cut to [`MAX_FINDINGS`], warnings left out from the end first: whether a
/// skill is blocked never depends on how many warnings came before what blocks it.
pub(crate) fn keep_at_most(findings: &mut Vec<Finding>) {
    while findings.len() > MAX_FINDINGS {
        match findings.iter().rposition(|f| !f.blocks()) {
            Some(warning) => {
                findings.remove(warning);
            }
            None => findings.truncate(MAX_FINDINGS),
        }
    }
}

/// Lines of offsets asked for in increasing order, counted from the last answer
/// (findings are rare: no table of every line is built).
#[derive(Default)]
struct LineCounter {
    /// The last offset asked for, the 0-based line holding it, and where that line starts.
    offset: usize,
    line: usize,
    line_start: usize,
}

impl LineCounter {
    /// The 0-based line holding byte `offset`, and where that line starts.
    fn locate(&mut self, text: &str, offset: usize) -> (usize, usize) {
        if offset < self.offset {
            *self = LineCounter::default();
        }
        let span = text.as_bytes().get(self.offset..offset).unwrap_or_default();
        for (i, &b) in span.iter().enumerate() {
            if b == b'\n' {
                self.line += 1;
                self.line_start = self.offset + i + 1;
            }
        }
        self.offset = offset;
        (self.line, self.line_start)
    }
}

/// True when any finding blocks.
pub fn blocked(findings: &[Finding]) -> bool {
    findings.iter().any(Finding::blocks)
}

/// Findings being collected, with what is needed to place them.
struct Findings<'a> {
    text: &'a str,
    lines: LineCounter,
    policy: &'a ScanPolicy,
    list: Vec<Finding>,
    /// Whether a finding in `list` blocks.
    blocks: bool,
}

impl Findings<'_> {
    /// Full, and blocking: nothing found later would change what the scan decides.
    fn full(&self) -> bool {
        self.blocks && self.list.len() >= MAX_FINDINGS
    }

    /// Whether a finding of `category` would be kept: its category is looked for, and there
    /// is room, or it blocks (it then takes a warning's place). Asked before a finding's
    /// words are written, where findings may come by the thousand.
    fn takes(&self, category: Category) -> bool {
        let action = self.policy.action(category);
        action != Action::Allow && (self.list.len() < MAX_FINDINGS || action == Action::Block)
    }

    /// Adds a finding at byte `offset` of the text, unless its category is allowed. Once
    /// [`MAX_FINDINGS`] are held, only a finding that blocks is taken, in the place of the
    /// last warning.
    fn push(&mut self, category: Category, offset: usize, message: String, excerpt: String) {
        let action = self.policy.action(category);
        if action == Action::Allow || self.full() {
            return;
        }
        if self.list.len() >= MAX_FINDINGS {
            match self.list.iter().rposition(|f| !f.blocks()) {
                Some(warning) if action == Action::Block => {
                    self.list.remove(warning);
                }
                _ => return,
            }
        }
        self.blocks |= action == Action::Block;
        let (line_index, line_start) = self.lines.locate(self.text, offset);
        let column = self.text.get(line_start..offset).map_or(1, |s| s.chars().count() + 1);
        self.list.push(Finding { category, action, message, line: line_index + 1, column, excerpt });
    }
}

/// The text with invisible and control characters spelled out, shortened.
fn visible(text: &str) -> String {
    let mut out = String::new();
    for (count, c) in text.chars().enumerate() {
        if count >= MAX_EXCERPT_CHARS {
            out.push('…');
            break;
        }
        if invisible_kind(c, None, None).is_some()
            || is_tag(c)
            || is_bidi_control(c)
            || c == '\u{200C}'
            || c == '\u{200D}'
        {
            out.push_str(&format!("<U+{:04X}>", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests;
