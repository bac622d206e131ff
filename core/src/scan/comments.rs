//! HTML comments (`<!-- … -->`) outside fenced code: a Markdown viewer hides them from the
//! person reviewing a skill, and the model reads them. A comment that speaks to the model —
//! names it (the assistant, the AI, Claude, ChatGPT, …) and addresses it (in the second
//! person, or `Assistant:`, `note for the AI`) — is hidden text. Authors' notes (`<!-- TODO:
//! add examples -->`, `<!-- AI-generated, do not edit -->`) are not findings.

use super::{visible, Category, Findings, MAX_EXCERPT_CHARS};
use crate::skill::Fences;
use crate::text::excerpt;

/// Words that name an AI model as an addressee.
const MODEL: [&str; 9] = ["assistant", "ai", "llm", "claude", "chatgpt", "gpt", "gemini", "copilot", "codex"];

pub(super) fn hidden_comments(out: &mut Findings<'_>) {
    let text = out.text;
    // Fenced code is tracked in the same pass: lines up to `tracked` have been seen.
    let (mut fences, mut tracked) = (Fences::default(), 0);
    let mut from = 0;
    // `memmem` looks for the opener with SIMD where the target has it: most texts have none.
    let opener = memchr::memmem::Finder::new("<!--");
    while let Some(start) = text.as_bytes().get(from..).and_then(|rest| opener.find(rest)).map(|i| from + i) {
        let body_start = start + 4;
        let end = text.get(body_start..).and_then(|rest| rest.find("-->")).map_or(text.len(), |i| body_start + i);
        from = (end + 3).min(text.len());
        let line_start = text.get(..start).and_then(|head| head.rfind('\n')).map_or(0, |i| i + 1);
        if line_start > tracked {
            for line in text.get(tracked..line_start).unwrap_or_default().lines() {
                fences.update(line);
            }
            tracked = line_start;
        }
        if out.full() {
            return;
        }
        let body = text.get(body_start..end).unwrap_or_default();
        if !fences.inside() && speaks_to_model(body) {
            let message = "an HTML comment, hidden when the Markdown is displayed, speaks to the model".to_owned();
            out.push(Category::HiddenText, start, message, excerpt(&visible(body.trim()), MAX_EXCERPT_CHARS));
        }
    }
}

/// True when `text` addresses the model: names it (assistant, AI, Claude, …) and either
/// speaks to it in the second person or calls on it (`Assistant:`, `note for the AI`).
/// `<!-- AI-generated, do not edit -->` names a model but speaks to the reader.
fn speaks_to_model(text: &str) -> bool {
    let words: Vec<String> = text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    let model = |w: &String| MODEL.contains(&w.as_str());
    if !words.iter().any(model) {
        return false;
    }
    let second_person = words.iter().any(|w| matches!(w.as_str(), "you" | "your" | "yourself"));
    let lower = text.to_ascii_lowercase();
    let called = MODEL.iter().any(|m| lower.contains(&format!("{m}:")))
        || words.windows(3).any(|w| {
            matches!(w, [a, b, c] if matches!(a.as_str(), "note" | "message" | "instructions")
                && matches!(b.as_str(), "to" | "for") && MODEL.contains(&c.as_str()))
        })
        || words.windows(4).any(|w| {
            matches!(w, [a, b, t, c] if matches!(a.as_str(), "note" | "message" | "instructions")
                && matches!(b.as_str(), "to" | "for") && t == "the" && MODEL.contains(&c.as_str()))
        });
    second_person || called
}
