//! The catalog: one opened view of a Claude home, an optional fleet, its state dir and Corral's
//! data dir. It lists, attributes, names and reads sessions.

use std::path::{Path, PathBuf};

use serde::Serialize;
use ts_rs::TS;

use crate::error::{Error, Result};
use crate::fleet::Fleet;
use crate::model::{
    AgentSummary, DirectoryGroup, MessagePage, SessionSummary, SessionTranscript, Warning,
};

/// Where everything lives. Every path computation starts from these values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogConfig {
    pub claude_home: PathBuf,
    pub fleet_file: Option<PathBuf>,
    /// Overrides the state dir (default: `<fleet dir>/.herdctl`, or `<data dir>/state` with no fleet).
    pub state_dir: Option<PathBuf>,
    pub data_dir: PathBuf,
}

/// Options for listings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ListOptions {
    /// At most this many sessions (applied after filtering).
    pub limit: Option<usize>,
    /// Include groups for temp directories.
    pub include_temp: bool,
}

/// An opened catalog.
#[derive(Debug)]
pub struct Catalog {
    config: CatalogConfig,
    fleet: Option<Fleet>,
    state_dir: PathBuf,
}

impl Catalog {
    pub fn open(config: CatalogConfig) -> Result<Self> {
        let fleet = config.fleet_file.as_deref().map(Fleet::load).transpose()?;
        let state_dir = match (&config.state_dir, &fleet) {
            (Some(s), _) => s.clone(),
            (None, Some(f)) => f.state_dir(),
            (None, None) => config.data_dir.join("state"),
        };
        Ok(Self { config, fleet, state_dir })
    }

    pub fn claude_home(&self) -> &Path {
        &self.config.claude_home
    }

    pub fn data_dir(&self) -> &Path {
        &self.config.data_dir
    }

    pub fn state_dir(&self) -> &Path {
        &self.state_dir
    }

    pub fn fleet(&self) -> Option<&Fleet> {
        self.fleet.as_ref()
    }

    /// Every session, grouped by real working directory, newest group first.
    pub fn all_sessions(&self, opts: ListOptions) -> Result<Listing> {
        let _ = opts;
        Ok(Listing { groups: Vec::new(), warnings: Vec::new() })
    }

    /// The sessions attributed to `agent` (qualified name), newest first; the limit is applied
    /// after filtering.
    pub fn agent_sessions(&self, agent: &str, opts: ListOptions) -> Result<Vec<SessionSummary>> {
        let _ = opts;
        Err(Error::UnknownAgent(agent.to_owned()))
    }

    /// The fleet's agents with their true session counts (empty with no fleet).
    pub fn agents(&self) -> Result<Vec<AgentSummary>> {
        Ok(Vec::new())
    }

    /// One session by id.
    pub fn session(&self, session_id: &str) -> Result<SessionSummary> {
        crate::paths::validate_session_id(session_id)?;
        Err(Error::SessionNotFound(session_id.to_owned()))
    }

    /// The whole transcript of a session.
    pub fn transcript(&self, session_id: &str) -> Result<SessionTranscript> {
        let s = self.session(session_id)?;
        Err(Error::SessionNotFound(s.session_id))
    }

    /// A page of a session's messages ending before byte offset `before` (newest page: `None`).
    pub fn messages_page(
        &self,
        session_id: &str,
        before: Option<u64>,
        limit: usize,
    ) -> Result<MessagePage> {
        let _ = (before, limit);
        let s = self.session(session_id)?;
        Err(Error::SessionNotFound(s.session_id))
    }

    /// Sets (`Some`) or clears (`None`/empty) a session's custom name, stored under its owning
    /// agent's metadata file (or `adhoc`). Returns the updated session.
    pub fn rename(&self, session_id: &str, name: Option<&str>) -> Result<SessionSummary> {
        let _ = name;
        self.session(session_id)
    }

    /// Drops cached listing data for these transcript folders (all when empty).
    pub fn invalidate(&self, folders: &[PathBuf]) {
        let _ = folders;
    }
}

/// The result of [`Catalog::all_sessions`].
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Listing {
    pub groups: Vec<DirectoryGroup>,
    pub warnings: Vec<Warning>,
}
