//! Scan results kept per skill, so a body read again unchanged is not scanned again.

use super::{scan, Finding, ScanPolicy};
use crate::error::Error;
use crate::fast_hash::FastMap;
use std::sync::Mutex;

/// Most bytes of SKILL.md text a catalogue keeps to skip scanning a body read again
/// unchanged ([`ScanCache`]); past it the cache starts over.
pub const SCAN_CACHE_BYTES: usize = 4 << 20;

/// The SKILL.md texts turns have read, per skill, with what the scan found in them, so
/// that a body read again byte for byte is not scanned again. Exact: a text is reused
/// only when it equals the one scanned (no hash an author could collide). Bounded by
/// [`SCAN_CACHE_BYTES`]; a clone starts empty.
#[derive(Default)]
pub(crate) struct ScanCache {
    entries: Mutex<ScanCacheEntries>,
}

#[derive(Default)]
struct ScanCacheEntries {
    /// By the skill's place in the catalogue (a number the core gives, not an author).
    by_skill: FastMap<usize, (String, Vec<Finding>)>,
    bytes: usize,
}

impl ScanCache {
    /// The findings for skill `skill`'s `text`: remembered, or scanned now.
    pub(crate) fn findings(
        &self,
        skill: usize,
        text: &str,
        name: &str,
        policy: &ScanPolicy,
    ) -> Result<Vec<Finding>, Error> {
        let Ok(mut entries) = self.entries.lock() else {
            return scan(text, Some(name), policy);
        };
        if let Some((seen, findings)) = entries.by_skill.get(&skill) {
            if crate::text::same_text(seen, text) {
                return Ok(findings.clone());
            }
        }
        let findings = scan(text, Some(name), policy)?;
        if entries.bytes + text.len() > SCAN_CACHE_BYTES {
            *entries = ScanCacheEntries::default();
        }
        if text.len() <= SCAN_CACHE_BYTES {
            entries.bytes += text.len();
            if let Some((old, _)) = entries.by_skill.insert(skill, (text.to_owned(), findings.clone())) {
                entries.bytes -= old.len();
            }
        }
        Ok(findings)
    }
}

impl Clone for ScanCache {
    fn clone(&self) -> Self {
        ScanCache::default()
    }
}

impl std::fmt::Debug for ScanCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ScanCache")
    }
}
