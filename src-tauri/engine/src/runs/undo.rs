//! The guarded undo: each journal entry decided against the filesystem as it is now, then
//! carried out or reported.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::adoption_store::{self, AdoptionRecord};
use crate::atomic_write::{sync_dir, write_atomic};
use crate::catalog::Catalog;
use crate::error::{Error, Result};
use crate::placement::{PlacedAs, PlacementMode, copy_exclusive, copy_new, temp_path_for};
use crate::time::iso;

use super::journal::{
    BACKUP_DIR, EntryKind, EntryState, JOURNAL_FILE, JournalEntry, RunJournal, STARTED_FILE,
    STORE_BACKED_UP, STORE_BACKUP_DIR, UntrustedBackup, change_time, read_journal, verified_backup,
};
use super::quarantined::{QuarantineStep, QuarantineUndo};
use super::rename::{RenameStep, RenameUndo};
use super::run_dir;
use super::sidebar::{SidebarStep, SidebarUndo};
use crate::files::same_content;
use crate::paths::companion_session_file;

mod decide;
mod execute;

use decide::Decider;
use execute::{execute, step_summary};

/// What undo did (or would do) to one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum UndoAction {
    /// A file the run created was removed.
    Removed,
    /// A moved transcript was put back at its source (and its destination removed).
    RestoredSource,
    /// A moved transcript was put back at its source from the backup.
    RestoredFromBackup,
    /// An adoption record the run wrote was removed.
    RecordRemoved,
    /// The adoption record the run overwrote was put back from the backup.
    RecordRestored,
    /// A temp file a crashed copy left behind was removed.
    TempRemoved,
    /// A desktop-app sidebar entry the run replaced was put back from the backup.
    EntryRestored,
    /// A folder the run created was removed (it was empty again).
    FolderRemoved,
    /// A folder the run created was kept because something else is in it now.
    FolderKept,
    /// Nothing to do: already undone (or never created).
    AlreadyGone,
    /// A rename's previous title was appended to the transcript (the picker shows it again).
    TitleAppended,
    /// Claude Code's title sidecar the rename replaced was put back from the backup.
    SidecarRestored,
    /// Claude Code's title sidecar the rename created was removed.
    SidecarRemoved,
    /// herdctl's name under one agent key was set back to what it was.
    NameRestored,
    /// Something a deleted session left behind was put back from the quarantine.
    Unquarantined,
    /// The adoption record a release removed was put back from the backup.
    RecordPutBack,
}

/// One path undo handled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UndoItem {
    /// The path.
    pub path: String,
    /// What undo did (or would do) to it.
    pub action: UndoAction,
    /// The session it belongs to, if any.
    pub session_id: Option<String>,
}

/// One path undo refused to touch, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct NotUndone {
    /// The path.
    pub path: String,
    /// Why it was left as it is.
    pub reason: String,
    /// The session it belongs to, if any.
    pub session_id: Option<String>,
}

/// What `undo` would do, computed without changing anything.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UndoPlan {
    /// The run.
    pub run_id: String,
    /// What undo would do, path by path.
    pub steps: Vec<UndoItem>,
    /// What it would leave alone, and why.
    pub not_undone: Vec<NotUndone>,
}

/// What `undo` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UndoReport {
    /// The run.
    pub run_id: String,
    /// What undo did, path by path.
    pub undone: Vec<UndoItem>,
    /// What it left alone, and why.
    pub not_undone: Vec<NotUndone>,
}

/// The stores undo acts on — from the catalog it was pointed at, never from the journal.
#[derive(Debug, Clone)]
pub struct UndoTarget {
    /// The Claude home undo is pointed at.
    pub claude_home: PathBuf,
    /// The herdctl state dir undo is pointed at.
    pub state_dir: PathBuf,
    /// Corral's data dir, which holds the runs.
    pub data_dir: PathBuf,
    /// The desktop app's session store (a sidebar restore is undone only in the store undo is
    /// pointed at).
    pub desktop_store: Option<PathBuf>,
}

impl UndoTarget {
    /// The stores of `catalog` (no desktop store: see `with_desktop_store`).
    pub fn of(catalog: &Catalog) -> Self {
        Self {
            claude_home: catalog.claude_home().to_path_buf(),
            state_dir: catalog.state_dir().to_path_buf(),
            data_dir: catalog.data_dir().to_path_buf(),
            desktop_store: None,
        }
    }

    /// The same target with the desktop app's store.
    #[must_use]
    pub fn with_desktop_store(mut self, store: Option<PathBuf>) -> Self {
        self.desktop_store = store;
        self
    }
}

/// A decided step.
enum Step {
    /// Remove `path` (a file the run created).
    Remove {
        path: PathBuf,
        action: UndoAction,
    },
    /// Put the moved source back from `dest` (hard link, else a copy of `backup`), then remove
    /// `dest`.
    RestoreMoved {
        dest: PathBuf,
        source: PathBuf,
        backup: PathBuf,
        /// Folders missing on the way to `source` are created only below this one.
        limit: PathBuf,
    },
    /// Recreate the source from the backup (the destination is already gone).
    RestoreFromBackup {
        source: PathBuf,
        backup: PathBuf,
        limit: PathBuf,
    },
    /// Remove the record.
    RemoveRecord {
        path: PathBuf,
    },
    /// Replace the record by the backed-up bytes.
    RestoreRecord {
        path: PathBuf,
        backup: PathBuf,
    },
    /// Put back the adoption record a release removed, from `backup`, only where none is now.
    PutBackRecord {
        path: PathBuf,
        backup: PathBuf,
        state_dir: PathBuf,
    },
    /// Put a sidebar entry the run replaced back from `backup` (temp + rename).
    PutBack {
        path: PathBuf,
        backup: PathBuf,
        run_id: String,
    },
    /// Remove a folder the run created, if it is empty by then.
    RemoveFolderIfEmpty {
        path: PathBuf,
    },
    Nothing {
        path: PathBuf,
    },
    /// One record of a rename (see [`super::rename`]).
    Rename(RenameStep),
    /// One item of a delete (see [`super::quarantined`]).
    Quarantine(QuarantineStep),
    Refuse {
        path: PathBuf,
        reason: String,
    },
}

/// Computes what undoing `run_id` would do, changing nothing.
pub fn plan_undo(target: &UndoTarget, run_id: &str) -> Result<UndoPlan> {
    plan_undo_of(target, run_id, None)
}

/// [`plan_undo`] of only the items of `session` (a delete's sessions are put back one by one).
pub fn plan_undo_of(target: &UndoTarget, run_id: &str, session: Option<&str>) -> Result<UndoPlan> {
    let (_, _, decided) = decide(target, run_id, session)?;
    let mut plan =
        UndoPlan { run_id: run_id.to_owned(), steps: Vec::new(), not_undone: Vec::new() };
    for (sid, step) in decided {
        match step_summary(&step) {
            Ok((path, action)) => plan.steps.push(UndoItem { path, action, session_id: sid }),
            Err((path, reason)) => {
                plan.not_undone.push(NotUndone { path, reason, session_id: sid });
            }
        }
    }
    Ok(plan)
}

/// Undoes `run_id` as far as the guards allow, reports every item, and marks the journal.
pub fn undo(target: &UndoTarget, run_id: &str, now: DateTime<Utc>) -> Result<UndoReport> {
    undo_of(target, run_id, None, now)
}

/// [`undo`] of only the items of `session` when it is given: a delete's session put back alone.
/// The journal then records the session as restored; the run is undone once all of them are.
pub fn undo_of(
    target: &UndoTarget,
    run_id: &str,
    session: Option<&str>,
    now: DateTime<Utc>,
) -> Result<UndoReport> {
    // Two undos of one run (the app and the CLI) take turns: the second sees the first's mark.
    let _one_undo = crate::files::lock_folder(&run_dir(&target.data_dir, run_id)?)?;
    let (dir, mut journal, decided) = decide(target, run_id, session)?;
    let mut report =
        UndoReport { run_id: run_id.to_owned(), undone: Vec::new(), not_undone: Vec::new() };
    for (sid, step) in decided {
        match execute(step) {
            Ok((path, action)) => report.undone.push(UndoItem { path, action, session_id: sid }),
            Err((path, reason)) => {
                report.not_undone.push(NotUndone { path, reason, session_id: sid });
            }
        }
    }
    if journal.delete.is_some() {
        // Empty once everything went back: the run's quarantine folder goes with its last item.
        let _ = fs::remove_dir(super::quarantine_dir(&target.data_dir, run_id));
    }
    let whole_run = match session {
        None => true,
        Some(sid) => {
            if report.not_undone.is_empty() && !journal.restored_sessions.iter().any(|s| s == sid) {
                journal.restored_sessions.push(sid.to_owned());
            }
            let deleted = journal.delete.as_ref().map_or(0, |d| d.sessions.len());
            journal.restored_sessions.len() >= deleted
        }
    };
    if whole_run {
        journal.undone_at = Some(iso(now));
        journal.undo_incomplete = report.not_undone.len() as u64;
    }
    let bytes = serde_json::to_vec_pretty(&journal)
        .map_err(|e| Error::InvalidInput(format!("cannot serialize the run journal: {e}")))?;
    write_atomic(&dir.join(JOURNAL_FILE), &bytes)?;
    Ok(report)
}

/// [`plan_undo`] against a catalog's Claude home, state dir and data dir, and the desktop app's
/// store `desktop_store`.
pub fn plan_undo_in(
    catalog: &Catalog,
    desktop_store: Option<PathBuf>,
    run_id: &str,
) -> Result<UndoPlan> {
    plan_undo(&UndoTarget::of(catalog).with_desktop_store(desktop_store), run_id)
}

/// [`undo`] against a catalog's stores; drops the catalog's cached listings afterwards.
pub fn undo_in(
    catalog: &Catalog,
    desktop_store: Option<PathBuf>,
    run_id: &str,
    now: DateTime<Utc>,
) -> Result<UndoReport> {
    let report = undo(&UndoTarget::of(catalog).with_desktop_store(desktop_store), run_id, now);
    catalog.invalidate(&[]);
    report
}

type Decided = Vec<(Option<String>, Step)>;

fn decide(
    target: &UndoTarget,
    run_id: &str,
    session: Option<&str>,
) -> Result<(PathBuf, RunJournal, Decided)> {
    let dir = run_dir(&target.data_dir, run_id)?;
    let journal = read_journal(&dir)?;
    let backup = dir.join(BACKUP_DIR);
    let started = checked_backup(&dir, &backup, run_id)?;
    // A run undone completely stays undone: undoing it again must not touch what came later (a
    // newer run may have placed the same session at the same path).
    if journal.undone_at.is_some() && journal.undo_incomplete == 0 {
        return Ok((dir, journal, Vec::new()));
    }
    checked_store_backup(&backup, &journal, run_id)?;
    let mut decided = decide_entries(target, run_id, &journal, &backup, started);
    if let Some(sid) = session {
        decided.retain(|(s, _)| s.as_deref() == Some(sid));
    }
    Ok((dir, journal, decided))
}

/// The run's backup folder and start marker: without them the guards would answer wrongly, so a
/// missing piece stops the whole undo. Gives the marker's change time (when the run started).
fn checked_backup(dir: &Path, backup: &Path, run_id: &str) -> Result<Option<i128>> {
    if !fs::symlink_metadata(backup).is_ok_and(|m| m.is_dir()) {
        return Err(Error::Refused(format!(
            "backup incomplete: {} is missing, so nothing of run {run_id} can be checked",
            backup.display()
        )));
    }
    let marker = dir.join(STARTED_FILE);
    let started = match fs::symlink_metadata(&marker) {
        Ok(m) if m.is_file() => change_time(&m),
        _ => {
            return Err(Error::Refused(format!(
                "backup incomplete: {} is missing, so whether a file existed before run {run_id} cannot be checked",
                marker.display()
            )));
        }
    };
    Ok(started)
}

/// A restore's undo needs the whole store's backup: without it "not in the backup" would answer
/// for every file on disk.
fn checked_store_backup(backup: &Path, journal: &RunJournal, run_id: &str) -> Result<()> {
    let restores = journal.entries.iter().any(|e| e.kind == EntryKind::SidebarEntry);
    if restores && !fs::symlink_metadata(backup.join(STORE_BACKED_UP)).is_ok_and(|m| m.is_file()) {
        return Err(Error::Refused(format!(
            "backup incomplete: {} holds no complete copy of the store, so nothing of run {run_id} \
             can be checked (restoring that folder by hand would also roll back the desktop \
             app's own later changes)",
            backup.join(STORE_BACKUP_DIR).display()
        )));
    }
    Ok(())
}

/// A herdctl name a delete removed, undone as a rename of the entry's own session.
fn deleted_name_step(target: &UndoTarget, backup: &Path, entry: &JournalEntry) -> Step {
    let own = RenameUndo {
        claude_home: &target.claude_home,
        state_dir: &target.state_dir,
        backup,
        session_id: &entry.session_id,
        transcript: None,
    };
    Step::Rename(own.step(entry))
}

/// Each entry decided, newest first (a run is undone in the reverse of the order it wrote).
fn decide_entries(
    target: &UndoTarget,
    run_id: &str,
    journal: &RunJournal,
    backup: &Path,
    started: Option<i128>,
) -> Decided {
    let ctx =
        Decider { target, run_id, backup, started, mode: journal.mode, entries: &journal.entries };
    let sidebar = SidebarUndo {
        store: target.desktop_store.as_deref(),
        run: journal.sidebar.as_ref(),
        backup,
        run_id,
    };
    let renamed = RenameUndo {
        claude_home: &target.claude_home,
        state_dir: &target.state_dir,
        backup,
        session_id: journal.rename.as_ref().map_or("", |r| r.session_id.as_str()),
        transcript: journal
            .entries
            .iter()
            .find(|e| e.kind == EntryKind::Title)
            .map(|e| e.path.as_str()),
    };
    let quarantine = super::quarantine_dir(&target.data_dir, run_id);
    let quarantined = QuarantineUndo {
        claude_home: &target.claude_home,
        state_dir: &target.state_dir,
        desktop_store: target.desktop_store.as_deref(),
        quarantine: &quarantine,
        emptied_at: journal.emptied_at.as_deref(),
    };
    let mut decided = Vec::new();
    for entry in journal.entries.iter().rev() {
        let sid = Some(entry.session_id.clone());
        match entry.kind {
            // A record the rename had not got to yet (it was killed first) is decided all the
            // same: the files say whether it was written.
            // A delete removes herdctl's names of each session it takes: each entry is undone
            // as a rename of its own session.
            EntryKind::Name if journal.delete.is_some() => {
                decided.push((sid, deleted_name_step(target, backup, entry)));
            }
            EntryKind::Title | EntryKind::TitleSidecar | EntryKind::Name => {
                decided.push((sid, Step::Rename(renamed.step(entry))));
            }
            // An entry the run skipped (a sidebar entry left alone; a folder another process
            // created meanwhile) is not the run's to remove.
            EntryKind::SidebarEntry | EntryKind::Folder if entry.state == EntryState::Skipped => {}
            EntryKind::SidebarEntry => {
                let step = match sidebar.step(entry) {
                    SidebarStep::Remove(path) => Step::Remove { path, action: UndoAction::Removed },
                    SidebarStep::PutBack { path, backup } => {
                        Step::PutBack { path, backup, run_id: run_id.to_owned() }
                    }
                    SidebarStep::Nothing(path) => Step::Nothing { path },
                    SidebarStep::Refuse(path, reason) => Step::Refuse { path, reason },
                };
                decided.push((sid.clone(), step));
                if let Some(tmp) = sidebar.leftover_temp(entry) {
                    decided
                        .push((sid, Step::Remove { path: tmp, action: UndoAction::TempRemoved }));
                }
            }
            EntryKind::Quarantined => {
                for step in quarantined.steps(entry) {
                    decided.push((sid.clone(), Step::Quarantine(step)));
                }
            }
            EntryKind::Record => decided.push((sid, ctx.record_step(entry))),
            EntryKind::Released => decided.push((sid, ctx.released_step(entry))),
            EntryKind::Folder => decided.push((None, ctx.folder_step(entry))),
            EntryKind::File | EntryKind::Companion => {
                if entry.state == EntryState::Skipped
                    || entry.placed_as == Some(PlacedAs::RecordOnly)
                {
                    continue;
                }
                decided.push((sid.clone(), ctx.file_step(entry)));
                if let Some(tmp) = ctx.leftover_temp(entry) {
                    decided
                        .push((sid, Step::Remove { path: tmp, action: UndoAction::TempRemoved }));
                }
            }
        }
    }
    decided
}
