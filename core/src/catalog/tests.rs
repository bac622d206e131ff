//! Tests of `catalog`.

use super::*;
use crate::engine::source::MemorySource;

fn md(name: &str, extra: &str) -> String {
    format!("---\nname: {name}\ndescription: about {name}\n{extra}---\nBody of {name}\n")
}

#[test]
fn precedence_first_and_last_wins_with_shadowing() {
    let a: MemorySource = [("a/pdf/SKILL.md", md("pdf", "")), ("a/x/SKILL.md", md("x-y", ""))].into_iter().collect();
    let b: MemorySource = [("b/pdf/SKILL.md", md("PDF", "")), ("b/z/SKILL.md", md("x_y", ""))].into_iter().collect();
    let first = Catalog::from_sources(&[&a, &b], &CatalogOptions::default());
    assert_eq!(first.get("pdf").unwrap().skill.location, "a/pdf/SKILL.md");
    assert_eq!(first.report().shadowed.len(), 2);
    assert_eq!(first.report().shadowed[0].by, "a/pdf/SKILL.md");
    assert_eq!(first.get_by_location("b/pdf/SKILL.md").unwrap().skill.name, "PDF");

    let opts = CatalogOptions { precedence: Precedence::LastWins, ..CatalogOptions::default() };
    let last = Catalog::from_sources(&[&a, &b], &opts);
    assert_eq!(last.get("pdf").unwrap().skill.location, "b/pdf/SKILL.md");
    assert_eq!(last.get("x-y").unwrap().skill.location, "b/z/SKILL.md");
    // The winning source comes first in catalogue order.
    let order: Vec<_> = last.skills().iter().map(|s| s.skill.location.as_str()).collect();
    assert_eq!(order, vec!["b/pdf/SKILL.md", "b/z/SKILL.md"]);
}

#[test]
fn gating_by_requires() {
    let src: MemorySource = [
        ("s/a/SKILL.md", md("a", "requires: {mcp: [rube]}\n")),
        ("s/b/SKILL.md", md("b", "requires: github, slack\n")),
    ]
    .into_iter()
    .collect();
    let none = Catalog::from_sources(&[&src], &CatalogOptions::default());
    assert_eq!(none.report().gated.len(), 2);
    assert_eq!(none.report().gated[0].missing, vec!["mcp:rube"]);
    let opts = CatalogOptions { available: vec!["Rube".into(), "github".into()], ..CatalogOptions::default() };
    let some = Catalog::from_sources(&[&src], &opts);
    assert!(!some.get("a").unwrap().gated());
    assert_eq!(some.get("b").unwrap().missing, vec!["slack"]);
}

#[test]
fn failures_are_reported_not_fatal() {
    let inputs = vec![
        CatalogInput { source: 0, location: "x/SKILL.md".into(), text: Err("permission denied".into()) },
        CatalogInput { source: 0, location: "y/SKILL.md".into(), text: Ok("no frontmatter".into()) },
        CatalogInput { source: 0, location: "z/SKILL.md".into(), text: Ok(md("z", "")) },
    ];
    let c = Catalog::build(inputs, &CatalogOptions::default());
    assert_eq!(c.skills().len(), 1);
    let reasons: Vec<_> = c.report().skipped.iter().map(|s| s.reason.as_str()).collect();
    assert_eq!(reasons, vec!["permission denied", "SKILL.md must start with YAML frontmatter (---)"]);
}

#[test]
fn skill_count_limit() {
    let limits = Limits { max_skills: 1, ..Limits::default() };
    let inputs = (0..3)
        .map(|i| CatalogInput { source: 0, location: format!("s{i}/SKILL.md"), text: Ok(md(&format!("s{i}"), "")) })
        .collect();
    let c = Catalog::build(inputs, &CatalogOptions { limits, ..CatalogOptions::default() });
    assert_eq!(c.skills().len(), 1);
    assert_eq!(c.report().skipped.len(), 2);
}

#[test]
fn a_mention_is_not_evidence_for_other_skills() {
    let skill = |name: &str, description: &str| CatalogInput {
        source: 0,
        location: format!("{name}/SKILL.md"),
        text: Ok(format!("---\nname: {name}\ndescription: {description}\n---\nBody\n")),
    };
    let mut inputs = vec![skill("pdf", "Fill PDF forms."), skill("zotero", "Zotero PDF attachments.")];
    inputs.extend((0..20).map(|i| skill(&format!("filler-{i}"), &format!("Unrelated topic {i}: gardening."))));
    let rank = RankOptions { min_score: 0.0, min_ratio: 0.0, max_ranked: 5, ..RankOptions::default() };
    let catalog = Catalog::build(inputs, &CatalogOptions { rank, ..CatalogOptions::default() });
    let zotero = |message: &str| -> f64 {
        let matches = catalog.turn(message, &TurnContext::default()).unwrap().matches();
        matches.iter().find(|m| m.skill == "zotero").and_then(|m| m.score).unwrap()
    };
    // The word `pdf` is evidence for zotero; the mention `@pdf` is not.
    assert!(zotero("pdf attachments") > zotero("attachments"));
    assert_eq!(zotero("@pdf attachments"), zotero("attachments"));
    assert_eq!(catalog.turn("@pdf attachments", &TurnContext::default()).unwrap().matches()[0].skill, "pdf");
}
