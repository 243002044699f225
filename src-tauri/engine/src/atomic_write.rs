//! Safe writes to user data: atomic replacement (temp file + rename) for files Corral owns
//! (metadata, records, journals) and exclusive creation for files that must never be replaced.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Writes `bytes` to `path` atomically: a sibling temp file is written, fsynced and renamed over
/// `path`, so readers see the old or the new content, never a mix. Creates missing parent folders.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_if(path, bytes, || true).map(|_| ())
}

/// Like [`write_atomic`], but asks `still_current` right before the rename (after the new bytes
/// are written and synced, so the moment between the question and the replacement is as short as
/// it can be); when it answers `false` nothing is replaced and `Ok(false)` is returned.
pub fn write_atomic_if(
    path: &Path,
    bytes: &[u8],
    still_current: impl FnOnce() -> bool,
) -> Result<bool> {
    write_atomic_with(path, bytes, still_current, None)
}

/// Like [`write_atomic`], for a file only its owner may read (mode 0600 where modes exist), as
/// the client writes its own private records.
pub fn write_atomic_private(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_with(path, bytes, || true, Some(0o600)).map(|_| ())
}

fn write_atomic_with(
    path: &Path,
    bytes: &[u8],
    still_current: impl FnOnce() -> bool,
    mode: Option<u32>,
) -> Result<bool> {
    let parent = path.parent().unwrap_or_else(|| Path::new("."));
    fs::create_dir_all(parent).map_err(|e| Error::io_at("create folder", parent, e))?;
    let tmp = temp_sibling(path);
    let result = (|| -> std::io::Result<bool> {
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        if let Some(mode) = mode {
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, mode);
        }
        #[cfg(not(unix))]
        let _ = mode;
        let mut f = options.open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        if !still_current() {
            fs::remove_file(&tmp)?;
            return Ok(false);
        }
        fs::rename(&tmp, path)?;
        sync_dir(parent);
        Ok(true)
    })();
    result.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        Error::io_at("write", path, e)
    })
}

/// Creates `path` with `bytes` only if nothing exists there (no symlink is followed).
/// Returns `Ok(false)` when the path was already taken.
pub fn create_exclusive(path: &Path, bytes: &[u8]) -> Result<bool> {
    match OpenOptions::new().write(true).create_new(true).open(path) {
        Ok(mut f) => {
            f.write_all(bytes)
                .and_then(|()| f.sync_all())
                .map_err(|e| Error::io_at("write", path, e))?;
            Ok(true)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(Error::io_at("create", path, e)),
    }
}

/// `.<name>.tmp.<pid>.<n>.<nanos>` next to `path`: hidden, unique (across processes by the pid,
/// across threads by a counter), on the same filesystem. A long name is shortened (see
/// [`temp_target`]), so the temp name stays within the 255 bytes a file name may have.
pub(crate) fn temp_sibling(path: &Path) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let name = temp_target(&name);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    path.with_file_name(format!(".{name}.tmp.{}.{n}.{nanos}", std::process::id()))
}

/// Longest part of a file name a temp name repeats: with the dot, `.tmp.`, a pid, a counter and
/// nanoseconds (at most 47 bytes) it stays under the 255 bytes of a file name.
const TEMP_NAME_PART: usize = 160;

/// The part of `name` its temp files carry: the whole name, or its first [`TEMP_NAME_PART`]
/// bytes (cut at a character's edge).
pub(crate) fn temp_target(name: &str) -> &str {
    let mut end = name.len().min(TEMP_NAME_PART);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    name.get(..end).unwrap_or_default()
}

/// Flushes a directory entry change to disk where the platform allows it.
pub fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}
