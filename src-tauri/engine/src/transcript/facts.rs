//! Listing facts of a transcript, computed by an incremental scanner whose state can be saved
//! (with the byte offset reached) so an appended transcript is parsed only from where it left off.
//!
//! CONTRACT (owned by the transcript developer): see each item.
//!
//! Decisions (pinned by tests in `tests/engine/transcript.rs`):
//! - A line "belongs" to the file when its `isSidechain` (absent = false) equals the file's
//!   sidechain status, which the first user/assistant line carrying `isSidechain` decides. So a
//!   main file excludes 1.0.x inline sidechain lines, and a subagent file is described by its own
//!   (sidechain) lines.
//! - `message_count` = user lines with text that are neither `isMeta` nor tool-result carriers
//!   (prompts, task notifications, command lines, compaction summaries) + distinct assistant
//!   responses (`message.id`; a line without an id counts alone). `<synthetic>` lines and
//!   tool-result lines are not counted: the viewer shows results inside their tool call.
//! - Lines that cannot matter for listing (progress, snapshots, attachments, system, …) are
//!   skipped by a byte-level pre-filter without a JSON parse; `skipped_lines` therefore counts
//!   over-long lines, non-object lines (cheap shape check) and relevant lines that failed to parse.
//! - Streamed chunks are recognised within a window of the last few response ids, so the state
//!   stays small whatever the file length.

use std::collections::VecDeque;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{ContentRef, Loose, MapOr, MessageRef, OriginRef};
use crate::jsonl::{self, LineReader, LineShape, Parsed};
use crate::model::Usage;

/// Bump whenever extraction changes: cached facts stamped with an older version are re-extracted
/// exactly once.
pub const EXTRACTOR_VERSION: u32 = 1;

/// Maximum preview length in characters (an ellipsis is appended when clipped).
pub const PREVIEW_CHARS: usize = 100;

/// What listing needs to know about one transcript.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptFacts {
    /// At least one user or assistant message (otherwise the file is not a session).
    pub has_messages: bool,
    /// Decided by the first user/assistant line that carries `isSidechain` (line 1 is often a
    /// bookkeeping record). Lines whose flag differs from the file's are then ignored.
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
    /// First real user prompt, cleaned, 100 chars + `…` (meta lines, command wrappers and
    /// other `<tag>` text, interrupt markers, task notifications, tool results and compaction
    /// summaries are skipped); when the session holds no such prompt, its first slash command
    /// (`/init`, `/model opus`).
    pub preview: Option<String>,
    /// Last non-empty value of each title type (`customTitle: ""` clears).
    pub custom_title: Option<String>,
    pub ai_title: Option<String>,
    pub summary: Option<String>,
    pub usage: Usage,
    /// Lines that could not be parsed: over-long lines, non-object lines, and user/assistant/title
    /// lines that stayed invalid after repair (other record types are not parsed for listing).
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

/// How many recent response keys are remembered to merge streamed chunks.
const RECENT_KEYS: usize = 8;

/// Token usage counted once per `(message.id, requestId)`, from the last line of each response.
/// Bounded state: only the current response and a few recent keys are kept.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageAccumulator {
    committed_output: u64,
    current_key: Option<String>,
    current_output: u64,
    recent_keys: VecDeque<String>,
    turn_count: u64,
    input_tokens: u64,
    model: Option<String>,
}

impl UsageAccumulator {
    /// Records one non-synthetic assistant line. Returns true when it starts a new response.
    pub(crate) fn add(
        &mut self,
        id: Option<&str>,
        request_id: Option<&str>,
        model: Option<&str>,
        usage: Option<&super::UsageRef<'_>>,
    ) -> bool {
        if let Some(m) = model.filter(|m| !m.is_empty() && *m != "<synthetic>") {
            self.model = Some(m.to_owned());
        }
        let out = usage.map(|u| u.output_tokens.as_u64());
        if let Some(u) = usage {
            self.input_tokens = u.context_tokens();
        }
        let Some(id) = id else {
            self.commit();
            self.turn_count += 1;
            self.committed_output = self.committed_output.saturating_add(out.unwrap_or(0));
            return true;
        };
        let key = format!("{id}\u{1f}{}", request_id.unwrap_or(""));
        if self.current_key.as_deref() == Some(key.as_str()) {
            if let Some(o) = out {
                self.current_output = o;
            }
            return false;
        }
        if self.recent_keys.contains(&key) {
            // A chunk of an earlier response after another one started: already counted.
            return false;
        }
        self.commit();
        self.current_key = Some(key.clone());
        self.current_output = out.unwrap_or(0);
        self.turn_count += 1;
        self.recent_keys.push_back(key);
        while self.recent_keys.len() > RECENT_KEYS {
            self.recent_keys.pop_front();
        }
        true
    }

    fn commit(&mut self) {
        self.committed_output = self.committed_output.saturating_add(self.current_output);
        self.current_output = 0;
        self.current_key = None;
    }

    /// The usage so far.
    pub fn usage(&self) -> Usage {
        Usage {
            input_tokens: self.input_tokens,
            output_tokens: self.committed_output.saturating_add(self.current_output),
            turn_count: self.turn_count,
            model: self.model.clone(),
        }
    }
}

/// Incremental scanner state. Serializable so it can be persisted with the byte offset reached.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FactsScanner {
    facts: TranscriptFacts,
    sidechain_decided: bool,
    first_ms: Option<i64>,
    last_ms: Option<i64>,
    usage: UsageAccumulator,
    /// `/command args` of the first slash command, shown when no typed prompt exists.
    #[serde(default)]
    command_fallback: Option<String>,
}

/// Top-level types the facts scanner looks at; every other line is skipped unparsed.
const FACT_TYPES: &[&str] = &["user", "assistant", "summary", "custom-title", "ai-title"];

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FactLine<'a> {
    #[serde(rename = "type", default, borrow)]
    ty: Loose<'a>,
    #[serde(default, borrow)]
    is_sidechain: Loose<'a>,
    #[serde(default, borrow)]
    is_meta: Loose<'a>,
    #[serde(default, borrow)]
    is_compact_summary: Loose<'a>,
    #[serde(default, borrow)]
    cwd: Loose<'a>,
    #[serde(default, borrow)]
    git_branch: Loose<'a>,
    #[serde(default, borrow)]
    version: Loose<'a>,
    #[serde(default, borrow)]
    timestamp: Loose<'a>,
    #[serde(default, borrow)]
    origin: MapOr<OriginRef<'a>>,
    #[serde(default, borrow)]
    message: MapOr<MessageRef<'a>>,
    #[serde(default, borrow)]
    request_id: Loose<'a>,
    #[serde(default, borrow)]
    custom_title: Loose<'a>,
    #[serde(default, borrow)]
    ai_title: Loose<'a>,
    #[serde(default, borrow)]
    summary: Loose<'a>,
}

impl FactsScanner {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds one complete line (without its `\n`).
    pub fn feed(&mut self, line: &[u8]) {
        match jsonl::quick_shape(line) {
            LineShape::Blank => return,
            LineShape::Malformed => {
                self.facts.skipped_lines += 1;
                return;
            }
            LineShape::ObjectLike => {}
        }
        if !jsonl::has_type_in(line, FACT_TYPES) {
            return;
        }
        let mut scratch = Vec::new();
        let l = match jsonl::parse_line_with::<FactLine<'_>>(line, &mut scratch) {
            Parsed::Value(l) => l,
            Parsed::Blank => return,
            Parsed::Invalid => {
                self.facts.skipped_lines += 1;
                return;
            }
        };
        match l.ty.as_str() {
            Some("summary") => {
                if let Some(s) = non_empty(&l.summary) {
                    self.facts.summary = Some(s);
                }
            }
            Some("custom-title") => {
                if let Some(s) = l.custom_title.as_str() {
                    self.facts.custom_title =
                        if s.trim().is_empty() { None } else { Some(s.to_owned()) };
                }
            }
            Some("ai-title") => {
                if let Some(s) = non_empty(&l.ai_title) {
                    self.facts.ai_title = Some(s);
                }
            }
            Some(role @ ("user" | "assistant")) => self.message_line(role == "user", &l),
            _ => {}
        }
    }

    /// Records lines that were skipped outside [`FactsScanner::feed`] (over-long lines).
    pub fn add_skipped(&mut self, n: u64) {
        self.facts.skipped_lines = self.facts.skipped_lines.saturating_add(n);
    }

    fn message_line(&mut self, is_user: bool, l: &FactLine<'_>) {
        let side = l.is_sidechain.as_bool();
        if !self.sidechain_decided
            && let Some(b) = side
        {
            self.facts.is_sidechain = b;
            self.sidechain_decided = true;
        }
        self.facts.has_messages = true;
        if side.unwrap_or(false) != self.facts.is_sidechain {
            return;
        }
        if self.facts.cwd.is_none()
            && let Some(c) = non_empty(&l.cwd)
        {
            self.facts.cwd = Some(c);
        }
        if let Some(v) = non_empty(&l.version) {
            self.facts.version = Some(v);
        }
        if let Some(b) = non_empty(&l.git_branch) {
            self.facts.git_branch = Some(b);
        }
        let meta = l.is_meta.is_true();
        let empty = MessageRef::default();
        let msg = l.message.0.as_ref().unwrap_or(&empty);
        if is_user {
            let content = &msg.content;
            let tool_result = super::has_tool_result(content);
            if !meta {
                self.note_time(&l.timestamp);
            }
            if meta || tool_result {
                return;
            }
            let text = super::user_text(content);
            if text.trim().is_empty() {
                return;
            }
            self.facts.message_count += 1;
            let kind = l.origin.0.as_ref().and_then(|o| o.kind.as_str());
            if self.facts.preview.is_none()
                && kind != Some("task-notification")
                && !l.is_compact_summary.is_true()
            {
                self.facts.preview = first_preview(content);
                if self.facts.preview.is_none() && self.command_fallback.is_none() {
                    self.command_fallback = command_of(&text);
                }
            }
        } else {
            let model = msg.model.as_str();
            if model == Some("<synthetic>") {
                return;
            }
            if !meta {
                self.note_time(&l.timestamp);
            }
            let usage = msg.usage.0.as_ref();
            if self.usage.add(msg.id.as_str(), l.request_id.as_str(), model, usage) {
                self.facts.message_count += 1;
            }
        }
    }

    fn note_time(&mut self, ts: &Loose<'_>) {
        let Some(s) = ts.as_str() else { return };
        let Ok(t) = chrono::DateTime::parse_from_rfc3339(s) else { return };
        let ms = t.timestamp_millis();
        if self.first_ms.is_none_or(|f| ms < f) {
            self.first_ms = Some(ms);
            self.facts.first_message_at = Some(s.to_owned());
        }
        if self.last_ms.is_none_or(|l| ms > l) {
            self.last_ms = Some(ms);
            self.facts.last_message_at = Some(s.to_owned());
        }
    }

    /// The facts as of the lines fed so far.
    pub fn facts(&self) -> TranscriptFacts {
        let mut f = self.facts.clone();
        f.usage = self.usage.usage();
        if f.preview.is_none() {
            f.preview.clone_from(&self.command_fallback);
        }
        f
    }
}

/// The preview of a user message: its string content, or its first text block that qualifies
/// (IDE context blocks such as `<ide_opened_file>` come before the typed text).
fn first_preview(content: &ContentRef<'_>) -> Option<String> {
    match content {
        ContentRef::Text(s) => preview_of(s),
        ContentRef::Blocks(blocks) => blocks
            .iter()
            .filter(|b| b.ty.as_str() == Some("text"))
            .filter_map(|b| b.text.as_str())
            .find_map(preview_of),
        ContentRef::None => None,
    }
}

fn tag_body<'t>(text: &'t str, tag: &str) -> Option<&'t str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = text.find(&open)? + open.len();
    let rest = text.get(start..)?;
    let end = rest.find(&close)?;
    rest.get(..end).map(str::trim)
}

/// `/name args` of a slash-command wrapper line (`<command-name>/name</command-name>` …).
fn command_of(text: &str) -> Option<String> {
    let name = tag_body(text, "command-name").filter(|n| !n.is_empty())?;
    let line = match tag_body(text, "command-args").filter(|a| !a.is_empty()) {
        Some(args) => format!("{name} {args}"),
        None => name.to_owned(),
    };
    preview_of(&line)
}

fn non_empty(v: &Loose<'_>) -> Option<String> {
    v.as_str().filter(|s| !s.trim().is_empty()).map(str::to_owned)
}

/// The preview of a user prompt, or `None` when the text is not a typed prompt: command
/// wrappers and injected tags (`<command-name>`, `<local-command-stdout>`, `<bash-input>`,
/// `<system-reminder>`, … — any text starting with a lowercase tag) and interrupt markers.
/// Whitespace is collapsed; the result is clipped to [`PREVIEW_CHARS`] characters + `…`.
pub fn preview_of(text: &str) -> Option<String> {
    let t = text.trim_start();
    let mut chars = t.chars();
    if chars.next() == Some('<') && chars.next().is_some_and(|c| c.is_ascii_lowercase()) {
        return None;
    }
    if t.starts_with("[Request interrupted by user") {
        return None;
    }
    let collapsed = t.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.is_empty() {
        return None;
    }
    if collapsed.chars().count() > PREVIEW_CHARS {
        let mut s: String = collapsed.chars().take(PREVIEW_CHARS).collect();
        s.push('…');
        Some(s)
    } else {
        Some(collapsed)
    }
}

/// The result of scanning a transcript file (possibly resumed).
#[derive(Debug, Clone)]
pub struct ScanOutcome {
    pub scanner: FactsScanner,
    /// Offset just past the last complete line (resume point).
    pub offset: u64,
}

/// Scans `path` from the start, or resumes from `resume = (offset, scanner)`. When the file is now
/// shorter than the resume offset (rewritten or truncated), it is scanned again from the start.
pub fn scan_file(path: &Path, resume: Option<(u64, FactsScanner)>) -> std::io::Result<ScanOutcome> {
    let len = std::fs::metadata(path)?.len();
    let (offset, mut scanner) = match resume {
        Some((o, s)) if o <= len => (o, s),
        _ => (0, FactsScanner::new()),
    };
    let mut reader = LineReader::new(super::open_at(path, offset)?, offset);
    while let Some(line) = reader.next_line()? {
        scanner.feed(line.bytes);
    }
    scanner.add_skipped(reader.oversized_lines());
    Ok(ScanOutcome { offset: reader.complete_offset(), scanner })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn preview_rules() {
        assert_eq!(preview_of("<command-name>/clear</command-name>"), None);
        assert_eq!(preview_of("  hello \n  world "), Some("hello world".into()));
        assert_eq!(preview_of("[Request interrupted by user]"), None);
        assert_eq!(preview_of("<Tag> is fine"), Some("<Tag> is fine".into()));
        let long = "x".repeat(150);
        assert_eq!(preview_of(&long).unwrap().chars().count(), 101);
    }
}
