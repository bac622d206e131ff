//! Input limits: every input the core accepts has a documented upper bound.
//!
//! Going past a limit never panics, hangs or allocates without bound: it becomes a
//! typed [`Error`](crate::Error) (for a message) or a skipped skill with a
//! diagnostic (for a SKILL.md), checked before the expensive work starts.

use serde::{Deserialize, Serialize};

/// Upper bounds on the inputs the core accepts. `Limits::default()` is sized for real
/// skill packs with a wide margin (the largest public SKILL.md seen is 73 KB).
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Limits {
    /// Largest SKILL.md accepted, in bytes (default 1 MiB). Larger files are skipped.
    pub max_skill_md_bytes: usize,
    /// Largest frontmatter accepted, in bytes (default 64 KiB).
    pub max_frontmatter_bytes: usize,
    /// Deepest flow nesting (`[`/`{`) accepted in frontmatter (default 32). Block
    /// nesting is bounded by the YAML parser's own recursion limit (128).
    pub max_yaml_depth: usize,
    /// Largest user message accepted per turn, in bytes (default 256 KiB).
    pub max_message_bytes: usize,
    /// Most skills a catalogue holds (default 50,000); entries past it are skipped.
    pub max_skills: usize,
    /// Longest skill name, tag or integration name considered, in bytes (default 256).
    pub max_name_bytes: usize,
    /// Longest description considered, in bytes (default 16 KiB). The standard's
    /// limit is 1,024 characters; longer ones load with a warning up to this bound.
    pub max_description_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_skill_md_bytes: 1 << 20,
            max_frontmatter_bytes: 64 << 10,
            max_yaml_depth: 32,
            max_message_bytes: 256 << 10,
            max_skills: 50_000,
            max_name_bytes: 256,
            max_description_bytes: 16 << 10,
        }
    }
}
