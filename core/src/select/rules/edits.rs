//! Edits to skills' rule texts taken into a built [`MatchIndex`] in place, in time that
//! follows the edited skill rather than the catalogue (making the automaton whole again is
//! most of the cost of an edit to a description or a tag at 10,000 skills).
//!
//! An edited skill's old rule texts lose it as a target, and its new ones gain it: on the
//! automaton's own pattern when the automaton holds that text, else on a pattern of a
//! second, small automaton over the texts edits brought ([`Edited`]), made again by each
//! edit that brings one. A turn searches both and collects every overlapping match into
//! the same per-skill best (the strongest reason, then the first place), which does not
//! depend on which automaton found it: the matches are those of an automaton made whole.
//! Which one-word names and tags are everyday words is settled again afterwards
//! ([`MatchIndex::settle`]), since another skill's edit can change it. After
//! [`MAX_EDITS`] edits, or should the small automaton fail to build, the caller makes the
//! index whole again.

use super::{automaton_of, for_each_rule, is_one_word, order_key, Folded, MatchIndex, Reason};
use crate::skill::Skill;
use aho_corasick::AhoCorasick;

/// Edits taken in place before the index must be made whole again: each may keep another
/// rest of a description and add to the small automaton, which every turn also searches.
const MAX_EDITS: usize = 64;

/// The rule texts that edits brought and the automaton of the build does not hold.
#[derive(Debug, Clone)]
pub(super) struct Edited {
    /// The automaton over `patterns` (none while there are none); its pattern `k` is
    /// pattern `first_pattern + k` of the index's targets.
    pub(super) automaton: Option<AhoCorasick>,
    pub(super) first_pattern: usize,
    patterns: Vec<String>,
    /// Whether `patterns` gained one since `automaton` was made.
    changed: bool,
    /// Edits taken since the index was built.
    edits: usize,
}

impl MatchIndex {
    /// Takes the skill at `at`, as `was` was indexed, out of the rules its texts made (the
    /// first half of an edit taken in place: [`MatchIndex::put_in`] gives it its new ones).
    pub(crate) fn take_out(&mut self, at: usize, was: &Skill) {
        for_each_rule(was, &mut Folded::default(), |pattern, reason, _| {
            if let Some(targets) = self.pattern_id(pattern).and_then(|id| self.targets_of(id, reason)) {
                targets.retain(|&target| target != (at, reason));
            }
        });
    }

    /// Gives the skill at `at` the rules `now`'s texts make, in place of those
    /// [`MatchIndex::take_out`] took: `now` has the name it had, and no other skill moved.
    /// False when a rest of its description can have no number (the index then needs making
    /// whole). [`MatchIndex::finish_edits`] follows the edits of one update.
    pub(crate) fn put_in(&mut self, at: usize, now: &Skill) -> bool {
        let mut numbered = true;
        let mut rest_id = 0;
        for_each_rule(now, &mut Folded::default(), |pattern, reason, rest| {
            if reason == Reason::Description {
                match self.rest_number(rest) {
                    Some(id) => rest_id = id,
                    None => {
                        numbered = false;
                        return;
                    }
                }
            }
            let id = match self.pattern_id(pattern) {
                Some(id) => id,
                None => self.new_pattern(pattern),
            };
            if is_one_word(pattern, reason) && !self.one_word.contains_key(&id) {
                self.one_word.insert(id, pattern.into());
            }
            if let Some(targets) = self.targets_of(id, reason).filter(|t| !t.contains(&(at, reason))) {
                targets.push((at, reason));
            }
        });
        if let Some(slot) = self.description_rests.get_mut(at) {
            *slot = rest_id;
        }
        if let Some(slot) = self.order_keys.get_mut(at) {
            *slot = order_key(now);
        }
        numbered
    }

    /// Counts the edits of one update and makes the small automaton again when they
    /// brought a text; false when the index must be made whole instead (too many edits
    /// since it was, or the automaton could not be made). Settle the one-word rules again
    /// once the ranking index is made again.
    pub(crate) fn finish_edits(&mut self) -> bool {
        let edited = self.edited();
        edited.edits += 1;
        if edited.edits > MAX_EDITS {
            return false;
        }
        if edited.changed {
            match automaton_of(&edited.patterns) {
                Ok(automaton) => edited.automaton = automaton,
                Err(_) => return false,
            }
            edited.changed = false;
        }
        true
    }

    /// The number of the pattern `text`, when either automaton holds it.
    fn pattern_id(&self, text: &str) -> Option<usize> {
        // The automaton's pattern that is `text` is the one found over all of it.
        let whole = |automaton: &AhoCorasick| {
            let found = automaton.find_overlapping_iter(text).find(|m| m.start() == 0 && m.end() == text.len());
            found.map(|m| m.pattern().as_usize())
        };
        if let Some(id) = self.automaton.as_ref().and_then(whole) {
            return Some(id);
        }
        let edited = self.edited.as_ref()?;
        let at = edited.patterns.iter().position(|pattern| **pattern == *text)?;
        Some(edited.first_pattern + at)
    }

    /// A pattern for `text` in the small automaton (made again by `finish_edits`).
    fn new_pattern(&mut self, text: &str) -> usize {
        // (Begun before the pattern's targets are: its numbers start where the build's end.)
        let edited = self.edited();
        edited.patterns.push(text.to_owned());
        edited.changed = true;
        let id = self.targets.len();
        self.targets.push(Vec::new());
        id
    }

    /// The edits taken so far, begun if none was: the small automaton's patterns are
    /// numbered after every pattern of the build's.
    fn edited(&mut self) -> &mut Edited {
        let first_pattern = self.targets.len();
        self.edited.get_or_insert_with(|| Edited {
            automaton: None,
            first_pattern,
            patterns: Vec::new(),
            changed: false,
            edits: 0,
        })
    }

    /// The targets of pattern `id` for `reason`: a one-word name or tag that is an
    /// everyday word keeps its name and tag targets held out of the automaton's.
    fn targets_of(&mut self, id: usize, reason: Reason) -> Option<&mut Vec<(usize, Reason)>> {
        if reason != Reason::Description {
            if let Some(held) = self.held.get_mut(&id) {
                return Some(held);
            }
        }
        self.targets.get_mut(id)
    }

    /// A number for `rest`, the part of an edited description after its pattern (0: none).
    fn rest_number(&mut self, rest: &str) -> Option<u32> {
        if rest.is_empty() {
            return Some(0);
        }
        let id = u32::try_from(self.rests.len()).ok()?;
        self.rests.push(rest.into());
        Some(id)
    }
}

#[cfg(test)]
impl MatchIndex {
    /// Edits taken in place since the index was built (0: none, or made whole since).
    pub(crate) fn edits_taken(&self) -> usize {
        self.edited.as_ref().map_or(0, |edited| edited.edits)
    }
}

#[cfg(test)]
mod tests {
    use super::MAX_EDITS;
    use crate::select::rules::MatchIndex;
    use crate::skill::Skill;
    use crate::testing::numbers;

    fn skill(name: &str, description: &str, tags: &[String]) -> Skill {
        Skill {
            name: name.to_owned(),
            description: description.to_owned(),
            tags: tags.to_vec(),
            location: format!("{name}/SKILL.md"),
            ..Skill::default()
        }
    }

    /// A word is everyday where two skills' descriptions or tags have it, as ranking would say.
    fn everyday(skills: &[Skill]) -> impl Fn(&str) -> bool + '_ {
        move |word: &str| {
            let has = |s: &&Skill| {
                let words = s.description.split_whitespace().chain(s.tags.iter().map(String::as_str));
                words.map(|w| w.trim_matches('.').to_lowercase()).any(|w| w == word)
            };
            skills.iter().filter(has).count() >= 2
        }
    }

    /// Edits of every kind, taken in place one after another, find in every message what an
    /// index built over the skills as they are now finds: descriptions edited within and
    /// past the automaton's part of them, to the text of another skill's, tags added,
    /// dropped, repeated, shared with other skills (a one-word tag becoming an everyday word
    /// and ceasing to be one), emptied. The edits are taken in place until their number
    /// reaches the limit.
    #[test]
    fn edits_taken_in_place_find_what_a_build_finds() {
        let words = ["pdf", "forms", "merge", "widget", "gizmo", "sql", "review", "deploy", "kubernetes", "chart"];
        let mut random = numbers(11);
        let mut pick = |n: usize| -> Vec<String> { (0..n).map(|_| words[random(words.len())].to_owned()).collect() };
        let mut skills: Vec<Skill> = (0..12)
            .map(|i| {
                let description = format!("Handle {} files and {} for team {i}.", pick(1)[0], pick(1)[0]);
                skill(&format!("skill-{i}"), &description, &pick(i % 3))
            })
            .collect();
        let mut index = MatchIndex::build(&skills, everyday(&skills));
        let mut said: Vec<String> = skills.iter().map(|s| s.description.clone()).collect();
        let mut random = numbers(5);
        for edit in 0..MAX_EDITS + 1 {
            let at = random(skills.len());
            let mut now = skills[at].clone();
            match edit % 6 {
                0 => now.description = format!("{} Now with {} too.", now.description, words[random(words.len())]),
                1 => now.description = format!("Rewritten {edit}: {} support.", words[random(words.len())]),
                2 => now.description = skills[random(skills.len())].description.clone(),
                3 => now.tags.push(words[random(words.len())].to_owned()),
                4 => now.tags = vec![now.tags.first().cloned().unwrap_or_default(); 2],
                _ => now.tags.clear(),
            }
            said.push(now.description.clone());
            index.take_out(at, &skills[at]);
            assert!(index.put_in(at, &now));
            skills[at] = now;
            if !index.finish_edits() {
                assert_eq!(edit, MAX_EDITS, "made whole before the limit");
                break;
            }
            index.settle(everyday(&skills));
            assert_eq!(index.edits_taken(), edit + 1);
            let built = MatchIndex::build(&skills, everyday(&skills));
            let messages = said.iter().cloned().chain(words.iter().map(|w| format!("help with {w} please")));
            for message in messages.chain(["x@pdf.com pdf", "@skill-3 sql review"].map(str::to_owned)) {
                assert_eq!(index.find(&message).unwrap(), built.find(&message).unwrap(), "edit {edit}: {message:?}");
            }
        }
        assert!(index.edited.as_ref().is_some_and(|e| e.automaton.is_some()), "no edit brought a new text");
    }
}
