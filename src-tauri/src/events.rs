//! Events the shell sends to the UI, and their payloads.

use serde::Serialize;
use ts_rs::TS;

/// Event name: transcripts or herdctl state changed on disk.
pub const SESSIONS_CHANGED: &str = "sessions-changed";
/// Event name: the background search indexer's status changed (payload: the engine's
/// `IndexStatus`).
pub const SEARCH_STATUS: &str = "search-status";
/// Event name: how far the listing's full pass under way has read (payload: the engine's
/// `ScanProgress`; at most about ten a second). While it reads, `listing_so_far` answers.
pub const LISTING_PROGRESS: &str = "listing-progress";
/// Event name: files or folders were dropped on the window.
pub const FILES_DROPPED: &str = "files-dropped";

/// Payload of `sessions-changed`: the transcript folders (`<claude home>/projects/<folder>`) and/or
/// the state dir that changed. The engine's caches for exactly these folders were dropped first.
/// The projects folder itself (`<claude home>/projects`) means "anything may have changed" (a
/// watched folder appeared or vanished, or the OS dropped events); the state dir means names,
/// adoptions or jobs changed. Either way a listing should be reloaded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionsChanged {
    pub folders: Vec<String>,
}

/// Payload of `files-dropped`: absolute paths, and the agent row they were dropped on (the shell
/// cannot know it, so always `null` from the window-level event).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct FilesDropped {
    pub paths: Vec<String>,
    pub agent: Option<String>,
}
