//! Which skills a message calls for: the substring [`rules`] (mentions, descriptions,
//! tags, names), relevance ranking ([`rank`], reading [`words`] and what fields say for
//! and against a skill, [`triggers`]), and selection by the host's model ([`llm`]: the
//! prompt and the reading of its reply).

pub(crate) mod llm;
pub(crate) mod rank;
pub(crate) mod rules;
pub(crate) mod triggers;
pub(crate) mod words;

/// A turn keeps the buffers it read a message into (the folded message, its words) for
/// the thread's next turn when the message was at most this long; after a longer one they
/// are dropped, so a thread holds no more than a message this size needs between turns.
pub(crate) const KEPT_BUFFERS_MESSAGE_BYTES: usize = 16 << 10;
