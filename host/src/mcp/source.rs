//! Skills from another MCP server: [`McpSource`], a [`SkillSource`] over the skills
//! extension (SEP-2640) of a server started as a command (stdio) or reached at an
//! `http://` URL (streamable HTTP), through the official Rust SDK's client.
//!
//! - **Listing** is `skills/list`, every page, and fetches no file: each skill's entry
//!   holds its frontmatter (the listing's JSON, which is YAML, between `---` lines) and no
//!   body, so the catalogue is built from names, descriptions and the other fields. An
//!   entry the extension's rules refuse (a bad name or URI, a malformed digest; each entry
//!   of a URI the listing holds twice, the entries different) is listed and then refused
//!   with the reason when the build reads it: it is reported as skipped. So is an entry
//!   the SDK's types do not read (a field of the wrong type): the page's other entries
//!   are read one by one and kept.
//! - **Reading** a SKILL.md (a turn injects it) or another file (`read_skill_file`) is
//!   `resources/read` of its URI, checked as the extension asks of hosts: the bytes against
//!   the listed SHA-256, and the SKILL.md's frontmatter against the listed one. A mismatch
//!   is a refused read (`body_unavailable`, or a file error), never the changed text. The
//!   core scans what is read before it reaches the model, as for any source.
//! - **Origin**: every entry carries the server's name (its `serverInfo.name`, kept to what
//!   an origin label may hold) as its origin, so a skill of the server never silently takes
//!   or loses a name held by one from elsewhere (`NAME@ORIGIN`, reported).
//!
//! Each read has a time limit, and the listing's pages one for them all
//! ([`McpSource::with_timeout`]); the server is told of a request given up at its limit
//! (`notifications/cancelled`), so it can stop working on it. No page is asked for past
//! the catalogue's limit on skills.
//! The client runs on a runtime of its own, so the source answers from any thread that is
//! not an async task (from one, it answers with an error instead of blocking it).
//! A skill whose files the server lists as `"dynamic"` has no digests to check: its
//! SKILL.md's frontmatter is still checked, and its other files are not handed out.

use super::group::Group;
use rmcp::model::{
    ClientRequest, CustomResult, ListSkillsRequest, PaginatedRequestParams, ReadResourceRequestParams,
    ResourceContents, ServerResult, Skill, SkillFrontmatter, SkillResource, SkillResources,
};
use rmcp::service::{PeerRequestOptions, RoleClient, RunningService, ServiceError, ServiceExt};
use skillwire::{Limits, ListedFile, SkillEntry, SkillSource, SourceError};
use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::time::{Duration, Instant};

/// How long a request to the server may take before the source gives up on it.
pub const MCP_TIMEOUT: Duration = Duration::from_secs(20);

/// The scheme of skill URIs.
const SCHEME: &str = "skill://";

/// Longest `skills/list` cursor taken: cursors are a server's place in its listing, a few
/// dozen bytes; a longer one ends the listing with an error.
const MAX_CURSOR_BYTES: usize = 4096;

/// Where the server is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpServer {
    /// A command line, run by the shell (`sh -c`, `cmd /C` on Windows), speaking MCP on its
    /// standard input and output.
    Command(String),
    /// A streamable HTTP endpoint (`http://` only: this build has no TLS).
    Url(String),
}

impl McpServer {
    /// A URL when `spec` starts with `http://` or `https://`, else a command.
    pub fn parse(spec: &str) -> McpServer {
        let lower = spec.trim_start().to_ascii_lowercase();
        match lower.starts_with("http://") || lower.starts_with("https://") {
            true => McpServer::Url(spec.trim().to_owned()),
            false => McpServer::Command(spec.to_owned()),
        }
    }
}

/// One listed skill as the source keeps it.
#[derive(Debug, PartialEq)]
struct Listed {
    /// The frontmatter the listing gives, as JSON fields.
    frontmatter: serde_json::Map<String, serde_json::Value>,
    /// Its files by path in the skill's folder, or `None` for `"dynamic"`.
    files: Option<HashMap<String, SkillResource>>,
    /// Why the source refuses the entry (the extension's rules), when it does.
    refused: Option<String>,
}

/// Skills served by another MCP server (see the module docs).
pub struct McpSource {
    /// `None` only while it is dropped.
    runtime: Option<tokio::runtime::Runtime>,
    client: Option<RunningService<RoleClient, ()>>,
    origin: String,
    timeout: Duration,
    limits: Limits,
    /// The last listing, by SKILL.md URI.
    listed: std::sync::Mutex<HashMap<String, Listed>>,
    /// A server started as a command: its process group, killed after the session closes
    /// (a field drops after `Drop::drop` has run).
    _group: Option<Group>,
}

impl std::fmt::Debug for McpSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpSource").field("origin", &self.origin).finish_non_exhaustive()
    }
}

impl McpSource {
    /// Connects to `server` (starting it when it is a command, killed when the source is
    /// dropped) and checks that it serves the skills extension. Fails when the server cannot
    /// be started or reached, does not complete the MCP handshake within [`MCP_TIMEOUT`], or
    /// does not declare the extension; and when called from an async task (the source
    /// blocks: give it a thread of its own).
    pub fn connect(server: &McpServer) -> Result<McpSource, String> {
        McpSource::connect_within(server, MCP_TIMEOUT)
    }

    /// [`McpSource::connect`], the handshake and every request then limited to `timeout`.
    pub fn connect_within(server: &McpServer, timeout: Duration) -> Result<McpSource, String> {
        outside_async()?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("skillwire-mcp-client")
            .enable_all()
            .build()
            .map_err(|e| format!("could not start the async runtime: {e}"))?;
        // Killed when dropped: on any failure below, and with the source.
        let mut group = None;
        let client = runtime.block_on(async {
            let started = async {
                match server {
                    McpServer::Command(line) => {
                        let transport = rmcp::transport::TokioChildProcess::builder(shell(line))
                            .stderr(std::process::Stdio::inherit())
                            .spawn()
                            .map(|(transport, _)| transport)
                            .map_err(|e| format!("could not start `{line}`: {e}"))?;
                        group = transport.id().and_then(Group::started);
                        ().serve(transport).await.map_err(|e| format!("`{line}`: {}", handshake_failure(&e)))
                    }
                    McpServer::Url(url) if !url.to_ascii_lowercase().starts_with("http://") => {
                        Err(format!("{url}: only http:// URLs (this build has no TLS; run the server as a command)"))
                    }
                    McpServer::Url(url) => {
                        let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(
                            std::sync::Arc::<str>::from(url.as_str()),
                        );
                        ().serve(transport).await.map_err(|e| format!("{url}: {}", handshake_failure(&e)))
                    }
                }
            };
            tokio::time::timeout(timeout, started)
                .await
                .map_err(|_| format!("the MCP server did not answer within {} ms", timeout.as_millis()))?
        })?;
        let info = client.peer_info();
        if !info.as_ref().is_some_and(|i| i.capabilities.supports_skills()) {
            return Err("the MCP server does not serve skills (no io.modelcontextprotocol/skills extension)".into());
        }
        let name = info.as_ref().and_then(|i| i.server_info.as_ref()).map(|s| s.name.clone()).unwrap_or_default();
        Ok(McpSource {
            runtime: Some(runtime),
            client: Some(client),
            origin: skillwire::origin_label(&name),
            timeout,
            limits: Limits::default(),
            listed: std::sync::Mutex::new(HashMap::new()),
            _group: group,
        })
    }

    /// The same source, with each request limited to `timeout`.
    pub fn with_timeout(mut self, timeout: Duration) -> McpSource {
        self.timeout = timeout;
        self
    }

    /// The same source, reading within `limits` (pass the catalogue's; the default limits
    /// otherwise): SKILL.md files over the size limit are refused unread.
    pub fn with_limits(mut self, limits: Limits) -> McpSource {
        self.limits = limits;
        self
    }

    /// The same source, with its skills' origin labelled `origin` instead of the server's
    /// name (kept to what a label may hold).
    pub fn with_origin(mut self, origin: &str) -> McpSource {
        self.origin = skillwire::origin_label(origin);
        self
    }

    /// The label its skills carry as their origin.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The client, while the source is open.
    fn client(&self) -> Result<&RunningService<RoleClient, ()>, String> {
        self.client.as_ref().ok_or_else(|| "the MCP client is closed".to_owned())
    }

    /// Runs `call` on the client's runtime within the time limit and `grace` more; `late`
    /// says what did not come in time.
    fn within<T>(
        &self,
        grace: Duration,
        call: impl Future<Output = Result<T, String>>,
        late: impl FnOnce(u64) -> String,
    ) -> Result<T, String> {
        outside_async()?;
        let runtime = self.runtime.as_ref().ok_or("the MCP client is closed")?;
        let timeout = self.timeout;
        runtime
            .block_on(async { tokio::time::timeout(timeout.saturating_add(grace), call).await })
            .map_err(|_| late(timeout.as_secs()))?
    }

    /// Runs one request on the client's runtime, within the time limit.
    fn request<T>(
        &self,
        what: &str,
        call: impl Future<Output = Result<T, rmcp::service::ServiceError>>,
    ) -> Result<T, String> {
        // (rmcp tells the server when a read is dropped unanswered.)
        let answer = async { call.await.map_err(|e| format!("{what}: {e}")) };
        self.within(Duration::ZERO, answer, |secs| format!("{what}: no answer within {secs} s"))
    }

    /// Every page of `skills/list`, within one time limit for them all; past the
    /// catalogue's limit on skills (one more, which the catalogue then reports as over it),
    /// no page is asked for. A cursor handed out twice is an error (it would never end), and
    /// so is one over [`MAX_CURSOR_BYTES`]; cursors are remembered by a hash of each, so a
    /// server handing out new ones until the time limit cannot grow the memory held.
    fn list_skills(&self) -> Result<Vec<ListedEntry>, String> {
        let client = self.client()?;
        let mut skills = Vec::new();
        let mut seen: HashSet<u64> = HashSet::new();
        let hash = |cursor: &str| {
            use std::hash::{BuildHasher, BuildHasherDefault};
            BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default().hash_one(cursor)
        };
        let secs = self.timeout.as_secs();
        let late = move || format!("skills/list: not every page within {secs} s");
        // Each page is asked for with the time left as rmcp's own limit, which tells the
        // server when it passes (`notifications/cancelled`); the call's limit, a moment
        // later, bounds the rest.
        let deadline = Instant::now().checked_add(self.timeout);
        let pages = async {
            let mut cursor: Option<String> = None;
            loop {
                let options = match deadline.map(|d| d.saturating_duration_since(Instant::now())) {
                    Some(left) if left.is_zero() => return Err(late()),
                    Some(left) => PeerRequestOptions::with_timeout(left),
                    None => PeerRequestOptions::no_options(),
                };
                let params = cursor.take().map(|c| PaginatedRequestParams::default().with_cursor(Some(c)));
                let request = ClientRequest::ListSkillsRequest(ListSkillsRequest { params, ..Default::default() });
                let page = match client.send_request_with_option(request, options).await {
                    Ok(sent) => sent.await_response().await,
                    Err(error) => Err(error),
                }
                .map_err(|error| match error {
                    ServiceError::Timeout { .. } => late(),
                    error => format!("skills/list: {error}"),
                })?;
                let next_cursor = match page {
                    ServerResult::ListSkillsResult(page) => {
                        skills.extend(page.skills.into_iter().map(ListedEntry::Read));
                        page.next_cursor
                    }
                    // A page the SDK's types do not read whole (rmcp then hands it over as
                    // JSON): its entries read one by one.
                    ServerResult::CustomResult(CustomResult(page)) => read_page_by_entry(page, &mut skills)?,
                    _ => return Err("skills/list: the answer is not a list of skills".to_owned()),
                };
                match next_cursor {
                    _ if skills.len() > self.limits.max_skills => return Ok(()),
                    Some(next) if next.len() > MAX_CURSOR_BYTES => {
                        return Err(format!(
                            "skills/list: a cursor of {} bytes (at most {MAX_CURSOR_BYTES})",
                            next.len()
                        ));
                    }
                    Some(next) if !seen.insert(hash(&next)) => {
                        return Err(format!("skills/list: the cursor {next:?} came twice"));
                    }
                    Some(next) => cursor = Some(next),
                    None => return Ok(()),
                }
            }
        };
        self.within(CANCEL_GRACE, pages, |_| late())?;
        skills.truncate(self.limits.max_skills.saturating_add(1));
        Ok(skills)
    }

    /// The bytes of the resource at `uri`.
    fn read_bytes(&self, uri: &str) -> Result<Vec<u8>, String> {
        let params = ReadResourceRequestParams::new(uri);
        let result = self.request(&format!("resources/read {uri}"), self.client()?.read_resource(params))?;
        let content = result.contents.into_iter().next().ok_or_else(|| format!("{uri}: the server sent no content"))?;
        match content {
            ResourceContents::TextResourceContents { text, .. } => Ok(text.into_bytes()),
            ResourceContents::BlobResourceContents { blob, .. } => {
                use base64::Engine as _;
                base64::engine::general_purpose::STANDARD.decode(blob).map_err(|e| format!("{uri}: its base64: {e}"))
            }
            _ => Err(format!("{uri}: content of a kind this client does not read")),
        }
    }

    /// Runs `look` on the listed skill whose SKILL.md is at `location`.
    fn with_listed<T>(&self, location: &str, look: impl FnOnce(&Listed) -> Result<T, String>) -> Result<T, String> {
        let listed = self.listed.lock().map_err(|_| "the listing is unavailable".to_owned())?;
        let skill = listed.get(location).ok_or_else(|| format!("{location}: not a skill of this server"))?;
        look(skill)
    }

    /// Checks `bytes` read at `uri` against the digest listed for it, if any.
    fn verify(resource: Option<&SkillResource>, bytes: &[u8]) -> Result<(), String> {
        match resource {
            Some(resource) => resource.verify(bytes).map_err(|e| format!("{e} (the file changed since it was listed)")),
            None => Ok(()),
        }
    }
}

/// How long past the listing's time limit its call waits for the cancellation to go out.
const CANCEL_GRACE: Duration = Duration::from_secs(1);

impl Drop for McpSource {
    /// Closes the session; a server started as a command is killed if it has not ended
    /// by then. Inside an async task (where it cannot wait) the runtime is left to stop
    /// in the background, and the command killed with it.
    fn drop(&mut self) {
        let (Some(runtime), client) = (self.runtime.take(), self.client.take()) else { return };
        if outside_async().is_err() {
            drop(client);
            return runtime.shutdown_background();
        }
        if let Some(client) = client {
            let _ = runtime.block_on(async { tokio::time::timeout(Duration::from_secs(2), client.cancel()).await });
        }
        runtime.shutdown_timeout(Duration::from_secs(1));
    }
}

/// An error when called from an async task, where blocking on the client's runtime would
/// stop the task's own (`McpSource` is a synchronous source: give it a thread of its own).
fn outside_async() -> Result<(), String> {
    match tokio::runtime::Handle::try_current() {
        Ok(_) => Err("McpSource was called from an async task; call it from a thread of its own".to_owned()),
        Err(_) => Ok(()),
    }
}

impl SkillSource for McpSource {
    fn list(&self) -> Result<Vec<SkillEntry>, SourceError> {
        let skills = self.list_skills().map_err(SourceError::new)?;
        let read: Vec<(String, Listed, Option<String>)> = skills
            .into_iter()
            .map(|skill| match skill {
                ListedEntry::Read(skill) => {
                    let location = skill.uri.clone();
                    let (keep, text) = listed_skill(skill);
                    (location, keep, text)
                }
                ListedEntry::Unread { location, problem } => (location, broken_listing(&problem), None),
            })
            .collect();
        // A URI listed twice, the entries unlike: a read of it could be checked against one
        // of them only, and which is the skill cannot be told, so none is taken. (Entries
        // alike are one entry listed twice, taken as any entry is: a skill's copies are
        // shadowed by its first.)
        let mut first: HashMap<&str, &Listed> = HashMap::new();
        let twice: HashSet<String> = read
            .iter()
            .filter(|(location, keep, _)| *first.entry(location.as_str()).or_insert(keep) != keep)
            .map(|(location, ..)| location.clone())
            .collect();
        let mut listed = HashMap::new();
        let mut entries = Vec::new();
        for (location, keep, text) in read {
            let entry = SkillEntry::new(location.clone()).with_origin(self.origin.clone());
            let (keep, text) = match twice.contains(&location) {
                true => (broken_listing(&format!("{location} is listed twice, with different entries")), None),
                false => (keep, text),
            };
            listed.insert(location, keep);
            entries.push(match text {
                Some(text) => entry.with_text(text),
                None => entry,
            });
        }
        *self.listed.lock().map_err(|_| SourceError::new("the listing is unavailable"))? = listed;
        Ok(entries)
    }

    fn read(&self, location: &str) -> Result<String, SourceError> {
        let (frontmatter, resource) = self
            .with_listed(location, |skill| match &skill.refused {
                Some(why) => Err(why.clone()),
                None => Ok((skill.frontmatter.clone(), skill.files.as_ref().and_then(|f| f.get("SKILL.md")).cloned())),
            })
            .map_err(SourceError::new)?;
        if let Some(size) = resource.as_ref().map(|r| r.size).filter(|&s| s > self.limits.max_skill_md_bytes as u64) {
            let limit = self.limits.max_skill_md_bytes;
            return Err(SourceError::refusal(format!("{location}: SKILL.md is {size} bytes; the limit is {limit}")));
        }
        let bytes = self.read_bytes(location).map_err(SourceError::new)?;
        Self::verify(resource.as_ref(), &bytes).map_err(SourceError::new)?;
        let text = String::from_utf8(bytes).map_err(|_| SourceError::refusal(format!("{location}: not UTF-8 text")))?;
        skillwire::check_listed_frontmatter(&text, &frontmatter, &self.limits)
            .map_err(|why| SourceError::new(format!("{location}: {why}")))?;
        Ok(text)
    }

    fn list_files(&self, location: &str) -> Result<Vec<ListedFile>, SourceError> {
        self.with_listed(location, |skill| {
            if let Some(why) = &skill.refused {
                return Err(why.clone());
            }
            let files = skill.files.as_ref().ok_or("the server lists this skill's files as dynamic")?;
            let mut listed: Vec<ListedFile> =
                files.iter().map(|(path, r)| ListedFile { path: path.clone(), size: r.size }).collect();
            listed.sort_by(|a, b| a.path.cmp(&b.path));
            Ok(listed)
        })
        .map_err(SourceError::new)
    }

    fn read_file(&self, location: &str, path: &str, max_bytes: usize) -> Result<Vec<u8>, SourceError> {
        if path == "SKILL.md" {
            // Its frontmatter is checked too, as when a turn reads it.
            let mut bytes = self.read(location)?.into_bytes();
            bytes.truncate(max_bytes.saturating_add(1));
            return Ok(bytes);
        }
        let resource = self
            .with_listed(location, |skill| {
                if let Some(why) = &skill.refused {
                    return Err(why.clone());
                }
                let files = skill.files.as_ref().ok_or("the server lists this skill's files as dynamic")?;
                files.get(path).cloned().ok_or_else(|| format!("{path}: not a file of this skill"))
            })
            .map_err(SourceError::new)?;
        if resource.size > max_bytes as u64 {
            return Err(SourceError::new(format!("{path} is {} bytes; the limit is {max_bytes}", resource.size)));
        }
        let mut bytes = self.read_bytes(&resource.uri).map_err(SourceError::new)?;
        Self::verify(Some(&resource), &bytes).map_err(SourceError::new)?;
        bytes.truncate(max_bytes.saturating_add(1));
        Ok(bytes)
    }
}

/// What the source keeps of a listed skill, and the text its entry carries: the
/// frontmatter between `---` lines (JSON is YAML), or none when the entry is refused.
fn listed_skill(skill: Skill) -> (Listed, Option<String>) {
    let frontmatter = frontmatter_fields(&skill.frontmatter);
    let refuse = |why: String| Listed { frontmatter: frontmatter.clone(), files: None, refused: Some(why) };
    if let Err(e) = skill.validate() {
        return (refuse(format!("the server's listing breaks the skills extension: {e}")), None);
    }
    if !skill.uri.starts_with(SCHEME) {
        return (refuse(format!("{}: not a {SCHEME} URI", skill.uri)), None);
    }
    let files = match &skill.resources {
        SkillResources::Files(files) => {
            let mut by_path = HashMap::new();
            for file in files {
                match relative_path(&skill.uri, &file.uri) {
                    Some(path) => by_path.insert(path, file.clone()),
                    None => return (refuse(format!("{}: not a file of {}", file.uri, skill.uri)), None),
                };
            }
            Some(by_path)
        }
        _ => None,
    };
    let text = skillwire::listed_skill_text(&frontmatter);
    (Listed { frontmatter, files, refused: None }, Some(text))
}

/// A listed entry the source refuses, for `problem` with the listing.
fn broken_listing(problem: &str) -> Listed {
    let why = format!("the server's listing breaks the skills extension: {problem}");
    Listed { frontmatter: Default::default(), files: None, refused: Some(why) }
}

/// An entry of `skills/list`: read by the SDK's types, or not.
enum ListedEntry {
    Read(Skill),
    /// Its URI (or `skills/list entry N`, its place in the listing, when it has none) and
    /// why it does not read.
    Unread {
        location: String,
        problem: String,
    },
}

/// The entries of a `skills/list` page that does not read whole, each read alone, added to
/// `skills`; the page's next cursor. A page without a list of skills, or whose cursor is
/// neither a string nor null, is an error (the pages after it would be lost unsaid).
fn read_page_by_entry(page: serde_json::Value, skills: &mut Vec<ListedEntry>) -> Result<Option<String>, String> {
    use serde::Deserialize;
    let serde_json::Value::Object(mut page) = page else {
        return Err("skills/list: the answer is not an object".to_owned());
    };
    let Some(serde_json::Value::Array(entries)) = page.remove("skills") else {
        return Err("skills/list: the answer has no skills list".to_owned());
    };
    for entry in entries {
        skills.push(match Skill::deserialize(&entry) {
            Ok(skill) => ListedEntry::Read(skill),
            Err(e) => {
                let location = match entry.get("uri").and_then(|u| u.as_str()) {
                    Some(uri) => uri.to_owned(),
                    None => format!("skills/list entry {}", skills.len()),
                };
                ListedEntry::Unread { problem: why_unread(&entry, &location, &e), location }
            }
        });
    }
    match page.remove("nextCursor") {
        Some(serde_json::Value::String(cursor)) => Ok(Some(cursor)),
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(other) => Err(format!("skills/list: the next cursor is not a string: {other}")),
    }
}

/// Why a listing entry does not read, in the extension's terms where a field's shape says
/// it (the parser's words name no field), else the parser's.
fn why_unread(entry: &serde_json::Value, location: &str, error: &serde_json::Error) -> String {
    let frontmatter = entry.get("frontmatter").and_then(|f| f.as_object());
    let text_in_frontmatter = |field: &str| frontmatter.is_some_and(|f| f.get(field).is_some_and(|v| v.is_string()));
    let resources = entry.get("resources");
    if !entry.is_object() {
        format!("{location} is not an object")
    } else if !entry.get("uri").is_some_and(|v| v.is_string()) {
        format!("{location} has no URI string")
    } else if !text_in_frontmatter("name") || !text_in_frontmatter("description") {
        format!("{location}: its frontmatter has no name or description string")
    } else if !resources.is_some_and(|r| r.is_array() || r.as_str() == Some("dynamic")) {
        format!("{location}: its resources are neither a list nor \"dynamic\"")
    } else if let Some(file) = resources.and_then(|r| r.as_array()).into_iter().flatten().find(|file| {
        !(file.get("uri").is_some_and(|v| v.is_string())
            && file.get("digest").is_some_and(|v| v.is_string())
            && file.get("size").is_some_and(|v| v.is_u64()))
    }) {
        format!("{location}: a file listed as {file} is not one of its files with a SHA-256 digest")
    } else {
        format!("{location}: {error}")
    }
}

/// The listing's frontmatter as the JSON fields a SKILL.md's frontmatter reads as.
fn frontmatter_fields(frontmatter: &SkillFrontmatter) -> serde_json::Map<String, serde_json::Value> {
    match serde_json::to_value(frontmatter) {
        Ok(serde_json::Value::Object(fields)) => fields,
        _ => serde_json::Map::new(),
    }
}

/// The path of `file_uri` in the folder of the skill whose SKILL.md is at `skill_uri`
/// (percent-decoded), or `None` when it is not inside it.
fn relative_path(skill_uri: &str, file_uri: &str) -> Option<String> {
    let folder = skill_uri.strip_suffix("SKILL.md")?;
    let encoded = file_uri.strip_prefix(folder)?;
    let decoded = super::skills::percent_decode(encoded)?;
    (!decoded.is_empty() && file_uri.starts_with(SCHEME)).then_some(decoded)
}

/// Why the MCP handshake failed, in words: a transport's failure by its causes (rmcp names
/// the transport by its Rust type), any other as rmcp says it.
fn handshake_failure(e: &rmcp::service::ClientInitializeError) -> String {
    let rmcp::service::ClientInitializeError::TransportError { error, context } = e else {
        return e.to_string();
    };
    // Each cause once: a source whose words its error already holds adds nothing.
    let mut said = error.error.to_string();
    let mut source = error.error.source();
    while let Some(cause) = source {
        let words = cause.to_string();
        if !said.contains(&words) {
            said = format!("{said}: {words}");
        }
        source = cause.source();
    }
    format!("{said} ({context})")
}

/// `line` run by the platform's shell (on unix in a process group of its own: [`Group`]).
fn shell(line: &str) -> tokio::process::Command {
    let (program, flag) = if cfg!(windows) { ("cmd", "/C") } else { ("sh", "-c") };
    let mut command = tokio::process::Command::new(program);
    command.arg(flag).arg(line).kill_on_drop(true);
    #[cfg(unix)]
    command.process_group(0);
    command
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_named_by_their_path_in_the_skill_folder() {
        let skill = "skill://pdf/SKILL.md";
        assert_eq!(relative_path(skill, "skill://pdf/SKILL.md").as_deref(), Some("SKILL.md"));
        assert_eq!(relative_path(skill, "skill://pdf/a%20b/c.md").as_deref(), Some("a b/c.md"));
        assert_eq!(relative_path(skill, "skill://other/c.md"), None);
        assert_eq!(relative_path(skill, "skill://pdf/"), None);
        let nested = "skill://acme/billing/pdf/SKILL.md";
        assert_eq!(relative_path(nested, "skill://acme/billing/pdf/forms.md").as_deref(), Some("forms.md"));
    }

    /// A page read entry by entry: what reads is kept, what does not is named by its URI or
    /// its place in the listing, with why in the extension's terms.
    #[test]
    fn a_page_that_does_not_read_whole_is_read_by_entry() {
        let pdf = serde_json::json!({
            "uri": "skill://pdf/SKILL.md", "frontmatter": {"name": "pdf", "description": "Fill forms."}, "resources": "dynamic"
        });
        let page = serde_json::json!({
            "skills": [
                pdf,
                {"uri": "skill://invoice/SKILL.md", "frontmatter": {"name": "invoice", "description": "Draft."}, "resources": 42},
                {"uri": "skill://a/SKILL.md", "frontmatter": {"name": "a"}, "resources": []},
                {"frontmatter": "not an object"},
                "an entry",
                {"uri": "skill://b/SKILL.md", "frontmatter": {"name": "b", "description": "B."}, "resources": [{"uri": 5}]},
                {"uri": "skill://c/SKILL.md", "frontmatter": {"name": "c", "description": "C."}, "resources": [], "_meta": 5},
            ],
            "nextCursor": "p2",
        });
        let mut skills = vec![ListedEntry::Unread { location: "earlier".into(), problem: String::new() }];
        assert_eq!(read_page_by_entry(page, &mut skills).unwrap().as_deref(), Some("p2"));
        let read: Vec<String> = skills
            .iter()
            .skip(1)
            .map(|e| match e {
                ListedEntry::Read(skill) => format!("read {}", skill.uri),
                ListedEntry::Unread { location, problem } => format!("{location} | {problem}"),
            })
            .collect();
        assert_eq!(
            read[..5],
            [
                "read skill://pdf/SKILL.md".to_owned(),
                "skill://invoice/SKILL.md | skill://invoice/SKILL.md: its resources are neither a list nor \"dynamic\""
                    .to_owned(),
                "skill://a/SKILL.md | skill://a/SKILL.md: its frontmatter has no name or description string".to_owned(),
                "skills/list entry 4 | skills/list entry 4 has no URI string".to_owned(),
                "skills/list entry 5 | skills/list entry 5 is not an object".to_owned(),
            ]
        );
        assert_eq!(
            read[5],
            "skill://b/SKILL.md | skill://b/SKILL.md: a file listed as {\"uri\":5} is not one of its files with a SHA-256 digest"
        );
        // Past the shapes the extension names, the parser's own words.
        assert!(read[6].starts_with("skill://c/SKILL.md | skill://c/SKILL.md: invalid type"), "{}", read[6]);
        // No list of skills is no page; a cursor neither a string nor null ends the listing loudly.
        assert!(read_page_by_entry(serde_json::json!({"nextCursor": "x"}), &mut skills).is_err());
        assert!(read_page_by_entry(serde_json::json!([]), &mut skills).is_err());
        assert!(read_page_by_entry(serde_json::json!({"skills": [], "nextCursor": 7}), &mut skills).is_err());
        assert_eq!(
            read_page_by_entry(serde_json::json!({"skills": [], "nextCursor": null}), &mut skills).unwrap(),
            None
        );
    }

    /// What reading a page by entry rests on: rmcp hands a `skills/list` page with an entry
    /// its types do not read over as JSON, not as another result that would swallow it.
    #[test]
    fn rmcp_hands_a_page_it_does_not_read_over_as_json() {
        let page = serde_json::json!({
            "skills": [{"uri": "skill://invoice/SKILL.md", "frontmatter": {"name": "invoice", "description": "D."}, "resources": 42}],
            "nextCursor": "2",
        });
        assert!(matches!(serde_json::from_value::<ServerResult>(page), Ok(ServerResult::CustomResult(_))));
    }

    #[test]
    fn servers_are_commands_or_urls() {
        assert_eq!(McpServer::parse("http://127.0.0.1:3000/mcp"), McpServer::Url("http://127.0.0.1:3000/mcp".into()));
        assert_eq!(McpServer::parse("HTTPS://x/mcp"), McpServer::Url("HTTPS://x/mcp".into()));
        assert_eq!(McpServer::parse("npx -y acme-skills"), McpServer::Command("npx -y acme-skills".into()));
    }
}
