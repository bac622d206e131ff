//! The engine: a catalogue bound to the sources it came from, for hosts whose sources
//! answer synchronously. It lists the sources once (and on [`Engine::refresh`]), and
//! on each turn reads only the bodies it renders.
//!
//! Hosts with asynchronous sources build the catalogue with [`CatalogBuild`] (answering
//! its needs themselves), plan a turn with [`Catalog::turn`], fetch what
//! [`Catalog::reads`] lists, and render it with [`Catalog::render`].

mod defaults;
mod driver;
pub(crate) mod source;

pub use defaults::Defaults;
pub use driver::{CatalogBuild, Need};

use crate::catalog::text::{render_catalog, CatalogFormat, CatalogText};
use crate::catalog::tools::{Provider, SkillTool, ToolDefinition, ToolOptions};
use crate::catalog::{Catalog, CatalogOptions, EmbeddingText, EntryUpdate};
use crate::engine::source::{SkillEntry, SkillSource, SourceError};
use crate::error::Error;
use crate::files::{read_file_answer, read_file_arguments, FileContent, FileError, SkillFiles, ToolAnswer};
use crate::select::llm::{SelectOptions, SelectPrompt, Selection, SkillStats};
use crate::turn::render::RenderOptions;
use crate::turn::{Injection, Turn, TurnContext};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// Everything an engine is configured with.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Options {
    /// How the catalogue is built (precedence, available integrations, limits).
    pub catalog: CatalogOptions,
    /// How skills are injected (format, budget, `{baseDir}`).
    pub render: RenderOptions,
}

/// The host's embedding model, for ranking by meaning as well as by words
/// ([`Engine::with_embedder`]). skillwire runs and downloads no model: `embed` calls
/// whatever the host uses (a local model, an API).
pub trait Embedder {
    /// One vector per text, in order, all of one length.
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, String>;
}

/// A catalogue over a list of sources.
pub struct Engine<S: SkillSource> {
    sources: Vec<S>,
    options: Options,
    catalog: Catalog,
    embedder: Option<Box<dyn Embedder>>,
    /// Why the skills have no embeddings, if the embedder failed.
    embedding_error: Option<String>,
}

impl<S: SkillSource + std::fmt::Debug> std::fmt::Debug for Engine<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("sources", &self.sources)
            .field("options", &self.options)
            .field("catalog", &self.catalog)
            .field("embedder", &self.embedder.is_some())
            .finish()
    }
}

impl<S: SkillSource> Engine<S> {
    /// Lists and loads every source. Failures are in [`Catalog::report`].
    pub fn new(sources: Vec<S>, options: Options) -> Self {
        let catalog = Catalog::from_sources(&sources, &options.catalog);
        Engine::with_catalog(sources, options, catalog)
    }

    /// The engine over `sources` with `catalog`, built from them with `options.catalog`.
    fn with_catalog(sources: Vec<S>, options: Options, catalog: Catalog) -> Self {
        Engine { sources, options, catalog, embedder: None, embedding_error: None }
    }

    /// The engine over `sources` with the catalogue `snapshot` holds, when this build of
    /// skillwire wrote it under `key` with `options.catalog` ([`Catalog::from_snapshot`]):
    /// the sources are not listed nor read. Under another key (the sources changed since),
    /// or when its build could not read an entry, the snapshot's catalogue is
    /// [refreshed](Engine::refresh): the sources are listed and only entries whose stamp
    /// changed, that have none, or that failed are read. Otherwise the engine
    /// is built as [`Engine::new`] builds it. The second value says why the snapshot was
    /// not used as it was. `key` must change whenever the sources' skills do (see
    /// [`Catalog::snapshot`]).
    #[cfg(feature = "snapshot")]
    pub fn restore_or_build(
        sources: Vec<S>,
        options: Options,
        snapshot: &[u8],
        key: &str,
    ) -> (Self, Result<(), crate::SnapshotError>) {
        match Catalog::from_snapshot(snapshot, key, &options.catalog) {
            Ok(catalog) => (Engine::with_catalog(sources, options, catalog), Ok(())),
            // The sources changed, or an entry could not be read: refreshed, reading only
            // what changed (and what failed).
            Err(why @ (crate::SnapshotError::OtherKey | crate::SnapshotError::Unread { .. })) => {
                match Catalog::restored_for_refresh(snapshot, &options.catalog) {
                    Ok(previous) => {
                        let build =
                            CatalogBuild::new(sources.len(), options.catalog.clone(), false).with_previous(previous);
                        let catalog = build.run(&sources).0;
                        (Engine::with_catalog(sources, options, catalog), Err(why))
                    }
                    Err(why) => (Engine::new(sources, options), Err(why)),
                }
            }
            Err(why) => (Engine::new(sources, options), Err(why)),
        }
    }

    /// The engine over `sources`, built taking the entries `parts` prepared
    /// ([`Catalog::prepare_part`], each over sources listing part of these sources' entries,
    /// with `options.catalog`): such an entry, listed with the stamp it was prepared under,
    /// is not read, and the catalogue is the one [`Engine::new`] builds. The second value is
    /// the first reason a part was not taken (its entries are then read).
    #[cfg(feature = "snapshot")]
    pub fn from_parts(
        sources: Vec<S>,
        options: Options,
        parts: Vec<Vec<u8>>,
    ) -> (Self, Result<(), crate::SnapshotError>) {
        let (build, taken) = CatalogBuild::new(sources.len(), options.catalog.clone(), false).with_parts(parts);
        let catalog = build.run(&sources).0;
        (Engine::with_catalog(sources, options, catalog), taken)
    }

    /// The engine over `sources`, built as [`Engine::from_parts`] builds it from the parts
    /// `build` took one at a time ([`PartsBuild::take`](crate::PartsBuild::take), as each was
    /// prepared), its ranking index made from what reading their skills gave then. The
    /// second value says why nothing was taken (`build` was for options other than
    /// `options.catalog`): every entry is then read.
    #[cfg(feature = "snapshot")]
    pub fn from_parts_build(
        sources: Vec<S>,
        options: Options,
        build: crate::PartsBuild,
    ) -> (Self, Result<(), crate::SnapshotError>) {
        let (build, taken) = CatalogBuild::new(sources.len(), options.catalog.clone(), false).with_parts_build(build);
        let catalog = build.run(&sources).0;
        (Engine::with_catalog(sources, options, catalog), taken)
    }

    /// The engine's catalogue as bytes for [`Engine::restore_or_build`] under `key`.
    #[cfg(feature = "snapshot")]
    pub fn snapshot(&self, key: &str) -> Result<Vec<u8>, crate::SnapshotError> {
        self.catalog.snapshot(key)
    }

    /// Ranks with the host's embedding model too: the skills are embedded now (and after
    /// a refresh, those whose text to embed is new — a skill whose text did not change keeps
    /// the model's vector; after an update, the skills read again), each message on its turn, and cosine similarity is fused into
    /// the ranking score (see [`RankOptions`](crate::RankOptions)). When `embed`
    /// fails, ranking stays lexical: [`Engine::embedding_error`] says why for the
    /// skills; a turn whose message cannot be embedded ranks by words alone. Vectors are kept
    /// by their text: an embedder that changes its model is given again with `with_embedder`,
    /// which embeds every skill.
    pub fn with_embedder(mut self, embedder: Box<dyn Embedder>) -> Self {
        self.embedder = Some(embedder);
        self.embed_skills();
        self
    }

    /// What to embed for each skill (see [`Catalog::embedding_texts`]), for hosts
    /// that embed outside a turn and call [`Engine::set_embeddings`].
    pub fn embedding_texts(&self) -> Vec<EmbeddingText> {
        self.catalog.embedding_texts()
    }

    /// Sets the skills' embeddings (see [`Catalog::set_embeddings`]); a refresh drops
    /// them (an engine [`with_embedder`](Engine::with_embedder) embeds again itself).
    pub fn set_embeddings(&mut self, vectors: Vec<(String, Vec<f32>)>) -> Result<usize, Error> {
        self.catalog.set_embeddings(vectors)
    }

    /// Why the skills have no embeddings, when the embedder failed.
    pub fn embedding_error(&self) -> Option<&str> {
        self.embedding_error.as_deref()
    }

    fn embed_skills(&mut self) {
        self.embed_skills_keeping(|_| Vec::new());
    }

    /// Embeds the skills with the host's model, asking only for those without a vector in
    /// what `kept` gives for the skills' texts to embed (by position: a skill whose text did
    /// not change keeps its vector).
    fn embed_skills_keeping(&mut self, kept: impl FnOnce(&[EmbeddingText]) -> Vec<Option<Box<[f32]>>>) {
        let Some(embedder) = &self.embedder else { return };
        let crate::catalog::EmbeddingPlan { kept, asked } = self.catalog.embedding_plan(kept);
        let fresh = if asked.is_empty() { Ok(Vec::new()) } else { embedder.embed(&asked) };
        self.embedding_error = self.catalog.take_embeddings_keeping(kept, fresh).err();
    }

    /// `context` with the message's embedding, when there is an embedder and the
    /// host did not supply one.
    /// (Borrowed as given on every turn without an embedder: nothing is copied.)
    fn with_message_embedding<'a>(&self, message: &str, context: &'a TurnContext) -> Cow<'a, TurnContext> {
        let fits = message.len() <= self.catalog.limits().max_message_bytes;
        // A turn on the host model's choice ranks nothing: no embedding is asked for.
        let ranks = context.selected.is_none();
        match (&self.embedder, &context.embedding, &self.embedding_error, fits && ranks) {
            (Some(embedder), None, None, true) => {
                let embedding = embedder.embed(&[message.to_owned()]).ok().and_then(|mut v| v.pop());
                Cow::Owned(TurnContext { embedding, ..context.clone() })
            }
            _ => Cow::Borrowed(context),
        }
    }

    /// Source `index`, or why there is none.
    fn source(&self, index: usize) -> Result<&S, String> {
        self.sources.get(index).ok_or_else(|| format!("no source {index}"))
    }

    /// Lists the sources again and builds the catalogue anew (after skills changed). An
    /// entry listed with the same [`stamp`](crate::SkillEntry::stamp) as before is not
    /// read, loaded nor scanned again: what it gave last time is used, and the catalogue
    /// is the one a full build would give (only the changed entries are read). Unstamped
    /// entries are all read again. When the sources list the same entries as last time, in
    /// the same order, every one stamped, at most 64 with a new stamp, and each of those leaves
    /// its skill's fields, sections, id, gates, warnings and blocked flag as they were (an
    /// edit to a body's instructions), they are taken in place: nothing else is made again;
    /// when they edit only what ranking and the rules read (a description, tags,
    /// `when_to_use`, `when_not_to_use`, a "When to use" section), they are taken in place
    /// and into both indexes: the ranking index in place (assembled again when they move the
    /// catalogue's average length), the rule automaton in place from 256 skills
    /// ([`EntryUpdate::Reindexed`](crate::EntryUpdate)).
    /// One entry added to the listing or removed from it (besides such edits) is taken in
    /// place the same way, when its skill takes or leaves a name no other skill wants (it
    /// loads, its id is its own, the catalogue is not full, no two skills meet under one
    /// name). A catalogue that has entries to read again (a read that failed, one past the
    /// limit) goes the usual way.
    pub fn refresh(&mut self) {
        let mut previous = std::mem::take(&mut self.catalog);
        let (number, vectors) = (previous.id, previous.take_vectors());
        // What the embedder's vectors were made from, to keep those whose text stays.
        let model = previous.model_vectors;
        let reuse = self.embedder.is_some() && model && !vectors.is_empty();
        let texts = match reuse {
            true => previous.embedding_texts(),
            false => Vec::new(),
        };
        let build = CatalogBuild::new(self.sources.len(), self.options.catalog.clone(), false).with_previous(previous);
        self.catalog = build.run(&self.sources).0;
        // Updated in place (it keeps its number): every skill's embedding text is as it was,
        // so the embedder's vectors are too (unless embedding failed: tried again). Vectors
        // the host set itself go, as with any refresh.
        let in_place = self.catalog.id == number;
        match in_place && model && self.embedder.is_some() && self.embedding_error.is_none() {
            true => self.catalog.put_back_vectors(vectors),
            // Otherwise the embedder is asked only for the texts it has not embedded.
            false if reuse => {
                let mut known = Catalog::vectors_by_text(texts, vectors);
                self.embed_skills_keeping(|now| Catalog::kept_for(now, &mut known));
            }
            false => self.embed_skills(),
        }
    }

    /// Takes one changed entry of source `source` — listed where it was (the same location,
    /// origin and id), its SKILL.md edited, with its new [`stamp`](crate::SkillEntry::stamp)
    /// and, when the host has it at hand, its text — without listing the sources: when it
    /// leaves its skill's fields, sections, id, gates, warnings and blocked flag as they were
    /// (an edit to a body's instructions), in place, in time proportional to that skill; when
    /// it edits only what ranking and the rules read (a description, tags, `when_to_use`,
    /// `when_not_to_use`, "When to use" sections, headings), in place, both indexes taking it
    /// in place too (the rule automaton from 256 skills; the ranking index assembled again
    /// when the edit moves the catalogue's average length), with the answers a refresh gives
    /// but without listing the sources or taking the other entries again
    /// ([`EntryUpdate::Reindexed`]); otherwise (an entry the catalogue has not listed with a
    /// stamp, no stamp, another origin or id, another field
    /// edited, a skill that lost its name to another, a read that failed, or a catalogue
    /// with entries to read again or a location listed twice) the engine
    /// [refreshes](Engine::refresh). Returns true when the entry was taken in place with nothing else
    /// changed (or its stamp was the one the catalogue has), false when the catalogue's
    /// indexes changed, or it was refreshed.
    ///
    /// For a host that learns of one change at a time (a file watcher's event, an editor
    /// saving a skill): other changes since the catalogue was built or last refreshed are
    /// seen at the next refresh. An update in place with nothing else changed keeps the
    /// embeddings the host set (no text to embed changed); when it returns false they are
    /// gone, as after a refresh (an engine with an embedder embeds the skills read again). Its
    /// text is prepared even when its stamp is the one the catalogue has (its origin or id
    /// may have changed).
    pub fn update(&mut self, source: usize, entry: SkillEntry) -> bool {
        let sources = &self.sources;
        let read = |location: &str| match sources.get(source) {
            Some(s) => s.read(location),
            None => Err(SourceError::new(format!("no source {source}"))),
        };
        match self.catalog.update_entry(source, entry, read) {
            EntryUpdate::InPlace => {
                // No text to embed changed; an embedding that failed before is tried again,
                // as a refresh does.
                if self.embedding_error.is_some() {
                    self.embed_skills();
                }
                true
            }
            EntryUpdate::Reindexed => {
                self.embed_after_reindexing();
                false
            }
            _ => {
                self.refresh();
                false
            }
        }
    }

    /// Takes the entry of source `source` at `location` out (its SKILL.md deleted, its
    /// folder moved away) without listing the sources: its skill, warnings and safety
    /// report go, and both indexes take the removal in place (see [`Engine::update`]), giving
    /// the answers a refresh that no longer finds it would (the others keep the embedder's
    /// vectors);
    /// otherwise (see [`Catalog::remove_entry`]: an entry the catalogue has not listed with a
    /// stamp or whose skill did not load, its last, a skill that shadowed another or is
    /// listed as `NAME@ORIGIN`, a catalogue where two skills met under one name from two
    /// origins or with entries to read again) the engine [refreshes](Engine::refresh). Returns true when the entry was taken
    /// out without a refresh. For a host that learns of one change at a time; embeddings the
    /// host set go, as after a refresh.
    pub fn remove(&mut self, source: usize, location: &str) -> bool {
        match self.catalog.remove_entry(source, location) {
            EntryUpdate::Reindexed => {
                self.embed_after_reindexing();
                true
            }
            _ => {
                self.refresh();
                false
            }
        }
    }

    /// After the catalogue made its indexes again in place: the skills not read again kept
    /// the model's vectors, so only the others are embedded (all, if the host had set the
    /// vectors: they went).
    fn embed_after_reindexing(&mut self) {
        if self.embedder.is_some() {
            let kept = self.catalog.take_vectors();
            self.embed_skills_keeping(|_| kept);
        }
    }

    /// Takes `sources` in place of the engine's (the same sources found again: a folder
    /// walked again finds skills added and removed) and [refreshes](Engine::refresh),
    /// reusing what did not change.
    pub fn replace_sources(&mut self, sources: Vec<S>) {
        self.sources = sources;
        self.refresh();
    }

    /// The catalogue.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The options.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Plans a turn on `message` ([`Catalog::turn`]); with an embedder, the message's
    /// embedding joins the ranking. Reads nothing: [`Turn::matches`] are the skills the
    /// turn would inject.
    pub fn turn(&self, message: &str, context: &TurnContext) -> Result<Turn, Error> {
        self.catalog.turn(message, &self.with_message_embedding(message, context))
    }

    /// Renders a planned turn with the engine's render options, reading the bodies from
    /// the sources ([`Catalog::render`]).
    pub fn render(&self, turn: &Turn) -> Result<Injection, Error> {
        self.catalog.render_with_files(
            turn,
            &self.options.render,
            |entry| self.source(entry.source)?.read(&entry.skill.location).map_err(|e| e.message),
            |entry| self.source(entry.source)?.list_files(&entry.skill.location).map_err(|e| e.message),
        )
    }

    /// Runs a turn: plans it and renders it ([`Engine::turn`], [`Engine::render`]).
    pub fn inject(&self, message: &str, context: &TurnContext) -> Result<Injection, Error> {
        self.render(&self.turn(message, context)?)
    }

    /// The prompt that asks the host's model to choose skills ([`Catalog::select_prompt`]);
    /// with an embedder, the message's embedding helps rank a shortlist.
    pub fn select_prompt(
        &self,
        message: &str,
        context: &TurnContext,
        stats: &[SkillStats],
        options: &SelectOptions,
    ) -> Result<SelectPrompt, Error> {
        self.catalog.select_prompt(message, &self.with_message_embedding(message, context), stats, options)
    }

    /// Reads the model's reply to a selection prompt ([`Catalog::select_parse`]).
    pub fn select_parse(&self, reply: &str, max_skills: usize) -> Result<Selection, Error> {
        self.catalog.select_parse(reply, max_skills)
    }

    /// The skills a model may invoke, as tools ([`Catalog::tools`]).
    pub fn tools(&self, options: &ToolOptions) -> Vec<SkillTool> {
        self.catalog.tools(options)
    }

    /// The tools in a provider's JSON shape ([`Catalog::tool_definitions`]).
    pub fn tool_definitions(&self, provider: Provider, options: &ToolOptions) -> Vec<ToolDefinition> {
        self.catalog.tool_definitions(provider, options)
    }

    /// The skills to offer as a user types `@` and `typed` ([`Catalog::complete`]).
    pub fn complete(&self, typed: &str, limit: usize) -> Vec<crate::Completion> {
        self.catalog.complete(typed, limit)
    }

    /// The catalogue as text for the system prompt.
    pub fn catalog_text(&self, format: CatalogFormat, budget: Option<usize>) -> CatalogText {
        render_catalog(&self.catalog, format, budget)
    }

    /// The catalogue for a turn on `message` ([`Catalog::catalog_for`]); with an
    /// embedder, the message's embedding helps find the relevant skills.
    pub fn catalog_for(
        &self,
        message: &str,
        context: &TurnContext,
        featured: usize,
        format: CatalogFormat,
        budget: Option<usize>,
    ) -> Result<CatalogText, Error> {
        self.catalog.catalog_for(message, &self.with_message_embedding(message, context), featured, format, budget)
    }

    /// The files of skill `skill`'s folder, from its source ([`Catalog::file_list`]).
    pub fn files(&self, skill: &str) -> Result<SkillFiles, FileError> {
        let request = self.catalog.files_request(skill)?;
        let listed = (self.source(request.source))
            .and_then(|source| source.list_files(&request.location).map_err(|e| e.message));
        self.catalog.file_list(&request, listed)
    }

    /// File `path` of skill `skill`'s folder, from its source: the path checked before
    /// the source is asked, the text scanned, the digest added ([`Catalog::file_content`]).
    pub fn read_file(&self, skill: &str, path: &str) -> Result<FileContent, FileError> {
        let request = self.catalog.file_request(skill, path)?;
        let read = self.source(request.source).and_then(|source| {
            source.read_file(&request.location, &request.path, request.max_bytes).map_err(|e| e.message)
        });
        self.catalog.file_content(&request, read)
    }

    /// Answers a model's call of the read-file tool ([`read_file_tool`](crate::read_file_tool)):
    /// `arguments` is the JSON the model wrote (`{"skill", "path"}`, at most
    /// [`Limits::max_message_bytes`](crate::Limits)); the answer is the file's text, a line
    /// describing a binary file, or why it could not be read (`is_error`).
    pub fn answer_read_file(&self, arguments: &str) -> ToolAnswer {
        match read_file_arguments(arguments, self.catalog.limits().max_message_bytes) {
            Ok(call) => read_file_answer(&self.read_file(&call.skill, &call.path)),
            Err(answer) => answer,
        }
    }
}
