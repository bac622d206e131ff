//! Phrases found from trigger words: instruction overrides, exfiltration, destructive
//! commands. The triggers are found where a word starts ([`triggers`](super::triggers));
//! the words around each confirm it.

use super::commands::{command_at, dangerous_remove_target, rest_of_line};
use super::hidden::{invisible_kind, is_bidi_control, is_tag, line_around};
use super::triggers::{is_word_byte, TriggerFinder};
use super::{visible, Category, Findings, EXFILTRATION_WINDOW_LINES};
use crate::error::Error;
use std::sync::OnceLock;

/// What a trigger word starts; each is confirmed by looking at the words around it.
#[derive(Debug, Clone, Copy)]
enum Trigger {
    /// `ignore`, `disregard`, …: an override when its object is the instructions.
    IgnoreVerb,
    /// `do not`, `never`, …: concealment when the user is the one not told.
    Negation,
    /// `without`: `without telling the user`.
    Without,
    /// `hide this` / `keep this`: `… from the user`.
    HideThis,
    /// `system prompt`: an extraction when a verb such as `reveal` precedes it.
    SystemPrompt,
    /// `you are now`, `developer mode`, …: an unrestricted persona.
    Persona,
    /// A chat-template role marker, a finding as it stands.
    RoleMarker,
    /// `rm`: destructive when recursive, forced, and aimed at `/`, `~` or a system folder.
    Remove,
    /// A command that destroys whatever it is given (`mkfs`, a fork bomb, `drop database`).
    Destroys(&'static str),
    /// A disk device: destructive when written to (`> /dev/sda`, `of=/dev/sda`).
    DiskDevice,
    /// A command or call that sends data over the network.
    NetworkSink,
    /// A credential file or a dump of the whole environment.
    Secret,
    /// `env` / `printenv`: a secret when piped onward.
    EnvDump,
}

/// The trigger finder, made once per process; why it could not be, if it could not.
fn triggers() -> Result<&'static TriggerFinder, Error> {
    static TRIGGERS: OnceLock<Result<TriggerFinder, String>> = OnceLock::new();
    match TRIGGERS.get_or_init(|| TriggerFinder::new(trigger_words())) {
        Ok(triggers) => Ok(triggers),
        Err(problem) => Err(Error::Unavailable { part: "safety scan's triggers".to_owned(), problem: problem.clone() }),
    }
}

/// The trigger words and phrases, in [`TRIGGER_LIST`]'s order.
pub(super) fn trigger_words() -> impl Iterator<Item = &'static str> {
    TRIGGER_LIST.iter().map(|&(word, _)| word)
}

const TRIGGER_LIST: &[(&str, Trigger)] = &[
    ("ignore", Trigger::IgnoreVerb),
    ("disregard", Trigger::IgnoreVerb),
    ("forget", Trigger::IgnoreVerb),
    ("override", Trigger::IgnoreVerb),
    ("bypass", Trigger::IgnoreVerb),
    ("do not", Trigger::Negation),
    ("don't", Trigger::Negation),
    ("never", Trigger::Negation),
    ("without", Trigger::Without),
    ("hide this", Trigger::HideThis),
    ("keep this", Trigger::HideThis),
    ("system prompt", Trigger::SystemPrompt),
    ("you are now", Trigger::Persona),
    ("you have no", Trigger::Persona),
    ("developer mode", Trigger::Persona),
    ("jailbreak mode", Trigger::Persona),
    ("<|im_start|>", Trigger::RoleMarker),
    ("<|im_end|>", Trigger::RoleMarker),
    ("<|start_header_id|>", Trigger::RoleMarker),
    ("<|eot_id|>", Trigger::RoleMarker),
    ("<|endoftext|>", Trigger::RoleMarker),
    ("</system>", Trigger::RoleMarker),
    ("rm", Trigger::Remove),
    ("mkfs", Trigger::Destroys("formats a file system")),
    (":(){", Trigger::Destroys("is a fork bomb")),
    ("drop database", Trigger::Destroys("drops a whole database")),
    ("format c:", Trigger::Destroys("formats a disk")),
    ("/dev/sd", Trigger::DiskDevice),
    ("/dev/nvme", Trigger::DiskDevice),
    ("/dev/hd", Trigger::DiskDevice),
    ("/dev/disk", Trigger::DiskDevice),
    ("curl", Trigger::NetworkSink),
    ("wget", Trigger::NetworkSink),
    ("nc", Trigger::NetworkSink),
    ("ncat", Trigger::NetworkSink),
    ("netcat", Trigger::NetworkSink),
    ("fetch(", Trigger::NetworkSink),
    ("requests.post(", Trigger::NetworkSink),
    ("requests.put(", Trigger::NetworkSink),
    ("httpx.post(", Trigger::NetworkSink),
    ("urllib.request", Trigger::NetworkSink),
    ("axios.post(", Trigger::NetworkSink),
    ("invoke-webrequest", Trigger::NetworkSink),
    ("invoke-restmethod", Trigger::NetworkSink),
    ("scp", Trigger::NetworkSink),
    ("/dev/tcp/", Trigger::NetworkSink),
    ("id_rsa", Trigger::Secret),
    ("id_dsa", Trigger::Secret),
    ("id_ecdsa", Trigger::Secret),
    ("id_ed25519", Trigger::Secret),
    (".aws/credentials", Trigger::Secret),
    (".netrc", Trigger::Secret),
    (".git-credentials", Trigger::Secret),
    (".docker/config.json", Trigger::Secret),
    (".kube/config", Trigger::Secret),
    ("/etc/shadow", Trigger::Secret),
    (".pypirc", Trigger::Secret),
    (".npmrc", Trigger::Secret),
    ("$(env)", Trigger::Secret),
    ("$(printenv)", Trigger::Secret),
    ("`env`", Trigger::Secret),
    ("`printenv`", Trigger::Secret),
    ("process.env)", Trigger::Secret),
    ("os.environ)", Trigger::Secret),
    ("login.keychain", Trigger::Secret),
    ("wallet.dat", Trigger::Secret),
    ("cookies.sqlite", Trigger::Secret),
    ("env", Trigger::EnvDump),
    ("printenv", Trigger::EnvDump),
];

/// Up to `n` words after byte `from`: runs of ASCII letters, digits and apostrophes,
/// lowercase, across whitespace and invisible characters; punctuation ends the phrase.
pub(super) fn words_after(text: &str, from: usize, n: usize) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut current = String::new();
    for c in text.get(from..).unwrap_or_default().chars().take(160) {
        if c.is_ascii_alphanumeric() || c == '\'' || c == '\u{2019}' {
            current.push(if c == '\u{2019}' { '\'' } else { c.to_ascii_lowercase() });
            continue;
        }
        if !current.is_empty() {
            words.push(std::mem::take(&mut current));
            if words.len() == n {
                return words;
            }
        }
        let invisible = invisible_kind(c, Some('a'), Some('a')).is_some() || is_tag(c) || is_bidi_control(c);
        if !(c.is_whitespace() || invisible) {
            return words;
        }
    }
    if !current.is_empty() && words.len() < n {
        words.push(current);
    }
    words
}

/// Up to `n` words before byte `to`, nearest last (as [`words_after`], backwards).
fn words_before(text: &str, to: usize, n: usize) -> Vec<String> {
    let head = text.get(..to).unwrap_or_default();
    let start = head.char_indices().rev().take(80).last().map_or(0, |(i, _)| i);
    let mut words: Vec<String> = Vec::new();
    for piece in head.get(start..).unwrap_or_default().rsplit(|c: char| !c.is_ascii_alphanumeric() && c != '\'') {
        if words.len() == n {
            break;
        }
        if !piece.is_empty() {
            words.push(piece.to_ascii_lowercase());
        }
    }
    words.reverse();
    words
}

/// Where the `n`th word before byte `to` starts (words as [`words_before`] reads them).
fn start_of_words_before(text: &str, to: usize, n: usize) -> usize {
    let bytes = text.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'\'';
    let mut at = to.min(bytes.len());
    for _ in 0..n {
        while at > 0 && bytes.get(at - 1).is_some_and(|&b| !word(b)) && to - at < 80 {
            at -= 1;
        }
        while at > 0 && bytes.get(at - 1).is_some_and(|&b| word(b)) && to - at < 80 {
            at -= 1;
        }
    }
    // The 80-byte bound may stop inside a character.
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

fn is(words: &[String], i: usize, options: &[&str]) -> bool {
    words.get(i).is_some_and(|w| options.contains(&w.as_str()))
}

/// `ignore [all|any|the|your|of|my]… previous instructions` and its kin.
fn override_object(words: &[String]) -> bool {
    const WHICH: [&str; 7] = ["previous", "prior", "above", "earlier", "preceding", "system", "original"];
    const WHAT: [&str; 10] = [
        "instructions",
        "instruction",
        "prompts",
        "prompt",
        "rules",
        "directions",
        "guidelines",
        "guidance",
        "directives",
        "context",
    ];
    let fillers =
        words.iter().take_while(|w| matches!(w.as_str(), "all" | "any" | "the" | "your" | "of" | "my")).count();
    (is(words, fillers, &WHICH) && is(words, fillers + 1, &WHAT))
        || (is(words, 0, &["everything"]) && is(words, 1, &["above", "before"]))
        || (is(words, 0, &["everything"]) && is(words, 1, &["you"]) && is(words, 2, &["were", "have"]))
        || (is(words, 0, &["your"]) && is(words, 1, &["safety", "guardrails", "restrictions"]))
}

/// After `do not` / `never`: `tell the user`, `reveal these instructions`, …
fn concealment_after_negation(words: &[String]) -> bool {
    let the_user = |i: usize| is(words, i, &["the"]) && is(words, i + 1, &["user", "user's", "users"]);
    (is(words, 0, &["tell", "inform", "notify", "alert", "let"]) && the_user(1))
        || (is(words, 0, &["mention", "reveal", "show", "disclose", "explain"])
            && is(words, 1, &["this", "these", "that", "it", "anything"])
            && ((is(words, 2, &["to"]) && the_user(3)) || is(words, 2, &["instructions", "instruction"])))
        || (is(words, 0, &["reveal", "disclose"])
            && is(words, 1, &["your", "these", "the"])
            && is(words, 2, &["instructions", "instruction"]))
}

fn concealment_after_without(words: &[String]) -> bool {
    (is(words, 0, &["telling", "informing", "notifying", "alerting", "asking"])
        && is(words, 1, &["the"])
        && is(words, 2, &["user", "users"]))
        || (is(words, 0, &["the"])
            && is(words, 1, &["user", "user's"])
            && is(words, 2, &["knowing", "knowledge", "noticing", "consent", "seeing"]))
}

fn persona(trigger: &str, words: &[String]) -> bool {
    match trigger {
        "you are now" => is(words, 0, &["dan", "unrestricted", "jailbroken", "unfiltered", "uncensored"]),
        "you have no" => is(words, 0, &["restrictions", "rules", "limits", "guidelines", "filters"]),
        "developer mode" => is(words, 0, &["enabled", "activated", "on"]),
        _ => true, // "jailbreak mode"
    }
}

pub(super) fn phrases(out: &mut Findings<'_>) -> Result<(), Error> {
    let triggers = triggers()?;
    let text = out.text;
    let bytes = text.as_bytes();
    // Network commands and secrets by line, paired afterwards.
    let mut sinks: Vec<usize> = Vec::new();
    let mut secrets: Vec<(usize, usize)> = Vec::new();
    // (Matches do not overlap: each search goes on from the last match's end.)
    let mut from = 0;
    while let Some(m) = triggers.next_match(bytes, from) {
        let (start, end) = (m.start, m.end);
        from = end;
        let found = text.get(start..end).unwrap_or_default();
        // Whole words only: a trigger starts a word (the finder's rule: `nc` does not match
        // inside `sync`) and, but for a device name, ends one (nor `rm` inside `rmdir`).
        let Some(&(_, kind)) = TRIGGER_LIST.get(m.trigger) else {
            continue;
        };
        // (A device name goes on: `/dev/sd` + `a`.)
        let ends_word = found.bytes().last().is_some_and(|b| b.is_ascii_alphanumeric());
        if ends_word && !matches!(kind, Trigger::DiskDevice) && bytes.get(end).is_some_and(|&b| is_word_byte(b)) {
            continue;
        }
        // Where the finding starts: the trigger, or the verb before `system prompt`.
        let mut phrase_start = start;
        let overriding = match kind {
            Trigger::IgnoreVerb => {
                override_object(&words_after(text, end, 6)).then_some("tells the model to ignore its instructions")
            }
            Trigger::Negation => concealment_after_negation(&words_after(text, end, 5))
                .then_some("tells the model to hide something from the user"),
            Trigger::Without => concealment_after_without(&words_after(text, end, 3))
                .then_some("tells the model to act behind the user's back"),
            Trigger::HideThis => {
                let w = words_after(text, end, 4);
                let from = if is(&w, 0, &["secret", "hidden", "private"]) { 1 } else { 0 };
                (is(&w, from, &["from"]) && is(&w, from + 1, &["the"]) && is(&w, from + 2, &["user", "users"]))
                    .then_some("tells the model to hide something from the user")
            }
            Trigger::SystemPrompt => {
                let w = words_before(text, start, 2);
                let verb = ["reveal", "print", "output", "repeat", "show", "leak", "dump", "disclose"];
                let near = if is(&w, 1, &["your", "the"]) { 0 } else { 1 };
                phrase_start = start_of_words_before(text, start, w.len().saturating_sub(near));
                is(&w, near, &verb).then_some("asks the model to disclose its system prompt")
            }
            Trigger::Persona => persona(&found.to_ascii_lowercase(), &words_after(text, end, 1))
                .then_some("tells the model to take on an unrestricted persona"),
            Trigger::RoleMarker => {
                Some("a chat-template role marker could make the model read what follows as another turn")
            }
            _ => None,
        };
        if let Some(message) = overriding {
            let excerpt = visible(rest_of_line(text, phrase_start));
            out.push(Category::InstructionOverride, phrase_start, message.to_owned(), excerpt);
            continue;
        }
        match kind {
            Trigger::Remove => {
                if let Some(target) = dangerous_remove_target(&command_at(text, end)) {
                    let message = format!("recursively force-deletes {target}");
                    out.push(Category::DestructiveCommand, start, message, visible(line_around(text, start)));
                }
            }
            Trigger::Destroys(what) => {
                out.push(
                    Category::DestructiveCommand,
                    start,
                    format!("command {what}"),
                    visible(line_around(text, start)),
                );
            }
            Trigger::DiskDevice => {
                // (Looking back at most 8 bytes: a long run of spaces must not make this quadratic.)
                let head = text.as_bytes().get(start.saturating_sub(8)..start).unwrap_or_default().trim_ascii_end();
                let written = head.ends_with(b">")
                    || head.get(head.len().saturating_sub(3)..).is_some_and(|t| t.eq_ignore_ascii_case(b"of="));
                if written {
                    let message = "command writes onto a disk device".to_owned();
                    out.push(Category::DestructiveCommand, start, message, visible(line_around(text, start)));
                }
            }
            Trigger::NetworkSink => {
                // `nc` and `scp` are commands only when followed by a space.
                if found.ends_with(|c: char| c.is_ascii_alphanumeric())
                    && !text.get(end..).is_some_and(|t| t.starts_with(' '))
                {
                    continue;
                }
                sinks.push(out.line_of(start));
            }
            Trigger::Secret => secrets.push((out.line_of(start), start)),
            Trigger::EnvDump
                if text
                    .as_bytes()
                    .get(end..)
                    .is_some_and(|t| t.iter().take(8).find(|&&b| b != b' ') == Some(&b'|')) =>
            {
                secrets.push((out.line_of(start), start));
            }
            _ => {}
        }
    }
    // `sinks` is in line order: the nearest sink at or after the window's start decides.
    for &(secret_line, secret_offset) in &secrets {
        let first = sinks.partition_point(|&line| line + EXFILTRATION_WINDOW_LINES < secret_line);
        if sinks.get(first).is_some_and(|&line| line <= secret_line + EXFILTRATION_WINDOW_LINES) {
            let message = "sends credentials or the environment over the network".to_owned();
            out.push(Category::Exfiltration, secret_offset, message, visible(line_around(text, secret_offset)));
        }
    }
    Ok(())
}

impl Findings<'_> {
    fn line_of(&mut self, offset: usize) -> usize {
        self.lines.locate(self.text, offset).0 + 1
    }
}
