//! Labelled messages read from JSON lines or from a skill's own trigger evals.

use serde::{Deserialize, Serialize};

/// Most labelled messages one evaluation reads (a larger set is refused, not cut).
pub const MAX_EVAL_MESSAGES: usize = 100_000;

/// One labelled message.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabelledMessage {
    /// The user's message.
    #[serde(alias = "query")]
    pub q: String,
    /// Skills any of which answers the message; `Some([])`: nothing should be injected;
    /// `None`: no expectation (only `not` is checked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Vec<String>>,
    /// Skills that must not be injected.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not: Vec<String>,
}

/// A labelled set that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalInputError {
    /// 1-based line (JSON lines) or 0 for the whole text.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for EvalInputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line > 0 {
            write!(f, "line {}: {}", self.line, self.message)
        } else {
            f.write_str(&self.message)
        }
    }
}

impl std::error::Error for EvalInputError {}

/// Reads JSON lines `{"q" (or "query"), "expect"?, "not"?}`; blank lines are skipped.
pub fn read_labelled_lines(text: &str) -> Result<Vec<LabelledMessage>, EvalInputError> {
    let mut messages = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let message: LabelledMessage =
            serde_json::from_str(line).map_err(|e| EvalInputError { line: i + 1, message: e.to_string() })?;
        messages.push(message);
        if messages.len() > MAX_EVAL_MESSAGES {
            return Err(EvalInputError { line: i + 1, message: format!("more than {MAX_EVAL_MESSAGES} messages") });
        }
    }
    Ok(messages)
}

#[derive(Deserialize)]
struct TriggerEval {
    query: String,
    should_trigger: bool,
}

#[derive(Deserialize)]
struct PromptEval {
    prompt: String,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum EvalFile {
    Triggers(Vec<TriggerEval>),
    Prompts { evals: Vec<PromptEval> },
}

/// Reads the trigger evals of skill `skill`: a JSON list of `{"query",
/// "should_trigger"}` (true: `skill` should be injected; false: it must not be), or
/// skill-creator's `{"evals": [{"prompt", …}]}`, whose prompts `skill` should answer.
pub fn read_trigger_evals(skill: &str, text: &str) -> Result<Vec<LabelledMessage>, EvalInputError> {
    let file: EvalFile = serde_json::from_str(text).map_err(|_| EvalInputError {
        line: 0,
        message: "expected a list of {\"query\", \"should_trigger\"} or {\"evals\": [{\"prompt\"}]}".to_owned(),
    })?;
    let messages: Vec<LabelledMessage> = match file {
        EvalFile::Triggers(list) => list
            .into_iter()
            .map(|t| {
                let named = vec![skill.to_owned()];
                if t.should_trigger {
                    LabelledMessage { q: t.query, expect: Some(named), not: Vec::new() }
                } else {
                    LabelledMessage { q: t.query, expect: None, not: named }
                }
            })
            .collect(),
        EvalFile::Prompts { evals } => evals
            .into_iter()
            .map(|p| LabelledMessage { q: p.prompt, expect: Some(vec![skill.to_owned()]), not: Vec::new() })
            .collect(),
    };
    if messages.len() > MAX_EVAL_MESSAGES {
        return Err(EvalInputError { line: 0, message: format!("more than {MAX_EVAL_MESSAGES} messages") });
    }
    Ok(messages)
}
