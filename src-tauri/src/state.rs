//! The shell's managed state: the open catalog, the settings in force, and the watcher.
//!
//! `AppState` is a cheap handle (an `Arc`), so commands clone it into blocking tasks. The catalog
//! sits behind an `RwLock` and is swapped whole when the settings change; readers clone the
//! `Arc<Catalog>` out and never hold the lock while working.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::Duration;

use corral_engine::{Catalog, CatalogConfig, Error, ErrorKind, ErrorPayload, ScanObserver};

use crate::events::SessionsChanged;
use crate::settings::{self, Effective, LaunchEnv, SavedSettings, Settings, SettingsPatch};
use corral_engine::search::{IndexStatus, Indexer, SearchIndex};
use corral_engine::watch::{Changes, FolderWatcher, WatchOptions};

/// Longest a settings change waits for the new watcher's watches.
const ARM_WAIT: Duration = Duration::from_secs(5);

/// Sends `sessions-changed` to the UI (set once the app exists).
pub type Notifier = Arc<dyn Fn(SessionsChanged) + Send + Sync>;

/// Sends `search-status` to the UI (set once the app exists).
pub type StatusNotifier = Arc<dyn Fn(&IndexStatus) + Send + Sync>;

/// Opens a folder in the platform file manager (replaced in tests).
pub type Opener = Arc<dyn Fn(&Path) -> std::io::Result<()> + Send + Sync>;

#[derive(Clone)]
pub struct AppState(Arc<Shared>);

struct Shared {
    env: LaunchEnv,
    opened: RwLock<Opened>,
    /// Serializes settings changes (open, save, swap, re-arm).
    saved: Mutex<SavedSettings>,
    watcher: Mutex<Option<FolderWatcher>>,
    notifier: Mutex<Option<Notifier>>,
    opener: Opener,
    /// Set by `cancel_run`; checked by an import between files and a desktop restore between entries.
    run_cancel: Arc<AtomicBool>,
    search: Mutex<Option<Search>>,
    search_notifier: Mutex<Option<StatusNotifier>>,
    /// Told how far a catalog's full pass has read (installed on every catalog opened).
    scan_notifier: Mutex<Option<ScanObserver>>,
    /// The background indexer has been started once (after the first listing).
    index_started: AtomicBool,
}

/// The search index of the data dir in force, and its background indexer.
struct Search {
    data_dir: PathBuf,
    index: Result<Arc<SearchIndex>, ErrorPayload>,
    indexer: Option<Indexer>,
}

struct Opened {
    effective: Effective,
    catalog: Result<Arc<Catalog>, ErrorPayload>,
    /// The configured fleet could not be loaded; the catalog was opened without it.
    fleet_error: Option<ErrorPayload>,
}

/// Maps any engine error to what crosses IPC.
pub fn payload(e: &Error) -> ErrorPayload {
    e.payload()
}

pub fn invalid(message: impl Into<String>) -> ErrorPayload {
    ErrorPayload { kind: ErrorKind::InvalidInput, message: message.into() }
}

impl AppState {
    /// Resolves the settings (environment › saved file › defaults) and opens the catalog. Never
    /// fails: problems surface through the commands (a broken fleet through `list_agents`).
    pub fn launch(env: LaunchEnv, opener: Opener) -> Self {
        let saved = env
            .settings_file
            .as_deref()
            .map(settings::load)
            .transpose()
            .ok()
            .flatten()
            .unwrap_or_default();
        let opened = match Effective::at_launch(&env, &saved) {
            Ok(effective) => open_lenient(effective),
            Err(e) => Opened {
                effective: Effective {
                    claude_home: PathBuf::new(),
                    fleet_file: None,
                    data_dir: PathBuf::new(),
                    desktop_store: None,
                    terminal: saved.terminal.clone(),
                    notify_waiting: saved.notify_waiting,
                    reopen_remote_control: saved.reopen_remote_control,
                    empty_quarantine_after_days: saved.empty_quarantine_after_days,
                },
                catalog: Err(e.payload()),
                fleet_error: None,
            },
        };
        Self(Arc::new(Shared {
            env,
            opened: RwLock::new(opened),
            saved: Mutex::new(saved),
            watcher: Mutex::new(None),
            notifier: Mutex::new(None),
            opener,
            run_cancel: Arc::new(AtomicBool::new(false)),
            search: Mutex::new(None),
            search_notifier: Mutex::new(None),
            scan_notifier: Mutex::new(None),
            index_started: AtomicBool::new(false),
        }))
    }

    pub fn catalog(&self) -> Result<Arc<Catalog>, ErrorPayload> {
        let opened = self.0.opened.read().map_err(|_| poisoned())?;
        opened.catalog.clone()
    }

    /// The catalog for fleet views: fails with the fleet's load error when it could not be read.
    pub fn fleet_catalog(&self) -> Result<Arc<Catalog>, ErrorPayload> {
        let opened = self.0.opened.read().map_err(|_| poisoned())?;
        if let Some(e) = &opened.fleet_error {
            return Err(e.clone());
        }
        opened.catalog.clone()
    }

    pub fn settings(&self) -> Result<Settings, ErrorPayload> {
        let described = {
            let opened = self.0.opened.read().map_err(|_| poisoned())?;
            describe(&opened, &self.0.env)
        };
        Ok(self.with_live_updates_note(described))
    }

    /// `settings` with the watcher's state added. Called with no lock on `opened` held: the
    /// watcher's lock is taken before `opened` elsewhere (`restart_watcher`).
    fn with_live_updates_note(&self, mut settings: Settings) -> Settings {
        settings.live_updates_note = self.live_updates_note();
        settings
    }

    /// Set when live updates are degraded (the system refused native file watches).
    fn live_updates_note(&self) -> Option<String> {
        let polling = self.0.watcher.lock().ok()?.as_ref()?.is_polling();
        polling.then(|| {
            format!(
                "Live updates check for changes every {} s: the system refused more file watches \
                 (on Linux, raise fs.inotify.max_user_watches / max_user_instances).",
                corral_engine::watch::POLL_INTERVAL.as_secs()
            )
        })
    }

    /// The terminal chosen in Settings (`None`: automatic).
    pub fn terminal(&self) -> Result<Option<String>, ErrorPayload> {
        Ok(self.0.opened.read().map_err(|_| poisoned())?.effective.terminal.clone())
    }

    /// Whether "Reopen recent work" turns Remote Control on.
    pub fn reopen_remote_control(&self) -> Result<bool, ErrorPayload> {
        Ok(self.0.opened.read().map_err(|_| poisoned())?.effective.reopen_remote_control)
    }

    /// The desktop app's store in force (`None`: this platform has none and none was chosen).
    pub fn desktop_store(&self) -> Result<Option<PathBuf>, ErrorPayload> {
        Ok(self.0.opened.read().map_err(|_| poisoned())?.effective.desktop_store.clone())
    }

    pub fn opener(&self) -> Opener {
        self.0.opener.clone()
    }

    pub fn run_cancel(&self) -> Arc<AtomicBool> {
        self.0.run_cancel.clone()
    }

    /// Applies a settings change: the new catalog is opened first, then the settings file is
    /// saved, and only then does the change take effect. Any failure leaves everything as it was.
    pub fn update(&self, patch: &SettingsPatch) -> Result<Settings, ErrorPayload> {
        let mut saved = self.0.saved.lock().map_err(|_| poisoned())?;
        let current = self.0.opened.read().map_err(|_| poisoned())?.effective.clone();
        let next = patch.apply(&self.0.env, &current)?;
        // A preference alone keeps the catalog (and its watcher and index) as they are.
        let catalog = if patch.touches_paths() { Some(open_catalog(&next)?) } else { None };
        if let Some(c) = &catalog {
            c.set_scan_observer(self.0.scan_notifier.lock().ok().and_then(|n| n.clone()));
        }
        let mut next_saved = saved.clone();
        if let Some(file) = &self.0.env.settings_file {
            // Another Corral window may have saved since this one loaded: under the folder lock,
            // the patch is applied to what is on disk now (a file that cannot be read is never
            // replaced by a guess: this window's copy stands in, as at start-up).
            let dir = file.parent().unwrap_or_else(|| std::path::Path::new("."));
            let _one_writer = corral_engine::files::lock_folder(dir)?;
            if let Ok(on_disk) = settings::load(file) {
                next_saved = on_disk;
            }
            patch.save_into(&mut next_saved);
            settings::save(file, &next_saved)?;
        } else {
            patch.save_into(&mut next_saved);
        }
        *saved = next_saved;
        let described = {
            let mut opened = self.0.opened.write().map_err(|_| poisoned())?;
            match catalog {
                Some(c) => {
                    *opened =
                        Opened { effective: next, catalog: Ok(Arc::new(c)), fleet_error: None }
                }
                None => opened.effective = next,
            }
            describe(&opened, &self.0.env)
        };
        drop(saved);
        if patch.empty_quarantine_after_days.is_some() {
            let state = self.clone();
            let _ = std::thread::Builder::new()
                .name("empty-quarantine".into())
                .spawn(move || state.empty_expired_quarantine());
        }
        if !patch.touches_paths() {
            return Ok(self.with_live_updates_note(described));
        }
        // The new home is watched before this returns: a change right after it is reported.
        self.restart_watcher(ARM_WAIT);
        self.request_index();
        Ok(self.with_live_updates_note(described))
    }

    /// Installs the UI notifier (once the app exists) and starts watching.
    pub fn set_notifier(&self, notifier: Notifier) {
        if let Ok(mut slot) = self.0.notifier.lock() {
            *slot = Some(notifier);
        }
    }

    /// (Re)starts the watcher on the folders of the settings in force, waiting at most `wait` for
    /// its watches to be in place.
    pub fn restart_watcher(&self, wait: Duration) {
        let Ok(mut slot) = self.0.watcher.lock() else { return };
        *slot = None; // stops the old watcher first
        let Ok(catalog) = self.catalog() else { return };
        let projects = corral_engine::paths::projects_dir(catalog.claude_home());
        let state_dir = catalog.state_dir().to_path_buf();
        let weak = Arc::downgrade(&self.0);
        let roots = (projects.clone(), state_dir.clone());
        *slot = FolderWatcher::start(projects, state_dir, wait, watch_options(), move |changes| {
            on_change(&weak, &roots.0, &roots.1, &changes);
        })
        .ok();
    }

    /// Installs who is told how far a listing's full pass has read, on the catalog in force and
    /// every catalog opened later.
    pub fn set_scan_notifier(&self, notifier: ScanObserver) {
        if let Ok(mut slot) = self.0.scan_notifier.lock() {
            *slot = Some(notifier.clone());
        }
        if let Ok(catalog) = self.catalog() {
            catalog.set_scan_observer(Some(notifier));
        }
    }

    /// Installs the notifier of the background indexer's status.
    pub fn set_search_notifier(&self, notifier: StatusNotifier) {
        if let Ok(mut slot) = self.0.search_notifier.lock() {
            *slot = Some(notifier);
        }
    }

    /// The search index of the data dir in force (opened, with its indexer, on first use and
    /// again when the data dir changes).
    pub fn search_index(&self) -> Result<Arc<SearchIndex>, ErrorPayload> {
        let catalog = self.catalog()?;
        let mut slot = self.0.search.lock().map_err(|_| poisoned())?;
        let data_dir = catalog.data_dir().to_path_buf();
        if slot.as_ref().is_none_or(|s| s.data_dir != data_dir) {
            *slot = None; // the old indexer stops first
            let index = SearchIndex::open(&data_dir).map(Arc::new).map_err(|e| e.payload());
            let weak = Arc::downgrade(&self.0);
            let indexer = index.as_ref().ok().map(|i| {
                Indexer::start(i.clone(), move |status: &IndexStatus| {
                    let Some(shared) = weak.upgrade() else { return };
                    let notify = shared.search_notifier.lock().ok().and_then(|n| n.clone());
                    if let Some(notify) = notify {
                        notify(status);
                    }
                })
            });
            *slot = Some(Search { data_dir, index, indexer });
        }
        slot.as_ref().map_or_else(|| Err(poisoned()), |s| s.index.clone())
    }

    /// Lists the Claude home now, on a thread of its own, while the window loads: its first
    /// requests find the listing made or under way. The search index is brought up to date behind
    /// the first listing the window receives ([`AppState::listing_served`]), or after `fallback`
    /// when no window asks: reading every transcript for the index must not compete with the
    /// first paint on a small machine.
    pub fn start_first_listing(&self, fallback: Duration) {
        let state = self.clone();
        let started = std::thread::Builder::new().name("first-listing".into()).spawn(move || {
            if let Ok(catalog) = state.catalog() {
                let _ = catalog.listed_sessions();
            }
            state.empty_expired_quarantine();
            std::thread::sleep(fallback);
            state.listing_served();
        });
        if started.is_err() {
            self.listing_served();
        }
    }

    /// When automatic emptying is on, sends the quarantine's runs older than its age to the
    /// system's trash (a trash that refuses keeps them; the Quarantine view still lists them).
    pub fn empty_expired_quarantine(&self) {
        let Ok(opened) = self.0.opened.read() else { return };
        let Some(days) = opened.effective.empty_quarantine_after_days else { return };
        let data_dir = opened.effective.data_dir.clone();
        drop(opened);
        let _ = corral_engine::quarantine::empty_older_than(
            &data_dir,
            days,
            &corral_engine::quarantine::SystemTrash,
            chrono::Utc::now(),
        );
    }

    /// The window has its first listing: the background indexer starts (once; later changes ask
    /// for updates through [`AppState::request_index`]).
    pub fn listing_served(&self) {
        if !self.0.index_started.swap(true, Ordering::SeqCst) {
            self.request_index();
        }
    }

    /// Asks the background indexer to bring the index up to date with the catalog in force.
    pub fn request_index(&self) {
        let (Ok(catalog), Ok(_)) = (self.catalog(), self.search_index()) else { return };
        if let Ok(slot) = self.0.search.lock()
            && let Some(indexer) = slot.as_ref().and_then(|s| s.indexer.as_ref())
        {
            indexer.request(catalog);
        }
    }

    /// What the background indexer is doing (an index that could not be opened says why).
    pub fn search_status(&self) -> Result<IndexStatus, ErrorPayload> {
        self.search_index()?;
        let slot = self.0.search.lock().map_err(|_| poisoned())?;
        Ok(slot.as_ref().and_then(|s| s.indexer.as_ref()).map(Indexer::status).unwrap_or_default())
    }

    /// True while a watcher is running (tests).
    pub fn is_watching(&self) -> bool {
        self.0.watcher.lock().is_ok_and(|w| w.is_some())
    }
}

fn on_change(weak: &Weak<Shared>, projects: &Path, state_dir: &Path, changes: &Changes) {
    let Some(shared) = weak.upgrade() else { return };
    let state = AppState(shared);
    let folders: Vec<PathBuf> = changes.folders.iter().cloned().collect();
    if let Ok(catalog) = state.catalog() {
        if changes.everything || changes.state_changed {
            catalog.invalidate(&[]);
        } else {
            catalog.invalidate(&folders);
        }
    }
    let mut names: Vec<String> = folders.iter().map(|f| f.display().to_string()).collect();
    if changes.everything {
        names.push(projects.display().to_string());
    }
    if changes.state_changed || changes.everything {
        names.push(state_dir.display().to_string());
    }
    let notifier = state.0.notifier.lock().ok().and_then(|n| n.clone());
    if let Some(notify) = notifier {
        notify(SessionsChanged { folders: names });
    }
    state.request_index();
}

fn config_for(effective: &Effective) -> CatalogConfig {
    CatalogConfig {
        claude_home: effective.claude_home.clone(),
        fleet_file: effective.fleet_file.clone(),
        state_dir: None,
        data_dir: effective.data_dir.clone(),
    }
}

/// Opens the catalog of `effective`, knowing `~/.claude` is `claude`'s default home (resume
/// commands for sessions elsewhere name theirs).
fn open_catalog(effective: &Effective) -> corral_engine::Result<Catalog> {
    Catalog::open(config_for(effective))
        .map(|c| c.with_default_claude_home(corral_engine::paths::default_claude_home()))
}

/// Opens the catalog; a fleet that cannot be loaded is remembered and the catalog opened without
/// it, so All Chats still works while the Fleet view shows the error.
fn open_lenient(effective: Effective) -> Opened {
    match open_catalog(&effective) {
        Ok(c) => Opened { effective, catalog: Ok(Arc::new(c)), fleet_error: None },
        Err(fleet_err) => {
            let without = Effective { fleet_file: None, ..effective.clone() };
            let catalog = open_catalog(&without).map(Arc::new).map_err(ErrorPayload::from);
            Opened { effective, catalog, fleet_error: Some(fleet_err.payload()) }
        }
    }
}

fn describe(opened: &Opened, env: &LaunchEnv) -> Settings {
    let e = &opened.effective;
    let state_dir = match &opened.catalog {
        Ok(c) => c.state_dir().to_path_buf(),
        Err(_) => e.data_dir.join("state"),
    };
    Settings {
        claude_home: e.claude_home.display().to_string(),
        claude_home_exists: e.claude_home.is_dir(),
        fleet_file: e.fleet_file.as_ref().map(|f| f.display().to_string()),
        state_dir: state_dir.display().to_string(),
        data_dir: e.data_dir.display().to_string(),
        home_dir: env.home_dir.as_ref().map(|h| h.display().to_string()),
        live_updates_note: None,
        desktop_store: e.desktop_store.as_ref().map(|d| d.display().to_string()),
        terminal: e.terminal.clone(),
        terminals: corral_engine::resume::installed_terminals(env.path.as_deref()),
        notify_waiting: e.notify_waiting,
        notifications_note: env.no_session_bus.then(|| {
            "There is no desktop session bus (D-Bus) here, so Corral cannot raise notifications."
                .to_owned()
        }),
        reopen_remote_control: e.reopen_remote_control,
        empty_quarantine_after_days: e.empty_quarantine_after_days,
    }
}

fn poisoned() -> ErrorPayload {
    ErrorPayload { kind: ErrorKind::Io, message: "internal state is unavailable".into() }
}

/// How the app's watcher is set up: the defaults, except in tests that ask for the polling path.
fn watch_options() -> WatchOptions {
    #[cfg(test)]
    return WatchOptions { refuse_native: REFUSE_NATIVE.with(std::cell::Cell::get) };
    #[cfg(not(test))]
    WatchOptions::default()
}

#[cfg(test)]
thread_local! {
    /// Tests: the app's watchers started on this thread poll as if native watches were refused.
    pub static REFUSE_NATIVE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}
