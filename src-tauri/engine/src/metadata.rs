//! The herdctl-compatible session metadata store: custom names (and herdctl's cached auto names)
//! in `<state dir>/session-metadata/<qualified agent>.json`, `adhoc.json` for unattributed sessions.
//!
//! CONTRACT (owned by the fleet/attribution developer).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::error::Result;

/// The key used for unattributed sessions.
pub const ADHOC: &str = "adhoc";

/// Reads and writes `session-metadata/*.json` with herdctl's exact shape, sparse files, atomic
/// writes, and the corrupt-file rule (a file that fails to parse is never overwritten).
#[derive(Debug, Clone)]
pub struct MetadataStore {
    dir: PathBuf,
}

impl MetadataStore {
    pub fn new(state_dir: &Path) -> Self {
        Self { dir: state_dir.join("session-metadata") }
    }

    /// All custom names: agent key → (session id → custom name). Unreadable files are skipped.
    pub fn custom_names(&self) -> HashMap<String, HashMap<String, String>> {
        let _ = &self.dir;
        HashMap::new()
    }

    /// Sets (`Some`) or clears (`None` or empty) the custom name of `session_id` under `agent_key`
    /// (a qualified agent name or [`ADHOC`]).
    pub fn set_custom_name(
        &self,
        agent_key: &str,
        session_id: &str,
        name: Option<&str>,
    ) -> Result<()> {
        let _ = (agent_key, crate::paths::validate_session_id(session_id)?, name);
        Ok(())
    }
}
