//! The `skillwire` command: Agent Skills from folders on disk, injected into a message,
//! matched, catalogued or linted. Argument parsing and printing only; every rule lives
//! in the `skillwire` core crate.

use clap::{Args, Parser, Subcommand, ValueEnum};
use skillwire::{
    lint_with, Action, CatalogFormat, CatalogOptions, CatalogReport, Category, Engine, EvalReport, FileBody, FileError,
    FileKind, InjectFormat, LabelledMessage, Limits, LintOptions, LintReport, Matches, NotUserInvocable, Options,
    Precedence, RankOptions, RenderOptions, ReplyShape, ScanBodies, ScanPolicy, SelectOptions, SkillSource, SkillStats,
    ToolOptions, TurnContext,
};
use skillwire_host::wasm::{CallLimits, Runtime, WasmEngine, WasmError};
use skillwire_host::{read_skill_file, skill_file_in, Backend, FsSource};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use values::{CatalogFormatArg, InjectFormatArg, NotUserInvocableArg, PrecedenceArg, ProviderArg, ScanBodiesArg};

mod values;

#[derive(Parser)]
#[command(
    name = "skillwire",
    version,
    about = "Agent Skills (SKILL.md folders) for LLM agents: inject the skills a message calls for, list them, lint them.",
    long_about = "Agent Skills (SKILL.md folders) for LLM agents.\n\n\
        skillwire reads skill folders, decides which skills a user message calls for \
        (@name mentions, descriptions, tags, names), and prepends their instructions to \
        the message under a byte budget.\n\n\
        Examples:\n  \
        skillwire inject --skills ./skills \"merge these PDFs\"\n  \
        skillwire match --skills ./skills --json \"@pdf please\"\n  \
        skillwire catalog --skills ./skills --format markdown\n  \
        skillwire complete --skills ./skills sq\n  \
        skillwire select-prompt --skills ./skills \"merge these PDFs\"\n  \
        skillwire select-parse --skills ./skills --message \"merge these PDFs\" '{\"skills\": [\"pdf\"]}'\n  \
        skillwire tools --skills ./skills --provider anthropic\n  \
        skillwire lint ./skills/pdf\n  \
        skillwire bench --skills ./skills --messages messages.txt\n\n\
        Exit codes: 0 ok, 1 lint found errors or a blocked skill, 2 usage or input error."
)]
struct Cli {
    /// Where the core runs: `wasm`, the sandboxed WebAssembly component (default), or
    /// `native`. Both print the same bytes.
    #[arg(long, global = true, value_enum, default_value_t = EngineArg::Wasm)]
    engine: EngineArg,
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum EngineArg {
    Wasm,
    Native,
}

#[derive(Subcommand)]
enum Command {
    /// Print MESSAGE with the skills it calls for prepended.
    Inject {
        #[command(flatten)]
        skills: SkillArgs,
        /// Most bytes the injected skills may take.
        #[arg(long, default_value_t = RenderOptions::default().budget, value_name = "BYTES")]
        budget: usize,
        /// How injected skills are delimited.
        #[arg(long, value_enum, default_value_t = InjectFormatArg::from(InjectFormat::default()))]
        format: InjectFormatArg,
        /// Replace {baseDir} in skill bodies with the skill's folder.
        #[arg(long)]
        base_dir: bool,
        /// End each injected block with the skill's other files, for a model given the
        /// read-file tool (`tools --read-file`).
        #[arg(long)]
        list_files: bool,
        /// Print the injection, every decision and a summary as JSON.
        #[arg(long)]
        json: bool,
        /// Only mentions and the substring rules select skills (no relevance ranking).
        #[arg(long)]
        no_rank: bool,
        /// Skills whose bodies recent turns injected and that are still in the model's
        /// context: not injected again (decision `recently-injected`).
        #[arg(long, value_delimiter = ',', value_name = "A,B")]
        recent: Vec<String>,
        /// The user message, or - to read it from standard input.
        message: String,
    },
    /// List the skills MESSAGE calls for, in order, with why (reads no skill bodies).
    Match {
        #[command(flatten)]
        skills: SkillArgs,
        /// Print {"matches": [{"skill", "reason", "position"}]}.
        #[arg(long)]
        json: bool,
        /// Only mentions and the substring rules select skills (no relevance ranking).
        #[arg(long)]
        no_rank: bool,
        /// The user message, or - to read it from standard input.
        message: String,
    },
    /// Print the skill catalogue for a system prompt.
    Catalog {
        #[command(flatten)]
        skills: SkillArgs,
        /// Output format.
        #[arg(long, value_enum, default_value_t = CatalogFormatArg::from(CatalogFormat::default()))]
        format: CatalogFormatArg,
        /// Most bytes the catalogue may take (long descriptions are shortened first).
        #[arg(long, value_name = "BYTES")]
        budget: Option<usize>,
        /// The catalogue for a turn on MESSAGE: the --featured skills most relevant to it
        /// first, with their descriptions, the others by name only (- reads standard input).
        #[arg(long = "for", value_name = "MESSAGE")]
        for_message: Option<String>,
        /// With --for: how many of the most relevant skills keep their descriptions (at
        /// most 100).
        #[arg(long, value_name = "N", default_value_t = skillwire::DEFAULT_FEATURED, requires = "for_message")]
        featured: usize,
    },
    /// List a skill's own files (SKILL.md, references, scripts, assets): path, size, kind,
    /// media type. Reads no file unless --digests.
    Files {
        #[command(flatten)]
        skills: SkillArgs,
        /// Also read each file for its SHA-256 digest (`sha256:…`; a file the engine
        /// refuses says why instead).
        #[arg(long)]
        digests: bool,
        /// Print {"skill", "files": [{"path", "size", "kind", "media_type"[, "digest"]}], "left_out"}.
        #[arg(long)]
        json: bool,
        /// The skill's name.
        name: String,
    },
    /// Print one of a skill's files: text as it is, bytes raw (never run: a script is
    /// printed, and said to be one on standard error). Paths that could leave the skill's
    /// folder are refused (exit 2); a file the safety scan blocks is refused with its
    /// findings (exit 1).
    Read {
        #[command(flatten)]
        skills: SkillArgs,
        /// Print {"skill", "path", "kind", "media_type", "size", "digest", "findings", "body": {"type": "text"|"binary", "value"}}
        /// (a binary body's bytes are left out).
        #[arg(long)]
        json: bool,
        /// The skill's name.
        name: String,
        /// The file's path in the skill's folder (`references/forms.md`).
        path: String,
    },
    /// Offer skill names for what a user typed after `@`: prefix matches, then fuzzy ones.
    Complete {
        #[command(flatten)]
        skills: SkillArgs,
        /// Most skills offered.
        #[arg(long = "max", default_value_t = skillwire::DEFAULT_COMPLETIONS, value_name = "N")]
        max_offered: usize,
        /// Print {"completions": [{"name", "description", "match"}]}.
        #[arg(long)]
        json: bool,
        /// What follows the `@` (a leading `@` is ignored).
        typed: String,
    },
    /// Print the prompt that asks your model which skills MESSAGE calls for (LLM selection).
    SelectPrompt {
        #[command(flatten)]
        skills: SkillArgs,
        /// Most skills the model may pick.
        #[arg(long, value_name = "N", default_value_t = SelectOptions::default().max_skills)]
        max_skills: usize,
        /// Catalogues with more selectable skills than this are shortlisted by ranking.
        #[arg(long, value_name = "N", default_value_t = SelectOptions::default().shortlist_above)]
        shortlist_above: usize,
        /// How many ranked skills a shortlist offers.
        #[arg(long, value_name = "N", default_value_t = SelectOptions::default().shortlist_size)]
        shortlist_size: usize,
        /// Your skills' records, a JSON file: [{"skill", "selected", "applied",
        /// "completed", "fell_back"}]. Skills they show failing are left out.
        #[arg(long, value_name = "FILE")]
        stats: Option<PathBuf>,
        /// Print {"prompt", "candidates", "shortlisted", "left_out"}.
        #[arg(long)]
        json: bool,
        /// The user message, or - to read it from standard input.
        message: String,
    },
    /// Read your model's reply to a selection prompt: the skills it chose (one per line),
    /// or with --message, MESSAGE with them injected.
    SelectParse {
        #[command(flatten)]
        skills: SkillArgs,
        /// Most skills kept.
        #[arg(long, value_name = "N", default_value_t = SelectOptions::default().max_skills)]
        max_skills: usize,
        /// Run the turn: print this message with the chosen skills (and those it
        /// @mentions) injected.
        #[arg(long, value_name = "MESSAGE")]
        message: Option<String>,
        /// Most bytes the injected skills may take (with --message).
        #[arg(long, default_value_t = RenderOptions::default().budget, value_name = "BYTES")]
        budget: usize,
        /// Print the selection as JSON (with --message: {"selection", "injection"}).
        #[arg(long)]
        json: bool,
        /// The model's reply, or - to read it from standard input.
        reply: String,
    },
    /// Print the skills a model may invoke as tool definitions (JSON), for your model's API.
    Tools {
        #[command(flatten)]
        skills: SkillArgs,
        /// The API's shape: `openai` (Chat Completions) or `anthropic` (Messages).
        /// Without it: skillwire's list, with each tool's skill and max_turns.
        #[arg(long, value_enum)]
        provider: Option<ProviderArg>,
        /// Skills not to offer (comma-separated), e.g. the skill whose run is asking.
        #[arg(long, value_delimiter = ',', value_name = "A,B")]
        exclude: Vec<String>,
        /// Add the tool that lets the model read an injected skill's files
        /// (`read_skill_file`, input {"skill", "path"}; answer its calls with `read`).
        #[arg(long, requires = "provider")]
        read_file: bool,
    },
    /// Time turns on your own skills and messages: per-turn p50 and p99 and turns per second.
    Bench {
        #[command(flatten)]
        skills: SkillArgs,
        /// Messages, one per line: plain text, or JSON objects with a "q" field.
        #[arg(long, value_name = "FILE")]
        messages: PathBuf,
        /// Turns to time; the messages are used in turn, round and round.
        #[arg(long, default_value_t = 2000, value_name = "N")]
        turns: usize,
        /// What a turn does: `inject` (match, read and render bodies) or `match` (select only).
        #[arg(long, value_enum, default_value_t = BenchOpArg::Inject)]
        op: BenchOpArg,
        /// Most bytes the injected skills may take.
        #[arg(long, default_value_t = RenderOptions::default().budget, value_name = "BYTES")]
        budget: usize,
        /// Only mentions and the substring rules select skills (no relevance ranking).
        #[arg(long)]
        no_rank: bool,
        /// Print the figures as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Measure routing on labelled messages: hit rate, top-1, precision, false injection,
    /// recall@K, per-skill figures and competing pairs. Runs the core natively.
    Eval {
        #[command(flatten)]
        skills: SkillArgs,
        /// Labelled messages, JSON lines {"q", "expect": [names], "not"?: [names]}
        /// (`expect: []`: nothing should be injected). Repeat for more. Without it: the
        /// trigger evals in each skill's `evals/` folder (*.json: [{"query",
        /// "should_trigger"}], or {"evals": [{"prompt"}]}).
        #[arg(long = "messages", value_name = "FILE")]
        messages: Vec<PathBuf>,
        /// Precomputed embeddings to fuse into ranking, a JSON file: {"vectors": {text:
        /// [numbers]}} (or the map alone) holding each skill's embedding text (see
        /// `embedding_texts`) and each message. Texts without a vector rank by words.
        #[arg(long, value_name = "FILE")]
        embeddings: Option<PathBuf>,
        /// Depths at which the ranking's recall is reported (comma-separated).
        #[arg(long, value_delimiter = ',', value_name = "K,K", default_value = "1,3,10")]
        recall_at: Vec<usize>,
        /// Only mentions and the substring rules select skills (no relevance ranking).
        #[arg(long)]
        no_rank: bool,
        /// Print every figure, the per-skill table and the misses as JSON.
        #[arg(long)]
        json: bool,
        /// Print every message routing got wrong.
        #[arg(long)]
        misses: bool,
        /// Exit 1 when the hit rate is below this.
        #[arg(long, value_name = "SHARE")]
        min_hit: Option<f64>,
        /// Exit 1 when top-1 is below this.
        #[arg(long, value_name = "SHARE")]
        min_top1: Option<f64>,
        /// Exit 1 when precision is below this.
        #[arg(long, value_name = "SHARE")]
        min_precision: Option<f64>,
        /// Exit 1 when false injection is above this.
        #[arg(long, value_name = "SHARE")]
        max_false: Option<f64>,
        /// Exit 1 when recall at the largest --recall-at depth is below this.
        #[arg(long, value_name = "SHARE")]
        min_recall: Option<f64>,
    },
    /// Check skills against the Agent Skills standard (the reference validator's rules).
    Lint {
        /// Skill folders, SKILL.md files, or folders of skills.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = LintFormatArg::Human)]
        format: LintFormatArg,
        /// Accept the fields skillwire reads beyond the standard (tags, requires,
        /// user-invocable, disable-model-invocation, max_turns).
        #[arg(long)]
        extensions: bool,
        /// Safety-scan policy: CATEGORY=ACTION (allow, warn or block), comma-separated or
        /// repeated; `all=ACTION` sets every category. Categories: hidden-text,
        /// bidi-control, homoglyph-name, instruction-override, exfiltration,
        /// destructive-command. Default: destructive-command=warn, the others block.
        #[arg(long = "scan", value_delimiter = ',', value_name = "CATEGORY=ACTION")]
        scan: Vec<String>,
        /// Overrides an input limit: NAME=N, comma-separated or repeated. NAME is one of
        /// max_skill_md_bytes, max_frontmatter_bytes, max_yaml_depth, max_yaml_aliases,
        /// max_message_bytes, max_skills, max_name_bytes, max_description_bytes.
        #[arg(long = "limit", value_delimiter = ',', value_name = "NAME=N")]
        limit: Vec<String>,
    },
}

#[derive(Args)]
struct SkillArgs {
    /// A skill folder, a SKILL.md, or a folder searched for skills. Repeat for more.
    #[arg(long = "skills", value_name = "PATH", required = true)]
    paths: Vec<PathBuf>,
    /// Integrations this host provides, for skills that `requires` them (comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "A,B")]
    available: Vec<String>,
    /// Which skill keeps a name that several --skills paths share.
    #[arg(long, value_enum, default_value_t = PrecedenceArg::from(Precedence::default()))]
    precedence: PrecedenceArg,
    /// How `user-invocable: false` is read: `hidden` (kept out of `complete`, still
    /// used automatically; Claude Code's meaning) or `mention-only` (only an @mention
    /// injects it).
    #[arg(long, value_enum, default_value_t = NotUserInvocableArg::from(NotUserInvocable::default()))]
    not_user_invocable: NotUserInvocableArg,
    /// When the safety scan reads skills' bodies: `at-build` (every body while the skills
    /// load; a blocked body is never listed) or `when-read` (each body as a turn reads it:
    /// faster loads of large folders; a skill whose body is blocked stays listed,
    /// never injected). Frontmatter is always scanned at load.
    #[arg(long, value_enum, default_value_t = ScanBodiesArg::from(ScanBodies::default()))]
    scan_bodies: ScanBodiesArg,
    /// Report skipped, shadowed and gated skills and warnings on standard error.
    #[arg(long, short)]
    verbose: bool,
    /// Most skills relevance ranking adds to a turn.
    #[arg(long, value_name = "N", default_value_t = RankOptions::default().max_ranked)]
    rank_max: usize,
    /// Lowest ranking score selected.
    #[arg(long, value_name = "SCORE", default_value_t = RankOptions::default().min_score)]
    rank_min_score: f64,
    /// Lowest ranking score selected, as a fraction of the turn's best.
    #[arg(long, value_name = "FRACTION", default_value_t = RankOptions::default().min_ratio)]
    rank_min_ratio: f64,
    /// Lowest share of the message's informative words a ranked skill must match.
    #[arg(long, value_name = "FRACTION", default_value_t = RankOptions::default().min_coverage)]
    rank_min_coverage: f64,
    /// With embeddings (`eval --embeddings`): what a perfect cosine similarity adds to
    /// a ranking score.
    #[arg(long, value_name = "SCORE", default_value_t = RankOptions::default().semantic_weight)]
    rank_semantic_weight: f64,
    /// With embeddings: the cosine similarity from which an embedding counts.
    #[arg(long, value_name = "COSINE", default_value_t = RankOptions::default().min_similarity)]
    rank_min_similarity: f64,
    /// Also rank on the headings of each skill's body.
    #[arg(long)]
    rank_headings: bool,
    /// Safety-scan policy: CATEGORY=ACTION (allow, warn or block), comma-separated or
    /// repeated; `all=ACTION` sets every category. Categories: hidden-text,
    /// bidi-control, homoglyph-name, instruction-override, exfiltration,
    /// destructive-command. Default: destructive-command=warn, the others block.
    #[arg(long = "scan", value_delimiter = ',', value_name = "CATEGORY=ACTION")]
    scan: Vec<String>,
    /// Overrides an input limit: NAME=N, comma-separated or repeated. NAME is one of
    /// max_skill_md_bytes, max_frontmatter_bytes, max_yaml_depth, max_yaml_aliases,
    /// max_message_bytes, max_skills, max_name_bytes, max_description_bytes.
    #[arg(long = "limit", value_delimiter = ',', value_name = "NAME=N")]
    limit: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum BenchOpArg {
    Inject,
    Match,
}

#[derive(Clone, Copy, ValueEnum)]
enum LintFormatArg {
    Human,
    Json,
}

/// A failure to report with exit code 2.
struct InputError(String);

impl From<WasmError> for InputError {
    fn from(e: WasmError) -> Self {
        InputError(e.to_string())
    }
}

/// A refused file request, for the user: which code, and why.
fn file_refused(e: WasmError) -> InputError {
    match e {
        WasmError::File(e) => InputError(format!("{} ({})", e, e.code())),
        e => e.into(),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
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
            let files = engine.files(&name).map_err(file_refused)?;
            let mut digest_of = Vec::new();
            for file in files.files.iter().filter(|_| digests) {
                digest_of.push(match engine.read_file(&files.skill, &file.path) {
                    Ok(content) => content.digest,
                    Err(e) => format!("({e})"),
                });
            }
            if json {
                let mut value = serde_json::to_value(&files).map_err(|e| InputError(e.to_string()))?;
                if let Some(listed) = value.get_mut("files").and_then(serde_json::Value::as_array_mut) {
                    for (file, digest) in listed.iter_mut().zip(&digest_of) {
                        file["digest"] = serde_json::Value::from(digest.as_str());
                    }
                }
                out = to_json(&value)?;
            } else {
                let lines: Vec<String> = (files.files.iter().enumerate())
                    .map(|(i, f)| {
                        let digest = digest_of.get(i).map(|d| format!("\t{d}")).unwrap_or_default();
                        format!("{}\t{}\t{}\t{}{digest}", f.path, f.size, f.kind.as_str(), f.media_type)
                    })
                    .collect();
                out = lines.join("\n");
                if files.left_out > 0 {
                    eprintln!(
                        "skillwire: {} more files left out (over the limit, or outside the folder)",
                        files.left_out
                    );
                }
            }
            ExitCode::SUCCESS
        }
        Command::Read { skills, json, name, path } => {
            let mut engine = backend(kind, &skills, RenderOptions::default(), true)?;
            let content = match engine.read_file(&name, &path) {
                Ok(content) => content,
                Err(WasmError::File(e @ FileError::Blocked { .. })) => {
                    eprintln!("skillwire: {e}");
                    if let FileError::Blocked { findings, .. } = &e {
                        for f in findings {
                            eprintln!("  {f}");
                        }
                    }
                    return Ok(ExitCode::from(1));
                }
                Err(e) => return Err(file_refused(e)),
            };
            if content.kind == FileKind::Script && !json {
                eprintln!(
                    "skillwire: {} is a script ({}); skillwire does not run it",
                    content.path, content.media_type
                );
            }
            for finding in content.findings.iter().filter(|_| !json) {
                eprintln!("  {finding} ({})", content.path);
            }
            if json {
                out = to_json(&content)?;
            } else {
                let bytes = match &content.body {
                    FileBody::Text(text) => text.as_bytes(),
                    FileBody::Binary(bytes) => bytes.as_slice(),
                };
                // The file as it is: no newline added.
                let _ = std::io::stdout().lock().write_all(bytes);
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
            let mut engine = backend(kind, &skills, render, !no_rank)?;
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
                    "p50_us": round3(figures.p50_us),
                    "p99_us": round3(figures.p99_us),
                    "mean_us": round3(figures.mean_us),
                    "turns_per_second": figures.turns_per_second.round(),
                });
                out = to_json(&value)?;
            } else {
                out = format!(
                    "engine {engine_name}, {op_name}, {loaded} skills, {} messages, {turns} turns\n\
                     catalogue built in {:.1} ms\n\
                     per turn: p50 {:.2} µs, p99 {:.2} µs, mean {:.2} µs\n\
                     {:.0} turns/s",
                    messages.len(),
                    build.as_secs_f64() * 1e3,
                    figures.p50_us,
                    figures.p99_us,
                    figures.mean_us,
                    figures.turns_per_second
                );
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
        Command::Lint { paths, format, extensions, scan, limit } => {
            let options = LintOptions { limits: limits(&limit)?, extensions, scan: scan_policy(&scan)?, files: None };
            let linter = Linter::new(kind)?;
            let mut reports: Vec<LintReport> = Vec::new();
            for path in &paths {
                reports.extend(lint_path(path, &options, &linter)?);
            }
            let failed = reports.iter().any(|r| !r.valid || r.blocked());
            match format {
                LintFormatArg::Json => out = to_json(&reports)?,
                LintFormatArg::Human => {
                    let mut lines = Vec::new();
                    for r in &reports {
                        if r.valid {
                            lines.push(format!("Valid skill: {}", r.path));
                        } else {
                            eprintln!("Validation failed for {}:", r.path);
                            for e in &r.errors {
                                eprintln!("  - {e}");
                            }
                        }
                        for w in &r.warnings {
                            eprintln!("  {} ({})", w, r.path);
                        }
                        for f in &r.findings {
                            eprintln!("  {} ({})", f, r.path);
                        }
                    }
                    out = lines.join("\n");
                }
            }
            if failed {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            }
        }
    };
    if !out.is_empty() {
        let mut stdout = std::io::stdout().lock();
        // A closed pipe (`skillwire … | head`) is not an error worth a message.
        let _ = writeln!(stdout, "{out}");
    }
    Ok(code)
}

/// The labelled messages in each skill's `evals/*.json` (see [`skillwire::read_trigger_evals`]).
/// The catalogue's skills (shadowed ones too) are located by their SKILL.md paths, so
/// no folder is searched again.
fn trigger_evals(catalog: &skillwire::Catalog) -> Result<Vec<LabelledMessage>, InputError> {
    let mut all = Vec::new();
    for entry in catalog.skills().iter().chain(catalog.shadowed()) {
        let Some(dir) = Path::new(&entry.skill.location).parent().map(|d| d.join("evals")) else { continue };
        let Ok(listing) = std::fs::read_dir(&dir) else { continue };
        let mut evals: Vec<PathBuf> = listing
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        evals.sort();
        for eval in evals {
            let what = |e: &dyn std::fmt::Display| InputError(format!("{}: {e}", eval.display()));
            let text = std::fs::read_to_string(&eval).map_err(|e| what(&e))?;
            all.extend(skillwire::read_trigger_evals(&entry.skill.name, &text).map_err(|e| what(&e))?);
        }
    }
    Ok(all)
}

/// Largest --embeddings file read, in bytes.
const MAX_EMBEDDINGS_FILE_BYTES: u64 = 512 << 20;

/// An --embeddings file: text → vector, from `{"vectors": {…}}` or the map alone.
fn read_embeddings(path: &Path) -> Result<std::collections::HashMap<String, Vec<f32>>, InputError> {
    let what = |e: &dyn std::fmt::Display| InputError(format!("--embeddings {}: {e}", path.display()));
    let size = std::fs::metadata(path).map_err(|e| what(&e))?.len();
    if size > MAX_EMBEDDINGS_FILE_BYTES {
        return Err(what(&format!("{size} bytes; the limit is {MAX_EMBEDDINGS_FILE_BYTES}")));
    }
    let text = std::fs::read_to_string(path).map_err(|e| what(&e))?;
    let mut value: serde_json::Value = serde_json::from_str(&text).map_err(|e| what(&e))?;
    if let Some(inner) = value.get_mut("vectors") {
        value = inner.take();
    }
    serde_json::from_value(value).map_err(|e| what(&e))
}

/// An evaluation for people: the figures, the skills with the most misses and false
/// fires, the competing pairs, and with `misses` every message routing got wrong.
fn eval_text(r: &EvalReport, misses: bool) -> String {
    let share = |v: Option<f64>| v.map_or_else(|| "—".to_owned(), |v| format!("{v:.3}"));
    let mut lines = vec![
        format!("{} messages: {} expect a skill, {} expect none", r.messages, r.positives, r.negatives),
        format!("hit rate         {}", share(r.hit)),
        format!("top-1            {}", share(r.top1)),
        format!("precision        {}", share(r.precision)),
        format!("false injection  {}", share(r.false_injection)),
        format!("not violated     {}", r.not_violated),
    ];
    let recall: Vec<String> = r.recall_at.iter().map(|x| format!("@{} {}", x.k, share(x.recall))).collect();
    lines.push(format!("ranking recall   {}", recall.join("  ")));
    let mut worst: Vec<&skillwire::SkillFigures> =
        r.skills.iter().filter(|s| s.recalled < s.expected || s.false_fires > 0).collect();
    worst.sort_by(|a, b| {
        let cost = |s: &skillwire::SkillFigures| s.expected - s.recalled + s.false_fires;
        cost(b).cmp(&cost(a)).then_with(|| a.skill.cmp(&b.skill))
    });
    if !worst.is_empty() {
        lines.push(String::new());
        lines.push(format!("{:<32} {:>8} {:>8} {:>11}  taken by", "skill", "expected", "recalled", "false fires"));
        for s in worst.iter().take(20) {
            let taken: Vec<String> = s.taken_by.iter().map(|c| format!("{} ({})", c.skill, c.count)).collect();
            lines.push(format!(
                "{:<32} {:>8} {:>8} {:>11}  {}",
                s.skill,
                s.expected,
                s.recalled,
                s.false_fires,
                taken.join(", ")
            ));
        }
        if worst.len() > 20 {
            lines.push(format!("… and {} more (--json lists every skill)", worst.len() - 20));
        }
    }
    if !r.pairs.is_empty() {
        lines.push(String::new());
        lines.push("competing pairs (injected instead of or beside the expected skill):".to_owned());
        for p in r.pairs.iter().take(10) {
            lines.push(format!("  {} took {} message(s) of {}", p.taker, p.count, p.expected));
        }
    }
    if misses && !r.misses.is_empty() {
        lines.push(String::new());
        lines.push("misses:".to_owned());
        for m in &r.misses {
            let expect = m.expect.as_ref().map_or_else(|| "-".to_owned(), |e| e.join(","));
            let not = if m.not.is_empty() { String::new() } else { format!(" not {}", m.not.join(",")) };
            lines.push(format!("  want [{expect}]{not}, got [{}]: {}", m.injected.join(","), m.q));
        }
    }
    lines.join("\n")
}

/// Per-turn figures of a bench run.
struct BenchFigures {
    p50_us: f64,
    p99_us: f64,
    mean_us: f64,
    turns_per_second: f64,
}

/// Runs every message once (warm-up), then `turns` timed turns over the messages in turn.
fn bench(
    engine: &mut dyn Backend,
    messages: &[String],
    turns: usize,
    op: BenchOpArg,
) -> Result<BenchFigures, InputError> {
    if messages.is_empty() || turns == 0 {
        return Err(InputError("bench needs at least one message and one turn".to_owned()));
    }
    let turn = |engine: &mut dyn Backend, message: &str| -> Result<(), InputError> {
        match op {
            BenchOpArg::Inject => engine.inject(message, &TurnContext::default()).map(drop)?,
            BenchOpArg::Match => engine.matches(message, &TurnContext::default()).map(drop)?,
        }
        Ok(())
    };
    for message in messages {
        turn(engine, message)?;
    }
    let mut times = Vec::with_capacity(turns);
    for message in messages.iter().cycle().take(turns) {
        let started = std::time::Instant::now();
        turn(engine, message)?;
        times.push(started.elapsed().as_secs_f64() * 1e6);
    }
    times.sort_by(f64::total_cmp);
    let at = |p: f64| times.get(((times.len() - 1) as f64 * p).round() as usize).copied().unwrap_or(0.0);
    let total: f64 = times.iter().sum();
    Ok(BenchFigures {
        p50_us: at(0.5),
        p99_us: at(0.99),
        mean_us: total / times.len() as f64,
        turns_per_second: if total > 0.0 { times.len() as f64 / (total / 1e6) } else { 0.0 },
    })
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The messages of a bench file: one per non-empty line, the "q" field of a JSON
/// object or the line itself.
fn read_messages(path: &Path) -> Result<Vec<String>, InputError> {
    let text = std::fs::read_to_string(path).map_err(|e| InputError(format!("--messages {}: {e}", path.display())))?;
    Ok(text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| match serde_json::from_str::<serde_json::Value>(line) {
            Ok(serde_json::Value::Object(object)) => match object.get("q") {
                Some(serde_json::Value::String(q)) => q.clone(),
                _ => line.to_owned(),
            },
            _ => line.to_owned(),
        })
        .collect())
}

/// Largest --stats file read, in bytes.
const MAX_STATS_FILE_BYTES: u64 = 32 << 20;

/// A --stats file: the host's records of its skills.
fn read_stats(path: &Path) -> Result<Vec<SkillStats>, InputError> {
    let what = |e: &dyn std::fmt::Display| InputError(format!("--stats {}: {e}", path.display()));
    let size = std::fs::metadata(path).map_err(|e| what(&e))?.len();
    if size > MAX_STATS_FILE_BYTES {
        return Err(what(&format!("{size} bytes; the limit is {MAX_STATS_FILE_BYTES}")));
    }
    let text = std::fs::read_to_string(path).map_err(|e| what(&e))?;
    serde_json::from_str(&text).map_err(|e| what(&e))
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

fn input(e: impl std::fmt::Display) -> InputError {
    InputError(e.to_string())
}

/// The component runtime, compiled once, or loaded from the user's cache folder
/// (`$SKILLWIRE_CACHE_DIR`, else `$XDG_CACHE_HOME/skillwire`, else `~/.cache/skillwire`).
fn runtime() -> Result<Arc<Runtime>, InputError> {
    let dir = std::env::var_os("SKILLWIRE_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("skillwire")))
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("skillwire")));
    let runtime = match dir {
        Some(dir) => Runtime::with_cache(&dir),
        None => Runtime::new(),
    };
    runtime.map(Arc::new).map_err(input)
}

/// The core, natively, over `args`' skills.
fn native_engine(args: &SkillArgs, render: RenderOptions, rank: bool) -> Result<Engine<FsSource>, InputError> {
    let (sources, options) = engine_inputs(args, render, rank)?;
    let engine = Engine::new(sources, options);
    if args.verbose {
        report(engine.catalog().report());
    }
    Ok(engine)
}

/// The core over `args`' skills, where `kind` says.
fn backend(
    kind: EngineArg,
    args: &SkillArgs,
    render: RenderOptions,
    rank: bool,
) -> Result<Box<dyn Backend>, InputError> {
    let mut engine: Box<dyn Backend> = match kind {
        EngineArg::Native => return Ok(Box::new(native_engine(args, render, rank)?)),
        EngineArg::Wasm => {
            let (sources, options) = engine_inputs(args, render, rank)?;
            let sources = sources.into_iter().map(|s| Box::new(s) as Box<dyn SkillSource>).collect();
            Box::new(WasmEngine::new(runtime()?, sources, options, CallLimits::default())?)
        }
    };
    if args.verbose {
        report(&engine.report()?);
    }
    Ok(engine)
}

/// The sources and options `args` describe.
fn engine_inputs(args: &SkillArgs, render: RenderOptions, rank: bool) -> Result<(Vec<FsSource>, Options), InputError> {
    let limits = limits(&args.limit)?;
    let mut sources = Vec::new();
    for path in &args.paths {
        let source = FsSource::discover(path).map_err(|e| InputError(format!("--skills {}: {e}", path.display())))?;
        sources.push(source.with_max_bytes(limits.max_skill_md_bytes));
    }
    let available = args.available.iter().map(|a| a.trim().to_owned()).filter(|a| !a.is_empty()).collect();
    let rank = RankOptions {
        enabled: rank,
        max_ranked: args.rank_max,
        min_score: args.rank_min_score,
        min_ratio: args.rank_min_ratio,
        min_coverage: args.rank_min_coverage,
        semantic_weight: args.rank_semantic_weight,
        min_similarity: args.rank_min_similarity,
        headings: args.rank_headings,
    };
    let catalog = CatalogOptions {
        precedence: args.precedence.into(),
        available,
        limits,
        rank,
        scan: scan_policy(&args.scan)?,
        not_user_invocable: args.not_user_invocable.into(),
        scan_bodies: args.scan_bodies.into(),
    };
    Ok((sources, Options { catalog, render }))
}

/// Lints texts natively or inside the component.
enum Linter {
    Native,
    Wasm(Arc<Runtime>),
}

impl Linter {
    fn new(kind: EngineArg) -> Result<Linter, InputError> {
        Ok(match kind {
            EngineArg::Native => Linter::Native,
            EngineArg::Wasm => Linter::Wasm(runtime()?),
        })
    }

    fn lint(&self, location: &str, text: &str, options: &LintOptions) -> Result<LintReport, InputError> {
        match self {
            Linter::Native => Ok(lint_with(location, text, options)),
            Linter::Wasm(rt) => rt.lint(location, text, options, CallLimits::default()).map_err(input),
        }
    }
}

fn report(r: &CatalogReport) {
    eprintln!("skillwire: {} skills loaded", r.loaded);
    for s in &r.skipped {
        eprintln!("skipped {}: {}", s.location, s.reason);
    }
    for s in &r.shadowed {
        eprintln!("shadowed {} ({}) by {}", s.name, s.location, s.by);
    }
    for g in &r.gated {
        eprintln!("gated {} ({}): requires {}", g.name, g.location, g.missing.join(", "));
    }
    for w in &r.warnings {
        eprintln!("{} ({})", w.diagnostic, w.location);
    }
    if !r.mention_only.is_empty() {
        let (count, names) = (r.mention_only.len(), r.mention_only.join(", "));
        let skills = if count == 1 { "skill fires" } else { "skills fire" };
        eprintln!("skillwire: {count} {skills} only when @mentioned: {names}");
    }
    for f in &r.flagged {
        let state = if f.blocked { "blocked" } else { "flagged" };
        eprintln!("{state} {} ({})", f.name, f.location);
        for finding in &f.findings {
            eprintln!("  {finding}");
        }
    }
}

/// The limits from `--limit NAME=N` arguments, over the defaults.
fn limits(args: &[String]) -> Result<Limits, InputError> {
    let mut fields = serde_json::to_value(Limits::default()).map_err(input)?;
    for arg in args.iter().map(|a| a.trim()).filter(|a| !a.is_empty()) {
        let (name, value) = arg.split_once('=').unwrap_or((arg, ""));
        let value: u64 = value.trim().parse().map_err(|_| InputError(format!("--limit {arg}: expected NAME=N")))?;
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
fn scan_policy(args: &[String]) -> Result<ScanPolicy, InputError> {
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

/// A report of a lint that could not read its input.
fn failed_report() -> LintReport {
    LintReport { path: String::new(), valid: false, errors: Vec::new(), warnings: Vec::new(), findings: Vec::new() }
}

/// Lints one command-line path: a SKILL.md file, a skill folder, or a folder of
/// skills (each linted). Missing paths and folders get the reference's messages.
fn lint_path(path: &Path, options: &LintOptions, linter: &Linter) -> Result<Vec<LintReport>, InputError> {
    let display = path.display().to_string();
    let failed =
        |error: String| LintReport { path: display.clone(), valid: false, errors: vec![error], ..failed_report() };
    if !path.exists() {
        return Ok(vec![failed(format!("Path does not exist: {display}"))]);
    }
    let is_skill_file = path.is_file() && path.file_name().is_some_and(|n| n.eq_ignore_ascii_case("skill.md"));
    let (dir, file) = if is_skill_file {
        (path.parent().unwrap_or(Path::new(".")).to_path_buf(), Some(path.to_path_buf()))
    } else if !path.is_dir() {
        return Ok(vec![failed(format!("Not a directory: {display}"))]);
    } else {
        (path.to_path_buf(), skill_file_in(path))
    };
    let Some(file) = file else {
        // A folder of skills: lint each one found below it.
        let found = FsSource::discover(path).map(|s| s.files().to_vec()).unwrap_or_default();
        if found.is_empty() {
            return Ok(vec![failed("Missing required file: SKILL.md".to_owned())]);
        }
        let mut reports = Vec::new();
        for f in &found {
            reports.extend(lint_path(f, options, linter)?);
        }
        return Ok(reports);
    };
    let shown = if is_skill_file { dir.display().to_string() } else { display.clone() };
    // The folder's files, so that links to files it does not hold are warned about.
    let listed = std::fs::canonicalize(&dir).and_then(|dir| skillwire_host::files::list_skill_files(&dir));
    let options =
        LintOptions { files: listed.ok().map(|l| l.into_iter().map(|f| f.path).collect()), ..options.clone() };
    let mut report = match read_skill_file(&file, options.limits.max_skill_md_bytes) {
        Ok(text) => linter.lint(&file.to_string_lossy(), &text, &options)?,
        Err(e) => LintReport { errors: vec![e], ..failed_report() },
    };
    report.path = shown;
    Ok(vec![report])
}
