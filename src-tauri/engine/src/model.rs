//! The public, serializable shapes that leave the engine: CLI JSON and IPC to the UI.
//! Field names are camelCase; times are ISO-8601 UTC strings; unknown values are `null`.
//! TypeScript bindings are generated from these types (ts-rs).

use std::fmt;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Where a session came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    Web,
    Discord,
    Slack,
    Schedule,
    Native,
    Adopted,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Web => "web",
            Self::Discord => "discord",
            Self::Slack => "slack",
            Self::Schedule => "schedule",
            Self::Native => "native",
            Self::Adopted => "adopted",
        }
    }

    /// herdctl's trigger-type → origin mapping: everything that is not a platform or a schedule
    /// (`manual`, `webhook`, `chat`, `fork`, `spawned`, unknown) folds into `native`.
    pub fn from_trigger_type(trigger: &str) -> Self {
        match trigger {
            "web" => Self::Web,
            "discord" => Self::Discord,
            "slack" => Self::Slack,
            "schedule" => Self::Schedule,
            _ => Self::Native,
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who a session belongs to and how it got there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Attribution {
    pub origin: Origin,
    /// Qualified agent name (`team.gamma`), `None` when nobody owns the session.
    pub agent_name: Option<String>,
    /// The herdctl job trigger type, when a job record attributed the session.
    pub trigger_type: Option<String>,
}

impl Attribution {
    pub fn native() -> Self {
        Self { origin: Origin::Native, agent_name: None, trigger_type: None }
    }
}

/// Why a session cannot be resumed by its agent with `claude --resume`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum NotResumableReason {
    /// The transcript lives in the fleet's docker-sessions folder.
    Docker,
    /// The transcript lives outside the agent's own transcript folder.
    OutsideAgentFolder,
}

/// One session as listings show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    pub session_id: String,
    /// The real working directory recorded in the transcript (never decoded from the folder name,
    /// unless the transcript records none).
    pub working_directory: String,
    /// The name of the folder under `<claude home>/projects/` that holds the transcript
    /// (`docker:<agent>` for docker sessions).
    pub encoded_path: String,
    /// Absolute path of the transcript file.
    pub transcript_path: String,
    pub mtime: String,
    pub origin: Origin,
    pub agent_name: Option<String>,
    pub resumable: bool,
    pub not_resumable_reason: Option<NotResumableReason>,
    pub custom_name: Option<String>,
    pub auto_name: Option<String>,
    pub preview: Option<String>,
    pub git_branch: Option<String>,
    pub claude_code_version: Option<String>,
    pub first_message_at: Option<String>,
    pub last_message_at: Option<String>,
    #[ts(type = "number")]
    pub message_count: u64,
    #[ts(type = "number")]
    pub size_bytes: u64,
    /// Typed prompts on rewound branches (left out of `message_count` and the viewer).
    #[serde(default)]
    #[ts(type = "number")]
    pub rewound_prompts: u64,
    /// Tokens spent on the resumed branch, by kind.
    #[serde(default)]
    pub tokens: TokenTotals,
    /// The session this conversation was continued from (an older file in the same folder whose
    /// newest line this one's first line hangs from, or which this one replays from its start).
    #[serde(default)]
    pub continued_from: Option<String>,
    /// The session that continues this conversation in a newer file.
    #[serde(default)]
    pub continued_in: Option<String>,
}

impl SessionSummary {
    /// The name a person sees: custom name › auto name › preview › "Untitled session".
    pub fn display_name(&self) -> &str {
        self.custom_name
            .as_deref()
            .or(self.auto_name.as_deref())
            .or(self.preview.as_deref())
            .unwrap_or("Untitled session")
    }
}

/// Sessions that share one real working directory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DirectoryGroup {
    pub working_directory: String,
    pub encoded_path: String,
    /// The agent whose working directory this is, if any. Owning the folder is not owning its
    /// sessions: see `owners`.
    pub agent_name: Option<String>,
    /// Every session in the group, whatever limit was applied to `sessions`.
    #[ts(type = "number")]
    pub session_count: u64,
    /// The agents that own sessions of this folder (whatever limit was applied to `sessions`),
    /// with how many each: the folder's own agent first, then most sessions first, then by name.
    #[serde(default)]
    pub owners: Vec<OwnerCount>,
    /// Tokens of every session in the group, together.
    #[serde(default)]
    pub tokens: TokenTotals,
    /// True for temp directories (`/tmp/`, the OS temp dir, …), which views hide by default.
    pub is_temp: bool,
    pub sessions: Vec<SessionSummary>,
}

/// How many sessions of a folder one agent owns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct OwnerCount {
    /// Qualified name.
    pub agent_name: String,
    #[ts(type = "number")]
    pub session_count: u64,
}

/// An agent of the open fleet, as the Fleet view shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AgentSummary {
    /// Qualified name: sub-fleet path and name joined by `.` (`team.gamma`). The id every
    /// command takes.
    pub name: String,
    /// The name a person sees everywhere: the agent's own name (`gamma`), or the qualified name
    /// when another agent of the fleet has the same own name.
    pub display_name: String,
    /// The sub-fleet path (`["team"]` for `team.gamma`, empty for a root agent).
    pub fleet_path: Vec<String>,
    pub working_directory: Option<String>,
    pub docker: bool,
    #[ts(type = "number")]
    pub session_count: u64,
    pub last_activity_at: Option<String>,
    /// Tokens of the sessions it owns, together.
    #[serde(default)]
    pub tokens: TokenTotals,
}

/// Who wrote a transcript message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
    Tool,
}

/// An image or document attached to a prompt, described; its bytes are not in the page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Attachment {
    pub kind: AttachmentKind,
    /// As recorded (`image/png`, `application/pdf`, …).
    pub media_type: Option<String>,
    /// A document's title, as recorded.
    pub title: Option<String>,
    /// Size of the embedded bytes (from the base64 length).
    #[ts(type = "number | null")]
    pub bytes: Option<u64>,
    /// Embedded as base64 in a type the viewer draws (PNG, JPEG, GIF, WebP): shown as a thumbnail.
    pub viewable: bool,
    /// Where one that is not embedded points (a URL, a file id), as text: never loaded.
    pub reference: Option<String>,
    /// The line that holds it, and its place among that line's attachments.
    #[ts(type = "number")]
    pub offset: u64,
    pub index: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum AttachmentKind {
    Image,
    Document,
}

/// An image's bytes, checked to be the type it claims, for a `data:` URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AttachmentData {
    pub media_type: String,
    /// Base64, as recorded.
    pub data: String,
}

/// A tool call paired with its result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    pub tool_name: String,
    pub tool_use_id: Option<String>,
    pub emoji: String,
    pub input_summary: Option<String>,
    /// The tool input as pretty JSON, clipped to a bounded size.
    pub input: Option<String>,
    /// The tool output as text, clipped to a bounded size.
    pub output: String,
    pub output_truncated: bool,
    pub is_error: bool,
    #[ts(type = "number | null")]
    pub duration_ms: Option<u64>,
    /// No result has been written yet (running, interrupted, or the result was lost).
    pub pending: bool,
    /// For Task/Agent calls: the subagent whose transcript this call produced.
    pub subagent_id: Option<String>,
    /// The subagent run this call started has no transcript on disk (see
    /// `transcript::subagents`: the runs are the files found there).
    #[serde(default)]
    pub subagent_missing: bool,
    /// The input in the form a person reads it (a diff for an edit, the command for Bash, …);
    /// `None` for tools without one, which show `input`.
    #[serde(default)]
    pub form: Option<ToolForm>,
    /// The person declined the call (Claude Code's "doesn't want to proceed" result): not an error
    /// of the tool.
    #[serde(default)]
    pub rejected: bool,
}

/// A tool call's input as it is shown. Every text is clipped to a bounded size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum ToolForm {
    /// Edit, MultiEdit: each replacement as a line diff of the file's text.
    Edit { path: String, edits: Vec<FileEdit> },
    /// Write: the whole file written.
    Write { path: String, content: String },
    /// Bash: the command line, and what it was for.
    Command { command: String, description: Option<String> },
    /// Read: the file, and the lines asked for (1-based first line).
    Read {
        path: String,
        #[ts(type = "number | null")]
        offset: Option<u64>,
        #[ts(type = "number | null")]
        limit: Option<u64>,
    },
    /// Grep, Glob: the pattern and where it looked.
    Search { pattern: String, path: Option<String>, glob: Option<String> },
    /// TodoWrite: the checklist as written.
    Todos { items: Vec<TodoItem> },
    /// Task, Agent: the subagent's job.
    Task { description: Option<String>, agent_type: Option<String>, prompt: Option<String> },
}

/// One replacement of an edit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct FileEdit {
    /// Every occurrence was replaced.
    pub replace_all: bool,
    pub lines: Vec<DiffLine>,
}

/// A line of a diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DiffLine {
    pub change: LineChange,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum LineChange {
    Same,
    Removed,
    Added,
}

/// A checklist item of TodoWrite.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TodoItem {
    pub content: String,
    /// `pending`, `in_progress` or `completed` as written (another word is kept as it is).
    pub status: String,
}

/// One message of a transcript as the viewer shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptMessage {
    pub role: Role,
    /// Text (Markdown for assistant messages). Empty for tool messages.
    pub content: String,
    /// Stable key: the line's `uuid`; for tool messages the originating tool_use line's `uuid`.
    pub uuid: Option<String>,
    pub timestamp: Option<String>,
    /// Thinking text of an assistant turn, kept but marked (empty string when redacted).
    pub thinking: Option<String>,
    pub tool_call: Option<ToolCall>,
    /// Set on user messages that were injected rather than typed: `task-notification`,
    /// `compact-summary`, `queued`, `hook` (a hook's feedback to Claude), ….
    pub origin_kind: Option<String>,
    /// Byte offset of the source line in the transcript (a stable paging cursor).
    #[ts(type = "number")]
    pub offset: u64,
    /// Images and documents attached to a prompt (their bytes are read one at a time, by
    /// `transcript::attachments::read`).
    #[serde(default)]
    pub attachments: Vec<Attachment>,
}

/// Token usage of a transcript.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Context size of the last turn: input + cache creation + cache read tokens.
    #[ts(type = "number")]
    pub input_tokens: u64,
    /// Output tokens, counted once per `(message.id, requestId)`.
    #[ts(type = "number")]
    pub output_tokens: u64,
    /// Number of distinct assistant API responses.
    #[ts(type = "number")]
    pub turn_count: u64,
    /// The model of the last assistant response.
    pub model: Option<String>,
}

/// A subagent transcript that belongs to a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SubagentInfo {
    pub agent_id: String,
    pub transcript_path: String,
    pub agent_type: Option<String>,
    pub description: Option<String>,
    #[ts(type = "number")]
    pub size_bytes: u64,
}

/// A page of a transcript, newest messages last.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct MessagePage {
    pub messages: Vec<TranscriptMessage>,
    /// Pass as `before` to fetch the page just earlier than this one; `None` at the start.
    #[ts(type = "number | null")]
    pub earlier_cursor: Option<u64>,
    /// Pass as `after` to fetch the page just later than this one; `None` at the end.
    #[ts(type = "number | null")]
    pub later_cursor: Option<u64>,
    /// Byte length of the transcript that this page reflects (to detect growth).
    #[ts(type = "number")]
    pub size_bytes: u64,
    /// Rewound branches replaced within this page (see `transcript::branches`).
    #[serde(default)]
    pub rewinds: Vec<RewindMark>,
    /// Set when the page was asked for around a line on a rewound branch: that branch (one of
    /// `rewinds`), to be shown open with the line in it.
    #[serde(default)]
    #[ts(type = "number | null")]
    pub open_branch: Option<u64>,
    /// On a fork subagent's pages: how many messages of the main conversation the run began
    /// with (shown there, left out here).
    #[serde(default)]
    #[ts(type = "number")]
    pub inherited: u64,
}

/// Tokens spent, by kind: each response counted once (its streamed chunks are one), over the
/// branch `claude --resume` continues.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TokenTotals {
    /// Input tokens not read from the cache.
    #[ts(type = "number")]
    pub input_tokens: u64,
    #[ts(type = "number")]
    pub output_tokens: u64,
    #[ts(type = "number")]
    pub cache_read_tokens: u64,
    #[ts(type = "number")]
    pub cache_write_tokens: u64,
}

impl TokenTotals {
    /// Every kind together.
    pub fn total(&self) -> u64 {
        self.input_tokens
            .saturating_add(self.output_tokens)
            .saturating_add(self.cache_read_tokens)
            .saturating_add(self.cache_write_tokens)
    }

    /// Adds `other` (saturating).
    pub fn add(&mut self, other: &TokenTotals) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
        self.cache_read_tokens = self.cache_read_tokens.saturating_add(other.cache_read_tokens);
        self.cache_write_tokens = self.cache_write_tokens.saturating_add(other.cache_write_tokens);
    }
}

/// Tokens one model used in a session (see `transcript::usage`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ModelUsage {
    pub model: String,
    /// Responses (one `message.id` each, however many lines it was streamed in).
    #[ts(type = "number")]
    pub responses: u64,
    #[serde(flatten)]
    #[ts(flatten)]
    pub tokens: TokenTotals,
}

/// Where a rewind abandoned a branch: shown before the prompt that replaced it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RewindMark {
    /// Byte offset of the prompt that replaced the branch (a message's `offset`).
    #[ts(type = "number")]
    pub at: u64,
    /// The abandoned branch's id: the byte offset of its first line.
    #[ts(type = "number")]
    pub branch: u64,
    /// Typed prompts on the abandoned branch.
    #[ts(type = "number")]
    pub prompts: u64,
    /// Messages on it.
    #[ts(type = "number")]
    pub messages: u64,
    /// The preview of its first prompt.
    pub first_prompt: Option<String>,
}

/// A whole transcript opened in the viewer (or printed by `corral-cli show`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionTranscript {
    pub session_id: String,
    pub working_directory: String,
    pub messages: Vec<TranscriptMessage>,
    pub usage: Usage,
    pub subagents: Vec<SubagentInfo>,
    /// Lines that could not be parsed and were skipped.
    #[ts(type = "number")]
    pub skipped_lines: u64,
}

/// A non-fatal problem met while reading (a malformed record, an unreadable file). Listings carry
/// these instead of failing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Warning {
    pub path: String,
    pub message: String,
}

impl Warning {
    pub fn new(path: &std::path::Path, message: impl Into<String>) -> Self {
        Self { path: path.display().to_string(), message: message.into() }
    }
}

// ---------------------------------------------------------------------------------------------
// Imports (shared by the plan, the run journal and undo; `import` re-exports them)

/// Where imported transcripts go.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum ImportTarget {
    /// `<claude home>/projects/<encode(agent working dir)>/`, plus an adoption record.
    Agent { name: String },
    /// `<claude home>/projects/<encode(cwd recorded in the transcript)>/`, no record — so that
    /// `claude --resume` finds the session again.
    ClaudeHome,
}

/// Why a candidate is not placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum SkipReason {
    Sidechain,
    AlreadyAdopted,
    DestinationExists,
    AttributedToRun,
    Unreadable,
    NotATranscript,
    Occupied,
    PlacementFailed,
    RecordFailed,
}

/// A candidate that is (or was) not placed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ImportSkip {
    /// The session id (for a file that is not a transcript: its file name).
    pub session_id: String,
    /// The file (or folder) concerned.
    pub path: Option<String>,
    pub reason: SkipReason,
    pub detail: String,
    /// The agent that owns the session, when that is the reason.
    pub owned_by: Option<String>,
}
