//! The one repair the lenient read makes: a plain value holding `: ` (invalid YAML that
//! authors write often) read as if it were single-quoted.

/// If `error_line` (1-based) belongs to a `key: value` entry whose plain value holds a
/// `: `, returns the text with that value single-quoted, and the entry's line.
pub(super) fn quote_colon_value(text: &str, error_line: usize) -> Option<(String, usize)> {
    let lines: Vec<&str> = text.split('\n').collect();
    let err_idx = error_line.checked_sub(1)?;
    let err_line = lines.get(err_idx)?;
    let key_idx = if split_entry(err_line).is_some_and(|(_, v)| is_plain_start(v) && has_colon(v)) {
        err_idx
    } else {
        // A continuation line of a plain multi-line value: its entry is the nearest
        // line above that is indented less.
        let err_indent = indent_of(err_line);
        let owner = (0..err_idx)
            .rev()
            .find(|&i| lines.get(i).is_some_and(|l| !l.trim().is_empty() && indent_of(l) < err_indent))?;
        let (_, value) = split_entry(lines.get(owner)?)?;
        if !is_plain_start(value) {
            return None;
        }
        owner
    };
    let key_line = lines.get(key_idx)?;
    let key_indent = indent_of(key_line);
    let (key_part, first_value) = split_entry(key_line)?;
    // Continuation lines of a plain multi-line value are indented deeper than the key.
    let mut parts = vec![first_value.trim().to_owned()];
    let mut end = key_idx + 1;
    while let Some(line) = lines.get(end) {
        if line.trim().is_empty() || indent_of(line) <= key_indent {
            break;
        }
        parts.push(line.trim().to_owned());
        end += 1;
    }
    let value = parts.join(" ");
    let value = match value.find(" #") {
        Some(i) => value.get(..i).unwrap_or(&value).trim_end().to_owned(),
        None => value,
    };
    if !has_colon(&value) {
        return None;
    }
    let quoted = format!("{key_part} '{}'", value.replace('\'', "''"));
    let mut out: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    if let Some(slot) = out.get_mut(key_idx) {
        *slot = quoted;
    }
    // Keep line numbers stable: continuation lines become blank.
    for slot in out.iter_mut().take(end).skip(key_idx + 1) {
        slot.clear();
    }
    Some((out.join("\n"), key_idx + 1))
}

fn has_colon(value: &str) -> bool {
    value.contains(": ") || value.trim_end().ends_with(':')
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// Splits `  key: value` into (`  key:`, `value`) for a simple plain key.
fn split_entry(line: &str) -> Option<(&str, &str)> {
    let trimmed = line.trim_start_matches(' ');
    let first = trimmed.chars().next()?;
    if matches!(first, '#' | '-' | '[' | '{' | '"' | '\'' | '?' | '&' | '*' | '!' | '|' | '>') {
        return None;
    }
    let colon = line.find(": ")?;
    let key = line.get(..colon)?;
    if key.trim().is_empty() || key.contains(['"', '\'', '#']) {
        return None;
    }
    Some((line.get(..=colon)?, line.get(colon + 2..)?))
}

/// True when a value starts as a plain scalar (not quoted, flow, block or alias).
fn is_plain_start(value: &str) -> bool {
    match value.trim_start().chars().next() {
        None => false,
        Some(c) => !matches!(c, '"' | '\'' | '[' | '{' | '|' | '>' | '&' | '*' | '!' | '#' | '@' | '`'),
    }
}
