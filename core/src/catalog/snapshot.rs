//! Snapshots: a built catalogue as bytes, so that a host that starts often (a coding
//! agent's hook runs once per prompt, a CLI once per command) can keep the catalogue
//! between processes instead of loading, scanning and indexing every skill again.
//!
//! The core does no IO: the host stores the bytes where it likes and decides when they
//! still describe its skills. It does so with a *key*: any text that changes whenever
//! the sources' listing or a SKILL.md changes (the `skillwire` command uses a digest of
//! each listed file's path, size, times and inode). A snapshot is restored only by a
//! build of the same code (the crate's version, the layout's number and a digest of its
//! sources), with options equal to those it was built with, under the same key, and with
//! its body whole (its length and checksum in the header); anything else is a
//! [`SnapshotError`], after which the host builds as usual.
//!
//! A snapshot is trusted as far as the place the host keeps it (the `skillwire` command:
//! the user's cache folder): the checksum catches a damaged or cut file, not a forged one.
//!
//! A catalogue whose build could not read an entry (or a source's listing) is never
//! restored as it is: the failure may pass, so an engine refreshes it instead.
//!
//! What a snapshot holds: every skill in the catalogue and every shadowed one (their
//! fields, the body's sections and headings ranking reads, scan findings), the build
//! report, the ranking index, and the entries' stamps and listing (so that a restored
//! catalogue refreshes reading only what changed, in place when only bodies did). The rule automaton is built again on restore (from
//! the skills, as a build would), and the skills' embeddings are not kept (a host with
//! an embedding model sets them again). The format is postcard's: fields in order, with no
//! names, so the public types (whose JSON form leaves empty fields out) are written
//! through the wire forms below, every field present. It is not an interchange format
//! between versions.

use super::{Catalog, CatalogOptions, CatalogReport, CatalogSkill, FlaggedSkill, GatedSkill, LocatedWarning};
use super::{Listed, ShadowedSkill, SkippedSkill};
use crate::fast_hash::SeededMap;
use crate::scan::Finding;
use crate::select::rank::RankIndex;
use crate::skill::diag::{Diagnostic, Severity};
use crate::skill::{BodySections, Skill};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::BTreeMap;

/// What every snapshot starts with.
const MAGIC: &[u8] = b"skillwire catalogue snapshot\n";

/// The snapshot layout's number; with the crate's version, what a snapshot must match.
const FORMAT: u32 = 5;

/// Largest snapshot [`Catalog::from_snapshot`] reads (1 GiB: a catalogue at the default
/// limit of skills takes a small part of it).
pub const MAX_SNAPSHOT_BYTES: usize = 1 << 30;

/// Why a snapshot was not restored. The host then builds the catalogue from its sources.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SnapshotError {
    /// Not a snapshot, cut short, or damaged.
    Unreadable(String),
    /// Written by another version of skillwire (or another snapshot layout).
    OtherVersion {
        /// The version that wrote it.
        found: String,
    },
    /// Written under another key: the sources changed since.
    OtherKey,
    /// Built with other catalogue options.
    OtherOptions,
    /// Its catalogue could not read this many entries (SKILL.md files or sources'
    /// listings) when it was built, for reasons that may pass (a file being replaced, a
    /// network hiccup; a source's [refusal](crate::SourceError::refused) of what a SKILL.md
    /// is does not count), so the catalogue is not restored as it was:
    /// [`Engine::restore_or_build`](crate::Engine::restore_or_build) refreshes it, reading
    /// those entries (and any whose stamp changed) again.
    Unread {
        /// How many.
        entries: usize,
    },
    /// Could not be written (not expected: every part of a catalogue can be encoded).
    Unwritable(String),
}

impl std::fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SnapshotError::Unreadable(why) => write!(f, "the snapshot cannot be read: {why}"),
            SnapshotError::OtherVersion { found } => {
                write!(f, "the snapshot was written by skillwire {found}, not {}", version())
            }
            SnapshotError::OtherKey => f.write_str("the snapshot's key differs: the skills changed since"),
            SnapshotError::OtherOptions => f.write_str("the snapshot was built with other catalogue options"),
            SnapshotError::Unread { entries } => write!(
                f,
                "the snapshot's catalogue could not read {entries} {} when it was built",
                if *entries == 1 { "entry" } else { "entries" }
            ),
            SnapshotError::Unwritable(why) => write!(f, "the snapshot could not be written: {why}"),
        }
    }
}

impl SnapshotError {
    /// A stable code for bindings (`snapshot_unreadable`, `snapshot_other_version`,
    /// `snapshot_other_key`, `snapshot_other_options`, `snapshot_unread`,
    /// `snapshot_unwritable`).
    pub fn code(&self) -> &'static str {
        match self {
            SnapshotError::Unreadable(_) => "snapshot_unreadable",
            SnapshotError::OtherVersion { .. } => "snapshot_other_version",
            SnapshotError::OtherKey => "snapshot_other_key",
            SnapshotError::OtherOptions => "snapshot_other_options",
            SnapshotError::Unread { .. } => "snapshot_unread",
            SnapshotError::Unwritable(_) => "snapshot_unwritable",
        }
    }
}

impl std::error::Error for SnapshotError {}

/// This build as snapshots record it ([`Catalog::snapshot_version`]).
pub(super) fn version() -> String {
    format!("{} (snapshot format {FORMAT}, source {})", env!("CARGO_PKG_VERSION"), env!("SKILLWIRE_SOURCE_DIGEST"))
}

/// What is checked before the rest is read.
#[derive(Serialize, Deserialize)]
struct Header {
    version: String,
    key: String,
    options: CatalogOptions,
    /// Entries the catalogue could not read for a reason that may pass (then it is
    /// refreshed, never restored as is).
    unread: u64,
    /// The body's length in bytes.
    body_bytes: u64,
    /// The body's [`checksum`].
    checksum: u64,
}

/// Where postcard writes a snapshot: appended to `bytes` (`write`), or only counted
/// (`count`, to size the buffer first). One output for both, so that the serializer of
/// every type a snapshot holds is compiled once (a second kind of output would compile it
/// all again: kilobytes of WebAssembly).
pub(super) struct Output {
    bytes: Vec<u8>,
    appending: bool,
    count: usize,
}

impl Output {
    /// How many bytes `value` takes.
    fn count<T: Serialize + ?Sized>(value: &T) -> postcard::Result<usize> {
        let counting = Output { bytes: Vec::new(), appending: false, count: 0 };
        Ok(postcard::serialize_with_flavor::<T, _, Output>(value, counting)?.count)
    }

    /// `bytes` with `value` appended.
    pub(super) fn write<T: Serialize + ?Sized>(value: &T, bytes: Vec<u8>) -> postcard::Result<Vec<u8>> {
        let appending = Output { bytes, appending: true, count: 0 };
        Ok(postcard::serialize_with_flavor::<T, _, Output>(value, appending)?.bytes)
    }
}

impl postcard::ser_flavors::Flavor for Output {
    type Output = Output;

    fn try_push(&mut self, byte: u8) -> postcard::Result<()> {
        self.count += 1;
        if self.appending {
            self.bytes.push(byte);
        }
        Ok(())
    }

    fn try_extend(&mut self, data: &[u8]) -> postcard::Result<()> {
        self.count += data.len();
        if self.appending {
            self.bytes.extend_from_slice(data);
        }
        Ok(())
    }

    fn finalize(self) -> postcard::Result<Output> {
        Ok(self)
    }
}

/// A checksum of `bytes`: any change within one 8-byte word changes it (each step is a
/// bijection of the running value), and other changes almost surely do. One multiply and
/// one rotation per 8 bytes: cheap beside decoding, on every restore.
fn checksum(bytes: &[u8]) -> u64 {
    const MULTIPLIER: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut words = bytes.chunks_exact(8);
    let mut sum = bytes.len() as u64;
    for word in words.by_ref() {
        let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
        sum = (sum ^ word).wrapping_mul(MULTIPLIER).rotate_left(29);
    }
    let mut tail = [0u8; 8];
    tail.iter_mut().zip(words.remainder()).for_each(|(t, b)| *t = *b);
    (sum ^ u64::from_le_bytes(tail)).wrapping_mul(MULTIPLIER).rotate_left(29)
}

/// The catalogue itself, as written ([`Body`] reads the same fields).
#[derive(Serialize)]
struct BodyRef<'a> {
    skills: Entries<'a>,
    shadowed: Entries<'a>,
    report: WireReport,
    stamps: Vec<(usize, &'a str, &'a str)>,
    listing: &'a Option<Vec<Listed>>,
    ranking: &'a RankIndex,
}

/// The catalogue itself, as read: what a refresh reuses, then the ranking index (postcard
/// writes a nested struct's fields in order, so this reads the fields [`BodyRef`] writes).
#[derive(Deserialize)]
struct Body {
    prepared: PreparedBody,
    ranking: RankIndex,
}

/// A body's prepared parts, as written: all but the ranking index, which follows them.
#[derive(Deserialize)]
struct PreparedBody {
    skills: Vec<WireEntry<'static>>,
    shadowed: Vec<WireEntry<'static>>,
    report: WireReport,
    /// The entries' stamps (source, location, stamp), for a refresh to reuse.
    stamps: Vec<(usize, String, String)>,
    /// The entries as listed, for a refresh to update the catalogue in place.
    listing: Option<Vec<Listed>>,
}

/// A body's prepared parts, as the catalogue holds them.
struct Parts {
    skills: Vec<CatalogSkill>,
    shadowed: Vec<CatalogSkill>,
    report: CatalogReport,
    stamps: SeededMap<(usize, String), String>,
    listing: Option<Vec<Listed>>,
}

impl PreparedBody {
    /// Its parts, if it holds at most `options.limits.max_skills` skills.
    fn into_parts(self, options: &CatalogOptions) -> Result<Parts, SnapshotError> {
        if self.skills.len().saturating_add(self.shadowed.len()) > options.limits.max_skills {
            return Err(SnapshotError::Unreadable("more skills than the limit".to_owned()));
        }
        Ok(Parts {
            skills: self.skills.into_iter().map(CatalogSkill::from).collect(),
            shadowed: self.shadowed.into_iter().map(CatalogSkill::from).collect(),
            report: self.report.into(),
            stamps: self.stamps.into_iter().map(|(source, location, stamp)| ((source, location), stamp)).collect(),
            listing: self.listing,
        })
    }
}

impl Catalog {
    /// This build as its snapshots record it: the crate's version, the snapshot layout's
    /// number and a digest of the code (the core's sources, its manifest, the workspace's
    /// lock file when built there, whether it has its own NFKC tables). Only snapshots
    /// with the same are restored. A host that keeps several may name them by it, so that
    /// two builds sharing a cache folder keep one each.
    pub fn snapshot_version() -> String {
        version()
    }

    /// The catalogue as bytes, for [`Catalog::from_snapshot`] to restore under `key` with
    /// the options it was built with.
    ///
    /// The key is the host's: any text that changes whenever its sources' listing (the
    /// entries' locations, origins and ids) or a SKILL.md does (the `skillwire` command
    /// digests each listed file's path, size, times and inode; it gives no ids). A snapshot holds every listed and shadowed skill (with the body's
    /// sections and headings ranking reads, and scan findings), the build report and the
    /// ranking index; not the skills' embeddings. The bytes are for this build of
    /// skillwire only (its version, and a digest of the core's sources).
    ///
    /// A catalogue whose build could not read an entry or a source's listing, for a reason
    /// that may pass, says so in its snapshot, which is then never restored as it is
    /// ([`SnapshotError::Unread`]): [`Engine::restore_or_build`](crate::Engine::restore_or_build)
    /// refreshes it, reading those entries again.
    pub fn snapshot(&self, key: &str) -> Result<Vec<u8>, SnapshotError> {
        let unwritable = |e: postcard::Error| SnapshotError::Unwritable(e.to_string());
        let body = BodyRef {
            skills: Entries(&self.skills),
            shadowed: Entries(&self.shadowed),
            report: WireReport::from(&self.report),
            ranking: &self.ranking,
            listing: &self.listing,
            stamps: {
                let mut stamps: Vec<(usize, &str, &str)> = self
                    .stamps
                    .iter()
                    .map(|((source, location), stamp)| (*source, location.as_str(), stamp.as_str()))
                    .collect();
                stamps.sort();
                stamps
            },
        };
        let header = |body_bytes, checksum| Header {
            version: version(),
            key: key.to_owned(),
            options: self.options.clone(),
            unread: self.unread as u64,
            body_bytes,
            checksum,
        };
        // The body is written once, into the snapshot's own buffer (sized first, so that
        // it never grows: growing holds the old buffer and the new at once), after room
        // for the header (as long as it is with the largest numbers: postcard writes them
        // in as few bytes as they need, so the real one is at most 18 bytes shorter); the
        // header, known once the body is, then takes its room and the body moves up behind
        // it, in place. (Not a body written apart and copied after the header: two copies
        // of the largest part at once.)
        let room = Output::count(&header(u64::MAX, u64::MAX)).map_err(unwritable)?;
        let body_at = MAGIC.len() + room;
        let mut bytes = Vec::with_capacity(body_at.saturating_add(Output::count(&body).map_err(unwritable)?));
        bytes.extend_from_slice(MAGIC);
        bytes.resize(body_at, 0);
        let mut bytes = Output::write(&body, bytes).map_err(unwritable)?;
        drop(body);
        let written = bytes.get(body_at..).unwrap_or_default();
        let header = Output::write(&header(written.len() as u64, checksum(written)), Vec::new()).map_err(unwritable)?;
        bytes.splice(MAGIC.len()..body_at, header);
        Ok(bytes)
    }

    /// Whether [`Catalog::from_snapshot`] would take `snapshot` under `key` and `options`,
    /// without decoding the catalogue: its header, length and checksum. A host whose
    /// engine runs elsewhere (the component) checks here before handing the bytes over.
    pub fn check_snapshot(snapshot: &[u8], key: &str, options: &CatalogOptions) -> Result<(), SnapshotError> {
        checked_body(snapshot, Some(key), options).map(drop)
    }

    /// The catalogue `snapshot` holds, if this build of skillwire wrote it under `key`
    /// from a catalogue built with these `options`; it answers every query and turn as the
    /// catalogue it was taken from (a test builds, snapshots, restores and compares). The
    /// rule automaton is built again; embeddings are not kept. At most
    /// [`MAX_SNAPSHOT_BYTES`] are read, and at most `options.limits.max_skills` skills.
    pub fn from_snapshot(snapshot: &[u8], key: &str, options: &CatalogOptions) -> Result<Catalog, SnapshotError> {
        Catalog::restored(snapshot, Some(key), options)
    }

    /// The catalogue `snapshot` holds, written by this build with `options` under any key,
    /// counting the entries its build could not read: what
    /// [`Engine::restore_or_build`](crate::Engine::restore_or_build) refreshes when the
    /// sources changed since (in place when only some SKILL.md bodies did).
    pub(crate) fn restored_for_refresh(snapshot: &[u8], options: &CatalogOptions) -> Result<Catalog, SnapshotError> {
        Catalog::restored(snapshot, None, options)
    }

    fn restored(snapshot: &[u8], key: Option<&str>, options: &CatalogOptions) -> Result<Catalog, SnapshotError> {
        let unreadable = |e: postcard::Error| SnapshotError::Unreadable(e.to_string());
        let (unread, body) = checked_body(snapshot, key, options)?;
        let body: Body = postcard::from_bytes(body).map_err(unreadable)?;
        if body.ranking.skill_count() != body.prepared.skills.len() {
            return Err(SnapshotError::Unreadable("the ranking index does not fit the skills".to_owned()));
        }
        let Parts { skills, shadowed, report, stamps, listing } = body.prepared.into_parts(options)?;
        let mut catalog = Catalog::assemble(skills, shadowed, report, body.ranking, None, options);
        catalog.stamps = stamps;
        catalog.listing = listing;
        catalog.unread = usize::try_from(unread).unwrap_or(usize::MAX);
        Ok(catalog)
    }
}

/// The body of `snapshot`, once its header says it was written by this build under `key`
/// with `options`, and its length and checksum hold; with the count of entries its build
/// could not read (none when a `key` is given: such a snapshot is not restored as it is).
fn checked_body<'a>(
    snapshot: &'a [u8],
    key: Option<&str>,
    options: &CatalogOptions,
) -> Result<(u64, &'a [u8]), SnapshotError> {
    if snapshot.len() > MAX_SNAPSHOT_BYTES {
        return Err(SnapshotError::Unreadable(format!("{} bytes; the limit is {MAX_SNAPSHOT_BYTES}", snapshot.len())));
    }
    let Some(rest) = snapshot.strip_prefix(MAGIC) else {
        return Err(SnapshotError::Unreadable("not a skillwire catalogue snapshot".to_owned()));
    };
    let unreadable = |e: postcard::Error| SnapshotError::Unreadable(e.to_string());
    let (header, body) = postcard::take_from_bytes::<Header>(rest).map_err(unreadable)?;
    if header.version != version() {
        return Err(SnapshotError::OtherVersion { found: header.version });
    }
    if key.is_some_and(|key| header.key != key) {
        return Err(SnapshotError::OtherKey);
    }
    if !super::same_options(&header.options, options) {
        return Err(SnapshotError::OtherOptions);
    }
    if body.len() as u64 != header.body_bytes {
        return Err(SnapshotError::Unreadable(format!(
            "{} bytes of catalogue where the header says {}",
            body.len(),
            header.body_bytes
        )));
    }
    if checksum(body) != header.checksum {
        return Err(SnapshotError::Unreadable("its checksum does not hold: the file was damaged".to_owned()));
    }
    if key.is_some() && header.unread > 0 {
        return Err(SnapshotError::Unread { entries: usize::try_from(header.unread).unwrap_or(usize::MAX) });
    }
    Ok((header.unread, body))
}

// The wire forms: every field of the public types, in order (their serde forms are for
// JSON, which leaves empty fields out). Writing borrows the skills' fields (the report,
// small, is copied); reading moves.

/// Catalogue entries written as a sequence of [`WireEntry`], each made as it is written
/// (no list of them is held: a snapshot is written twice, counted then appended).
pub(super) struct Entries<'a>(pub(super) &'a [CatalogSkill]);

impl Serialize for Entries<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(WireEntry::from))
    }
}

/// A [`CatalogSkill`], its [`Skill`] whole (the body's sections and headings included).
/// Written from the catalogue's own fields (borrowed: a snapshot of a large catalogue would
/// otherwise hold a second copy of every skill while it is written), read into owned ones.
#[derive(Serialize, Deserialize)]
pub(super) struct WireEntry<'a> {
    name: Cow<'a, str>,
    description: Cow<'a, str>,
    location: Cow<'a, str>,
    license: Option<Cow<'a, str>>,
    compatibility: Option<Cow<'a, str>>,
    metadata: Cow<'a, BTreeMap<String, String>>,
    allowed_tools: Cow<'a, [String]>,
    tags: Cow<'a, [String]>,
    when_to_use: Option<Cow<'a, str>>,
    when_not_to_use: Option<Cow<'a, str>>,
    paths: Cow<'a, [String]>,
    user_invocable: bool,
    disable_model_invocation: bool,
    requires: Cow<'a, [String]>,
    max_turns: u8,
    extra: Cow<'a, BTreeMap<String, String>>,
    headings: Cow<'a, [String]>,
    sections: (Cow<'a, str>, Cow<'a, str>),
    id: Cow<'a, str>,
    source: usize,
    origin: Option<Cow<'a, str>>,
    missing: Cow<'a, [String]>,
    kept_out: Option<Cow<'a, str>>,
    findings: Cow<'a, [Finding]>,
}

impl<'a> From<&'a CatalogSkill> for WireEntry<'a> {
    fn from(entry: &'a CatalogSkill) -> Self {
        let s = &entry.skill;
        let text = |t: &'a String| Cow::Borrowed(t.as_str());
        WireEntry {
            name: text(&s.name),
            description: text(&s.description),
            location: text(&s.location),
            license: s.license.as_ref().map(text),
            compatibility: s.compatibility.as_ref().map(text),
            metadata: Cow::Borrowed(&s.metadata),
            allowed_tools: Cow::Borrowed(&s.allowed_tools),
            tags: Cow::Borrowed(&s.tags),
            when_to_use: s.when_to_use.as_ref().map(text),
            when_not_to_use: s.when_not_to_use.as_ref().map(text),
            paths: Cow::Borrowed(&s.paths),
            user_invocable: s.user_invocable,
            disable_model_invocation: s.disable_model_invocation,
            requires: Cow::Borrowed(&s.requires),
            max_turns: s.max_turns,
            extra: Cow::Borrowed(&s.extra),
            headings: Cow::Borrowed(&s.headings),
            sections: (text(&s.sections.when_to_use), text(&s.sections.when_not_to_use)),
            id: text(&entry.id),
            source: entry.source,
            origin: entry.origin.as_ref().map(text),
            missing: Cow::Borrowed(&entry.missing),
            kept_out: entry.kept_out.as_ref().map(text),
            findings: Cow::Borrowed(&entry.findings),
        }
    }
}

impl From<WireEntry<'_>> for CatalogSkill {
    fn from(w: WireEntry<'_>) -> Self {
        let owned = |t: Option<Cow<'_, str>>| t.map(Cow::into_owned);
        let mut sections = BodySections::default();
        (sections.when_to_use, sections.when_not_to_use) = (w.sections.0.into_owned(), w.sections.1.into_owned());
        let skill = Skill {
            name: w.name.into_owned(),
            description: w.description.into_owned(),
            location: w.location.into_owned(),
            license: owned(w.license),
            compatibility: owned(w.compatibility),
            metadata: w.metadata.into_owned(),
            allowed_tools: w.allowed_tools.into_owned(),
            tags: w.tags.into_owned(),
            when_to_use: owned(w.when_to_use),
            when_not_to_use: owned(w.when_not_to_use),
            paths: w.paths.into_owned(),
            user_invocable: w.user_invocable,
            disable_model_invocation: w.disable_model_invocation,
            requires: w.requires.into_owned(),
            max_turns: w.max_turns,
            extra: w.extra.into_owned(),
            headings: w.headings.into_owned(),
            sections,
        };
        CatalogSkill {
            skill,
            id: w.id.into_owned(),
            source: w.source,
            origin: owned(w.origin),
            missing: w.missing.into_owned(),
            kept_out: owned(w.kept_out),
            findings: w.findings.into_owned(),
        }
    }
}

/// A [`Diagnostic`]: severity, code, message, line, column.
type WireDiagnostic = (Severity, String, String, Option<usize>, Option<usize>);

fn wire_diagnostic(d: &Diagnostic) -> WireDiagnostic {
    (d.severity, d.code.clone(), d.message.clone(), d.line, d.column)
}

fn diagnostic((severity, code, message, line, column): WireDiagnostic) -> Diagnostic {
    Diagnostic { severity, code, message, line, column }
}

/// A [`CatalogReport`].
#[derive(Serialize, Deserialize)]
pub(super) struct WireReport {
    loaded: usize,
    /// Location, reason, diagnostics.
    skipped: Vec<(String, String, Vec<WireDiagnostic>)>,
    shadowed: Vec<ShadowedSkill>,
    /// Name, location, missing, kept out.
    gated: Vec<(String, String, Vec<String>, Option<String>)>,
    flagged: Vec<FlaggedSkill>,
    /// Location, diagnostic.
    warnings: Vec<(String, WireDiagnostic)>,
    mention_only: Vec<String>,
}

impl From<&CatalogReport> for WireReport {
    fn from(r: &CatalogReport) -> Self {
        WireReport {
            loaded: r.loaded,
            skipped: (r.skipped.iter())
                .map(|s| (s.location.clone(), s.reason.clone(), s.diagnostics.iter().map(wire_diagnostic).collect()))
                .collect(),
            shadowed: r.shadowed.clone(),
            gated: (r.gated.iter())
                .map(|g| (g.name.clone(), g.location.clone(), g.missing.clone(), g.kept_out.clone()))
                .collect(),
            flagged: r.flagged.clone(),
            warnings: r.warnings.iter().map(|w| (w.location.clone(), wire_diagnostic(&w.diagnostic))).collect(),
            mention_only: r.mention_only.clone(),
        }
    }
}

impl From<WireReport> for CatalogReport {
    fn from(w: WireReport) -> Self {
        CatalogReport {
            loaded: w.loaded,
            skipped: (w.skipped.into_iter())
                .map(|(location, reason, diagnostics)| SkippedSkill {
                    location,
                    reason,
                    diagnostics: diagnostics.into_iter().map(diagnostic).collect(),
                })
                .collect(),
            shadowed: w.shadowed,
            gated: (w.gated.into_iter())
                .map(|(name, location, missing, kept_out)| GatedSkill { name, location, missing, kept_out })
                .collect(),
            flagged: w.flagged,
            warnings: (w.warnings.into_iter())
                .map(|(location, d)| LocatedWarning { location, diagnostic: diagnostic(d) })
                .collect(),
            mention_only: w.mention_only,
        }
    }
}
