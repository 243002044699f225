//! Viewer messages: user / assistant / tool messages in order, streamed chunks merged, tool calls
//! paired with results, served whole or by pages from the end.
//!
//! Here: the rules that turn lines into messages (the builder). `whole` reads a transcript at
//! once or streamed in pieces; `pages` reads it by pages.
//!
//! CONTRACT (owned by the transcript developer).
//!
//! Rules (pinned by tests in `tests/engine/transcript.rs`):
//! - Assistant lines sharing `message.id` are merged into one message (text and thinking joined
//!   with a blank line, in file order) even when tool-result lines sit between the chunks. The
//!   message's `uuid` is that of its first line carrying text or thinking; assistant messages left
//!   with no text and no thinking text are dropped (their tool calls stay).
//! - Every `tool_use` becomes a `role: tool` message at its position, pending until its result
//!   arrives, then upgraded in place (output, error, duration = result − use when ≥ 0, subagent id
//!   from `toolUseResult.agentId`). Its `uuid` is the tool_use line's uuid; when that line holds
//!   more than one content block it is `<line uuid>:<tool_use_id>` so keys stay unique. A result
//!   without a known tool_use is an orphan tool message keyed by its own line uuid. An empty
//!   result still resolves the call.
//! - Skipped: `isMeta` user lines (caveats, skill bodies) except hook feedback, `<synthetic>`
//!   assistant lines, lines whose `isSidechain` differs from the file's (inline 1.0.x subagent
//!   lines in a main file), and every type other than user / assistant / queue-operation /
//!   `system` `local_command` (a slash command and its output, shown as the person's). Task
//!   notifications stay, tagged `origin_kind`; compaction summaries are tagged `compact-summary`;
//!   an `isMeta` line that is a hook's feedback ("Stop hook feedback: …", what made Claude go on)
//!   stays, tagged `hook`.
//! - queue-operation: `dequeue` consumes the oldest pending `enqueue` (the normal user line
//!   that follows shows the prompt once); `remove`/`popAll`/`clear` drop it; an enqueue left
//!   pending is shown as a user message (`origin_kind: "queued"`) at its position unless a later
//!   user message in the same read has the same text.
//! - Pages ([`read_page`]) start at a user prompt line whenever possible, so merges and tool
//!   pairing never straddle two pages and pages concatenated equal [`read_transcript`]. Known
//!   limits: a tool result written after the next prompt, or a pending enqueue matched by text
//!   only in a later page, resolve in the whole read but not across pages.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use serde::Deserialize;
use serde_json::value::RawValue;

pub use super::Lines;
use super::facts::UsageAccumulator;
use super::{BlockRef, ContentRef, Loose, MapOr, MessageRef, raw_as};
use super::{Envelope, record};
use crate::jsonl::{self, LineReader, LineShape, Parsed};
use crate::model::{
    MessagePage, Role, SessionTranscript, ToolCall, ToolForm, TranscriptMessage, Usage,
};

/// Tool inputs are shown as pretty JSON clipped to this many bytes.
pub const INPUT_CLIP_BYTES: usize = 64 * 1024;
/// Tool outputs are clipped to this many bytes (`output_truncated` is then set).
pub const OUTPUT_CLIP_BYTES: usize = 256 * 1024;

/// The `origin.kind` of a prompt the person typed.
const TYPED_ORIGIN: &str = "human";

pub(crate) const MESSAGE_TYPES: &[&str] = &["user", "assistant", "queue-operation", "system"];

/// The `system` lines that are shown: a slash command the person ran and its output (2.1.x
/// writes `/rename x`, `/model` … as `system`/`local_command`; older versions as user lines).
const LOCAL_COMMAND: &str = "local_command";

mod pages;
mod probe;
mod whole;
pub use pages::{
    call_line_before, read_lines, read_page, read_page_after, read_page_after_in, read_page_around,
    read_page_around_in, read_page_in,
};
use probe::Scope;
pub use whole::{
    STREAM_PIECE_BYTES, StreamSummary, read_subagent, read_transcript, read_transcript_in,
    stream_transcript,
};

record! {
    struct MsgLine<'a> {
        envelope { ty, uuid, timestamp, is_sidechain, is_meta, is_compact_summary, origin }
        #[serde(default, borrow)]
        subtype: Loose<'a>,
        #[serde(default, borrow)]
        version: Loose<'a>,
        #[serde(default, borrow)]
        message: MapOr<MessageRef<'a>>,
        #[serde(default, borrow)]
        request_id: Loose<'a>,
        #[serde(default, borrow)]
        tool_use_result: MapOr<AgentRef<'a>>,
        #[serde(default, borrow)]
        operation: Loose<'a>,
        #[serde(default, borrow)]
        content: ContentRef<'a>,
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AgentRef<'a> {
    #[serde(default, borrow)]
    agent_id: Loose<'a>,
    /// AskUserQuestion's answers, by question.
    #[serde(default, borrow)]
    answers: Option<&'a RawValue>,
}

struct ToolSlot {
    index: usize,
    used_at_ms: Option<i64>,
}

fn ts_ms(ts: Option<&str>) -> Option<i64> {
    crate::time::millis(ts?)
}

fn owned(v: &Loose<'_>) -> Option<String> {
    v.as_str().map(str::to_owned)
}

/// The person's message (or one Claude Code put in their place, `origin_kind`) of line `l`.
fn user_message(
    l: &MsgLine<'_>,
    offset: u64,
    content: String,
    origin_kind: Option<String>,
    attachments: Vec<crate::model::Attachment>,
) -> TranscriptMessage {
    TranscriptMessage {
        role: Role::User,
        content,
        uuid: owned(&l.uuid),
        timestamp: owned(&l.timestamp),
        thinking: None,
        tool_call: None,
        origin_kind,
        offset,
        attachments,
    }
}

/// Builds viewer messages from the lines of (a byte range of) one transcript.
pub(crate) struct Builder {
    file_sidechain: bool,
    lines: Lines,
    messages: Vec<Option<TranscriptMessage>>,
    assistant_by_id: HashMap<String, usize>,
    /// Assistant messages whose uuid came from a text/thinking line.
    assistant_has_uuid: Vec<bool>,
    tools: HashMap<String, ToolSlot>,
    enqueues: VecDeque<usize>,
    usage: UsageAccumulator,
    skipped: u64,
}

impl Builder {
    /// A builder that skips the lines `lines` does not keep.
    pub(crate) fn showing(file_sidechain: bool, lines: Lines) -> Self {
        Self {
            file_sidechain,
            lines,
            messages: Vec::new(),
            assistant_by_id: HashMap::new(),
            assistant_has_uuid: Vec::new(),
            tools: HashMap::new(),
            enqueues: VecDeque::new(),
            usage: UsageAccumulator::default(),
            skipped: 0,
        }
    }

    fn push(&mut self, m: TranscriptMessage) -> usize {
        self.messages.push(Some(m));
        self.assistant_has_uuid.push(false);
        self.messages.len() - 1
    }

    fn slot(&mut self, i: usize) -> Option<&mut TranscriptMessage> {
        self.messages.get_mut(i).and_then(Option::as_mut)
    }

    /// Feeds one complete line.
    pub(crate) fn line(&mut self, offset: u64, bytes: &[u8]) {
        if !self.lines.keeps(offset) {
            return;
        }
        match jsonl::quick_shape(bytes) {
            LineShape::Blank => return,
            LineShape::Malformed => {
                self.skipped += 1;
                return;
            }
            LineShape::ObjectLike => {}
        }
        if !jsonl::has_type_in(bytes, MESSAGE_TYPES) {
            return;
        }
        let mut scratch = Vec::new();
        let l = match jsonl::parse_line_with::<MsgLine<'_>>(bytes, &mut scratch) {
            Parsed::Value(l) => l,
            Parsed::Blank => return,
            Parsed::Invalid => {
                self.skipped += 1;
                return;
            }
        };
        match l.ty.as_str() {
            Some("queue-operation") => self.queue(&l, offset),
            Some("system")
                if l.subtype.as_str() == Some(LOCAL_COMMAND)
                    && !l.off_file(self.file_sidechain) =>
            {
                self.local_command(&l, offset);
            }
            Some(t @ ("user" | "assistant")) => {
                if l.off_file(self.file_sidechain) {
                    return;
                }
                if t == "user" {
                    self.user(&l, offset);
                } else {
                    self.assistant(&l, offset);
                }
            }
            _ => {}
        }
    }

    /// Feeds an unterminated last line only if it is a complete record (else drops it silently).
    pub(crate) fn tail(&mut self, offset: u64, bytes: &[u8]) {
        if jsonl::quick_shape(bytes) == LineShape::ObjectLike
            && serde_json::from_slice::<&RawValue>(jsonl::trim_line(bytes)).is_ok()
        {
            self.line(offset, bytes);
        }
    }

    /// A `system`/`local_command` line: the slash command (`<command-name>…`) or its output
    /// (`<local-command-stdout>…`), shown as the person's, as the user lines older versions wrote
    /// are (2.1.38 wrote some commands one way and some the other, in one session).
    fn local_command(&mut self, l: &MsgLine<'_>, offset: u64) {
        let text = super::user_text(&l.content);
        if text.trim().is_empty() {
            return;
        }
        self.push(user_message(l, offset, text, None, Vec::new()));
    }

    fn queue(&mut self, l: &MsgLine<'_>, offset: u64) {
        match l.operation.as_str() {
            Some("enqueue") => {
                let text = super::user_text(&l.content);
                if text.trim().is_empty() {
                    return;
                }
                let i = self.push(TranscriptMessage {
                    role: Role::User,
                    content: text,
                    uuid: None,
                    timestamp: owned(&l.timestamp),
                    thinking: None,
                    tool_call: None,
                    origin_kind: Some("queued".to_owned()),
                    offset,
                    attachments: Vec::new(),
                });
                self.enqueues.push_back(i);
            }
            Some("dequeue") => {
                if let Some(i) = self.enqueues.pop_front()
                    && let Some(m) = self.messages.get_mut(i)
                {
                    *m = None;
                }
            }
            Some("remove") => {
                let text = super::user_text(&l.content);
                let pos = self
                    .enqueues
                    .iter()
                    .position(|&i| {
                        self.messages
                            .get(i)
                            .and_then(Option::as_ref)
                            .is_some_and(|m| m.content.trim() == text.trim())
                    })
                    .or_else(|| self.enqueues.len().checked_sub(1));
                if let Some(p) = pos
                    && let Some(i) = self.enqueues.remove(p)
                    && let Some(m) = self.messages.get_mut(i)
                {
                    *m = None;
                }
            }
            Some("popAll" | "clear") => {
                while let Some(i) = self.enqueues.pop_front() {
                    if let Some(m) = self.messages.get_mut(i) {
                        *m = None;
                    }
                }
            }
            _ => {}
        }
    }

    fn user(&mut self, l: &MsgLine<'_>, offset: u64) {
        let Some(msg) = l.message.0.as_ref() else { return };
        let content = &msg.content;
        let mut text = super::user_text(content);
        let (origin_kind, attachments) = if l.is_meta_line() {
            // Of the lines Claude Code marks as not typed, only a hook's feedback is shown, and
            // no more of it than of a tool's output (a hook may hand Claude megabytes).
            if !is_hook_feedback(&text) {
                return;
            }
            if super::clip(&mut text, OUTPUT_CLIP_BYTES) {
                text.push_str(" …");
            }
            (Some("hook".to_owned()), Vec::new())
        } else {
            if let ContentRef::Blocks(blocks) = content {
                for b in blocks.iter().filter(|b| b.ty.as_str() == Some("tool_result")) {
                    self.tool_result(b, l, offset);
                }
            }
            let attachments = super::attachments::describe(content, offset);
            if text.trim().is_empty() && attachments.is_empty() {
                return;
            }
            // Claude Code 2.1.x marks what the person typed `origin: {kind: "human"}` (seen
            // with the real client, `tests/conformance`): that is no injection.
            let origin_kind = l
                .origin
                .0
                .as_ref()
                .and_then(|o| owned(&o.kind))
                .filter(|kind| kind != TYPED_ORIGIN)
                .or_else(|| l.is_compact_summary_line().then(|| "compact-summary".to_owned()));
            if origin_kind.is_none()
                && let Some(joined) =
                    super::frames::without_continuations(l.version.as_str(), &text)
            {
                text = joined;
            }
            (origin_kind, attachments)
        };
        self.push(user_message(l, offset, text, origin_kind, attachments));
    }

    fn tool_result(&mut self, b: &BlockRef<'_>, l: &MsgLine<'_>, offset: u64) {
        let id = b.tool_use_id.as_str();
        let value: Option<serde_json::Value> = raw_as(b.content);
        let mut output = super::tools::result_text(value.as_ref());
        let is_error = b.is_error.is_true();
        let rejected = is_error && super::tools::is_rejection(&output);
        super::tools::strip_error_tags(&mut output);
        let truncated = super::clip(&mut output, OUTPUT_CLIP_BYTES);
        let agent = l.tool_use_result.0.as_ref().and_then(|a| owned(&a.agent_id));
        let result_ms = ts_ms(l.timestamp.as_str());
        let timestamp = owned(&l.timestamp);
        if let Some(slot) = id.and_then(|i| self.tools.get(i)) {
            let (index, used) = (slot.index, slot.used_at_ms);
            if let Some(m) = self.slot(index)
                && let Some(call) = m.tool_call.as_mut()
                && call.pending
            {
                if let Some(u) = super::frames::unframe(&call.tool_name, &output) {
                    call.output_details = Some(u.details);
                    output = u.shown;
                }
                if let Some(ToolForm::Questions { items }) = call.form.as_mut() {
                    let recorded = l.tool_use_result.0.as_ref().and_then(|a| a.answers);
                    super::frames::answer(items, raw_as(recorded).as_ref(), &output);
                }
                call.output = output;
                call.output_truncated = truncated;
                call.is_error = is_error;
                call.rejected = rejected;
                call.pending = false;
                call.duration_ms = match (used, result_ms) {
                    (Some(u), Some(r)) if r >= u => u64::try_from(r - u).ok(),
                    _ => None,
                };
                if agent.is_some() {
                    call.subagent_id = agent;
                }
                if timestamp.is_some() {
                    m.timestamp = timestamp;
                }
            }
            return;
        }
        self.push(TranscriptMessage {
            role: Role::Tool,
            content: String::new(),
            uuid: owned(&l.uuid),
            timestamp,
            thinking: None,
            tool_call: Some(ToolCall {
                tool_name: "unknown".to_owned(),
                tool_use_id: id.map(str::to_owned),
                emoji: super::tools::emoji("").to_owned(),
                input_summary: None,
                input: None,
                output,
                output_truncated: truncated,
                is_error,
                duration_ms: None,
                pending: false,
                subagent_id: agent,
                subagent_missing: false,
                form: None,
                rejected,
                output_details: None,
            }),
            origin_kind: None,
            offset,
            attachments: Vec::new(),
        });
    }

    fn assistant(&mut self, l: &MsgLine<'_>, offset: u64) {
        let Some(msg) = l.message.0.as_ref() else { return };
        let model = msg.model.as_str();
        if model == Some("<synthetic>") {
            return;
        }
        // The viewer's header counts tokens; what they cost is the listing's (no day needed).
        self.usage.add(msg.id.as_str(), l.request_id.as_str(), model, None, msg.usage.0.as_ref());
        let new_message = |l: &MsgLine<'_>| TranscriptMessage {
            role: Role::Assistant,
            content: String::new(),
            uuid: None,
            timestamp: owned(&l.timestamp),
            thinking: None,
            tool_call: None,
            origin_kind: None,
            offset,
            attachments: Vec::new(),
        };
        let idx = match msg.id.as_str() {
            Some(id) => match self.assistant_by_id.get(id) {
                Some(&i) => i,
                None => {
                    let i = self.push(new_message(l));
                    self.assistant_by_id.insert(id.to_owned(), i);
                    i
                }
            },
            None => self.push(new_message(l)),
        };
        let text_block;
        let blocks: &[BlockRef<'_>] = match &msg.content {
            ContentRef::Blocks(b) => b,
            ContentRef::Text(t) => {
                text_block = [BlockRef {
                    ty: Loose::Str("text".into()),
                    text: Loose::Str(t.clone()),
                    ..Default::default()
                }];
                &text_block
            }
            ContentRef::None => &[],
        };
        let line_uuid = owned(&l.uuid);
        let several = blocks.len() > 1;
        for b in blocks {
            match b.ty.as_str() {
                Some("text") => {
                    let Some(t) = b.text.as_str() else { continue };
                    self.append(idx, line_uuid.as_deref(), Some(t), None);
                }
                Some("thinking") => {
                    let t = b.thinking.as_str().unwrap_or("");
                    self.append(idx, line_uuid.as_deref(), None, Some(t));
                }
                Some("redacted_thinking") => self.append(idx, line_uuid.as_deref(), None, Some("")),
                Some("tool_use") => {
                    self.tool_use(b, l, offset, line_uuid.as_deref(), several);
                }
                _ => {}
            }
        }
    }

    fn append(
        &mut self,
        idx: usize,
        uuid: Option<&str>,
        text: Option<&str>,
        thinking: Option<&str>,
    ) {
        let needs_uuid = !self.assistant_has_uuid.get(idx).copied().unwrap_or(true);
        if needs_uuid && let Some(flag) = self.assistant_has_uuid.get_mut(idx) {
            *flag = true;
        }
        let Some(m) = self.slot(idx) else { return };
        if needs_uuid {
            m.uuid = uuid.map(str::to_owned);
        }
        if let Some(t) = text.filter(|t| !t.trim().is_empty()) {
            if !m.content.is_empty() {
                m.content.push_str("\n\n");
            }
            m.content.push_str(t);
        }
        if let Some(t) = thinking {
            match m.thinking.as_mut() {
                Some(existing) if !t.is_empty() => {
                    if !existing.is_empty() {
                        existing.push_str("\n\n");
                    }
                    existing.push_str(t);
                }
                Some(_) => {}
                None => m.thinking = Some(t.to_owned()),
            }
        }
    }

    fn tool_use(
        &mut self,
        b: &BlockRef<'_>,
        l: &MsgLine<'_>,
        offset: u64,
        line_uuid: Option<&str>,
        several: bool,
    ) {
        let name = b.name.as_str().unwrap_or("unknown").to_owned();
        let id = b.id.as_str();
        let mut input: serde_json::Value = raw_as(b.input).unwrap_or(serde_json::Value::Null);
        // Before 2.1.92 inputs could be recorded JSON-encoded as one string.
        if let serde_json::Value::String(encoded) = &input
            && encoded.trim_start().starts_with('{')
            && let Ok(decoded @ serde_json::Value::Object(_)) = serde_json::from_str(encoded)
        {
            input = decoded;
        }
        let mut pretty =
            if input.is_null() { None } else { serde_json::to_string_pretty(&input).ok() };
        if let Some(p) = pretty.as_mut()
            && super::clip(p, INPUT_CLIP_BYTES)
        {
            p.push_str("\n…");
        }
        let uuid = match (line_uuid, id) {
            (Some(u), Some(i)) if several => Some(format!("{u}:{i}")),
            (u, _) => u.map(str::to_owned),
        };
        let i = self.push(TranscriptMessage {
            role: Role::Tool,
            content: String::new(),
            uuid,
            timestamp: owned(&l.timestamp),
            thinking: None,
            tool_call: Some(ToolCall {
                emoji: super::tools::emoji(&name).to_owned(),
                input_summary: super::tools::input_summary(&name, &input),
                form: super::tools::form(&name, &input),
                tool_name: name,
                tool_use_id: id.map(str::to_owned),
                input: pretty,
                output: String::new(),
                output_truncated: false,
                is_error: false,
                duration_ms: None,
                pending: true,
                subagent_id: None,
                subagent_missing: false,
                rejected: false,
                output_details: None,
            }),
            origin_kind: None,
            offset,
            attachments: Vec::new(),
        });
        if let Some(id) = id {
            self.tools.insert(
                id.to_owned(),
                ToolSlot { index: i, used_at_ms: ts_ms(l.timestamp.as_str()) },
            );
        }
    }

    /// Lines skipped so far.
    pub(crate) fn skipped(&self) -> u64 {
        self.skipped
    }

    pub(crate) fn usage(&self) -> Usage {
        self.usage.usage()
    }

    /// Texts of enqueues still pending (neither dequeued nor removed), with their offsets.
    fn pending_enqueues(&self) -> Vec<(u64, String)> {
        self.enqueues
            .iter()
            .filter_map(|&i| self.messages.get(i).and_then(Option::as_ref))
            .map(|m| (m.offset, m.content.trim().to_owned()))
            .collect()
    }

    /// The messages in file order. `later` maps texts of user messages found after the range
    /// (paging look-ahead) to their offsets.
    pub(crate) fn finish(mut self, later: &HashMap<String, u64>) -> Vec<TranscriptMessage> {
        // An enqueue never dequeued is hidden when a user message with the same text follows
        // within QUEUE_MATCH_BYTES (the prompt was delivered after all).
        let pending: Vec<usize> = self.enqueues.iter().copied().collect();
        for i in pending {
            let (text, at) = match self.messages.get(i).and_then(Option::as_ref) {
                Some(m) => (m.content.trim().to_owned(), m.offset),
                None => continue,
            };
            let near = |o: u64| o > at && o - at <= QUEUE_MATCH_BYTES;
            let repeated = self.messages.iter().skip(i + 1).flatten().any(|m| {
                m.role == Role::User
                    && m.origin_kind.as_deref() != Some("queued")
                    && m.content.trim() == text
                    && near(m.offset)
            }) || later.get(&text).is_some_and(|&o| near(o));
            if repeated && let Some(m) = self.messages.get_mut(i) {
                *m = None;
            }
        }
        self.messages
            .into_iter()
            .flatten()
            .filter(|m| {
                m.role != Role::Assistant
                    || !m.content.trim().is_empty()
                    || m.thinking.as_deref().is_some_and(|t| !t.is_empty())
            })
            .collect()
    }
}

/// How far after an unconsumed enqueue a user message with the same text may appear and still
/// count as its delivery.
pub const QUEUE_MATCH_BYTES: u64 = 16 * 1024 * 1024;

record! {
    struct UserProbe<'a> {
        envelope { ty, is_sidechain, is_meta }
        #[serde(default, borrow)]
        message: MapOr<MessageRef<'a>>,
    }
}

/// First offsets of user messages in `[from, until)` whose text is one of `wanted`.
fn later_user_texts(
    path: &Path,
    file_sidechain: bool,
    from: u64,
    until: u64,
    wanted: &[(u64, String)],
) -> std::io::Result<HashMap<String, u64>> {
    let mut found = HashMap::new();
    if wanted.is_empty() || until <= from {
        return Ok(found);
    }
    let mut file = crate::files::open_regular(path)?;
    file.seek(SeekFrom::Start(from))?;
    let mut reader =
        LineReader::new(BufReader::with_capacity(256 * 1024, file.take(until - from)), from);
    let mut scratch = Vec::new();
    while let Some(line) = reader.next_line()? {
        if !jsonl::has_type_in(line.bytes, &["user"]) {
            continue;
        }
        let Parsed::Value(u) = jsonl::parse_line_with::<UserProbe<'_>>(line.bytes, &mut scratch)
        else {
            continue;
        };
        if u.ty.as_str() != Some("user") || u.is_meta_line() || u.off_file(file_sidechain) {
            continue;
        }
        let Some(msg) = u.message.0.as_ref() else { continue };
        let text = super::user_text(&msg.content);
        let text = text.trim();
        if wanted.iter().any(|(_, w)| w == text) && !found.contains_key(text) {
            found.insert(text.to_owned(), line.offset);
            if found.len() == wanted.len() {
                break;
            }
        }
    }
    Ok(found)
}

/// Whether an `isMeta` user line is a hook's feedback to Claude: "Stop hook feedback:",
/// "SubagentStop hook feedback:", "PreToolUse:Bash hook blocking error …" — an event name, an
/// optional `:tool`, then " hook ". Caveats and skill bodies are not.
fn is_hook_feedback(text: &str) -> bool {
    let Some((head, _)) = text.trim_start().split_once(" hook ") else { return false };
    let event = head.split_once(':').map_or(head, |(event, _)| event);
    (3..=40).contains(&head.len())
        && event.ends_with(|c: char| c.is_ascii_alphabetic())
        && event.starts_with(|c: char| c.is_ascii_uppercase())
        && event.chars().all(|c| c.is_ascii_alphabetic())
}

/// Reads the messages of the transcript lines in `[start, end)`, plus an unterminated last line
/// at `end` when `with_tail` and it is a complete record.
fn build_range(
    path: &Path,
    scope: Scope<'_>,
    start: u64,
    end: u64,
    with_tail: bool,
) -> std::io::Result<Vec<TranscriptMessage>> {
    build_piece(path, scope, start, end, with_tail).map(|p| p.0)
}

/// [`build_range`] with the range's usage and the lines it skipped (malformed, over-long).
fn build_piece(
    path: &Path,
    scope: Scope<'_>,
    start: u64,
    end: u64,
    with_tail: bool,
) -> std::io::Result<(Vec<TranscriptMessage>, Usage, u64)> {
    let file_sidechain = scope.sidechain;
    let mut builder = Builder::showing(file_sidechain, scope.lines.clone());
    let mut file = crate::files::open_regular(path)?;
    file.seek(SeekFrom::Start(start))?;
    let take = end.saturating_sub(start);
    let mut reader = LineReader::new(BufReader::with_capacity(256 * 1024, file.take(take)), start);
    while let Some(line) = reader.next_line()? {
        builder.line(line.offset, line.bytes);
    }
    if with_tail {
        let o = reader.complete_offset();
        builder.tail(o, reader.pending());
    }
    let pending = builder.pending_enqueues();
    let later = match pending.iter().map(|(o, _)| *o).max() {
        Some(last) if !with_tail => {
            let size = std::fs::metadata(path)?.len();
            let until = last.saturating_add(QUEUE_MATCH_BYTES).saturating_add(1).min(size);
            later_user_texts(path, file_sidechain, end, until, &pending)?
        }
        _ => HashMap::new(),
    };
    let (usage, skipped) =
        (builder.usage(), builder.skipped().saturating_add(reader.oversized_lines()));
    Ok((builder.finish(&later), usage, skipped))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn hook_feedback_is_an_event_name_then_hook() {
        for yes in [
            "Stop hook feedback:\n- [x.sh]: no",
            "SubagentStop hook feedback: x",
            "PreToolUse:Bash hook blocking error from command: x",
            "  UserPromptSubmit hook success: x",
        ] {
            assert!(is_hook_feedback(yes), "{yes}");
        }
        for no in [
            "Caveat: The messages below were generated by the user",
            "Base directory for this skill: /x",
            "the hook fired",
            "stop hook feedback: lower case is typed text",
            "A very long sentence with many words before the hook word",
            "",
        ] {
            assert!(!is_hook_feedback(no), "{no}");
        }
    }
}
