//! A skill's own files — the standard's third level of disclosure: `references/`,
//! `scripts/`, `assets/` beside the SKILL.md — listed and read through the host's
//! sources, on request only.
//!
//! The core does no IO here either. A read is two steps: [`Catalog::file_request`]
//! checks the skill and the path (relative, normalised, inside the skill's folder: see
//! [`normalise_file_path`]) and says which source and SKILL.md location to ask; the host
//! reads at most [`Limits::max_file_bytes`](crate::Limits) through its source
//! ([`SkillSource::read_file`](crate::SkillSource::read_file)); [`Catalog::file_content`]
//! takes the bytes, tells text from binary, scans text with the catalogue's policy (a
//! blocked file is refused with its findings, like a body) and adds its SHA-256 digest.
//! Listing is the same: [`Catalog::files_request`], the source's
//! [`list_files`](crate::SkillSource::list_files), [`Catalog::file_list`].
//! [`Engine`](crate::Engine) runs both over synchronous sources. A model reaches the files
//! through one tool ([`read_file_tool`], answered by
//! [`Engine::answer_read_file`](crate::Engine::answer_read_file)).

mod kind;
mod links;
mod path;
mod tool;

pub use kind::{file_kind, media_type, FileKind};
pub(crate) use links::link_warnings;
pub use path::{normalise_file_path, PathProblem, MAX_PATH_SEGMENTS, MAX_SEGMENT_BYTES};
pub use tool::{
    read_file_answer, read_file_arguments, read_file_tool, Property, ReadFileArguments, ReadFileFunction,
    ReadFileInput, ReadFileProperties, ReadFileTool, ToolAnswer, READ_FILE_TOOL,
};

use crate::catalog::Catalog;
use crate::order;
use crate::scan::{self, Finding};
use crate::skill::limits::Limits;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;

/// A file a source lists in a skill's folder: its path relative to the folder (`/`
/// between segments) and its size in bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListedFile {
    /// The path, relative to the skill's folder.
    pub path: String,
    /// The size in bytes.
    pub size: u64,
}

/// One of a skill's files, as the catalogue lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillFile {
    /// The path relative to the skill's folder, normalised.
    pub path: String,
    /// The size in bytes.
    pub size: u64,
    /// Its role in the skill.
    pub kind: FileKind,
    /// Its media type, from its extension.
    pub media_type: String,
}

/// A skill's files, sorted by path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillFiles {
    /// The skill's name.
    pub skill: String,
    /// The files, at most [`Limits::max_skill_files`](crate::Limits).
    pub files: Vec<SkillFile>,
    /// How many listed files were left out: over the limit, or with a path that could
    /// leave the folder.
    pub left_out: usize,
}

/// What a source returned for a file: text when it is UTF-8 without NUL bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "type", content = "value")]
pub enum FileBody {
    /// The file's text.
    Text(String),
    /// The file's bytes (not valid UTF-8, or holding NUL).
    Binary(#[serde(skip)] Vec<u8>),
}

/// A file read from a skill's folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileContent {
    /// The skill's name.
    pub skill: String,
    /// The path relative to the skill's folder, normalised.
    pub path: String,
    /// Its role in the skill: a `script` is for the agent to run, never run by skillwire.
    pub kind: FileKind,
    /// Its media type, from its extension.
    pub media_type: String,
    /// Its size in bytes.
    pub size: u64,
    /// `sha256:` and the SHA-256 of its bytes in lowercase hex (the MCP skills
    /// extension's digest form).
    pub digest: String,
    /// What the safety scan found in a text file that does not block it (warnings).
    pub findings: Vec<Finding>,
    /// The text or the bytes.
    pub body: FileBody,
}

/// Which source to ask for a skill's file, and with which arguments (hosts that cross
/// it into another runtime and back pass it as they got it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRequest {
    /// The skill's name, as the catalogue has it.
    pub skill: String,
    /// The index of the source that holds the skill.
    pub source: usize,
    /// The location of the skill's SKILL.md in that source.
    pub location: String,
    /// The file's path, normalised (empty when listing).
    pub path: String,
    /// Most bytes to read.
    pub max_bytes: usize,
}

/// Why a skill's files could not be listed or one of them read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileError {
    /// The catalogue has no skill by that name.
    UnknownSkill {
        /// The name asked for.
        skill: String,
    },
    /// The scan policy blocks the skill: none of its files are handed out.
    BlockedSkill {
        /// The skill's name.
        skill: String,
    },
    /// The path could leave the skill's folder, or is malformed.
    InvalidPath {
        /// The path as given.
        path: String,
        /// What is wrong with it.
        problem: PathProblem,
    },
    /// The file is larger than [`Limits::max_file_bytes`](crate::Limits).
    TooLarge {
        /// The path.
        path: String,
        /// Its size, or the bytes read when the source stopped past the limit.
        bytes: u64,
        /// The limit.
        limit: usize,
    },
    /// The source could not list or read it (no such file, a link out of the folder,
    /// not a regular file, no files at all in this source, …), in its words.
    Unavailable {
        /// The path (empty when listing).
        path: String,
        /// The source's reason.
        problem: String,
    },
    /// The safety scan blocks the file's text.
    Blocked {
        /// The path.
        path: String,
        /// What the scan found (the blocking findings among them).
        findings: Vec<Finding>,
    },
}

impl FileError {
    /// A stable code for bindings: `unknown_skill`, `blocked_skill`, `invalid_path`,
    /// `file_too_large`, `file_unavailable`, `file_blocked`.
    pub fn code(&self) -> &'static str {
        match self {
            FileError::UnknownSkill { .. } => "unknown_skill",
            FileError::BlockedSkill { .. } => "blocked_skill",
            FileError::InvalidPath { .. } => "invalid_path",
            FileError::TooLarge { .. } => "file_too_large",
            FileError::Unavailable { .. } => "file_unavailable",
            FileError::Blocked { .. } => "file_blocked",
        }
    }
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FileError::UnknownSkill { skill } => write!(f, "no skill named \"{skill}\""),
            FileError::BlockedSkill { skill } => write!(f, "skill \"{skill}\" is blocked by the safety scan"),
            FileError::InvalidPath { path, problem } => write!(f, "{path:?}: {}", problem.describe()),
            FileError::TooLarge { path, bytes, limit } => write!(f, "{path}: {bytes} bytes; the limit is {limit}"),
            FileError::Unavailable { path, problem } if path.is_empty() => f.write_str(problem),
            FileError::Unavailable { path, problem } => write!(f, "{path}: {problem}"),
            FileError::Blocked { path, findings } => match findings.iter().find(|x| x.blocks()) {
                Some(first) => write!(f, "{path}: blocked by the safety scan: {first}"),
                None => write!(f, "{path}: blocked by the safety scan"),
            },
        }
    }
}

impl std::error::Error for FileError {}

/// Most paths [`files_line`] names.
pub const MAX_FILES_IN_BLOCK: usize = 20;

/// The line that ends an injected block with [`RenderOptions::list_files`](crate::RenderOptions):
/// the skill's other files, for a model with the read-file tool — those
/// [`Catalog::file_list`] would list (within `limits`), the SKILL.md left out, and those over
/// `max_file_bytes` too (the tool would refuse them), at most [`MAX_FILES_IN_BLOCK`] named and
/// the rest counted. Only paths of ASCII letters, digits, `.`, `_`, `-` and `/` are named: a file
/// name is not a place for words aimed at the model. `None` when there is nothing to name.
pub fn files_line(listed: &[ListedFile], limits: &Limits) -> Option<String> {
    let plain = |p: &str| p.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b'/'));
    // The files `Catalog::file_list` would list, the SKILL.md left out.
    let mut paths: Vec<String> = (listed.iter())
        .filter(|f| f.size <= limits.max_file_bytes as u64)
        .filter_map(|f| normalise_file_path(&f.path, limits.max_file_path_bytes).ok())
        .collect();
    order::sort_by(&mut paths, |a, b| a.cmp(b));
    paths.dedup();
    paths.truncate(limits.max_skill_files);
    paths.retain(|p| file_kind(p) != FileKind::Skill);
    let total = paths.len();
    paths.retain(|p| plain(p));
    paths.truncate(MAX_FILES_IN_BLOCK);
    if paths.is_empty() {
        return None;
    }
    let more = match total - paths.len() {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    Some(format!("Files in this skill's folder ({READ_FILE_TOOL} opens them): {}{more}", paths.join(", ")))
}

/// `sha256:` and the SHA-256 of `bytes` in lowercase hex.
pub fn sha256_digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in hash {
        // Writing to a String cannot fail.
        let _ = write!(out, "{byte:02x}");
    }
    out
}

impl Catalog {
    /// Where to list skill `skill`'s files: its source and SKILL.md location. Refused
    /// for a skill the catalogue does not have or the scan policy blocks.
    pub fn files_request(&self, skill: &str) -> Result<FileRequest, FileError> {
        self.file_request_for(skill, String::new())
    }

    /// Where to read file `path` of skill `skill`, with the path checked and normalised
    /// ([`normalise_file_path`]) and the most bytes to read.
    pub fn file_request(&self, skill: &str, path: &str) -> Result<FileRequest, FileError> {
        let normal = normalise_file_path(path, self.limits().max_file_path_bytes)
            .map_err(|problem| FileError::InvalidPath { path: path.to_owned(), problem })?;
        self.file_request_for(skill, normal)
    }

    fn file_request_for(&self, skill: &str, path: String) -> Result<FileRequest, FileError> {
        // A skill the allow or deny list keeps out is not this host's to see: unknown here.
        let entry = (self.get(skill).filter(|e| e.kept_out.is_none()))
            .ok_or_else(|| FileError::UnknownSkill { skill: skill.to_owned() })?;
        if entry.blocked() {
            return Err(FileError::BlockedSkill { skill: entry.skill.name.clone() });
        }
        Ok(FileRequest {
            skill: entry.skill.name.clone(),
            source: entry.source,
            location: entry.skill.location.clone(),
            path,
            max_bytes: self.limits().max_file_bytes,
        })
    }

    /// The files a source listed for `request` (from [`Catalog::files_request`]), or
    /// why it could not: paths normalised (a path that could leave the folder is left
    /// out), sorted, each once, at most [`Limits::max_skill_files`](crate::Limits).
    pub fn file_list(
        &self,
        request: &FileRequest,
        listed: Result<Vec<ListedFile>, String>,
    ) -> Result<SkillFiles, FileError> {
        let listed = listed.map_err(|problem| FileError::Unavailable { path: String::new(), problem })?;
        let total = listed.len();
        let max_path = self.limits().max_file_path_bytes;
        let mut files: Vec<SkillFile> = (listed.into_iter())
            .filter_map(|file| {
                let path = normalise_file_path(&file.path, max_path).ok()?;
                Some(SkillFile {
                    kind: file_kind(&path),
                    media_type: media_type(&path).to_owned(),
                    path,
                    size: file.size,
                })
            })
            .collect();
        order::sort_by(&mut files, |a, b| a.path.cmp(&b.path));
        files.dedup_by(|a, b| a.path == b.path);
        files.truncate(self.limits().max_skill_files);
        Ok(SkillFiles { skill: request.skill.clone(), left_out: total - files.len(), files })
    }

    /// The file a source read for `request` (from [`Catalog::file_request`]), or why it
    /// could not: refused past the size limit; text (UTF-8 without NUL) scanned with the
    /// catalogue's policy and refused when the policy blocks it; its digest added.
    pub fn file_content(&self, request: &FileRequest, read: Result<Vec<u8>, String>) -> Result<FileContent, FileError> {
        let path = request.path.clone();
        let bytes = read.map_err(|problem| FileError::Unavailable { path: path.clone(), problem })?;
        if bytes.len() > request.max_bytes {
            return Err(FileError::TooLarge { path, bytes: bytes.len() as u64, limit: request.max_bytes });
        }
        let digest = sha256_digest(&bytes);
        let size = bytes.len() as u64;
        let (body, findings) = match String::from_utf8(bytes) {
            Ok(text) if !text.contains('\0') => {
                // The scan reads the text as a model would (a SKILL.md's fields as YAML reads
                // them: a client may be handed them, in a manifest); `Unavailable` means
                // unscanned, which is not clean.
                let findings = match file_kind(&path) {
                    FileKind::Skill => scan::scan_skill_md(&request.location, &text, self.limits(), self.scan_policy()),
                    _ => scan::scan(&text, None, self.scan_policy()),
                }
                .map_err(|e| FileError::Unavailable { path: path.clone(), problem: e.to_string() })?;
                if scan::blocked(&findings) {
                    return Err(FileError::Blocked { path, findings });
                }
                (FileBody::Text(text), findings)
            }
            Ok(text) => (FileBody::Binary(text.into_bytes()), Vec::new()),
            Err(e) => (FileBody::Binary(e.into_bytes()), Vec::new()),
        };
        Ok(FileContent {
            skill: request.skill.clone(),
            kind: file_kind(&path),
            media_type: media_type(&path).to_owned(),
            path,
            size,
            digest,
            findings,
            body,
        })
    }
}

#[cfg(test)]
mod tests;
