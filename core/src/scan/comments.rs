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
/// Words that name it only when it is called on (`Model:`, `note to the agent`): alone
/// they are everyday words in a skill (`the data model`).
const CALLED: [&str; 3] = ["model", "agent", "system"];

pub(super) fn hidden_comments(out: &mut Findings<'_>) {
    let text = out.text;
    // Fenced code is tracked in the same pass: lines up to `tracked` have been seen.
    let (mut fences, mut tracked) = (Fences::default(), 0);
    // The last comment's line start, and its start: no line break lies between them (a
    // comment inside code does not move `tracked`, so its line is not searched again).
    let (mut last_line_start, mut searched_to) = (0, 0);
    let mut from = 0;
    // `memmem` looks for the opener with SIMD where the target has it: most texts have none.
    let opener = memchr::memmem::Finder::new("<!--");
    while let Some(start) = text.as_bytes().get(from..).and_then(|rest| opener.find(rest)).map(|i| from + i) {
        let body_start = start + 4;
        let end = text.get(body_start..).and_then(|rest| rest.find("-->")).map_or(text.len(), |i| body_start + i);
        from = (end + 3).min(text.len());
        // The comment's line starts after the last newline since what was tracked, or since
        // the last comment when that was on a line no earlier (each byte is looked at once:
        // the pass stays linear).
        let (search_from, no_break_from) = match searched_to > tracked {
            true => (searched_to, last_line_start),
            false => (tracked, tracked),
        };
        let line_start = (text.get(search_from..start).and_then(|gap| gap.rfind('\n')))
            .map_or(no_break_from, |i| search_from + i + 1);
        (last_line_start, searched_to) = (line_start, start);
        if line_start > tracked {
            for line in text.get(tracked..line_start).unwrap_or_default().lines() {
                fences.update(line);
            }
            tracked = line_start;
        }
        let in_code = fences.inside();
        // What a comment holds is not Markdown: a fence line inside it opens nothing. (A
        // comment ending before what was tracked, one of several on a line, leaves it: the
        // line's end is not looked for again.)
        if !in_code && end >= tracked {
            tracked = text.get(end..).and_then(|rest| rest.find('\n')).map_or(text.len(), |i| end + i + 1).max(tracked);
        }
        if out.full() {
            return;
        }
        let body = text.get(body_start..end).unwrap_or_default();
        if !in_code && speaks_to_model(body) {
            let message = "an HTML comment, hidden when the Markdown is displayed, speaks to the model".to_owned();
            out.push(Category::HiddenText, start, message, excerpt(&visible(body.trim()), MAX_EXCERPT_CHARS));
        }
    }
}

/// True when `text` addresses the model: names it (assistant, AI, Claude, …) and speaks
/// to it in the second person, or calls on it (`Assistant:`, `Model:`, `note for the AI`).
/// `<!-- AI-generated, do not edit -->` names a model but speaks to the reader.
fn speaks_to_model(text: &str) -> bool {
    let words: Vec<String> = text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    let named = |w: &str| MODEL.contains(&w) || CALLED.contains(&w);
    let second_person = words.iter().any(|w| matches!(w.as_str(), "you" | "your" | "yourself"))
        && words.iter().any(|w| MODEL.contains(&w.as_str()));
    // `Assistant:` — a name as a whole word, right before a colon.
    let lower = text.to_ascii_lowercase();
    let colon = lower.match_indices(':').any(|(i, _)| {
        let head = lower.get(..i).unwrap_or_default().trim_end();
        let word = head.rsplit(|c: char| !c.is_ascii_alphanumeric()).next().unwrap_or_default();
        named(word)
    });
    // `note for the AI`, `message to the agent`.
    let noted = words.windows(4).any(|w| match w {
        [a, b, t, c] if t == "the" => note(a, b) && named(c),
        _ => false,
    }) || words.windows(3).any(|w| matches!(w, [a, b, c] if note(a, b) && named(c)));
    second_person || colon || noted
}

fn note(a: &str, b: &str) -> bool {
    matches!(a, "note" | "message" | "instructions") && matches!(b, "to" | "for")
}
