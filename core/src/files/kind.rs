//! What a skill's file is: its role in the skill (the standard's `references/`,
//! `scripts/`, `assets/` folders) and its media type, from its path alone.

use serde::Serialize;

/// A file's role in its skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileKind {
    /// The skill's `SKILL.md`.
    Skill,
    /// Documentation the instructions point to (`references/`, or a text file elsewhere).
    Reference,
    /// Code the instructions say to run (`scripts/`, or a file with a script's
    /// extension). skillwire never runs it: it hands out its text and says what it is.
    Script,
    /// A template, image, font or other resource (`assets/`, or a binary file elsewhere).
    Asset,
}

impl FileKind {
    /// The kind's name as written in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            FileKind::Skill => "skill",
            FileKind::Reference => "reference",
            FileKind::Script => "script",
            FileKind::Asset => "asset",
        }
    }
}

/// Extensions of files a shell or an interpreter runs.
const SCRIPT_EXTENSIONS: [&str; 17] =
    ["sh", "bash", "zsh", "fish", "py", "js", "mjs", "cjs", "ts", "rb", "pl", "php", "lua", "ps1", "bat", "cmd", "r"];

/// The lowercase extension of a path's file name, if it has one.
fn extension(path: &str) -> Option<String> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let (stem, extension) = name.rsplit_once('.')?;
    (!stem.is_empty()).then(|| extension.to_ascii_lowercase())
}

/// The role of the file at `path` (normalised, relative to the skill's folder).
pub fn file_kind(path: &str) -> FileKind {
    let first = path.split('/').next().unwrap_or_default();
    if path == "SKILL.md" || path == "skill.md" {
        return FileKind::Skill;
    }
    match first {
        "scripts" => return FileKind::Script,
        "references" => return FileKind::Reference,
        "assets" => return FileKind::Asset,
        _ => {}
    }
    let extension = extension(path).unwrap_or_default();
    if SCRIPT_EXTENSIONS.contains(&extension.as_str()) {
        FileKind::Script
    } else if media_type(path).starts_with("text/") || extension.is_empty() {
        FileKind::Reference
    } else {
        FileKind::Asset
    }
}

/// The media type of the file at `path`, from its extension (`text/plain` for a file
/// without one, `application/octet-stream` for one not known here).
pub fn media_type(path: &str) -> &'static str {
    let Some(extension) = extension(path) else { return "text/plain" };
    match extension.as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" | "text" | "log" => "text/plain",
        "csv" => "text/csv",
        "tsv" => "text/tab-separated-values",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "xml" | "xsd" | "xsl" => "application/xml",
        "json" => "application/json",
        "jsonl" | "ndjson" => "application/jsonl",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "sh" | "bash" | "zsh" | "fish" => "text/x-shellscript",
        "py" => "text/x-python",
        "js" | "mjs" | "cjs" => "text/javascript",
        "ts" => "text/x-typescript",
        "rb" => "text/x-ruby",
        "pl" => "text/x-perl",
        "php" => "text/x-php",
        "lua" => "text/x-lua",
        "r" => "text/x-r",
        "ps1" => "text/x-powershell",
        "bat" | "cmd" => "text/x-msdos-batch",
        "sql" => "application/sql",
        "go" => "text/x-go",
        "rs" => "text/x-rust",
        "java" => "text/x-java",
        "c" | "h" => "text/x-c",
        "cpp" | "hpp" | "cc" => "text/x-c++",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "ico" => "image/vnd.microsoft.icon",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        "gz" => "application/gzip",
        "docx" => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xlsx" => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "pptx" => "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "ttf" => "font/ttf",
        "otf" => "font/otf",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "wasm" => "application/wasm",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_follow_the_standard_folders_then_the_extension() {
        for (path, kind, media) in [
            ("SKILL.md", FileKind::Skill, "text/markdown"),
            ("references/forms.md", FileKind::Reference, "text/markdown"),
            ("scripts/fill.py", FileKind::Script, "text/x-python"),
            ("scripts/README", FileKind::Script, "text/plain"),
            ("assets/logo.png", FileKind::Asset, "image/png"),
            ("assets/template.md", FileKind::Asset, "text/markdown"),
            ("forms.md", FileKind::Reference, "text/markdown"),
            ("tools/build.SH", FileKind::Script, "text/x-shellscript"),
            ("LICENSE", FileKind::Reference, "text/plain"),
            (".env", FileKind::Reference, "text/plain"),
            ("fonts/a.woff2", FileKind::Asset, "font/woff2"),
            ("data/blob.bin", FileKind::Asset, "application/octet-stream"),
        ] {
            assert_eq!((file_kind(path), media_type(path)), (kind, media), "{path}");
        }
    }
}
