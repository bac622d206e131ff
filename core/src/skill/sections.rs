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
#[cfg(test)]
pub(crate) fn body_sections(body: &str) -> BodySections {
    read_body(body, false).0
}

/// A body's [`BodySections`] and, `with_headings`, its headings (outside fenced code
/// blocks, trimmed of their marks, at most [`MAX_HEADINGS`], each cut to
/// [`MAX_HEADING_BYTES`]): one pass over its lines. Lines in fenced code blocks (as [`Fences`] follows
/// them) are neither headings nor part of a section.
pub(crate) fn read_body(body: &str, with_headings: bool) -> (BodySections, Vec<String>) {
    let mut found = BodySections::default();
    let mut headings = Vec::new();
    // The section being read: its heading level and whether it is for the skill.
    let mut open: Option<(usize, bool)> = None;
    let mut fences = Fences::default();
    let bytes = body.as_bytes();
    let mut next = 0;
    while next < bytes.len() {
        // Outside a section only headings and fence lines matter, and each holds a `#`, a
        // backtick or a tilde (in a fenced block only a fence line can: a backtick or a
        // tilde). The lines before the next of those are not read: most lines.
        let start = if open.is_some() && !fences.inside() {
            next
        } else {
            let rest = bytes.get(next..).unwrap_or_default();
            let mark = match fences.inside() {
                true => memchr::memchr2(b'`', b'~', rest),
                false => memchr::memchr3(b'#', b'`', b'~', rest),
            };
            let Some(mark) = mark else { break };
            match line_start_before(body, next, next + mark) {
                Some(start) => start,
                None => {
                    // Text stands before the mark on its line (inline code, `C#`): that
                    // line is neither a heading nor a fence line, and is passed over.
                    let Some((_, after)) = line_at(body, next + mark) else { break };
                    next = after;
                    continue;
                }
            }
        };
        let Some((line, after)) = line_at(body, start) else { break };
        next = after;
        if fences.update(line) || fences.inside() {
            continue;
        }
        if let Some((level, rest)) = heading(line) {
            if with_headings && headings.len() < MAX_HEADINGS {
                let text = rest.trim().trim_end_matches('#').trim();
                if !text.is_empty() {
                    headings.push(truncate_bytes(text, MAX_HEADING_BYTES).to_owned());
                }
            }
            if open.is_some_and(|(at, _)| level <= at) {
                open = None;
            }
            let title = rest.trim().trim_matches(['#', '*', ':', ' ']);
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
            // Compared only with the titles that start with its first letter: most
            // headings are compared no further. (The titles are ASCII: their first byte
            // is their first letter, compared without a call to `memcmp` — a
            // `starts_with(char)` makes one, and a body has many headings.)
            let first = title.chars().next().and_then(|c| c.to_lowercase().next());
            let like =
                |h: &&&str| first.is_some_and(|first| h.as_bytes().first().map(|&b| char::from(b)) == Some(first));
            if against.iter().filter(like).any(|h| lowercase_starts_with(title, h)) {
                open = Some((level, false));
            } else if for_it.iter().filter(like).any(|h| lowercase_starts_with(title, h))
                || for_it_exactly.iter().filter(like).any(|h| lowercase_is(title, h))
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
    (found, headings)
}

/// Where the line holding the mark at byte `mark` starts, when only white space stands
/// before the mark on it (then the line may be a heading or a fence line); `None` when
/// other text does. `from` is a line's start at or before the mark's line, with none of
/// the marks searched for between. (Spaces and tabs are passed over a byte at a time; other
/// white space, rare, is looked for as `trim_start` would: `is_ascii_whitespace` leaves out
/// the vertical tab, which `trim_start` takes.)
fn line_start_before(text: &str, from: usize, mark: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = mark;
    while at > from && matches!(bytes.get(at - 1), Some(b' ' | b'\t')) {
        at -= 1;
    }
    let before = if at > from { bytes.get(at - 1) } else { None };
    match before {
        None | Some(b'\n') => Some(at),
        Some(b) if b.is_ascii() && !b.is_ascii_whitespace() && *b != 0x0B => None,
        Some(_) => {
            let start = memchr::memrchr(b'\n', bytes.get(from..mark)?).map_or(from, |nl| from + nl + 1);
            text.get(start..mark)?.trim_start().is_empty().then_some(start)
        }
    }
}

/// A Markdown heading's level (`#` to `######`) and what follows its marks (starting with
/// the space or tab that makes it a heading).
fn heading(line: &str) -> Option<(usize, &str)> {
    let level = line.bytes().take_while(|&b| b == b'#').count();
    let rest = line.get(level..)?;
    ((1..=6).contains(&level) && rest.starts_with([' ', '\t'])).then_some((level, rest))
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
    match ascii_start(text, prefix) {
        Some(start) => start.eq_ignore_ascii_case(prefix.as_bytes()),
        None => lowercase_after(text, prefix).is_some(),
    }
}

/// Whether `text` lowercased is `word` (lowercase ASCII).
fn lowercase_is(text: &str, word: &str) -> bool {
    match ascii_start(text, word) {
        // No character lowercases to nothing: what follows the start keeps it from being `word`.
        Some(start) => text.len() == word.len() && start.eq_ignore_ascii_case(word.as_bytes()),
        None => lowercase_after(text, word).is_some_and(|mut rest| rest.next().is_none()),
    }
}

/// `text`'s first `prefix.len()` bytes when they are ASCII: then its lowercase starts with
/// `prefix` (lowercase ASCII) exactly when they equal it, case aside — most headings,
/// compared without lowercasing a character at a time.
fn ascii_start<'a>(text: &'a str, prefix: &str) -> Option<&'a [u8]> {
    text.as_bytes().get(..prefix.len()).filter(|start| start.is_ascii())
}

/// Most body headings kept per skill.
pub const MAX_HEADINGS: usize = 64;
/// Longest body heading kept, in bytes (longer ones are cut at a character boundary).
pub const MAX_HEADING_BYTES: usize = 200;

/// The Markdown headings (`#` to `######` and a space) of a body, outside fenced code
/// blocks, trimmed of their marks: at most [`MAX_HEADINGS`], each cut to
/// [`MAX_HEADING_BYTES`].
#[cfg(test)]
pub(crate) fn body_headings(body: &str) -> Vec<String> {
    read_body(body, true).1
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
    std::iter::from_fn(move || {
        let (line, next) = line_at(text, start)?;
        start = next;
        Some(line)
    })
}

/// The line of `text` that starts at byte `start` as [`str::lines`] has it (ended by `\n`,
/// `\r\n` or the end of `text`), and where the next one starts; `None` at the end.
fn line_at(text: &str, start: usize) -> Option<(&str, usize)> {
    let rest = text.get(start..).filter(|rest| !rest.is_empty())?;
    Some(match memchr::memchr(b'\n', rest.as_bytes()) {
        Some(end) => (rest.get(..end).map(|line| line.strip_suffix('\r').unwrap_or(line))?, start + end + 1),
        None => (rest, text.len()),
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
            // ASCII as far as the prefix goes, then not: read a byte at a time up to there.
            "Scope\u{212A}",
            "Do not usé",
            "Triggers\u{130}",
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

    /// One pass reads both: the sections for and against the skill, each up to the next
    /// heading of its level or higher, and the headings; neither reads inside a fenced
    /// block, which only a fence of its own mark, at least as long, closes.
    #[test]
    fn sections_and_headings_come_from_one_pass_outside_code() {
        let body = "# PDF tools\n\
            Intro line.\n\
            ## When to Use\n\
            - merging PDFs\n\
            ### Details\n\
            - filling forms\n\
            ````md\n\
            ```\n\
            ## Not a heading\n\
            ```\n\
            ````\n\
            \u{a0}```\n\
            # Hidden too\n\
            ```\n\
            - splitting pages\n\
            ## Out of scope\n\
            - scanned images\n\
            # Usage\n\
            Run it.\n";
        let (sections, headings) = super::read_body(body, true);
        assert_eq!(sections.when_to_use, "- merging PDFs\n- filling forms\n- splitting pages\n");
        assert_eq!(sections.when_not_to_use, "- scanned images\n");
        assert_eq!(headings, ["PDF tools", "When to Use", "Details", "Out of scope", "Usage"]);
        let (same, none) = super::read_body(body, false);
        assert_eq!((same, none), (sections, Vec::new()));

        let long = format!("## Use when\n{}", "- a line of forty bytes, give or take.\n".repeat(100));
        let (sections, _) = super::read_body(&long, true);
        assert!(sections.when_to_use.len() < super::MAX_SECTION_BYTES && sections.when_to_use.len() > 2000);
        let many: String = (0..100).map(|i| format!("## H{i}\n")).collect();
        assert_eq!(super::read_body(&many, true).1.len(), super::MAX_HEADINGS);
    }

    /// What `read_body` gives, read the plain way: every line of `str::lines` in turn, each
    /// heading's title compared as its lowercase copy.
    fn read_every_line(body: &str, with_headings: bool) -> (super::BodySections, Vec<String>) {
        let (mut found, mut headings) = (super::BodySections::default(), Vec::new());
        let (mut open, mut fences) = (None, super::Fences::default());
        let against =
            ["when not to use", "when to not use", "when not to apply", "out of scope", "when to avoid", "do not use"];
        let for_it = ["when to use", "when to apply", "use this skill when", "use when"];
        for line in body.lines() {
            if fences.update(line) || fences.inside() {
                continue;
            }
            if let Some((level, rest)) = super::heading(line) {
                let text = rest.trim().trim_end_matches('#').trim();
                if with_headings && headings.len() < super::MAX_HEADINGS && !text.is_empty() {
                    headings.push(crate::text::truncate_bytes(text, super::MAX_HEADING_BYTES).to_owned());
                }
                if open.is_some_and(|(at, _)| level <= at) {
                    open = None;
                }
                let title = rest.trim().trim_matches(['#', '*', ':', ' ']).to_lowercase();
                if against.iter().any(|h| title.starts_with(h)) {
                    open = Some((level, false));
                } else if for_it.iter().any(|h| title.starts_with(h))
                    || ["scope", "triggers", "trigger phrases"].contains(&title.as_str())
                {
                    open = Some((level, true));
                }
                continue;
            }
            if let Some((_, for_skill)) = open {
                let out = if for_skill { &mut found.when_to_use } else { &mut found.when_not_to_use };
                if out.len() + line.len() < super::MAX_SECTION_BYTES {
                    out.push_str(line);
                    out.push('\n');
                }
            }
        }
        (found, headings)
    }

    /// Reading only the lines that hold a mark (outside a section) finds what reading
    /// every line finds, over bodies made of headings (every section title, letters that
    /// lowercase to ASCII or grow), fences of both marks and lengths (indented, after a
    /// no-break space, with an info string), text with and without marks, a bare `\r`,
    /// `\r\n` endings, a last line without one, and bodies long enough to fill a
    /// section and the headings.
    #[test]
    fn skipping_unmarked_lines_reads_what_every_line_gives() {
        let long = format!("- a long line {}", "of words ".repeat(40));
        #[rustfmt::skip]
        let pieces = [
            "## When to use", "# Out of scope", "### Use when asked", "## Triggers", "## TRIGGERS", "# Usage",
            "#### Notes ##", "#NoSpace", "## ", "```", "````md", "~~~", "  ```bash", "\u{a0}~~~", "``` not closing",
            "plain text", "a `code` span", "C# and F#", "tilde ~ here", "", "- list item", "    indented text",
            "\t```", "#######  seven", "## When NOT to use: ever", "Σ upper", "## Scope", "## **When to apply**",
            "### When to avoid", "## Trigger phrases:", "## Ünderstand", "## \u{212A}elvin", "## \u{130}nfo",
            "## Use this skill when", "carriage\rreturn", "## When to not use", "# Do not use", &long, "````",
            "~~~~~", "   ~~~ ", "\u{b}```", "\u{c}~~~", "\u{85}```", "\u{2028}~~~", "a\r```", "\r ~~~",
        ];
        // Two bodies that fill a section and the headings, then generated ones.
        let full_section = format!("## When to use\n{}# Next\n", format!("{long}\n").repeat(8));
        let many_headings: String = (0..80).map(|i| format!("## H{i}\n")).collect();
        let (mut seed, mut filled) = (0x2545_f491_4f6c_dd1d_u64, (0, 0));
        for round in 0..3_000 {
            let mut body = match round {
                0 => full_section.clone(),
                1 => many_headings.clone(),
                _ => String::new(),
            };
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            // Now and then long enough to fill a section and the headings.
            let lines = if seed % 7 == 0 { 150 + seed % 60 } else { seed % 40 };
            let crlf = seed & (1 << 40) != 0;
            for i in 0..lines {
                let piece = pieces[((seed >> (i % 50)) as usize ^ (i as usize * 7)) % pieces.len()];
                body.push_str(piece);
                body.push_str(if crlf && i % 3 == 0 { "\r\n" } else { "\n" });
            }
            match (seed >> 41) % 3 {
                0 => body.push_str("last line ` without an ending\r"),
                1 => body.push_str("last line, no mark, no ending"),
                _ => {}
            }
            for with_headings in [false, true] {
                let read = super::read_body(&body, with_headings);
                assert_eq!(read, read_every_line(&body, with_headings), "{body:?}");
                filled.0 += usize::from(read.0.when_to_use.len() + long.len() >= super::MAX_SECTION_BYTES);
                filled.1 += usize::from(read.1.len() == super::MAX_HEADINGS);
            }
        }
        assert!(filled.0 > 0 && filled.1 > 0, "sections and headings filled: {filled:?}");
    }

    /// The same lines as `str::lines`, line endings and a last line without one included.
    #[test]
    fn lines_agree_with_str_lines() {
        for text in ["", "a", "a\r", "a\n", "a\r\nb", "a\n\n\nb\r\n", "\n", "\r\n", "a\rb\n", "é\nü\r\n\r\nx"] {
            assert_eq!(super::lines(text).collect::<Vec<_>>(), text.lines().collect::<Vec<_>>(), "{text:?}");
        }
    }
}
