//! Discovery: one pass over the transcript folders, each validated against the persistent
//! listing index with a `stat` and scanned only where it changed (in parallel, resuming appended
//! files), then attributed; a watcher's event re-lists only the folders it names.

use super::progress::{Publishing, stand_in_facts};
use super::*;
use crate::transcript::subagents::FlatAgents;

impl Catalog {
    /// One discovery pass: every transcript with its facts, the attribution index and names.
    /// A pass made less than a moment ago is reused unless [`Catalog::invalidate`] was called.
    pub fn scan(&self) -> Result<Arc<Scan>> {
        let mut caches = self.caches.lock().map_err(|_| poisoned())?;
        let changed = caches.changed.take();
        if let Some((at, scan)) = &caches.last {
            match changed {
                None if at.elapsed() < SCAN_REUSE => return Ok(Arc::clone(scan)),
                // Only some folders changed: re-list those, keep the rest of the last pass.
                Some(folders)
                    if caches.validated_at.is_some_and(|v| v.elapsed() < PARTIAL_TRUST) =>
                {
                    let previous = Arc::clone(scan);
                    let scan = Arc::new(self.rescan_folders(&mut caches, &previous, &folders));
                    caches.last = Some((Instant::now(), Arc::clone(&scan)));
                    return Ok(scan);
                }
                _ => {}
            }
        }
        let scan = Arc::new(self.scan_now(&mut caches)?);
        let now = Instant::now();
        caches.last = Some((now, Arc::clone(&scan)));
        caches.validated_at = Some(now);
        Ok(scan)
    }

    /// The last pass with `folders` listed again (attribution and names stay: a change inside a
    /// transcript folder does not touch the state dir).
    pub(super) fn rescan_folders(
        &self,
        caches: &mut Caches,
        previous: &Scan,
        folders: &[PathBuf],
    ) -> Scan {
        let changed: HashSet<&Path> = folders.iter().map(PathBuf::as_path).collect();
        let (transcripts, mut warnings) =
            self.scan_transcripts(&mut caches.index, Some((&changed, &previous.transcripts)));
        // The last pass's warnings stand, except those of the re-listed folders and those this
        // pass gave again (an unreadable projects folder is reported by every pass).
        let kept: Vec<Warning> = previous
            .warnings
            .iter()
            .filter(|w| !changed.iter().any(|f| Path::new(&w.path).starts_with(f)))
            .filter(|w| !warnings.contains(w))
            .cloned()
            .collect();
        warnings.extend(kept);
        Scan {
            stamped_at: None,
            transcripts,
            attribution: previous.attribution.clone(),
            custom_names: previous.custom_names.clone(),
            custom_name_times: previous.custom_name_times.clone(),
            warnings,
            listed: OnceLock::new(),
            leaves: OnceLock::new(),
        }
    }

    pub(super) fn scan_now(&self, caches: &mut Caches) -> Result<Scan> {
        let Caches { index, jobs, jobs_file, jobs_loaded, .. } = caches;
        let started = Instant::now();
        // The folder walk and attribution do not depend on each other: both run at once.
        let (walked, attribution) = rayon::join(
            || self.walk_transcripts(index, None),
            || {
                load_jobs(jobs, jobs_file, jobs_loaded);
                let (attribution, mut warnings) = AttributionIndex::build(&self.state_dir, jobs);
                let stats = attribution.job_stats();
                if (stats.parsed > 0 || stats.dropped > 0)
                    && let Err(e) = crate::owned::claim_data_dir(&self.config.data_dir)
                        .and_then(|_| save_jobs(jobs, jobs_file))
                {
                    warnings.push(Warning::new(jobs_file.as_path(), e.to_string()));
                }
                (attribution, warnings)
            },
        );
        let (attribution, mut other_warnings) = attribution;
        let store = MetadataStore::new(&self.state_dir);
        let (custom_names, metadata_warnings) = store.custom_names_with_warnings();
        other_warnings.extend(metadata_warnings);
        let custom_name_times = custom_names
            .keys()
            .filter_map(|key| {
                let path = store.file_path(key).ok()?;
                Some((key.clone(), std::fs::metadata(path).ok()?.modified().ok()?))
            })
            .collect();
        let mut scan = Scan {
            stamped_at: Some(started),
            transcripts: Vec::new(),
            attribution,
            custom_names,
            custom_name_times,
            warnings: walked.warnings.iter().chain(&other_warnings).cloned().collect(),
            listed: OnceLock::new(),
            leaves: OnceLock::new(),
        };
        // With much to read, a window may paint what the walk found while the files are read.
        let bytes = walked.to_scan.iter().map(|(c, r)| to_read(c, r)).sum();
        let stand_ins = walked.to_scan.iter().map(|(c, _)| c.found_with(stand_in_facts()));
        let publishing = self.publish(&scan, &walked.found, stand_ins, bytes);
        let (transcripts, mut warnings) = read_walked(index, walked, publishing.as_ref());
        self.unpublish();
        warnings.extend(other_warnings);
        scan.transcripts = transcripts;
        scan.warnings = warnings;
        Ok(scan)
    }

    /// Every transcript with its facts: a `stat` per file validates it against the index; only
    /// what changed is read (in parallel, appended files from where they left off). With `only`,
    /// just those folders are listed; the others keep the transcripts of the given last pass.
    pub(super) fn scan_transcripts(
        &self,
        index: &mut ListingIndex,
        only: Option<(&HashSet<&Path>, &[FoundTranscript])>,
    ) -> (Vec<FoundTranscript>, Vec<Warning>) {
        let walked = self.walk_transcripts(index, only);
        read_walked(index, walked, None)
    }

    /// The walk of [`Catalog::scan_transcripts`]: every folder listed and each file `stat`ed
    /// and decided (known from the index, or to read), nothing read yet.
    pub(super) fn walk_transcripts(
        &self,
        index: &mut ListingIndex,
        only: Option<(&HashSet<&Path>, &[FoundTranscript])>,
    ) -> Walked {
        let mut warnings = Vec::new();
        let folders = self.transcript_folders(&mut warnings);
        // Every live folder keeps its shard (a folder no longer there loses it).
        let dirs: Vec<&Path> = folders.iter().map(|f| f.0.as_path()).collect();
        let pending = index.sync_folders(&dirs);
        let mut work: Vec<_> = folders.into_iter().zip(pending).collect();
        let mut kept = Vec::new();
        if let Some((changed, previous)) = only {
            // Only the changed folders are listed again; the others keep the last pass.
            let live: HashSet<PathBuf> = work.iter().map(|(f, _)| f.0.clone()).collect();
            kept = previous
                .iter()
                .filter(|t| {
                    t.path.parent().is_some_and(|d| !changed.contains(d) && live.contains(d))
                })
                .cloned()
                .collect();
            work.retain(|(f, _)| changed.contains(f.0.as_path()));
        }
        let (folders, pending): (Vec<_>, Vec<_>) = work.into_iter().unzip();
        // On every core, per folder: list and stat its files, read its index shard if it is not
        // in memory yet, and decide per file (see `FolderPass::of`).
        let known: &ListingIndex = index;
        let listed: Vec<FolderPass> = folders
            .par_iter()
            .zip(pending)
            .map(|((dir, folder, docker), pending)| {
                FolderPass::of(dir, folder, *docker, pending.map(PendingShard::read), known)
            })
            .collect();
        let mut found = kept;
        found.reserve(listed.iter().map(|p| p.found.len()).sum());
        let mut to_scan = Vec::new();
        let mut shards = Vec::new();
        for pass in listed {
            found.extend(pass.found);
            to_scan.extend(pass.to_scan);
            warnings.extend(pass.warnings);
            shards.extend(pass.shard);
        }
        index.adopt(shards);
        Walked { found, to_scan, warnings }
    }

    /// The folders that may hold transcripts: `projects/*` and, with a fleet, its docker-sessions
    /// folder, as (path, folder name, docker). Unreadable `projects` becomes a warning.
    pub(super) fn transcript_folders(
        &self,
        warnings: &mut Vec<Warning>,
    ) -> Vec<(PathBuf, String, bool)> {
        let projects = self.projects_dir();
        let mut folders: Vec<(PathBuf, String, bool)> = Vec::new();
        match fs::read_dir(&projects) {
            Ok(entries) => {
                for entry in entries.flatten() {
                    let Ok(ty) = entry.file_type() else { continue };
                    if ty.is_dir() {
                        let folder = entry.file_name().to_string_lossy().into_owned();
                        folders.push((entry.path(), folder, false));
                    } else if ty.is_symlink() && entry.path().is_dir() {
                        // One rule for listing, placement and undo: a linked transcript folder
                        // is neither listed nor written into; say so rather than hide it.
                        warnings.push(Warning::new(
                            &entry.path(),
                            "a symbolic link to a folder; its sessions are not listed (Corral \
                             neither lists nor places sessions through a linked folder)",
                        ));
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => warnings.push(Warning::new(&projects, format!("cannot list: {e}"))),
        }
        if self.fleet.is_some() {
            folders.push((self.state_dir.join("docker-sessions"), "docker:".to_owned(), true));
        }
        folders
    }
}

/// Loads the persisted job cache once; a missing or unreadable cache is rebuilt from the job
/// files, never trusted.
fn load_jobs(jobs: &mut JobCache, file: &Path, loaded: &mut bool) {
    if std::mem::replace(loaded, true) {
        return;
    }
    if let Ok(bytes) = crate::files::read_bounded(file, MAX_JOBS_CACHE_BYTES)
        && let Ok((JOBS_CACHE_FORMAT, cache)) = serde_json::from_slice::<(u32, JobCache)>(&bytes)
    {
        *jobs = cache;
    }
}

fn save_jobs(jobs: &JobCache, file: &Path) -> Result<()> {
    let bytes = serde_json::to_vec(&(JOBS_CACHE_FORMAT, jobs))
        .map_err(|e| Error::io("cannot encode the job cache", std::io::Error::other(e)))?;
    crate::atomic_write::write_atomic(file, &bytes)
}

/// Largest job cache read back (a cache: a larger one is rebuilt).
const MAX_JOBS_CACHE_BYTES: u64 = 256 * 1024 * 1024;

/// Bump when the shape of the persisted job cache changes.
const JOBS_CACHE_FORMAT: u32 = 3;

/// How long a scan may be reused without re-validating every transcript with a `stat`.
const SCAN_REUSE: Duration = Duration::from_millis(1500);
/// How long the folders a watcher did not name may be trusted without a full `stat` pass (a
/// safety net for changes a watcher missed).
const PARTIAL_TRUST: Duration = Duration::from_secs(30);

/// What one folder's share of a scan found (see `Catalog::scan_transcripts`).
#[derive(Default)]
struct FolderPass {
    found: Vec<FoundTranscript>,
    to_scan: Vec<(Candidate, Option<(u64, FactsScanner)>)>,
    warnings: Vec<Warning>,
    shard: Option<LoadedShard>,
}

impl FolderPass {
    /// Lists and stats one folder's files and decides per file, against the folder's shard (read
    /// now) or the index in memory: reuse (a stat says it is unchanged), resume (appended) or
    /// rescan.
    fn of(
        dir: &Path,
        folder: &str,
        docker: bool,
        shard: Option<LoadedShard>,
        known: &ListingIndex,
    ) -> Self {
        let mut candidates = Vec::new();
        let mut pass = FolderPass::default();
        list_folder(dir, folder, docker, &mut candidates, &mut pass.warnings);
        for c in candidates {
            let entry = match &shard {
                Some(s) => s.get(&c.path),
                None => known.get(&c.path),
            };
            match entry.map(|e| (e.freshness(&c.stamp), e)) {
                Some((Freshness::Fresh, e)) => {
                    let facts = e.facts();
                    pass.found.push(c.into_found(facts));
                }
                Some((Freshness::Appended, e)) => {
                    // An undecodable scanner state means a scan from the start.
                    let resume = e.scanner().map(|s| (e.offset, s));
                    pass.to_scan.push((c, resume));
                }
                Some((Freshness::Stale, _)) | None => pass.to_scan.push((c, None)),
            }
        }
        pass.shard = shard;
        pass
    }
}

/// The rest of [`Catalog::scan_transcripts`]: what the walk left to read is read (each
/// recorded in `publishing` as it is), the index keeps what is live and is saved.
fn read_walked(
    index: &mut ListingIndex,
    walked: Walked,
    publishing: Option<&Publishing<'_>>,
) -> (Vec<FoundTranscript>, Vec<Warning>) {
    let Walked { found: mut transcripts, to_scan, mut warnings } = walked;
    scan_changed(index, to_scan, &mut transcripts, &mut warnings, publishing);
    index.retain_live(transcripts.iter().map(|t| t.path.as_path()));
    if let Err(e) = index.save() {
        warnings.push(Warning::new(index.path(), e.to_string()));
    }
    (transcripts, warnings)
}

/// What a pass's folder walk found: the transcripts known from the index (or kept from the last
/// pass), those to read, and what could not be listed.
pub(super) struct Walked {
    found: Vec<FoundTranscript>,
    to_scan: Vec<(Candidate, Option<(u64, FactsScanner)>)>,
    warnings: Vec<Warning>,
}

/// Reads the changed transcripts in parallel, each from where it left off, into the index and
/// the listing. One that vanished since it was listed is left out; one unreadable is a warning.
/// The newest files are read first (a window painting the listing so far fills its first screen
/// first); the listing keeps the walk's order.
fn scan_changed(
    index: &mut ListingIndex,
    to_scan: Vec<(Candidate, Option<(u64, FactsScanner)>)>,
    transcripts: &mut Vec<FoundTranscript>,
    warnings: &mut Vec<Warning>,
    publishing: Option<&Publishing<'_>>,
) {
    let mut work: Vec<_> = to_scan.into_iter().enumerate().collect();
    work.sort_by_key(|(_, (c, _))| std::cmp::Reverse(c.stamp.mtime_ns));
    // Each folder's flat agent files (2.0.x), read once and only when one of its sessions is.
    let flats: HashMap<PathBuf, OnceLock<FlatAgents>> = work
        .iter()
        .filter_map(|(_, (c, _))| c.path.parent())
        .map(|d| (d.to_path_buf(), OnceLock::new()))
        .collect();
    // Handed out in order as threads ask (not split in halves), so the newest go first.
    let mut scanned: Vec<(usize, Candidate, std::io::Result<IndexEntry>)> = work
        .into_iter()
        .par_bridge()
        .map(|(i, (c, resume))| {
            let bytes = to_read(&c, &resume);
            let entry = facts::scan_file(&c.path, resume).map(|mut outcome| {
                if let Some((dir, flat)) = c.path.parent().and_then(|d| Some((d, flats.get(d)?))) {
                    let flat = flat.get_or_init(|| FlatAgents::of_folder(dir));
                    super::runs::refresh(&mut outcome.scanner, &c.path, &c.session_id, flat);
                }
                IndexEntry::new(c.stamp, outcome.offset, &outcome.scanner)
            });
            if let Some(p) = publishing {
                let found = entry.as_ref().ok().map(|e| c.found_with(e.facts()));
                p.record(i, bytes, found);
            }
            (i, c, entry)
        })
        .collect();
    scanned.sort_unstable_by_key(|s| s.0);
    for (_, c, result) in scanned {
        match result {
            Ok(entry) => {
                let facts = entry.facts();
                index.insert(&c.path, entry);
                transcripts.push(c.into_found(facts));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => warnings.push(Warning::new(&c.path, format!("cannot read: {e}"))),
        }
    }
}

/// A transcript file found by listing, before it is read.
#[derive(Debug)]
pub(super) struct Candidate {
    path: PathBuf,
    folder: String,
    session_id: String,
    stamp: FileStamp,
    docker: bool,
}

/// Lists the top-level `*.jsonl` files of one folder that can be sessions: regular files (a
/// directory named `x.jsonl` is skipped), not `agent-*.jsonl`, not empty, with a valid id.
impl Candidate {
    fn into_found(self, facts: Arc<TranscriptFacts>) -> FoundTranscript {
        let mut found = FoundTranscript {
            path: self.path,
            folder: self.folder,
            session_id: self.session_id,
            stamp: self.stamp,
            docker: self.docker,
            facts,
            activity_ms: 0,
            pending: false,
        };
        found.activity_ms = found
            .facts
            .last_message_at
            .as_deref()
            .map_or_else(|| crate::time::system_millis(found.mtime()), crate::time::millis)
            .unwrap_or(0);
        found
    }

    /// The transcript as listed with these facts (the candidate stays, for the index).
    fn found_with(&self, facts: Arc<TranscriptFacts>) -> FoundTranscript {
        let c = Candidate {
            path: self.path.clone(),
            folder: self.folder.clone(),
            session_id: self.session_id.clone(),
            stamp: self.stamp,
            docker: self.docker,
        };
        c.into_found(facts)
    }
}

/// The bytes a pass reads of a candidate (from where it left off when it resumes).
fn to_read(c: &Candidate, resume: &Option<(u64, FactsScanner)>) -> u64 {
    c.stamp.size.saturating_sub(resume.as_ref().map_or(0, |r| r.0))
}

fn list_folder(
    dir: &Path,
    folder: &str,
    docker: bool,
    out: &mut Vec<Candidate>,
    warnings: &mut Vec<Warning>,
) {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
        Err(e) => {
            warnings.push(Warning::new(dir, format!("cannot list: {e}")));
            return;
        }
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(stem) = name.strip_suffix(".jsonl") else { continue };
        if stem.starts_with("agent-") || paths::validate_session_id(stem).is_err() {
            continue;
        }
        let path = entry.path();
        // A symlink is followed: a linked transcript (link placement) is listed; a dangling link
        // or a vanished file is skipped. Anything else is stat'ed relative to the open folder
        // (no path lookup).
        let meta = match entry.file_type() {
            Ok(ty) if !ty.is_symlink() => entry.metadata(),
            _ => fs::metadata(&path),
        };
        let Ok(meta) = meta else { continue };
        if !meta.is_file() || meta.len() == 0 {
            continue;
        }
        out.push(Candidate {
            session_id: stem.to_owned(),
            folder: folder.to_owned(),
            stamp: FileStamp::of(&meta),
            docker,
            path,
        });
    }
}
