//! Which skills a message calls for: the substring [`rules`] (mentions, descriptions,
//! tags, names), relevance ranking ([`rank`], reading [`words`] and what fields say for
//! and against a skill, [`triggers`]), and selection by the host's model ([`llm`]: the
//! prompt and the reading of its reply).

pub(crate) mod llm;
pub(crate) mod rank;
pub(crate) mod rules;
pub(crate) mod triggers;
pub(crate) mod words;
