//! A run's journal (`run.json`), its start marker and backup folder, and the writer `apply`
//! keeps open while it places files.

use std::fs;
use std::io::{self};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::runs_root;
use crate::atomic_write::{sync_dir, write_atomic};
use crate::error::{Error, Result};
use crate::fault::fault_point;
use crate::model::{ImportSkip, ImportTarget};
use crate::paths::MAX_COMPANION_DEPTH;
use crate::placement::{PlacedAs, PlacementMode};
use crate::time::iso;

/// The journal file inside a run directory.
pub const JOURNAL_FILE: &str = "run.json";
/// The start marker inside a run directory.
pub const STARTED_FILE: &str = "started";
/// The backup folder inside a run directory.
pub const BACKUP_DIR: &str = "backup";
/// The journal format written now: 2 adds backup checksums and file identities.
pub const JOURNAL_VERSION: u32 = 2;
/// The copy of the whole desktop-app store a sidebar restore takes, inside `backup/`.
pub const STORE_BACKUP_DIR: &str = "store";
/// Created inside `backup/` once the store's copy is complete (before the first entry is placed).
pub const STORE_BACKED_UP: &str = "store.complete";
/// Largest journal read (a run of 100,000 sessions writes about 60 MB).
pub const MAX_JOURNAL_BYTES: u64 = 256 * 1024 * 1024;

/// What a journal entry stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EntryKind {
    /// A transcript file placed at `path`.
    File,
    /// A file that belongs to a placed transcript and travels with it: `<folder>/<sid>/<rel>`
    /// (subagent transcripts and their `.meta.json`, tool results).
    Companion,
    /// An adoption record written at `path`.
    Record,
    /// A folder created for the run's files (a projects folder, the adoption store); undo removes
    /// it again when it is empty.
    Folder,
    /// An entry of the desktop app's sidebar store placed at `path` (`<store>/<account>/<org>/
    /// local_*.json`), copied from `from`; `backup` names the entry it replaced, if any.
    SidebarEntry,
    /// A rename's `custom-title` line appended to the transcript at `path`: `name` is the title
    /// it says (`None`: cleared), `previousName` the title the picker showed before, `written`
    /// where the line went.
    Title,
    /// A rename's write of Claude Code's `custom-title.json` at `path`: `backup` names the copy of
    /// the one it replaced, if any, `written` the bytes it wrote.
    TitleSidecar,
    /// A rename's write of herdctl's name of the session under the agent key `agentName`, in the
    /// metadata file at `path`: `name` is the name written (`None`: removed), `previousName` the
    /// one that was there.
    Name,
    /// Something a deleted session left behind (`leftover` says what), moved from `path` into
    /// the run's quarantine folder at `backup` (`<n>/<name>`, relative to that folder);
    /// `backupSize` is the bytes it holds.
    Quarantined,
    /// An adoption record a release removed from `path`, copied first into `backup/` as
    /// `backup` names; `agentName` and `adoptedAt` are what it said.
    Released,
}

/// How far an entry got, as far as the journal knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EntryState {
    /// Written before the file or record was created; it may or may not exist.
    Intended,
    /// Written once the file or record was created and checked.
    Done,
    /// The destination was already taken; the run did not touch it.
    Skipped,
    /// Creation failed; the run removed whatever it had created.
    Failed,
}

/// One file or record the run (intended to) create.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JournalEntry {
    /// What the entry stands for.
    pub kind: EntryKind,
    /// The session it concerns.
    pub session_id: String,
    /// Destination transcript or adoption record.
    pub path: String,
    /// Source transcript (absolute, resolved) for files.
    #[serde(default)]
    pub from: Option<String>,
    /// File name inside `backup/` holding what this entry could destroy or replace.
    #[serde(default)]
    pub backup: Option<String>,
    /// How far it got.
    pub state: EntryState,
    /// How a transcript was placed (copied, moved, linked), once it was.
    #[serde(default)]
    pub placed_as: Option<PlacedAs>,
    /// For records: what the run wrote.
    #[serde(default)]
    pub agent_name: Option<String>,
    /// For records: the adoption time the run wrote.
    #[serde(default)]
    pub adopted_at: Option<String>,
    /// Why it failed or was skipped, in words.
    #[serde(default)]
    pub detail: Option<String>,
    /// Size and SHA-256 of the file in `backup/` (written once the backup is complete): undo
    /// restores or trusts a backup only when it still has exactly these bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backup_size: Option<u64>,
    /// The SHA-256 of the file in `backup/`, in hex (see `backup_size`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backup_sha256: Option<String>,
    /// Size and SHA-256 of the backup copy of the source a sidebar entry was restored from: undo
    /// trusts that copy as "what the run wrote" only when it still has exactly these bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_size: Option<u64>,
    /// The SHA-256 of that copy, in hex (see `source_size`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_sha256: Option<String>,
    /// Which file the run created at `path` (device, inode, change time), recorded once it was
    /// placed: undo removes only that very file, never a later one at the same path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<crate::files::FileIdentity>,
    /// For a rename's entries: the name or title written, and the one before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The name or title there before the rename (`None`: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_name: Option<String>,
    /// For a rename's entries: what the run wrote (undo changes back only what still is this).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written: Option<Written>,
    /// For a delete's entries: what the session left behind that this is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leftover: Option<super::Leftover>,
}

/// Bytes a run wrote: where (for a line appended to a file), how many, and their SHA-256.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Written {
    /// Where the bytes start, for a line appended to a file (`None`: a whole file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// How many bytes.
    pub size: u64,
    /// Their SHA-256, in hex.
    pub sha256: String,
}

impl JournalEntry {
    /// An entry with nothing recorded yet beyond what it stands for.
    pub fn new(
        kind: EntryKind,
        session_id: String,
        path: String,
        from: Option<String>,
        backup: Option<String>,
        state: EntryState,
    ) -> Self {
        Self {
            kind,
            session_id,
            path,
            from,
            backup,
            state,
            placed_as: None,
            agent_name: None,
            adopted_at: None,
            detail: None,
            backup_size: None,
            backup_sha256: None,
            source_size: None,
            source_sha256: None,
            identity: None,
            name: None,
            previous_name: None,
            written: None,
            leftover: None,
        }
    }
}

/// `run.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunJournal {
    /// The journal format's version.
    pub version: u32,
    /// The run's id (its folder's name).
    pub run_id: String,
    /// When the run started.
    pub created_at: String,
    /// The process that ran it (a crashed run's journal names it).
    pub pid: u32,
    /// The Claude home it wrote into.
    pub claude_home: String,
    /// The herdctl state dir it wrote into.
    pub state_dir: String,
    /// Where an import placed its files (`None` for a sidebar restore).
    #[serde(default)]
    pub target: Option<ImportTarget>,
    /// How an import placed its files.
    pub mode: PlacementMode,
    /// The sidebar a restore copied entries into (`None` for an import).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sidebar: Option<SidebarTarget>,
    /// The session a rename renamed (`None` for an import or a restore).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rename: Option<RunRename>,
    /// The sessions a delete moved into the quarantine (`None` for every other run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delete: Option<RunDelete>,
    /// The adoption a release ended (`None` for every other run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release: Option<RunRelease>,
    /// Every file or record, in the order written.
    pub entries: Vec<JournalEntry>,
    /// What an import left out, and why.
    #[serde(default)]
    pub skipped: Vec<ImportSkip>,
    /// When the run finished (`None`: it did not, or is still going).
    #[serde(default)]
    pub finished_at: Option<String>,
    /// The run was stopped before its end.
    #[serde(default)]
    pub cancelled: bool,
    /// When the last undo ran.
    #[serde(default)]
    pub undone_at: Option<String>,
    /// Items the last undo could not undo.
    #[serde(default)]
    pub undo_incomplete: u64,
    /// Sessions of a delete put back one by one (a whole run's undo sets `undoneAt`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub restored_sessions: Vec<String>,
    /// When a delete's quarantine folder went to the system's trash (then undo cannot bring it
    /// back; the trash can).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emptied_at: Option<String>,
}
/// The desktop app's sidebar a restore run wrote into.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "RunSidebar")]
pub struct SidebarTarget {
    /// The store as the run saw it (undo uses the store it is pointed at, never this).
    pub store: String,
    /// The account's folder name.
    pub account: String,
    /// The organisation's folder name.
    pub org: String,
}

/// The session a rename run renamed, and its name before and after (`None`: no custom name).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RunRename {
    /// The session.
    pub session_id: String,
    /// Its name before (`None`: no custom name).
    pub from: Option<String>,
    /// Its name after (`None`: cleared).
    pub to: Option<String>,
}

/// The adoption a release run ended: the record it removed said `agentName` adopted the session
/// at `adoptedAt`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RunRelease {
    /// The session.
    pub session_id: String,
    /// The agent it was released from.
    pub agent_name: String,
    /// When the removed record says it was adopted.
    pub adopted_at: String,
    /// The name the session was shown by when it was released (`None`: it could not be read).
    #[serde(default)]
    pub name: Option<String>,
}

/// The sessions a delete run moved into the quarantine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RunDelete {
    /// Each session, with the name it was shown by.
    pub sessions: Vec<DeletedSession>,
}

/// One session a delete run moved into the quarantine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DeletedSession {
    /// The session.
    pub session_id: String,
    /// The name it was shown by when it was deleted.
    pub name: String,
    /// Its working directory.
    pub working_directory: String,
}

/// What a run is for, as its journal is first written.
pub(crate) enum RunFor<'a> {
    Import { claude_home: &'a Path, state_dir: &'a Path, target: ImportTarget, mode: PlacementMode },
    Sidebar(SidebarTarget),
    Rename { claude_home: &'a Path, state_dir: &'a Path, rename: RunRename },
    Delete { claude_home: &'a Path, state_dir: &'a Path },
    Release { claude_home: &'a Path, state_dir: &'a Path, release: RunRelease },
}

/// A run's stores and what it is for, as the journal's fields say them.
type RunFields =
    (String, String, Option<ImportTarget>, PlacementMode, Option<SidebarTarget>, Option<RunRename>);

impl RunFor<'_> {
    fn fields(self) -> RunFields {
        let what = self;
        match what {
            RunFor::Import { claude_home, state_dir, target, mode } => (
                claude_home.display().to_string(),
                state_dir.display().to_string(),
                Some(target),
                mode,
                None,
                None,
            ),
            RunFor::Sidebar(s) => {
                (String::new(), String::new(), None, PlacementMode::Copy, Some(s), None)
            }
            RunFor::Rename { claude_home, state_dir, rename } => (
                claude_home.display().to_string(),
                state_dir.display().to_string(),
                None,
                PlacementMode::Copy,
                None,
                Some(rename),
            ),
            RunFor::Delete { claude_home, state_dir }
            | RunFor::Release { claude_home, state_dir, .. } => (
                claude_home.display().to_string(),
                state_dir.display().to_string(),
                None,
                PlacementMode::Move,
                None,
                None,
            ),
        }
    }
}

/// Reads a run's journal.
pub fn read_journal(dir: &Path) -> Result<RunJournal> {
    let path = dir.join(JOURNAL_FILE);
    let bytes = crate::files::read_bounded(&path, MAX_JOURNAL_BYTES)
        .map_err(|reason| Error::unreadable(&path, reason))?;
    serde_json::from_slice(&bytes)
        .map_err(|e| Error::Unreadable { path: path.clone(), reason: e.to_string() })
}

/// Refuses a backup root inside the Claude home or the state dir (equal counts as inside): the
/// next run would back up the last one, and its files would sit among real transcripts/records.
pub fn check_backup_root(data_dir: &Path, claude_home: &Path, state_dir: &Path) -> Result<PathBuf> {
    let root = runs_root(data_dir);
    for (store, what) in [(claude_home, "the Claude home"), (state_dir, "the herdctl state dir")] {
        if crate::paths::is_same_or_inside(&root, store) {
            return Err(Error::Refused(format!(
                "the backup folder {} lies inside {what} {}; choose a data dir outside it",
                root.display(),
                store.display()
            )));
        }
    }
    Ok(root)
}

/// An open run being written by `apply`.
pub(crate) struct RunWriter {
    pub dir: PathBuf,
    pub journal: RunJournal,
    /// Folders above the run directory that this run created (deepest first).
    created_parents: Vec<PathBuf>,
    /// The data dir, when this run created its marker.
    claimed: Option<PathBuf>,
}

impl RunWriter {
    /// Creates `<runs root>/<yyyymmddThhmmssZ>-<pid>[-n]/` exclusively with its marker, `backup/`
    /// and the first journal.
    pub fn create(root: &Path, now: DateTime<Utc>, what: RunFor<'_>) -> Result<Self> {
        let created_parents: Vec<PathBuf> = root
            .ancestors()
            .take_while(|a| !a.as_os_str().is_empty() && fs::symlink_metadata(a).is_err())
            .map(Path::to_path_buf)
            .collect();
        // The runs root is `<data dir>/runs`: the data dir is claimed before anything is written.
        let claimed = match root.parent() {
            Some(data_dir) if crate::owned::claim_data_dir(data_dir)? => Some(data_dir.to_owned()),
            _ => None,
        };
        fs::create_dir_all(root).map_err(|e| Error::io_at("create folder", root, e))?;
        let pid = std::process::id();
        let base = format!("{}-{pid}", now.format("%Y%m%dT%H%M%SZ"));
        let mut n = 1u32;
        let (run_id, dir) = loop {
            let id = if n == 1 { base.clone() } else { format!("{base}-{n}") };
            let dir = root.join(&id);
            match fs::create_dir(&dir) {
                Ok(()) => break (id, dir),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && n < 1000 => n += 1,
                Err(e) => return Err(Error::io_at("create run folder", &dir, e)),
            }
        };
        let marker = dir.join(STARTED_FILE);
        crate::atomic_write::create_exclusive(&marker, b"")?;
        wait_for_clock_tick(&dir, &marker);
        let backup = dir.join(BACKUP_DIR);
        fs::create_dir(&backup).map_err(|e| Error::io_at("create folder", &backup, e))?;
        sync_dir(&dir);
        sync_dir(root);
        let deleting = matches!(what, RunFor::Delete { .. });
        let release = match &what {
            RunFor::Release { release, .. } => Some(release.clone()),
            _ => None,
        };
        let (claude_home, state_dir, target, mode, sidebar, rename) = what.fields();
        let journal = RunJournal {
            version: JOURNAL_VERSION,
            run_id,
            created_at: iso(now),
            pid,
            claude_home,
            state_dir,
            target,
            mode,
            sidebar,
            rename,
            delete: deleting.then(|| RunDelete { sessions: Vec::new() }),
            release,
            entries: Vec::new(),
            skipped: Vec::new(),
            finished_at: None,
            cancelled: false,
            undone_at: None,
            undo_incomplete: 0,
            restored_sessions: Vec::new(),
            emptied_at: None,
        };
        let w = Self { dir, journal, created_parents, claimed };
        w.save()?;
        fault_point("run: folder and journal created");
        Ok(w)
    }

    /// Removes the run directory of a run that created nothing (and the folders above it that it
    /// created, when they are empty): such a run would be litter that looks like a run.
    ///
    /// Only what this writer made is removed, by name: its backup folder (created by this writer
    /// inside the run folder it created exclusively; links in it are removed, never followed), its
    /// marker and its journal. Anything else found there keeps the folder (see [`crate::owned`]).
    pub fn discard(self) {
        let _ = fs::remove_dir_all(self.dir.join(BACKUP_DIR));
        let _ = fs::remove_file(self.dir.join(JOURNAL_FILE));
        let _ = fs::remove_file(self.dir.join(STARTED_FILE));
        let _ = fs::remove_dir(&self.dir);
        // The marker this run made goes before the folders it created (the data dir among them).
        if let Some(data_dir) = &self.claimed {
            crate::owned::unclaim_data_dir(data_dir);
        }
        for p in &self.created_parents {
            if fs::remove_dir(p).is_err() {
                break;
            }
        }
    }

    pub fn backup_dir(&self) -> PathBuf {
        self.dir.join(BACKUP_DIR)
    }

    pub fn save(&self) -> Result<()> {
        let bytes = serde_json::to_vec(&self.journal)
            .map_err(|e| Error::InvalidInput(format!("cannot serialize the run journal: {e}")))?;
        write_atomic(&self.dir.join(JOURNAL_FILE), &bytes)
    }

    /// Appends an entry and saves the journal; returns its index.
    pub fn push(&mut self, entry: JournalEntry) -> Result<usize> {
        self.journal.entries.push(entry);
        self.save()?;
        fault_point("run: journal entry written");
        Ok(self.journal.entries.len().saturating_sub(1))
    }

    /// Updates an entry's state in memory; it is saved with the next entry or at the end. (Only
    /// what is about to be created must be on disk first; undo trusts the filesystem for the
    /// rest.)
    pub fn set(
        &mut self,
        index: usize,
        state: EntryState,
        placed_as: Option<PlacedAs>,
        detail: Option<String>,
    ) -> Result<()> {
        if let Some(e) = self.journal.entries.get_mut(index) {
            e.state = state;
            if placed_as.is_some() {
                e.placed_as = placed_as;
            }
            if detail.is_some() {
                e.detail = detail;
            }
        }
        fault_point("run: journal entry updated (in memory)");
        Ok(())
    }
}

impl RunWriter {
    /// Records the size and checksum of entry `index`'s finished backup and saves the journal
    /// right away: the move that follows may remove the only other copy.
    pub fn record_backup(&mut self, index: usize, backup: &Path) -> Result<()> {
        let (size, sha) =
            crate::files::sha256_no_follow(backup).map_err(|e| Error::io_at("read", backup, e))?;
        if let Some(e) = self.journal.entries.get_mut(index) {
            e.backup_size = Some(size);
            e.backup_sha256 = Some(sha);
        }
        self.save()?;
        fault_point("run: backup checksum journaled");
        Ok(())
    }

    /// Records which file entry `index` created at its path (saved with the next journal write).
    pub fn record_identity(&mut self, index: usize) {
        if let Some(e) = self.journal.entries.get_mut(index) {
            e.identity = crate::files::FileIdentity::at(Path::new(&e.path));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Trusting a backup

/// Why an undo does not trust a backup the journal names (the file it would restore or check is then
/// left as it is).
#[derive(Debug, thiserror::Error)]
pub(super) enum UntrustedBackup {
    #[error("the journal names a backup outside the run's backup folder")]
    Outside,
    #[error("cannot inspect the backup {}: {}", .0.display(), .1)]
    Uninspectable(PathBuf, io::Error),
    #[error(
        "the backup path {} is a symbolic link; a backup is never followed out of the run's folder",
        .0.display()
    )]
    Link(PathBuf),
    #[error("the backup path {} is not a folder", .0.display())]
    NotAFolder(PathBuf),
    #[error(
        "the journal records no checksum for the backup {}, so its bytes cannot be trusted",
        .0.display()
    )]
    NoChecksum(PathBuf),
    #[error(
        "the backup {} no longer has the bytes the run saved (size or checksum differs)",
        .0.display()
    )]
    Changed(PathBuf),
    #[error("cannot read the backup {}: {}", .0.display(), .1)]
    Unreadable(PathBuf, String),
}

/// The backup of `entry`, resolved without following any link and verified against the size
/// and checksum the journal recorded when the backup was made. `Ok(None)`: the entry names no
/// backup, or the backup is not there (nothing was backed up yet).
pub(super) fn verified_backup(
    backup: &Path,
    entry: &JournalEntry,
) -> std::result::Result<Option<PathBuf>, UntrustedBackup> {
    let Some(bk) = backup_file(backup, entry) else {
        return if entry.backup.is_some() { Err(UntrustedBackup::Outside) } else { Ok(None) };
    };
    // Every folder between backup/ and the file must be a real folder, not a link.
    let mut at = backup.to_path_buf();
    let rel = bk.strip_prefix(backup).map_err(|_| UntrustedBackup::Outside)?;
    let parts: Vec<_> = rel.components().collect();
    for (i, part) in parts.iter().enumerate() {
        at.push(part);
        match fs::symlink_metadata(&at) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(UntrustedBackup::Uninspectable(at, e)),
            Ok(m) if m.file_type().is_symlink() => {
                return Err(UntrustedBackup::Link(at));
            }
            Ok(m) if i + 1 < parts.len() && !m.is_dir() => {
                return Err(UntrustedBackup::NotAFolder(at));
            }
            Ok(_) => {}
        }
    }
    let (Some(size), Some(sha)) = (entry.backup_size, entry.backup_sha256.as_deref()) else {
        return Err(UntrustedBackup::NoChecksum(bk));
    };
    match crate::files::sha256_no_follow(&bk) {
        Ok((n, h)) if n == size && h == sha => Ok(Some(bk)),
        Ok(_) => Err(UntrustedBackup::Changed(bk)),
        Err(e) => {
            let why = crate::files::describe_io(&e);
            Err(UntrustedBackup::Unreadable(bk, why))
        }
    }
}

/// Where `entry`'s backup is in `backup`, when the journal names a plain relative path of the
/// depth the run could have made: `<n>/<file>` (or a bare file name), a companion's deeper.
fn backup_file(backup: &Path, entry: &JournalEntry) -> Option<PathBuf> {
    let name = entry.backup.as_deref()?;
    // `<n>/<file>` (or a bare file name) inside backup/, nothing else; a companion's
    // `<n>/<sid>/<rel>` may be deeper.
    let p = Path::new(name);
    let plain = p.components().all(|c| matches!(c, std::path::Component::Normal(_)));
    let deepest = if entry.kind == EntryKind::Companion { MAX_COMPANION_DEPTH + 2 } else { 2 };
    (plain && (1..=deepest).contains(&p.components().count())).then(|| backup.join(name))
}

/// Waits (briefly, a few milliseconds at most) until the filesystem clock has moved past the
/// marker's change time, so everything the run creates is changed strictly after the marker and
/// everything that was there before is changed at or before it. (File times are coarse: files
/// written within one clock tick share a time.)
fn wait_for_clock_tick(dir: &Path, marker: &Path) {
    let Some(start) = fs::symlink_metadata(marker).ok().as_ref().and_then(change_time) else {
        return;
    };
    let probe = dir.join(".clock-probe");
    for _ in 0..2000 {
        let _ = fs::remove_file(&probe);
        let later = crate::atomic_write::create_exclusive(&probe, b"")
            .ok()
            .and_then(|_| fs::symlink_metadata(&probe).ok())
            .as_ref()
            .and_then(change_time);
        if later.is_none_or(|t| t > start) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let _ = fs::remove_file(&probe);
}

// ---------------------------------------------------------------------------------------------
// Listing runs

/// The inode change time in nanoseconds (Unix only).
/// Elsewhere than on Unix there is no inode change time (a hard link keeps the creation time of
/// the file it links), so the guard is left to the content checks, which never lose bytes
/// either: the source (copy, link) or the backup (move) still holds them.
pub(super) fn change_time(meta: &fs::Metadata) -> Option<i128> {
    crate::files::FileIdentity::of(meta).map(|id| i128::from(id.ctime_ns))
}
