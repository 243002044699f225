//! Subagent transcripts of a session: `<sid>/subagents/agent-*.jsonl` (2.1.x, with optional
//! `agent-*.meta.json` sidecars and `subagents/workflows/<run>/agent-*.jsonl`) and flat
//! `agent-*.jsonl` files carrying the parent's session id (2.0.x).
//!
//! CONTRACT (owned by the transcript developer).

use std::collections::{HashMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;

use super::Loose;
use crate::jsonl::{self, LineReader, Parsed};
use crate::model::SubagentInfo;

/// How much of a flat `agent-*.jsonl` is read to find the parent session id.
const FLAT_HEAD_BYTES: u64 = 64 * 1024;
/// How many lines of a flat agent file are looked at for a `sessionId`.
const FLAT_HEAD_LINES: usize = 16;
/// Meta sidecars larger than this are ignored.
const META_MAX_BYTES: u64 = 64 * 1024;

/// True for ids made of ASCII letters, digits and `-` (what Claude Code writes; no path tricks).
pub fn valid_agent_id(agent_id: &str) -> bool {
    !agent_id.is_empty()
        && agent_id.len() <= 128
        && agent_id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// `agent-<id>.jsonl` → `<id>` when the id is valid.
fn agent_id_of(file_name: &str) -> Option<&str> {
    let id = file_name.strip_prefix("agent-")?.strip_suffix(".jsonl")?;
    valid_agent_id(id).then_some(id)
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct MetaRef<'a> {
    #[serde(default, borrow)]
    agent_type: Loose<'a>,
    #[serde(default, borrow)]
    description: Loose<'a>,
}

fn read_meta(path: &Path) -> (Option<String>, Option<String>) {
    let Ok(file) = crate::files::open_regular(path) else { return (None, None) };
    let mut bytes = Vec::new();
    if file.take(META_MAX_BYTES).read_to_end(&mut bytes).is_err() {
        return (None, None);
    }
    let mut scratch = Vec::new();
    match jsonl::parse_line_with::<MetaRef<'_>>(&bytes, &mut scratch) {
        Parsed::Value(m) => {
            (m.agent_type.as_str().map(str::to_owned), m.description.as_str().map(str::to_owned))
        }
        _ => (None, None),
    }
}

/// Whether the run at `path` is a fork subagent's, as its sidecar (`agent-<id>.meta.json`)
/// says: it began with a copy of the main conversation (see [`super::forks`]).
pub fn is_fork(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(OsStr::to_str) else { return false };
    let Some(id) = agent_id_of(name) else { return false };
    read_meta(&path.with_file_name(format!("agent-{id}.meta.json"))).0.as_deref() == Some("fork")
}

fn info(agent_id: &str, path: &Path, with_meta: bool) -> SubagentInfo {
    let (agent_type, description) = if with_meta {
        read_meta(&path.with_file_name(format!("agent-{agent_id}.meta.json")))
    } else {
        (None, None)
    };
    SubagentInfo {
        agent_id: agent_id.to_owned(),
        transcript_path: path.display().to_string(),
        agent_type,
        description,
        size_bytes: std::fs::metadata(path).map_or(0, |m| m.len()),
    }
}

/// `agent-*.jsonl` regular files directly in `dir` (or symbolic links to one: a linked
/// placement across devices), sorted by name.
fn agent_files(dir: &Path, lookups: &dyn Lookups) -> Vec<(String, PathBuf)> {
    lookups.entries(dir).map(|e| e.agent_files(dir)).unwrap_or_default()
}

/// What one read of a folder says to subagent discovery.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Entries {
    /// Ids of its `agent-<id>.jsonl` regular files (or links to one), sorted.
    pub agents: Vec<String>,
    /// Names of the entries that may be folders (folders, and links, which may point at one).
    pub maybe_folders: HashSet<OsString>,
    /// Names of its real sub-folders, sorted (a `workflows` folder's runs).
    pub folders: Vec<OsString>,
}

impl Entries {
    /// Reads `dir`; `None` when it cannot be read.
    pub fn read(dir: &Path) -> Option<Self> {
        let entries = std::fs::read_dir(dir).ok()?;
        let mut out = Self::default();
        for e in entries.flatten() {
            let Ok(t) = e.file_type() else { continue };
            let is_file = if t.is_symlink() {
                out.maybe_folders.insert(e.file_name());
                std::fs::metadata(e.path()).is_ok_and(|m| m.is_file())
            } else if t.is_dir() {
                out.maybe_folders.insert(e.file_name());
                out.folders.push(e.file_name());
                false
            } else {
                t.is_file()
            };
            let name = e.file_name();
            if is_file && let Some(id) = name.to_str().and_then(agent_id_of) {
                out.agents.push(id.to_owned());
            }
        }
        out.agents.sort();
        out.folders.sort();
        Some(out)
    }

    /// `(agent id, path)` of its agent files, sorted.
    fn agent_files(&self, dir: &Path) -> AgentFiles {
        self.agents.iter().map(|id| (id.clone(), dir.join(format!("agent-{id}.jsonl")))).collect()
    }
}

/// `(agent id, path)` of agent transcripts, sorted.
type AgentFiles = Vec<(String, PathBuf)>;

/// What subagent discovery reads from disk: folders' entries and the session a flat agent file
/// names. [`Disk`] reads them each time; a cache may remember them while their folders and
/// files are unchanged (the search index keeps one: it looks at every session at once).
pub trait Lookups: Sync {
    /// The entries of folder `dir`, or `None` when it cannot be read.
    fn entries(&self, dir: &Path) -> Option<Arc<Entries>>;
    /// The session id the flat agent file at `path` names in its first line.
    fn head_session_id(&self, path: &Path) -> Option<String>;
}

/// Every lookup read from disk.
#[derive(Debug, Clone, Copy, Default)]
pub struct Disk;

impl Lookups for Disk {
    fn entries(&self, dir: &Path) -> Option<Arc<Entries>> {
        Entries::read(dir).map(Arc::new)
    }

    fn head_session_id(&self, path: &Path) -> Option<String> {
        head_session_id(path)
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SessionProbe<'a> {
    #[serde(default, borrow)]
    session_id: Loose<'a>,
}

/// The `sessionId` recorded in the first lines of `path` (flat agent files carry the parent's).
pub fn head_session_id(path: &Path) -> Option<String> {
    let file = crate::files::open_regular(path).ok()?;
    let mut reader = LineReader::new(BufReader::new(file.take(FLAT_HEAD_BYTES)), 0);
    let mut scratch = Vec::new();
    for _ in 0..FLAT_HEAD_LINES {
        let line = reader.next_line().ok()??;
        if let Parsed::Value(p) =
            jsonl::parse_line_with::<SessionProbe<'_>>(line.bytes, &mut scratch)
            && let Some(s) = p.session_id.as_str()
        {
            return Some(s.to_owned());
        }
    }
    None
}

/// The flat `agent-*.jsonl` files of one folder (2.0.x layout), by the session id their first
/// lines carry: each file's head is read once for the whole folder. The same read says which
/// sessions have a folder of their own (`<sid>/`), so those without one cost no further look.
#[derive(Debug, Default)]
pub struct FlatAgents {
    by_session: HashMap<String, Vec<(String, PathBuf)>>,
    /// The folder's entries (which of them may be folders); `None` when unknown (every session
    /// is looked at).
    entries: Option<Arc<Entries>>,
}

impl FlatAgents {
    /// The flat agent files of folder `dir`, by the session each names.
    pub fn of_folder(dir: &Path) -> Self {
        Self::of_folder_with(dir, &Disk)
    }

    /// The same, through `lookups`.
    pub fn of_folder_with(dir: &Path, lookups: &dyn Lookups) -> Self {
        let Some(entries) = lookups.entries(dir) else { return Self::default() };
        let mut by_session: HashMap<String, Vec<(String, PathBuf)>> = HashMap::new();
        for (id, path) in entries.agent_files(dir) {
            if let Some(sid) = lookups.head_session_id(&path) {
                by_session.entry(sid).or_default().push((id, path));
            }
        }
        Self { by_session, entries: Some(entries) }
    }

    /// Whether `<folder>/<session_id>/` may exist.
    fn may_have_folder(&self, session_id: &str) -> bool {
        self.entries.as_ref().is_none_or(|e| e.maybe_folders.contains(OsStr::new(session_id)))
    }
}

/// One subagent transcript of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubagentFile {
    /// The subagent id.
    pub agent_id: String,
    /// Its transcript.
    pub path: PathBuf,
    /// In `<sid>/subagents/` (2.1.x, may have a meta sidecar), not flat beside the transcript.
    pub nested: bool,
}

/// The subagent transcripts of the session whose main transcript is `transcript`: nested ones
/// first (`<dir>/<sid>/subagents/`, then its `workflows/<run>/` folders), then the flat ones of
/// `flat` (the transcript's folder's). An agent id is listed once; no sidecar is read.
pub fn subagent_files(transcript: &Path, session_id: &str, flat: &FlatAgents) -> Vec<SubagentFile> {
    subagent_files_with(transcript, session_id, flat, &Disk)
}

/// The same, through `lookups`.
pub fn subagent_files_with(
    transcript: &Path,
    session_id: &str,
    flat: &FlatAgents,
    lookups: &dyn Lookups,
) -> Vec<SubagentFile> {
    let Some(dir) = transcript.parent() else { return Vec::new() };
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut push = |id: String, path: PathBuf, nested: bool, out: &mut Vec<SubagentFile>| {
        if path != transcript && seen.insert(id.clone()) {
            out.push(SubagentFile { agent_id: id, path, nested });
        }
    };
    if crate::paths::validate_session_id(session_id).is_ok() && flat.may_have_folder(session_id) {
        let nested = dir.join(session_id).join("subagents");
        if let Some(entries) = lookups.entries(&nested) {
            for (id, path) in entries.agent_files(&nested) {
                push(id, path, true, &mut out);
            }
            let workflows = nested.join("workflows");
            if entries.maybe_folders.contains(OsStr::new("workflows"))
                && let Some(runs) = lookups.entries(&workflows)
            {
                for run in &runs.folders {
                    for (id, path) in agent_files(&workflows.join(run), lookups) {
                        push(id, path, true, &mut out);
                    }
                }
            }
        }
    }
    for (id, path) in flat.by_session.get(session_id).into_iter().flatten() {
        push(id.clone(), path.clone(), false, &mut out);
    }
    out
}

/// Lists the subagents of the session whose main transcript is `transcript` (see
/// [`subagent_files`]), with what their meta sidecars say.
pub fn list_subagents(transcript: &Path, session_id: &str) -> Vec<SubagentInfo> {
    let Some(dir) = transcript.parent() else { return Vec::new() };
    subagent_files(transcript, session_id, &FlatAgents::of_folder(dir))
        .into_iter()
        .map(|f| info(&f.agent_id, &f.path, f.nested))
        .collect()
}

/// Subagent `agent_id` of session `session_id`, if its transcript exists. Rejects ids that are
/// not `[A-Za-z0-9-]+` (no path traversal).
pub fn subagent(transcript: &Path, session_id: &str, agent_id: &str) -> Option<SubagentInfo> {
    if !valid_agent_id(agent_id) {
        return None;
    }
    list_subagents(transcript, session_id).into_iter().find(|s| s.agent_id == agent_id)
}

/// The transcript file of subagent `agent_id` of session `session_id` (see [`subagent`]).
pub fn subagent_path(transcript: &Path, session_id: &str, agent_id: &str) -> Option<PathBuf> {
    subagent(transcript, session_id, agent_id).map(|s| PathBuf::from(s.transcript_path))
}
