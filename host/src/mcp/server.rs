//! The MCP server's handler: what each MCP request does with the engine.
//!
//! - tools: `find_skills` (the skills a request calls for, with why and scores),
//!   `load_skill` (a skill's instructions, as a turn would inject them) and
//!   `read_skill_file` (a file of a skill's folder, through the engine's checks);
//! - prompts: one per skill a user may invoke, its instructions followed by the request;
//! - resources: each skill's files as `skill://NAME/PATH`;
//! - the skills extension (SEP-2640): `skills/list` and `skills/get` with frontmatter and
//!   digests.
//!
//! Every text goes through the engine, so the safety scan's policy and the limits apply
//! to all of it; refusals are MCP errors (`-32602` for what the request named wrongly) or
//! tool results marked as errors, and the server goes on serving.

use super::engine::{EngineThread, Stopped};
use super::skills::{file_uri, manifest, parse_uri, Listed, Snapshot};
use base64::Engine as _;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams, GetPromptResponse,
    GetPromptResult, GetSkillRequestParams, GetSkillResult, Implementation, JsonObject, ListPromptsResult,
    ListResourcesResult, ListSkillsResult, ListToolsResult, PaginatedRequestParams, Prompt, PromptArgument,
    PromptMessage, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource, ResourceContents,
    Role, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{NotificationContext, Peer, RequestContext};
use rmcp::{ErrorData, RoleServer};
use skillwire::{CatalogFormat, FileBody, Limits, Provider, TurnContext};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};

/// Skills per page of `skills/list`: each entry reads and hashes the skill's files once
/// (at most [`MAX_MANIFEST_BYTES`](super::skills::MAX_MANIFEST_BYTES) each).
const SKILLS_PER_PAGE: usize = 20;

/// How a `skills/list` cursor begins: the name the page before ended with follows.
const CURSOR_AFTER: &str = "after:";

/// The `find_skills` tool's name.
const FIND_SKILLS: &str = "find_skills";
/// Most clients remembered for change notifications (HTTP sessions; stdio has one).
const MAX_PEERS: usize = 1024;
/// How long one client may take to accept a change notification.
const NOTIFY_TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(5);

/// Most skills `find_skills` names as related beyond those a turn would inject.
const RELATED: usize = 5;
/// The `load_skill` tool's name.
const LOAD_SKILL: &str = "load_skill";

/// The handler: the engine thread, the catalogue it lists, and the manifests computed
/// so far (they hash every file of a skill, so each is computed once).
#[derive(Clone)]
pub(crate) struct SkillServer {
    engine: EngineThread,
    snapshot: Arc<RwLock<Arc<Snapshot>>>,
    manifests: Arc<Mutex<HashMap<String, Result<rmcp::model::Skill, String>>>>,
    limits: Limits,
    /// The connected clients, for change notifications (one over stdio; one per session
    /// over HTTP).
    peers: Arc<Mutex<Vec<Peer<RoleServer>>>>,
}

impl SkillServer {
    /// A server over `engine`, listing what its catalogue holds now.
    pub(crate) async fn new(engine: EngineThread, limits: Limits) -> Result<SkillServer, String> {
        let snapshot = engine.run(Snapshot::read).await.map_err(|Stopped| "the engine stopped".to_owned())??;
        let snapshot = Arc::new(RwLock::new(Arc::new(snapshot)));
        Ok(SkillServer { engine, snapshot, manifests: Arc::default(), limits, peers: Arc::default() })
    }

    /// The catalogue as last read.
    fn snapshot(&self) -> Arc<Snapshot> {
        Arc::clone(&self.snapshot.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// Tells every connected client that the prompts and resources changed, each on a task
    /// of its own with a time limit, so a client that stops reading holds up no one.
    pub(crate) fn notify_changed(&self) {
        let peers = self.peers.lock().unwrap_or_else(PoisonError::into_inner).clone();
        for peer in peers.into_iter().filter(|p| !p.is_transport_closed()) {
            tokio::spawn(async move {
                let send = async {
                    let _ = peer.notify_resource_list_changed().await;
                    let _ = peer.notify_prompt_list_changed().await;
                };
                let _ = tokio::time::timeout(NOTIFY_TIME_LIMIT, send).await;
            });
        }
    }

    /// Takes a change `--watch` saw into the engine's catalogue as `plan` says (the
    /// entries that changed, each on its own, or a refresh: the folders walked again, only
    /// the SKILL.md files that changed read again), and keeps no manifest from before. On
    /// an error the server goes on with what it had.
    pub(crate) async fn reload(&self, plan: super::watch::Plan) -> Result<(), String> {
        let taken = self.engine.run(move |engine| plan.apply(engine));
        taken.await.map_err(|Stopped| "the engine stopped".to_owned())??;
        let snapshot = self.engine.run(Snapshot::read).await.map_err(|Stopped| "the engine stopped".to_owned())??;
        *self.snapshot.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(snapshot);
        self.manifests().clear();
        Ok(())
    }

    /// Runs `job` on the engine; a stopped engine is an internal error.
    async fn run<T: Send + 'static>(
        &self,
        job: impl FnOnce(&mut dyn crate::Backend) -> T + Send + 'static,
    ) -> Result<T, ErrorData> {
        self.engine.run(job).await.map_err(|Stopped| ErrorData::internal_error("the skill engine stopped", None))
    }

    /// The manifests given out so far (a panic elsewhere leaves them usable).
    fn manifests(&self) -> MutexGuard<'_, HashMap<String, Result<rmcp::model::Skill, String>>> {
        self.manifests.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The manifest of skill `name`: the one given out before, unless `fresh`, else
    /// computed now (and kept).
    async fn manifest(&self, name: &str, fresh: bool) -> Result<Result<rmcp::model::Skill, String>, ErrorData> {
        if let Some(known) = self.manifests().get(name).filter(|_| !fresh).cloned() {
            return Ok(known);
        }
        let (owned, limits) = (name.to_owned(), self.limits.clone());
        let made = self.run(move |engine| manifest(engine, &owned, &limits)).await?;
        if let Err(why) = &made {
            eprintln!("skillwire mcp: {why}: not in skills/list");
        }
        self.manifests().insert(name.to_owned(), made.clone());
        Ok(made)
    }

    /// The digest file `uri` of skill `name` has in the manifest given out, if one was.
    fn listed_digest(&self, name: &str, uri: &str) -> Option<String> {
        let manifests = self.manifests();
        match &manifests.get(name)?.as_ref().ok()?.resources {
            rmcp::model::SkillResources::Files(files) => files.iter().find(|f| f.uri == uri).map(|f| f.digest.clone()),
            _ => None,
        }
    }

    /// `find_skills`: the skills `request` calls for, in order, with why and scores (what a
    /// turn would inject), then the others the ranking relates to it, below the threshold
    /// that injects, most relevant first.
    async fn find_skills(&self, arguments: &JsonObject) -> Result<CallToolResult, ErrorData> {
        let request = string_argument(arguments, "request")?;
        let found = self
            .run(move |engine| {
                let context = TurnContext::default();
                let matches = engine.matches(&request, &context)?;
                let related = engine.catalog_for(&request, &context, RELATED, CatalogFormat::Json, None)?;
                Ok::<_, crate::wasm::WasmError>((matches, related.featured))
            })
            .await?;
        let (matches, related) = found.map_err(engine_error)?;
        let snapshot = self.snapshot();
        let describe = |name: &str| snapshot.get(name).map(|l| l.description.clone());
        // Related skills the model may load (a skill a user alone invokes is named only when
        // the request mentions it).
        let offered = |name: &str| snapshot.get(name).is_some_and(|l| l.model);
        let skills: Vec<serde_json::Value> = (matches.iter())
            .map(|m| {
                let mut found = serde_json::json!({
                    "name": m.skill,
                    "description": describe(&m.skill).unwrap_or_default(),
                    "reason": m.reason.as_str(),
                });
                if let (Some(score), Some(fields)) = (m.score, found.as_object_mut()) {
                    fields.insert("score".to_owned(), serde_json::json!((score * 1000.0).round() / 1000.0));
                }
                // Mentioned by name, but the user's alone to invoke: `load_skill` refuses
                // it, and its prompt runs it (the model can say so).
                if let (false, Some(fields)) = (offered(&m.skill), found.as_object_mut()) {
                    fields.insert("user_only".to_owned(), serde_json::Value::Bool(true));
                }
                found
            })
            .collect();
        let also: Vec<serde_json::Value> = (related.iter())
            .filter(|name| offered(name) && !matches.iter().any(|m| &m.skill == *name))
            .map(|name| serde_json::json!({ "name": name, "description": describe(name).unwrap_or_default() }))
            .collect();
        let answer = serde_json::json!({ "skills": skills, "also_related": also });
        Ok(CallToolResult::success(vec![ContentBlock::text(json_text(&answer))]))
    }

    /// `load_skill` and prompts: skill `name`'s block as a turn on `message` injects it
    /// (with any block `message` mentions), then, for a block the budget cut, where the
    /// whole file is, then `message` if it is not empty; or why it was not injected.
    /// `caller` says whose request it is: the model may load only what it may use
    /// (`load_skill`), the user what they may invoke (prompts), a skill only a user may
    /// invoke (`disable-model-invocation`) included, as an `@mention` of it would.
    async fn inject(&self, name: &str, message: String, caller: Caller) -> Result<Result<String, String>, ErrorData> {
        let offered = |skill: &Listed| match caller {
            Caller::Model => skill.model,
            Caller::User => skill.user,
        };
        match self.snapshot().get(name) {
            Some(skill) if offered(skill) => {}
            // A skill only the user invokes (`disable-model-invocation`): its prompt runs it.
            Some(skill) if skill.user => return Ok(Err(user_only(name))),
            _ => return Ok(Err(format!("no skill named \"{name}\" is offered here (find_skills lists them)"))),
        }
        let request = match message.is_empty() {
            true => String::new(),
            false => format!("\n\n{message}"),
        };
        // The user's choice of a prompt is their mention of its skill (the turn's message
        // is not what the client gets back: the request is, after the blocks).
        let message = match caller {
            Caller::Model => message,
            Caller::User => format!("@{name} {message}"),
        };
        let selected = vec![name.to_owned()];
        let turn = self
            .run(move |engine| {
                let context = TurnContext { selected: Some(selected), ..TurnContext::default() };
                engine.inject(&message, &context)
            })
            .await?;
        let injection = turn.map_err(engine_error)?;
        match injection.decisions.iter().find(|d| d.skill == name) {
            Some(decision) if decision.injected_bytes > 0 => {
                // (At most one block is cut: the first that does not fit whole.)
                let note: String = (injection.decisions.iter())
                    .filter(|d| d.truncated && d.injected_bytes > 0)
                    .map(|d| format!("\n\n{}", whole_file_note(&d.skill)))
                    .collect();
                Ok(Ok(format!("{}{note}{request}", injection.text)))
            }
            Some(decision) => {
                let why = crate::not_injected(decision).unwrap_or_else(|| "not injected".to_owned());
                Ok(Err(format!("skill \"{name}\" was not loaded ({why})")))
            }
            None => Ok(Err(format!("skill \"{name}\" was not loaded"))),
        }
    }
}

/// Who asks the server for a skill's instructions.
#[derive(Debug, Clone, Copy)]
enum Caller {
    /// The model, through `load_skill`.
    Model,
    /// The user, through a prompt.
    User,
}

/// Told after a skill's instructions the budget cut: where the whole text is.
fn whole_file_note(name: &str) -> String {
    let quoted = serde_json::Value::from(name);
    format!(
        "(The server's budget cut the instructions of skill {quoted} short: {} with skill {quoted} and \
         path \"SKILL.md\" gives the whole file.)",
        skillwire::READ_FILE_TOOL
    )
}

impl ServerHandler for SkillServer {
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let mut peers = self.peers.lock().unwrap_or_else(PoisonError::into_inner);
        // Sessions that ended are forgotten as new ones come; the oldest past the cap too.
        peers.retain(|p| !p.is_transport_closed());
        if peers.len() >= MAX_PEERS {
            peers.remove(0);
        }
        peers.push(context.peer);
    }

    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_prompts()
            .enable_prompts_list_changed()
            .enable_resources()
            .enable_resources_list_changed()
            .enable_skills()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("skillwire", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Agent Skills: call find_skills with the user's request to learn which skills apply, \
                 load_skill to read a skill's instructions before following them, and read_skill_file \
                 for a file those instructions name.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        let result = match request.name.as_ref() {
            FIND_SKILLS => self.find_skills(&arguments).await?,
            LOAD_SKILL => {
                let name = string_argument(&arguments, "name")?;
                match self.inject(&name, String::new(), Caller::Model).await? {
                    Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
                    Err(why) => CallToolResult::error(vec![ContentBlock::text(why)]),
                }
            }
            skillwire::READ_FILE_TOOL => {
                // A skill only the user invokes is not the model's to read, as it is not
                // the model's to load: its prompt runs it.
                let skill = arguments.get("skill").and_then(serde_json::Value::as_str);
                if let Some(name) = skill.filter(|name| self.snapshot().get(name).is_some_and(|s| !s.model)) {
                    return Ok(CallToolResult::error(vec![ContentBlock::text(user_only(name))]).into());
                }
                let arguments = serde_json::Value::Object(arguments).to_string();
                let answer = self.run(move |engine| engine.answer_read_file(&arguments)).await?;
                let answer = answer.map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                match answer.is_error {
                    false => CallToolResult::success(vec![ContentBlock::text(answer.content)]),
                    true => CallToolResult::error(vec![ContentBlock::text(answer.content)]),
                }
            }
            other => return Err(ErrorData::invalid_params(format!("no tool named \"{other}\""), None)),
        };
        Ok(result.into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let snapshot = self.snapshot();
        let prompts = (snapshot.served.iter().filter(|skill| skill.user))
            .map(|skill| {
                let request = PromptArgument::new("request")
                    .with_description("What to do with the skill; it follows the skill's instructions.")
                    .with_required(false);
                Prompt::new(&skill.name, Some(&skill.description), Some(vec![request]))
            })
            .collect();
        Ok(ListPromptsResult::with_all_items(prompts))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let snapshot = self.snapshot();
        let Some(skill) = snapshot.get(&request.name).filter(|skill| skill.user) else {
            return Err(ErrorData::invalid_params(format!("no prompt named \"{}\"", request.name), None));
        };
        let message = match request.arguments.as_ref().and_then(|a| a.get("request")) {
            None | Some(serde_json::Value::Null) => String::new(),
            Some(serde_json::Value::String(text)) => text.clone(),
            Some(_) => return Err(ErrorData::invalid_params("the argument \"request\" must be a string", None)),
        };
        match self.inject(&skill.name, message, Caller::User).await? {
            Ok(text) => Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
                .with_description(skill.description.clone())
                .into()),
            Err(why) => Err(ErrorData::invalid_params(why, None)),
        }
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let snapshot = self.snapshot();
        let resources = (snapshot.served.iter())
            .map(|skill| {
                Resource::new(file_uri(&skill.name, "SKILL.md"), &skill.name)
                    .with_description(skill.description.clone())
                    .with_mime_type("text/markdown")
            })
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let Some((name, path)) = parse_uri(&uri) else {
            return Err(ErrorData::invalid_params(format!("{uri}: not a skill:// URI this server serves"), None));
        };
        if self.snapshot().get(&name).is_none() {
            return Err(ErrorData::resource_not_found(format!("{uri}: no skill named \"{name}\""), None));
        }
        // Only the files the skill's listing holds are served (the listing is what a
        // manifest is made of); the path is checked by the core before anything is read.
        let (asked, max_path_bytes) = (name.clone(), self.limits.max_file_path_bytes);
        let read = self
            .run(move |engine| {
                let normal = skillwire::normalise_file_path(&path, max_path_bytes)
                    .map_err(|problem| Err(ErrorData::invalid_params(problem.describe(), None)))?;
                let listed = engine.files(&asked).map_err(|e| Err(engine_error(e)))?;
                if !listed.files.iter().any(|f| f.path == normal) {
                    return Err(Ok(()));
                }
                engine.read_file(&asked, &normal).map_err(|e| Err(engine_error(e)))
            })
            .await?;
        let content = match read {
            Ok(content) => content,
            Err(Ok(())) => return Err(ErrorData::resource_not_found(format!("{uri}: not a file of the skill"), None)),
            Err(Err(e)) => return Err(ErrorData::new(e.code, format!("{uri}: {}", e.message), None)),
        };
        // A file changed since its skill's manifest was given out would fail the client's
        // digest check: refused, and the manifest computed again on the next request.
        if self.listed_digest(&name, &file_uri(&name, &content.path)).is_some_and(|listed| listed != content.digest) {
            self.manifests().remove(&name);
            return Err(ErrorData::internal_error(
                format!("{uri} changed since its skill was listed: get the skill again (skills/get)"),
                None,
            ));
        }
        let contents = match content.body {
            FileBody::Text(text) => ResourceContents::text(text, uri),
            FileBody::Binary(bytes) => {
                ResourceContents::blob(base64::engine::general_purpose::STANDARD.encode(bytes), uri)
            }
        };
        Ok(ReadResourceResult::new(vec![contents.with_mime_type(content.media_type)]).into())
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        let snapshot = self.snapshot();
        // Skills in the order of their names; a cursor, as this server wrote it, holds the
        // name a page ended with: the next page starts after it, so a skill added or removed
        // meanwhile (`--watch`) moves no other skill past the client.
        let after = match request.and_then(|r| r.cursor) {
            None => None,
            Some(cursor) => match cursor.strip_prefix(CURSOR_AFTER) {
                Some(name) if !name.is_empty() => Some(name.to_owned()),
                _ => return Err(ErrorData::invalid_params(format!("unknown cursor \"{cursor}\""), None)),
            },
        };
        let mut page = snapshot.by_name_after(after.as_deref()).take(SKILLS_PER_PAGE + 1);
        let mut skills = Vec::new();
        let mut last = None;
        for skill in page.by_ref().take(SKILLS_PER_PAGE) {
            last = Some(skill.name.as_str());
            if let Ok(entry) = self.manifest(&skill.name, false).await? {
                skills.push(entry);
            }
        }
        let more = page.next().is_some();
        let mut result = ListSkillsResult::with_all_items(skills);
        result.next_cursor = last.filter(|_| more).map(|name| format!("{CURSOR_AFTER}{name}"));
        Ok(result)
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        let uri = request.uri;
        let name = match parse_uri(&uri) {
            Some((name, path)) if path == "SKILL.md" && self.snapshot().get(&name).is_some() => name,
            _ => return Err(ErrorData::invalid_params(format!("{uri}: no skill this server serves"), None)),
        };
        // Always computed again: what a client gets here is what its files hold now.
        match self.manifest(&name, true).await? {
            Ok(skill) => Ok(GetSkillResult::new(skill)),
            Err(why) => {
                Err(ErrorData::invalid_params(format!("{uri}: not served by the skills extension: {why}"), None))
            }
        }
    }
}

/// An engine error as an MCP error: what the request asked wrongly (a message over the
/// limit, a refused path or file) is `-32602`; a trap or limit of the component, or a
/// component that cannot start, is internal (`-32603`).
fn engine_error(e: crate::wasm::WasmError) -> ErrorData {
    match e {
        crate::wasm::WasmError::Engine(e) => ErrorData::invalid_params(e.to_string(), None),
        crate::wasm::WasmError::File(e) => ErrorData::invalid_params(format!("{e} ({})", e.code()), None),
        e => ErrorData::internal_error(e.to_string(), None),
    }
}

/// The three tools, with JSON Schema inputs.
fn tools() -> Vec<Tool> {
    let schema = |value: serde_json::Value| Arc::new(value.as_object().cloned().unwrap_or_default());
    let read_file = serde_json::to_value(skillwire::read_file_tool(Provider::Anthropic)).unwrap_or_default();
    vec![
        Tool::new(
            FIND_SKILLS,
            "Find the Agent Skills that apply to a request. `skills`: those skillwire would use for it, in \
             order, with their descriptions, why each was chosen (an @mention, a rule, or the relevance \
             ranking) and the ranking score; `also_related`: other skills the ranking relates to the request, \
             less surely, most related first. Call it with the user's request before answering; then \
             load_skill the ones you will follow.",
            schema(serde_json::json!({
                "type": "object",
                "properties": {"request": {"type": "string", "description": "The user's request, as they wrote it."}},
                "required": ["request"],
                "additionalProperties": false,
            })),
        ),
        Tool::new(
            LOAD_SKILL,
            "Load an Agent Skill's instructions (its SKILL.md body, checked by the safety scan), with the list \
             of the files in its folder that read_skill_file opens; a skill too long for the server's budget \
             is cut, and says where its whole SKILL.md is.",
            schema(serde_json::json!({
                "type": "object",
                "properties": {"name": {"type": "string", "description": "The skill's name, as find_skills gave it."}},
                "required": ["name"],
                "additionalProperties": false,
            })),
        ),
        Tool::new(
            skillwire::READ_FILE_TOOL,
            read_file.get("description").and_then(serde_json::Value::as_str).unwrap_or_default().to_owned(),
            schema(read_file.get("input_schema").cloned().unwrap_or_default()),
        ),
    ]
}

/// Why the model may neither load nor read skill `name`: only the user invokes it.
fn user_only(name: &str) -> String {
    format!("skill \"{name}\" is one only the user invokes (disable-model-invocation): the prompt \"{name}\" runs it")
}

/// The string argument `key` of a tool call.
fn string_argument(arguments: &JsonObject, key: &str) -> Result<String, ErrorData> {
    match arguments.get(key) {
        Some(serde_json::Value::String(text)) => Ok(text.clone()),
        _ => Err(ErrorData::invalid_params(format!("the argument \"{key}\" must be a string"), None)),
    }
}

/// Pretty JSON text for a tool result.
fn json_text(value: &serde_json::Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}
