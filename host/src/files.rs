//! A skill folder's own files on the filesystem (`references/`, `scripts/`, `assets/`):
//! listed and read for [`FsSource`](crate::FsSource), never outside the folder.
//!
//! Only regular files are listed and read. A symbolic link counts for what it leads to,
//! and only while that stays inside the skill's folder; devices, pipes and sockets are
//! neither listed nor read. Listing goes [`MAX_DEPTH`](crate::MAX_DEPTH) folders deep,
//! skips hidden files and folders (`.env`, `.git`: the core refuses their paths),
//! `node_modules` and linked folders, and stops at [`MAX_LISTED_FILES`]
//! files or [`MAX_VISITED_ENTRIES`] entries; a read is refused for what the listing would
//! not hold. That a path stays inside is checked when it is resolved and again once the
//! file is open (the same file must be found there), so a folder swapped for a link in
//! between is caught. Files are opened without waiting (`O_NONBLOCK` on unix), so a named
//! pipe swapped in at that moment is refused rather than waited on.

use skillwire::ListedFile;
use std::fs;
use std::io;
use std::path::{Component, Path};

/// Most files listed in one skill's folder (the core keeps fewer:
/// `Limits::max_skill_files`); the walk stops there.
pub const MAX_LISTED_FILES: usize = 10_000;

/// Most folder entries (files and folders) the walk of one skill's folder visits.
pub const MAX_VISITED_ENTRIES: usize = 100_000;

/// The regular files under the skill folder `dir` (canonical), paths relative to it
/// with `/` between segments, sorted.
pub fn list_skill_files(dir: &Path) -> io::Result<Vec<ListedFile>> {
    let mut out = Vec::new();
    let mut visited = 0;
    walk(dir, dir, "", 0, &mut out, &mut visited)?;
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

fn walk(
    root: &Path,
    dir: &Path,
    prefix: &str,
    depth: usize,
    out: &mut Vec<ListedFile>,
    visited: &mut usize,
) -> io::Result<()> {
    let mut entries = Vec::new();
    for entry in fs::read_dir(dir)?.filter_map(Result::ok) {
        *visited += 1;
        if *visited > MAX_VISITED_ENTRIES {
            break;
        }
        entries.push(entry);
    }
    entries.sort_by_key(fs::DirEntry::file_name);
    for entry in entries {
        if out.len() >= MAX_LISTED_FILES || *visited > MAX_VISITED_ENTRIES {
            break;
        }
        // A name that is not UTF-8 cannot be asked for: it is not listed. Nor is a hidden
        // file or folder (`.env`, `.git`): the core refuses such paths.
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else { continue };
        if name.starts_with('.') {
            continue;
        }
        let Ok(kind) = entry.file_type() else { continue };
        let meta = if kind.is_symlink() {
            match fs::canonicalize(entry.path()) {
                Ok(real) if real.starts_with(root) && !kept_out(root, &real) => fs::metadata(&real),
                _ => continue,
            }
        } else {
            entry.metadata()
        };
        let Ok(meta) = meta else { continue };
        let path = if prefix.is_empty() { name.clone() } else { format!("{prefix}/{name}") };
        if meta.is_file() {
            out.push(ListedFile { path, size: meta.len() });
        } else if meta.is_dir() && !kind.is_symlink() && depth < crate::MAX_DEPTH {
            // Links to folders are not followed: the folder they lead to is listed where
            // it is, so no file is listed twice and no loop can form.
            if !crate::SKIPPED_DIRS.contains(&name.as_str()) {
                let _ = walk(root, &entry.path(), &path, depth + 1, out, visited);
            }
        }
    }
    Ok(())
}

/// The bytes of file `path` in the skill folder `dir` (canonical): at most `max_bytes`
/// and one more, so a caller can tell a file over the limit. Refused: a path the core
/// would refuse ([`skillwire::normalise_file_path`]), one that resolves outside `dir`
/// (through a link), and anything but a regular file.
pub fn read_skill_resource(dir: &Path, path: &str, max_bytes: usize) -> Result<Vec<u8>, String> {
    let normal = skillwire::normalise_file_path(path, skillwire::Limits::default().max_file_path_bytes)
        .map_err(|problem| problem.describe().to_owned())?;
    // Only what the listing would hold: not below a skipped folder, not deeper than the
    // walk goes, not through a linked folder (the walk does not follow those).
    let folders: Vec<&str> = normal.split('/').collect();
    let folders = folders.get(..folders.len().saturating_sub(1)).unwrap_or_default();
    if folders.len() > crate::MAX_DEPTH || folders.iter().any(|f| skipped_folder(f)) {
        return Err("not a file this source lists".to_owned());
    }
    let mut below = dir.to_path_buf();
    for folder in folders {
        below.push(folder);
        if fs::symlink_metadata(&below).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err("through a linked folder, which this source does not list".to_owned());
        }
    }
    let joined = dir.join(&normal);
    // Belt and braces: the joined path has only plain segments below `dir`.
    if joined.strip_prefix(dir).map_or(true, |rest| rest.components().any(|c| !matches!(c, Component::Normal(_)))) {
        return Err("outside the skill's folder".to_owned());
    }
    let real = fs::canonicalize(&joined).map_err(|e| e.to_string())?;
    if !real.starts_with(dir) {
        return Err("leads outside the skill's folder".to_owned());
    }
    if kept_out(dir, &real) {
        return Err("leads to a hidden or skipped file or folder".to_owned());
    }
    // Checked before opening: opening a named pipe would wait for a writer.
    if !fs::metadata(&real).is_ok_and(|m| m.is_file()) {
        return Err("not a regular file".to_owned());
    }
    let file = open_without_waiting(&real).map_err(|e| e.to_string())?;
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".to_owned());
    }
    // A folder swapped for a link between the check and the open would have opened another
    // file: resolve the path again now that the file is open, and require the same file.
    let again = fs::canonicalize(&joined).map_err(|e| e.to_string())?;
    if !again.starts_with(dir) || !same_file(&meta, &again) {
        return Err("changed while it was opened".to_owned());
    }
    crate::read_at_most(file, meta.len(), max_bytes).map_err(|e| e.to_string())
}

/// Whether `real` (resolved, inside the skill folder `dir`) is where the listing never
/// goes: under a hidden file or folder (a link named `notes.md` may lead to `.env`) or a
/// skipped folder.
fn kept_out(dir: &Path, real: &Path) -> bool {
    let inside = real.strip_prefix(dir).map(Path::components).into_iter().flatten();
    inside
        .map(|c| c.as_os_str())
        .any(|name| name.as_encoded_bytes().starts_with(b".") || name.to_str().is_some_and(skipped_folder))
}

/// Whether a folder named `name` is one the listing skips, compared as a filesystem that
/// ignores case (and, on Windows, trailing dots and spaces) would name it.
fn skipped_folder(name: &str) -> bool {
    crate::SKIPPED_DIRS.iter().any(|s| name.trim_end_matches(['.', ' ']).eq_ignore_ascii_case(s))
}

/// Opens `path` for reading. On unix with `O_NONBLOCK`: a named pipe opens at once (and is
/// then refused as not a regular file) instead of waiting for a writer; for a regular
/// file the flag changes nothing.
pub(crate) fn open_without_waiting(path: &Path) -> io::Result<fs::File> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

/// True when `path` is the file `opened` describes (same device and inode); on systems
/// without those, when it is still a regular file of the same size.
fn same_file(opened: &fs::Metadata, path: &Path) -> bool {
    let Ok(now) = fs::metadata(path) else { return false };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        now.dev() == opened.dev() && now.ino() == opened.ino()
    }
    #[cfg(not(unix))]
    {
        now.is_file() && now.len() == opened.len()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test
    use super::*;

    /// The re-check after opening tells the opened file from another one at the same path.
    #[test]
    fn the_file_opened_is_told_from_a_file_swapped_in() {
        let dir = std::env::temp_dir().join(format!("skillwire-same-file-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a.md"), dir.join("b.md"));
        fs::write(&a, "same size").unwrap();
        fs::write(&b, "same size").unwrap();
        let opened = fs::File::open(&a).unwrap().metadata().unwrap();
        assert!(same_file(&opened, &a));
        // On unix the inode tells two files of one size apart.
        assert_eq!(same_file(&opened, &b), cfg!(not(unix)));
        fs::remove_file(&a).unwrap();
        fs::rename(&b, &a).unwrap();
        assert_eq!(same_file(&opened, &a), cfg!(not(unix)), "a file swapped in at the same path");
        let _ = fs::remove_dir_all(&dir);
    }

    /// A named pipe where a file was checked opens without waiting for a writer, and is
    /// then refused (the regular-file check after the open).
    #[cfg(unix)]
    #[test]
    fn a_named_pipe_opens_without_waiting() {
        let dir = std::env::temp_dir().join(format!("skillwire-fifo-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("pipe.md");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let opened = open_without_waiting(&fifo).unwrap();
        assert!(!opened.metadata().unwrap().is_file());
        let _ = fs::remove_dir_all(&dir);
    }
}
