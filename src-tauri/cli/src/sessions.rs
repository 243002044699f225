//! `sessions`, `show`, `rename`, `agents`.

use corral_engine::export::{self, ExportFormat, ExportRequest};
use corral_engine::model::{Role, SessionSummary, SessionTranscript, TranscriptMessage};
use corral_engine::{Catalog, Error, ListOptions};
use serde_json::json;

use crate::print_json;

#[derive(Debug, clap::Args)]
pub struct SessionsArgs {
    /// Only the sessions attributed to this agent (qualified name, e.g. team.gamma).
    #[arg(long)]
    agent: Option<String>,
    /// At most N sessions (the newest), counted after filtering.
    #[arg(long)]
    limit: Option<usize>,
    /// Include sessions whose working directory is a temp directory.
    #[arg(long)]
    include_temp: bool,
}

#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// The session id.
    session_id: String,
}

#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// The session id.
    session_id: String,
    /// md, html or json.
    #[arg(long, value_parser = parse_format)]
    format: ExportFormat,
    /// Write to this file (refused if it exists, unless --replace) instead of stdout.
    #[arg(long)]
    out: Option<std::path::PathBuf>,
    /// Replace the --out file if it exists.
    #[arg(long, requires = "out")]
    replace: bool,
    /// Follow the conversation with each subagent run.
    #[arg(long)]
    subagents: bool,
}

fn parse_format(s: &str) -> Result<ExportFormat, String> {
    ExportFormat::parse(s).ok_or_else(|| format!("unknown format {s:?}: use md, html or json"))
}

#[derive(Debug, clap::Args)]
pub struct RenameArgs {
    /// The session id.
    session_id: String,
    /// The new name.
    #[arg(required_unless_present = "clear", conflicts_with = "clear")]
    name: Option<String>,
    /// Clear the custom name (the auto name shows again).
    #[arg(long)]
    clear: bool,
}

pub fn sessions(catalog: &Catalog, a: &SessionsArgs, json: bool) -> Result<(), Error> {
    let opts = ListOptions { limit: a.limit, include_temp: a.include_temp };
    if let Some(agent) = &a.agent {
        let sessions = catalog.agent_sessions(agent, opts)?;
        if json {
            return print_json(&json!({ "sessions": sessions }));
        }
        print_rows(&sessions);
        return Ok(());
    }
    let listing = catalog.all_sessions(opts)?;
    if json {
        return print_json(&listing);
    }
    for w in &listing.warnings {
        crate::warn_human(&format!("warning: {}: {}", w.path, w.message));
    }
    for g in &listing.groups {
        let agent = g.agent_name.as_deref().map(|a| format!("  [agent {a}]")).unwrap_or_default();
        crate::say!("{} ({} sessions){agent}", g.working_directory, g.session_count);
        print_rows(&g.sessions);
        crate::say!();
    }
    if listing.groups.is_empty() {
        crate::say!("No Claude Code sessions found in {}", catalog.claude_home().display());
    }
    Ok(())
}

fn print_rows(sessions: &[SessionSummary]) {
    for s in sessions {
        let when = s.last_message_at.as_deref().unwrap_or(&s.mtime);
        let when = when.get(..16).unwrap_or(when).replace('T', " ");
        let owner = s.agent_name.as_deref().unwrap_or("-");
        crate::say!(
            "  {}  {when}  {:<8} {:<16} {:>5} msgs  {}",
            s.session_id,
            s.origin.as_str(),
            clip(owner, 16),
            s.message_count,
            clip(s.display_name(), 60)
        );
    }
}

fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
        out.push('…');
        out
    }
}

/// Streams the transcript: each piece of messages is written as soon as it is built and then
/// dropped, so `show` of a transcript of any size stays within a bounded amount of memory. JSON
/// carries `messages` first and the header fields (known once the whole file was read) after.
pub fn show(catalog: &Catalog, a: &ShowArgs, json: bool) -> Result<(), Error> {
    let mut out = std::io::BufWriter::with_capacity(256 * 1024, std::io::stdout().lock());
    let mut first = true;
    let head = catalog.stream_transcript(&a.session_id, &mut |messages| {
        write_messages(&mut out, &messages, json, &mut first)
    });
    let written = head.and_then(|t| {
        write_header(&mut out, &t, json, first).map_err(|e| Error::io("cannot write to stdout", e))
    });
    match written {
        Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// `export`: to a file (atomically; then a line, or `--json` the summary, says what was written)
/// or to stdout.
pub fn export(catalog: &Catalog, a: &ExportArgs, json: bool) -> Result<(), Error> {
    let req = ExportRequest { format: a.format, subagents: a.subagents };
    let Some(path) = &a.out else {
        let mut out = std::io::BufWriter::with_capacity(256 * 1024, std::io::stdout().lock());
        return match export::export(catalog, &a.session_id, req, &mut out) {
            Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::BrokenPipe => {
                Ok(())
            }
            other => other.map(drop),
        };
    };
    let summary = export::export_to_file(catalog, &a.session_id, req, path, a.replace)?;
    if json {
        return print_json(&summary);
    }
    crate::say!(
        "Wrote {} ({} messages{}, {} bytes)",
        crate::escape_for_terminal(&path.display().to_string()),
        summary.messages,
        match summary.subagents {
            0 => String::new(),
            n => format!(", {n} subagent runs"),
        },
        summary.bytes
    );
    Ok(())
}

/// One piece of messages: JSON array items, or table lines.
fn write_messages(
    out: &mut impl std::io::Write,
    messages: &[TranscriptMessage],
    json: bool,
    first: &mut bool,
) -> std::io::Result<()> {
    for m in messages {
        if json {
            out.write_all(if *first { b"{\"messages\":[\n" } else { b",\n" })?;
            serde_json::to_writer(&mut *out, m)?;
        } else {
            writeln!(out, "{}", crate::escape_for_terminal(&message_line(m)))?;
        }
        *first = false;
    }
    Ok(())
}

/// After the messages: the header fields (JSON), or the session, its usage and its subagents.
fn write_header(
    out: &mut impl std::io::Write,
    t: &SessionTranscript,
    json: bool,
    no_messages: bool,
) -> std::io::Result<()> {
    if json {
        out.write_all(if no_messages { b"{\"messages\":[]" } else { b"\n]" })?;
        if let serde_json::Value::Object(fields) = serde_json::to_value(t)? {
            for (k, v) in fields.iter().filter(|(k, _)| *k != "messages") {
                write!(out, ",{}:{v}", serde_json::Value::String(k.clone()))?;
            }
        }
        out.write_all(b"}\n")?;
    } else {
        let mut tail = vec![format!("Session {}  ({})", t.session_id, t.working_directory)];
        tail.push(format!(
            "Context {} tokens, output {} tokens, {} turns",
            t.usage.input_tokens, t.usage.output_tokens, t.usage.turn_count
        ));
        tail.extend(
            t.subagents.iter().map(|s| format!("subagent {} ({})", s.agent_id, s.transcript_path)),
        );
        for line in tail {
            writeln!(out, "{}", crate::escape_for_terminal(&line))?;
        }
    }
    out.flush()
}

/// One message as the table shows it.
fn message_line(m: &TranscriptMessage) -> String {
    match (&m.role, &m.tool_call) {
        (Role::Tool, Some(c)) => {
            let state = if c.pending {
                "…"
            } else if c.is_error {
                "✗"
            } else {
                "✓"
            };
            let run = match (&c.subagent_id, c.subagent_missing) {
                (Some(id), false) => format!("  [subagent run {id}]"),
                (Some(id), true) => format!("  [subagent run {id}: no transcript on disk]"),
                (None, _) => String::new(),
            };
            format!(
                "  {} {} {} {state}{run}",
                c.emoji,
                c.tool_name,
                clip(c.input_summary.as_deref().unwrap_or(""), 80)
            )
        }
        (Role::User, _) => format!("> {}\n", m.content),
        _ => format!("{}\n", m.content),
    }
}

pub fn rename(catalog: &Catalog, a: &RenameArgs, json: bool) -> Result<(), Error> {
    let name = if a.clear { None } else { a.name.as_deref() };
    let corral_engine::renames::Renamed { session: s, run_id: run } =
        corral_engine::renames::renamed_at(catalog, &a.session_id, name, chrono::Utc::now())?;
    if json {
        return print_json(&s);
    }
    match &s.custom_name {
        Some(n) => crate::say!("{} is now named {n:?}", s.session_id),
        None => {
            crate::say!("{} has no custom name; it shows as {:?}", s.session_id, s.display_name());
        }
    }
    match run {
        Some(id) => crate::say!("run {id}; undo with: corral-cli undo {id}"),
        None => crate::say!("nothing needed changing; no run was recorded"),
    }
    Ok(())
}

pub fn agents(catalog: &Catalog, json: bool) -> Result<(), Error> {
    let agents = catalog.agents()?;
    if json {
        return print_json(&json!({ "agents": agents }));
    }
    for a in &agents {
        let noun = if a.session_count == 1 { "session " } else { "sessions" };
        crate::say!(
            "{:<24} {:>5} {noun} {:>14} tokens  {}",
            a.name,
            a.session_count,
            a.tokens.total(),
            a.working_directory.as_deref().unwrap_or("(no working directory)")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn header() -> SessionTranscript {
        SessionTranscript {
            session_id: "s".into(),
            working_directory: "/w".into(),
            messages: Vec::new(),
            usage: corral_engine::model::Usage::default(),
            subagents: Vec::new(),
            skipped_lines: 2,
        }
    }

    /// The streamed JSON is one valid document, with or without messages.
    #[test]
    fn streamed_json_is_valid_with_and_without_messages() {
        let mut none = Vec::new();
        write_header(&mut none, &header(), true, true).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&none).unwrap();
        assert_eq!(v["messages"], serde_json::json!([]));
        assert_eq!(v["skippedLines"], 2);

        let m = TranscriptMessage {
            role: Role::User,
            content: "hi".into(),
            uuid: None,
            timestamp: None,
            thinking: None,
            tool_call: None,
            origin_kind: None,
            offset: 0,
            attachments: Vec::new(),
        };
        let mut two = Vec::new();
        let mut first = true;
        write_messages(&mut two, std::slice::from_ref(&m), true, &mut first).unwrap();
        write_messages(&mut two, &[m], true, &mut first).unwrap();
        write_header(&mut two, &header(), true, first).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&two).unwrap();
        assert_eq!(v["messages"].as_array().unwrap().len(), 2);
        assert_eq!(v["messages"][1]["content"], "hi");
        assert_eq!(v["sessionId"], "s");
    }
}
