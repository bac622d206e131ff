//! What a skill's body says beyond its frontmatter, for ranking: its "When to use"
//! sections and its headings.

use crate::text::truncate_bytes;

/// Most bytes kept of a body's "When to use" sections, and of its "When not to use"
/// ones (whole lines; the rest is not read).
pub const MAX_SECTION_BYTES: usize = 2048;

/// What a body's own sections say about when to use the skill: the text under
/// headings that start "When to Use", "When to Apply", "Use this skill when" or "Use
/// when", or are "Scope", "Triggers" or "Trigger phrases"; and under those that start
/// "When NOT to Use", "Out of scope", "When to avoid" or "Do not use"; each up to the
/// next heading of the same or a higher level, outside code fences, at most
/// `MAX_SECTION_BYTES` (2,048) of each kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BodySections {
    /// The text of the sections that say when to use the skill.
    pub when_to_use: String,
    /// The text of the sections that say when not to.
    pub when_not_to_use: String,
}

/// Reads [`BodySections`] from a body.
pub(crate) fn body_sections(body: &str) -> BodySections {
    let mut found = BodySections::default();
    // The section being read: its heading level and whether it is for the skill.
    let mut open: Option<(usize, bool)> = None;
    let mut fence = false;
    for line in lines(body) {
        // Outside a section only headings and fences matter: most lines are neither.
        if open.is_none() && !line.starts_with(['#', ' ', '\t', '`', '~']) {
            continue;
        }
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        let level = line.bytes().take_while(|&b| b == b'#').count();
        if (1..=6).contains(&level) && line.get(level..).is_some_and(|r| r.starts_with([' ', '\t'])) {
            if open.is_some_and(|(at, _)| level <= at) {
                open = None;
            }
            let title = line.get(level..).unwrap_or_default().trim().trim_matches(['#', '*', ':', ' ']);
            let against = [
                "when not to use",
                "when to not use",
                "when not to apply",
                "out of scope",
                "when to avoid",
                "do not use",
            ];
            let for_it = ["when to use", "when to apply", "use this skill when", "use when"];
            let for_it_exactly = ["scope", "triggers", "trigger phrases"];
            if against.iter().any(|h| lowercase_starts_with(title, h)) {
                open = Some((level, false));
            } else if for_it.iter().any(|h| lowercase_starts_with(title, h))
                || for_it_exactly.iter().any(|h| lowercase_is(title, h))
            {
                open = Some((level, true));
            }
            continue;
        }
        if let Some((_, for_skill)) = open {
            let out = if for_skill { &mut found.when_to_use } else { &mut found.when_not_to_use };
            if out.len() + line.len() < MAX_SECTION_BYTES {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    found
}

/// What follows `prefix` (lowercase ASCII) in `text` lowercased, if it starts with it:
/// compared without making the lowercase copy (a heading is compared with several
/// prefixes; a body has many). The same answer as `text.to_lowercase()` gives: the two
/// lowercasings differ only in a capital sigma's final form, which no ASCII text matches.
fn lowercase_after<'a>(text: &'a str, prefix: &str) -> Option<impl Iterator<Item = char> + 'a> {
    let mut lowercase = text.chars().flat_map(char::to_lowercase);
    prefix.chars().all(|expected| lowercase.next() == Some(expected)).then_some(lowercase)
}

/// Whether `text` lowercased starts with `prefix` (lowercase ASCII).
fn lowercase_starts_with(text: &str, prefix: &str) -> bool {
    lowercase_after(text, prefix).is_some()
}

/// Whether `text` lowercased is `word` (lowercase ASCII).
fn lowercase_is(text: &str, word: &str) -> bool {
    lowercase_after(text, word).is_some_and(|mut rest| rest.next().is_none())
}

/// Most body headings kept per skill.
pub const MAX_HEADINGS: usize = 64;
/// Longest body heading kept, in bytes (longer ones are cut at a character boundary).
pub const MAX_HEADING_BYTES: usize = 200;

/// The Markdown headings (`#` to `######` and a space) of a body, outside fenced code
/// blocks, trimmed of their marks.
pub(crate) fn body_headings(body: &str) -> Vec<String> {
    let mut headings = Vec::new();
    let mut fences = Fences::default();
    for line in lines(body) {
        if fences.update(line) || fences.inside() {
            continue;
        }
        let level = line.bytes().take_while(|&b| b == b'#').count();
        let Some(rest) = line.get(level..) else { continue };
        if (1..=6).contains(&level) && rest.starts_with([' ', '\t']) {
            let text = rest.trim().trim_end_matches('#').trim();
            if !text.is_empty() {
                headings.push(truncate_bytes(text, MAX_HEADING_BYTES).to_owned());
                if headings.len() == MAX_HEADINGS {
                    break;
                }
            }
        }
    }
    headings
}

/// Fenced code blocks, followed line by line as CommonMark reads them: a line starting
/// with three or more `` ` `` or `~` opens one, and only a line of the same mark, at least
/// as long and with nothing after it, closes it. [`Fences::update`] takes each line in
/// order and says whether it is a fence line; [`Fences::inside`] whether the lines after
/// it are code.
#[derive(Debug, Default)]
pub(crate) struct Fences(Option<(u8, usize)>);

impl Fences {
    /// Takes the next line; true when it is a fence line (one that opens or closes a
    /// block, or a fence-like line inside one, which is code).
    pub(crate) fn update(&mut self, line: &str) -> bool {
        let trimmed = line.trim_start();
        let Some(mark) = trimmed.bytes().next().filter(|&b| b == b'`' || b == b'~') else { return false };
        let run = trimmed.bytes().take_while(|&b| b == mark).count();
        if run < 3 {
            return false;
        }
        match self.0 {
            None => self.0 = Some((mark, run)),
            Some((open, length)) => {
                let rest = trimmed.get(run..).unwrap_or_default();
                if open == mark && run >= length && rest.trim().is_empty() {
                    self.0 = None;
                }
            }
        }
        true
    }

    /// True inside a fenced block.
    pub(crate) fn inside(&self) -> bool {
        self.0.is_some()
    }

    /// The line that closes the open block (its mark, as long as the opening run), or
    /// `None` outside one.
    pub(crate) fn closing_line(&self) -> Option<String> {
        self.0.map(|(mark, length)| char::from(mark).to_string().repeat(length))
    }

    /// Where `text` leaves the fences: each of its lines taken in order.
    pub(crate) fn after(text: &str) -> Fences {
        let mut fences = Fences::default();
        for line in lines(text) {
            fences.update(line);
        }
        fences
    }
}

/// The lines of `text` as [`str::lines`] gives them, found with `memchr` (SIMD where the
/// target has it): a body is read whole at build, and most of its lines are skipped.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    let mut ends = memchr::memchr_iter(b'\n', text.as_bytes());
    std::iter::from_fn(move || {
        if start >= text.len() {
            return None;
        }
        let (line, next) = match ends.next() {
            // A line ending is `\n` or `\r\n`.
            Some(end) => (text.get(start..end).map(|l| l.strip_suffix('\r').unwrap_or(l)), end + 1),
            None => (text.get(start..), text.len()),
        };
        start = next;
        line
    })
}

#[cfg(test)]
mod tests {
    /// Headings are compared as their lowercase copies would be, non-ASCII letters that
    /// lowercase to ASCII (the Kelvin sign) or grow (a dotted capital I) included.
    #[test]
    fn headings_compare_as_their_lowercase_copies() {
        let titles = [
            "When to Use",
            "WHEN TO USE THIS",
            "When to Us",
            "when",
            "",
            "Scope",
            "SCOPE",
            "Scopes",
            "Use this s\u{212A}ill when",
            "Use th\u{130}s skill when",
            "Trigger Phrases",
            "ΣCOPE",
            "Scope Σ",
            "Out of scope: ΣΣ",
            "Ünderstand",
            "Do not use",
        ];
        for title in titles {
            let lowercase = title.to_lowercase();
            for prefix in ["when to use", "use this skill when", "out of scope", "do not use", "scope", ""] {
                assert_eq!(
                    super::lowercase_starts_with(title, prefix),
                    lowercase.starts_with(prefix),
                    "{title:?} {prefix:?}"
                );
            }
            for word in ["scope", "triggers", "trigger phrases"] {
                assert_eq!(super::lowercase_is(title, word), lowercase == word, "{title:?} {word:?}");
            }
        }
        assert!(super::lowercase_starts_with("Use this s\u{212A}ill when", "use this skill when"));
    }

    /// The same lines as `str::lines`, line endings and a last line without one included.
    #[test]
    fn lines_agree_with_str_lines() {
        for text in ["", "a", "a\r", "a\n", "a\r\nb", "a\n\n\nb\r\n", "\n", "\r\n", "a\rb\n", "é\nü\r\n\r\nx"] {
            assert_eq!(super::lines(text).collect::<Vec<_>>(), text.lines().collect::<Vec<_>>(), "{text:?}");
        }
    }
}
