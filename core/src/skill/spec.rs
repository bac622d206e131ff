//! The standard's table: the fields a SKILL.md may hold (the standard's and the ones
//! skillwire reads beyond it), their length limits and the naming rules, worded as the
//! standard's reference validator words them. A leaf: the loader ([`load`](super::load))
//! and the linter ([`lint`](super::lint)) both read it.

use crate::text;

/// Why a name that is not ASCII goes unchecked in a build without a normaliser.
const NO_NFKC: &str = "this build has no Unicode normalisation (the `nfkc` feature, or `set_nfkc_normaliser`)";

/// Longest name the standard allows, in characters.
pub const MAX_NAME_CHARS: usize = 64;
/// Longest description the standard allows, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// Longest compatibility text the standard allows, in characters.
pub const MAX_COMPATIBILITY_CHARS: usize = 500;
/// The frontmatter fields the standard defines, sorted.
pub const STANDARD_FIELDS: [&str; 6] = ["allowed-tools", "compatibility", "description", "license", "metadata", "name"];

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

/// One broken naming rule: a diagnostic code and the reference's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameProblem {
    /// `name_too_long`, `name_format` or `name_mismatch`.
    pub code: &'static str,
    /// The reference validator's message.
    pub message: String,
}

/// Checks a (non-empty) name against the standard's naming rules, after trimming and
/// NFKC normalisation, and against the directory name when there is one. Lengths are
/// counted in Unicode scalar values, as the reference counts them.
pub fn check_name(raw_name: &str, directory_name: Option<&str>) -> Vec<NameProblem> {
    let mut out = Vec::new();
    let mut push = |code, message: String| out.push(NameProblem { code, message });
    let Some(name) = text::nfkc(raw_name.trim()) else {
        push("name_format", format!("Skill name '{}' cannot be checked: {NO_NFKC}", raw_name.trim()));
        return out;
    };
    let chars = name.chars().count();
    if chars > MAX_NAME_CHARS {
        push("name_too_long", format!("Skill name '{name}' exceeds {MAX_NAME_CHARS} character limit ({chars} chars)"));
    }
    if name != name.to_lowercase() {
        push("name_format", format!("Skill name '{name}' must be lowercase"));
    }
    if name.starts_with('-') || name.ends_with('-') {
        push("name_format", "Skill name cannot start or end with a hyphen".to_owned());
    }
    if name.contains("--") {
        push("name_format", "Skill name cannot contain consecutive hyphens".to_owned());
    }
    if !name.chars().all(|c| c.is_alphanumeric() || c == '-') {
        push(
            "name_format",
            format!("Skill name '{name}' contains invalid characters. Only letters, digits, and hyphens are allowed."),
        );
    }
    if let Some(dir) = directory_name {
        let Some(normalised) = text::nfkc(dir) else {
            push("name_mismatch", format!("Directory name '{dir}' cannot be checked: {NO_NFKC}"));
            return out;
        };
        if normalised != name {
            push("name_mismatch", format!("Directory name '{dir}' must match skill name '{name}'"));
        }
    }
    out
}
