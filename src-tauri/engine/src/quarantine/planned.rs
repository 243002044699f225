//! What a delete would do: the sessions it moves and those it leaves alone (made by `plan` and
//! `sweep`, carried out by `apply`).

use serde::Serialize;
use ts_rs::TS;

use super::leftovers::LeftoverItem;

/// A session the delete would move into the quarantine, with everything it left behind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PlannedSession {
    /// The session.
    pub session_id: String,
    /// The name it is shown by.
    pub name: String,
    /// Its working directory.
    pub working_directory: String,
    /// Everything it left behind, the transcript first.
    pub items: Vec<LeftoverItem>,
    /// The names herdctl keeps for it, removed with it (put back by the run's undo).
    pub names: Vec<HerdctlName>,
    /// Their bytes together.
    #[ts(type = "number")]
    pub bytes: u64,
    /// What to know before deleting it (subagent runs, continuations).
    pub notes: Vec<String>,
    /// Sessions of the same conversation (it continues one, or one continues it) that are not
    /// in this delete: a person may want them gone too.
    pub related: Vec<String>,
}

/// A session the delete leaves alone, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RefusedSession {
    /// The session.
    pub session_id: String,
    /// Why.
    pub reason: String,
}

/// What a delete would do, computed without changing anything.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DeletePlan {
    /// The sessions it would move into the quarantine.
    pub sessions: Vec<PlannedSession>,
    /// Those it would leave alone.
    pub refused: Vec<RefusedSession>,
    /// Bytes it would move.
    #[ts(type = "number")]
    pub bytes: u64,
    /// What a delete never removes.
    pub not_removed: Vec<String>,
}

/// A name herdctl keeps for a session (in `session-metadata/<key>.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct HerdctlName {
    /// The agent key (or `adhoc`) it is kept under.
    pub agent_key: String,
    /// The name.
    pub name: String,
}

/// The names herdctl keeps for session `sid`, as the pass `scan` read them, by key.
pub(super) fn herdctl_names(scan: &crate::catalog::Scan, sid: &str) -> Vec<HerdctlName> {
    let mut out: Vec<HerdctlName> = scan
        .custom_names
        .iter()
        .filter_map(|(key, names)| {
            names.get(sid).map(|n| HerdctlName { agent_key: key.clone(), name: n.clone() })
        })
        .collect();
    out.sort_by(|a, b| a.agent_key.cmp(&b.agent_key));
    out
}
