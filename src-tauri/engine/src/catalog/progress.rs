//! A full pass as it goes: when a pass has many transcripts to read (a first start, a home
//! whose index was lost), what its folder walk found is published before the reading starts,
//! and each transcript's facts replace its stand-in as its file is read. A window paints the
//! listing so far ([`Catalog::listing_so_far`]) and the progress
//! ([`Catalog::set_scan_observer`]) instead of waiting for the last file.

use std::sync::RwLock;
use std::sync::atomic::{AtomicU64, Ordering};

use super::*;

/// How far the full pass under way has read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ScanProgress {
    /// Transcripts read so far.
    #[ts(type = "number")]
    pub read: u64,
    /// Transcripts this pass reads (the others were known from the listing index).
    #[ts(type = "number")]
    pub to_read: u64,
    /// Bytes read so far.
    #[ts(type = "number")]
    pub bytes_read: u64,
    /// Bytes this pass reads.
    #[ts(type = "number")]
    pub bytes_to_read: u64,
}

/// The listing as far as the pass under way knows it: sessions whose files are not read yet are
/// listed with `pending` set (their id, folder, size and time; no title, no counts).
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ListingSoFar {
    /// Grouped and sorted as [`Catalog::all_sessions`] does, on what is known.
    pub listing: Listing,
    /// The fleet's agents as [`Catalog::agents`] counts them, on what is known (every session
    /// found is counted for the agent its records name; empty with no fleet).
    pub agents: Vec<AgentSummary>,
    /// How far the pass has read.
    pub progress: ScanProgress,
}

/// Told how far a published pass has read: after its first transcript, its last, and at most
/// every 100 ms between (on a reading thread: keep it short).
pub type ScanObserver = Arc<dyn Fn(&ScanProgress) + Send + Sync>;

/// Least time between two progress reports of a pass (its first and last are always told).
const TELL_EVERY: Duration = Duration::from_millis(100);

/// A pass publishes what it has found only when it reads at least this many transcripts or
/// bytes: below that it ends before a window could paint anything sooner.
const PUBLISH_FROM_FILES: usize = 50;
const PUBLISH_FROM_BYTES: u64 = 16 * 1024 * 1024;

/// The full pass under way, as far as it has read.
#[derive(Debug)]
pub(crate) struct Provisional {
    /// The pass with the walk's transcripts: those known from the index, then one stand-in per
    /// transcript to read (in the order the walk gave them).
    scan: Scan,
    /// Where the stand-ins start in `scan.transcripts`.
    first_pending: usize,
    progress: ScanProgress,
}

/// The observer slot of a catalog.
#[derive(Default)]
pub(crate) struct ObserverSlot(RwLock<Option<ScanObserver>>);

impl std::fmt::Debug for ObserverSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ObserverSlot")
    }
}

/// What a pass publishes while it reads: where to record each transcript read, and whom to tell.
pub(super) struct Publishing<'a> {
    slot: &'a Mutex<Option<Provisional>>,
    observer: Option<ScanObserver>,
    started: Instant,
    /// When the observer was last told, in ms since `started`.
    told_at: AtomicU64,
}

impl Publishing<'_> {
    /// Records the `i`-th transcript to read (in the walk's order), read now: its stand-in
    /// is replaced (`None`: it vanished or could not be read, and stays a stand-in until the
    /// pass ends), and the observer is told.
    pub(super) fn record(&self, i: usize, bytes: u64, found: Option<FoundTranscript>) {
        let progress = {
            let Ok(mut slot) = self.slot.lock() else { return };
            let Some(p) = slot.as_mut() else { return };
            if let Some(found) = found
                && let Some(t) = p.scan.transcripts.get_mut(p.first_pending + i)
            {
                *t = found;
            }
            p.progress.read += 1;
            p.progress.bytes_read += bytes;
            p.progress
        };
        let Some(observer) = &self.observer else { return };
        let first_or_last = progress.read == 1 || progress.read == progress.to_read;
        let now = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let told = self.told_at.load(Ordering::Relaxed);
        let every = u64::try_from(TELL_EVERY.as_millis()).unwrap_or(u64::MAX);
        let due = now >= told.saturating_add(every)
            && self
                .told_at
                .compare_exchange(told, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok();
        if first_or_last || due {
            observer(&progress);
        }
    }
}

impl Catalog {
    /// Sets who is told how far a published pass has read (a window's progress line; see
    /// [`ScanObserver`]); replaces any earlier observer.
    pub fn set_scan_observer(&self, observer: Option<ScanObserver>) {
        if let Ok(mut slot) = self.observer.0.write() {
            *slot = observer;
        }
    }

    /// How far the full pass under way has read (`None` when no pass with much to read is
    /// under way).
    pub fn scan_progress(&self) -> Option<ScanProgress> {
        self.provisional.lock().ok()?.as_ref().map(|p| p.progress)
    }

    /// The listing as far as the full pass under way knows it, while that pass reads many
    /// transcripts (`None` otherwise: ask [`Catalog::all_sessions`]). Never waits for the pass.
    pub fn listing_so_far(&self, opts: ListOptions) -> Option<ListingSoFar> {
        let (scan, progress) = {
            let slot = self.provisional.lock().ok()?;
            let p = slot.as_ref()?;
            (p.scan.copy(), p.progress)
        };
        // On a pool of its own: the shared one is busy reading until the pass ends, and work
        // queued there would wait for that.
        let own = rayon::ThreadPoolBuilder::new().num_threads(1).build().ok()?;
        let (listing, agents) =
            own.install(|| (self.listing_of(&scan, opts), self.agents_of(&scan)));
        Some(ListingSoFar { listing, agents, progress })
    }

    /// Publishes what a full pass's walk found, when it has much to read (`bytes_to_read` in
    /// all): `base` is the pass without its transcripts (attribution, names, warnings so far),
    /// `found` what the walk knew from the index, and `stand_ins` one per transcript to read
    /// (with [`stand_in_facts`]). Below the bound nothing is copied.
    pub(super) fn publish(
        &self,
        base: &Scan,
        found: &[FoundTranscript],
        stand_ins: impl ExactSizeIterator<Item = FoundTranscript>,
        bytes_to_read: u64,
    ) -> Option<Publishing<'_>> {
        let to_read = stand_ins.len();
        if to_read < PUBLISH_FROM_FILES && bytes_to_read < PUBLISH_FROM_BYTES {
            return None;
        }
        let mut scan = base.copy();
        scan.transcripts.reserve(found.len() + to_read);
        scan.transcripts.extend_from_slice(found);
        let first_pending = scan.transcripts.len();
        scan.transcripts.extend(stand_ins.map(|t| FoundTranscript { pending: true, ..t }));
        let progress =
            ScanProgress { read: 0, to_read: to_read as u64, bytes_read: 0, bytes_to_read };
        *self.provisional.lock().ok()? = Some(Provisional { scan, first_pending, progress });
        let observer = self.observer.0.read().ok().and_then(|o| o.clone());
        Some(Publishing {
            slot: &self.provisional,
            observer,
            started: Instant::now(),
            told_at: AtomicU64::new(0),
        })
    }

    /// The pass under way ended: nothing is published any more.
    pub(super) fn unpublish(&self) {
        if let Ok(mut slot) = self.provisional.lock() {
            *slot = None;
        }
    }
}

impl Scan {
    /// A new pass with this one's contents (its made-once listings are made again when asked).
    pub(super) fn copy(&self) -> Scan {
        Scan {
            stamped_at: self.stamped_at,
            transcripts: self.transcripts.clone(),
            attribution: self.attribution.clone(),
            custom_names: self.custom_names.clone(),
            custom_name_times: self.custom_name_times.clone(),
            warnings: self.warnings.clone(),
            listed: OnceLock::new(),
            leaves: OnceLock::new(),
        }
    }
}

/// The facts of a transcript not read yet: a session (it has a message) that is not a
/// subagent's, with nothing else known.
pub(super) fn stand_in_facts() -> Arc<TranscriptFacts> {
    static FACTS: OnceLock<Arc<TranscriptFacts>> = OnceLock::new();
    Arc::clone(
        FACTS
            .get_or_init(|| Arc::new(TranscriptFacts { has_messages: true, ..Default::default() })),
    )
}
