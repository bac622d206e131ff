//! A skill read from its SKILL.md, and the lenient loader that reads it.
//!
//! Loading follows the standard's client guide: be forgiving where a skill is still
//! usable and say what was off. A name that breaks the naming rules or differs from its
//! folder, an over-long description, unknown fields, or a plain value with a second
//! `: ` load with warnings; a missing or empty description, broken YAML or a missing
//! frontmatter skip the skill with an error. A missing `name` falls back to the folder
//! name. Strict checking is [`lint`](crate::skill::lint).

use crate::skill::diag::Diagnostic;
use crate::skill::fields::Fields;
use crate::skill::frontmatter;
use crate::skill::limits::Limits;
use crate::skill::skill::Skill;
use crate::skill::yaml::{self, Node};
use serde::Serialize;

/// What loading one SKILL.md gave: the skill (unless an error skipped it) and every
/// diagnostic, errors first in the order found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
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
    let doc = split_within_limits(text, limits, diags)?;
    let parsed = match yaml::parse_lenient(&doc.yaml, limits.into()) {
        Ok(parsed) => parsed,
        Err(e) => {
            diags.push(yaml_diagnostic(&e));
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
        diags.push(not_a_mapping());
        return None;
    };
    let lines = KeyLines::new(&doc.yaml);
    let at = |key: &str| lines.line(key).map(|l| l + 1);
    Fields { diags, at: &at }.build(location, fields, limits)
}

/// The frontmatter and body of a SKILL.md within the limits (a byte-order mark is noted
/// as a warning), or `None` with the error in `diags`: what loading and
/// [`frontmatter_json`] both read first.
fn split_within_limits<'a>(
    text: &'a str,
    limits: &Limits,
    diags: &mut Vec<Diagnostic>,
) -> Option<frontmatter::Document<'a>> {
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
    Some(doc)
}

/// The error of a frontmatter that is not a mapping.
fn not_a_mapping() -> Diagnostic {
    Diagnostic::error("not_a_mapping", "SKILL.md frontmatter must be a YAML mapping").at(2, None)
}

/// A YAML error as a diagnostic placed in the SKILL.md (the YAML starts on line 2).
fn yaml_diagnostic(e: &yaml::YamlError) -> Diagnostic {
    let code = if e.limit { "yaml_limit" } else { "yaml_syntax" };
    let d = Diagnostic::error(code, format!("Invalid YAML in frontmatter: {}", e.message));
    match e.line {
        Some(line) => d.at(line + 1, e.column),
        None => d,
    }
}

/// A SKILL.md's frontmatter as a JSON object, every field the author wrote, each value as
/// YAML reads it (strings, numbers, booleans, null, lists, maps; a key that is not a
/// string as its YAML text): the form the MCP skills extension serves and a host compares
/// with the SKILL.md it fetches. Read as [`load`] reads it, within the same limits, and
/// a plain value holding `: ` repaired the same way. The error is what would skip the
/// skill at load (`too_large`, `no_frontmatter`, `yaml_syntax`, `not_a_mapping`, …).
pub fn frontmatter_json(text: &str, limits: &Limits) -> Result<serde_json::Map<String, serde_json::Value>, Diagnostic> {
    let mut diags = Vec::new();
    let not_read = |diags: Vec<Diagnostic>| {
        diags
            .into_iter()
            .find(|d| d.severity == crate::Severity::Error)
            .unwrap_or_else(|| Diagnostic::error("no_frontmatter", frontmatter::SplitError::NoFrontmatter.message()))
    };
    let Some(doc) = split_within_limits(text, limits, &mut diags) else { return Err(not_read(diags)) };
    match yaml::to_json_lenient(&doc.yaml, limits.into()).map_err(|e| yaml_diagnostic(&e))? {
        serde_json::Value::Object(fields) => Ok(fields),
        _ => Err(not_a_mapping()),
    }
}

/// A SKILL.md's frontmatter fields as YAML reads them — the tree [`load`] reads a skill's
/// fields from, before any is cut or left out — within the same limits; `None` where no
/// frontmatter reads as a mapping.
pub(crate) fn frontmatter_fields(text: &str, limits: &Limits) -> Option<Vec<(String, Node)>> {
    let doc = split_within_limits(text, limits, &mut Vec::new())?;
    match yaml::parse_lenient(&doc.yaml, limits.into()).ok()?.root {
        Node::Map(fields) => Some(fields),
        Node::Scalar(_) | Node::Seq(_) => None,
    }
}

/// 1-based line of a top-level `key:` in `yaml` (or in a whole frontmatter, `---` line
/// included: its line in the SKILL.md).
pub(crate) fn key_line(yaml: &str, key: &str) -> Option<usize> {
    yaml.split('\n')
        .position(|line| {
            line.strip_prefix(key).is_some_and(|rest| rest.trim_start_matches([' ', '\t']).starts_with(':'))
        })
        .map(|i| i + 1)
}

/// [`key_line`] for many keys of one `yaml`: the top-level keys' lines found in one pass,
/// the first time one is asked for (a frontmatter of thousands of fields each warned about
/// searched the whole of it for each: 0.44 s for 7,600).
struct KeyLines<'a> {
    yaml: &'a str,
    /// Each line's text before its first `:` (less the blanks before the `:`) → the first
    /// such line, 1-based.
    index: std::cell::OnceCell<crate::fast_hash::SeededMap<&'a str, usize>>,
}

impl<'a> KeyLines<'a> {
    fn new(yaml: &'a str) -> KeyLines<'a> {
        KeyLines { yaml, index: std::cell::OnceCell::new() }
    }

    /// What [`key_line`] says of `key`.
    fn line(&self, key: &str) -> Option<usize> {
        // A key holding `:`, or ending in a blank, is not what stands before a line's first
        // `:` less its blanks.
        if key.contains(':') || key.ends_with([' ', '\t']) {
            return key_line(self.yaml, key);
        }
        let index = self.index.get_or_init(|| {
            let mut index = crate::fast_hash::SeededMap::default();
            for (i, line) in self.yaml.split('\n').enumerate() {
                if let Some((before, _)) = line.split_once(':') {
                    index.entry(before.trim_end_matches([' ', '\t'])).or_insert(i + 1);
                }
            }
            index
        });
        index.get(key).copied()
    }
}

#[cfg(test)]
mod key_lines_tests {
    use super::*;

    /// The lines found in one pass are those a search for each key finds.
    #[test]
    fn key_lines_are_those_key_line_finds() {
        let yaml =
            "name: a\ndescription:  x: y\n  nested: 1\ntags :\n\t- t\nname: again\n\"q\": 1\na:b: c\n: empty\nx\t: y\n";
        let lines = KeyLines::new(yaml);
        for key in [
            "name",
            "description",
            "nested",
            "  nested",
            "tags",
            "\"q\"",
            "q",
            "a:b",
            "a",
            "",
            "x",
            "x\t",
            "tags ",
            "missing",
            "x: y",
        ] {
            assert_eq!(lines.line(key), key_line(yaml, key), "{key:?}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skill::diag::Severity;
    use crate::skill::sections::{body_headings, MAX_HEADINGS, MAX_HEADING_BYTES};

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
        assert_eq!(s.extra.get("zeta").map(String::as_str), Some("{k: [1, 2]}"));
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

#[cfg(test)]
mod frontmatter_json_tests {
    #![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test
    use super::*;
    use serde_json::json;

    /// Every field the author wrote, typed as YAML reads it, with the loader's repair.
    #[test]
    fn the_frontmatter_reads_as_typed_json() {
        let text = "---\nname: pdf\ndescription: Use when: a PDF is given\nuser-invocable: false\nmax_turns: 3\n\
                    version: 1.10\nmetadata:\n  author: me\n  tags: [a, b]\nempty:\n!!str tagged: x\n---\nBody.\n";
        let fields = frontmatter_json(text, &Limits::default()).unwrap();
        assert_eq!(
            serde_json::Value::Object(fields),
            json!({
                "name": "pdf", "description": "Use when: a PDF is given", "user-invocable": false, "max_turns": 3,
                "version": 1.1, "metadata": {"author": "me", "tags": ["a", "b"]}, "empty": null, "tagged": "x",
            })
        );
    }

    /// What would skip the skill at load is the error, with the loader's code.
    #[test]
    fn what_skips_a_skill_is_the_error() {
        let limits = Limits { max_skill_md_bytes: 64, ..Limits::default() };
        for (text, code) in [
            ("no frontmatter\n", "no_frontmatter"),
            ("---\nname: a\n", "unclosed_frontmatter"),
            ("---\n- a\n- b\n---\n", "not_a_mapping"),
            ("---\nname: [a\n---\n", "yaml_syntax"),
            (&*format!("---\nname: a\ndescription: {}\n---\n", "x".repeat(64)), "too_large"),
        ] {
            assert_eq!(frontmatter_json(text, &limits).unwrap_err().code, code, "{text:?}");
        }
    }
}
