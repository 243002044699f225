//! Corral's persistent listing index, kept in its data dir (never under the Claude home).
//!
//! Per transcript it stores the file identity (size, mtime, inode), the byte offset the facts
//! scanner reached and the scanner's state, so that:
//! - an unchanged transcript is never re-read (a `stat` validates it);
//! - an appended transcript (same inode, larger, newer) is parsed only from where it left off;
//! - anything else (shrunk, replaced, new inode, older extractor) is rescanned from the start.
//!
//! The file is rewritten atomically, once per listing, only when something changed. A corrupt or
//! old-format index is discarded and rebuilt, never trusted.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::transcript::facts::{EXTRACTOR_VERSION, FactsScanner};

/// Bump when the on-disk shape of the index changes.
const FORMAT_VERSION: u32 = 1;

/// The identity of a file as `stat` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStamp {
    pub size: u64,
    /// Modification time in nanoseconds since the Unix epoch (negative before it).
    pub mtime_ns: i128,
    /// Inode number on Unix; 0 where the platform gives none.
    pub inode: u64,
}

impl FileStamp {
    pub fn of(meta: &fs::Metadata) -> Self {
        Self { size: meta.len(), mtime_ns: mtime_ns(meta.modified().ok()), inode: inode(meta) }
    }
}

/// Nanoseconds since the epoch of a time (0 when unknown).
pub fn mtime_ns(t: Option<SystemTime>) -> i128 {
    match t {
        Some(t) => match t.duration_since(SystemTime::UNIX_EPOCH) {
            Ok(d) => i128::try_from(d.as_nanos()).unwrap_or(i128::MAX),
            Err(e) => -i128::try_from(e.duration().as_nanos()).unwrap_or(i128::MAX),
        },
        None => 0,
    }
}

#[cfg(unix)]
fn inode(meta: &fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    meta.ino()
}

#[cfg(not(unix))]
fn inode(_meta: &fs::Metadata) -> u64 {
    0
}

/// What the index remembers about one transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexEntry {
    pub stamp: FileStamp,
    /// Offset just past the last complete line the scanner consumed.
    pub offset: u64,
    pub scanner: FactsScanner,
}

/// How an entry relates to the file on disk now.
#[derive(Debug, Clone, PartialEq)]
pub enum Freshness {
    /// Unchanged: use the entry as it is.
    Fresh,
    /// Grown in place: resume scanning from the entry's offset with its scanner.
    Appended,
    /// Anything else: scan from the start.
    Stale,
}

impl IndexEntry {
    pub fn freshness(&self, now: &FileStamp) -> Freshness {
        if self.stamp == *now {
            Freshness::Fresh
        } else if now.inode == self.stamp.inode
            && now.size > self.stamp.size
            && self.offset <= now.size
            && now.mtime_ns >= self.stamp.mtime_ns
        {
            Freshness::Appended
        } else {
            Freshness::Stale
        }
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct IndexFile {
    format: u32,
    extractor: u32,
    entries: HashMap<PathBuf, IndexEntry>,
}

/// The in-memory index of one Claude home, backed by one file in the data dir.
#[derive(Debug)]
pub struct ListingIndex {
    file: PathBuf,
    entries: HashMap<PathBuf, IndexEntry>,
    dirty: bool,
    loaded: bool,
}

impl ListingIndex {
    /// The index of `claude_home`, stored under `<data dir>/index/`.
    pub fn new(data_dir: &Path, claude_home: &Path) -> Self {
        let key = crate::paths::encode_path(&claude_home.to_string_lossy());
        Self {
            file: data_dir.join("index").join(format!("listing-{key}.json")),
            entries: HashMap::new(),
            dirty: false,
            loaded: false,
        }
    }

    /// Where the index lives on disk.
    pub fn path(&self) -> &Path {
        &self.file
    }

    /// Loads the file once; a missing, corrupt or old-version file yields an empty index.
    pub fn load(&mut self) {
        if self.loaded {
            return;
        }
        self.loaded = true;
        let Ok(bytes) = fs::read(&self.file) else { return };
        match serde_json::from_slice::<IndexFile>(&bytes) {
            Ok(f) if f.format == FORMAT_VERSION && f.extractor == EXTRACTOR_VERSION => {
                self.entries = f.entries;
            }
            // Old format, old extractor or corrupt: rebuilt from the transcripts, and the file
            // is replaced on the next save.
            _ => self.dirty = true,
        }
    }

    pub fn get(&self, path: &Path) -> Option<&IndexEntry> {
        self.entries.get(path)
    }

    pub fn insert(&mut self, path: PathBuf, entry: IndexEntry) {
        if self.entries.get(&path) != Some(&entry) {
            self.entries.insert(path, entry);
            self.dirty = true;
        }
    }

    /// Drops entries for transcripts that no longer exist.
    pub fn retain_paths(&mut self, keep: &dyn Fn(&Path) -> bool) {
        let before = self.entries.len();
        self.entries.retain(|p, _| keep(p));
        if self.entries.len() != before {
            self.dirty = true;
        }
    }

    /// Writes the index atomically if anything changed. Failures are reported, never fatal to a
    /// listing (the index is only a cache).
    pub fn save(&mut self) -> crate::Result<()> {
        if !self.dirty {
            return Ok(());
        }
        let file = IndexFile {
            format: FORMAT_VERSION,
            extractor: EXTRACTOR_VERSION,
            entries: std::mem::take(&mut self.entries),
        };
        let bytes = serde_json::to_vec(&file);
        self.entries = file.entries;
        let bytes = bytes.map_err(|e| {
            crate::Error::io("cannot encode the listing index", std::io::Error::other(e))
        })?;
        crate::atomic_write::write_atomic(&self.file, &bytes)?;
        self.dirty = false;
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}
