//! Which sessions a delete takes, by id or by rule, and the guards each must pass.

use std::path::Path;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::leftovers::{HomeLeftovers, LeftoverItem, NOT_REMOVED};
use super::planned::{DeletePlan, PlannedSession, RefusedSession, herdctl_names};
use super::sweep::{LeftoverSweep, plan_sweep};
use crate::catalog::Catalog;
use crate::desktop::AppState;
use crate::error::{Error, Result};
use crate::model::SessionSummary;
use crate::occupancy::{OccupancySnapshot, ProcessSource};

/// Rules that pick sessions; a session is picked when it meets every rule given.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct DeleteRules {
    /// Its last activity is more than this many days ago.
    pub older_than_days: Option<u32>,
    /// Nothing was ever typed in it (no prompt; Claude Code's bookkeeping only).
    pub empty: bool,
    /// Its transcript is larger than this many bytes.
    #[ts(type = "number | null")]
    pub larger_than: Option<u64>,
    /// Its working directory no longer exists.
    pub folder_gone: bool,
    /// It ran in this working directory.
    pub working_directory: Option<String>,
    /// This agent (a qualified name) owns it.
    pub agent: Option<String>,
}

impl DeleteRules {
    /// No rule at all.
    pub fn is_none(&self) -> bool {
        self == &Self::default()
    }

    fn picks(&self, s: &SessionSummary, now: DateTime<Utc>) -> bool {
        let older = self.older_than_days.is_none_or(|days| {
            let last = s.last_message_at.as_deref().unwrap_or(&s.mtime);
            DateTime::parse_from_rfc3339(last)
                .is_ok_and(|t| now.signed_duration_since(t).num_days() >= i64::from(days))
        });
        let empty = !self.empty || s.preview.is_none();
        let larger = self.larger_than.is_none_or(|n| s.size_bytes > n);
        let gone = !self.folder_gone
            || (crate::paths::is_absolute_cwd(&s.working_directory)
                && !Path::new(&s.working_directory).exists());
        let within = self.working_directory.as_ref().is_none_or(|w| &s.working_directory == w);
        let owned = self.agent.as_ref().is_none_or(|a| s.agent_name.as_ref() == Some(a));
        older && empty && larger && gone && within && owned
    }
}

/// What to delete: these sessions, or every session the rules pick (both: those of the sessions
/// the rules pick).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct DeleteRequest {
    /// Session ids.
    pub session_ids: Vec<String>,
    /// Rules.
    pub rules: DeleteRules,
    /// Leftovers to sweep up on their own (with or without sessions).
    pub sweep: LeftoverSweep,
    /// The desktop app's store, whose sidebar entries of each session go too while the app is
    /// closed (set by the shell and the CLI from their settings, never by the UI).
    #[serde(skip)]
    #[ts(skip)]
    pub desktop_store: Option<std::path::PathBuf>,
}

/// [`plan_delete`] against the process table `processes` as it is now, which also says whether
/// the desktop app is closed (then the sidebar entries of the request's `desktop_store` go too).
pub fn plan_delete_in(
    catalog: &Catalog,
    request: &DeleteRequest,
    processes: &dyn ProcessSource,
    now: DateTime<Utc>,
) -> Result<DeletePlan> {
    let app = request.desktop_store.as_ref().map(|_| crate::desktop::app_state(processes));
    plan(catalog, request, &OccupancySnapshot::capture(processes), app.as_ref(), now)
}

/// Plans deleting what `request` names against the catalog and the running processes (the
/// desktop app's sidebar is left alone: [`plan_delete_in`] looks at it).
pub fn plan_delete(
    catalog: &Catalog,
    request: &DeleteRequest,
    snapshot: &OccupancySnapshot,
    now: DateTime<Utc>,
) -> Result<DeletePlan> {
    plan(catalog, request, snapshot, None, now)
}

fn plan(
    catalog: &Catalog,
    request: &DeleteRequest,
    snapshot: &OccupancySnapshot,
    app: Option<&AppState>,
    now: DateTime<Utc>,
) -> Result<DeletePlan> {
    let chosen = chosen(catalog, request, now)?;
    let scan = catalog.scan()?;
    let mut home = HomeLeftovers::scan(catalog.claude_home(), catalog.state_dir());
    if let (Some(store), Some(_)) = (&request.desktop_store, app) {
        home = home.with_desktop(store);
    }
    let ids: std::collections::HashSet<&str> =
        chosen.iter().filter_map(|c| c.as_ref().ok()).map(|s| s.session_id.as_str()).collect();
    let mut plan = DeletePlan {
        sessions: Vec::new(),
        refused: Vec::new(),
        bytes: 0,
        not_removed: NOT_REMOVED.iter().map(|s| (*s).to_owned()).collect(),
    };
    for picked in &chosen {
        let s = match picked {
            Ok(s) => s,
            Err(refused) => {
                plan.refused.push(refused.clone());
                continue;
            }
        };
        let refuse = |reason: String| RefusedSession { session_id: s.session_id.clone(), reason };
        if let Some(why) = in_use(s, snapshot, &scan, &home) {
            plan.refused.push(refuse(format!("not deleted: {why}")));
            continue;
        }
        let mut items = home.of(&s.session_id, Path::new(&s.transcript_path));
        let mut notes = notes(s, &items);
        desktop_entries(&home, app, &s.session_id, (&mut items, &mut notes));
        if let Some(special) = items
            .iter()
            .find_map(|i| crate::moving::first_special(Path::new(&i.path)).ok().flatten())
        {
            plan.refused.push(refuse(format!(
                "not deleted: {} is not a file, folder or link, so Corral does not move it",
                special.display()
            )));
            continue;
        }
        let bytes = items.iter().map(|i| i.bytes).sum();
        plan.bytes = plan.bytes.saturating_add(bytes);
        let related: Vec<String> = [&s.continued_from, &s.continued_in]
            .into_iter()
            .flatten()
            .filter(|id| !ids.contains(id.as_str()))
            .cloned()
            .collect();
        plan.sessions.push(PlannedSession {
            session_id: s.session_id.clone(),
            name: s.display_name().to_owned(),
            working_directory: s.working_directory.clone(),
            notes,
            names: herdctl_names(&scan, &s.session_id),
            items,
            bytes,
            related,
        });
    }
    if !request.sweep.is_none() {
        plan_sweep(catalog, &request.sweep, (&scan, &home), snapshot, now, &mut plan);
    }
    Ok(plan)
}

/// Why session `s` is in use, if it is: a `claude` may be on it, a herdctl job runs it, or
/// Claude Code's background job says it is going.
fn in_use(
    s: &SessionSummary,
    snapshot: &OccupancySnapshot,
    scan: &crate::catalog::Scan,
    home: &HomeLeftovers,
) -> Option<String> {
    if let Some(why) =
        snapshot.check(&s.session_id, Some(&s.working_directory), Some(&s.encoded_path))
    {
        return Some(why);
    }
    if let Some(job) = scan.attribution.job(&s.session_id)
        && matches!(job.status.as_deref(), Some("running" | "pending"))
    {
        return Some(format!(
            "herdctl job {} of agent {} is {} on it",
            job.id,
            job.agent,
            job.status.as_deref().unwrap_or("running")
        ));
    }
    let note = home.agent_view_job(&s.session_id).filter(|n| n.active)?;
    Some(format!("Claude Code's background job {} says it is {}", note.id, note.state))
}

/// The desktop app's sidebar entries of `sid` join its items while the app is closed; while it
/// runs (or nobody can tell) they stay, and a note says so.
fn desktop_entries(
    home: &HomeLeftovers,
    app: Option<&AppState>,
    sid: &str,
    (items, notes): (&mut Vec<LeftoverItem>, &mut Vec<String>),
) {
    let entries = home.desktop_entries(sid);
    let n = entries.len();
    let what = if n == 1 {
        "its sidebar entry in the desktop app stays"
    } else {
        "its sidebar entries in the desktop app stay"
    };
    match app {
        _ if n == 0 => {}
        Some(AppState::Closed) => items.extend(entries),
        Some(AppState::Running { .. }) => {
            notes.push(format!("{what}: the app is running (quit it first to remove them too)"));
        }
        Some(AppState::Unknown { reason }) => {
            notes.push(format!("{what}: whether the app is running cannot be told ({reason})"));
        }
        None => {}
    }
}

/// The sessions asked for, each found or refused (an id that is no session).
fn chosen(
    catalog: &Catalog,
    request: &DeleteRequest,
    now: DateTime<Utc>,
) -> Result<Vec<std::result::Result<SessionSummary, RefusedSession>>> {
    if request.session_ids.is_empty() && request.rules.is_none() {
        if !request.sweep.is_none() {
            return Ok(Vec::new());
        }
        return Err(Error::InvalidInput(
            "name the sessions to delete, a rule that picks them, or leftovers to sweep up".into(),
        ));
    }
    // Every main transcript, those with no message (never listed) included.
    let scan = catalog.scan()?;
    let summaries = || {
        scan.transcripts
            .iter()
            .filter(|t| !t.facts.is_sidechain)
            .map(|t| catalog.summary_of(t, &scan))
    };
    let mut out = Vec::new();
    if request.session_ids.is_empty() {
        out.extend(summaries().filter(|s| request.rules.picks(s, now)).map(Ok));
        return Ok(out);
    }
    let mut seen = std::collections::HashSet::new();
    for id in &request.session_ids {
        if !seen.insert(id.as_str()) {
            continue;
        }
        let found = catalog.session(id).or_else(|e| {
            summaries().find(|s| &s.session_id == id && crate::paths::is_uuid(id)).ok_or(e)
        });
        match found {
            Ok(s) if request.rules.picks(&s, now) => out.push(Ok(s)),
            Ok(_) => {}
            Err(e) => {
                out.push(Err(RefusedSession { session_id: id.clone(), reason: e.to_string() }));
            }
        }
    }
    Ok(out)
}

fn notes(s: &SessionSummary, items: &[LeftoverItem]) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(folder) = items.iter().find(|i| i.kind == crate::runs::Leftover::SessionFolder) {
        let runs = std::fs::read_dir(Path::new(&folder.path).join("subagents")).map_or(0, |rd| {
            rd.flatten().filter(|e| e.file_name().to_string_lossy().ends_with(".jsonl")).count()
        });
        if runs > 0 {
            notes.push(format!(
                "its {runs} subagent run{} go{} with it",
                if runs == 1 { "" } else { "s" },
                if runs == 1 { "es" } else { "" }
            ));
        }
    }
    if let Some(from) = &s.continued_from {
        notes.push(format!("it continues session {from}"));
    }
    if let Some(into) = &s.continued_in {
        notes.push(format!("session {into} continues it"));
    }
    notes
}
