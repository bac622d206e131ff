//! Reading the model's reply to a selection prompt, tolerantly: JSON alone, fenced or
//! inside prose, an object or a bare list, or a plain list of names.

use super::{ReplyShape, Selection, MAX_JSON_STARTS};
use crate::catalog::Catalog;
use crate::error::Error;
use crate::select::rules::mention_key;
use serde_json::Value;

impl Catalog {
    /// Reads the model's `reply` to a selection prompt (see the module docs): at most
    /// `max_skills` skills the model may pick, in its order, with what was dropped. A
    /// reply is held to the message limit ([`Error::ReplyTooLarge`]).
    pub fn select_parse(&self, reply: &str, max_skills: usize) -> Result<Selection, Error> {
        let limit = self.limits().max_message_bytes;
        if reply.len() > limit {
            return Err(Error::ReplyTooLarge { bytes: reply.len(), limit });
        }
        let reply = without_thinking(reply);
        let (shape, ids, brief_plan) = match find_json(&reply) {
            Some((shape, ids, plan)) => (shape, ids, plan),
            None => match plain_names(&reply) {
                Some(ids) => (ReplyShape::Names, ids, None),
                None => (ReplyShape::Unreadable, Vec::new(), None),
            },
        };
        let mut selection =
            Selection { skills: Vec::new(), brief_plan, unknown: Vec::new(), over_limit: Vec::new(), reply: shape };
        let mut seen: Vec<usize> = Vec::new();
        for id in ids {
            let trimmed = id.trim().trim_start_matches('@');
            if trimmed.is_empty() {
                continue;
            }
            match self.index_of(trimmed).filter(|&i| self.selectable(i)) {
                Some(i) if seen.contains(&i) => {}
                Some(i) => {
                    seen.push(i);
                    let name = self.skills().get(i).map(|e| e.skill.name.clone()).unwrap_or_default();
                    if selection.skills.len() < max_skills {
                        selection.skills.push(name);
                    } else {
                        selection.over_limit.push(name);
                    }
                }
                None => {
                    let key = mention_key(trimmed);
                    if !selection.unknown.iter().any(|u| mention_key(u) == key) {
                        selection.unknown.push(trimmed.to_owned());
                    }
                }
            }
        }
        Ok(selection)
    }
}

/// The selection in the JSON of `reply`: the ids, the plan, and whether it was an
/// object or a list. Code fences are tried first, then the whole reply, then each `{`
/// or `[` in turn, where the first object with `skills` wins over any bare list (a list
/// inside prose is more often an aside than the answer).
fn find_json(reply: &str) -> Option<(ReplyShape, Vec<String>, Option<String>)> {
    for block in fenced_blocks(reply) {
        if let Some(found) = serde_json::from_str::<Value>(block.trim()).ok().and_then(|v| read_selection(&v)) {
            return Some(found);
        }
    }
    if let Some(found) = serde_json::from_str::<Value>(reply.trim()).ok().and_then(|v| read_selection(&v)) {
        return Some(found);
    }
    let mut first_list = None;
    for (at, _) in reply.match_indices(['{', '[']).take(MAX_JSON_STARTS) {
        let Some(rest) = reply.get(at..) else { continue };
        let Some(Ok(value)) = serde_json::Deserializer::from_str(rest).into_iter::<Value>().next() else { continue };
        match read_selection(&value) {
            Some(found) if found.0 == ReplyShape::Object => return Some(found),
            Some(found) if first_list.is_none() => first_list = Some(found),
            _ => {}
        }
    }
    first_list
}

/// `reply` without its `<think>…</think>` sections (reasoning some models write before
/// the answer); an unclosed one is kept.
fn without_thinking(reply: &str) -> std::borrow::Cow<'_, str> {
    const OPEN: &str = "<think>";
    const CLOSE: &str = "</think>";
    if !reply.contains(OPEN) {
        return std::borrow::Cow::Borrowed(reply);
    }
    let mut kept = String::with_capacity(reply.len());
    let mut rest = reply;
    while let Some(open) = rest.find(OPEN) {
        let Some(close) = rest.get(open..).and_then(|r| r.find(CLOSE)) else { break };
        kept.push_str(rest.get(..open).unwrap_or(""));
        rest = rest.get(open + close + CLOSE.len()..).unwrap_or("");
    }
    kept.push_str(rest);
    std::borrow::Cow::Owned(kept)
}

/// The contents of the reply's ``` fenced blocks (the info string after the opening
/// fence skipped).
fn fenced_blocks(reply: &str) -> Vec<&str> {
    let mut blocks = Vec::new();
    let mut rest = reply;
    while let Some(open) = rest.find("```") {
        let after = rest.get(open + 3..).unwrap_or("");
        let body_start = after.find('\n').map_or(after.len(), |n| n + 1);
        let body = after.get(body_start..).unwrap_or("");
        let Some(close) = body.find("```") else { break };
        blocks.push(body.get(..close).unwrap_or(""));
        rest = body.get(close + 3..).unwrap_or("");
    }
    blocks
}

/// A selection in a JSON value: `{"skills": [...], "brief_plan"?: "..."}` or a bare
/// list; items are names or objects naming one (`id`, `name` or `skill`).
fn read_selection(value: &Value) -> Option<(ReplyShape, Vec<String>, Option<String>)> {
    let (shape, items, plan) = match value {
        Value::Object(map) => {
            let items = map.get("skills")?.as_array()?;
            let plan = map.get("brief_plan").and_then(Value::as_str).map(str::to_owned);
            (ReplyShape::Object, items, plan)
        }
        Value::Array(items) => (ReplyShape::List, items, None),
        _ => return None,
    };
    let ids = items
        .iter()
        .filter_map(|item| match item {
            Value::String(s) => Some(s.clone()),
            Value::Object(o) => ["id", "name", "skill"].iter().find_map(|k| o.get(*k)?.as_str().map(str::to_owned)),
            _ => None,
        })
        .collect();
    Some((shape, ids, plan))
}

/// A reply that is only a list of names — one per line or comma-separated, with bullets,
/// numbers, quotes or backticks around them — as those names. `None` when any item has
/// more than one word or holds brackets (prose and broken JSON are not guessed at). "none" alone means no skills.
fn plain_names(reply: &str) -> Option<Vec<String>> {
    let mut names = Vec::new();
    for item in reply.split(['\n', ',']) {
        let item = item.trim();
        let item = item.trim_start_matches(['-', '*', '•', '+']).trim_start();
        let digits = item.bytes().take_while(u8::is_ascii_digit).count();
        let item = match item.get(digits..) {
            Some(rest) if digits > 0 && (rest.starts_with(". ") || rest.starts_with(") ")) => rest.get(2..)?,
            _ => item,
        };
        let item = item.trim().trim_matches(['`', '"', '\'', '*']).trim_end_matches(['.', ';']);
        if item.is_empty() {
            continue;
        }
        if item.split_whitespace().nth(1).is_some() || item.contains(['{', '}', '[', ']', '(', ')', ':', '=', '<', '>'])
        {
            return None;
        }
        if !item.eq_ignore_ascii_case("none") {
            names.push(item.to_owned());
        }
    }
    (!names.is_empty() || !reply.trim().is_empty()).then_some(names)
}
