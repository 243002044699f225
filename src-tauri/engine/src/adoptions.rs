//! The herdctl-compatible adoption store: `<state dir>/adopted-sessions/<sid>.yaml`.
//!
//! CONTRACT (owned by the fleet/attribution developer).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::model::Warning;

/// One adoption record, exactly herdctl's `AdoptedSessionSchema`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdoptionRecord {
    pub version: u32,
    pub session_id: String,
    pub agent_name: String,
    /// ISO-8601 UTC with milliseconds (`2026-11-29T19:31:24.056Z`).
    pub adopted_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_cwd: Option<String>,
}

/// `<state dir>/adopted-sessions`.
pub fn store_dir(state_dir: &Path) -> PathBuf {
    state_dir.join("adopted-sessions")
}

/// The record path for a session id (validated first: a hostile id is an error before any I/O).
pub fn record_path(state_dir: &Path, session_id: &str) -> Result<PathBuf> {
    let id = crate::paths::validate_session_id(session_id)?;
    Ok(store_dir(state_dir).join(format!("{id}.yaml")))
}

/// Every readable record; malformed ones become warnings. A missing folder means none.
pub fn read_all(state_dir: &Path) -> (Vec<AdoptionRecord>, Vec<Warning>) {
    let _ = state_dir;
    (Vec::new(), Vec::new())
}

/// Reads one record, `Ok(None)` when absent.
pub fn read(state_dir: &Path, session_id: &str) -> Result<Option<AdoptionRecord>> {
    let _ = record_path(state_dir, session_id)?;
    Ok(None)
}

/// Writes (or overwrites) a record atomically, creating the folder lazily.
pub fn write(state_dir: &Path, record: &AdoptionRecord) -> Result<()> {
    let _ = record_path(state_dir, &record.session_id)?;
    Ok(())
}

/// Removes a record; `Ok(false)` when there was none.
pub fn remove(state_dir: &Path, session_id: &str) -> Result<bool> {
    let _ = record_path(state_dir, session_id)?;
    Ok(false)
}
