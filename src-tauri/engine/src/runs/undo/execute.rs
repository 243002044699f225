//! Carrying out decided steps: each one re-checks nothing (the decision did), does one thing
//! and says what it did or why it failed.

#[allow(clippy::wildcard_imports, reason = "the parent's types and imports, as one module")]
use super::*;

pub(super) fn step_summary(
    step: &Step,
) -> std::result::Result<(String, UndoAction), (String, String)> {
    let s = |p: &Path| p.display().to_string();
    match step {
        Step::Remove { path, action } => Ok((s(path), *action)),
        Step::RestoreMoved { source, .. } => Ok((s(source), UndoAction::RestoredSource)),
        Step::RestoreFromBackup { source, .. } => Ok((s(source), UndoAction::RestoredFromBackup)),
        Step::RemoveRecord { path } => Ok((s(path), UndoAction::RecordRemoved)),
        Step::RestoreRecord { path, .. } => Ok((s(path), UndoAction::RecordRestored)),
        Step::PutBackRecord { path, .. } => Ok((s(path), UndoAction::RecordPutBack)),
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
        Step::Quarantine(step) => {
            let action = match step {
                QuarantineStep::PutBack { .. } => UndoAction::Unquarantined,
                QuarantineStep::RemovePartial(_) => UndoAction::TempRemoved,
                QuarantineStep::Nothing(_) => UndoAction::AlreadyGone,
                QuarantineStep::Refuse(path, reason) => return Err((s(path), reason.clone())),
            };
            Ok((s(step.path()), action))
        }
        Step::Refuse { path, reason } => Err((s(path), reason.clone())),
    }
}

pub(super) fn execute(step: Step) -> std::result::Result<(String, UndoAction), (String, String)> {
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
        Step::PutBackRecord { path, backup, state_dir } => {
            put_back_record(&path, &backup, &state_dir)?;
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
        Step::Quarantine(step) => {
            let path = step.path().display().to_string();
            step.apply().map_err(|e| (path, e))?;
        }
        Step::Nothing { .. } | Step::Refuse { .. } => {}
    }
    Ok(summary)
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

/// Puts a released adoption record back from `backup`, only where no record is now (exclusive
/// create, under the lock adopting takes to check for a record before it writes one).
fn put_back_record(
    path: &Path,
    backup: &Path,
    state_dir: &Path,
) -> std::result::Result<(), (String, String)> {
    let at = || path.display().to_string();
    let _one_writer = adoption_store::lock(state_dir)
        .map_err(|e| (at(), format!("cannot lock the adoption records: {e}")))?;
    match copy_exclusive(backup, path, "undo") {
        Ok(true) => {
            if let Some(parent) = path.parent() {
                sync_dir(parent);
            }
            Ok(())
        }
        Ok(false) => {
            Err((at(), "an adoption record of this session appeared meanwhile; it stays".into()))
        }
        Err(e) => Err((at(), format!("cannot put back: {e}"))),
    }
}
