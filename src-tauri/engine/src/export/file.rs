//! An export written to a file: a private temp file beside it, renamed (or linked) into place
//! when complete, with the transcript's permissions; temp files of killed exports cleaned up.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use super::{ExportRequest, ExportSummary};
use crate::catalog::Catalog;
use crate::error::{Error, Result};

/// Writes the export to the file `path`: into a temporary file beside it, renamed into place when
/// complete. An existing `path` is replaced only with `replace` (else the export is refused and
/// nothing is written).
pub fn export_to_file(
    catalog: &Catalog,
    session_id: &str,
    req: ExportRequest,
    path: &Path,
    replace: bool,
) -> Result<ExportSummary> {
    let existing = std::fs::symlink_metadata(path).ok();
    match &existing {
        Some(_) if !replace => {
            return Err(Error::InvalidInput(format!(
                "{} already exists; choose another file or allow replacing it",
                path.display()
            )));
        }
        // Only a plain file is replaced: a folder, link, pipe or device never is.
        Some(m) if !m.file_type().is_file() => {
            return Err(Error::InvalidInput(format!(
                "{} is not a plain file; choose another file",
                path.display()
            )));
        }
        _ => {}
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    // The session's transcript: an export is never more readable than it (a 0600 transcript
    // gives a 0600 export; a replaced file keeps its own bits, less any the transcript lacks).
    let source = std::fs::metadata(catalog.transcript_path(session_id, None)?)
        .map_err(|e| Error::io_at("read", Path::new(session_id), e))?;
    remove_dead_temps(path);
    let temp = crate::atomic_write::temp_sibling(path);
    let file = create_private(&temp).map_err(|e| Error::io_at("create", &temp, e))?;
    // Held while the export runs: a later export finds the temp locked and leaves it; a temp it
    // can lock was left by an export that died (see `remove_dead_temps`).
    file.try_lock().map_err(|e| Error::io_at("lock", &temp, e.into()))?;
    let mut out = BufWriter::with_capacity(256 * 1024, file);
    let result = super::stream::export(catalog, session_id, req, &mut out).and_then(|s| {
        let file = out.into_inner().map_err(|e| Error::io_at("write", &temp, e.into_error()))?;
        let mode = permissions_for(existing.as_ref(), &source);
        file.set_permissions(mode).map_err(|e| Error::io_at("write", &temp, e))?;
        file.sync_all().map_err(|e| Error::io_at("write", &temp, e))?;
        Ok(s)
    });
    let finish = result.and_then(|mut s| {
        if replace {
            std::fs::rename(&temp, path).map_err(|e| Error::io_at("rename", path, e))?;
        } else {
            place_new(&temp, path)?;
        }
        crate::atomic_write::sync_dir(dir);
        s.path = Some(path.display().to_string());
        Ok(s)
    });
    if finish.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    finish
}

/// Creates `path` exclusively, readable by its owner only until the export is complete (it may
/// hold a private session's text).
fn create_private(path: &Path) -> std::io::Result<File> {
    let mut o = File::options();
    o.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    o.open(path)
}

/// The permissions of a finished export: a replaced file's own, else the transcript's; on Unix
/// never a bit the transcript lacks.
fn permissions_for(
    existing: Option<&std::fs::Metadata>,
    source: &std::fs::Metadata,
) -> std::fs::Permissions {
    let Some(existing) = existing else { return source.permissions() };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = existing.permissions().mode() & source.permissions().mode() & 0o7777;
        std::fs::Permissions::from_mode(mode)
    }
    #[cfg(not(unix))]
    existing.permissions()
}

/// How old an export's temp file must be before a later export may take it for a dead one's: an
/// export creates its temp and then locks it, and one just created is not locked yet.
const DEAD_TEMP_AGE: std::time::Duration = std::time::Duration::from_secs(60);

/// Removes what exports to `path` that were killed left behind: temp files of exactly
/// [`crate::atomic_write::temp_sibling`]'s shape for this name (see [`crate::owned`]), older than
/// [`DEAD_TEMP_AGE`], that no export holds locked any more. One still being written is locked by
/// its export (or too new to be locked yet) and stays.
fn remove_dead_temps(path: &Path) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else {
        return;
    };
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    let target = crate::atomic_write::temp_target(name);
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let Some(n) = e.file_name().to_str().map(str::to_owned) else { continue };
        if !crate::owned::is_atomic_temp_of(&n, |t| t == target) {
            continue;
        }
        let candidate = e.path();
        let old_enough = std::fs::symlink_metadata(&candidate)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > DEAD_TEMP_AGE);
        if !old_enough {
            continue;
        }
        // Only a regular file, never through a link; locked means its export is alive.
        let Ok(f) = crate::files::open_regular_no_follow(&candidate) else { continue };
        if f.try_lock().is_ok() {
            let _ = std::fs::remove_file(&candidate);
        }
    }
}

/// Puts the finished `temp` at `path` only if nothing is there: a hard link fails on an existing
/// name, so a file another process (or a second export) created meanwhile is never replaced.
/// Where the filesystem has no hard links, a last look and a rename do.
fn place_new(temp: &Path, path: &Path) -> Result<()> {
    let appeared = || {
        Error::InvalidInput(format!(
            "{} appeared while exporting; nothing was replaced",
            path.display()
        ))
    };
    match std::fs::hard_link(temp, path) {
        Ok(()) => {
            let _ = std::fs::remove_file(temp);
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(appeared()),
        Err(_) if std::fs::symlink_metadata(path).is_ok() => Err(appeared()),
        Err(_) => std::fs::rename(temp, path).map_err(|e| Error::io_at("rename", path, e)),
    }
}
