//! The index on disk: opened (or recreated when damaged), its writer (one process at a time),
//! and its reader.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tantivy::directory::MmapDirectory;
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyError};

use super::folders::Folders;
use super::schema::{self, Fields};
use super::state;
use super::{INDEX_DIR, index_error, tokenizer};
use crate::error::{Error, Result};

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
    pub fn open(data_dir: &Path) -> Result<Self> {
        let dir = data_dir.join(INDEX_DIR);
        remove_other_formats(data_dir);
        match Self::open_at(&dir) {
            Ok(index) => Ok(index),
            Err(_) => {
                // Corrupt or from an incompatible writer: start again.
                if dir.exists() {
                    std::fs::remove_dir_all(&dir)
                        .map_err(|e| Error::io_at("remove the damaged search index", &dir, e))?;
                }
                Self::open_at(&dir)
            }
        }
    }

    fn open_at(dir: &Path) -> Result<Self> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io_at("create", dir, e))?;
        let (schema, fields) = schema::schema();
        let directory = MmapDirectory::open(dir).map_err(index_error)?;
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

/// Removes `search-v*` folders of other index formats (a cache of an older Corral).
fn remove_other_formats(data_dir: &Path) {
    let Ok(entries) = std::fs::read_dir(data_dir) else { return };
    for e in entries.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        if name.starts_with("search-v")
            && name != INDEX_DIR
            && e.file_type().is_ok_and(|t| t.is_dir())
        {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}
