//! The catalogue as text for the system prompt, in four formats, under a byte budget.
//!
//! - [`CatalogFormat::AgentSkills`]: the standard's integration guide's indented
//!   `<available_skills>` XML, names, descriptions and locations escaped: always a
//!   well-formed XML document (characters XML cannot hold become U+FFFD).
//! - [`CatalogFormat::SkillsRef`]: byte for byte what the reference implementation's
//!   `to-prompt` prints (one element per line, Python `html.escape` escaping), including
//!   its empty `<available_skills>` element when there are no skills (for one turn,
//!   name-only entries have no `<description>`, which the reference never writes).
//! - [`CatalogFormat::Markdown`]: a bullet list, whitespace in descriptions collapsed.
//! - [`CatalogFormat::Json`]: a compact JSON array of `{name, description, location}`
//!   (`{name, location}` for a name-only entry of a turn's catalogue).
//!
//! Descriptions are as listings show them: a skill's `when_to_use`, when it has one,
//! follows its description ([`Skill::listing_description`](crate::Skill::listing_description)),
//! but in the `skills-ref` format, which is the reference's.
//!
//! Gated and blocked skills are left out. With no skills the text is empty, but for
//! `skills-ref` (its empty element) and `json` (`[]`: a program parses what it prints).
//!
//! **A catalogue for one turn** ([`render_catalog_for`], [`Catalog::catalog_for`]): the
//! skills most relevant to the message are listed first, most relevant first, with their
//! full descriptions (*featured*); the others follow by name and location only. Over the
//! budget, name-only entries are left out from the end first; then the featured entries
//! are shortened and left out as above.
//!
//! **Budget.** When the text is over the budget, the longest descriptions are shortened
//! first: every description is capped at the largest length (in characters) that
//! fits, cut on a character boundary and marked with `…`, but not below
//! [`MIN_DESCRIPTION_CHARS`]. If that is not enough, whole entries are left out from
//! the end of the catalogue order (last by precedence, then name). What was shortened
//! or left out is reported.

use crate::catalog::{Catalog, CatalogSkill, MAX_RELEVANT};
use crate::error::Error;
use crate::text::{cap_chars, collapse_whitespace};
use crate::turn::TurnContext;
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
    /// For one turn: the skills listed first with their descriptions, most relevant
    /// first (empty for the whole catalogue).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub featured: Vec<String>,
    /// For one turn: the skills listed by name and location only.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub names_only: Vec<String>,
}

/// How many skills a catalogue for one turn features by default.
pub const DEFAULT_FEATURED: usize = 10;

struct Entry<'a> {
    name: &'a str,
    /// `None`: listed by name and location only.
    description: Option<std::borrow::Cow<'a, str>>,
    location: &'a str,
}

/// A skill with its description as listings show it (with `when_to_use`), but for the
/// reference's own format, which knows only the description.
fn full_entry(s: &CatalogSkill, format: CatalogFormat) -> Entry<'_> {
    let description = match format {
        CatalogFormat::SkillsRef => s.skill.description.as_str().into(),
        _ => s.skill.listing_description(),
    };
    Entry { name: &s.skill.name, description: Some(description), location: &s.skill.location }
}

/// Writes `catalog` in `format`, within `budget` bytes when one is given.
pub fn render_catalog(catalog: &Catalog, format: CatalogFormat, budget: Option<usize>) -> CatalogText {
    let entries: Vec<Entry<'_>> =
        catalog.skills().iter().filter(|s| s.listed()).map(|s| full_entry(s, format)).collect();
    fit(format, &entries, budget)
}

/// Writes `catalog` for one turn: the skills named in `featured` (most relevant first;
/// names compared ignoring case and `-`/`_`; names of no listed skill, and those past
/// [`MAX_RELEVANT`], are ignored) with their descriptions, then every other listed skill
/// by name only, within `budget` bytes when one is given (see the module docs).
pub fn render_catalog_for(
    catalog: &Catalog,
    featured: &[String],
    format: CatalogFormat,
    budget: Option<usize>,
) -> CatalogText {
    // Featured skills by catalogue index: names found ignoring case and `-`/`_`, listed
    // (not gated, not blocked), each once.
    let mut chosen: Vec<usize> = Vec::new();
    for name in featured.iter().take(MAX_RELEVANT) {
        let Some(i) = catalog.index_of(name) else { continue };
        if catalog.skills().get(i).is_some_and(CatalogSkill::listed) && !chosen.contains(&i) {
            chosen.push(i);
        }
    }
    let first: Vec<Entry<'_>> =
        chosen.iter().filter_map(|&i| catalog.skills().get(i)).map(|s| full_entry(s, format)).collect();
    let rest: Vec<Entry<'_>> = (catalog.skills().iter().enumerate())
        .filter(|(i, s)| s.listed() && !chosen.contains(i))
        .map(|(_, s)| Entry { name: &s.skill.name, description: None, location: &s.skill.location })
        .collect();
    let names = |entries: &[Entry<'_>]| entries.iter().map(|e| e.name.to_owned()).collect::<Vec<_>>();
    let with_rest = |n: usize| {
        let mut all: Vec<&Entry<'_>> = first.iter().collect();
        all.extend(rest.iter().take(n));
        write_refs(format, &all, None)
    };
    // As many name-only entries after the featured ones as fit; else the featured
    // ones alone, fitted as a whole catalogue is.
    let keep = match budget {
        None => rest.len(),
        Some(budget) => most_entries_fitting(0, rest.len(), |n| with_rest(n).len() <= budget),
    };
    let text = with_rest(keep);
    let fits = budget.is_none_or(|b| text.len() <= b);
    let (mut out, kept_rest) =
        if fits { (CatalogText { text, ..CatalogText::default() }, keep) } else { (fit(format, &first, budget), 0) };
    out.featured = names(&first).into_iter().filter(|n| !out.omitted.contains(n)).collect();
    out.names_only = names(rest.get(..kept_rest).unwrap_or(&[]));
    out.omitted.extend(names(rest.get(kept_rest..).unwrap_or(&[])));
    out
}

/// `entries` written in `format` within `budget`: descriptions shortened first, then
/// entries left out from the end.
fn fit(format: CatalogFormat, entries: &[Entry<'_>], budget: Option<usize>) -> CatalogText {
    let full = write(format, entries, None);
    let Some(budget) = budget else {
        return CatalogText { text: full, ..CatalogText::default() };
    };
    if full.len() <= budget {
        return CatalogText { text: full, ..CatalogText::default() };
    }
    let length = |e: &Entry<'_>| e.description.as_deref().map_or(0, |d| d.chars().count());
    let longest = entries.iter().map(length).max().unwrap_or(0);
    // Largest cap that fits: fitting is monotonic in the cap, so bisect.
    let fits = |cap: usize| write(format, entries, Some(cap)).len() <= budget;
    let floor = MIN_DESCRIPTION_CHARS.min(longest);
    let mut kept = entries.len();
    let cap = if fits(floor) {
        largest_fitting(floor, longest, fits)
    } else {
        // As many entries as fit at the floor: the text grows with each entry, so bisect
        // (leaving them out one at a time wrote the catalogue once per entry left out).
        let fit_at_floor = |n: usize| write(format, entries.get(..n).unwrap_or(&[]), Some(floor)).len() <= budget;
        kept = most_entries_fitting(0, kept, fit_at_floor);
        floor
    };
    let shown = entries.get(..kept).unwrap_or(&[]);
    let mut text = write(format, shown, Some(cap));
    if text.len() > budget {
        text.clear();
    }
    CatalogText {
        text,
        shortened: shown.iter().filter(|e| length(e) > cap).map(|e| e.name.to_owned()).collect(),
        omitted: entries.get(kept..).unwrap_or(&[]).iter().map(|e| e.name.to_owned()).collect(),
        ..CatalogText::default()
    }
}

impl Catalog {
    /// The catalogue for a turn on `message`: the `featured` skills most relevant to it
    /// ([`Catalog::relevant`]) with their descriptions, the others by name (see the
    /// module docs).
    pub fn catalog_for(
        &self,
        message: &str,
        context: &TurnContext,
        featured: usize,
        format: CatalogFormat,
        budget: Option<usize>,
    ) -> Result<CatalogText, Error> {
        let relevant: Vec<String> = self.relevant(message, context, featured)?.into_iter().map(|r| r.skill).collect();
        Ok(render_catalog_for(self, &relevant, format, budget))
    }
}

/// The largest `n` in `lo..=hi` for which `fits(n)`, given that `fits` holds up to
/// some point and not past it; `lo` when none past it does. By bisection: for the
/// description length, whose trials are not quite monotonic (a description cut with `…`
/// can be a byte longer than the whole one), this is the search the catalogue's text has
/// always come from.
fn largest_fitting(mut lo: usize, mut hi: usize, fits: impl Fn(usize) -> bool) -> usize {
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// [`largest_fitting`] for a count of entries, whose text grows with each one: galloping
/// up from `lo` (1, 2, 4, … more), then bisecting the last step. Each trial writes a
/// catalogue of about that many entries, and within a budget the answer is most often far
/// below `hi` (a few hundred names of 10,000), so the writing stays near the answer's size.
/// The same answer as bisecting, for a test that holds up to some point and not past it.
fn most_entries_fitting(mut lo: usize, hi: usize, fits: impl Fn(usize) -> bool) -> usize {
    let mut step = 1;
    while step <= hi.saturating_sub(lo) {
        if !fits(lo + step) {
            return largest_fitting(lo, lo + step - 1, fits);
        }
        lo += step;
        step = step.saturating_mul(2);
    }
    largest_fitting(lo, hi, fits)
}

fn write(format: CatalogFormat, entries: &[Entry<'_>], cap: Option<usize>) -> String {
    write_refs(format, &entries.iter().collect::<Vec<_>>(), cap)
}

fn write_refs(format: CatalogFormat, entries: &[&Entry<'_>], cap: Option<usize>) -> String {
    let mut out = String::new();
    match format {
        CatalogFormat::SkillsRef => {
            out.push_str("<available_skills>\n");
            for e in entries {
                out.push_str("<skill>\n<name>\n");
                push_html_escaped(&mut out, e.name);
                out.push_str("\n</name>\n");
                if let Some(description) = e.description.as_deref() {
                    out.push_str("<description>\n");
                    push_html_escaped(&mut out, &cap_chars(description, cap));
                    out.push_str("\n</description>\n");
                }
                out.push_str("<location>\n");
                out.push_str(e.location);
                out.push_str("\n</location>\n</skill>\n");
            }
            out.push_str("</available_skills>");
        }
        CatalogFormat::AgentSkills if !entries.is_empty() => {
            out.push_str("<available_skills>\n");
            for e in entries {
                out.push_str("  <skill>\n    <name>");
                push_xml_escaped(&mut out, e.name);
                out.push_str("</name>\n");
                if let Some(description) = e.description.as_deref() {
                    out.push_str("    <description>");
                    push_xml_escaped(&mut out, &cap_chars(description, cap));
                    out.push_str("</description>\n");
                }
                out.push_str("    <location>");
                push_xml_escaped(&mut out, e.location);
                out.push_str("</location>\n  </skill>\n");
            }
            out.push_str("</available_skills>");
        }
        CatalogFormat::Markdown if !entries.is_empty() => {
            out.push_str("## Available skills\n");
            for e in entries {
                out.push_str("\n- **");
                out.push_str(&collapse_whitespace(e.name));
                out.push_str("**");
                if let Some(description) = e.description.as_deref() {
                    out.push_str(": ");
                    out.push_str(&collapse_whitespace(&cap_chars(description, cap)));
                }
                out.push_str("\n  Location: `");
                out.push_str(e.location);
                out.push('`');
            }
        }
        CatalogFormat::Json => {
            #[derive(Serialize)]
            struct JsonEntry<'a> {
                name: &'a str,
                #[serde(skip_serializing_if = "Option::is_none")]
                description: Option<std::borrow::Cow<'a, str>>,
                location: &'a str,
            }
            let list: Vec<JsonEntry<'_>> = entries
                .iter()
                .map(|e| JsonEntry {
                    name: e.name,
                    description: e.description.as_deref().map(|d| cap_chars(d, cap)),
                    location: e.location,
                })
                .collect();
            out = serde_json::to_string(&list).unwrap_or_default();
        }
        _ => {}
    }
    out
}

/// [`html_escape`], and every character XML 1.0 cannot hold (control characters but
/// tab and line breaks, U+FFFE, U+FFFF) written as U+FFFD, onto `out`: the text stays a
/// well-formed XML document whatever a skill's author wrote.
fn push_xml_escaped(out: &mut String, s: &str) {
    let legal =
        |c: char| matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..);
    // Read as bytes: an illegal character is an ASCII control byte, or U+FFFE or U+FFFF
    // (EF BF BE, EF BF BF; in UTF-8 an EF byte always starts a character).
    let bytes = s.as_bytes();
    let control = bytes.iter().any(|&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r'));
    let noncharacter = || {
        memchr::memchr_iter(0xEF, bytes)
            .any(|at| bytes.get(at + 1) == Some(&0xBF) && matches!(bytes.get(at + 2), Some(0xBE | 0xBF)))
    };
    match control || noncharacter() {
        false => push_html_escaped(out, s),
        true => push_html_escaped(out, &s.chars().map(|c| if legal(c) { c } else { '\u{FFFD}' }).collect::<String>()),
    }
}

/// Python's `html.escape(s, quote=True)`: `&`, `<`, `>`, `"` and `'`.
pub(crate) fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_html_escaped(&mut out, s);
    out
}

/// [`html_escape`] of `s` onto `out`. The characters escaped are ASCII bytes: the text
/// between them is copied as it is.
fn push_html_escaped(out: &mut String, s: &str) {
    let mut rest = s;
    while let Some(at) = rest.bytes().position(|b| matches!(b, b'&' | b'<' | b'>' | b'"' | b'\'')) {
        out.push_str(rest.get(..at).unwrap_or_default());
        out.push_str(match rest.as_bytes().get(at) {
            Some(b'&') => "&amp;",
            Some(b'<') => "&lt;",
            Some(b'>') => "&gt;",
            Some(b'"') => "&quot;",
            _ => "&#x27;",
        });
        rest = rest.get(at + 1..).unwrap_or_default();
    }
    out.push_str(rest);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Escaping a run at a time gives what escaping a character at a time gave (the
    /// reference below), for every character that is escaped or replaced, and the ones
    /// around them: ASCII, control characters, DEL, C1 controls, U+FFFD to U+FFFF,
    /// characters of two, three and four bytes.
    #[test]
    fn escaping_runs_gives_what_escaping_characters_gave() {
        let html = |s: &str| -> String {
            s.chars()
                .map(|c| match c {
                    '&' => "&amp;".to_owned(),
                    '<' => "&lt;".to_owned(),
                    '>' => "&gt;".to_owned(),
                    '"' => "&quot;".to_owned(),
                    '\'' => "&#x27;".to_owned(),
                    c => c.to_string(),
                })
                .collect()
        };
        let legal =
            |c: char| matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..);
        let xml = |s: &str| html(&s.chars().map(|c| if legal(c) { c } else { '\u{FFFD}' }).collect::<String>());
        let pieces = [
            "&",
            "<",
            ">",
            "\"",
            "'",
            "a",
            "plain words",
            "\u{0}",
            "\u{1f}",
            "\t",
            "\n",
            "\r",
            "\u{7f}",
            "\u{85}",
            "é",
            "\u{FFFD}",
            "\u{FFFE}",
            "\u{FFFF}",
            "\u{EFBF}",
            "😀",
            "&amp;",
            "\u{FEFF}",
            "\u{10FFFF}",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..3_000 {
            let mut text = String::new();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            for i in 0..(seed % 9) {
                text.push_str(pieces[((seed >> (i * 6)) as usize) % pieces.len()]);
            }
            assert_eq!(html_escape(&text), html(&text), "{text:?}");
            let mut out = String::from("kept ");
            push_xml_escaped(&mut out, &text);
            assert_eq!(out, format!("kept {}", xml(&text)), "{text:?}");
        }
    }

    /// Galloping finds what bisecting finds, for a test that holds up to some point,
    /// whatever the range (empty, one value, up to `usize::MAX`) and the point, in about
    /// twice the logarithm of the answer's distance from the start.
    #[test]
    fn galloping_finds_what_bisecting_finds() {
        let log2 = |n: usize| (usize::BITS - n.leading_zeros()) as usize;
        for lo in [0, 1, 5] {
            for hi in [0, 1, 2, 3, 7, 8, 9, 100, 1_000, usize::MAX] {
                for edge in (0..=20).chain([99, 100, 101, 127, 128, 999, 1_000, 12_345, usize::MAX]) {
                    let asked = std::cell::Cell::new(0);
                    let fits = |n: usize| {
                        asked.set(asked.get() + 1);
                        n <= edge
                    };
                    let bisected = largest_fitting(lo, hi, |n| n <= edge);
                    let expected = if hi <= lo { lo } else { edge.clamp(lo, hi) };
                    assert_eq!(bisected, expected, "{lo}..={hi}, holds to {edge}");
                    assert_eq!(most_entries_fitting(lo, hi, fits), expected, "{lo}..={hi}, holds to {edge}");
                    let most = 2 * log2((expected - lo.min(expected)).saturating_add(1)) + 2;
                    assert!(asked.get() <= most, "{lo}..={hi} to {edge}: asked {}, at most {most}", asked.get());
                }
            }
        }
    }

    /// Where even the shortest descriptions do not fit, as many entries are kept as fit,
    /// in every format: the bisection keeps what leaving entries out one at a time kept.
    #[test]
    fn entries_left_out_to_fit_are_the_fewest() {
        let names: Vec<String> = (0..40).map(|i| format!("skill-{i}")).collect();
        let locations: Vec<String> = names.iter().map(|n| format!("skills/{n}/SKILL.md")).collect();
        let entries: Vec<Entry<'_>> = (names.iter().zip(&locations).enumerate())
            .map(|(i, (name, location))| Entry {
                name,
                description: Some(format!("Does task {i} & more, {}", "with words ".repeat(i % 9 + 4)).into()),
                location,
            })
            .collect();
        let formats =
            [CatalogFormat::SkillsRef, CatalogFormat::AgentSkills, CatalogFormat::Markdown, CatalogFormat::Json];
        for format in formats {
            let at_floor = |n: usize| write(format, &entries[..n], Some(MIN_DESCRIPTION_CHARS)).len();
            for budget in (0..at_floor(entries.len())).step_by(97) {
                let out = fit(format, &entries, Some(budget));
                if write(format, &entries, Some(MIN_DESCRIPTION_CHARS)).len() <= budget {
                    continue;
                }
                let mut kept = entries.len();
                while kept > 0 && at_floor(kept) > budget {
                    kept -= 1;
                }
                assert_eq!(out.omitted.len(), entries.len() - kept, "{format:?} within {budget}");
                assert!(out.text.len() <= budget, "{format:?} within {budget}");
            }
        }
    }
}
