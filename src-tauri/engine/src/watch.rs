//! Live updates: one `notify` watcher over `<claude home>/projects` and the herdctl state dir,
//! debounced, reporting which transcript folders changed.
//!
//! The watcher thread blocks on a channel between events (no polling: idle CPU is zero). A watched
//! folder that does not exist yet is covered by a non-recursive watch on its nearest existing
//! ancestor; when it appears, the watches are re-armed on the folder itself. Arming checks again
//! after the watches are in place, so a folder created while they were being set up is not missed.
//! If the system refuses the native watcher or one of its watches (inotify instances or watches
//! exhausted on a huge home), Corral falls back to polling: the files are compared every few
//! seconds, so live updates go on (a little later) instead of silently stopping.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode, ModifyKind};
use notify::{Event, EventKind, RecursiveMode, Watcher};

/// Quiet time that ends a burst of events.
pub const DEBOUNCE: Duration = Duration::from_millis(250);
/// Longest a continuous burst (a transcript being streamed) is held back before reporting.
const MAX_HOLD: Duration = Duration::from_millis(1000);
/// How often a watcher the system refused is tried again.
const RETRY: Duration = Duration::from_secs(3);
/// How often the polling fallback compares the files.
pub const POLL_INTERVAL: Duration = Duration::from_secs(3);
/// Re-arming rounds in a row before settling (folders appearing faster than they can be watched).
const ARM_ROUNDS: usize = 8;

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
    /// Nothing changed.
    pub fn is_empty(&self) -> bool {
        self.folders.is_empty() && !self.state_changed && !self.everything
    }
}

/// A running watcher; dropping it stops the thread (without waiting for it).
#[derive(Debug)]
pub struct FolderWatcher {
    tx: Sender<Msg>,
    polling: Arc<AtomicBool>,
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
    /// watcher thread once per debounced burst. Returns once the watches are in place (or after
    /// `wait_armed`, whichever is sooner): a change made after this returns is reported.
    pub fn start(
        projects: PathBuf,
        state_dir: PathBuf,
        wait_armed: Duration,
        options: WatchOptions,
        on_change: impl Fn(Changes) + Send + 'static,
    ) -> std::io::Result<Self> {
        let (tx, rx) = mpsc::channel::<Msg>();
        let (armed_tx, armed_rx) = mpsc::channel::<()>();
        let fs_tx = tx.clone();
        let polling = Arc::new(AtomicBool::new(false));
        let polling_flag = polling.clone();
        let roots = Roots::new(projects, state_dir, options);
        std::thread::Builder::new().name("corral-watcher".into()).spawn(move || {
            let mut armed = roots.arm_settled(&fs_tx);
            polling_flag.store(armed.polling, Ordering::Relaxed);
            let _ = armed_tx.send(());
            loop {
                let first = match armed.retry_after() {
                    None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
                    Some(wait) => rx.recv_timeout(wait),
                };
                let mut batch = Vec::new();
                match first {
                    Ok(Msg::Stop) | Err(RecvTimeoutError::Disconnected) => return,
                    Ok(Msg::Fs(ev)) => batch.push(ev),
                    Err(RecvTimeoutError::Timeout) => {}
                }
                let started = Instant::now();
                while !batch.is_empty() {
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
                let mut changes = roots.classify(&batch, armed.polling);
                if armed.needs_rearm() {
                    let was_refused = armed.refused;
                    armed = roots.arm_settled(&fs_tx);
                    polling_flag.store(armed.polling, Ordering::Relaxed);
                    // Still refused: nothing new to report (the last report said everything).
                    changes.everything |= !(was_refused && armed.refused);
                }
                if !changes.is_empty() {
                    on_change(changes);
                }
            }
        })?;
        let _ = armed_rx.recv_timeout(wait_armed);
        Ok(Self { tx, polling })
    }

    /// True when the system refused native file watches and the files are polled instead.
    pub fn is_polling(&self) -> bool {
        self.polling.load(Ordering::Relaxed)
    }
}

/// How a watcher is set up.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WatchOptions {
    /// Act as if the system refused every native watch and poll from the start (what happens on
    /// a home past the inotify limits; tests use it to take that path on any machine).
    pub refuse_native: bool,
}

struct Roots {
    projects: PathBuf,
    state_dir: PathBuf,
    /// Runs after a missing root's ancestor is chosen and before it is watched (tests: the
    /// moment a folder can appear unseen).
    #[cfg(test)]
    before_watch: Option<Box<dyn Fn() + Send>>,
    /// Behave as if the system refused every native watch ([`WatchOptions::refuse_native`]).
    refuse_native: bool,
}

/// The live `notify` watcher and the roots it could only watch through an ancestor.
struct Armed {
    _watcher: Option<Box<dyn Watcher + Send>>,
    /// Polling instead of native events (the system refused the native watcher).
    polling: bool,
    /// The system refused the watcher or one of its watches: try again after `RETRY`.
    refused: bool,
    /// Roots that were missing when armed, with the ancestor watched in their place.
    missing: Vec<(PathBuf, Option<PathBuf>)>,
    /// Roots watched directly (re-arm when one disappears).
    present: Vec<PathBuf>,
}

impl Armed {
    /// Nothing watched yet.
    fn unarmed(polling: bool) -> Self {
        Self { _watcher: None, polling, refused: false, missing: Vec::new(), present: Vec::new() }
    }

    /// A missing root appeared (or a nearer ancestor of it did), a watched root vanished, or the
    /// system refused a watch last time.
    fn needs_rearm(&self) -> bool {
        self.refused
            || self.missing.iter().any(|(root, ancestor)| {
                root.is_dir() || nearest_existing_ancestor(root) != *ancestor
            })
            || self.present.iter().any(|p| !p.is_dir())
    }

    /// How long to wait for events before trying again (`None`: wait for events only).
    fn retry_after(&self) -> Option<Duration> {
        self.refused.then_some(RETRY)
    }
}

impl Roots {
    fn new(projects: PathBuf, state_dir: PathBuf, options: WatchOptions) -> Self {
        Self {
            projects,
            state_dir,
            #[cfg(test)]
            before_watch: None,
            refuse_native: options.refuse_native,
        }
    }

    /// Arms, then checks that nothing appeared or vanished while the watches were being set up
    /// (a change before a watch exists produces no event); re-arms until it holds still.
    fn arm_settled(&self, tx: &Sender<Msg>) -> Armed {
        let mut armed = self.arm(tx);
        for _ in 1..ARM_ROUNDS {
            if armed.refused || !armed.needs_rearm() {
                break;
            }
            armed = self.arm(tx);
        }
        armed
    }

    /// Arms native watches; if the system refuses any of them, polls instead.
    fn arm(&self, tx: &Sender<Msg>) -> Armed {
        if !self.refuse_native {
            let native = notify::recommended_watcher(handler(tx))
                .map(|w| Box::new(w) as Box<dyn Watcher + Send>);
            if let Ok(watcher) = native {
                let armed = self.arm_with(watcher, false);
                if !armed.refused {
                    return armed;
                }
            }
        }
        let config = notify::Config::default()
            .with_poll_interval(POLL_INTERVAL)
            .with_compare_contents(false);
        match notify::PollWatcher::new(handler(tx), config) {
            Ok(w) => self.arm_with(Box::new(w), true),
            Err(_) => Armed { refused: true, ..Armed::unarmed(false) },
        }
    }

    fn arm_with(&self, mut watcher: Box<dyn Watcher + Send>, polling: bool) -> Armed {
        let mut armed = Armed::unarmed(polling);
        let mut watched_ancestors = BTreeSet::new();
        for root in [&self.projects, &self.state_dir] {
            if root.is_dir() {
                match watcher.watch(root, RecursiveMode::Recursive) {
                    Ok(()) => armed.present.push(root.clone()),
                    // Vanished between the check and the watch: watch its ancestor next round.
                    Err(_) if !root.is_dir() => armed.missing.push((root.clone(), None)),
                    Err(_) => armed.refused = true,
                }
            } else {
                let ancestor = nearest_existing_ancestor(root);
                #[cfg(test)]
                if let Some(hook) = &self.before_watch {
                    hook();
                }
                if let Some(dir) = &ancestor
                    && watched_ancestors.insert(dir.clone())
                    && watcher.watch(dir, RecursiveMode::NonRecursive).is_err()
                    && dir.is_dir()
                {
                    armed.refused = true;
                }
                armed.missing.push((root.clone(), ancestor));
            }
        }
        armed._watcher = Some(watcher);
        armed
    }

    /// `polling`: the events come from comparing files, where a changed write time is how a
    /// content change shows (and reads are never reported).
    fn classify(&self, batch: &[notify::Result<Event>], polling: bool) -> Changes {
        let mut changes = Changes::default();
        for ev in batch {
            match ev {
                // The kernel dropped events (queue overflow) or the watch failed: rescan all.
                Err(_) => changes.everything = true,
                Ok(ev) if ev.need_rescan() => changes.everything = true,
                Ok(ev) if !polling && !is_content_change(ev.kind) => {}
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

/// Forwards `notify` events to the watcher thread.
fn handler(tx: &Sender<Msg>) -> impl Fn(notify::Result<Event>) + Send + 'static {
    let tx = tx.clone();
    move |res| {
        let _ = tx.send(Msg::Fs(res));
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

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "test set-up")]
mod tests {
    use super::*;

    /// The projects folder appears after the watcher decided to watch its parent but before that
    /// watch exists: no event will ever come for it, so arming must notice on its own.
    #[test]
    fn a_root_created_while_arming_is_watched() {
        let tmp = tempfile::tempdir().unwrap();
        let projects = tmp.path().join("claude/projects");
        std::fs::create_dir_all(tmp.path().join("claude")).unwrap();
        let state_dir = tmp.path().join("claude/projects"); // one root keeps the test simple
        let mut roots = Roots::new(projects.clone(), state_dir, WatchOptions::default());
        let to_create = projects.clone();
        roots.before_watch = Some(Box::new(move || {
            let _ = std::fs::create_dir(&to_create);
        }));
        let (tx, _rx) = mpsc::channel();
        let armed = roots.arm_settled(&tx);
        assert!(armed.present.contains(&projects), "projects is not watched: {:?}", armed.missing);
        assert!(armed.missing.is_empty());
        assert!(!armed.needs_rearm());
    }
}
