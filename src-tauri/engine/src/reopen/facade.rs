//! Recent work of a catalog, as the CLI and the app ask for it.

use std::path::Path;

use chrono::{DateTime, Utc};

use super::recent::{RecentRules, RecentWork, recent_work, trusted_in};
use crate::error::Result;
use crate::occupancy::{OccupancySnapshot, ProcessSource};

/// Whether Claude Code trusts a folder, from its settings file read once.
pub struct TrustReader {
    settings: Option<serde_json::Value>,
}

impl TrustReader {
    /// Reads the settings of the Claude home `claude_home` (`default_home`: the one `claude`
    /// uses on its own). Unreadable settings make every answer `None`.
    pub fn read(claude_home: &Path, default_home: Option<&Path>) -> Self {
        Self { settings: crate::claude_settings::read(claude_home, default_home) }
    }

    /// The settings of `catalog`'s Claude home, `claude`'s default home being `~/.claude`.
    pub fn of(catalog: &crate::catalog::Catalog) -> Self {
        Self::read(catalog.claude_home(), crate::paths::default_claude_home().as_deref())
    }

    /// Whether `folder` is trusted (`None`: unknown).
    pub fn trusted(&self, folder: &str) -> Option<bool> {
        trusted_in(self.settings.as_ref(), folder)
    }
}

/// The recent work of `catalog`'s listed sessions over `days`, each folder's state from one look
/// at `processes` (`every_surface`: offer `-p`, SDK, desktop-app and scratch-workspace
/// conversations too; `desktop_store`: the desktop app's store, whose scratch workspaces are left
/// out). Git states are not read here ([`super::git_states`]).
pub fn recent_work_in(
    catalog: &crate::catalog::Catalog,
    processes: &dyn ProcessSource,
    days: u32,
    every_surface: bool,
    desktop_store: Option<&Path>,
    now: DateTime<Utc>,
) -> Result<RecentWork> {
    let sessions = catalog.listed_sessions()?;
    let snapshot = OccupancySnapshot::capture(processes);
    let trust = TrustReader::of(catalog);
    let scratch = desktop_store.and_then(crate::desktop::scratch_prefix);
    let rules = RecentRules {
        days,
        now,
        every_surface,
        scratch: scratch.as_deref(),
        trusted: &|f| trust.trusted(f),
    };
    Ok(recent_work(&sessions, &snapshot, &rules))
}
