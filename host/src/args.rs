//! The `skillwire` command line: its commands, their arguments and their help, as clap
//! reads them. What each command does is in `main.rs` and the command modules.

use crate::values::{
    CatalogFormatArg, InjectFormatArg, NotUserInvocableArg, PrecedenceArg, ProviderArg, ScanBodiesArg,
};
use clap::{Args, Parser, Subcommand, ValueEnum};
use skillwire::{CatalogFormat, InjectFormat, NotUserInvocable, Precedence, RankOptions, RenderOptions, SelectOptions};
use std::path::PathBuf;

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
        skillwire mcp --skills ./skills   (an MCP server on stdio)\n  \
        skillwire bench --skills ./skills --messages messages.txt\n\n\
        Exit codes: 0 ok, 1 lint found errors or a blocked skill, 2 usage or input error."
)]
pub(crate) struct Cli {
    /// Where the core runs: `wasm`, the sandboxed WebAssembly component (default), or
    /// `native`. Both print the same bytes.
    #[arg(long, global = true, value_enum, default_value_t = EngineArg::Wasm)]
    pub(crate) engine: EngineArg,
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum EngineArg {
    Wasm,
    Native,
}

#[derive(Subcommand)]
pub(crate) enum Command {
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
        /// Replace {baseDir} in skill bodies with the skill's folder, and start each body
        /// with the line "Base directory for this skill: FOLDER".
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
    /// Time turns on your own skills and messages: the catalogue's load (built, or restored
    /// by --catalog-cache), per-turn p50 and p99 and turns per second.
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
    /// Serve the skills over the Model Context Protocol on standard input and output (or
    /// streamable HTTP with --http):
    /// tools to find, load and read skills, one prompt per skill a user may invoke, each
    /// skill's files as skill:// resources, and the MCP skills extension (skills/list,
    /// skills/get with SHA-256 digests). Runs until the client closes standard input, or
    /// (--http) until the process is stopped.
    Mcp {
        #[command(flatten)]
        skills: SkillArgs,
        /// Most bytes a loaded skill's instructions may take (load_skill and prompts); a
        /// skill cut to fit ends with where its whole SKILL.md is (read_skill_file).
        #[arg(long, default_value_t = skillwire_host::mcp::LOAD_BUDGET, value_name = "BYTES")]
        budget: usize,
        /// Serve MCP's streamable HTTP at http://127.0.0.1:PORT/mcp (loopback only; 0 picks
        /// a free port, printed on standard error) instead of standard input and output.
        #[arg(long, value_name = "PORT")]
        http: Option<u16>,
        /// Look at the --skills folders for changes and, on one, read the skills again and
        /// notify the clients (prompts and resources list_changed).
        #[arg(long)]
        watch: bool,
        /// With --watch: seconds between two looks.
        #[arg(long, default_value_t = 2.0, value_name = "SECONDS", requires = "watch")]
        watch_interval: f64,
    },
    /// Answer a coding agent's prompt hook: reads the event (Claude Code's or Codex's
    /// UserPromptSubmit, Gemini CLI's BeforeAgent) on standard input and prints the skills
    /// the prompt calls for as additional context, in the agent's shape (nothing when none
    /// apply). Skills injected by the session's last --window prompts are not injected
    /// again; a SessionStart event forgets them. A prompt over the message limit is routed
    /// on its start and end; a --skills folder that does not exist is left out. Exits 1 on
    /// any failure (never 2, which would block the prompt).
    Hook {
        /// The agent whose hook format to speak.
        #[arg(value_enum)]
        agent: HookAgent,
        #[command(flatten)]
        skills: SkillArgs,
        /// Most bytes the injected skills may take (Claude Code keeps 10,000 characters of
        /// a hook's context; more is replaced by a preview).
        #[arg(long, default_value_t = 9000, value_name = "BYTES")]
        budget: usize,
        /// Prompts of one session after which an injected skill may be injected again.
        #[arg(long, default_value_t = 10, value_name = "N")]
        window: usize,
        /// Append one JSON line per prompt to FILE: time, agent, session, the prompt's size
        /// (not its text) and every decision.
        #[arg(long, value_name = "FILE")]
        log: Option<PathBuf>,
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
        /// max_message_bytes, max_skills, max_name_bytes, max_description_bytes,
        /// max_file_bytes, max_skill_files, max_file_path_bytes.
        #[arg(long = "limit", value_delimiter = ',', value_name = "NAME=N")]
        limit: Vec<String>,
        /// Also print each skill's files with their SHA-256 digests, for pinning or
        /// verifying a skill: lines `sha256:…  SIZE  PATH` after its verdict, or a `files`
        /// list per report in JSON. A file the filesystem source refuses, or one over
        /// max_file_bytes, says why instead.
        #[arg(long)]
        digests: bool,
    },
    /// Write the WebAssembly component this skillwire runs (`skillwire.wasm`), its WIT
    /// package (`wit/skillwire.wit`, with its docs) and `skillwire.wasm.sha256` to DIR, for
    /// any component host (wasmtime, jco, wasmtime-py). Prints the version and the digest.
    Component {
        /// The folder to write to (made if missing).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Print {"version", "component", "wit", "bytes", "sha256", "world"}.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args)]
pub(crate) struct SkillArgs {
    /// A skill folder, a SKILL.md, or a folder searched for skills. Repeat for more.
    #[arg(long = "skills", value_name = "PATH", required_unless_present = "mcp")]
    pub(crate) paths: Vec<PathBuf>,
    /// An MCP server whose skills to use (the skills extension): a command line, run by the
    /// shell and spoken to on its standard input and output, or an `http://` URL. Its skills
    /// come after the --skills paths' and carry the server's name as their origin: one whose
    /// name another skill holds is listed as NAME@ORIGIN. Repeat for more.
    #[arg(long, value_name = "COMMAND|URL")]
    pub(crate) mcp: Vec<String>,
    /// Integrations this host provides, for skills that `requires` them (comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "A,B")]
    pub(crate) available: Vec<String>,
    /// Which skill keeps a name that several --skills paths share.
    #[arg(long, value_enum, default_value_t = PrecedenceArg::from(Precedence::default()))]
    pub(crate) precedence: PrecedenceArg,
    /// How `user-invocable: false` is read: `hidden` (kept out of `complete`, still
    /// used automatically; Claude Code's meaning) or `mention-only` (only an @mention
    /// injects it).
    #[arg(long, value_enum, default_value_t = NotUserInvocableArg::from(NotUserInvocable::default()))]
    pub(crate) not_user_invocable: NotUserInvocableArg,
    /// When the safety scan reads skills' bodies: `at-build` (every body while the skills
    /// load; a blocked body is never listed) or `when-read` (each body as a turn reads it:
    /// faster loads of large folders; a skill whose body is blocked stays listed,
    /// never injected). Frontmatter is always scanned at load. Default: `at-build`, but
    /// `when-read` for `hook`, which loads the skills for every prompt and lists them to
    /// no one.
    #[arg(long, value_enum)]
    pub(crate) scan_bodies: Option<ScanBodiesArg>,
    /// Use only the skills whose names match one of these glob patterns (`*`, `?`, case
    /// ignored; comma-separated or repeated; a skill from an MCP server also matches as
    /// NAME@ORIGIN, so `*@acme` names all of acme's); the others are gated (see --verbose).
    #[arg(long, value_delimiter = ',', value_name = "PATTERN")]
    pub(crate) allow: Vec<String>,
    /// Leave out the skills whose names match one of these glob patterns (over --allow).
    #[arg(long, value_delimiter = ',', value_name = "PATTERN")]
    pub(crate) deny: Vec<String>,
    /// Keep the catalogue built from the --skills folders in the cache folder
    /// ($SKILLWIRE_CACHE_DIR, else $XDG_CACHE_HOME/skillwire or ~/.cache/skillwire) and
    /// restore it while no SKILL.md in them changed (size, times or inode): `auto` does so
    /// for folders of 200 skills or more, `on` always, `off` never. Not with --mcp.
    #[arg(long, value_enum, default_value_t = CatalogCacheArg::Auto)]
    pub(crate) catalog_cache: CatalogCacheArg,
    /// Report skipped, shadowed and gated skills and warnings on standard error.
    #[arg(long, short)]
    pub(crate) verbose: bool,
    /// Say nothing of a --skills folder that holds no skill (the hook: a project's skills
    /// folder may be empty).
    #[arg(skip)]
    pub(crate) quiet_when_empty: bool,
    /// Most skills relevance ranking adds to a turn.
    #[arg(long, value_name = "N", default_value_t = RankOptions::default().max_ranked)]
    pub(crate) rank_max: usize,
    /// Lowest ranking score selected.
    #[arg(long, value_name = "SCORE", default_value_t = RankOptions::default().min_score)]
    pub(crate) rank_min_score: f64,
    /// Lowest ranking score selected, as a fraction of the turn's best.
    #[arg(long, value_name = "FRACTION", default_value_t = RankOptions::default().min_ratio)]
    pub(crate) rank_min_ratio: f64,
    /// Lowest share of the message's informative words a ranked skill must match.
    #[arg(long, value_name = "FRACTION", default_value_t = RankOptions::default().min_coverage)]
    pub(crate) rank_min_coverage: f64,
    /// With embeddings (`eval --embeddings`): what a perfect cosine similarity adds to
    /// a ranking score.
    #[arg(long, value_name = "SCORE", default_value_t = RankOptions::default().semantic_weight)]
    pub(crate) rank_semantic_weight: f64,
    /// With embeddings: the cosine similarity from which an embedding counts.
    #[arg(long, value_name = "COSINE", default_value_t = RankOptions::default().min_similarity)]
    pub(crate) rank_min_similarity: f64,
    /// Also rank on the headings of each skill's body.
    #[arg(long)]
    pub(crate) rank_headings: bool,
    /// Safety-scan policy: CATEGORY=ACTION (allow, warn or block), comma-separated or
    /// repeated; `all=ACTION` sets every category. Categories: hidden-text,
    /// bidi-control, homoglyph-name, instruction-override, exfiltration,
    /// destructive-command. Default: destructive-command=warn, the others block.
    #[arg(long = "scan", value_delimiter = ',', value_name = "CATEGORY=ACTION")]
    pub(crate) scan: Vec<String>,
    /// Overrides an input limit: NAME=N, comma-separated or repeated. NAME is one of
    /// max_skill_md_bytes, max_frontmatter_bytes, max_yaml_depth, max_yaml_aliases,
    /// max_message_bytes, max_skills, max_name_bytes, max_description_bytes,
    /// max_file_bytes, max_skill_files, max_file_path_bytes.
    #[arg(long = "limit", value_delimiter = ',', value_name = "NAME=N")]
    pub(crate) limit: Vec<String>,
}

/// The coding agents whose prompt hooks `skillwire hook` answers.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum HookAgent {
    ClaudeCode,
    Codex,
    GeminiCli,
}

/// `--catalog-cache`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CatalogCacheArg {
    Auto,
    On,
    Off,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum BenchOpArg {
    Inject,
    Match,
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum LintFormatArg {
    Human,
    Json,
}
