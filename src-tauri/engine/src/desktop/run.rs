//! Carrying out a restore plan: a journaled, undoable run (see [`crate::runs`]) that copies each
//! chosen entry's file, unchanged, into the target sidebar.
//!
//! In order: the plan is checked against the store as it is now (what changed since the preview
//! is refused, never guessed); the backup root must lie outside the store; the desktop app must
//! be closed; the run folder is created and the **whole store** is copied into its backup; the
//! app is checked again; then, for each entry, the journal names it before the file is created
//! (exclusively) or replaced (temp + rename, only while the file still holds the backed-up
//! bytes). Each entry is copied from the backup's copy of its source, so what the run wrote is
//! exactly what the backup holds — which is what undo checks.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Serialize;
use ts_rs::TS;

use super::restore::{Refusal, RestoreAction, RestoreItem, RestorePlan};
use super::{AppState, Store, app_state, plan_restore};
use crate::atomic_write::sync_dir;
use crate::error::{Error, Result};
use crate::fault::fault_point;
use crate::occupancy::ProcessSource;
use crate::placement::{copy_exclusive, copy_new, temp_path_for};
use crate::runs::{
    EntryKind, EntryState, JournalEntry, RunFor, RunWriter, STORE_BACKED_UP, STORE_BACKUP_DIR,
    SidebarTarget, runs_root,
};
use crate::time::iso;

/// What a restore run needs besides the plan.
pub struct RestoreRun<'a> {
    /// Corral's data dir (the run and its backup go to `<it>/runs/`).
    pub data_dir: &'a Path,
    /// The process table the running-app guard reads (twice).
    pub processes: &'a dyn ProcessSource,
    /// When the run starts (its id and journal say it).
    pub now: DateTime<Utc>,
    /// Stamps when the run finished.
    pub clock: fn() -> DateTime<Utc>,
}

/// Sent before each entry; the callback returns `false` to cancel (between entries).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "DesktopRestoreProgress")]
pub struct RestoreProgress {
    /// Entries done so far.
    #[ts(type = "number")]
    pub done: u64,
    /// Entries in the plan.
    #[ts(type = "number")]
    pub total: u64,
    /// The conversation about to be restored.
    pub cli_session_id: String,
}

/// One entry a run restored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "DesktopRestored")]
pub struct Restored {
    /// The conversation.
    pub cli_session_id: String,
    /// Its title in the sidebar.
    pub title: Option<String>,
    /// The entry's file in the target sidebar.
    pub file: String,
    /// It replaced an entry of the same name (its bytes are in the backup).
    pub replaced: bool,
}

/// What a restore did (or, with `dry_run`, would do).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "DesktopRestoreReport")]
pub struct RestoreReport {
    /// `None` when nothing was written.
    pub run_id: Option<String>,
    /// The run's folder, when one was made.
    pub run_dir: Option<String>,
    /// Nothing was written: this is what would be done.
    pub dry_run: bool,
    /// What was restored.
    pub restored: Vec<Restored>,
    /// What was not, and why.
    pub refused: Vec<Refusal>,
    /// Stopped early on request; what was done before is a normal, undoable run.
    pub cancelled: bool,
    /// Whether the desktop app ran, as the guard saw it.
    pub app: AppState,
    /// What the backup of the whole store took (a dry run: would take; empty when no run was
    /// made).
    pub backup: super::BackupSize,
}

/// A plan and whether the app would let it run now: what the app's preview shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "DesktopRestorePreview")]
pub struct RestorePreview {
    /// What would be restored.
    pub plan: RestorePlan,
    /// Whether the desktop app runs now (a restore waits for it to quit).
    pub app: AppState,
}

impl RestorePreview {
    /// Plans restoring `req` into `(account, org)` of `store` and looks once at `processes`.
    pub fn of(
        store: &Store,
        (account, org): (&str, &str),
        req: &super::RestoreRequest,
        processes: &dyn ProcessSource,
    ) -> Result<Self> {
        Ok(Self { plan: plan_restore(store, account, org, req)?, app: app_state(processes) })
    }
}

impl RestorePlan {
    /// The plan as the report of a dry run.
    pub fn dry_run_report(&self, app: AppState) -> RestoreReport {
        RestoreReport {
            run_id: None,
            run_dir: None,
            dry_run: true,
            restored: self.items.iter().map(restored).collect(),
            refused: self.refused.clone(),
            cancelled: false,
            app,
            backup: self.backup.clone(),
        }
    }
}

fn restored(i: &RestoreItem) -> Restored {
    Restored {
        cli_session_id: i.cli_session_id.clone(),
        title: i.title.clone(),
        file: i.target_path.clone(),
        replaced: i.action != RestoreAction::Create,
    }
}

/// Carries out `plan` (made by [`plan_restore`]) in the store at `store_root`.
/// Refuses while the desktop app runs or may run (`Error::DesktopAppRunning`), and a data dir
/// inside the store (`Error::Refused`). A run that restores nothing leaves no run folder.
pub fn restore(
    store_root: &Path,
    plan: &RestorePlan,
    run: &RestoreRun<'_>,
    progress: &mut dyn FnMut(RestoreProgress) -> bool,
) -> Result<RestoreReport> {
    let (items, refused) = recheck(store_root, plan)?;
    let root = runs_root(run.data_dir);
    if crate::paths::is_same_or_inside(&crate::paths::absolute(&root), store_root) {
        return Err(Error::Refused(format!(
            "the backup folder {} lies inside the desktop app's store {}; choose a data dir \
             outside it",
            root.display(),
            store_root.display()
        )));
    }
    let app = closed_app(run.processes, "")?;
    let mut report = RestoreReport {
        run_id: None,
        run_dir: None,
        dry_run: false,
        restored: Vec::new(),
        refused,
        cancelled: false,
        app,
        backup: super::BackupSize::default(),
    };
    if items.is_empty() {
        return Ok(report);
    }
    let target = SidebarTarget {
        store: store_root.display().to_string(),
        account: plan.account.clone(),
        org: plan.org.clone(),
    };
    let (size, files) = super::backup::measure(store_root)?;
    if size.too_large {
        return Err(super::backup::refusal(store_root, &size));
    }
    let mut w = RunWriter::create(&root, run.now, RunFor::Sidebar(target))?;
    report.backup = size;
    if let Err(e) = back_up_store(store_root, &files, &w.backup_dir()) {
        w.discard();
        return Err(e);
    }
    if let Err(e) = closed_app(run.processes, " (it started while the store was backed up)") {
        w.discard();
        return Err(e);
    }
    let total = items.len() as u64;
    for (i, item) in items.iter().enumerate() {
        let go = progress(RestoreProgress {
            done: i as u64,
            total,
            cli_session_id: item.cli_session_id.clone(),
        });
        if !go {
            report.cancelled = true;
            break;
        }
        match place_entry(&mut w, store_root, item)? {
            Ok(()) => report.restored.push(restored(item)),
            Err(reason) => {
                report
                    .refused
                    .push(Refusal { cli_session_id: item.cli_session_id.clone(), reason });
            }
        }
    }
    if w.journal.entries.iter().all(|e| e.state != EntryState::Done) {
        w.discard();
        return Ok(report);
    }
    w.journal.finished_at = Some(iso((run.clock)().max(run.now)));
    w.journal.cancelled = report.cancelled;
    w.save()?;
    report.run_id = Some(w.journal.run_id.clone());
    report.run_dir = Some(w.dir.display().to_string());
    Ok(report)
}

/// The plan's items that the store, read again now, still plans the same way; the rest are
/// refused with what changed. (A plan may come from anywhere: only what planning gives now is
/// carried out, and only what the person saw.)
fn recheck(store_root: &Path, plan: &RestorePlan) -> Result<(Vec<RestoreItem>, Vec<Refusal>)> {
    if Path::new(&plan.store) != store_root {
        return Err(Error::InvalidInput(format!(
            "the plan is for the store {}, not {}",
            plan.store,
            store_root.display()
        )));
    }
    let fresh = plan_restore(&Store::read(store_root), &plan.account, &plan.org, &plan.request)?;
    let mut refused = plan.refused.clone();
    let mut items = Vec::new();
    for item in &plan.items {
        if fresh.items.contains(item) {
            items.push(item.clone());
            continue;
        }
        let why = fresh
            .refused
            .iter()
            .find(|r| r.cli_session_id == item.cli_session_id)
            .map_or("its entries changed since the preview", |r| r.reason.as_str());
        refused.push(Refusal {
            cli_session_id: item.cli_session_id.clone(),
            reason: format!("not restored: {why}"),
        });
    }
    Ok((items, refused))
}

/// The app's state, when it is closed; else the refusal that says so.
fn closed_app(processes: &dyn ProcessSource, when: &str) -> Result<AppState> {
    let state = app_state(processes);
    match &state {
        AppState::Closed => Ok(state),
        AppState::Running { processes } => Err(Error::DesktopAppRunning(format!(
            "the Claude desktop app is running{when} ({}); quit it first: it rewrites its \
             sidebars while it runs",
            processes
                .iter()
                .take(3)
                .map(|p| format!("pid {} {}", p.pid, p.path))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
        AppState::Unknown { reason } => Err(Error::DesktopAppRunning(format!(
            "whether the Claude desktop app is running cannot be told ({reason}), so nothing \
             was written"
        ))),
    }
}

/// Copies `files` of the store (as [`super::backup::measure`] listed them) into
/// `<backup>/store/`, then marks the copy complete.
fn back_up_store(store_root: &Path, files: &[PathBuf], backup: &Path) -> Result<()> {
    let into = backup.join(STORE_BACKUP_DIR);
    fs::create_dir_all(&into).map_err(|e| Error::io_at("create folder", &into, e))?;
    let mut folders = std::collections::BTreeSet::new();
    for rel in files {
        let (src, dst) = (store_root.join(rel), into.join(rel));
        if let Some(parent) = dst.parent()
            && folders.insert(parent.to_path_buf())
        {
            fs::create_dir_all(parent).map_err(|e| Error::io_at("create folder", parent, e))?;
        }
        match copy_new(&src, &dst) {
            Ok(true) => {}
            Ok(false) => {
                return Err(Error::io_at("back up", &dst, io::ErrorKind::AlreadyExists.into()));
            }
            // Gone between the listing and the copy: nothing of it to lose.
            Err(err) if err.kind() == io::ErrorKind::NotFound => {}
            Err(err) => return Err(Error::io_at("back up", &src, err)),
        }
    }
    for folder in folders.iter().rev() {
        sync_dir(folder);
    }
    crate::atomic_write::create_exclusive(&backup.join(STORE_BACKED_UP), b"")?;
    sync_dir(backup);
    fault_point("restore: the store is backed up");
    Ok(())
}

/// The backup's copy of a store file.
fn backup_copy(w: &RunWriter, store_root: &Path, path: &Path) -> Option<PathBuf> {
    let rel = path.strip_prefix(store_root).ok()?;
    Some(w.backup_dir().join(STORE_BACKUP_DIR).join(rel))
}

/// Journals and places one entry. The outer error is a journal failure, which stops the run;
/// the inner one says why this entry was not placed.
fn place_entry(
    w: &mut RunWriter,
    store_root: &Path,
    item: &RestoreItem,
) -> Result<std::result::Result<(), String>> {
    let (source, target) = (Path::new(&item.source_path), Path::new(&item.target_path));
    let Some(from) = backup_copy(w, store_root, source).filter(|p| p.is_file()) else {
        return Ok(Err("its source is not in the backup (it vanished); not restored".to_owned()));
    };
    let replaced = (item.action != RestoreAction::Create)
        .then(|| backup_copy(w, store_root, target))
        .flatten();
    let replaced_name = replaced
        .as_ref()
        .and_then(|p| p.strip_prefix(w.backup_dir()).ok())
        .map(|p| p.display().to_string());
    if item.action != RestoreAction::Create && replaced_name.is_none() {
        return Ok(Err("the entry it would replace is not in the backup; not restored".to_owned()));
    }
    let mut entry = JournalEntry::new(
        EntryKind::SidebarEntry,
        item.cli_session_id.clone(),
        item.target_path.clone(),
        Some(item.source_path.clone()),
        replaced_name,
        EntryState::Intended,
    );
    if let Some(old) = &replaced {
        let (size, sha) =
            crate::files::sha256_no_follow(old).map_err(|e| Error::io_at("read", old, e))?;
        entry.backup_size = Some(size);
        entry.backup_sha256 = Some(sha);
    }
    let (size, sha) =
        crate::files::sha256_no_follow(&from).map_err(|e| Error::io_at("read", &from, e))?;
    entry.source_size = Some(size);
    entry.source_sha256 = Some(sha);
    let run_id = w.journal.run_id.clone();
    let idx = w.push(entry)?;
    let placed = match &replaced {
        None => match copy_exclusive(&from, target, &run_id) {
            Ok(true) => Ok(()),
            Ok(false) => {
                Err(format!("{} appeared since the preview; left as it is", target.display()))
            }
            Err(e) => Err(format!("cannot create {}: {e}", target.display())),
        },
        Some(old) => replace(&from, target, old, &run_id),
    };
    fault_point("restore: entry placed, journal not yet updated");
    match placed {
        Ok(()) => {
            w.set(idx, EntryState::Done, None, None)?;
            w.record_identity(idx);
            w.save()?;
            Ok(Ok(()))
        }
        Err(reason) => {
            w.set(idx, EntryState::Skipped, None, Some(reason.clone()))?;
            w.save()?;
            Ok(Err(reason))
        }
    }
}

/// Replaces `target` by a copy of `from` (through a temp file and a rename, keeping the
/// replaced file's permissions) while `target` still holds the bytes of `old`.
fn replace(
    from: &Path,
    target: &Path,
    old: &Path,
    run_id: &str,
) -> std::result::Result<(), String> {
    let tmp = temp_path_for(target, run_id);
    let _ = fs::remove_file(&tmp);
    let fail = |what: &str, e: &dyn std::fmt::Display| {
        let _ = fs::remove_file(&tmp);
        format!("cannot {what} {}: {e}", target.display())
    };
    match copy_new(from, &tmp) {
        Ok(true) => {}
        Ok(false) => return Err(fail("write beside", &"its temp file is taken")),
        Err(e) => return Err(fail("write beside", &e)),
    }
    let meta = fs::symlink_metadata(target).map_err(|e| fail("inspect", &e))?;
    if !meta.is_file() {
        return Err(fail("replace", &"it is not a regular file"));
    }
    fs::set_permissions(&tmp, meta.permissions())
        .map_err(|e| fail("keep the permissions of", &e))?;
    fault_point("restore: replacement written beside the entry");
    match crate::files::same_content(target, old) {
        Ok(true) => {}
        Ok(false) => return Err(fail("replace", &"it changed since the backup; left as it is")),
        Err(e) => return Err(fail("compare", &e)),
    }
    fs::rename(&tmp, target).map_err(|e| fail("replace", &e))?;
    if let Some(parent) = target.parent() {
        sync_dir(parent);
    }
    Ok(())
}
