//! Allow and deny lists: glob patterns over skill names that give one agent (an MCP
//! server, a hook, an adapter) only its skills from a shared folder. A skill they keep out
//! is gated: not listed, matched, ranked or injected, its files not handed out (it is an
//! unknown skill there), and reported with the pattern that kept it out, as a skill whose
//! requirements are missing is. Blank patterns are ignored (an empty `--allow ""` keeps
//! nothing out). A skill from an origin (an MCP server) is matched by its name and by
//! `NAME@ORIGIN`, so `*@acme` names every skill from `acme`.
//!
//! Origins are checked here too: what a label may hold, and the name a skill from an
//! origin is listed under when another skill holds its own ([`qualified`]); and skill ids:
//! what a host's may hold, and the one a skill gets when its host gives none ([`skill_id`]).

use crate::select::rules::mention_key;
use crate::text::excerpt;

/// Most patterns in an allow or a deny list.
pub const MAX_NAME_PATTERNS: usize = 256;
/// Longest pattern, in bytes.
pub const MAX_NAME_PATTERN_BYTES: usize = 256;
/// Longest origin label, in bytes.
pub const MAX_ORIGIN_BYTES: usize = 64;
/// Longest skill id a host may give ([`SkillEntry::id`](crate::SkillEntry)), in bytes.
pub const MAX_ID_BYTES: usize = 256;

/// Why `id` cannot identify a skill, or `None`: 1 to [`MAX_ID_BYTES`] bytes, no character a
/// reader cannot see (control, zero-width, bidirectional and other formatting characters,
/// as the safety scan counts them; direction marks, line and paragraph separators), no
/// whitespace at either end (an id goes into JSON, logs and UIs as it is).
pub(crate) fn id_problem(id: &str) -> Option<String> {
    let unseen = |c: char| {
        crate::scan::unseen_in_text(c) || matches!(c, '\u{2028}' | '\u{2029}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
    };
    let fits = !id.is_empty() && id.len() <= MAX_ID_BYTES && !id.chars().any(unseen) && id.trim() == id;
    (!fits).then(|| {
        let shown = excerpt(id, SHOWN_CHARS);
        format!("its id {shown:?} is not 1 to {MAX_ID_BYTES} bytes of visible text, with no whitespace at either end")
    })
}

/// The id of a skill named `name` (as its SKILL.md says) from `origin`: the host's `given`
/// one, else derived — the name, or `NAME@ORIGIN` for a skill from an origin. A derived id
/// holds while the skill keeps its name and origin: across edits, moves to another folder
/// or location, and other skills coming and going (a skill listed as `NAME@ORIGIN` after a
/// collision has that id before and after it). It changes when the skill is renamed or
/// its origin's label does.
pub(crate) fn skill_id(given: Option<&str>, name: &str, origin: Option<&str>) -> String {
    match (given, origin) {
        (Some(id), _) => id.to_owned(),
        (None, Some(origin)) => qualified(name, origin),
        (None, None) => name.to_owned(),
    }
}

/// How much of a refused origin or id a reason repeats, in characters.
const SHOWN_CHARS: usize = 80;

/// Why `origin` cannot label skills, or `None`: 1 to [`MAX_ORIGIN_BYTES`] ASCII letters,
/// digits, `.`, `_` or `-` (a label that goes into names, catalogues and blocks as it is).
pub(crate) fn origin_problem(origin: &str) -> Option<String> {
    let allowed = |b: u8| b.is_ascii_alphanumeric() || b"._-".contains(&b);
    let fits = !origin.is_empty() && origin.len() <= MAX_ORIGIN_BYTES && origin.bytes().all(allowed);
    (!fits).then(|| {
        let shown = excerpt(origin, SHOWN_CHARS);
        format!("its origin {shown:?} is not 1 to {MAX_ORIGIN_BYTES} ASCII letters, digits, '.', '_' or '-'")
    })
}

/// `name` (a server's, say) kept to what an origin label may hold: ASCII letters, digits,
/// `.`, `_` and `-` (any other character becomes `-`, dashes at either end are dropped),
/// at most [`MAX_ORIGIN_BYTES`]; `mcp` when nothing is left.
pub fn origin_label(name: &str) -> String {
    let label: String = (name.chars())
        .map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '-' })
        .take(MAX_ORIGIN_BYTES)
        .collect();
    match label.trim_matches('-') {
        "" => "mcp".to_owned(),
        label => label.to_owned(),
    }
}

/// True when two origin labels name one origin: they differ at most as names do that a
/// catalogue holds as one (ASCII case, `_` for `-`).
pub fn same_origin(a: &str, b: &str) -> bool {
    mention_key(a) == mention_key(b)
}

/// The name a skill from `origin` is listed under when its own is taken: `NAME@ORIGIN`.
pub(crate) fn qualified(name: &str, origin: &str) -> String {
    format!("{name}@{origin}")
}

/// Why `name` is kept out by `allow` (when it is not empty, a name must match one of its
/// patterns) and `deny` (a name matching one of its patterns is out), or `None`. Lists over
/// their limits keep every skill out (and say so): a deny list cut short would let through
/// what it names.
pub(crate) fn kept_out<'a>(
    name: &str,
    origin: Option<&str>,
    allow: &'a [String],
    deny: &'a [String],
) -> Option<String> {
    let too_long =
        |list: &[String]| list.len() > MAX_NAME_PATTERNS || list.iter().any(|p| p.len() > MAX_NAME_PATTERN_BYTES);
    if too_long(allow) || too_long(deny) {
        return Some(format!(
            "the allow or deny list is over its limits ({MAX_NAME_PATTERNS} patterns of {MAX_NAME_PATTERN_BYTES} bytes)"
        ));
    }
    let patterns = |list: &'a [String]| list.iter().map(|p| p.trim()).filter(|p| !p.is_empty());
    let with_origin = origin.map(|origin| qualified(name, origin));
    let matches = |p: &str| glob_matches(p, name) || with_origin.as_deref().is_some_and(|q| glob_matches(p, q));
    if let Some(pattern) = patterns(deny).find(|p| matches(p)) {
        return Some(format!("denied by \"{pattern}\""));
    }
    if patterns(allow).next().is_some() && !patterns(allow).any(matches) {
        return Some("not allowed (no allow pattern matches)".to_owned());
    }
    None
}

/// True when `name` matches `pattern`: `*` stands for any run of characters (none
/// included), `?` for one character, anything else for itself, ASCII case ignored. Linear
/// in each string's length times the other's at worst (one star remembered at a time).
pub fn glob_matches(pattern: &str, name: &str) -> bool {
    let (pattern, name): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    let (mut p, mut n) = (0, 0);
    // The last `*` seen and the name position it has consumed up to.
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some('*') => {
                star = Some((p, n));
                p += 1;
            }
            Some(&c) if c == '?' || name.get(n).is_some_and(|m| c.eq_ignore_ascii_case(m)) => {
                p += 1;
                n += 1;
            }
            _ => match star {
                // Let the last star take one more character and try again from there.
                Some((at, taken)) => {
                    star = Some((at, taken + 1));
                    p = at + 1;
                    n = taken + 1;
                }
                None => return false,
            },
        }
    }
    pattern.get(p..).is_some_and(|rest| rest.iter().all(|&c| c == '*'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_names() {
        for (pattern, name, matches) in [
            ("pdf", "pdf", true),
            ("PDF", "pdf", true),
            ("pdf", "pdf-tools", false),
            ("pdf*", "pdf-tools", true),
            ("*-review", "sql-review", true),
            ("*-review", "sql-reviewer", false),
            ("s?l-*", "sql-review", true),
            ("*", "anything", true),
            ("*a*b*", "xxaxxbxx", true),
            ("*a*b", "xxaxxbxxc", false),
            ("", "pdf", false),
            ("???", "pdf", true),
            ("????", "pdf", false),
        ] {
            assert_eq!(glob_matches(pattern, name), matches, "{pattern} ~ {name}");
        }
    }

    #[test]
    fn deny_wins_over_allow_and_lists_over_their_limits_keep_everything_out() {
        let list = |items: &[&str]| items.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(kept_out("pdf", None, &[], &[]), None);
        assert_eq!(kept_out("pdf", None, &list(&["", " "]), &list(&[""])), None, "blank patterns are ignored");
        assert_eq!(kept_out("pdf", None, &list(&["p*"]), &[]), None);
        assert_eq!(
            kept_out("xlsx", None, &list(&["p*"]), &[]).as_deref(),
            Some("not allowed (no allow pattern matches)")
        );
        assert_eq!(kept_out("pdf", None, &list(&["p*"]), &list(&[" pdf "])).as_deref(), Some("denied by \"pdf\""));
        let many = vec!["x".to_owned(); MAX_NAME_PATTERNS + 1];
        assert!(kept_out("pdf", None, &[], &many).is_some_and(|why| why.contains("over its limits")));
        assert!(kept_out("pdf", None, &["p".repeat(MAX_NAME_PATTERN_BYTES + 1)], &[]).is_some());
    }

    #[test]
    fn a_skill_from_an_origin_is_matched_by_its_name_and_by_name_at_origin() {
        let list = |items: &[&str]| items.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(kept_out("pdf", Some("acme"), &[], &list(&["*@acme"])).as_deref(), Some("denied by \"*@acme\""));
        assert_eq!(kept_out("pdf", Some("acme"), &[], &list(&["pdf"])).as_deref(), Some("denied by \"pdf\""));
        assert_eq!(kept_out("pdf", Some("acme"), &list(&["*@acme"]), &[]), None);
        assert_eq!(kept_out("pdf", None, &[], &list(&["*@acme"])), None, "no origin, no NAME@ORIGIN");
        assert!(kept_out("pdf", Some("other"), &list(&["*@acme"]), &[]).is_some());
    }

    #[test]
    fn origins_are_short_plain_labels() {
        for good in ["acme", "skills.example.com", "a_b-c", &"x".repeat(MAX_ORIGIN_BYTES)] {
            assert_eq!(origin_problem(good), None, "{good}");
        }
        for bad in ["", "a b", "a@b", "<x>", "é", &"x".repeat(MAX_ORIGIN_BYTES + 1)] {
            assert!(origin_problem(bad).is_some(), "{bad}");
        }
        assert_eq!(qualified("pdf", "acme"), "pdf@acme");
        assert_eq!(origin_label("acme-skills"), "acme-skills");
        assert_eq!(origin_label(" Acme Skills (beta) "), "Acme-Skills--beta");
        assert_eq!(origin_label("  "), "mcp");
        assert_eq!(origin_label(&"é".repeat(100)), "mcp");
        assert_eq!(origin_label(&"x".repeat(100)).len(), MAX_ORIGIN_BYTES);
        assert_eq!(origin_problem(&origin_label("any thing at all")), None);
    }

    #[test]
    fn ids_are_the_hosts_or_the_name_with_its_origin() {
        for good in ["a", "7f3c-uuid", "skills/pdf v2", "é", &"x".repeat(MAX_ID_BYTES)] {
            assert_eq!(id_problem(good), None, "{good}");
        }
        for bad in [
            "",
            " pdf",
            "pdf ",
            "a\nb",
            "a\u{0}b",
            "a\u{202E}b",
            "a\u{200B}b",
            "a\u{2028}b",
            &"x".repeat(MAX_ID_BYTES + 1),
        ] {
            assert!(id_problem(bad).is_some(), "{bad:?}");
        }
        // A reason repeats the start of what it refuses, not all of it.
        let long = "x".repeat(1 << 20);
        assert!(id_problem(&long).is_some_and(|why| why.len() < 300));
        assert!(origin_problem(&long).is_some_and(|why| why.len() < 300));
        assert_eq!(skill_id(Some("row-17"), "pdf", Some("acme")), "row-17");
        assert_eq!(skill_id(None, "pdf", Some("acme")), "pdf@acme");
        assert_eq!(skill_id(None, "pdf", None), "pdf");
    }
}
