//! Import: place transcripts into an agent's folder (with an adoption record) or back into the
//! Claude home, as a pure plan first and a journaled, undoable run second.
//!
//! `plan_import` writes nothing at all — no folders, no caches, no metadata. `apply` creates a run
//! (see [`crate::runs`]) on its first change, journals every file and record before creating it,
//! backs up whatever it could destroy or replace, and never lets one bad file abort the run.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::attribution;
use crate::catalog::Catalog;
use crate::error::{Error, Result};
use crate::model::Attribution;
use crate::paths::cwd_text;
use crate::paths::{encode_path, projects_dir};
use crate::placement::{PlacedAs, PlacementMode};

pub use crate::model::{ImportSkip, ImportTarget, SkipReason};

/// One transcript the plan will place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PlannedPlacement {
    /// The session id.
    pub session_id: String,
    /// What people call the session (custom title › AI title › summary › first prompt), so the
    /// preview can show more than an id.
    #[serde(default)]
    pub name: Option<String>,
    /// Where the transcript is now.
    pub from: String,
    /// Where it will be.
    pub to: String,
    /// The cwd the transcript records (written into the adoption record).
    pub source_cwd: Option<String>,
    /// The transcript already is in its destination folder: only the record is written.
    pub record_only: bool,
    /// For copy/link: a `claude` process may be writing this session (see the occupancy guard).
    pub warning: Option<String>,
    /// Files of the session's own folder (`<sid>/subagents/agent-*.jsonl`, their `.meta.json`,
    /// tool results), relative to `<sid>/` with `/` separators: they travel with the transcript.
    #[serde(default)]
    pub companions: Vec<String>,
}

/// The plan: what `apply` would do, computed without writing anything.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ImportPlan {
    /// Where the transcripts go.
    pub target: ImportTarget,
    /// How they are placed (copy, move, link).
    pub mode: PlacementMode,
    /// What will be placed, in order.
    pub placements: Vec<PlannedPlacement>,
    /// What will not be, and why.
    pub skipped: Vec<ImportSkip>,
    /// Set when the process table could not be read (every session counted as occupied).
    pub occupancy_unknown: Option<String>,
}

/// One transcript an applied run placed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PlacedItem {
    /// The session id.
    pub session_id: String,
    /// Where the transcript was.
    pub from: String,
    /// Where it is now.
    pub to: String,
    /// `None` in a dry run.
    pub placed_as: Option<PlacedAs>,
    /// The adoption record written (agent targets).
    pub record: Option<String>,
    /// A `claude` process may have been writing the session.
    pub warning: Option<String>,
    /// Companion files (subagent transcripts…) placed with it.
    #[serde(default)]
    #[ts(type = "number")]
    pub companions: u64,
}

/// The result of an import (applied, or a dry run with `runId: null`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ImportReport {
    /// `None` when nothing was written (dry run, or nothing to place).
    pub run_id: Option<String>,
    /// The run's folder (journal and backups), when it wrote anything.
    pub run_dir: Option<String>,
    /// What was placed, in order.
    pub placed: Vec<PlacedItem>,
    /// What was not, and why.
    pub skipped: Vec<ImportSkip>,
    /// The run stopped early on request; what was done before is a normal, undoable run.
    pub cancelled: bool,
    /// Nothing was written: this is what would be done.
    pub dry_run: bool,
}

/// Sent before each placement; the callback returns `false` to cancel (between files).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ImportProgress {
    /// Placements done so far.
    #[ts(type = "number")]
    pub done: u64,
    /// Placements in the plan.
    #[ts(type = "number")]
    pub total: u64,
    /// The session about to be placed.
    pub session_id: String,
}

impl PlacedItem {
    /// The item for a planned placement, before anything is placed.
    fn planned(p: &PlannedPlacement, companions: u64) -> Self {
        PlacedItem {
            session_id: p.session_id.clone(),
            from: p.from.clone(),
            to: p.to.clone(),
            placed_as: None,
            record: None,
            warning: p.warning.clone(),
            companions,
        }
    }
}

impl ImportPlan {
    /// The plan shown as a report of a dry run (`runId: null`).
    pub fn dry_run_report(&self) -> ImportReport {
        ImportReport {
            run_id: None,
            run_dir: None,
            placed: self
                .placements
                .iter()
                .map(|p| PlacedItem::planned(p, p.companions.len() as u64))
                .collect(),
            skipped: self.skipped.clone(),
            cancelled: false,
            dry_run: true,
        }
    }
}

/// Who owns a session, in words (the shared wording of [`attribution::describe_owner`]).
pub fn describe_owner(a: &Attribution) -> String {
    attribution::describe_owner(a)
}

/// The agent's transcript folder: `<claude home>/projects/<encode(working dir)>`.
pub(crate) fn agent_folder(catalog: &Catalog, agent: &str) -> Result<PathBuf> {
    let fleet = catalog.fleet().ok_or(Error::NoFleet)?;
    let a = fleet.agent(agent).ok_or_else(|| Error::UnknownAgent(agent.to_owned()))?;
    let wd = a.working_directory.as_ref().ok_or_else(|| {
        Error::InvalidInput(format!("agent {agent:?} has no working directory to import into"))
    })?;
    Ok(projects_dir(catalog.claude_home()).join(encode_path(&cwd_text(wd))))
}

fn skip(
    path: &Path,
    session_id: String,
    reason: SkipReason,
    detail: impl Into<String>,
) -> ImportSkip {
    ImportSkip {
        session_id,
        path: Some(path.display().to_string()),
        reason,
        detail: detail.into(),
        owned_by: None,
    }
}

/// One candidate's result: the value, or the skip that says why not.
type Outcome<T> = std::result::Result<T, ImportSkip>;

mod apply;
mod companions;
mod plan;

pub use apply::{ApplyOptions, apply, apply_with};
pub use plan::plan_import;
