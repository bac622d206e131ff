//! `skillwire hook AGENT`: the skills a coding agent's prompt calls for, injected through
//! the agent's prompt hook. The agent runs the command on each prompt with an event on
//! standard input; the command answers with the skills' instructions as additional context
//! (or nothing), in the agent's own output shape:
//!
//! - Claude Code and Codex: the `UserPromptSubmit` event, answered with
//!   `{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": …}}`;
//! - Gemini CLI: the `BeforeAgent` event, answered the same way under its event's name (and
//!   `{}` when nothing applies: it reads any other output as a message for the user).
//!
//! A skill injected by one of the last `--window` prompts of the same session is still in
//! the agent's context and is not injected again; the session's memory is a small file in
//! the cache folder (named by the session id's SHA-256, removed after a week unused),
//! forgotten when the agent sends `SessionStart` (Claude Code does on start, `/clear` and
//! compaction). A prompt over the message limit (a long paste) is routed on its start and
//! its end, which is where a request around a paste usually is; the agent still has all of
//! it. Every failure exits 1, which agents treat as a non-blocking error (exit 2 would block
//! the user's prompt); that includes a command line clap refuses (`main.rs`).

use crate::args::HookAgent;
use crate::load::cache_dir;
use crate::InputError;
use clap::ValueEnum;
use skillwire::{Injection, Session};
use skillwire_host::Backend;
use std::borrow::Cow;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Largest event read from standard input (a prompt over the message limit is routed on
/// its start and end: [`start_and_end`]).
const MAX_EVENT_BYTES: u64 = 8 << 20;
/// Largest session file read back.
const MAX_SESSION_FILE_BYTES: u64 = 1 << 20;

/// What the hook reads of an agent's event (other fields are ignored).
#[derive(serde::Deserialize)]
struct Event {
    #[serde(default)]
    hook_event_name: String,
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default)]
    prompt: Option<String>,
}

impl HookAgent {
    /// The event whose answer adds context to the prompt.
    fn prompt_event(self) -> &'static str {
        match self {
            HookAgent::ClaudeCode | HookAgent::Codex => "UserPromptSubmit",
            HookAgent::GeminiCli => "BeforeAgent",
        }
    }

    /// What the agent reads as "nothing to add".
    fn nothing(self) -> &'static str {
        match self {
            HookAgent::ClaudeCode | HookAgent::Codex => "",
            HookAgent::GeminiCli => "{}",
        }
    }
}

/// Reads the event on standard input and returns what to print.
pub(crate) fn run(
    agent: HookAgent,
    make_engine: impl FnOnce() -> Result<Box<dyn Backend>, InputError>,
    max_message_bytes: usize,
    window: usize,
    log: Option<&Path>,
) -> Result<String, InputError> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(MAX_EVENT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| InputError(format!("could not read the hook event: {e}")))?;
    if bytes.len() as u64 > MAX_EVENT_BYTES {
        return Err(InputError(format!("the hook event is over {MAX_EVENT_BYTES} bytes")));
    }
    let event: Event = match serde_json::from_slice(&bytes) {
        Ok(event) => event,
        // A prompt may hold what serde_json refuses: read again with it replaced.
        Err(e) => serde_json::from_str(&repaired(&bytes))
            .map_err(|_| InputError(format!("the hook event is not JSON: {e}")))?,
    };
    let state = event.session_id.as_deref().and_then(session_file);
    if event.hook_event_name == "SessionStart" {
        // A new, cleared or compacted conversation holds no skill bodies.
        if let Some(path) = &state {
            let _ = std::fs::remove_file(path);
        }
        return Ok(agent.nothing().to_owned());
    }
    if event.hook_event_name != agent.prompt_event() {
        return Err(InputError(format!(
            "this hook answers {} events, not \"{}\"",
            agent.prompt_event(),
            event.hook_event_name
        )));
    }
    let prompt = event.prompt.ok_or_else(|| InputError("the hook event has no prompt".to_owned()))?;
    let mut session = Session::from_turns(window, state.as_deref().map(read_session).unwrap_or_default());
    let turn = make_engine()?.inject(&start_and_end(&prompt, max_message_bytes), &session.context())?;
    // A log that cannot be written costs the log line, not the prompt's skills.
    if let Some(log) = log {
        if let Err(InputError(why)) = log_turn(log, agent, event.session_id.as_deref(), &prompt, &turn) {
            eprintln!("skillwire: {why}");
        }
    }
    session.record(&turn);
    if let Some(path) = &state {
        write_session(path, &session);
    }
    if turn.text.is_empty() {
        return Ok(agent.nothing().to_owned());
    }
    let answer = serde_json::json!({
        "hookSpecificOutput": { "hookEventName": agent.prompt_event(), "additionalContext": turn.text },
    });
    Ok(answer.to_string())
}

/// `prompt`, or when it is over `max` bytes its first and last parts joined by a line
/// break, `max` bytes at most, each cut on a character boundary.
fn start_and_end(prompt: &str, max: usize) -> Cow<'_, str> {
    if prompt.len() <= max {
        return Cow::Borrowed(prompt);
    }
    let mut start = max / 2;
    while !prompt.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = prompt.len() - max.saturating_sub(start + 1);
    while !prompt.is_char_boundary(end) {
        end += 1;
    }
    let (first, last) = (prompt.get(..start).unwrap_or_default(), prompt.get(end..).unwrap_or_default());
    Cow::Owned(format!("{first}\n{last}"))
}

/// How long a session's memory is kept after its last prompt.
const SESSION_DAYS: u64 = 7;

/// The file remembering session `id`'s turns in the cache folder, named by the id's
/// SHA-256 (any id is a safe file name).
fn session_file(id: &str) -> Option<PathBuf> {
    let digest = skillwire::sha256_digest(id.as_bytes());
    let name = digest.strip_prefix("sha256:").unwrap_or(&digest);
    Some(cache_dir()?.join("hook-sessions").join(format!("{name}.json")))
}

/// The turns remembered for a session; none when the file is missing, and none (said on
/// standard error) when it cannot be read back.
fn read_session(path: &Path) -> Vec<Vec<String>> {
    let Ok(file) = std::fs::File::open(path) else { return Vec::new() };
    let mut text = String::new();
    let read = file.take(MAX_SESSION_FILE_BYTES).read_to_string(&mut text);
    match read.map_err(|e| e.to_string()).and_then(|_| serde_json::from_str(&text).map_err(|e| e.to_string())) {
        Ok(turns) => turns,
        Err(why) => {
            eprintln!("skillwire: {}: {why}; the session's earlier skills are forgotten", path.display());
            Vec::new()
        }
    }
}

/// Remembers the session's turns (written whole, then renamed into place, so a reader never
/// sees half a file), and forgets sessions untouched for [`SESSION_DAYS`]. A failure only
/// costs a skill injected twice.
fn write_session(path: &Path, session: &Session) {
    let Some(dir) = path.parent() else { return };
    let _ = std::fs::create_dir_all(dir);
    forget_old_sessions(dir);
    let Ok(text) = serde_json::to_string(&session.turns()) else { return };
    let partial = path.with_extension(format!("json.{}", std::process::id()));
    if std::fs::write(&partial, text).is_ok() && std::fs::rename(&partial, path).is_err() {
        let _ = std::fs::remove_file(&partial);
    }
}

/// Removes the session files of `dir` not written for [`SESSION_DAYS`] days.
fn forget_old_sessions(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let old = std::time::Duration::from_secs(SESSION_DAYS * 24 * 3600);
    for entry in entries.filter_map(Result::ok) {
        let modified = entry.metadata().and_then(|m| m.modified());
        if modified.is_ok_and(|at| at.elapsed().is_ok_and(|age| age > old)) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Appends one JSON line to the log: when, which agent and session, the prompt's size (not
/// its text), and every decision.
fn log_turn(
    log: &Path,
    agent: HookAgent,
    session: Option<&str>,
    prompt: &str,
    turn: &Injection,
) -> Result<(), InputError> {
    let seconds = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let line = serde_json::json!({
        "time": seconds,
        "agent": agent.to_possible_value().map(|name| name.get_name().to_owned()),
        "session": session,
        "prompt_bytes": prompt.len(),
        "injected_bytes": turn.summary.injected_bytes,
        "decisions": turn.decisions,
    });
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .map_err(|e| InputError(format!("--log {}: {e}", log.display())))?;
    writeln!(file, "{line}").map_err(|e| InputError(format!("--log {}: {e}", log.display())))
}

/// `json` with what a prompt may hold but serde_json refuses replaced by U+FFFD: bytes that
/// are not UTF-8, and `\u` escapes of a lone surrogate (JavaScript's `JSON.stringify`
/// writes one for a string cut inside an emoji, as an agent's prompt may be). Everything else,
/// other escapes included, stays as it was.
fn repaired(json: &[u8]) -> String {
    let text = String::from_utf8_lossy(json);
    let mut out = String::with_capacity(text.len());
    let mut rest: &str = &text;
    while let Some(at) = rest.find('\\') {
        out.push_str(rest.get(..at).unwrap_or_default());
        let escape = rest.get(at..).unwrap_or_default();
        let unit = |from: usize| escape.get(from..).and_then(escaped_unit);
        let (taken, kept) = match unit(0) {
            // A high surrogate followed by a low one: a character, kept.
            Some(0xD800..=0xDBFF) if unit(6).is_some_and(|low| (0xDC00..=0xDFFF).contains(&low)) => (12, true),
            Some(0xD800..=0xDFFF) => (6, false),
            Some(_) => (6, true),
            // Another escape: the backslash and what it escapes.
            None => (1 + escape.get(1..).and_then(|after| after.chars().next()).map_or(0, char::len_utf8), true),
        };
        match kept {
            true => out.push_str(escape.get(..taken).unwrap_or(escape)),
            false => out.push_str("\\ufffd"),
        }
        rest = escape.get(taken..).unwrap_or_default();
    }
    out.push_str(rest);
    out
}

/// The UTF-16 unit of the `\uXXXX` escape `text` starts with.
fn escaped_unit(text: &str) -> Option<u16> {
    u16::from_str_radix(text.strip_prefix("\\u")?.get(..4)?, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::{repaired, start_and_end};

    #[test]
    fn what_serde_json_refuses_in_a_prompt_is_replaced_and_nothing_else() {
        let event = |prompt: &str| format!(r#"{{"hook_event_name":"UserPromptSubmit","prompt":"{prompt}"}}"#);
        let read = |json: &str| -> serde_json::Value { serde_json::from_str(&repaired(json.as_bytes())).unwrap() };
        // A lone surrogate, high or low, and one cut short at the end of a string.
        assert_eq!(read(&event(r"fix \ud83d this \udc00 now"))["prompt"], "fix \u{fffd} this \u{fffd} now");
        assert_eq!(read(&event(r"cut \ud83d"))["prompt"], "cut \u{fffd}");
        // A pair, other escapes and an escaped backslash before a `u` are kept.
        let kept = event(r#"ok \ud83d\ude00 \\ud83d \n \u00e9 \"q\""#);
        assert_eq!(repaired(kept.as_bytes()), kept);
        assert_eq!(read(&kept)["prompt"], "ok \u{1f600} \\ud83d \n \u{e9} \"q\"");
        // Bytes that are not UTF-8.
        let mut bytes = event("caf").into_bytes();
        bytes.splice(bytes.len() - 2..bytes.len() - 2, [0xe9]);
        assert_eq!(serde_json::from_str::<serde_json::Value>(&repaired(&bytes)).unwrap()["prompt"], "caf\u{fffd}");
    }

    #[test]
    fn a_long_prompt_is_read_by_its_start_and_end() {
        assert_eq!(start_and_end("short", 5), "short");
        assert_eq!(start_and_end("0123456789", 5), "01\n89");
        assert_eq!(start_and_end("0123456789", 6), "012\n89");
        // Never more than the limit, and at most a byte short of it on each side of the
        // break, cut on character boundaries (é is two bytes).
        for max in 1..16 {
            let read = start_and_end("éééééééé", max);
            assert!(read.len() <= max && read.len() + 2 >= max, "{max}: {read:?}");
            assert_eq!(read.trim_matches('é'), "\n", "{max}: {read:?}");
        }
        assert_eq!(start_and_end("éééééééé", 9), "éé\néé");
    }
}
