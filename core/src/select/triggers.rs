//! What a skill's fields say about when to use it, as ranking reads them: the text for
//! the skill (its description and `when_to_use`) and the text against it
//! (`when_not_to_use`, and the description's sentences that send requests elsewhere).
//!
//! Skill authors often end a description with where *other* requests belong — "For
//! campaign strategy, see ads.", "Do not use for PowerPoint files.", "DO NOT USE FOR:
//! unit tests.", "Not for pull requests." Read as ordinary description words, those
//! sentences draw exactly the messages the author sends away. Such a sentence is not
//! read for the skill. A sentence sends elsewhere when it starts with `for …`
//! and points elsewhere (`see`, `use`), or says `do not use`, `don't use`, `never use`,
//! `not for`, `not intended for` or `instead`. Measured on the marketing dev set, reading
//! these sentences *against* the skill cost more than it gained (ranking recall@1 0.69
//! left out, 0.65 against), and so did reading them for the skill they name (0.67): the
//! words they add to other skills lower every word's weight. Only the explicit
//! `when_not_to_use` field counts against a skill.

use crate::skill::Skill;

/// The texts ranking reads for and against one skill.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Triggers<'a> {
    /// Text that says when the skill applies.
    pub for_it: Vec<&'a str>,
    /// The body's "When to use" sections: evidence for the skill, weaker than its
    /// description.
    pub sections: Vec<&'a str>,
    /// Sentences of the description (and `when_to_use`) that send requests elsewhere:
    /// not evidence for the skill.
    pub elsewhere: Vec<&'a str>,
    /// `when_not_to_use`: evidence against the skill.
    pub against: Option<&'a str>,
}

/// Splits a skill's routing fields into text for and against it.
pub(crate) fn triggers(skill: &Skill) -> Triggers<'_> {
    let mut found = Triggers::default();
    for text in std::iter::once(skill.description.as_str()).chain(skill.when_to_use.as_deref()) {
        split(text, &mut found.for_it, &mut found.elsewhere);
    }
    found.against = skill.when_not_to_use.as_deref();
    split(&skill.sections.when_to_use, &mut found.sections, &mut found.elsewhere);
    found.elsewhere.extend(sentences(&skill.sections.when_not_to_use));
    found
}

/// Sorts the sentences of `text` into those for the skill and those that send
/// requests elsewhere; the items of a list a sending sentence opens ("Do not use
/// for:") go with it.
fn split<'a>(text: &'a str, for_it: &mut Vec<&'a str>, elsewhere: &mut Vec<&'a str>) {
    let mut listing_elsewhere = false;
    let may_say_instead = may_say_instead(text);
    for sentence in sentences(text) {
        if sends_elsewhere(sentence, may_say_instead) || (listing_elsewhere && list_item(sentence)) {
            listing_elsewhere |= sentence.trim_end().ends_with(':');
            elsewhere.push(sentence);
        } else {
            listing_elsewhere = false;
            for_it.push(sentence);
        }
    }
}

/// The sentences of `text`: cut after `.`, `!` or `?` followed by a space, a quote or
/// the end, and at line breaks. Each keeps its closing mark and the quotes
/// and brackets right after it.
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let trimmed = rest.trim_start();
        if trimmed.is_empty() {
            return None;
        }
        let (sentence, after) = trimmed.split_at(first_sentence_end(trimmed));
        rest = after;
        Some(sentence)
    })
}

/// Where the first sentence of `text` ends (see [`sentences`]). The marks are ASCII, so
/// the text is searched for them (`memchr`), and decoded only after one.
fn first_sentence_end(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut from = 0;
    loop {
        let rest = bytes.get(from..).unwrap_or_default();
        let mark = memchr::memchr3(b'.', b'!', b'?', rest).map(|at| from + at);
        // A line break before the next mark ends the sentence there.
        let before_mark = bytes.get(from..mark.unwrap_or(bytes.len())).unwrap_or_default();
        if let Some(at) = memchr::memchr(b'\n', before_mark) {
            return with_closers(text, from + at);
        }
        let Some(mark) = mark else { return text.len() };
        let after = text.get(mark + 1..).unwrap_or("");
        if after.chars().next().is_none_or(|n| n.is_whitespace() || closing(n)) {
            return with_closers(text, mark);
        }
        from = mark + 1;
    }
}

/// The end of a sentence closed by the ASCII mark or line break at `mark`: the closing
/// quotes and brackets right after it stay with it.
fn with_closers(text: &str, mark: usize) -> usize {
    let after = text.get(mark + 1..).unwrap_or("");
    mark + 1 + after.chars().take_while(|&q| closing(q)).map(char::len_utf8).sum::<usize>()
}

/// A quote or bracket that closes what a sentence opened.
fn closing(c: char) -> bool {
    matches!(c, '"' | '\'' | ')' | '”' | '’')
}

/// True when a sentence sends requests to another skill or says what the skill is
/// not for: "For X, see Y.", "Use Y instead.", "Instead, use Y.", or one that opens
/// with "Do not use", "Don't use", "Never use", "Not for" or "Not intended for".
/// ("Use this instead of curl" claims requests for the skill, and stays.)
///
/// The phrases are compared ignoring ASCII case, which answers as lowercasing the sentence
/// would: of the characters that lowercase to ASCII letters, the Kelvin sign gives a `k`,
/// which no phrase has, and `İ` an `i` followed by a combining dot, which no phrase can
/// match (none ends in `i`). `may_say_instead` is [`may_say_instead`] of the text the
/// sentence is from.
fn sends_elsewhere(sentence: &str, may_say_instead: bool) -> bool {
    let text = sentence.trim_start_matches(['"', '\'', '(', '*', '-', ' ']);
    let opens = ["do not use", "don't use", "never use", "not for ", "not intended for", "instead"];
    (starts_with_any_case(text, "for ") && contains_any_case(text, " see "))
        || opens.iter().any(|phrase| starts_with_any_case(text, phrase))
        || (may_say_instead && contains_any_case(text, " instead") && !contains_any_case(text, "instead of"))
}

/// Whether `text` may hold `instead` in some ASCII case: false when no sentence of it
/// does. One search of the text lowercased, where searching each sentence for the
/// phrase stops at every `i` of its words.
fn may_say_instead(text: &str) -> bool {
    memchr::memmem::find(text.to_ascii_lowercase().as_bytes(), b"instead").is_some()
}

/// `text` starts with the ASCII `phrase`, ignoring ASCII case.
fn starts_with_any_case(text: &str, phrase: &str) -> bool {
    text.as_bytes().get(..phrase.len()).is_some_and(|head| head.eq_ignore_ascii_case(phrase.as_bytes()))
}

/// `text` holds the ASCII `phrase`, ignoring ASCII case: the places where the phrase's
/// first letter (or first byte) stands, in either case, are found with `memchr`, and only
/// those compared.
fn contains_any_case(text: &str, phrase: &str) -> bool {
    let (text, phrase) = (text.as_bytes(), phrase.as_bytes());
    let before = phrase.iter().position(u8::is_ascii_alphabetic).unwrap_or(0);
    let Some(&letter) = phrase.get(before) else { return true };
    let (lower, upper) = (letter.to_ascii_lowercase(), letter.to_ascii_uppercase());
    let mut from = before;
    while let Some(at) = text.get(from..).and_then(|rest| memchr::memchr2(lower, upper, rest)) {
        let start = from + at - before;
        if text.get(start..start + phrase.len()).is_some_and(|window| window.eq_ignore_ascii_case(phrase)) {
            return true;
        }
        from += at + 1;
    }
    false
}

/// True when a line is an item of a list (`- x`, `* x`, `1. x`): it belongs to the
/// sentence that introduced the list.
fn list_item(sentence: &str) -> bool {
    let t = sentence.trim_start();
    t.starts_with("- ")
        || t.starts_with("* ")
        || t.split_once(". ").is_some_and(|(n, _)| n.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(description: &str, when_to_use: Option<&str>, when_not_to_use: Option<&str>) -> Skill {
        Skill {
            description: description.into(),
            when_to_use: when_to_use.map(Into::into),
            when_not_to_use: when_not_to_use.map(Into::into),
            ..Skill::default()
        }
    }

    #[test]
    fn sentences_that_send_requests_elsewhere_are_not_evidence_for_the_skill() {
        let s = skill(
            "When the user wants ad copy. Also use when they mention 'RSA headlines,' 'ad iterations.' \
             For campaign strategy and targeting, see ads. For landing page copy, see copywriting.",
            Some("Use for Facebook ads. Do not use for TikTok videos; use video instead. Use this instead of the old ad tool."),
            Some("Brand guidelines"),
        );
        let t = triggers(&s);
        assert_eq!(
            t.for_it,
            vec![
                "When the user wants ad copy.",
                "Also use when they mention 'RSA headlines,' 'ad iterations.'",
                "Use for Facebook ads.",
                "Use this instead of the old ad tool.",
            ]
        );
        assert_eq!(
            t.elsewhere,
            vec![
                "For campaign strategy and targeting, see ads.",
                "For landing page copy, see copywriting.",
                "Do not use for TikTok videos; use video instead.",
            ]
        );
        assert_eq!(t.against, Some("Brand guidelines"));
    }

    /// A sentence that only its `instead` sends elsewhere, in the description, in
    /// `when_to_use` and in the body's "When to use" section, each read by `split`.
    #[test]
    fn a_sentence_saying_instead_is_sent_elsewhere_wherever_it_is() {
        let mut s = skill("Edit sheets. Use the xlsx skill INSTEAD.", Some("Charts: the charts skill instead"), None);
        s.sections.when_to_use = "Reports.\nFor decks, the pptx skill Instead.".into();
        let t = triggers(&s);
        assert_eq!(t.for_it, vec!["Edit sheets."]);
        assert_eq!(t.sections, vec!["Reports."]);
        assert_eq!(
            t.elsewhere,
            vec![
                "Use the xlsx skill INSTEAD.",
                "Charts: the charts skill instead",
                "For decks, the pptx skill Instead."
            ]
        );
    }

    /// How sentences were cut and read before they were searched a byte at a time: the
    /// reference the property test holds the faster code to.
    fn sentences_by_chars(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        let mut rest = text;
        loop {
            let trimmed = rest.trim_start();
            if trimmed.is_empty() {
                return out;
            }
            let mut end = trimmed.len();
            let mut chars = trimmed.char_indices().peekable();
            while let Some((i, c)) = chars.next() {
                let next = chars.peek().map(|&(_, n)| n);
                let closes = matches!(c, '.' | '!' | '?') && next.is_none_or(|n| n.is_whitespace() || closing(n));
                if c == '\n' || closes {
                    end = i + c.len_utf8();
                    while let Some(&(j, q)) = chars.peek().filter(|&&(_, q)| closing(q)) {
                        end = j + q.len_utf8();
                        chars.next();
                    }
                    break;
                }
            }
            let (sentence, after) = trimmed.split_at(end);
            out.push(sentence);
            rest = after;
        }
    }

    fn sends_elsewhere_lowercased(sentence: &str) -> bool {
        let lower = sentence.trim_start_matches(['"', '\'', '(', '*', '-', ' ']).to_lowercase();
        let opens = ["do not use", "don't use", "never use", "not for ", "not intended for", "instead"];
        (lower.starts_with("for ") && lower.contains(" see "))
            || opens.iter().any(|p| lower.starts_with(p))
            || (lower.contains(" instead") && !lower.contains("instead of"))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(5_000))]
        #[test]
        fn sentences_are_cut_and_read_as_by_lowercasing_every_character(
            pieces in proptest::collection::vec(proptest::sample::select(&[
                "For ", "FOR ", "for", " see ", " SEE", "Do not use", "DON'T USE", "don’t use", "Never use", "not for ",
                "Not intended for", "Instead", " instead", " INSTEAD OF", "instead of", "İnstead", " İNSTEAD", "\u{212A}",
                "x", "é", "日本", "ΣΑΣ", ".", "!", "?", "...", ". ", "\n", "\r\n", "\"", "'", ")", "”", "’", "(", "*", "-",
                " ", "\t", "\u{A0}", "\u{2028}", "- ", "1. ", "e.g.", "v1.2", "use", " ads", ":",
            ][..]), 0..24),
        ) {
            let text: String = pieces.concat();
            let cut: Vec<&str> = sentences(&text).collect();
            proptest::prop_assert_eq!(&cut, &sentences_by_chars(&text));
            // (Told whether the whole text may say `instead`, as `split` tells it.)
            let may_say_instead = may_say_instead(&text);
            for sentence in cut {
                proptest::prop_assert_eq!(sends_elsewhere(sentence, may_say_instead), sends_elsewhere_lowercased(sentence), "{:?}", sentence);
            }
        }
    }

    #[test]
    fn ordinary_sentences_stay_for_the_skill() {
        for text in [
            "Fill PDF forms. Use when the user asks for forms, e.g. tax forms.",
            "For PDF files: merge, split and fill them.",
            "USE FOR: unit tests, mocks",
            "Make charts, even if they don't use the word 'chart'.",
            "For any PDF task, use the pdf tools.",
        ] {
            let s = skill(text, None, None);
            assert!(triggers(&s).elsewhere.is_empty(), "{text}");
        }
        let dotnet = skill("USE FOR: xunit tests. DO NOT USE FOR: benchmarks; load tests.", None, None);
        assert_eq!(triggers(&dotnet).elsewhere, vec!["DO NOT USE FOR: benchmarks; load tests."]);
        // A list that a sending sentence opens goes with it, up to the first other line.
        let listed =
            skill("Write xunit tests.\nDo not use for:\n- benchmarks\n- load tests\nCovers mocks.", None, None);
        let t = triggers(&listed);
        assert_eq!(t.elsewhere, vec!["Do not use for:\n", "- benchmarks\n", "- load tests\n"]);
        assert_eq!(t.for_it, vec!["Write xunit tests.", "Covers mocks."]);
        // Instead, at the start, sends elsewhere too.
        assert_eq!(triggers(&skill("Instead, use the xlsx skill.", None, None)).elsewhere.len(), 1);
    }
}
