//! Deciding each entry of a file run (an import, an adoption) against the filesystem as it is
//! now: what undo may remove, restore or must leave alone, and why.

#[allow(clippy::wildcard_imports, reason = "the parent's types and imports, as one module")]
use super::*;

/// Everything a decision about one entry needs: the run, its backup and where undo points.
pub(super) struct Decider<'a> {
    pub(super) target: &'a UndoTarget,
    pub(super) run_id: &'a str,
    pub(super) backup: &'a Path,
    pub(super) started: Option<i128>,
    pub(super) mode: PlacementMode,
    pub(super) entries: &'a [JournalEntry],
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

impl Decider<'_> {
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
    pub(super) fn file_step(&self, entry: &JournalEntry) -> Step {
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

    pub(super) fn leftover_temp(&self, entry: &JournalEntry) -> Option<PathBuf> {
        let dest = self.checked_destination(entry).ok()?;
        let tmp = temp_path_for(&dest, self.run_id);
        fs::symlink_metadata(&tmp).is_ok_and(|m| m.is_file()).then_some(tmp)
    }

    pub(super) fn folder_step(&self, entry: &JournalEntry) -> Step {
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

    pub(super) fn record_step(&self, entry: &JournalEntry) -> Step {
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

    /// An adoption record a release removed: put back from the run's backup, and only while no
    /// record of the session is there (a later adoption, by any agent, stays). The backup must
    /// still be the record the journal names.
    pub(super) fn released_step(&self, entry: &JournalEntry) -> Step {
        let path = match adoption_store::record_path(&self.target.state_dir, &entry.session_id) {
            Ok(p) => p,
            Err(e) => return refuse(Path::new(&entry.path), e.to_string()),
        };
        // A release removes the record only once its copy's checksum is journaled: without one,
        // it stopped before and removed nothing.
        if entry.backup_sha256.is_none() && entry.state == EntryState::Intended {
            return Step::Nothing { path };
        }
        let backup = match self.verified_backup(entry) {
            Ok(Some(bk)) => bk,
            Ok(None) => return refuse(&path, "the copy of the released record is missing"),
            Err(why) => return refuse(&path, format!("{why}; nothing put back")),
        };
        let limit = crate::fleet::MAX_YAML_BYTES;
        let saved = match crate::files::read_bounded_no_follow(&backup, limit) {
            Ok(b) => b,
            Err(e) => return refuse(&path, format!("cannot read the backup: {e}")),
        };
        let is_released = adoption_store::parse_bytes(&saved).is_ok_and(|r| {
            r.session_id == entry.session_id && Some(&r.agent_name) == entry.agent_name.as_ref()
        });
        if !is_released {
            return refuse(&path, "the backup is not the record the release removed");
        }
        match crate::files::read_bounded_if_present(&path, limit) {
            Ok(None) => {
                Step::PutBackRecord { path, backup, state_dir: self.target.state_dir.clone() }
            }
            Ok(Some(now)) if now == saved => Step::Nothing { path },
            Ok(Some(now)) => {
                let owner = adoption_store::parse_bytes(&now).ok().map_or_else(
                    || "an unreadable one".to_owned(),
                    |r| format!("{}'s", r.agent_name),
                );
                refuse(
                    &path,
                    format!("the session has an adoption record again ({owner}); it stays"),
                )
            }
            Err(e) => refuse(&path, format!("cannot read: {e}")),
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

/// An absolute path with nothing to resolve (no `.` or `..`): it names one place whatever the
/// current folder.
fn is_plain_absolute(path: &Path) -> bool {
    use std::path::Component;
    path.is_absolute()
        && !path.components().any(|c| matches!(c, Component::ParentDir | Component::CurDir))
}
