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
//! ([`MatchIndex::settle`]), since another skill's edit can change it. A skill added or
//! removed renumbers the targets and names past it (one pass over them). After
//! [`MAX_EDITS`] skills edited, added or removed, or should the small automaton fail to
//! build (or the automaton of the build have failed), the caller makes the index whole
//! again; it does so for a small catalogue too, where that costs little and spares its
//! turns the second search (`Catalog::update_in_place`).

use super::{automaton_of, for_each_rule, is_one_word, mention_key, order_key, Folded, MatchIndex, Reason};
use crate::skill::Skill;
use aho_corasick::AhoCorasick;

/// Skills edited, added or removed in place before the index must be made whole again:
/// each may keep another rest of a description and add texts to the small automaton, which
/// every turn also searches.
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
    /// Skills edited, added or removed since the index was built.
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
        self.edited().edits += 1;
        let mut numbered = true;
        let mut rest_id = 0;
        for_each_rule(now, &mut Folded::default(), |pattern, reason, rest| {
            if reason == Reason::Description {
                match self.rest_number(at, rest) {
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

    /// Takes in `skill`, inserted at `at` (the skills from `at` on move one place on): every
    /// target and name past it renumbered (one pass over them; no automaton made), its name
    /// held by it unless a skill before it holds that key, its rules given to it as
    /// [`MatchIndex::put_in`] gives them (false as that is).
    pub(crate) fn insert_skill(&mut self, at: usize, skill: &Skill) -> bool {
        if at > self.order_keys.len() || self.description_rests.len() != self.order_keys.len() {
            return false;
        }
        self.renumber(|skill| if skill >= at { skill + 1 } else { skill });
        self.order_keys.insert(at, order_key(skill));
        self.description_rests.insert(at, 0);
        let key = mention_key(&skill.name);
        self.longest_key = self.longest_key.max(key.len());
        let holder = self.by_name.entry(key).or_insert(at);
        *holder = (*holder).min(at);
        self.put_in(at, skill)
    }

    /// Takes out the skill at `at`, indexed as `was` (the skills after it move one place
    /// back): out of its rules, every target and name past it renumbered, its name handed to
    /// the first skill left with that key, if any (as a build gives it). False when there is
    /// no skill at `at` (the index then needs making whole).
    pub(crate) fn remove_skill(&mut self, at: usize, was: &Skill) -> bool {
        if at >= self.order_keys.len() || self.description_rests.len() != self.order_keys.len() {
            return false;
        }
        self.edited().edits += 1;
        // (Counted while the skill is still in: the repeats among the others and it.)
        let repeats = self.repeated_keys();
        self.take_out(at, was);
        self.order_keys.remove(at);
        self.description_rests.remove(at);
        let key = mention_key(&was.name);
        let held = self.by_name.get(&key) == Some(&at);
        self.renumber(|skill| if skill > at { skill - 1 } else { skill });
        if !held {
            // An earlier skill holds its key.
            return true;
        }
        let next = match repeats {
            0 => None,
            _ => self.order_keys.iter().position(|(_, name)| mention_key(name) == key),
        };
        match next {
            Some(next) => {
                self.by_name.insert(key, next);
            }
            None => {
                self.by_name.remove(&key);
                if key.len() == self.longest_key {
                    self.longest_key = self.by_name.keys().map(String::len).max().unwrap_or(0);
                }
            }
        }
        true
    }

    /// How many skills have a mention key an earlier skill holds (every skill's key is
    /// held by one): a skill taken out hands its key to the next only when some do.
    fn repeated_keys(&self) -> usize {
        self.order_keys.len().saturating_sub(self.by_name.len())
    }

    /// Gives every target and every name's holder the skill number `new` gives it.
    fn renumber(&mut self, new: impl Fn(usize) -> usize) {
        for targets in self.targets.iter_mut().chain(self.held.values_mut()) {
            for (skill, _) in targets.iter_mut() {
                *skill = new(*skill);
            }
        }
        for holder in self.by_name.values_mut() {
            *holder = new(*holder);
        }
    }

    /// Ends the edits of one update: makes the small automaton again when they brought a
    /// text; false when the index must be made whole instead (more than [`MAX_EDITS`] skills
    /// edited, added or removed since it was, the small automaton could not be made, or the
    /// build's could not). Settle the one-word rules again once the ranking index is made
    /// again.
    pub(crate) fn finish_edits(&mut self) -> bool {
        if self.broken.is_some() {
            return false;
        }
        let edited = self.edited();
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

    /// A number for `rest`, the part of the description of the skill at `at` after its
    /// pattern (0: none): the one it has when its rest did not change.
    fn rest_number(&mut self, at: usize, rest: &str) -> Option<u32> {
        if rest.is_empty() {
            return Some(0);
        }
        if self.rest(at) == rest {
            return self.description_rests.get(at).copied();
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
    /// past the automaton's part of them, to the text of another skill's, to a tag's text, to
    /// one too short to match; tags added (a one-word name among them), dropped, repeated,
    /// shared with other skills (a one-word tag or name becoming an everyday word and ceasing
    /// to be one), emptied. The edits are taken in place until their number passes the
    /// limit, and then not.
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
        // One-word names: rules only while they are no everyday words.
        skills.push(skill("gizmo", "Gizmo.", &[]));
        skills.push(skill("chart", "Draw charts for the team.", &pick(1)));
        let mut index = MatchIndex::build(&skills, everyday(&skills));
        let mut said: Vec<String> = skills.iter().map(|s| s.description.clone()).collect();
        let mut random = numbers(5);
        let (mut made_whole, mut held_a_name) = (false, false);
        for edit in 0..MAX_EDITS + 1 {
            let at = random(skills.len());
            let mut now = skills[at].clone();
            match edit % 8 {
                0 => now.description = format!("{} Now with {} too.", now.description, words[random(words.len())]),
                1 => now.description = format!("Rewritten {edit}: {} support.", words[random(words.len())]),
                2 => now.description = skills[random(skills.len())].description.clone(),
                3 => now.tags.push(words[random(words.len())].to_owned()),
                4 => now.tags = vec![now.tags.first().cloned().unwrap_or_default(); 2],
                5 => now.description = words[random(words.len())].to_owned(),
                6 => now.description = "ab".to_owned(),
                _ => now.tags.clear(),
            }
            said.push(now.description.clone());
            index.take_out(at, &skills[at]);
            assert!(index.put_in(at, &now));
            skills[at] = now;
            if !index.finish_edits() {
                assert_eq!(edit, MAX_EDITS, "made whole before the limit");
                made_whole = true;
                break;
            }
            index.settle(everyday(&skills));
            held_a_name |= index.held.values().flatten().any(|&(_, reason)| reason == super::Reason::Name);
            assert_eq!(index.edits_taken(), edit + 1);
            let built = MatchIndex::build(&skills, everyday(&skills));
            let messages = said.iter().cloned().chain(words.iter().map(|w| format!("help with {w} please")));
            for message in messages.chain(["x@pdf.com pdf", "@skill-3 sql review"].map(str::to_owned)) {
                assert_eq!(index.find(&message).unwrap(), built.find(&message).unwrap(), "edit {edit}: {message:?}");
            }
        }
        assert!(made_whole, "taken in place past the limit");
        assert!(index.edited.as_ref().is_some_and(|e| e.automaton.is_some()), "no edit brought a new text");
        assert!(held_a_name, "no one-word name was ever an everyday word");
    }

    /// `index` finds what a build over `skills` finds in their texts and in `said` (texts
    /// of skills gone), and names what it names.
    fn assert_as_built(index: &MatchIndex, skills: &[Skill], said: &[String], step: &str) {
        let built = MatchIndex::build(skills, everyday(skills));
        assert_eq!((index.longest_key, index.repeated_keys()), (built.longest_key, built.repeated_keys()), "{step}");
        assert_eq!(index.order_keys, built.order_keys, "{step}");
        let mut names: Vec<&String> = index.by_name.keys().chain(built.by_name.keys()).collect();
        names.dedup();
        for name in names {
            assert_eq!(index.by_mention(name), built.by_mention(name), "{step}: {name}");
        }
        let messages = skills.iter().flat_map(|s| [s.description.clone(), format!("@{} and {}", s.name, s.name)]);
        let messages = messages.chain(said.iter().cloned());
        for message in messages.chain(["gizmo", "pdf tools please", "@pdf_tools."].map(str::to_owned)) {
            assert_eq!(index.find(&message).unwrap(), built.find(&message).unwrap(), "{step}: {message:?}");
        }
    }

    /// Skills inserted and removed in place — at the start, the middle and the end, one
    /// whose mention key another skill has (`Pdf_Tools` and `pdf-tools`), before and after
    /// it, the holder of a key taken out while another has it, the longest name — give the
    /// index a build gives: targets, names and their holders, orders.
    #[test]
    fn skills_inserted_and_removed_in_place_give_what_a_build_gives() {
        let tags = |t: &[&str]| t.iter().map(|t| (*t).to_owned()).collect::<Vec<_>>();
        let mut skills = vec![
            skill("alpha", "Fill pdf forms for the team.", &tags(&["pdf"])),
            skill("beta", "Review sql migrations.", &tags(&["sql", "gizmo"])),
            skill("pdf-tools", "Merge pdf files.", &tags(&["pdf"])),
            skill("zeta", "Deploy charts to kubernetes clusters.", &[]),
        ];
        let mut index = MatchIndex::build(&skills, everyday(&skills));
        let mut said: Vec<String> = Vec::new();
        // Each step: its name, a skill inserted (where), a skill removed (where).
        type Step = (&'static str, Option<(usize, Skill)>, Option<usize>);
        let steps: Vec<Step> = vec![
            ("inserted first", Some((0, skill("aardvark", "Gizmo handling for everyone.", &tags(&["gizmo"])))), None),
            ("same key before its holder", Some((2, skill("Pdf_Tools", "Split pdf files.", &tags(&["pdf"])))), None),
            ("the key's holder removed", None, Some(2)),
            ("same key after its holder", Some((4, skill("pdf_TOOLS", "Stamp pdf files.", &[]))), None),
            ("the one after the holder removed", None, Some(4)),
            ("the longest name", Some((5, skill("zz-a-very-long-skill-name", "Sort gizmo lists.", &[]))), None),
            ("the longest name removed", None, Some(5)),
            ("the first removed", None, Some(0)),
            ("the last removed", None, Some(3)),
            ("inserted last", Some((3, skill("omega", "Review sql and pdf files.", &tags(&["sql"])))), None),
            ("inserted and removed at once", Some((1, skill("mid", "Gizmo charts.", &tags(&["gizmo"])))), Some(0)),
        ];
        for (step, insert, remove) in steps {
            // With the last step, an edit in the same update, before the skills move.
            if step == "inserted and removed at once" {
                let mut now = skills[2].clone();
                now.description = "Newly edited gizmo text.".to_owned();
                index.take_out(2, &skills[2]);
                assert!(index.put_in(2, &now));
                skills[2] = now;
            }
            if let Some((at, added)) = insert {
                assert!(index.insert_skill(at, &added), "{step}");
                skills.insert(at, added);
            }
            if let Some(at) = remove {
                assert!(index.remove_skill(at, &skills[at]), "{step}");
                let gone = skills.remove(at);
                said.extend([gone.description, gone.tags.join(" "), format!("@{} {}", gone.name, gone.name)]);
            }
            assert!(index.finish_edits(), "{step}");
            index.settle(everyday(&skills));
            assert_as_built(&index, &skills, &said, step);
        }
    }
}
