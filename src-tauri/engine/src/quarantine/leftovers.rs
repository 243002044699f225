//! What a session leaves behind in the Claude home and the state dir, found without following a
//! link, each with its size.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::Serialize;
use ts_rs::TS;

use crate::job_states::JobNote;
use crate::runs::Leftover;

/// One thing a session left behind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct LeftoverItem {
    /// What it is.
    pub kind: Leftover,
    /// Where it is.
    pub path: String,
    /// The bytes it holds (a folder's whole tree).
    #[ts(type = "number")]
    pub bytes: u64,
}

/// The home's shared folders read once for a whole delete: the to-do lists and the Agent View
/// job records, by the session they are for.
pub struct HomeLeftovers {
    claude_home: PathBuf,
    state_dir: PathBuf,
    todos: HashMap<String, Vec<PathBuf>>,
    jobs: HashMap<String, JobNote>,
    /// The desktop app's sidebar entries by the Claude Code session they show.
    desktop: HashMap<String, Vec<PathBuf>>,
}

impl HomeLeftovers {
    /// Reads `todos/` and `jobs/` of `claude_home` (missing folders hold nothing).
    pub fn scan(claude_home: &Path, state_dir: &Path) -> Self {
        let mut todos: HashMap<String, Vec<PathBuf>> = HashMap::new();
        if let Ok(rd) = fs::read_dir(claude_home.join("todos")) {
            for e in rd.flatten() {
                let Ok(name) = e.file_name().into_string() else { continue };
                let sid = name.get(..36).unwrap_or("");
                if crate::paths::is_uuid(sid) && name.ends_with(".json") {
                    todos.entry(sid.to_owned()).or_default().push(e.path());
                }
            }
        }
        let jobs = crate::job_states::agent_view_notes(claude_home);
        Self {
            claude_home: claude_home.to_path_buf(),
            state_dir: state_dir.to_path_buf(),
            todos,
            jobs,
            desktop: HashMap::new(),
        }
    }

    /// Also reads the desktop app's store at `store`: every sidebar entry (archived ones too) by
    /// the session it shows.
    #[must_use]
    pub fn with_desktop(mut self, store: &Path) -> Self {
        for sidebar in crate::desktop::Store::read(store).sidebars {
            for entry in sidebar.entries {
                if let Some(sid) = entry.cli_session_id.filter(|s| crate::paths::is_uuid(s)) {
                    self.desktop.entry(sid).or_default().push(entry.path);
                }
            }
        }
        self
    }

    /// The desktop app's sidebar entries that show session `sid`, with their sizes.
    pub fn desktop_entries(&self, sid: &str) -> Vec<LeftoverItem> {
        let places = self.desktop.get(sid).into_iter().flatten();
        measure(places.map(|p| (Leftover::DesktopEntry, p.clone())).collect())
            .into_iter()
            .map(|(item, _)| item)
            .collect()
    }

    /// What Claude Code's background job record that names `sid` says, if one does.
    pub fn agent_view_job(&self, sid: &str) -> Option<&JobNote> {
        self.jobs.get(sid)
    }

    /// Everything session `sid`, whose transcript is `transcript`, left behind and is still there:
    /// the transcript first (once it is gone the session is gone for Claude Code), the adoption
    /// record last.
    pub fn of(&self, sid: &str, transcript: &Path) -> Vec<LeftoverItem> {
        let mut places = vec![(Leftover::Transcript, transcript.to_path_buf())];
        if let Some(folder) = transcript.parent() {
            places.push((Leftover::SessionFolder, folder.join(sid)));
        }
        places.extend(self.keyed(sid));
        measure(places).into_iter().map(|(item, _)| item).collect()
    }

    /// Claude Code's debug log of session `sid`, if it has one, and when it last changed.
    pub fn debug_log(&self, sid: &str) -> Option<(LeftoverItem, Option<SystemTime>)> {
        let path = self.claude_home.join("debug").join(format!("{sid}.txt"));
        measure(vec![(Leftover::DebugLog, path)]).pop()
    }

    /// The session ids Claude Code's debug logs (`debug/<sid>.txt`) are named by.
    pub fn debug_log_ids(&self) -> Vec<String> {
        names_in(&self.claude_home.join("debug"))
            .into_iter()
            .filter_map(|n| {
                n.strip_suffix(".txt").filter(|s| crate::paths::is_uuid(s)).map(str::to_owned)
            })
            .collect()
    }

    /// The places outside `projects/` keyed by session `sid` (they may not exist).
    fn keyed(&self, sid: &str) -> Vec<(Leftover, PathBuf)> {
        let home = &self.claude_home;
        let mut places = Vec::new();
        for kind in KEYED_FOLDERS {
            places.push((kind, home.join(kind.home_folder().unwrap_or_default()).join(sid)));
        }
        for todo in self.todos.get(sid).into_iter().flatten() {
            places.push((Leftover::Todos, todo.clone()));
        }
        places.push((Leftover::DebugLog, home.join("debug").join(format!("{sid}.txt"))));
        if let Some(job) = self.jobs.get(sid) {
            places.push((Leftover::AgentViewJob, home.join("jobs").join(&job.id)));
        }
        if let Ok(record) = crate::adoption_store::record_path(&self.state_dir, sid) {
            places.push((Leftover::AdoptionRecord, record));
        }
        places
    }

    /// What sessions that no longer exist left behind: everything keyed by a session id for
    /// which `has_transcript` says no transcript is left, and that nothing touched for a day
    /// (Claude Code makes a session's `session-env/` before its first message writes the
    /// transcript, so a younger one may be a session just starting). An Agent View job that says
    /// it is going is never an orphan. Largest first.
    pub fn orphans(&self, has_transcript: &dyn Fn(&str) -> bool, now: SystemTime) -> Vec<Orphaned> {
        let mut sids: HashMap<String, Vec<PathBuf>> = HashMap::new();
        for kind in KEYED_FOLDERS {
            for name in names_in(&self.claude_home.join(kind.home_folder().unwrap_or_default())) {
                sids.entry(name).or_default();
            }
        }
        for sid in self.debug_log_ids() {
            sids.entry(sid).or_default();
        }
        sids.extend(self.todos.keys().map(|sid| (sid.clone(), Vec::new())));
        sids.extend(
            self.jobs.iter().filter(|(_, n)| !n.active).map(|(sid, _)| (sid.clone(), Vec::new())),
        );
        for project in fs::read_dir(self.claude_home.join("projects")).into_iter().flatten() {
            let Ok(project) = project else { continue };
            for name in names_in(&project.path()) {
                let folder = project.path().join(&name);
                if fs::symlink_metadata(&folder).is_ok_and(|m| m.is_dir()) {
                    sids.entry(name).or_default().push(folder);
                }
            }
        }
        let quiet_since = now.checked_sub(ORPHAN_QUIET).unwrap_or(SystemTime::UNIX_EPOCH);
        let mut out: Vec<Orphaned> = sids
            .into_iter()
            .filter(|(sid, _)| crate::paths::is_uuid(sid) && !has_transcript(sid))
            .filter(|(sid, _)| self.jobs.get(sid).is_none_or(|n| !n.active))
            .filter_map(|(sid, folders)| {
                let mut places: Vec<_> =
                    folders.into_iter().map(|f| (Leftover::SessionFolder, f)).collect();
                places.extend(self.keyed(&sid));
                let measured = measure(places);
                let newest = measured.iter().filter_map(|(_, t)| *t).max();
                if measured.is_empty() || newest.is_none_or(|t| t > quiet_since) {
                    return None;
                }
                let items: Vec<LeftoverItem> = measured.into_iter().map(|(i, _)| i).collect();
                let bytes = items.iter().map(|i| i.bytes).sum();
                Some(Orphaned { session_id: sid, items, bytes })
            })
            .collect();
        out.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.session_id.cmp(&b.session_id)));
        out
    }
}

/// What a session that no longer exists left behind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Orphaned {
    /// The session id its leftovers are keyed by.
    pub session_id: String,
    /// Its leftovers.
    pub items: Vec<LeftoverItem>,
    /// Their bytes together.
    #[ts(type = "number")]
    pub bytes: u64,
}

/// How long a session's leftovers must be untouched before they count as a gone session's.
const ORPHAN_QUIET: Duration = Duration::from_secs(24 * 60 * 60);

/// The kinds that are a folder named by the session id in a folder of the home.
const KEYED_FOLDERS: [Leftover; 4] =
    [Leftover::SessionEnv, Leftover::FileHistory, Leftover::Tasks, Leftover::Uploads];

/// The names in folder `dir` (none when it cannot be read), names that are no UTF-8 left out.
fn names_in(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .collect()
}

/// Each place that exists, with its size and when it last changed.
fn measure(places: Vec<(Leftover, PathBuf)>) -> Vec<(LeftoverItem, Option<SystemTime>)> {
    places
        .into_iter()
        .filter_map(|(kind, path)| {
            let size = crate::moving::tree_size(&path).ok()?;
            let item = LeftoverItem { kind, path: path.display().to_string(), bytes: size.bytes };
            Some((item, size.newest))
        })
        .collect()
}

/// What a delete never removes, said in its preview.
pub const NOT_REMOVED: &[&str] = &[
    "the session's lines in history.jsonl (Claude Code appends to that file all the time; no \
     tool should rewrite it)",
    "the desktop app's sidebar entries for it while the app is running (quit it first and they \
     go too)",
];
