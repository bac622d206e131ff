//! `skillwire mcp --http PORT`: the same server over MCP's streamable HTTP transport, on
//! the loopback interface only (`127.0.0.1`; rmcp also refuses requests whose `Host` is not
//! a loopback name, against DNS rebinding, and a browser page's `Origin` that is not a
//! loopback one). Each client gets a session of its own (idle sessions end after rmcp's
//! 300 s); every session shares the one engine, catalogue and allow/deny lists.

use super::server::SkillServer;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::sync::Arc;

/// The origins a browser page may call the server from.
const LOOPBACK_ORIGINS: [&str; 3] = ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"];

/// Serves `server` at `http://127.0.0.1:PORT/mcp` until the process stops; says where on
/// standard error (with the port the system chose when `port` is 0).
pub(crate) async fn serve(server: SkillServer, port: u16) -> Result<(), String> {
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        // Browsers' pages may reach it only from loopback origins (no page of a remote site).
        StreamableHttpServerConfig::default().with_allowed_origins(LOOPBACK_ORIGINS),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .map_err(|e| format!("could not listen on 127.0.0.1:{port}: {e}"))?;
    let address = listener.local_addr().map_err(|e| format!("could not read the listening address: {e}"))?;
    eprintln!("skillwire mcp: listening on http://{address}/mcp");
    axum::serve(listener, router).await.map_err(|e| format!("the HTTP server stopped: {e}"))
}
