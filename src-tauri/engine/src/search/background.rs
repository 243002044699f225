//! Keeping the index up to date in the background: one thread that runs an update whenever one
//! is asked for (requests that arrive during an update make exactly one more), reporting each
//! step through a plain callback (the app forwards it to the window).

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use ts_rs::TS;

use super::{IndexProgress, SearchIndex, UpdateOptions};
use crate::catalog::Catalog;

/// How long a background update waits for another process's (then it retries later).
const WAIT_FOR_WRITER: Duration = Duration::from_millis(500);
/// A request waits this long for more (a burst of file events is one update, and the listing a
/// window asks for right after an event is not raced).
const SETTLE: Duration = Duration::from_millis(250);
/// When another process holds the writer, the update is tried again after this long.
const RETRY_BUSY: Duration = Duration::from_secs(5);

/// What the background indexer is doing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct IndexStatus {
    /// An update is running.
    pub building: bool,
    /// Sessions done and to do in the running update.
    #[ts(type = "number")]
    pub done: u64,
    /// Sessions the running update has to do in all.
    #[ts(type = "number")]
    pub total: u64,
    /// Sessions the last commit covers.
    #[ts(type = "number")]
    pub indexed: u64,
    /// Another Corral is updating the index (this one answers from its last commit).
    pub busy: bool,
    /// Why the last update failed.
    pub error: Option<String>,
}

type OnStatus = Arc<dyn Fn(&IndexStatus) + Send + Sync>;

/// The background indexer of one search index. Dropping it lets the thread end after the update
/// that is running, if any (without waiting for it: a settings change never blocks on a build).
pub struct Indexer {
    requests: Sender<Arc<Catalog>>,
    status: Arc<Mutex<IndexStatus>>,
}

impl Indexer {
    /// Starts the thread; `on_status` hears every change of status.
    pub fn start(
        index: Arc<SearchIndex>,
        on_status: impl Fn(&IndexStatus) + Send + Sync + 'static,
    ) -> Self {
        let (tx, rx) = mpsc::channel();
        let status = Arc::new(Mutex::new(IndexStatus {
            indexed: index.indexed_sessions(),
            ..IndexStatus::default()
        }));
        let shared = status.clone();
        let on_status: OnStatus = Arc::new(on_status);
        // A thread that cannot be started leaves the index as it was (searches still answer).
        let _ = std::thread::Builder::new()
            .name("corral-search-index".into())
            .spawn(move || run(&index, &rx, &shared, &on_status));
        Self { requests: tx, status }
    }

    /// Asks for an update of the sessions `catalog` lists (coalesced with others pending).
    pub fn request(&self, catalog: Arc<Catalog>) {
        let _ = self.requests.send(catalog);
    }

    /// The indexer status now.
    pub fn status(&self) -> IndexStatus {
        self.status.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

fn run(
    index: &SearchIndex,
    rx: &Receiver<Arc<Catalog>>,
    status: &Mutex<IndexStatus>,
    on_status: &OnStatus,
) {
    let set = |change: &dyn Fn(&mut IndexStatus)| {
        let now = match status.lock() {
            Ok(mut s) => {
                change(&mut s);
                s.clone()
            }
            Err(_) => return,
        };
        on_status(&now);
    };
    let mut retry: Option<Arc<Catalog>> = None;
    loop {
        let next = match retry.take() {
            Some(c) => match rx.recv_timeout(RETRY_BUSY) {
                Ok(newer) => newer,
                Err(RecvTimeoutError::Timeout) => c,
                Err(RecvTimeoutError::Disconnected) => return,
            },
            None => match rx.recv() {
                Ok(c) => c,
                Err(_) => return,
            },
        };
        // Requests that arrive until things settle are one update (with the newest catalog).
        let mut catalog = next;
        loop {
            match rx.recv_timeout(SETTLE) {
                Ok(newer) => catalog = newer,
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
        set(&|s| {
            s.building = true;
            s.done = 0;
            s.total = 0;
        });
        let result = index.update(
            &catalog,
            UpdateOptions { wait: WAIT_FOR_WRITER, ..UpdateOptions::default() },
            &mut |p: IndexProgress| {
                set(&|s| {
                    s.done = p.done;
                    s.total = p.total;
                });
            },
        );
        let indexed = index.indexed_sessions();
        match result {
            Ok(report) => {
                if report.busy {
                    retry = Some(catalog);
                }
                set(&|s| {
                    s.building = false;
                    s.busy = report.busy;
                    s.indexed = indexed;
                    s.error = None;
                });
            }
            Err(e) => set(&|s| {
                s.building = false;
                s.indexed = indexed;
                s.error = Some(e.to_string());
            }),
        }
    }
}
