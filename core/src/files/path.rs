//! A path to one of a skill's files, as a model or a host writes it: checked and
//! normalised before any source sees it, so that it names a file inside the skill's
//! folder and nothing else.

use serde::Serialize;

/// Most segments (folders and the file name) a file path may have.
pub const MAX_PATH_SEGMENTS: usize = 32;
/// Longest segment of a file path, in bytes (the common file-name limit).
pub const MAX_SEGMENT_BYTES: usize = 255;

/// Why a file path was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PathProblem {
    /// Nothing names a file (`""`, `.`, `/`-only).
    Empty,
    /// Longer than [`Limits::max_file_path_bytes`](crate::Limits).
    TooLong,
    /// More than [`MAX_PATH_SEGMENTS`] segments, or a segment over [`MAX_SEGMENT_BYTES`].
    TooDeep,
    /// Starts at the root (`/etc/passwd`) or names a drive (`C:`).
    Absolute,
    /// Goes up a folder (`..`).
    Parent,
    /// Uses `\`, which some systems read as a separator: paths are written with `/`.
    Backslash,
    /// Holds NUL or another control character.
    ControlCharacter,
    /// Holds `:` (a drive or an alternate data stream on Windows).
    Colon,
    /// Holds `%`: a source that reads through URLs would decode `%2e%2e` to `..`.
    Percent,
    /// A segment is a device name on Windows (`CON`, `NUL`, `COM1`, `LPT1.txt`, …): opening
    /// it there reaches the device, not a file in the folder.
    DeviceName,
    /// A segment ends with `.` or a space, which Windows drops (`secret.md.` opens
    /// `secret.md`): two paths would name one file.
    TrailingDot,
    /// A segment starts with `.`: a hidden file or folder (`.env`, `.git/config`), which
    /// holds a machine's or a repository's secrets, not the skill's content.
    Hidden,
}

impl PathProblem {
    /// The problem's name as written in JSON (`parent`, `absolute`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            PathProblem::Empty => "empty",
            PathProblem::TooLong => "too-long",
            PathProblem::TooDeep => "too-deep",
            PathProblem::Absolute => "absolute",
            PathProblem::Parent => "parent",
            PathProblem::Backslash => "backslash",
            PathProblem::ControlCharacter => "control-character",
            PathProblem::Colon => "colon",
            PathProblem::Percent => "percent",
            PathProblem::DeviceName => "device-name",
            PathProblem::TrailingDot => "trailing-dot",
            PathProblem::Hidden => "hidden",
        }
    }

    /// A sentence for a person (or a model).
    pub fn describe(self) -> &'static str {
        match self {
            PathProblem::Empty => "the path names no file",
            PathProblem::TooLong => "the path is too long",
            PathProblem::TooDeep => "the path has too many or too long segments",
            PathProblem::Absolute => "the path must be relative to the skill's folder",
            PathProblem::Parent => "the path may not leave the skill's folder (`..`)",
            PathProblem::Backslash => "the path must use `/` as its separator",
            PathProblem::ControlCharacter => "the path holds a control character",
            PathProblem::Colon => "the path may not hold `:`",
            PathProblem::Percent => "the path may not hold `%` (percent-encoding)",
            PathProblem::DeviceName => "the path names a device (`CON`, `NUL`, `COM1`, …)",
            PathProblem::TrailingDot => "a segment of the path ends with `.` or a space",
            PathProblem::Hidden => "the path names a hidden file or folder (a segment starts with `.`)",
        }
    }
}

/// `path` relative to a skill's folder, normalised: `/` between segments, no `.` or
/// empty segments (`./references//a.md` → `references/a.md`). Refused: absolute paths
/// and drives, `..` anywhere, `\`, `:`, `%`, control characters (NUL included), more than
/// `max_bytes` bytes, more than [`MAX_PATH_SEGMENTS`] segments or one over
/// [`MAX_SEGMENT_BYTES`], what Windows reads as another file (device names and segments
/// ending in `.` or a space), and hidden files and folders (a segment starting with `.`:
/// `.env`, `.git/`), so that no listing names them and no read hands them out. Symbolic
/// links are the source's to refuse: only it can see them.
pub fn normalise_file_path(path: &str, max_bytes: usize) -> Result<String, PathProblem> {
    if path.len() > max_bytes {
        return Err(PathProblem::TooLong);
    }
    if path.chars().any(char::is_control) {
        return Err(PathProblem::ControlCharacter);
    }
    if path.contains('\\') {
        return Err(PathProblem::Backslash);
    }
    if path.starts_with('/') {
        return Err(PathProblem::Absolute);
    }
    if path.contains('%') {
        return Err(PathProblem::Percent);
    }
    if path.contains(':') {
        // `C:` alone is a drive: say so.
        let drive = path.as_bytes().first().is_some_and(u8::is_ascii_alphabetic) && path.get(1..2) == Some(":");
        return Err(if drive { PathProblem::Absolute } else { PathProblem::Colon });
    }
    let mut segments = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => return Err(PathProblem::Parent),
            _ if segment.len() > MAX_SEGMENT_BYTES => return Err(PathProblem::TooDeep),
            _ if segment.ends_with(['.', ' ']) => return Err(PathProblem::TrailingDot),
            _ if is_device_name(segment) => return Err(PathProblem::DeviceName),
            _ if segment.starts_with('.') => return Err(PathProblem::Hidden),
            _ => segments.push(segment),
        }
    }
    if segments.len() > MAX_PATH_SEGMENTS {
        return Err(PathProblem::TooDeep);
    }
    if segments.is_empty() {
        return Err(PathProblem::Empty);
    }
    Ok(segments.join("/"))
}

/// True for a name Windows opens as a device whatever the folder: `CON`, `PRN`, `AUX`,
/// `NUL`, `COM0`–`COM9`, `LPT0`–`LPT9` (and the superscript-digit forms), `CONIN$`,
/// `CONOUT$`, in any case, alone or before an extension (`nul.txt`).
fn is_device_name(segment: &str) -> bool {
    let stem = segment.split('.').next().unwrap_or(segment).trim_end_matches(' ').to_ascii_uppercase();
    match stem.as_str() {
        "CON" | "PRN" | "AUX" | "NUL" | "CONIN$" | "CONOUT$" => true,
        _ => match (stem.get(..3), stem.get(3..)) {
            (Some("COM" | "LPT"), Some(digit)) => {
                matches!(digit.as_bytes(), [b'0'..=b'9']) || matches!(digit, "¹" | "²" | "³")
            }
            _ => false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_inside_the_folder_are_normalised() {
        for (path, normal) in [
            ("references/forms.md", "references/forms.md"),
            ("./references//forms.md", "references/forms.md"),
            ("scripts/fill.py/", "scripts/fill.py"),
            ("a/./b/c.txt", "a/b/c.txt"),
            ("~/notes.md", "~/notes.md"),
            ("données/été.md", "données/été.md"),
            ("a.b/c.d.md", "a.b/c.d.md"),
            ("console.md", "console.md"),
            ("references/com10.md", "references/com10.md"),
            ("nullable/aux-notes.md", "nullable/aux-notes.md"),
        ] {
            assert_eq!(normalise_file_path(path, 1024), Ok(normal.to_owned()), "{path}");
        }
    }

    #[test]
    fn paths_that_could_leave_the_folder_are_refused() {
        let deep = "a/".repeat(MAX_PATH_SEGMENTS) + "b";
        let wide = "a".repeat(MAX_SEGMENT_BYTES + 1);
        for (path, problem) in [
            ("", PathProblem::Empty),
            (".", PathProblem::Empty),
            ("./", PathProblem::Empty),
            ("..", PathProblem::Parent),
            ("../secret", PathProblem::Parent),
            ("references/../../etc/passwd", PathProblem::Parent),
            ("a/..", PathProblem::Parent),
            ("/etc/passwd", PathProblem::Absolute),
            ("//server/share", PathProblem::Absolute),
            ("C:/Windows/win.ini", PathProblem::Absolute),
            ("c:secret", PathProblem::Absolute),
            ("notes.md:hidden", PathProblem::Colon),
            ("file:///etc/passwd", PathProblem::Colon),
            ("%2e%2e/secret", PathProblem::Percent),
            ("references/..%2f..%2fsecret", PathProblem::Percent),
            ("..\\secret", PathProblem::Backslash),
            ("references\\forms.md", PathProblem::Backslash),
            ("a\0b", PathProblem::ControlCharacter),
            ("a\nb", PathProblem::ControlCharacter),
            ("a\u{1b}[2Jb", PathProblem::ControlCharacter),
            ("b..", PathProblem::TrailingDot),
            ("references/forms.md.", PathProblem::TrailingDot),
            ("references /forms.md", PathProblem::TrailingDot),
            ("...", PathProblem::TrailingDot),
            (".env", PathProblem::Hidden),
            ("references/.secret/creds.txt", PathProblem::Hidden),
            ("./.git/config", PathProblem::Hidden),
            ("..a/b", PathProblem::Hidden),
            ("CON", PathProblem::DeviceName),
            ("references/nul.txt", PathProblem::DeviceName),
            ("Com1.md", PathProblem::DeviceName),
            ("lpt9", PathProblem::DeviceName),
            ("COM¹.md", PathProblem::DeviceName),
            ("conout$", PathProblem::DeviceName),
            ("aux .md", PathProblem::DeviceName),
            (deep.as_str(), PathProblem::TooDeep),
            (wide.as_str(), PathProblem::TooDeep),
        ] {
            assert_eq!(normalise_file_path(path, 1024), Err(problem), "{path:?}");
        }
        assert_eq!(normalise_file_path(&"a".repeat(1025), 1024), Err(PathProblem::TooLong));
    }
}
