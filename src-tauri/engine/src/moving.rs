//! Moving a file or a whole folder to a new path without ever replacing anything, and without a
//! moment in which its bytes exist nowhere.
//!
//! - On one filesystem it is one `rename` that refuses an existing destination (`renameat2` with
//!   `RENAME_NOREPLACE` on Linux, `renameatx_np` with `RENAME_EXCL` on macOS; elsewhere, or where
//!   a filesystem refuses the flag, a file is hard-linked then unlinked and a folder is renamed
//!   after checking the name is free).
//! - Across filesystems the tree is copied first, under a hidden temp name beside the
//!   destination: each file created exclusively, fsynced, with its permissions and times; each
//!   copy checked against its source (size and SHA-256) after it is written. Only when the whole
//!   tree is there and checked does the temp take the destination's name, and only then are the
//!   sources removed (bottom-up, each file only while it still has its copy's bytes). A crash leaves the source whole plus a temp
//!   copy (which [`leftover_temp`] names), or a complete destination plus part of the source:
//!   every byte is in at least one place.
//!
//! Links are moved as links, never followed; anything that is neither a file, a folder nor a
//! link (a FIFO, a device, a socket) is refused before anything moves.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::atomic_write::sync_dir;
use crate::fault::fault_point;

/// How an item got to its new place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moved {
    /// One rename on one filesystem.
    Renamed,
    /// Copied across filesystems, checked, and the source removed.
    Copied,
}

/// What a tree holds: its bytes and how many files (folders and links count as files of 0 bytes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TreeSize {
    /// Bytes in regular files.
    pub bytes: u64,
    /// Entries (files, folders, links).
    pub entries: u64,
    /// When its newest entry last changed (`None` when no time could be read).
    pub newest: Option<std::time::SystemTime>,
}

/// The size of what is at `path` (a file, a link, or a folder's whole tree), links not followed.
pub fn tree_size(path: &Path) -> io::Result<TreeSize> {
    let meta = fs::symlink_metadata(path)?;
    let mut size = TreeSize { bytes: 0, entries: 1, newest: meta.modified().ok() };
    if meta.is_file() {
        size.bytes = meta.len();
    } else if meta.is_dir() {
        for entry in fs::read_dir(path)? {
            let inner = tree_size(&entry?.path())?;
            size.bytes = size.bytes.saturating_add(inner.bytes);
            size.entries = size.entries.saturating_add(inner.entries);
            size.newest = size.newest.max(inner.newest);
        }
    }
    Ok(size)
}

/// The first entry of the tree at `path` that cannot be moved (a FIFO, a device, a socket).
pub fn first_special(path: &Path) -> io::Result<Option<PathBuf>> {
    let meta = fs::symlink_metadata(path)?;
    let t = meta.file_type();
    if t.is_dir() {
        for entry in fs::read_dir(path)? {
            if let Some(p) = first_special(&entry?.path())? {
                return Ok(Some(p));
            }
        }
        Ok(None)
    } else if t.is_file() || t.is_symlink() {
        Ok(None)
    } else {
        Ok(Some(path.to_path_buf()))
    }
}

/// The hidden name a copy across filesystems is built under before it takes `to`'s name.
pub fn leftover_temp(to: &Path) -> PathBuf {
    let name = to.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    to.with_file_name(format!(".{name}.corral-partial"))
}

/// Moves `from` (a file, link or folder) to `to`, which must not exist; see the module docs.
/// `Err(AlreadyExists)` when `to` is taken (nothing moved).
pub fn move_no_replace(from: &Path, to: &Path) -> io::Result<Moved> {
    if let Some(special) = first_special(from)? {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a file, folder or link, so it is not moved", special.display()),
        ));
    }
    match rename_no_replace(from, to) {
        Ok(()) => {
            sync_parents(from, to);
            Ok(Moved::Renamed)
        }
        Err(e) if e.kind() == io::ErrorKind::CrossesDevices => {
            copy_then_remove(from, to)?;
            Ok(Moved::Copied)
        }
        Err(e) => Err(e),
    }
}

fn sync_parents(from: &Path, to: &Path) {
    if let Some(p) = to.parent() {
        sync_dir(p);
    }
    if let Some(p) = from.parent() {
        sync_dir(p);
    }
}

#[cfg(any(target_os = "linux", target_os = "android", target_os = "macos", target_os = "ios"))]
fn rename_no_replace(from: &Path, to: &Path) -> io::Result<()> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    match renameat_with(CWD, from, CWD, to, RenameFlags::NOREPLACE) {
        Ok(()) => Ok(()),
        // The filesystem does not know the flag: the portable way.
        Err(e) if e == rustix::io::Errno::INVAL || e == rustix::io::Errno::NOSYS => {
            rename_checked(from, to)
        }
        Err(e) => Err(io::Error::from(e)),
    }
}

#[cfg(not(any(
    target_os = "linux",
    target_os = "android",
    target_os = "macos",
    target_os = "ios"
)))]
fn rename_no_replace(from: &Path, to: &Path) -> io::Result<()> {
    rename_checked(from, to)
}

/// A file: hard link then unlink (the link fails on an existing name). A folder or a link: the
/// name checked free, then renamed (a folder cannot be hard-linked; the window is a moment).
fn rename_checked(from: &Path, to: &Path) -> io::Result<()> {
    let meta = fs::symlink_metadata(from)?;
    if meta.is_file() {
        match fs::hard_link(from, to) {
            Ok(()) => return fs::remove_file(from),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Err(e),
            Err(_) => {}
        }
    }
    if fs::symlink_metadata(to).is_ok() {
        return Err(io::Error::new(io::ErrorKind::AlreadyExists, "the destination exists"));
    }
    fs::rename(from, to)
}

/// Across filesystems: the tree copied under a temp name and checked, renamed into place, then
/// the source removed.
fn copy_then_remove(from: &Path, to: &Path) -> io::Result<()> {
    if fs::symlink_metadata(to).is_ok() {
        return Err(io::Error::new(io::ErrorKind::AlreadyExists, "the destination exists"));
    }
    let temp = leftover_temp(to);
    // An earlier attempt's incomplete copy is ours by its name, and the source is still whole.
    remove_partial(&temp)?;
    if let Err(e) = copy_tree(from, &temp) {
        let _ = remove_partial(&temp);
        return Err(e);
    }
    fault_point("move: copied and checked under the temp name");
    rename_no_replace(&temp, to)?;
    if let Some(p) = to.parent() {
        sync_dir(p);
    }
    fault_point("move: copy in place, source not yet removed");
    remove_moved(from, to)?;
    if let Some(p) = from.parent() {
        sync_dir(p);
    }
    Ok(())
}

fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    let meta = fs::symlink_metadata(from)?;
    let t = meta.file_type();
    if t.is_symlink() {
        copy_link(from, to)
    } else if t.is_dir() {
        fs::create_dir(to)?;
        for entry in fs::read_dir(from)? {
            let entry = entry?;
            copy_tree(&entry.path(), &to.join(entry.file_name()))?;
        }
        fs::set_permissions(to, meta.permissions())?;
        sync_dir(to);
        Ok(())
    } else if t.is_file() {
        if !crate::placement::copy_new(from, to)? {
            return Err(io::Error::new(io::ErrorKind::AlreadyExists, "the copy's name is taken"));
        }
        // The source may have changed while it was read: the copy must be what is there now.
        let (a, b) = (crate::files::sha256_no_follow(from)?, crate::files::sha256_no_follow(to)?);
        if a != b {
            return Err(io::Error::other(format!(
                "{} changed while it was copied; nothing was moved",
                from.display()
            )));
        }
        Ok(())
    } else {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a file, folder or link", from.display()),
        ))
    }
}

#[cfg(unix)]
fn copy_link(from: &Path, to: &Path) -> io::Result<()> {
    std::os::unix::fs::symlink(fs::read_link(from)?, to)
}

#[cfg(windows)]
fn copy_link(from: &Path, to: &Path) -> io::Result<()> {
    let target = fs::read_link(from)?;
    if fs::metadata(from).is_ok_and(|m| m.is_dir()) {
        std::os::windows::fs::symlink_dir(target, to)
    } else {
        std::os::windows::fs::symlink_file(target, to)
    }
}

#[cfg(not(any(unix, windows)))]
fn copy_link(from: &Path, _to: &Path) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        format!("{} is a link, which this system cannot copy", from.display()),
    ))
}

/// Unlinks the tree at `path` entry by entry, bottom-up (a link is unlinked, never followed); a
/// missing path is no error. Only for Corral's own incomplete copies ([`leftover_temp`]): an
/// exact name inside a quarantine folder, whose source is still whole.
pub fn remove_partial(path: &Path) -> io::Result<()> {
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    if meta.is_dir() {
        for entry in fs::read_dir(path)? {
            remove_partial(&entry?.path())?;
        }
        fs::remove_dir(path)
    } else {
        fs::remove_file(path)
    }
}

/// Removes the source of a finished copy, bottom-up: a file only while it still has the bytes of
/// its copy, a link only while it names what its copy names, a folder only once it is empty. So
/// a file written or added to the source during the move stays where it is (and the error says
/// so), never lost.
fn remove_moved(source: &Path, copy: &Path) -> io::Result<()> {
    let meta = fs::symlink_metadata(source)?;
    if meta.is_dir() {
        for entry in fs::read_dir(copy)? {
            let name = entry?.file_name();
            match remove_moved(&source.join(&name), &copy.join(&name)) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                other => other?,
            }
        }
        return fs::remove_dir(source).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!(
                    "{} got new entries while it was moved; they stay there ({e})",
                    source.display()
                ),
            )
        });
    }
    let same = if meta.file_type().is_symlink() {
        fs::read_link(source)? == fs::read_link(copy)?
    } else {
        crate::files::same_content(source, copy)?
    };
    if !same {
        return Err(io::Error::other(format!(
            "{} changed while it was moved; it stays there",
            source.display()
        )));
    }
    fs::remove_file(source)
}

/// Puts the tree at `from` back at `to` without replacing anything there: what `to` lacks is
/// moved in, what it holds with the same bytes is dropped from `from`, and what differs stays
/// in `from` and is named in the answer. With nothing at `to`, the whole tree moves in one piece.
pub fn merge_back(from: &Path, to: &Path) -> io::Result<Vec<PathBuf>> {
    let mut kept = Vec::new();
    merge_into(from, to, &mut kept)?;
    Ok(kept)
}

fn merge_into(from: &Path, to: &Path, kept: &mut Vec<PathBuf>) -> io::Result<()> {
    let there = match fs::symlink_metadata(to) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return match move_no_replace(from, to) {
                Ok(_) => Ok(()),
                // Taken meanwhile: look again, as a merge.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => merge_into(from, to, kept),
                Err(e) => Err(e),
            };
        }
        Err(e) => return Err(e),
    };
    let here = fs::symlink_metadata(from)?;
    if here.is_dir() && there.is_dir() {
        for entry in fs::read_dir(from)? {
            let entry = entry?;
            merge_into(&entry.path(), &to.join(entry.file_name()), kept)?;
        }
        // Emptied when everything went back or was a duplicate.
        let _ = fs::remove_dir(from);
        return Ok(());
    }
    let same = here.is_file() && there.is_file() && crate::files::same_content(from, to)?;
    let same_link = here.file_type().is_symlink()
        && there.file_type().is_symlink()
        && fs::read_link(from)? == fs::read_link(to)?;
    if same || same_link {
        fs::remove_file(from)?;
    } else {
        kept.push(from.to_path_buf());
    }
    Ok(())
}
