//! The index on disk: opened (or recreated when damaged), its writer (one process at a time),
//! and its reader.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::directory::RegularFilesOnly;
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyError};

use super::folders::Folders;
use super::schema::{self, Fields};
use super::state;
use super::{INDEX_DIR, index_error, tokenizer};
use crate::error::Result;
use crate::owned::{self, Kind, Proof};

/// Memory the writer may use before it flushes a segment (split between its threads). 96 MB let
/// a 10,000-session build peak at 392–413 MB (the target is 400); 64 MB keeps it near 330 MB
/// in the same time.
const WRITER_HEAP_BYTES: usize = 64 * 1024 * 1024;

/// The search index of one data dir.
pub struct SearchIndex {
    dir: PathBuf,
    pub(super) index: Index,
    pub(super) reader: IndexReader,
    pub(super) fields: Fields,
    /// The last commit's state, decoded once.
    pub(super) state: state::Cache,
    /// What is remembered of the folders subagent transcripts are found in.
    pub(super) folders: Folders,
}

impl SearchIndex {
    /// Opens the index in `data_dir`, creating it, or recreating it when it cannot be opened (it
    /// is a cache: the next update fills it again).
    ///
    /// Only what Corral can prove it made is ever removed (see [`crate::owned`]): the data dir is
    /// claimed first; folders of older formats go only by their exact names and when they hold
    /// nothing but an index's files; a damaged index is recreated only when it is provably
    /// Corral's, else the error says what was found and the folder stays as it is. An index whose
    /// folder holds a link, a FIFO or a device where one of tantivy's files belongs cannot be
    /// opened (see `directory`), so it is damaged and recreated.
    pub fn open(data_dir: &Path) -> Result<Self> {
        owned::claim_data_dir(data_dir)?;
        remove_old_formats(data_dir);
        let dir = data_dir.join(INDEX_DIR);
        owned::ensure_dir(&dir, Kind::SearchIndex, PROOF, is_index_file)?;
        if let Ok(index) = Self::open_at(&dir) {
            return Ok(index);
        }
        // Corrupt, of an incompatible writer, or holding what is not a file: start again.
        owned::remove_dir(&dir, Kind::SearchIndex, PROOF, is_index_file)?;
        owned::ensure_dir(&dir, Kind::SearchIndex, PROOF, is_index_file)?;
        Self::open_at(&dir)
    }

    fn open_at(dir: &Path) -> Result<Self> {
        let (schema, fields) = schema::schema();
        let directory = RegularFilesOnly::open(dir).map_err(index_error)?;
        let mut index = Index::open_or_create(directory, schema).map_err(index_error)?;
        // Segments are searched side by side (a query's wall time, not its CPU time, is what a
        // person waits for).
        if threads() > 1 {
            index.set_multithread_executor(threads()).map_err(index_error)?;
        }
        index.tokenizers().register(tokenizer::WORDS, tokenizer::analyzer());
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(index_error)?;
        let me = Self {
            dir: dir.to_path_buf(),
            index,
            reader,
            fields,
            state: state::Cache::default(),
            folders: Folders::new(dir),
        };
        // Reading the metadata proves the committed files are there and readable.
        me.index.load_metas().map_err(index_error)?;
        me.reader.searcher().segment_readers();
        Ok(me)
    }

    /// The folder the index lives in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The writer, waiting up to `wait` for another process to release it; `None` if it did not.
    pub(super) fn writer(&self, wait: Duration) -> Result<Option<IndexWriter>> {
        let deadline = Instant::now() + wait;
        loop {
            match self.index.writer_with_num_threads(threads(), WRITER_HEAP_BYTES) {
                Ok(w) => return Ok(Some(w)),
                Err(TantivyError::LockFailure(..)) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(50));
                }
                Err(TantivyError::LockFailure(..)) => return Ok(None),
                Err(e) => return Err(index_error(e)),
            }
        }
    }

    /// Sees the last commit (this process's or another's).
    pub(super) fn reload(&self) -> Result<()> {
        self.reader.reload().map_err(index_error)
    }
}

/// Threads for indexing and for searching segments side by side: the cores, at most four.
fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
}

/// How an index folder without a marker (made by a Corral before markers) is proven Corral's.
const PROOF: Proof = Proof::MarkerOrSearchMeta;

/// The index folders of older formats, by their exact names.
const OLD_FORMATS: [&str; 2] = ["search-v1", "search-v2"];

/// Removes the folders of older index formats (a cache of an older Corral) that are provably
/// Corral's; anything else of those names is left alone.
fn remove_old_formats(data_dir: &Path) {
    for name in OLD_FORMATS {
        debug_assert_ne!(name, INDEX_DIR);
        let _ = owned::remove_dir(&data_dir.join(name), Kind::SearchIndex, PROOF, is_index_file);
    }
}

/// The names tantivy and Corral write in an index folder: tantivy's `meta.json`, `.managed.json`,
/// its two lock files, segment files (`<32 hex digits>.<component>`) and the temp files of its
/// atomic writes (`.tmp` + 6 letters or digits); Corral's `state-<n>.bin`, `folders.bin` and the
/// temp files of their atomic writes.
pub(super) fn is_index_file(name: &str) -> bool {
    let corrals = |n: &str| n == "folders.bin" || state::is_state_name(n);
    is_tantivy_file(name) || corrals(name) || owned::is_atomic_temp_of(name, corrals)
}

/// The names tantivy writes (and opens itself) in an index folder.
fn is_tantivy_file(name: &str) -> bool {
    matches!(name, "meta.json" | ".managed.json" | ".tantivy-writer.lock" | ".tantivy-meta.lock")
        || is_segment_file(name)
        || name
            .strip_prefix(".tmp")
            .is_some_and(|r| r.len() == 6 && r.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// `<32 lowercase hex digits>.<idx|pos|term|store|store.temp|fast|fieldnorm|<digits>.del>`.
fn is_segment_file(name: &str) -> bool {
    let Some((id, ext)) = name.split_once('.') else { return false };
    let hex = id.len() == 32 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    let del = ext
        .strip_suffix(".del")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    hex && (del
        || matches!(ext, "idx" | "pos" | "term" | "store" | "store.temp" | "fast" | "fieldnorm"))
}
