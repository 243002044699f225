//! The index folder as tantivy sees it: tantivy's own memory-mapped directory, except that every
//! file it opens for reading or locking must be a regular file.
//!
//! tantivy opens its files (`meta.json`, `.managed.json`, its lock files, segments) with plain
//! `std::fs`: a FIFO there would block a search forever and a link to `/dev/zero` would be read
//! without end. [`SearchIndex::open`](super::SearchIndex::open) refuses such a folder before
//! tantivy sees it; this directory closes the rest of the gap for files that appear later. Small
//! files are read through the engine's one opener (the type checked on the opened handle, the size
//! capped); a segment's type is checked just before tantivy maps it; a lock file is opened
//! without following a link and without blocking, checked on the handle, then locked
//! (`flock`, as tantivy does, so processes of older builds still exclude each other).

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tantivy::directory::error::{DeleteError, LockError, OpenReadError, OpenWriteError};
use tantivy::directory::{
    Directory, DirectoryLock, FileHandle, Lock, MmapDirectory, WatchCallback, WatchHandle, WritePtr,
};

/// Largest `meta.json` or `.managed.json` read (they list segments: a few KB).
const MAX_SMALL_FILE: u64 = 64 << 20;

/// tantivy's memory-mapped directory, opening only regular files.
#[derive(Debug, Clone)]
pub(super) struct RegularFilesOnly {
    root: PathBuf,
    inner: MmapDirectory,
}

impl RegularFilesOnly {
    pub(super) fn open(root: &Path) -> Result<Self, tantivy::directory::error::OpenDirectoryError> {
        Ok(Self { root: root.to_path_buf(), inner: MmapDirectory::open(root)? })
    }

    /// An error unless `path` is absent or a regular file (its own type: a link is refused).
    fn check(&self, path: &Path) -> io::Result<()> {
        match std::fs::symlink_metadata(self.root.join(path)) {
            Ok(m) if m.is_file() => Ok(()),
            Ok(_) => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} in the search index is not a regular file", path.display()),
            )),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(e),
        }
    }
}

impl Directory for RegularFilesOnly {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        self.check(path).map_err(|e| OpenReadError::wrap_io_error(e, path.to_path_buf()))?;
        self.inner.get_file_handle(path)
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        self.inner.delete(path)
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.inner.exists(path)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        // Exclusive create: never opens what is already there.
        self.inner.open_write(path)
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        let full = self.root.join(path);
        let file = match crate::files::open_regular_no_follow(&full) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(OpenReadError::FileDoesNotExist(path.to_path_buf()));
            }
            Err(e) => return Err(OpenReadError::wrap_io_error(e, path.to_path_buf())),
        };
        let mut bytes = Vec::new();
        file.take(MAX_SMALL_FILE + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| OpenReadError::wrap_io_error(e, path.to_path_buf()))?;
        if bytes.len() as u64 > MAX_SMALL_FILE {
            let e = io::Error::new(io::ErrorKind::InvalidData, "larger than an index's metadata");
            return Err(OpenReadError::wrap_io_error(e, path.to_path_buf()));
        }
        Ok(bytes)
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        // A temp file renamed over the name: replaces whatever was there, opens nothing of it.
        self.inner.atomic_write(path, data)
    }

    fn sync_directory(&self) -> io::Result<()> {
        self.inner.sync_directory()
    }

    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        let file =
            open_lock_file(&self.root.join(&lock.filepath)).map_err(LockError::wrap_io_error)?;
        if lock.is_blocking {
            file.lock().map_err(LockError::wrap_io_error)?;
        } else {
            match file.try_lock() {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => return Err(LockError::LockBusy),
                Err(std::fs::TryLockError::Error(e)) => return Err(LockError::wrap_io_error(e)),
            }
        }
        // Closing the file releases the lock.
        Ok(DirectoryLock::from(Box::new(file)))
    }

    fn watch(&self, watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.inner.watch(watch_callback)
    }
}

/// Opens (creating when missing) a lock file: never through a link, never blocking on a FIFO, and
/// only if what was opened is a regular file.
fn open_lock_file(path: &Path) -> io::Result<File> {
    let mut o = OpenOptions::new();
    o.write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_CLOEXEC);
    }
    let file = o.open(path)?;
    if file.metadata()?.is_file() {
        Ok(file)
    } else {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a regular file", path.display()),
        ))
    }
}
