//! The core's defaults as one value, exported to every runtime (WIT `defaults`, JS
//! `Skillwire.defaults()`, the CLI's help texts) so that no host restates them.

use crate::catalog::complete::DEFAULT_COMPLETIONS;
use crate::catalog::text::DEFAULT_FEATURED;
use crate::engine::Options;
use crate::select::llm::SelectOptions;
use serde::Serialize;

/// Every default a host may need: the engine's options (catalogue, ranking, limits, scan
/// policy, rendering), the selection prompt's options, and the default counts of the
/// calls that take one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Defaults {
    /// [`Options::default`].
    pub options: Options,
    /// [`SelectOptions::default`].
    pub select: SelectOptions,
    /// How many skills a catalogue for one turn features ([`DEFAULT_FEATURED`]).
    pub featured: usize,
    /// How many skills `@` completion offers ([`DEFAULT_COMPLETIONS`]).
    pub completions: usize,
}

impl Default for Defaults {
    fn default() -> Self {
        Defaults {
            options: Options::default(),
            select: SelectOptions::default(),
            featured: DEFAULT_FEATURED,
            completions: DEFAULT_COMPLETIONS,
        }
    }
}
