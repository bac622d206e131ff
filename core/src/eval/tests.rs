//! Tests of `eval`.

use super::*;
use super::{read_labelled_lines, read_trigger_evals, LabelledMessage};

fn labelled(q: &str, expect: Option<&[&str]>, not: &[&str]) -> LabelledMessage {
    LabelledMessage {
        q: q.into(),
        expect: expect.map(|e| e.iter().map(|s| s.to_string()).collect()),
        not: not.iter().map(|s| s.to_string()).collect(),
    }
}

fn outcome(injected: &[&str], ranked: &[&str]) -> Outcome {
    Outcome {
        injected: injected.iter().map(|s| s.to_string()).collect(),
        ranked: ranked.iter().map(|s| s.to_string()).collect(),
    }
}

#[test]
fn figures_count_what_users_see() {
    let messages = [
        labelled("merge pdfs", Some(&["pdf"]), &[]),
        labelled("tables to a spreadsheet", Some(&["xlsx", "csv", "XLSX"]), &[]),
        labelled("write ad copy", Some(&["ad-creative"]), &["ads"]),
        labelled("hello there", Some(&[]), &[]),
        labelled("thanks!", Some(&[]), &[]),
        labelled("fill the form", None, &["pdf"]),
    ];
    let outcomes = [
        outcome(&["PDF"], &["pdf", "xlsx"]),
        outcome(&["pdf", "xlsx"], &["pdf", "xlsx"]),
        outcome(&["ads"], &["ads", "ad-creative"]),
        outcome(&[], &[]),
        outcome(&["pdf"], &["pdf"]),
        outcome(&["pdf"], &["pdf"]),
    ];
    let r = EvalReport::score(&messages, &outcomes, &[1, 2]);
    assert_eq!((r.messages, r.positives, r.negatives), (6, 3, 2));
    assert_eq!(r.hit, Some(0.667));
    assert_eq!(r.top1, Some(0.333));
    // pdf ✓, pdf ✗ xlsx ✓, ads ✗, pdf ✗ (small talk), pdf ✗ (in `not`): 2 of 6.
    assert_eq!(r.precision, Some(0.333));
    assert_eq!(r.false_injection, Some(0.5));
    assert_eq!(r.not_violated, 2);
    assert_eq!(r.recall_at, vec![RecallAt { k: 1, recall: Some(0.333) }, RecallAt { k: 2, recall: Some(1.0) }]);
    let pdf = r.skills.iter().find(|s| s.skill == "pdf").unwrap();
    assert_eq!((pdf.expected, pdf.recalled, pdf.false_fires), (1, 1, 3));
    let ad = r.skills.iter().find(|s| s.skill == "ad-creative").unwrap();
    assert_eq!((ad.expected, ad.recalled), (1, 0));
    assert_eq!(ad.taken_by, vec![Count { skill: "ads".into(), count: 1 }]);
    assert_eq!(r.takers[0], Count { skill: "pdf".into(), count: 3 });
    assert!(r.pairs.contains(&Competing { expected: "ad-creative".into(), taker: "ads".into(), count: 1 }));
    let missed: Vec<&str> = r.misses.iter().map(|m| m.q.as_str()).collect();
    assert_eq!(missed, vec!["tables to a spreadsheet", "write ad copy", "thanks!", "fill the form"]);
}

#[test]
fn empty_sets_have_no_shares() {
    let r = EvalReport::score(&[], &[], &[10]);
    assert_eq!((r.hit, r.precision, r.false_injection), (None, None, None));
    assert_eq!(r.recall_at, vec![RecallAt { k: 10, recall: None }]);
}

#[test]
fn reads_both_formats() {
    let lines = "{\"q\": \"merge pdfs\", \"expect\": [\"pdf\"]}\n\n{\"query\": \"hi\", \"expect\": []}\n";
    let read = read_labelled_lines(lines).unwrap();
    assert_eq!(read, vec![labelled("merge pdfs", Some(&["pdf"]), &[]), labelled("hi", Some(&[]), &[])]);
    assert_eq!(read_labelled_lines("{\"q\": 1}").unwrap_err().line, 1);

    let triggers = r#"[{"query": "merge pdfs", "should_trigger": true}, {"query": "a poem", "should_trigger": false}]"#;
    assert_eq!(
        read_trigger_evals("pdf", triggers).unwrap(),
        vec![labelled("merge pdfs", Some(&["pdf"]), &[]), labelled("a poem", None, &["pdf"])]
    );
    let prompts = r#"{"skill_name": "pdf", "evals": [{"id": 1, "prompt": "split this pdf", "expected_output": "x"}]}"#;
    assert_eq!(read_trigger_evals("pdf", prompts).unwrap(), vec![labelled("split this pdf", Some(&["pdf"]), &[])]);
    assert!(read_trigger_evals("pdf", "{\"nothing\": true}").is_err());
}
