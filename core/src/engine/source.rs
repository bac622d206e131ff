//! Where skills come from: the host's callbacks.
//!
//! A source lists skill entries (a location, and optionally the SKILL.md text) and
//! reads one SKILL.md by location on demand. The core calls `list` when it builds the
//! catalogue and `read` only for the skills a turn will inject. A failing `read` is a
//! skipped skill with a reason, never a failed turn.

/// One skill a source offers: where it lives and, optionally, its SKILL.md text (a
/// source that has the text at hand saves a `read`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillEntry {
    /// A path, URL or key naming the skill's SKILL.md.
    pub location: String,
    /// The SKILL.md text, when the source already has it.
    pub text: Option<String>,
}

/// A source's failure to list or read, in its own words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceError(pub String);

impl std::fmt::Display for SourceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SourceError {}

/// The host's skills.
pub trait SkillSource {
    /// Every skill entry the source holds.
    fn list(&self) -> Result<Vec<SkillEntry>, SourceError>;
    /// The SKILL.md text at `location`.
    fn read(&self, location: &str) -> Result<String, SourceError>;
}

impl<S: SkillSource + ?Sized> SkillSource for Box<S> {
    fn list(&self) -> Result<Vec<SkillEntry>, SourceError> {
        (**self).list()
    }
    fn read(&self, location: &str) -> Result<String, SourceError> {
        (**self).read(location)
    }
}

impl<S: SkillSource + ?Sized> SkillSource for &S {
    fn list(&self) -> Result<Vec<SkillEntry>, SourceError> {
        (**self).list()
    }
    fn read(&self, location: &str) -> Result<String, SourceError> {
        (**self).read(location)
    }
}

/// Skills held in memory as (location, SKILL.md text) pairs, listed in insertion order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemorySource {
    skills: Vec<(String, String)>,
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
        Ok(self.skills.iter().map(|(l, t)| SkillEntry { location: l.clone(), text: Some(t.clone()) }).collect())
    }

    fn read(&self, location: &str) -> Result<String, SourceError> {
        self.skills
            .iter()
            .find(|(l, _)| l == location)
            .map(|(_, t)| t.clone())
            .ok_or_else(|| SourceError(format!("no skill at {location}")))
    }
}
