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

/// Most entries one look at the folders visits; past it the rest count as unchanged.
const MAX_WATCHED_ENTRIES: usize = 200_000;

/// A digest of every file's path and metadata (as the catalogue cache reads it) under `roots` (skipping
/// `.git` and `node_modules`, [`MAX_DEPTH`](crate::MAX_DEPTH) folders deep).
pub(crate) fn fingerprint(roots: &[PathBuf]) -> u64 {
    let mut hasher = DefaultHasher::new();
    let mut visited = 0;
    for root in roots {
        walk(root, 0, &mut hasher, &mut visited);
    }
    hasher.finish()
}

fn walk(path: &Path, depth: usize, hasher: &mut DefaultHasher, visited: &mut usize) {
    *visited += 1;
    if *visited > MAX_WATCHED_ENTRIES {
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
            walk(&child, depth + 1, hasher, visited);
        }
    }
}

/// Looks at `roots` every `interval`; on a change from `last` (the fingerprint the
/// catalogue was read at), reloads `server` and notifies its clients. Runs as long as the
/// server does.
pub(crate) async fn watch(server: SkillServer, mut roots: Vec<PathBuf>, interval: Duration, mut last: u64) {
    let look = |roots: Vec<PathBuf>| async move {
        let looked = tokio::task::spawn_blocking(move || (fingerprint(&roots), roots)).await;
        looked.map_err(|e| eprintln!("skillwire mcp: --watch stopped: {e}")).ok()
    };
    loop {
        tokio::time::sleep(interval).await;
        let Some((now, back)) = look(roots).await else { return };
        roots = back;
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
