//! Tests of LLM selection: prompts, shortlists, statistics, replies.

use super::*;
use crate::catalog::{CatalogInput, CatalogOptions};

fn catalog(skills: &[(&str, &str, &str)]) -> Catalog {
    let inputs = skills
        .iter()
        .map(|(name, description, extra)| CatalogInput {
            source: 0,
            id: None,
            origin: None,
            location: format!("s/{name}/SKILL.md"),
            text: Ok(format!("---\nname: {name}\ndescription: {description}\n{extra}---\nBody.\n")),
        })
        .collect();
    Catalog::build(inputs, &CatalogOptions::default())
}

fn three() -> Catalog {
    catalog(&[
        ("pdf", "Merge and split PDF files.", ""),
        ("sql-review", "Review SQL queries for injection.", ""),
        ("release-notes", "Write release notes from merged pull requests.", ""),
    ])
}

fn parse(c: &Catalog, reply: &str) -> (Vec<String>, Vec<String>, ReplyShape) {
    let s = c.select_parse(reply, 3).unwrap();
    (s.skills, s.unknown, s.reply)
}

fn strings(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn replies_are_read_wherever_the_json_is() {
    let c = three();
    let want = (strings(&["sql-review", "pdf"]), Vec::new(), ReplyShape::Object);
    for reply in [
        r#"{"brief_plan": "x", "skills": ["sql-review", "pdf"]}"#,
        "Sure! Here you go:\n```json\n{\"skills\": [\"sql-review\", \"pdf\"]}\n```\nHope it helps.",
        "I think {\"skills\": [\"SQL_Review\", \"@pdf\"]} is best.",
        "{\"skills\": [{\"id\": \"sql-review\"}, {\"name\": \"pdf\"}, {\"id\": \"pdf\"}]}",
    ] {
        assert_eq!(parse(&c, reply), want, "{reply}");
    }
    assert_eq!(parse(&c, r#"["pdf"]"#), (strings(&["pdf"]), Vec::new(), ReplyShape::List));
    assert_eq!(parse(&c, "Use [\"pdf\"] here"), (strings(&["pdf"]), Vec::new(), ReplyShape::List));
    // An object with `skills` wins over a list met before it; reasoning is skipped.
    let aside = "Not [\"pdf\"], rather {\"skills\": [\"sql-review\"]}";
    assert_eq!(parse(&c, aside), (strings(&["sql-review"]), Vec::new(), ReplyShape::Object));
    let thinking = "<think>Maybe {\"skills\": [\"pdf\"]}?</think>\n{\"skills\": [\"sql-review\"]}";
    assert_eq!(parse(&c, thinking), (strings(&["sql-review"]), Vec::new(), ReplyShape::Object));
    assert_eq!(parse(&c, "<think>hmm</think>\npdf"), (strings(&["pdf"]), Vec::new(), ReplyShape::Names));
    assert_eq!(parse(&c, "- pdf\n- `sql-review`"), (strings(&["pdf", "sql-review"]), Vec::new(), ReplyShape::Names));
    assert_eq!(parse(&c, "1. pdf, 2. sql-review"), (strings(&["pdf", "sql-review"]), Vec::new(), ReplyShape::Names));
    assert_eq!(parse(&c, "none"), (Vec::new(), Vec::new(), ReplyShape::Names));
    assert_eq!(parse(&c, "I would use the pdf skill."), (Vec::new(), Vec::new(), ReplyShape::Unreadable));
    assert_eq!(parse(&c, "{\"skills\": "), (Vec::new(), Vec::new(), ReplyShape::Unreadable));
    let plan = c.select_parse(r#"{"brief_plan": "Merge first.", "skills": []}"#, 3).unwrap();
    assert_eq!(plan.brief_plan.as_deref(), Some("Merge first."));
}

#[test]
fn unknown_names_are_reported_and_the_rest_capped() {
    let c = catalog(&[
        ("a", "A.", ""),
        ("b", "B.", ""),
        ("c", "C.", ""),
        ("gated", "G.", "requires: [github]\n"),
        ("manual", "M.", "disable-model-invocation: true\n"),
    ]);
    let s = c.select_parse(r#"{"skills": ["a", "zz", "gated", "manual", "ZZ", "b", "c"]}"#, 2).unwrap();
    assert_eq!(s.skills, strings(&["a", "b"]));
    assert_eq!(s.over_limit, strings(&["c"]));
    assert_eq!(s.unknown, strings(&["zz", "gated", "manual"]));
}

#[test]
fn a_reply_past_the_limit_is_refused() {
    let c = three();
    let long = "x".repeat(c.limits().max_message_bytes + 1);
    assert_eq!(c.select_parse(&long, 3).unwrap_err().code(), "reply_too_large");
}

#[test]
fn prompt_lists_selectable_skills_as_json_lines() {
    let c = catalog(&[
        ("pdf", "'Merge  PDF files.   \"Ends\" here}'", ""),
        ("gated", "G.", "requires: [github]\n"),
        ("manual", "M.", "disable-model-invocation: true\n"),
    ]);
    let p = c.select_prompt("merge \"these\"\n", &TurnContext::default(), &[], &SelectOptions::default()).unwrap();
    assert_eq!(p.candidates, strings(&["pdf"]));
    assert!(!p.shortlisted);
    let lines: Vec<&str> = p.prompt.lines().filter(|l| l.starts_with("{\"id\"")).collect();
    assert_eq!(lines, [r#"{"id":"pdf","description":"Merge PDF files. \"Ends\" here}"}"#]);
    assert!(p.prompt.contains("\n\"merge \\\"these\\\"\\n\"\n"), "{}", p.prompt);
    assert!(p.prompt.contains("Choose at most 3 skills that clearly help"));
    assert!(!p.prompt.contains("record"));
}

#[test]
fn failing_skills_are_left_out_with_why() {
    let c = three();
    let stats = [
        SkillStats { skill: "PDF".into(), selected: 2, ..SkillStats::default() },
        SkillStats { skill: "sql_review".into(), selected: 5, applied: 4, completed: 2, fell_back: 3 },
        SkillStats { skill: "release-notes".into(), selected: 3, applied: 3, completed: 3, fell_back: 1 },
        SkillStats { skill: "nobody".into(), selected: 9, ..SkillStats::default() },
    ];
    let p = c.select_prompt("notes", &TurnContext::default(), &stats, &SelectOptions::default()).unwrap();
    assert_eq!(p.candidates, strings(&["release-notes"]));
    let why: Vec<(&str, LeftOutReason)> = p.left_out.iter().map(|l| (l.skill.as_str(), l.reason)).collect();
    assert_eq!(why, [("pdf", LeftOutReason::NeverCompleted), ("sql-review", LeftOutReason::FallsBack)]);
    assert_eq!(p.left_out[1].detail, "fell back 3 of 4 times applied");
    assert!(p.prompt.contains(r#""record":{"selected":3,"applied":3,"completed":3,"fell_back":1}"#));
    // Thresholds are the host's: with the rules off, every skill is offered.
    let lenient = SelectOptions { never_completed_after: 0, max_fallback_rate: 0.8, ..SelectOptions::default() };
    let p = c.select_prompt("notes", &TurnContext::default(), &stats, &lenient).unwrap();
    assert_eq!(p.candidates.len(), 3);
}

#[test]
fn large_catalogues_are_shortlisted_by_ranking() {
    let mut skills: Vec<(String, String)> =
        (0..50).map(|i| (format!("filler-{i}"), format!("Unrelated topic number {i}."))).collect();
    skills.push(("pdf".into(), "Merge and split PDF files.".into()));
    skills.push(("pdf-forms".into(), "Fill PDF forms.".into()));
    let refs: Vec<(&str, &str, &str)> = skills.iter().map(|(n, d)| (n.as_str(), d.as_str(), "")).collect();
    let c = catalog(&refs);
    let options = SelectOptions { shortlist_size: 5, ..SelectOptions::default() };
    let p = c.select_prompt("merge two PDF files", &TurnContext::default(), &[], &options).unwrap();
    assert!(p.shortlisted);
    assert_eq!(p.candidates, strings(&["pdf", "pdf-forms"]));
    let nothing = c.select_prompt("hello there", &TurnContext::default(), &[], &options).unwrap();
    assert!(nothing.candidates.is_empty());
    assert!(nothing.prompt.contains("There are no skills to choose from."));
}

#[test]
fn the_selection_feeds_a_turn_after_the_mentions() {
    use crate::turn::render::RenderOptions;
    use crate::turn::Skip;
    let c = catalog(&[
        ("pdf", "PDF.", ""),
        ("sql-review", "SQL.", ""),
        ("manual", "M.", "disable-model-invocation: true\n"),
        ("release-notes", "Notes.", ""),
    ]);
    let selection = c.select_parse(r#"{"skills": ["sql-review", "pdf"]}"#, 3).unwrap();
    let mut picked = selection.skills.clone();
    picked.push("manual".into()); // a host may pass names itself; the same rules hold
    picked.push("nothing".into());
    let message = "@release-notes and this query";
    let context = TurnContext { selected: Some(picked), ..TurnContext::default() };
    let planned = c.turn(message, &context).unwrap();
    let plan: Vec<&str> = c.reads(&planned).unwrap().iter().map(|e| e.skill.name.as_str()).collect();
    assert_eq!(plan, ["release-notes", "sql-review", "pdf"]);
    let turn = c
        .render(&planned, &RenderOptions::default(), |e| {
            Ok(format!("---\nname: {0}\ndescription: d\n---\nBody of {0}.\n", e.skill.name))
        })
        .unwrap();
    let decisions: Vec<(&str, &str, Option<Skip>)> =
        turn.decisions.iter().map(|d| (d.skill.as_str(), d.reason.as_str(), d.skipped)).collect();
    assert_eq!(
        decisions,
        [
            ("release-notes", "mention", None),
            ("sql-review", "selected", None),
            ("pdf", "selected", None),
            ("manual", "selected", Some(Skip::MentionOnly)),
        ]
    );
    assert!(turn.text.starts_with("[SKILL:release-notes]"), "{}", turn.text);
    assert!(turn.user_message.ends_with("\n\n@release-notes and this query"));
}
