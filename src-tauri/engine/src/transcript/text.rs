//! What of a transcript is searchable: the words people wrote and read, one piece per role.
//!
//! CONTRACT (owned by the transcript developer).
//! - A user line gives its prompt text (role `user`) and each `tool_result` block's output (role
//!   `tool`, with the name of the tool that produced it and whether it failed). The result is
//!   taken from `message.content` only: Claude repeats it in `toolUseResult`, which is not read.
//!   A subagent's result is its report, without Claude Code's frame (`frames::unframe`).
//! - An assistant line gives its text and thinking (role `assistant`) and each `tool_use` block's
//!   input (role `tool`): every string value of the input (commands, paths, patterns,
//!   descriptions), not its JSON keys.
//! - Not searchable: `isMeta` user lines (caveats, command wrappers), `<synthetic>` assistant lines,
//!   compaction summaries (they repeat the conversation), lines whose `isSidechain` differs from the
//!   file's, every other line type (bookkeeping), images and other base64 payloads.
//! - A piece's text is capped at [`MAX_PIECE_BYTES`]; a tool's name is remembered from its
//!   `tool_use` for at most [`MAX_PENDING_TOOLS`] calls awaiting their results, and the extractor's
//!   memory of them can be saved and restored so that reading may resume after the last line.

use std::borrow::Cow;
use std::collections::VecDeque;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::{BlockRef, ContentRef, Envelope, MapOr, MessageRef, record};
use crate::jsonl::{self, Parsed};
use crate::model::Role;

/// A piece's text is cut (at a character boundary) past this many bytes.
pub const MAX_PIECE_BYTES: usize = 256 * 1024;
/// How many tool calls awaiting their result are remembered (for the result's tool name).
pub const MAX_PENDING_TOOLS: usize = 64;
/// A single word longer than this is a payload (base64, a hash run), not something one searches.
const MAX_WORD_BYTES: usize = 200;

/// One searchable piece of one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// The line's own `uuid` (empty when the line has none).
    pub uuid: String,
    /// Who wrote the line.
    pub role: Role,
    /// Milliseconds since the epoch, from the line's `timestamp`.
    pub time_ms: Option<i64>,
    /// For `tool` pieces: the tool's name.
    pub tool: Option<String>,
    /// For `tool` pieces: the call's id (the viewer shows call and result as one message).
    pub tool_use_id: Option<String>,
    /// For tool results: the call failed.
    pub is_error: bool,
    /// The text to index.
    pub text: String,
}

record! {
    struct TextLine<'a> {
        envelope { ty, uuid, timestamp, is_sidechain, is_meta, is_compact_summary }
        #[serde(default, borrow)]
        message: MapOr<MessageRef<'a>>,
    }
}

/// Turns lines into pieces, remembering the tool calls still waiting for their results.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextExtractor {
    /// Whether the file is a subagent's (its lines carry `isSidechain: true`).
    pub file_sidechain: bool,
    /// `(tool_use id, tool name)` of calls not yet answered, oldest first.
    pending: VecDeque<(String, String)>,
    #[serde(skip)]
    scratch: Vec<u8>,
}

impl TextExtractor {
    /// An extractor for a file whose lines are a sidechain (`file_sidechain`) or not.
    pub fn new(file_sidechain: bool) -> Self {
        Self { file_sidechain, ..Self::default() }
    }

    /// Appends the searchable pieces of one line to `out`.
    pub fn line(&mut self, bytes: &[u8], out: &mut Vec<Piece>) {
        if !jsonl::has_type_in(bytes, &["user", "assistant"]) {
            return;
        }
        // A fork's copy of the main conversation is searched in the main transcript.
        if self.file_sidechain && super::forks::is_copy(bytes) {
            return;
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        if let Parsed::Value(l) = jsonl::parse_line_with::<TextLine<'_>>(bytes, &mut scratch) {
            self.parsed(&l, out);
        }
        scratch.clear();
        self.scratch = scratch;
    }

    fn parsed(&mut self, l: &TextLine<'_>, out: &mut Vec<Piece>) {
        if l.off_file(self.file_sidechain) || l.is_meta_line() || l.is_compact_summary_line() {
            return;
        }
        let Some(message) = &l.message.0 else { return };
        let base = Piece {
            uuid: l.uuid.as_str().unwrap_or_default().to_owned(),
            role: Role::User,
            time_ms: l.timestamp.as_str().and_then(crate::time::millis),
            tool: None,
            tool_use_id: None,
            is_error: false,
            text: String::new(),
        };
        match l.ty.as_str() {
            Some("user") => self.user(&message.content, base, out),
            Some("assistant") if message.model.as_str() != Some("<synthetic>") => {
                self.assistant(&message.content, base, out);
            }
            _ => {}
        }
    }

    fn user(&mut self, content: &ContentRef<'_>, base: Piece, out: &mut Vec<Piece>) {
        let mut prompt = String::new();
        match content {
            ContentRef::Text(t) => push_text(&mut prompt, t),
            ContentRef::Blocks(blocks) => {
                for b in blocks {
                    match b.ty.as_str() {
                        Some("text") => push_text(&mut prompt, b.text.as_str().unwrap_or_default()),
                        Some("tool_result") => out.push(self.tool_result(b, &base)),
                        _ => {}
                    }
                }
            }
            ContentRef::None => {}
        }
        if !prompt.trim().is_empty() {
            out.push(Piece { text: prompt, ..base });
        }
    }

    fn tool_result(&mut self, b: &BlockRef<'_>, base: &Piece) -> Piece {
        let id = b.tool_use_id.as_str().unwrap_or_default();
        let tool =
            self.pending.iter().position(|(p, _)| p == id).and_then(|i| self.pending.remove(i));
        let mut text = String::new();
        collect_result(b.content, &mut text);
        // A subagent's report is searched, not Claude Code's frame around it.
        if let Some((_, name)) = &tool
            && let Some(u) = super::frames::unframe(name, &text)
        {
            text = if u.shown == super::frames::STARTED_IN_BACKGROUND {
                String::new()
            } else {
                u.shown
            };
        }
        Piece {
            role: Role::Tool,
            tool: tool.map(|(_, name)| name),
            tool_use_id: Some(id.to_owned()).filter(|id| !id.is_empty()),
            is_error: b.is_error.is_true(),
            text,
            ..base.clone()
        }
    }

    fn assistant(&mut self, content: &ContentRef<'_>, base: Piece, out: &mut Vec<Piece>) {
        let mut said = String::new();
        match content {
            ContentRef::Text(t) => push_text(&mut said, t),
            ContentRef::Blocks(blocks) => {
                for b in blocks {
                    match b.ty.as_str() {
                        Some("text") => push_text(&mut said, b.text.as_str().unwrap_or_default()),
                        Some("thinking") => {
                            push_text(&mut said, b.thinking.as_str().unwrap_or_default());
                        }
                        Some("tool_use") => out.push(self.tool_use(b, &base)),
                        _ => {}
                    }
                }
            }
            ContentRef::None => {}
        }
        if !said.trim().is_empty() {
            out.push(Piece { role: Role::Assistant, text: said, ..base });
        }
    }

    fn tool_use(&mut self, b: &BlockRef<'_>, base: &Piece) -> Piece {
        let name = b.name.as_str().unwrap_or_default().to_owned();
        let id = b.id.as_str().filter(|id| !id.is_empty()).map(str::to_owned);
        if let Some(id) = &id {
            if self.pending.len() == MAX_PENDING_TOOLS {
                self.pending.pop_front();
            }
            self.pending.push_back((id.clone(), name.clone()));
        }
        let mut text = String::new();
        if let Some(input) =
            b.input.and_then(|r| serde_json::from_str::<serde_json::Value>(r.get()).ok())
        {
            collect_strings(&input, &mut text);
        }
        Piece {
            role: Role::Tool,
            tool: Some(name).filter(|n| !n.is_empty()),
            tool_use_id: id,
            text,
            ..base.clone()
        }
    }
}

/// Appends `t` (and a separating newline) unless the piece is full; payload-like words are left
/// out.
fn push_text(out: &mut String, t: &str) {
    if t.is_empty() || out.len() >= MAX_PIECE_BYTES {
        return;
    }
    if !out.is_empty() {
        out.push('\n');
    }
    let room = MAX_PIECE_BYTES - out.len();
    let t = clip(t, room);
    if t.split_ascii_whitespace().any(|w| w.len() > MAX_WORD_BYTES) {
        for (i, w) in t.split_ascii_whitespace().filter(|w| w.len() <= MAX_WORD_BYTES).enumerate() {
            if i > 0 {
                out.push(' ');
            }
            out.push_str(w);
        }
    } else {
        out.push_str(t);
    }
}

/// The longest prefix of `t` of at most `max` bytes ending at a character boundary.
fn clip(t: &str, max: usize) -> &str {
    if t.len() <= max {
        return t;
    }
    let mut end = max;
    while !t.is_char_boundary(end) {
        end -= 1;
    }
    &t[..end]
}

/// Every string value in `v` (keys left out), depth first.
fn collect_strings(v: &serde_json::Value, out: &mut String) {
    match v {
        serde_json::Value::String(s) => push_text(out, s),
        serde_json::Value::Array(items) => items.iter().for_each(|i| collect_strings(i, out)),
        serde_json::Value::Object(map) => map.values().for_each(|i| collect_strings(i, out)),
        _ => {}
    }
}

/// A result block's words: a string as-is, an array's `text` parts; images and other objects are
/// left out.
fn collect_result(content: Option<&RawValue>, out: &mut String) {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Content<'a> {
        #[serde(borrow)]
        Text(Cow<'a, str>),
        Items(Vec<MapOr<BlockRef<'a>>>),
    }
    let Some(raw) = content else { return };
    match serde_json::from_str::<Content<'_>>(raw.get()) {
        Ok(Content::Text(t)) => push_text(out, &t),
        Ok(Content::Items(items)) => {
            for item in items.iter().filter_map(|i| i.0.as_ref()) {
                if item.ty.as_str() == Some("text") {
                    push_text(out, item.text.as_str().unwrap_or_default());
                }
            }
        }
        Err(_) => {}
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn a_forks_copy_of_the_main_conversation_is_not_searched_in_the_run() {
        let mut x = TextExtractor::new(true);
        let mut out = Vec::new();
        let copy = r#"{"type":"user","isSidechain":true,"uuid":"c1","forkedFrom":{"sessionId":"s","messageUuid":"m1"},"message":{"role":"user","content":"copied prompt"}}"#;
        let own = r#"{"type":"user","isSidechain":true,"uuid":"r1","message":{"role":"user","content":"own prompt about forkedFrom"}}"#;
        x.line(copy.as_bytes(), &mut out);
        x.line(own.as_bytes(), &mut out);
        let texts: Vec<&str> = out.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(texts, ["own prompt about forkedFrom"]);
    }

    fn pieces(lines: &[&str]) -> Vec<Piece> {
        let mut x = TextExtractor::new(false);
        let mut out = Vec::new();
        for l in lines {
            x.line(l.as_bytes(), &mut out);
        }
        out
    }

    #[test]
    fn tool_names_follow_their_calls_and_payloads_are_left_out() {
        let big = "A".repeat(5000);
        let out = pieces(&[
            r#"{"type":"permission-mode","permissionMode":"default"}"#,
            r#"{"type":"assistant","uuid":"a1","timestamp":"2026-11-01T10:00:00Z","message":{"content":[{"type":"text","text":"Let me look"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"grep -rn needle src","description":"Find it"}}]}}"#,
            &format!(
                r#"{{"type":"user","uuid":"u2","message":{{"content":[{{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":[{{"type":"text","text":"no match {big}"}},{{"type":"image","source":{{"data":"{big}"}}}}]}}]}},"toolUseResult":{{"stdout":"no match"}}}}"#
            ),
            r#"{"type":"user","isMeta":true,"uuid":"m","message":{"content":"<local-command-caveat>"}}"#,
        ]);
        assert_eq!(out.len(), 3, "{out:?}");
        assert_eq!(
            (out[0].role, out[0].text.as_str()),
            (Role::Tool, "grep -rn needle src\nFind it")
        );
        assert_eq!(out[0].tool.as_deref(), Some("Bash"));
        assert_eq!(out[0].tool_use_id.as_deref(), Some("t1"), "a call names its id");
        assert_eq!(out[1].role, Role::Assistant);
        assert_eq!(out[1].time_ms, Some(1_793_527_200_000));
        assert_eq!((out[2].tool.as_deref(), out[2].is_error), (Some("Bash"), true));
        assert_eq!(out[2].text, "no match");
        assert_eq!(out[2].uuid, "u2");
    }

    #[test]
    fn an_extractor_saved_between_lines_still_names_the_tool() {
        let mut x = TextExtractor::new(false);
        let mut out = Vec::new();
        x.line(
            br#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t9","name":"Read","input":{"file_path":"/a"}}]}}"#,
            &mut out,
        );
        let saved = serde_json::to_string(&x).unwrap();
        let mut y: TextExtractor = serde_json::from_str(&saved).unwrap();
        y.line(
            br#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t9","content":"hello"}]}}"#,
            &mut out,
        );
        assert_eq!(out[1].tool.as_deref(), Some("Read"));
    }
}
