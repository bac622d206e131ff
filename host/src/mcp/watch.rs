//! `skillwire mcp --watch`: the skills folders polled for changes. A change (a file added,
//! removed, resized or rewritten under a `--skills` path) refreshes the engine (the
//! folders walked again, only the SKILL.md files whose stamp changed read again), and the
//! client is told that the prompts and resources changed (`notifications/prompts/list_changed`,
//! `notifications/resources/list_changed`); the skills extension has no notification of
//! its own: a client lists the skills again.
//!
//! Polling, not the OS's file events: the same on every platform, in containers and on
//! network folders, at a cost of one `stat` per file each interval.

use super::server::SkillServer;
use std::collections::hash_map::DefaultHasher;
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

/// Looks at `roots` every `interval`; on a change from `last` (the look the catalogue was
/// read at), reloads `server` and notifies its clients. Runs as long as the server does.
pub(crate) async fn watch(server: SkillServer, mut roots: Vec<PathBuf>, interval: Duration, last: Look) {
    let mut told = false;
    last.warn_if_incomplete(&mut told);
    let mut last = last.digest;
    let look = |roots: Vec<PathBuf>| async move {
        let looked = tokio::task::spawn_blocking(move || (fingerprint(&roots), roots)).await;
        looked.map_err(|e| eprintln!("skillwire mcp: --watch stopped: {e}")).ok()
    };
    loop {
        tokio::time::sleep(interval).await;
        let Some((now, back)) = look(roots).await else { return };
        roots = back;
        now.warn_if_incomplete(&mut told);
        let now = now.digest;
        if now == last {
            continue;
        }
        match server.reload().await {
            // Remembered only once read: a failed read is tried again at the next look.
            Ok(()) => last = now,
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
