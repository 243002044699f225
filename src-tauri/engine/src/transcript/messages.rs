//! Viewer messages: user / assistant / tool messages in order, streamed chunks merged, tool calls
//! paired with results, served whole or by pages from the end.
//!
//! CONTRACT (owned by the transcript developer).

use std::path::Path;

use crate::model::{MessagePage, SessionTranscript, Usage};

/// Reads the whole transcript (CLI `show`).
pub fn read_transcript(
    path: &Path,
    session_id: &str,
    working_directory: &str,
) -> std::io::Result<SessionTranscript> {
    let _ = path;
    Ok(SessionTranscript {
        session_id: session_id.to_owned(),
        working_directory: working_directory.to_owned(),
        messages: Vec::new(),
        usage: Usage::default(),
        subagents: Vec::new(),
        skipped_lines: 0,
    })
}

/// Reads about `limit` messages ending just before byte offset `before` (or at the end of the
/// file), reading backwards so the newest page of a huge file is cheap.
pub fn read_page(path: &Path, before: Option<u64>, limit: usize) -> std::io::Result<MessagePage> {
    let _ = (path, before, limit);
    Ok(MessagePage { messages: Vec::new(), earlier_cursor: None, size_bytes: 0 })
}
