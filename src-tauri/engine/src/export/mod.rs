//! Exporting a conversation: Markdown, one self-contained HTML page, or JSON.
//!
//! CONTRACT (owned by the transcript developer).
//! - What is exported is what the viewer shows: the branch `claude --resume` continues (rewound
//!   branches are left out and the header says how many prompts that is), optionally followed by
//!   each subagent run. Nothing is scrubbed: secrets, paths and tool outputs are written as
//!   recorded (tool inputs and outputs as clipped by the viewer, which the export says).
//! - Messages are streamed piece by piece from the transcript, so memory stays bounded whatever
//!   the transcript's size.
//! - Markdown: a `# title`, the session facts, then one `## You · time` / `## Claude · time`
//!   heading per message and `### Tool: NAME` per tool call with fenced input and output (the
//!   fence is longer than any backtick run inside). Prompts are written as typed. A tool's input
//!   is written in the form the viewer shows (`input_shown`: an edit as a diff under its path,
//!   Bash as `$ command`, a file written under its path, a checklist), JSON for other tools.
//! - HTML: one file that works offline and runs nothing — no scripts, no event attributes, no
//!   remote loads (a Content-Security-Policy of `default-src 'none'` says so to the browser),
//!   light and dark from `prefers-color-scheme`, tool calls folded in `<details>`. Claude's
//!   Markdown is rendered with raw HTML shown as text, links kept only for http(s), mailto and
//!   anchors, images shown as their alt text. Control characters (the escape bytes of coloured
//!   tool output) are shown as `�` in every format but JSON.
//! - JSON: [`ExportedTranscript`], which round-trips.
//! - A file is written next to its destination and renamed into place when complete; an
//!   existing file is replaced only when asked (the save dialog asked the person).

//!
//! Here: the types and what every format shares (the `Sink` each format implements, the
//! facts, headings and tool titles they write); `stream` drives a format over a transcript,
//! `file` puts an export in place; `markdown`, `html` and `json` are the formats.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::catalog::SessionDetails;
use crate::model::{
    LineChange, Role, SessionSummary, SubagentInfo, ToolCall, ToolForm, TranscriptMessage, Usage,
};
use crate::printable::Lines;

mod file;
mod html;
mod json;
mod markdown;
mod stream;

pub use file::export_to_file;
pub use stream::export;

/// The three export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    /// Markdown (`md`).
    #[serde(rename = "md")]
    Markdown,
    /// A single offline HTML page.
    Html,
    /// JSON, in the `corral-transcript` shape.
    Json,
}

impl ExportFormat {
    /// The format named `md`, `markdown`, `html` or `json`.
    pub fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().as_str() {
            "md" | "markdown" => Some(Self::Markdown),
            "html" | "htm" => Some(Self::Html),
            "json" => Some(Self::Json),
            _ => None,
        }
    }

    /// The usual file extension.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Markdown => "md",
            Self::Html => "html",
            Self::Json => "json",
        }
    }
}

/// What to export.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExportRequest {
    /// The format written.
    pub format: ExportFormat,
    /// Each subagent run follows the conversation.
    pub subagents: bool,
}

/// What an export wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExportSummary {
    /// Messages written.
    #[ts(type = "number")]
    pub messages: u64,
    /// Subagent runs written.
    #[ts(type = "number")]
    pub subagents: u64,
    /// Bytes written.
    #[ts(type = "number")]
    pub bytes: u64,
    /// Where it was written (`None`: to a stream).
    pub path: Option<String>,
}

/// The JSON export's shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportedTranscript {
    /// Always `"corral-transcript"`.
    pub format: String,
    /// The shape's version.
    pub version: u32,
    /// When it was exported.
    pub exported_at: String,
    /// The session as listings show it.
    pub session: SessionSummary,
    /// Its token usage.
    pub usage: Usage,
    /// The conversation as `claude --resume` continues it (rewound branches left out).
    pub messages: Vec<TranscriptMessage>,
    /// Its subagent runs, when asked for.
    pub subagents: Vec<ExportedSubagent>,
}

/// One subagent run in a JSON export.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportedSubagent {
    /// The subagent's id.
    pub agent_id: String,
    /// The kind of subagent, as recorded.
    pub agent_type: Option<String>,
    /// What it was asked to do.
    pub description: Option<String>,
    /// Its messages, in file order.
    pub messages: Vec<TranscriptMessage>,
}

/// One export format.
trait Sink {
    fn head(&mut self, d: &SessionDetails, now: &str) -> std::io::Result<()>;
    fn messages(&mut self, messages: &[TranscriptMessage]) -> std::io::Result<()>;
    fn end_conversation(&mut self) -> std::io::Result<()>;
    fn subagent(&mut self, s: &SubagentInfo) -> std::io::Result<()>;
    fn end_subagent(&mut self) -> std::io::Result<()>;
    fn end(&mut self) -> std::io::Result<()>;
}

/// "Exported by Corral …": what the export holds and leaves out, in plain words.
fn provenance(s: &SessionSummary, now: &str) -> String {
    let rewound = match s.rewound_prompts {
        0 => String::new(),
        1 => " 1 prompt on a rewound branch is left out.".to_owned(),
        n => format!(" {n} prompts on rewound branches are left out."),
    };
    format!(
        "Exported by Corral on {now}: the conversation as Claude Code recorded it, on the branch \
         `claude --resume` continues. Nothing was removed or redacted; long tool inputs and \
         outputs are clipped as in Corral's viewer, and terminal colour codes are left out of \
         them.{rewound}"
    )
}

/// The session facts shown under the title: (label, value).
fn facts(d: &SessionDetails) -> Vec<(&'static str, String)> {
    let s = &d.summary;
    let mut f = vec![("Session", s.session_id.clone()), ("Folder", s.working_directory.clone())];
    if let Some(a) = &s.agent_name {
        f.push(("Agent", a.clone()));
    }
    f.push(("Origin", s.origin.as_str().to_owned()));
    if let Some(b) = &s.git_branch {
        f.push(("Branch", b.clone()));
    }
    if let Some(v) = &s.claude_code_version {
        f.push(("Claude Code", v.clone()));
    }
    match (&s.first_message_at, &s.last_message_at) {
        (Some(a), Some(b)) => f.push(("Time", format!("{a} – {b}"))),
        (Some(a), None) | (None, Some(a)) => f.push(("Time", a.clone())),
        (None, None) => {}
    }
    f.push(("Messages", s.message_count.to_string()));
    if let Some(m) = &d.usage.model {
        f.push(("Model", m.clone()));
    }
    f
}

/// Who wrote a message, and when.
fn heading(m: &TranscriptMessage) -> String {
    let who = match m.role {
        Role::User if m.origin_kind.as_deref() == Some("hook") => "Hook feedback",
        Role::User => "You",
        Role::Assistant => "Claude",
        Role::Tool => "Tool",
    };
    match &m.timestamp {
        Some(t) => format!("{who} · {t}"),
        None => who.to_owned(),
    }
}

/// A tool call's one-line title: name, summary, duration and outcome.
fn tool_title(call: &crate::model::ToolCall) -> String {
    let mut t = call.tool_name.clone();
    if let Some(s) = &call.input_summary {
        t.push_str(" — ");
        t.push_str(s);
    }
    if let Some(ms) = call.duration_ms {
        t.push_str(&format!(" · {:.1} s", ms as f64 / 1000.0));
    }
    if call.pending {
        t.push_str(" · no result recorded");
    } else if call.is_error {
        t.push_str(" · error");
    }
    t
}

/// Text for a document (see [`crate::printable`]): terminal escape sequences (the colours of
/// tool output: formatting, not text) removed, every other control character shown as `�`.
fn printable(s: &str) -> std::borrow::Cow<'_, str> {
    crate::printable::for_document(s, Lines::Keep)
}

/// A tool call's input as an export shows it: a caption (the file, what a command was for), the
/// fence's language, and the body — the form the viewer draws, or pretty JSON for a tool without
/// one. An empty body is not written (a Read is its caption).
struct InputShown {
    caption: Option<String>,
    lang: &'static str,
    body: String,
}

fn input_shown(call: &ToolCall) -> Option<InputShown> {
    let shown = |caption: Option<String>, lang, body| Some(InputShown { caption, lang, body });
    let Some(form) = &call.form else {
        return call.input.clone().and_then(|input| shown(None, "json", input));
    };
    match form {
        ToolForm::Edit { path, edits } => {
            let hunks: Vec<String> = edits
                .iter()
                .map(|e| {
                    let lines = e.lines.iter().map(|l| {
                        let mark = match l.change {
                            LineChange::Same => ' ',
                            LineChange::Removed => '-',
                            LineChange::Added => '+',
                        };
                        format!("{mark}{}", l.text)
                    });
                    lines.collect::<Vec<_>>().join("\n")
                })
                .collect();
            shown(Some(path.clone()), "diff", hunks.join("\n@@\n"))
        }
        ToolForm::Write { path, content } => shown(Some(path.clone()), "text", content.clone()),
        ToolForm::Command { command, description } => {
            shown(description.clone(), "sh", format!("$ {command}"))
        }
        ToolForm::Read { path, offset, limit } => {
            let range = match (offset, limit) {
                (Some(o), Some(l)) => format!(" (lines {o}–{})", o + l.saturating_sub(1)),
                (Some(o), None) => format!(" (from line {o})"),
                (None, Some(l)) => format!(" (the first {l} lines)"),
                (None, None) => String::new(),
            };
            shown(Some(format!("{path}{range}")), "text", String::new())
        }
        ToolForm::Search { pattern, path, glob } => {
            let mut caption = String::new();
            if let Some(p) = path {
                caption.push_str(&format!("in {p}"));
            }
            if let Some(g) = glob {
                caption
                    .push_str(&format!("{}files {g}", if caption.is_empty() { "" } else { ", " }));
            }
            shown(Some(caption).filter(|c| !c.is_empty()), "text", pattern.clone())
        }
        ToolForm::Todos { items } => {
            let list = items.iter().map(|t| {
                let mark = if t.status == "completed" { 'x' } else { ' ' };
                format!("[{mark}] {}", t.content)
            });
            shown(None, "text", list.collect::<Vec<_>>().join("\n"))
        }
        ToolForm::Questions { items } => {
            let asked = items.iter().map(|q| {
                let options = q.options.iter().map(|o| match &o.description {
                    Some(d) => format!("  - {} ({d})", o.label),
                    None => format!("  - {}", o.label),
                });
                let answer =
                    q.answer.as_deref().map_or("(unanswered)".to_owned(), |a| format!("→ {a}"));
                let mut lines = vec![q.question.clone()];
                lines.extend(options);
                lines.push(answer);
                lines.join("\n")
            });
            shown(None, "text", asked.collect::<Vec<_>>().join("\n\n"))
        }
        ToolForm::Task { description, agent_type, prompt } => {
            let caption = match (agent_type, description) {
                (Some(a), Some(d)) => Some(format!("{a}: {d}")),
                (a, d) => a.clone().or_else(|| d.clone()),
            };
            shown(caption, "text", prompt.clone().unwrap_or_default())
        }
    }
}
