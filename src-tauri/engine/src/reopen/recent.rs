//! Which work is recent: one row per working directory with a conversation in the last N days,
//! offering that folder's newest conversation, with the folder's state now (free, occupied,
//! unknown) and the name it would have on the person's other devices.
//!
//! "Recent" is the time of a conversation's last real prompt or answer (a user or assistant
//! line that is neither meta nor a subagent's), never the file's modification time: a dying
//! Claude Code process still appends to its transcript, so after a restart or an update every
//! file carries about the same time and days-old conversations would look current. A
//! conversation with no such line is not recent.
//!
//! Left out, and named as left out: folders that are gone, the desktop app's scratch
//! workspaces, conversations not started interactively (`claude -p`, the SDKs, the desktop app:
//! their `entrypoint`), and sessions `claude --resume` cannot continue where they are.

use std::collections::BTreeMap;
use std::path::Path;

use chrono::{DateTime, Utc};
use serde::Serialize;
use ts_rs::TS;

use super::git::GitState;
use crate::model::SessionSummary;
use crate::occupancy::OccupancySnapshot;

/// How far back "recent" reaches by default, in days.
pub const DEFAULT_DAYS: u32 = 21;
/// The longest a remote-control name gets (Claude Code shows it in a sidebar).
const NAME_CHARS: usize = 40;

/// A folder's state now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum FolderState {
    /// No `claude` process is there: its conversation will start.
    Free,
    /// A process runs there (`--continue`, the picker, no flag) or resumes this conversation:
    /// skipped.
    Occupied,
    /// Whether a process is there cannot be told (the process table or a process's working
    /// directory cannot be read): skipped, since a second writer costs the conversation.
    Unknown,
}

/// One folder's recent work.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ReopenRow {
    /// The working directory.
    pub folder: String,
    /// Its newest conversation, the one offered.
    pub session_id: String,
    /// That conversation's name as a person sees it.
    pub name: String,
    /// The time of its last real prompt or answer.
    pub last_active: String,
    /// Conversations of this folder within the window (the newest is offered).
    pub conversations: u32,
    /// The folder's state now.
    pub state: FolderState,
    /// Why it is occupied or unknown.
    pub why: Option<String>,
    /// The Remote Control name it gets when that is asked for: from the folder's name, unique
    /// among the rows.
    pub remote_name: String,
    /// Whether Claude Code trusts the folder (`false`: it will ask first, and the conversation
    /// waits at that question; `None`: its settings could not be read).
    pub trusted: Option<bool>,
    /// The folder's git state, once read ([`super::git_states`]).
    pub git: Option<GitState>,
}

/// Why a folder's recent work is not offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum LeftOutReason {
    /// The folder is not there any more (deleted, or on a disk that is not mounted).
    FolderGone,
    /// A Claude desktop app scratch workspace.
    DesktopScratch,
    /// Not started interactively (`claude -p`, an SDK, the desktop app).
    NotInteractive,
    /// `claude --resume` cannot continue it where it is.
    NotResumable,
}

/// A conversation left out, with the reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct LeftOut {
    /// The working directory.
    pub folder: String,
    /// The conversation.
    pub session_id: String,
    /// Its name as a person sees it.
    pub name: String,
    /// The time of its last real prompt or answer.
    pub last_active: String,
    /// Why.
    pub reason: LeftOutReason,
    /// Why, in words.
    pub why: String,
}

/// Recent work: what can be reopened, and what was left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RecentWork {
    /// The window, in days.
    pub days: u32,
    /// Its start.
    pub since: String,
    /// One row per folder, most recently active first.
    pub rows: Vec<ReopenRow>,
    /// Conversations within the window that are not offered, most recent first (one per
    /// folder and reason).
    pub left_out: Vec<LeftOut>,
}

/// What decides which work is recent.
pub struct RecentRules<'a> {
    /// The window, in days.
    pub days: u32,
    /// Now.
    pub now: DateTime<Utc>,
    /// Offer conversations of every surface (`-p`, SDKs, the desktop app, scratch workspaces)
    /// too.
    pub every_surface: bool,
    /// The desktop app's scratch-workspaces folder, when known.
    pub scratch: Option<&'a Path>,
    /// Whether Claude Code trusts a folder (`None`: unknown).
    pub trusted: &'a dyn Fn(&str) -> Option<bool>,
}

/// The recent work among `sessions`, each folder's state from `snapshot`.
pub fn recent_work(
    sessions: &[SessionSummary],
    snapshot: &OccupancySnapshot,
    rules: &RecentRules<'_>,
) -> RecentWork {
    let since = rules.now - chrono::Duration::days(i64::from(rules.days));
    let since_ms = since.timestamp_millis();
    let mut recent: Vec<(&SessionSummary, i64)> = sessions
        .iter()
        .filter_map(|s| {
            let at = s.last_message_at.as_deref().and_then(crate::time::millis)?;
            (at >= since_ms).then_some((s, at))
        })
        .collect();
    recent.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.session_id.cmp(&b.0.session_id)));
    let mut offered: BTreeMap<&str, (usize, u32)> = BTreeMap::new();
    let mut rows: Vec<ReopenRow> = Vec::new();
    let mut left_out: Vec<LeftOut> = Vec::new();
    for (s, _) in recent {
        let folder = s.working_directory.as_str();
        if let Some(reason) = left_out_reason(s, rules) {
            let known = left_out.iter().any(|l| l.folder == folder && l.reason == reason);
            if !known {
                left_out.push(LeftOut {
                    folder: folder.to_owned(),
                    session_id: s.session_id.clone(),
                    name: s.display_name().to_owned(),
                    last_active: s.last_message_at.clone().unwrap_or_default(),
                    reason,
                    why: reason_words(reason, s),
                });
            }
            continue;
        }
        if let Some((_, count)) = offered.get_mut(folder) {
            *count += 1;
            continue;
        }
        offered.insert(folder, (rows.len(), 1));
        rows.push(row(s, snapshot, rules));
    }
    for (i, count) in offered.values() {
        if let Some(r) = rows.get_mut(*i) {
            r.conversations = *count;
        }
    }
    // A folder offered is not also named as left out (its older `-p` runs, say).
    left_out.retain(|l| !offered.contains_key(l.folder.as_str()));
    name_rows(&mut rows);
    RecentWork { days: rules.days, since: crate::time::iso(since), rows, left_out }
}

fn row(s: &SessionSummary, snapshot: &OccupancySnapshot, rules: &RecentRules<'_>) -> ReopenRow {
    let (state, why) = folder_state(s, snapshot);
    ReopenRow {
        folder: s.working_directory.clone(),
        session_id: s.session_id.clone(),
        name: s.display_name().to_owned(),
        last_active: s.last_message_at.clone().unwrap_or_default(),
        conversations: 1,
        state,
        why,
        remote_name: String::new(),
        trusted: (rules.trusted)(&s.working_directory),
        git: None,
    }
}

/// The folder's state for its newest conversation `s`: occupied by a folder-wide process there
/// or a process resuming `s`; a process there on another `--resume` id does not block (several
/// conversations of one repository may run side by side).
pub fn folder_state(
    s: &SessionSummary,
    snapshot: &OccupancySnapshot,
) -> (FolderState, Option<String>) {
    if let Some(why) = &snapshot.unknown {
        return (FolderState::Unknown, Some(why.clone()));
    }
    match snapshot.check(&s.session_id, Some(&s.working_directory), Some(&s.encoded_path)) {
        Some(why) => (FolderState::Occupied, Some(why)),
        None => (FolderState::Free, None),
    }
}

fn left_out_reason(s: &SessionSummary, rules: &RecentRules<'_>) -> Option<LeftOutReason> {
    if !s.resumable {
        return Some(LeftOutReason::NotResumable);
    }
    let wd = Path::new(&s.working_directory);
    if !crate::paths::is_absolute_cwd(&s.working_directory) || !wd.is_dir() {
        return Some(LeftOutReason::FolderGone);
    }
    if rules.every_surface {
        return None;
    }
    if rules.scratch.is_some_and(|p| crate::paths::is_same_or_inside(wd, p)) {
        return Some(LeftOutReason::DesktopScratch);
    }
    match s.entrypoint.as_deref() {
        None | Some("cli") => None,
        Some(_) => Some(LeftOutReason::NotInteractive),
    }
}

fn reason_words(reason: LeftOutReason, s: &SessionSummary) -> String {
    match reason {
        LeftOutReason::FolderGone => "its folder is not there any more".to_owned(),
        LeftOutReason::DesktopScratch => "a Claude desktop app scratch workspace".to_owned(),
        LeftOutReason::NotInteractive => {
            let how = s.entrypoint.as_deref().unwrap_or_default();
            let what = match how {
                "sdk-cli" => "claude -p".to_owned(),
                h if h.starts_with("claude-desktop") => "the Claude desktop app".to_owned(),
                h if h.starts_with("sdk") => format!("an SDK ({h})"),
                h => format!("another surface ({h})"),
            };
            format!("started by {what}, not in a terminal")
        }
        LeftOutReason::NotResumable => "claude --resume cannot continue it where it is".to_owned(),
    }
}

/// Gives each row a Remote Control name from its folder's name, unique among the rows: on a
/// clash the parent folder's name goes in front, then a number after.
fn name_rows(rows: &mut [ReopenRow]) {
    let mut taken = std::collections::BTreeSet::new();
    for r in rows.iter_mut() {
        let path = Path::new(&r.folder);
        let own = slug(path.file_name().map(|n| n.to_string_lossy()).as_deref().unwrap_or(""));
        let parent = path
            .parent()
            .and_then(Path::file_name)
            .map(|n| slug(&n.to_string_lossy()))
            .filter(|p| !p.is_empty());
        let base = if own.is_empty() { "session".to_owned() } else { own };
        let mut candidates = vec![base.clone()];
        if let Some(p) = parent {
            candidates.push(clip(&format!("{p}-{base}")));
        }
        let name = candidates.into_iter().find(|c| !taken.contains(c)).unwrap_or_else(|| {
            (2..)
                .map(|n| clip_with(&base, &format!("-{n}")))
                .find(|c| !taken.contains(c))
                .unwrap_or(base)
        });
        taken.insert(name.clone());
        r.remote_name = name;
    }
}

/// A folder name as a name word: lower-case letters and digits, other runs as one `-`.
fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    clip(out.trim_end_matches('-'))
}

fn clip(s: &str) -> String {
    clip_with(s, "")
}

fn clip_with(s: &str, tail: &str) -> String {
    let room = NAME_CHARS.saturating_sub(tail.len());
    let head: String = s.chars().take(room).collect();
    format!("{}{tail}", head.trim_end_matches('-'))
}

/// Whether Claude Code trusts `folder`, from its global settings file (`.claude.json`): the
/// folder or a folder above it has `hasTrustDialogAccepted`. `None` when the file cannot be
/// read.
pub fn trusted_in(config: Option<&serde_json::Value>, folder: &str) -> Option<bool> {
    let Some(projects) = config?.get("projects").and_then(serde_json::Value::as_object) else {
        return Some(false);
    };
    let accepted = |p: &Path| {
        projects
            .get(p.to_string_lossy().as_ref())
            .and_then(|v| v.get("hasTrustDialogAccepted"))
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false)
    };
    Some(Path::new(folder).ancestors().any(accepted))
}
