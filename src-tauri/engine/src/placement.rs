//! Putting one transcript file at a new path without ever replacing anything.
//!
//! Every mode creates the destination exclusively — `create_new`, `link()` or `symlink()`, each of
//! which fails on an existing path, a dangling symlink included — so an existing destination is a
//! [`PlaceOutcome::DestinationExists`], decided by the filesystem and never by a pre-check alone.
//! `rename()` is never used: it silently replaces whatever sits at the destination.
//!
//! - `copy` (default): the bytes go to a hidden temp sibling (`create_new`), are fsynced and given
//!   the source's mtime, and the temp is then hard-linked to the final name (exclusive) and
//!   unlinked. So the final name only ever holds a complete copy; a crash leaves at most the temp,
//!   which undo removes by its name.
//! - `link`: a hard link; across devices (or where hard links are refused) an absolute symlink.
//! - `move`: a hard link, then the source is unlinked; across devices a `copy` as above, then the
//!   source is unlinked. If the unlink fails, the new link/copy is removed again.

use std::fs::{self, FileTimes, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::atomic_write::sync_dir;
use crate::fault::fault_point;

/// How a transcript is placed at its destination.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum PlacementMode {
    /// A new copy with the source's mtime; the source stays.
    #[default]
    Copy,
    /// A hard link (a symlink across devices); the source stays and both names show one file.
    Link,
    /// The file leaves its source (hard link + unlink; across devices copy + fsync + unlink).
    Move,
}

impl PlacementMode {
    /// The word it is written as (`copy`, `link`, `move`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Copy => "copy",
            Self::Link => "link",
            Self::Move => "move",
        }
    }

    /// Parses `copy`, `link` or `move`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "copy" => Some(Self::Copy),
            "link" => Some(Self::Link),
            "move" => Some(Self::Move),
            _ => None,
        }
    }
}

/// What a successful placement actually did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum PlacedAs {
    /// `copy`: an exclusive copy.
    Copied,
    /// `link` on one device.
    HardLinked,
    /// `link` across devices.
    Symlinked,
    /// `move` on one device: hard link, then unlink.
    Moved,
    /// `move` across devices: exclusive copy, fsync, then unlink.
    MovedByCopy,
    /// The transcript already was in its destination folder; only the adoption record was written.
    RecordOnly,
}

/// The result of one placement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlaceOutcome {
    /// The file was placed, this way.
    Placed(PlacedAs),
    /// Something (a file, a folder, a symlink — dangling or not) already occupies the destination;
    /// nothing was written and the source is untouched.
    DestinationExists,
}

/// The two filesystem calls whose failure decides the cross-device paths, injectable for tests.
pub trait PlacementFs {
    /// Makes `link` a hard link to `original`.
    fn hard_link(&self, original: &Path, link: &Path) -> io::Result<()> {
        fs::hard_link(original, link)
    }

    /// Makes `link` a symbolic link to `original`.
    fn symlink(&self, original: &Path, link: &Path) -> io::Result<()> {
        make_symlink(original, link)
    }
}

/// The real filesystem.
#[derive(Debug, Clone, Copy, Default)]
pub struct RealFs;

impl PlacementFs for RealFs {}

/// A filesystem on which every hard link between source and destination fails with
/// `CrossesDevices` (EXDEV), as it does between two mounts. Used by tests and by the
/// `fault-points` build of the CLI.
#[derive(Debug, Clone, Copy, Default)]
pub struct SimulatedCrossDevice;

impl PlacementFs for SimulatedCrossDevice {
    fn hard_link(&self, _original: &Path, _link: &Path) -> io::Result<()> {
        Err(io::Error::new(
            io::ErrorKind::CrossesDevices,
            "simulated: source and destination are on different devices",
        ))
    }
}

#[cfg(unix)]
fn make_symlink(original: &Path, link: &Path) -> io::Result<()> {
    std::os::unix::fs::symlink(original, link)
}

#[cfg(windows)]
fn make_symlink(original: &Path, link: &Path) -> io::Result<()> {
    std::os::windows::fs::symlink_file(original, link)
}

#[cfg(not(any(unix, windows)))]
fn make_symlink(_original: &Path, _link: &Path) -> io::Result<()> {
    Err(io::Error::new(io::ErrorKind::Unsupported, "symbolic links are not supported here"))
}

/// Errors after which a hard link is replaced by a copy (`move`) or a symlink (`link`):
/// different devices, or a filesystem that refuses hard links.
fn hard_link_unavailable(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::CrossesDevices
            | io::ErrorKind::PermissionDenied
            | io::ErrorKind::Unsupported
    )
}

/// The hidden temp sibling a copy is written to before it is linked to `to`:
/// `.<name>.corral-<tag>.tmp`. `tag` is the run id, so undo can find a temp a crash left behind.
pub fn temp_path_for(to: &Path, tag: &str) -> PathBuf {
    let name = to.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    to.with_file_name(format!(".{name}.corral-{tag}.tmp"))
}

/// Places `from` at `to` in `mode`. `tag` names the temp file of a copy (the run id).
/// An existing destination is `Ok(DestinationExists)`; anything else that fails is an error and
/// leaves no partial destination behind.
pub fn place(
    fs_ops: &dyn PlacementFs,
    mode: PlacementMode,
    from: &Path,
    to: &Path,
    tag: &str,
) -> io::Result<PlaceOutcome> {
    let outcome = match mode {
        PlacementMode::Copy => {
            if copy_exclusive(from, to, tag)? {
                PlaceOutcome::Placed(PlacedAs::Copied)
            } else {
                PlaceOutcome::DestinationExists
            }
        }
        PlacementMode::Link => link(fs_ops, from, to)?,
        PlacementMode::Move => move_file(fs_ops, from, to, tag)?,
    };
    if let Some(parent) = to.parent() {
        sync_dir(parent);
    }
    Ok(outcome)
}

fn link(fs_ops: &dyn PlacementFs, from: &Path, to: &Path) -> io::Result<PlaceOutcome> {
    // Link to the real file, never to a symlink (a relative symlink would break when linked).
    let target = fs::canonicalize(from)?;
    if !fs::metadata(&target)?.is_file() {
        return Err(io::Error::other("the source is not a regular file"));
    }
    match fs_ops.hard_link(&target, to) {
        Ok(()) => Ok(PlaceOutcome::Placed(PlacedAs::HardLinked)),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(PlaceOutcome::DestinationExists),
        Err(e) if hard_link_unavailable(&e) => match fs_ops.symlink(&target, to) {
            Ok(()) => Ok(PlaceOutcome::Placed(PlacedAs::Symlinked)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                Ok(PlaceOutcome::DestinationExists)
            }
            Err(e) => Err(e),
        },
        Err(e) => Err(e),
    }
}

fn move_file(
    fs_ops: &dyn PlacementFs,
    from: &Path,
    to: &Path,
    tag: &str,
) -> io::Result<PlaceOutcome> {
    let meta = fs::symlink_metadata(from)?;
    if !meta.is_file() {
        return Err(io::Error::other(
            "the source is not a regular file (a symlink cannot be moved safely; use copy or link)",
        ));
    }
    let how = match fs_ops.hard_link(from, to) {
        Ok(()) => PlacedAs::Moved,
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            return Ok(PlaceOutcome::DestinationExists);
        }
        Err(e) if hard_link_unavailable(&e) => {
            if !copy_exclusive(from, to, tag)? {
                return Ok(PlaceOutcome::DestinationExists);
            }
            PlacedAs::MovedByCopy
        }
        Err(e) => return Err(e),
    };
    fault_point("move: destination created, source not yet unlinked");
    if let Err(e) = fs::remove_file(from) {
        // Keep move semantics honest: one place or the other, never a silent duplicate.
        let _ = fs::remove_file(to);
        return Err(e);
    }
    if let Some(parent) = from.parent() {
        sync_dir(parent);
    }
    Ok(PlaceOutcome::Placed(how))
}

/// Copies `from` to `to` so that `to` either does not exist or holds the complete bytes with the
/// source's mtime. Returns `Ok(false)` when `to` was already taken (nothing written).
pub fn copy_exclusive(from: &Path, to: &Path, tag: &str) -> io::Result<bool> {
    // A fast answer for the common case; the exclusive link below is what actually decides.
    if fs::symlink_metadata(to).is_ok() {
        return Ok(false);
    }
    let tmp = temp_path_for(to, tag);
    if let Err(e) = write_copy(from, &tmp) {
        if e.kind() == io::ErrorKind::AlreadyExists {
            // A temp of this very run (same tag) — left by an earlier attempt; it is ours.
            let _ = fs::remove_file(&tmp);
            write_copy(from, &tmp)?;
        } else {
            return Err(e);
        }
    }
    fault_point("copy: temp written and synced, not yet linked");
    match fs::hard_link(&tmp, to) {
        Ok(()) => {
            fault_point("copy: linked, temp not yet removed");
            let _ = fs::remove_file(&tmp);
            Ok(true)
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            let _ = fs::remove_file(&tmp);
            Ok(false)
        }
        Err(_) => {
            // This filesystem has no hard links: create the final name exclusively and copy into
            // it; on failure remove what this call created.
            let _ = fs::remove_file(&tmp);
            copy_new(from, to)
        }
    }
}

/// Creates `to` exclusively with the bytes of `from`, its mtime/atime, fsynced. If anything fails
/// after `to` was created, `to` is removed again (it is ours: it did not exist a moment ago).
fn write_copy(from: &Path, to: &Path) -> io::Result<()> {
    let mut input = crate::files::open_regular(from)?;
    let src_meta = input.metadata()?;
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    // Private until it is complete; then it gets exactly the source's permission bits.
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut out = options.open(to)?;
    fault_point("copy: file created, bytes not yet written");
    let filled = (|| -> io::Result<()> {
        io::copy(&mut input, &mut out)?;
        crate::files::keep_permissions(&out, &src_meta)?;
        let mut times = FileTimes::new();
        if let Ok(m) = src_meta.modified() {
            times = times.set_modified(m);
        }
        if let Ok(a) = src_meta.accessed() {
            times = times.set_accessed(a);
        }
        // A failure to keep the mtime is not worth losing the copy over (herdctl warns only).
        let _ = out.set_times(times);
        out.sync_all()
    })();
    if let Err(e) = filled {
        drop(out);
        let _ = fs::remove_file(to);
        return Err(e);
    }
    Ok(())
}

/// Copies `from` into a new file `to` (exclusive), keeping the mtime and fsyncing; used for
/// backups and restores. `Ok(false)` when `to` already exists.
pub fn copy_new(from: &Path, to: &Path) -> io::Result<bool> {
    match write_copy(from, to) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e),
    }
}
