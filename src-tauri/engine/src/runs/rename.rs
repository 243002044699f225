//! Undoing a rename: each record the rename wrote is decided against the Claude home and state
//! dir undo is pointed at and the files as they are now — never against the journal alone,
//! which only says which records to consider and what the rename wrote there.
//!
//! A transcript is never cut: the previous title comes back as one more `custom-title` line
//! appended (an empty one when there was none), and only while the picker still shows the
//! rename's title — a session renamed again since keeps its newer name. Claude Code's sidecar
//! comes back from the run's backup (or goes, when the rename created it) only while it still
//! holds the bytes the rename wrote. herdctl's name under each agent key comes back only while
//! that key still holds the rename's name.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use super::journal::{EntryKind, JournalEntry, verified_backup};
use crate::claude_titles;
use crate::metadata::MetadataStore;

/// What undo does with one record of a rename.
#[derive(Debug)]
pub(super) enum RenameStep {
    /// Append a `custom-title` line saying `title` (`None`: an empty one, which clears).
    AppendTitle {
        path: PathBuf,
        session_id: String,
        title: Option<String>,
    },
    /// Put the sidecar's earlier bytes back (atomically, with Claude Code's modes).
    WriteSidecar {
        path: PathBuf,
        bytes: Vec<u8>,
    },
    /// Remove the sidecar the rename created.
    RemoveSidecar(PathBuf),
    /// Set herdctl's name of the session under `key` back to `name`.
    SetName {
        path: PathBuf,
        state_dir: PathBuf,
        key: String,
        session_id: String,
        name: Option<String>,
    },
    /// Already as before the rename.
    Nothing(PathBuf),
    Refuse(PathBuf, String),
}

impl RenameStep {
    /// The path the step acts on.
    pub fn path(&self) -> &Path {
        match self {
            Self::AppendTitle { path, .. }
            | Self::WriteSidecar { path, .. }
            | Self::RemoveSidecar(path)
            | Self::SetName { path, .. }
            | Self::Nothing(path)
            | Self::Refuse(path, _) => path,
        }
    }

    /// Carries the step out (`Nothing` and `Refuse` do nothing).
    pub fn apply(self) -> crate::error::Result<()> {
        match self {
            Self::AppendTitle { path, session_id, title } => {
                let line =
                    claude_titles::custom_title_line(&session_id, title.as_deref().unwrap_or(""));
                claude_titles::append_line(&path, &line, claude_titles::MID_LINE_WAIT).map(|_| ())
            }
            Self::WriteSidecar { path, bytes } => claude_titles::write_sidecar(&path, &bytes),
            Self::RemoveSidecar(path) => match fs::remove_file(&path) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(crate::error::Error::io_at("remove", &path, e)),
            },
            Self::SetName { state_dir, key, session_id, name, .. } => {
                MetadataStore::new(&state_dir).set_custom_name(&key, &session_id, name.as_deref())
            }
            Self::Nothing(_) | Self::Refuse(..) => Ok(()),
        }
    }
}

/// Where the stores and the backup are, for one rename's undo.
pub(super) struct RenameUndo<'a> {
    pub claude_home: &'a Path,
    pub state_dir: &'a Path,
    /// `<run>/backup`.
    pub backup: &'a Path,
    /// The session the rename renamed (from the journal's header, checked here).
    pub session_id: &'a str,
    /// The transcript the rename appended to, as its `Title` entry names it.
    pub transcript: Option<&'a str>,
}

fn refuse(path: &Path, reason: impl Into<String>) -> RenameStep {
    RenameStep::Refuse(path.to_path_buf(), reason.into())
}

fn quoted(title: Option<&str>) -> String {
    title.map_or_else(
        || "no custom title".to_owned(),
        |t| format!("“{}”", crate::printable::for_terminal(t, crate::printable::Lines::One)),
    )
}

impl RenameUndo<'_> {
    /// Decides one entry of a rename run.
    pub fn step(&self, entry: &JournalEntry) -> RenameStep {
        let path = PathBuf::from(&entry.path);
        if entry.session_id != self.session_id {
            return refuse(&path, "the entry names another session than the rename; not touched");
        }
        match entry.kind {
            EntryKind::Title => self.title_step(entry),
            EntryKind::TitleSidecar => self.sidecar_step(entry),
            EntryKind::Name => self.name_step(entry),
            _ => refuse(&path, "not a record a rename writes; not touched"),
        }
    }

    /// The transcript, if the journal names one exactly at `<claude home>/projects/<folder>/
    /// <sid>.jsonl` of the Claude home undo was pointed at, as a regular file.
    fn transcript(&self, named: &str) -> Result<PathBuf, RenameStep> {
        let path = PathBuf::from(named);
        let sid = crate::paths::validate_session_id(self.session_id)
            .map_err(|e| refuse(&path, e.to_string()))?;
        let projects = crate::paths::projects_dir(self.claude_home);
        let plain = path
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::RootDir | Component::Prefix(_)));
        let folder = path.parent();
        let in_home = folder.and_then(Path::parent) == Some(projects.as_path())
            && folder.and_then(Path::file_name).is_some();
        if !plain
            || !in_home
            || path.file_name().and_then(|n| n.to_str()) != Some(&format!("{sid}.jsonl"))
        {
            return Err(refuse(
                &path,
                format!(
                    "is not a transcript of session {sid} directly in a folder of {}, the Claude \
                     home undo was pointed at; not touched",
                    projects.display()
                ),
            ));
        }
        match fs::symlink_metadata(&path) {
            Ok(m) if m.is_file() => Ok(path),
            Ok(_) => Err(refuse(&path, "is not a regular file; not touched")),
            Err(e) => {
                Err(refuse(&path, format!("cannot be read: {}", crate::files::describe_io(&e))))
            }
        }
    }

    fn title_step(&self, entry: &JournalEntry) -> RenameStep {
        let path = match self.transcript(&entry.path) {
            Ok(p) => p,
            Err(step) => return step,
        };
        let shown = match claude_titles::picker_title(&path, self.session_id) {
            Ok(t) => t,
            Err(e) => {
                return refuse(&path, format!("cannot be read: {}", crate::files::describe_io(&e)));
            }
        };
        let (wrote, before) = (entry.name.as_deref(), entry.previous_name.as_deref());
        if shown.as_deref() == before {
            RenameStep::Nothing(path)
        } else if shown.as_deref() == wrote {
            RenameStep::AppendTitle {
                path,
                session_id: self.session_id.to_owned(),
                title: entry.previous_name.clone(),
            }
        } else {
            refuse(
                &path,
                format!(
                    "Claude Code shows {} for it now: it was renamed again since, so the newer \
                     name stays",
                    quoted(shown.as_deref())
                ),
            )
        }
    }

    fn sidecar_step(&self, entry: &JournalEntry) -> RenameStep {
        let path = PathBuf::from(&entry.path);
        // The sidecar is where Claude Code keeps it for the transcript the rename appended to
        // (or, with no title line, the transcript's place the journal's path implies).
        let transcript = self.transcript.map(str::to_owned).or_else(|| {
            let folder = path.parent()?.parent()?;
            Some(folder.join(format!("{}.jsonl", self.session_id)).display().to_string())
        });
        let Some(transcript) = transcript else {
            return refuse(&path, "not where Claude Code keeps a session's title; not touched");
        };
        let expected = PathBuf::from(&transcript)
            .parent()
            .map(|f| f.join(self.session_id).join(claude_titles::SIDECAR));
        if expected.as_deref() != Some(path.as_path()) {
            return refuse(&path, "not where Claude Code keeps this session's title; not touched");
        }
        if let Err(step) = self.transcript_folder_ok(&transcript, &path) {
            return step;
        }
        let Some(wrote) = &entry.written else {
            return refuse(
                &path,
                "the journal records no checksum of what the rename wrote; not touched",
            );
        };
        let now = match crate::files::sha256_no_follow(&path) {
            Ok(n) => Some(n),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => {
                return refuse(&path, format!("cannot be read: {}", crate::files::describe_io(&e)));
            }
        };
        let backup = match self.verified_backup(entry) {
            Ok(b) => b,
            Err(why) => return refuse(&path, why),
        };
        let is_rename_s = now.as_ref().is_some_and(|(n, h)| *n == wrote.size && *h == wrote.sha256);
        match (is_rename_s, backup) {
            (true, Some(bytes)) => RenameStep::WriteSidecar { path, bytes },
            (true, None) if entry.backup.is_none() => RenameStep::RemoveSidecar(path),
            (true, None) => refuse(&path, "its backup is gone; not touched"),
            (false, Some(bytes))
                if now.as_ref().is_some_and(|(_, h)| *h == crate::files::sha256_hex(&bytes)) =>
            {
                RenameStep::Nothing(path)
            }
            (false, None) if now.is_none() && entry.backup.is_none() => RenameStep::Nothing(path),
            (false, _) => refuse(&path, "it was changed since the rename, so it stays as it is"),
        }
    }

    /// The sidecar's folder must sit in the transcript's folder of this Claude home, with no link
    /// on the way.
    fn transcript_folder_ok(&self, transcript: &str, sidecar: &Path) -> Result<(), RenameStep> {
        let projects = crate::paths::projects_dir(self.claude_home);
        let folder = Path::new(transcript).parent();
        if folder.and_then(Path::parent) != Some(projects.as_path()) {
            return Err(refuse(sidecar, "not in the Claude home undo was pointed at; not touched"));
        }
        if let Some(dir) = sidecar.parent()
            && fs::symlink_metadata(dir).is_ok_and(|m| !m.is_dir())
        {
            return Err(refuse(sidecar, "its folder is not a real folder; not touched"));
        }
        Ok(())
    }

    /// The backed-up sidecar bytes, trusted by the rules every undo applies to a backup
    /// ([`super::journal::verified_backup`]) and checked again as read (`Ok(None)`: the entry
    /// names no backup, or it is not there).
    fn verified_backup(&self, entry: &JournalEntry) -> Result<Option<Vec<u8>>, String> {
        let Some(path) = verified_backup(self.backup, entry).map_err(|e| e.to_string())? else {
            return Ok(None);
        };
        let bytes = crate::files::read_bounded_no_follow(&path, claude_titles::MAX_SIDECAR_BYTES)
            .map_err(|e| format!("cannot read the backup {}: {e}", path.display()))?;
        if entry.backup_sha256.as_deref() != Some(crate::files::sha256_hex(&bytes).as_str()) {
            return Err(format!(
                "the backup {} no longer has the bytes the rename saved",
                path.display()
            ));
        }
        Ok(Some(bytes))
    }

    fn name_step(&self, entry: &JournalEntry) -> RenameStep {
        let named = PathBuf::from(&entry.path);
        let Some(key) = entry.agent_name.as_deref() else {
            return refuse(&named, "the journal names no agent key; not touched");
        };
        let store = MetadataStore::new(self.state_dir);
        // The file is the one the key names in the state dir undo was pointed at.
        let path = match store.file_path(key) {
            Ok(p) => p,
            Err(e) => return refuse(&named, e.to_string()),
        };
        let now = match store.custom_name(key, self.session_id) {
            Ok(n) => n,
            Err(e) => return refuse(&path, e.to_string()),
        };
        let (wrote, before) = (entry.name.as_deref(), entry.previous_name.as_deref());
        if now.as_deref() == before {
            RenameStep::Nothing(path)
        } else if now.as_deref() == wrote {
            RenameStep::SetName {
                path,
                state_dir: self.state_dir.to_path_buf(),
                key: key.to_owned(),
                session_id: self.session_id.to_owned(),
                name: entry.previous_name.clone(),
            }
        } else {
            refuse(
                &path,
                format!(
                    "herdctl's name for it under {key} is {} now: it was renamed again since, so \
                     the newer name stays",
                    quoted(now.as_deref())
                ),
            )
        }
    }
}
