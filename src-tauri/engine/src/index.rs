//! Corral's persistent listing index, kept in its data dir (never under the Claude home).
//!
//! Per transcript it stores the file identity (size, mtime, inode), the byte offset the facts
//! scanner reached and the scanner's state, so that:
//! - an unchanged transcript is never re-read (a `stat` validates it);
//! - an appended transcript (same inode, larger, newer) is parsed only from where it left off;
//! - anything else (shrunk, replaced, new inode, older extractor) is rescanned from the start.
//!
//! On disk the index is split into one **shard per transcript folder**
//! (`<data>/index/listing-<encoded home>/<hash of the folder>.idx`), so a change rewrites only the
//! small shard of the folder that changed, and shards load in parallel. A shard is a fixed header
//! (magic, format and extractor versions, payload length, checksum) followed by a compact binary
//! payload (postcard). A shard that is missing, truncated, corrupt (checksum), of another format or
//! extractor version, or written for another folder is discarded and rebuilt from the
//! transcripts, never trusted; decoding never panics. Shards are replaced by rename (readers see
//! the old or the new shard); they are not fsynced, as the index is only a cache and a torn shard
//! fails its checksum. The single-file JSON index of earlier versions (`listing-<home>.json`) is
//! removed on the first save; so are shards no listed folder claims, and temp files left by a
//! process that died mid-save.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::stable_hash::fnv1a;
use crate::transcript::facts::{EXTRACTOR_VERSION, FactsScanner, TranscriptFacts};

/// Bump when the on-disk shape of a shard changes (1 was the single JSON file; 4 stores the
/// facts once, not again inside the scanner's state; 5 adds the change time to each stamp; 6
/// adds what the subagents' runs cost).
pub const FORMAT_VERSION: u32 = 6;

/// The first bytes of every shard.
pub const SHARD_MAGIC: [u8; 8] = *b"CORRALIX";

/// Shard header: magic (8 bytes), format version (u32 LE), extractor version (u32 LE), payload
/// length (u64 LE), payload checksum (u64 LE); the payload follows.
pub const SHARD_HEADER_LEN: usize = 32;

/// Byte offset of the extractor version inside a shard header.
pub const SHARD_EXTRACTOR_OFFSET: usize = 12;

/// File name extension of shard files.
pub const SHARD_EXTENSION: &str = "idx";

/// Largest shard read back (a cache: a larger one is rebuilt, never trusted).
pub const MAX_SHARD_BYTES: u64 = 512 * 1024 * 1024;

/// The identity of a file as `stat` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStamp {
    /// Size in bytes.
    pub size: u64,
    /// Modification time in nanoseconds since the Unix epoch (negative before it).
    pub mtime_ns: i128,
    /// Inode number on Unix; 0 where the platform gives none.
    pub inode: u64,
    /// Status change time (`ctime`) in nanoseconds on Unix; 0 where the platform gives none.
    /// Every write moves it and no program can set it back, so a file edited in place at the
    /// same size, with its modification time restored (`rsync --inplace -t`, `touch -r`), is
    /// still seen to have changed.
    pub ctime_ns: i128,
}

impl FileStamp {
    /// The stamp of `meta`.
    pub fn of(meta: &fs::Metadata) -> Self {
        Self {
            size: meta.len(),
            mtime_ns: mtime_ns(meta.modified().ok()),
            inode: inode(meta),
            ctime_ns: ctime_ns(meta),
        }
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

#[cfg(unix)]
fn ctime_ns(meta: &fs::Metadata) -> i128 {
    use std::os::unix::fs::MetadataExt;
    i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec())
}

#[cfg(not(unix))]
fn ctime_ns(_meta: &fs::Metadata) -> i128 {
    0
}

/// What the index remembers about one transcript.
#[derive(Debug, Clone)]
pub struct IndexEntry {
    /// The file as it was when scanned.
    pub stamp: FileStamp,
    /// Offset just past the last complete line the scanner consumed.
    pub offset: u64,
    /// What listing needs, shared by every listing (never copied per listing).
    facts: Arc<TranscriptFacts>,
    /// The scanner's state, encoded without its copy of `facts` where `facts` stands for it
    /// (nearly always): decoded only when the transcript grows (see [`IndexEntry::scanner`]),
    /// so an unchanged transcript costs no scanner decoding.
    scanner: Box<[u8]>,
}

impl PartialEq for IndexEntry {
    fn eq(&self, other: &Self) -> bool {
        self.stamp == other.stamp && self.offset == other.offset && self.scanner == other.scanner
    }
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
    /// An entry for a file scanned up to `offset`, keeping the scanner to resume from.
    pub fn new(stamp: FileStamp, offset: u64, scanner: &FactsScanner) -> Self {
        // Encoding a plain struct into memory cannot fail in practice; if it did, the entry
        // could not resume and its transcript would be rescanned from the start when it grows.
        let facts = scanner.facts();
        let encoded = postcard::to_allocvec(&scanner.without_facts(&facts)).unwrap_or_default();
        Self { stamp, offset, facts: Arc::new(facts), scanner: encoded.into() }
    }

    /// What listing needs.
    pub fn facts(&self) -> Arc<TranscriptFacts> {
        Arc::clone(&self.facts)
    }

    /// The scanner state to resume from, or `None` when it cannot be decoded (then the
    /// transcript is scanned from the start).
    pub fn scanner(&self) -> Option<FactsScanner> {
        let (emptied, state): (bool, FactsScanner) = postcard::from_bytes(&self.scanner).ok()?;
        Some(state.with_facts(emptied, &self.facts))
    }

    /// Whether the entry still describes the file `now` is, grew from it, or is stale.
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

/// A shard's payload as written: the folder it belongs to and its entries.
#[derive(Serialize)]
struct ShardOut<'a> {
    folder: BytesOut<'a>,
    entries: Vec<EntryOut<'a>>,
}

#[derive(Serialize)]
struct EntryOut<'a> {
    name: BytesOut<'a>,
    stamp: FileStamp,
    offset: u64,
    facts: &'a TranscriptFacts,
    scanner: BytesOut<'a>,
}

/// A shard's payload as read.
#[derive(Deserialize)]
struct ShardIn {
    folder: BytesIn,
    entries: Vec<EntryIn>,
}

#[derive(Deserialize)]
struct EntryIn {
    name: BytesIn,
    stamp: FileStamp,
    offset: u64,
    facts: TranscriptFacts,
    scanner: BytesIn,
}

/// Raw bytes, written as one length-prefixed run (not a sequence of numbers).
struct BytesOut<'a>(&'a [u8]);

impl Serialize for BytesOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}

/// Raw bytes, read back from one length-prefixed run.
struct BytesIn(Vec<u8>);

impl<'de> Deserialize<'de> for BytesIn {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = BytesIn;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<BytesIn, E> {
                Ok(BytesIn(v.to_vec()))
            }
            fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<BytesIn, E> {
                Ok(BytesIn(v))
            }
        }
        d.deserialize_byte_buf(V)
    }
}

/// The entries of one transcript folder, by file name.
#[derive(Debug, Default)]
struct Shard {
    entries: HashMap<Box<[u8]>, IndexEntry>,
    /// Differs from the shard file (or the file is unusable): write it on the next save.
    dirty: bool,
}

/// The in-memory index of one Claude home, backed by one shard file per transcript folder.
#[derive(Debug)]
pub struct ListingIndex {
    dir: PathBuf,
    legacy_file: PathBuf,
    shards: HashMap<PathBuf, Shard>,
    /// Shard file names found on disk (read once), minus those claimed by a known folder.
    unclaimed: Option<HashSet<String>>,
    /// Shard files to delete on the next save (their folder is gone or emptied).
    doomed: HashSet<String>,
    legacy_removed: bool,
    /// Corral's data dir, claimed before the first write (see [`crate::owned`]).
    data_dir: PathBuf,
}

impl ListingIndex {
    /// The index of `claude_home`, stored under `<data dir>/index/`.
    pub fn new(data_dir: &Path, claude_home: &Path) -> Self {
        let key = crate::paths::encode_path(&claude_home.to_string_lossy());
        let index_dir = data_dir.join("index");
        Self {
            dir: index_dir.join(format!("listing-{key}")),
            legacy_file: index_dir.join(format!("listing-{key}.json")),
            shards: HashMap::new(),
            unclaimed: None,
            doomed: HashSet::new(),
            legacy_removed: false,
            data_dir: data_dir.to_path_buf(),
        }
    }

    /// The folder holding the shards.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// The shard file of the transcript folder `folder`.
    pub fn shard_file(&self, folder: &Path) -> PathBuf {
        self.dir.join(shard_name(folder))
    }

    /// Loads every shard present on disk (for tools and measurements; listings load only the
    /// folders they list, see [`ListingIndex::sync_folders`]). Unusable shards are skipped.
    pub fn load(&mut self) {
        let Ok(read) = fs::read_dir(&self.dir) else { return };
        let files: Vec<PathBuf> = read.flatten().map(|e| e.path()).collect();
        let loaded: Vec<(PathBuf, Shard)> = files
            .par_iter()
            .filter_map(|p| {
                let bytes = crate::files::read_bounded(p, MAX_SHARD_BYTES).ok()?;
                let (folder, shard) = decode_shard(&bytes)?;
                let folder = PathBuf::from(String::from_utf8(folder).ok()?);
                Some((folder, shard))
            })
            .collect();
        for (folder, shard) in loaded {
            self.shards.entry(folder).or_insert(shard);
        }
    }

    /// Declares the transcript folders that exist now and returns, for each, the shard still to
    /// be read (`None` when it is in memory already); the caller reads them (in parallel, see
    /// [`PendingShard::read`]) and hands them to [`ListingIndex::adopt`]. Shards of folders no
    /// longer listed are dropped and their files deleted on the next save; so are shard files no
    /// folder claims.
    pub fn sync_folders(&mut self, folders: &[&Path]) -> Vec<Option<PendingShard>> {
        let unclaimed = self.unclaimed.get_or_insert_with(|| list_shard_files(&self.dir));
        let live: HashSet<&Path> = folders.iter().copied().collect();
        let gone: Vec<PathBuf> =
            self.shards.keys().filter(|k| !live.contains(k.as_path())).cloned().collect();
        for folder in gone {
            self.shards.remove(&folder);
            self.doomed.insert(shard_name(&folder));
        }
        let mut pending = Vec::with_capacity(folders.len());
        for folder in folders {
            let name = shard_name(folder);
            unclaimed.remove(&name);
            self.doomed.remove(&name);
            pending.push(
                (!self.shards.contains_key(*folder)).then(|| PendingShard {
                    folder: folder.to_path_buf(),
                    file: self.dir.join(name),
                }),
            );
        }
        self.doomed.extend(unclaimed.drain());
        pending
    }

    /// Takes in shards read after [`ListingIndex::sync_folders`].
    pub fn adopt(&mut self, loaded: impl IntoIterator<Item = LoadedShard>) {
        for LoadedShard { folder, shard } in loaded {
            self.shards.entry(folder).or_insert(shard);
        }
    }

    /// The entry of the transcript at `path`.
    pub fn get(&self, path: &Path) -> Option<&IndexEntry> {
        let (folder, name) = split(path)?;
        self.shards.get(folder)?.entries.get(name)
    }

    /// Remembers `entry` for the transcript at `path`.
    pub fn insert(&mut self, path: &Path, entry: IndexEntry) {
        let Some((folder, name)) = split(path) else { return };
        let shard = self.shards.entry(folder.to_path_buf()).or_default();
        if shard.entries.get(name) != Some(&entry) {
            shard.entries.insert(name.into(), entry);
            shard.dirty = true;
        }
    }

    /// Keeps exactly the entries of `live` (transcripts that all have an entry already, as after
    /// a scan): a folder whose entry count matches its live count is left untouched, so the
    /// common case costs one count per folder.
    pub fn retain_live<'a>(&mut self, live: impl IntoIterator<Item = &'a Path>) {
        let mut by_folder: HashMap<&Path, Vec<&[u8]>> = HashMap::new();
        for path in live {
            if let Some((folder, name)) = split(path) {
                by_folder.entry(folder).or_default().push(name);
            }
        }
        for (folder, shard) in &mut self.shards {
            let names = by_folder.get(folder.as_path()).map_or(&[][..], Vec::as_slice);
            if names.len() == shard.entries.len() {
                continue;
            }
            let keep: HashSet<&[u8]> = names.iter().copied().collect();
            shard.entries.retain(|name, _| keep.contains(&**name));
            shard.dirty = true;
        }
    }

    /// Writes the shards that changed (in parallel) and deletes the ones no longer needed.
    /// Failures are reported, never fatal to a listing (the index is only a cache); a shard that
    /// could not be written stays dirty and is tried again on the next save.
    pub fn save(&mut self) -> crate::Result<()> {
        crate::owned::claim_data_dir(&self.data_dir)?;
        if !self.legacy_removed {
            self.legacy_removed = true;
            let _ = fs::remove_file(&self.legacy_file);
        }
        let dirty: Vec<(&Path, &mut Shard)> = self
            .shards
            .iter_mut()
            .filter(|(_, s)| s.dirty)
            .map(|(folder, shard)| (folder.as_path(), shard))
            .collect();
        if dirty.is_empty() && self.doomed.is_empty() {
            return Ok(());
        }
        fs::create_dir_all(&self.dir)
            .map_err(|e| crate::Error::io_at("create folder", &self.dir, e))?;
        for name in self.doomed.drain() {
            let _ = fs::remove_file(self.dir.join(name));
        }
        let dir = &self.dir;
        let errors: Vec<crate::Error> = dirty
            .into_par_iter()
            .filter_map(|(folder, shard)| {
                let file = dir.join(shard_name(folder));
                let result = if shard.entries.is_empty() {
                    match fs::remove_file(&file) {
                        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                            Err(crate::Error::io_at("remove", &file, e))
                        }
                        _ => Ok(()),
                    }
                } else {
                    encode_shard(folder, shard).and_then(|bytes| replace_file(&file, &bytes))
                };
                match result {
                    Ok(()) => {
                        shard.dirty = false;
                        None
                    }
                    Err(e) => Some(e),
                }
            })
            .collect();
        match errors.into_iter().next() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Entries held in memory.
    pub fn len(&self) -> usize {
        self.shards.values().map(|s| s.entries.len()).sum()
    }

    /// It remembers no transcript.
    pub fn is_empty(&self) -> bool {
        self.shards.values().all(|s| s.entries.is_empty())
    }
}

/// A shard still to be read from disk (see [`ListingIndex::sync_folders`]).
#[derive(Debug)]
pub struct PendingShard {
    folder: PathBuf,
    file: PathBuf,
}

impl PendingShard {
    /// Reads and checks the shard; an unusable one gives an empty shard that is rewritten on the
    /// next save.
    pub fn read(self) -> LoadedShard {
        let shard = read_shard(&self.file, &self.folder);
        LoadedShard { folder: self.folder, shard }
    }
}

/// A shard read from disk, for [`ListingIndex::adopt`].
#[derive(Debug)]
pub struct LoadedShard {
    folder: PathBuf,
    shard: Shard,
}

impl LoadedShard {
    /// The entry of a transcript of this shard's folder.
    pub fn get(&self, path: &Path) -> Option<&IndexEntry> {
        let (folder, name) = split(path)?;
        if folder != self.folder {
            return None;
        }
        self.shard.entries.get(name)
    }
}

/// A transcript path as (folder, file name bytes).
fn split(path: &Path) -> Option<(&Path, &[u8])> {
    Some((path.parent()?, path.file_name()?.as_encoded_bytes()))
}

/// `<16 hex digits of a hash of the folder path>.idx`.
fn shard_name(folder: &Path) -> String {
    format!("{:016x}.{SHARD_EXTENSION}", fnv1a(folder.as_os_str().as_encoded_bytes()))
}

/// How old a leftover temp file (from a process that died mid-save) must be before it is removed;
/// younger ones may belong to a save in progress in another process.
const STALE_TEMP: std::time::Duration = std::time::Duration::from_secs(600);

/// The shard files in `dir`; leftover temp files older than [`STALE_TEMP`] are removed on the way.
fn list_shard_files(dir: &Path) -> HashSet<String> {
    let Ok(read) = fs::read_dir(dir) else { return HashSet::new() };
    let mut out = HashSet::new();
    for entry in read.flatten() {
        let Ok(name) = entry.file_name().into_string() else { continue };
        if name.starts_with('.') {
            let stale = entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > STALE_TEMP);
            if is_shard_temp(&name) && stale {
                let _ = fs::remove_file(entry.path());
            }
        } else if is_shard_name(&name) {
            out.insert(name);
        }
    }
    out
}

/// `<16 hex digits>.idx`: a shard's name, exactly.
fn is_shard_name(name: &str) -> bool {
    name.strip_suffix(SHARD_EXTENSION)
        .and_then(|n| n.strip_suffix('.'))
        .is_some_and(|h| h.len() == 16 && h.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
}

/// `.<shard name>.tmp.<pid>.<nanos>`, the temp file [`replace_file`] writes, exactly: only such
/// leftovers are ever removed from the folder (see [`crate::owned`]).
fn is_shard_temp(name: &str) -> bool {
    let Some(rest) = name.strip_prefix('.') else { return false };
    let mut parts = rest.rsplitn(3, '.');
    let digits =
        |s: Option<&str>| s.is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()));
    digits(parts.next())
        && digits(parts.next())
        && parts.next().and_then(|h| h.strip_suffix(".tmp")).is_some_and(is_shard_name)
}

/// The shard of `folder` from `file`; missing gives an empty shard, unusable an empty dirty one
/// (so it is replaced on the next save).
fn read_shard(file: &Path, folder: &Path) -> Shard {
    let Ok(bytes) = crate::files::read_bounded(file, MAX_SHARD_BYTES) else {
        return Shard::default();
    };
    match decode_shard(&bytes) {
        Some((f, shard)) if f == folder.as_os_str().as_encoded_bytes() => shard,
        _ => Shard { entries: HashMap::new(), dirty: true },
    }
}

/// Checks the header and checksum and decodes the payload; `None` for anything unusable.
fn decode_shard(bytes: &[u8]) -> Option<(Vec<u8>, Shard)> {
    let (header, payload) = bytes.split_at_checked(SHARD_HEADER_LEN)?;
    let word = |at: usize, len: usize| -> Option<u64> {
        let b = header.get(at..at + len)?;
        let mut out = [0u8; 8];
        out.get_mut(..len)?.copy_from_slice(b);
        Some(u64::from_le_bytes(out))
    };
    if header.get(..8)? != SHARD_MAGIC
        || word(8, 4)? != u64::from(FORMAT_VERSION)
        || word(SHARD_EXTRACTOR_OFFSET, 4)? != u64::from(EXTRACTOR_VERSION)
        || word(16, 8)? != payload.len() as u64
        || word(24, 8)? != checksum(payload)
    {
        return None;
    }
    let (shard, rest) = postcard::take_from_bytes::<ShardIn>(payload).ok()?;
    if !rest.is_empty() {
        return None;
    }
    let entries = shard
        .entries
        .into_iter()
        .map(|e| {
            let entry = IndexEntry {
                stamp: e.stamp,
                offset: e.offset,
                facts: Arc::new(e.facts),
                scanner: e.scanner.0.into_boxed_slice(),
            };
            (e.name.0.into_boxed_slice(), entry)
        })
        .collect();
    Some((shard.folder.0, Shard { entries, dirty: false }))
}

fn encode_shard(folder: &Path, shard: &Shard) -> crate::Result<Vec<u8>> {
    let mut entries: Vec<EntryOut<'_>> = shard
        .entries
        .iter()
        .map(|(name, e)| EntryOut {
            name: BytesOut(name),
            stamp: e.stamp,
            offset: e.offset,
            facts: &e.facts,
            scanner: BytesOut(&e.scanner),
        })
        .collect();
    entries.sort_by(|a, b| a.name.0.cmp(b.name.0));
    let out = ShardOut { folder: BytesOut(folder.as_os_str().as_encoded_bytes()), entries };
    let mut bytes = vec![0u8; SHARD_HEADER_LEN];
    let mut bytes = postcard::to_extend(&out, std::mem::take(&mut bytes)).map_err(|e| {
        crate::Error::io("cannot encode the listing index", std::io::Error::other(e))
    })?;
    let payload = bytes.get(SHARD_HEADER_LEN..).unwrap_or_default();
    let (len, sum) = (payload.len() as u64, checksum(payload));
    let mut header = Vec::with_capacity(SHARD_HEADER_LEN);
    header.extend_from_slice(&SHARD_MAGIC);
    header.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    header.extend_from_slice(&EXTRACTOR_VERSION.to_le_bytes());
    header.extend_from_slice(&len.to_le_bytes());
    header.extend_from_slice(&sum.to_le_bytes());
    if let Some(h) = bytes.get_mut(..SHARD_HEADER_LEN) {
        h.copy_from_slice(&header);
    }
    Ok(bytes)
}

/// Writes `bytes` to a hidden sibling temp file and renames it over `file`. No fsync: the index
/// is a cache, and a shard torn by a crash fails its checksum and is rebuilt.
fn replace_file(file: &Path, bytes: &[u8]) -> crate::Result<()> {
    let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let nanos =
        SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let tmp = file.with_file_name(format!(".{name}.tmp.{}.{nanos}", std::process::id()));
    let result = (|| -> std::io::Result<()> {
        let mut f = fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(bytes)?;
        drop(f);
        fs::rename(&tmp, file)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(crate::Error::io_at("write", file, e));
    }
    Ok(())
}

/// A fast 64-bit checksum of a payload, eight bytes a step (detects torn and damaged shards; not
/// a defence against a deliberate forger, who could as well edit the transcripts).
pub(crate) fn checksum(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let chunks = bytes.chunks_exact(8);
    let tail = chunks.remainder();
    let mut h = (bytes.len() as u64).wrapping_mul(K);
    for c in chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = (h ^ u64::from_le_bytes(w)).wrapping_mul(K).rotate_left(29);
    }
    fnv1a(tail) ^ h.wrapping_mul(K)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn only_exact_shard_and_temp_names_are_taken_as_the_index_s() {
        let shard = shard_name(Path::new("/h/projects/-w-app"));
        assert!(is_shard_name(&shard));
        assert!(is_shard_temp(&format!(".{shard}.tmp.42.1733450000123456789")));
        for stranger in [
            "notes.idx",
            "0123456789abcdef.idx.bak",
            "0123456789ABCDEF.idx",
            ".notes.tmp.1.2",
            ".0123456789abcdef.idx.tmp.x.2",
            ".0123456789abcdef.idx.tmp.1",
            "0123456789abcdef.idx.tmp.1.2",
        ] {
            assert!(!is_shard_name(stranger) && !is_shard_temp(stranger), "{stranger}");
        }
    }

    fn entry(size: u64) -> IndexEntry {
        let mut scanner = FactsScanner::new();
        scanner.feed(br#"{"type":"user","cwd":"/w","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hello there"}}"#);
        IndexEntry::new(FileStamp { size, mtime_ns: -5, inode: 7, ctime_ns: 3 }, size, &scanner)
    }

    /// A stamp equal in every part is trusted without reading; a larger file of the same inode,
    /// no older, is read from where it was left; anything else — the change time alone moving
    /// included — is read again.
    #[test]
    fn freshness_takes_every_part_of_the_stamp() {
        let e = entry(10);
        let was = e.stamp;
        assert_eq!(e.freshness(&was), Freshness::Fresh);
        let grown = FileStamp { size: 20, mtime_ns: 9, ctime_ns: 9, ..was };
        assert_eq!(e.freshness(&grown), Freshness::Appended);
        for changed in [
            FileStamp { ctime_ns: 4, ..was },
            FileStamp { mtime_ns: 9, ctime_ns: 9, ..was },
            FileStamp { inode: 8, ..was },
            FileStamp { size: 9, ..was },
            FileStamp { inode: 8, ..grown },
        ] {
            assert_eq!(e.freshness(&changed), Freshness::Stale, "{changed:?}");
        }
    }

    #[test]
    fn the_scanner_is_stored_without_a_second_copy_of_the_facts() {
        let mut scanner = FactsScanner::new();
        scanner.feed(br#"{"type":"user","cwd":"/w","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hello there"}}"#);
        let e =
            IndexEntry::new(FileStamp { size: 1, mtime_ns: 1, inode: 1, ctime_ns: 1 }, 1, &scanner);
        assert_eq!(e.scanner().unwrap(), scanner);
        let stored = |text: &[u8]| e.scanner.windows(text.len()).any(|w| w == text);
        assert!(!stored(b"hello there") && !stored(b"/w"), "the facts are stored twice");
        // A scanner whose own facts differ from what it gives keeps them: only a slash command,
        // whose preview the facts take from elsewhere in the state.
        let mut command = FactsScanner::new();
        command.feed(br#"{"type":"user","cwd":"/w","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"<command-name>/init</command-name>"}}"#);
        let e =
            IndexEntry::new(FileStamp { size: 1, mtime_ns: 1, inode: 1, ctime_ns: 1 }, 1, &command);
        assert_eq!(e.facts().preview.as_deref(), Some("/init"));
        assert_eq!(e.scanner().unwrap(), command);
    }

    #[test]
    fn a_shard_round_trips_and_any_damage_is_rejected() {
        let folder = Path::new("/home/u/.claude/projects/-w");
        let mut shard = Shard::default();
        shard.entries.insert(b"a.jsonl".to_vec().into(), entry(10));
        shard.entries.insert(b"b.jsonl".to_vec().into(), entry(20));
        let bytes = encode_shard(folder, &shard).unwrap();
        let (f, back) = decode_shard(&bytes).unwrap();
        assert_eq!(f, folder.as_os_str().as_encoded_bytes());
        assert_eq!(back.entries, shard.entries);
        for (name, e) in &shard.entries {
            let b = &back.entries[name];
            assert_eq!(b.facts(), e.facts());
            assert_eq!(b.scanner().unwrap(), e.scanner().unwrap());
            assert_eq!(b.facts().preview.as_deref(), Some("hello there"));
        }
        // Every truncation and every single-byte change is refused, never trusted.
        for len in 0..bytes.len() {
            assert!(decode_shard(&bytes[..len]).is_none(), "truncated to {len}");
        }
        for at in 0..bytes.len() {
            let mut b = bytes.clone();
            b[at] ^= 0x41;
            assert!(decode_shard(&b).is_none(), "byte {at} changed");
        }
        // Trailing bytes too.
        let mut b = bytes.clone();
        b.push(0);
        assert!(decode_shard(&b).is_none());
    }

    #[test]
    fn leftover_temp_files_are_removed_once_stale() {
        let tmp = std::env::temp_dir().join(format!("corral-index-temp-{}", std::process::id()));
        let _ = fs::remove_dir_all(&tmp);
        fs::create_dir_all(&tmp).unwrap();
        let old = tmp.join(".00000000000000aa.idx.tmp.1.2");
        let young = tmp.join(".00000000000000bb.idx.tmp.1.3");
        fs::write(&old, b"x").unwrap();
        fs::write(&young, b"x").unwrap();
        fs::write(tmp.join("00000000000000cc.idx"), b"x").unwrap();
        let f = fs::File::options().write(true).open(&old).unwrap();
        f.set_modified(SystemTime::now() - STALE_TEMP * 2).unwrap();
        drop(f);
        let found = list_shard_files(&tmp);
        assert_eq!(found, HashSet::from(["00000000000000cc.idx".to_owned()]));
        assert!(!old.exists(), "a stale temp file is removed");
        assert!(young.exists(), "a save in progress is left alone");
        fs::remove_dir_all(&tmp).unwrap();
    }

    #[test]
    fn hostile_payloads_with_a_valid_header_never_panic() {
        let mut seed = 0x1234_5678_u64;
        for len in 0..600 {
            let payload: Vec<u8> = (0..len)
                .map(|_| {
                    seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    (seed >> 56) as u8
                })
                .collect();
            let mut bytes = Vec::new();
            bytes.extend_from_slice(&SHARD_MAGIC);
            bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
            bytes.extend_from_slice(&EXTRACTOR_VERSION.to_le_bytes());
            bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
            bytes.extend_from_slice(&checksum(&payload).to_le_bytes());
            bytes.extend_from_slice(&payload);
            let _ = decode_shard(&bytes);
        }
    }
}
