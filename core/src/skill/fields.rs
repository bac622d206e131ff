//! Reading each frontmatter field into a [`Skill`], leniently: a value of the wrong
//! shape is a warning and a default, never a lost skill (but for the description).

use crate::skill::diag::Diagnostic;
use crate::skill::limits::Limits;
use crate::skill::location;
use crate::skill::skill::Skill;
use crate::skill::spec::{check_name, MAX_COMPATIBILITY_CHARS, MAX_DESCRIPTION_CHARS, MAX_TURNS_RANGE};
use crate::skill::yaml::Node;
use crate::text::truncate_bytes;

pub(crate) struct Fields<'a> {
    pub(crate) diags: &'a mut Vec<Diagnostic>,
    pub(crate) at: &'a dyn Fn(&str) -> Option<usize>,
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

    pub(crate) fn build(&mut self, location: &str, fields: Vec<(String, Node)>, limits: &Limits) -> Option<Skill> {
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
                    skill.extra.insert(key, node.to_flow_text());
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
        skill.description = truncate_bytes(description, limits.max_description_bytes).to_owned();
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
        // `NAME@ORIGIN` is how a catalogue lists a skill whose name another origin holds: no
        // skill may take such a name itself.
        if skill.name.contains('@') {
            self.error(
                "name",
                "name_reserved",
                "'@' is reserved (for NAME@ORIGIN) and cannot be part of a name".to_owned(),
            );
            return None;
        }
        if given.is_some() {
            for problem in check_name(&skill.name, dir_name) {
                self.warn("name", problem.code, problem.message);
            }
        }
        Some(skill)
    }

    /// A text that says when a skill applies (or not): trimmed, empty as absent, held
    /// to the description's limit.
    fn routing_text(&mut self, key: &str, node: &Node, limits: &Limits) -> Option<String> {
        let text = self.text_field(key, node).filter(|t| !t.is_empty())?;
        let kept = truncate_bytes(&text, limits.max_description_bytes);
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
                skill.extra.insert(key.to_owned(), other.to_flow_text());
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
