//! The `skillwire` command: Agent Skills from folders on disk, injected into a message,
//! matched, catalogued or linted. Argument parsing and printing only; every rule lives
//! in the `skillwire` core crate. The arguments are in `args.rs`; `files`/`read`, `lint`
//! and `eval`/`bench` have their own modules; this file runs the others and builds the
//! engine every command shares.

use args::{BenchOpArg, Cli, Command, EngineArg};
use clap::Parser;
use load::{backend, backend_loaded, native_engine};
use measure::{bench, eval_text, read_embeddings, read_messages, read_stats, round3, trigger_evals};
use skillwire::{
    Action, CatalogFormat, Category, Limits, Matches, RenderOptions, ReplyShape, ScanPolicy, SelectOptions,
    ToolOptions, TurnContext,
};
use skillwire_host::wasm::WasmError;
use std::io::{Read, Write};
use std::process::ExitCode;
use values::{ProviderArg, ScanBodiesArg};

mod args;
mod file_commands;
mod hook;
mod lint;
mod load;
mod measure;
mod values;

/// A failure to report with exit code 2.
pub(crate) struct InputError(String);

/// Most tools OpenAI's Chat Completions take in one request.
const OPENAI_MAX_TOOLS: usize = 128;

impl From<WasmError> for InputError {
    /// The component's error, with what a command-line user can do when it is one of the
    /// component's limits (which the CLI does not change).
    fn from(e: WasmError) -> Self {
        match e {
            WasmError::OutOfFuel | WasmError::OutOfMemory => InputError(format!(
                "{e}: the component's limit on a call; --engine native runs the same core without it"
            )),
            WasmError::Engine(skillwire::Error::MessageTooLarge { .. }) => {
                InputError(format!("{e} (--limit max_message_bytes=N raises it)"))
            }
            e => InputError(e.to_string()),
        }
    }
}

/// A refused file request, for the user: which code, and why.
pub(crate) fn file_refused(e: WasmError) -> InputError {
    match e {
        WasmError::File(e) => InputError(format!("{} ({})", e, e.code())),
        e => e.into(),
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // clap exits 2 on a bad command line, which a coding agent reads as "block the
        // prompt": a hook's bad command line (a typo in the agent's settings) exits 1.
        Err(e) if e.use_stderr() && std::env::args().skip(1).any(|a| a == "hook") => {
            let _ = e.print();
            return ExitCode::from(1);
        }
        Err(e) => e.exit(),
    };
    // A --mcp server command runs in a process group of its own, which the terminal's
    // Ctrl-C no longer reaches: an interrupted or stopped run kills it on the way out.
    skillwire_host::mcp::kill_servers_on_signals();
    match run(cli) {
        Ok(code) => code,
        Err(InputError(message)) => {
            eprintln!("skillwire: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, InputError> {
    let mut out = String::new();
    let kind = cli.engine;
    let code = match cli.command {
        Command::Inject { skills, budget, format, base_dir, list_files, json, no_rank, recent, message } => {
            let message = read_message(&message)?;
            let render =
                RenderOptions { format: format.into(), budget, base_dir, list_files, ..RenderOptions::default() };
            let mut engine = backend(kind, &skills, render, !no_rank)?;
            let recent = recent.into_iter().map(|r| r.trim().to_owned()).filter(|r| !r.is_empty()).collect();
            let turn = engine.inject(&message, &TurnContext { recent, ..TurnContext::default() })?;
            if skills.verbose {
                for decision in &turn.decisions {
                    if let Some(why) = skillwire_host::not_injected(decision) {
                        eprintln!("skillwire: {} ({}): {why}", decision.skill, decision.reason.as_str());
                    }
                }
            }
            if json {
                out = to_json(&turn)?;
            } else {
                out.push_str(&turn.user_message);
            }
            ExitCode::SUCCESS
        }
        Command::Match { skills, json, no_rank, message } => {
            let message = read_message(&message)?;
            let mut engine = backend(kind, &skills, RenderOptions::default(), !no_rank)?;
            let matches = engine.matches(&message, &TurnContext::default())?;
            if json {
                out = to_json(&Matches { matches: matches.clone() })?;
            } else {
                let lines: Vec<String> =
                    matches.iter().map(|m| format!("{}\t{}\t{}", m.skill, m.reason.as_str(), m.position)).collect();
                out = lines.join("\n");
            }
            ExitCode::SUCCESS
        }
        Command::Files { skills, digests, json, name } => {
            let mut engine = backend(kind, &skills, RenderOptions::default(), true)?;
            let (code, printed) = file_commands::files(engine.as_mut(), &name, digests, json)?;
            out = printed;
            code
        }
        Command::Read { skills, json, name, path } => {
            let mut engine = backend(kind, &skills, RenderOptions::default(), true)?;
            let (code, printed) = file_commands::read(engine.as_mut(), &name, &path, json)?;
            out = printed;
            code
        }
        Command::Mcp { skills, budget, http, watch, watch_interval } => {
            let limits = limits(&skills.limit)?;
            let watch = match watch {
                false => None,
                true if skills.paths.is_empty() => {
                    return Err(InputError(
                        "--watch follows the --skills folders; give one (an --mcp server's skills are read once)"
                            .into(),
                    ))
                }
                true => Some(skillwire_host::mcp::Watch {
                    roots: skills.paths.clone(),
                    interval: std::time::Duration::try_from_secs_f64(watch_interval)
                        .ok()
                        .filter(|d| !d.is_zero())
                        .ok_or_else(|| {
                            InputError(format!("--watch-interval {watch_interval}: expected seconds > 0"))
                        })?,
                }),
            };
            // Loaded skills end with their files' list: the server offers read_skill_file.
            let render = RenderOptions { budget, list_files: true, ..RenderOptions::default() };
            let make = move || backend(kind, &skills, render.clone(), true).map_err(|InputError(e)| e);
            let transport = match http {
                Some(port) => skillwire_host::mcp::Transport::Http { port },
                None => skillwire_host::mcp::Transport::Stdio,
            };
            skillwire_host::mcp::serve(make, limits, transport, watch).map_err(InputError)?;
            ExitCode::SUCCESS
        }
        Command::Hook { agent, mut skills, budget, window, log } => {
            // The agent opens a skill's scripts and references itself: each body says where
            // its folder is, and `{baseDir}` becomes it.
            let render = RenderOptions { budget, base_dir: true, ..RenderOptions::default() };
            // Every prompt loads the skills, and the catalogue reaches no model: each body is
            // scanned when a turn reads it, before it is injected, instead of all at load.
            skills.scan_bodies = skills.scan_bodies.or(Some(ScanBodiesArg::WhenRead));
            // A hook is set up once for every project it runs in: a --skills folder this one
            // does not have ("$CLAUDE_PROJECT_DIR"/.claude/skills) is left out rather than
            // failing every prompt.
            skills.paths.retain(|path| path.exists());
            skills.quiet_when_empty = true;
            let answer = limits(&skills.limit).and_then(|limits| {
                let make = || backend(kind, &skills, render, true);
                hook::run(agent, make, limits.max_message_bytes, window, log.as_deref())
            });
            match answer {
                Ok(answer) => out = answer,
                // Exit 2 would block the user's prompt: a hook that failed lets it through.
                Err(InputError(message)) => {
                    eprintln!("skillwire: {message}");
                    return Ok(ExitCode::from(1));
                }
            }
            ExitCode::SUCCESS
        }
        Command::Complete { skills, max_offered, json, typed } => {
            let mut engine = backend(kind, &skills, RenderOptions::default(), true)?;
            let completions = engine.complete(&typed, max_offered)?;
            out = if json {
                to_json(&serde_json::json!({ "completions": completions }))?
            } else {
                let lines: Vec<String> = completions
                    .iter()
                    .map(|c| format!("{}\t{}\t{}", c.name, c.matched.as_str(), c.description))
                    .collect();
                lines.join("\n")
            };
            ExitCode::SUCCESS
        }
        Command::SelectPrompt { skills, max_skills, shortlist_above, shortlist_size, stats, json, message } => {
            let message = read_message(&message)?;
            let stats = match stats {
                Some(path) => read_stats(&path)?,
                None => Vec::new(),
            };
            let options = SelectOptions { max_skills, shortlist_above, shortlist_size, ..SelectOptions::default() };
            let mut engine = backend(kind, &skills, RenderOptions::default(), true)?;
            let prompt = engine.select_prompt(&message, &TurnContext::default(), &stats, &options)?;
            if json {
                out = to_json(&prompt)?;
            } else {
                for l in &prompt.left_out {
                    eprintln!("skillwire: left out {} ({}: {})", l.skill, l.reason.as_str(), l.detail);
                }
                if prompt.candidates.is_empty() {
                    eprintln!("skillwire: no skill to offer: no need to ask the model");
                }
                out = prompt.prompt.trim_end().to_owned();
            }
            ExitCode::SUCCESS
        }
        Command::SelectParse { skills, max_skills, message, budget, json, reply } => {
            let reply = read_message(&reply)?;
            let render = RenderOptions { budget, ..RenderOptions::default() };
            let mut engine = backend(kind, &skills, render, true)?;
            let selection = engine.select_parse(&reply, max_skills)?;
            if !json {
                if !selection.unknown.is_empty() {
                    eprintln!("skillwire: not skills the model may pick: {}", selection.unknown.join(", "));
                }
                if !selection.over_limit.is_empty() {
                    eprintln!("skillwire: past --max-skills: {}", selection.over_limit.join(", "));
                }
                if selection.reply == ReplyShape::Unreadable {
                    eprintln!("skillwire: the reply holds no selection");
                }
            }
            match message {
                Some(message) => {
                    let message = read_message(&message)?;
                    let context = TurnContext { selected: Some(selection.skills.clone()), ..TurnContext::default() };
                    let turn = engine.inject(&message, &context)?;
                    out = if json {
                        to_json(&serde_json::json!({ "selection": selection, "injection": turn }))?
                    } else {
                        turn.user_message
                    };
                }
                None => out = if json { to_json(&selection)? } else { selection.skills.join("\n") },
            }
            ExitCode::SUCCESS
        }
        Command::Tools { skills, provider, exclude, read_file } => {
            let mut engine = backend(kind, &skills, RenderOptions::default(), true)?;
            let exclude = exclude.into_iter().map(|e| e.trim().to_owned()).filter(|e| !e.is_empty()).collect();
            let options = ToolOptions { exclude };
            out = match provider {
                None => to_json(&engine.tools(&options)?)?,
                Some(provider) => {
                    // Each tool keeps its keys in the API's order.
                    #[derive(serde::Serialize)]
                    #[serde(untagged)]
                    enum Tool {
                        Skill(skillwire::ToolDefinition),
                        ReadFile(skillwire::ReadFileTool),
                    }
                    let mut tools: Vec<Tool> =
                        engine.tool_definitions(provider.into(), &options)?.into_iter().map(Tool::Skill).collect();
                    if read_file {
                        tools.push(Tool::ReadFile(skillwire::read_file_tool(provider.into())));
                    }
                    if matches!(provider, ProviderArg::OpenAi) && tools.len() > OPENAI_MAX_TOOLS {
                        eprintln!(
                            "skillwire: {} tools; OpenAI takes at most {OPENAI_MAX_TOOLS} in one request \
                             (offer a larger catalogue through select-prompt, or --exclude some)",
                            tools.len()
                        );
                    }
                    to_json(&tools)?
                }
            };
            ExitCode::SUCCESS
        }
        Command::Catalog { skills, format, budget, for_message, featured } => {
            let mut engine = backend(kind, &skills, RenderOptions::default(), true)?;
            let format = CatalogFormat::from(format);
            let for_turn = for_message.is_some();
            let text = match for_message {
                Some(message) => {
                    let message = read_message(&message)?;
                    let text = engine.catalog_for(&message, &TurnContext::default(), featured, format, budget)?;
                    eprintln!(
                        "skillwire: {} featured, {} by name only, {} left out",
                        text.featured.len(),
                        text.names_only.len(),
                        text.omitted.len()
                    );
                    text
                }
                None => engine.catalog_text(format, budget)?,
            };
            if !text.shortened.is_empty() {
                eprintln!("skillwire: shortened to fit the budget: {}", text.shortened.join(", "));
            }
            // A turn's catalogue said how many it left out; their names could be thousands.
            if !text.omitted.is_empty() && !for_turn {
                eprintln!("skillwire: left out to fit the budget: {}", text.omitted.join(", "));
            }
            out = text.text;
            ExitCode::SUCCESS
        }
        Command::Bench { skills, messages, turns, op, budget, no_rank, json } => {
            let messages = read_messages(&messages)?;
            let render = RenderOptions { budget, ..RenderOptions::default() };
            let started = std::time::Instant::now();
            let (mut engine, restored) = backend_loaded(kind, &skills, render, !no_rank)?;
            let build = started.elapsed();
            let loaded = engine.report()?.loaded;
            let figures = bench(engine.as_mut(), &messages, turns, op)?;
            let engine_name = if kind == EngineArg::Wasm { "wasm" } else { "native" };
            let op_name = if op == BenchOpArg::Inject { "inject" } else { "match" };
            if json {
                let value = serde_json::json!({
                    "engine": engine_name,
                    "op": op_name,
                    "skills": loaded,
                    "messages": messages.len(),
                    "turns": turns,
                    "build_ms": round3(build.as_secs_f64() * 1e3),
                    "restored": restored,
                    "p50_us": round3(figures.p50_us),
                    "p99_us": round3(figures.p99_us),
                    "mean_us": round3(figures.mean_us),
                    "turns_per_second": figures.turns_per_second.round(),
                    "guest_memory_bytes": engine.guest_memory_bytes(),
                });
                out = to_json(&value)?;
            } else {
                out = format!(
                    "engine {engine_name}, {op_name}, {loaded} skills, {} messages, {turns} turns\n\
                     catalogue {} in {:.1} ms\n\
                     per turn: p50 {:.2} µs, p99 {:.2} µs, mean {:.2} µs\n\
                     {:.0} turns/s",
                    messages.len(),
                    if restored { "restored (--catalog-cache)" } else { "built" },
                    build.as_secs_f64() * 1e3,
                    figures.p50_us,
                    figures.p99_us,
                    figures.mean_us,
                    figures.turns_per_second
                );
                if let Some(bytes) = engine.guest_memory_bytes() {
                    let megabytes = bytes as f64 / (1 << 20) as f64;
                    out.push_str(&format!(
                        "\nguest memory {megabytes:.1} MiB (the component's linear memory: the most held at once)"
                    ));
                }
            }
            ExitCode::SUCCESS
        }
        Command::Eval {
            skills,
            messages,
            embeddings,
            recall_at,
            no_rank,
            json,
            misses,
            min_hit,
            min_top1,
            min_precision,
            max_false,
            min_recall,
        } => {
            let mut engine = native_engine(&skills, RenderOptions::default(), !no_rank)?;
            let vectors = match &embeddings {
                Some(path) => read_embeddings(path)?,
                None => std::collections::HashMap::new(),
            };
            if !vectors.is_empty() {
                let named: Vec<(String, Vec<f32>)> = (engine.embedding_texts().into_iter())
                    .filter_map(|t| vectors.get(&t.text).map(|v| (t.skill, v.clone())))
                    .collect();
                engine.set_embeddings(named).map_err(input)?;
            }
            let labelled = if messages.is_empty() {
                trigger_evals(engine.catalog())?
            } else {
                let mut all = Vec::new();
                for path in &messages {
                    let what = |e: &dyn std::fmt::Display| InputError(format!("--messages {}: {e}", path.display()));
                    let text = std::fs::read_to_string(path).map_err(|e| what(&e))?;
                    all.extend(skillwire::read_labelled_lines(&text).map_err(|e| what(&e))?);
                }
                all
            };
            if labelled.is_empty() {
                return Err(InputError(
                    "no labelled messages: give --messages FILE or add evals/*.json to the skills".to_owned(),
                ));
            }
            let report = engine
                .catalog()
                .evaluate_embedded(&labelled, &recall_at, |q| vectors.get(q).cloned())
                .map_err(input)?;
            out = if json { to_json(&report)? } else { eval_text(&report, misses) };
            let deepest = report.recall_at.iter().max_by_key(|r| r.k).and_then(|r| r.recall);
            let below = |value: Option<f64>, floor: Option<f64>| matches!((value, floor), (Some(v), Some(f)) if v < f);
            let failed = [
                ("hit rate", below(report.hit, min_hit), min_hit),
                ("top-1", below(report.top1, min_top1), min_top1),
                ("precision", below(report.precision, min_precision), min_precision),
                (
                    "false injection",
                    matches!((report.false_injection, max_false), (Some(v), Some(m)) if v > m),
                    max_false,
                ),
                ("recall", below(deepest, min_recall), min_recall),
            ];
            let mut code = ExitCode::SUCCESS;
            for (what, failed, bound) in failed {
                if failed {
                    eprintln!("skillwire: {what} is past its bound {}", bound.unwrap_or_default());
                    code = ExitCode::from(1);
                }
            }
            code
        }
        Command::Lint { paths, format, extensions, scan, limit, digests } => {
            let (code, printed) = lint::run(kind, &paths, format, extensions, &scan, &limit, digests)?;
            out = printed;
            code
        }
        Command::Component { out: dir, json } => {
            out = file_commands::write_component(&dir, json)?;
            ExitCode::SUCCESS
        }
    };
    if !out.is_empty() {
        let mut stdout = std::io::stdout().lock();
        // A closed pipe (`skillwire … | head`) is not an error worth a message.
        let _ = writeln!(stdout, "{out}");
    }
    Ok(code)
}

fn to_json<T: serde::Serialize>(value: &T) -> Result<String, InputError> {
    serde_json::to_string_pretty(value).map_err(|e| InputError(format!("could not write JSON: {e}")))
}

fn read_message(arg: &str) -> Result<String, InputError> {
    if arg != "-" {
        return Ok(arg.to_owned());
    }
    let mut bytes = Vec::new();
    std::io::stdin().read_to_end(&mut bytes).map_err(|e| InputError(format!("could not read standard input: {e}")))?;
    String::from_utf8(bytes).map_err(|_| InputError("standard input is not valid UTF-8".to_owned()))
}

pub(crate) fn input(e: impl std::fmt::Display) -> InputError {
    InputError(e.to_string())
}

/// The limits from `--limit NAME=N` arguments, over the defaults.
pub(crate) fn limits(args: &[String]) -> Result<Limits, InputError> {
    let mut fields = serde_json::to_value(Limits::default()).map_err(input)?;
    for arg in args.iter().map(|a| a.trim()).filter(|a| !a.is_empty()) {
        let Some((name, value)) = arg.split_once('=') else {
            return Err(InputError(format!("--limit {arg}: expected NAME=N")));
        };
        let value: u64 = (value.trim().parse())
            .map_err(|_| InputError(format!("--limit {arg}: {value:?} is not a whole number of bytes or items")))?;
        match fields.get_mut(name.trim()) {
            Some(slot) => *slot = value.into(),
            None => {
                let known: Vec<&String> = fields.as_object().map(|o| o.keys().collect()).unwrap_or_default();
                let known: Vec<&str> = known.into_iter().map(String::as_str).collect();
                return Err(InputError(format!("--limit {arg}: unknown limit {name} (known: {})", known.join(", "))));
            }
        }
    }
    serde_json::from_value(fields).map_err(|e| InputError(format!("--limit: {e}")))
}

/// The scan policy from `--scan CATEGORY=ACTION` arguments, over the defaults.
pub(crate) fn scan_policy(args: &[String]) -> Result<ScanPolicy, InputError> {
    let mut policy = ScanPolicy::default();
    for arg in args.iter().map(|a| a.trim()).filter(|a| !a.is_empty()) {
        let bad = || InputError(format!("--scan {arg}: expected CATEGORY=ACTION, ACTION one of allow, warn, block"));
        let (category, action) = arg.split_once('=').ok_or_else(bad)?;
        let action = Action::parse(action.trim()).ok_or_else(bad)?;
        match category.trim() {
            "all" => policy = ScanPolicy::uniform(action),
            name => {
                let category = Category::parse(name).ok_or_else(|| {
                    let known: Vec<&str> = Category::ALL.iter().map(|c| c.as_str()).collect();
                    InputError(format!("--scan {arg}: unknown category {name} (known: all, {})", known.join(", ")))
                })?;
                policy.set(category, action);
            }
        }
    }
    Ok(policy)
}

#[cfg(test)]
mod tests {
    use super::{InputError, WasmError};

    /// A component limit says what a command-line user can do about it.
    #[test]
    fn a_component_limit_names_the_native_engine() {
        for limit in [WasmError::OutOfFuel, WasmError::OutOfMemory] {
            let InputError(message) = InputError::from(limit.clone());
            assert!(message.starts_with(&limit.to_string()) && message.contains("--engine native"), "{message}");
        }
        let InputError(message) = InputError::from(WasmError::Trap("unreachable".to_owned()));
        assert_eq!(message, "the component trapped: unreachable");
        let too_large = skillwire::Error::MessageTooLarge { bytes: 300_000, limit: 262_144 };
        let InputError(message) = InputError::from(WasmError::Engine(too_large));
        assert_eq!(message, "the message is 300000 bytes; the limit is 262144 (--limit max_message_bytes=N raises it)");
    }

    /// A --limit whose value is wrong says so, not that the form is.
    #[test]
    fn a_limit_with_a_bad_value_says_what_is_wrong() {
        let refusal = |arg: &str| match super::limits(&[arg.to_owned()]) {
            Err(InputError(message)) => message,
            Ok(_) => panic!("{arg} was taken"),
        };
        assert_eq!(
            refusal("max_message_bytes=abc"),
            "--limit max_message_bytes=abc: \"abc\" is not a whole number of bytes or items"
        );
        assert_eq!(refusal("max_message_bytes"), "--limit max_message_bytes: expected NAME=N");
        assert!(matches!(super::limits(&["max_skills=7".to_owned()]), Ok(limits) if limits.max_skills == 7));
    }
}
