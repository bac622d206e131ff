//! The errors a turn can return. Problems with individual skills are never errors:
//! they are skipped skills or decisions with a reason.

/// A call the core refused. (Exhaustive on purpose: a new variant must be carried
/// through every binding, and the compiler points at each one.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The user message is longer than [`Limits::max_message_bytes`](crate::Limits).
    MessageTooLarge {
        /// The message's length in bytes.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// A model's reply handed to [`Catalog::select_parse`](crate::Catalog::select_parse)
    /// is longer than [`Limits::max_message_bytes`](crate::Limits).
    ReplyTooLarge {
        /// The reply's length in bytes.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// An embedding vector from the host cannot be used: its length differs from the
    /// catalogue's vectors or is over the limit, or it holds a NaN or an infinity.
    InvalidEmbedding {
        /// Whose vector: a skill's name, or `message`.
        of: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A [`Turn`](crate::Turn) planned by another catalogue (one built before a refresh)
    /// was handed to [`Catalog::render`](crate::Catalog::render): plan it again.
    StaleTurn,
    /// An automaton the core builds could not be built: the matching automaton (from the
    /// catalogue's names, tags and descriptions, within the input limits) or the safety
    /// scan's (from a fixed list). Not expected; reported on every turn (or as a skipped
    /// skill, for the scan) rather than matching or scanning nothing.
    Unavailable {
        /// Which part.
        part: String,
        /// Why it could not be built.
        problem: String,
    },
}

impl Error {
    /// A stable code for bindings (`message_too_large`, `reply_too_large`,
    /// `invalid_embedding`, `stale_turn`, `unavailable`).
    pub fn code(&self) -> &'static str {
        match self {
            Error::MessageTooLarge { .. } => "message_too_large",
            Error::ReplyTooLarge { .. } => "reply_too_large",
            Error::InvalidEmbedding { .. } => "invalid_embedding",
            Error::StaleTurn => "stale_turn",
            Error::Unavailable { .. } => "unavailable",
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::MessageTooLarge { bytes, limit } => {
                write!(f, "the message is {bytes} bytes; the limit is {limit}")
            }
            Error::ReplyTooLarge { bytes, limit } => write!(f, "the reply is {bytes} bytes; the limit is {limit}"),
            Error::InvalidEmbedding { of, problem } => write!(f, "the embedding of {of} {problem}"),
            Error::StaleTurn => f.write_str("the turn was planned by another catalogue; plan it again"),
            Error::Unavailable { part, problem } => write!(f, "the {part} could not be built: {problem}"),
        }
    }
}

impl std::error::Error for Error {}
