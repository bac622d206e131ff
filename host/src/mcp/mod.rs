//! `skillwire mcp`: the skills of a folder served over the Model Context Protocol (stdio,
//! or streamable HTTP on the loopback interface: [`http`]), built on the official Rust SDK
//! (`rmcp`). What is served is in [`server`]; the engine
//! runs on a thread of its own ([`engine`]); the skills extension's manifests and URIs are
//! in [`skills`]; `--watch` is [`watch`]. The other way round, [`McpSource`] reads the
//! skills another MCP server serves, as a skill source.
//!
//! The skills extension follows SEP-2640 (`io.modelcontextprotocol/skills`) as rmcp 3.11
//! models it: the accepted draft (Final, September 2026) against protocol revision
//! 2026-07-28; clients on older revisions get the same methods without the caching fields.

mod engine;
mod group;
mod http;
mod server;
mod skills;
mod source;
mod watch;

pub use group::kill_servers_on_signals;
pub use source::{McpServer, McpSource, MCP_TIMEOUT};

use crate::Backend;
use skillwire::Limits;
use std::path::PathBuf;
use std::time::Duration;

/// Most bytes a skill's instructions take when the server loads them (`load_skill` and
/// prompts; `skillwire mcp --budget`): 64 KiB. The model or the user asked for that one
/// skill, so it comes whole where it reasonably can — every SKILL.md of the 250 in the
/// project's corpus but one (74 KB; the largest 10% are over 23 KB), where a turn's
/// default of 8 KiB cut 179 of them — and, for most text, stays under the 25,000 tokens
/// Claude Code keeps of a tool's result by default. A skill cut to fit says where the
/// whole file is.
pub const LOAD_BUDGET: usize = 64 * 1024;

/// Polling the skills folders for changes (`--watch`).
#[derive(Debug, Clone)]
pub struct Watch {
    /// The folders (the `--skills` paths).
    pub roots: Vec<PathBuf>,
    /// How long between two looks.
    pub interval: Duration,
}

/// Where the server speaks MCP.
#[derive(Debug, Clone, Copy)]
pub enum Transport {
    /// Standard input and output: one client, which started the server.
    Stdio,
    /// Streamable HTTP at `http://127.0.0.1:PORT/mcp` (loopback only; port 0 picks a free
    /// one): any number of clients, each in a session of its own.
    Http {
        /// The port.
        port: u16,
    },
}

/// Serves the engine `make` builds over `transport` until the client closes standard
/// input (stdio) or the process is stopped (HTTP). The engine is built before the first
/// request is read; its error (no skills folder, a component that cannot start) is
/// returned. With `watch`, each change to the folders is taken into the engine's
/// catalogue (see `watch.rs`: a deleted or settled edited SKILL.md on its own, else a
/// refresh that reads only the SKILL.md files that changed), and the clients are notified.
pub fn serve(
    make: impl FnOnce() -> Result<Box<dyn Backend>, String> + Send + 'static,
    limits: Limits,
    transport: Transport,
    watch: Option<Watch>,
) -> Result<(), String> {
    // Taken before the engine reads the skills, so no change made after it goes unseen.
    let baseline = watch.as_ref().map(|w| (watch::fingerprint(&w.roots), watch::listings(&w.roots)));
    let engine = engine::EngineThread::start(make)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("could not start the async runtime: {e}"))?;
    runtime.block_on(async move {
        let server = server::SkillServer::new(engine, limits).await?;
        if let (Some(Watch { roots, interval }), Some((look, listed))) = (watch, baseline) {
            tokio::spawn(watch::watch(server.clone(), roots, interval, look, listed));
        }
        match transport {
            Transport::Stdio => {
                let running = rmcp::serve_server(server, rmcp::transport::stdio())
                    .await
                    .map_err(|e| format!("the MCP session did not start: {e}"))?;
                running.waiting().await.map_err(|e| format!("the MCP session ended with an error: {e}"))?;
            }
            Transport::Http { port } => http::serve(server, port).await?,
        }
        Ok(())
    })
}
