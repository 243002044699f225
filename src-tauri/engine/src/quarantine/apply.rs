//! Carrying a delete out: one run, each item journaled before it moves into the quarantine.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use chrono::{DateTime, Utc};
use serde::Serialize;
use ts_rs::TS;

use super::plan::{DeleteRequest, plan_delete_in};
use super::planned::{DeletePlan, PlannedSession, RefusedSession};
use crate::catalog::Catalog;
use crate::error::{Error, Result};
use crate::metadata::MetadataStore;
use crate::occupancy::ProcessSource;
use crate::runs::{DeletedSession, EntryKind, EntryState, JournalEntry, RunFor, RunWriter};
use crate::time::iso;

/// How far a delete has got (sent after each session).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DeleteProgress {
    /// Sessions done so far.
    pub done: u32,
    /// Sessions in all.
    pub total: u32,
    /// Bytes moved so far.
    #[ts(type = "number")]
    pub bytes: u64,
}

/// What a delete did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DeleteReport {
    /// The run that can undo it (`None`: nothing moved, so no run was recorded).
    pub run_id: Option<String>,
    /// The sessions moved into the quarantine.
    pub deleted: Vec<String>,
    /// Those left alone, and why (the plan's refusals and any that failed midway).
    pub refused: Vec<RefusedSession>,
    /// Bytes moved.
    #[ts(type = "number")]
    pub bytes: u64,
    /// Stopped before its end (between two sessions).
    pub cancelled: bool,
}

/// Deletes what `request` names: planned again here, against the process table as it is now
/// (a preview may be minutes old), then carried out as one run. Drops the catalog's cached
/// listings afterwards.
pub fn delete_in(
    catalog: &Catalog,
    request: &DeleteRequest,
    processes: &dyn ProcessSource,
    now: DateTime<Utc>,
    progress: &mut dyn FnMut(DeleteProgress),
    cancel: &AtomicBool,
) -> Result<DeleteReport> {
    let plan = plan_delete_in(catalog, request, processes, now)?;
    if !plan.sessions.is_empty() {
        catalog.claim_for_state_write()?;
    }
    let stores = DeleteStores {
        claude_home: catalog.claude_home(),
        state_dir: catalog.state_dir(),
        data_dir: catalog.data_dir(),
    };
    let report = apply(&stores, plan, now, progress, cancel);
    catalog.invalidate(&[]);
    report
}

/// Where the run writes.
struct DeleteStores<'a> {
    pub claude_home: &'a Path,
    pub state_dir: &'a Path,
    pub data_dir: &'a Path,
}

/// Moves every planned session's items into a new run's quarantine folder, journaling each item
/// before it moves; stops between sessions when `cancel` is set.
fn apply(
    stores: &DeleteStores<'_>,
    plan: DeletePlan,
    now: DateTime<Utc>,
    progress: &mut dyn FnMut(DeleteProgress),
    cancel: &AtomicBool,
) -> Result<DeleteReport> {
    let mut report = DeleteReport {
        run_id: None,
        deleted: Vec::new(),
        refused: plan.refused,
        bytes: 0,
        cancelled: false,
    };
    if plan.sessions.is_empty() {
        return Ok(report);
    }
    let root =
        crate::runs::check_backup_root(stores.data_dir, stores.claude_home, stores.state_dir)?;
    let mut w = RunWriter::create(
        &root,
        now,
        RunFor::Delete { claude_home: stores.claude_home, state_dir: stores.state_dir },
    )?;
    let one_at_a_time = crate::files::lock_folder(&w.dir)?;
    let quarantine = crate::runs::quarantine_dir(stores.data_dir, &w.journal.run_id);
    fs::create_dir_all(&quarantine).map_err(|e| Error::io_at("create folder", &quarantine, e))?;
    let total = u32::try_from(plan.sessions.len()).unwrap_or(u32::MAX);
    let store = MetadataStore::new(stores.state_dir);
    let journaled = journal_all(&mut w, &plan.sessions, &store)?;
    let mut attempted = 0usize;
    for (i, (session, indices)) in plan.sessions.iter().zip(&journaled).enumerate() {
        if cancel.load(Ordering::SeqCst) {
            report.cancelled = true;
            w.journal.cancelled = true;
            break;
        }
        attempted = i + 1;
        match move_session(&mut w, &quarantine, session, indices) {
            Ok(bytes) => {
                remove_names(&mut w, &store, indices.get(session.items.len()..).unwrap_or(&[]));
                report.bytes = report.bytes.saturating_add(bytes);
                report.deleted.push(session.session_id.clone());
            }
            Err(why) => report
                .refused
                .push(RefusedSession { session_id: session.session_id.clone(), reason: why }),
        }
        if attempted.is_multiple_of(SAVE_EVERY) {
            w.save()?;
        }
        progress(DeleteProgress {
            done: u32::try_from(attempted).unwrap_or(u32::MAX),
            total,
            bytes: report.bytes,
        });
    }
    // Sessions a cancel kept out were never touched: they leave the journal.
    // (A session with no item left has no entry: the first entry of any later one counts.)
    if let Some(first_untouched) = journaled.get(attempted..).into_iter().flatten().flatten().next()
    {
        w.journal.entries.truncate(*first_untouched);
    }
    if let Some(d) = w.journal.delete.as_mut() {
        d.sessions.truncate(attempted);
    }
    w.journal.finished_at = Some(iso(Utc::now().max(now)));
    w.save()?;
    if w.journal.entries.iter().all(|e| e.state != EntryState::Done) {
        // Nothing moved: a run that did nothing would only be litter in History.
        drop(one_at_a_time);
        let _ = fs::remove_dir(&quarantine);
        let _ = fs::remove_dir(quarantine.parent().unwrap_or(&quarantine));
        w.discard();
        return Ok(report);
    }
    report.run_id = Some(w.journal.run_id.clone());
    Ok(report)
}

/// How many sessions go between two saves of the journal while items move (each item was
/// journaled before the first move; these saves only keep its states current for a reader).
const SAVE_EVERY: usize = 50;

/// Journals every item of every planned session as intended, in one write before anything moves
/// (one write per item would make a delete of thousands of sessions rewrite a growing journal
/// thousands of times). Gives each session's entry indices; a crash from here on leaves every
/// item in its place or in the quarantine slot its entry names, which is all undo needs.
fn journal_all(
    w: &mut RunWriter,
    sessions: &[PlannedSession],
    store: &MetadataStore,
) -> Result<Vec<Vec<usize>>> {
    let mut slot = 0usize;
    let mut out = Vec::with_capacity(sessions.len());
    for session in sessions {
        if let Some(d) = w.journal.delete.as_mut() {
            d.sessions.push(DeletedSession {
                session_id: session.session_id.clone(),
                name: session.name.clone(),
                working_directory: session.working_directory.clone(),
            });
        }
        let mut indices = Vec::with_capacity(session.items.len() + session.names.len());
        for item in &session.items {
            slot += 1;
            let leaf = Path::new(&item.path)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let mut e = JournalEntry::new(
                EntryKind::Quarantined,
                session.session_id.clone(),
                item.path.clone(),
                None,
                Some(format!("{slot}/{leaf}")),
                EntryState::Intended,
            );
            e.leftover = Some(item.kind);
            indices.push(w.journal.entries.len());
            w.journal.entries.push(e);
        }
        for name in &session.names {
            let Ok(file) = store.file_path(&name.agent_key) else { continue };
            let mut e = JournalEntry::new(
                EntryKind::Name,
                session.session_id.clone(),
                file.display().to_string(),
                None,
                None,
                EntryState::Intended,
            );
            e.agent_name = Some(name.agent_key.clone());
            e.previous_name = Some(name.name.clone());
            indices.push(w.journal.entries.len());
            w.journal.entries.push(e);
        }
        out.push(indices);
    }
    w.save()?;
    crate::fault::fault_point("delete: every item journaled");
    Ok(out)
}

/// Moves one session's items (journaled at `indices`), the transcript first; returns the bytes
/// moved, or why the session stays (its transcript did not move; items moved before a failure
/// are in the quarantine and the run's undo puts them back).
fn move_session(
    w: &mut RunWriter,
    quarantine: &Path,
    session: &PlannedSession,
    indices: &[usize],
) -> std::result::Result<u64, String> {
    let mut bytes = 0u64;
    for (item, &index) in session.items.iter().zip(indices) {
        let from = PathBuf::from(&item.path);
        let rel = w.journal.entries.get(index).and_then(|e| e.backup.clone()).unwrap_or_default();
        let to = quarantine.join(&rel);
        let moved = to
            .parent()
            .map_or(Ok(()), fs::create_dir_all)
            .and_then(|()| crate::moving::move_no_replace(&from, &to));
        crate::fault::fault_point("delete: item moved, journal not yet updated");
        match moved {
            Ok(_) => {
                let size = crate::moving::tree_size(&to).map_or(item.bytes, |s| s.bytes);
                bytes = bytes.saturating_add(size);
                if let Some(entry) = w.journal.entries.get_mut(index) {
                    entry.backup_size = Some(size);
                }
                w.set(index, EntryState::Done, None, None).map_err(|e| e.to_string())?;
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let _ = fs::remove_dir(to.parent().unwrap_or(&to));
                w.set(index, EntryState::Skipped, None, Some("gone before it was moved".into()))
                    .map_err(|e| e.to_string())?;
            }
            Err(e) => {
                let _ = fs::remove_dir(to.parent().unwrap_or(&to));
                let why = format!("cannot move {} into the quarantine: {e}", item.path);
                w.set(index, EntryState::Failed, None, Some(why.clone()))
                    .map_err(|e| e.to_string())?;
                let _ = w.save();
                return Err(if bytes == 0 {
                    format!("not deleted: {why}")
                } else {
                    format!("partly deleted ({why}); undo the run to put the rest back")
                });
            }
        }
    }
    Ok(bytes)
}

/// Removes herdctl's names of a session whose items moved (journaled at `indices`), each as
/// herdctl has it now: a name renamed since the plan is journaled as it is before it goes, and one
/// already gone is skipped. A name that cannot be removed stays, and its entry says why.
fn remove_names(w: &mut RunWriter, store: &MetadataStore, indices: &[usize]) {
    for &index in indices {
        let Some(entry) = w.journal.entries.get(index) else { continue };
        let (sid, key) = (entry.session_id.clone(), entry.agent_name.clone().unwrap_or_default());
        let result = match store.custom_name(&key, &sid) {
            Ok(None) => {
                let _ = w.set(index, EntryState::Skipped, None, Some("no name any more".into()));
                continue;
            }
            Ok(Some(now)) => {
                if let Some(e) = w.journal.entries.get_mut(index) {
                    e.previous_name = Some(now);
                }
                // The name as it is now is on disk in the journal before it goes.
                w.save().and_then(|()| store.set_custom_name(&key, &sid, None))
            }
            Err(e) => Err(e),
        };
        let _ = match result {
            Ok(()) => w.set(index, EntryState::Done, None, None),
            Err(e) => w.set(index, EntryState::Failed, None, Some(e.to_string())),
        };
    }
}
