//! Building a catalogue: listing the sources, loading each SKILL.md leniently, scanning
//! it, merging skills by name, gating them, and indexing the winners once.

use super::{
    open_to_automatic_use, Catalog, CatalogInput, CatalogOptions, CatalogReport, CatalogSkill, FlaggedSkill,
    GatedSkill, LocatedWarning, Precedence, ShadowedSkill, SkippedSkill,
};
use crate::engine::source::SkillSource;
use crate::engine::CatalogBuild;
use crate::scan::{self, ScanCache};
use crate::select::rank::RankIndex;
use crate::select::rules::{mention_key, MatchIndex};
use crate::skill::{self, Skill};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// A new number for each catalogue built in this process, so that a [`Turn`](crate::Turn)
/// planned before a refresh is not rendered against the new skills' indices.
fn next_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl Catalog {
    /// Lists and loads every source's skills. A source whose listing fails, and an
    /// entry that cannot be read, are reported as skipped.
    pub fn from_sources<S: SkillSource>(sources: &[S], options: &CatalogOptions) -> Catalog {
        CatalogBuild::new(sources.len(), options.clone(), false).run(sources).0
    }

    /// Builds a catalogue from entries already read (the no-IO entry point that
    /// every binding uses).
    pub fn build(inputs: Vec<CatalogInput>, options: &CatalogOptions) -> Catalog {
        let limits = &options.limits;
        let mut report = CatalogReport::default();
        let mut winners: Vec<CatalogSkill> = Vec::new();
        let mut shadowed: Vec<CatalogSkill> = Vec::new();
        let mut by_key: HashMap<String, usize> = HashMap::new();
        let mut count = 0usize;
        for input in inputs {
            let text = match input.text {
                Ok(text) => text,
                Err(reason) => {
                    report.skipped.push(SkippedSkill { location: input.location, reason, diagnostics: Vec::new() });
                    continue;
                }
            };
            if count >= limits.max_skills {
                report.skipped.push(SkippedSkill {
                    location: input.location,
                    reason: format!("the catalogue already holds {} skills (the limit)", limits.max_skills),
                    diagnostics: Vec::new(),
                });
                continue;
            }
            let loaded = skill::load(&input.location, &text, limits);
            let Some(mut skill) = loaded.skill else {
                let reason = loaded
                    .diagnostics
                    .iter()
                    .find(|d| d.is_error())
                    .map_or_else(|| "not loaded".to_owned(), |d| d.message.clone());
                report.skipped.push(SkippedSkill { location: input.location, reason, diagnostics: loaded.diagnostics });
                continue;
            };
            count += 1;
            let body = crate::skill::frontmatter::body(&text).unwrap_or_default();
            if options.rank.headings {
                skill.headings = skill::body_headings(body);
            }
            skill.sections = skill::body_sections(body);
            report.warnings.extend(
                loaded
                    .diagnostics
                    .into_iter()
                    .map(|diagnostic| LocatedWarning { location: skill.location.clone(), diagnostic }),
            );
            let missing = missing_requirements(&skill.requires, &options.available);
            // A skill the scan cannot read is not listed: unscanned is not clean.
            let findings = match scan::scan(&text, Some(&skill.name), &options.scan) {
                Ok(findings) => findings,
                Err(e) => {
                    report.skipped.push(SkippedSkill {
                        location: skill.location,
                        reason: e.to_string(),
                        diagnostics: Vec::new(),
                    });
                    continue;
                }
            };
            if !findings.is_empty() {
                report.flagged.push(FlaggedSkill {
                    name: skill.name.clone(),
                    location: skill.location.clone(),
                    blocked: scan::blocked(&findings),
                    findings: findings.clone(),
                });
            }
            let entry = CatalogSkill { skill, source: input.source, missing, findings };
            let key = mention_key(&entry.skill.name);
            match by_key.get(&key).copied() {
                None => {
                    by_key.insert(key, winners.len());
                    winners.push(entry);
                }
                Some(i) => {
                    let Some(slot) = winners.get_mut(i) else {
                        continue;
                    };
                    match options.precedence {
                        Precedence::FirstWins => shadowed.push(entry),
                        Precedence::LastWins => shadowed.push(std::mem::replace(slot, entry)),
                    }
                }
            }
        }
        // Who shadows whom, while `by_key` still indexes `winners`.
        for s in &shadowed {
            let by = by_key
                .get(&mention_key(&s.skill.name))
                .and_then(|&i| winners.get(i))
                .map(|w| w.skill.location.clone())
                .unwrap_or_default();
            report.shadowed.push(ShadowedSkill { name: s.skill.name.clone(), location: s.skill.location.clone(), by });
        }
        // Precedence rank of a source: the winning side first.
        let sources = winners.iter().chain(&shadowed).map(|s| s.source).max().unwrap_or(0);
        let rank = |source: usize| match options.precedence {
            Precedence::FirstWins => source,
            Precedence::LastWins => sources - source,
        };
        winners.sort_by(|a, b| rank(a.source).cmp(&rank(b.source)).then_with(|| a.skill.name.cmp(&b.skill.name)));
        for s in winners.iter().filter(|s| s.gated()) {
            report.gated.push(GatedSkill {
                name: s.skill.name.clone(),
                location: s.skill.location.clone(),
                missing: s.missing.clone(),
            });
        }
        report.loaded = winners.len();
        report.mention_only = (winners.iter())
            .filter(|s| !open_to_automatic_use(&s.skill, options.not_user_invocable))
            .map(|s| s.skill.name.clone())
            .collect();
        // A blocked skill ranks as an empty one: it keeps its position, never a score.
        let nothing = Skill::default();
        let ranked = winners.iter().map(|s| if s.blocked() { &nothing } else { &s.skill });
        let ranking = RankIndex::build(ranked, options.rank.headings);
        // A one-word name or tag that other skills use too is an everyday word here:
        // evidence for ranking, not a rule of its own.
        let index = MatchIndex::build(winners.iter().map(|s| &s.skill), |word| ranking.shared_word(word));
        Catalog {
            skills: winners,
            shadowed,
            report,
            index,
            ranking,
            rank: options.rank.clone(),
            limits: limits.clone(),
            scan: options.scan.clone(),
            not_user_invocable: options.not_user_invocable,
            scanned: ScanCache::default(),
            id: next_id(),
        }
    }
}

/// The requirements in `requires` that `available` does not meet.
fn missing_requirements(requires: &[String], available: &[String]) -> Vec<String> {
    let has = |name: &str| available.iter().any(|a| a.trim().eq_ignore_ascii_case(name));
    requires
        .iter()
        .filter(|req| {
            let bare = req.split_once(':').map(|(_, n)| n);
            !(has(req) || bare.is_some_and(has))
        })
        .cloned()
        .collect()
}
