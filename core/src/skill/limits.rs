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
    /// Largest SKILL.md accepted, in bytes (default 1 MiB), when the catalogue is built
    /// (the skill is skipped, `too_large`) and when a turn reads it (the decision says
    /// `body-unavailable`). Hosts stop reading there: the filesystem source reads at
    /// most one byte more, the JS glue refuses longer strings before copying them.
    pub max_skill_md_bytes: usize,
    /// Largest frontmatter accepted, in bytes (default 64 KiB); past it the skill is
    /// skipped (`frontmatter_too_large`).
    pub max_frontmatter_bytes: usize,
    /// Deepest flow nesting (`[`/`{`) accepted in frontmatter (default 32); past it the
    /// skill is skipped (`yaml_limit`). Block nesting is bounded by the YAML parser's
    /// own recursion limit (128).
    pub max_yaml_depth: usize,
    /// Most alias references (`*name`) accepted in frontmatter (default 64); past it
    /// the skill is skipped (`yaml_limit`). The parser also bounds what aliases expand
    /// to ("repetition limit exceeded").
    pub max_yaml_aliases: usize,
    /// Largest user message accepted per turn, in bytes (default 256 KiB); past it the
    /// turn (or selection prompt) is refused with
    /// [`Error::MessageTooLarge`](crate::Error). A model's reply handed to
    /// [`Catalog::select_parse`](crate::Catalog::select_parse) is held to it too
    /// ([`Error::ReplyTooLarge`](crate::Error)).
    pub max_message_bytes: usize,
    /// Most skills a catalogue holds (default 50,000); entries past it are skipped with
    /// a reason.
    pub max_skills: usize,
    /// Longest skill name, tag or `requires` entry considered, in bytes (default 256).
    /// A longer name skips the skill (`name_too_long`); a longer tag or requirement is
    /// left out with a warning (`value_too_long`).
    pub max_name_bytes: usize,
    /// Longest description considered, in bytes (default 16 KiB): a longer one is cut
    /// on a character boundary, with a warning (`description_truncated`). The
    /// standard's limit is 1,024 characters; longer ones load with a warning too.
    pub max_description_bytes: usize,
    /// Largest file of a skill's folder handed out, in bytes (default 1 MiB): a larger one
    /// is refused (`file_too_large`); sources stop reading one byte past it.
    pub max_file_bytes: usize,
    /// Most files listed for one skill (default 1,000); the rest are counted as left out.
    pub max_skill_files: usize,
    /// Longest path of a skill's file accepted, in bytes (default 1 KiB); a longer one is
    /// refused (`invalid_path`, `too-long`).
    pub max_file_path_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_skill_md_bytes: 1 << 20,
            max_frontmatter_bytes: 64 << 10,
            max_yaml_depth: 32,
            max_yaml_aliases: 64,
            max_message_bytes: 256 << 10,
            max_skills: 50_000,
            max_name_bytes: 256,
            max_description_bytes: 16 << 10,
            max_file_bytes: 1 << 20,
            max_skill_files: 1_000,
            max_file_path_bytes: 1 << 10,
        }
    }
}
