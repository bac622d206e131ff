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
            let title = line.get(level..).unwrap_or_default().trim().trim_matches(['#', '*', ':', ' ']).to_lowercase();
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
            if against.iter().any(|h| title.starts_with(h)) {
                open = Some((level, false));
            } else if for_it.iter().any(|h| title.starts_with(h)) || for_it_exactly.contains(&title.as_str()) {
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

/// Fenced code blocks (```` ``` ```` or `~~~`, closed by the same marker), followed line
/// by line: [`Fences::update`] takes each line in order and says whether it opens or closes
/// a block; [`Fences::inside`] whether the lines after it are code.
#[derive(Debug, Default)]
pub(crate) struct Fences(Option<&'static str>);

impl Fences {
    /// Takes the next line; true when it is a fence line.
    pub(crate) fn update(&mut self, line: &str) -> bool {
        let trimmed = line.trim_start();
        let Some(marker) = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m)) else { return false };
        self.0 = match self.0 {
            None => Some(marker),
            Some(open) if open == marker => None,
            open => open,
        };
        true
    }

    /// True inside a fenced block.
    pub(crate) fn inside(&self) -> bool {
        self.0.is_some()
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
    /// The same lines as `str::lines`, line endings and a last line without one included.
    #[test]
    fn lines_agree_with_str_lines() {
        for text in ["", "a", "a\r", "a\n", "a\r\nb", "a\n\n\nb\r\n", "\n", "\r\n", "a\rb\n", "é\nü\r\n\r\nx"] {
            assert_eq!(super::lines(text).collect::<Vec<_>>(), text.lines().collect::<Vec<_>>(), "{text:?}");
        }
    }
}
