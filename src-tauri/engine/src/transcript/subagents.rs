//! Subagent transcripts of a session: `<sid>/subagents/agent-*.jsonl` (2.1.x) and flat
//! `agent-*.jsonl` files carrying the parent's session id (2.0.x).
//!
//! CONTRACT (owned by the transcript developer).

use std::path::Path;

use crate::model::SubagentInfo;

/// Lists the subagents of the session whose main transcript is `transcript`.
pub fn list_subagents(transcript: &Path, session_id: &str) -> Vec<SubagentInfo> {
    let _ = (transcript, session_id);
    Vec::new()
}
