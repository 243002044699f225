//! The one way the engine opens a file it did not just create: [`open_regular`].
//!
//! Everything Corral reads — transcripts, records, metadata, fleet files, journals, backups, its
//! own index — can be something other than a file: a FIFO (opening one for reading blocks until a
//! writer appears, forever), a link to `/dev/zero` or `/dev/urandom` (endless bytes), a socket, a
//! folder. [`open_regular`] opens without blocking and then asks the *opened handle* (not the
//! path, so nothing can be swapped in between) whether it is a regular file; anything else is an
//! error of kind [`io::ErrorKind::InvalidInput`] that says what it was. Small files are read
//! through [`read_bounded`], which also caps how much is read.
//!
//! The module also holds the other file rules every writer shares: cross-process locks for
//! read-modify-write ([`lock_folder`]), the permission bits a copy keeps ([`keep_permissions`]),
//! and a file's identity ([`FileIdentity`]) for telling one file from another at the same path.

use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, Read};
use std::path::Path;

use serde::de::DeserializeOwned;

/// Opens `path` for reading, following links, and fails unless what was opened is a regular file.
///
/// The open never blocks (`O_NONBLOCK`: a FIFO opens at once instead of waiting for a writer) and
/// the type check is made on the open handle, so a file swapped for a FIFO or a device after a
/// check of the path is still refused. On regular files the flag changes nothing.
pub fn open_regular(path: &Path) -> io::Result<File> {
    checked(options(false).open(path)?)
}

/// Like [`open_regular`], but refuses a symbolic link as the last component of `path` (for paths
/// Corral itself wrote as files, such as backups: a link there was put there by someone else).
pub fn open_regular_no_follow(path: &Path) -> io::Result<File> {
    open_checked_no_follow(&options(true), path)
}

/// Opens `path` to append to it (and read it), refusing a symbolic link as the last component
/// and anything that is not a regular file, checked on the open handle (a FIFO opens at once and
/// is refused). Writes go to the end of the file whoever else appends (`O_APPEND`).
pub fn open_regular_for_append(path: &Path) -> io::Result<File> {
    let mut o = options(true);
    o.append(true);
    open_checked_no_follow(&o, path)
}

/// Opens `path` with `o` (which refuses to follow a last-component link) and checks the handle is
/// a regular file; a refused link is said in plain words.
fn open_checked_no_follow(o: &OpenOptions, path: &Path) -> io::Result<File> {
    match o.open(path) {
        Ok(f) => checked(f),
        Err(e) if fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) => {
            Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("it is a symbolic link, not a regular file ({e})"),
            ))
        }
        Err(e) => Err(e),
    }
}

fn options(no_follow: bool) -> OpenOptions {
    let mut o = OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let mut flags = libc::O_NONBLOCK | libc::O_CLOEXEC;
        if no_follow {
            flags |= libc::O_NOFOLLOW;
        }
        o.custom_flags(flags);
    }
    #[cfg(windows)]
    if no_follow {
        use std::os::windows::fs::OpenOptionsExt;
        // FILE_FLAG_OPEN_REPARSE_POINT: open a link itself, so the type check below refuses it.
        o.custom_flags(0x0020_0000);
    }
    #[cfg(not(any(unix, windows)))]
    let _ = no_follow;
    o
}

fn checked(file: File) -> io::Result<File> {
    let meta = file.metadata()?;
    if meta.is_file() {
        Ok(file)
    } else {
        Err(io::Error::new(io::ErrorKind::InvalidInput, not_regular(&meta)))
    }
}

/// What a non-regular file is, in plain words.
fn not_regular(meta: &Metadata) -> String {
    let ft = meta.file_type();
    let what = if ft.is_dir() {
        "a folder"
    } else if ft.is_symlink() {
        "a symbolic link"
    } else {
        special_kind(&ft)
    };
    format!("it is {what}, not a regular file")
}

#[cfg(unix)]
fn special_kind(ft: &fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_fifo() {
        "a FIFO (named pipe)"
    } else if ft.is_char_device() || ft.is_block_device() {
        "a device"
    } else if ft.is_socket() {
        "a socket"
    } else {
        "not a plain file"
    }
}

#[cfg(not(unix))]
fn special_kind(_ft: &fs::FileType) -> &'static str {
    "not a plain file"
}

/// Why a file Corral reads cannot be used as what it should be, as a plain sentence (shown in
/// warnings and in [`crate::Error::Unreadable`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unusable {
    /// It cannot be opened or read (missing, denied, not a regular file, an I/O error).
    #[error("{0}")]
    Io(String),
    /// It is larger than the bound (in bytes) a reader of its kind allows.
    #[error("the file is larger than {0} bytes")]
    TooLarge(u64),
    /// It is not UTF-8 text.
    #[error("the file is not UTF-8 text")]
    NotUtf8,
    /// It is not valid YAML of the expected shape.
    #[error("it is not valid YAML of the expected shape: {0}")]
    Yaml(String),
    /// It parses, but not into the shape the format requires (herdctl's schema).
    #[error("{0}")]
    Shape(String),
}

impl Unusable {
    /// A shape problem, described.
    pub fn shape(why: impl Into<String>) -> Self {
        Self::Shape(why.into())
    }
}

impl From<&io::Error> for Unusable {
    fn from(e: &io::Error) -> Self {
        Self::Io(describe_io(e))
    }
}

/// Reads a whole small file through [`open_regular`]: refuses anything that is not a regular file
/// and anything larger than `limit` bytes (checked while reading, so a file that grows meanwhile
/// is refused too). The error is a plain sentence.
pub fn read_bounded(path: &Path, limit: u64) -> std::result::Result<Vec<u8>, Unusable> {
    let file = open_regular(path).map_err(|e| Unusable::from(&e))?;
    read_all_bounded(file, limit)
}

/// [`read_bounded`] of a file that may be absent: `Ok(None)` when there is nothing at `path`
/// (opened once: no separate existence check before the read).
pub fn read_bounded_if_present(
    path: &Path,
    limit: u64,
) -> std::result::Result<Option<Vec<u8>>, Unusable> {
    match open_regular(path) {
        Ok(file) => read_all_bounded(file, limit).map(Some),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Unusable::from(&e)),
    }
}

/// [`read_bounded`] for a path that must not be a symbolic link ([`open_regular_no_follow`]).
pub fn read_bounded_no_follow(path: &Path, limit: u64) -> std::result::Result<Vec<u8>, Unusable> {
    let file = open_regular_no_follow(path).map_err(|e| Unusable::from(&e))?;
    read_all_bounded(file, limit)
}

fn read_all_bounded(file: File, limit: u64) -> std::result::Result<Vec<u8>, Unusable> {
    let hint = file.metadata().map_or(0, |m| m.len()).min(limit);
    let mut bytes = Vec::with_capacity(usize::try_from(hint).unwrap_or(0));
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(|e| Unusable::from(&e))?;
    if bytes.len() as u64 > limit {
        return Err(Unusable::TooLarge(limit));
    }
    Ok(bytes)
}

/// Largest YAML file Corral reads (fleet, agent, job, platform binding, adoption record). A web
/// binding file grows by one channel (~150 bytes) per web chat, so this leaves room for ~100k.
pub const MAX_YAML_BYTES: u64 = 16 * 1024 * 1024;

/// Reads and parses a YAML file with input budgets, so a hostile or huge file cannot exhaust
/// memory or time: at most [`MAX_YAML_BYTES`], one document, bounded nodes, depth and aliases.
/// The error is a plain sentence.
pub fn read_yaml_file<T: DeserializeOwned>(path: &Path) -> std::result::Result<T, Unusable> {
    parse_yaml_bytes(&read_bounded(path, MAX_YAML_BYTES)?)
}

/// [`parse_yaml`] of bytes, which must be UTF-8 text.
pub fn parse_yaml_bytes<T: DeserializeOwned>(bytes: &[u8]) -> std::result::Result<T, Unusable> {
    parse_yaml(std::str::from_utf8(bytes).map_err(|_| Unusable::NotUtf8)?)
}

/// Parses YAML text with the same budgets as [`read_yaml_file`].
pub fn parse_yaml<T: DeserializeOwned>(text: &str) -> std::result::Result<T, Unusable> {
    if text.len() as u64 > MAX_YAML_BYTES {
        return Err(Unusable::TooLarge(MAX_YAML_BYTES));
    }
    let mut budget = serde_saphyr::Budget::default();
    budget.max_reader_input_bytes = Some(MAX_YAML_BYTES as usize);
    budget.max_events = 4_000_000;
    budget.max_aliases = 1_000;
    budget.max_anchors = 1_000;
    budget.max_recorded_anchor_events = 100_000;
    budget.max_recorded_anchor_bytes = 4 * 1024 * 1024;
    budget.max_depth = 32;
    budget.max_documents = 1;
    budget.max_nodes = 2_000_000;
    budget.max_total_scalar_bytes = MAX_YAML_BYTES as usize;
    budget.max_merge_keys = 100;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    options.alias_limits.max_total_replayed_events = 100_000;
    options.alias_limits.max_replay_stack_depth = 32;
    options.with_snippet = false;
    serde_saphyr::from_str_with_options(text, options).map_err(|e| Unusable::Yaml(e.to_string()))
}

/// An I/O error in plain words.
pub fn describe_io(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "the file does not exist".to_owned(),
        io::ErrorKind::PermissionDenied => "permission to read it was denied".to_owned(),
        io::ErrorKind::IsADirectory => "it is a folder, not a file".to_owned(),
        io::ErrorKind::InvalidInput => e.to_string(),
        _ => format!("it cannot be read ({e})"),
    }
}

// ---------------------------------------------------------------------------------------------
// Cross-process locks

/// An exclusive advisory lock held until dropped (see [`lock_folder`]).
#[derive(Debug)]
pub struct Lock {
    _file: File,
}

/// Takes the exclusive lock that guards read-modify-write of the files in `dir` among Corral's
/// writers — the app, the CLI and a second Corral, in any process. Waits until it is free.
/// Creates `dir` when missing (a writer is about to write into it anyway).
///
/// On Unix the folder itself is locked (`flock` on the open folder): no lock file is ever left
/// among the user's files, so an undone import leaves the tree exactly as it was. Elsewhere a
/// `.corral.lock` file inside the folder is locked. Either lock is per open handle (two threads of
/// one process exclude each other too) and released by the system when the process dies, so a
/// crash never leaves it held.
pub fn lock_folder(dir: &Path) -> crate::error::Result<Lock> {
    fs::create_dir_all(dir).map_err(|e| crate::error::Error::io_at("create folder", dir, e))?;
    let open = || -> io::Result<File> {
        #[cfg(unix)]
        let file = {
            use std::os::unix::fs::OpenOptionsExt;
            let file = OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_DIRECTORY | libc::O_CLOEXEC)
                .open(dir)?;
            if !file.metadata()?.is_dir() {
                return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a folder"));
            }
            file
        };
        #[cfg(not(unix))]
        let file = checked(
            OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(dir.join(".corral.lock"))?,
        )?;
        file.lock()?;
        Ok(file)
    };
    open().map(|file| Lock { _file: file }).map_err(|e| crate::error::Error::io_at("lock", dir, e))
}

// ---------------------------------------------------------------------------------------------
// Permissions and identity

/// Gives `file` (just created by Corral from another file) the permission bits of `source`, so a
/// private (0600) transcript stays private in its copy, its moved place and its backup.
pub fn keep_permissions(file: &File, source: &Metadata) -> io::Result<()> {
    file.set_permissions(source.permissions())
}

/// Which file sits at a path, as exactly as the platform can tell: on Unix the device, the inode
/// and the inode change time (an inode number can be reused once a file is removed; together with
/// the change time it cannot be confused with a later file). `None` elsewhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileIdentity {
    /// The device the file is on.
    pub dev: u64,
    /// Its inode number on that device.
    pub ino: u64,
    /// Inode change time, nanoseconds since the epoch.
    pub ctime_ns: i64,
}

impl FileIdentity {
    /// The identity of the file `meta` describes (not following links is the caller's choice).
    pub fn of(meta: &Metadata) -> Option<Self> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Some(Self {
                dev: meta.dev(),
                ino: meta.ino(),
                ctime_ns: meta
                    .ctime()
                    .saturating_mul(1_000_000_000)
                    .saturating_add(meta.ctime_nsec()),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            None
        }
    }

    /// The device and inode of the file `meta` describes: which file it is, whatever was
    /// done to it since.
    pub fn dev_ino(meta: &Metadata) -> Option<(u64, u64)> {
        Self::of(meta).map(|i| (i.dev, i.ino))
    }

    /// The identity of what is at `path` now (the link itself when it is one).
    pub fn at(path: &Path) -> Option<Self> {
        fs::symlink_metadata(path).ok().as_ref().and_then(Self::of)
    }
}

/// The SHA-256 of `bytes`, lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex(&sha2::Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The size and SHA-256 (lowercase hex) of the regular file at `path`, which must not be a link.
pub fn sha256_no_follow(path: &Path) -> io::Result<(u64, String)> {
    use sha2::Digest;
    let mut file = open_regular_no_follow(path)?;
    let mut hasher = sha2::Sha256::new();
    let mut buf = vec![0u8; 256 * 1024];
    let mut size = 0u64;
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(buf.get(..n).unwrap_or_default());
        size = size.saturating_add(n as u64);
    }
    Ok((size, hex(&hasher.finalize())))
}

/// Byte-for-byte comparison (same inode answers at once).
pub fn same_content(a: &Path, b: &Path) -> io::Result<bool> {
    let (ma, mb) = (fs::metadata(a)?, fs::metadata(b)?);
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if ma.dev() == mb.dev() && ma.ino() == mb.ino() {
            return Ok(true);
        }
    }
    if ma.len() != mb.len() {
        return Ok(false);
    }
    let (mut fa, mut fb) = (open_regular(a)?, open_regular(b)?);
    let mut ba = vec![0u8; 64 * 1024];
    let mut bb = vec![0u8; 64 * 1024];
    loop {
        let na = read_full(&mut fa, &mut ba)?;
        let nb = read_full(&mut fb, &mut bb)?;
        if na != nb || ba.get(..na) != bb.get(..nb) {
            return Ok(false);
        }
        if na == 0 {
            return Ok(true);
        }
    }
}

fn read_full(f: &mut fs::File, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while let Some(rest) = buf.get_mut(n..) {
        if rest.is_empty() {
            break;
        }
        match f.read(rest)? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_folder_is_refused_on_the_handle() {
        let dir = tempfile::tempdir().unwrap();
        let e = open_regular(dir.path()).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert!(e.to_string().contains("a folder"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_and_a_device_are_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("x.jsonl");
        let status = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(status.success());
        let e = open_regular(&fifo).unwrap_err();
        assert!(e.to_string().contains("FIFO"), "{e}");
        let zero = dir.path().join("zero.jsonl");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        assert!(read_bounded(&zero, 10).unwrap_err().to_string().contains("a device"));
        assert!(open_regular_no_follow(&zero).unwrap_err().to_string().contains("symbolic link"));
    }

    #[test]
    fn bounded_reads_refuse_what_is_too_large() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        fs::write(&f, b"12345").unwrap();
        assert_eq!(read_bounded(&f, 5).unwrap(), b"12345");
        assert_eq!(read_bounded(&f, 4).unwrap_err(), Unusable::TooLarge(4));
    }

    /// A folder that is a link (a dotfiles-managed config folder) is locked where it points.
    #[cfg(unix)]
    #[test]
    fn a_linked_folder_can_be_locked() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        fs::create_dir(&real).unwrap();
        let link = dir.path().join("corral");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let held = lock_folder(&link).unwrap();
        let again = File::open(&real).unwrap();
        assert!(matches!(again.try_lock(), Err(fs::TryLockError::WouldBlock)));
        drop(held);
    }

    #[cfg(unix)]
    #[test]
    fn the_lock_excludes_a_second_holder_until_dropped_and_leaves_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("session-metadata");
        let held = lock_folder(&folder).unwrap();
        let second = File::open(&folder).unwrap();
        assert!(matches!(second.try_lock(), Err(fs::TryLockError::WouldBlock)));
        drop(held);
        assert!(second.try_lock().is_ok());
        assert_eq!(fs::read_dir(&folder).unwrap().count(), 0, "no lock file is left behind");
    }
}
