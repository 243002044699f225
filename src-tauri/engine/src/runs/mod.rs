//! Runs: the journal and backup of every applied import and desktop-sidebar restore, the list of
//! runs, and the guarded undo.
//!
//! A run lives in `<data dir>/runs/<UTC yyyymmddThhmmssZ>-<pid>/`:
//! - `run.json` — the journal, rewritten atomically **before** each file or record is created, so
//!   a crash leaves a journal naming a file that may not exist, never a file no journal knows;
//! - `started` — an empty marker created first; its change time is when the run began;
//! - `backup/` — a copy of every file the run could destroy or replace (move sources, adoption
//!   records it overwrites). Backups are never deleted automatically.
//!
//! What the undo trusts: the Claude home and state dir it is pointed at (the catalog), the
//! filesystem as it is now, and the backup — not `run.json`, which only says which paths to
//! consider. A file is removed only when it is a regular file (or the run's own symlink), sits
//! exactly in `<claude home>/projects/<folder>/<session id>.jsonl`, was changed no earlier than the
//! run began (so it did not sit there untouched before the run), and holds the same bytes as its
//! source (copy, link) or its backup (move). Moved sources and overwritten records come back from
//! the backup. Anything that fails a guard is reported, not forced. Undo is idempotent.
//!
//! A desktop-sidebar restore (the desktop module's `restore`) backs up the whole store into
//! `backup/store/` before its first entry; its undo trusts the store it is pointed at, the run's
//! sidebar folder and that backup (`sidebar`): an entry that is a link, lies outside
//! `<account>/<org>/`, is not `local_*.json`, or is in the backup (it was there before) is never
//! removed, and a replaced entry comes back from the backup.
//!
//! A rename (the renames module) is a run too: its journal names the session, its name
//! before and after, and each record it wrote (the `custom-title` line appended to the
//! transcript, Claude Code's title sidecar with a backup of the one it replaced, herdctl's name
//! under each agent key with the name that was there). Its undo (`rename`) appends the previous
//! title — a transcript is never cut — and changes a record back only while it still says what
//! the rename wrote.
//!
//! A release (the adopt module) is a run too: the adoption record it removes is journaled and
//! copied into `backup/` first; its undo puts the copy back only while no record of the session
//! is there (exclusive create, under the adoption store's lock), so a later adoption stays.
//!
//! A delete (the quarantine module) is a run too: each thing a deleted session left behind is
//! journaled, then moved into `<data dir>/quarantine/<run id>/<n>/`; its undo (`quarantined`)
//! puts each back only into the place its kind has in the home undo is pointed at, merging
//! without replacing anything.
//!
//! `journal` writes and reads `run.json`; `list` summarizes the runs for History; `undo` plans
//! and carries out the guarded undo, with `sidebar` deciding a restore's entries and `rename` a
//! rename's.

use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// `<data dir>/runs`.
pub fn runs_root(data_dir: &Path) -> PathBuf {
    data_dir.join("runs")
}

/// `<data dir>/quarantine/<run id>`: where a delete run's items are (its journal is in `runs/`).
pub fn quarantine_dir(data_dir: &Path, run_id: &str) -> PathBuf {
    data_dir.join("quarantine").join(run_id)
}

/// Run ids are folder names: `[A-Za-z0-9-]+`, checked before any path is built.
pub fn validate_run_id(run_id: &str) -> Result<&str> {
    if !run_id.is_empty()
        && run_id.len() <= 100
        && run_id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    {
        Ok(run_id)
    } else {
        Err(Error::InvalidInput(format!(
            "invalid run id {run_id:?}: a run id contains only letters, digits and '-'"
        )))
    }
}

/// The directory of a run, which must exist as a real folder.
pub fn run_dir(data_dir: &Path, run_id: &str) -> Result<PathBuf> {
    let id = validate_run_id(run_id)?;
    let dir = runs_root(data_dir).join(id);
    match fs::symlink_metadata(&dir) {
        Ok(m) if m.is_dir() => Ok(dir),
        _ => Err(Error::RunNotFound(run_id.to_owned())),
    }
}

mod journal;
mod list;
mod quarantined;
mod rename;
mod sidebar;
mod undo;

pub use crate::files::same_content;
pub use journal::{
    BACKUP_DIR, DeletedSession, EntryKind, EntryState, JOURNAL_FILE, JOURNAL_VERSION, JournalEntry,
    MAX_JOURNAL_BYTES, RunDelete, RunJournal, RunRelease, RunRename, STARTED_FILE, STORE_BACKED_UP,
    STORE_BACKUP_DIR, SidebarTarget, Written, check_backup_root, read_journal,
};
pub(crate) use journal::{RunFor, RunWriter};
pub use list::{RunSummary, UndoState, run_ids, runs};
pub use quarantined::Leftover;
pub use undo::{
    NotUndone, UndoAction, UndoItem, UndoPlan, UndoReport, UndoTarget, plan_undo, plan_undo_in,
    plan_undo_of, undo, undo_in, undo_of,
};
