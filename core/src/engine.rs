//! The engine: a catalogue bound to the sources it came from, for hosts whose sources
//! answer synchronously. It lists the sources once (and on [`Engine::refresh`]), and
//! on each turn reads only the bodies it renders.
//!
//! Hosts with asynchronous sources use [`Catalog::build`] and [`Catalog::inject`]
//! directly, fetching texts themselves.

use crate::catalog::{Catalog, CatalogOptions};
use crate::catalog_text::{render_catalog, CatalogFormat, CatalogText};
use crate::error::Error;
use crate::render::RenderOptions;
use crate::source::{SkillSource, SourceError};
use crate::turn::{Injection, Match, TurnContext};
use serde::{Deserialize, Serialize};

/// Everything an engine is configured with.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Options {
    /// How the catalogue is built (precedence, available integrations, limits).
    pub catalog: CatalogOptions,
    /// How skills are injected (format, budget, `{baseDir}`).
    pub render: RenderOptions,
}

/// A catalogue over a list of sources.
#[derive(Debug)]
pub struct Engine<S: SkillSource> {
    sources: Vec<S>,
    options: Options,
    catalog: Catalog,
}

impl<S: SkillSource> Engine<S> {
    /// Lists and loads every source. Failures are in [`Catalog::report`].
    pub fn new(sources: Vec<S>, options: Options) -> Self {
        let catalog = Catalog::from_sources(&sources, &options.catalog);
        Engine { sources, options, catalog }
    }

    /// Lists and loads the sources again (after skills changed).
    pub fn refresh(&mut self) {
        self.catalog = Catalog::from_sources(&self.sources, &self.options.catalog);
    }

    /// The catalogue.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The options.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The skills the rules select for `message`. Reads nothing.
    pub fn matches(&self, message: &str) -> Result<Vec<Match>, Error> {
        self.catalog.matches(message)
    }

    /// Runs a turn with the engine's render options.
    pub fn inject(&self, message: &str) -> Result<Injection, Error> {
        self.inject_with(message, &self.options.render)
    }

    /// Runs a turn that knows the conversation (see [`TurnContext`]).
    pub fn inject_turn(&self, message: &str, context: &TurnContext) -> Result<Injection, Error> {
        self.inject_turn_with(message, context, &self.options.render)
    }

    /// Runs a turn with other render options.
    pub fn inject_with(&self, message: &str, render: &RenderOptions) -> Result<Injection, Error> {
        self.inject_turn_with(message, &TurnContext::default(), render)
    }

    /// Runs a turn that knows the conversation, with other render options.
    pub fn inject_turn_with(
        &self,
        message: &str,
        context: &TurnContext,
        render: &RenderOptions,
    ) -> Result<Injection, Error> {
        self.catalog.inject_turn(message, context, render, |entry| match self.sources.get(entry.source) {
            Some(source) => source.read(&entry.skill.location).map_err(|SourceError(e)| e),
            None => Err(format!("no source {}", entry.source)),
        })
    }

    /// The catalogue as text for the system prompt.
    pub fn catalog_text(&self, format: CatalogFormat, budget: Option<usize>) -> CatalogText {
        render_catalog(&self.catalog, format, budget)
    }
}
