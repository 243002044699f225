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

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::catalog::{Catalog, SessionDetails};
use crate::error::{Error, Result};
use crate::model::{
    LineChange, Role, SessionSummary, SubagentInfo, ToolCall, ToolForm, TranscriptMessage, Usage,
};
use crate::printable::Lines;

/// The three export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    #[serde(rename = "md")]
    Markdown,
    Html,
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
    pub format: ExportFormat,
    /// Each subagent run follows the conversation.
    pub subagents: bool,
}

/// What an export wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExportSummary {
    #[ts(type = "number")]
    pub messages: u64,
    #[ts(type = "number")]
    pub subagents: u64,
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
    pub version: u32,
    pub exported_at: String,
    pub session: SessionSummary,
    pub usage: Usage,
    /// The conversation as `claude --resume` continues it (rewound branches left out).
    pub messages: Vec<TranscriptMessage>,
    pub subagents: Vec<ExportedSubagent>,
}

/// One subagent run in a JSON export.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportedSubagent {
    pub agent_id: String,
    pub agent_type: Option<String>,
    pub description: Option<String>,
    pub messages: Vec<TranscriptMessage>,
}

/// Writes the export of `session_id` to `out`.
pub fn export(
    catalog: &Catalog,
    session_id: &str,
    req: ExportRequest,
    out: &mut dyn Write,
) -> Result<ExportSummary> {
    let details = catalog.session_details(session_id)?;
    let now = crate::time::iso(chrono::Utc::now());
    let mut counted = Counting { inner: out, bytes: 0 };
    let mut w: Box<dyn Sink + '_> = match req.format {
        ExportFormat::Markdown => Box::new(Markdown { out: &mut counted }),
        ExportFormat::Html => Box::new(Html { out: &mut counted }),
        ExportFormat::Json => Box::new(Json { out: &mut counted, first: true }),
    };
    let io = |e: std::io::Error| Error::io("cannot write the export", e);
    w.head(&details, &now).map_err(io)?;
    let mut summary = ExportSummary::default();
    let mut failed: Option<std::io::Error> = None;
    let streamed = catalog.stream_transcript(session_id, &mut |piece| {
        summary.messages += piece.len() as u64;
        w.messages(&piece)
            .inspect_err(|e| failed = Some(std::io::Error::new(e.kind(), e.to_string())))
    });
    if let Some(e) = failed {
        return Err(io(e));
    }
    streamed?;
    w.end_conversation().map_err(io)?;
    if req.subagents {
        for sub in &details.subagents {
            w.subagent(sub).map_err(io)?;
            catalog.stream_run(session_id, sub, &mut |piece| w.messages(&piece))?;
            w.end_subagent().map_err(io)?;
            summary.subagents += 1;
        }
    }
    w.end().map_err(io)?;
    drop(w);
    counted.flush().map_err(io)?;
    summary.bytes = counted.bytes;
    Ok(summary)
}

/// Writes the export to the file `path`: into a temporary file beside it, renamed into place when
/// complete. An existing `path` is replaced only with `replace` (else the export is refused and
/// nothing is written).
pub fn export_to_file(
    catalog: &Catalog,
    session_id: &str,
    req: ExportRequest,
    path: &Path,
    replace: bool,
) -> Result<ExportSummary> {
    let existing = std::fs::symlink_metadata(path).ok();
    match &existing {
        Some(_) if !replace => {
            return Err(Error::InvalidInput(format!(
                "{} already exists; choose another file or allow replacing it",
                path.display()
            )));
        }
        // Only a plain file is replaced: a folder, link, pipe or device never is.
        Some(m) if !m.file_type().is_file() => {
            return Err(Error::InvalidInput(format!(
                "{} is not a plain file; choose another file",
                path.display()
            )));
        }
        _ => {}
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    // The session's transcript: an export is never more readable than it (a 0600 transcript
    // gives a 0600 export; a replaced file keeps its own bits, less any the transcript lacks).
    let source = std::fs::metadata(catalog.transcript_path(session_id, None)?)
        .map_err(|e| Error::io_at("read", Path::new(session_id), e))?;
    remove_dead_temps(path);
    let temp = crate::atomic_write::temp_sibling(path);
    let file = create_private(&temp).map_err(|e| Error::io_at("create", &temp, e))?;
    // Held while the export runs: a later export finds the temp locked and leaves it; a temp it
    // can lock was left by an export that died (see `remove_dead_temps`).
    file.try_lock().map_err(|e| Error::io_at("lock", &temp, e.into()))?;
    let mut out = BufWriter::with_capacity(256 * 1024, file);
    let result = export(catalog, session_id, req, &mut out).and_then(|s| {
        let file = out.into_inner().map_err(|e| Error::io_at("write", &temp, e.into_error()))?;
        let mode = permissions_for(existing.as_ref(), &source);
        file.set_permissions(mode).map_err(|e| Error::io_at("write", &temp, e))?;
        file.sync_all().map_err(|e| Error::io_at("write", &temp, e))?;
        Ok(s)
    });
    let finish = result.and_then(|mut s| {
        if replace {
            std::fs::rename(&temp, path).map_err(|e| Error::io_at("rename", path, e))?;
        } else {
            place_new(&temp, path)?;
        }
        crate::atomic_write::sync_dir(dir);
        s.path = Some(path.display().to_string());
        Ok(s)
    });
    if finish.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    finish
}

/// Creates `path` exclusively, readable by its owner only until the export is complete (it may
/// hold a private session's text).
fn create_private(path: &Path) -> std::io::Result<File> {
    let mut o = File::options();
    o.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    o.open(path)
}

/// The permissions of a finished export: a replaced file's own, else the transcript's; on Unix
/// never a bit the transcript lacks.
fn permissions_for(
    existing: Option<&std::fs::Metadata>,
    source: &std::fs::Metadata,
) -> std::fs::Permissions {
    let Some(existing) = existing else { return source.permissions() };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = existing.permissions().mode() & source.permissions().mode() & 0o7777;
        std::fs::Permissions::from_mode(mode)
    }
    #[cfg(not(unix))]
    existing.permissions()
}

/// How old an export's temp file must be before a later export may take it for a dead one's: an
/// export creates its temp and then locks it, and one just created is not locked yet.
const DEAD_TEMP_AGE: std::time::Duration = std::time::Duration::from_secs(60);

/// Removes what exports to `path` that were killed left behind: temp files of exactly
/// [`crate::atomic_write::temp_sibling`]'s shape for this name (see [`crate::owned`]), older than
/// [`DEAD_TEMP_AGE`], that no export holds locked any more. One still being written is locked by
/// its export (or too new to be locked yet) and stays.
fn remove_dead_temps(path: &Path) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else {
        return;
    };
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    let target = crate::atomic_write::temp_target(name);
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let Some(n) = e.file_name().to_str().map(str::to_owned) else { continue };
        if !crate::owned::is_atomic_temp_of(&n, |t| t == target) {
            continue;
        }
        let candidate = e.path();
        let old_enough = std::fs::symlink_metadata(&candidate)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > DEAD_TEMP_AGE);
        if !old_enough {
            continue;
        }
        // Only a regular file, never through a link; locked means its export is alive.
        let Ok(f) = crate::files::open_regular_no_follow(&candidate) else { continue };
        if f.try_lock().is_ok() {
            let _ = std::fs::remove_file(&candidate);
        }
    }
}

/// Puts the finished `temp` at `path` only if nothing is there: a hard link fails on an existing
/// name, so a file another process (or a second export) created meanwhile is never replaced.
/// Where the filesystem has no hard links, a last look and a rename do.
fn place_new(temp: &Path, path: &Path) -> Result<()> {
    let appeared = || {
        Error::InvalidInput(format!(
            "{} appeared while exporting; nothing was replaced",
            path.display()
        ))
    };
    match std::fs::hard_link(temp, path) {
        Ok(()) => {
            let _ = std::fs::remove_file(temp);
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(appeared()),
        Err(_) if std::fs::symlink_metadata(path).is_ok() => Err(appeared()),
        Err(_) => std::fs::rename(temp, path).map_err(|e| Error::io_at("rename", path, e)),
    }
}

/// Counts the bytes written through it.
struct Counting<'a> {
    inner: &'a mut dyn Write,
    bytes: u64,
}

impl Write for Counting<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
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

// ---------------------------------------------------------------------------------------------
// Markdown

struct Markdown<'a> {
    out: &'a mut dyn Write,
}

/// Text for a document (see [`crate::printable`]): terminal escape sequences (the colours of
/// tool output: formatting, not text) removed, every other control character shown as `�`.
fn printable(s: &str) -> std::borrow::Cow<'_, str> {
    crate::printable::for_document(s, Lines::Keep)
}

/// A fenced block whose fence no backtick run inside can close.
fn fenced(out: &mut dyn Write, info: &str, body: &str) -> std::io::Result<()> {
    let body = &*printable(body);
    let mut longest = 0usize;
    let mut run = 0usize;
    for c in body.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest.max(2) + 1);
    writeln!(out, "{fence}{info}")?;
    out.write_all(body.as_bytes())?;
    if !body.ends_with('\n') {
        writeln!(out)?;
    }
    writeln!(out, "{fence}\n")
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
        ToolForm::Task { description, agent_type, prompt } => {
            let caption = match (agent_type, description) {
                (Some(a), Some(d)) => Some(format!("{a}: {d}")),
                (a, d) => a.clone().or_else(|| d.clone()),
            };
            shown(caption, "text", prompt.clone().unwrap_or_default())
        }
    }
}

/// Text for one Markdown line (a heading or a list item): printable, line breaks become spaces.
fn one_line(s: &str) -> String {
    crate::printable::for_document(s, Lines::One).into_owned()
}

impl Sink for Markdown<'_> {
    fn head(&mut self, d: &SessionDetails, now: &str) -> std::io::Result<()> {
        writeln!(self.out, "# {}\n", one_line(d.summary.display_name()))?;
        for (k, v) in facts(d) {
            writeln!(self.out, "- **{k}:** {}", one_line(&v))?;
        }
        writeln!(self.out, "\n> {}\n", one_line(&provenance(&d.summary, now)))
    }

    fn messages(&mut self, messages: &[TranscriptMessage]) -> std::io::Result<()> {
        for m in messages {
            match (&m.role, &m.tool_call) {
                (Role::Tool, Some(call)) => {
                    writeln!(self.out, "### Tool: {}\n", one_line(&tool_title(call)))?;
                    if let Some(input) = input_shown(call) {
                        if let Some(c) = &input.caption {
                            writeln!(self.out, "`{}`\n", one_line(c).replace('`', "'"))?;
                        }
                        if !input.body.is_empty() {
                            fenced(self.out, input.lang, &input.body)?;
                        }
                    }
                    if !call.output.is_empty() {
                        let label = if call.is_error { "Error" } else { "Output" };
                        writeln!(
                            self.out,
                            "{label}{}:\n",
                            if call.output_truncated { " (clipped)" } else { "" }
                        )?;
                        fenced(self.out, "text", &call.output)?;
                    }
                }
                _ => {
                    writeln!(self.out, "## {}\n", one_line(&heading(m)))?;
                    if let Some(t) = m.thinking.as_deref().filter(|t| !t.is_empty()) {
                        writeln!(self.out, "<details><summary>Thinking</summary>\n")?;
                        fenced(self.out, "text", t)?;
                        writeln!(self.out, "</details>\n")?;
                    }
                    if m.role == Role::User {
                        // As typed: a fence keeps a pasted block's shape and stops Markdown.
                        fenced(self.out, "text", &m.content)?;
                    } else {
                        writeln!(self.out, "{}\n", printable(m.content.trim_end()))?;
                    }
                }
            }
        }
        Ok(())
    }

    fn end_conversation(&mut self) -> std::io::Result<()> {
        Ok(())
    }

    fn subagent(&mut self, s: &SubagentInfo) -> std::io::Result<()> {
        let what = s.description.as_deref().or(s.agent_type.as_deref()).unwrap_or("subagent");
        writeln!(self.out, "---\n\n# Subagent run {}: {}\n", one_line(&s.agent_id), one_line(what))
    }

    fn end_subagent(&mut self) -> std::io::Result<()> {
        Ok(())
    }

    fn end(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// HTML

struct Html<'a> {
    out: &'a mut dyn Write,
}

/// Escapes text for HTML content and attribute values.
fn esc(s: &str) -> String {
    let s = printable(s);
    let mut o = String::with_capacity(s.len() + s.len() / 8);
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// Claude's Markdown as HTML: raw HTML shown as text, only http(s)/mailto/#links kept, images as
/// their alt text.
fn markdown_html(text: &str) -> String {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let mut opts = Options::empty();
    opts.insert(Options::ENABLE_TABLES);
    opts.insert(Options::ENABLE_STRIKETHROUGH);
    opts.insert(Options::ENABLE_TASKLISTS);
    // An image's alt text stays (as text); the image and its URL do not. A link to anything but
    // http(s), mailto or an anchor keeps its text and loses the link.
    let mut links: Vec<bool> = Vec::new();
    let text = printable(text);
    let events = Parser::new_ext(&text, opts).filter_map(move |e| match e {
        Event::Html(h) | Event::InlineHtml(h) => Some(Event::Text(h)),
        Event::Start(Tag::Image { .. }) | Event::End(TagEnd::Image) => None,
        Event::Start(Tag::Link { ref dest_url, .. }) => {
            let url = dest_url.to_ascii_lowercase();
            let safe = ["http://", "https://", "mailto:", "#"].iter().any(|p| url.starts_with(p));
            links.push(safe);
            safe.then_some(e)
        }
        Event::End(TagEnd::Link) => links.pop().unwrap_or(false).then_some(e),
        other => Some(other),
    });
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, events);
    html
}

const STYLE: &str = "
:root{color-scheme:light dark;--bg:#fff;--fg:#1d1e22;--muted:#64656f;--user:#eef3fd;--code:#f3f3f6;--border:#e1e1e6;--accent:#2f6fe4;--err:#c23a2b;--add:#e3f5e6;--del:#fbe6e4}
@media (prefers-color-scheme:dark){:root{--bg:#1c1d21;--fg:#e6e6ea;--muted:#a0a1ab;--user:#232d40;--code:#15161a;--border:#34353c;--accent:#6d9cf4;--err:#f07060;--add:#1e3a26;--del:#44221f}}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,-apple-system,'Segoe UI',Ubuntu,sans-serif}
main{max-width:920px;margin:0 auto;padding:24px}
h1{font-size:20px;margin:0 0 8px}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;color:var(--muted);font-size:13px}
dl.facts dd{margin:0;word-break:break-all}
.note{color:var(--muted);font-size:13px;border-left:3px solid var(--border);padding-left:10px}
section.msg{margin:14px 0}
section.msg h2{font-size:12px;font-weight:600;color:var(--muted);margin:0 0 4px}
.user .body{background:var(--user);border-radius:10px;padding:8px 12px;white-space:pre-wrap;word-wrap:break-word}
pre,code{font-family:ui-monospace,'SF Mono',Menlo,Consolas,monospace;font-size:12.5px}
pre{background:var(--code);padding:8px 10px;border-radius:6px;overflow-x:auto;white-space:pre-wrap;word-wrap:break-word}
details.tool{border:1px solid var(--border);border-radius:6px;padding:4px 10px;margin:6px 0}
details.tool summary{cursor:pointer;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px}
details.tool.error{border-color:var(--err)}
details.thinking summary{color:var(--muted);cursor:pointer}
h3.part{font-size:12px;color:var(--muted);margin:8px 0 2px}
pre.diff span{display:block}pre.diff .add{background:var(--add)}pre.diff .del{background:var(--del)}
a{color:var(--accent)}
hr{border:0;border-top:1px solid var(--border);margin:28px 0}
table{border-collapse:collapse}td,th{border:1px solid var(--border);padding:2px 6px}
";

impl Sink for Html<'_> {
    fn head(&mut self, d: &SessionDetails, now: &str) -> std::io::Result<()> {
        let title = esc(d.summary.display_name());
        write!(
            self.out,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n\
             <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\"/>\n\
             <meta name=\"color-scheme\" content=\"light dark\"/>\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n\
             <meta name=\"generator\" content=\"Corral\"/>\n<title>{title}</title>\n<style>{STYLE}</style>\n\
             </head>\n<body>\n<main>\n<h1>{title}</h1>\n<dl class=\"facts\">\n"
        )?;
        for (k, v) in facts(d) {
            writeln!(self.out, "<dt>{k}</dt><dd>{}</dd>", esc(&v))?;
        }
        writeln!(self.out, "</dl>\n<p class=\"note\">{}</p>", esc(&provenance(&d.summary, now)))
    }

    fn messages(&mut self, messages: &[TranscriptMessage]) -> std::io::Result<()> {
        for m in messages {
            if let (Role::Tool, Some(call)) = (&m.role, &m.tool_call) {
                let class = if call.is_error { "tool error" } else { "tool" };
                writeln!(
                    self.out,
                    "<details class=\"{class}\"><summary>{}</summary>",
                    esc(&tool_title(call))
                )?;
                if let Some(input) = input_shown(call) {
                    let caption = input.caption.as_deref().map(esc).unwrap_or_default();
                    writeln!(self.out, "<h3 class=\"part\">Input <code>{caption}</code></h3>")?;
                    if input.lang == "diff" {
                        // Each line of the diff in its colour, as the viewer draws it.
                        write!(self.out, "<pre class=\"diff\">")?;
                        for line in input.body.lines() {
                            let class = match line.chars().next() {
                                Some('+') => "add",
                                Some('-') => "del",
                                _ => "same",
                            };
                            writeln!(self.out, "<span class=\"{class}\">{}</span>", esc(line))?;
                        }
                        writeln!(self.out, "</pre>")?;
                    } else if !input.body.is_empty() {
                        writeln!(self.out, "<pre>{}</pre>", esc(&input.body))?;
                    }
                }
                if !call.output.is_empty() {
                    let label = if call.is_error { "Error" } else { "Output" };
                    let clipped = if call.output_truncated { " (clipped)" } else { "" };
                    writeln!(
                        self.out,
                        "<h3 class=\"part\">{label}{clipped}</h3><pre>{}</pre>",
                        esc(&call.output)
                    )?;
                }
                writeln!(self.out, "</details>")?;
                continue;
            }
            let class = if m.role == Role::User { "user" } else { "assistant" };
            writeln!(self.out, "<section class=\"msg {class}\">\n<h2>{}</h2>", esc(&heading(m)))?;
            if let Some(t) = m.thinking.as_deref().filter(|t| !t.is_empty()) {
                writeln!(
                    self.out,
                    "<details class=\"thinking\"><summary>Thinking</summary><pre>{}</pre></details>",
                    esc(t)
                )?;
            }
            if m.role == Role::User {
                writeln!(self.out, "<div class=\"body\">{}</div>", esc(&m.content))?;
            } else {
                writeln!(self.out, "<div class=\"body\">{}</div>", markdown_html(&m.content))?;
            }
            writeln!(self.out, "</section>")?;
        }
        Ok(())
    }

    fn end_conversation(&mut self) -> std::io::Result<()> {
        Ok(())
    }

    fn subagent(&mut self, s: &SubagentInfo) -> std::io::Result<()> {
        let what = s.description.as_deref().or(s.agent_type.as_deref()).unwrap_or("subagent");
        writeln!(self.out, "<hr/>\n<h1>Subagent run {}: {}</h1>", esc(&s.agent_id), esc(what))
    }

    fn end_subagent(&mut self) -> std::io::Result<()> {
        Ok(())
    }

    fn end(&mut self) -> std::io::Result<()> {
        writeln!(self.out, "</main>\n</body>\n</html>")
    }
}

// ---------------------------------------------------------------------------------------------
// JSON (written piece by piece; the shape is `ExportedTranscript`)

struct Json<'a> {
    out: &'a mut dyn Write,
    first: bool,
}

impl Sink for Json<'_> {
    fn head(&mut self, d: &SessionDetails, now: &str) -> std::io::Result<()> {
        write!(self.out, "{{\"format\":\"corral-transcript\",\"version\":1,\"exportedAt\":")?;
        serde_json::to_writer(&mut *self.out, now)?;
        write!(self.out, ",\"session\":")?;
        serde_json::to_writer(&mut *self.out, &d.summary)?;
        write!(self.out, ",\"usage\":")?;
        serde_json::to_writer(&mut *self.out, &d.usage)?;
        write!(self.out, ",\"messages\":[")?;
        self.first = true;
        Ok(())
    }

    fn messages(&mut self, messages: &[TranscriptMessage]) -> std::io::Result<()> {
        for m in messages {
            if !self.first {
                write!(self.out, ",")?;
            }
            self.first = false;
            writeln!(self.out)?;
            serde_json::to_writer(&mut *self.out, m)?;
        }
        Ok(())
    }

    fn end_conversation(&mut self) -> std::io::Result<()> {
        write!(self.out, "],\"subagents\":[")?;
        self.first = true;
        Ok(())
    }

    fn subagent(&mut self, s: &SubagentInfo) -> std::io::Result<()> {
        if !self.first {
            write!(self.out, ",")?;
        }
        write!(self.out, "\n{{\"agentId\":")?;
        serde_json::to_writer(&mut *self.out, &s.agent_id)?;
        write!(self.out, ",\"agentType\":")?;
        serde_json::to_writer(&mut *self.out, &s.agent_type)?;
        write!(self.out, ",\"description\":")?;
        serde_json::to_writer(&mut *self.out, &s.description)?;
        write!(self.out, ",\"messages\":[")?;
        self.first = true;
        Ok(())
    }

    fn end_subagent(&mut self) -> std::io::Result<()> {
        write!(self.out, "]}}")?;
        self.first = false;
        Ok(())
    }

    fn end(&mut self) -> std::io::Result<()> {
        writeln!(self.out, "]}}")
    }
}
