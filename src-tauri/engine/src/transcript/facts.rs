//! Listing facts of a transcript, computed by an incremental scanner whose state can be saved
//! (with the byte offset reached) so an appended transcript is parsed only from where it left off.
//!
//! CONTRACT (owned by the transcript developer): see each item.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::model::Usage;

/// Bump whenever extraction changes: cached facts stamped with an older version are re-extracted
/// exactly once.
pub const EXTRACTOR_VERSION: u32 = 1;

/// What listing needs to know about one transcript.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptFacts {
    /// At least one user or assistant message (otherwise the file is not a session).
    pub has_messages: bool,
    /// Decided by the first line that carries `isSidechain`.
    pub is_sidechain: bool,
    /// First `cwd` recorded on a user/assistant line.
    pub cwd: Option<String>,
    /// Last non-empty `gitBranch`.
    pub git_branch: Option<String>,
    /// Last `version` (Claude Code version).
    pub version: Option<String>,
    /// Earliest / latest timestamp of real (non-meta, non-sidechain) user/assistant lines.
    pub first_message_at: Option<String>,
    pub last_message_at: Option<String>,
    /// User + assistant messages (streamed chunks of one `message.id` count once; meta,
    /// sidechain and synthetic lines excluded).
    pub message_count: u64,
    /// First real user prompt, cleaned, 100 chars + `…`.
    pub preview: Option<String>,
    /// Last non-empty value of each title type (`customTitle: ""` clears).
    pub custom_title: Option<String>,
    pub ai_title: Option<String>,
    pub summary: Option<String>,
    pub usage: Usage,
    /// Lines that could not be parsed.
    pub skipped_lines: u64,
}

impl TranscriptFacts {
    /// custom-title › ai-title › summary › preview.
    pub fn auto_name(&self) -> Option<String> {
        self.custom_title
            .clone()
            .or_else(|| self.ai_title.clone())
            .or_else(|| self.summary.clone())
            .or_else(|| self.preview.clone())
    }
}

/// Incremental scanner state. Serializable so it can be persisted with the byte offset reached.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FactsScanner {
    facts: TranscriptFacts,
}

impl FactsScanner {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds one complete line (without its `\n`).
    pub fn feed(&mut self, line: &[u8]) {
        let _ = line;
    }

    /// The facts as of the lines fed so far.
    pub fn facts(&self) -> TranscriptFacts {
        self.facts.clone()
    }
}

/// The result of scanning a transcript file (possibly resumed).
#[derive(Debug, Clone)]
pub struct ScanOutcome {
    pub scanner: FactsScanner,
    /// Offset just past the last complete line (resume point).
    pub offset: u64,
}

/// Scans `path` from the start, or resumes from `resume = (offset, scanner)`.
pub fn scan_file(path: &Path, resume: Option<(u64, FactsScanner)>) -> std::io::Result<ScanOutcome> {
    let _ = path;
    let (offset, scanner) = resume.unwrap_or_default();
    Ok(ScanOutcome { scanner, offset })
}
