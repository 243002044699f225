//! Full-text search of every conversation: a tantivy index in Corral's data dir
//! (`<data dir>/search-v1/`), never in the Claude home.
//!
//! The index is a cache. Missing, unreadable, from another format, or left by a crashed writer, it
//! is rebuilt: a commit is atomic (tantivy writes `meta.json` last), and the commit's payload says
//! exactly which files and sessions the committed documents describe, so a reader never sees a
//! half-indexed file as a whole one. One process writes at a time (tantivy's writer lock is a file
//! lock, so it holds across processes); another waits briefly, then answers from the last commit.
//!
//! `build` brings the index up to date; `find` answers queries; `query` parses them; `schema`
//! and `tokenizer` define what is stored and how words are cut.

mod build;
mod find;
pub mod query;
mod schema;
pub mod tokenizer;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;
use tantivy::directory::MmapDirectory;
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyError};
use ts_rs::TS;

use crate::error::{Error, Result};
use crate::model::{Role, Warning};
use build::{PAYLOAD_VERSION, Payload};
use schema::Fields;

pub use find::SearchOptions;
pub use query::{QueryError, parse};

/// The index folder inside the data dir; the suffix changes with the index format, and folders
/// of other formats are removed.
pub const INDEX_DIR: &str = "search-v1";
/// Memory the writer may use before it flushes a segment (split between its threads).
const WRITER_HEAP_BYTES: usize = 96 * 1024 * 1024;

/// How an update runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct UpdateOptions {
    /// How long to wait for another process's update to finish.
    pub wait: Duration,
    /// Empty the index first and read everything again.
    pub rebuild: bool,
}

/// How far a background build has come, in sessions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct IndexProgress {
    #[ts(type = "number")]
    pub done: u64,
    #[ts(type = "number")]
    pub total: u64,
}

/// What an update did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct IndexReport {
    /// Sessions listed (every one is searchable once the update is done).
    #[ts(type = "number")]
    pub sessions: u64,
    /// Files read from the start (new, rewritten or truncated).
    #[ts(type = "number")]
    pub files_indexed: u64,
    /// Files read only from where the last update stopped.
    #[ts(type = "number")]
    pub files_appended: u64,
    #[ts(type = "number")]
    pub files_unchanged: u64,
    #[ts(type = "number")]
    pub files_removed: u64,
    /// Sessions whose names document was written (new or renamed).
    #[ts(type = "number")]
    pub sessions_renamed: u64,
    #[ts(type = "number")]
    pub messages_added: u64,
    #[ts(type = "number")]
    pub bytes_read: u64,
    #[ts(type = "number")]
    pub took_ms: u64,
    /// Another process was updating the index; nothing was done.
    pub busy: bool,
    pub warnings: Vec<Warning>,
}

/// One matching message of a session.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    /// The matched line's own `uuid`.
    pub uuid: String,
    pub role: Role,
    pub timestamp: Option<String>,
    pub tool_name: Option<String>,
    /// Set when the hit is in a subagent's transcript.
    pub agent_id: Option<String>,
    /// Text around the match, and its parts with the matched words marked.
    pub snippet: String,
    pub snippet_parts: Vec<SnippetPart>,
}

/// A run of a snippet: matched words (`hit`) or the text between them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SnippetPart {
    pub text: String,
    pub hit: bool,
}

/// One session with its best hits.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionHits {
    pub session_id: String,
    pub working_directory: String,
    pub agent_name: Option<String>,
    pub custom_name: Option<String>,
    pub auto_name: Option<String>,
    /// Its name or working directory matched.
    pub name_match: bool,
    /// Matching messages in the session (the hits are the best of them).
    #[ts(type = "number")]
    pub matches: u64,
    pub hits: Vec<SearchHit>,
}

/// The answer to a query, best session first.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SearchResults {
    pub query: String,
    /// Sessions that match (all of them; `sessions` holds the first `limit`).
    #[ts(type = "number")]
    pub total_sessions: u64,
    /// Matching messages across all of them.
    #[ts(type = "number")]
    pub total_matches: u64,
    /// Sessions the index covers (fewer than listed while it is being built).
    #[ts(type = "number")]
    pub indexed_sessions: u64,
    pub sessions: Vec<SessionHits>,
    #[ts(type = "number")]
    pub took_ms: u64,
}

/// The search index of one data dir.
pub struct SearchIndex {
    dir: PathBuf,
    index: Index,
    reader: IndexReader,
    fields: Fields,
}

pub(crate) fn index_error(e: impl std::fmt::Display) -> Error {
    Error::SearchIndex(e.to_string())
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
        let index = Index::open_or_create(directory, schema).map_err(index_error)?;
        index.tokenizers().register(tokenizer::WORDS, tokenizer::analyzer());
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(index_error)?;
        let me = Self { dir: dir.to_path_buf(), index, reader, fields };
        // Reading the metadata proves the committed files are there and readable.
        me.index.load_metas().map_err(index_error)?;
        me.reader.searcher().segment_readers();
        Ok(me)
    }

    /// The folder the index lives in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The last committed payload; `None` when it is missing, unreadable or of another format
    /// (the index is then emptied and built again).
    fn payload(&self) -> Option<Payload> {
        let metas = self.index.load_metas().ok()?;
        let p: Payload = serde_json::from_str(metas.payload.as_deref()?).ok()?;
        (p.version == PAYLOAD_VERSION).then_some(p)
    }

    /// Sessions the last commit covers.
    pub fn indexed_sessions(&self) -> u64 {
        self.payload().map_or(0, |p| p.sessions.len() as u64)
    }

    /// The writer, waiting up to `wait` for another process to release it; `None` if it did not.
    fn writer(&self, wait: Duration) -> Result<Option<IndexWriter>> {
        let deadline = Instant::now() + wait;
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
        loop {
            match self.index.writer_with_num_threads(threads, WRITER_HEAP_BYTES) {
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
    fn reload(&self) -> Result<()> {
        self.reader.reload().map_err(index_error)
    }
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
