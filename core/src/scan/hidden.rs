//! Text a reader cannot see (tag characters, invisible formatting and control
//! characters, bidirectional controls) and names made of look-alike letters.

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
    let text = out.text;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        // Fastest path: eight bytes of printable ASCII at once (most of a SKILL.md).
        if let Some(chunk) = bytes.get(i..i + 8).and_then(|c| <[u8; 8]>::try_from(c).ok()) {
            if printable_ascii(u64::from_le_bytes(chunk)) {
                i += 8;
                continue;
            }
        }
        let Some(&b) = bytes.get(i) else { break };
        // Fast path: printable ASCII, tabs and newlines, and the lead bytes of
        // characters none of which is invisible (everything but the leads below).
        if (0x20..0x7F).contains(&b) || b == b'\n' || b == b'\t' || b == b'\r' || (0x80..0xC2).contains(&b) {
            i += 1;
            continue;
        }
        if !(b < 0x80 || matches!(b, 0xC2 | 0xCD | 0xE1 | 0xE2 | 0xE3 | 0xEF | 0xF3)) {
            i += 1;
            continue;
        }
        if out.full() {
            return;
        }
        let Some(c) = text.get(i..).and_then(|rest| rest.chars().next()) else {
            i += 1;
            continue;
        };
        let offset = i;
        i += c.len_utf8();
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
            continue;
        }
        if is_bidi_control(c) {
            if out.takes(Category::BidiControl) {
                let message = format!("bidirectional control U+{:04X} reorders how the text displays", u32::from(c));
                out.push(Category::BidiControl, offset, message, visible(line_around(text, offset)));
            }
            continue;
        }
        // A byte-order mark opening the file is ordinary.
        if offset == 0 && c == '\u{FEFF}' {
            continue;
        }
        let before = text.get(..offset).and_then(|s| s.chars().next_back());
        let after = text.get(i..).and_then(|s| s.chars().next());
        if let Some(kind) = invisible_kind(c, before, after).filter(|_| out.takes(Category::HiddenText)) {
            let message = format!("{kind} U+{:04X}", u32::from(c));
            out.push(Category::HiddenText, offset, message, visible(line_around(text, offset)));
        }
    }
}

/// True when all eight bytes of `word` are printable ASCII (0x20 to 0x7E), none of which
/// can be or begin an invisible character. Bit tricks on the whole word: a byte with its
/// high bit set, one below 0x20, or 0x7F makes it false.
fn printable_ascii(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Exact for words without high bits: a byte below `n` borrows into its own high bit.
    let below = |n: u64| word.wrapping_sub(n * ONES) & !word & HIGH;
    let del = word ^ (0x7F * ONES);
    word & HIGH == 0 && below(0x20) == 0 && del.wrapping_sub(ONES) & !del & HIGH == 0
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
    use super::printable_ascii;

    /// The word test agrees with a byte-by-byte one for every byte value at every
    /// position among printable neighbours.
    #[test]
    fn printable_ascii_is_exact() {
        for neighbour in [b' ', b'a', b'~'] {
            for position in 0..8 {
                for byte in 0..=255u8 {
                    let mut chunk = [neighbour; 8];
                    chunk[position] = byte;
                    assert_eq!(printable_ascii(u64::from_le_bytes(chunk)), (0x20..0x7F).contains(&byte), "{chunk:?}");
                }
            }
        }
    }
}
