//! Relevance ranking: finds the skill for a message phrased in the user's own words,
//! where the substring rules of [`matching`](crate::matching) see nothing.
//!
//! A BM25 model over each skill's name (weight 3), tags (2) and description (1),
//! built once per catalogue as an inverted index; a turn tokenises the message and
//! walks only the postings of its words, so its cost follows the message, not the
//! catalogue. Tokens are lowercase runs of letters and digits, minus English stop
//! words and chat filler, with plurals and common suffixes stripped.
//!
//! Scores are scaled to the catalogue's size (see `REFERENCE_UNSEEN_IDF`). A ranked
//! skill is selected only when its score is at least
//! [`RankOptions::min_score`], at least [`RankOptions::min_ratio`] of the best score,
//! and the words it matched carry at least [`RankOptions::min_coverage`] of the
//! message's informative weight; at most [`RankOptions::max_ranked`] are selected.
//!
//! Scores use only IEEE basic arithmetic (a series logarithm, not the platform's), and
//! are rounded to thousandths, so every runtime computes the same bytes.

use crate::skill::Skill;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// How ranking selects skills.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RankOptions {
    /// Rank at all (default on). Off: only mentions and the substring rules select.
    pub enabled: bool,
    /// Most skills ranking adds to a turn (default 1; the rules may add more).
    pub max_ranked: usize,
    /// Lowest score selected (default 6.0).
    pub min_score: f64,
    /// Lowest score selected, as a fraction of the best score of the turn (default 0.7).
    pub min_ratio: f64,
    /// Lowest share of the message's informative weight the skill must match
    /// (default 0.2).
    pub min_coverage: f64,
}

impl Default for RankOptions {
    fn default() -> Self {
        RankOptions { enabled: true, max_ranked: 1, min_score: 6.0, min_ratio: 0.7, min_coverage: 0.2 }
    }
}

impl Eq for RankOptions {}

/// The IDF of an unseen word in the catalogue the thresholds were calibrated on (the
/// ~110 skills of the labelled dev set). Scores are scaled by this over the catalogue's
/// own unseen-word IDF, so thresholds mean the same in a catalogue of 10 skills or
/// 10,000 (IDF grows with the logarithm of the catalogue's size).
const REFERENCE_UNSEEN_IDF: f64 = 5.4;
const K1: f64 = 1.2;
const B: f64 = 0.75;
const NAME_WEIGHT: f64 = 3.0;
const TAG_WEIGHT: f64 = 2.0;
const DESCRIPTION_WEIGHT: f64 = 1.0;

/// Words that say nothing about which skill is meant.
const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "anything",
    "are",
    "as",
    "ask",
    "asks",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "done",
    "down",
    "during",
    "each",
    "either",
    "else",
    "etc",
    "even",
    "every",
    "few",
    "for",
    "from",
    "further",
    "get",
    "give",
    "go",
    "had",
    "has",
    "have",
    "having",
    "he",
    "help",
    "her",
    "here",
    "him",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "let",
    "lets",
    "like",
    "ll",
    "make",
    "me",
    "might",
    "more",
    "most",
    "much",
    "must",
    "my",
    "need",
    "needs",
    "new",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "one",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "out",
    "over",
    "own",
    "please",
    "re",
    "s",
    "same",
    "should",
    "so",
    "some",
    "something",
    "such",
    "t",
    "than",
    "thank",
    "thanks",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "us",
    "use",
    "used",
    "user",
    "uses",
    "using",
    "ve",
    "very",
    "want",
    "wants",
    "was",
    "way",
    "we",
    "were",
    "what",
    "when",
    "where",
    "whether",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "within",
    "without",
    "would",
    "you",
    "your",
    "yours",
    "skill",
    "skills",
    "claude",
    "agent",
    "task",
    "tasks",
    "any",
    "via",
    "able",
    "ensure",
    "e",
    "g",
];

/// A word of the message or a skill, as indexed.
fn stem(word: &str) -> String {
    let w = word;
    let n = w.chars().count();
    if n > 4 {
        if let Some(s) = w.strip_suffix("ies") {
            return format!("{s}y");
        }
        if let Some(s) = w.strip_suffix("ing").filter(|s| s.chars().count() >= 3) {
            return undouble(s);
        }
        if let Some(s) = w.strip_suffix("ed").filter(|s| s.chars().count() >= 3) {
            return undouble(s);
        }
        for suffix in ["sses", "shes", "ches", "xes", "zes"] {
            if w.ends_with(suffix) {
                return w.get(..w.len() - 2).unwrap_or(w).to_owned();
            }
        }
    }
    if n > 3 && w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is") {
        return w.get(..w.len() - 1).unwrap_or(w).to_owned();
    }
    w.to_owned()
}

/// `runn` → `run`: the doubled consonant a suffix left behind.
fn undouble(s: &str) -> String {
    let b = s.as_bytes();
    match (b.len().checked_sub(1).and_then(|i| b.get(i)), b.len().checked_sub(2).and_then(|i| b.get(i))) {
        (Some(last), Some(before)) if last == before && !matches!(last, b'l' | b's' | b'z' | b'e') => {
            s.get(..s.len() - 1).unwrap_or(s).to_owned()
        }
        _ => s.to_owned(),
    }
}

fn stop_words() -> HashSet<&'static str> {
    STOP_WORDS.iter().copied().collect()
}

/// The informative words of `text` (not in `stop`) with their byte offsets.
fn tokens_with(text: &str, stop: &HashSet<&'static str>) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
        if c.is_alphanumeric() {
            start.get_or_insert(i);
        } else if let Some(s) = start.take() {
            let word = text.get(s..i).unwrap_or("").to_lowercase();
            if word.chars().count() >= 2 && !stop.contains(word.as_str()) {
                out.push((stem(&word), s));
            }
        }
    }
    out
}

/// Natural logarithm from basic IEEE operations only (the same bits everywhere).
fn ln(x: f64) -> f64 {
    if x <= 0.0 {
        return f64::NEG_INFINITY;
    }
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mantissa = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    let s = (mantissa - 1.0) / (mantissa + 1.0);
    let s2 = s * s;
    let (mut term, mut sum) = (s, 0.0);
    for k in 0..24 {
        sum += term / f64::from(2 * k + 1);
        term *= s2;
    }
    2.0 * sum + exponent as f64 * std::f64::consts::LN_2
}

/// A ranked skill: index, score (rounded to thousandths), offset of its first word.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Ranked {
    pub skill: usize,
    pub score: f64,
    pub position: usize,
}

/// The inverted index of a catalogue.
#[derive(Debug, Clone, Default)]
pub(crate) struct RankIndex {
    /// term → (skill, weighted term frequency)
    postings: HashMap<String, Vec<(usize, f64)>>,
    /// term → inverse document frequency
    idf: HashMap<String, f64>,
    /// per skill: description length in tokens over the average
    length_ratio: Vec<f64>,
    /// IDF of a word no skill has
    unseen_idf: f64,
    stop: HashSet<&'static str>,
}

impl RankIndex {
    pub(crate) fn build<'a>(skills: impl IntoIterator<Item = &'a Skill>) -> RankIndex {
        let stop = stop_words();
        let mut postings: HashMap<String, Vec<(usize, f64)>> = HashMap::new();
        let mut lengths = Vec::new();
        for (i, skill) in skills.into_iter().enumerate() {
            let mut tf: HashMap<String, f64> = HashMap::new();
            let name = skill.name.replace(['-', '_'], " ");
            for (t, _) in tokens_with(&name, &stop) {
                *tf.entry(t).or_default() += NAME_WEIGHT;
            }
            for tag in &skill.tags {
                for (t, _) in tokens_with(tag, &stop) {
                    *tf.entry(t).or_default() += TAG_WEIGHT;
                }
            }
            let description = tokens_with(&skill.description, &stop);
            lengths.push(description.len() as f64);
            for (t, _) in description {
                *tf.entry(t).or_default() += DESCRIPTION_WEIGHT;
            }
            for (t, f) in tf {
                postings.entry(t).or_default().push((i, f));
            }
        }
        let n = lengths.len() as f64;
        let average = if n > 0.0 { lengths.iter().sum::<f64>() / n } else { 1.0 };
        let idf_of = |df: f64| ln(1.0 + (n - df + 0.5) / (df + 0.5));
        let idf = postings.iter().map(|(t, p)| (t.clone(), idf_of(p.len() as f64))).collect();
        for list in postings.values_mut() {
            list.sort_by_key(|&(skill, _)| skill);
        }
        RankIndex {
            postings,
            idf,
            length_ratio: lengths.iter().map(|l| if average > 0.0 { l / average } else { 1.0 }).collect(),
            unseen_idf: idf_of(0.0),
            stop,
        }
    }

    /// The skills `message` is about, best first, as the options select them.
    /// `eligible` says which skills may be ranked at all.
    pub(crate) fn rank(&self, message: &str, options: &RankOptions, eligible: impl Fn(usize) -> bool) -> Vec<Ranked> {
        if !options.enabled || options.max_ranked == 0 {
            return Vec::new();
        }
        let mut unique = HashSet::new();
        let seen: Vec<(String, usize)> =
            tokens_with(message, &self.stop).into_iter().filter(|(t, _)| unique.insert(t.clone())).collect();
        let total: f64 = seen.iter().map(|(t, _)| self.idf.get(t).copied().unwrap_or(self.unseen_idf)).sum();
        if total <= 0.0 {
            return Vec::new();
        }
        // skill → (score, matched weight, first position)
        let mut acc: HashMap<usize, (f64, f64, usize)> = HashMap::new();
        for (t, pos) in &seen {
            let (Some(list), Some(&idf)) = (self.postings.get(t), self.idf.get(t)) else { continue };
            for &(skill, tf) in list {
                let ratio = self.length_ratio.get(skill).copied().unwrap_or(1.0);
                let part = idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * ratio));
                let entry = acc.entry(skill).or_insert((0.0, 0.0, *pos));
                entry.0 += part;
                entry.1 += idf;
                entry.2 = entry.2.min(*pos);
            }
        }
        let scale = if self.unseen_idf > 0.0 { REFERENCE_UNSEEN_IDF / self.unseen_idf } else { 1.0 };
        let mut ranked: Vec<Ranked> = acc
            .into_iter()
            .filter(|&(skill, (_, matched, _))| eligible(skill) && matched / total >= options.min_coverage)
            .map(|(skill, (score, _, position))| Ranked {
                skill,
                score: (score * scale * 1000.0).round() / 1000.0,
                position,
            })
            .collect();
        ranked.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.skill.cmp(&b.skill)));
        let best = ranked.first().map_or(0.0, |r| r.score);
        ranked.retain(|r| r.score >= options.min_score && r.score >= best * options.min_ratio);
        ranked.truncate(options.max_ranked);
        ranked
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logarithm_matches_the_platform_closely() {
        for x in [0.001, 0.5, 1.0, 1.5, 2.0, 10.0, 1234.5678, 1e9] {
            assert!((ln(x) - x.ln()).abs() < 1e-12, "{x}");
        }
    }

    fn skills() -> Vec<Skill> {
        let make = |name: &str, description: &str| {
            let text = format!("---\nname: {name}\ndescription: {description}\n---\nbody\n");
            crate::skill::load(&format!("{name}/SKILL.md"), &text, &crate::Limits::default()).skill.unwrap()
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
        let index = RankIndex::build(&skills);
        let options = RankOptions::default();
        let found = index.rank("my kubernetes pods keep crashing, please debug", &options, |_| true);
        assert_eq!(found.len(), 1);
        assert_eq!(skills[found[0].skill].name, "k8s-debug");
        assert!(found[0].score >= options.min_score);
        assert_eq!(found[0].position, "my ".len());
        assert!(index.rank("thanks, have a nice weekend!", &options, |_| true).is_empty());
        // Ineligible skills are never ranked; disabled ranking ranks nothing.
        assert!(index.rank("my kubernetes pods keep crashing", &options, |i| i != 0).is_empty());
        let off = RankOptions { enabled: false, ..RankOptions::default() };
        assert!(index.rank("my kubernetes pods keep crashing", &off, |_| true).is_empty());
    }

    #[test]
    fn stems_and_stop_words() {
        let t: Vec<String> = tokens_with("Merging these PDFs into spreadsheets, please!", &stop_words())
            .into_iter()
            .map(|(t, _)| t)
            .collect();
        assert_eq!(t, vec!["merg", "pdf", "spreadsheet"]);
        assert_eq!(stem("branches"), "branch");
        assert_eq!(stem("libraries"), "library");
        assert_eq!(stem("running"), "run");
        assert_eq!(stem("class"), "class");
    }
}
