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
    /// A herdctl agent's web chat.
    Web,
    /// A herdctl agent's Discord channel.
    Discord,
    /// A herdctl agent's Slack channel.
    Slack,
    /// A herdctl schedule's job.
    Schedule,
    /// Started by a person (a terminal, the desktop app, a manual job), or not known.
    Native,
    /// Brought into an agent by an adoption record.
    Adopted,
}

impl Origin {
    /// The lowercase word it is written as (`web`, `native`, …).
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
    /// How it got there: the platform, a schedule, an adoption, or native.
    pub origin: Origin,
    /// Qualified agent name (`team.gamma`), `None` when nobody owns the session.
    pub agent_name: Option<String>,
    /// The herdctl job trigger type, when a job record attributed the session.
    pub trigger_type: Option<String>,
}

impl Attribution {
    /// Nobody's session: native, no agent, no trigger.
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
    /// The session id: the transcript's file name without `.jsonl`.
    pub session_id: String,
    /// The real working directory recorded in the transcript (never decoded from the folder name,
    /// unless the transcript records none).
    pub working_directory: String,
    /// The name of the folder under `<claude home>/projects/` that holds the transcript
    /// (`docker:<agent>` for docker sessions).
    pub encoded_path: String,
    /// Absolute path of the transcript file.
    pub transcript_path: String,
    /// The transcript's modification time.
    pub mtime: String,
    /// How it got there (see [`Attribution`]).
    pub origin: Origin,
    /// The qualified name of the agent that owns it, if any.
    pub agent_name: Option<String>,
    /// Whether `claude --resume` can continue it where it is (see `not_resumable_reason`).
    pub resumable: bool,
    /// Why it cannot be resumed, when it cannot.
    pub not_resumable_reason: Option<NotResumableReason>,
    /// The name a person gave it (Claude Code's `/rename`, Corral, herdctl), if any.
    pub custom_name: Option<String>,
    /// The title Claude Code generated for it, if any.
    pub auto_name: Option<String>,
    /// The start of its first typed prompt, for a session with no name.
    pub preview: Option<String>,
    /// The git branch it was on, as last recorded.
    pub git_branch: Option<String>,
    /// The Claude Code version that wrote it, as last recorded.
    pub claude_code_version: Option<String>,
    /// The surface that last wrote to it, as recorded (`cli` for an interactive `claude`,
    /// `sdk-cli` for `claude -p`, `claude-desktop`, …; `None` before Claude Code recorded it).
    pub entrypoint: Option<String>,
    /// The time of its first message.
    pub first_message_at: Option<String>,
    /// The time of its last message.
    pub last_message_at: Option<String>,
    /// Messages on the branch `claude --resume` continues.
    #[ts(type = "number")]
    pub message_count: u64,
    /// Size of the transcript file.
    #[ts(type = "number")]
    pub size_bytes: u64,
    /// Typed prompts on rewound branches (left out of `message_count` and the viewer).
    #[serde(default)]
    #[ts(type = "number")]
    pub rewound_prompts: u64,
    /// Tokens spent on the resumed branch, by kind.
    #[serde(default)]
    pub tokens: TokenTotals,
    /// What it cost at list price; `None` when it made no request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cost: Option<Cost>,
    /// The session this conversation was continued from (an older file in the same folder whose
    /// newest line this one's first line hangs from, or which this one replays from its start).
    #[serde(default)]
    pub continued_from: Option<String>,
    /// The session that continues this conversation in a newer file.
    #[serde(default)]
    pub continued_in: Option<String>,
    /// Listed from the folder walk of a pass still under way: its file is not read yet, so
    /// only its id, folder, size and time are known (see `Catalog::listing_so_far`). Left out
    /// of the JSON when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[ts(as = "Option<bool>", optional)]
    pub pending: bool,
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
    /// The real working directory the sessions recorded.
    pub working_directory: String,
    /// The name of the folder under `<claude home>/projects/` that holds them.
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
    /// What its sessions cost at list price, together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cost: Option<Cost>,
    /// True for temp directories (`/tmp/`, the OS temp dir, …), which views hide by default.
    pub is_temp: bool,
    /// The sessions, newest first (possibly limited; see `session_count`).
    pub sessions: Vec<SessionSummary>,
}

/// How many sessions of a folder one agent owns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct OwnerCount {
    /// Qualified name.
    pub agent_name: String,
    /// How many of the folder's sessions it owns.
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
    /// Where it works (`working_directory` in its config), if it says.
    pub working_directory: Option<String>,
    /// Whether it runs its sessions in Docker (they live in the fleet's docker-sessions folder).
    pub docker: bool,
    /// Sessions it owns.
    #[ts(type = "number")]
    pub session_count: u64,
    /// The time of its newest session's last message.
    pub last_activity_at: Option<String>,
    /// Tokens of the sessions it owns, together.
    #[serde(default)]
    pub tokens: TokenTotals,
    /// What the sessions it owns cost at list price, together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cost: Option<Cost>,
}

/// What one session, or several together, cost at **list price**: what the API would charge
/// (a subscription pays otherwise).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Cost {
    /// US dollars, of what could be priced.
    pub usd: f64,
    /// Some requests were of a model with no known price: `usd` leaves them out (Claude Code's
    /// own figure guesses a price for them). With `usd` 0: "price unknown", never "$0".
    pub unpriced: bool,
    /// Where the figure came from.
    pub source: CostSource,
}

impl Cost {
    /// Adds `other` (a roll-up).
    pub fn add(&mut self, other: &Cost) {
        self.usd += other.usd;
        self.unpriced |= other.unpriced;
        if self.source != other.source {
            self.source = CostSource::Mixed;
        }
    }

    /// `a` and `b` together, either of which may be missing.
    pub fn sum(a: Option<Cost>, b: Option<&Cost>) -> Option<Cost> {
        match (a, b) {
            (Some(mut a), Some(b)) => {
                a.add(b);
                Some(a)
            }
            (a, b) => a.or(b.copied()),
        }
    }
}

/// Where a cost came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum CostSource {
    /// Claude Code's own figure (the session's last `cost-state` line).
    #[default]
    ClaudeCode,
    /// Priced by Corral from the tokens, with the bundled table (older transcripts).
    Table,
    /// Sessions of both kinds, together.
    Mixed,
}

/// Who wrote a transcript message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// A person's prompt (typed, or injected; see `origin_kind`).
    User,
    /// Claude's reply.
    Assistant,
    /// A tool call with its result.
    Tool,
}

/// An image or document attached to a prompt, described; its bytes are not in the page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Attachment {
    /// An image or a document.
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
    /// Its place among the attachments of that line.
    pub index: u32,
}

/// What an attachment is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum AttachmentKind {
    /// A picture (shown as a thumbnail when viewable).
    Image,
    /// A PDF or another document (named, never opened).
    Document,
}

/// An image's bytes, checked to be the type it claims, for a `data:` URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AttachmentData {
    /// The image type the bytes were checked to be (`image/png`, …).
    pub media_type: String,
    /// Base64, as recorded.
    pub data: String,
}

/// A tool call paired with its result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    /// The tool's name as Claude called it (`Bash`, `Edit`, an MCP tool's full name).
    pub tool_name: String,
    /// The call's id, which its result names.
    pub tool_use_id: Option<String>,
    /// A one-character mark for the tool, for the CLI's plain output.
    pub emoji: String,
    /// The input in one line (the command, the file, the pattern), when the tool has one.
    pub input_summary: Option<String>,
    /// The tool input as pretty JSON, clipped to a bounded size.
    pub input: Option<String>,
    /// The tool output as text, clipped to a bounded size.
    pub output: String,
    /// `output` was clipped.
    pub output_truncated: bool,
    /// The tool reported an error.
    pub is_error: bool,
    /// Time from the call to its result, when both carry a timestamp.
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
    /// What Claude Code wrapped around the output for Claude, taken off it: a subagent's
    /// hand-back notice, its id and usage (`output` is then the report alone).
    #[serde(default)]
    pub output_details: Option<String>,
}

/// A tool call's input as it is shown. Every text is clipped to a bounded size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum ToolForm {
    /// Edit, MultiEdit: each replacement as a line diff of the file's text.
    Edit {
        /// The file edited.
        path: String,
        /// Each replacement, in order.
        edits: Vec<FileEdit>,
    },
    /// Write: the whole file written.
    Write {
        /// The file written.
        path: String,
        /// What was written.
        content: String,
    },
    /// Bash: the command line, and what it was for.
    Command {
        /// The command line.
        command: String,
        /// What Claude said it was for.
        description: Option<String>,
    },
    /// Read: the file, and the lines asked for (1-based first line).
    Read {
        /// The file read.
        path: String,
        /// The first line asked for.
        #[ts(type = "number | null")]
        offset: Option<u64>,
        /// How many lines were asked for.
        #[ts(type = "number | null")]
        limit: Option<u64>,
    },
    /// Grep, Glob: the pattern and where it looked.
    Search {
        /// The pattern looked for.
        pattern: String,
        /// Where it looked.
        path: Option<String>,
        /// The file names it looked in.
        glob: Option<String>,
    },
    /// TodoWrite: the checklist as written.
    Todos {
        /// The items, in order.
        items: Vec<TodoItem>,
    },
    /// AskUserQuestion: each question, its options and the answer given.
    Questions {
        /// The questions, in order.
        items: Vec<AskedQuestion>,
    },
    /// Task, Agent: the subagent's job.
    Task {
        /// The job in a few words.
        description: Option<String>,
        /// The kind of subagent asked for.
        agent_type: Option<String>,
        /// The subagent's whole prompt.
        prompt: Option<String>,
    },
}

/// A question Claude asked the person (AskUserQuestion).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AskedQuestion {
    /// Its short label (`header`), when it has one.
    pub header: Option<String>,
    /// The question.
    pub question: String,
    /// The choices offered, in order.
    pub options: Vec<QuestionOption>,
    /// More than one choice could be picked.
    pub multi_select: bool,
    /// The answer as Claude Code recorded it (a choice's label, several joined with `, `, or
    /// the person's own words); `None` while unanswered.
    pub answer: Option<String>,
}

/// A choice offered with a question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct QuestionOption {
    /// What the choice says.
    pub label: String,
    /// Its explanation, when it has one.
    pub description: Option<String>,
}

/// One replacement of an edit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct FileEdit {
    /// Every occurrence was replaced.
    pub replace_all: bool,
    /// The diff's lines, in order.
    pub lines: Vec<DiffLine>,
}

/// A line of a diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DiffLine {
    /// Whether the line stayed, went or came.
    pub change: LineChange,
    /// The line's text.
    pub text: String,
}

/// How a diff line changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum LineChange {
    /// In both the old and the new text.
    Same,
    /// Only in the old text.
    Removed,
    /// Only in the new text.
    Added,
}

/// A checklist item of TodoWrite.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TodoItem {
    /// The item as written.
    pub content: String,
    /// `pending`, `in_progress` or `completed` as written (another word is kept as it is).
    pub status: String,
}

/// One message of a transcript as the viewer shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptMessage {
    /// Who wrote it.
    pub role: Role,
    /// Text (Markdown for assistant messages). Empty for tool messages.
    pub content: String,
    /// Stable key: the line's `uuid`; for tool messages the originating tool_use line's `uuid`.
    pub uuid: Option<String>,
    /// When it was written, as recorded.
    pub timestamp: Option<String>,
    /// Thinking text of an assistant turn, kept but marked (empty string when redacted).
    pub thinking: Option<String>,
    /// The call and its result, for tool messages.
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
    /// The subagent's id (the `agent-<id>.jsonl` file name).
    pub agent_id: String,
    /// Absolute path of its transcript.
    pub transcript_path: String,
    /// The kind of subagent (`general-purpose`, `Explore`, …), as recorded.
    pub agent_type: Option<String>,
    /// What it was asked to do, as the calling Task described it.
    pub description: Option<String>,
    /// Size of its transcript file.
    #[ts(type = "number")]
    pub size_bytes: u64,
}

/// A page of a transcript, newest messages last.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct MessagePage {
    /// The page's messages, in file order.
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
    /// Output tokens.
    #[ts(type = "number")]
    pub output_tokens: u64,
    /// Input tokens read from the prompt cache.
    #[ts(type = "number")]
    pub cache_read_tokens: u64,
    /// Input tokens written to the prompt cache.
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
    /// The model's id, as recorded (`claude-sonnet-4-5-20250929`, …).
    pub model: String,
    /// Responses (one `message.id` each, however many lines it was streamed in).
    #[ts(type = "number")]
    pub responses: u64,
    /// What it spent, by kind.
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
    /// The session id.
    pub session_id: String,
    /// The working directory it recorded.
    pub working_directory: String,
    /// Every message, in file order.
    pub messages: Vec<TranscriptMessage>,
    /// Its token usage.
    pub usage: Usage,
    /// Its subagents' transcripts.
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
    /// The file concerned.
    pub path: String,
    /// What went wrong, for a person.
    pub message: String,
}

impl Warning {
    /// A warning about `path`.
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
    Agent {
        /// The agent's qualified name.
        name: String,
    },
    /// `<claude home>/projects/<encode(cwd recorded in the transcript)>/`, no record — so that
    /// `claude --resume` finds the session again.
    ClaudeHome,
}

/// Why a candidate is not placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum SkipReason {
    /// A sidechain-only file: a subagent's run, not a session that can be resumed.
    Sidechain,
    /// An adoption record already gives the session to an agent.
    AlreadyAdopted,
    /// A file is already where it would go; Corral never replaces one.
    DestinationExists,
    /// A herdctl job or platform binding already attributes the session to an agent.
    AttributedToRun,
    /// The file or folder could not be read.
    Unreadable,
    /// The file is not a Claude Code transcript.
    NotATranscript,
    /// A claude process is on the session, so it is not moved now.
    Occupied,
    /// The transcript could not be placed (the destination folder, a link, a full disk).
    PlacementFailed,
    /// The transcript was placed but its adoption record could not be written.
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
    /// Why it is not placed.
    pub reason: SkipReason,
    /// The reason in words, for a person.
    pub detail: String,
    /// The agent that owns the session, when that is the reason.
    pub owned_by: Option<String>,
}
