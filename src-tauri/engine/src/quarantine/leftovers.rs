//! What a session leaves behind in the Claude home and the state dir, found without following a
//! link, each with its size.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

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
        }
    }

    /// What Claude Code's background job record that names `sid` says, if one does.
    pub fn agent_view_job(&self, sid: &str) -> Option<&JobNote> {
        self.jobs.get(sid)
    }

    /// Everything session `sid`, whose transcript is `transcript`, left behind and is still there:
    /// the transcript first (once it is gone the session is gone for Claude Code), the adoption
    /// record last.
    pub fn of(&self, sid: &str, transcript: &Path) -> Vec<LeftoverItem> {
        let home = &self.claude_home;
        let mut places = vec![(Leftover::Transcript, transcript.to_path_buf())];
        if let Some(folder) = transcript.parent() {
            places.push((Leftover::SessionFolder, folder.join(sid)));
        }
        for (kind, dir) in [
            (Leftover::SessionEnv, "session-env"),
            (Leftover::FileHistory, "file-history"),
            (Leftover::Tasks, "tasks"),
            (Leftover::Uploads, "uploads"),
        ] {
            places.push((kind, home.join(dir).join(sid)));
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
            .into_iter()
            .filter_map(|(kind, path)| {
                let size = crate::moving::tree_size(&path).ok()?;
                Some(LeftoverItem { kind, path: path.display().to_string(), bytes: size.bytes })
            })
            .collect()
    }
}

/// What a delete never removes, said in its preview.
pub const NOT_REMOVED: &[&str] = &[
    "the session's lines in history.jsonl (Claude Code appends to that file all the time; no \
     tool should rewrite it)",
    "names other tools keep for it in herdctl's metadata (they name a session that is gone)",
    "the desktop app's sidebar entries for it",
];
