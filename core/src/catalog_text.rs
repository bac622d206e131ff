//! The catalogue as text for the system prompt, in four formats, under a byte budget.
//!
//! - [`CatalogFormat::AgentSkills`]: the standard's integration guide's indented
//!   `<available_skills>` XML, names, descriptions and locations escaped: always a
//!   well-formed XML document (characters XML cannot hold become U+FFFD).
//! - [`CatalogFormat::SkillsRef`]: byte for byte what the reference implementation's
//!   `to-prompt` prints (one element per line, Python `html.escape` escaping), including
//!   its empty `<available_skills>` element when there are no skills.
//! - [`CatalogFormat::Markdown`]: a bullet list, whitespace in descriptions collapsed.
//! - [`CatalogFormat::Json`]: a compact JSON array of `{name, description, location}`.
//!
//! Gated and blocked skills are left out. With no skills the text is empty (but for `skills-ref`).
//!
//! **Budget.** When the text is over the budget, the longest descriptions are shortened
//! first: every description is capped at the largest length (in characters) that
//! fits, cut on a character boundary and marked with `…`, but not below
//! [`MIN_DESCRIPTION_CHARS`]. If that is not enough, whole entries are left out from
//! the end of the catalogue order (last by precedence, then name). What was shortened
//! or left out is reported.

use crate::catalog::Catalog;
use serde::{Deserialize, Serialize};

/// Descriptions are never shortened below this many characters; entries are left out
/// instead.
pub const MIN_DESCRIPTION_CHARS: usize = 40;

/// How the catalogue is written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CatalogFormat {
    /// The standard's recommended `<available_skills>` XML, indented.
    #[default]
    AgentSkills,
    /// The reference implementation's exact `to-prompt` output.
    SkillsRef,
    /// A Markdown bullet list.
    Markdown,
    /// A JSON array.
    Json,
}

/// The catalogue text and what the budget cost.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CatalogText {
    /// The text for the system prompt.
    pub text: String,
    /// Names of skills whose descriptions were shortened.
    pub shortened: Vec<String>,
    /// Names of skills left out to fit the budget.
    pub omitted: Vec<String>,
}

struct Entry<'a> {
    name: &'a str,
    description: &'a str,
    location: &'a str,
}

/// Writes `catalog` in `format`, within `budget` bytes when one is given.
pub fn render_catalog(catalog: &Catalog, format: CatalogFormat, budget: Option<usize>) -> CatalogText {
    let entries: Vec<Entry<'_>> = catalog
        .skills()
        .iter()
        .filter(|s| !s.gated() && !s.blocked())
        .map(|s| Entry { name: &s.skill.name, description: &s.skill.description, location: &s.skill.location })
        .collect();
    let full = write(format, &entries, None);
    let Some(budget) = budget else {
        return CatalogText { text: full, ..CatalogText::default() };
    };
    if full.len() <= budget {
        return CatalogText { text: full, ..CatalogText::default() };
    }
    let longest = entries.iter().map(|e| e.description.chars().count()).max().unwrap_or(0);
    // Largest cap that fits: fitting is monotonic in the cap, so bisect.
    let fits = |cap: usize| write(format, &entries, Some(cap)).len() <= budget;
    let floor = MIN_DESCRIPTION_CHARS.min(longest);
    let mut kept = entries.len();
    let cap = if fits(floor) {
        let (mut lo, mut hi) = (floor, longest);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if fits(mid) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        lo
    } else {
        while kept > 0 && write(format, entries.get(..kept).unwrap_or(&[]), Some(floor)).len() > budget {
            kept -= 1;
        }
        floor
    };
    let shown = entries.get(..kept).unwrap_or(&[]);
    let mut text = write(format, shown, Some(cap));
    if text.len() > budget {
        text.clear();
    }
    CatalogText {
        text,
        shortened: shown.iter().filter(|e| e.description.chars().count() > cap).map(|e| e.name.to_owned()).collect(),
        omitted: entries.get(kept..).unwrap_or(&[]).iter().map(|e| e.name.to_owned()).collect(),
    }
}

/// `description` capped at `cap` characters, the last one replaced by `…`.
fn capped(description: &str, cap: Option<usize>) -> std::borrow::Cow<'_, str> {
    match cap {
        Some(cap) if description.chars().count() > cap => {
            let keep: String = description.chars().take(cap.saturating_sub(1)).collect();
            format!("{}…", keep.trim_end()).into()
        }
        _ => description.into(),
    }
}

fn write(format: CatalogFormat, entries: &[Entry<'_>], cap: Option<usize>) -> String {
    let mut out = String::new();
    match format {
        CatalogFormat::SkillsRef => {
            out.push_str("<available_skills>\n");
            for e in entries {
                out.push_str("<skill>\n<name>\n");
                out.push_str(&html_escape(e.name));
                out.push_str("\n</name>\n<description>\n");
                out.push_str(&html_escape(&capped(e.description, cap)));
                out.push_str("\n</description>\n<location>\n");
                out.push_str(e.location);
                out.push_str("\n</location>\n</skill>\n");
            }
            out.push_str("</available_skills>");
        }
        CatalogFormat::AgentSkills if !entries.is_empty() => {
            out.push_str("<available_skills>\n");
            for e in entries {
                out.push_str("  <skill>\n    <name>");
                out.push_str(&xml_escape(e.name));
                out.push_str("</name>\n    <description>");
                out.push_str(&xml_escape(&capped(e.description, cap)));
                out.push_str("</description>\n    <location>");
                out.push_str(&xml_escape(e.location));
                out.push_str("</location>\n  </skill>\n");
            }
            out.push_str("</available_skills>");
        }
        CatalogFormat::Markdown if !entries.is_empty() => {
            out.push_str("## Available skills\n");
            for e in entries {
                out.push_str("\n- **");
                out.push_str(&collapse_whitespace(e.name));
                out.push_str("**: ");
                out.push_str(&collapse_whitespace(&capped(e.description, cap)));
                out.push_str("\n  Location: `");
                out.push_str(e.location);
                out.push('`');
            }
        }
        CatalogFormat::Json if !entries.is_empty() => {
            #[derive(Serialize)]
            struct JsonEntry<'a> {
                name: &'a str,
                description: std::borrow::Cow<'a, str>,
                location: &'a str,
            }
            let list: Vec<JsonEntry<'_>> = entries
                .iter()
                .map(|e| JsonEntry { name: e.name, description: capped(e.description, cap), location: e.location })
                .collect();
            out = serde_json::to_string(&list).unwrap_or_default();
        }
        _ => {}
    }
    out
}

/// [`html_escape`], and every character XML 1.0 cannot hold (control characters but
/// tab and line breaks, U+FFFE, U+FFFF) written as U+FFFD: the text stays a
/// well-formed XML document whatever a skill's author wrote.
fn xml_escape(s: &str) -> String {
    let legal =
        |c: char| matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..);
    if s.chars().all(legal) {
        return html_escape(s);
    }
    html_escape(&s.chars().map(|c| if legal(c) { c } else { '\u{FFFD}' }).collect::<String>())
}

/// Python's `html.escape(s, quote=True)`: `&`, `<`, `>`, `"` and `'`.
pub(crate) fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#x27;"),
            c => out.push(c),
        }
    }
    out
}

/// `s` with each whitespace run written as one space, and no leading or trailing space.
pub(crate) fn collapse_whitespace(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
