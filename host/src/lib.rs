//! Hosts for skillwire: the filesystem [`FsSource`] (used by the `skillwire` command)
//! and the discovery rules it follows.
//!
//! Discovery of one path:
//! - a file is taken as a SKILL.md;
//! - a folder holding `SKILL.md` (or `skill.md`) is one skill;
//! - any other folder is a root searched for `SKILL.md`/`skill.md` up to
//!   [`MAX_DEPTH`] folders deep, hidden folders included (packs keep skills under
//!   `.curated/`, `.system/`), skipping `.git` and `node_modules`. Symbolic links are
//!   followed only while they stay inside the root (those left out are kept, with where
//!   they lead, for `--verbose`: [`FsSource::links_outside`]), and a folder is walked once (again
//!   only when a path reaches it at a lesser depth), so links cannot loop: a skill is
//!   found when some path from the root, links included, reaches it within `MAX_DEPTH`
//!   folders. Within a folder `SKILL.md` is preferred over `skill.md`.
//!
//! Locations are absolute, canonical paths of the SKILL.md files, sorted. A root of many
//! folders is walked, and the listed files' metadata looked at, on several threads
//! (`parallel.rs`): the same files as one thread finds. A path that is a symbolic link is
//! resolved again at each walk: a link switched to another folder (`current` moved to a
//! new release) lists that folder's skills from then on.
//!
//! Listing starts a thread that reads the listed files ahead, in list order, at most
//! [`PREFETCH_FILES`] ahead (so at most that many texts wait in memory), and hands them
//! over half that many at a time: a catalogue build reads every file in that order, so its
//! reads overlap with the build's work instead of adding to it, and the two threads wake
//! each other once a handful of files instead of once a file. A read out of that order (a
//! turn's) stops the read-ahead, without waiting for it, and reads the file itself.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod backend;
pub mod catalog_cache;
mod explain;
pub mod files;
pub mod mcp;
mod parallel;
pub mod wasm;

pub use backend::Backend;
pub use explain::not_injected;

use skillwire::{ListedFile, SkillEntry, SkillSource, SourceError};
use std::collections::HashMap;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::{Arc, Mutex};

/// How many folders below a root the search goes.
pub const MAX_DEPTH: usize = 8;

/// The names a skill file may have, preferred first.
const SKILL_FILE_NAMES: [&str; 2] = ["SKILL.md", "skill.md"];

/// Folders never searched.
pub(crate) const SKIPPED_DIRS: [&str; 2] = [".git", "node_modules"];

/// Most files read ahead of the build and not yet taken (see the module docs).
pub const PREFETCH_FILES: usize = 32;

/// Files the read-ahead hands over at once. Handing over wakes the other thread, which
/// cost about 8 µs a file when it was done for every file (a tenth of the component's
/// first load of 10,000 skills); with one chunk waiting to be taken and one being read,
/// at most [`PREFETCH_FILES`] texts are in memory.
const READ_AHEAD_CHUNK: usize = PREFETCH_FILES / 2;

/// A text read ahead, with the stamp its file had when it was opened (none when it could
/// not be looked at) and whether that stamp vouches for the text later on: not when the
/// file had changed within [`SETTLE`](catalog_cache::SETTLE), when a second write in the
/// same tick of the filesystem's clock could keep the stamp (the rule a listing's stamps
/// follow).
#[derive(Debug)]
struct ReadText {
    text: Result<String, SourceError>,
    stamp: Option<String>,
    settled: bool,
}

/// Texts read ahead, a chunk of consecutive files at a time, the first chunk from the
/// listing's first file.
type ReadAhead = Receiver<Vec<ReadText>>;

/// A read-ahead: the index of the file it holds next, and the rest of the chunk it is in.
#[derive(Debug)]
struct Ahead {
    next: usize,
    chunk: std::vec::IntoIter<ReadText>,
    chunks: ReadAhead,
    /// The listing it reads, in order (a read of another listing's file is not taken from it).
    files: Arc<[PathBuf]>,
}

impl Ahead {
    /// The next file's text, from this chunk or the next one (waiting for it); `None`
    /// when the reader is gone.
    fn take_next(&mut self) -> Option<ReadText> {
        if self.chunk.len() == 0 {
            self.chunk = self.chunks.recv().ok()?.into_iter();
        }
        let text = self.chunk.next()?;
        self.next += 1;
        Some(text)
    }
}

/// Skills on the local filesystem.
#[derive(Debug)]
pub struct FsSource {
    /// The path as the host gave it (a link, such as `current` pointing at a release, is
    /// resolved again at each walk).
    given: PathBuf,
    /// The discovered path, canonical: where `given` led at the last walk. Shared by clones.
    root: Arc<Mutex<PathBuf>>,
    /// The SKILL.md files found, sorted: at discovery, then at each listing after the first.
    files: Mutex<Arc<[PathBuf]>>,
    /// The links discovery left out because they lead outside the root, and where to.
    links_outside: Arc<[(PathBuf, PathBuf)]>,
    /// Listed before, or restored in place of a listing: the next listing walks the folders
    /// again. Shared by clones: they are one source (the engine lists a clone, the host
    /// keeps the original).
    listed: Arc<std::sync::atomic::AtomicBool>,
    max_bytes: usize,
    /// The files read ahead since the last listing (see [`Ahead`]).
    ahead: Mutex<Option<Ahead>>,
}

impl Clone for FsSource {
    /// The same files; a clone reads nothing ahead until it is listed.
    fn clone(&self) -> Self {
        FsSource {
            given: self.given.clone(),
            root: Arc::clone(&self.root),
            files: Mutex::new(self.files()),
            links_outside: Arc::clone(&self.links_outside),
            listed: Arc::clone(&self.listed),
            max_bytes: self.max_bytes,
            ahead: Mutex::new(None),
        }
    }
}

impl FsSource {
    /// Discovers the skills under `path` (see the module docs). Fails when the path
    /// does not exist or cannot be read.
    pub fn discover(path: &Path) -> io::Result<FsSource> {
        let root = fs::canonicalize(path)?;
        let found = find(&root)?;
        Ok(FsSource {
            given: path.to_path_buf(),
            root: Arc::new(Mutex::new(root)),
            files: Mutex::new(found.files.into()),
            links_outside: found.links_outside.into(),
            listed: Arc::new(std::sync::atomic::AtomicBool::new(false)),
            max_bytes: skillwire::Limits::default().max_skill_md_bytes,
            ahead: Mutex::new(None),
        })
    }

    /// The same source, refusing SKILL.md files over `max_bytes` without reading them
    /// (pass the catalogue's [`Limits::max_skill_md_bytes`](skillwire::Limits); the
    /// default is the default limit).
    pub fn with_max_bytes(mut self, max_bytes: usize) -> FsSource {
        self.max_bytes = max_bytes;
        self
    }

    /// Makes the next listing (of this source or a clone) walk the folders again, even
    /// right after discovery: for a host whose engine restored a kept catalogue instead of
    /// building one from a first listing, so that a later refresh (`--watch`) sees skills
    /// added since discovery.
    pub fn walk_at_next_listing(&self) {
        self.listed.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// The path discovered (canonical), as the last walk resolved it.
    pub fn root(&self) -> PathBuf {
        self.root.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// The symbolic links discovery left out because they lead outside the root, each
    /// with where it leads (sorted).
    pub fn links_outside(&self) -> &[(PathBuf, PathBuf)] {
        &self.links_outside
    }

    /// The SKILL.md files found (at discovery, or at the last listing).
    pub fn files(&self) -> Arc<[PathBuf]> {
        Arc::clone(&self.files.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
    }

    /// The index of `location` among `files` (sorted), if this source listed it.
    fn index_of(files: &[PathBuf], location: &str) -> Result<usize, SourceError> {
        let path = Path::new(location);
        (files.binary_search_by(|f| f.as_path().cmp(path)))
            .map_err(|_| SourceError::new(format!("{location}: not a skill of this source")))
    }

    /// The folder of the listed skill whose SKILL.md is at `location` (canonical, as
    /// the listing is).
    fn skill_dir(&self, location: &str) -> Result<PathBuf, SourceError> {
        let files = self.files();
        let index = Self::index_of(&files, location)?;
        files
            .get(index)
            .and_then(|f| f.parent())
            .map(Path::to_path_buf)
            .ok_or_else(|| SourceError::new(format!("{location}: not a skill of this source")))
    }

    /// Starts reading every file ahead, in order, a chunk at a time (replacing an earlier
    /// read-ahead, whose thread then stops). Without a thread, nothing is read ahead.
    fn read_ahead(&self) {
        // No room in the channel: a chunk read waits in `send` until the last one is taken.
        let (sender, receiver) = sync_channel(0);
        let (files, max_bytes) = (self.files(), self.max_bytes);
        let listing = Arc::clone(&files);
        let reader = std::thread::Builder::new().name("skillwire-read-ahead".to_owned()).spawn(move || {
            for chunk in files.chunks(READ_AHEAD_CHUNK) {
                let texts = chunk.iter().map(|file| read_stamped(file, max_bytes)).collect();
                // The receiver is gone: the build is over or read out of order.
                if sender.send(texts).is_err() {
                    break;
                }
            }
        });
        if let Ok(mut ahead) = self.ahead.lock() {
            *ahead = reader.is_ok().then(|| Ahead {
                next: 0,
                chunk: Vec::new().into_iter(),
                chunks: receiver,
                files: listing,
            });
        }
    }

    /// The text of the file at `location`, if the read-ahead holds it next and the file
    /// has not changed since it was read. A read-ahead outlives the build that listed it
    /// (a refresh that reads nothing leaves it waiting at the first file), so a later read
    /// — a turn's, an update's — could otherwise be handed a text older than the file:
    /// a changed file (by its stamp) stops the read-ahead, and is read again.
    fn take_read_ahead(&self, location: &str) -> Option<Result<String, SourceError>> {
        let mut slot = self.ahead.lock().ok()?;
        let ahead = slot.as_mut()?;
        let held_next = ahead.files.get(ahead.next).is_some_and(|f| f.as_os_str() == location);
        if !held_next {
            return None;
        }
        let Some(held) = ahead.take_next() else {
            // The reader is gone (it could not be given the next chunk): nothing more ahead.
            *slot = None;
            return None;
        };
        let now = fs::metadata(location).ok().map(|meta| catalog_cache::file_stamp(&meta).0);
        if held.stamp.is_none() || now != held.stamp {
            *slot = None;
            return None;
        }
        if !held.settled {
            // Its stamp cannot tell a rewrite since: this file is read again, and the
            // read-ahead goes on with the next.
            drop(slot);
            return Some(read_skill_file(Path::new(location), self.max_bytes));
        }
        Some(held.text)
    }

    /// Stops the read-ahead, without waiting for it (its thread ends at its next hand-over).
    fn stop_read_ahead(&self) {
        if let Ok(mut slot) = self.ahead.lock() {
            *slot = None;
        }
    }
}

/// The SKILL.md files under the canonical path `root` (see the module docs), sorted.
fn find(root: &Path) -> io::Result<Found> {
    let mut found = Found::default();
    if root.is_file() {
        found.files.push(root.to_path_buf());
    } else if let Some(file) = skill_file_in(root) {
        found.files.push(file);
    } else {
        walk(root, root, 0, &Visited::default(), &mut found)?;
    }
    found.files.sort();
    found.files.dedup();
    found.links_outside.sort();
    found.links_outside.dedup();
    Ok(found)
}

/// The entries a listing gives for `files` (SKILL.md paths, as a listing has them): each
/// stamped with its metadata, unless it changed within [`SETTLE`](catalog_cache::SETTLE)
/// (see [`FsSource::list`]). On several threads.
pub(crate) fn stamped_entries(files: &[PathBuf]) -> Vec<SkillEntry> {
    let now = std::time::SystemTime::now();
    let entry = |path: &PathBuf| {
        let entry = SkillEntry::new(path.to_string_lossy());
        let Ok(meta) = fs::metadata(path) else { return entry };
        match catalog_cache::file_stamp(&meta) {
            (stamp, changed) if catalog_cache::settled(changed, now) => entry.with_stamp(stamp),
            _ => entry,
        }
    };
    parallel::map(files, entry)
}

/// The skill file in `dir`, if it has one.
pub fn skill_file_in(dir: &Path) -> Option<PathBuf> {
    SKILL_FILE_NAMES.iter().map(|name| dir.join(name)).find(|p| p.is_file())
}

/// What a walk finds: the skill files, and the links it left out because they lead
/// outside the root (each with where it leads), for `--verbose` to name.
#[derive(Debug, Default)]
struct Found {
    files: Vec<PathBuf>,
    links_outside: Vec<(PathBuf, PathBuf)>,
}

/// The folders a walk has been in, each with the least depth it was walked at: shared by
/// the threads walking one root.
type Visited = Mutex<HashMap<PathBuf, usize>>;

/// Whether `dir` is to be walked at `depth`: not walked yet, or only deeper (a link can
/// reach a folder before its own parent does, at a depth that leaves part of it out). So a
/// walk finds every skill that some path from the root reaches within [`MAX_DEPTH`]
/// folders, whichever path it takes first — and threads find what one thread finds.
fn to_walk(visited: &Visited, dir: &Path, depth: usize) -> bool {
    let mut visited = visited.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    match visited.get_mut(dir) {
        Some(walked) if *walked <= depth => false,
        Some(walked) => {
            *walked = depth;
            true
        }
        None => {
            visited.insert(dir.to_path_buf(), depth);
            true
        }
    }
}

/// Searches `dir` (a canonical path inside `root`) and its subfolders. Each folder is
/// read once (again only when reached at a lesser depth): entries that are not links are
/// placed from their parent's canonical path and the type the listing reports, so only
/// links cost a resolution.
fn walk(root: &Path, dir: &Path, depth: usize, visited: &Visited, out: &mut Found) -> io::Result<()> {
    if !to_walk(visited, dir, depth) {
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
                out.links_outside.push((path, real));
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
    // Within a folder `SKILL.md` is preferred over `skill.md`. On a filesystem that ignores
    // case, `Skill.md` answers to those names too, as it always did.
    match skill_files.into_iter().flatten().next() {
        Some(file) => out.files.push(file),
        None => {
            if let Some(file) = skill_file_in(dir).and_then(|f| fs::canonicalize(f).ok()) {
                if file.starts_with(root) {
                    out.files.push(file);
                }
            }
        }
    }
    children.sort();
    // A root's folders are walked a folder per thread at a time when there are many (a
    // pack: `parallel::map` decides), the threads sharing what they visited. An unreadable
    // subfolder is skipped, not fatal.
    if depth == 0 {
        let walked = parallel::map(&children, |child| {
            let mut found = Found::default();
            let _ = walk(root, child, depth + 1, visited, &mut found);
            found
        });
        for found in walked {
            out.files.extend(found.files);
            out.links_outside.extend(found.links_outside);
        }
        return Ok(());
    }
    for child in children {
        let _ = walk(root, &child, depth + 1, visited, out);
    }
    Ok(())
}

/// Reads a SKILL.md as UTF-8 text, refusing one over `max_bytes` after reading at most
/// one byte more (a file that grows while it is read is refused too), and anything but a
/// regular file (opened without waiting, so a named pipe is refused, not waited on).
///
/// What the file is (over the limit by its size, not a regular file, not UTF-8) is a
/// [refusal](SourceError::refused): it lasts until the file changes. An I/O error, or a
/// file that grew past the limit while it was read, may pass.
pub fn read_skill_file(path: &Path, max_bytes: usize) -> Result<String, SourceError> {
    read_stamped(path, max_bytes).text
}

/// [`read_skill_file`], and the stamp the file had when it was opened (as a listing stamps
/// it; none when it could not be looked at): the text is never older than the stamp.
fn read_stamped(path: &Path, max_bytes: usize) -> ReadText {
    let opened = files::open_without_waiting(path).and_then(|file| Ok((file.metadata()?, file)));
    match opened {
        Ok((meta, file)) => {
            let (stamp, changed) = catalog_cache::file_stamp(&meta);
            let settled = catalog_cache::settled(changed, std::time::SystemTime::now());
            ReadText { text: read_opened(path, file, &meta, max_bytes), stamp: Some(stamp), settled }
        }
        Err(e) => {
            ReadText { text: Err(SourceError::new(format!("{}: {e}", path.display()))), stamp: None, settled: false }
        }
    }
}

/// The text of `file`, opened at `path` with metadata `meta` (see [`read_skill_file`]).
fn read_opened(path: &Path, file: fs::File, meta: &fs::Metadata, max_bytes: usize) -> Result<String, SourceError> {
    let failed = |e: io::Error| SourceError::new(format!("{}: {e}", path.display()));
    if !meta.is_file() {
        return Err(SourceError::refusal(format!("{}: not a regular file", path.display())));
    }
    let size = meta.len();
    let too_large = |size: u64| format!("{}: SKILL.md is {size} bytes; the limit is {max_bytes}", path.display());
    if size > max_bytes as u64 {
        return Err(SourceError::refusal(too_large(size)));
    }
    let bytes = read_at_most(file, size, max_bytes).map_err(failed)?;
    if bytes.len() > max_bytes {
        return Err(SourceError::new(too_large(bytes.len() as u64)));
    }
    skillwire::text_from_utf8(bytes)
        .map_err(|e| SourceError { message: format!("{}: {}", path.display(), e.message), ..e })
}

/// The bytes of an open file of `size` bytes (by its metadata), at most `max_bytes` and
/// one more, so that a caller can tell a file over the limit (or one that grew).
pub(crate) fn read_at_most(file: fs::File, size: u64, max_bytes: usize) -> io::Result<Vec<u8>> {
    // Sized from the metadata (one read for a file that did not change since), but not
    // trusted past 1 MiB: the buffer grows as bytes really arrive.
    let mut bytes =
        Vec::with_capacity(usize::try_from(size).unwrap_or(0).min(max_bytes).min(1 << 20).saturating_add(1));
    file.take((max_bytes as u64).saturating_add(1)).read_to_end(&mut bytes)?;
    Ok(bytes)
}

impl SkillSource for FsSource {
    /// The SKILL.md files, each stamped with its metadata (size, times, inode, device: as
    /// the catalogue cache compares files), so a refresh reads only the files that changed;
    /// unstamped (read on every build) while it changed within the last
    /// [`SETTLE`](catalog_cache::SETTLE), when a second write in the same tick of the
    /// filesystem's clock could keep its times. Stamps are taken before any file is read,
    /// so a text is never older than its stamp.
    ///
    /// The first listing is of the files [`FsSource::discover`] found, however long ago:
    /// the host made its catalogue cache's key from them, and a catalogue kept under that
    /// key must hold what it says (a later walk could see a skill added, or a link switched,
    /// since). Later listings walk the folders again (as does the first one after
    /// [`FsSource::walk_at_next_listing`]): a refresh sees skills added and removed. When
    /// the walk fails (the folder removed, or no longer readable), so does the listing: the
    /// catalogue reports the source as unlisted (a failure that may pass, so a kept
    /// catalogue holding it is refreshed, not restored).
    fn list(&self) -> Result<Vec<SkillEntry>, SourceError> {
        let first = !self.listed.swap(true, std::sync::atomic::Ordering::Relaxed);
        if !first {
            // Resolved again: a root that is a link may lead elsewhere now (a release
            // switched by replacing the link), and the listing is of where it leads.
            let failed = |e: io::Error| SourceError::new(format!("{}: {e}", self.root().display()));
            let root = fs::canonicalize(&self.given).map_err(failed)?;
            let found = find(&root).map_err(failed)?;
            *self.files.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = found.files.into();
            *self.root.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = root;
        }
        let entries = stamped_entries(&self.files());
        self.read_ahead();
        Ok(entries)
    }

    fn read(&self, location: &str) -> Result<String, SourceError> {
        // A build reads the listed files in order: each is the one the read-ahead holds next.
        if let Some(text) = self.take_read_ahead(location) {
            return text;
        }
        // Only the files this source listed can be read through it. They are sorted:
        // a lookup costs the logarithm of their number. A listed file read out of order (a
        // turn's) stops the read-ahead.
        Self::index_of(&self.files(), location)?;
        self.stop_read_ahead();
        read_skill_file(Path::new(location), self.max_bytes)
    }

    fn list_files(&self, location: &str) -> Result<Vec<ListedFile>, SourceError> {
        let dir = self.skill_dir(location)?;
        files::list_skill_files(&dir).map_err(|e| SourceError::new(format!("{}: {e}", dir.display())))
    }

    fn read_file(&self, location: &str, path: &str, max_bytes: usize) -> Result<Vec<u8>, SourceError> {
        files::read_skill_resource(&self.skill_dir(location)?, path, max_bytes).map_err(SourceError::new)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test
    use super::*;

    /// Skills that only a path through a link reaches within `MAX_DEPTH`, or that a link
    /// reaches first at too great a depth, under `root`; their SKILL.md files.
    #[cfg(unix)]
    fn skills_behind_links(root: &Path) -> Vec<PathBuf> {
        let skill = |dir: PathBuf| {
            fs::create_dir_all(&dir).unwrap();
            fs::write(dir.join("SKILL.md"), "---\nname: deep\ndescription: d\n---\n").unwrap();
            dir.join("SKILL.md")
        };
        let link = |to: &str, at: &str| {
            fs::create_dir_all(root.join(at).parent().unwrap()).unwrap();
            std::os::unix::fs::symlink(root.join(to), root.join(at)).unwrap();
        };
        // `l0`'s link reaches `l1/a` at the deepest depth walked, before `l1` does; `l1/a`
        // links to `l1/x`, whose skill is at the deepest depth from `l1` itself.
        fs::create_dir_all(root.join("l1/a")).unwrap();
        let first = skill(root.join("l1/x/1/2/3/4/5/6"));
        link("l1/a", "l0/1/2/3/4/5/6/y");
        link("l1/x", "l1/a/lnk");
        // `m0/alias` reaches `m1` one folder deeper than `m1` is, before `m1` does.
        let second = skill(root.join("m1/a/b/c/d/e/f/g"));
        link("m1", "m0/alias");
        vec![first, second]
    }

    /// A root of more folders than are walked on one thread: the threads find what one
    /// thread finds — nested skills, `skill.md`, hidden folders, skills that a link reaches
    /// first at too great a depth — skip what it skips, and a folder reached from two
    /// places (through a link) or a link back to the root gives its file once.
    #[cfg(unix)]
    #[test]
    fn a_large_root_walked_on_threads_finds_each_skill_once() {
        let root = std::env::temp_dir().join(format!("skillwire-fs-parts-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(&root).unwrap();
        let root = fs::canonicalize(&root).unwrap();
        // Alone, the link cases are walked on one thread.
        let mut expected = skills_behind_links(&root);
        expected.sort();
        assert_eq!(find(&root).unwrap().files, expected);
        let count = parallel::SHARE_FROM * 2 + 7;
        for i in 0..count {
            let dir = root.join(format!("s{i:04}"));
            fs::create_dir_all(&dir).unwrap();
            let file = match i % 5 {
                0 => dir.join("skill.md"),
                1 => dir.join("nested/deeper").join("SKILL.md"),
                _ => dir.join("SKILL.md"),
            };
            fs::create_dir_all(file.parent().unwrap()).unwrap();
            fs::write(&file, format!("---\nname: s{i}\ndescription: d\n---\n")).unwrap();
            expected.push(file);
        }
        let hidden = root.join(".curated/h/SKILL.md");
        fs::create_dir_all(hidden.parent().unwrap()).unwrap();
        fs::write(&hidden, "---\nname: h\ndescription: d\n---\n").unwrap();
        expected.push(hidden);
        for skipped in [".git/x", "node_modules/y"] {
            fs::create_dir_all(root.join(skipped)).unwrap();
            fs::write(root.join(skipped).join("SKILL.md"), "---\nname: n\ndescription: d\n---\n").unwrap();
        }
        // From the first folders into the last, and from the last back to the root.
        std::os::unix::fs::symlink(root.join(format!("s{:04}", count - 2)), root.join("s0003/alias")).unwrap();
        std::os::unix::fs::symlink(&root, root.join(format!("s{:04}/loop", count - 1))).unwrap();
        // Links that lead outside the root (a folder, and a SKILL.md as GNU stow links
        // one) are left out, and named with where they lead.
        let outside = root.with_file_name(format!("skillwire-fs-outside-{}", std::process::id()));
        let _ = fs::remove_dir_all(&outside);
        fs::create_dir_all(outside.join("skill")).unwrap();
        fs::write(outside.join("skill/SKILL.md"), "---\nname: o\ndescription: d\n---\n").unwrap();
        let outside = fs::canonicalize(&outside).unwrap();
        std::os::unix::fs::symlink(outside.join("skill"), root.join("s0001/out")).unwrap();
        fs::create_dir_all(root.join("stowed")).unwrap();
        std::os::unix::fs::symlink(outside.join("skill/SKILL.md"), root.join("stowed/SKILL.md")).unwrap();
        expected.sort();
        let found = find(&root).unwrap();
        assert_eq!(found.files.len(), count + 3);
        assert_eq!(found.files, expected);
        assert_eq!(
            found.links_outside,
            [
                (root.join("s0001/out"), outside.join("skill")),
                (root.join("stowed/SKILL.md"), outside.join("skill/SKILL.md")),
            ]
        );
        assert_eq!(FsSource::discover(&root).unwrap().links_outside(), &found.links_outside[..]);
        let _ = fs::remove_dir_all(&root);
        let _ = fs::remove_dir_all(&outside);
    }

    #[test]
    fn a_listing_after_the_first_finds_the_folders_as_they_are_and_stamps_settled_files() {
        let dir = std::env::temp_dir().join(format!("skillwire-fs-relist-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let write = |name: &str, description: &str| {
            fs::create_dir_all(dir.join(name)).unwrap();
            let text = format!("---\nname: {name}\ndescription: {description}\n---\n");
            fs::write(dir.join(name).join("SKILL.md"), text).unwrap();
        };
        write("a", "First.");
        write("b", "Second.");
        let source = FsSource::discover(&dir).unwrap();
        // A copy restored from a kept catalogue lists for the first time long after discovery.
        let restored = source.clone();
        let listed = source.list().unwrap();
        assert_eq!(listed.len(), 2);
        assert!(listed.iter().all(|e| e.stamp.is_none()), "written just now: not stamped yet");
        std::thread::sleep(catalog_cache::SETTLE + std::time::Duration::from_millis(100));
        let settled = source.list().unwrap();
        assert!(settled.iter().all(|e| e.stamp.is_some()));
        assert_eq!(source.list().unwrap(), settled, "unchanged: the same stamps");
        // Edited, added, removed: the next listing sees it (the edited file unstamped again).
        write("a", "First, edited.");
        write("c", "Third.");
        fs::remove_dir_all(dir.join("b")).unwrap();
        let again = source.list().unwrap();
        let names: Vec<&str> = again.iter().map(|e| e.location.rsplit('/').nth(1).unwrap()).collect();
        assert_eq!(names, ["a", "c"]);
        assert!(again.iter().all(|e| e.stamp.is_none()));
        let first: Vec<String> = restored.list().unwrap().into_iter().map(|e| e.location).collect();
        assert_eq!(first, again.iter().map(|e| e.location.clone()).collect::<Vec<_>>(), "walked again");
        assert!(source.read(&again[1].location).unwrap().contains("Third."), "a file found now can be read");
        assert!(source.read(&settled[1].location).is_err(), "a removed file is no longer the source's");
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_first_listing_is_discoverys_a_restored_one_walks_and_a_failed_walk_fails() {
        let dir = std::env::temp_dir().join(format!("skillwire-fs-restored-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let write = |name: &str| {
            fs::create_dir_all(dir.join(name)).unwrap();
            fs::write(dir.join(name).join("SKILL.md"), format!("---\nname: {name}\ndescription: D.\n---\n")).unwrap();
        };
        write("a");
        let (source, built) = (FsSource::discover(&dir).unwrap(), FsSource::discover(&dir).unwrap());
        let in_engine = source.clone();
        write("b");
        // However long after discovery (a first run compiling the component takes seconds),
        // a first listing is discovery's walk, which the catalogue cache's key was made
        // from...
        std::thread::sleep(catalog_cache::SETTLE + std::time::Duration::from_millis(100));
        assert_eq!(built.list().unwrap().len(), 1);
        // ...but not once the host says its catalogue was restored: the engine's clone
        // (whose first listing is a refresh) sees the skill added since.
        source.walk_at_next_listing();
        assert_eq!(in_engine.list().unwrap().len(), 2);
        // The folder gone: the listing fails, saying which folder, instead of listing the
        // files found last.
        fs::remove_dir_all(&dir).unwrap();
        let failed = in_engine.list().unwrap_err();
        assert!(!failed.refused && failed.message.contains(&*source.root().to_string_lossy()), "{failed:?}");
    }

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
        assert!(refused.message.ends_with("not a skill of this source"), "{}", refused.message);
        let between = fs::canonicalize(&dir).unwrap().join("c/SKILL.md");
        assert!(source.read(&between.to_string_lossy()).is_err());
        // Read ahead in list order or not, and through a clone, every read gets its own file.
        for order in [[0, 1, 2], [2, 0, 1], [1, 1, 0]] {
            let source = if order[0] == 1 { source.clone() } else { FsSource::discover(&dir).unwrap() };
            let listed = source.list().unwrap();
            for i in order {
                let name = ["b", "d", "f"][i];
                assert!(source.read(&listed[i].location).unwrap().contains(&format!("Body of {name}")));
            }
        }
        let _ = fs::remove_dir_all(&dir);
        let _ = fs::remove_dir_all(&outside);
    }

    #[test]
    fn reads_ahead_across_chunks_until_a_read_out_of_order() {
        let dir = std::env::temp_dir().join(format!("skillwire-read-ahead-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let count = 2 * READ_AHEAD_CHUNK + 5;
        for i in 0..count {
            fs::create_dir_all(dir.join(format!("s{i:03}"))).unwrap();
            let text = format!("---\nname: s{i:03}\ndescription: Skill {i}.\n---\nBody {i}.\n");
            fs::write(dir.join(format!("s{i:03}")).join("SKILL.md"), text).unwrap();
        }
        let held_next = |source: &FsSource| source.ahead.lock().unwrap().as_ref().map(|ahead| ahead.next);
        let source = FsSource::discover(&dir).unwrap();
        let listed = source.list().unwrap();
        assert_eq!(listed.len(), count);
        // In list order, past the end of a chunk: every text comes from the read-ahead.
        let past_a_chunk = READ_AHEAD_CHUNK + 3;
        for (i, entry) in listed.iter().enumerate().take(past_a_chunk) {
            assert!(source.read(&entry.location).unwrap().ends_with(&format!("Body {i}.\n")), "{i}");
            assert_eq!(held_next(&source), Some(i + 1));
        }
        // A location it did not list is refused, and the read-ahead goes on.
        let stranger = format!("{}/elsewhere/SKILL.md", dir.display());
        assert!(source.read(&stranger).unwrap_err().message.ends_with("not a skill of this source"));
        assert_eq!(held_next(&source), Some(past_a_chunk));
        // Out of order: the read-ahead stops, and every later read reads its own file.
        assert!(source.read(&listed[2].location).unwrap().ends_with("Body 2.\n"));
        assert_eq!(held_next(&source), None);
        for (i, entry) in listed.iter().enumerate().skip(past_a_chunk) {
            assert!(source.read(&entry.location).unwrap().ends_with(&format!("Body {i}.\n")), "{i}");
        }
        // Listed again: read ahead again, to the last file.
        let listed = source.list().unwrap();
        for (i, entry) in listed.iter().enumerate() {
            assert!(source.read(&entry.location).unwrap().ends_with(&format!("Body {i}.\n")), "{i}");
        }
        assert_eq!(held_next(&source), Some(count));
        let _ = fs::remove_dir_all(&dir);
    }

    /// A read-ahead outlives its build (a refresh that reads nothing leaves it at the first
    /// file): a file changed since it was read ahead is read again, not handed over as it was.
    #[test]
    fn a_file_changed_since_it_was_read_ahead_is_read_again() {
        let dir = std::env::temp_dir().join(format!("skillwire-read-ahead-changed-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        for name in ["a", "b"] {
            fs::create_dir_all(dir.join(name)).unwrap();
            fs::write(dir.join(name).join("SKILL.md"), format!("---\nname: {name}\ndescription: {name}.\n---\nOld.\n"))
                .unwrap();
        }
        let source = FsSource::discover(&dir).unwrap();
        let listed = source.list().unwrap();
        // Time for the read-ahead to read its first chunk (both files; it then waits to hand
        // it over), then the first file edited.
        std::thread::sleep(std::time::Duration::from_millis(300));
        fs::write(dir.join("a").join("SKILL.md"), "---\nname: a\ndescription: a.\n---\nNew, and longer.\n").unwrap();
        assert!(source.read(&listed[0].location).unwrap().ends_with("New, and longer.\n"));
        assert!(source.read(&listed[1].location).unwrap().ends_with("Old.\n"));
        let _ = fs::remove_dir_all(&dir);
    }

    /// A text held with its file's stamp unchanged is handed over only when the file had
    /// settled when it was read: a file written just before could be rewritten within the
    /// same tick of a coarse clock (FAT, older kernels) and keep its stamp, so it is read
    /// again, and the read-ahead goes on.
    #[test]
    fn a_text_read_ahead_of_an_unsettled_file_is_read_again() {
        let dir = std::env::temp_dir().join(format!("skillwire-read-ahead-unsettled-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        for name in ["a", "b"] {
            fs::create_dir_all(dir.join(name)).unwrap();
            fs::write(dir.join(name).join("SKILL.md"), format!("---\nname: {name}\ndescription: {name}.\n---\nNow.\n"))
                .unwrap();
        }
        let source = FsSource::discover(&dir).unwrap();
        let listed = source.list().unwrap();
        source.stop_read_ahead();
        // What a read-ahead holds when the file's stamp is as it was (as after a rewrite the
        // clock did not see): the text it read then.
        let hold = |settled: bool| {
            let stamp = |at: &str| Some(catalog_cache::file_stamp(&fs::metadata(at).unwrap()).0);
            let held = |at: &str| ReadText { text: Ok(format!("held {at}")), stamp: stamp(at), settled };
            let (sender, chunks) = sync_channel(1);
            sender.send(vec![held(&listed[0].location), held(&listed[1].location)]).unwrap();
            let chunk = Vec::new().into_iter();
            *source.ahead.lock().unwrap() = Some(Ahead { next: 0, chunk, chunks, files: source.files() });
        };
        hold(false);
        assert!(source.read(&listed[0].location).unwrap().ends_with("Now.\n"));
        assert_eq!(source.ahead.lock().unwrap().as_ref().map(|ahead| ahead.next), Some(1));
        assert!(source.read(&listed[1].location).unwrap().ends_with("Now.\n"));
        // Settled when read: the stamp vouches for the text held.
        hold(true);
        assert_eq!(source.read(&listed[0].location).unwrap(), format!("held {}", listed[0].location));
        let _ = fs::remove_dir_all(&dir);
    }

    /// A root given as a link is resolved again at each walk: once the link leads to
    /// another folder (a release switched), the listing is of that folder, and the files of
    /// the one before are no longer read through it.
    #[cfg(unix)]
    #[test]
    fn a_root_that_is_a_link_is_followed_where_it_leads_now() {
        let dir = std::env::temp_dir().join(format!("skillwire-fs-relinked-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        for (release, names) in [("v1", &["alpha"][..]), ("v2", &["alpha", "beta"][..])] {
            for name in names {
                fs::create_dir_all(dir.join(release).join(name)).unwrap();
                let text = format!("---\nname: {name}\ndescription: {name} of {release}.\n---\n");
                fs::write(dir.join(release).join(name).join("SKILL.md"), text).unwrap();
            }
        }
        let current = dir.join("current");
        std::os::unix::fs::symlink(dir.join("v1"), &current).unwrap();
        let source = FsSource::discover(&current).unwrap();
        source.walk_at_next_listing();
        let before = source.list().unwrap();
        assert_eq!(before.len(), 1);
        assert!(source.read(&before[0].location).unwrap().contains("alpha of v1"));
        // Switched as deployments do: a new link moved over the old one.
        std::os::unix::fs::symlink(dir.join("v2"), dir.join("current.new")).unwrap();
        fs::rename(dir.join("current.new"), &current).unwrap();
        let after = source.list().unwrap();
        assert_eq!(after.len(), 2);
        assert_eq!(source.root(), fs::canonicalize(dir.join("v2")).unwrap());
        assert!(source.read(&after[1].location).unwrap().contains("beta of v2"));
        assert!(source.read(&before[0].location).unwrap_err().message.ends_with("not a skill of this source"));
        let _ = fs::remove_dir_all(&dir);
    }
}
