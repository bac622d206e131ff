//! Splitting a SKILL.md into its YAML frontmatter and its Markdown body.
//!
//! Rules (DESIGN.md, "SKILL.md"):
//! - an optional UTF-8 byte-order mark is skipped;
//! - the frontmatter opens on the first line, which must be exactly `---`;
//! - it closes at the first later line that is exactly `---`; trailing spaces and tabs
//!   are allowed on both delimiter lines;
//! - lines end with `\n`, `\r\n` or a lone `\r`;
//! - `---` inside a value or in the body is not a delimiter (only whole lines count);
//! - the body is everything after the closing line, byte for byte.

/// A SKILL.md split into frontmatter and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document<'a> {
    /// The file began with a UTF-8 byte-order mark (skipped).
    pub has_bom: bool,
    /// The frontmatter's YAML with line endings normalised to `\n`. Its first line is
    /// line 2 of the file.
    pub yaml: String,
    /// The body, byte-exact: everything after the closing `---` line.
    pub body: &'a str,
    /// 1-based line of the file on which the body starts.
    pub body_line: usize,
}

/// Why a SKILL.md has no usable frontmatter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitError {
    /// The first line is not `---`.
    NoFrontmatter,
    /// No line `---` closes the frontmatter.
    Unclosed,
}

impl SplitError {
    /// The standard's reference validator's wording for this error.
    pub fn message(self) -> &'static str {
        match self {
            SplitError::NoFrontmatter => "SKILL.md must start with YAML frontmatter (---)",
            SplitError::Unclosed => "SKILL.md frontmatter not properly closed with ---",
        }
    }

    /// The diagnostic code for this error.
    pub fn code(self) -> &'static str {
        match self {
            SplitError::NoFrontmatter => "no_frontmatter",
            SplitError::Unclosed => "unclosed_frontmatter",
        }
    }
}

/// One line of text: its content (without terminator) and where the next line starts.
struct Line<'a> {
    content: &'a str,
    next: usize,
    terminated: bool,
}

/// The line starting at byte `start` of `text`.
fn line_at(text: &str, start: usize) -> Option<Line<'_>> {
    let rest = text.get(start..)?;
    if rest.is_empty() {
        return None;
    }
    // (`memchr`: a search for either byte, rather than decoding every character.)
    match memchr::memchr2(b'\n', b'\r', rest.as_bytes()) {
        None => Some(Line { content: rest, next: text.len(), terminated: false }),
        Some(i) => {
            let bytes = rest.as_bytes();
            let width = if bytes.get(i) == Some(&b'\r') && bytes.get(i + 1) == Some(&b'\n') { 2 } else { 1 };
            Some(Line { content: rest.get(..i).unwrap_or(""), next: start + i + width, terminated: true })
        }
    }
}

fn is_delimiter(line: &str) -> bool {
    line.trim_end_matches([' ', '\t']) == "---"
}

/// Splits `text` into frontmatter and body.
pub fn split(text: &str) -> Result<Document<'_>, SplitError> {
    let parts = parts(text)?;
    // Every line of the frontmatter is ended (the closing `---` line follows it), and a
    // `\r` that ends the range is no `\r\n` cut in two (the closing line starts after it):
    // the YAML is the range's lines, each ended with `\n` instead of `\r\n` or `\r`, which
    // is the range itself when it holds no `\r` (and never longer than it).
    let frontmatter = text.get(parts.frontmatter).unwrap_or_default();
    let mut yaml = String::with_capacity(frontmatter.len());
    if memchr::memchr(b'\r', frontmatter.as_bytes()).is_none() {
        yaml.push_str(frontmatter);
    } else {
        let mut pos = 0;
        while let Some(line) = line_at(frontmatter, pos) {
            yaml.push_str(line.content);
            yaml.push('\n');
            pos = line.next;
        }
    }
    Ok(Document {
        has_bom: parts.has_bom,
        yaml,
        body: text.get(parts.body..).unwrap_or(""),
        body_line: parts.body_line,
    })
}

/// Where a SKILL.md's parts are: whether a byte-order mark opens it, the frontmatter's
/// lines (between the `---` lines, with their endings), and where the body starts (its
/// byte and its 1-based line).
struct Parts {
    has_bom: bool,
    frontmatter: std::ops::Range<usize>,
    body: usize,
    body_line: usize,
}

/// Finds a SKILL.md's [`Parts`], copying nothing.
fn parts(text: &str) -> Result<Parts, SplitError> {
    let (has_bom, start) = match text.strip_prefix('\u{feff}') {
        Some(_) => (true, '\u{feff}'.len_utf8()),
        None => (false, 0),
    };
    let first = line_at(text, start).ok_or(SplitError::NoFrontmatter)?;
    if !is_delimiter(first.content) {
        return Err(SplitError::NoFrontmatter);
    }
    if !first.terminated {
        return Err(SplitError::Unclosed);
    }
    let mut pos = first.next;
    let mut line_no = 2;
    while let Some(line) = line_at(text, pos) {
        if is_delimiter(line.content) {
            return Ok(Parts { has_bom, frontmatter: first.next..pos, body: line.next, body_line: line_no + 1 });
        }
        pos = line.next;
        line_no += 1;
    }
    Err(SplitError::Unclosed)
}

/// The body of a SKILL.md, without parsing its YAML (used when rendering, where the
/// frontmatter was already read when the catalogue was built).
pub fn body(text: &str) -> Result<&str, SplitError> {
    parts(text).map(|parts| text.get(parts.body..).unwrap_or(""))
}

/// A SKILL.md cut where its body starts: the frontmatter with its `---` lines, and the body
/// (the whole text and no body when it does not split).
pub(crate) fn head_and_body(text: &str) -> (&str, &str) {
    let body = body(text).unwrap_or_default();
    (text.get(..text.len() - body.len()).unwrap_or(text), body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lf_crlf_and_lone_cr_split_the_same() {
        for text in ["---\nname: a\n---\nBody\n", "---\r\nname: a\r\n---\r\nBody\n", "---\rname: a\r---\rBody\n"] {
            let doc = split(text).unwrap();
            assert_eq!(doc.yaml, "name: a\n");
            assert_eq!(doc.body, "Body\n");
            assert_eq!(doc.body_line, 4);
        }
    }

    /// The frontmatter read a line at a time, each line ended with `\n`: what
    /// [`split`] copies at once when no line ends with a `\r`.
    fn read_a_line_at_a_time(text: &str) -> Result<(String, &str, usize), SplitError> {
        let start = if text.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
        let first = line_at(text, start).filter(|l| is_delimiter(l.content)).ok_or(SplitError::NoFrontmatter)?;
        let (mut yaml, mut pos, mut line_no) = (String::new(), first.next, 2);
        while let Some(line) = line_at(text, pos).filter(|_| first.terminated) {
            if is_delimiter(line.content) {
                return Ok((yaml, &text[line.next..], line_no + 1));
            }
            yaml.push_str(line.content);
            yaml.push('\n');
            (pos, line_no) = (line.next, line_no + 1);
        }
        Err(SplitError::Unclosed)
    }

    /// Over frontmatters with every kind of line ending, mixed, a byte-order mark or
    /// none, closed or not: the same YAML, body and body line as reading a line at a
    /// time, and [`body`] the body `split` finds.
    #[test]
    fn the_frontmatter_is_its_lines_whatever_ends_them() {
        let lines = ["---", "--- \t", "name: a", "description: |", "  x", "", "  ---", "é: ü"];
        let endings = ["\n", "\r\n", "\r"];
        let mut next = crate::testing::numbers(7);
        let (mut split_ok, mut with_cr) = (0, 0);
        for _ in 0..2_000 {
            let mut text = if next(4) == 0 { "\u{feff}".to_owned() } else { String::new() };
            for i in 0..next(9) {
                let line = if i == 0 && next(5) > 0 { "---" } else { lines[next(lines.len())] };
                text.push_str(line);
                if next(8) > 0 {
                    text.push_str(endings[next(endings.len())]);
                }
            }
            text.push_str("Body\r\n");
            let got = split(&text).map(|doc| (doc.yaml, doc.body, doc.body_line));
            assert_eq!(got, read_a_line_at_a_time(&text), "{text:?}");
            assert_eq!(body(&text), got.as_ref().map(|doc| doc.1).map_err(|&e| e), "{text:?}");
            if let Ok(parts) = parts(&text) {
                split_ok += 1;
                with_cr += usize::from(text[parts.frontmatter].contains('\r'));
            }
        }
        assert!(split_ok > 200 && with_cr > 50, "{split_ok} split, {with_cr} with a carriage return");
    }

    #[test]
    fn bom_is_skipped_and_reported() {
        let doc = split("\u{feff}---\nname: a\n---\nB").unwrap();
        assert!(doc.has_bom);
        assert_eq!(doc.body, "B");
    }

    #[test]
    fn dashes_inside_values_and_body_are_not_delimiters() {
        let doc = split("---\ndescription: a --- b\n---\nBody\n---\nmore\n").unwrap();
        assert_eq!(doc.yaml, "description: a --- b\n");
        assert_eq!(doc.body, "Body\n---\nmore\n");
    }

    #[test]
    fn trailing_spaces_allowed_on_delimiters_but_not_text() {
        assert!(split("---  \nname: a\n--- \t\nB").is_ok());
        assert_eq!(split("---\nname: a\n--- trailing\nB\n"), Err(SplitError::Unclosed));
        assert_eq!(split("----\nname: a\n---\n"), Err(SplitError::NoFrontmatter));
        assert_eq!(split("---name: a\n---\n"), Err(SplitError::NoFrontmatter));
    }

    #[test]
    fn missing_and_unclosed() {
        assert_eq!(split(""), Err(SplitError::NoFrontmatter));
        assert_eq!(split("\n---\nname: a\n---\n"), Err(SplitError::NoFrontmatter));
        assert_eq!(split("# title"), Err(SplitError::NoFrontmatter));
        assert_eq!(split("---"), Err(SplitError::Unclosed));
        assert_eq!(split("---\nname: a\n"), Err(SplitError::Unclosed));
    }

    #[test]
    fn closing_line_without_newline_gives_empty_body() {
        let doc = split("---\n---").unwrap();
        assert_eq!(doc.yaml, "");
        assert_eq!(doc.body, "");
    }
}
