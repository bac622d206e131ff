//! What a turn knows about the conversation: [`TurnContext`], and the [`Session`] that
//! remembers which skills recent turns injected.

use super::Injection;
use crate::select::rules::mention_key;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// What the host knows about the conversation, for one turn.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TurnContext {
    /// The message's embedding from the host's model, when the catalogue has the
    /// skills' ([`Catalog::set_embeddings`](crate::Catalog::set_embeddings)): fused into the ranking. Ignored when the
    /// catalogue has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedding: Option<Vec<f32>>,
    /// Skills whose bodies recent turns injected and that are still in the model's
    /// context (names, compared ignoring case and `-`/`_`). They are not injected
    /// again, whatever selected them (an `@mention` included): the decision says
    /// `recently-injected`.
    pub recent: Vec<String>,
    /// The skills the host's model chose for this message (names, as
    /// [`Catalog::select_parse`](crate::Catalog::select_parse) returns them). When set,
    /// the turn injects the message's `@mentions` and these, with reason `selected`,
    /// instead of what the rules and ranking find. Names the catalogue does not know are
    /// left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selected: Option<Vec<String>>,
}

impl TurnContext {
    pub(crate) fn is_recent(&self, name: &str) -> bool {
        !self.recent.is_empty() && {
            let key = mention_key(name);
            self.recent.iter().any(|r| mention_key(r) == key)
        }
    }
}

/// Most skills one remembered turn holds when a session is restored
/// ([`Session::from_turns`]).
pub const MAX_SESSION_SKILLS_PER_TURN: usize = 64;

/// The skills injected by the last few turns of a conversation, so that a skill whose
/// body is still in the model's context is not injected again.
///
/// ```
/// # use skillwire::{Catalog, CatalogInput, CatalogOptions, RenderOptions, Session};
/// # let text = "---\nname: pdf\ndescription: Merge PDF files.\n---\nUse qpdf.\n".to_owned();
/// # let catalog = Catalog::build(vec![CatalogInput { source: 0, id: None, origin: None, location: "pdf/SKILL.md".into(), text: Ok(text.clone()) }], &CatalogOptions::default());
/// let mut session = Session::new(4); // a body stays in context for the next 4 turns
/// for message in ["@pdf merge these", "and @pdf split that one"] {
///     let turn = catalog.inject(message, &session.context(), &RenderOptions::default(), |_| Ok(text.clone()))?;
///     session.record(&turn);
/// }
/// # Ok::<(), skillwire::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    window: usize,
    /// Per turn, oldest first: the skills it injected.
    turns: VecDeque<Vec<String>>,
}

impl Session {
    /// A session that treats a body as still in context for the `window` turns after
    /// the turn that injected it. 0 never skips anything.
    pub fn new(window: usize) -> Session {
        Session { window, turns: VecDeque::new() }
    }

    /// The context for the next turn: the skills the last `window` turns injected.
    pub fn context(&self) -> TurnContext {
        let mut recent: Vec<String> = Vec::new();
        for name in self.turns.iter().flatten() {
            if !recent.contains(name) {
                recent.push(name.clone());
            }
        }
        TurnContext { recent, ..TurnContext::default() }
    }

    /// Records a turn: the skills it injected stay in the context for `window` turns.
    pub fn record(&mut self, turn: &Injection) {
        let injected =
            turn.decisions.iter().filter(|d| d.skipped.is_none() && d.injected_bytes > 0).map(|d| d.skill.clone());
        self.turns.push_back(injected.collect());
        while self.turns.len() > self.window {
            self.turns.pop_front();
        }
    }

    /// Forgets every turn (after the host dropped or summarised the conversation).
    pub fn clear(&mut self) {
        self.turns.clear();
    }

    /// The skills each remembered turn injected, oldest first: what a host that runs one
    /// process per turn (a coding agent's hook) keeps between turns, to give back to
    /// [`Session::from_turns`].
    pub fn turns(&self) -> Vec<Vec<String>> {
        self.turns.iter().cloned().collect()
    }

    /// A session of `window` turns remembering the last `window` of `turns` (oldest first,
    /// as [`Session::turns`] gave them), at most [`MAX_SESSION_SKILLS_PER_TURN`] skills of
    /// each: what a host read back from storage is bounded like what a turn records.
    pub fn from_turns(window: usize, turns: Vec<Vec<String>>) -> Session {
        let skip = turns.len().saturating_sub(window);
        let turns = turns.into_iter().skip(skip).map(|mut t| {
            t.truncate(MAX_SESSION_SKILLS_PER_TURN);
            t
        });
        Session { window, turns: turns.collect() }
    }
}
