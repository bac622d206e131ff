//! [`Skill`]: what a SKILL.md's frontmatter says, read and normalised.

use crate::skill::location;
use crate::skill::sections::BodySections;
use serde::Serialize;
use std::collections::BTreeMap;

/// A usable skill: its frontmatter fields, read and normalised. The body is not kept;
/// it is read from the source when the skill is injected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Skill {
    /// The skill's name (trimmed), or its folder's name when the frontmatter has none.
    pub name: String,
    /// What the skill does and when to use it (trimmed).
    pub description: String,
    /// Where the source keeps its SKILL.md.
    pub location: String,
    /// `license`, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    /// `compatibility`, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compatibility: Option<String>,
    /// `metadata` as string pairs; non-string values are kept as their YAML text.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: BTreeMap<String, String>,
    /// `allowed-tools`, one entry per tool pattern.
    #[serde(rename = "allowed-tools", skip_serializing_if = "Vec::is_empty")]
    pub allowed_tools: Vec<String>,
    /// `tags`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// `when_to_use` (Claude Code's field): more about when the skill applies, such as
    /// trigger phrases or example requests; ranked like the description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub when_to_use: Option<String>,
    /// `when_not_to_use`: requests the skill is not for; words a message shares with it
    /// count against the skill in ranking.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub when_not_to_use: Option<String>,
    /// `paths` (Claude Code's field): glob patterns of the files the skill is about.
    /// Kept for hosts that work on files; skillwire's routing reads messages, not files,
    /// so it does not limit when the skill fires.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// `user-invocable`; `false` hides the skill from the user's own menu (`@`
    /// autocomplete, user-facing listings). The model may still use it automatically,
    /// unless the host reads the field the old way
    /// ([`NotUserInvocable::MentionOnly`](crate::catalog::NotUserInvocable)).
    #[serde(rename = "user-invocable")]
    pub user_invocable: bool,
    /// `disable-model-invocation`; `true` means only an explicit `@mention` injects it.
    #[serde(rename = "disable-model-invocation")]
    pub disable_model_invocation: bool,
    /// Integrations the skill needs (`requires`); `kind:name` for map entries.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub requires: Vec<String>,
    /// `max_turns`, 1–10 (default 1).
    pub max_turns: u8,
    /// Fields the standard and skillwire don't define, kept as they were written, each
    /// value as YAML flow text (`{k: [1, 2]}`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, String>,
    /// The body's Markdown headings (outside code fences), at most
    /// 64 of at most 200 bytes each: what ranking may read
    /// of the body. Read only by a catalogue that ranks on headings
    /// ([`RankOptions::headings`](crate::RankOptions)); empty otherwise.
    #[serde(skip)]
    pub headings: Vec<String>,
    /// What the body's "When to use" and "When not to use" sections say: read when the
    /// catalogue is built, ranked at a lower weight than the description.
    #[serde(skip)]
    pub sections: BodySections,
}

/// An empty skill with the standard's defaults (invocable by the model and the
/// user, one turn).
impl Default for Skill {
    fn default() -> Self {
        Skill {
            name: String::new(),
            description: String::new(),
            location: String::new(),
            license: None,
            compatibility: None,
            metadata: BTreeMap::new(),
            allowed_tools: Vec::new(),
            tags: Vec::new(),
            when_to_use: None,
            when_not_to_use: None,
            paths: Vec::new(),
            user_invocable: true,
            disable_model_invocation: false,
            requires: Vec::new(),
            max_turns: 1,
            extra: BTreeMap::new(),
            headings: Vec::new(),
            sections: BodySections::default(),
        }
    }
}

impl Skill {
    /// True when rules may inject the skill without an explicit `@mention`: it does
    /// not say `disable-model-invocation: true`. (`user-invocable: false` only hides it
    /// from the user's menu; a host that reads it as mention-only sets
    /// [`NotUserInvocable::MentionOnly`](crate::catalog::NotUserInvocable).)
    pub fn auto_invocable(&self) -> bool {
        !self.disable_model_invocation
    }

    /// The description as a model's listings show it: the description, then
    /// `when_to_use` when there is one (as Claude Code lists skills). Used by the
    /// catalogue text, the selection prompt, the skills as tools and the embedding text.
    pub fn listing_description(&self) -> std::borrow::Cow<'_, str> {
        match self.when_to_use.as_deref() {
            Some(more) => format!("{} {more}", self.description).into(),
            None => self.description.as_str().into(),
        }
    }

    /// The directory that holds the skill's SKILL.md (the location up to its last `/`).
    pub fn directory(&self) -> &str {
        location::directory(&self.location)
    }
}
