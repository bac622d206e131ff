//! Building a catalogue from the host's sources without doing IO: [`CatalogBuild`] says
//! what it needs next — list a source, read an entry listed without its text, embed the
//! skills — and the host answers, synchronously or not. [`Catalog::from_sources`] and the
//! [`Engine`](crate::Engine) run it over sync sources; the component runs it over the
//! host's imports; the npm package runs it over sources that may answer with Promises. So
//! the order of reads, what a failure becomes and how embeddings are checked are written
//! once.

use crate::catalog::{
    changed_input, locations_unique, Builder, Catalog, CatalogInput, CatalogOptions, EmbeddingPlan, EntryUpdate,
    Listed, ListingChange, Prepared, Reuse, SkippedSkill, MAX_IN_PLACE,
};
use crate::engine::source::{SkillEntry, SkillSource, SourceError};
use crate::fast_hash::SeededMap;
use serde::Serialize;
use std::collections::VecDeque;

/// What building the catalogue needs next from the host (as JSON: `{"need": "list",
/// "source": 0}`, `{"need": "read", "source", "location"}`, `{"need": "embed", "texts"}`,
/// `{"need": "done"}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "need", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Need {
    /// The entries of source `source` ([`SkillSource::list`]): answer with
    /// [`CatalogBuild::listed`].
    List {
        /// The source's index.
        source: usize,
    },
    /// The SKILL.md text at `location` in source `source`, an entry listed without its
    /// text ([`SkillSource::read`]): answer with [`CatalogBuild::read`].
    Read {
        /// The source's index.
        source: usize,
        /// The entry's location.
        location: String,
    },
    /// One vector per text, in order, all of one length (the host's embedding model):
    /// answer with [`CatalogBuild::embedded`].
    Embed {
        /// What to embed for each skill whose vector is not kept from the catalogue
        /// refreshed (every skill, in a build), in catalogue order.
        texts: Vec<String>,
    },
    /// Nothing more: [`CatalogBuild::finish`] gives the catalogue.
    Done,
}

/// A catalogue being built from the host's sources, one [`Need`] at a time. Answers go to
/// the need [`CatalogBuild::need`] last returned; an answer that does not fit it (a read
/// when a listing was asked for) is ignored, and the need is asked again.
#[derive(Debug)]
pub struct CatalogBuild {
    /// Takes each entry as soon as it and every entry listed before it have their text
    /// (so the build holds at most one batch of texts); `None` once the catalogue is built.
    builder: Option<Builder>,
    sources: usize,
    embed: bool,
    /// The next source to list.
    next_source: usize,
    /// Listed entries not yet given to the builder, in list order: the first one waits
    /// for its read (`None`), or all of them have their text.
    pending: VecDeque<Pending>,
    /// Sources whose listing failed.
    failures: Vec<SkippedSkill>,
    asked: Option<Need>,
    catalog: Option<Catalog>,
    /// Whether the embedding step was answered.
    embedded: bool,
    embedding_error: Option<String>,
    /// What an earlier build prepared, for entries listed with the same stamp.
    reuse: Reuse,
    /// The stamps of the entries listed so far, by source and location.
    stamps: SeededMap<(usize, String), String>,
    /// The entries listed so far, in order (None once a source failed to list).
    listing: Option<Vec<Listed>>,
    /// A refresh's previous catalogue, while every entry listed so far is the one its
    /// listing has at that place (past at most one entry added or removed), with at most
    /// [`MAX_IN_PLACE`] stamps changed: it may be updated in place (`catalog/update.rs`).
    /// Given up for [`Reuse`] at the first entry that differs otherwise.
    previous: Option<Box<Catalog>>,
    /// The entries listed while `previous` stands, in order.
    held: Vec<Held>,
    /// How many of `held` changed their stamp (an added entry counts).
    held_changed: usize,
    /// The one entry the listing gained or lost against the last one, once found.
    skew: Skew,
    /// With `embed`: the vectors the host's model gave the previous catalogue, by the text
    /// each embeds, kept for the skills whose text to embed did not change.
    known_vectors: SeededMap<String, Box<[f32]>>,
    /// Once the catalogue is built: what is kept and what the model is asked for.
    embedding_plan: Option<EmbeddingPlan>,
}

/// How the entries held so far stand to the last listing: the same, one entry more (at
/// this place among the held), or one fewer (the last listing's entry at this place gone).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Skew {
    None,
    Added(usize),
    Removed(usize),
}

/// An entry listed while a refresh may still update the previous catalogue in place.
#[derive(Debug)]
struct Held {
    source: usize,
    /// As listed; its text dropped when its stamp did not change (what it gave last time
    /// stands for it).
    entry: SkillEntry,
    changed: bool,
    /// Not in the last listing (also `changed`).
    added: bool,
    /// Its text as read, for a changed entry listed without it.
    read: Option<Result<String, SourceError>>,
}

/// A listed entry on its way to the builder.
#[derive(Debug)]
struct Pending {
    source: usize,
    location: String,
    origin: Option<String>,
    /// The host's id for the skill.
    id: Option<String>,
    /// The SKILL.md text or why it could not be read; `None` until it is read.
    text: Option<Result<String, SourceError>>,
    /// What an earlier build prepared for it, when its stamp did not change: not read.
    reused: Option<Prepared>,
}

impl Pending {
    /// Ready for the builder: read, or prepared before.
    fn ready(&self) -> bool {
        self.text.is_some() || self.reused.is_some()
    }
}

impl CatalogBuild {
    /// A build over `sources` sources (indices `0..sources`, in precedence order); with
    /// `embed`, the skills are embedded once the catalogue is built.
    pub fn new(sources: usize, options: CatalogOptions, embed: bool) -> Self {
        CatalogBuild {
            builder: Some(Builder::new(options)),
            sources,
            embed,
            next_source: 0,
            pending: VecDeque::new(),
            failures: Vec::new(),
            asked: None,
            catalog: None,
            embedded: false,
            embedding_error: None,
            reuse: Reuse::default(),
            stamps: SeededMap::default(),
            listing: Some(Vec::new()),
            previous: None,
            held: Vec::new(),
            held_changed: 0,
            skew: Skew::None,
            known_vectors: SeededMap::default(),
            embedding_plan: None,
        }
    }

    /// The same build, reusing what `previous` (a catalogue of the same sources, left as it
    /// is: what it prepared is copied, or when it may be updated in place, the catalogue) prepared
    /// for every entry listed again at the same location, from the same source and origin,
    /// with the same [`stamp`](SkillEntry::stamp): such an entry is not read, and the
    /// catalogue is the one a full build would give. Nothing is reused when `previous` was
    /// built with other options. Entries whose read failed, or that came past the limit
    /// of skills, are read again.
    pub fn reusing(mut self, previous: &Catalog) -> Self {
        self.remember_vectors(previous);
        match self.may_update(previous) {
            true => self.with_previous(previous.clone()),
            false => self.with_reuse(previous.reuse()),
        }
    }

    /// The same build, reusing what `previous` prepared (see [`CatalogBuild::reusing`]);
    /// when the sources list the same entries as last time with only some stamps changed,
    /// `previous` is updated in place (`catalog/update.rs`) instead of built again.
    pub(crate) fn with_previous(mut self, previous: Catalog) -> Self {
        self.remember_vectors(&previous);
        match self.may_update(&previous) {
            true => {
                self.previous = Some(Box::new(previous));
                self
            }
            false => self.with_reuse(previous.into_reuse()),
        }
    }

    /// With `embed`, keeps the vectors the host's model gave `previous` by the text each
    /// embeds: the model is then asked only for the texts it has not embedded. (Not the
    /// vectors the host set by name, which a refresh drops.)
    fn remember_vectors(&mut self, previous: &Catalog) {
        if self.embed && self.known_vectors.is_empty() {
            self.known_vectors = previous.model_vectors_by_text();
        }
    }

    /// Whether `previous` may be updated in place by this build: built with the same
    /// options, keeping its listing, before anything is listed.
    fn may_update(&self, previous: &Catalog) -> bool {
        let same_options =
            self.builder.as_ref().is_some_and(|b| crate::catalog::same_options(b.options(), previous.options()));
        same_options && self.next_source == 0 && previous.listing_for_update().is_some()
    }

    /// The same build, taking the entries `parts` prepared
    /// ([`Catalog::prepare_part`](crate::Catalog::prepare_part), over these sources with
    /// these options): an entry listed with the stamp it was prepared under is not read.
    /// The second value is the first reason a part was not taken (another version of
    /// skillwire wrote it, other options, not a part); the build reads its entries.
    #[cfg(feature = "snapshot")]
    pub fn with_parts(self, parts: Vec<Vec<u8>>) -> (Self, Result<(), crate::SnapshotError>) {
        let Some(options) = self.builder.as_ref().map(Builder::options) else { return (self, Ok(())) };
        // The parts taken in turn, as a build handed them one at a time takes them.
        let mut build = crate::PartsBuild::new(options);
        let refused = parts.into_iter().map(|part| build.take(part)).fold(Ok(()), Result::and);
        let (this, taken) = self.with_parts_build(build);
        (this, refused.and(taken))
    }

    /// The same build, taking the entries the parts `build` took prepared (as
    /// [`CatalogBuild::with_parts`] does) and making its ranking index from what reading
    /// their skills gave as they were taken.
    /// The second value says why nothing was taken (`build` was for other options): every
    /// entry is then read.
    #[cfg(feature = "snapshot")]
    pub fn with_parts_build(mut self, build: crate::PartsBuild) -> (Self, Result<(), crate::SnapshotError>) {
        let Some(builder) = self.builder.as_mut() else { return (self, Ok(())) };
        match build.into_parts(builder.options()) {
            Ok((reuse, read)) => {
                builder.read_ahead(read);
                (self.with_reuse(reuse), Ok(()))
            }
            Err(why) => (self, Err(why)),
        }
    }

    /// The same build, reusing what `reuse` holds (see [`CatalogBuild::reusing`]).
    pub(crate) fn with_reuse(mut self, reuse: Reuse) -> Self {
        if let Some(builder) = &self.builder {
            self.reuse = reuse.for_options(builder.options());
        }
        self
    }

    /// What is needed next. Each source is listed in turn and its entries without text
    /// are read before the next source is listed (a refresh that may update the previous
    /// catalogue in place lists every source first, then reads the changed entries); then
    /// the catalogue is built, then (with `embed`) the skills are embedded.
    pub fn need(&mut self) -> Need {
        let need = self.compute_next();
        self.asked = Some(need.clone());
        need
    }

    fn compute_next(&mut self) -> Need {
        if self.previous.is_some() && self.next_source >= self.sources {
            if let Some(need) = self.settle_in_place() {
                return need;
            }
        }
        // Entries whose text is in (or that were prepared before) go to the builder, in
        // list order.
        while self.pending.front().is_some_and(Pending::ready) {
            let Some(Pending { source, location, origin, id, text, reused }) = self.pending.pop_front() else { break };
            let Some(builder) = self.builder.as_mut() else { continue };
            match (reused, text) {
                (Some(prepared), _) => builder.add_prepared(prepared, id),
                (None, Some(text)) => builder.add(CatalogInput { source, location, origin, id, text }),
                (None, None) => {}
            }
        }
        if let Some(Pending { source, location, text: None, reused: None, .. }) = self.pending.front() {
            return Need::Read { source: *source, location: location.clone() };
        }
        if self.next_source < self.sources {
            return Need::List { source: self.next_source };
        }
        let mut catalog = match self.catalog.take() {
            Some(catalog) => catalog,
            None => self.build(),
        };
        let need = match self.embed && !self.embedded {
            true => self.embedding_need(&mut catalog),
            false => Need::Done,
        };
        self.catalog = Some(catalog);
        need
    }

    /// The texts to embed that the model has not embedded (a skill whose text it embedded
    /// for the previous catalogue keeps that vector); when there is none, the kept vectors
    /// are set at once and nothing is needed.
    fn embedding_need(&mut self, catalog: &mut Catalog) -> Need {
        let known = &mut self.known_vectors;
        let EmbeddingPlan { kept, asked } =
            self.embedding_plan.get_or_insert_with(|| catalog.embedding_plan(|texts| Catalog::kept_for(texts, known)));
        if !asked.is_empty() {
            return Need::Embed { texts: asked.clone() };
        }
        let kept = std::mem::take(kept);
        self.embedding_error = catalog.take_embeddings_keeping(kept, Ok(Vec::new())).err();
        self.embedded = true;
        Need::Done
    }

    fn build(&mut self) -> Catalog {
        let kept = self.reuse.take_indexes();
        let refreshable = !self.stamps.is_empty();
        let mut catalog = self.builder.take().map(|builder| builder.finish(kept, refreshable)).unwrap_or_default();
        catalog.report_failures_first(std::mem::take(&mut self.failures));
        catalog.stamps = std::mem::take(&mut self.stamps);
        catalog.listing = self.listing.take().filter(|listing| refreshable && locations_unique(listing));
        self.reuse = Reuse::default();
        catalog
    }

    /// Once every source is listed, with the previous catalogue still standing: the read
    /// of a changed entry listed without its text, or `None` once the catalogue is updated
    /// in place (it is then the build's) or the attempt given up (the entries then go the
    /// usual way, the texts read meanwhile with them).
    fn settle_in_place(&mut self) -> Option<Need> {
        let listed = self.previous.as_deref().map_or(0, Catalog::listed);
        // Every entry matched its place, one fewer than last time: the last one is gone.
        if self.skew == Skew::None && self.held.len() + 1 == listed {
            self.skew = Skew::Removed(self.held.len());
        }
        let expected = match self.skew {
            Skew::None => Some(listed),
            Skew::Added(_) => listed.checked_add(1),
            Skew::Removed(_) => listed.checked_sub(1),
        };
        if expected != Some(self.held.len()) {
            self.give_up_in_place();
            return None;
        }
        let unread = self.held.iter().find(|h| h.changed && h.entry.text.is_none() && h.read.is_none());
        if let Some(held) = unread {
            return Some(Need::Read { source: held.source, location: held.entry.location.clone() });
        }
        let changed: Option<Vec<(CatalogInput, String)>> = (self.held.iter())
            .filter(|h| h.changed && !h.added)
            .map(|h| changed_input(h.source, h.entry.clone(), h.read.clone()))
            .collect();
        let listing_change = match self.skew {
            Skew::None => Some(None),
            Skew::Removed(at) => Some(Some(ListingChange::Removed { at })),
            Skew::Added(at) => (self.held.get(at))
                .and_then(|h| changed_input(h.source, h.entry.clone(), h.read.clone()))
                .map(|(input, stamp)| Some(ListingChange::Added { at, input, stamp })),
        };
        let updated = match (changed, listing_change, self.previous.as_mut()) {
            (Some(changed), Some(listing_change), Some(previous)) => {
                previous.update_in_place(&changed, listing_change) != EntryUpdate::NotTaken
            }
            _ => false,
        };
        match (updated, self.previous.take()) {
            (true, Some(mut previous)) => {
                self.held.clear();
                // A build starts without embeddings (the host's embedder, if asked, sets them).
                previous.take_vectors();
                self.catalog = Some(*previous);
            }
            (_, previous) => {
                self.previous = previous;
                self.give_up_in_place();
            }
        }
        None
    }

    /// Stops holding entries for an update in place: the previous catalogue's parts become
    /// what the build reuses, and the entries held go the usual way, in order.
    fn give_up_in_place(&mut self) {
        let Some(previous) = self.previous.take() else { return };
        self.reuse = match &self.builder {
            Some(builder) => previous.into_reuse().for_options(builder.options()),
            None => Reuse::default(),
        };
        self.held_changed = 0;
        self.skew = Skew::None;
        for Held { source, entry, read, .. } in std::mem::take(&mut self.held) {
            self.take_listed(source, entry, read);
        }
    }

    /// Holds `entry`, listed by `source`, while it is the previous catalogue's entry at
    /// that place in the listing (after the one entry added or removed, if any); else gives
    /// the update in place up and takes it as usual.
    fn hold(&mut self, source: usize, mut entry: SkillEntry) {
        let position = self.held.len();
        let previous_at = match self.skew {
            Skew::None => Some(position),
            Skew::Added(_) => position.checked_sub(1),
            Skew::Removed(_) => position.checked_add(1),
        };
        let room = |changed: bool, held_changed: usize| held_changed + usize::from(changed) <= MAX_IN_PLACE;
        let previous = self.previous.as_deref();
        let compared = previous_at.and_then(|at| previous?.stamp_changed(at, source, &mut entry));
        let (changed, added) = match compared {
            Some(changed) => (changed, false),
            // The first entry out of place: the last listing's entry here is gone (this one
            // is its next), or this entry is new.
            None if self.skew == Skew::None && entry.stamp.is_some() => {
                match previous.and_then(|p| p.stamp_changed(position + 1, source, &mut entry)) {
                    Some(changed) => {
                        self.skew = Skew::Removed(position);
                        (changed, false)
                    }
                    None => {
                        self.skew = Skew::Added(position);
                        (true, true)
                    }
                }
            }
            None => return self.give_up_and_take(source, entry),
        };
        if !room(changed, self.held_changed) {
            return self.give_up_and_take(source, entry);
        }
        self.held_changed += usize::from(changed);
        if !changed {
            entry.text = None;
        }
        self.held.push(Held { source, entry, changed, added, read: None });
    }

    /// Gives the update in place up, then takes `entry` as usual.
    fn give_up_and_take(&mut self, source: usize, entry: SkillEntry) {
        self.give_up_in_place();
        self.take_listed(source, entry, None);
    }

    /// Takes one listed entry towards the builder: reused when its stamp did not change,
    /// with its text when it came with one (or `read`, its text read already), else read
    /// when its turn comes.
    fn take_listed(&mut self, source: usize, entry: SkillEntry, read: Option<Result<String, SourceError>>) {
        if let Some(listing) = self.listing.as_mut() {
            listing.push(Listed::new(source, &entry));
        }
        let SkillEntry { location, text, origin, stamp, id } = entry;
        // An entry whose origin or id cannot be one is refused without being read.
        let problem = (origin.as_deref().and_then(crate::catalog::origin_problem))
            .or_else(|| id.as_deref().and_then(crate::catalog::id_problem));
        let text = match problem {
            Some(why) => Some(Err(SourceError::new(why))),
            None => read.or(text.map(Ok)),
        };
        let mut reused = None;
        if let Some(stamp) = stamp {
            if text.as_ref().is_none_or(Result::is_ok) {
                reused = self.reuse.take(source, &location, origin.as_deref(), &stamp);
            }
            self.stamps.insert((source, location.clone()), stamp);
        }
        // What was prepared before stands for the text (which is dropped).
        let text = if reused.is_some() { None } else { text };
        self.pending.push_back(Pending { source, location, origin, id, text, reused });
    }

    /// The answer to [`Need::List`]: the source's entries, or why it could not list them
    /// (reported as a skipped entry).
    pub fn listed(&mut self, entries: Result<Vec<SkillEntry>, String>) {
        let Some(Need::List { source }) = self.asked else { return };
        self.asked = None;
        self.next_source = source + 1;
        match entries {
            Ok(entries) => {
                for entry in entries {
                    match self.previous.is_some() {
                        true => self.hold(source, entry),
                        false => self.take_listed(source, entry, None),
                    }
                }
            }
            Err(e) => {
                self.give_up_in_place();
                self.listing = None;
                self.failures.push(SkippedSkill {
                    location: String::new(),
                    reason: format!("source {source} could not list its skills: {e}"),
                    diagnostics: Vec::new(),
                });
            }
        }
    }

    /// The answer to [`Need::Read`]: the SKILL.md text, or why it could not be read (the
    /// entry is then a skipped skill with that reason; see [`SourceError::refused`] for
    /// what a refusal changes).
    pub fn read(&mut self, text: Result<String, SourceError>) {
        let Some(Need::Read { source, location }) = &self.asked else { return };
        if self.previous.is_some() {
            let asked = |h: &&mut Held| h.changed && h.source == *source && h.entry.location == *location;
            if let Some(held) = self.held.iter_mut().find(asked) {
                held.read = Some(text);
            }
        } else if let Some(Pending { text: slot @ None, reused: None, .. }) = self.pending.front_mut() {
            *slot = Some(text);
        }
        self.asked = None;
    }

    /// The answer to [`Need::Embed`]: one vector per text, or why the model failed. A
    /// failure, or vectors the catalogue refuses, leave ranking lexical:
    /// [`CatalogBuild::finish`] says why.
    pub fn embedded(&mut self, vectors: Result<Vec<Vec<f32>>, String>) {
        let Some(Need::Embed { .. }) = self.asked else { return };
        self.asked = None;
        self.embedded = true;
        let kept = self.embedding_plan.take().map(|plan| plan.kept).unwrap_or_default();
        if let Some(catalog) = self.catalog.as_mut() {
            self.embedding_error = catalog.take_embeddings_keeping(kept, vectors).err();
        }
    }

    /// The catalogue, and why its skills have no embeddings when embedding was asked for
    /// and failed. Needs not answered yet are answered as failures: entries not read are
    /// skipped, sources not listed are reported.
    pub fn finish(mut self) -> (Catalog, Option<String>) {
        loop {
            match self.need() {
                Need::List { .. } => self.listed(Err("the host gave no answer".to_owned())),
                Need::Read { .. } => self.read(Err(SourceError::new("the host gave no answer"))),
                Need::Embed { .. } => self.embedded(Err("the host gave no answer".to_owned())),
                Need::Done => break,
            }
        }
        let catalog = self.catalog.take().unwrap_or_default();
        (catalog, self.embedding_error)
    }

    /// Runs the build over synchronous sources (without embedding: the
    /// [`Engine`](crate::Engine) embeds with its own embedder afterwards).
    pub(crate) fn run<S: SkillSource>(mut self, sources: &[S]) -> (Catalog, Option<String>) {
        loop {
            match self.need() {
                Need::List { source } => {
                    let entries = match sources.get(source) {
                        Some(s) => s.list().map_err(|e| e.message),
                        None => Err(format!("no source {source}")),
                    };
                    self.listed(entries);
                }
                Need::Read { source, location } => {
                    let text = match sources.get(source) {
                        Some(s) => s.read(&location),
                        None => Err(SourceError::new(format!("no source {source}"))),
                    };
                    self.read(text);
                }
                Need::Embed { .. } => self.embedded(Err("no embedder".to_owned())),
                Need::Done => return self.finish(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PDF: &str = "---\nname: pdf\ndescription: Merge PDF files.\n---\nUse qpdf.\n";
    const SQL: &str = "---\nname: sql-review\ndescription: Review SQL queries.\n---\nCheck indexes.\n";

    fn entry(location: &str, text: Option<&str>) -> SkillEntry {
        SkillEntry { location: location.to_owned(), text: text.map(str::to_owned), origin: None, stamp: None, id: None }
    }

    #[test]
    fn lists_each_source_then_reads_its_entries_in_order_then_embeds() {
        let mut build = CatalogBuild::new(2, CatalogOptions::default(), true);
        assert_eq!(build.need(), Need::List { source: 0 });
        build.read(Ok(PDF.to_owned())); // not what was asked: ignored, the need stands
        build.listed(Ok(vec![entry("a/pdf/SKILL.md", None), entry("a/sql/SKILL.md", Some(SQL))]));
        assert_eq!(build.need(), Need::Read { source: 0, location: "a/pdf/SKILL.md".to_owned() });
        build.read(Ok(PDF.to_owned()));
        assert_eq!(build.need(), Need::List { source: 1 });
        build.listed(Err("offline".to_owned()));
        let Need::Embed { texts } = build.need() else { panic!("embedding was asked for") };
        assert_eq!(texts.len(), 2);
        build.embedded(Ok(vec![vec![1.0, 0.0], vec![0.0, 1.0]]));
        assert_eq!(build.need(), Need::Done);
        let (catalog, embedding_error) = build.finish();
        let names: Vec<&str> = catalog.skills().iter().map(|s| s.skill.name.as_str()).collect();
        assert_eq!(names, ["pdf", "sql-review"]);
        assert_eq!(catalog.report().skipped[0].reason, "source 1 could not list its skills: offline");
        assert_eq!(embedding_error, None);
    }

    /// A text goes to the builder as soon as every entry listed before it has its own:
    /// the build never holds the texts of a whole folder (peak memory is one file).
    #[test]
    fn texts_are_given_to_the_builder_as_they_come_in_list_order() {
        let go = "---\nname: go\ndescription: Go help.\n---\nUse gofmt.\n";
        let mut build = CatalogBuild::new(1, CatalogOptions::default(), false);
        build.need();
        build.listed(Ok(vec![
            entry("a/pdf/SKILL.md", None),
            entry("a/sql/SKILL.md", Some(SQL)),
            entry("a/go/SKILL.md", None),
        ]));
        assert_eq!(build.need(), Need::Read { source: 0, location: "a/pdf/SKILL.md".to_owned() });
        assert_eq!(build.pending.len(), 3, "the inline text waits for the entry listed before it");
        build.read(Ok(PDF.to_owned()));
        assert_eq!(build.need(), Need::Read { source: 0, location: "a/go/SKILL.md".to_owned() });
        assert_eq!(build.pending.len(), 1, "pdf and sql went to the builder");
        assert!(build.pending.iter().all(|p| p.text.is_none()));
        build.read(Ok(go.to_owned()));
        assert_eq!(build.need(), Need::Done);
        assert!(build.pending.is_empty());
        let names: Vec<String> = build.finish().0.skills().iter().map(|s| s.skill.name.clone()).collect();
        assert_eq!(names, ["go", "pdf", "sql-review"]);
    }

    #[test]
    fn unanswered_needs_and_bad_vectors_are_reported_not_dropped() {
        let mut build = CatalogBuild::new(1, CatalogOptions::default(), true);
        build.need();
        build.listed(Ok(vec![entry("a/pdf/SKILL.md", Some(PDF)), entry("a/sql/SKILL.md", None)]));
        build.need();
        let (catalog, embedding_error) = build.finish(); // the read and the embedding never came
        assert_eq!(catalog.report().loaded, 1);
        assert_eq!(catalog.report().skipped[0].reason, "the host gave no answer");
        assert_eq!(embedding_error.as_deref(), Some("the host gave no answer"));

        let mut build = CatalogBuild::new(1, CatalogOptions::default(), true);
        build.need();
        build.listed(Ok(vec![entry("a/pdf/SKILL.md", Some(PDF))]));
        build.need();
        build.embedded(Ok(Vec::new()));
        assert_eq!(build.finish().1.as_deref(), Some("the embedder returned 0 vectors for 1 texts"));
    }

    /// Drives `build` over one listing, reading from `texts`; returns the catalogue and how
    /// many reads were asked for.
    fn drive(build: CatalogBuild, listing: &[(&str, &str)]) -> (Catalog, usize) {
        let (catalog, reads, _) = drive_telling(build, listing);
        (catalog, reads)
    }

    /// [`drive`], and whether the previous catalogue was updated in place (then no builder
    /// built it: the builder is still there once it is done).
    fn drive_telling(mut build: CatalogBuild, listing: &[(&str, &str)]) -> (Catalog, usize, bool) {
        let mut reads = 0;
        loop {
            match build.need() {
                Need::List { .. } => build.listed(Ok(listing
                    .iter()
                    .map(|(location, text)| entry(location, None).with_stamp(format!("{}", text.len())))
                    .collect())),
                Need::Read { location, .. } => {
                    reads += 1;
                    let text = listing.iter().find(|(l, _)| *l == location).map(|(_, t)| t.to_string());
                    build.read(text.ok_or_else(|| SourceError::new("gone")));
                }
                Need::Embed { .. } => build.embedded(Err("no embedder".to_owned())),
                Need::Done => {
                    let in_place = build.builder.is_some();
                    return (build.finish().0, reads, in_place);
                }
            }
        }
    }

    #[test]
    fn a_build_reuses_stamped_entries_of_a_catalogue_built_with_the_same_options() {
        let listing = [("a/pdf/SKILL.md", PDF), ("a/sql/SKILL.md", SQL)];
        let (first, reads) = drive(CatalogBuild::new(1, CatalogOptions::default(), false), &listing);
        assert_eq!(reads, 2);
        let (again, reads) = drive(CatalogBuild::new(1, CatalogOptions::default(), false).reusing(&first), &listing);
        assert_eq!(reads, 0);
        assert_eq!(format!("{:?}", again.skills()), format!("{:?}", first.skills()));
        // Other options: what preparing gave may differ (gates, limits, the scan), so all is read.
        let other = CatalogOptions { available: vec!["jira".to_owned()], ..CatalogOptions::default() };
        let (_, reads) = drive(CatalogBuild::new(1, other, false).reusing(&first), &listing);
        assert_eq!(reads, 2);
    }

    #[test]
    fn a_refresh_takes_one_entry_added_or_removed_in_place_and_two_the_usual_way() {
        const CSV: &str = "---\nname: csv\ndescription: Clean CSV files.\n---\nUse pandas.\n";
        const DOCX: &str = "---\nname: docx\ndescription: Edit Word files.\n---\nUse pandoc.\n";
        let (pdf, sql, csv, docx) =
            (("a/pdf/SKILL.md", PDF), ("a/sql/SKILL.md", SQL), ("a/csv/SKILL.md", CSV), ("a/docx/SKILL.md", DOCX));
        let refresh = |before: &[(&str, &str)], now: &[(&str, &str)]| {
            let (first, _) = drive(CatalogBuild::new(1, CatalogOptions::default(), false), before);
            let (built, _) = drive(CatalogBuild::new(1, CatalogOptions::default(), false), now);
            let (refreshed, reads, in_place) =
                drive_telling(CatalogBuild::new(1, CatalogOptions::default(), false).reusing(&first), now);
            assert_eq!(format!("{:?}", refreshed.skills()), format!("{:?}", built.skills()));
            assert_eq!(format!("{:?}", refreshed.report()), format!("{:?}", built.report()));
            (reads, in_place)
        };
        // One added (between two, first, last) or removed (first, between, last): in place,
        // only the added entry read.
        assert_eq!(refresh(&[pdf, sql], &[pdf, csv, sql]), (1, true));
        assert_eq!(refresh(&[pdf, sql], &[csv, pdf, sql]), (1, true));
        assert_eq!(refresh(&[pdf, sql], &[pdf, sql, csv]), (1, true));
        assert_eq!(refresh(&[csv, pdf, sql], &[pdf, sql]), (0, true));
        assert_eq!(refresh(&[pdf, csv, sql], &[pdf, sql]), (0, true));
        assert_eq!(refresh(&[pdf, sql, csv], &[pdf, sql]), (0, true));
        // Two added, two removed, one replaced, two swapped: the usual way.
        assert_eq!(refresh(&[pdf, sql], &[csv, pdf, docx, sql]), (2, false));
        assert_eq!(refresh(&[csv, pdf, docx, sql], &[pdf, sql]), (0, false));
        assert_eq!(refresh(&[pdf, sql], &[pdf, csv]), (1, false));
        assert_eq!(refresh(&[pdf, sql, csv], &[sql, pdf, csv]), (0, false));
    }

    /// Drives `build` over `listing` (each entry with its text, stamped by it), embedding
    /// each text as its length and byte sum; returns the catalogue and the texts embedded.
    fn drive_embedding(mut build: CatalogBuild, listing: &[(&str, &str)]) -> (Catalog, Vec<String>) {
        let mut embedded = Vec::new();
        loop {
            match build.need() {
                Need::List { .. } => build.listed(Ok(listing
                    .iter()
                    .map(|(location, text)| entry(location, Some(text)).with_stamp(text.to_string()))
                    .collect())),
                Need::Read { .. } => build.read(Err(SourceError::new("listed with its text"))),
                Need::Embed { texts } => {
                    let sum = |t: &str| t.bytes().map(u32::from).sum::<u32>() as f32;
                    build.embedded(Ok(texts.iter().map(|t| vec![t.len() as f32, sum(t)]).collect()));
                    embedded.extend(texts);
                }
                Need::Done => return (build.finish().0, embedded),
            }
        }
    }

    #[test]
    fn a_refresh_asks_the_model_only_for_texts_it_has_not_embedded() {
        const CSV: &str = "---\nname: csv\ndescription: Clean CSV files.\n---\nUse pandas.\n";
        let new = || CatalogBuild::new(1, CatalogOptions::default(), true);
        let vectors = |catalog: &Catalog| catalog.clone().take_vectors();
        let before = [("a/pdf/SKILL.md", PDF), ("a/sql/SKILL.md", SQL)];
        let (first, embedded) = drive_embedding(new(), &before);
        assert_eq!(embedded.len(), 2);
        let refresh = |previous: &Catalog, now: &[(&str, &str)]| {
            let (refreshed, embedded) = drive_embedding(new().reusing(previous), now);
            let (built, _) = drive_embedding(new(), now);
            assert_eq!(vectors(&refreshed), vectors(&built), "the vectors differ from a build's");
            (refreshed, embedded)
        };
        // Nothing changed, a body edit (in place), a skill removed: nothing to embed.
        assert_eq!(refresh(&first, &before).1, Vec::<String>::new());
        let body = PDF.replace("Use qpdf.", "Use qpdf or pdftk.");
        let (edited, embedded) = refresh(&first, &[("a/pdf/SKILL.md", &body), before[1]]);
        assert!(embedded.is_empty());
        assert!(refresh(&edited, &before[..1]).1.is_empty());
        // A description edit, a skill added: that text alone.
        let description = PDF.replace("Merge PDF files.", "Merge and split PDF files.");
        let (_, embedded) = refresh(&first, &[("a/pdf/SKILL.md", &description), before[1]]);
        assert_eq!(embedded, ["pdf: Merge and split PDF files."]);
        let (_, embedded) = refresh(&first, &[before[0], ("a/csv/SKILL.md", CSV), before[1]]);
        assert_eq!(embedded, ["csv: Clean CSV files."]);
        // Vectors the host set by name are not the model's: all embedded again.
        let mut by_host = first.clone();
        assert_eq!(
            by_host.set_embeddings(vec![("pdf".to_owned(), vec![1.0, 0.0]), ("sql-review".to_owned(), vec![0.0, 1.0])]),
            Ok(2)
        );
        assert_eq!(refresh(&by_host, &before).1.len(), 2);
    }
}
