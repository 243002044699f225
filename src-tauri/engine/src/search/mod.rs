//! Full-text search of every conversation: a tantivy index in Corral's data dir
//! (`<data dir>/search-v3/`), never in the Claude home.
//!
//! The index is a cache. Missing, unreadable, from another format, or left by a crashed writer, it
//! is rebuilt: a commit is atomic (tantivy writes `meta.json` last), and the state it names
//! (`state`: written first, checksummed) says exactly which files and sessions the committed
//! documents describe, so a reader never sees a half-indexed file as a whole one. One process writes at a time (tantivy's writer lock is a file
//! lock, so it holds across processes); another waits briefly, then answers from the last commit.
//!
//! `build` brings the index up to date (`background` does it on a thread of its own), finding
//! subagent transcripts through what `folders` remembers of their folders; `find` answers
//! queries; `query` parses them; `schema`, `state` and `tokenizer` define what is stored, what the
//! index knows of the files, and how words are cut.

mod background;
mod best;
mod build;
mod collect;
mod directory;
mod find;
mod folders;
mod index;
pub mod query;
mod schema;
mod snippet;
mod state;
pub mod tokenizer;

use std::time::Duration;

use serde::Serialize;
use ts_rs::TS;

use crate::error::Error;
use crate::model::{Role, Warning};

pub use background::{IndexStatus, Indexer};
pub use find::{EXACT_UP_TO, SearchOptions, TranscriptMatch, TranscriptMatches};
pub use index::SearchIndex;
pub use query::{QueryError, parse};

/// The index folder inside the data dir; the suffix changes with the index format, and the folders
/// of older formats are removed by their exact names when provably Corral's (`index`, `owned`).
pub const INDEX_DIR: &str = "search-v3";

/// How an update runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct UpdateOptions {
    /// How long to wait for another process's update to finish.
    pub wait: Duration,
    /// Empty the index first and read everything again.
    pub rebuild: bool,
    /// Take a settled session's subagent transcripts as remembered while its main transcript
    /// is unchanged, without looking at them or their folders (see `folders`): what a one-off
    /// search does, to answer sooner. An update that does not (the app's, which file events
    /// start, and `index`) looks at every file and folder.
    pub trust_quiet: bool,
    /// How often a long update commits what it has read so far (searchable at once, kept
    /// through a quit; such commits say they are partial); `None`: every 10 seconds.
    pub commit_every: Option<Duration>,
}

/// How far a background build has come, in sessions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct IndexProgress {
    /// Sessions indexed so far.
    #[ts(type = "number")]
    pub done: u64,
    /// Sessions to index.
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
    /// Files already up to date.
    #[ts(type = "number")]
    pub files_unchanged: u64,
    /// Files no longer listed, whose documents were deleted.
    #[ts(type = "number")]
    pub files_removed: u64,
    /// Sessions whose names document was written (new or renamed).
    #[ts(type = "number")]
    pub sessions_renamed: u64,
    /// Messages added to the index.
    #[ts(type = "number")]
    pub messages_added: u64,
    /// Bytes of transcript read.
    #[ts(type = "number")]
    pub bytes_read: u64,
    /// How long the update took.
    #[ts(type = "number")]
    pub took_ms: u64,
    /// Another process was updating the index; nothing was done.
    pub busy: bool,
    /// Files that could not be indexed, and why.
    pub warnings: Vec<Warning>,
}

/// One matching message of a session.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    /// The matched line's own `uuid`.
    pub uuid: String,
    /// Who wrote the message.
    pub role: Role,
    /// When, as recorded.
    pub timestamp: Option<String>,
    /// The tool, for a tool call or result.
    pub tool_name: Option<String>,
    /// For a tool call or result: the call's id (the viewer's message for both).
    pub tool_use_id: Option<String>,
    /// Set when the hit is in a subagent's transcript.
    pub agent_id: Option<String>,
    /// Byte offset of the line in its transcript (open the viewer there: `PageAt::Around`).
    #[ts(type = "number")]
    pub offset: u64,
    /// The line is on a branch a rewind abandoned (not part of the resumed conversation; the
    /// viewer opens that branch at it).
    pub rewound: bool,
    /// Text around the match, and its parts with the matched words marked.
    pub snippet: String,
    /// The snippet in runs, matched words marked.
    pub snippet_parts: Vec<SnippetPart>,
}

/// A run of a snippet: matched words (`hit`) or the text between them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SnippetPart {
    /// The run's text.
    pub text: String,
    /// It is matched words.
    pub hit: bool,
}

/// One session with its best hits.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionHits {
    /// The session id.
    pub session_id: String,
    /// The working directory it recorded.
    pub working_directory: String,
    /// The agent that owns it, if any.
    pub agent_name: Option<String>,
    /// The name a person gave it, if any.
    pub custom_name: Option<String>,
    /// Claude Code's generated title, if any.
    pub auto_name: Option<String>,
    /// Its name or working directory matched.
    pub name_match: bool,
    /// Matching messages in the session (the hits are the best of them).
    #[ts(type = "number")]
    pub matches: u64,
    /// Its best hits, best first.
    pub hits: Vec<SearchHit>,
}

/// The answer to a query, best session first.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SearchResults {
    /// The query as asked.
    pub query: String,
    /// Sessions that match (all of them when `totalsExact`, else at least this many;
    /// `sessions` holds the first `limit`).
    #[ts(type = "number")]
    pub total_sessions: u64,
    /// Matching messages across all of them (when `totalsExact`, else at least this many).
    #[ts(type = "number")]
    pub total_matches: u64,
    /// The counts are exact: at most 10,000 messages matched. Past that, `totalMatches`,
    /// `totalSessions` and each session's `matches` are lower bounds, and the sessions are
    /// ranked from the best-scoring messages (top-k) and the first 10,000 matches.
    pub totals_exact: bool,
    /// Sessions the index covers (fewer than listed while it is being built).
    #[ts(type = "number")]
    pub indexed_sessions: u64,
    /// Sessions listed now.
    #[ts(type = "number")]
    pub listed_sessions: u64,
    /// The index was last committed at the end of an update. False while an update (this
    /// process's or another's) is part way, or before the first: the answer is partial, and
    /// `indexedSessions` says how far it goes.
    pub complete: bool,
    /// The sessions, best first (the first `limit`).
    pub sessions: Vec<SessionHits>,
    /// How long the search took.
    #[ts(type = "number")]
    pub took_ms: u64,
}

pub(crate) fn index_error(e: impl std::fmt::Display) -> Error {
    Error::SearchIndex(e.to_string())
}
