//! The turn vectors' file form: TOML written for a reviewer (rust-lang/regex's `testdata`
//! is the model). A topic file holds `about`, named skill sets (`[[skills.NAME]]`, one
//! `location` and `text` each) and `[[case]]`s; a case names its sources
//! (`sources = ["NAME", …]`, one set per source) or lists its one source's skills itself
//! (`[[case.skills]]`), states its inputs, and ends with `[case.expect]`.
//!
//! Expectations are written compact: whatever is null, false, an empty list or an empty
//! object is left out (so `report = { loaded = 4 }` says every other list of the report is
//! empty). Leaving a key out therefore still asserts its value. `expect_section` writes an
//! expectation in that form and `splice` puts it into a file, for blessing.

use serde_json::{json, Map, Value};

/// Lines longer than this are laid out over several lines.
const WIDTH: usize = 100;

/// The cases of a topic file, each with `sources` resolved to lists of skills (the shape
/// the runner reads).
pub fn cases(text: &str, file: &str) -> Vec<Value> {
    let doc: Value = toml::from_str(text).unwrap_or_else(|e| panic!("{file}: {e}"));
    let sets = doc.get("skills").cloned().unwrap_or_else(|| json!({}));
    let cases = doc.get("case").and_then(Value::as_array).cloned().unwrap_or_default();
    cases
        .into_iter()
        .map(|mut case| {
            let sources: Vec<Value> = match case.get("sources").and_then(Value::as_array) {
                Some(names) => names
                    .iter()
                    .map(|name| {
                        let name = name.as_str().unwrap_or_else(|| panic!("{file}: a source is a skill set's name"));
                        sets.get(name).cloned().unwrap_or_else(|| panic!("{file}: no skill set {name:?}"))
                    })
                    .collect(),
                None => vec![case.get("skills").cloned().unwrap_or_else(|| json!([]))],
            };
            assert!(
                !(case.get("sources").is_some() && case.get("skills").is_some()),
                "{file}: a case names skill sets or lists its skills, not both"
            );
            case["sources"] = Value::Array(sources);
            case
        })
        .collect()
}

/// `value` as expectations are written: null, false, empty lists and empty objects left
/// out of every object, at every level (items of a list are kept, each made compact).
pub fn compact(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), compact(v))).filter(|(_, v)| !is_empty(v)).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(compact).collect()),
        other => other.clone(),
    }
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null | Value::Bool(false) => true,
        Value::Array(items) => items.is_empty(),
        Value::Object(map) => map.is_empty(),
        _ => false,
    }
}

/// The `[case.expect]` section of a compact expectation, ending with a newline.
pub fn expect_section(expect: &Value) -> String {
    let mut out = String::from("[case.expect]\n");
    let empty = Map::new();
    table("case.expect", expect.as_object().unwrap_or(&empty), &mut out);
    out
}

/// `text` with the expectation section of case `i` replaced by (or, if it has none, given)
/// `sections[i]`. An expectation is the last part of its case; comment lines after it
/// (introducing the next case) are kept.
pub fn splice(text: &str, sections: &[String]) -> String {
    let mut starts: Vec<usize> = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.trim_end() == "[[case]]" {
            starts.push(offset);
        }
        offset += line.len();
    }
    assert_eq!(starts.len(), sections.len(), "cases and expectations differ in number");
    let mut out = text[..starts.first().copied().unwrap_or(text.len())].to_owned();
    for (i, start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(text.len());
        let case = &text[*start..end];
        let lines: Vec<&str> = case.split_inclusive('\n').collect();
        // Trailing comments and blank lines belong to what follows. (A line of a
        // multi-line string ends with its closing quotes, so it is not taken for one.)
        let mut tail = lines.len();
        while tail > 0 {
            let line = lines[tail - 1].trim_end();
            let comment = line.starts_with('#') && !line.ends_with("'''") && !line.ends_with(r#"""""#);
            if !(line.is_empty() || comment) {
                break;
            }
            tail -= 1;
        }
        let expect = lines[..tail]
            .iter()
            .position(|line| line.starts_with("[case.expect") || line.starts_with("[[case.expect"))
            .unwrap_or(tail);
        out.push_str(lines[..expect].concat().trim_end());
        out.push_str("\n\n");
        out.push_str(&sections[i]);
        let trailing = lines[tail..].concat();
        let trailing = trailing.trim();
        if !trailing.is_empty() {
            out.push('\n');
            out.push_str(trailing);
            out.push('\n');
        }
        if i + 1 < starts.len() {
            out.push_str("\n\n");
        }
    }
    out
}

/// The keys of `map` under the table `path`: those that fit as `key = value` lines
/// first, then those that need their own `[path.key]` or `[[path.key]]` sections.
fn table(path: &str, map: &Map<String, Value>, out: &mut String) {
    let mut sections = Vec::new();
    for (k, v) in map {
        match assignment(&key(k), v) {
            Some(lines) => out.push_str(&lines),
            None => sections.push((k, v)),
        }
    }
    for (k, v) in sections {
        let path = format!("{path}.{}", key(k));
        match v {
            Value::Object(map) => {
                out.push_str(&format!("\n[{path}]\n"));
                table(&path, map, out);
            }
            Value::Array(items) => {
                for item in items {
                    let map = item.as_object().unwrap_or_else(|| panic!("{path}: a list too wide to write"));
                    out.push_str(&format!("\n[[{path}]]\n"));
                    table(&path, map, out);
                }
            }
            _ => unreachable!("scalars are always assignments"),
        }
    }
}

/// `key = value` (over several lines for a long list or a multi-line string, as dotted
/// keys for an object), or `None` when the value needs a section of its own.
fn assignment(key: &str, value: &Value) -> Option<String> {
    if let Some(text) = inline(value) {
        if key.len() + 3 + text.len() <= WIDTH || !matches!(value, Value::Array(_) | Value::Object(_)) {
            return Some(format!("{key} = {text}\n"));
        }
    }
    match value {
        Value::String(s) => Some(format!("{key} = {}\n", string(s))),
        Value::Array(items) => {
            let lines: Option<Vec<String>> = items
                .iter()
                .map(|item| match item {
                    Value::String(s) => Some(string(s)),
                    // A wide object gets a `[[…]]` section of its own instead.
                    Value::Object(_) => inline(item).filter(|text| text.len() + 3 <= WIDTH),
                    other => inline(other),
                })
                .collect();
            let mut out = format!("{key} = [\n");
            for line in lines? {
                out.push_str(&format!("  {line},\n"));
            }
            out.push_str("]\n");
            Some(out)
        }
        Value::Object(map) => {
            map.iter().map(|(k, v)| assignment(&format!("{key}.{}", self::key(k)), v)).collect::<Option<String>>()
        }
        _ => None,
    }
}

/// A value on one line, or `None` if it holds a multi-line string.
fn inline(value: &Value) -> Option<String> {
    Some(match value {
        Value::Null => panic!("null has no TOML form"),
        Value::Bool(b) => b.to_string(),
        // `{:?}` keeps floats floats (`1.0`, not `1`).
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.to_string(),
            (_, Some(u), _) => u.to_string(),
            (_, _, Some(f)) => format!("{f:?}"),
            _ => unreachable!(),
        },
        Value::String(s) if s.contains('\n') => return None,
        Value::String(s) => string(s),
        Value::Array(items) => format!("[{}]", items.iter().map(inline).collect::<Option<Vec<_>>>()?.join(", ")),
        Value::Object(map) if map.is_empty() => "{}".to_owned(),
        Value::Object(map) => format!(
            "{{ {} }}",
            map.iter()
                .map(|(k, v)| Some(format!("{} = {}", key(k), inline(v)?)))
                .collect::<Option<Vec<_>>>()?
                .join(", ")
        ),
    })
}

/// A key, bare when TOML allows it.
fn key(k: &str) -> String {
    if !k.is_empty() && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        k.to_owned()
    } else {
        string(k)
    }
}

/// A string: `"…"` on one line; a multi-line literal `'''…'''` when its text can be shown
/// as it is; otherwise a multi-line basic string with escapes, so that control and
/// invisible characters are visible in review.
fn string(s: &str) -> String {
    if !s.contains('\n') {
        return format!("\"{}\"", escape(s, false));
    }
    if !s.contains("'''") && !s.ends_with('\'') && !s.chars().any(|c| c == '\r' || c == '\t' || invisible(c)) {
        return format!("'''\n{s}'''");
    }
    format!("\"\"\"\n{}\"\"\"", escape(s, true))
}

fn escape(s: &str, multiline: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' if multiline => out.push('\n'),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if invisible(c) && (c as u32) > 0xFFFF => out.push_str(&format!("\\U{:08X}", c as u32)),
            c if invisible(c) => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Characters a reader would not see: controls, format characters (zero-width, bidi
/// marks, the BOM), private use, separators other than the space.
fn invisible(c: char) -> bool {
    c != '\n'
        && (c.is_control()
            || matches!(c, '\u{00A0}' | '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}' | '\u{180E}' | '\u{2000}'..='\u{200F}' | '\u{2028}'..='\u{202F}' | '\u{205F}'..='\u{206F}' | '\u{3000}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}' | '\u{FFA0}' | '\u{FFF0}'..='\u{FFFB}' | '\u{E000}'..='\u{F8FF}' | '\u{E0000}'..='\u{E007F}'))
}
