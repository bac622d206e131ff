//! `skillwire mcp --watch`: the skills folders polled for changes. On a change (a file
//! added, removed, resized or rewritten under a `--skills` path) the folders are listed as
//! their sources list them and compared with the listing before ([`plan`]): a SKILL.md
//! deleted is taken out of the catalogue ([`Backend::remove`]) and one edited is taken again
//! ([`Backend::update`]), each in time proportional to that skill where the engine can
//! (it refreshes where it cannot); a SKILL.md added, one that changed within the last
//! [`SETTLE`](crate::catalog_cache::SETTLE) (its stamp could hide a second write: only a
//! refresh reads it again), or many changes at once refresh the engine (the folders walked
//! again, only the SKILL.md files whose stamp changed read again). Then the client is told
//! that the prompts and resources changed (`notifications/prompts/list_changed`,
//! `notifications/resources/list_changed`); the skills extension has no notification of
//! its own: a client lists the skills again.
//!
//! Polling, not the OS's file events: the same on every platform, in containers and on
//! network folders, at a cost of one `stat` per file each interval.

use super::server::SkillServer;
use crate::{Backend, FsSource};
use skillwire::SkillEntry;
use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Most entries (files and folders) one look at the folders visits; past it the rest
/// count as unchanged, and the server says so once.
const MAX_WATCHED_ENTRIES: usize = 200_000;

/// One look at the folders: a digest of every file's path and metadata (as the catalogue
/// cache reads it) under the roots (skipping `.git` and `node_modules`,
/// [`MAX_DEPTH`](crate::MAX_DEPTH) folders deep), and whether it took in every entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Look {
    pub(crate) digest: u64,
    pub(crate) complete: bool,
}

impl Look {
    /// Says on standard error, once (`told`), that changes past the entries it took in
    /// are not seen.
    pub(crate) fn warn_if_incomplete(self, told: &mut bool) {
        if !self.complete && !*told {
            *told = true;
            eprintln!(
                "skillwire mcp: --watch looks at the first {MAX_WATCHED_ENTRIES} files and folders under --skills; \
                 changes past them are not seen (restart the server to read them)"
            );
        }
    }
}

/// The folders under `roots`, looked at.
pub(crate) fn fingerprint(roots: &[PathBuf]) -> Look {
    fingerprint_within(roots, MAX_WATCHED_ENTRIES)
}

fn fingerprint_within(roots: &[PathBuf], max_entries: usize) -> Look {
    let mut hasher = DefaultHasher::new();
    let mut visited = 0;
    for root in roots {
        walk(root, 0, &mut hasher, &mut visited, max_entries);
    }
    Look { digest: hasher.finish(), complete: visited <= max_entries }
}

fn walk(path: &Path, depth: usize, hasher: &mut DefaultHasher, visited: &mut usize, max_entries: usize) {
    *visited += 1;
    if *visited > max_entries {
        return;
    }
    let Ok(meta) = std::fs::metadata(path) else { return };
    path.hash(hasher);
    if meta.is_file() {
        // As the catalogue cache compares files: a same-size rewrite within a coarse
        // modification time, or a file renamed into place, still counts.
        crate::catalog_cache::file_stamp(&meta).0.hash(hasher);
        return;
    }
    if !meta.is_dir() || depth > crate::MAX_DEPTH {
        return;
    }
    let Ok(entries) = std::fs::read_dir(path) else { return };
    let mut children: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    children.sort();
    for child in children {
        let skipped = child.file_name().and_then(|n| n.to_str()).is_some_and(|n| crate::SKIPPED_DIRS.contains(&n));
        if !skipped {
            walk(&child, depth + 1, hasher, visited, max_entries);
        }
    }
}

/// What each `--skills` path lists, in order (the engine's sources are the paths in the
/// same order): its entries as its [`FsSource`] lists them (locations, and stamps for the
/// files settled), or `None` when its skills could not be found.
pub(crate) type Listings = Vec<Option<Vec<SkillEntry>>>;

/// The `--skills` paths listed now (see [`Listings`]).
pub(crate) fn listings(roots: &[PathBuf]) -> Listings {
    let listing = |root: &PathBuf| FsSource::discover(root).ok().map(|source| crate::stamped_entries(&source.files()));
    roots.iter().map(listing).collect()
}

/// Most entry changes a look takes one by one; past it, the engine refreshes once (each
/// change beyond a body's text makes the catalogue's indexes again).
const MAX_ENTRY_CHANGES: usize = 8;

/// What to do about the change a look saw.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Plan {
    /// No SKILL.md changed (a file beside one did): the catalogue stays as it is.
    Unchanged,
    /// These entries changed, and nothing else: each is taken on its own.
    Entries(Vec<EntryChange>),
    /// List the sources and read what changed ([`Backend::refresh`]).
    Refresh,
}

/// One SKILL.md that changed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum EntryChange {
    /// Edited where it was: listed again with its new stamp.
    Edited { source: usize, entry: SkillEntry },
    /// Deleted (or its folder moved away).
    Removed { source: usize, location: String },
}

/// What to do, from the listings before a change and now: each entry removed or edited on
/// its own, unless a SKILL.md was added, one is unstamped now or was before (it changed
/// within [`SETTLE`](crate::catalog_cache::SETTLE): the catalogue took or would take it
/// unstamped, and only a refresh reads it again), a path could not be listed, or more than
/// [`MAX_ENTRY_CHANGES`] changed — then the engine refreshes.
pub(crate) fn plan(before: &Listings, now: &Listings) -> Plan {
    if before.len() != now.len() {
        return Plan::Refresh;
    }
    let mut changes = Vec::new();
    for (source, pair) in before.iter().zip(now).enumerate() {
        let (was, is) = match pair {
            (Some(was), Some(is)) => (was, is),
            (None, None) => continue,
            _ => return Plan::Refresh,
        };
        if was.iter().chain(is).any(|entry| entry.stamp.is_none()) {
            return Plan::Refresh;
        }
        let stamps: HashMap<&str, &Option<String>> = was.iter().map(|e| (e.location.as_str(), &e.stamp)).collect();
        for entry in is {
            match stamps.get(entry.location.as_str()) {
                None => return Plan::Refresh,
                Some(&stamp) if *stamp == entry.stamp => {}
                Some(_) => changes.push(EntryChange::Edited { source, entry: entry.clone() }),
            }
        }
        let listed: HashSet<&str> = is.iter().map(|e| e.location.as_str()).collect();
        let removed = was.iter().filter(|e| !listed.contains(e.location.as_str()));
        changes.extend(removed.map(|e| EntryChange::Removed { source, location: e.location.clone() }));
    }
    // Removals first: see `Plan::apply`.
    changes.sort_by_key(|change| !matches!(change, EntryChange::Removed { .. }));
    match changes.len() {
        0 => Plan::Unchanged,
        n if n > MAX_ENTRY_CHANGES => Plan::Refresh,
        _ => Plan::Entries(changes),
    }
}

impl Plan {
    /// Does it on `engine` (which refreshes itself where a change cannot be taken on its own).
    pub(crate) fn apply(self, engine: &mut dyn Backend) -> Result<(), String> {
        match self {
            Plan::Unchanged => Ok(()),
            Plan::Refresh => engine.refresh().map_err(|e| e.to_string()),
            Plan::Entries(changes) => {
                // A removal the engine could not take on its own refreshed it: the catalogue
                // then holds the folders as they are, the other removals included (each
                // would refresh again, the entry being unknown to it). An edit after a
                // refresh finds its stamp taken, and costs one file's reading.
                let mut refreshed = false;
                for change in changes {
                    match change {
                        EntryChange::Removed { .. } if refreshed => {}
                        EntryChange::Removed { source, location } => {
                            refreshed = !engine.remove(source, &location).map_err(|e| e.to_string())?;
                        }
                        EntryChange::Edited { source, entry } => {
                            engine.update(source, entry).map_err(|e| e.to_string())?;
                        }
                    }
                }
                Ok(())
            }
        }
    }
}

/// Looks at `roots` every `interval`; on a change from `last` (the look the catalogue was
/// read at, with the listings taken then), takes it into `server`'s engine as [`plan`]
/// says and notifies its clients. Runs as long as the server does.
pub(crate) async fn watch(server: SkillServer, roots: Vec<PathBuf>, interval: Duration, last: Look, listed: Listings) {
    let mut told = false;
    last.warn_if_incomplete(&mut told);
    let (mut last, mut listed) = (last.digest, listed);
    let roots: std::sync::Arc<[PathBuf]> = roots.into();
    loop {
        tokio::time::sleep(interval).await;
        let looking = std::sync::Arc::clone(&roots);
        // The folders are listed only when they changed (a look costs one `stat` a file),
        // after the look: what changed meanwhile is in the listing, and the next look sees
        // it again.
        let job = move || {
            let now = fingerprint(&looking);
            let listings = (now.digest != last).then(|| listings(&looking));
            (now, listings)
        };
        let looked = tokio::task::spawn_blocking(job).await;
        let Ok((now, listings)) = looked.map_err(|e| eprintln!("skillwire mcp: --watch stopped: {e}")) else { return };
        now.warn_if_incomplete(&mut told);
        let Some(listings) = listings else { continue };
        match server.reload(plan(&listed, &listings)).await {
            // Remembered only once taken: a failed read is tried again at the next look.
            Ok(()) => (last, listed) = (now.digest, listings),
            Err(why) => {
                eprintln!("skillwire mcp: the skills changed but could not be read again: {why}");
                continue;
            }
        }
        server.notify_changed();
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::{plan, EntryChange, Listings, Plan, MAX_ENTRY_CHANGES};
    use skillwire::SkillEntry;

    fn entry(location: &str, stamp: Option<&str>) -> SkillEntry {
        let entry = SkillEntry::new(location);
        match stamp {
            Some(stamp) => entry.with_stamp(stamp),
            None => entry,
        }
    }

    fn listing(entries: &[(&str, Option<&str>)]) -> Option<Vec<SkillEntry>> {
        Some(entries.iter().map(|&(location, stamp)| entry(location, stamp)).collect())
    }

    /// A SKILL.md edited or deleted, all stamped before and after, is taken on its own;
    /// anything the catalogue could only take by listing again refreshes.
    #[test]
    fn edits_and_deletions_are_taken_on_their_own_and_the_rest_refreshes() {
        let before: Listings = vec![listing(&[("/a/SKILL.md", Some("1")), ("/b/SKILL.md", Some("2"))]), None];
        // Nothing listed changed (a file beside a SKILL.md did).
        assert_eq!(plan(&before, &before.clone()), Plan::Unchanged);
        // `b` edited in the first path, `a` deleted.
        let now: Listings = vec![listing(&[("/b/SKILL.md", Some("3"))]), None];
        assert_eq!(
            plan(&before, &now),
            Plan::Entries(vec![
                EntryChange::Removed { source: 0, location: "/a/SKILL.md".to_owned() },
                EntryChange::Edited { source: 0, entry: entry("/b/SKILL.md", Some("3")) },
            ])
        );
        // An addition; an edit too recent to be stamped; a path that could not be listed,
        // or that can again; another number of paths: a refresh.
        let added =
            vec![listing(&[("/a/SKILL.md", Some("1")), ("/b/SKILL.md", Some("2")), ("/c/SKILL.md", Some("4"))]), None];
        let settling = vec![listing(&[("/a/SKILL.md", Some("1")), ("/b/SKILL.md", None)]), None];
        let unlisted = vec![None, None];
        let listed_again = vec![before[0].clone(), listing(&[("/d/SKILL.md", Some("5"))])];
        for now in [added, settling.clone(), unlisted, listed_again, vec![before[0].clone()]] {
            assert_eq!(plan(&before, &now), Plan::Refresh, "{now:?}");
        }
        // An entry the listing before had unstamped was taken unstamped: only a refresh
        // reads it again, even once it has settled.
        let settled = vec![listing(&[("/a/SKILL.md", Some("1")), ("/b/SKILL.md", Some("6"))]), None];
        assert_eq!(plan(&settling, &settled), Plan::Refresh);
        // Many changes at once (a branch checked out): one refresh.
        let many = |stamp: &str| -> Listings {
            vec![Some((0..=MAX_ENTRY_CHANGES).map(|n| entry(&format!("/{n}/SKILL.md"), Some(stamp))).collect())]
        };
        assert_eq!(plan(&many("1"), &many("2")), Plan::Refresh);
        let few = |stamp: &str| -> Listings {
            vec![Some((0..MAX_ENTRY_CHANGES).map(|n| entry(&format!("/{n}/SKILL.md"), Some(stamp))).collect())]
        };
        assert!(matches!(plan(&few("1"), &few("2")), Plan::Entries(changes) if changes.len() == MAX_ENTRY_CHANGES));
    }

    /// Skills in memory, each `(location, text)` stamped "1", counting its listings.
    struct Counted {
        skills: std::sync::Mutex<Vec<(String, String)>>,
        listings: std::sync::atomic::AtomicUsize,
    }

    impl skillwire::SkillSource for &Counted {
        fn list(&self) -> Result<Vec<SkillEntry>, skillwire::SourceError> {
            self.listings.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let skills = self.skills.lock().unwrap();
            Ok(skills.iter().map(|(location, _)| SkillEntry::new(location.as_str()).with_stamp("1")).collect())
        }
        fn read(&self, location: &str) -> Result<String, skillwire::SourceError> {
            let skills = self.skills.lock().unwrap();
            let found = skills.iter().find(|(at, _)| at == location).map(|(_, text)| text.clone());
            found.ok_or_else(|| skillwire::SourceError::new(format!("{location}: no such file")))
        }
    }

    /// Deletions taken one by one, the first of which the engine can only take by
    /// refreshing (its skill did not load): the refresh holds the others, which are not
    /// taken again (each would refresh once more).
    #[test]
    fn deletions_after_one_that_refreshed_are_not_taken_again() {
        let skill = |name: &str| format!("---\nname: {name}\ndescription: Skill {name}.\n---\nBody.\n");
        let mut skills = vec![("/broken/SKILL.md".to_owned(), "no frontmatter".to_owned())];
        skills.extend(["a", "b", "c"].map(|name| (format!("/{name}/SKILL.md"), skill(name))));
        let source = Counted { skills: std::sync::Mutex::new(skills), listings: Default::default() };
        let mut engine = skillwire::Engine::new(vec![&source], skillwire::Options::default());
        engine.refresh();
        let listed_before = source.listings.load(std::sync::atomic::Ordering::Relaxed);
        use skillwire::SkillSource;
        let before: Listings = vec![Some((&source).list().unwrap())];
        source.skills.lock().unwrap().retain(|(at, _)| at == "/c/SKILL.md");
        let now: Listings = vec![Some((&source).list().unwrap())];
        let plan = plan(&before, &now);
        assert!(matches!(&plan, Plan::Entries(changes) if changes.len() == 3), "{plan:?}");
        plan.apply(&mut engine).unwrap();
        // One refresh, for the first deletion; two listings were the test's own.
        assert_eq!(source.listings.load(std::sync::atomic::Ordering::Relaxed), listed_before + 3);
        let names: Vec<String> = engine.catalog().skills().iter().map(|s| s.skill.name.clone()).collect();
        assert_eq!(names, ["c"]);
    }

    /// A look takes in every entry up to its bound and says when it stopped short; a
    /// change to a file it took in changes the digest.
    #[test]
    fn a_look_says_whether_it_took_in_every_entry() {
        let dir = std::env::temp_dir().join(format!("skillwire-watch-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("a")).unwrap();
        for name in ["a/SKILL.md", "a/notes.md", "b.md"] {
            std::fs::write(dir.join(name), "x").unwrap();
        }
        let roots = [dir.clone()];
        // The root, `a`, its two files and `b.md`: five entries.
        let whole = super::fingerprint_within(&roots, 5);
        assert!(whole.complete);
        assert!(!super::fingerprint_within(&roots, 4).complete);
        assert_eq!(super::fingerprint_within(&roots, 100), whole);
        std::fs::write(dir.join("a/SKILL.md"), "longer").unwrap();
        assert_ne!(super::fingerprint_within(&roots, 5).digest, whole.digest);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
