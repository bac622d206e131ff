//! Tests of `rank`.

use super::RankIndex;
use super::*;
use crate::select::words::{for_each_lowercase_word, stem, stop_words, Link};
use crate::skill::Skill;
use std::collections::HashMap;

#[test]
fn logarithm_matches_the_platform_closely() {
    for x in [0.001, 0.5, 1.0, 1.5, 2.0, 10.0, 1234.5678, 1e9] {
        assert!((ln(x) - x.ln()).abs() < 1e-12, "{x}");
    }
}

fn skills() -> Vec<Skill> {
    let make = |name: &str, description: &str| {
        let text = format!("---\nname: {name}\ndescription: {description}\n---\nbody\n");
        crate::skill::load::load(&format!("{name}/SKILL.md"), &text, &crate::Limits::default()).skill.unwrap()
    };
    let mut v = vec![
        make("k8s-debug", "Debug Kubernetes pods that crash, restart or fail their readiness probes."),
        make("sql-review", "Review SQL queries and database migrations for injection risks."),
    ];
    for i in 0..30 {
        v.push(make(&format!("filler-{i}"), &format!("Unrelated topic number {i} about gardening and cooking.")));
    }
    v
}

#[test]
fn ranks_natural_requests_and_ignores_small_talk() {
    let skills = skills();
    let index = RankIndex::build(&skills, false);
    let options = RankOptions::default();
    let found = index.rank("my kubernetes pods keep crashing, please debug", None, &options, |_| true);
    assert_eq!(found.len(), 1);
    assert_eq!(skills[found[0].skill].name, "k8s-debug");
    assert!(found[0].score >= options.min_score);
    assert_eq!(found[0].position, "my ".len());
    assert!(index.rank("thanks, have a nice weekend!", None, &options, |_| true).is_empty());
    // Ineligible skills are never ranked; disabled ranking ranks nothing.
    assert!(index.rank("my kubernetes pods keep crashing", None, &options, |i| i != 0).is_empty());
    let off = RankOptions { enabled: false, ..RankOptions::default() };
    assert!(index.rank("my kubernetes pods keep crashing", None, &off, |_| true).is_empty());
}

/// BM25 over every posting, no bounds: what `rank` must agree with while no
/// word is in more than `CANDIDATES_PER_WORD` skills.
fn exhaustive(
    index: &RankIndex,
    message: &str,
    options: &RankOptions,
    eligible: impl Fn(usize) -> bool,
) -> Vec<Ranked> {
    // Every word and every pair of adjacent words, once, with the offset it is first at.
    let stop = stop_words();
    let mut found: Vec<(Option<u32>, String, usize)> = Vec::new();
    let mut previous: Option<u32> = None;
    for_each_lowercase_word(message, |word, at, link| {
        if stop.contains(word) {
            if link != Link::Compound {
                previous = None;
            }
            return;
        }
        let mut w = word.to_owned();
        stem(&mut w);
        let term = index.words.get(w.as_str()).copied();
        if link == Link::Compound {
            found.extend(term.map(|t| (Some(t), w.clone(), at)));
            return;
        }
        if let (Link::Next, Some(a), Some(b)) = (link, previous, term) {
            found.extend(index.pairs.get(&(a, b)).map(|&p| (Some(p), format!("{a} {b}"), at)));
        }
        found.push((term, w.clone(), at));
        previous = term;
    });
    let mut seen = std::collections::HashSet::new();
    let mut total = 0.0;
    let mut scores: HashMap<usize, (f64, f64, usize)> = HashMap::new();
    for (term, text, at) in found {
        if !seen.insert(text) {
            continue;
        }
        let Some(term) = term else {
            total += index.unseen_idf * UNSEEN_COVERAGE;
            continue;
        };
        let t = &index.terms[term as usize];
        if !t.pair {
            total += t.idf;
        }
        for &(skill, weight) in &t.postings {
            let e = scores.entry(skill as usize).or_insert((0.0, 0.0, at));
            e.0 += t.idf * weight;
            e.1 += if t.pair { 0.0 } else { t.idf };
            e.2 = e.2.min(at);
        }
    }
    let scale = REFERENCE_UNSEEN_IDF / index.unseen_idf;
    let mut all: Vec<Ranked> = scores
        .into_iter()
        .filter(|&(skill, (_, coverage, _))| eligible(skill) && coverage / total >= options.min_coverage)
        .map(|(skill, (score, _, position))| Ranked {
            skill,
            score: (score * scale * 1000.0).round() / 1000.0,
            position,
        })
        .collect();
    all.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.skill.cmp(&b.skill)));
    let best = all.first().map_or(0.0, |r| r.score);
    all.retain(|r| r.score >= options.min_score && r.score >= best * options.min_ratio);
    all.truncate(options.max_ranked);
    all
}

fn copies(skills: &mut Vec<Skill>, count: usize) {
    for i in 0..count {
        let text = format!(
            "---\nname: k8s-copy-{i}\ndescription: Debug Kubernetes pods {}\n---\nbody\n",
            if i % 3 == 0 { "that crash" } else { "and services" }
        );
        skills.push(crate::skill::load::load("x/SKILL.md", &text, &crate::Limits::default()).skill.unwrap());
    }
}

/// Words the catalogue has not seen count once per stem toward how much of a message a
/// skill covers (`zorbing`, `zorbed` and `zorbs` are one word it lacks), as a build would
/// have numbered them: across coverage thresholds, the same skills as scoring every one.
#[test]
fn unseen_words_count_once_per_stem() {
    let index = RankIndex::build(&skills(), false);
    let message = "kubernetes pods zorbing zorbed zorbs";
    let mut answers = std::collections::HashSet::new();
    for step in 0..50 {
        let options = RankOptions { min_coverage: f64::from(step) / 50.0, ..RankOptions::default() };
        let got = index.rank(message, None, &options, |_| true);
        assert_eq!(got, exhaustive(&index, message, &options, |_| true), "{}", options.min_coverage);
        answers.insert(got.is_empty());
    }
    // (The thresholds cross the coverage the message gives: some rank a skill, some none.)
    assert_eq!(answers.len(), 2);
}

#[test]
fn agrees_with_exhaustive_scoring_below_the_candidate_cap() {
    let mut skills = skills();
    copies(&mut skills, CANDIDATES_PER_WORD - 2);
    let index = RankIndex::build(&skills, false);
    for max_ranked in [1, 3, 50, usize::MAX] {
        let options = RankOptions { max_ranked, min_score: 1.0, min_ratio: 0.5, ..RankOptions::default() };
        for message in ["kubernetes pods crash", "debug sql queries", "crash gardening pods", "cooking topic 7"] {
            let eligible = |i: usize| i % 7 != 3;
            let got = index.rank(message, None, &options, eligible);
            assert!(!got.is_empty(), "{message}");
            assert_eq!(got, exhaustive(&index, message, &options, eligible), "{message} {max_ranked}");
        }
    }
}

#[test]
fn a_common_word_brings_in_only_its_heaviest_skills() {
    let mut skills = skills();
    copies(&mut skills, 3 * CANDIDATES_PER_WORD);
    let index = RankIndex::build(&skills, false);
    let options =
        RankOptions { max_ranked: usize::MAX, min_score: 0.0, min_ratio: 0.0, min_coverage: 0.0, ..Default::default() };
    let got = index.rank("kubernetes", None, &options, |_| true);
    assert_eq!(got.len(), CANDIDATES_PER_WORD);
    // The copies that mention "crash" have shorter descriptions: the word weighs more there.
    let everything = exhaustive(&index, "kubernetes", &options, |_| true);
    assert_eq!(got[..], everything[..CANDIDATES_PER_WORD]);
}

#[test]
fn long_messages_rank_on_their_most_informative_words() {
    let hobbies = "baking hiking sewing knitting painting singing dancing fishing camping reading writing \
                   swimming cycling climbing skating skiing surfing sailing rowing boxing fencing golf tennis \
                   chess poker bowling archery karate judo yoga";
    let mut skills = skills();
    skills.truncate(1);
    for i in 0..30 {
        let text = format!("---\nname: hobby-{i}\ndescription: Hobbies: {hobbies}\n---\nbody\n");
        skills.push(crate::skill::load::load("x/SKILL.md", &text, &crate::Limits::default()).skill.unwrap());
    }
    let index = RankIndex::build(&skills, false);
    // Thirty common words, then the few that say what the message is about.
    let message = format!("{hobbies} kubernetes pods crashing readiness probes restart");
    let options = RankOptions { min_coverage: 0.0, ..RankOptions::default() };
    let got = index.rank(&message, None, &options, |_| true);
    assert_eq!(got.iter().map(|r| skills[r.skill].name.as_str()).collect::<Vec<_>>(), vec!["k8s-debug"]);
}

#[test]
fn headings_are_indexed_only_when_asked() {
    let mut skills = skills();
    skills[1].headings = vec!["Index tuning".into(), "Deadlock triage".into()];
    // Headings weigh a quarter of a description word: alone, they score low.
    let options = RankOptions { min_score: 1.0, ..RankOptions::default() };
    let message = "deadlock triage for our postgres";
    assert!(RankIndex::build(&skills, false).rank(message, None, &options, |_| true).is_empty());
    let found = RankIndex::build(&skills, true).rank(message, None, &options, |_| true);
    assert_eq!(found.iter().map(|r| skills[r.skill].name.as_str()).collect::<Vec<_>>(), vec!["sql-review"]);
}

#[test]
fn a_word_in_more_skills_than_a_turn_reads_keeps_its_heaviest() {
    // 50 skills of the same length; skill i says "kubernetes" 1 + i % 7 times, so a
    // heavier posting is one with more of it, and equal ones go in catalogue order.
    let skills: Vec<Skill> = (0..50)
        .map(|i| {
            let times = 1 + i % 7;
            let words: Vec<String> =
                (0..8).map(|w| if w < times { "kubernetes".into() } else { format!("z{i}w{w}") }).collect();
            let text = format!("---\nname: s{i}\ndescription: {}\n---\nbody\n", words.join(" "));
            crate::skill::load::load("x/SKILL.md", &text, &crate::Limits::default()).skill.unwrap()
        })
        .collect();
    let index = RankIndex::build(&skills, false);
    let term = index.words["kubernet"];
    let mut want: Vec<u32> = (0..50).collect();
    want.sort_by_key(|&i| (std::cmp::Reverse(1 + i % 7), i));
    want.truncate(CANDIDATES_PER_WORD);
    let kept: Vec<u32> = index.terms[term as usize].postings.iter().map(|p| p.0).collect();
    assert_eq!(kept, want);
    // Its IDF still counts all 50 skills, and it is still a word skills share.
    let all_fifty = index.terms[term as usize].idf;
    assert!((all_fifty - ln(1.0 + (50.0 - 50.0 + 0.5) / (50.0 + 0.5))).abs() < 1e-12);
    assert!(index.shared_word("kubernetes"));
}

/// A word of a skill's `when_not_to_use` lowers its score where some skill is indexed by
/// it, and a word a skill's text sends elsewhere makes it one that skills share: both are
/// read with the skill and looked up when the index is assembled.
#[test]
fn words_against_a_skill_lower_it_and_words_sent_elsewhere_are_shared() {
    let make = |name: &str, description: &str, more: &str| {
        let text = format!("---\nname: {name}\ndescription: {description}\n{more}---\nbody\n");
        crate::skill::load::load(&format!("{name}/SKILL.md"), &text, &crate::Limits::default()).skill.unwrap()
    };
    let skills = vec![
        make("pdf-forms", "Fill PDF forms for invoices.", ""),
        make("pdf-forms-too", "Fill PDF forms for invoices.", "when_not_to_use: scanned invoices\n"),
        make("csv-tools", "Clean CSV files. Not for spreadsheets; use another skill for that.", ""),
        make("sheets", "Edit spreadsheets online.", ""),
    ];
    let index = RankIndex::build(&skills, false);
    let options =
        RankOptions { max_ranked: 4, min_score: 0.0, min_ratio: 0.0, min_coverage: 0.0, ..Default::default() };
    let found = index.rank("fill pdf forms for invoices", None, &options, |_| true);
    let score = |name: &str| found.iter().find(|r| skills[r.skill].name == name).map(|r| r.score);
    let (plain, against) = (score("pdf-forms").unwrap(), score("pdf-forms-too").unwrap());
    assert!(against < plain, "{against} is not below {plain}");
    // `spreadsheets` ranks one skill, and another sends it elsewhere.
    assert!(index.shared_word("spreadsheets"));
    assert!(!index.shared_word("online"));
}

/// `index` with its terms numbered backwards (what a turn sees is the same catalogue).
fn numbered_backwards(index: &RankIndex) -> RankIndex {
    let last = index.terms.len() as u32 - 1;
    let new = |term: u32| last - term;
    let mut renumbered = index.clone();
    renumbered.terms = index.terms.iter().rev().cloned().collect();
    renumbered.words = index.words.iter().map(|(w, &t)| (w.clone(), new(t))).collect();
    renumbered.pairs = index.pairs.iter().map(|(&(a, b), &t)| ((new(a), new(b)), new(t))).collect();
    renumbered.surface = index.surface.iter().map(|(f, t)| (f.clone(), t.map(new))).collect();
    renumbered.against = index.against.iter().map(|(&t, s)| (new(t), s.clone())).collect();
    renumbered.sent_elsewhere = index.sent_elsewhere.iter().map(|(&t, s)| (new(t), s.clone())).collect();
    renumbered
}

/// Thirty skills each indexed by a word of its own, alike in every weight: a message with
/// all thirty words has more than a turn ranks on, all of them equal, and the turn ranks on
/// the first it says, however the index numbered them. The scores too are the same bits
/// however the terms are numbered (their sums are in fixed point, which adds up alike in
/// any order): a catalogue edited in place numbers its terms otherwise than a build does.
#[test]
fn a_turn_answers_alike_whatever_numbers_the_index_gave_its_terms() {
    let word = |i: usize| format!("zq{}{}x", char::from(b'a' + (i / 6) as u8), char::from(b'a' + (i % 6) as u8));
    let make = |i: usize| {
        let text = format!("---\nname: s-{w}\ndescription: {w}\n---\nbody\n", w = word(i));
        crate::skill::load::load("x/SKILL.md", &text, &crate::Limits::default()).skill.unwrap()
    };
    let options =
        RankOptions { max_ranked: 30, min_score: 0.0, min_ratio: 0.0, min_coverage: 0.0, ..Default::default() };
    let ranked = |skills: &[Skill], index: &RankIndex, message: &str| {
        let found = index.rank(message, None, &options, |_| true);
        found.iter().map(|r| (skills[r.skill].name.clone(), r.score.to_bits(), r.position)).collect::<Vec<_>>()
    };
    let skills: Vec<Skill> = (0..30).map(make).collect();
    let index = RankIndex::build(&skills, false);
    let message = (0..30).map(word).collect::<Vec<_>>().join(". ");
    let forward = ranked(&skills, &index, &message);
    let mut names: Vec<String> = forward.iter().map(|(name, _, _)| name.clone()).collect();
    names.sort();
    assert_eq!(names, (0..MAX_QUERY_WORDS).map(|i| format!("s-{}", word(i))).collect::<Vec<_>>());
    assert_eq!(ranked(&skills, &numbered_backwards(&index), &message), forward);
    // Words the skills share in their own ways, pairs and a compound among them.
    let mut corpus = self::skills();
    copies(&mut corpus, 40);
    let index = RankIndex::build(&corpus, false);
    for message in [
        "debug my kubernetes pods that crash and review the sql queries, then gardening and cooking",
        "kubernetes-pods crash; non-sql topic 7 about readiness probes and database migrations",
    ] {
        let forward = ranked(&corpus, &index, message);
        assert!(forward.len() > 3, "{message}");
        assert_eq!(ranked(&corpus, &numbered_backwards(&index), message), forward, "{message}");
    }
}

#[test]
fn the_average_length_is_rounded_to_seven_bits() {
    assert_eq!(average_length(0.0, 0.0), 1.0);
    assert_eq!(average_length(300.0, 10.0), 30.0);
    // From 16 to 32, seven bits are steps of an eighth: 30.05 is nearest 30, 30.1 nearest 30.125.
    assert_eq!(average_length(300.5, 10.0), 30.0);
    assert_eq!(average_length(301.0, 10.0), 30.125);
    for total in [7.0, 123.0, 1e4, 3.3e5, 9.9e7] {
        let exact = total / 1000.0;
        assert!((average_length(total, 1000.0) / exact - 1.0).abs() <= 1.0 / 256.0, "{total}");
    }
}
