//! Where skills come from: the host's callbacks.
//!
//! A source lists skill entries (a location, and optionally the SKILL.md text) and
//! reads one SKILL.md by location on demand. The core calls `list` when it builds the
//! catalogue and `read` only for the skills a turn will inject. A failing `read` is a
//! skipped skill with a reason, never a failed turn.
//!
//! A source may also list and read the other files of a skill's folder (`references/`,
//! `scripts/`, `assets/`): [`SkillSource::list_files`] and [`SkillSource::read_file`],
//! called only when a host or a model asks. Sources without them answer that they have
//! no files.

use crate::files::ListedFile;

/// One skill a source offers: where it lives and, optionally, its SKILL.md text (a
/// source that has the text at hand saves a `read`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillEntry {
    /// A path, URL or key naming the skill's SKILL.md.
    pub location: String,
    /// The SKILL.md text, when the source already has it.
    pub text: Option<String>,
    /// Where the skill comes from when that is not the host's own store (an MCP server, a
    /// registry): a label of 1 to [`MAX_ORIGIN_BYTES`](crate::MAX_ORIGIN_BYTES) ASCII letters,
    /// digits, `.`, `_` or `-`. A skill from an origin never silently takes or loses a name
    /// held by a skill from elsewhere: on a collision it is listed as `NAME@ORIGIN` (reported
    /// as an `origin_collision` warning), and allow and deny patterns match it by either name.
    pub origin: Option<String>,
    /// What the entry's SKILL.md was when listed, in the source's own terms: any text that
    /// changes whenever the file does (the filesystem source: its size, times and inode;
    /// a source with a digest of the text: the digest). When a catalogue is built again
    /// ([`Engine::refresh`](crate::Engine::refresh)), an entry listed at the same location,
    /// from the same source and origin, with the same stamp as before is not read, loaded
    /// nor scanned again: what it gave last time is used. No stamp: read every time.
    pub stamp: Option<String>,
    /// The skill's id in the host's own terms, when its store has one (a database row, a
    /// registry's key, an id the host keeps beside the folder): 1 to
    /// [`MAX_ID_BYTES`](crate::MAX_ID_BYTES) bytes, no control characters, no whitespace at
    /// either end. Decisions and matches carry it, so a host keeps what it records about a
    /// skill across renames and moves. None: the id is derived — the skill's name, or
    /// `NAME@ORIGIN` for a skill from an origin ([`CatalogSkill::id`](crate::CatalogSkill)).
    /// Ids are unique among listed skills: a skill whose id an entry listed before it holds
    /// under another name or from another origin is skipped, with the reason (two entries
    /// of one name and origin may share an id: precedence lists one of them).
    pub id: Option<String>,
}

impl SkillEntry {
    /// An entry at `location` whose text the core reads when it needs it.
    pub fn new(location: impl Into<String>) -> Self {
        SkillEntry { location: location.into(), text: None, origin: None, stamp: None, id: None }
    }

    /// The same entry, with its SKILL.md text at hand.
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        self.text = Some(text.into());
        self
    }

    /// The same entry, from `origin`.
    pub fn with_origin(mut self, origin: impl Into<String>) -> Self {
        self.origin = Some(origin.into());
        self
    }

    /// The same entry, stamped (see [`SkillEntry::stamp`]).
    pub fn with_stamp(mut self, stamp: impl Into<String>) -> Self {
        self.stamp = Some(stamp.into());
        self
    }

    /// The same entry, with the host's id for its skill (see [`SkillEntry::id`]).
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }
}

/// A source's failure to list or read, in its own words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceError {
    /// What failed.
    pub message: String,
    /// For a read: the source refuses the SKILL.md as it is (over a size limit, not UTF-8
    /// text, not a regular file), so reading it again gives the same answer until the file
    /// changes, and with it the entry's [stamp](SkillEntry::stamp). A build reports such an
    /// entry as skipped with an `unreadable` diagnostic, as it reports a SKILL.md that does
    /// not load: a refresh does not read it again while its stamp holds, and a snapshot of
    /// the catalogue is restored as it is. Otherwise (`false`, [`SourceError::new`]) the
    /// failure may pass (an I/O error, a server that did not answer): the next build reads
    /// the entry again, and a snapshot holding it is refreshed rather than restored.
    pub refused: bool,
}

impl SourceError {
    /// A failure that may pass.
    pub fn new(message: impl Into<String>) -> Self {
        SourceError { message: message.into(), refused: false }
    }

    /// A refusal that lasts as long as the entry does not change (see [`SourceError::refused`]).
    pub fn refusal(message: impl Into<String>) -> Self {
        SourceError { message: message.into(), refused: true }
    }
}

/// A SKILL.md's bytes as its text. Bytes that are not UTF-8 are a
/// [refusal](SourceError::refused) (they stay what they are until the file changes), saying
/// where the first byte that is not UTF-8 stands: one rule for every host that reads bytes
/// (the filesystem source, the npm package's sources that answer with bytes).
pub fn text_from_utf8(bytes: Vec<u8>) -> Result<String, SourceError> {
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        SourceError::refusal(format!("not valid UTF-8 (byte {at})"))
    })
}

impl From<String> for SourceError {
    /// A failure that may pass.
    fn from(message: String) -> Self {
        SourceError::new(message)
    }
}

impl std::fmt::Display for SourceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SourceError {}

/// What a source without files answers to [`SkillSource::list_files`] and
/// [`SkillSource::read_file`].
pub const NO_FILES: &str = "this source has no skill files";

/// The host's skills.
pub trait SkillSource {
    /// Every skill entry the source holds.
    fn list(&self) -> Result<Vec<SkillEntry>, SourceError>;
    /// The SKILL.md text at `location`.
    fn read(&self, location: &str) -> Result<String, SourceError>;
    /// The files in the folder of the skill whose SKILL.md is at `location` (the
    /// SKILL.md among them): paths relative to that folder with `/` between segments,
    /// and sizes. Only regular files inside the folder. By default: none ([`NO_FILES`]).
    fn list_files(&self, location: &str) -> Result<Vec<ListedFile>, SourceError> {
        let _ = location;
        Err(SourceError::new(NO_FILES))
    }
    /// The bytes of file `path` of that skill. The core hands over `path` already
    /// normalised and free of `..` ([`normalise_file_path`](crate::normalise_file_path));
    /// the source refuses what only it can see (a link leading out of the folder, a
    /// device) and stops reading past `max_bytes` (reading at most one byte more). By
    /// default: none ([`NO_FILES`]).
    fn read_file(&self, location: &str, path: &str, max_bytes: usize) -> Result<Vec<u8>, SourceError> {
        let _ = (location, path, max_bytes);
        Err(SourceError::new(NO_FILES))
    }
}

impl<S: SkillSource + ?Sized> SkillSource for Box<S> {
    fn list(&self) -> Result<Vec<SkillEntry>, SourceError> {
        (**self).list()
    }
    fn read(&self, location: &str) -> Result<String, SourceError> {
        (**self).read(location)
    }
    fn list_files(&self, location: &str) -> Result<Vec<ListedFile>, SourceError> {
        (**self).list_files(location)
    }
    fn read_file(&self, location: &str, path: &str, max_bytes: usize) -> Result<Vec<u8>, SourceError> {
        (**self).read_file(location, path, max_bytes)
    }
}

impl<S: SkillSource + ?Sized> SkillSource for &S {
    fn list(&self) -> Result<Vec<SkillEntry>, SourceError> {
        (**self).list()
    }
    fn read(&self, location: &str) -> Result<String, SourceError> {
        (**self).read(location)
    }
    fn list_files(&self, location: &str) -> Result<Vec<ListedFile>, SourceError> {
        (**self).list_files(location)
    }
    fn read_file(&self, location: &str, path: &str, max_bytes: usize) -> Result<Vec<u8>, SourceError> {
        (**self).read_file(location, path, max_bytes)
    }
}

/// Skills held in memory as (location, SKILL.md text) pairs, listed in insertion order,
/// with the other files of their folders ([`MemorySource::insert_file`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemorySource {
    skills: Vec<(String, String)>,
    /// (SKILL.md location, path in its folder, bytes).
    files: Vec<(String, String, Vec<u8>)>,
}

impl MemorySource {
    /// An empty source.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a skill; a later skill at the same location replaces the earlier text.
    pub fn insert(&mut self, location: impl Into<String>, text: impl Into<String>) -> &mut Self {
        let location = location.into();
        let text = text.into();
        match self.skills.iter_mut().find(|(l, _)| *l == location) {
            Some(slot) => slot.1 = text,
            None => self.skills.push((location, text)),
        }
        self
    }

    /// Adds a file to the folder of the skill whose SKILL.md is at `location` (`path`
    /// relative to that folder, `/` between segments); a later file at the same path
    /// replaces the earlier one. The SKILL.md itself is listed from its text.
    pub fn insert_file(
        &mut self,
        location: impl Into<String>,
        path: impl Into<String>,
        bytes: impl Into<Vec<u8>>,
    ) -> &mut Self {
        let (location, path, bytes) = (location.into(), path.into(), bytes.into());
        // Kept as the core will ask for it (`./a.md` is `a.md`); a path it would refuse is
        // kept as given, listed, and never read.
        let path = crate::files::normalise_file_path(&path, usize::MAX).unwrap_or(path);
        match self.files.iter_mut().find(|(l, p, _)| *l == location && *p == path) {
            Some(slot) => slot.2 = bytes,
            None => self.files.push((location, path, bytes)),
        }
        self
    }

    /// The SKILL.md file name at the end of `location` (`SKILL.md` if it has none).
    fn skill_file_name(location: &str) -> &str {
        match location.rsplit(['/', '\\']).next() {
            Some(name) if name.eq_ignore_ascii_case("skill.md") => name,
            _ => "SKILL.md",
        }
    }
}

impl<L: Into<String>, T: Into<String>> FromIterator<(L, T)> for MemorySource {
    fn from_iter<I: IntoIterator<Item = (L, T)>>(iter: I) -> Self {
        let mut source = MemorySource::new();
        for (l, t) in iter {
            source.insert(l, t);
        }
        source
    }
}

impl SkillSource for MemorySource {
    fn list(&self) -> Result<Vec<SkillEntry>, SourceError> {
        Ok(self.skills.iter().map(|(l, t)| SkillEntry::new(l.clone()).with_text(t.clone())).collect())
    }

    fn read(&self, location: &str) -> Result<String, SourceError> {
        self.skills
            .iter()
            .find(|(l, _)| l == location)
            .map(|(_, t)| t.clone())
            .ok_or_else(|| SourceError::new(format!("no skill at {location}")))
    }

    fn list_files(&self, location: &str) -> Result<Vec<ListedFile>, SourceError> {
        let text = self.read(location)?;
        let skill_md = ListedFile { path: Self::skill_file_name(location).to_owned(), size: text.len() as u64 };
        let others = (self.files.iter())
            .filter(|(l, _, _)| l == location)
            .map(|(_, path, bytes)| ListedFile { path: path.clone(), size: bytes.len() as u64 });
        Ok(std::iter::once(skill_md).chain(others).collect())
    }

    fn read_file(&self, location: &str, path: &str, max_bytes: usize) -> Result<Vec<u8>, SourceError> {
        let bytes = if path == Self::skill_file_name(location) {
            self.read(location)?.into_bytes()
        } else {
            (self.files.iter())
                .find(|(l, p, _)| l == location && p == path)
                .map(|(_, _, bytes)| bytes.clone())
                .ok_or_else(|| SourceError::new(format!("no file {path} in the skill at {location}")))?
        };
        // As a filesystem source would: at most one byte past the limit.
        Ok(bytes.into_iter().take(max_bytes.saturating_add(1)).collect())
    }
}
