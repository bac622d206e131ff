//! Strict validation against the Agent Skills standard, in the words of the
//! standard's reference validator (`skills-ref validate`).
//!
//! For every rule the standard states, the message is the reference's own, so tools
//! and people that know one know the other. Where skillwire reads more than the
//! reference does (a byte-order mark, full YAML with flow collections, anchors and
//! tags, `---` inside values), `lint` accepts it too; those cases are listed in
//! `docs/conformance.md` with their reasons, and the conformance vectors under
//! `tests/vectors/` pin every message byte for byte.

use crate::order;
use crate::scan::{self, Finding, ScanPolicy};
use crate::skill;
use crate::skill::diag::{Diagnostic, Severity};
use crate::skill::frontmatter;
use crate::skill::limits::Limits;
use crate::skill::location;
use crate::skill::spec::{
    check_name, EXTENSION_FIELDS, MAX_COMPATIBILITY_CHARS, MAX_DESCRIPTION_CHARS, STANDARD_FIELDS,
};
use crate::skill::yaml::{self, Node};
use serde::Serialize;

/// The outcome of linting one SKILL.md.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LintReport {
    /// The location that was linted.
    pub path: String,
    /// True when there are no errors.
    pub valid: bool,
    /// Violations of the standard, in the reference validator's wording and order.
    pub errors: Vec<String>,
    /// Findings that don't break the standard but deserve a look (skillwire's own).
    pub warnings: Vec<Diagnostic>,
    /// What the safety scan found ([`LintOptions::scan`]); not part of `valid`, which
    /// is about the standard alone.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<Finding>,
}

impl LintReport {
    /// True when a safety finding blocks the skill.
    pub fn blocked(&self) -> bool {
        scan::blocked(&self.findings)
    }
}

/// How strict [`lint_with`] is.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct LintOptions {
    /// Input limits.
    pub limits: Limits,
    /// Accept the fields skillwire honours beyond the standard
    /// (`tags`, `requires`, `when_to_use`, … in every spelling) instead of reporting them
    /// as unexpected.
    pub extensions: bool,
    /// What the safety scan looks for and what it blocks.
    pub scan: ScanPolicy,
    /// The files of the skill's folder (paths relative to it, as a source lists them):
    /// when given, a link to a file the folder does not hold (`missing_file`) or out of it
    /// (`link_outside`) is a warning.
    pub files: Option<Vec<String>>,
}

/// Lints one SKILL.md given by its location and text, as the reference validator
/// would (every field outside the standard is an error).
pub fn lint(location: &str, text: &str, limits: &Limits) -> LintReport {
    lint_with(location, text, &LintOptions { limits: limits.clone(), ..LintOptions::default() })
}

/// Lints one SKILL.md with options.
pub fn lint_with(location: &str, text: &str, options: &LintOptions) -> LintReport {
    let limits = &options.limits;
    let (mut errors, mut warnings) = errors_and_warnings(location, text, options);
    // skillwire's own findings: the lenient loader's warnings that the standard's
    // rules above don't already report.
    let loaded = skill::load(location, text, limits);
    let findings = scan::scan_skill_file(text, loaded.skill.as_ref(), limits, &options.scan);
    let findings = findings.unwrap_or_else(|e| {
        errors.push(format!("The safety scan could not run: {e}"));
        Vec::new()
    });
    warnings.extend(
        loaded.diagnostics.into_iter().filter(|d| d.severity == Severity::Warning && !covered_by_errors(&d.code)),
    );
    if let Some(files) = &options.files {
        warnings.extend(crate::files::link_warnings(text, files));
    }
    LintReport { path: location.to_owned(), valid: errors.is_empty(), errors, warnings, findings }
}

fn covered_by_errors(code: &str) -> bool {
    matches!(
        code,
        "name_format"
            | "name_too_long"
            | "name_mismatch"
            | "missing_name"
            | "invalid_name"
            | "unknown_field"
            | "description_too_long"
            | "compatibility_too_long"
            | "compatibility_not_string"
            | "colon_quoted"
            | "bom"
    )
}

fn errors_and_warnings(location: &str, text: &str, options: &LintOptions) -> (Vec<String>, Vec<Diagnostic>) {
    let limits = &options.limits;
    let mut warnings = Vec::new();
    if text.len() > limits.max_skill_md_bytes {
        return (
            vec![format!("SKILL.md exceeds {} bytes ({} bytes)", limits.max_skill_md_bytes, text.len())],
            warnings,
        );
    }
    let doc = match frontmatter::split(text) {
        Ok(doc) => doc,
        Err(e) => return (vec![e.message().to_owned()], warnings),
    };
    if doc.has_bom {
        warnings.push(Diagnostic::warning("bom", "SKILL.md starts with a UTF-8 byte-order mark").at(1, Some(1)));
    }
    if doc.yaml.len() > limits.max_frontmatter_bytes {
        return (vec![format!("SKILL.md frontmatter exceeds {} bytes", limits.max_frontmatter_bytes)], warnings);
    }
    let root = match yaml::parse(&doc.yaml, limits.into()) {
        Ok(root) => root,
        Err(e) => return (vec![format!("Invalid YAML in frontmatter: {}", yaml_detail(&e))], warnings),
    };
    let Node::Map(fields) = root else {
        return (vec!["SKILL.md frontmatter must be a YAML mapping".to_owned()], warnings);
    };
    (validate_fields(&fields, location::directory_name(location), options.extensions), warnings)
}

/// The parser's message with its position in the file (the YAML starts on line 2).
pub(crate) fn yaml_detail(e: &yaml::YamlError) -> String {
    match (e.line, e.column) {
        (Some(l), Some(c)) => format!("{} (line {}, column {c})", e.message, l + 1),
        (Some(l), None) => format!("{} (line {})", e.message, l + 1),
        _ => e.message.clone(),
    }
}

/// The reference's `validate_metadata`: field set, name, description, compatibility.
fn validate_fields(fields: &[(String, Node)], directory_name: Option<&str>, extensions: bool) -> Vec<String> {
    let mut errors = Vec::new();
    let get = |key: &str| fields.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v);

    let mut unexpected: Vec<&str> = fields
        .iter()
        .map(|(k, _)| k.as_str())
        .filter(|k| !(STANDARD_FIELDS.contains(k) || (extensions && EXTENSION_FIELDS.contains(k))))
        .collect();
    order::sort_by(&mut unexpected, Ord::cmp);
    unexpected.dedup();
    if !unexpected.is_empty() {
        let allowed: Vec<String> = STANDARD_FIELDS.iter().map(|f| format!("'{f}'")).collect();
        errors.push(format!(
            "Unexpected fields in frontmatter: {}. Only [{}] are allowed.",
            unexpected.join(", "),
            allowed.join(", ")
        ));
    }

    match get("name") {
        None => errors.push("Missing required field in frontmatter: name".to_owned()),
        Some(node) => match non_blank(node) {
            None => errors.push("Field 'name' must be a non-empty string".to_owned()),
            Some(name) => errors.extend(check_name(name, directory_name).into_iter().map(|p| p.message)),
        },
    }

    match get("description") {
        None => errors.push("Missing required field in frontmatter: description".to_owned()),
        Some(node) => match non_blank(node) {
            None => errors.push("Field 'description' must be a non-empty string".to_owned()),
            Some(description) => {
                let chars = description.chars().count();
                if chars > MAX_DESCRIPTION_CHARS {
                    errors.push(format!("Description exceeds {MAX_DESCRIPTION_CHARS} character limit ({chars} chars)"));
                }
            }
        },
    }

    if let Some(node) = get("compatibility") {
        match node.as_str() {
            None => errors.push("Field 'compatibility' must be a string".to_owned()),
            Some(text) => {
                let chars = text.chars().count();
                if chars > MAX_COMPATIBILITY_CHARS {
                    errors.push(format!(
                        "Compatibility exceeds {MAX_COMPATIBILITY_CHARS} character limit ({chars} chars)"
                    ));
                }
            }
        }
    }
    errors
}

/// A scalar's text when it has something besides whitespace (untrimmed, as the
/// reference measures it).
fn non_blank(node: &Node) -> Option<&str> {
    node.as_str().filter(|s| !s.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(dir: &str, text: &str) -> Vec<String> {
        lint(&format!("{dir}/SKILL.md"), text, &Limits::default()).errors
    }

    #[test]
    fn valid_skill_has_no_errors() {
        assert!(errors("my-skill", "---\nname: my-skill\ndescription: A test skill\n---\nBody\n").is_empty());
    }

    #[test]
    fn reference_wording_and_order() {
        let text = "---\nname: Bad--Name-\ndescription: ''\nfoo: 1\ncompatibility: ".to_owned()
            + &"c".repeat(501)
            + "\n---\nBody\n";
        assert_eq!(
            errors("Bad--Name-", &text),
            vec![
                "Unexpected fields in frontmatter: foo. Only ['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name'] are allowed.",
                "Skill name 'Bad--Name-' must be lowercase",
                "Skill name cannot start or end with a hyphen",
                "Skill name cannot contain consecutive hyphens",
                "Field 'description' must be a non-empty string",
                "Compatibility exceeds 500 character limit (501 chars)",
            ]
        );
    }

    #[test]
    #[cfg(feature = "nfkc")]
    fn nfkc_and_unicode_names() {
        assert!(errors("caf\u{e9}", "---\nname: cafe\u{301}\ndescription: x\n---\n").is_empty());
        assert!(errors("技能", "---\nname: 技能\ndescription: x\n---\n").is_empty());
        assert_eq!(
            errors("НАВЫК", "---\nname: НАВЫК\ndescription: x\n---\n"),
            vec!["Skill name 'НАВЫК' must be lowercase"]
        );
    }

    /// A build with neither tables nor a host normaliser says so instead of passing a
    /// name it could not compare; ASCII names need neither.
    #[test]
    #[cfg(not(feature = "nfkc"))]
    fn names_that_need_normalising_are_refused_without_a_normaliser() {
        assert_eq!(
            errors("caf\u{e9}", "---\nname: caf\u{e9}\ndescription: x\n---\n"),
            vec!["Skill name 'caf\u{e9}' cannot be checked: this build has no Unicode normalisation (the `nfkc` feature, or `set_nfkc_normaliser`)"]
        );
        assert!(errors("cafe", "---\nname: cafe\ndescription: x\n---\n").is_empty());
    }

    #[test]
    fn lengths_count_characters_not_bytes() {
        let ok = format!("---\nname: my-skill\ndescription: {}\n---\n", "é".repeat(1024));
        assert!(errors("my-skill", &ok).is_empty());
        let long = format!("---\nname: my-skill\ndescription: {}\n---\n", "é".repeat(1025));
        assert_eq!(errors("my-skill", &long), vec!["Description exceeds 1024 character limit (1025 chars)"]);
    }

    #[test]
    fn yaml_errors_carry_file_positions() {
        let e = errors("my-skill", "---\nname: my-skill\ndescription: Use when: x\n---\n");
        assert_eq!(e.len(), 1);
        assert!(e[0].starts_with("Invalid YAML in frontmatter: mapping values are not allowed"), "{}", e[0]);
        assert!(e[0].ends_with("(line 3, column 22)"), "{}", e[0]);
    }
}
