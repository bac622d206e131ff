//! The one module that talks to the YAML parser (`serde_norway`).
//!
//! Frontmatter is read into a small [`Node`] tree whose scalars keep their *source
//! text*: `version: 1.10` stays `"1.10"` and `name: 123` is the string `"123"`, as the
//! standard's reference validator reads them. The parser resolves plain scalars to
//! numbers and booleans, so when a document holds any non-string scalar it is read a
//! second time, following the first read's shape, asking for each scalar as a string.
//!
//! Guards against hostile input, checked before the parser runs: a byte limit (by the
//! caller), and one pre-scan that refuses flow nesting deeper than
//! [`YamlLimits::max_depth`] (the parser's time grows with the square of flow nesting
//! before its own recursion limit stops it) and more alias references (`*name`) than
//! [`YamlLimits::max_aliases`]. Expansion itself is also bounded by the parser
//! ("repetition limit exceeded"), whatever the alias count.
//!
//! Most frontmatter is a mapping of one-line `key: value` entries; [`parse`] reads that
//! kind itself (`simple.rs`, after the same guards) and gives the parser the rest.
//!
//! [`parse_lenient`] repairs the most common real-world mistake: a plain value with a
//! second `: ` in it (`description: Use when: x`), which no YAML parser accepts. The
//! value is quoted and the line reported, so the skill still loads.

use repair::quote_colon_value;
use shape::RawSeed;
mod repair;
mod shape;
mod simple;

use serde::de::DeserializeSeed;
use serde_norway::Value;
use std::fmt;

/// A YAML value with scalars as their source text.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(untagged)]
pub enum Node {
    /// A scalar of any kind (string, number, boolean, null), as written.
    Scalar(Scalar),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, in document order. Keys are the keys' text.
    Map(Vec<(String, Node)>),
}

/// A scalar's text, and whether YAML reads it as null (`~`, `null` or nothing).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(transparent)]
pub struct Scalar {
    /// The scalar's text as written (after YAML unquoting and folding).
    pub text: String,
    /// YAML resolves this scalar to null.
    #[serde(skip)]
    pub null: bool,
}

impl Node {
    /// The node's text when it is a scalar.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Node::Scalar(s) => Some(&s.text),
            _ => None,
        }
    }

    /// True for a null scalar.
    pub fn is_null(&self) -> bool {
        matches!(self, Node::Scalar(Scalar { null: true, .. }))
    }

    /// A compact one-line YAML rendering (flow style), used where a string is needed
    /// for a non-string value, e.g. a nested value under `metadata`.
    pub fn to_flow_text(&self) -> String {
        let mut out = String::new();
        self.write_flow(&mut out);
        out
    }

    fn write_flow(&self, out: &mut String) {
        match self {
            Node::Scalar(s) => out.push_str(&s.text),
            Node::Seq(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.write_flow(out);
                }
                out.push(']');
            }
            Node::Map(entries) => {
                out.push('{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(k);
                    out.push_str(": ");
                    v.write_flow(out);
                }
                out.push('}');
            }
        }
    }
}

/// A YAML error with its place in the YAML text (1-based line and column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    /// What the parser said, without its position suffix.
    pub message: String,
    /// 1-based line within the YAML text.
    pub line: Option<usize>,
    /// 1-based column within the line.
    pub column: Option<usize>,
    /// The input was refused by a limit, not by the grammar.
    pub limit: bool,
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// A successful lenient parse: the tree, and the 1-based YAML lines whose plain
/// values were quoted to make the document parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lenient {
    /// The parsed document.
    pub root: Node,
    /// Lines repaired by quoting a value that contained `: `.
    pub repaired_lines: Vec<usize>,
}

/// The bounds a frontmatter must keep to (from [`Limits`](crate::Limits)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct YamlLimits {
    /// Deepest flow nesting (`[`/`{`).
    pub max_depth: usize,
    /// Most alias references (`*name`).
    pub max_aliases: usize,
    /// How large a document with aliases may read, the aliases expanded: each value's
    /// text and a byte for each value (twice `Limits`'s `max_frontmatter_bytes`: a
    /// frontmatter within that limit written out reads as no more than it).
    pub max_expanded_bytes: usize,
}

impl From<&crate::Limits> for YamlLimits {
    fn from(limits: &crate::Limits) -> Self {
        YamlLimits {
            max_depth: limits.max_yaml_depth,
            max_aliases: limits.max_yaml_aliases,
            max_expanded_bytes: limits.max_frontmatter_bytes.saturating_mul(2),
        }
    }
}

/// Parses `text` strictly: any YAML error is returned.
pub fn parse(text: &str, limits: YamlLimits) -> Result<Node, YamlError> {
    check_bounds(text, limits)?;
    match simple::read(text) {
        Some(node) => Ok(node),
        None => parse_with_parser(text, limits),
    }
}

/// Parses `text` (its structure already checked) with the YAML parser.
fn parse_with_parser(text: &str, limits: YamlLimits) -> Result<Node, YamlError> {
    let (value, wide) = resolved(text)?;
    if !wide && !has_resolved_scalars(&value) {
        return Ok(from_value(&value));
    }
    let mut de = serde_norway::Deserializer::from_str(text);
    let deserializer = match de.next() {
        Some(d) => d,
        None => return Ok(from_value(&value)),
    };
    // The source text of a number is as long as it was written, however small its value
    // (`0x000…1`), which the measure of what aliases expand to (values as read) does not
    // see: the text kept here is bounded the same way.
    let left = std::cell::Cell::new(Some(limits.max_expanded_bytes));
    match (RawSeed { shape: &value, left: &left }).deserialize(deserializer) {
        Ok(node) => Ok(node),
        Err(_) if left.get().is_none() => Err(expanded_past(limits)),
        // The second read follows the first one's shape and should not fail; if an
        // exotic construct (tags on collections) trips it, the resolved values serve.
        Err(_) => Ok(from_value(&value)),
    }
}

/// The error of a document whose aliases expand it past `limits.max_expanded_bytes`.
fn expanded_past(limits: YamlLimits) -> YamlError {
    YamlError {
        message: format!("aliases expand the frontmatter past {} bytes", limits.max_expanded_bytes),
        line: None,
        column: None,
        limit: true,
    }
}

/// Parses `text`, quoting plain values that contain `: ` when that is what stops the
/// parse. Each repair is reported by line; other errors are returned as they are.
pub fn parse_lenient(text: &str, limits: YamlLimits) -> Result<Lenient, YamlError> {
    repairing(text, limits, parse).map(|(root, repaired_lines)| Lenient { root, repaired_lines })
}

/// `text` as JSON, each scalar as YAML resolves it (numbers, booleans, null; a number
/// JSON cannot hold, and a key that is not a string, as its YAML text), repaired as
/// [`parse_lenient`] repairs it. Tags are dropped.
pub fn to_json_lenient(text: &str, limits: YamlLimits) -> Result<serde_json::Value, YamlError> {
    let to_json = |text: &str, limits| {
        check_bounds(text, limits)?;
        Ok(json_of(&resolved(text)?.0))
    };
    repairing(text, limits, to_json).map(|(json, _)| json)
}

/// Most plain values holding `: ` one read repairs: each repair reads the document again,
/// so past a few the reads, not the document, would cost (a frontmatter of 6,400 such
/// lines took 17 s).
const MAX_REPAIRS: usize = 32;

/// Runs `parse` on `text`, and again after each repair of a plain value holding `: ` on
/// the line the error names (at most [`MAX_REPAIRS`]); returns what it read and the
/// repaired lines.
fn repairing<T>(
    text: &str,
    limits: YamlLimits,
    parse: impl Fn(&str, YamlLimits) -> Result<T, YamlError>,
) -> Result<(T, Vec<usize>), YamlError> {
    let mut current = text.to_owned();
    let mut repaired_lines = Vec::new();
    loop {
        match parse(&current, limits) {
            Ok(read) => return Ok((read, repaired_lines)),
            Err(err) => {
                // A limit is not a mistake to repair (quoting `*x` would hide an alias).
                let Some(line) = err.line.filter(|_| !err.limit) else {
                    return Err(err);
                };
                // Each repair quotes one more line, so this loop ends.
                match quote_colon_value(&current, line) {
                    Some((_, key_line))
                        if repaired_lines.len() == MAX_REPAIRS && !repaired_lines.contains(&key_line) =>
                    {
                        let message = format!("more than {MAX_REPAIRS} plain values hold ': '");
                        return Err(YamlError { message, line: Some(key_line), column: None, limit: true });
                    }
                    Some((fixed, key_line)) if !repaired_lines.contains(&key_line) => {
                        repaired_lines.push(key_line);
                        current = fixed;
                    }
                    _ => return Err(parse(text, limits).err().unwrap_or(err)),
                }
            }
        }
    }
}

/// `text` read with every scalar resolved (numbers, booleans, null): as `serde_norway::Value`
/// reads it, or, for a document that refuses only for an integer past 64 bits, with such
/// integers kept as text ([`shape::Wide`]; then `true`, so that the caller reads the source
/// text of every scalar, as it does of numbers).
fn resolved(text: &str) -> Result<(Value, bool), YamlError> {
    match serde_norway::from_str::<Value>(text) {
        Ok(value) => Ok((value, false)),
        Err(e) if e.to_string().contains(" as u128") || e.to_string().contains(" as i128") => {
            let mut de = serde_norway::Deserializer::from_str(text);
            let Some(document) = de.next() else { return Err(convert_error(e)) };
            let value = serde::de::DeserializeSeed::deserialize(shape::Wide, document).map_err(convert_error)?;
            // As `from_str` refuses them.
            if de.next().is_some() {
                let message = "deserializing from YAML containing more than one document is not supported";
                return Err(YamlError { message: message.to_owned(), line: None, column: None, limit: false });
            }
            Ok((value, true))
        }
        Err(e) => Err(convert_error(e)),
    }
}

/// A resolved YAML value as JSON.
fn json_of(value: &Value) -> serde_json::Value {
    use serde_json::Value as Json;
    match value {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Number(n) => {
            let number = if let Some(i) = n.as_i64() {
                Some(serde_json::Number::from(i))
            } else if let Some(u) = n.as_u64() {
                Some(serde_json::Number::from(u))
            } else {
                n.as_f64().and_then(serde_json::Number::from_f64)
            };
            number.map_or_else(|| Json::String(n.to_string()), Json::Number)
        }
        Value::String(s) => Json::String(s.clone()),
        Value::Sequence(items) => Json::Array(items.iter().map(json_of).collect()),
        Value::Mapping(map) => Json::Object(map.iter().map(|(k, v)| (key_text(&from_value(k)), json_of(v))).collect()),
        Value::Tagged(tagged) => json_of(&tagged.value),
    }
}

/// Refuses flow nesting deeper than the limit, and more alias references than the
/// limit, before the parser sees the text. Aliases are counted lexically: a `*` outside
/// quotes and comments, after a line start, a blank or `[{,`, and before a name
/// character. (A `*word` inside a block scalar counts too: the count can only be high.)
fn check_structure(text: &str, limits: YamlLimits) -> Result<(), YamlError> {
    // Only `[`, `{` and `*` count: most frontmatter has none of them.
    if memchr::memchr3(b'[', b'{', b'*', text.as_bytes()).is_none() {
        return Ok(());
    }
    let refuse = |message: String, line: usize, column: usize| {
        Err(YamlError { message, line: Some(line), column: Some(column), limit: true })
    };
    let mut depth = 0usize;
    let mut aliases = 0usize;
    for (index, line_text) in text.split('\n').enumerate() {
        let line = index + 1;
        let (mut single, mut double, mut escaped) = (false, false, false);
        let mut previous = None;
        let mut chars = line_text.chars().enumerate().peekable();
        while let Some((i, c)) = chars.next() {
            let column = i + 1;
            if double {
                match c {
                    '\\' if !escaped => escaped = true,
                    '"' if !escaped => double = false,
                    _ => escaped = false,
                }
            } else if single {
                single = c != '\'';
            } else {
                let after_blank = previous.is_none_or(|p: char| p == ' ' || p == '\t');
                match c {
                    '"' => double = true,
                    '\'' => single = true,
                    '#' if after_blank => break,
                    '[' | '{' => {
                        depth += 1;
                        if depth > limits.max_depth {
                            return refuse(
                                format!("flow nesting deeper than {} levels", limits.max_depth),
                                line,
                                column,
                            );
                        }
                    }
                    ']' | '}' => depth = depth.saturating_sub(1),
                    '*' if (after_blank || previous.is_some_and(|p| matches!(p, '[' | '{' | ',')))
                        && chars.peek().is_some_and(|&(_, n)| n.is_alphanumeric() || n == '_' || n == '-') =>
                    {
                        aliases += 1;
                        if aliases > limits.max_aliases {
                            return refuse(format!("more than {} aliases", limits.max_aliases), line, column);
                        }
                    }
                    _ => {}
                }
            }
            previous = Some(c);
        }
    }
    Ok(())
}

/// [`check_structure`], and for a document with aliases, that they do not expand it past
/// `limits.max_expanded_bytes`: a few aliases of a large anchor, each nesting the one
/// before (`b: &b [*a, *a]`, `c: &c [*b, *b]`, …), read as billions of values or
/// gigabytes of text from a few kilobytes, which the alias count alone does not stop.
/// Measured by reading the document once without keeping anything, up to the bound.
fn check_bounds(text: &str, limits: YamlLimits) -> Result<(), YamlError> {
    check_structure(text, limits)?;
    // Any `*` and `&` may be an alias and its anchor: the count above reads quotes and
    // flow punctuation as a rough scanner does (`[don't, *a]`, `{"k":*a}` hide aliases
    // from it), so the measure does not depend on it.
    let bytes = text.as_bytes();
    if memchr::memchr(b'*', bytes).is_none() || memchr::memchr(b'&', bytes).is_none() {
        return Ok(());
    }
    let mut documents = serde_norway::Deserializer::from_str(text);
    let Some(document) = documents.next() else { return Ok(()) };
    let left = std::cell::Cell::new(Some(limits.max_expanded_bytes));
    // The longest a scalar may be written: what one read as a number, a boolean or null
    // is taken as.
    let typed_bytes = (text.split(|c: char| c.is_whitespace() || matches!(c, ',' | '[' | ']' | '{' | '}')))
        .map(str::len)
        .max()
        .unwrap_or(0);
    match serde::de::DeserializeSeed::deserialize(shape::Counted { left: &left, typed_bytes }, document) {
        // What else fails to read here, the parse that follows reports as it always has.
        Err(_) if left.get().is_none() => Err(expanded_past(limits)),
        Ok(()) | Err(_) => Ok(()),
    }
}

fn convert_error(err: serde_norway::Error) -> YamlError {
    let location = err.location();
    let message = strip_positions(&err.to_string());
    let limit = message.contains("limit exceeded");
    YamlError {
        message,
        line: location.as_ref().map(|l| l.line()),
        column: location.as_ref().map(|l| l.column()),
        limit,
    }
}

/// Removes the parser's ` at line N column M` / ` at position N` fragments: they count
/// lines of the frontmatter alone, and the caller reports the position in the file.
fn strip_positions(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(i) = rest.find(" at ") {
        let (head, tail) = rest.split_at(i);
        out.push_str(head);
        let after = tail.get(4..).unwrap_or("");
        let skip = position_len(after);
        if skip > 0 {
            rest = after.get(skip..).unwrap_or("");
        } else {
            out.push_str(" at ");
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// Length of a leading `line N column M` or `position N`, or 0.
fn position_len(text: &str) -> usize {
    let digits = |t: &str| t.bytes().take_while(u8::is_ascii_digit).count();
    if let Some(t) = text.strip_prefix("line ") {
        let n = digits(t);
        if n > 0 {
            if let Some(c) = t.get(n..).and_then(|r| r.strip_prefix(" column ")) {
                let m = digits(c);
                if m > 0 {
                    return "line ".len() + n + " column ".len() + m;
                }
            }
        }
    } else if let Some(t) = text.strip_prefix("position ") {
        let n = digits(t);
        if n > 0 {
            return "position ".len() + n;
        }
    }
    0
}

/// True when some scalar was resolved to a number, boolean or null.
fn has_resolved_scalars(value: &Value) -> bool {
    match value {
        Value::Null | Value::Bool(_) | Value::Number(_) => true,
        Value::String(_) => false,
        Value::Sequence(items) => items.iter().any(has_resolved_scalars),
        Value::Mapping(map) => map.iter().any(|(k, v)| has_resolved_scalars(k) || has_resolved_scalars(v)),
        Value::Tagged(tagged) => has_resolved_scalars(&tagged.value),
    }
}

/// Converts a resolved value; numbers and booleans get their canonical text.
fn from_value(value: &Value) -> Node {
    match value {
        Value::Null => Node::Scalar(Scalar { text: String::new(), null: true }),
        Value::Bool(b) => scalar(b.to_string()),
        Value::Number(n) => scalar(n.to_string()),
        Value::String(s) => scalar(s.clone()),
        Value::Sequence(items) => Node::Seq(items.iter().map(from_value).collect()),
        Value::Mapping(map) => Node::Map(map.iter().map(|(k, v)| (key_text(&from_value(k)), from_value(v))).collect()),
        Value::Tagged(tagged) => from_value(&tagged.value),
    }
}

fn scalar(text: String) -> Node {
    Node::Scalar(Scalar { text, null: false })
}

fn key_text(node: &Node) -> String {
    match node {
        Node::Scalar(s) => s.text.clone(),
        other => other.to_flow_text(),
    }
}

#[cfg(test)]
mod tests;
