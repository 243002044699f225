//! Leftovers swept up without their session: what sessions that no longer exist left behind,
//! and Claude Code's debug logs past an age (a session keeps its transcript).

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::SystemTime;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::leftovers::{HomeLeftovers, LeftoverItem};
use super::planned::{DeletePlan, PlannedSession, RefusedSession, herdctl_names};
use crate::catalog::{Catalog, FoundTranscript, Scan};
use crate::occupancy::OccupancySnapshot;

/// Leftovers a delete sweeps up on their own.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct LeftoverSweep {
    /// Everything sessions that no longer exist left behind (untouched for a day).
    pub orphaned: bool,
    /// Claude Code's debug logs (`debug/<sid>.txt`) untouched for this many days; the sessions
    /// themselves stay.
    pub debug_logs_older_than_days: Option<u32>,
}

impl LeftoverSweep {
    /// Sweeps nothing.
    pub fn is_none(&self) -> bool {
        self == &Self::default()
    }
}

/// The name a gone session's leftovers are listed by.
pub const ORPHANED_NAME: &str = "Leftovers of a session that is gone";

/// Adds what `sweep` takes to `plan`, leaving out sessions the plan names already.
pub(super) fn plan_sweep(
    catalog: &Catalog,
    sweep: &LeftoverSweep,
    (scan, home): (&Scan, &HomeLeftovers),
    snapshot: &OccupancySnapshot,
    now: DateTime<Utc>,
    plan: &mut DeletePlan,
) {
    let mut taken: HashSet<String> = plan
        .sessions
        .iter()
        .map(|s| s.session_id.clone())
        .chain(plan.refused.iter().map(|r| r.session_id.clone()))
        .collect();
    let main: HashMap<&str, &FoundTranscript> = scan
        .transcripts
        .iter()
        .filter(|t| !t.facts.is_sidechain)
        .map(|t| (t.session_id.as_str(), t))
        .collect();
    let now_sys = SystemTime::from(now);
    let mut picked = Vec::new();
    if sweep.orphaned {
        let known: HashSet<&str> = scan.transcripts.iter().map(|t| t.session_id.as_str()).collect();
        for o in home.orphans(&|sid| known.contains(sid), now_sys) {
            picked.push((o.session_id, ORPHANED_NAME.to_owned(), String::new(), o.items, None));
        }
    }
    if let Some(days) = sweep.debug_logs_older_than_days {
        let before = crate::time::days_before(now_sys, days);
        for sid in home.debug_log_ids() {
            let Some((item, newest)) = home.debug_log(&sid) else { continue };
            if newest.is_none_or(|t| t > before) {
                continue;
            }
            let (name, cwd, folder) = match main.get(sid.as_str()) {
                Some(t) => {
                    let s = catalog.summary_of(t, scan);
                    (format!("Debug log of {}", s.display_name()), s.working_directory, Some(t))
                }
                None => ("Debug log of a session that is gone".to_owned(), String::new(), None),
            };
            picked.push((sid, name, cwd, vec![item], folder.map(|t| t.folder.clone())));
        }
    }
    for (sid, name, cwd, items, folder) in picked {
        if !taken.insert(sid.clone()) {
            continue;
        }
        if let Some(why) = guard(&sid, &cwd, folder.as_deref(), &items, snapshot) {
            plan.refused.push(RefusedSession { session_id: sid, reason: why });
            continue;
        }
        let bytes: u64 = items.iter().map(|i| i.bytes).sum();
        plan.bytes = plan.bytes.saturating_add(bytes);
        // A gone session's names go with its leftovers; a debug log's session keeps its own.
        let names = if name == ORPHANED_NAME { herdctl_names(scan, &sid) } else { Vec::new() };
        plan.sessions.push(PlannedSession {
            names,
            session_id: sid,
            name,
            working_directory: cwd,
            items,
            bytes,
            notes: Vec::new(),
            related: Vec::new(),
        });
    }
}

/// Why a swept session's leftovers stay, if they do: a `claude` may be on it, or an item cannot
/// be moved.
fn guard(
    sid: &str,
    cwd: &str,
    folder: Option<&str>,
    items: &[LeftoverItem],
    snapshot: &OccupancySnapshot,
) -> Option<String> {
    let cwd = (!cwd.is_empty()).then_some(cwd);
    if let Some(why) = snapshot.check(sid, cwd, folder) {
        return Some(format!("not moved: {why}"));
    }
    let special = items
        .iter()
        .find_map(|i| crate::moving::first_special(Path::new(&i.path)).ok().flatten())?;
    Some(format!(
        "not moved: {} is not a file, folder or link, so Corral does not move it",
        special.display()
    ))
}
