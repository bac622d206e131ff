//! Which skills a user message calls for: the matching rules of DESIGN.md.
//!
//! 1. **Mentions.** `@name` names a skill: case-insensitive, `-` and `_` equivalent.
//!    An `@` right after a letter, digit or `.` is part of an e-mail address, not a
//!    mention. Trailing `.`, `:`, `-`, `_` are dropped until a name is found, so
//!    `@pdf.` at the end of a sentence mentions `pdf`.
//! 2. **Automatic rules**, for skills that don't opt out: the description appears in
//!    the message (case-insensitive, whitespace runs equal, closing punctuation of the
//!    description optional); a tag appears as a whole
//!    word; the name appears as a whole word. Words are runs of letters, digits, `-`
//!    and `_`. Texts of 2 characters or fewer never match automatically, and a
//!    one-word name or tag that other skills of the catalogue use too (an everyday
//!    word there, like `search` or `pricing`) is left to ranking. An occurrence
//!    inside an e-mail address or an `@mention` (`bob@pdf.com`, `@pdf-tools`) does not
//!    count. When several rules fire, the reason is the strongest: description, then
//!    tag, then name.
//! 3. **Order.** Mentions by position; then automatic matches by description length
//!    (longest first), then name.
//!
//! The index is built once per catalogue: a map of normalised names for mentions and
//! one Aho-Corasick automaton over every folded tag and name and the start of every
//! folded description (the rest is compared where the start occurs). A turn
//! folds the message once and runs the automaton once, so its cost follows the
//! message's length, not the number of skills (but for one comparison per skill whose
//! description starts with what the message has, where it has it). Edits, additions and
//! removals taken in place (`edits.rs`) keep the automaton; the texts they bring that it
//! lacks go to a second, small one, which turns search too until it is made whole again.

use crate::error::Error;
use crate::fast_hash::{FastMap, SeededMap};
use crate::select::KEPT_BUFFERS_MESSAGE_BYTES;
use crate::skill::Skill;
use crate::text::truncate_bytes;
use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use serde::Serialize;
use std::cell::RefCell;

mod edits;

/// Why a skill matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    /// `@name` in the message.
    Mention,
    /// The description appears in the message.
    Description,
    /// A tag appears as a whole word.
    Tag,
    /// The name appears as a whole word.
    Name,
    /// Relevance ranking (see `rank`).
    Rank,
    /// The host's model chose it (`select`).
    Selected,
}

impl Reason {
    /// The reason's name as it appears in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Mention => "mention",
            Reason::Description => "description",
            Reason::Tag => "tag",
            Reason::Name => "name",
            Reason::Rank => "rank",
            Reason::Selected => "selected",
        }
    }
}

/// One skill a message refers to, before eligibility (gating, opt-outs) is applied.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// Index of the skill in the catalogue.
    pub skill: usize,
    /// The strongest rule that fired.
    pub reason: Reason,
    /// Byte offset in the message of the occurrence that fired (the `@` of a mention).
    pub position: usize,
    /// The ranking score, for [`Reason::Rank`].
    pub score: Option<f64>,
}

/// A byte range `(start, end)` of the message.
type Span = (usize, usize);

/// Texts shorter than this (in characters) never match automatically.
const MIN_AUTO_CHARS: usize = 3;

/// The automaton holds a folded description up to this many bytes (cut at a character
/// boundary); where that much occurs, the rest is compared with what follows. A
/// catalogue's descriptions are most of its rule texts, and most of them differ within
/// their first words, so the automaton holds a few dozen states per skill instead of
/// every byte of every description: the same matches, from an automaton a fraction of
/// the size to build and to walk.
const DESCRIPTION_PATTERN_BYTES: usize = 32;

/// Byte spans, to ask whether any overlaps a range in time that grows with the logarithm of
/// their number (a message of many `@` words and many matches would otherwise compare each
/// match with every span).
struct SpanSet {
    /// The spans by start.
    spans: Vec<Span>,
    /// For each span in that order, the furthest end of it and those before it.
    reach: Vec<usize>,
}

impl SpanSet {
    fn new(spans: &[Span]) -> SpanSet {
        let mut spans = spans.to_vec();
        // (`mentions` gives them in order already; the shared sort keeps the turn's
        // WebAssembly from another copy of the sorting code.)
        if !spans.is_sorted() {
            crate::order::sort_by_key(&mut spans, |&span| span);
        }
        let reach = (spans.iter())
            .scan(0, |furthest: &mut usize, &(_, end)| {
                *furthest = end.max(*furthest);
                Some(*furthest)
            })
            .collect();
        SpanSet { spans, reach }
    }

    /// Whether a span overlaps `start..end`: one of those that start before `end` ends
    /// after `start`.
    fn overlaps(&self, start: usize, end: usize) -> bool {
        let starting_before_end = self.spans.partition_point(|&(s, _)| s < end);
        starting_before_end
            .checked_sub(1)
            .and_then(|last| self.reach.get(last))
            .is_some_and(|&furthest| furthest > start)
    }
}

/// The per-catalogue lookup structures.
#[derive(Debug, Clone, Default)]
pub(crate) struct MatchIndex {
    by_name: SeededMap<String, usize>,
    /// The longest key in `by_name`, in bytes: what bounds the texts a mention is looked
    /// up as.
    longest_key: usize,
    automaton: Option<AhoCorasick>,
    /// Why the automaton could not be built, if it could not: every turn then fails
    /// with [`Error::Unavailable`] rather than matching nothing.
    broken: Option<String>,
    /// For each pattern, the skills and rules it stands for: the automaton's, then those of
    /// the small automaton of `edited`.
    targets: Vec<Vec<(usize, Reason)>>,
    /// For each skill, what of its folded description follows the automaton's pattern for
    /// it, as a place in `rests` (0, empty: the pattern is the whole description): a
    /// description occurs where its pattern does with its rest right after it.
    description_rests: Vec<u32>,
    /// Every different rest of a description, the empty one first.
    rests: Vec<Box<str>>,
    /// For each skill, what orders automatic matches: description length in
    /// characters, then name.
    order_keys: Vec<(usize, String)>,
    /// Each pattern that is a one-word name or tag, with its text: a rule only while it is
    /// no everyday word in the catalogue ([`MatchIndex::settle`]).
    one_word: FastMap<usize, Box<str>>,
    /// The name and tag targets of the one-word patterns that are everyday words, held
    /// out of `targets` while they are (a pattern here is everyday, its list maybe empty).
    held: FastMap<usize, Vec<(usize, Reason)>>,
    /// The rule texts that edits taken in place brought and `automaton` does not hold (see
    /// `edits.rs`); none since the build until an edit brings one.
    edited: Option<edits::Edited>,
}

/// A [`MatchIndex`] whose one-word names and tags are all still rules: those that are
/// everyday words in the catalogue are left to ranking by [`UnsettledRules::settle`].
#[derive(Debug)]
pub(crate) struct UnsettledRules {
    index: MatchIndex,
}

impl UnsettledRules {
    /// The index, each one-word name or tag for which `everyday` is true no longer a rule
    /// (its pattern stays in the automaton, standing for nothing but the descriptions it
    /// may start).
    pub(crate) fn settle(self, everyday: impl Fn(&str) -> bool) -> MatchIndex {
        let mut index = self.index;
        index.settle(everyday);
        index
    }
}

/// The key a mention is looked up by: lowercase, `_` as `-`.
pub(crate) fn mention_key(name: &str) -> String {
    if name.is_ascii() {
        // Most names: a byte at a time, into a key allocated once at its size.
        return name.bytes().map(|b| char::from(if b == b'_' { b'-' } else { b.to_ascii_lowercase() })).collect();
    }
    name.chars().flat_map(char::to_lowercase).map(|c| if c == '_' { '-' } else { c }).collect()
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '-' || c == '_'
}

/// A text folded for the automaton: lowercased, each whitespace run one space.
#[derive(Debug, Default)]
struct Folded {
    text: String,
    /// Whether some byte of `text` does not stand where it stood in the original (a
    /// whitespace run shortened, a character changing length or splitting in two when
    /// lowercased); while none does (the common case), `offsets` is not kept.
    moved: bool,
    /// When `moved`: for every byte of `text`, and one past its end, the byte offset in the
    /// original of the character it came from.
    offsets: Vec<usize>,
}

impl Folded {
    /// Where the folded text's character boundary `at` came from in the original (past
    /// the end: the original's end).
    fn original(&self, at: usize) -> usize {
        match self.moved {
            // Every byte where it stood: the original is as long as the folded text.
            false => at.min(self.text.len()),
            true => self.offsets.get(at).or(self.offsets.last()).copied().unwrap_or(0),
        }
    }

    /// Starts keeping offsets, all of `text`'s bytes so far where they stood: each byte's
    /// character's start.
    fn start_moving(&mut self, upto: usize) {
        if self.moved {
            return;
        }
        self.moved = true;
        self.offsets.clear();
        for (at, c) in self.text.get(..upto).unwrap_or_default().char_indices() {
            self.offsets.extend(std::iter::repeat_n(at, c.len_utf8()));
        }
    }
}

thread_local! {
    /// The folded message of this thread's turns, reused from turn to turn.
    static FOLDED: RefCell<Folded> = RefCell::new(Folded::default());
}

/// Lowercases `text` and collapses each whitespace run to one space, keeping where each
/// byte came from ([`Folded::offsets`]).
fn fold(text: &str) -> Folded {
    let mut folded = Folded::default();
    fold_into(text, &mut folded);
    folded
}

/// [`fold`] into `folded`'s buffers. ASCII, the common case, is read a byte at a time.
fn fold_into(text: &str, folded: &mut Folded) {
    folded.text.clear();
    folded.offsets.clear();
    folded.moved = false;
    // ASCII whitespace is 9..=13 and space.
    let is_space = |byte: u8| matches!(byte, b'\t'..=b'\r' | b' ');
    let bytes = text.as_bytes();
    // ASCII without a whitespace run (most messages and descriptions): a byte out for each
    // byte in, every byte where it stood. The tests run over every byte without stopping
    // early, so the compiler vectorises them.
    if text.is_ascii() {
        let next = bytes.get(1..).unwrap_or_default();
        let run = bytes.iter().zip(next).fold(false, |run, (&a, &b)| run | (is_space(a) & is_space(b)));
        let breaks = bytes.iter().fold(false, |breaks, &byte| breaks | (is_space(byte) & (byte != b' ')));
        if !run && !breaks {
            // A copy, lowercased in place.
            folded.text.push_str(text);
            folded.text.make_ascii_lowercase();
            return;
        }
        if !run {
            // Tabs and line breaks become spaces: mapped byte by byte.
            let mut buffer = std::mem::take(&mut folded.text).into_bytes();
            buffer.extend(bytes.iter().map(|&byte| if is_space(byte) { b' ' } else { byte.to_ascii_lowercase() }));
            // (Always UTF-8: ASCII in, ASCII out; were it not, the long way below.)
            if let Ok(ascii) = String::from_utf8(buffer) {
                folded.text = ascii;
                return;
            }
        }
    }
    let mut in_space = false;
    let mut i = 0;
    while i < text.len() {
        // A run of ASCII: a byte out for each byte in, but for whitespace after whitespace.
        for &byte in text.as_bytes().get(i..).unwrap_or_default() {
            if !byte.is_ascii() {
                break;
            }
            let space = is_space(byte);
            if space && in_space {
                // A byte dropped: the rest no longer stands where it stood.
                folded.start_moving(folded.text.len());
            } else {
                folded.text.push(if space { ' ' } else { char::from(byte.to_ascii_lowercase()) });
                if folded.moved {
                    folded.offsets.push(i);
                }
            }
            in_space = space;
            i += 1;
        }
        let Some(c) = text.get(i..).and_then(|rest| rest.chars().next()) else { break };
        let (start, before) = (i, folded.text.len());
        i += c.len_utf8();
        if c.is_whitespace() {
            if !in_space {
                folded.text.push(' ');
            }
            in_space = true;
        } else {
            in_space = false;
            folded.text.extend(c.to_lowercase());
        }
        // Still each byte where it stood: one character in, one as long out.
        let out = &folded.text;
        let unmoved = out.len() == i && out.get(before..).is_some_and(|added| added.chars().nth(1).is_none());
        if !unmoved {
            folded.start_moving(before);
        }
        if folded.moved {
            let len = folded.text.len();
            folded.offsets.resize(len, start);
        }
    }
    if folded.moved {
        folded.offsets.push(text.len());
    }
}

/// Whether `pattern`, a rule text of `reason`, is a one-word name or tag: a rule only where
/// it is no everyday word of the catalogue.
fn is_one_word(pattern: &str, reason: Reason) -> bool {
    reason != Reason::Description && pattern.chars().all(char::is_alphanumeric)
}

/// What orders `skill`'s automatic matches: its description's length in characters, then
/// its name.
fn order_key(skill: &Skill) -> (usize, String) {
    (skill.description.chars().count(), skill.name.clone())
}

/// The rule texts of `skill`, folded in `folded`'s buffer, as the automaton holds them: the
/// start of its description (with what follows it), then each tag, then its name — each
/// only when long enough to match automatically. `rule` takes each with its reason and,
/// for the description, the rest of it (otherwise empty).
fn for_each_rule(skill: &Skill, folded: &mut Folded, mut rule: impl FnMut(&str, Reason, &str)) {
    let matched = |folded: &str| folded.chars().count() >= MIN_AUTO_CHARS;
    // A user rarely types a description's closing punctuation.
    fold_into(skill.description.trim_end_matches(['.', '!', '?', ';', ':', ',', ' ']).trim(), folded);
    if matched(&folded.text) {
        let pattern = truncate_bytes(&folded.text, DESCRIPTION_PATTERN_BYTES);
        rule(pattern, Reason::Description, folded.text.get(pattern.len()..).unwrap_or_default());
    }
    for (text, reason) in skill.tags.iter().map(|t| (t, Reason::Tag)).chain([(&skill.name, Reason::Name)]) {
        fold_into(text.trim(), folded);
        if matched(&folded.text) {
            rule(&folded.text, reason, "");
        }
    }
}

/// The automaton over `patterns` (none for none), or why it could not be built.
fn automaton_of<P: AsRef<[u8]>>(patterns: &[P]) -> Result<Option<AhoCorasick>, String> {
    if patterns.is_empty() {
        return Ok(None);
    }
    // Standard semantics: overlapping search reports every pattern that occurs.
    AhoCorasickBuilder::new().match_kind(MatchKind::Standard).build(patterns).map(Some).map_err(|e| e.to_string())
}

impl MatchIndex {
    /// Indexes `skills` (all of them: eligibility is decided per turn). A name or tag
    /// that is one word for which `everyday` is true is left to ranking: it is not
    /// matched as a rule.
    pub(crate) fn build<'a>(skills: impl IntoIterator<Item = &'a Skill>, everyday: impl Fn(&str) -> bool) -> Self {
        MatchIndex::build_unsettled(skills).settle(everyday)
    }

    /// Indexes `skills`, every one-word name and tag still matched as a rule: what needs
    /// no ranking index, so a build makes it while it makes the ranking index
    /// ([`UnsettledRules::settle`] then leaves the everyday ones to ranking).
    pub(crate) fn build_unsettled<'a>(skills: impl IntoIterator<Item = &'a Skill>) -> UnsettledRules {
        let mut by_name = SeededMap::default();
        let mut order_keys = Vec::new();
        let mut pattern_ids: SeededMap<String, usize> = SeededMap::default();
        let mut patterns: Vec<String> = Vec::new();
        let mut targets: Vec<Vec<(usize, Reason)>> = Vec::new();
        let mut description_rests: Vec<u32> = Vec::new();
        // Each different rest of a description with its number (0: the empty one).
        let mut rest_ids: SeededMap<Box<str>, u32> = SeededMap::default();
        // Patterns that are a one-word name or tag: each is a rule only where it is no
        // everyday word (settled once the ranking index is made).
        let mut one_word: Vec<bool> = Vec::new();
        let mut add = |pattern: &str, skill: usize, reason: Reason| {
            // (Looked up before it is copied, so a pattern already there costs no copy.)
            let id = match pattern_ids.get(pattern) {
                Some(&id) => id,
                None => {
                    pattern_ids.insert(pattern.to_owned(), patterns.len());
                    patterns.push(pattern.to_owned());
                    targets.push(Vec::new());
                    one_word.push(false);
                    patterns.len() - 1
                }
            };
            if is_one_word(pattern, reason) {
                if let Some(flag) = one_word.get_mut(id) {
                    *flag = true;
                }
            }
            if let Some(t) = targets.get_mut(id) {
                if !t.contains(&(skill, reason)) {
                    t.push((skill, reason));
                }
            }
        };
        // One buffer folds every description, tag and name.
        let mut folded = Folded::default();
        for (i, skill) in skills.into_iter().enumerate() {
            order_keys.push(order_key(skill));
            by_name.entry(mention_key(&skill.name)).or_insert(i);
            let mut rest_id = 0;
            for_each_rule(skill, &mut folded, |pattern, reason, rest| {
                if reason == Reason::Description {
                    // Rests are kept once each (copies of a skill share their description).
                    let id = match rest {
                        "" => Some(0),
                        rest => rest_ids.get(rest).copied().or_else(|| {
                            let id = u32::try_from(rest_ids.len() + 1).ok()?;
                            rest_ids.insert(rest.into(), id);
                            Some(id)
                        }),
                    };
                    // (No number left for its rest: no description rule, rather than one on its start.)
                    let Some(id) = id else { return };
                    rest_id = id;
                }
                add(pattern, i, reason);
            });
            description_rests.push(rest_id);
        }
        let (automaton, broken) = match automaton_of(&patterns) {
            Ok(automaton) => (automaton, None),
            Err(problem) => (None, Some(problem)),
        };
        let mut rests: Vec<Box<str>> = vec![Box::default(); rest_ids.len() + 1];
        for (rest, id) in rest_ids {
            if let Some(slot) = rests.get_mut(id as usize) {
                *slot = rest;
            }
        }
        // The one-word patterns' texts, for `settle`.
        let one_word = (patterns.into_iter().zip(one_word).enumerate())
            .filter_map(|(id, (pattern, one_word))| one_word.then(|| (id, pattern.into_boxed_str())))
            .collect();
        let longest_key = by_name.keys().map(String::len).max().unwrap_or(0);
        let index = MatchIndex {
            by_name,
            longest_key,
            automaton,
            broken,
            targets,
            description_rests,
            rests,
            order_keys,
            one_word,
            held: FastMap::default(),
            edited: None,
        };
        UnsettledRules { index }
    }

    /// Leaves each one-word name or tag for which `everyday` is true to ranking (its Tag and
    /// Name targets held out of the automaton's), and gives back those held that no longer
    /// are: a build settles them once its ranking index is made, an edit taken in place
    /// again (another skill's edit can make a word everyday, or stop it being one).
    pub(crate) fn settle(&mut self, everyday: impl Fn(&str) -> bool) {
        let MatchIndex { one_word, held, targets, .. } = self;
        for (&id, word) in one_word.iter() {
            let Some(targets) = targets.get_mut(id) else { continue };
            match (everyday(word), held.get_mut(&id)) {
                (true, None) => {
                    let (rules, kept): (Vec<_>, Vec<_>) =
                        targets.iter().partition(|&&(_, reason)| reason != Reason::Description);
                    *targets = kept;
                    held.insert(id, rules);
                }
                (false, Some(rules)) => {
                    targets.append(rules);
                    held.remove(&id);
                }
                _ => {}
            }
        }
    }

    /// What follows the automaton's pattern in `skill`'s folded description.
    fn rest(&self, skill: usize) -> &str {
        let id = self.description_rests.get(skill).copied().unwrap_or(0);
        self.rests.get(id as usize).map_or("", |rest| rest)
    }

    /// The skill a mention key names.
    pub(crate) fn by_mention(&self, key: &str) -> Option<usize> {
        self.by_name.get(key).copied()
    }

    /// Every skill `message` refers to, in DESIGN order.
    #[cfg(test)]
    pub(crate) fn find(&self, message: &str) -> Result<Vec<Hit>, Error> {
        Ok(self.find_with_spans(message)?.0)
    }

    /// [`MatchIndex::find`], and the byte spans of the message's `@` words (mentions,
    /// e-mail addresses), which name a skill or an address rather than a topic.
    pub(crate) fn find_with_spans(&self, message: &str) -> Result<(Vec<Hit>, Vec<Span>), Error> {
        if let Some(problem) = &self.broken {
            return Err(Error::Unavailable { part: "matching automaton".to_owned(), problem: problem.clone() });
        }
        let (mentions, at_spans) = self.mentions(message);
        let mut best: FastMap<usize, (Reason, usize)> = FastMap::default();
        if self.automaton.is_some() || self.edited.as_ref().is_some_and(|e| e.automaton.is_some()) {
            // This thread's buffer, or a new one while it is in use.
            // (Not `with`, which panics while the thread is being torn down.)
            let kept = FOLDED.try_with(|cell| {
                let mut folded = cell.try_borrow_mut().ok()?;
                fold_into(message, &mut folded);
                self.find_all(&folded, &at_spans, &mut best);
                if message.len() > KEPT_BUFFERS_MESSAGE_BYTES {
                    *folded = Folded::default();
                }
                Some(())
            });
            if !matches!(kept, Ok(Some(()))) {
                self.find_all(&fold(message), &at_spans, &mut best);
            }
        }

        let mut hits: Vec<Hit> = Vec::with_capacity(mentions.len() + best.len());
        for &(skill, position, _) in &mentions {
            if !hits.iter().any(|h| h.skill == skill) {
                hits.push(Hit { skill, reason: Reason::Mention, position, score: None });
            }
        }
        let mut automatic: Vec<Hit> = best
            .into_iter()
            .filter(|(skill, _)| !mentions.iter().any(|(m, _, _)| m == skill))
            .map(|(skill, (reason, position))| Hit { skill, reason, position, score: None })
            .collect();
        automatic.sort_by(|a, b| {
            let (ka, kb) = (self.order_keys.get(a.skill), self.order_keys.get(b.skill));
            let len = |k: Option<&(usize, String)>| k.map_or(0, |k| k.0);
            len(kb).cmp(&len(ka)).then_with(|| ka.map(|k| &k.1).cmp(&kb.map(|k| &k.1))).then(a.skill.cmp(&b.skill))
        });
        hits.extend(automatic);
        Ok((hits, at_spans))
    }

    /// Every rule the automata find in the folded message, into `best`: per skill, the
    /// strongest reason and its first position.
    fn find_all(&self, folded: &Folded, at_spans: &[Span], best: &mut FastMap<usize, (Reason, usize)>) {
        let at_spans = SpanSet::new(at_spans);
        if let Some(automaton) = &self.automaton {
            self.find_in(automaton, 0, folded, &at_spans, best);
        }
        if let Some(edited) = &self.edited {
            if let Some(automaton) = &edited.automaton {
                self.find_in(automaton, edited.first_pattern, folded, &at_spans, best);
            }
        }
    }

    /// Every rule `automaton` finds in the folded message, into `best`; its patterns are
    /// those numbered from `first_pattern` in `targets`.
    fn find_in(
        &self,
        automaton: &AhoCorasick,
        first_pattern: usize,
        folded: &Folded,
        at_spans: &SpanSet,
        best: &mut FastMap<usize, (Reason, usize)>,
    ) {
        for m in automaton.find_overlapping_iter(&folded.text) {
            // (A pattern may stand for nothing: an everyday one-word name or tag.)
            let pattern = first_pattern.saturating_add(m.pattern().as_usize());
            let Some(targets) = self.targets.get(pattern).filter(|t| !t.is_empty()) else {
                continue;
            };
            let (start, end) = (folded.original(m.start()), folded.original(m.end()));
            let in_at_span = |end: usize| at_spans.overlaps(start, end);
            let text = &folded.text;
            let whole_word = !text.get(..m.start()).and_then(|t| t.chars().next_back()).is_some_and(is_word_char)
                && !text.get(m.end()..).and_then(|t| t.chars().next()).is_some_and(is_word_char);
            for &(skill, reason) in targets {
                let fires = match reason {
                    // The whole description: its rest follows the pattern.
                    Reason::Description => match self.rest(skill) {
                        "" => !in_at_span(end),
                        rest => {
                            let follows = text.get(m.end()..).is_some_and(|after| after.starts_with(rest));
                            follows && !in_at_span(folded.original(m.end() + rest.len()))
                        }
                    },
                    Reason::Tag | Reason::Name => whole_word && !in_at_span(end),
                    Reason::Mention | Reason::Rank | Reason::Selected => false,
                };
                if fires {
                    let entry = best.entry(skill).or_insert((reason, start));
                    if (reason, start) < *entry {
                        *entry = (reason, start);
                    }
                }
            }
        }
    }

    /// The mentions in `message` as (skill, byte offset of `@`, end of the name), and the byte spans
    /// of every e-mail address or `@word`, where automatic rules don't look.
    fn mentions(&self, message: &str) -> (Vec<(usize, usize, usize)>, Vec<Span>) {
        let mut mentions = Vec::new();
        let mut spans = Vec::new();
        for (at, _) in message.match_indices('@') {
            let before = message.get(..at).unwrap_or("");
            let after = message.get(at + 1..).unwrap_or("");
            let left = before
                .char_indices()
                .rev()
                .take_while(|&(_, c)| c.is_alphanumeric() || "._%+-".contains(c))
                .last()
                .map_or(at, |(i, _)| i);
            let token_len: usize =
                after.chars().take_while(|&c| is_word_char(c) || c == '.' || c == ':').map(char::len_utf8).sum();
            spans.push((left, at + 1 + token_len));
            let glued = before.chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '.');
            if glued {
                continue;
            }
            if let Some(qualified) = self.qualified_mention(after, token_len) {
                if let Some((skill, len)) = qualified {
                    mentions.push((skill, at, at + 1 + len));
                    spans.push((left, at + 1 + len));
                }
                continue;
            }
            let token = after.get(..token_len).unwrap_or("");
            if let Some((skill, len)) = self.named_by_start(token, 1, &['.', ':', '-', '_']) {
                mentions.push((skill, at, at + 1 + len));
            }
        }
        (mentions, spans)
    }

    /// What `@NAME@ORIGIN` mentions, when the `token_len` bytes at the start of `after` are
    /// followed by `@` and an origin: `Some(Some((skill, length after the first @)))` for a
    /// skill listed so (a trailing `.`, `-` or `_` is punctuation, not part of the origin),
    /// `Some(None)` for an origin the catalogue does not have (no skill: not the one that
    /// holds NAME), `None` when no origin follows.
    fn qualified_mention(&self, after: &str, token_len: usize) -> Option<Option<(usize, usize)>> {
        let rest = after.get(token_len..)?.strip_prefix('@')?;
        let origin_len = rest.bytes().take_while(|&b| b.is_ascii_alphanumeric() || b"._-".contains(&b)).count();
        let qualified = after.get(..token_len + 1 + origin_len)?;
        if let Some(found) = self.named_by_start(qualified, token_len + 2, &['.', '-', '_']) {
            return Some(Some(found));
        }
        rest.starts_with(|c: char| c.is_ascii_alphanumeric()).then_some(None)
    }

    /// The skill `text` names, and the length of what names it: `text` itself, else `text`
    /// with its trailing `punctuation` left off one character at a time (trailing
    /// punctuation ends a sentence), down to `shortest` bytes. Only the texts that could
    /// be a key are looked up: no longer than four times the longest key (a character
    /// lowercases to a quarter of its bytes at least), each key a prefix of the one
    /// lowercased key of the longest (punctuation lowercases byte for byte) — so a run of
    /// dots after an `@`, however long, costs as much as a name.
    fn named_by_start(&self, text: &str, shortest: usize, punctuation: &[char]) -> Option<(usize, usize)> {
        let named = text.trim_end_matches(punctuation).len();
        let longest = text.len().min(self.longest_key.saturating_mul(4));
        if longest < named.max(shortest) {
            return None;
        }
        // (From `named` on, `text` is ASCII punctuation: any length past it is a boundary.)
        let key = mention_key(text.get(..longest)?);
        let key_of_named = key.len().checked_sub(longest - named)?;
        (named.max(shortest)..=longest)
            .rev()
            .find_map(|len| Some((self.by_mention(key.get(..key_of_named + (len - named))?)?, len)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skill::limits::Limits;

    fn skill(name: &str, description: &str, tags: &[&str]) -> Skill {
        let tags = if tags.is_empty() { String::new() } else { format!("tags: [{}]\n", tags.join(", ")) };
        let text = format!("---\nname: {name}\ndescription: {description}\n{tags}---\nbody\n");
        crate::skill::load::load(&format!("{name}/SKILL.md"), &text, &Limits::default()).skill.unwrap()
    }

    /// A mention's key is the name lowercased with `_` as `-`, whether it is ASCII (read a
    /// byte at a time) or not.
    #[test]
    fn mention_keys_lowercase_and_join_with_dashes() {
        let general = |name: &str| -> String {
            name.chars().flat_map(char::to_lowercase).map(|c| if c == '_' { '-' } else { c }).collect()
        };
        for name in ["PDF_Tools", "pdf-tools", "A_B-c_D9", "", "_", "Über_Tool", "\u{212A}elvin_X", "ΣIGMA_Σ"] {
            assert_eq!(mention_key(name), general(name), "{name:?}");
        }
        for (name, key) in [("PDF_Tools", "pdf-tools"), ("Über_Tool", "über-tool"), ("\u{212A}elvin_X", "kelvin-x")] {
            assert_eq!(mention_key(name), key);
        }
    }

    fn names(skills: &[Skill], message: &str) -> Vec<(String, Reason)> {
        let index = MatchIndex::build(skills, |_| false);
        index.find(message).unwrap().into_iter().map(|h| (skills[h.skill].name.clone(), h.reason)).collect()
    }

    fn catalogue() -> Vec<Skill> {
        vec![
            skill("pdf", "Work with PDF files", &["documents"]),
            skill("my_tool", "A tool", &[]),
            skill("go", "Go language help", &[]),
            skill("git-worktrees", "Create isolated git worktrees for feature work", &["git"]),
        ]
    }

    #[test]
    fn mentions_are_case_and_separator_insensitive_in_message_order() {
        let s = catalogue();
        assert_eq!(
            names(&s, "use @My-Tool then @PDF."),
            vec![("my_tool".into(), Reason::Mention), ("pdf".into(), Reason::Mention)]
        );
    }

    /// Trailing punctuation after a mention is left off, however long the run (each text
    /// that could be a name looked up once, as a prefix of one key).
    #[test]
    fn a_mention_is_found_before_any_run_of_punctuation() {
        let s = catalogue();
        for (message, want) in [
            (format!("ask @pdf{}", ".".repeat(100_000)), vec![("pdf".to_owned(), Reason::Mention)]),
            (format!("ask @my_tool{} now", "_".repeat(50_000)), vec![("my_tool".into(), Reason::Mention)]),
            (format!("ask @{}", ".".repeat(100_000)), vec![]),
            (format!("ask @pdfx{}", ":".repeat(1_000)), vec![]),
            ("ask @Git-Worktrees:-.".to_owned(), vec![("git-worktrees".into(), Reason::Mention)]),
        ] {
            assert_eq!(names(&s, &message), want, "{}", &message[..message.len().min(30)]);
        }
    }

    /// An occurrence inside an `@` word does not fire, whichever of many such words it is in
    /// (spans overlapping, out of order, nested, or ending where it starts).
    #[test]
    fn a_span_set_finds_what_comparing_every_span_finds() {
        let spans: Vec<Span> = vec![(10, 20), (0, 4), (12, 14), (30, 31), (5, 40), (50, 50), (45, 60)];
        let set = SpanSet::new(&spans);
        for start in 0..70 {
            for end in start..72 {
                let want = spans.iter().any(|&(s, e)| start < e && end > s);
                assert_eq!(set.overlaps(start, end), want, "{start}..{end}");
            }
        }
        assert!(!SpanSet::new(&[]).overlaps(0, 10));
        let s = catalogue();
        let many = "mail a@pdf.com ".repeat(2_000) + "and convert this PDF";
        assert_eq!(names(&s, &many), vec![("pdf".to_owned(), Reason::Name)]);
    }

    #[test]
    fn email_addresses_are_not_mentions_and_hide_names() {
        let s = catalogue();
        assert_eq!(names(&s, "mail bob@pdf.com or a.b@pdf"), vec![]);
        assert_eq!(names(&s, "write to pdf@example.org"), vec![]);
    }

    #[test]
    fn names_and_tags_match_whole_words_only() {
        let s = catalogue();
        assert_eq!(names(&s, "convert this PDF please"), vec![("pdf".into(), Reason::Name)]);
        assert_eq!(names(&s, "my pdfs and pdf-tools"), vec![]);
        assert_eq!(names(&s, "scan the documents"), vec![("pdf".into(), Reason::Tag)]);
        // Two-character names never match automatically, but can be mentioned.
        assert_eq!(names(&s, "go home"), vec![]);
        assert_eq!(names(&s, "@go"), vec![("go".into(), Reason::Mention)]);
    }

    #[test]
    fn description_wins_and_orders_by_length() {
        let s = catalogue();
        let got = names(&s, "I want to WORK WITH PDF  FILES and create isolated git worktrees for feature work");
        assert_eq!(got, vec![("git-worktrees".into(), Reason::Description), ("pdf".into(), Reason::Description)]);
    }

    #[test]
    fn a_long_description_matches_only_whole() {
        let long = "Convert the quarterly spreadsheet into a PDF report for finance";
        let twin = "Convert the quarterly spreadsheet into a slide deck for the board";
        assert!(long.len() > DESCRIPTION_PATTERN_BYTES && long[..32] == twin[..32]);
        let s = vec![skill("finance-pdf", long, &[]), skill("board-deck", twin, &[])];
        let description = |who: &str| vec![(who.to_owned(), Reason::Description)];
        // Folded as the message is: case and whitespace runs do not matter, and its
        // closing punctuation is optional.
        assert_eq!(
            names(&s, "please CONVERT the quarterly  spreadsheet into a pdf\nreport for finance."),
            description("finance-pdf")
        );
        assert_eq!(
            names(&s, "convert the quarterly spreadsheet into a slide deck for the board"),
            description("board-deck")
        );
        // Its start alone, or its start and then something else, is not the description.
        assert_eq!(names(&s, "convert the quarterly spreadsheet into a PDF"), vec![]);
        assert_eq!(names(&s, "convert the quarterly spreadsheet into a PDF report for sales"), vec![]);
        // The whole description counts where it ends: inside an e-mail address, no match.
        assert_eq!(names(&s, "convert the quarterly spreadsheet into a pdf report for finance@example.com"), vec![]);
        // Twice in one message: found at the first occurrence.
        let index = MatchIndex::build(&s, |_| false);
        let message = format!("{long}. And again: {long}");
        assert_eq!(index.find(&message).unwrap()[0].position, 0);
    }

    #[test]
    fn descriptions_match_where_the_whole_folded_description_occurs() {
        // Descriptions that open with one of three starts of 32 bytes or more and end in a
        // few words of a small stock (some not ASCII); messages made of whole descriptions,
        // their starts cut at a word, and stock words. Each skill's hit is the first place
        // its whole description occurs (lowercase, single spaces, characters that lowercase
        // to themselves: the folded message's offsets are the message's own).
        let starts = [
            "use this skill when the user asks to",
            "this skill should be used whenever a",
            "helps with café menus and naïve über plans",
        ];
        let stock = ["alpha", "beta", "gamma", "café", "über", "ñandú"];
        let mut next = crate::testing::numbers(0x9e37_79b9_7f4a_7c15);
        let words = |n: usize, next: &mut dyn FnMut(usize) -> usize| {
            (0..n).map(|_| stock[next(stock.len())]).collect::<Vec<_>>()
        };
        let descriptions: Vec<String> =
            (0..40).map(|i| format!("{} {}", starts[i % 3], words(1 + next(4), &mut next).join(" "))).collect();
        let s: Vec<Skill> = descriptions.iter().enumerate().map(|(i, d)| skill(&format!("zq-{i}"), d, &[])).collect();
        let index = MatchIndex::build(&s, |_| false);
        let (mut whole, mut starts_only) = (0, 0);
        for _ in 0..300 {
            let pieces: Vec<String> = (0..1 + next(4))
                .map(|_| {
                    let description: Vec<&str> = descriptions[next(descriptions.len())].split(' ').collect();
                    match next(3) {
                        0 => description.join(" "),
                        1 => description[..description.len() - 1 - next(2).min(description.len() - 1)].join(" "),
                        _ => words(1 + next(3), &mut next).join(" "),
                    }
                })
                .collect();
            let message = pieces.join(" ");
            let mut expected: Vec<(usize, usize)> =
                (descriptions.iter().enumerate()).filter_map(|(i, d)| Some((i, message.find(d.as_str())?))).collect();
            expected.sort();
            let mut got: Vec<(usize, usize)> =
                index.find(&message).unwrap().iter().map(|h| (h.skill, h.position)).collect();
            got.sort();
            assert_eq!(got, expected, "{message}");
            whole += usize::from(!expected.is_empty());
            starts_only += usize::from(expected.is_empty() && starts.iter().any(|st| message.contains(st)));
        }
        // Both kinds of message were there: with a whole description, and with starts only.
        assert!(whole > 50 && starts_only > 50, "{whole} with a description, {starts_only} with starts only");
    }

    #[test]
    fn everyday_one_word_names_and_tags_are_left_to_ranking_but_descriptions_are_not() {
        let s = vec![
            skill("finder", "search", &[]),
            skill("web-search", "Look things up online", &["search"]),
            skill("search", "A search skill", &[]),
        ];
        let hits = |everyday: &dyn Fn(&str) -> bool| {
            let index = MatchIndex::build(&s, everyday);
            let hits = index.find("please search").unwrap();
            hits.into_iter().map(|h| (s[h.skill].name.as_str(), h.reason)).collect::<Vec<_>>()
        };
        // The word is a rule for each skill that has it...
        let mut all = hits(&|_| false);
        all.sort();
        assert_eq!(all, [("finder", Reason::Description), ("search", Reason::Name), ("web-search", Reason::Tag)]);
        // ...but, an everyday word, only as the whole of a description.
        assert_eq!(hits(&|word| word == "search"), [("finder", Reason::Description)]);
        // Settling asks about each one-word name or tag once, not about descriptions.
        let asked = std::cell::RefCell::new(Vec::new());
        MatchIndex::build_unsettled(&s).settle(|word| {
            asked.borrow_mut().push(word.to_owned());
            false
        });
        let mut asked = asked.into_inner();
        asked.sort();
        assert_eq!(asked, ["finder", "search"]);
    }

    #[test]
    fn mentioned_skills_are_not_repeated() {
        let s = catalogue();
        assert_eq!(names(&s, "@pdf the pdf"), vec![("pdf".into(), Reason::Mention)]);
    }

    #[test]
    fn positions_are_byte_offsets_in_the_original_message() {
        let s = catalogue();
        let index = MatchIndex::build(&s, |_| false);
        let hits = index.find("Ünïcode  text: PDF").unwrap();
        assert_eq!(hits[0].position, "Ünïcode  text: ".len());
    }

    /// The fold as it was first written: every character's bytes mapped to its start.
    fn fold_char_by_char(text: &str) -> (String, Vec<usize>) {
        let (mut out, mut offsets, mut in_space) = (String::new(), Vec::new(), false);
        for (i, c) in text.char_indices() {
            if c.is_whitespace() {
                if !in_space {
                    out.push(' ');
                }
                in_space = true;
            } else {
                in_space = false;
                out.extend(c.to_lowercase());
            }
            offsets.resize(out.len(), i);
        }
        offsets.push(text.len());
        (out, offsets)
    }

    #[test]
    fn folding_keeps_where_every_character_came_from() {
        let texts = [
            "",
            "Plain words",
            "Tabs\tand\nnew lines",
            "runs  of \r\n\t spaces ",
            "  leading",
            "ÜNÏCODE  Straße",
            "İstanbul İ",
            "ΟΔΟΣ ΣΑΣ",
            "Straße café",
            "no\u{a0}break\u{2003}em",
            "emoji 🎉  ok",
            "K\u{212a}elvin",
            "x\u{0301}  é",
            "MiXeD cAsE, ascii only",
        ];
        // One buffer reused for every text, as a turn reuses its thread's, in both orders.
        let mut reused = Folded::default();
        for text in texts.iter().chain(texts.iter().rev()) {
            let (want, offsets) = fold_char_by_char(text);
            fold_into(text, &mut reused);
            let got = &reused;
            assert_eq!(got.text, want, "{text:?}");
            // Every character boundary of the folded text maps where the character-by-character fold says.
            for (at, _) in want.char_indices().chain(std::iter::once((want.len(), ' '))) {
                assert_eq!(got.original(at), offsets[at], "{text:?} at {at}");
            }
            // Texts whose bytes all stand where they were cost no offsets.
            let unmoved = offsets.iter().enumerate().all(|(at, &o)| !want.is_char_boundary(at) || at == o)
                && want.len() == text.len();
            assert_eq!(!got.moved, unmoved, "{text:?}");
            let fresh = fold(text);
            assert_eq!((&fresh.text, fresh.moved), (&got.text, got.moved), "{text:?}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3_000))]

        /// Texts of ASCII words, every kind of ASCII whitespace alone and in runs, and
        /// characters that grow, shrink or are whitespace when lowercased: one reused buffer
        /// folds each as the character-by-character fold does, offsets included.
        #[test]
        fn folding_generated_texts_agrees_with_the_fold_a_character_at_a_time(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "Ab", "PDF", "x", "42", "-", " ", "  ", "\t", "\n", "\r\n", "\u{b}", "\u{c}", " \t",
                "é", "İ", "Σ", "ß", "\u{212a}", "\u{a0}", "\u{2003}", "🎉", "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ",
            ]), 0..40),
        ) {
            let text: String = pieces.concat();
            let (want, offsets) = fold_char_by_char(&text);
            let unmoved = want.len() == text.len()
                && offsets.iter().enumerate().all(|(at, &o)| !want.is_char_boundary(at) || at == o);
            // The buffer holds another text's fold first (one that moved), then this one's twice.
            let mut reused = Folded::default();
            fold_into("  \u{212a}ELVIN  ", &mut reused);
            for _ in 0..2 {
                fold_into(&text, &mut reused);
                proptest::prop_assert_eq!(&reused.text, &want, "{:?}", text);
                proptest::prop_assert_eq!(!reused.moved, unmoved, "{:?}", text);
                for (at, _) in want.char_indices().chain(std::iter::once((want.len(), ' '))) {
                    proptest::prop_assert_eq!(reused.original(at), offsets[at], "{:?} at {}", text, at);
                }
            }
        }
    }

    #[test]
    fn an_automaton_that_could_not_be_built_fails_every_turn_loudly() {
        let skills = [skill("pdf", "Merge PDF files", &[])];
        let index = MatchIndex { broken: Some("too many states".to_owned()), ..MatchIndex::build(&skills, |_| false) };
        let expected =
            Error::Unavailable { part: "matching automaton".to_owned(), problem: "too many states".to_owned() };
        assert_eq!(index.find("merge PDF files"), Err(expected));
    }
}
