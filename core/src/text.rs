//! Cutting and tidying text, in one place: every shortening the core does (catalogue
//! descriptions, completions, tool and prompt descriptions, scan excerpts, byte limits)
//! is one of these, and the one Unicode normalisation (NFKC, for names).

use std::borrow::Cow;
use std::sync::OnceLock;

/// The host's NFKC normaliser, when it lent one.
static NFKC_NORMALISER: OnceLock<fn(&str) -> String> = OnceLock::new();

/// Lends the core a normaliser to NFKC (the form the standard compares names in), for
/// builds without the default `nfkc` feature: its tables are ~120 KB of WebAssembly, and
/// hosts that carry Unicode tables already (a JavaScript engine's
/// `String.prototype.normalize`) can lend theirs. Builds with the feature always use its
/// tables and never call `normalise`. Only text that is not ASCII is passed (ASCII is its
/// own NFKC form). Process-wide and set once: returns `false`, and changes nothing, when
/// a normaliser was lent before.
pub fn set_nfkc_normaliser(normalise: fn(&str) -> String) -> bool {
    NFKC_NORMALISER.set(normalise).is_ok()
}

/// `s` in NFKC, or `None` when it is not ASCII and this build has neither its tables nor
/// a normaliser lent by the host.
pub(crate) fn nfkc(s: &str) -> Option<Cow<'_, str>> {
    if s.is_ascii() {
        return Some(s.into());
    }
    non_ascii_nfkc(s).map(Cow::Owned)
}

#[cfg(feature = "nfkc")]
fn non_ascii_nfkc(s: &str) -> Option<String> {
    use unicode_normalization::UnicodeNormalization;
    Some(s.nfkc().collect())
}

#[cfg(not(feature = "nfkc"))]
fn non_ascii_nfkc(s: &str) -> Option<String> {
    NFKC_NORMALISER.get().map(|normalise| normalise(s))
}

/// The longest prefix of `s` of at most `max_bytes` bytes that ends on a character
/// boundary.
pub(crate) fn truncate_bytes(s: &str, max_bytes: usize) -> &str {
    if s.len() <= max_bytes {
        return s;
    }
    let mut end = max_bytes;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s.get(..end).unwrap_or("")
}

/// `s` with each whitespace run written as one space, and no leading or trailing space.
pub(crate) fn collapse_whitespace(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `s` in at most `cap` characters (no cap: `None`): when longer, its first `cap - 1`
/// (trailing space dropped) and `…`.
pub(crate) fn cap_chars(s: &str, cap: Option<usize>) -> Cow<'_, str> {
    let Some(cap) = cap.filter(|&cap| s.chars().count() > cap) else {
        return s.into();
    };
    let keep: String = s.chars().take(cap.saturating_sub(1)).collect();
    format!("{}…", keep.trim_end()).into()
}

/// `s` with whitespace collapsed and at most `max_chars` characters: when cut, cut at a
/// word (unless that loses more than a quarter of it) and marked with `…`. For text a
/// person or a model reads as a summary.
pub(crate) fn shorten_at_word(s: &str, max_chars: usize) -> String {
    let collapsed = collapse_whitespace(s);
    if collapsed.chars().count() <= max_chars {
        return collapsed;
    }
    let cut: String = collapsed.chars().take(max_chars.saturating_sub(1)).collect();
    let at_word = match cut.rfind(' ') {
        Some(i) if cut.get(..i).is_some_and(|head| head.chars().count() >= max_chars * 3 / 4) => {
            cut.get(..i).unwrap_or(&cut)
        }
        _ => &cut,
    };
    format!("{}…", at_word.trim_end_matches([' ', ',', ';', ':', '.', '-']))
}

/// An excerpt: the first `max_chars` characters of `s` as written, and `…` when there
/// was more.
pub(crate) fn excerpt(s: &str, max_chars: usize) -> String {
    match s.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", s.get(..cut).unwrap_or(s)),
        None => s.to_owned(),
    }
}

/// Whether `a` and `b` are the same text. In WebAssembly compared eight bytes at a time
/// ([`same_by_words`]): the module's `memcmp` (the compiler's builtins) goes a byte at a
/// time, and each turn compares every body it reads with the one it scanned last.
pub(crate) fn same_text(a: &str, b: &str) -> bool {
    match cfg!(target_arch = "wasm32") {
        true => same_by_words(a.as_bytes(), b.as_bytes()),
        false => a == b,
    }
}

/// `a == b`, eight bytes at a time.
fn same_by_words(a: &[u8], b: &[u8]) -> bool {
    let word = |bytes: &[u8]| <[u8; 8]>::try_from(bytes).map_or(0, u64::from_le_bytes);
    let (words_a, words_b) = (a.chunks_exact(8), b.chunks_exact(8));
    a.len() == b.len()
        && words_a.remainder() == words_b.remainder()
        && words_a.zip(words_b).all(|(x, y)| word(x) == word(y))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_land_on_character_boundaries_and_say_so() {
        assert_eq!(truncate_bytes("héllo", 2), "h"); // `é` is two bytes: not split
        assert_eq!(truncate_bytes("héllo", 3), "hé");
        assert_eq!(cap_chars("abcdef", Some(4)), "abc…");
        assert_eq!(cap_chars("ab cdef", Some(4)), "ab…");
        assert_eq!(cap_chars("abcdef", None), "abcdef");
        assert_eq!(shorten_at_word("one two  three four five", 16), "one two three…");
        // Cutting at the word would lose more than a quarter: cut inside it.
        assert_eq!(shorten_at_word("one two  three four", 12), "one two thr…");
        assert_eq!(shorten_at_word("short", 12), "short");
        assert_eq!(excerpt("abcdef", 3), "abc…");
        assert_eq!(excerpt("abc", 3), "abc");
    }

    /// Comparing eight bytes at a time says what `==` says: every length up to a few
    /// words, a difference at every place, and texts of different lengths.
    #[test]
    fn texts_compare_by_words_as_by_bytes() {
        for len in 0..40usize {
            let text: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            assert!(super::same_by_words(&text, &text.clone()), "{len}");
            for at in 0..len {
                let mut other = text.clone();
                other[at] = b'!';
                assert!(!super::same_by_words(&text, &other), "{len} at {at}");
            }
            assert!(!super::same_by_words(&text, &text[..len.saturating_sub(1)]) || len == 0, "{len}");
        }
        assert!(super::same_text("é ü", "é ü") && !super::same_text("é ü", "é u"));
    }
}
