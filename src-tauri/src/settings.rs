//! Where Corral looks: the Claude home, the fleet file and its own data dir.
//!
//! Three layers, last wins: built-in defaults (`$CLAUDE_CONFIG_DIR` or `~/.claude`, no fleet,
//! `$CORRAL_DATA_DIR` or `<platform data dir>/corral`), the saved settings file
//! (`<config dir>/corral/settings.json`), and the launch environment (`CLAUDE_CONFIG_DIR`,
//! `CORRAL_DATA_DIR`, `CORRAL_FLEET`), which overrides the saved values for one run — that is how
//! tests and scripts point the app at a fixture. A choice made in the app (`set_settings`) is
//! saved and applies at once.

use std::path::{Path, PathBuf};

use corral_engine::atomic_write::write_atomic;
use corral_engine::{Error, Result};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Largest settings file read (it holds three paths).
const MAX_SETTINGS_BYTES: u64 = 64 * 1024;

/// The settings as the UI sees them (`get_settings`, `set_settings`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    pub claude_home: String,
    /// False on a first run without Claude Code: the UI says so and offers to pick a folder.
    pub claude_home_exists: bool,
    pub fleet_file: Option<String>,
    /// Where herdctl's state (jobs, session metadata, adoptions) is read and written.
    pub state_dir: String,
    pub data_dir: String,
    /// The user's home folder, for showing paths as `~/…` (absent when unknown).
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub home_dir: Option<String>,
    /// Set when live updates are degraded (files polled because the system refused watches).
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub live_updates_note: Option<String>,
    /// The Claude desktop app's session store read for its sidebars (absent when this platform
    /// has no default and none was chosen).
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub desktop_store: Option<String>,
    /// The terminal "Resume" opens: a program or a template (`null`: automatic, `$TERMINAL`
    /// then the platform's terminals).
    pub terminal: Option<String>,
    /// The known terminals found on this machine, for the choice.
    pub terminals: Vec<String>,
    /// Raise a desktop notification when a session starts waiting on you (off by default).
    pub notify_waiting: bool,
    /// Set when notifications cannot be raised here (no session bus): why, for Settings to say.
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notifications_note: Option<String>,
    /// "Reopen recent work" starts each conversation with Remote Control on, named after its
    /// folder, so it is reachable from the person's other devices (off by default).
    pub reopen_remote_control: bool,
    /// Send delete runs older than this many days from the quarantine to the system's trash, at
    /// start and when set (`null`: never, the default).
    pub empty_quarantine_after_days: Option<u32>,
}

/// What is saved on disk. Absent values mean "use the default".
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SavedSettings {
    pub claude_home: Option<PathBuf>,
    pub fleet_file: Option<PathBuf>,
    pub data_dir: Option<PathBuf>,
    pub desktop_store: Option<PathBuf>,
    pub terminal: Option<String>,
    pub notify_waiting: bool,
    pub reopen_remote_control: bool,
    pub empty_quarantine_after_days: Option<u32>,
}

/// The process environment that matters, captured once at start (tests build it by hand).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaunchEnv {
    pub claude_config_dir: Option<PathBuf>,
    pub corral_data_dir: Option<PathBuf>,
    pub corral_fleet: Option<PathBuf>,
    pub home_dir: Option<PathBuf>,
    pub platform_data_dir: Option<PathBuf>,
    /// `<config dir>/corral/settings.json`; `None` when the platform has no config dir.
    pub settings_file: Option<PathBuf>,
    /// `$XDG_CONFIG_HOME` and `%APPDATA%`, where the desktop app keeps its store.
    pub xdg_config_home: Option<PathBuf>,
    pub appdata: Option<PathBuf>,
    /// `$PATH`, where the terminals Settings offers are looked for.
    pub path: Option<std::ffi::OsString>,
    /// No session bus (D-Bus) can be reached, so no desktop notification can be raised.
    pub no_session_bus: bool,
}

impl LaunchEnv {
    pub fn from_process() -> Self {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        Self {
            claude_config_dir: var("CLAUDE_CONFIG_DIR"),
            corral_data_dir: var("CORRAL_DATA_DIR"),
            corral_fleet: var("CORRAL_FLEET"),
            home_dir: dirs::home_dir(),
            platform_data_dir: dirs::data_dir(),
            settings_file: dirs::config_dir().map(|d| d.join("corral").join("settings.json")),
            xdg_config_home: var("XDG_CONFIG_HOME"),
            appdata: var("APPDATA"),
            path: std::env::var_os("PATH"),
            no_session_bus: !crate::launch::SessionBus::of_process().reachable(),
        }
    }

    /// The desktop app's store when none was chosen (the platform's place for it).
    pub fn default_desktop_store(&self) -> Option<PathBuf> {
        let var = |name: &str| {
            let v = match name {
                "XDG_CONFIG_HOME" => self.xdg_config_home.as_ref(),
                "APPDATA" => self.appdata.as_ref(),
                _ => None,
            };
            v.map(|p| p.display().to_string())
        };
        corral_engine::desktop::default_store(self.home_dir.as_deref(), &var)
    }

    /// The Claude home when nothing was chosen: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
    pub fn default_claude_home(&self) -> Result<PathBuf> {
        corral_engine::paths::resolve_claude_home(
            None,
            self.claude_config_dir.as_deref(),
            self.home_dir.as_deref(),
        )
    }

    /// Corral's data dir when nothing was chosen (the engine's rule, as for the CLI).
    fn default_data_dir(&self) -> Result<PathBuf> {
        corral_engine::paths::resolve_data_dir(
            None,
            self.corral_data_dir.as_deref(),
            self.platform_data_dir.as_deref(),
        )
    }
}

/// The paths and preferences in force for this run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Effective {
    pub claude_home: PathBuf,
    pub fleet_file: Option<PathBuf>,
    pub data_dir: PathBuf,
    pub desktop_store: Option<PathBuf>,
    pub terminal: Option<String>,
    pub notify_waiting: bool,
    pub reopen_remote_control: bool,
    pub empty_quarantine_after_days: Option<u32>,
}

impl Effective {
    /// Start-up resolution: environment › saved › default.
    pub fn at_launch(env: &LaunchEnv, saved: &SavedSettings) -> Result<Self> {
        let claude_home = match (&env.claude_config_dir, &saved.claude_home) {
            (Some(dir), _) | (None, Some(dir)) => dir.clone(),
            (None, None) => env.default_claude_home()?,
        };
        let data_dir = match (&env.corral_data_dir, &saved.data_dir) {
            (Some(dir), _) | (None, Some(dir)) => dir.clone(),
            (None, None) => env.default_data_dir()?,
        };
        let fleet_file = env.corral_fleet.clone().or_else(|| saved.fleet_file.clone());
        let desktop_store = saved.desktop_store.clone().or_else(|| env.default_desktop_store());
        Ok(Self {
            claude_home,
            fleet_file,
            data_dir,
            desktop_store,
            terminal: saved.terminal.clone(),
            notify_waiting: saved.notify_waiting,
            reopen_remote_control: saved.reopen_remote_control,
            empty_quarantine_after_days: saved.empty_quarantine_after_days,
        })
    }
}

/// A change requested by the UI (`set_settings`'s arguments, TypeScript type `SettingsPatch`).
/// For each field: absent = unchanged; for `claudeHome`, `null` = back to the default; for
/// `fleetFile`, `null` = close the fleet. Unknown fields are refused.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SettingsPatch {
    #[serde(default, deserialize_with = "present")]
    #[ts(optional, type = "string | null")]
    pub claude_home: Option<Option<PathBuf>>,
    #[serde(default, deserialize_with = "present")]
    #[ts(optional, type = "string | null")]
    pub fleet_file: Option<Option<PathBuf>>,
    /// The desktop app's store; `null` = back to the platform's.
    #[serde(default, deserialize_with = "present")]
    #[ts(optional, type = "string | null")]
    pub desktop_store: Option<Option<PathBuf>>,
    /// The terminal "Resume" opens (a program or a template); `null` = automatic.
    #[serde(default, deserialize_with = "present")]
    #[ts(optional, type = "string | null")]
    pub terminal: Option<Option<String>>,
    #[serde(default)]
    #[ts(optional)]
    pub notify_waiting: Option<bool>,
    /// Reopen recent work with Remote Control on.
    #[serde(default)]
    #[ts(optional)]
    pub reopen_remote_control: Option<bool>,
    /// Empty the quarantine's runs older than this many days automatically; `null` = never.
    #[serde(default, deserialize_with = "present")]
    #[ts(optional, type = "number | null")]
    pub empty_quarantine_after_days: Option<Option<u32>>,
}

/// A field that is present: `null` is `Some(None)`, so "absent" and `null` stay apart.
fn present<'de, D: serde::Deserializer<'de>, T: serde::Deserialize<'de>>(
    d: D,
) -> std::result::Result<Option<Option<T>>, D::Error> {
    serde::Deserialize::deserialize(d).map(Some)
}

impl SettingsPatch {
    /// Checks the patch's paths (non-empty, absolute, no NUL bytes) and its terminal.
    pub fn check(&self) -> Result<()> {
        let patch = self;
        for (key, value) in [
            ("claudeHome", &patch.claude_home),
            ("fleetFile", &patch.fleet_file),
            ("desktopStore", &patch.desktop_store),
        ] {
            if let Some(Some(path)) = value {
                checked_path(key, &path.to_string_lossy())?;
            }
        }
        if let Some(Some(terminal)) = &patch.terminal {
            corral_engine::resume::Terminal::parse(terminal)?;
        }
        if let Some(Some(days)) = patch.empty_quarantine_after_days
            && !(1..=MAX_QUARANTINE_DAYS).contains(&days)
        {
            return Err(Error::InvalidInput(format!(
                "emptyQuarantineAfterDays must be 1 to {MAX_QUARANTINE_DAYS}, got {days}"
            )));
        }
        Ok(())
    }

    /// Whether the patch changes where Corral reads (a new catalog), not only preferences.
    pub fn touches_paths(&self) -> bool {
        self.claude_home.is_some() || self.fleet_file.is_some() || self.desktop_store.is_some()
    }

    /// Applies the patch to what is in force now, giving what would be in force next.
    pub fn apply(&self, env: &LaunchEnv, now: &Effective) -> Result<Effective> {
        let mut next = now.clone();
        match &self.claude_home {
            None => {}
            Some(Some(dir)) => next.claude_home = dir.clone(),
            Some(None) => next.claude_home = env.default_claude_home()?,
        }
        if let Some(fleet) = &self.fleet_file {
            next.fleet_file = fleet.clone();
        }
        match &self.desktop_store {
            None => {}
            Some(Some(dir)) => next.desktop_store = Some(dir.clone()),
            Some(None) => next.desktop_store = env.default_desktop_store(),
        }
        if let Some(terminal) = &self.terminal {
            next.terminal = terminal.as_ref().map(|t| t.trim().to_owned());
        }
        if let Some(on) = self.notify_waiting {
            next.notify_waiting = on;
        }
        if let Some(on) = self.reopen_remote_control {
            next.reopen_remote_control = on;
        }
        if let Some(days) = self.empty_quarantine_after_days {
            next.empty_quarantine_after_days = days;
        }
        Ok(next)
    }

    /// Records the patch in the saved settings.
    pub fn save_into(&self, saved: &mut SavedSettings) {
        if let Some(home) = &self.claude_home {
            saved.claude_home = home.clone();
        }
        if let Some(fleet) = &self.fleet_file {
            saved.fleet_file = fleet.clone();
        }
        if let Some(store) = &self.desktop_store {
            saved.desktop_store = store.clone();
        }
        if let Some(terminal) = &self.terminal {
            saved.terminal = terminal.as_ref().map(|t| t.trim().to_owned());
        }
        if let Some(on) = self.notify_waiting {
            saved.notify_waiting = on;
        }
        if let Some(on) = self.reopen_remote_control {
            saved.reopen_remote_control = on;
        }
        if let Some(days) = self.empty_quarantine_after_days {
            saved.empty_quarantine_after_days = days;
        }
    }
}

/// The longest automatic-emptying age a person can set (ten years).
const MAX_QUARANTINE_DAYS: u32 = 3650;

/// A path from the UI: non-empty, absolute, without NUL bytes.
fn checked_path(key: &str, value: &str) -> Result<PathBuf> {
    if value.trim().is_empty() {
        return Err(Error::InvalidInput(format!("{key} must not be empty")));
    }
    if value.contains('\0') {
        return Err(Error::InvalidInput(format!("{key} must not contain NUL bytes")));
    }
    let path = PathBuf::from(value);
    if !path.is_absolute() {
        return Err(Error::InvalidInput(format!("{key} must be an absolute path, got {value:?}")));
    }
    Ok(path)
}

/// Reads the saved settings; a missing file gives the defaults. An unreadable or malformed file
/// is reported and left untouched (the caller falls back to defaults for this run).
pub fn load(file: &Path) -> Result<SavedSettings> {
    match std::fs::symlink_metadata(file) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(SavedSettings::default()),
        Err(e) => return Err(Error::io_at("read", file, e)),
        Ok(_) => {}
    }
    // The engine's one opener: a FIFO or device here is refused at once, never waited on.
    let bytes = corral_engine::files::read_bounded(file, MAX_SETTINGS_BYTES)
        .map_err(|reason| Error::unreadable(file, reason))?;
    serde_json::from_slice(&bytes)
        .map_err(|e| Error::Unreadable { path: file.to_path_buf(), reason: e.to_string() })
}

/// Saves the settings atomically (temp file + rename).
pub fn save(file: &Path, saved: &SavedSettings) -> Result<()> {
    let mut bytes = serde_json::to_vec_pretty(saved)
        .map_err(|e| Error::InvalidInput(format!("cannot serialize settings: {e}")))?;
    bytes.push(b'\n');
    write_atomic(file, &bytes)
}
