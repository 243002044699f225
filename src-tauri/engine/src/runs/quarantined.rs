//! Undoing a delete: each item a deleted session left behind is put back from the run's
//! quarantine folder to the one place its kind allows, never replacing what is there now.
//!
//! What undo trusts: the Claude home and state dir it is pointed at, the run's quarantine folder
//! (`<data dir>/quarantine/<run id>/`, reached without following a link) and the journal's
//! names inside it (`<n>/<name>`, two plain components). A journaled place is used only when it
//! has exactly the shape its kind has in the home undo is pointed at (a transcript
//! `projects/<folder>/<sid>.jsonl`, `session-env/<sid>`, …) with no link on the way — so a
//! journal edited to name `/etc/passwd` or a folder reached through a link moves nothing.
//!
//! Putting back is a merge ([`crate::moving::merge_back`]): what is missing goes back, what is
//! there with the same bytes is dropped from the quarantine, and what differs (Claude Code wrote
//! the session again after the delete) stays in the quarantine and is reported.

use std::fs;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::journal::{EntryState, JournalEntry};

/// What a session left behind, each kind in one place of the Claude home or the state dir.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum Leftover {
    /// The transcript: `projects/<folder>/<sid>.jsonl`.
    Transcript,
    /// Its folder beside it, `projects/<folder>/<sid>/`: subagent runs, tool results, Claude
    /// Code's title sidecar.
    SessionFolder,
    /// `session-env/<sid>/`: the environment its hooks set up.
    SessionEnv,
    /// `file-history/<sid>/`: copies of the files it edited, for rewinding.
    FileHistory,
    /// `tasks/<sid>/`: its task list.
    Tasks,
    /// `todos/<sid>-*.json`: its to-do lists (older clients).
    Todos,
    /// `debug/<sid>.txt`: its debug log.
    DebugLog,
    /// `uploads/<sid>/`: files attached to it.
    Uploads,
    /// `jobs/<id>/`: a background job record (Agent View) that names it.
    AgentViewJob,
    /// Corral's (herdctl-compatible) adoption record of it in the state dir.
    AdoptionRecord,
    /// `<store>/<account>/<org>/local_<id>.json`: an entry of the desktop app's sidebar that
    /// shows it (moved only while the app is closed).
    DesktopEntry,
}

impl Leftover {
    /// The folder of the Claude home this kind lives in (`None`: the state dir's).
    pub fn home_folder(self) -> Option<&'static str> {
        Some(match self {
            Self::Transcript | Self::SessionFolder => "projects",
            Self::SessionEnv => "session-env",
            Self::FileHistory => "file-history",
            Self::Tasks => "tasks",
            Self::Todos => "todos",
            Self::DebugLog => "debug",
            Self::Uploads => "uploads",
            Self::AgentViewJob => "jobs",
            Self::AdoptionRecord | Self::DesktopEntry => return None,
        })
    }

    /// Whether `name` is what this kind is called for session `sid`.
    fn named_for(self, name: &str, sid: &str) -> bool {
        match self {
            Self::Transcript => name.strip_suffix(".jsonl") == Some(sid),
            Self::SessionFolder
            | Self::SessionEnv
            | Self::FileHistory
            | Self::Tasks
            | Self::Uploads => name == sid,
            Self::Todos => name.starts_with(&format!("{sid}-")) && name.ends_with(".json"),
            Self::DebugLog => name.strip_suffix(".txt") == Some(sid),
            Self::AgentViewJob => !name.starts_with('.'),
            Self::AdoptionRecord => true,
            Self::DesktopEntry => name.starts_with("local_") && name.ends_with(".json"),
        }
    }

    /// Where an item of this kind for `sid` may be put back: `path` itself when it has this
    /// kind's shape under `claude_home` (or `state_dir`, or the desktop app's `desktop_store`)
    /// and no link lies on the way.
    pub fn checked_place(
        self,
        path: &Path,
        sid: &str,
        claude_home: &Path,
        (state_dir, desktop_store): (&Path, Option<&Path>),
    ) -> Result<PathBuf, String> {
        crate::paths::validate_session_id(sid).map_err(|e| e.to_string())?;
        if !path.is_absolute() || path.components().any(|c| !plain_or_root(c)) {
            return Err("the journal names it by a path that is not plain and absolute".into());
        }
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !self.named_for(name, sid) {
            return Err(format!("it is not named as a {self:?} of session {sid} is"));
        }
        if self == Self::DesktopEntry {
            // `<store>/<account>/<org>/local_<id>.json`, in the store undo was pointed at.
            let store = desktop_store.ok_or("undo was given no desktop app store")?;
            let parent = path.parent().ok_or("it has no folder")?;
            if parent.parent().and_then(Path::parent) != Some(store) {
                return Err(format!("it is not a sidebar entry of {}", store.display()));
            }
            no_link_between(store, parent)?;
            return Ok(path.to_path_buf());
        }
        let (base, parent) = match self.home_folder() {
            None => {
                let want = crate::adoption_store::record_path(state_dir, sid)
                    .map_err(|e| e.to_string())?;
                if want != path {
                    return Err(format!(
                        "it is not the adoption record's place in {}",
                        state_dir.display()
                    ));
                }
                (state_dir.to_path_buf(), want.parent().map(Path::to_path_buf))
            }
            Some(folder) => {
                let top = claude_home.join(folder);
                let parent = path.parent().map(Path::to_path_buf);
                let fits = match self {
                    Self::Transcript | Self::SessionFolder => {
                        parent.as_deref().and_then(Path::parent) == Some(top.as_path())
                    }
                    _ => parent.as_deref() == Some(top.as_path()),
                };
                if !fits {
                    return Err(format!(
                        "it is not in its place under {}, the Claude home undo was pointed at",
                        claude_home.display()
                    ));
                }
                (claude_home.to_path_buf(), parent)
            }
        };
        let parent = parent.ok_or("it has no folder")?;
        no_link_between(&base, &parent)?;
        Ok(path.to_path_buf())
    }
}

fn plain_or_root(c: Component<'_>) -> bool {
    matches!(c, Component::Normal(_) | Component::RootDir | Component::Prefix(_))
}

/// Every folder from `base` (exclusive) down to `folder` (inclusive) that exists is a real folder,
/// not a link. (Missing ones are created again by the move back, as plain folders.)
fn no_link_between(base: &Path, folder: &Path) -> Result<(), String> {
    let rel = folder.strip_prefix(base).map_err(|_| "it lies outside its store".to_owned())?;
    let mut at = base.to_path_buf();
    for part in rel.components() {
        at.push(part);
        match fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(format!("{} is a link; undo follows no link", at.display()));
            }
            Ok(m) if !m.is_dir() => return Err(format!("{} is not a folder", at.display())),
            Ok(_) => {}
            Err(_) => break,
        }
    }
    Ok(())
}

/// The item inside the run's quarantine folder that the journal names, when the name is two plain
/// components and no link lies on the way.
pub(super) fn checked_source(quarantine: &Path, entry: &JournalEntry) -> Result<PathBuf, String> {
    let rel =
        Path::new(entry.backup.as_deref().ok_or("the journal names no place in the quarantine")?);
    let parts: Vec<_> = rel.components().collect();
    if parts.len() != 2 || !parts.iter().all(|c| matches!(c, Component::Normal(_))) {
        return Err("the journal names a place outside the run's quarantine folder".into());
    }
    match fs::symlink_metadata(quarantine) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(format!("{} is not a folder", quarantine.display())),
        Err(_) => return Ok(quarantine.join(rel)),
    }
    if let Some(first) = parts.first() {
        let slot = quarantine.join(first);
        if fs::symlink_metadata(&slot).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(format!("{} is a link; undo follows no link", slot.display()));
        }
    }
    Ok(quarantine.join(rel))
}

/// What undo does with one quarantined item.
#[derive(Debug)]
pub(super) enum QuarantineStep {
    /// Merge the quarantined item back into its place.
    PutBack {
        from: PathBuf,
        to: PathBuf,
    },
    /// Remove an incomplete copy a crashed move across filesystems left in the quarantine (its
    /// source was never removed).
    RemovePartial(PathBuf),
    /// Already back (or never moved).
    Nothing(PathBuf),
    Refuse(PathBuf, String),
}

/// Everything deciding a delete's items needs.
pub(super) struct QuarantineUndo<'a> {
    pub claude_home: &'a Path,
    pub state_dir: &'a Path,
    /// The desktop app's store, for its sidebar entries.
    pub desktop_store: Option<&'a Path>,
    /// `<data dir>/quarantine/<run id>`.
    pub quarantine: &'a Path,
    /// When the run's quarantine went to the system's trash.
    pub emptied_at: Option<&'a str>,
}

impl QuarantineUndo<'_> {
    /// The steps for one entry: its put-back (or why not), and the removal of an incomplete copy.
    pub fn steps(&self, entry: &JournalEntry) -> Vec<QuarantineStep> {
        let path = PathBuf::from(&entry.path);
        let Some(kind) = entry.leftover else {
            return vec![QuarantineStep::Refuse(path, "the journal says not what it is".into())];
        };
        let place = match kind.checked_place(
            &path,
            &entry.session_id,
            self.claude_home,
            (self.state_dir, self.desktop_store),
        ) {
            Ok(p) => p,
            Err(why) => {
                return vec![QuarantineStep::Refuse(path, format!("{why}; not touched"))];
            }
        };
        let from = match checked_source(self.quarantine, entry) {
            Ok(f) => f,
            Err(why) => return vec![QuarantineStep::Refuse(path, format!("{why}; not touched"))],
        };
        let mut steps = Vec::new();
        let partial = crate::moving::leftover_temp(&from);
        if fs::symlink_metadata(&partial).is_ok() && fs::symlink_metadata(&place).is_ok() {
            steps.push(QuarantineStep::RemovePartial(partial));
        }
        let in_quarantine = fs::symlink_metadata(&from).is_ok();
        let in_place = fs::symlink_metadata(&place).is_ok();
        steps.push(match (in_quarantine, in_place) {
            (true, _) => QuarantineStep::PutBack { from, to: place },
            (false, true) => QuarantineStep::Nothing(place),
            (false, false) if entry.state == EntryState::Intended && self.emptied_at.is_none() => {
                // Journaled, never moved, and gone from its place by other hands.
                QuarantineStep::Nothing(place)
            }
            (false, false) => QuarantineStep::Refuse(
                place,
                match self.emptied_at {
                    Some(when) => format!(
                        "the quarantine was emptied into the system's trash on {when}; \
                         restore it from there"
                    ),
                    None => format!("it is neither in its place nor at {}", from.display()),
                },
            ),
        });
        steps
    }
}

impl QuarantineStep {
    /// The path the step is about.
    pub fn path(&self) -> &Path {
        match self {
            Self::PutBack { to, .. } => to,
            Self::RemovePartial(p) | Self::Nothing(p) | Self::Refuse(p, _) => p,
        }
    }

    /// Carries the step out; an error says why, and that nothing was lost.
    pub fn apply(self) -> Result<(), String> {
        match self {
            Self::PutBack { from, to } => {
                if let Some(parent) = to.parent() {
                    fs::create_dir_all(parent)
                        .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
                }
                let kept = crate::moving::merge_back(&from, &to)
                    .map_err(|e| format!("cannot put it back: {e}; it stays in the quarantine"))?;
                crate::fault::fault_point("undo: an item put back from the quarantine");
                if let Some(first) = kept.first() {
                    return Err(format!(
                        "{} differ{} from what is there now (written after the delete); the \
                         quarantined cop{} kept at {}",
                        if kept.len() == 1 { "it" } else { "parts of it" },
                        if kept.len() == 1 { "s" } else { "" },
                        if kept.len() == 1 { "y is" } else { "ies are" },
                        first.display()
                    ));
                }
                // The emptied `<n>/` slot goes too.
                if let Some(slot) = from.parent() {
                    let _ = fs::remove_dir(slot);
                }
                Ok(())
            }
            Self::RemovePartial(p) => crate::moving::remove_partial(&p)
                .map_err(|e| format!("cannot remove the incomplete copy: {e}")),
            Self::Nothing(_) | Self::Refuse(..) => Ok(()),
        }
    }
}
