//! A fast reading of the frontmatter most skills have, before the YAML parser.
//!
//! Nearly every SKILL.md frontmatter in `../shared` (495 of 497) is a mapping of `key:
//! value` lines, some values double-quoted, some keys (`metadata:`) opening an indented
//! mapping of the same kind, some holding a list (`allowed-tools:` with `- Bash` lines
//! below it, `tags: [a, b]`) or a boolean (`disable-model-invocation: true`). For those,
//! the YAML parser (libyaml's scanner, then serde's tree and, when a value looks like a
//! number, a second read) was about a quarter of a catalogue build, and a document it
//! reads costs about 85,000 instructions against about 5,000 here. [`read`] reads exactly
//! that subset, and block scalars (`|`, `>`, `|-`, `>-`) whose lines are indented alike
//! with no empty line between them, and returns `None` for anything else — a comment, a
//! mapping in a list, a nested list, a flow list over several lines, another block scalar,
//! a plain value that wraps, an escape, an anchor, a tag, a tab, a carriage return, a
//! duplicate key, a null spelled out, an integer too large for 64 bits (which the parser
//! reads with a reader of its own: `shape::Wide`), a character YAML treats specially — so the parser reads every document this
//! does not.
//! What it accepts, it reads to the very tree the parser gives (the tests compare both over
//! every SKILL.md in `../shared` and over generated documents built from YAML's hard cases).

use super::{Node, Scalar};

/// Mappings nested deeper than this are left to the parser (which has its own bound).
const MAX_DEPTH: usize = 8;

/// Keys longer than this are left to the parser: far more than a field name needs, and
/// far below the 1,024 characters past which libyaml refuses a key.
const MAX_KEY: usize = 128;

/// Mappings with more entries than this are left to the parser, so that looking for a
/// duplicate key (a scan of the entries so far) stays short.
const MAX_ENTRIES: usize = 64;

/// One mapping being read: its indentation and its entries so far; `key` is where it
/// goes in the mapping that holds it (none for the document's own mapping).
struct Open {
    indent: usize,
    key: Option<String>,
    entries: Vec<(String, Node)>,
}

/// Reads `text` when it is a block mapping of simple scalars, lists of them and nested
/// mappings of the same kind; `None` when it holds anything else.
pub(super) fn read(text: &str) -> Option<Node> {
    let mut open: Vec<Open> = Vec::new();
    // A key whose value is on the lines below it (a nested mapping or a block list) or
    // nowhere (null).
    let mut waiting: Option<String> = None;
    let mut lines = text.split('\n').peekable();
    while let Some(line) = lines.next() {
        let rest = line.trim_start_matches(' ');
        if rest.is_empty() {
            continue;
        }
        let indent = line.len() - rest.len();
        if rest.starts_with('-') {
            // A block sequence: the value of the key waiting for one, its items at this
            // indentation (as deep as the key, or deeper).
            let key = waiting.take()?;
            let top = open.last_mut()?;
            if indent < top.indent {
                return None;
            }
            let items = sequence_items(indent, rest, &mut lines)?;
            top.entries.push((key, Node::Seq(items)));
            continue;
        }
        let (key, value) = key_and_value(rest)?;
        match open.last() {
            None => open.push(Open { indent, key: None, entries: Vec::new() }),
            Some(top) if indent > top.indent => {
                // Deeper lines open a mapping only under a key that has no value.
                let key = waiting.take()?;
                if open.len() >= MAX_DEPTH {
                    return None;
                }
                open.push(Open { indent, key: Some(key), entries: Vec::new() });
            }
            Some(_) => {
                settle_null(&mut open, &mut waiting)?;
                while open.last().is_some_and(|top| indent < top.indent) {
                    close(&mut open)?;
                }
                // A line between two levels belongs to neither.
                if open.last().is_none_or(|top| top.indent != indent) {
                    return None;
                }
            }
        }
        let top = open.last_mut()?;
        if top.entries.len() >= MAX_ENTRIES || top.entries.iter().any(|(k, _)| k == key) {
            return None;
        }
        let text = match (value, BlockStyle::of(value)) {
            ("", _) => {
                waiting = Some(key.to_owned());
                continue;
            }
            (_, Some(style)) => block_text(style, indent, &mut lines)?,
            (value, None) if value.starts_with('[') => {
                top.entries.push((key.to_owned(), Node::Seq(flow_items(value)?)));
                continue;
            }
            (value, None) => value_text(value)?,
        };
        top.entries.push((key.to_owned(), string(text)));
    }
    settle_null(&mut open, &mut waiting)?;
    while open.len() > 1 {
        close(&mut open)?;
    }
    let root = open.pop()?;
    Some(Node::Map(root.entries))
}

/// A scalar that is not null, with its text.
fn string(text: String) -> Node {
    Node::Scalar(Scalar { text, null: false })
}

/// A key left waiting with no deeper line after it is null.
fn settle_null(open: &mut [Open], waiting: &mut Option<String>) -> Option<()> {
    if let Some(key) = waiting.take() {
        open.last_mut()?.entries.push((key, Node::Scalar(Scalar { text: String::new(), null: true })));
    }
    Some(())
}

/// Closes the innermost mapping into the one that holds it.
fn close(open: &mut Vec<Open>) -> Option<()> {
    let done = open.pop()?;
    let key = done.key?;
    open.last_mut()?.entries.push((key, Node::Map(done.entries)));
    Some(())
}

/// A block scalar's header: `|` keeps the line breaks, `>` folds them into spaces; `-`
/// drops the last one (strip), else one is kept (clip). Other headers (an indentation
/// digit, `+`, a comment) are left to the parser.
#[derive(Debug, Clone, Copy)]
struct BlockStyle {
    literal: bool,
    strip: bool,
}

impl BlockStyle {
    fn of(value: &str) -> Option<BlockStyle> {
        let (literal, strip) = match value {
            "|" => (true, false),
            "|-" => (true, true),
            ">" => (false, false),
            ">-" => (false, true),
            _ => return None,
        };
        Some(BlockStyle { literal, strip })
    }
}

/// The text of a block scalar whose key is indented `indent`, from the lines after its
/// header: lines all indented alike and deeper than the key, with no empty line between
/// them, no tab and nothing but printable characters (anything else is the parser's); its
/// lines end at the first line indented no deeper than the key.
fn block_text<'a>(
    style: BlockStyle,
    indent: usize,
    lines: &mut std::iter::Peekable<impl Iterator<Item = &'a str>>,
) -> Option<String> {
    let mut text = String::new();
    let mut block_indent = None;
    let mut empty_after = false;
    // Whether the last line read ended with a line break (the text's last line may not).
    let mut broken = false;
    while let Some(&line) = lines.peek() {
        let rest = line.trim_start_matches(' ');
        if line.is_empty() {
            empty_after = true;
            lines.next();
            continue;
        }
        let line_indent = line.len() - rest.len();
        if line_indent <= indent && !rest.is_empty() {
            break;
        }
        // A line of spaces, an empty line within the block, another indentation.
        if rest.is_empty() || empty_after || *block_indent.get_or_insert(line_indent) != line_indent {
            return None;
        }
        if rest.contains('\t') || !rest.chars().all(printable) {
            return None;
        }
        if !text.is_empty() {
            text.push(if style.literal { '\n' } else { ' ' });
        }
        text.push_str(rest);
        lines.next();
        broken = lines.peek().is_some();
    }
    // (An empty block keeps what the parser makes of it.)
    block_indent?;
    if broken && !style.strip {
        text.push('\n');
    }
    Some(text)
}

/// The items of a block sequence whose first item, `first` (`- value`), is indented
/// `indent`: each a `- value` line at that indentation with a one-line value
/// ([`value_text`]); it ends at the first line indented less, or as much but not an item.
/// An empty item, a deeper line (a nested collection, a value that wraps) or a comment is
/// the parser's.
fn sequence_items<'a>(
    indent: usize,
    first: &str,
    lines: &mut std::iter::Peekable<impl Iterator<Item = &'a str>>,
) -> Option<Vec<Node>> {
    let item = |rest: &str| Some(string(value_text(rest.strip_prefix("- ")?.trim_matches(' '))?));
    let mut items = vec![item(first)?];
    while let Some(&line) = lines.peek() {
        let rest = line.trim_start_matches(' ');
        if rest.is_empty() {
            lines.next();
            continue;
        }
        let line_indent = line.len() - rest.len();
        if line_indent < indent || (line_indent == indent && !rest.starts_with('-')) {
            break;
        }
        if line_indent > indent || items.len() >= MAX_ENTRIES {
            return None;
        }
        items.push(item(rest)?);
        lines.next();
    }
    Some(items)
}

/// The items of a flow sequence on one line, `[a, "b c"]`: each plain (no character that
/// means something in a flow or a quote: `,` `[` `]` `{` `}` `:` `#` `"`, nor one
/// [`value_text`] leaves to the parser) or double-quoted without escapes; `[]` has none. A
/// nested collection, an empty item, a trailing comma or anything after the `]` is the
/// parser's.
fn flow_items(value: &str) -> Option<Vec<Node>> {
    let inner = value.strip_prefix('[')?.strip_suffix(']')?;
    let mut items = Vec::new();
    if inner.trim_matches(' ').is_empty() {
        return Some(items);
    }
    let mut rest = inner;
    loop {
        if items.len() >= MAX_ENTRIES {
            return None;
        }
        let trimmed = rest.trim_start_matches(' ');
        let (text, after) = match trimmed.strip_prefix('"') {
            Some(quoted) => {
                let end = quoted.find('"')?;
                let after = quoted.get(end + 1..)?.trim_start_matches(' ');
                (value_text(trimmed.get(..end + 2)?)?, after)
            }
            None => {
                let end = trimmed.find(',').unwrap_or(trimmed.len());
                let (plain, after) = trimmed.split_at(end);
                let plain = plain.trim_end_matches(' ');
                if plain.contains(['[', ']', '{', '}', ':', '#', '"']) {
                    return None;
                }
                (value_text(plain)?, after)
            }
        };
        items.push(string(text));
        match after.strip_prefix(',') {
            None if after.is_empty() => return Some(items),
            None => return None,
            Some(next) => rest = next,
        }
    }
}

/// Splits `key: value` (or `key:`) into the key and the value without its surrounding
/// spaces. Keys are a letter or `_`, then letters, digits, `_`, `-` and `.`, and not a
/// word YAML reads as something other than a string.
fn key_and_value(line: &str) -> Option<(&str, &str)> {
    let key_len = line.bytes().position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')))?;
    let (key, rest) = line.split_at(key_len);
    let first = *key.as_bytes().first()?;
    if !(first.is_ascii_alphabetic() || first == b'_') || key.len() > MAX_KEY || null_or_boolean(key) {
        return None;
    }
    let rest = rest.strip_prefix(':')?;
    if !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    Some((key, rest.trim_matches(' ')))
}

/// Words the YAML core schema may read as null or a boolean (in any case, to be sure):
/// left to the parser, which knows which are null (a key or value that is one is rare).
fn null_or_boolean(word: &str) -> bool {
    null(word) || ["true", "false"].iter().any(|w| word.eq_ignore_ascii_case(w))
}

/// Words the YAML core schema may read as null (in any case, to be sure): left to the
/// parser, which knows which are (a value that is one is rare). A boolean is read as
/// written, as the parser's second reading gives it.
fn null(word: &str) -> bool {
    word.eq_ignore_ascii_case("null") || word == "~"
}

/// A value's text: double-quoted without escapes, or plain on one line.
fn value_text(value: &str) -> Option<String> {
    if let Some(quoted) = value.strip_prefix('"') {
        let inner = quoted.strip_suffix('"')?;
        return (!inner.contains(['"', '\\']) && all_printable(inner)).then(|| inner.to_owned());
    }
    let first = value.chars().next()?;
    let indicator = matches!(
        first,
        '-' | '?'
            | ':'
            | ','
            | '['
            | ']'
            | '{'
            | '}'
            | '#'
            | '&'
            | '*'
            | '!'
            | '|'
            | '>'
            | '\''
            | '"'
            | '%'
            | '@'
            | '`'
    );
    if indicator
        || value.ends_with(':')
        || holds_mapping_or_comment(value)
        || null(value)
        || may_overflow_an_integer(value)
        || !all_printable(value)
    {
        return None;
    }
    Some(value.to_owned())
}

/// Whether a plain `value` holds `": "` (a mapping) or `" #"` (a comment): one pass over
/// its colons and hashes (two `str::contains` were two).
fn holds_mapping_or_comment(value: &str) -> bool {
    let bytes = value.as_bytes();
    memchr::memchr2_iter(b':', b'#', bytes).any(|at| match bytes.get(at) {
        Some(b':') => bytes.get(at + 1) == Some(&b' '),
        _ => at.checked_sub(1).and_then(|before| bytes.get(before)) == Some(&b' '),
    })
}

/// Whether every character of `text` is [`printable`]. An ASCII text (most values) is
/// checked a byte at a time without an early exit, which compilers turn into wide
/// compares; other text a character at a time.
fn all_printable(text: &str) -> bool {
    if text.is_ascii() {
        return text.bytes().fold(true, |all, b| all & (b' '..=b'~').contains(&b));
    }
    text.chars().all(printable)
}

/// A value the parser may read as an integer past 64 bits (left to it: see `shape::Wide`): a word
/// that starts with a digit (after a `+`), made of letters, digits and `_` (decimal,
/// `0x`, `0o`, `0b`), 19 characters or more. Anything shorter fits: 10¹⁹ − 1 < 2⁶⁴.
fn may_overflow_an_integer(value: &str) -> bool {
    let digits = value.strip_prefix('+').unwrap_or(value);
    digits.len() >= 19
        && digits.as_bytes().first().is_some_and(u8::is_ascii_digit)
        && digits.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Characters that stand for themselves in a one-line scalar: printable ASCII, and
/// anything from U+00A0 up but line and paragraph separators, the byte-order mark and
/// the two noncharacters YAML refuses.
fn printable(c: char) -> bool {
    matches!(c, ' '..='~')
        || (c >= '\u{A0}' && !matches!(c, '\u{2028}' | '\u{2029}' | '\u{FEFF}' | '\u{FFFE}' | '\u{FFFF}'))
}
