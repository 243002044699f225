//! What the jobs that started sessions say about them now: herdctl's job records
//! (`<state dir>/jobs/job-*.yaml`, `status`) and Claude Code's own background agents ("Agent
//! View", `<claude home>/jobs/<id>/state.json`, `state` and `tempo`) — and what a running
//! `claude` says of the session it is on (`<claude home>/sessions/<pid>.json`, written by the
//! client while it runs and removed when it exits: `sessionId`, `status` `idle`, `busy` or
//! `waiting`, `waitingFor`; seen with 2.1.332). That last word counts only while the process
//! table holds a `claude` with that pid ([`client_notes`] is given their pids).
//!
//! Neither format is Corral's. Agent View's is not documented at all (the states seen in the wild
//! are `working`, `blocked`, `done`, `failed` and `stopped`; `tempo` is `active`, `idle` or
//! `blocked`), so every field is optional, an unknown value is shown as it is, and a record that
//! does not name its session (by `sessionId`, `session_id` or a session-id-shaped folder name) is
//! passed over. A job's word is shown beside the measurement, never instead of it: a record that
//! says "working" proves nothing about a process (a crashed writer leaves it so for ever).

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::attribution::JobClaim;

/// Largest `state.json` read (they hold a handful of fields).
const MAX_STATE_BYTES: u64 = 256 * 1024;
/// Most Agent View job folders looked at in one pass (the newest are not known without reading
/// them all, so a home with more keeps the first in name order).
const MAX_AGENT_JOBS: usize = 5_000;

/// Who wrote a job record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum JobSource {
    /// A herdctl job record.
    Herdctl,
    /// Claude Code's background agents (`claude --bg`, `claude agents`).
    AgentView,
    /// A running `claude` process's own record of its session (`sessions/<pid>.json`).
    ClaudeCode,
}

/// What a job record says about the session it started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct JobNote {
    /// Which tool wrote the record (herdctl, Agent View).
    pub source: JobSource,
    /// The job's id (herdctl's `job-…`, or Agent View's folder name).
    pub id: String,
    /// The job's own word for its state, as written (`running`, `working`, `blocked`, …).
    pub state: String,
    /// Whether that word means the job is still going (an unknown word counts as going: freeing
    /// a slot on a state not understood is the costlier mistake).
    pub active: bool,
    /// Whether the job says it waits on its owner (Agent View's `blocked`).
    pub blocked: bool,
}

impl JobNote {
    /// The note for a herdctl job, when its record says it is still going (`pending`, `running`);
    /// a finished job says nothing about now.
    pub fn of_herdctl(claim: &JobClaim) -> Option<Self> {
        let state = claim.status.as_deref()?;
        matches!(state, "pending" | "running").then(|| Self {
            source: JobSource::Herdctl,
            id: claim.id.clone(),
            state: state.to_owned(),
            active: true,
            blocked: false,
        })
    }

    /// Words in a sentence: "herdctl job job-… says running".
    pub fn describe(&self) -> String {
        let who = match self.source {
            JobSource::Herdctl => "herdctl job",
            JobSource::AgentView => "background agent",
            JobSource::ClaudeCode => "claude process",
        };
        format!("{who} {} says {}", self.id, self.state)
    }
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawState {
    session_id: Option<String>,
    #[serde(rename = "session_id")]
    session_id_snake: Option<String>,
    state: Option<String>,
    tempo: Option<String>,
}

/// Agent View's notes by session id, read from `<claude_home>/jobs/*/state.json`. A missing
/// folder is no jobs; an unreadable or malformed record is passed over (it is not ours to warn
/// about at every poll).
pub fn agent_view_notes(claude_home: &Path) -> HashMap<String, JobNote> {
    let mut out = HashMap::new();
    let Ok(entries) = std::fs::read_dir(claude_home.join("jobs")) else { return out };
    let mut names: Vec<String> =
        entries.filter_map(Result::ok).filter_map(|e| e.file_name().into_string().ok()).collect();
    names.sort();
    names.truncate(MAX_AGENT_JOBS);
    for name in names {
        let path = claude_home.join("jobs").join(&name).join("state.json");
        let Ok(bytes) = crate::files::read_bounded(&path, MAX_STATE_BYTES) else { continue };
        let Ok(raw) = serde_json::from_slice::<RawState>(&bytes) else { continue };
        let session = raw
            .session_id
            .or(raw.session_id_snake)
            .filter(|s| crate::paths::is_uuid(s))
            .or_else(|| crate::paths::is_uuid(&name).then(|| name.clone()));
        let Some(session) = session else { continue };
        let Some(note) = agent_view_note(&name, raw.state.as_deref(), raw.tempo.as_deref()) else {
            continue;
        };
        out.insert(session, note);
    }
    out
}

/// Most `sessions/<pid>.json` records read in one pass.
const MAX_CLIENT_RECORDS: usize = 5_000;

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawClientRecord {
    pid: Option<u64>,
    session_id: Option<String>,
    status: Option<String>,
    waiting_for: Option<String>,
}

/// What running `claude` processes say of their sessions, by session id, read from
/// `<claude_home>/sessions/<pid>.json` for the pids in `live_pids` only (a record of a process
/// that is gone says nothing). `waiting` is blocked on the owner; `idle` and `busy` are going.
pub fn client_notes(
    claude_home: &Path,
    live_pids: &std::collections::HashSet<u32>,
) -> HashMap<String, JobNote> {
    let mut out = HashMap::new();
    for pid in live_pids.iter().take(MAX_CLIENT_RECORDS) {
        let path = claude_home.join("sessions").join(format!("{pid}.json"));
        let Ok(bytes) = crate::files::read_bounded(&path, MAX_STATE_BYTES) else { continue };
        let Ok(raw) = serde_json::from_slice::<RawClientRecord>(&bytes) else { continue };
        if raw.pid.is_some_and(|p| p != u64::from(*pid)) {
            continue;
        }
        let Some(session) = raw.session_id.filter(|s| crate::paths::is_uuid(s)) else { continue };
        let Some(status) = raw.status.filter(|s| !s.is_empty()) else { continue };
        let blocked = status == "waiting";
        let state = match raw.waiting_for.as_deref().filter(|w| blocked && !w.is_empty()) {
            Some(why) => format!("{status} ({why})"),
            None => status,
        };
        out.insert(
            session,
            JobNote {
                source: JobSource::ClaudeCode,
                id: pid.to_string(),
                state,
                active: true,
                blocked,
            },
        );
    }
    out
}

/// The note an Agent View record makes from its `state` and `tempo` (`None` when it has neither).
fn agent_view_note(id: &str, state: Option<&str>, tempo: Option<&str>) -> Option<JobNote> {
    let state = state.filter(|s| !s.is_empty());
    let tempo = tempo.filter(|s| !s.is_empty());
    let word = state.or(tempo)?;
    let finished = matches!(state, Some("done" | "failed" | "stopped"));
    let blocked = state == Some("blocked") || tempo == Some("blocked");
    Some(JobNote {
        source: JobSource::AgentView,
        id: id.to_owned(),
        state: word.to_owned(),
        active: !finished,
        blocked: blocked && !finished,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn agent_view_words_map_to_going_finished_and_blocked() {
        let n = agent_view_note("j", Some("working"), Some("active")).unwrap();
        assert!(n.active && !n.blocked);
        let n = agent_view_note("j", Some("blocked"), None).unwrap();
        assert!(n.active && n.blocked);
        let n = agent_view_note("j", Some("working"), Some("blocked")).unwrap();
        assert!(n.blocked);
        for done in ["done", "failed", "stopped"] {
            let n = agent_view_note("j", Some(done), Some("blocked")).unwrap();
            assert!(!n.active && !n.blocked, "{done}");
        }
        let n = agent_view_note("j", Some("paused-by-moon"), None).unwrap();
        assert!(n.active, "an unknown state counts as going");
        assert_eq!(n.state, "paused-by-moon");
        assert!(agent_view_note("j", None, None).is_none());
        assert_eq!(agent_view_note("j", None, Some("idle")).unwrap().state, "idle");
    }

    #[test]
    fn a_herdctl_job_says_something_only_while_it_goes() {
        let claim = |status: Option<&str>| JobClaim {
            id: "job-2026-11-30-abc123".into(),
            agent: "a".into(),
            trigger_type: "schedule".into(),
            session_id: None,
            started_at: "2026-11-30T00:00:00Z".into(),
            status: status.map(str::to_owned),
            cost: None,
        };
        assert!(JobNote::of_herdctl(&claim(Some("running"))).unwrap().active);
        assert!(JobNote::of_herdctl(&claim(Some("pending"))).is_some());
        assert!(JobNote::of_herdctl(&claim(Some("completed"))).is_none());
        assert!(JobNote::of_herdctl(&claim(None)).is_none());
    }
}
