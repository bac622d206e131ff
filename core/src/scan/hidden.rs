//! Text a reader cannot see (tag characters, invisible formatting and control
//! characters, bidirectional controls) and names made of look-alike letters.

use super::blocks::{mask, Lanes, Passing, BLOCK};
use super::{visible, Category, Findings, MAX_EXCERPT_CHARS};
use crate::text::{self, excerpt};

pub(super) fn is_tag(c: char) -> bool {
    ('\u{E0000}'..='\u{E007F}').contains(&c)
}

pub(super) fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// True when a reader cannot see `c` in a short text such as a name or an id (tabs and
/// line breaks included, joiners wherever they stand): a character the scan reports as
/// hidden text or as a bidirectional control.
pub(crate) fn unseen_in_text(c: char) -> bool {
    let joiner = matches!(c, '\u{200C}' | '\u{200D}');
    joiner || c.is_control() || is_tag(c) || is_bidi_control(c) || invisible_kind(c, None, None).is_some()
}

/// Why `c` is invisible, given its neighbours, or `None` when it is ordinary text.
pub(super) fn invisible_kind(c: char, before: Option<char>, after: Option<char>) -> Option<&'static str> {
    match c {
        '\t' | '\n' | '\r' => None,
        '\0'..='\u{1F}' | '\u{7F}'..='\u{9F}' => Some("control character"),
        '\u{200B}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}' | '\u{180E}' | '\u{034F}' | '\u{00AD}' => {
            Some("zero-width character")
        }
        '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}' => Some("blank filler character"),
        '\u{E0100}'..='\u{E01EF}' => Some("variation selector (can carry hidden data)"),
        '\u{200C}' | '\u{200D}' => {
            let ascii = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
            (ascii(before) && ascii(after)).then_some("zero-width joiner inside a word")
        }
        _ => None,
    }
}

/// Tag-character runs, other invisible characters and bidi controls, one finding per run.
pub(super) fn invisible_characters(out: &mut Findings<'_>) {
    let bytes = out.text.as_bytes();
    // Where the last character looked at ends (a run of tag characters reads past the
    // places after its first).
    let mut read_to = 0;
    let mut block_start = 0;
    while let Some(block) = bytes.get(block_start..).filter(|rest| !rest.is_empty()) {
        // The bytes of the next 64 that may begin a character to look at (most of a
        // SKILL.md has none), each taken from the block's bits in turn.
        let mut places = mask(block, may_begin_invisible);
        while places != 0 {
            let offset = block_start + places.trailing_zeros() as usize;
            places &= places - 1;
            if offset < read_to {
                continue;
            }
            if out.full() {
                return;
            }
            read_to = look_at(out, offset);
        }
        block_start += block.len().min(BLOCK);
    }
}

/// The character at `offset` (whose first byte [`may_begin_invisible`] picked), reported
/// if it is a finding; where the text goes on after it (after a whole run of tags).
fn look_at(out: &mut Findings<'_>, offset: usize) -> usize {
    let text = out.text;
    let Some(c) = text.get(offset..).and_then(|rest| rest.chars().next()) else {
        return offset + 1;
    };
    let mut i = offset + c.len_utf8();
    if is_tag(c) {
        let mut decoded = String::new();
        push_tag(&mut decoded, c);
        while let Some(next) = text.get(i..).and_then(|rest| rest.chars().next()).filter(|&n| is_tag(n)) {
            push_tag(&mut decoded, next);
            i += next.len_utf8();
        }
        let message = if decoded.trim().is_empty() {
            "Unicode tag characters (invisible)".to_owned()
        } else {
            format!("invisible Unicode tag characters spelling \"{}\"", excerpt(&decoded, MAX_EXCERPT_CHARS))
        };
        out.push(Category::HiddenText, offset, message, visible(text.get(offset..i).unwrap_or_default()));
        return i;
    }
    if is_bidi_control(c) {
        if out.takes(Category::BidiControl) {
            let message = format!("bidirectional control U+{:04X} reorders how the text displays", u32::from(c));
            out.push(Category::BidiControl, offset, message, visible(line_around(text, offset)));
        }
        return i;
    }
    // A byte-order mark opening the file is ordinary.
    if offset == 0 && c == '\u{FEFF}' {
        return i;
    }
    let before = text.get(..offset).and_then(|s| s.chars().next_back());
    let after = text.get(i..).and_then(|s| s.chars().next());
    if let Some(kind) = invisible_kind(c, before, after).filter(|_| out.takes(Category::HiddenText)) {
        let message = format!("{kind} U+{:04X}", u32::from(c));
        out.push(Category::HiddenText, offset, message, visible(line_around(text, offset)));
    }
    i
}

/// The bytes of `e` that may begin a character this pass looks at: a control character
/// but a tab or a line break, DEL, or the lead byte of the ranges that hold the
/// invisible, bidirectional and tag characters (U+0080–U+00BF, U+0340–U+037F,
/// U+1000–U+3FFF, U+F000–U+FFFF, U+C0000–U+FFFFF); every other byte is passed over.
fn may_begin_invisible(e: Lanes) -> Passing {
    let line_breaks_and_tabs = e.ascii(b'\t', b'\n') | e.ascii(b'\r', b'\r');
    let ascii = (e.ascii(0, 0x1F) & !line_breaks_and_tabs) | e.ascii(0x7F, 0x7F);
    if e.all_ascii() {
        return ascii;
    }
    ascii
        | e.non_ascii(0x42, 0x42)
        | e.non_ascii(0x4D, 0x4D)
        | e.non_ascii(0x61, 0x63)
        | e.non_ascii(0x6F, 0x6F)
        | e.non_ascii(0x73, 0x73)
}

fn push_tag(decoded: &mut String, c: char) {
    if let Some(ascii) = char::from_u32(u32::from(c) - 0xE0000).filter(|a| a.is_ascii_graphic() || *a == ' ') {
        decoded.push(ascii);
    }
}

/// The line holding byte `offset`, for an excerpt.
pub(super) fn line_around(text: &str, offset: usize) -> &str {
    // At most `AROUND` bytes each side: a finding's cost does not grow with its line (one
    // line of a million findings would otherwise cost a million lines).
    let from = floor_boundary(text, offset.saturating_sub(AROUND));
    let to = floor_boundary(text, offset.saturating_add(AROUND).min(text.len()));
    let bytes = text.as_bytes();
    let start = memchr::memrchr(b'\n', bytes.get(from..offset).unwrap_or_default()).map_or(from, |i| from + i + 1);
    let end = memchr::memchr(b'\n', bytes.get(offset..to).unwrap_or_default()).map_or(to, |i| offset + i);
    text.get(start..end).unwrap_or_default().trim_end_matches('\r')
}

/// Bytes of a finding's line read on each side of it for its excerpt.
const AROUND: usize = 1024;

/// The largest character boundary of `text` at or before `at`.
fn floor_boundary(text: &str, mut at: usize) -> usize {
    while at > 0 && !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

// ---------------------------------------------------------------- homoglyph names

/// The Latin letter a look-alike stands for, after NFKC (which already maps
/// full-width and mathematical letters to ASCII).
fn latin_lookalike(c: char) -> Option<char> {
    Some(match c {
        // Cyrillic
        'а' => 'a',
        'с' => 'c',
        'ԁ' => 'd',
        'е' => 'e',
        'һ' => 'h',
        'і' => 'i',
        'ј' => 'j',
        'к' => 'k',
        'ӏ' => 'l',
        'м' => 'm',
        'п' => 'n',
        'о' => 'o',
        'р' => 'p',
        'ԛ' => 'q',
        'г' => 'r',
        'ѕ' => 's',
        'т' => 't',
        'у' => 'y',
        'ѵ' => 'v',
        'ԝ' => 'w',
        'х' => 'x',
        // Greek
        'α' => 'a',
        'ε' => 'e',
        'η' => 'n',
        'ι' => 'i',
        'κ' => 'k',
        'ν' => 'v',
        'ο' => 'o',
        'ρ' => 'p',
        'τ' => 't',
        'υ' => 'u',
        'χ' => 'x',
        'γ' => 'y',
        // Armenian and Latin extensions
        'օ' => 'o',
        'ս' => 'u',
        'հ' => 'h',
        'ո' => 'n',
        'ı' => 'i',
        'ɩ' => 'i',
        'ɡ' => 'g',
        'ʋ' => 'v',
        _ => return None,
    })
}

pub(super) fn homoglyph_name(out: &mut Findings<'_>, name: &str) {
    if name.is_ascii() {
        return;
    }
    let Some(normalised) = text::nfkc(name) else {
        // A build without a normaliser cannot tell look-alikes after NFKC: it fails
        // closed, with the finding the policy sets for look-alike names.
        let message = format!("name \"{name}\" could not be normalised to compare it with ASCII (this build has no Unicode normalisation)");
        out.push(Category::HomoglyphName, name_offset(out.text, name), message, excerpt(name, MAX_EXCERPT_CHARS));
        return;
    };
    let lookalikes: Vec<char> = normalised.chars().filter(|&c| latin_lookalike(c).is_some()).collect();
    if lookalikes.is_empty() {
        return;
    }
    let has_latin = normalised.chars().any(|c| c.is_ascii_alphabetic());
    let skeleton: String = normalised.chars().map(|c| latin_lookalike(c).unwrap_or(c)).collect();
    let message = if has_latin {
        format!("name \"{name}\" mixes Latin letters with look-alikes from other scripts; it reads as \"{skeleton}\"")
    } else if skeleton.is_ascii() {
        format!("name \"{name}\" is written in look-alike letters; it reads as \"{skeleton}\"")
    } else {
        return;
    };
    let offset = name_offset(out.text, name);
    let spelled: String =
        name.chars().map(|c| if c.is_ascii() { c.to_string() } else { format!("<U+{:04X}>", u32::from(c)) }).collect();
    let excerpt = excerpt(&spelled, MAX_EXCERPT_CHARS);
    out.push(Category::HomoglyphName, offset, message, excerpt);
}

/// Where the frontmatter writes `name` (the `name:` line), or 0.
fn name_offset(text: &str, name: &str) -> usize {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.starts_with("name:") {
            return offset + line.find(name).unwrap_or(0);
        }
        offset += line.len();
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`may_begin_invisible`] for one byte.
    fn may_begin_invisible_byte(b: u8) -> bool {
        mask(&[b], may_begin_invisible) != 0
    }

    /// Every character the pass reports begins with a byte it stops at: each character
    /// that is invisible, a bidirectional control or a tag, at each byte value of its
    /// first byte's range.
    #[test]
    fn stops_at_the_first_byte_of_every_character_it_reports() {
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            let reported = is_tag(c) || is_bidi_control(c) || invisible_kind(c, Some('a'), Some('a')).is_some();
            let mut buffer = [0u8; 4];
            let first = c.encode_utf8(&mut buffer).as_bytes()[0];
            if reported {
                assert!(may_begin_invisible_byte(first), "U+{:04X}", u32::from(c));
            }
        }
        // Text, tabs and line breaks, and the lead bytes of other scripts are passed over.
        for b in [b'a', b' ', b'~', b'\n', b'\t', b'\r', 0xC3, 0xE4, 0xF0, 0x80] {
            assert!(!may_begin_invisible_byte(b), "{b:#x}");
        }
        assert!(may_begin_invisible_byte(0) && may_begin_invisible_byte(0x1B) && may_begin_invisible_byte(0x7F));
    }

    /// What the pass finds, against looking at every character in turn: texts dense in
    /// characters it stops at without a finding (kana, dashes), with findings on either
    /// side of a block's edge and runs of tags across one.
    #[test]
    fn finds_what_looking_at_every_character_finds() {
        let pieces = [
            "a",
            "Word ",
            "\n",
            "\t",
            "ア",
            "—",
            "é",
            "\u{200B}",
            "\u{200D}",
            "\u{202E}",
            "\u{E0041}\u{E0042}",
            "\u{FEFF}",
            "\u{1B}",
            "\u{7F}",
            "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstu",
        ];
        let mut next = crate::testing::numbers(7);
        let policy = super::super::ScanPolicy::uniform(super::super::Action::Warn);
        for _ in 0..2_000 {
            let count = next(40);
            let text: String = (0..count).map(|_| pieces[next(pieces.len())]).collect();
            let findings = |every_character: bool| {
                let mut out = Findings {
                    text: &text,
                    lines: super::super::LineCounter::default(),
                    policy: &policy,
                    list: Vec::new(),
                    blocks: false,
                };
                if every_character {
                    let mut read_to = 0;
                    for (offset, _) in text.char_indices() {
                        if offset >= read_to && !out.full() {
                            read_to = look_at(&mut out, offset);
                        }
                    }
                } else {
                    invisible_characters(&mut out);
                }
                out.list.iter().map(|f| (f.line, f.column, f.message.clone())).collect::<Vec<_>>()
            };
            assert_eq!(findings(false), findings(true), "{text:?}");
        }
    }
}
