//! The list of runs History shows, each summarized from its journal.

use std::fs;
use std::io::{self};
use std::path::Path;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::journal::{
    BACKUP_DIR, EntryKind, EntryState, RunDelete, RunRelease, RunRename, SidebarTarget,
    read_journal,
};
use super::{runs_root, validate_run_id};
use crate::error::{Error, Result};
use crate::model::ImportTarget;
use crate::placement::{PlacedAs, PlacementMode};

/// Whether (and how far) a run was undone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum UndoState {
    /// Nothing of it was undone.
    NotUndone,
    /// Everything was undone.
    Undone,
    /// Undo ran, but some items could not be undone (see the undo report).
    PartlyUndone,
}

/// One run as the run list shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RunSummary {
    /// The run's id.
    pub run_id: String,
    /// When it started.
    pub created_at: Option<String>,
    /// Where an import placed its files.
    pub target: Option<ImportTarget>,
    /// How an import placed them.
    pub mode: Option<PlacementMode>,
    /// For a desktop-sidebar restore: the sidebar it copied entries into.
    pub sidebar: Option<SidebarTarget>,
    /// For a rename: the session, and its name before and after.
    pub rename: Option<RunRename>,
    /// For a delete: the sessions it moved into the quarantine.
    pub delete: Option<RunDelete>,
    /// For a release: the adoption it ended.
    pub release: Option<RunRelease>,
    /// Adoption records this run wrote that a later release removed (and that release is not
    /// undone): a run that only adopted reads as released once all of its records are.
    #[ts(type = "number")]
    pub released: u64,
    /// For a delete: the sessions put back one by one so far.
    pub restored_sessions: Vec<String>,
    /// For a delete: when its quarantine went to the system's trash.
    pub emptied_at: Option<String>,
    /// For a delete: its quarantine folder.
    pub quarantine_dir: Option<String>,
    /// For a delete: bytes its quarantine folder holds now.
    #[ts(type = "number")]
    pub quarantine_bytes: u64,
    /// Transcripts (or sidebar entries) placed.
    #[ts(type = "number")]
    pub placed: u64,
    /// Adoption records written.
    #[ts(type = "number")]
    pub records: u64,
    /// Candidates an import left out.
    #[ts(type = "number")]
    pub skipped: u64,
    /// False when the run never finished (it crashed, or is still running).
    pub finished: bool,
    /// It was stopped before its end.
    pub cancelled: bool,
    /// Whether it was undone.
    pub undo_state: UndoState,
    /// When the last undo ran.
    pub undone_at: Option<String>,
    /// Its folder (journal and backups).
    pub run_dir: String,
    /// Its backup folder.
    pub backup_dir: String,
    /// Bytes its backups take.
    #[ts(type = "number")]
    pub backup_bytes: u64,
    /// Set when the journal cannot be read (the run is listed, but cannot be undone).
    pub problem: Option<String>,
}

fn dir_size(dir: &Path) -> u64 {
    let Ok(rd) = fs::read_dir(dir) else { return 0 };
    rd.flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_size(&e.path()),
            Ok(t) if t.is_file() => e.metadata().map_or(0, |m| m.len()),
            _ => 0,
        })
        .sum()
}

/// Every run under `<data dir>/runs`, newest first. A missing folder means no runs.
pub fn runs(data_dir: &Path) -> Result<Vec<RunSummary>> {
    let root = runs_root(data_dir);
    let mut listed: Vec<(RunSummary, Vec<Adopted>)> =
        run_ids(data_dir)?.iter().map(|id| summarize(data_dir, &root.join(id), id)).collect();
    // Each adoption a release (not undone) ended, told by the record it removed.
    let ended: std::collections::HashSet<Adopted> = listed
        .iter()
        .filter(|(s, _)| s.undo_state != UndoState::Undone)
        .filter_map(|(s, _)| s.release.as_ref())
        .map(|r| (r.session_id.clone(), r.agent_name.clone(), r.adopted_at.clone()))
        .collect();
    if !ended.is_empty() {
        for (s, adopted) in &mut listed {
            s.released = adopted.iter().filter(|a| ended.contains(*a)).count() as u64;
        }
    }
    Ok(listed.into_iter().map(|(s, _)| s).collect())
}

/// An adoption record a run wrote: (session, agent, adopted at).
type Adopted = (String, String, String);

/// The id of every run folder under `<data dir>/runs` (valid names, real folders), newest first.
/// A missing folder means no runs.
pub fn run_ids(data_dir: &Path) -> Result<Vec<String>> {
    let root = runs_root(data_dir);
    let rd = match fs::read_dir(&root) {
        Ok(rd) => rd,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io_at("read", &root, e)),
    };
    let mut out = Vec::new();
    for entry in rd.flatten() {
        let Some(id) = entry.file_name().to_str().map(str::to_owned) else { continue };
        if validate_run_id(&id).is_err() || !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        out.push(id);
    }
    out.sort_by(|a, b| b.cmp(a));
    Ok(out)
}

/// A run's summary, and the adoption records it wrote.
fn summarize(data_dir: &Path, dir: &Path, id: &str) -> (RunSummary, Vec<Adopted>) {
    let backup = dir.join(BACKUP_DIR);
    let mut s = RunSummary {
        run_id: id.to_owned(),
        created_at: None,
        target: None,
        mode: None,
        sidebar: None,
        rename: None,
        delete: None,
        release: None,
        released: 0,
        restored_sessions: Vec::new(),
        emptied_at: None,
        quarantine_dir: None,
        quarantine_bytes: 0,
        placed: 0,
        records: 0,
        skipped: 0,
        finished: false,
        cancelled: false,
        undo_state: UndoState::NotUndone,
        undone_at: None,
        run_dir: dir.display().to_string(),
        backup_dir: backup.display().to_string(),
        backup_bytes: dir_size(&backup),
        problem: None,
    };
    let mut adopted = Vec::new();
    match read_journal(dir) {
        Ok(j) => {
            adopted = j
                .entries
                .iter()
                .filter(|e| e.kind == EntryKind::Record && e.state == EntryState::Done)
                .filter_map(|e| {
                    Some((e.session_id.clone(), e.agent_name.clone()?, e.adopted_at.clone()?))
                })
                .collect();
            let count = |k: EntryKind| {
                j.entries.iter().filter(|e| e.kind == k && e.state == EntryState::Done).count()
                    as u64
            };
            s.created_at = Some(j.created_at.clone());
            s.placed = j
                .entries
                .iter()
                .filter(|e| {
                    matches!(e.kind, EntryKind::File | EntryKind::SidebarEntry)
                        && e.state == EntryState::Done
                        && e.placed_as != Some(PlacedAs::RecordOnly)
                })
                .count() as u64;
            s.records = count(EntryKind::Record);
            s.skipped = j.skipped.len() as u64;
            s.finished = j.finished_at.is_some();
            s.cancelled = j.cancelled;
            s.undone_at = j.undone_at.clone();
            s.undo_state = match (&j.undone_at, j.undo_incomplete) {
                (None, _) => UndoState::NotUndone,
                (Some(_), 0) => UndoState::Undone,
                (Some(_), _) => UndoState::PartlyUndone,
            };
            s.target = j.target;
            s.sidebar = j.sidebar;
            s.rename = j.rename;
            if j.delete.is_some() {
                let q = super::quarantine_dir(data_dir, id);
                s.quarantine_bytes = dir_size(&q);
                s.quarantine_dir = Some(q.display().to_string());
                s.placed = count(EntryKind::Quarantined);
            }
            s.delete = j.delete;
            s.release = j.release;
            s.restored_sessions = j.restored_sessions;
            s.emptied_at = j.emptied_at;
            s.mode = Some(j.mode);
        }
        Err(e) => s.problem = Some(e.to_string()),
    }
    (s, adopted)
}

// ---------------------------------------------------------------------------------------------
