//! Live sessions: which conversations a `claude` process is on now, and whether each is working,
//! waiting on its owner, or idle — measured from the process table and the end of the
//! transcript, never guessed from file times alone.
//!
//! The rules, in order (each state is measured from evidence, never assumed):
//! - **unknown** when the process table cannot be read (or a folder-wide process's working
//!   directory cannot): never shown as "not running".
//! - A process resuming this very id (`--resume <id>`, `--session-id <id>`) is **on** it.
//! - A folder-wide process (`--continue`, the picker, no flag) is on the newest session of its
//!   folder when that transcript grew in the last [`RECENT_SECS`]; otherwise which session it is
//!   on cannot be told, and the newest one is shown idle (or waiting, when its last turn asks the
//!   owner) with that said. The folder's other sessions are not running.
//! - For a session a process is on, the end of its transcript decides: a question or a tool call
//!   with no result that has not moved for [`TOOL_GRACE_SECS`] is **waiting** (a question, a
//!   permission request, or a call cut off); a prompt or a tool result still being answered, or
//!   a tool call that is still writing, is **running**; a finished assistant turn is **idle**.
//!
//! "No session is working" and "no session is waiting" are different measurements: an hour
//! without a write proves only the first.
//!
//! A job that started a session (a herdctl job record, a Claude Code background agent) has its
//! own word for its state ([`crate::job_states`]): it is shown beside the measurement, and an
//! Agent View job that says it is blocked on its owner makes a session a process is on
//! **waiting**. It never makes a session running: a record says nothing about a process.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Utc};
use serde::Serialize;
use ts_rs::TS;

use crate::job_states::JobNote;
use crate::model::{Role, SessionSummary, TranscriptMessage};
use crate::occupancy::OccupancySnapshot;

/// A folder-wide process is on its folder's newest session when that one grew this recently.
pub const RECENT_SECS: i64 = 5 * 60;
/// A tool call with no result is still running while its transcript moved this recently.
pub const TOOL_GRACE_SECS: i64 = 15;
/// Messages read from the end of a transcript to tell its turn.
pub const TAIL_MESSAGES: usize = 6;

/// What a session is doing now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum LiveState {
    /// A process is on it and Claude is working.
    Running,
    /// A process is on it and its last turn waits on the owner.
    Waiting,
    /// A process is on it and its turn finished.
    Idle,
    /// No claude process is on it.
    NotRunning,
    /// The process table cannot be read: whether it runs is not known.
    Unknown,
}

/// One session's state and the evidence for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct LiveStatus {
    /// The session.
    pub session_id: String,
    /// What it is doing.
    pub state: LiveState,
    /// The evidence, in words.
    pub why: String,
    /// The process on it, when one is.
    pub pid: Option<u32>,
    /// What the job that started it says, when one does.
    pub job: Option<JobNote>,
}

/// What the end of a transcript says about its turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Turn {
    /// Claude is answering (a prompt or a tool result is the last thing, or a tool still runs).
    Working(String),
    /// The owner is asked something.
    Asking(String),
    /// The turn finished.
    Done,
}

/// Reads the end of a session's transcript (newest message last); `None` when it cannot be read.
pub type TailReader<'a> = dyn FnMut(&SessionSummary) -> Option<Vec<TranscriptMessage>> + 'a;

/// When a session's transcript was last written, in milliseconds since the epoch (asked only of
/// sessions a process may be on, so a listing a moment old is fine for the rest).
pub type WrittenAt<'a> = dyn Fn(&SessionSummary) -> Option<i64> + 'a;

/// The turn the last messages show. `quiet_secs` is how long the transcript has not been
/// written (a tool call with no result is still running while it moves).
pub fn turn_of(tail: &[TranscriptMessage], quiet_secs: i64) -> Turn {
    let Some(last) = tail.last() else { return Turn::Done };
    match (last.role, &last.tool_call) {
        (Role::Tool, Some(call)) if call.pending => {
            let name = call.tool_name.as_str();
            if name == "AskUserQuestion" {
                Turn::Asking("a question waits for your answer".to_owned())
            } else if name == "ExitPlanMode" {
                Turn::Asking("a plan waits for your approval".to_owned())
            } else if quiet_secs < TOOL_GRACE_SECS {
                Turn::Working(format!("running {name}"))
            } else {
                Turn::Asking(format!(
                    "{name} has had no result for {quiet_secs} s: waiting for your permission (or cut off)"
                ))
            }
        }
        (Role::Tool, _) => Turn::Working("a tool result is being answered".to_owned()),
        (Role::User, _) => {
            let text = last.content.trim();
            if text.starts_with("[Request interrupted by user") {
                Turn::Done
            } else {
                Turn::Working("your message is being answered".to_owned())
            }
        }
        (Role::Assistant, _) => {
            if ends_in_question(&last.content) {
                Turn::Asking("Claude asked you a question".to_owned())
            } else {
                Turn::Done
            }
        }
    }
}

/// Whether a reply ends by asking (its last sentence ends in a question mark, Markdown emphasis
/// and closing quotes aside).
fn ends_in_question(text: &str) -> bool {
    text.trim_end()
        .trim_end_matches(['*', '_', '`', '"', '\'', ')', '»', '”'])
        .ends_with(['?', '？'])
}

/// The state of every session in `sessions`, from one look at the process table (`snapshot`),
/// the clock, the write times and ends of the transcripts a process may be on, and what the jobs
/// that started sessions say (`jobs`, by session id).
pub fn live_states(
    sessions: &[SessionSummary],
    snapshot: &OccupancySnapshot,
    now: DateTime<Utc>,
    written_at: &WrittenAt<'_>,
    tail: &mut TailReader<'_>,
    jobs: &HashMap<String, JobNote>,
) -> Vec<LiveStatus> {
    let measured = measure(sessions, snapshot, now, written_at, tail);
    measured.into_iter().map(|m| with_job(m, jobs)).collect()
}

/// A measured status with its job's word added (see the module's rules).
fn with_job(mut m: LiveStatus, jobs: &HashMap<String, JobNote>) -> LiveStatus {
    let Some(job) = jobs.get(&m.session_id) else { return m };
    let said = job.describe();
    match m.state {
        LiveState::Running | LiveState::Idle if job.blocked => {
            m.state = LiveState::Waiting;
            m.why = format!("{}; {said}", m.why);
        }
        LiveState::NotRunning if job.active => {
            m.why = format!(
                "{said}, but no claude process on it is seen here (it may run in a container or on another machine)"
            );
        }
        _ => m.why = format!("{}; {said}", m.why),
    }
    m.job = Some(job.clone());
    m
}

fn measure(
    sessions: &[SessionSummary],
    snapshot: &OccupancySnapshot,
    now: DateTime<Utc>,
    written_at: &WrittenAt<'_>,
    tail: &mut TailReader<'_>,
) -> Vec<LiveStatus> {
    if let Some(reason) = &snapshot.unknown {
        return sessions
            .iter()
            .map(|s| {
                status(
                    s,
                    LiveState::Unknown,
                    format!("the process table cannot be read: {reason}"),
                    None,
                )
            })
            .collect();
    }
    let quiet = |s: &SessionSummary| {
        written_at(s).map_or(i64::MAX, |m| (now.timestamp_millis() - m) / 1000)
    };
    // Each folder-wide process is on the newest session of its folder, if on any.
    // The process on each session, if any: asked once per session (a home may hold 10,000).
    let held: Vec<_> = sessions.iter().map(|s| holder(snapshot, s)).collect();
    let mut newest_of: BTreeMap<u32, (&SessionSummary, Option<i64>)> = BTreeMap::new();
    for (s, h) in sessions.iter().zip(&held) {
        if let Some(h) = h.filter(|h| h.folder_wide) {
            let at = written_at(s);
            let e = newest_of.entry(h.pid).or_insert((s, at));
            if at > e.1 {
                *e = (s, at);
            }
        }
    }
    sessions
        .iter()
        .zip(held)
        .map(|(s, h)| {
            let Some(h) = h else {
                return status(s, LiveState::NotRunning, "no claude process is on it".into(), None);
            };
            // On this very session by its id; a folder-wide process (`--continue`, a fork of a
            // resumed session, no flag) is on the newest session of its folder it may hold.
            let by_id = !h.folder_wide && h.session_id.as_deref() == Some(s.session_id.as_str());
            if !by_id && newest_of.get(&h.pid).map(|n| &n.0.session_id) != Some(&s.session_id) {
                return status(
                    s,
                    LiveState::NotRunning,
                    format!(
                        "claude process {} runs in its folder, on a newer session as far as can be told",
                        h.pid
                    ),
                    None,
                );
            }
            let quiet_secs = quiet(s);
            let fresh = quiet_secs <= RECENT_SECS;
            let sure = by_id || fresh;
            let process = if by_id {
                format!("claude process {} resumes it", h.pid)
            } else if sure {
                format!("claude process {} runs in its folder and it was written {quiet_secs} s ago", h.pid)
            } else {
                format!(
                    "claude process {} runs in its folder (which session it is on cannot be told; this is the newest)",
                    h.pid
                )
            };
            let turn = tail(s).map_or(Turn::Done, |t| turn_of(&t, quiet_secs));
            let (state, what) = match turn {
                Turn::Asking(why) => (LiveState::Waiting, why),
                Turn::Working(why) if fresh => (LiveState::Running, why),
                Turn::Working(_) => (
                    LiveState::Idle,
                    format!("nothing was written for {} min", quiet_secs / 60),
                ),
                Turn::Done => (LiveState::Idle, "its turn finished".to_owned()),
            };
            status(s, state, format!("{process}; {what}"), Some(h.pid))
        })
        .collect()
}

/// [`live_states`] for every listed session of `catalog`, from one look at `processes`.
pub fn live_states_in(
    catalog: &crate::catalog::Catalog,
    processes: &dyn crate::occupancy::ProcessSource,
    now: DateTime<Utc>,
) -> crate::error::Result<Vec<LiveStatus>> {
    // The last listing is enough (a session's write time is read from its file when it matters).
    let sessions = catalog.last_listed_sessions()?;
    let snapshot = OccupancySnapshot::capture(processes);
    let written_at = |s: &SessionSummary| {
        let modified = std::fs::metadata(&s.transcript_path).and_then(|m| m.modified()).ok()?;
        let since = modified.duration_since(std::time::UNIX_EPOCH).ok()?;
        i64::try_from(since.as_millis()).ok()
    };
    let mut tail = |s: &SessionSummary| {
        crate::transcript::messages::read_page(
            std::path::Path::new(&s.transcript_path),
            None,
            TAIL_MESSAGES,
        )
        .ok()
        .map(|p| p.messages)
    };
    let jobs = job_notes(catalog, &snapshot)?;
    Ok(live_states(&sessions, &snapshot, now, &written_at, &mut tail, &jobs))
}

/// What the jobs of `catalog` say, by session id: Claude Code's background agents, herdctl's
/// going jobs (from the last pass's attribution) over them, and over both what a running
/// `claude` of the process table says of the session it is on (its own word, now).
fn job_notes(
    catalog: &crate::catalog::Catalog,
    snapshot: &OccupancySnapshot,
) -> crate::error::Result<HashMap<String, JobNote>> {
    let mut notes = crate::job_states::agent_view_notes(catalog.claude_home());
    let scan = catalog.last_scan()?;
    for (sid, claim) in scan.attribution.jobs() {
        if let Some(note) = JobNote::of_herdctl(claim) {
            notes.insert(sid.to_owned(), note);
        }
    }
    let pids = snapshot.holders.iter().map(|h| h.pid).collect();
    notes.extend(crate::job_states::client_notes(catalog.claude_home(), &pids));
    Ok(notes)
}

/// What the window shows: only the sessions a process is on (a home of 10,000 sessions sends a
/// handful, not 10,000 "not running"), and why nothing can be told when the table is unreadable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct LiveNow {
    /// Running, waiting and idle sessions, and those a job says are still going.
    pub sessions: Vec<LiveStatus>,
    /// Set when whether sessions run cannot be told (the process table cannot be read).
    pub unknown: Option<String>,
}

/// [`live_states_in`], keeping only what the window shows.
pub fn live_now_in(
    catalog: &crate::catalog::Catalog,
    processes: &dyn crate::occupancy::ProcessSource,
    now: DateTime<Utc>,
) -> crate::error::Result<LiveNow> {
    let all = live_states_in(catalog, processes, now)?;
    let unknown = all.iter().find(|s| s.state == LiveState::Unknown).map(|s| s.why.clone());
    let sessions = all
        .into_iter()
        .filter(|s| {
            matches!(s.state, LiveState::Running | LiveState::Waiting | LiveState::Idle)
                || s.job.as_ref().is_some_and(|j| j.active)
        })
        .collect();
    Ok(LiveNow { sessions, unknown })
}

fn holder<'a>(
    snapshot: &'a OccupancySnapshot,
    s: &SessionSummary,
) -> Option<&'a crate::occupancy::Holder> {
    snapshot.holder_of(&s.session_id, Some(&s.working_directory), Some(&s.encoded_path))
}

fn status(s: &SessionSummary, state: LiveState, why: String, pid: Option<u32>) -> LiveStatus {
    LiveStatus { session_id: s.session_id.clone(), state, why, pid, job: None }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use crate::model::ToolCall;

    fn msg(role: Role, content: &str, tool: Option<(&str, bool)>) -> TranscriptMessage {
        TranscriptMessage {
            role,
            content: content.to_owned(),
            uuid: None,
            timestamp: None,
            thinking: None,
            tool_call: tool.map(|(name, pending)| ToolCall {
                tool_name: name.to_owned(),
                tool_use_id: None,
                emoji: String::new(),
                input_summary: None,
                input: None,
                output: String::new(),
                output_truncated: false,
                is_error: false,
                duration_ms: None,
                pending,
                subagent_id: None,
                subagent_missing: false,
                form: None,
                rejected: false,
                output_details: None,
            }),
            origin_kind: None,
            offset: 0,
            attachments: Vec::new(),
        }
    }

    #[test]
    fn the_end_of_a_transcript_tells_its_turn() {
        let asked = msg(Role::Tool, "", Some(("AskUserQuestion", true)));
        assert!(matches!(turn_of(&[asked], 0), Turn::Asking(_)));
        let bash = msg(Role::Tool, "", Some(("Bash", true)));
        assert!(matches!(turn_of(std::slice::from_ref(&bash), 3), Turn::Working(_)));
        assert!(matches!(turn_of(&[bash], 120), Turn::Asking(_)));
        let done = msg(Role::Tool, "", Some(("Bash", false)));
        assert!(matches!(turn_of(&[done], 999), Turn::Working(_)));
        assert!(matches!(turn_of(&[msg(Role::User, "fix it", None)], 0), Turn::Working(_)));
        let cut = msg(Role::User, "[Request interrupted by user for tool use]", None);
        assert_eq!(turn_of(&[cut], 0), Turn::Done);
        let q = msg(Role::Assistant, "Shall I also update the tests?**", None);
        assert!(matches!(turn_of(&[q], 0), Turn::Asking(_)));
        assert_eq!(turn_of(&[msg(Role::Assistant, "Done. All green.", None)], 0), Turn::Done);
        assert_eq!(turn_of(&[], 0), Turn::Done);
    }
}
