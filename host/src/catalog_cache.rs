//! The catalogue cache: a snapshot of the catalogue built from a set of skill folders,
//! kept in the cache folder so that the next process over the same folders restores it
//! instead of loading, scanning and indexing every SKILL.md again (what makes a coding
//! agent's hook, started for every prompt, fast on large folders).
//!
//! A snapshot is used only when it was written under the same *key*: a SHA-256 over
//! every listed SKILL.md's path, size, modification and change times, inode and device,
//! in listing order. Editing, adding, removing, moving or replacing a skill changes the
//! key (as it changes what git's index compares), and the core refuses a snapshot of
//! other options or another skillwire version. The files beside a SKILL.md are not part
//! of the catalogue (they are read when a turn asks for them), so they are not part of
//! the key either.
//!
//! A file changed within the same tick of the filesystem's clock as it was looked at
//! could keep its times: so no snapshot is written while any listed file changed in the
//! last [`SETTLE`] (or has a time in the future; the next run writes it). Snapshots are
//! written to a temporary file and renamed into place, so a reader sees a whole snapshot
//! or none; the core also checks each one's length and checksum. The folder keeps the
//! [`KEPT_SNAPSHOTS`] snapshots used last: one per list of folders, options and build of
//! skillwire (so that an installed `skillwire` and a development build sharing the folder
//! keep one each instead of replacing each other's on every run).
//!
//! Off Unix the key has each file's size and modification time only (no inode or
//! change time): an edit that keeps both is not seen there.

use crate::FsSource;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

/// How long a listed file must have stayed unchanged before a snapshot is written.
pub const SETTLE: Duration = Duration::from_secs(2);

/// Whether a file last changed at `changed` (as [`file_stamp`] gives it) had settled at
/// `now`: unchanged for [`SETTLE`], so that its stamp tells any later write (one within the
/// same tick of the filesystem's clock could keep its times). Not when its time is unknown or
/// in the future.
pub(crate) fn settled(changed: Option<SystemTime>, now: SystemTime) -> bool {
    changed.is_some_and(|changed| now.duration_since(changed).is_ok_and(|age| age >= SETTLE))
}

/// Most snapshots the cache folder keeps: writing one removes the oldest past this.
pub const KEPT_SNAPSHOTS: usize = 8;

/// A cached catalogue for one list of skill folders: where its snapshot lives and the
/// key it must have been written under.
#[derive(Debug, Clone)]
pub struct CatalogCache {
    path: PathBuf,
    key: String,
    /// The options the catalogue is built with.
    options: skillwire::CatalogOptions,
    /// A listed file changed within [`SETTLE`]: don't write.
    settling: bool,
}

impl CatalogCache {
    /// The cache entry for `sources` (the folders, in order) built with `options`, under
    /// the cache folder `dir`: one file per list of folders, options and build (so that the
    /// hook and the MCP server over the same folders, whose options differ, each keep theirs).
    /// Looks at every listed SKILL.md's metadata (reads none); a file that cannot be
    /// looked at makes the key one no snapshot has.
    pub fn new(dir: &Path, sources: &[&FsSource], options: &skillwire::CatalogOptions) -> CatalogCache {
        let now = SystemTime::now();
        let mut settling = false;
        // The build (the core's snapshot version, the host's version and the digest of its
        // sources and component) names the file, and is in the key too, for what the host
        // alone decides (how it reads, how it crosses into the guest): builds of one version
        // that differ there do not share snapshots.
        let build = format!(
            "{}; host {} {}\n",
            skillwire::Catalog::snapshot_version(),
            env!("CARGO_PKG_VERSION"),
            env!("SKILLWIRE_HOST_DIGEST")
        );
        let mut roots = build.clone();
        let mut listing: Vec<u8> = format!("skillwire catalogue key 1\n{build}").into_bytes();
        for source in sources {
            roots.push_str(&source.root().to_string_lossy());
            roots.push('\0');
            listing.extend_from_slice(b"source\n");
            let files = source.files();
            let stamps = crate::parallel::map(&files, |file| fs::metadata(file).map(|meta| file_stamp(&meta)));
            for (file, stamp) in files.iter().zip(stamps) {
                listing.extend_from_slice(file.to_string_lossy().as_bytes());
                listing.push(0);
                match stamp {
                    Ok((line, changed)) => {
                        settling |= !settled(changed, now);
                        listing.extend_from_slice(line.as_bytes());
                    }
                    Err(e) => {
                        settling = true;
                        listing.extend_from_slice(format!("unreadable: {e}").as_bytes());
                    }
                }
                listing.push(b'\n');
            }
        }
        roots.push_str(&serde_json::to_string(options).unwrap_or_default());
        let name = skillwire::sha256_digest(roots.as_bytes());
        let name = name.trim_start_matches("sha256:");
        let file = format!("{}.snapshot", name.get(..32).unwrap_or(name));
        let key = skillwire::sha256_digest(&listing);
        CatalogCache { path: dir.join("catalogs").join(file), key, options: options.clone(), settling }
    }

    /// The key a snapshot of these folders must carry.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Where the snapshot lives.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The stored snapshot's bytes, if there is one and the core would restore it
    /// ([`skillwire::Catalog::check_snapshot`]: version, key, options, length, checksum);
    /// otherwise why not. A snapshot taken counts as used now, for pruning.
    pub fn load(&self) -> Result<Vec<u8>, String> {
        match self.load_any_key()? {
            (bytes, None) => Ok(bytes),
            (_, Some(stale)) => Err(stale.to_string()),
        }
    }

    /// The stored snapshot's bytes as [`CatalogCache::load`] gives them, and also when only
    /// its key differs (the skills changed since) or its build could not read an entry for
    /// a reason that may pass: then with that reason, for an engine to refresh it
    /// ([`skillwire::Engine::restore_or_build`]), reading only what changed or failed.
    pub fn load_any_key(&self) -> Result<(Vec<u8>, Option<skillwire::SnapshotError>), String> {
        let file = match fs::File::open(&self.path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err("none kept yet".to_owned()),
            Err(e) => return Err(format!("{}: {e}", self.path.display())),
        };
        let mut bytes = Vec::new();
        let read = (&file).take(skillwire::MAX_SNAPSHOT_BYTES as u64 + 1).read_to_end(&mut bytes);
        read.map_err(|e| format!("{}: {e}", self.path.display()))?;
        let stale = match skillwire::Catalog::check_snapshot(&bytes, &self.key, &self.options) {
            Ok(()) => None,
            // Refreshed by the engine: the skills changed since, or an entry failed to read.
            Err(stale @ (skillwire::SnapshotError::OtherKey | skillwire::SnapshotError::Unread { .. })) => Some(stale),
            Err(e) => return Err(e.to_string()),
        };
        drop(file);
        // Pruning keeps the snapshots used last: this one was (a failure only makes it
        // look older). Setting the time takes a handle that may write (Windows).
        let _ = fs::File::options().write(true).open(&self.path).and_then(|f| f.set_modified(SystemTime::now()));
        Ok((bytes, stale))
    }

    /// False while a listed file changed within [`SETTLE`]: a snapshot would not be stored.
    pub fn settled(&self) -> bool {
        !self.settling
    }

    /// Stores `snapshot`, whole or not at all, unless a listed file is still settling
    /// (then `Ok(false)`).
    pub fn store(&self, snapshot: &[u8]) -> io::Result<bool> {
        if self.settling {
            return Ok(false);
        }
        let Some(dir) = self.path.parent() else { return Ok(false) };
        fs::create_dir_all(dir)?;
        // One name per process and write: two threads (or two processes) never share one.
        static WRITES: AtomicU64 = AtomicU64::new(0);
        let write = WRITES.fetch_add(1, Ordering::Relaxed);
        let temporary = self.path.with_extension(format!("tmp-{}-{write}", std::process::id()));
        let written = fs::write(&temporary, snapshot).and_then(|()| fs::rename(&temporary, &self.path));
        if written.is_err() {
            let _ = fs::remove_file(&temporary);
        }
        written?;
        prune(dir, &self.path);
        Ok(true)
    }
}

/// Leaves the [`KEPT_SNAPSHOTS`] snapshots in `dir` used last (written or restored: their
/// modification time) and `kept`, just written, whatever the clock says; removes temporary
/// files a process left more than a minute ago (it stopped between writing and renaming).
fn prune(dir: &Path, kept: &Path) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    let mut snapshots = Vec::new();
    for entry in entries.flatten() {
        let (path, modified) = (entry.path(), entry.metadata().and_then(|m| m.modified()));
        let Ok(modified) = modified else { continue };
        match path.extension().and_then(|e| e.to_str()) {
            Some("snapshot") if path != kept => snapshots.push((modified, path)),
            Some(e) if e.starts_with("tmp-") && modified.elapsed().is_ok_and(|age| age > Duration::from_secs(60)) => {
                let _ = fs::remove_file(&path);
            }
            _ => {}
        }
    }
    snapshots.sort_by_key(|&(modified, _)| std::cmp::Reverse(modified));
    for (_, path) in snapshots.into_iter().skip(KEPT_SNAPSHOTS - 1) {
        let _ = fs::remove_file(path);
    }
}

/// A file's metadata as the cache's key (and `skillwire mcp --watch`) compares it — size,
/// modification and change times, inode, device — and when it last changed (the later of
/// its modification and change times), if the platform says.
#[cfg(unix)]
pub(crate) fn file_stamp(meta: &fs::Metadata) -> (String, Option<SystemTime>) {
    use std::os::unix::fs::MetadataExt;
    let line = format!(
        "{} {}.{} {}.{} {} {}",
        meta.len(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec(),
        meta.ino(),
        meta.dev()
    );
    let at = |seconds: i64, nanos: i64| {
        let since = Duration::new(u64::try_from(seconds).ok()?, u32::try_from(nanos).ok()?);
        SystemTime::UNIX_EPOCH.checked_add(since)
    };
    let changed = at(meta.mtime(), meta.mtime_nsec()).zip(at(meta.ctime(), meta.ctime_nsec())).map(|(m, c)| m.max(c));
    (line, changed)
}

/// A file's metadata as the cache's key (and `skillwire mcp --watch`) compares it — size
/// and modification time — and when it was last modified.
#[cfg(not(unix))]
pub(crate) fn file_stamp(meta: &fs::Metadata) -> (String, Option<SystemTime>) {
    let modified = meta.modified().ok();
    let since = modified.and_then(|m| m.duration_since(SystemTime::UNIX_EPOCH).ok()).unwrap_or_default();
    (format!("{} {}.{}", meta.len(), since.as_secs(), since.subsec_nanos()), modified)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test
    use super::*;

    fn folder(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("skillwire-cache-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        for skill in ["a", "b"] {
            fs::create_dir_all(dir.join(skill)).unwrap();
            fs::write(dir.join(skill).join("SKILL.md"), format!("---\nname: {skill}\ndescription: {skill}.\n---\n"))
                .unwrap();
        }
        dir
    }

    fn cache(dir: &Path, cache_dir: &Path) -> CatalogCache {
        CatalogCache::new(cache_dir, &[&FsSource::discover(dir).unwrap()], &skillwire::CatalogOptions::default())
    }

    #[test]
    fn the_key_changes_with_any_skill_and_nothing_is_written_while_files_settle() {
        let dir = folder("key");
        let cache_dir = dir.join(".cache");
        let first = cache(&dir, &cache_dir);
        // Just written: settling, so nothing is stored.
        assert!(!first.store(b"snapshot").unwrap());
        assert_eq!(first.load(), Err("none kept yet".to_owned()));
        assert_eq!(cache(&dir, &cache_dir).key(), first.key());
        // Edited, added, removed: each a new key.
        fs::write(dir.join("a/SKILL.md"), "---\nname: a\ndescription: Edited.\n---\n").unwrap();
        let edited = cache(&dir, &cache_dir);
        assert_ne!(edited.key(), first.key());
        fs::create_dir_all(dir.join("c")).unwrap();
        fs::write(dir.join("c/SKILL.md"), "---\nname: c\ndescription: c.\n---\n").unwrap();
        let added = cache(&dir, &cache_dir);
        assert_ne!(added.key(), edited.key());
        fs::remove_dir_all(dir.join("c")).unwrap();
        assert_ne!(cache(&dir, &cache_dir).key(), added.key());
        // One file per list of folders and options, whatever the skills in them.
        assert_eq!(added.path(), first.path());
        let other = skillwire::CatalogOptions { available: vec!["jira".to_owned()], ..Default::default() };
        let source = FsSource::discover(&dir).unwrap();
        assert_ne!(CatalogCache::new(&cache_dir, &[&source], &other).path(), first.path());
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_settled_folder_is_stored_whole_read_back_checked_and_pruned() {
        let dir = folder("store");
        let cache_dir = dir.join(".cache");
        let source = FsSource::discover(&dir).unwrap();
        let options = skillwire::CatalogOptions::default();
        let mut entry = CatalogCache::new(&cache_dir, &[&source], &options);
        // As if the files had settled.
        entry.settling = false;
        let engine = skillwire::Engine::new(vec![source.clone()], skillwire::Options::default());
        let snapshot = engine.snapshot(entry.key()).unwrap();
        assert!(entry.store(&snapshot).unwrap());
        assert_eq!(entry.load().unwrap(), snapshot);
        let names: Vec<_> = fs::read_dir(cache_dir.join("catalogs")).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 1, "no temporary file is left: {names:?}");
        // Checked before it is handed to an engine: another key (a skill changed), or
        // damaged bytes.
        let mut changed = entry.clone();
        changed.key = "another".to_owned();
        assert!(changed.load().unwrap_err().contains("key differs"));
        assert!(entry.store(&snapshot[..snapshot.len() - 1]).unwrap());
        assert!(entry.load().unwrap_err().contains("cannot be read"));
        // Past KEPT_SNAPSHOTS, the ones used longest ago go: times set by hand, a day apart,
        // so the order does not hang on the clock's resolution.
        let day = |n: u64| SystemTime::UNIX_EPOCH + Duration::from_secs(86_400 * (1 + n));
        let age = |path: &Path, at: SystemTime| fs::File::open(path).unwrap().set_modified(at).unwrap();
        assert!(entry.store(&snapshot).unwrap());
        age(entry.path(), day(0));
        let mut others = Vec::new();
        for n in 0..KEPT_SNAPSHOTS + 1 {
            let options = skillwire::CatalogOptions { available: vec![n.to_string()], ..options.clone() };
            let mut other = CatalogCache::new(&cache_dir, &[&source], &options);
            other.settling = false;
            assert!(other.store(b"bytes").unwrap());
            age(other.path(), day(1 + n as u64));
            if n == KEPT_SNAPSHOTS - 3 {
                // The first one, restored now: used last, so kept.
                assert_eq!(entry.load().unwrap(), snapshot);
            }
            others.push(other.path().to_owned());
        }
        let left = fs::read_dir(cache_dir.join("catalogs")).unwrap().count();
        assert_eq!(left, KEPT_SNAPSHOTS);
        assert!(entry.path().exists(), "the one restored last is kept");
        assert!(!others[0].exists() && !others[1].exists(), "the two used longest ago were removed");
        assert!(others[2..].iter().all(|p| p.exists()));
        let _ = fs::remove_dir_all(&dir);
    }
}
