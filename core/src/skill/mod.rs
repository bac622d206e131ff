//! A skill as the standard defines it: its SKILL.md split into frontmatter and body
//! ([`frontmatter`]), the frontmatter read as YAML ([`yaml`]), loaded leniently into a
//! [`Skill`] with diagnostics ([`load`]) or checked strictly in the reference
//! validator's words ([`lint`]), under the input [`limits`]; [`location`] reads the
//! names sources give SKILL.md files; [`listed`] reads skills a server lists by their
//! frontmatter.

pub(crate) mod diag;
pub(crate) mod fields;
pub(crate) mod frontmatter;
pub(crate) mod limits;
pub(crate) mod lint;
pub(crate) mod listed;
pub(crate) mod load;
pub(crate) mod location;
pub(crate) mod sections;
#[allow(clippy::module_inception)] // the type the folder is about
pub(crate) mod skill;
pub(crate) mod spec;
pub(crate) mod yaml;

pub use listed::{check_listed_frontmatter, listed_skill_text};
pub use load::{frontmatter_json, load, Loaded};
pub use sections::BodySections;
#[cfg(test)]
pub(crate) use sections::{body_headings, body_sections};
pub(crate) use sections::{read_body, Fences};
pub use skill::Skill;
