//! A skill read from its SKILL.md, and the lenient loader that reads it.
//!
//! Loading follows the standard's client guide: be forgiving where a skill is still
//! usable and say what was off. A name that breaks the naming rules or differs from its
//! folder, an over-long description, unknown fields, or a plain value with a second
//! `: ` load with warnings; a missing or empty description, broken YAML or a missing
//! frontmatter skip the skill with an error. A missing `name` falls back to the folder
//! name. Strict checking is [`lint`](crate::lint).

use crate::diag::Diagnostic;
use crate::frontmatter;
use crate::limits::Limits;
use crate::lint::{self, MAX_COMPATIBILITY_CHARS, MAX_DESCRIPTION_CHARS};
use crate::location;
use crate::yaml::{self, Node};
use serde::Serialize;
use std::collections::BTreeMap;

/// Fields beyond the standard that skillwire reads, in every spelling it accepts.
pub const EXTENSION_FIELDS: [&str; 19] = [
    "allowed_tools",
    "tags",
    "requires",
    "user-invocable",
    "user_invocable",
    "userInvocable",
    "disable-model-invocation",
    "disable_model_invocation",
    "disableModelInvocation",
    "max_turns",
    "max-turns",
    "maxTurns",
    "when_to_use",
    "when-to-use",
    "whenToUse",
    "when_not_to_use",
    "when-not-to-use",
    "whenNotToUse",
    "paths",
];

/// Lowest and highest `max_turns` accepted.
pub const MAX_TURNS_RANGE: (u8, u8) = (1, 10);

/// A usable skill: its frontmatter fields, read and normalised. The body is not kept;
/// it is read from the source when the skill is injected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skill {
    /// The skill's name (trimmed), or its folder's name when the frontmatter has none.
    pub name: String,
    /// What the skill does and when to use it (trimmed).
    pub description: String,
    /// Where the source keeps its SKILL.md.
    pub location: String,
    /// `license`, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    /// `compatibility`, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compatibility: Option<String>,
    /// `metadata` as string pairs; non-string values are kept as their YAML text.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: BTreeMap<String, String>,
    /// `allowed-tools`, one entry per tool pattern.
    #[serde(rename = "allowed-tools", skip_serializing_if = "Vec::is_empty")]
    pub allowed_tools: Vec<String>,
    /// `tags`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// `when_to_use` (Claude Code's field): more about when the skill applies, such as
    /// trigger phrases or example requests; ranked like the description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub when_to_use: Option<String>,
    /// `when_not_to_use`: requests the skill is not for; words a message shares with it
    /// count against the skill in ranking.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub when_not_to_use: Option<String>,
    /// `paths` (Claude Code's field): glob patterns of the files the skill is about.
    /// Kept for hosts that work on files; skillwire's routing reads messages, not files,
    /// so it does not limit when the skill fires.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// `user-invocable`; `false` hides the skill from the user's own menu (`@`
    /// autocomplete, user-facing listings). The model may still use it automatically,
    /// unless the host reads the field the old way
    /// ([`NotUserInvocable::MentionOnly`](crate::catalog::NotUserInvocable)).
    #[serde(rename = "user-invocable")]
    pub user_invocable: bool,
    /// `disable-model-invocation`; `true` means only an explicit `@mention` injects it.
    #[serde(rename = "disable-model-invocation")]
    pub disable_model_invocation: bool,
    /// Integrations the skill needs (`requires`); `kind:name` for map entries.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub requires: Vec<String>,
    /// `max_turns`, 1–10 (default 1).
    pub max_turns: u8,
    /// Fields the standard and skillwire don't define, kept as they were.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, Node>,
    /// The body's Markdown headings (outside code fences), at most
    /// [`MAX_HEADINGS`] of at most [`MAX_HEADING_BYTES`] each: what ranking may read
    /// of the body. Read only by a catalogue that ranks on headings
    /// ([`RankOptions::headings`](crate::RankOptions)); empty otherwise.
    #[serde(skip)]
    pub headings: Vec<String>,
    /// What the body's "When to use" and "When not to use" sections say: read when the
    /// catalogue is built, ranked at a lower weight than the description.
    #[serde(skip)]
    pub sections: BodySections,
}

/// Most bytes kept of a body's "When to use" sections, and of its "When not to use"
/// ones (whole lines; the rest is not read).
pub const MAX_SECTION_BYTES: usize = 2048;

/// What a body's own sections say about when to use the skill: the text under
/// headings that start "When to Use", "When to Apply", "Use this skill when" or "Use
/// when", or are "Scope", "Triggers" or "Trigger phrases"; and under those that start
/// "When NOT to Use", "Out of scope", "When to avoid" or "Do not use"; each up to the
/// next heading of the same or a higher level, outside code fences, at most
/// [`MAX_SECTION_BYTES`] of each kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BodySections {
    /// The text of the sections that say when to use the skill.
    pub when_to_use: String,
    /// The text of the sections that say when not to.
    pub when_not_to_use: String,
}

/// Reads [`BodySections`] from a body.
pub(crate) fn body_sections(body: &str) -> BodySections {
    let mut found = BodySections::default();
    // The section being read: its heading level and whether it is for the skill.
    let mut open: Option<(usize, bool)> = None;
    let mut fence = false;
    for line in body.lines() {
        // Outside a section only headings and fences matter: most lines are neither.
        if open.is_none() && !line.starts_with(['#', ' ', '\t', '`', '~']) {
            continue;
        }
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        let level = line.bytes().take_while(|&b| b == b'#').count();
        if (1..=6).contains(&level) && line.get(level..).is_some_and(|r| r.starts_with([' ', '\t'])) {
            if open.is_some_and(|(at, _)| level <= at) {
                open = None;
            }
            let title = line.get(level..).unwrap_or_default().trim().trim_matches(['#', '*', ':', ' ']).to_lowercase();
            let against = [
                "when not to use",
                "when to not use",
                "when not to apply",
                "out of scope",
                "when to avoid",
                "do not use",
            ];
            let for_it = ["when to use", "when to apply", "use this skill when", "use when"];
            let for_it_exactly = ["scope", "triggers", "trigger phrases"];
            if against.iter().any(|h| title.starts_with(h)) {
                open = Some((level, false));
            } else if for_it.iter().any(|h| title.starts_with(h)) || for_it_exactly.contains(&title.as_str()) {
                open = Some((level, true));
            }
            continue;
        }
        if let Some((_, for_skill)) = open {
            let out = if for_skill { &mut found.when_to_use } else { &mut found.when_not_to_use };
            if out.len() + line.len() < MAX_SECTION_BYTES {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    found
}

/// Most body headings kept per skill.
pub const MAX_HEADINGS: usize = 64;
/// Longest body heading kept, in bytes (longer ones are cut at a character boundary).
pub const MAX_HEADING_BYTES: usize = 200;

/// The Markdown headings (`#` to `######` and a space) of a body, outside fenced code
/// blocks, trimmed of their marks.
pub(crate) fn body_headings(body: &str) -> Vec<String> {
    let mut headings = Vec::new();
    let mut fence: Option<&str> = None;
    for line in body.lines() {
        let trimmed = line.trim_start();
        if let Some(marker) = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m)) {
            fence = match fence {
                None => Some(marker),
                Some(open) if open == marker => None,
                open => open,
            };
            continue;
        }
        if fence.is_some() {
            continue;
        }
        let level = line.bytes().take_while(|&b| b == b'#').count();
        let Some(rest) = line.get(level..) else { continue };
        if (1..=6).contains(&level) && rest.starts_with([' ', '\t']) {
            let text = rest.trim().trim_end_matches('#').trim();
            if !text.is_empty() {
                headings.push(truncate_chars(text, MAX_HEADING_BYTES).to_owned());
                if headings.len() == MAX_HEADINGS {
                    break;
                }
            }
        }
    }
    headings
}

/// An empty skill with the standard's defaults (invocable by the model and the
/// user, one turn).
impl Default for Skill {
    fn default() -> Self {
        Skill {
            name: String::new(),
            description: String::new(),
            location: String::new(),
            license: None,
            compatibility: None,
            metadata: BTreeMap::new(),
            allowed_tools: Vec::new(),
            tags: Vec::new(),
            when_to_use: None,
            when_not_to_use: None,
            paths: Vec::new(),
            user_invocable: true,
            disable_model_invocation: false,
            requires: Vec::new(),
            max_turns: 1,
            extra: BTreeMap::new(),
            headings: Vec::new(),
            sections: BodySections::default(),
        }
    }
}

impl Skill {
    /// True when rules may inject the skill without an explicit `@mention`: it does
    /// not say `disable-model-invocation: true`. (`user-invocable: false` only hides it
    /// from the user's menu; a host that reads it as mention-only sets
    /// [`NotUserInvocable::MentionOnly`](crate::catalog::NotUserInvocable).)
    pub fn auto_invocable(&self) -> bool {
        !self.disable_model_invocation
    }

    /// The description as a model's listings show it: the description, then
    /// `when_to_use` when there is one (as Claude Code lists skills). Used by the
    /// catalogue text, the selection prompt, the skills as tools and the embedding text.
    pub fn listing_description(&self) -> std::borrow::Cow<'_, str> {
        match self.when_to_use.as_deref() {
            Some(more) => format!("{} {more}", self.description).into(),
            None => self.description.as_str().into(),
        }
    }

    /// The directory that holds the skill's SKILL.md (see [`location::directory`]).
    pub fn directory(&self) -> &str {
        location::directory(&self.location)
    }
}

/// What loading one SKILL.md gave: the skill (unless an error skipped it) and every
/// diagnostic, errors first in the order found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Loaded {
    /// The skill, or `None` when it was skipped.
    pub skill: Option<Skill>,
    /// What was found along the way.
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads one SKILL.md leniently.
pub fn load(location: &str, text: &str, limits: &Limits) -> Loaded {
    let mut diags = Vec::new();
    let skill = load_inner(location, text, limits, &mut diags);
    Loaded { skill, diagnostics: diags }
}

fn load_inner(location: &str, text: &str, limits: &Limits, diags: &mut Vec<Diagnostic>) -> Option<Skill> {
    if text.len() > limits.max_skill_md_bytes {
        diags.push(Diagnostic::error(
            "too_large",
            format!("SKILL.md is {} bytes; the limit is {}", text.len(), limits.max_skill_md_bytes),
        ));
        return None;
    }
    let doc = match frontmatter::split(text) {
        Ok(doc) => doc,
        Err(e) => {
            diags.push(Diagnostic::error(e.code(), e.message()).at(1, Some(1)));
            return None;
        }
    };
    if doc.has_bom {
        diags.push(Diagnostic::warning("bom", "SKILL.md starts with a UTF-8 byte-order mark").at(1, Some(1)));
    }
    if doc.yaml.len() > limits.max_frontmatter_bytes {
        diags.push(
            Diagnostic::error(
                "frontmatter_too_large",
                format!("frontmatter is {} bytes; the limit is {}", doc.yaml.len(), limits.max_frontmatter_bytes),
            )
            .at(2, None),
        );
        return None;
    }
    let parsed = match yaml::parse_lenient(&doc.yaml, limits.into()) {
        Ok(parsed) => parsed,
        Err(e) => {
            let code = if e.limit { "yaml_limit" } else { "yaml_syntax" };
            let mut d = Diagnostic::error(code, format!("Invalid YAML in frontmatter: {}", e.message));
            if let Some(line) = e.line {
                d = d.at(line + 1, e.column);
            }
            diags.push(d);
            return None;
        }
    };
    for line in &parsed.repaired_lines {
        diags.push(
            Diagnostic::warning(
                "colon_quoted",
                "a plain value contains ': ' (invalid YAML); read it as if it were quoted",
            )
            .at(line + 1, None),
        );
    }
    let Node::Map(fields) = parsed.root else {
        diags.push(Diagnostic::error("not_a_mapping", "SKILL.md frontmatter must be a YAML mapping").at(2, None));
        return None;
    };
    let at = |key: &str| key_line(&doc.yaml, key).map(|l| l + 1);
    Fields { diags, at: &at }.build(location, fields, limits)
}

/// 1-based YAML line of a top-level `key:`.
fn key_line(yaml: &str, key: &str) -> Option<usize> {
    yaml.split('\n')
        .position(|line| {
            line.strip_prefix(key).is_some_and(|rest| rest.trim_start_matches([' ', '\t']).starts_with(':'))
        })
        .map(|i| i + 1)
}

struct Fields<'a> {
    diags: &'a mut Vec<Diagnostic>,
    at: &'a dyn Fn(&str) -> Option<usize>,
}

impl Fields<'_> {
    fn warn(&mut self, key: &str, code: &'static str, message: String) {
        let mut d = Diagnostic::warning(code, message);
        if let Some(line) = (self.at)(key) {
            d = d.at(line, None);
        }
        self.diags.push(d);
    }

    fn error(&mut self, key: &str, code: &'static str, message: String) {
        let mut d = Diagnostic::error(code, message);
        if let Some(line) = (self.at)(key) {
            d = d.at(line, None);
        }
        self.diags.push(d);
    }

    fn build(&mut self, location: &str, fields: Vec<(String, Node)>, limits: &Limits) -> Option<Skill> {
        let dir_name = location::directory_name(location);
        let mut skill = Skill { location: location.to_owned(), ..Skill::default() };
        let mut name_node = None;
        let mut description_node = None;
        for (key, node) in fields {
            match key.as_str() {
                "name" => name_node = Some(node),
                "description" => description_node = Some(node),
                "license" => skill.license = self.text_field(&key, &node),
                "compatibility" => {
                    skill.compatibility = self.text_field(&key, &node);
                    if let Some(c) = &skill.compatibility {
                        let chars = c.chars().count();
                        if chars > MAX_COMPATIBILITY_CHARS {
                            self.warn(
                                &key,
                                "compatibility_too_long",
                                format!(
                                    "Compatibility exceeds {MAX_COMPATIBILITY_CHARS} character limit ({chars} chars)"
                                ),
                            );
                        }
                    }
                }
                "metadata" => self.metadata(&key, node, &mut skill),
                "allowed-tools" | "allowed_tools" => skill.allowed_tools = self.list(&key, &node, split_tools),
                "tags" => {
                    let tags = self.list(&key, &node, split_commas);
                    skill.tags = self.bounded(&key, tags, limits.max_name_bytes);
                }
                "requires" => {
                    let requires = self.requires(&key, &node);
                    skill.requires = self.bounded(&key, requires, limits.max_name_bytes);
                }
                "user-invocable" | "user_invocable" | "userInvocable" => {
                    skill.user_invocable = self.boolean(&key, &node, true);
                }
                "disable-model-invocation" | "disable_model_invocation" | "disableModelInvocation" => {
                    skill.disable_model_invocation = self.boolean(&key, &node, false);
                }
                "max_turns" | "max-turns" | "maxTurns" => skill.max_turns = self.max_turns(&key, &node),
                "when_to_use" | "when-to-use" | "whenToUse" => {
                    skill.when_to_use = self.routing_text(&key, &node, limits);
                }
                "when_not_to_use" | "when-not-to-use" | "whenNotToUse" => {
                    skill.when_not_to_use = self.routing_text(&key, &node, limits);
                }
                "paths" => {
                    let paths = self.list(&key, &node, split_commas);
                    skill.paths = self.bounded(&key, paths, limits.max_description_bytes);
                }
                _ => {
                    self.warn(&key, "unknown_field", format!("unknown field '{key}' kept under extra"));
                    skill.extra.insert(key, node);
                }
            }
        }

        // Description: required and non-empty, or the skill is skipped.
        let description = match &description_node {
            None => {
                self.diags.push(Diagnostic::error(
                    "missing_description",
                    "Missing required field in frontmatter: description",
                ));
                return None;
            }
            Some(node) => match node.as_str().map(str::trim).filter(|s| !s.is_empty()) {
                Some(d) => d,
                None => {
                    self.error(
                        "description",
                        "empty_description",
                        "Field 'description' must be a non-empty string".into(),
                    );
                    return None;
                }
            },
        };
        let chars = description.chars().count();
        if chars > MAX_DESCRIPTION_CHARS {
            self.warn(
                "description",
                "description_too_long",
                format!("Description exceeds {MAX_DESCRIPTION_CHARS} character limit ({chars} chars)"),
            );
        }
        skill.description = truncate_chars(description, limits.max_description_bytes).to_owned();
        if skill.description.len() < description.len() {
            self.warn(
                "description",
                "description_truncated",
                format!(
                    "description is {} bytes; only the first {} are used (the limit)",
                    description.len(),
                    skill.description.len()
                ),
            );
        }

        // Name: falls back to the folder's name.
        let given = name_node.as_ref().and_then(|n| n.as_str()).map(str::trim).filter(|s| !s.is_empty());
        skill.name = match (given, &name_node) {
            (Some(name), _) => name.to_owned(),
            (None, node) => {
                let Some(dir) = dir_name else {
                    self.diags.push(Diagnostic::error(
                        "missing_name",
                        "the skill has no name and its location has no folder name to use instead",
                    ));
                    return None;
                };
                let why = if node.is_some() { "'name' is not a non-empty string" } else { "no 'name' field" };
                self.warn("name", "missing_name", format!("{why}; using the folder name '{dir}'"));
                dir.to_owned()
            }
        };
        if skill.name.len() > limits.max_name_bytes {
            self.error(
                "name",
                "name_too_long",
                format!("name is {} bytes; the limit is {}", skill.name.len(), limits.max_name_bytes),
            );
            return None;
        }
        if given.is_some() {
            for problem in lint::check_name(&skill.name, dir_name) {
                self.warn("name", problem.code, problem.message);
            }
        }
        Some(skill)
    }

    /// A text that says when a skill applies (or not): trimmed, empty as absent, held
    /// to the description's limit.
    fn routing_text(&mut self, key: &str, node: &Node, limits: &Limits) -> Option<String> {
        let text = self.text_field(key, node).filter(|t| !t.is_empty())?;
        let kept = truncate_chars(&text, limits.max_description_bytes);
        if kept.len() < text.len() {
            self.warn(
                key,
                "value_too_long",
                format!("'{key}' is {} bytes; only the first {} are used", text.len(), kept.len()),
            );
        }
        Some(kept.to_owned())
    }

    fn text_field(&mut self, key: &str, node: &Node) -> Option<String> {
        match node {
            Node::Scalar(s) => Some(s.text.trim().to_owned()),
            Node::Seq(items) if items.iter().all(|i| i.as_str().is_some()) => {
                self.warn(key, "not_a_string", format!("'{key}' should be a string; list items joined with ', '"));
                Some(items.iter().filter_map(Node::as_str).collect::<Vec<_>>().join(", "))
            }
            other => {
                let code = if key == "compatibility" { "compatibility_not_string" } else { "not_a_string" };
                self.warn(key, code, format!("'{key}' should be a string; kept as its YAML text"));
                Some(other.to_flow_text())
            }
        }
    }

    fn metadata(&mut self, key: &str, node: Node, skill: &mut Skill) {
        match node {
            Node::Map(entries) => {
                for (k, v) in entries {
                    let value = match v {
                        Node::Scalar(s) => s.text,
                        other => {
                            self.warn(
                                key,
                                "metadata_not_string",
                                format!("metadata '{k}' is not a string; kept as its YAML text"),
                            );
                            other.to_flow_text()
                        }
                    };
                    skill.metadata.insert(k, value);
                }
            }
            n if n.is_null() => {}
            other => {
                self.warn(key, "metadata_not_mapping", "'metadata' should be a mapping; kept under extra".to_owned());
                skill.extra.insert(key.to_owned(), other);
            }
        }
    }

    fn list(&mut self, key: &str, node: &Node, split: fn(&str) -> Vec<String>) -> Vec<String> {
        match node {
            n if n.is_null() => Vec::new(),
            Node::Scalar(s) => split(&s.text),
            Node::Seq(items) => items
                .iter()
                .map(|item| match item {
                    Node::Scalar(s) => s.text.trim().to_owned(),
                    other => other.to_flow_text(),
                })
                .filter(|s| !s.is_empty())
                .collect(),
            Node::Map(_) => {
                self.warn(key, "invalid_value", format!("'{key}' should be a list or a string; ignored"));
                Vec::new()
            }
        }
    }

    /// `values` without those longer than `max_bytes`, each left out with a warning.
    fn bounded(&mut self, key: &str, values: Vec<String>, max_bytes: usize) -> Vec<String> {
        let mut kept = Vec::with_capacity(values.len());
        for value in values {
            if value.len() > max_bytes {
                self.warn(
                    key,
                    "value_too_long",
                    format!("a '{key}' entry is {} bytes; the limit is {max_bytes}; left out", value.len()),
                );
            } else {
                kept.push(value);
            }
        }
        kept
    }

    fn requires(&mut self, key: &str, node: &Node) -> Vec<String> {
        match node {
            Node::Map(entries) => {
                let mut out = Vec::new();
                for (kind, value) in entries {
                    let names = self.list(key, value, split_commas_and_spaces);
                    if names.is_empty() {
                        out.push(kind.clone());
                    }
                    out.extend(names.into_iter().map(|n| format!("{kind}:{n}")));
                }
                out
            }
            other => self.list(key, other, split_commas_and_spaces),
        }
    }

    fn boolean(&mut self, key: &str, node: &Node, default: bool) -> bool {
        match node.as_str().map(str::trim) {
            Some("true" | "True" | "TRUE" | "yes" | "Yes" | "YES" | "on" | "On" | "ON") => true,
            Some("false" | "False" | "FALSE" | "no" | "No" | "NO" | "off" | "Off" | "OFF") => false,
            _ if node.is_null() => default,
            _ => {
                self.warn(key, "invalid_value", format!("'{key}' should be true or false; using {default}"));
                default
            }
        }
    }

    fn max_turns(&mut self, key: &str, node: &Node) -> u8 {
        let (lo, hi) = MAX_TURNS_RANGE;
        match node.as_str().map(str::trim).and_then(|s| s.parse::<i64>().ok()) {
            Some(n) if (i64::from(lo)..=i64::from(hi)).contains(&n) => u8::try_from(n).unwrap_or(lo),
            Some(n) => {
                let clamped = if n < i64::from(lo) { lo } else { hi };
                self.warn(key, "invalid_value", format!("'{key}' must be {lo}–{hi}; using {clamped}"));
                clamped
            }
            None => {
                self.warn(key, "invalid_value", format!("'{key}' must be a whole number {lo}–{hi}; using {lo}"));
                lo
            }
        }
    }
}

/// The longest prefix of `s` of at most `max_bytes` bytes that ends on a character
/// boundary.
pub(crate) fn truncate_chars(s: &str, max_bytes: usize) -> &str {
    if s.len() <= max_bytes {
        return s;
    }
    let mut end = max_bytes;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s.get(..end).unwrap_or("")
}

/// `allowed-tools` as a string: tool patterns separated by spaces or commas, where a
/// pattern's parentheses may hold spaces (`Bash(git status:*)`).
pub fn split_tools(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth == 0 && (c.is_whitespace() || c == ',') {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
        } else {
            current.push(c);
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

fn split_commas(text: &str) -> Vec<String> {
    text.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect()
}

fn split_commas_and_spaces(text: &str) -> Vec<String> {
    text.split(|c: char| c == ',' || c.is_whitespace()).filter(|s| !s.is_empty()).map(str::to_owned).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Severity;

    fn ok(location: &str, text: &str) -> (Skill, Vec<Diagnostic>) {
        let loaded = load(location, text, &Limits::default());
        (loaded.skill.unwrap_or_else(|| panic!("skipped: {:?}", loaded.diagnostics)), loaded.diagnostics)
    }

    fn codes(diags: &[Diagnostic]) -> Vec<&str> {
        diags.iter().map(|d| d.code.as_str()).collect()
    }

    #[test]
    fn string_allowed_tools_does_not_reset_other_fields() {
        let (s, d) = ok(
            "s/pdf/SKILL.md",
            "---\nname: pdf\ndescription: PDF things\nallowed-tools: Read, Bash(git status:*) Write\nlicense: MIT\n---\n",
        );
        assert_eq!(s.allowed_tools, vec!["Read", "Bash(git status:*)", "Write"]);
        assert_eq!(s.license.as_deref(), Some("MIT"));
        assert!(d.is_empty(), "{d:?}");
    }

    #[test]
    fn extension_fields_are_read() {
        let text = "---\nname: x-tool\ndescription: d\ntags: a, b ,c\nuser_invocable: false\ndisable-model-invocation: true\nrequires:\n  mcp: [rube, github]\nmax_turns: 4\n---\n";
        let (s, d) = ok("x-tool/SKILL.md", text);
        assert_eq!(s.tags, vec!["a", "b", "c"]);
        assert!(!s.user_invocable);
        assert!(s.disable_model_invocation);
        assert_eq!(s.requires, vec!["mcp:rube", "mcp:github"]);
        assert_eq!(s.max_turns, 4);
        assert!(d.is_empty(), "{d:?}");
    }

    #[test]
    fn unknown_fields_are_kept_with_a_warning() {
        let (s, d) = ok("a/SKILL.md", "---\nname: a\ndescription: d\nzeta:\n  k: [1, 2]\n---\n");
        assert_eq!(s.extra.get("zeta").map(Node::to_flow_text).as_deref(), Some("{k: [1, 2]}"));
        assert_eq!(codes(&d), vec!["unknown_field"]);
        assert_eq!(d[0].line, Some(4));
    }

    #[test]
    fn metadata_values_keep_their_text() {
        let (s, d) =
            ok("a/SKILL.md", "---\nname: a\ndescription: d\nmetadata:\n  version: 1.10\n  nested: {b: c}\n---\n");
        assert_eq!(s.metadata.get("version").map(String::as_str), Some("1.10"));
        assert_eq!(s.metadata.get("nested").map(String::as_str), Some("{b: c}"));
        assert_eq!(codes(&d), vec!["metadata_not_string"]);
    }

    #[test]
    fn colon_in_description_loads_with_a_warning() {
        let (s, d) = ok("a/SKILL.md", "---\nname: a\ndescription: Use when: the user asks\n---\n");
        assert_eq!(s.description, "Use when: the user asks");
        assert_eq!(codes(&d), vec!["colon_quoted"]);
        assert_eq!(d[0].line, Some(3));
    }

    #[test]
    fn name_falls_back_to_folder_and_mismatch_warns() {
        let (s, d) = ok("packs/my-skill/SKILL.md", "---\ndescription: d\n---\n");
        assert_eq!(s.name, "my-skill");
        assert_eq!(codes(&d), vec!["missing_name"]);
        let (s, d) = ok("packs/other/SKILL.md", "---\nname: Mine\ndescription: d\n---\n");
        assert_eq!(s.name, "Mine");
        assert_eq!(codes(&d), vec!["name_format", "name_mismatch"]);
        assert!(d.iter().all(|d| d.severity == Severity::Warning));
    }

    #[test]
    fn skipped_skills_say_why() {
        for (text, code) in [
            ("---\nname: a\n---\n", "missing_description"),
            ("---\nname: a\ndescription: '  '\n---\n", "empty_description"),
            ("---\nname: [a\n---\n", "yaml_syntax"),
            ("# nothing", "no_frontmatter"),
            ("---\n- a\n---\n", "not_a_mapping"),
            ("---\n---\n", "not_a_mapping"),
        ] {
            let loaded = load("a/SKILL.md", text, &Limits::default());
            assert!(loaded.skill.is_none(), "{text}");
            assert_eq!(loaded.diagnostics.last().map(|d| d.code.as_str()), Some(code), "{text}");
        }
    }

    #[test]
    fn limits_skip_huge_files() {
        let limits = Limits { max_skill_md_bytes: 100, ..Limits::default() };
        let text = format!("---\nname: a\ndescription: d\n---\n{}", "x".repeat(200));
        let loaded = load("a/SKILL.md", &text, &limits);
        assert!(loaded.skill.is_none());
        assert_eq!(loaded.diagnostics[0].code, "too_large");
    }

    #[test]
    fn max_turns_is_clamped() {
        let (s, d) = ok("a/SKILL.md", "---\nname: a\ndescription: d\nmax_turns: 50\n---\n");
        assert_eq!(s.max_turns, 10);
        assert_eq!(codes(&d), vec!["invalid_value"]);
    }

    #[test]
    fn body_headings_are_read_outside_code_fences() {
        let body = "# Merge PDFs\ntext\n```sh\n# not a heading\n```\n## Fill forms ##\n#hashtag\n####### seven\n~~~\n# fenced\n~~~\n###\tSplit pages\n";
        assert_eq!(body_headings(body), vec!["Merge PDFs", "Fill forms", "Split pages"]);
        let many: String = (0..100).map(|i| format!("## Heading {i} {}\n", "x".repeat(300))).collect();
        let headings = body_headings(&many);
        assert_eq!(headings.len(), MAX_HEADINGS);
        assert!(headings.iter().all(|h| h.len() <= MAX_HEADING_BYTES));
    }
}
