//! Undoing a desktop-sidebar restore: each entry it placed is decided against the store undo is
//! pointed at, the run's target sidebar and the run's backup of the whole store — never against
//! what the journal claims alone. The journal only says which file names to consider.
//!
//! An entry is removed only when it is a regular file (not a link) directly in
//! `<store>/<account>/<org>/` of the run's sidebar (both uuid-shaped, no link on the way), is
//! named `local_*.json`, is not in the backup (so it was not there before the run), is the very
//! file the run created, and holds the bytes of its source's backup. An entry the run replaced
//! comes back from the backup when the file still holds what the run wrote.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use super::journal::{JournalEntry, STORE_BACKUP_DIR, SidebarTarget};
use crate::files::same_content;
use crate::paths::{is_sidebar_entry_name, is_uuid};
use crate::placement::temp_path_for;

/// What undo does with one sidebar entry of a run.
pub(super) enum SidebarStep {
    /// Remove the entry the run created.
    Remove(PathBuf),
    /// Put the replaced entry's bytes (in `backup`) back at `path`.
    PutBack {
        path: PathBuf,
        backup: PathBuf,
    },
    /// Already as before the run.
    Nothing(PathBuf),
    Refuse(PathBuf, String),
}

/// Where the store and backup are, for one run's undo.
pub(super) struct SidebarUndo<'a> {
    /// The store undo was pointed at (`None`: not given).
    pub store: Option<&'a Path>,
    pub run: Option<&'a SidebarTarget>,
    /// `<run>/backup`.
    pub backup: &'a Path,
    pub run_id: &'a str,
}

/// A store path split into its sidebar and file name: `…/<account>/<org>/<file>`.
struct Place<'a> {
    account: &'a str,
    org: &'a str,
    file: &'a str,
}

fn split(path: &Path) -> Option<Place<'_>> {
    let mut parts = path.components().rev().map(|c| match c {
        Component::Normal(s) => s.to_str(),
        _ => None,
    });
    let file = parts.next()??;
    let org = parts.next()??;
    let account = parts.next()??;
    (is_sidebar_entry_name(file) && is_uuid(org) && is_uuid(account)).then_some(Place {
        account,
        org,
        file,
    })
}

impl SidebarUndo<'_> {
    /// Decides one journal entry.
    pub fn step(&self, entry: &JournalEntry) -> SidebarStep {
        let path = PathBuf::from(&entry.path);
        match self.decide(entry, &path) {
            Ok(step) => step,
            Err(reason) => SidebarStep::Refuse(path, reason),
        }
    }

    fn decide(&self, entry: &JournalEntry, path: &Path) -> Result<SidebarStep, String> {
        let store = self.store.ok_or(
            "undo was not given the desktop app's store (a setting, or --desktop-store); not \
             touched",
        )?;
        let run = self.run.ok_or("the run names no sidebar; not touched")?;
        let here = Self::in_sidebar(store, run, path)?;
        let before = self.backed_up(&here)?;
        if entry.backup.is_none() && before.is_some() {
            return Err(
                "it was in the store before the run (the backup holds it); not removed".to_owned()
            );
        }
        let source = entry
            .from
            .as_deref()
            .map(Path::new)
            .and_then(split)
            .filter(|s| s.file == here.file)
            .ok_or("the journal names no source entry of the same file name; not touched")?;
        let written = self.backed_up(&source)?.ok_or(
            "the backup holds no copy of its source, so what the run wrote cannot be told; not \
             touched",
        )?;
        // Runs made before the source's checksum was journaled: its copy is taken as it is.
        if entry.source_sha256.is_some() {
            Self::verify(
                &written,
                (entry.source_size, entry.source_sha256.as_deref()),
                "the backup of its source",
            )?;
        }
        let meta = match fs::symlink_metadata(path) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Ok(SidebarStep::Nothing(path.to_path_buf()));
            }
            Err(e) => return Err(format!("cannot inspect it: {e}")),
        };
        if meta.file_type().is_symlink() {
            return Err("a symbolic link; not touched".to_owned());
        }
        if !meta.is_file() {
            return Err("not a regular file; not touched".to_owned());
        }
        let same = |other: &Path| {
            same_content(path, other).map_err(|e| format!("cannot compare with the backup: {e}"))
        };
        match (entry.backup.is_some(), before) {
            (false, _) => {
                Self::is_runs_own(entry, &meta)?;
                if same(&written)? {
                    Ok(SidebarStep::Remove(path.to_path_buf()))
                } else {
                    Err("changed since the run (it differs from its source); not removed"
                        .to_owned())
                }
            }
            (true, None) => {
                Err("the backup of the entry it replaced is missing; left as it is".to_owned())
            }
            (true, Some(old)) => {
                Self::verify(
                    &old,
                    (entry.backup_size, entry.backup_sha256.as_deref()),
                    "the backup of the entry it replaced",
                )?;
                if same(&old)? {
                    Ok(SidebarStep::Nothing(path.to_path_buf()))
                } else if same(&written)? {
                    Self::is_runs_own(entry, &meta)?;
                    Ok(SidebarStep::PutBack { path: path.to_path_buf(), backup: old })
                } else {
                    Err("changed since the run (it is neither what the run wrote nor what it \
                         replaced); left as it is"
                        .to_owned())
                }
            }
        }
    }

    /// `path` lies directly in the run's sidebar folder of `store`, with no link on the way.
    fn in_sidebar<'p>(
        store: &Path,
        run: &SidebarTarget,
        path: &'p Path,
    ) -> Result<Place<'p>, String> {
        let here = split(path)
            .ok_or("not a sidebar entry (<account uuid>/<org uuid>/local_*.json); not touched")?;
        if (here.account, here.org) != (run.account.as_str(), run.org.as_str()) {
            return Err("not in the sidebar the run restored into; not touched".to_owned());
        }
        let folder = crate::paths::sidebar_folder(store, here.account, here.org)
            .map_err(|why| format!("{why}; not touched"))?;
        if path.parent() == Some(folder.as_path()) {
            Ok(here)
        } else {
            Err(format!(
                "does not lie in {}/{}/{} (a link, or another store); not touched",
                store.display(),
                here.account,
                here.org
            ))
        }
    }

    /// `copy` holds exactly the bytes the journal recorded (`size`, `sha`), read without
    /// following a link.
    fn verify(
        copy: &Path,
        recorded: (Option<u64>, Option<&str>),
        what: &str,
    ) -> Result<(), String> {
        let (Some(size), Some(sha)) = recorded else {
            return Err(format!("the journal records no checksum of {what}; not touched"));
        };
        match crate::files::sha256_no_follow(copy) {
            Ok((n, h)) if n == size && h == sha => Ok(()),
            Ok(_) => Err(format!(
                "{what} ({}) changed since the run (its size or SHA-256 differs from the \
                 journal's); not touched",
                copy.display()
            )),
            Err(e) => Err(format!("cannot read {what} {}: {e}", copy.display())),
        }
    }

    /// The backup's copy of the store file at `place`, if the backup holds one (a regular file
    /// inside the backup, reached through no link).
    fn backed_up(&self, place: &Place<'_>) -> Result<Option<PathBuf>, String> {
        let copy =
            self.backup.join(STORE_BACKUP_DIR).join(place.account).join(place.org).join(place.file);
        match fs::symlink_metadata(&copy) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("cannot inspect the backup {}: {e}", copy.display())),
            Ok(m) if !m.is_file() => {
                return Err(format!("the backup {} is not a regular file", copy.display()));
            }
            Ok(_) => {}
        }
        let inside = fs::canonicalize(&copy)
            .ok()
            .zip(fs::canonicalize(self.backup).ok())
            .is_some_and(|(c, b)| c.starts_with(b));
        if inside {
            Ok(Some(copy))
        } else {
            Err(format!("the backup {} leads out of the run's folder", copy.display()))
        }
    }

    /// The file at the path is the one the run created (when the journal recorded which).
    fn is_runs_own(entry: &JournalEntry, meta: &fs::Metadata) -> Result<(), String> {
        if let (Some(recorded), Some(now)) = (entry.identity, crate::files::FileIdentity::of(meta))
            && (now.dev, now.ino) != (recorded.dev, recorded.ino)
        {
            return Err(
                "not the file this run wrote (another file is there now); not touched".to_owned()
            );
        }
        Ok(())
    }

    /// A temp file a crashed copy of this run left next to the entry.
    pub fn leftover_temp(&self, entry: &JournalEntry) -> Option<PathBuf> {
        let (store, run) = (self.store?, self.run?);
        let path = Path::new(&entry.path);
        Self::in_sidebar(store, run, path).ok()?;
        let tmp = temp_path_for(path, self.run_id);
        fs::symlink_metadata(&tmp).is_ok_and(|m| m.is_file()).then_some(tmp)
    }
}
