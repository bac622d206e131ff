//! Rendering as properties over arbitrary names, descriptions, bodies and budgets:
//!
//! - an injection, in every format, parses back into exactly the blocks the decisions
//!   say were injected, in order, with their truncation, within the budget, whatever
//!   the bodies contain (delimiters of every format, line breaks of every kind);
//! - the catalogue's XML formats are well-formed documents with one `<skill>` per listed
//!   skill, whose name and description read back exactly; the Markdown catalogue has one
//!   entry line per skill; the JSON catalogue reads back exactly.
//!
//! Text is built from fragments chosen to hurt: markup of every format, quotes,
//! ampersands, line breaks, non-ASCII.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)] // test code

use proptest::prelude::*;
use skillwire::{
    block_name, parse_blocks, render_catalog, Catalog, CatalogFormat, CatalogInput, CatalogOptions, InjectFormat,
    RenderOptions, ScanPolicy, TurnContext,
};

const FRAGMENTS: &[&str] = &[
    "a",
    "Z",
    "0",
    "-",
    "_",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "\r",
    "é",
    "😀",
    "ß",
    "<",
    ">",
    "&",
    "\"",
    "'",
    "&amp;",
    "&lt;",
    "[SKILL:x]",
    "[/SKILL]",
    "[/SKILL:truncated]",
    "[skill:y]",
    "<skill name=\"x\">",
    "</skill>",
    "<Skill",
    "<!-- skill:x -->",
    "<!-- /skill -->",
    "<!--skill:x-->",
    "<!-- /skill:truncated -->",
    "]]>",
    "<![CDATA[",
    "{baseDir}",
    "---",
    "*",
    "#",
    ":",
    "@",
];

/// Text made of `FRAGMENTS`, up to `max` of them.
fn text(max: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(FRAGMENTS), 0..=max).prop_map(|parts| parts.concat())
}

/// A YAML double-quoted scalar holding `s` exactly (JSON strings are YAML).
fn yaml_quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// A catalogue of skills with the given names, descriptions and bodies (nothing
/// scanned away: these tests are about rendering).
fn catalogue(skills: &[(String, String, String)]) -> (Catalog, Vec<String>) {
    let texts: Vec<String> = skills
        .iter()
        .map(|(name, description, body)| {
            format!("---\nname: {}\ndescription: {}\n---\n{body}", yaml_quoted(name), yaml_quoted(description))
        })
        .collect();
    let inputs = texts
        .iter()
        .enumerate()
        .map(|(i, t)| CatalogInput {
            source: 0,
            id: None,
            origin: None,
            location: format!("s/{i}/SKILL.md"),
            text: Ok(t.clone()),
        })
        .collect();
    let options = CatalogOptions { scan: ScanPolicy::allow_all(), ..CatalogOptions::default() };
    (Catalog::build(inputs, &options), texts)
}

/// Names that load (non-empty after trimming), bodies anything.
fn skills() -> impl Strategy<Value = Vec<(String, String, String)>> {
    let name = (text(6), 0u32..1000).prop_map(|(t, n)| format!("{}{n}", t.trim()));
    proptest::collection::vec((name, text(8), text(40)), 1..6)
}

/// A character XML 1.0 allows in a document.
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// `text` as the catalogue carries it through an XML parser: line ends normalised to
/// `\n` (XML 1.0, 2.11, which parsers apply to differing degrees), characters XML
/// cannot hold written as U+FFFD.
fn as_xml_reads(text: &str) -> String {
    let text: String = text.chars().map(|c| if xml_char(c) { c } else { '\u{FFFD}' }).collect();
    text.replace("\r\n", "\n").replace('\r', "\n")
}

fn format() -> impl Strategy<Value = InjectFormat> {
    prop_oneof![Just(InjectFormat::Bracket), Just(InjectFormat::Xml), Just(InjectFormat::Markdown)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn injections_parse_back_into_exactly_the_injected_blocks(
        skills in skills(),
        format in format(),
        budget in 0usize..1500,
        min_truncated_bytes in 0usize..80,
    ) {
        // Every skill is a candidate: the message holds each one's description.
        let skills: Vec<(String, String, String)> = skills
            .into_iter()
            .enumerate()
            .map(|(i, (name, _, body))| (name, format!("Topic number {i} handler"), body))
            .collect();
        let (catalog, texts) = catalogue(&skills);
        let message: String = (0..skills.len()).map(|i| format!("topic number {i} handler; ")).collect();
        let options = RenderOptions { format, budget, min_truncated_bytes, ..RenderOptions::default() };
        let read = |location: &str| {
            let i: usize = location.split('/').nth(1).unwrap().parse().unwrap();
            Ok(texts[i].clone())
        };
        let turn = catalog.inject(&message, &TurnContext::default(), &options, |entry| read(&entry.skill.location)).unwrap();
        prop_assert_eq!(turn.decisions.len(), catalog.skills().len(), "every skill is a candidate");
        prop_assert!(turn.text.len() <= budget, "{} bytes over {budget}", turn.text.len());
        let carried = |name: &str| if format == InjectFormat::Xml { name.to_owned() } else { block_name(name) };
        let injected: Vec<(String, bool)> = turn
            .decisions
            .iter()
            .filter(|d| d.skipped.is_none())
            .map(|d| (carried(&d.skill), d.truncated))
            .collect();
        let parsed = parse_blocks(&turn.text, format);
        prop_assert!(parsed.is_some(), "does not parse: {:?}", turn.text);
        let parsed: Vec<(String, bool)> = parsed.unwrap().into_iter().map(|b| (b.name, b.truncated)).collect();
        prop_assert_eq!(parsed, injected);
        let bytes: usize = turn.decisions.iter().map(|d| d.injected_bytes).sum::<usize>();
        let separators = 2 * turn.decisions.iter().filter(|d| d.injected_bytes > 0).count().saturating_sub(1);
        prop_assert_eq!(bytes + separators, turn.text.len());
    }

    #[test]
    fn catalogue_xml_is_well_formed_and_reads_back_exactly(skills in skills(), budget in proptest::option::of(0usize..2000)) {
        let (catalog, _) = catalogue(&skills);
        let listed: Vec<&skillwire::Skill> = catalog.skills().iter().map(|s| &s.skill).collect();
        for format in [CatalogFormat::AgentSkills, CatalogFormat::SkillsRef] {
            let out = render_catalog(&catalog, format, budget);
            if out.text.is_empty() {
                continue;
            }
            // skills-ref is the reference's text byte for byte, XML-illegal characters included.
            if format == CatalogFormat::SkillsRef && out.text.chars().any(|c| !xml_char(c)) {
                continue;
            }
            let doc = roxmltree::Document::parse(&out.text);
            prop_assert!(doc.is_ok(), "{format:?} is not well-formed: {:?}\n{}", doc.err(), out.text);
            let doc = doc.unwrap();
            prop_assert_eq!(doc.root_element().tag_name().name(), "available_skills");
            let entries: Vec<roxmltree::Node<'_, '_>> = doc.root_element().children().filter(|n| n.has_tag_name("skill")).collect();
            prop_assert_eq!(entries.len(), listed.len() - out.omitted.len());
            let field = |entry: &roxmltree::Node<'_, '_>, tag: &str| -> String {
                let text: String = entry.children().find(|n| n.has_tag_name(tag)).unwrap().text().unwrap_or("").to_owned();
                // skills-ref puts each value on a line of its own.
                if format == CatalogFormat::SkillsRef { text.strip_prefix('\n').unwrap().strip_suffix('\n').unwrap().to_owned() } else { text }
            };
            for (entry, skill) in entries.iter().zip(&listed) {
                prop_assert_eq!(as_xml_reads(&field(entry, "name")), as_xml_reads(&skill.name));
                if !out.shortened.contains(&skill.name) {
                    prop_assert_eq!(as_xml_reads(&field(entry, "description")), as_xml_reads(&skill.description));
                }
            }
        }
    }

    #[test]
    fn markdown_and_json_catalogues_have_one_entry_per_skill(skills in skills(), budget in proptest::option::of(0usize..2000)) {
        let (catalog, _) = catalogue(&skills);
        let listed = catalog.skills().len();
        let markdown = render_catalog(&catalog, CatalogFormat::Markdown, budget);
        if !markdown.text.is_empty() {
            let entries = markdown.text.lines().filter(|l| l.starts_with("- **")).count();
            prop_assert_eq!(entries, listed - markdown.omitted.len(), "{}", markdown.text);
        }
        let json = render_catalog(&catalog, CatalogFormat::Json, None);
        let parsed: Vec<serde_json::Value> =
            if json.text.is_empty() { Vec::new() } else { serde_json::from_str(&json.text).unwrap() };
        prop_assert_eq!(parsed.len(), listed);
        for (entry, skill) in parsed.iter().zip(catalog.skills()) {
            prop_assert_eq!(entry["name"].as_str().unwrap(), skill.skill.name.as_str());
            prop_assert_eq!(entry["description"].as_str().unwrap(), skill.skill.description.as_str());
        }
    }
}
