//! A turn's decisions in words, as the CLI's `--verbose` and the MCP server tell them.

use skillwire::Decision;

/// Why a turn did not inject a candidate, or injected only part of it: the skip's name and
/// its detail (`gated: requires github`), or that the budget cut it. `None` when the
/// candidate was injected whole.
pub fn not_injected(decision: &Decision) -> Option<String> {
    let detail = decision.detail.as_deref().map(|d| format!(": {d}")).unwrap_or_default();
    match decision.skipped {
        Some(skip) => {
            let name = serde_json::to_value(skip).ok();
            let name = name.as_ref().and_then(serde_json::Value::as_str).unwrap_or("not injected");
            Some(format!("{name}{detail}"))
        }
        None if decision.truncated => Some(format!("cut to fit the budget ({} bytes)", decision.injected_bytes)),
        None => None,
    }
}
