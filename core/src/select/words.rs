//! The words ranking reads: how a text is cut into words, which words say nothing
//! (stop words), how a word is reduced to its stem (Snowball's English stemmer), and
//! which words stand next to each other (for pairs of words, see [`rank`](crate::select::rank)).
//!
//! A word is a run of letters and digits of at least two characters and at most
//! [`MAX_WORD_BYTES`], lowercased. Words joined by a single `-` or `/` also make a
//! *compound*, the pieces written together (`non-profits` → `nonprofits`, `A/B` →
//! `ab`), so that either spelling meets the other.

use crate::fast_hash::{FastHash, FastHasher, FastMap};
use rust_stemmers::{Algorithm, Stemmer};
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};

/// Words that say nothing about which skill is meant (words of one letter are no
/// words at all, see [`for_each_lowercase_word_in`]).
const STOP_WORDS: &[&str] = &[
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
    "same",
    "should",
    "so",
    "some",
    "something",
    "such",
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
    "claude",
    "agent",
    "task",
    "tasks",
    "via",
    "able",
    "ensure",
];

/// Longest word considered, in bytes: longer runs (hashes, base64) are not words.
pub(crate) const MAX_WORD_BYTES: usize = 64;

pub(crate) type StopWords = HashSet<&'static str, FastHash>;

pub(crate) fn hash_word(word: &str) -> u64 {
    let mut hasher = FastHasher::default();
    word.hash(&mut hasher);
    hasher.finish()
}

pub(crate) fn stop_words() -> StopWords {
    STOP_WORDS.iter().copied().collect()
}

/// Reduces a lowercase word to the form it is indexed by: Snowball's English stemmer
/// (`libraries` → `librari`, `running` → `run`, `writing` → `write`). Words with
/// characters outside `a-z0-9` are kept as they are: the stemmer is for English.
pub(crate) fn stem(word: &mut String) {
    if !stemmable(word) {
        return;
    }
    if let Cow::Owned(stemmed) = Stemmer::create(Algorithm::English).stem(word) {
        // Into the same buffer, which keeps its capacity (a turn's is reused).
        word.clear();
        word.push_str(&stemmed);
    }
}

/// Whether the stemmer reads `word` (`a-z0-9` only); other words are their own stem.
fn stemmable(word: &str) -> bool {
    word.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

/// Most stems a thread remembers ([`stem_remembered`]); past it, it forgets them all.
const REMEMBERED_STEMS: usize = 4096;

thread_local! {
    /// Words stemmed before on this thread, with their stems.
    static STEMS: RefCell<FastMap<Box<str>, Box<str>>> = RefCell::default();
}

/// [`stem`] of `word` into `stemmed` (its earlier text replaced), remembering the stems of
/// the last words stemmed on this thread: the words of a message that a catalogue has not
/// seen as written come back turn after turn, and stemming one costs about twenty lookups
/// of a remembered one.
pub(crate) fn stem_remembered(word: &str, stemmed: &mut String) {
    stemmed.clear();
    stemmed.push_str(word);
    remember_stem(stemmed);
}

/// [`stem_remembered`] of `word`, in place.
fn remember_stem(word: &mut String) {
    if !stemmable(word) {
        return;
    }
    // (Not `with`, which panics while the thread is being torn down: then no memo.)
    let remembered = STEMS.try_with(|cell| {
        let Ok(mut stems) = cell.try_borrow_mut() else { return stem(word) };
        if let Some(stemmed) = stems.get(word.as_str()) {
            word.clear();
            word.push_str(stemmed);
            return;
        }
        let form = Box::<str>::from(word.as_str());
        stem(word);
        if stems.len() >= REMEMBERED_STEMS {
            stems.clear();
        }
        stems.insert(form, word.as_str().into());
    });
    if remembered.is_err() {
        stem(word);
    }
}

/// How a word stands to the word before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Link {
    /// Right after the previous word, with only spaces, `-`, `_` or `/` between: the
    /// two may form a pair.
    Next,
    /// After punctuation, a line break or a run that is no word (or first in the text).
    Apart,
    /// Not a word of the text but the compound its previous pieces make: a word of its
    /// own, outside any pair.
    Compound,
}

/// [`for_each_lowercase_word_in`] in buffers of its own.
#[cfg(test)]
pub(crate) fn for_each_lowercase_word(text: &str, each: impl FnMut(&str, usize, Link)) {
    for_each_lowercase_word_in(text, &mut WordBuffers::default(), each);
}

/// Calls `each` with every word of `text` (lowercased), its byte offset and its
/// [`Link`] to the word before; compounds come right after their last piece. The words
/// are read into `buffers`, kept by the caller (a turn's, reused from turn to turn; a
/// build's, from field to field), which hold a copy of the whole text (grown to the
/// longest text read), so that reading words allocates nothing once they have grown.
pub(crate) fn for_each_lowercase_word_in(text: &str, buffers: &mut WordBuffers, each: impl FnMut(&str, usize, Link)) {
    let WordBuffers { lowercase, run, compound } = buffers;
    // Room for the longest word a text hands on, once (kept buffers keep it).
    for buffer in [&mut *run, &mut compound.text] {
        buffer.clear();
        buffer.reserve(MAX_WORD_BYTES);
    }
    // The text with its ASCII letters lowercased, at once: an ASCII run's word is a slice
    // of it (the same bytes and offsets as the text, as ASCII lowercasing keeps lengths).
    lowercase.clear();
    lowercase.push_str(text);
    lowercase.make_ascii_lowercase();
    read_words(text, lowercase, run, compound, each);
}

/// What reading words writes into: the text lowercased, a word that is not ASCII and the
/// compound it may be part of.
#[derive(Debug, Default)]
pub(crate) struct WordBuffers {
    lowercase: String,
    run: String,
    compound: Compound,
}

/// [`for_each_lowercase_word_in`]'s reading, a run at a time: separators are passed over a
/// byte at a time while they are ASCII, a run of ASCII letters and digits at once, and
/// only a run that may go on into a compound (one that ends at a `-` or `/`, or continues
/// one) is copied into the compound's buffer. `lowercase` is `text` with its ASCII letters
/// lowercased: an ASCII word is its slice, a word with other letters is lowercased into
/// `run`. The same words, offsets and links as reading a character at a time (a property
/// test holds it to that reading).
fn read_words(
    text: &str,
    lowercase: &str,
    run: &mut String,
    compound: &mut Compound,
    mut each: impl FnMut(&str, usize, Link),
) {
    compound.text.clear();
    compound.pieces = 0;
    let bytes = text.as_bytes();
    // Since the last word: only characters that keep words next to each other.
    let mut next = false;
    // Where the last run ended (at its terminating character).
    let mut last_end = None;
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        let start = i;
        if byte.is_ascii() {
            i += 1;
            if !byte.is_ascii_alphanumeric() {
                next &= keeps_words_next(char::from(byte));
                continue;
            }
        } else {
            let c = char_at(text, i);
            i += c.len_utf8();
            if !c.is_alphanumeric() {
                // (No character past ASCII keeps words next to each other.)
                next = false;
                continue;
            }
        }
        // A run starts at `start`: to its end, then its terminating character (a line
        // break past the end of the text).
        let mut ascii = byte.is_ascii();
        loop {
            match bytes.get(i) {
                Some(b) if b.is_ascii_alphanumeric() => i += 1,
                Some(b) if !b.is_ascii() => {
                    let c = char_at(text, i);
                    if !c.is_alphanumeric() {
                        break;
                    }
                    ascii = false;
                    i += c.len_utf8();
                }
                _ => break,
            }
        }
        let end = i;
        let ended_by = if end < bytes.len() { char_at(text, end) } else { '\n' };
        i = end + ended_by.len_utf8();
        let raw = text.get(start..end).unwrap_or_default();
        // Joined to the last run by exactly one `-` or `/`, and that run is in the compound.
        let joined_to_last = compound.pieces > 0
            && last_end.is_some_and(|e: usize| e + 1 == start && matches!(bytes.get(e), Some(b'-' | b'/')));
        last_end = Some(end);
        // Lowercased before it is measured: some characters grow when lowercased (ASCII
        // does not, so a run too long is not lowercased at all).
        let (word, fits) = if ascii {
            let fits = raw.len() <= MAX_WORD_BYTES;
            (if fits { lowercase.get(start..end).unwrap_or_default() } else { "" }, fits)
        } else {
            run.clear();
            push_lowercase(run, raw);
            (run.as_str(), run.len() <= MAX_WORD_BYTES)
        };
        // A compound goes on while one `-` or `/` joins its pieces and it fits.
        if !(joined_to_last && fits && compound.text.len() + word.len() <= MAX_WORD_BYTES) {
            compound.flush(&mut each);
            compound.start = start;
        }
        // A run that starts no compound and ends at neither `-` nor `/` can join none:
        // it is not copied.
        if fits && (compound.pieces > 0 || matches!(ended_by, '-' | '/')) {
            compound.text.push_str(word);
            compound.pieces += 1;
        }
        let is_word = fits && if ascii { word.len() >= 2 } else { word.chars().count() >= 2 };
        if is_word {
            each(word, start, if next { Link::Next } else { Link::Apart });
        }
        // A run that is no word (one letter, or too long) stands between its neighbours.
        next = is_word && keeps_words_next(ended_by);
    }
    compound.flush(&mut each);
}

/// The character at byte `at` of `text` (a character's first byte), or a line break.
fn char_at(text: &str, at: usize) -> char {
    text.get(at..).and_then(|rest| rest.chars().next()).unwrap_or('\n')
}

/// True for the characters that may stand between two words that form a pair.
fn keeps_words_next(c: char) -> bool {
    matches!(c, ' ' | '\t' | '-' | '_' | '/')
}

/// The pieces of a compound collected so far (`non`, `profits`) and where it starts.
#[derive(Debug, Default)]
struct Compound {
    text: String,
    start: usize,
    pieces: usize,
}

impl Compound {
    /// Hands on the compound, if it has two pieces or more, and starts afresh.
    #[inline]
    fn flush(&mut self, each: &mut impl FnMut(&str, usize, Link)) {
        if self.pieces == 0 {
            return;
        }
        if self.pieces >= 2 && self.text.chars().count() >= 2 {
            each(&self.text, self.start, Link::Compound);
        }
        self.text.clear();
        self.pieces = 0;
    }
}

/// Writes `raw` (not ASCII) lowercased into `out`.
fn push_lowercase(out: &mut String, raw: &str) {
    if raw.contains('Σ') {
        // The whole-string form: a final capital sigma lowercases to `ς`.
        out.push_str(&raw.to_lowercase());
    } else {
        // Otherwise the same, a character at a time, into `out` (no new string).
        out.extend(raw.chars().flat_map(char::to_lowercase));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `raw` (ASCII) lowercased into `out`.
    fn push_ascii_lowercase(out: &mut String, raw: &str) {
        let from = out.len();
        out.push_str(raw);
        if let Some(added) = out.get_mut(from..) {
            added.make_ascii_lowercase();
        }
    }

    fn words(text: &str) -> Vec<(String, usize, Link)> {
        let mut out = Vec::new();
        for_each_lowercase_word(text, |w, at, link| out.push((w.to_owned(), at, link)));
        out
    }

    /// Words read a character at a time, every run copied into the compound's buffer:
    /// what [`read_words`] must find.
    fn read_a_character_at_a_time(text: &str) -> Vec<(String, usize, Link)> {
        let mut out = Vec::new();
        let (mut run, mut compound) = (String::new(), Compound::default());
        let mut each = |w: &str, at: usize, link: Link| out.push((w.to_owned(), at, link));
        let mut start = None;
        let mut ascii = true;
        let mut next = false;
        let mut joined_to_last = false;
        let mut last_end = 0usize;
        let mut i = 0;
        while i <= text.len() {
            let c = text.get(i..).and_then(|rest| rest.chars().next()).unwrap_or('\n');
            if c.is_alphanumeric() {
                if start.is_none() {
                    start = Some(i);
                    ascii = true;
                    joined_to_last =
                        compound.pieces > 0 && i == last_end + 1 && matches!(text.get(last_end..i), Some("-" | "/"));
                }
                ascii &= c.is_ascii();
                i += c.len_utf8();
                continue;
            }
            let at = i;
            i += c.len_utf8();
            let Some((offset, raw)) = start.take().and_then(|s| text.get(s..at).map(|raw| (s, raw))) else {
                next &= keeps_words_next(c);
                continue;
            };
            last_end = at;
            run.clear();
            match ascii {
                true => push_ascii_lowercase(&mut run, raw),
                false => push_lowercase(&mut run, raw),
            }
            let fits = run.len() <= MAX_WORD_BYTES;
            if !(joined_to_last && fits && compound.text.len() + run.len() <= MAX_WORD_BYTES) {
                compound.flush(&mut each);
                compound.start = offset;
            }
            if fits {
                compound.text.push_str(&run);
                compound.pieces += 1;
            }
            let is_word = fits && run.chars().count() >= 2;
            if is_word {
                each(&run, offset, if next { Link::Next } else { Link::Apart });
            }
            next = is_word && keeps_words_next(c);
        }
        compound.flush(&mut each);
        out
    }

    #[test]
    fn reading_a_run_at_a_time_finds_the_words_a_character_at_a_time_does() {
        let long = "x".repeat(70);
        let texts = [
            "",
            "a",
            "ab",
            "Cold email, non-profits A/B test\nNext",
            "e-mail/sms—ΟΔΟΣ a-b-c-d",
            "İstanbul-İzmir ab/cd",
            "x-y z_w  tab\there",
            "über-cool café/bar 42-1",
            "trailing-",
            "-leading /x",
            "a--b a//b a-/b",
            &long,
            &format!("ab-{long}-cd"),
            "naïve résumé, déjà-vu",
            "日本語 テキスト-です",
            "emoji🎉word 🎉-🎉",
        ];
        // Buffers kept from text to text (a turn's) read the words fresh ones do.
        let mut kept = WordBuffers::default();
        for text in texts.iter().chain(texts.iter().rev()) {
            let want = read_a_character_at_a_time(text);
            assert_eq!(words(text), want, "{text:?}");
            let mut got = Vec::new();
            for_each_lowercase_word_in(text, &mut kept, |w, at, link| got.push((w.to_owned(), at, link)));
            assert_eq!(got, want, "{text:?}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(5_000))]

        /// Texts made of pieces that test runs, separators, compounds and non-ASCII letters
        /// (that grow when lowercased, that are no letters, a final sigma), and long runs.
        #[test]
        fn reading_a_run_at_a_time_reads_generated_texts_as_a_character_at_a_time(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "ab", "Word", "x", "42", "-", "/", "_", " ", "  ", "\t", "\n", ",", ".", "--", "-/",
                "é", "İ", "ΟΔΟΣ", "Σ", "日本", "🎉", "—", "\u{a0}", "ǅ", "ß", "K", "Ⅻ", "٣",
                "abcdefghijklmnopqrstuvwxyz0123456789", "İİİİİİİİİİİİİİİİİİİİİİ",
            ]), 0..40),
        ) {
            let text: String = pieces.concat();
            let mut got = Vec::new();
            for_each_lowercase_word_in(&text, &mut WordBuffers::default(), |w, at, link| got.push((w.to_owned(), at, link)));
            proptest::prop_assert_eq!(got, read_a_character_at_a_time(&text), "{:?}", text);
        }
    }

    #[test]
    fn words_links_and_compounds() {
        let got = words("Cold email, non-profits A/B test\nNext");
        let want = [
            ("cold", 0, Link::Apart),
            ("email", 5, Link::Next),
            ("non", 12, Link::Apart),
            ("profits", 16, Link::Next),
            ("nonprofits", 12, Link::Compound),
            ("ab", 24, Link::Compound),
            ("test", 28, Link::Apart),
            ("next", 33, Link::Apart),
        ];
        let want: Vec<(String, usize, Link)> = want.iter().map(|&(w, at, l)| (w.to_owned(), at, l)).collect();
        assert_eq!(got, want);
        // Non-ASCII words are lowercased as whole strings; one-letter runs are no words,
        // and stand between their neighbours.
        assert_eq!(words("ΟΔΟΣ a"), vec![("οδος".to_owned(), 0, Link::Apart)]);
        let links: Vec<Link> = words("merge a pdf").into_iter().map(|w| w.2).collect();
        assert_eq!(links, vec![Link::Apart, Link::Apart]);
        // Too long to be a word once lowercased (`İ` grows from 2 bytes to 3): no word,
        // and no compound past the bound either.
        let long = "İ".repeat(30);
        assert!(words(&long).is_empty());
        assert_eq!(
            words(&format!("ab-{long}-cd")),
            vec![("ab".to_owned(), 0, Link::Apart), ("cd".to_owned(), 64, Link::Apart)]
        );
    }

    #[test]
    fn snowball_stems() {
        let stemmed = |w: &str| {
            let mut w = w.to_owned();
            stem(&mut w);
            w
        };
        for (words, want) in [
            (["write", "writing", "writes"], "write"),
            (["merge", "merged", "merging"], "merg"),
            (["file", "files", "filed"], "file"),
            (["nonprofit", "nonprofits", "nonprofit"], "nonprofit"),
        ] {
            for w in words {
                assert_eq!(stemmed(w), want, "{w}");
            }
        }
        assert_eq!(stemmed("libraries"), "librari");
        // Remembered stems are the same stems, whatever was stemmed before.
        for word in ["running", "libraries", "running", "cafés", "merged", "libraries"] {
            let mut remembered = "earlier text".to_owned();
            stem_remembered(word, &mut remembered);
            assert_eq!(remembered, stemmed(word), "{word}");
        }
        assert_eq!(stemmed("running"), "run");
        // Only ASCII words are stemmed.
        assert_eq!(stemmed("cafés"), "cafés");
    }
}
