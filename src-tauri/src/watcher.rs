//! Live updates: one `notify` watcher over `<claude home>/projects` and the herdctl state dir,
//! debounced, reporting which transcript folders changed.
//!
//! The watcher thread blocks on a channel between events (no polling: idle CPU is zero). A watched
//! folder that does not exist yet is covered by a non-recursive watch on its nearest existing
//! ancestor; when it appears, the watches are re-armed on the folder itself.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode, ModifyKind};
use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};

/// Quiet time that ends a burst of events.
pub const DEBOUNCE: Duration = Duration::from_millis(250);
/// Longest a continuous burst (a transcript being streamed) is held back before reporting.
const MAX_HOLD: Duration = Duration::from_millis(1000);

/// What one debounced burst changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// Transcript folders (`<projects>/<encoded folder>`) that changed.
    pub folders: BTreeSet<PathBuf>,
    /// The state dir changed (names, adoptions, jobs): every listing may differ.
    pub state_changed: bool,
    /// A watched root appeared, vanished or changed as a whole: drop everything.
    pub everything: bool,
}

impl Changes {
    pub fn is_empty(&self) -> bool {
        self.folders.is_empty() && !self.state_changed && !self.everything
    }
}

/// A running watcher; dropping it stops the thread (without waiting for it).
#[derive(Debug)]
pub struct FolderWatcher {
    tx: Sender<Msg>,
}

enum Msg {
    Fs(notify::Result<Event>),
    Stop,
}

impl Drop for FolderWatcher {
    fn drop(&mut self) {
        let _ = self.tx.send(Msg::Stop);
    }
}

impl FolderWatcher {
    /// Starts watching `projects` (transcript folders) and `state_dir`; `on_change` runs on the
    /// watcher thread once per debounced burst.
    pub fn start(
        projects: PathBuf,
        state_dir: PathBuf,
        on_change: impl Fn(Changes) + Send + 'static,
    ) -> std::io::Result<Self> {
        let (tx, rx) = mpsc::channel::<Msg>();
        let fs_tx = tx.clone();
        std::thread::Builder::new().name("corral-watcher".into()).spawn(move || {
            let roots = Roots { projects, state_dir };
            let mut armed = roots.arm(&fs_tx);
            loop {
                let Ok(first) = rx.recv() else { return };
                let mut batch = Vec::new();
                match first {
                    Msg::Stop => return,
                    Msg::Fs(ev) => batch.push(ev),
                }
                let started = Instant::now();
                loop {
                    let left = MAX_HOLD.saturating_sub(started.elapsed());
                    if left.is_zero() {
                        break;
                    }
                    match rx.recv_timeout(DEBOUNCE.min(left)) {
                        Ok(Msg::Fs(ev)) => batch.push(ev),
                        Ok(Msg::Stop) | Err(RecvTimeoutError::Disconnected) => return,
                        Err(RecvTimeoutError::Timeout) => break,
                    }
                }
                let mut changes = roots.classify(&batch);
                if armed.needs_rearm() {
                    armed = roots.arm(&fs_tx);
                    changes.everything = true;
                }
                if !changes.is_empty() {
                    on_change(changes);
                }
            }
        })?;
        Ok(Self { tx })
    }
}

struct Roots {
    projects: PathBuf,
    state_dir: PathBuf,
}

/// The live `notify` watcher and the roots it could only watch through an ancestor.
struct Armed {
    _watcher: Option<RecommendedWatcher>,
    /// Roots that were missing when armed, with the ancestor watched in their place.
    missing: Vec<(PathBuf, Option<PathBuf>)>,
    /// Roots watched directly (re-arm when one disappears).
    present: Vec<PathBuf>,
}

impl Armed {
    /// A missing root appeared (or a nearer ancestor of it did), or a watched root vanished.
    fn needs_rearm(&self) -> bool {
        self.missing
            .iter()
            .any(|(root, ancestor)| root.is_dir() || nearest_existing_ancestor(root) != *ancestor)
            || self.present.iter().any(|p| !p.is_dir())
    }
}

impl Roots {
    fn arm(&self, tx: &Sender<Msg>) -> Armed {
        let tx = tx.clone();
        let handler = move |res: notify::Result<Event>| {
            let _ = tx.send(Msg::Fs(res));
        };
        let mut armed = Armed { _watcher: None, missing: Vec::new(), present: Vec::new() };
        let Ok(mut watcher) = notify::recommended_watcher(handler) else {
            return armed;
        };
        let mut watched_ancestors = BTreeSet::new();
        for root in [&self.projects, &self.state_dir] {
            if root.is_dir() {
                if watcher.watch(root, RecursiveMode::Recursive).is_ok() {
                    armed.present.push(root.clone());
                }
            } else {
                let ancestor = nearest_existing_ancestor(root);
                if let Some(dir) = &ancestor
                    && watched_ancestors.insert(dir.clone())
                {
                    let _ = watcher.watch(dir, RecursiveMode::NonRecursive);
                }
                armed.missing.push((root.clone(), ancestor));
            }
        }
        armed._watcher = Some(watcher);
        armed
    }

    fn classify(&self, batch: &[notify::Result<Event>]) -> Changes {
        let mut changes = Changes::default();
        for ev in batch {
            match ev {
                // The kernel dropped events (queue overflow) or the watch failed: rescan all.
                Err(_) => changes.everything = true,
                Ok(ev) if ev.need_rescan() => changes.everything = true,
                Ok(ev) if !is_content_change(ev.kind) => {}
                Ok(ev) => {
                    for path in &ev.paths {
                        self.classify_path(path, &mut changes);
                    }
                }
            }
        }
        changes
    }

    fn classify_path(&self, path: &Path, changes: &mut Changes) {
        if let Ok(rel) = path.strip_prefix(&self.projects) {
            match rel.components().next() {
                Some(first) => {
                    changes.folders.insert(self.projects.join(first));
                }
                None => changes.everything = true,
            }
        } else if path.starts_with(&self.state_dir) {
            changes.state_changed = true;
        }
    }
}

/// Reads (open, close-without-write, access-time updates) are not changes: without this filter the
/// engine re-reading a transcript after an event would trigger the next event.
fn is_content_change(kind: EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write))
        | EventKind::Any
        | EventKind::Create(_)
        | EventKind::Remove(_) => true,
        EventKind::Modify(modify) => !matches!(modify, ModifyKind::Metadata(_)),
        EventKind::Access(_) | EventKind::Other => false,
    }
}

fn nearest_existing_ancestor(path: &Path) -> Option<PathBuf> {
    path.ancestors().skip(1).find(|p| p.is_dir()).map(Path::to_path_buf)
}
