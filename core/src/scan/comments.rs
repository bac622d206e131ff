//! HTML comments (`<!-- … -->`) outside fenced code: a Markdown viewer hides them from the
//! person reviewing a skill, and the model reads them. A comment that speaks to the model —
//! names it (the assistant, the AI, the model, the agent, Claude, ChatGPT, …) and tells it
//! something (you, must, should, always, never, ignore, instead, do not) — is hidden text.
//! Authors' notes (`<!-- TODO: add examples -->`) name no model and are not findings.

use super::{visible, Category, Findings, MAX_EXCERPT_CHARS};
use crate::skill::Fences;
use crate::text::excerpt;

/// Words that name the model or address it as an agent.
const MODEL: [&str; 12] =
    ["assistant", "ai", "llm", "model", "agent", "claude", "chatgpt", "gpt", "gemini", "copilot", "bot", "system"];
/// Words that tell it what to do.
const DIRECTIVE: [&str; 10] =
    ["you", "your", "must", "should", "always", "never", "ignore", "disregard", "instead", "secretly"];

pub(super) fn hidden_comments(out: &mut Findings<'_>) {
    let text = out.text;
    let mut from = 0;
    // `memmem` looks for the opener with SIMD where the target has it: most texts have none.
    let opener = memchr::memmem::Finder::new("<!--");
    while let Some(start) = text.as_bytes().get(from..).and_then(|rest| opener.find(rest)).map(|i| from + i) {
        let body_start = start + 4;
        let end = text.get(body_start..).and_then(|rest| rest.find("-->")).map_or(text.len(), |i| body_start + i);
        from = (end + 3).min(text.len());
        let body = text.get(body_start..end).unwrap_or_default();
        if out.full() {
            return;
        }
        if speaks_to_model(body) && !in_fenced_code(text, start) {
            let message = "an HTML comment, hidden when the Markdown is displayed, speaks to the model".to_owned();
            out.push(Category::HiddenText, start, message, excerpt(&visible(body.trim()), MAX_EXCERPT_CHARS));
        }
    }
}

/// True when `text` names the model and tells it something.
fn speaks_to_model(text: &str) -> bool {
    let words: Vec<String> = text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    let has = |set: &[&str]| words.iter().any(|w| set.contains(&w.as_str()));
    let do_not =
        words.windows(2).any(|pair| matches!(pair, [a, b] if (a == "do" && b == "not") || (a == "don" && b == "t")));
    has(&MODEL) && (has(&DIRECTIVE) || do_not)
}

/// True when byte `offset` of `text` lies inside a fenced code block.
fn in_fenced_code(text: &str, offset: usize) -> bool {
    let head = text.get(..offset).unwrap_or_default();
    // The lines before the comment's own: a fence opened there and not closed.
    let before = head.rfind('\n').map_or("", |i| head.get(..i).unwrap_or_default());
    let mut fences = Fences::default();
    for line in before.lines() {
        fences.update(line);
    }
    fences.inside()
}
