//! What is in the quarantine, run by run, and emptying it into the system's trash.

use std::fs;
use std::path::Path;

use chrono::{DateTime, Utc};
use serde::Serialize;
use ts_rs::TS;

use crate::atomic_write::write_atomic;
use crate::error::{Error, Result};
use crate::runs::{EntryKind, EntryState, JOURNAL_FILE, RunJournal, read_journal, run_dir};
use crate::time::iso;

/// One deleted session as the quarantine holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct QuarantinedSession {
    /// The session.
    pub session_id: String,
    /// The name it was shown by.
    pub name: String,
    /// Its working directory.
    pub working_directory: String,
    /// Bytes of it the quarantine holds.
    #[ts(type = "number")]
    pub bytes: u64,
    /// Items of it the quarantine holds.
    pub items: u32,
    /// Put back already.
    pub restored: bool,
}

/// One delete run's part of the quarantine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct QuarantineRun {
    /// The run.
    pub run_id: String,
    /// When the sessions were deleted.
    pub deleted_at: String,
    /// Its sessions.
    pub sessions: Vec<QuarantinedSession>,
    /// Bytes it holds (sessions not put back).
    #[ts(type = "number")]
    pub bytes: u64,
    /// Undone as a whole.
    pub undone: bool,
    /// When it went to the system's trash (`None`: it is still here).
    pub emptied_at: Option<String>,
    /// Its folder.
    pub folder: String,
}

/// Every delete run, newest first, with what its quarantine folder holds.
pub fn quarantine(data_dir: &Path) -> Result<Vec<QuarantineRun>> {
    let mut out = Vec::new();
    for id in crate::runs::run_ids(data_dir)? {
        let Ok(dir) = run_dir(data_dir, &id) else { continue };
        match read_journal(&dir) {
            Ok(journal) if journal.delete.is_some() => out.push(summarize(data_dir, &journal)),
            _ => {}
        }
    }
    Ok(out)
}

fn summarize(data_dir: &Path, j: &RunJournal) -> QuarantineRun {
    let undone = j.undone_at.is_some() && j.undo_incomplete == 0;
    let sessions: Vec<QuarantinedSession> = j
        .delete
        .iter()
        .flat_map(|d| &d.sessions)
        .map(|s| {
            let held = j.entries.iter().filter(|e| {
                e.kind == EntryKind::Quarantined
                    && e.state == EntryState::Done
                    && e.session_id == s.session_id
            });
            let (bytes, items) =
                held.fold((0u64, 0u32), |(b, n), e| (b + e.backup_size.unwrap_or(0), n + 1));
            let restored = undone || j.restored_sessions.contains(&s.session_id);
            QuarantinedSession {
                session_id: s.session_id.clone(),
                name: s.name.clone(),
                working_directory: s.working_directory.clone(),
                bytes: if restored { 0 } else { bytes },
                items,
                restored,
            }
        })
        .collect();
    QuarantineRun {
        run_id: j.run_id.clone(),
        deleted_at: j.created_at.clone(),
        bytes: if j.emptied_at.is_some() { 0 } else { sessions.iter().map(|s| s.bytes).sum() },
        sessions,
        undone,
        emptied_at: j.emptied_at.clone(),
        folder: crate::runs::quarantine_dir(data_dir, &j.run_id).display().to_string(),
    }
}

/// Puts a delete run's sessions back (only `session`'s when given) through the run's undo, and
/// drops the catalog's cached listings; `desktop_store` is where the run's sidebar entries go
/// back to.
pub fn restore_in(
    catalog: &crate::catalog::Catalog,
    desktop_store: Option<std::path::PathBuf>,
    run_id: &str,
    session: Option<&str>,
    now: DateTime<Utc>,
) -> Result<crate::runs::UndoReport> {
    let target = crate::runs::UndoTarget::of(catalog).with_desktop_store(desktop_store);
    let report = crate::runs::undo_of(&target, run_id, session, now);
    catalog.invalidate(&[]);
    report
}

/// Where emptied quarantine folders go.
pub trait Trash {
    /// Moves `path` (a folder) into the trash, or says why it cannot.
    fn put(&self, path: &Path) -> std::result::Result<(), String>;
}

/// The operating system's trash (the freedesktop trash on Linux, the Finder's on macOS, the
/// Recycle Bin on Windows), through the `trash` crate.
pub struct SystemTrash;

impl Trash for SystemTrash {
    fn put(&self, path: &Path) -> std::result::Result<(), String> {
        trash::delete(path).map_err(|e| e.to_string())
    }
}

/// What emptying did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct EmptyReport {
    /// Runs whose quarantine went to the trash.
    pub emptied: Vec<String>,
    /// Bytes that went.
    #[ts(type = "number")]
    pub bytes: u64,
    /// Runs left as they are, and why.
    pub kept: Vec<KeptRun>,
}

/// A run emptying left alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct KeptRun {
    /// The run.
    pub run_id: String,
    /// Why.
    pub reason: String,
}

/// Sends the quarantine of each run in `run_ids` to `trash`. The journal says so first (then
/// undo tells a person to look in the trash); when the trash refuses, the mark is taken back,
/// the files stay, and the report says why — nothing is ever deleted outright.
pub fn empty(
    data_dir: &Path,
    run_ids: &[String],
    trash: &dyn Trash,
    now: DateTime<Utc>,
) -> Result<EmptyReport> {
    let mut report = EmptyReport { emptied: Vec::new(), bytes: 0, kept: Vec::new() };
    for id in run_ids {
        match empty_one(data_dir, id, trash, now) {
            Ok(bytes) => {
                report.emptied.push(id.clone());
                report.bytes = report.bytes.saturating_add(bytes);
            }
            Err(e) => report.kept.push(KeptRun { run_id: id.clone(), reason: e.to_string() }),
        }
    }
    Ok(report)
}

/// The delete runs older than `days` whose quarantine still holds something.
pub fn runs_older_than(data_dir: &Path, days: u32, now: DateTime<Utc>) -> Result<Vec<String>> {
    Ok(quarantine(data_dir)?
        .into_iter()
        .filter(|r| r.emptied_at.is_none() && !r.undone && r.bytes > 0)
        .filter(|r| {
            DateTime::parse_from_rfc3339(&r.deleted_at)
                .is_ok_and(|t| now.signed_duration_since(t).num_days() >= i64::from(days))
        })
        .map(|r| r.run_id)
        .collect())
}

/// Sends every delete run older than `days` whose quarantine still holds something to `trash`
/// (the automatic emptying a person can turn on, and `quarantine empty --older-than`).
pub fn empty_older_than(
    data_dir: &Path,
    days: u32,
    trash: &dyn Trash,
    now: DateTime<Utc>,
) -> Result<EmptyReport> {
    empty(data_dir, &runs_older_than(data_dir, days, now)?, trash, now)
}

fn empty_one(data_dir: &Path, run_id: &str, trash: &dyn Trash, now: DateTime<Utc>) -> Result<u64> {
    let dir = run_dir(data_dir, run_id)?;
    let _one_at_a_time = crate::files::lock_folder(&dir)?;
    let mut journal = read_journal(&dir)?;
    if journal.delete.is_none() {
        return Err(Error::InvalidInput(format!("run {run_id} is no delete")));
    }
    if journal.emptied_at.is_some() {
        return Err(Error::Refused(format!("run {run_id} was emptied already")));
    }
    let folder = crate::runs::quarantine_dir(data_dir, run_id);
    match fs::symlink_metadata(&folder) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(Error::Refused(format!(
                "{} is not a folder; it is left as it is",
                folder.display()
            )));
        }
        Err(_) => return Err(Error::Refused(format!("run {run_id} holds nothing any more"))),
    }
    let bytes = crate::moving::tree_size(&folder).map_or(0, |s| s.bytes);
    journal.emptied_at = Some(iso(now));
    save(&dir, &journal)?;
    crate::fault::fault_point("empty: journal marked, folder not yet in the trash");
    if let Err(why) = trash.put(&folder) {
        journal.emptied_at = None;
        save(&dir, &journal)?;
        return Err(Error::Refused(format!(
            "the system's trash refused {}: {why}; nothing was deleted, it stays in the \
             quarantine",
            folder.display()
        )));
    }
    Ok(bytes)
}

fn save(dir: &Path, journal: &RunJournal) -> Result<()> {
    let bytes = serde_json::to_vec_pretty(journal)
        .map_err(|e| Error::InvalidInput(format!("cannot serialize the run journal: {e}")))?;
    write_atomic(&dir.join(JOURNAL_FILE), &bytes)
}
