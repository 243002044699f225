//! Where the Claude home's space goes: its folders, the sessions by working directory and by
//! agent, the largest sessions, what sessions that no longer exist left behind, and Claude
//! Code's debug logs. Each part names what cleans it up through the quarantine
//! ([`crate::quarantine`]); this module only reads.

use std::collections::HashMap;
use std::path::Path;
use std::time::SystemTime;

use chrono::{DateTime, Utc};
use serde::Serialize;
use ts_rs::TS;

use crate::catalog::Catalog;
use crate::error::Result;
use crate::moving::TreeSize;
use crate::quarantine::{HomeLeftovers, Orphaned};

/// One entry of the Claude home (a folder's whole tree).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct StorageArea {
    /// Its name in the home.
    pub name: String,
    /// What Claude Code keeps there, when Corral knows.
    pub what: Option<String>,
    /// Bytes in it.
    #[ts(type = "number")]
    pub bytes: u64,
    /// Files, folders and links in it.
    #[ts(type = "number")]
    pub entries: u64,
}

/// Sessions grouped by working directory or by agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct StorageGroup {
    /// The working directory, or the agent's qualified name (`None`: nobody's sessions).
    pub key: Option<String>,
    /// Sessions in it.
    pub sessions: u32,
    /// Their bytes, everything they left behind included.
    #[ts(type = "number")]
    pub bytes: u64,
    /// A working directory that no longer exists.
    pub gone: bool,
}

/// One session and the space it takes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionUse {
    /// The session.
    pub session_id: String,
    /// The name it is shown by.
    pub name: String,
    /// Its working directory.
    pub working_directory: String,
    /// The agent that owns it.
    pub agent_name: Option<String>,
    /// Its last activity.
    pub last_activity_at: String,
    /// Bytes of its transcript.
    #[ts(type = "number")]
    pub transcript_bytes: u64,
    /// Bytes of everything it left behind, the transcript included.
    #[ts(type = "number")]
    pub bytes: u64,
}

/// Claude Code's debug logs (`debug/`), and how many are older than a few ages.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DebugLogUse {
    /// Logs (`debug/<sid>.txt`).
    pub files: u32,
    /// Their bytes.
    #[ts(type = "number")]
    pub bytes: u64,
    /// Those untouched for at least [`DEBUG_LOG_AGES`] days, one figure per age.
    pub older: Vec<AgedUse>,
}

/// Files untouched for a number of days.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AgedUse {
    /// The days.
    pub days: u32,
    /// Files.
    pub files: u32,
    /// Their bytes.
    #[ts(type = "number")]
    pub bytes: u64,
}

/// Where the Claude home's space goes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct StorageReport {
    /// The Claude home.
    pub claude_home: String,
    /// Bytes in it.
    #[ts(type = "number")]
    pub total_bytes: u64,
    /// Its entries, largest first.
    pub areas: Vec<StorageArea>,
    /// Sessions by working directory, largest first (at most [`MAX_ROWS`]).
    pub folders: Vec<StorageGroup>,
    /// Sessions by agent, largest first.
    pub agents: Vec<StorageGroup>,
    /// The largest sessions (at most [`MAX_ROWS`]).
    pub largest: Vec<SessionUse>,
    /// What sessions that no longer exist left behind, largest first (at most [`MAX_ROWS`]).
    pub orphaned: Vec<Orphaned>,
    /// Gone sessions with leftovers, all of them.
    pub orphaned_sessions: u32,
    /// Their leftovers' bytes, all of them.
    #[ts(type = "number")]
    pub orphaned_bytes: u64,
    /// Claude Code's debug logs.
    pub debug_logs: DebugLogUse,
    /// Bytes Corral's quarantine holds (not in the home; emptied into the system's trash).
    #[ts(type = "number")]
    pub quarantine_bytes: u64,
}

/// Most rows a list of the report holds.
pub const MAX_ROWS: usize = 50;

/// The ages the debug-log figures are given for.
pub const DEBUG_LOG_AGES: [u32; 3] = [7, 30, 90];

/// What Claude Code keeps in the home's entries Corral knows.
const AREAS: &[(&str, &str)] = &[
    ("projects", "Transcripts, subagent runs and tool results"),
    ("debug", "Claude Code's debug logs"),
    ("file-history", "Copies of edited files, for rewinding"),
    ("session-env", "Environments set up by hooks, per session"),
    ("shell-snapshots", "Snapshots of the shell's environment"),
    ("todos", "To-do lists (older clients)"),
    ("tasks", "Task lists"),
    ("uploads", "Files attached to sessions"),
    ("jobs", "Background jobs (Agent View)"),
    ("plans", "Plans written in plan mode"),
    ("history.jsonl", "Every prompt typed, for the up arrow (never rewritten)"),
    ("statsig", "Feature flags"),
    ("telemetry", "Telemetry waiting to be sent"),
    ("cache", "Caches"),
    ("ide", "IDE connections"),
    ("plugins", "Plugins"),
];

/// The storage report of `catalog`'s Claude home as it is at `now`.
pub fn storage(catalog: &Catalog, now: DateTime<Utc>) -> Result<StorageReport> {
    let home = catalog.claude_home();
    let scan = catalog.scan()?;
    let walk = HomeWalk::of(home);
    let listed = catalog.listed_sessions_of(&scan);
    let mut sessions: Vec<SessionUse> = Vec::with_capacity(listed.len());
    for s in listed.iter() {
        let transcript = Path::new(&s.transcript_path);
        let folder = transcript.parent().and_then(Path::file_name);
        let transcript_bytes = s.size_bytes;
        let beside = folder
            .and_then(|f| {
                walk.projects.get(&(f.to_string_lossy().into_owned(), s.session_id.clone()))
            })
            .map_or(0, |t| t.bytes);
        sessions.push(SessionUse {
            session_id: s.session_id.clone(),
            name: s.display_name().to_owned(),
            working_directory: s.working_directory.clone(),
            agent_name: s.agent_name.clone(),
            last_activity_at: s.last_message_at.clone().unwrap_or_else(|| s.mtime.clone()),
            transcript_bytes,
            bytes: transcript_bytes + beside + walk.keyed_bytes(&s.session_id),
        });
    }
    let known: std::collections::HashSet<&str> =
        scan.transcripts.iter().map(|t| t.session_id.as_str()).collect();
    let leftovers = HomeLeftovers::scan(home, catalog.state_dir());
    let mut orphaned = leftovers.orphans(&|sid| known.contains(sid), SystemTime::from(now));
    let quarantine_bytes = crate::quarantine::quarantine(catalog.data_dir())
        .map_or(0, |runs| runs.iter().map(|r| r.bytes).sum());
    let mut report = StorageReport {
        claude_home: home.display().to_string(),
        total_bytes: walk.areas.iter().map(|a| a.bytes).sum(),
        folders: groups(&sessions, |s| Some(s.working_directory.clone())),
        agents: groups(&sessions, |s| s.agent_name.clone()),
        areas: walk.areas.clone(),
        largest: Vec::new(),
        orphaned_sessions: u32::try_from(orphaned.len()).unwrap_or(u32::MAX),
        orphaned_bytes: orphaned.iter().map(|o| o.bytes).sum(),
        orphaned: Vec::new(),
        debug_logs: walk.debug_logs(SystemTime::from(now)),
        quarantine_bytes,
    };
    report.folders.truncate(MAX_ROWS);
    orphaned.truncate(MAX_ROWS);
    report.orphaned = orphaned;
    sessions.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.session_id.cmp(&b.session_id)));
    sessions.truncate(MAX_ROWS);
    report.largest = sessions;
    Ok(report)
}

/// Sessions grouped by `key`, largest first.
fn groups(
    sessions: &[SessionUse],
    key: impl Fn(&SessionUse) -> Option<String>,
) -> Vec<StorageGroup> {
    let mut by: HashMap<Option<String>, (u32, u64)> = HashMap::new();
    for s in sessions {
        let e = by.entry(key(s)).or_default();
        e.0 += 1;
        e.1 = e.1.saturating_add(s.bytes);
    }
    let mut out: Vec<StorageGroup> = by
        .into_iter()
        .map(|(key, (sessions, bytes))| StorageGroup {
            gone: key
                .as_deref()
                .is_some_and(|k| crate::paths::is_absolute_cwd(k) && !Path::new(k).exists()),
            key,
            sessions,
            bytes,
        })
        .collect();
    out.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.key.cmp(&b.key)));
    out
}

/// One walk of the home: each entry's size, and the sizes of what is keyed by a session.
struct HomeWalk {
    areas: Vec<StorageArea>,
    /// `(project folder, name)` → size of the entries of `projects/<folder>/`.
    projects: HashMap<(String, String), TreeSize>,
    /// Home folder → entry name → size, for the folders keyed by session.
    keyed: HashMap<&'static str, HashMap<String, TreeSize>>,
}

/// The home's folders whose entries are named by a session id (`todos/` by its prefix).
const KEYED: [&str; 6] = ["session-env", "file-history", "tasks", "uploads", "debug", "todos"];

impl HomeWalk {
    fn of(home: &Path) -> Self {
        let mut walk = Self { areas: Vec::new(), projects: HashMap::new(), keyed: HashMap::new() };
        for (name, path) in entries(home) {
            let size = if name == "projects" {
                let mut total = shallow(&path);
                for (folder, fpath) in entries(&path) {
                    add(&mut total, shallow(&fpath));
                    for (entry, epath) in entries(&fpath) {
                        let size = one(&epath);
                        add(&mut total, size);
                        walk.projects.insert((folder.clone(), entry), size);
                    }
                }
                total
            } else if let Some(k) = KEYED.iter().find(|k| **k == name) {
                let mut total = shallow(&path);
                let map = walk.keyed.entry(k).or_default();
                for (entry, epath) in entries(&path) {
                    let size = one(&epath);
                    add(&mut total, size);
                    // A session's to-do lists are `<sid>-<agent>.json`: counted by session.
                    let key = match entry.get(..36) {
                        Some(sid) if name == "todos" => sid.to_owned(),
                        _ => entry,
                    };
                    add(map.entry(key).or_default(), size);
                }
                total
            } else {
                one(&path)
            };
            let what = AREAS.iter().find(|(n, _)| *n == name).map(|(_, w)| (*w).to_owned());
            walk.areas.push(StorageArea { name, what, bytes: size.bytes, entries: size.entries });
        }
        walk.areas.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.name.cmp(&b.name)));
        walk
    }

    /// Bytes session `sid` holds outside `projects/`.
    fn keyed_bytes(&self, sid: &str) -> u64 {
        let mut bytes = 0u64;
        for (folder, map) in &self.keyed {
            let found: u64 = match *folder {
                "debug" => map.get(&format!("{sid}.txt")).map_or(0, |t| t.bytes),
                _ => map.get(sid).map_or(0, |t| t.bytes),
            };
            bytes = bytes.saturating_add(found);
        }
        bytes
    }

    fn debug_logs(&self, now: SystemTime) -> DebugLogUse {
        let mut out = DebugLogUse {
            older: DEBUG_LOG_AGES
                .iter()
                .map(|&days| AgedUse { days, files: 0, bytes: 0 })
                .collect(),
            ..DebugLogUse::default()
        };
        let logs = self
            .keyed
            .get("debug")
            .into_iter()
            .flatten()
            .filter(|(n, _)| n.strip_suffix(".txt").is_some_and(crate::paths::is_uuid));
        let lines: Vec<SystemTime> =
            DEBUG_LOG_AGES.iter().map(|&d| crate::time::days_before(now, d)).collect();
        for (_, size) in logs {
            out.files += 1;
            out.bytes = out.bytes.saturating_add(size.bytes);
            for (aged, &before) in out.older.iter_mut().zip(&lines) {
                if size.newest.is_some_and(|t| t <= before) {
                    aged.files += 1;
                    aged.bytes = aged.bytes.saturating_add(size.bytes);
                }
            }
        }
        out
    }
}

/// The entries of folder `dir` by name (names that are no UTF-8 shown lossily).
fn entries(dir: &Path) -> Vec<(String, std::path::PathBuf)> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .collect()
}

/// The size of what is at `path`, links not followed; what cannot be read (it vanished
/// meanwhile, or no permission) counts as nothing.
fn one(path: &Path) -> TreeSize {
    let Ok(meta) = std::fs::symlink_metadata(path) else { return TreeSize::default() };
    let mut size = TreeSize { bytes: 0, entries: 1, newest: meta.modified().ok() };
    if meta.is_file() {
        size.bytes = meta.len();
    } else if meta.is_dir() {
        for (_, child) in entries(path) {
            add(&mut size, one(&child));
        }
    }
    size
}

/// What is at `path` itself, without what a folder holds.
fn shallow(path: &Path) -> TreeSize {
    let meta = std::fs::symlink_metadata(path).ok();
    TreeSize {
        bytes: meta.as_ref().filter(|m| m.is_file()).map_or(0, std::fs::Metadata::len),
        entries: 1,
        newest: meta.and_then(|m| m.modified().ok()),
    }
}

fn add(total: &mut TreeSize, size: TreeSize) {
    total.bytes = total.bytes.saturating_add(size.bytes);
    total.entries = total.entries.saturating_add(size.entries);
    total.newest = total.newest.max(size.newest);
}
