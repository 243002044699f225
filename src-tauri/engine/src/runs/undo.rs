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
use crate::placement::{PlacedAs, PlacementMode, copy_new, temp_path_for};
use crate::time::iso;

use super::journal::{
    BACKUP_DIR, EntryKind, EntryState, JOURNAL_FILE, JournalEntry, RunJournal, STARTED_FILE,
    STORE_BACKED_UP, STORE_BACKUP_DIR, UntrustedBackup, change_time, read_journal, verified_backup,
};
use super::rename::{RenameStep, RenameUndo};
use super::run_dir;
use super::sidebar::{SidebarStep, SidebarUndo};
use crate::files::same_content;
use crate::paths::companion_session_file;

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
}

/// One path undo handled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UndoItem {
    pub path: String,
    pub action: UndoAction,
    pub session_id: Option<String>,
}

/// One path undo refused to touch, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct NotUndone {
    pub path: String,
    pub reason: String,
    pub session_id: Option<String>,
}

/// What `undo` would do, computed without changing anything.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UndoPlan {
    pub run_id: String,
    pub steps: Vec<UndoItem>,
    pub not_undone: Vec<NotUndone>,
}

/// What `undo` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UndoReport {
    pub run_id: String,
    pub undone: Vec<UndoItem>,
    pub not_undone: Vec<NotUndone>,
}

/// The stores undo acts on — from the catalog it was pointed at, never from the journal.
#[derive(Debug, Clone)]
pub struct UndoTarget {
    pub claude_home: PathBuf,
    pub state_dir: PathBuf,
    pub data_dir: PathBuf,
    /// The desktop app's session store (a sidebar restore is undone only in the store undo is
    /// pointed at).
    pub desktop_store: Option<PathBuf>,
}

impl UndoTarget {
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
    Refuse {
        path: PathBuf,
        reason: String,
    },
}

/// Computes what undoing `run_id` would do, changing nothing.
pub fn plan_undo(target: &UndoTarget, run_id: &str) -> Result<UndoPlan> {
    let (_, _, decided) = decide(target, run_id)?;
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
    // Two undos of one run (the app and the CLI) take turns: the second sees the first's mark.
    let _one_undo = crate::files::lock_folder(&run_dir(&target.data_dir, run_id)?)?;
    let (dir, mut journal, decided) = decide(target, run_id)?;
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
    journal.undone_at = Some(iso(now));
    journal.undo_incomplete = report.not_undone.len() as u64;
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

fn decide(target: &UndoTarget, run_id: &str) -> Result<(PathBuf, RunJournal, Decided)> {
    let dir = run_dir(&target.data_dir, run_id)?;
    let journal = read_journal(&dir)?;
    let backup = dir.join(BACKUP_DIR);
    let marker = dir.join(STARTED_FILE);
    // Missing pieces stop the whole undo: without them the guards would answer wrongly.
    if !fs::symlink_metadata(&backup).is_ok_and(|m| m.is_dir()) {
        return Err(Error::Refused(format!(
            "backup incomplete: {} is missing, so nothing of run {run_id} can be checked",
            backup.display()
        )));
    }
    let started = match fs::symlink_metadata(&marker) {
        Ok(m) if m.is_file() => change_time(&m),
        _ => {
            return Err(Error::Refused(format!(
                "backup incomplete: {} is missing, so whether a file existed before run {run_id} cannot be checked",
                marker.display()
            )));
        }
    };
    let ctx = Ctx {
        target,
        run_id,
        backup: &backup,
        started,
        mode: journal.mode,
        entries: &journal.entries,
    };
    let mut decided = Vec::new();
    // A run undone completely stays undone: undoing it again must not touch what came later (a
    // newer run may have placed the same session at the same path).
    if journal.undone_at.is_some() && journal.undo_incomplete == 0 {
        return Ok((dir, journal, decided));
    }
    // A restore's undo needs the whole store's backup: without it "not in the backup" would
    // answer for every file on disk.
    let restores = journal.entries.iter().any(|e| e.kind == EntryKind::SidebarEntry);
    if restores && !fs::symlink_metadata(backup.join(STORE_BACKED_UP)).is_ok_and(|m| m.is_file()) {
        return Err(Error::Refused(format!(
            "backup incomplete: {} holds no complete copy of the store, so nothing of run {run_id} \
             can be checked (restoring that folder by hand would also roll back the desktop \
             app's own later changes)",
            backup.join(STORE_BACKUP_DIR).display()
        )));
    }
    let sidebar = SidebarUndo {
        store: target.desktop_store.as_deref(),
        run: journal.sidebar.as_ref(),
        backup: &backup,
        run_id,
    };
    let renamed = RenameUndo {
        claude_home: &target.claude_home,
        state_dir: &target.state_dir,
        backup: &backup,
        session_id: journal.rename.as_ref().map_or("", |r| r.session_id.as_str()),
        transcript: journal
            .entries
            .iter()
            .find(|e| e.kind == EntryKind::Title)
            .map(|e| e.path.as_str()),
    };
    for entry in journal.entries.iter().rev() {
        let sid = Some(entry.session_id.clone());
        match entry.kind {
            // A record the rename had not got to yet (it was killed first) is decided all the
            // same: the files say whether it was written.
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
            EntryKind::Record => decided.push((sid, ctx.record_step(entry))),
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
    Ok((dir, journal, decided))
}

struct Ctx<'a> {
    target: &'a UndoTarget,
    run_id: &'a str,
    backup: &'a Path,
    started: Option<i128>,
    mode: PlacementMode,
    entries: &'a [JournalEntry],
}

/// Why undo will not put a moved source back where the journal says it came from.
#[derive(Debug, thiserror::Error)]
enum NoRestorePlace {
    #[error("the journal names no source to restore")]
    NoSource,
    #[error(transparent)]
    SessionId(Error),
    #[error("its recorded source {} is not a plain absolute path", .0.display())]
    NotPlain(PathBuf),
    #[error("no transcript entry of its session names where it came from")]
    NoOwner,
    #[error("its recorded source {} is not inside its session's folder", .0.display())]
    OutsideSession(PathBuf),
    #[error("its recorded source {} is not named after its session", .0.display())]
    Misnamed(PathBuf),
    #[error("its recorded source has no folder")]
    NoFolder,
    #[error(
        "the folder it was moved from, {}, is gone; undo creates no folders elsewhere",
        .0.display()
    )]
    FolderGone(PathBuf),
}

fn refuse(path: &Path, reason: impl Into<String>) -> Step {
    Step::Refuse { path: path.to_path_buf(), reason: reason.into() }
}

impl Ctx<'_> {
    /// The destination path, if it sits exactly in `<claude home>/projects/<folder>/<sid>.jsonl`
    /// — or, for a companion, below `<claude home>/projects/<folder>/<sid>/` — resolved against
    /// the Claude home undo was pointed at.
    fn checked_destination(&self, entry: &JournalEntry) -> std::result::Result<PathBuf, Step> {
        let path = PathBuf::from(&entry.path);
        let sid = crate::paths::validate_session_id(&entry.session_id)
            .map_err(|e| refuse(&path, e.to_string()))?;
        if !is_plain_absolute(&path) {
            return Err(refuse(
                &path,
                "the journal names it by a relative (or not normalized) path, so where it is \
                 cannot be told; not touched",
            ));
        }
        let session_file = if entry.kind == EntryKind::Companion {
            companion_session_file(&path, sid)
                .ok_or_else(|| refuse(&path, "not inside its session's folder; not touched"))?
        } else {
            path.clone()
        };
        if session_file.file_name().and_then(|n| n.to_str()) != Some(&format!("{sid}.jsonl")) {
            return Err(refuse(&path, "not named after its session id; not touched"));
        }
        let (Some(folder), Some(folder_name)) =
            (session_file.parent(), session_file.parent().and_then(Path::file_name))
        else {
            return Err(refuse(&path, "has no parent folder; not touched"));
        };
        if entry.kind == EntryKind::Companion
            && let (Some(parent), Ok(real_folder)) = (path.parent(), fs::canonicalize(folder))
        {
            // No symbolic link may lead the companion out of `<folder>/<sid>/`.
            match fs::canonicalize(parent) {
                Ok(real) if real.starts_with(real_folder.join(sid)) => {}
                Ok(_) => {
                    return Err(refuse(&path, "leads out of its session's folder; not touched"));
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(refuse(&path, format!("cannot resolve its folder: {e}"))),
            }
        }
        let projects = crate::paths::projects_dir(&self.target.claude_home);
        let real_projects = fs::canonicalize(&projects).unwrap_or(projects);
        match fs::canonicalize(folder) {
            Ok(real) => {
                if real.parent() != Some(real_projects.as_path())
                    || real.file_name() != Some(folder_name)
                {
                    return Err(refuse(
                        &path,
                        format!(
                            "does not lie directly in a folder of {}; not touched",
                            real_projects.display()
                        ),
                    ));
                }
            }
            // No folder: the file cannot exist either — if the folder is one of this Claude
            // home's at all (otherwise undo was pointed at another home than the run's).
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let projects = crate::paths::projects_dir(&self.target.claude_home);
                if folder.parent() != Some(projects.as_path())
                    && folder.parent() != Some(real_projects.as_path())
                {
                    return Err(refuse(
                        &path,
                        format!(
                            "is not in a folder of {}, the Claude home undo was pointed at; \
                             not touched",
                            projects.display()
                        ),
                    ));
                }
            }
            Err(e) => return Err(refuse(&path, format!("cannot resolve its folder: {e}"))),
        }
        Ok(path)
    }

    /// [`verified_backup`] in this run's backup folder.
    fn verified_backup(
        &self,
        entry: &JournalEntry,
    ) -> std::result::Result<Option<PathBuf>, UntrustedBackup> {
        verified_backup(self.backup, entry)
    }

    /// Where a moved source may be put back: the path the journal names, only if it has the
    /// shape the run could have produced — an absolute, plain `<folder>/<sid>.jsonl` whose folder
    /// still exists as a real folder, or a companion `<folder>/<sid>/<rel>` below the folder of
    /// the same session's transcript entry. Nothing else is ever created by undo.
    fn restore_target(
        &self,
        entry: &JournalEntry,
    ) -> std::result::Result<(PathBuf, PathBuf), NoRestorePlace> {
        let from = entry.from.as_deref().ok_or(NoRestorePlace::NoSource)?;
        let from = PathBuf::from(from);
        let sid = crate::paths::validate_session_id(&entry.session_id)
            .map_err(NoRestorePlace::SessionId)?;
        if !is_plain_absolute(&from) {
            return Err(NoRestorePlace::NotPlain(from));
        }
        let transcript_from = match entry.kind {
            EntryKind::Companion => {
                let owner = self
                    .entries
                    .iter()
                    .find(|e| e.kind == EntryKind::File && e.session_id == entry.session_id)
                    .and_then(|e| e.from.as_deref())
                    .map(PathBuf::from)
                    .ok_or(NoRestorePlace::NoOwner)?;
                if companion_session_file(&from, sid).as_ref() != Some(&owner) {
                    return Err(NoRestorePlace::OutsideSession(from));
                }
                owner
            }
            _ => from.clone(),
        };
        if transcript_from.file_name().and_then(|n| n.to_str()) != Some(&format!("{sid}.jsonl")) {
            return Err(NoRestorePlace::Misnamed(from));
        }
        let folder = transcript_from.parent().ok_or(NoRestorePlace::NoFolder)?;
        if !fs::symlink_metadata(folder).is_ok_and(|m| m.is_dir()) {
            return Err(NoRestorePlace::FolderGone(folder.to_path_buf()));
        }
        let limit = match entry.kind {
            EntryKind::Companion => folder.join(sid),
            _ => folder.to_path_buf(),
        };
        Ok((from, limit))
    }

    fn created_by_run(&self, meta: &fs::Metadata) -> bool {
        match (self.started, change_time(meta)) {
            (Some(start), Some(changed)) => changed > start,
            // Where change times are unknown, the content checks alone decide.
            _ => true,
        }
    }

    /// What undo does with one placed file (transcript or companion): each guard in turn, then
    /// the step for its mode.
    fn file_step(&self, entry: &JournalEntry) -> Step {
        let dest = match self.checked_destination(entry) {
            Ok(p) => p,
            Err(step) => return step,
        };
        let source = entry.from.as_deref().map(PathBuf::from);
        let meta = match fs::symlink_metadata(&dest) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return self.gone_step(entry, dest, source.as_deref());
            }
            Err(e) => return refuse(&dest, format!("cannot inspect: {e}")),
        };
        if let Err(why) = self.is_runs_own(entry, &dest, source.as_deref(), &meta) {
            return refuse(&dest, why);
        }
        if meta.file_type().is_symlink() {
            let points_at = fs::read_link(&dest).ok();
            if self.mode == PlacementMode::Link
                && points_at.is_some()
                && points_at.as_deref() == source.as_deref()
            {
                return Step::Remove { path: dest, action: UndoAction::Removed };
            }
            return refuse(&dest, "a symbolic link this run did not create; not removed");
        }
        if !meta.is_file() {
            return refuse(&dest, "not a regular file; not removed");
        }
        if self.mode == PlacementMode::Move {
            self.moved_step(entry, dest, source.as_deref())
        } else {
            copied_step(dest, source)
        }
    }

    /// The destination is not there: never created, or already undone. A moved source that is
    /// gone everywhere but the backup comes back from the (verified) backup.
    fn gone_step(&self, entry: &JournalEntry, dest: PathBuf, source: Option<&Path>) -> Step {
        let Some(src) = source
            .filter(|src| self.mode == PlacementMode::Move && fs::symlink_metadata(src).is_err())
        else {
            return Step::Nothing { path: dest };
        };
        match (self.verified_backup(entry), self.restore_target(entry)) {
            (Ok(Some(backup)), Ok((source, limit))) => {
                Step::RestoreFromBackup { source, backup, limit }
            }
            (Ok(None), _) => Step::Nothing { path: dest },
            (Err(why), _) => refuse(src, format!("not restored: {why}")),
            (_, Err(why)) => refuse(src, format!("not restored: {why}")),
        }
    }

    /// The file at `dest` is the one this run created: not its own source, changed after the
    /// run began, and the very file (identity) the run recorded. `Err`: why not.
    fn is_runs_own(
        &self,
        entry: &JournalEntry,
        dest: &Path,
        source: Option<&Path>,
        meta: &fs::Metadata,
    ) -> std::result::Result<(), &'static str> {
        let dest_real = dest
            .parent()
            .and_then(|p| fs::canonicalize(p).ok())
            .zip(dest.file_name())
            .map(|(p, n)| p.join(n));
        if let (Some(src), Some(dest_real)) = (source, &dest_real)
            && fs::canonicalize(src).ok().as_ref() == Some(dest_real)
        {
            return Err("the journal names it as its own source; not removed");
        }
        if !self.created_by_run(meta) {
            return Err("it was there, unchanged, before the run began; not removed");
        }
        if let Some(recorded) = entry.identity
            && let Some(now) = crate::files::FileIdentity::of(meta)
        {
            if (now.dev, now.ino) != (recorded.dev, recorded.ino) {
                return Err("not the file this run created (another file is there now: a later \
                            run's, or a person's); not removed");
            }
            // A hard link is its source's very inode: a resumed session appends to both names
            // and moves the change time, yet removing the link loses nothing (the content check
            // still requires the source to hold the same bytes).
            if now.ctime_ns != recorded.ctime_ns && entry.placed_as != Some(PlacedAs::HardLinked) {
                return Err("changed since the run placed it; not removed");
            }
        }
        Ok(())
    }

    /// A moved transcript: it must still hold the backed-up bytes; then the source comes back
    /// (or, when it is there again, the copy just goes).
    fn moved_step(&self, entry: &JournalEntry, dest: PathBuf, source: Option<&Path>) -> Step {
        let bk = match self.verified_backup(entry) {
            Ok(Some(bk)) => bk,
            Ok(None) => {
                return refuse(
                    &dest,
                    "the backup of this moved transcript is missing; not removed",
                );
            }
            Err(why) => return refuse(&dest, format!("{why}; not removed")),
        };
        match same_content(&dest, &bk) {
            Ok(true) => {}
            Ok(false) => {
                return refuse(
                    &dest,
                    "changed since the run (it differs from the backup); not removed",
                );
            }
            Err(e) => return refuse(&dest, format!("cannot compare with the backup: {e}")),
        }
        if source.is_some_and(|src| fs::symlink_metadata(src).is_ok()) {
            // The source is (again) there: the backup keeps the bytes, the copy can go.
            return Step::Remove { path: dest, action: UndoAction::Removed };
        }
        match self.restore_target(entry) {
            Ok((source, limit)) => Step::RestoreMoved { dest, source, backup: bk, limit },
            Err(why) => refuse(&dest, format!("{why}; not removed")),
        }
    }

    fn leftover_temp(&self, entry: &JournalEntry) -> Option<PathBuf> {
        let dest = self.checked_destination(entry).ok()?;
        let tmp = temp_path_for(&dest, self.run_id);
        fs::symlink_metadata(&tmp).is_ok_and(|m| m.is_file()).then_some(tmp)
    }

    fn folder_step(&self, entry: &JournalEntry) -> Step {
        let path = PathBuf::from(&entry.path);
        let Ok(meta) = fs::symlink_metadata(&path) else {
            return Step::Nothing { path };
        };
        if !meta.is_dir() {
            return refuse(&path, "not a folder; not touched");
        }
        let store = adoption_store::store_dir(&self.target.state_dir);
        let projects = crate::paths::projects_dir(&self.target.claude_home);
        let real = fs::canonicalize(&path).ok();
        // A transcript folder, or a folder below one (a companion's `<sid>/subagents/`).
        let in_projects = match (&real, fs::canonicalize(&projects)) {
            (Some(real), Ok(projects)) => {
                real.strip_prefix(&projects).is_ok_and(|rel| rel.components().count() >= 1)
            }
            _ => false,
        };
        let is_store = [&store, &projects, &self.target.claude_home, &self.target.state_dir]
            .iter()
            .any(|p| real.is_some() && real == fs::canonicalize(p).ok());
        if in_projects || is_store {
            Step::RemoveFolderIfEmpty { path }
        } else {
            refuse(
                &path,
                "not a transcript folder of this Claude home nor the adoption store; not touched",
            )
        }
    }

    fn record_step(&self, entry: &JournalEntry) -> Step {
        let path = match adoption_store::record_path(&self.target.state_dir, &entry.session_id) {
            Ok(p) => p,
            Err(e) => return refuse(Path::new(&entry.path), e.to_string()),
        };
        let text = match crate::files::read_bounded_if_present(&path, crate::fleet::MAX_YAML_BYTES)
        {
            Ok(Some(b)) => String::from_utf8_lossy(&b).into_owned(),
            Ok(None) => return Step::Nothing { path },
            Err(e) => return refuse(&path, format!("cannot read: {e}")),
        };
        if let (Some(recorded), Some(now)) = (entry.identity, crate::files::FileIdentity::at(&path))
            && recorded != now
        {
            return refuse(
                &path,
                "not the record this run wrote (it was replaced since: a later run, herdctl or a \
                 person); left as it is",
            );
        }
        let matches = serde_saphyr::from_str::<AdoptionRecord>(&text).is_ok_and(|r| {
            r.session_id == entry.session_id
                && Some(&r.agent_name) == entry.agent_name.as_ref()
                && Some(&r.adopted_at) == entry.adopted_at.as_ref()
        });
        if !matches {
            // Still the record the run would have replaced (it stopped before writing): fine.
            if let Ok(Some(bk)) = self.verified_backup(entry)
                && crate::files::read_bounded_no_follow(&bk, crate::fleet::MAX_YAML_BYTES)
                    .is_ok_and(|b| b == text.as_bytes())
            {
                return Step::Nothing { path };
            }
            return refuse(&path, "the record changed after the run; left as it is");
        }
        match entry.backup.as_ref() {
            Some(_) => match self.verified_backup(entry) {
                Ok(Some(bk)) => Step::RestoreRecord { path, backup: bk },
                Ok(None) => {
                    refuse(&path, "the backup of the record it replaced is missing; left as it is")
                }
                Err(why) => refuse(&path, format!("{why}; left as it is")),
            },
            None => Step::RemoveRecord { path },
        }
    }
}

/// A copied or linked transcript: removed only while its source still holds the same bytes.
fn copied_step(dest: PathBuf, source: Option<PathBuf>) -> Step {
    let Some(src) = source else {
        return refuse(&dest, "the journal names no source; not removed");
    };
    if !fs::metadata(&src).is_ok_and(|m| m.is_file()) {
        return refuse(
            &dest,
            format!(
                "its source {} is gone, so this may be the only copy; not removed",
                src.display()
            ),
        );
    }
    match same_content(&dest, &src) {
        Ok(true) => Step::Remove { path: dest, action: UndoAction::Removed },
        Ok(false) => {
            refuse(&dest, "changed since the run (it differs from its source); not removed")
        }
        Err(e) => refuse(&dest, format!("cannot compare with its source: {e}")),
    }
}

fn step_summary(step: &Step) -> std::result::Result<(String, UndoAction), (String, String)> {
    let s = |p: &Path| p.display().to_string();
    match step {
        Step::Remove { path, action } => Ok((s(path), *action)),
        Step::RestoreMoved { source, .. } => Ok((s(source), UndoAction::RestoredSource)),
        Step::RestoreFromBackup { source, .. } => Ok((s(source), UndoAction::RestoredFromBackup)),
        Step::RemoveRecord { path } => Ok((s(path), UndoAction::RecordRemoved)),
        Step::RestoreRecord { path, .. } => Ok((s(path), UndoAction::RecordRestored)),
        Step::PutBack { path, .. } => Ok((s(path), UndoAction::EntryRestored)),
        Step::RemoveFolderIfEmpty { path } => Ok((s(path), UndoAction::FolderRemoved)),
        Step::Nothing { path } => Ok((s(path), UndoAction::AlreadyGone)),
        Step::Rename(step) => {
            let action = match step {
                RenameStep::AppendTitle { .. } => UndoAction::TitleAppended,
                RenameStep::WriteSidecar { .. } => UndoAction::SidecarRestored,
                RenameStep::RemoveSidecar(_) => UndoAction::SidecarRemoved,
                RenameStep::SetName { .. } => UndoAction::NameRestored,
                RenameStep::Nothing(_) => UndoAction::AlreadyGone,
                RenameStep::Refuse(path, reason) => return Err((s(path), reason.clone())),
            };
            Ok((s(step.path()), action))
        }
        Step::Refuse { path, reason } => Err((s(path), reason.clone())),
    }
}

fn execute(step: Step) -> std::result::Result<(String, UndoAction), (String, String)> {
    let summary = step_summary(&step)?;
    let fail = |p: &Path, what: &str, e: &dyn std::fmt::Display| {
        (p.display().to_string(), format!("{what}: {e}"))
    };
    match step {
        Step::Remove { path, .. } | Step::RemoveRecord { path } => {
            match fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(fail(&path, "cannot remove", &e)),
            }
            if let Some(parent) = path.parent() {
                sync_dir(parent);
            }
        }
        Step::RestoreMoved { dest, source, backup, limit } => {
            restore_source(&source, Some(&dest), &backup, &limit)
                .map_err(|e| fail(&source, "cannot restore", &e))?;
            match fs::remove_file(&dest) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(fail(&dest, "restored the source, but cannot remove", &e)),
            }
            if let Some(parent) = dest.parent() {
                sync_dir(parent);
            }
        }
        Step::RestoreFromBackup { source, backup, limit } => {
            restore_source(&source, None, &backup, &limit)
                .map_err(|e| fail(&source, "cannot restore", &e))?;
        }
        Step::RestoreRecord { path, backup } => {
            let bytes = crate::files::read_bounded_no_follow(&backup, crate::fleet::MAX_YAML_BYTES)
                .map_err(|e| fail(&backup, "cannot read the backup", &e))?;
            write_atomic(&path, &bytes).map_err(|e| fail(&path, "cannot restore", &e))?;
        }
        Step::PutBack { path, backup, run_id } => {
            put_back(&path, &backup, &run_id).map_err(|e| fail(&path, "cannot put back", &e))?;
        }
        Step::RemoveFolderIfEmpty { path } => {
            return match fs::remove_dir(&path) {
                Ok(()) => {
                    if let Some(parent) = path.parent() {
                        sync_dir(parent);
                    }
                    Ok(summary)
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    Ok((summary.0, UndoAction::AlreadyGone))
                }
                Err(_) => Ok((summary.0, UndoAction::FolderKept)),
            };
        }
        Step::Rename(step) => {
            let path = step.path().to_path_buf();
            step.apply().map_err(|e| fail(&path, "cannot change back", &e))?;
        }
        Step::Nothing { .. } | Step::Refuse { .. } => {}
    }
    Ok(summary)
}

/// An absolute path with nothing to resolve (no `.` or `..`): it names one place whatever the
/// current folder.
fn is_plain_absolute(path: &Path) -> bool {
    use std::path::Component;
    path.is_absolute()
        && !path.components().any(|c| matches!(c, Component::ParentDir | Component::CurDir))
}

/// Recreates a moved source without replacing anything: a hard link to the destination (the very
/// same file, mtime and all), else an exclusive copy of the backup.
fn restore_source(
    source: &Path,
    dest: Option<&Path>,
    backup: &Path,
    limit: &Path,
) -> io::Result<()> {
    if let Some(parent) = source.parent() {
        if !parent.starts_with(limit) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} lies outside {}", source.display(), limit.display()),
            ));
        }
        fs::create_dir_all(parent)?;
    }
    if let Some(d) = dest {
        match fs::hard_link(d, source) {
            Ok(()) => {
                if let Some(parent) = source.parent() {
                    sync_dir(parent);
                }
                return Ok(());
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Err(e),
            Err(_) => {}
        }
    }
    if copy_new(backup, source)? {
        if let Some(parent) = source.parent() {
            sync_dir(parent);
        }
        Ok(())
    } else {
        Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            "something already exists at the source path",
        ))
    }
}

/// Replaces `path` by a copy of `backup` (its bytes, times and permissions) through a temp file
/// and a rename, so the entry is the old or the restored one, never a mix.
fn put_back(path: &Path, backup: &Path, run_id: &str) -> io::Result<()> {
    let tmp = temp_path_for(path, &format!("undo-{run_id}"));
    let _ = fs::remove_file(&tmp);
    if !copy_new(backup, &tmp)? {
        return Err(io::Error::new(io::ErrorKind::AlreadyExists, "its temp file is taken"));
    }
    if let Err(e) = fs::rename(&tmp, path) {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    if let Some(parent) = path.parent() {
        sync_dir(parent);
    }
    Ok(())
}
