//! The files a SKILL.md links to (`[forms](references/forms.md)`), checked against the
//! files its folder holds: `lint` warns about a link that leads nowhere or out of the
//! folder, when the host hands it the folder's listing.

use super::path::normalise_file_path;
use crate::skill::diag::Diagnostic;
use crate::skill::Fences;
use std::collections::HashSet;

/// Longest link target considered, in bytes.
const MAX_TARGET_BYTES: usize = 1024;

/// Markdown link targets in `text` outside fenced code and inline code, with their
/// 1-based line and column: `[text](target)` and `[text](<target>)`; a title after the
/// target (`"…"`) is dropped.
fn link_targets(text: &str) -> Vec<(usize, usize, &str)> {
    let mut out = Vec::new();
    let mut fences = Fences::default();
    for (index, line) in text.lines().enumerate() {
        if fences.update(line) || fences.inside() {
            continue;
        }
        let mut in_code = false;
        let bytes = line.as_bytes();
        let mut at = 0;
        while let Some(&b) = bytes.get(at) {
            if b == b'`' {
                in_code = !in_code;
            } else if !in_code && b == b']' && bytes.get(at + 1) == Some(&b'(') {
                let start = at + 2;
                let Some(len) = line.get(start..).and_then(|rest| rest.find(')')) else { break };
                let inner = line.get(start..start + len).unwrap_or_default().trim();
                let target = match inner.strip_prefix('<') {
                    Some(angled) => angled.split('>').next().unwrap_or_default(),
                    None => inner.split_whitespace().next().unwrap_or_default(),
                };
                let column = line.get(..start).map_or(1, |head| head.chars().count() + 1);
                out.push((index + 1, column, target));
                at = start + len;
            }
            at += 1;
        }
    }
    out
}

/// Warnings for the links in `text` that lead out of the skill's folder or to a file
/// `files` (the folder's listing: paths relative to it) does not hold. Links with a
/// scheme (`https:`, `mailto:`), to an anchor (`#…`) or from the root are not the
/// folder's and are left alone; `#anchor` and `?query` are dropped; a link to a folder
/// counts when the folder holds a file.
pub(crate) fn link_warnings(text: &str, files: &[String]) -> Vec<Diagnostic> {
    let mut warnings = Vec::new();
    // Each file, and each folder holding one.
    let mut held: HashSet<&str> = HashSet::new();
    for file in files {
        held.insert(file);
        held.extend(file.match_indices('/').filter_map(|(i, _)| file.get(..i)));
    }
    for (line, column, target) in link_targets(text) {
        let path = target.split(['#', '?']).next().unwrap_or_default();
        let external = path.is_empty() || path.starts_with('/') || has_scheme(path);
        if external || path.len() > MAX_TARGET_BYTES {
            continue;
        }
        // A link is URL-encoded: spaces are the one encoding skill links use.
        let decoded = path.replace("%20", " ");
        let warning = match normalise_file_path(&decoded, MAX_TARGET_BYTES) {
            Err(problem) => Diagnostic::warning(
                "link_outside",
                format!("links to {target}, which is not a file of this skill: {}", problem.describe()),
            ),
            Ok(normal) => {
                if held.contains(normal.as_str()) {
                    continue;
                }
                Diagnostic::warning(
                    "missing_file",
                    format!("links to {target}, which the skill's folder does not hold"),
                )
            }
        };
        warnings.push(warning.at(line, Some(column)));
    }
    warnings
}

/// True when `path` starts with a URI scheme (`https:`, `mailto:`): letters, digits, `+`,
/// `-` or `.` after a letter, then `:`.
fn has_scheme(path: &str) -> bool {
    let Some((scheme, _)) = path.split_once(':') else { return false };
    scheme.len() > 1
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_to_missing_files_and_out_of_the_folder_are_warned_about() {
        let text = "---\nname: pdf\ndescription: d\n---\n\
            See [forms](references/forms.md#fields) and [the guide](<references/the guide.md> \"Guide\").\n\
            Run [fill](./scripts/fill.py), then [missing](references/none.md).\n\
            Not files: [site](https://example.com/a.md), [mail](mailto:a@b.c), [top](#usage), [root](/etc/x).\n\
            Out: [up](../other/SKILL.md). Folder: [refs](references/).\n\
            `[code](references/in-code.md)` and\n```\n[fenced](references/fenced.md)\n```\n";
        let files: Vec<String> = ["SKILL.md", "references/forms.md", "references/the guide.md", "scripts/fill.py"]
            .map(String::from)
            .to_vec();
        let warnings: Vec<(String, usize, usize)> =
            link_warnings(text, &files).into_iter().map(|w| (w.code, w.line.unwrap(), w.column.unwrap())).collect();
        assert_eq!(warnings, [("missing_file".to_owned(), 6, 47), ("link_outside".to_owned(), 8, 11)]);
    }
}
