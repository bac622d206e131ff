//! Hosts for skillwire: the filesystem [`FsSource`] (used by the `skillwire` command)
//! and the discovery rules it follows.
//!
//! Discovery of one path:
//! - a file is taken as a SKILL.md;
//! - a folder holding `SKILL.md` (or `skill.md`) is one skill;
//! - any other folder is a root searched for `SKILL.md`/`skill.md` up to
//!   [`MAX_DEPTH`] folders deep, hidden folders included (packs keep skills under
//!   `.curated/`, `.system/`), skipping `.git` and `node_modules`. Symbolic links are
//!   followed only while they stay inside the root, and each folder is visited once, so
//!   links cannot loop. Within a folder `SKILL.md` is preferred over `skill.md`.
//!
//! Locations are absolute, canonical paths of the SKILL.md files, sorted.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod backend;
pub mod wasm;

pub use backend::Backend;

use skillwire::{SkillEntry, SkillSource, SourceError};
use std::collections::HashSet;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// How many folders below a root the search goes.
pub const MAX_DEPTH: usize = 8;

/// The names a skill file may have, preferred first.
const SKILL_FILE_NAMES: [&str; 2] = ["SKILL.md", "skill.md"];

/// Folders never searched.
const SKIPPED_DIRS: [&str; 2] = [".git", "node_modules"];

/// Skills on the local filesystem.
#[derive(Debug, Clone)]
pub struct FsSource {
    files: Vec<PathBuf>,
    max_bytes: usize,
}

impl FsSource {
    /// Discovers the skills under `path` (see the module docs). Fails when the path
    /// does not exist or cannot be read.
    pub fn discover(path: &Path) -> io::Result<FsSource> {
        let root = fs::canonicalize(path)?;
        let mut files = Vec::new();
        if root.is_file() {
            files.push(root);
        } else if let Some(file) = skill_file_in(&root) {
            files.push(file);
        } else {
            let mut visited = HashSet::new();
            walk(&root, &root, 0, &mut visited, &mut files)?;
        }
        files.sort();
        files.dedup();
        Ok(FsSource { files, max_bytes: skillwire::Limits::default().max_skill_md_bytes })
    }

    /// The same source, refusing SKILL.md files over `max_bytes` without reading them
    /// (pass the catalogue's [`Limits::max_skill_md_bytes`](skillwire::Limits); the
    /// default is the default limit).
    pub fn with_max_bytes(mut self, max_bytes: usize) -> FsSource {
        self.max_bytes = max_bytes;
        self
    }

    /// The SKILL.md files found.
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }
}

/// The skill file in `dir`, if it has one.
pub fn skill_file_in(dir: &Path) -> Option<PathBuf> {
    SKILL_FILE_NAMES.iter().map(|name| dir.join(name)).find(|p| p.is_file())
}

/// Searches `dir` (a canonical path inside `root`) and its subfolders. Each folder is
/// read once: entries that are not links are placed from their parent's canonical path
/// and the type the listing reports, so only links cost a resolution.
fn walk(
    root: &Path,
    dir: &Path,
    depth: usize,
    visited: &mut HashSet<PathBuf>,
    out: &mut Vec<PathBuf>,
) -> io::Result<()> {
    if !visited.insert(dir.to_path_buf()) {
        return Ok(());
    }
    let mut skill_files: [Option<PathBuf>; SKILL_FILE_NAMES.len()] = Default::default();
    let mut children = Vec::new();
    for entry in fs::read_dir(dir)? {
        let Ok(entry) = entry else { continue };
        let Ok(kind) = entry.file_type() else { continue };
        let name = entry.file_name();
        let path = dir.join(&name);
        // A link counts for what it leads to, and only while that stays inside the root.
        let (path, is_file, is_dir) = if kind.is_symlink() {
            let Ok(real) = fs::canonicalize(&path) else { continue };
            let Ok(meta) = fs::metadata(&real) else { continue };
            if !real.starts_with(root) {
                continue;
            }
            (real, meta.is_file(), meta.is_dir())
        } else {
            (path, kind.is_file(), kind.is_dir())
        };
        if is_file {
            if let Some(slot) = SKILL_FILE_NAMES.iter().position(|n| name == *n) {
                if let Some(slot) = skill_files.get_mut(slot) {
                    *slot = Some(path);
                }
            }
        } else if is_dir && depth < MAX_DEPTH && !SKIPPED_DIRS.iter().any(|s| name == *s) {
            children.push(path);
        }
    }
    // Within a folder `SKILL.md` is preferred over `skill.md`.
    if let Some(file) = skill_files.into_iter().flatten().next() {
        out.push(file);
    }
    children.sort();
    for child in children {
        // An unreadable subfolder is skipped, not fatal.
        let _ = walk(root, &child, depth + 1, visited, out);
    }
    Ok(())
}

/// Reads a SKILL.md as UTF-8 text, refusing one over `max_bytes` after reading at most
/// one byte more (a file that grows while it is read is refused too).
pub fn read_skill_file(path: &Path, max_bytes: usize) -> Result<String, String> {
    let failed = |e: io::Error| format!("{}: {e}", path.display());
    let file = fs::File::open(path).map_err(failed)?;
    let size = file.metadata().map_err(failed)?.len();
    let too_large = |size: u64| format!("{}: SKILL.md is {size} bytes; the limit is {max_bytes}", path.display());
    if size > max_bytes as u64 {
        return Err(too_large(size));
    }
    // Sized from the metadata: one read for a file that did not change since.
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(max_bytes).min(max_bytes).saturating_add(1));
    file.take((max_bytes as u64).saturating_add(1)).read_to_end(&mut bytes).map_err(failed)?;
    if bytes.len() > max_bytes {
        return Err(too_large(bytes.len() as u64));
    }
    String::from_utf8(bytes)
        .map_err(|e| format!("{}: not valid UTF-8 (byte {})", path.display(), e.utf8_error().valid_up_to()))
}

impl SkillSource for FsSource {
    fn list(&self) -> Result<Vec<SkillEntry>, SourceError> {
        Ok(self.files.iter().map(|p| SkillEntry { location: p.to_string_lossy().into_owned(), text: None }).collect())
    }

    fn read(&self, location: &str) -> Result<String, SourceError> {
        let path = Path::new(location);
        // Only the files this source listed can be read through it. They are sorted:
        // a lookup costs the logarithm of their number (a catalogue of n skills reads
        // n files while it is built).
        if self.files.binary_search_by(|f| f.as_path().cmp(path)).is_err() {
            return Err(SourceError(format!("{location}: not a skill of this source")));
        }
        read_skill_file(path, self.max_bytes).map_err(SourceError)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test
    use super::*;

    #[test]
    fn reads_only_the_files_it_listed() {
        let dir = std::env::temp_dir().join(format!("skillwire-fs-source-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        for name in ["b", "d", "f"] {
            fs::create_dir_all(dir.join(name)).unwrap();
            let text = format!("---\nname: {name}\ndescription: Skill {name}.\n---\nBody of {name}.\n");
            fs::write(dir.join(name).join("SKILL.md"), text).unwrap();
        }
        // A SKILL.md outside the root, whose path sorts between the listed ones.
        let outside = std::env::temp_dir().join(format!("skillwire-fs-source-{}-c", std::process::id()));
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("SKILL.md"), "---\nname: c\ndescription: Not listed.\n---\n").unwrap();
        let source = FsSource::discover(&dir).unwrap();
        let listed = source.list().unwrap();
        assert_eq!(listed.len(), 3);
        for entry in &listed {
            assert!(source.read(&entry.location).unwrap().contains("Body of"));
        }
        let stranger = fs::canonicalize(outside.join("SKILL.md")).unwrap();
        let refused = source.read(&stranger.to_string_lossy()).unwrap_err();
        assert!(refused.0.ends_with("not a skill of this source"), "{}", refused.0);
        let between = fs::canonicalize(&dir).unwrap().join("c/SKILL.md");
        assert!(source.read(&between.to_string_lossy()).is_err());
        let _ = fs::remove_dir_all(&dir);
        let _ = fs::remove_dir_all(&outside);
    }
}
