//! The catalog: one opened view of a Claude home, an optional fleet, its state dir and Corral's
//! data dir. It discovers, attributes, names and reads sessions.
//!
//! Discovery walks `<claude home>/projects/<folder>/*.jsonl` (top level only) and the fleet's
//! `docker-sessions/`, validates every transcript against the persistent [`ListingIndex`] with a
//! `stat`, scans only what changed (in parallel, resuming appended files), then attributes each
//! session and applies the user's names. Browsing never writes into the fleet's state dir; the
//! only write is Corral's own index, in its data dir.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::attribution::{self, AttributionIndex, JobCache};
use crate::error::{Error, Result};
use crate::fleet::{Agent, Fleet};
use crate::index::{FileStamp, Freshness, IndexEntry, ListingIndex, LoadedShard, PendingShard};
use crate::metadata::MetadataStore;
use crate::model::{
    AgentSummary, AttachmentData, Attribution, DirectoryGroup, MessagePage, ModelUsage,
    NotResumableReason, OwnerCount, RewindMark, SessionSummary, SessionTranscript, SubagentInfo,
    TokenTotals, TranscriptMessage, Usage, Warning,
};
use crate::names::{FolderAgents, NameKeys};
use crate::paths;
use crate::transcript::branches::{BranchCache, Branches, Rewind};
use crate::transcript::facts::{self, FactsScanner, TranscriptFacts};
use crate::transcript::forks::ForkCache;
use crate::transcript::messages::Lines;
use crate::transcript::{messages, subagents};

/// Where everything lives. Every path computation starts from these values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogConfig {
    pub claude_home: PathBuf,
    pub fleet_file: Option<PathBuf>,
    /// Overrides the state dir (default: `<fleet dir>/.herdctl`, or `<data dir>/state` with no fleet).
    pub state_dir: Option<PathBuf>,
    pub data_dir: PathBuf,
}

/// Options for listings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ListOptions {
    /// At most this many sessions (the newest), applied after filtering.
    pub limit: Option<usize>,
    /// Include groups for temp directories.
    pub include_temp: bool,
}

/// Where a page of a transcript is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", tag = "kind", content = "offset")]
pub enum PageAt {
    /// The page ending just before this byte offset (`None`: the newest page).
    Before(#[ts(type = "number | null")] Option<u64>),
    /// The page holding the line at this byte offset (a search hit), from its turn's prompt.
    Around(#[ts(type = "number")] u64),
    /// The page starting at this byte offset (a page's `laterCursor`).
    After(#[ts(type = "number")] u64),
}

/// The result of [`Catalog::all_sessions`].
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Listing {
    pub groups: Vec<DirectoryGroup>,
    pub warnings: Vec<Warning>,
}

/// The transcript viewer's header data.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionDetails {
    pub summary: SessionSummary,
    pub usage: Usage,
    pub subagents: Vec<SubagentInfo>,
    /// `cd -- '<dir>' && claude --resume <id>`, quoted for POSIX shells.
    pub resume_command: String,
    /// Set when `claude --resume`'s picker does not show the session's name (see
    /// [`NameOutOfSight`]); renaming it to that name puts it back.
    pub name_out_of_sight: Option<NameOutOfSight>,
}

/// The name Corral shows for a session (its custom name, else Claude Code's title) that Claude
/// Code's resume picker does not show: a name set in herdctl only, or a title line a long
/// continuation pushed out of the picker's view with no sidecar to fall back on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct NameOutOfSight {
    pub name: String,
    /// What the picker shows as the custom title instead (`None`: the automatic title).
    pub picker_title: Option<String>,
}

/// The command that resumes a session in a terminal: `cd -- <dir> && claude --resume <id>`, with
/// `CLAUDE_CONFIG_DIR=<home>` in front of `claude` when the session lives in a Claude home other
/// than the default one. Paths are quoted for POSIX shells; session ids are validated and need none.
pub fn resume_command(
    working_directory: &str,
    session_id: &str,
    claude_home: Option<&Path>,
) -> String {
    let env = claude_home
        .map(|h| format!("CLAUDE_CONFIG_DIR={} ", shell_quote(&h.to_string_lossy())))
        .unwrap_or_default();
    // `--`: a folder whose name starts with `-` is a folder, not an option of `cd`.
    format!("cd -- {} && {env}claude --resume {session_id}", shell_quote(working_directory))
}

/// POSIX single-quoting, safe to paste whatever the text contains; plain paths stay as they are.
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-+:@%".contains(&b)) {
        return s.to_owned();
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// One transcript file found by discovery, with its facts.
#[derive(Debug, Clone)]
pub struct FoundTranscript {
    pub path: PathBuf,
    /// The folder under `projects/` (or `docker:` for the fleet's docker-sessions folder).
    pub folder: String,
    pub session_id: String,
    /// What the pass's `stat` said (size, time, inode).
    pub stamp: FileStamp,
    pub docker: bool,
    /// Shared with the listing index (not copied per listing).
    pub facts: Arc<TranscriptFacts>,
    /// [`FoundTranscript::activity`] in ms since the epoch (0 when it does not parse): read
    /// once per pass, where a search ranks thousands of sessions by it.
    pub activity_ms: i64,
}

impl FoundTranscript {
    /// The file's size when the pass looked.
    pub fn size(&self) -> u64 {
        self.stamp.size
    }

    /// The file's modification time when the pass looked (the epoch when unknown).
    pub fn mtime(&self) -> SystemTime {
        let ns = self.stamp.mtime_ns;
        let d = Duration::from_nanos(u64::try_from(ns.unsigned_abs()).unwrap_or(u64::MAX));
        let t = if ns < 0 {
            SystemTime::UNIX_EPOCH.checked_sub(d)
        } else {
            SystemTime::UNIX_EPOCH.checked_add(d)
        };
        t.unwrap_or(SystemTime::UNIX_EPOCH)
    }

    /// A main-session transcript: it has a message and is not a subagent's.
    pub fn is_session(&self) -> bool {
        self.facts.has_messages && !self.facts.is_sidechain
    }

    /// The recorded cwd, else the lossy decoding of the folder name.
    pub fn working_directory(&self) -> String {
        self.working_directory_ref().into_owned()
    }

    /// [`FoundTranscript::working_directory`], borrowed where it is recorded.
    pub fn working_directory_ref(&self) -> Cow<'_, str> {
        match &self.facts.cwd {
            Some(cwd) => Cow::Borrowed(cwd),
            None => Cow::Owned(paths::decode_path_for_display(&self.folder)),
        }
    }

    /// Time of the last real message, else the file's mtime (mtime is not activity time).
    pub fn activity(&self) -> String {
        self.facts.last_message_at.clone().unwrap_or_else(|| crate::time::iso_system(self.mtime()))
    }
}

/// Everything one discovery pass learned.
#[derive(Debug, Default)]
pub struct Scan {
    pub transcripts: Vec<FoundTranscript>,
    pub attribution: AttributionIndex,
    pub custom_names: HashMap<String, HashMap<String, String>>,
    /// When each metadata file holding a custom name was last written (by agent key): no name
    /// in it can be newer.
    pub custom_name_times: HashMap<String, SystemTime>,
    pub warnings: Vec<Warning>,
    /// When a full pass took every transcript's `stat` (`None` for a pass that kept part of an
    /// earlier one): a caller that must see each file as it is now may trust the stamps only if
    /// this is later than its own start.
    pub stamped_at: Option<Instant>,
    /// Every listed session's summary, newest first, made once for this pass when first asked.
    listed: OnceLock<Arc<[SessionSummary]>>,
    /// ≤ 2.0 summaries and newest leaves by folder, made once when first asked.
    leaves: OnceLock<LeafIndex>,
}

/// What a session is called and where it ran: the parts of its summary a search indexes
/// (the same as [`SessionSummary`]'s fields of these names).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionNames<'a> {
    pub session_id: &'a str,
    pub custom_name: Option<&'a str>,
    pub auto_name: Option<&'a str>,
    pub working_directory: Cow<'a, str>,
}

/// A conversation continued across files: the session it continues and the one continuing it.
#[derive(Debug, Default)]
struct Continuation {
    from: Option<String>,
    into: Option<String>,
}

/// Per `(folder, leaf uuid)`: the ≤ 2.0 summary naming it, and the session whose newest leaf it is.
/// Keyed by [`leaf_key`]; the per-session lists are sorted `(key, transcript)` pairs, not maps of
/// cloned ids (made for every session of every listing, so they must cost little).
#[derive(Debug, Default)]
struct LeafIndex {
    titles: HashMap<u64, String>,
    /// The session whose newest line it is (the last listed, when two claim it).
    owners: Vec<(u64, usize)>,
    /// Sessions by their first line's uuid, each key's oldest first (a resume into a new file
    /// replays it).
    firsts: Vec<(u64, usize)>,
    /// Sessions whose first line hangs from this (folder, uuid), oldest first.
    hung: Vec<(u64, usize)>,
}

impl LeafIndex {
    /// The transcripts (indexes into the pass's) listed under `key` in `list`.
    fn run(list: &[(u64, usize)], key: u64) -> impl DoubleEndedIterator<Item = usize> + '_ {
        let start = list.partition_point(|e| e.0 < key);
        let end = list.partition_point(|e| e.0 <= key);
        list.get(start..end).unwrap_or_default().iter().map(|e| e.1)
    }
}

/// A 64-bit key for (folder, uuid).
fn leaf_key(folder: &str, uuid: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    folder.hash(&mut h);
    uuid.hash(&mut h);
    h.finish()
}

impl Scan {
    fn leaves(&self) -> &LeafIndex {
        self.leaves.get_or_init(|| {
            let mut ix = LeafIndex::default();
            for f in &self.transcripts {
                for s in &f.facts.leaf_summaries {
                    ix.titles.insert(leaf_key(&f.folder, &s.leaf), s.text.clone());
                }
            }
            // Keys are hashed on every core; the lists are sorted once.
            let keys: Vec<[Option<u64>; 3]> = self
                .transcripts
                .par_iter()
                .map(|f| {
                    if !f.is_session() {
                        return [None; 3];
                    }
                    let key = |u: &Option<String>| u.as_deref().map(|u| leaf_key(&f.folder, u));
                    [key(&f.facts.leaf_uuid), key(&f.facts.first_uuid), key(&f.facts.first_parent)]
                })
                .collect();
            for (i, [leaf, first, parent]) in keys.into_iter().enumerate() {
                ix.owners.extend(leaf.map(|k| (k, i)));
                ix.firsts.extend(first.map(|k| (k, i)));
                ix.hung.extend(parent.map(|k| (k, i)));
            }
            let t = &self.transcripts;
            let dated = |i: usize| t.get(i).map(|t| (&t.facts.last_message_at, &t.session_id));
            ix.owners.sort_unstable();
            for list in [&mut ix.firsts, &mut ix.hung] {
                list.sort_unstable_by(|a, b| {
                    a.0.cmp(&b.0).then_with(|| dated(a.1).cmp(&dated(b.1)))
                });
                list.dedup_by(|a, b| {
                    a.0 == b.0 && dated(a.1).map(|d| d.1) == dated(b.1).map(|d| d.1)
                });
            }
            ix
        })
    }

    /// Whether a docker transcript has an agent that owns it: docker sessions are listed only
    /// under that agent.
    fn docker_owned(&self, t: &FoundTranscript) -> bool {
        self.attribution.get(&t.session_id).agent_name.is_some()
    }

    /// The session id of the pass's transcript `i`.
    fn session_at(&self, i: usize) -> Option<&str> {
        self.transcripts.get(i).map(|t| t.session_id.as_str())
    }

    /// The session whose newest line is `key`'s (the last listed, when two claim it).
    fn owner(&self, key: u64) -> Option<&str> {
        LeafIndex::run(&self.leaves().owners, key).next_back().and_then(|i| self.session_at(i))
    }

    /// The session this one continues, and the one that continues it (see [`Continuation`]).
    fn continuation(&self, t: &FoundTranscript) -> Continuation {
        let f = &t.facts;
        let ix = self.leaves();
        let key = |u: &str| leaf_key(&t.folder, u);
        let sid = t.session_id.as_str();
        // Its first line hangs from another session's newest line.
        let mut from = f
            .first_parent
            .as_deref()
            .and_then(|p| self.owner(key(p)))
            .filter(|s| *s != sid)
            .map(str::to_owned);
        let mut into = f
            .leaf_uuid
            .as_deref()
            .and_then(|l| {
                LeafIndex::run(&ix.hung, key(l))
                    .filter_map(|i| self.session_at(i))
                    .find(|s| *s != sid)
            })
            .map(str::to_owned);
        // Files that replay the same first line: each continues the one before it.
        if let Some(first) = f.first_uuid.as_deref() {
            let group: Vec<&str> =
                LeafIndex::run(&ix.firsts, key(first)).filter_map(|i| self.session_at(i)).collect();
            if group.len() > 1
                && let Some(i) = group.iter().position(|s| *s == sid)
            {
                if from.is_none() && i > 0 {
                    from = group.get(i - 1).map(|s| (*s).to_owned());
                }
                if into.is_none() {
                    into = group.get(i + 1).map(|s| (*s).to_owned());
                }
            }
        }
        Continuation { from, into }
    }

    /// A ≤ 2.0 session's summary title: the summary naming its newest leaf, wherever in its
    /// folder it was written; else its own last summary line, unless that one names another
    /// session's newest leaf (then it is that session's title), in which case its own last
    /// summary that titles no other session.
    fn summary_title<'s>(&'s self, t: &'s FoundTranscript) -> Option<&'s str> {
        let f = &t.facts;
        let ix = self.leaves();
        // No file of the scan names a leaf (2.1.x homes): a summary line is the file's own.
        if ix.titles.is_empty() {
            return f.summary.as_deref();
        }
        let key = |leaf: &str| leaf_key(&t.folder, leaf);
        if let Some(title) = f.leaf_uuid.as_deref().and_then(|l| ix.titles.get(&key(l))) {
            return Some(title);
        }
        let other = |leaf: &str| self.owner(key(leaf)).is_some_and(|s| s != t.session_id);
        match f.summary_leaf.as_deref() {
            Some(leaf) if other(leaf) => {
                f.leaf_summaries.iter().rev().find(|s| !other(&s.leaf)).map(|s| s.text.as_str())
            }
            _ => f.summary.as_deref(),
        }
    }

    /// The custom name of a session, read from every key herdctl may have used
    /// ([`crate::names`]) — unless Claude Code's own title of `t` is a different one set later
    /// (its `custom-title.json` records when: after the metadata file was last written), as
    /// after a `/rename` in Claude Code: then Claude Code's title, shown as the automatic name,
    /// is the name, as in its picker. Where no time tells, herdctl's name comes first.
    fn custom_name(&self, t: &FoundTranscript, keys: &NameKeys<'_>) -> Option<&str> {
        let (key, name) = keys.find_with_key(&self.custom_names, &t.session_id)?;
        let newer_in_claude_code = t.facts.custom_title.as_deref().is_some_and(|title| {
            title != name
                && self.custom_name_times.get(key).is_some_and(|written| {
                    crate::claude_titles::title_set_after(&t.path, &t.session_id, title, *written)
                })
        });
        (!newer_in_claude_code).then_some(name.as_str())
    }
}

#[derive(Debug)]
struct Caches {
    index: ListingIndex,
    /// Parsed job records, persisted in the data dir: job files are immutable once written, so
    /// a thousand of them are read once, not at every start.
    jobs: JobCache,
    jobs_file: PathBuf,
    jobs_loaded: bool,
    /// The last scan, reused while it is younger than [`SCAN_REUSE`] and nothing was invalidated
    /// (one view typically asks for agents, then each agent's sessions, in one burst).
    last: Option<(Instant, Arc<Scan>)>,
    /// Transcript folders named by [`Catalog::invalidate`] since the last scan: the next scan
    /// re-lists only these and keeps the rest of `last`.
    changed: Option<Vec<PathBuf>>,
    /// When every transcript was last validated (a full pass, not a partial one).
    validated_at: Option<Instant>,
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
const JOBS_CACHE_FORMAT: u32 = 2;

/// How long a scan may be reused without re-validating every transcript with a `stat`.
const SCAN_REUSE: Duration = Duration::from_millis(1500);
/// How long the folders a watcher did not name may be trusted without a full `stat` pass (a
/// safety net for changes a watcher missed).
const PARTIAL_TRUST: Duration = Duration::from_secs(30);

/// An opened catalog. Safe to share between threads.
#[derive(Debug)]
pub struct Catalog {
    config: CatalogConfig,
    fleet: Option<Fleet>,
    /// Which agent each `projects/` folder belongs to (for where names live, see [`crate::names`]).
    folder_agents: FolderAgents,
    /// The Claude home `claude` uses when `CLAUDE_CONFIG_DIR` is not set (`~/.claude`), when
    /// the caller knows it: a resume command for a session elsewhere names its home.
    default_claude_home: Option<PathBuf>,
    state_dir: PathBuf,
    caches: Mutex<Caches>,
    /// Branch scans of the transcripts last opened that may hold a rewind.
    branch_cache: Mutex<BranchCache>,
    /// What the last runs looked at repeat of their main transcript (fork subagents).
    fork_cache: Mutex<ForkCache>,
}

impl Catalog {
    /// Opens a catalog. Every path is made absolute first (against the current folder), so
    /// what Corral records — journals, adoption records — names one place whatever folder it is
    /// read from later.
    pub fn open(config: CatalogConfig) -> Result<Self> {
        let CatalogConfig { claude_home, fleet_file, state_dir, data_dir } = config;
        let config = CatalogConfig {
            claude_home: paths::absolute(&claude_home),
            fleet_file: fleet_file.as_deref().map(paths::absolute),
            state_dir: state_dir.as_deref().map(paths::absolute),
            data_dir: paths::absolute(&data_dir),
        };
        let fleet = config.fleet_file.as_deref().map(Fleet::load).transpose()?;
        let state_dir = match (&config.state_dir, &fleet) {
            (Some(s), _) => s.clone(),
            (None, Some(f)) => f.state_dir(),
            (None, None) => config.data_dir.join("state"),
        };
        let index = ListingIndex::new(&config.data_dir, &config.claude_home);
        let jobs_file = config
            .data_dir
            .join("index")
            .join(format!("jobs-{}.json", paths::encode_path(&state_dir.to_string_lossy())));
        Ok(Self {
            config,
            folder_agents: FolderAgents::new(fleet.as_ref()),
            default_claude_home: None,
            fleet,
            state_dir,
            caches: Mutex::new(Caches {
                index,
                jobs: JobCache::default(),
                jobs_file,
                jobs_loaded: false,
                last: None,
                changed: None,
                validated_at: None,
            }),
            branch_cache: Mutex::new(BranchCache::default()),
            fork_cache: Mutex::new(ForkCache::default()),
        })
    }

    /// Tells the catalog which Claude home `claude` uses by default (`~/.claude`), so resume
    /// commands for sessions there need no `CLAUDE_CONFIG_DIR=`; without it every resume command
    /// names its home (always correct, a little longer).
    #[must_use]
    pub fn with_default_claude_home(mut self, home: Option<PathBuf>) -> Self {
        self.default_claude_home = home.map(|h| paths::absolute(&h));
        self
    }

    pub fn config(&self) -> &CatalogConfig {
        &self.config
    }

    pub fn claude_home(&self) -> &Path {
        &self.config.claude_home
    }

    pub fn projects_dir(&self) -> PathBuf {
        paths::projects_dir(&self.config.claude_home)
    }

    pub fn data_dir(&self) -> &Path {
        &self.config.data_dir
    }

    /// Claims the data dir (see [`crate::owned`]) before a write into the state dir, when the
    /// state dir is inside it (Corral's own, with no fleet).
    pub fn claim_for_state_write(&self) -> Result<()> {
        if self.state_dir.starts_with(&self.config.data_dir) {
            crate::owned::claim_data_dir(&self.config.data_dir)?;
        }
        Ok(())
    }

    pub fn state_dir(&self) -> &Path {
        &self.state_dir
    }

    pub fn fleet(&self) -> Option<&Fleet> {
        self.fleet.as_ref()
    }

    /// The agent with this qualified name, or a typed error.
    pub fn agent(&self, name: &str) -> Result<&Agent> {
        let fleet = self.fleet.as_ref().ok_or(Error::NoFleet)?;
        fleet.agent(name).ok_or_else(|| Error::UnknownAgent(name.to_owned()))
    }

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
    fn rescan_folders(&self, caches: &mut Caches, previous: &Scan, folders: &[PathBuf]) -> Scan {
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

    fn scan_now(&self, caches: &mut Caches) -> Result<Scan> {
        let Caches { index, jobs, jobs_file, jobs_loaded, .. } = caches;
        let started = Instant::now();
        // Transcripts and attribution do not depend on each other: both run at once.
        let (transcripts, attribution) = rayon::join(
            || self.scan_transcripts(index, None),
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
        let (transcripts, mut warnings) = transcripts;
        let (attribution, attribution_warnings) = attribution;
        warnings.extend(attribution_warnings);
        let store = MetadataStore::new(&self.state_dir);
        let (custom_names, metadata_warnings) = store.custom_names_with_warnings();
        warnings.extend(metadata_warnings);
        let custom_name_times = custom_names
            .keys()
            .filter_map(|key| {
                let path = store.file_path(key).ok()?;
                Some((key.clone(), std::fs::metadata(path).ok()?.modified().ok()?))
            })
            .collect();
        Ok(Scan {
            stamped_at: Some(started),
            transcripts,
            attribution,
            custom_names,
            custom_name_times,
            warnings,
            listed: OnceLock::new(),
            leaves: OnceLock::new(),
        })
    }

    /// Every transcript with its facts: a `stat` per file validates it against the index; only
    /// what changed is read (in parallel, appended files from where they left off). With `only`,
    /// just those folders are listed; the others keep the transcripts of the given last pass.
    fn scan_transcripts(
        &self,
        index: &mut ListingIndex,
        only: Option<(&HashSet<&Path>, &[FoundTranscript])>,
    ) -> (Vec<FoundTranscript>, Vec<Warning>) {
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
        let mut transcripts = kept;
        transcripts.reserve(listed.iter().map(|p| p.found.len()).sum());
        let mut to_scan = Vec::new();
        let mut shards = Vec::new();
        for pass in listed {
            transcripts.extend(pass.found);
            to_scan.extend(pass.to_scan);
            warnings.extend(pass.warnings);
            shards.extend(pass.shard);
        }
        index.adopt(shards);

        scan_changed(index, to_scan, &mut transcripts, &mut warnings);
        index.retain_live(transcripts.iter().map(|t| t.path.as_path()));
        if let Err(e) = index.save() {
            warnings.push(Warning::new(index.path(), e.to_string()));
        }
        (transcripts, warnings)
    }

    /// The folders that may hold transcripts: `projects/*` and, with a fleet, its docker-sessions
    /// folder, as (path, folder name, docker). Unreadable `projects` becomes a warning.
    fn transcript_folders(&self, warnings: &mut Vec<Warning>) -> Vec<(PathBuf, String, bool)> {
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

    /// Every session, grouped by real working directory, newest group first.
    pub fn all_sessions(&self, opts: ListOptions) -> Result<Listing> {
        let scan = self.scan()?;
        let listed = self.listed(&scan);
        let sessions = listed
            .iter()
            .map(|s| (s, paths::is_temp_directory(&s.working_directory)))
            .filter(|(_, is_temp)| opts.include_temp || !is_temp);

        // Group by real working directory (docker sessions by owning agent).
        let mut order: Vec<String> = Vec::new();
        let mut groups: HashMap<String, DirectoryGroup> = HashMap::new();
        for (i, (s, is_temp)) in sessions.enumerate() {
            let key = if s.encoded_path.starts_with("docker:") {
                s.encoded_path.clone()
            } else {
                s.working_directory.clone()
            };
            let within_limit = opts.limit.is_none_or(|l| i < l);
            let group = groups.entry(key.clone()).or_insert_with(|| {
                order.push(key.clone());
                DirectoryGroup {
                    agent_name: self.group_agent(s),
                    working_directory: s.working_directory.clone(),
                    encoded_path: s.encoded_path.clone(),
                    session_count: 0,
                    owners: Vec::new(),
                    tokens: TokenTotals::default(),
                    is_temp,
                    sessions: Vec::new(),
                }
            });
            group.session_count += 1;
            group.tokens.add(&s.tokens);
            if let Some(owner) = &s.agent_name {
                match group.owners.iter_mut().find(|o| o.agent_name == *owner) {
                    Some(o) => o.session_count += 1,
                    None => group
                        .owners
                        .push(OwnerCount { agent_name: owner.clone(), session_count: 1 }),
                }
            }
            if within_limit {
                group.sessions.push(s.clone());
            }
        }
        for g in groups.values_mut() {
            let own = g.agent_name.clone();
            g.owners.sort_by(|a, b| {
                (Some(&b.agent_name) == own.as_ref())
                    .cmp(&(Some(&a.agent_name) == own.as_ref()))
                    .then(b.session_count.cmp(&a.session_count))
                    .then_with(|| a.agent_name.cmp(&b.agent_name))
            });
        }
        let groups = order
            .into_iter()
            .filter_map(|k| groups.remove(&k))
            .filter(|g| !g.sessions.is_empty() || opts.limit.is_none())
            .collect();
        Ok(Listing { groups, warnings: scan.warnings.clone() })
    }

    /// Every session [`Catalog::all_sessions`] lists (temporary folders included), newest first,
    /// as of a pass made now (or a moment ago).
    pub fn listed_sessions(&self) -> Result<Arc<[SessionSummary]>> {
        Ok(self.listed(&*self.scan()?))
    }

    /// The sessions [`Catalog::listed_sessions`] lists, as of the pass `scan` (from
    /// [`Catalog::scan`]).
    pub fn listed_sessions_of(&self, scan: &Scan) -> Arc<[SessionSummary]> {
        self.listed(scan)
    }

    /// The transcripts of the sessions the listing of `scan` shows, in the pass's order, without
    /// making their summaries (what needs only their files need not wait for those).
    pub fn listed_transcripts<'a>(
        &self,
        scan: &'a Scan,
    ) -> impl Iterator<Item = &'a FoundTranscript> + 'a {
        scan.transcripts.iter().filter(|t| t.is_session() && (!t.docker || scan.docker_owned(t)))
    }

    /// What the sessions the listing of `scan` shows are called, in the pass's order, made on
    /// every core without the rest of their summaries (what a search index holds of them).
    pub fn listed_names<'a>(&self, scan: &'a Scan) -> Vec<SessionNames<'a>> {
        self.par_listed(scan, |t, attr| self.names(t, attr, scan))
    }

    /// `f` of each listed transcript of `scan` and its attribution, in the pass's order, on
    /// every core. The newest leaves are made first, on every core too (inside the loop, the
    /// other cores would wait for them).
    fn par_listed<'a, T: Send>(
        &self,
        scan: &'a Scan,
        f: impl Fn(&'a FoundTranscript, &Attribution) -> T + Sync + Send,
    ) -> Vec<T> {
        scan.leaves();
        let listed: Vec<&FoundTranscript> = self.listed_transcripts(scan).collect();
        listed.par_iter().map(|t| f(t, &scan.attribution.get(&t.session_id))).collect()
    }

    /// The summary of a transcript of `scan` (one the listing shows: see
    /// [`Catalog::listed_transcripts`]).
    pub fn summary_of(&self, t: &FoundTranscript, scan: &Scan) -> SessionSummary {
        self.summarize(t, &scan.attribution.get(&t.session_id), scan)
    }

    /// The same as of the last pass, however old (a pass is made if there is none): for answers
    /// that lag a file event by a moment anyway, like search, whose index lags as much.
    pub fn last_listed_sessions(&self) -> Result<Arc<[SessionSummary]>> {
        Ok(self.listed(&*self.last_scan()?))
    }

    /// The last discovery pass, however old (one is made if there is none).
    pub fn last_scan(&self) -> Result<Arc<Scan>> {
        let last =
            self.caches.lock().map_err(|_| poisoned())?.last.as_ref().map(|(_, s)| s.clone());
        match last {
            Some(scan) => Ok(scan),
            None => self.scan(),
        }
    }

    /// The pass's summaries, made on every core the first time they are asked for.
    fn listed(&self, scan: &Scan) -> Arc<[SessionSummary]> {
        let made = scan.listed.get_or_init(|| {
            // Boxed, so that sorting moves pointers, not summaries.
            let mut sessions: Vec<(Box<SessionSummary>, String)> = self
                .par_listed(scan, |t, attr| {
                    (Box::new(self.summarize(t, attr, scan)), t.activity())
                });
            sessions
                .sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.session_id.cmp(&b.0.session_id)));
            sessions.into_iter().map(|(s, _)| *s).collect()
        });
        Arc::clone(made)
    }

    /// The agent a group belongs to: the one whose working directory it is.
    fn group_agent(&self, s: &SessionSummary) -> Option<String> {
        let fleet = self.fleet.as_ref()?;
        if let Some(agent) = s.encoded_path.strip_prefix("docker:") {
            return Some(agent.to_owned()).filter(|a| !a.is_empty());
        }
        fleet
            .agents
            .iter()
            .find(|a| {
                a.working_directory
                    .as_deref()
                    .is_some_and(|wd| same_dir(wd, Path::new(&s.working_directory)))
            })
            .map(|a| a.qualified_name.clone())
    }

    /// The sessions attributed to `agent`, newest first; the limit is applied after filtering.
    pub fn agent_sessions(&self, agent: &str, opts: ListOptions) -> Result<Vec<SessionSummary>> {
        self.agent(agent)?;
        let scan = self.scan()?;
        let mut out: Vec<(String, SessionSummary)> = scan
            .transcripts
            .iter()
            .filter(|t| t.is_session())
            .filter_map(|t| {
                let attr = scan.attribution.get(&t.session_id);
                attribution::is_owned_by_agent(&attr, Some(agent))
                    .then(|| (t.activity(), self.summarize(t, &attr, &scan)))
            })
            .collect();
        out.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.session_id.cmp(&b.1.session_id)));
        let limit = opts.limit.unwrap_or(usize::MAX);
        Ok(out.into_iter().take(limit).map(|(_, s)| s).collect())
    }

    /// The fleet's agents with their true session counts (empty with no fleet).
    pub fn agents(&self) -> Result<Vec<AgentSummary>> {
        let Some(fleet) = self.fleet.as_ref() else { return Ok(Vec::new()) };
        let scan = self.scan()?;
        let mut counts: HashMap<String, (u64, Option<String>, TokenTotals)> = HashMap::new();
        for t in scan.transcripts.iter().filter(|t| t.is_session()) {
            if let Some(owner) = scan.attribution.get(&t.session_id).agent_name {
                let e = counts.entry(owner).or_default();
                e.0 += 1;
                e.2.add(&t.facts.tokens);
                let act = t.activity();
                if e.1.as_ref().is_none_or(|a| *a < act) {
                    e.1 = Some(act);
                }
            }
        }
        let mut own_names: HashMap<&str, usize> = HashMap::new();
        for a in &fleet.agents {
            *own_names.entry(&a.name).or_default() += 1;
        }
        Ok(fleet
            .agents
            .iter()
            .map(|a| {
                let (count, last, tokens) = counts.remove(&a.qualified_name).unwrap_or_default();
                let shared = own_names.get(a.name.as_str()).is_some_and(|n| *n > 1);
                AgentSummary {
                    display_name: if shared || a.name.is_empty() {
                        a.qualified_name.clone()
                    } else {
                        a.name.clone()
                    },
                    name: a.qualified_name.clone(),
                    fleet_path: a.fleet_path.clone(),
                    working_directory: a
                        .working_directory
                        .as_ref()
                        .map(|p| p.to_string_lossy().into_owned()),
                    docker: a.docker,
                    session_count: count,
                    last_activity_at: last,
                    tokens,
                }
            })
            .collect())
    }

    /// The transcript file of a session (the main one, when a worktree stub shares its id).
    pub fn locate(&self, session_id: &str) -> Result<(FoundTranscript, Arc<Scan>)> {
        paths::validate_session_id(session_id)?;
        let scan = self.scan()?;
        let found = scan
            .transcripts
            .iter()
            .filter(|t| t.session_id == session_id && t.is_session())
            .max_by_key(|t| t.size())
            .cloned()
            .ok_or_else(|| Error::SessionNotFound(session_id.to_owned()))?;
        Ok((found, scan))
    }

    /// One session by id.
    pub fn session(&self, session_id: &str) -> Result<SessionSummary> {
        let (t, scan) = self.locate(session_id)?;
        let attr = scan.attribution.get(&t.session_id);
        Ok(self.summarize(&t, &attr, &scan))
    }

    /// The whole transcript of a session.
    pub fn transcript(&self, session_id: &str) -> Result<SessionTranscript> {
        let (t, _) = self.locate(session_id)?;
        let lines = self.resumed_lines(&t)?;
        let mut whole =
            messages::read_transcript_in(&t.path, &t.session_id, &t.working_directory(), &lines)
                .map_err(|e| Error::io_at("read", &t.path, e))?;
        Self::mark_missing_runs(&t, &mut whole.messages);
        Ok(whole)
    }

    /// The branch scan of a transcript whose facts say it may hold a rewind.
    fn branches_of(&self, t: &FoundTranscript) -> Result<Option<Arc<Branches>>> {
        if !t.facts.may_branch {
            return Ok(None);
        }
        let mut cache = self.branch_cache.lock().map_err(|_| poisoned())?;
        cache.get(&t.path).map(Some).map_err(|e| Error::io_at("read", &t.path, e))
    }

    /// The offsets of a session's lines on rewound branches (ascending), `None` when it has none.
    pub fn rewound_lines(&self, session_id: &str) -> Result<Option<Arc<[u64]>>> {
        let (t, _) = self.locate(session_id)?;
        Ok(self.branches_of(&t)?.filter(|b| !b.rewinds.is_empty()).map(|b| Arc::clone(&b.hidden)))
    }

    /// The lines of the branch `claude --resume` continues.
    fn resumed_lines(&self, t: &FoundTranscript) -> Result<Lines> {
        Ok(lines_off(self.branches_of(t)?.as_deref()))
    }

    /// The whole transcript of a session handed to `emit` piece by piece (bounded memory for a
    /// file of any size; see [`messages::stream_transcript`]), then its header: the returned
    /// transcript has every field but `messages`, which is empty.
    pub fn stream_transcript(
        &self,
        session_id: &str,
        emit: &mut dyn FnMut(Vec<TranscriptMessage>) -> std::io::Result<()>,
    ) -> Result<SessionTranscript> {
        let (t, _) = self.locate(session_id)?;
        let lines = self.resumed_lines(&t)?;
        let runs = runs_on_disk(&t);
        let mut marked = |mut piece: Vec<TranscriptMessage>| {
            mark_runs(&runs, &mut piece);
            emit(piece)
        };
        let summary =
            messages::stream_transcript(&t.path, messages::STREAM_PIECE_BYTES, &lines, &mut marked)
                .map_err(|e| Error::io_at("read", &t.path, e))?;
        Ok(SessionTranscript {
            session_id: t.session_id.clone(),
            working_directory: t.working_directory(),
            messages: Vec::new(),
            usage: summary.usage,
            subagents: subagents::list_subagents(&t.path, &t.session_id),
            skipped_lines: summary.skipped_lines,
        })
    }

    /// A page of a session's messages ending before byte offset `before` (newest page: `None`).
    pub fn messages_page(
        &self,
        session_id: &str,
        before: Option<u64>,
        limit: usize,
    ) -> Result<MessagePage> {
        self.page(session_id, None, PageAt::Before(before), limit)
    }

    /// A page of one subagent's messages (see [`Catalog::messages_page`]).
    pub fn subagent_page(
        &self,
        session_id: &str,
        agent_id: &str,
        before: Option<u64>,
        limit: usize,
    ) -> Result<MessagePage> {
        self.page(session_id, Some(agent_id), PageAt::Before(before), limit)
    }

    /// The transcript file of a session, or of one of its subagents' runs.
    pub fn transcript_path(&self, session_id: &str, agent_id: Option<&str>) -> Result<PathBuf> {
        let (t, _) = self.locate(session_id)?;
        match agent_id {
            None => Ok(t.path.clone()),
            Some(agent_id) => Ok(PathBuf::from(run_of(&t, agent_id)?.transcript_path)),
        }
    }

    /// Attachment `index` of the line at `offset` of a session's transcript (or of one of its
    /// subagent runs'): an image's bytes, see [`crate::transcript::attachments::read`].
    pub fn attachment(
        &self,
        session_id: &str,
        agent_id: Option<&str>,
        offset: u64,
        index: u32,
    ) -> Result<AttachmentData> {
        crate::transcript::attachments::read(
            &self.transcript_path(session_id, agent_id)?,
            offset,
            index,
        )
    }

    /// The lines of a run that are its own (a fork's copy of the main conversation left out,
    /// see [`crate::transcript::forks`]) and how many messages were left out.
    fn run_lines(&self, t: &FoundTranscript, run: &SubagentInfo) -> Result<(Lines, u64)> {
        let path = Path::new(&run.transcript_path);
        let fork = run.agent_type.as_deref() == Some("fork");
        let mut cache = self.fork_cache.lock().map_err(|_| poisoned())?;
        let inherited =
            cache.get(path, &t.path, fork).map_err(|e| Error::io_at("read", path, e))?;
        Ok(if inherited.lines.is_empty() {
            (Lines::All, 0)
        } else {
            (Lines::Except(Arc::clone(&inherited.lines)), inherited.messages)
        })
    }

    /// One subagent run of a session handed to `emit` piece by piece, as its pages show it.
    pub fn stream_run(
        &self,
        session_id: &str,
        run: &SubagentInfo,
        emit: &mut dyn FnMut(Vec<TranscriptMessage>) -> std::io::Result<()>,
    ) -> Result<()> {
        let (t, _) = self.locate(session_id)?;
        let (lines, _) = self.run_lines(&t, run)?;
        let path = Path::new(&run.transcript_path);
        messages::stream_transcript(path, messages::STREAM_PIECE_BYTES, &lines, emit)
            .map(|_| ())
            .map_err(|e| Error::io_at("read", path, e))
    }

    /// A page of a session's transcript (or of one of its subagents'), where `at` says.
    pub fn page(
        &self,
        session_id: &str,
        agent_id: Option<&str>,
        at: PageAt,
        limit: usize,
    ) -> Result<MessagePage> {
        let (t, _) = self.locate(session_id)?;
        let (path, branches, lines, inherited) = match agent_id {
            None => {
                let branches = self.branches_of(&t)?;
                let lines = lines_off(branches.as_deref());
                (t.path.clone(), branches, lines, 0)
            }
            Some(agent_id) => {
                let run = run_of(&t, agent_id)?;
                let (lines, inherited) = self.run_lines(&t, &run)?;
                (PathBuf::from(run.transcript_path), None, lines, inherited)
            }
        };
        let limit = limit.clamp(1, 5_000);
        // A line on a rewound branch (a search hit there) opens the page where the branch was
        // replaced, with the branch open.
        let open = match (&branches, at) {
            (Some(b), PageAt::Around(offset)) => {
                b.rewinds.iter().find(|r| r.lines.binary_search(&offset).is_ok()).cloned()
            }
            _ => None,
        };
        let at = open.as_ref().map_or(at, |r| PageAt::Around(r.at));
        let mut page = match at {
            PageAt::Before(before) => messages::read_page_in(&path, before, limit, &lines),
            PageAt::Around(offset) => messages::read_page_around_in(&path, offset, limit, &lines),
            PageAt::After(offset) => messages::read_page_after_in(&path, offset, limit, &lines),
        }
        .map_err(|e| Error::io_at("read", &path, e))?;
        Self::mark_missing_runs(&t, &mut page.messages);
        page.inherited = inherited;
        if let Some(b) = branches {
            let (from, to) =
                (page.earlier_cursor.unwrap_or(0), page.later_cursor.unwrap_or(u64::MAX));
            page.rewinds = b
                .rewinds
                .iter()
                .filter(|r| (from..to).contains(&r.at))
                .map(|r| rewind_mark(&path, r))
                .collect();
            page.open_branch = open.map(|r| r.branch);
        }
        Ok(page)
    }

    /// Marks the tool calls whose subagent run has no transcript on disk: the runs are the files
    /// [`subagents::list_subagents`] finds, for the header's count, the buttons and the CLI alike.
    fn mark_missing_runs(t: &FoundTranscript, messages: &mut [TranscriptMessage]) {
        if messages.iter().any(|m| m.tool_call.as_ref().is_some_and(|c| c.subagent_id.is_some())) {
            mark_runs(&runs_on_disk(t), messages);
        }
    }

    /// Token usage by model over the branch `claude --resume` continues.
    pub fn usage_by_model(&self, session_id: &str) -> Result<Vec<ModelUsage>> {
        let (t, _) = self.locate(session_id)?;
        let lines = self.resumed_lines(&t)?;
        crate::transcript::usage::by_model(&t.path, &lines)
            .map_err(|e| Error::io_at("read", &t.path, e))
    }

    /// The messages of one rewound branch of a session (`branch` as in
    /// [`crate::model::RewindMark::branch`]), at most `limit` of them.
    pub fn rewound_branch(
        &self,
        session_id: &str,
        branch: u64,
        limit: usize,
    ) -> Result<MessagePage> {
        let (t, _) = self.locate(session_id)?;
        let rewind = self
            .branches_of(&t)?
            .and_then(|b| b.rewind(branch).cloned())
            .ok_or_else(|| Error::InvalidInput(format!("no rewound branch at byte {branch}")))?;
        let mut page = messages::read_lines(&t.path, &rewind.lines, limit.clamp(1, 5_000))
            .map_err(|e| Error::io_at("read", &t.path, e))?;
        Self::mark_missing_runs(&t, &mut page.messages);
        page.rewinds = Vec::new();
        Ok(page)
    }

    /// What the transcript viewer's header shows: the listing facts, token usage, subagents and
    /// the command that resumes the session in a terminal.
    pub fn session_details(&self, session_id: &str) -> Result<SessionDetails> {
        let (t, scan) = self.locate(session_id)?;
        let attr = scan.attribution.get(&t.session_id);
        let summary = self.summarize(&t, &attr, &scan);
        let home = (self.default_claude_home.as_deref() != Some(self.claude_home()))
            .then(|| self.claude_home());
        let resume_command = resume_command(&summary.working_directory, &summary.session_id, home);
        let name = summary.custom_name.clone().or_else(|| t.facts.custom_title.clone());
        let name_out_of_sight = match name {
            Some(name) if !t.docker => crate::claude_titles::picker_title(&t.path, &t.session_id)
                .ok()
                .and_then(|picker_title| {
                    (picker_title.as_deref() != Some(name.as_str()))
                        .then_some(NameOutOfSight { name, picker_title })
                }),
            _ => None,
        };
        Ok(SessionDetails {
            name_out_of_sight,
            usage: t.facts.usage.clone(),
            subagents: subagents::list_subagents(&t.path, &t.session_id),
            resume_command,
            summary,
        })
    }

    /// Where a rename of the session writes (the renames module).
    pub fn name_target(&self, session_id: &str) -> Result<crate::names::NameTarget> {
        let (t, scan) = self.locate(session_id)?;
        let attr = scan.attribution.get(&t.session_id);
        let keys = self.name_keys(&t, &attr, &t.working_directory());
        let shown = self.names(&t, &attr, &scan).custom_name.map(str::to_owned);
        Ok(crate::names::NameTarget {
            session_id: t.session_id.clone(),
            transcript: t.path.clone(),
            read_order: keys.read_order().into_iter().map(str::to_owned).collect(),
            written: keys.written().into_iter().map(str::to_owned).collect(),
            shown,
        })
    }

    /// Forgets the last scan after these folders changed (all when empty), so the next listing
    /// re-validates. The persistent index stays: a `stat` tells which transcripts changed, and
    /// only those are read again.
    pub fn invalidate(&self, folders: &[PathBuf]) {
        if let Ok(mut caches) = self.caches.lock() {
            if folders.is_empty() || caches.last.is_none() {
                caches.last = None;
                caches.changed = None;
            } else {
                caches.changed.get_or_insert_with(Vec::new).extend_from_slice(folders);
            }
        }
    }

    /// The metadata keys of a transcript's name: its owner, and the agent whose folder it sits
    /// in (a docker session's folder is its owner's).
    fn name_keys<'a>(
        &'a self,
        t: &FoundTranscript,
        attr: &'a Attribution,
        working_directory: &str,
    ) -> NameKeys<'a> {
        let owner = attr.agent_name.as_deref();
        let folder_agent = if t.docker {
            owner
        } else {
            self.folder_agents.agent_of(&t.folder, working_directory)
        };
        NameKeys { owner, folder_agent }
    }

    /// What one transcript's session is called, and where it ran.
    fn names<'a>(
        &self,
        t: &'a FoundTranscript,
        attr: &Attribution,
        scan: &'a Scan,
    ) -> SessionNames<'a> {
        let working_directory = t.working_directory_ref();
        let custom_name = scan.custom_name(t, &self.name_keys(t, attr, &working_directory));
        // The summary title is looked for only when no name comes before it.
        let auto_name = t.facts.auto_name_with(|| scan.summary_title(t));
        SessionNames { session_id: &t.session_id, custom_name, auto_name, working_directory }
    }

    /// Builds the listing shape of one transcript.
    pub fn summarize(
        &self,
        t: &FoundTranscript,
        attr: &Attribution,
        scan: &Scan,
    ) -> SessionSummary {
        let SessionNames { custom_name, auto_name, working_directory, .. } =
            self.names(t, attr, scan);
        let (custom_name, auto_name) =
            (custom_name.map(str::to_owned), auto_name.map(str::to_owned));
        let working_directory = working_directory.into_owned();
        let (resumable, not_resumable_reason) = self.resumability(t, attr);
        let continuation = scan.continuation(t);
        let encoded_path = if t.docker {
            format!("docker:{}", attr.agent_name.as_deref().unwrap_or_default())
        } else {
            t.folder.clone()
        };
        SessionSummary {
            session_id: t.session_id.clone(),
            working_directory,
            encoded_path,
            transcript_path: t.path.to_string_lossy().into_owned(),
            mtime: crate::time::iso_system(t.mtime()),
            origin: attr.origin,
            agent_name: attr.agent_name.clone(),
            resumable,
            not_resumable_reason,
            custom_name,
            auto_name,
            continued_from: continuation.from,
            continued_in: continuation.into,
            preview: t.facts.preview.clone(),
            git_branch: t.facts.git_branch.clone(),
            claude_code_version: t.facts.version.clone(),
            first_message_at: t.facts.first_message_at.clone(),
            last_message_at: t.facts.last_message_at.clone(),
            message_count: t.facts.message_count,
            rewound_prompts: t.facts.rewound_prompts,
            tokens: t.facts.tokens,
            size_bytes: t.size(),
        }
    }

    /// Resumable only when the transcript sits in the owning agent's own folder (not docker);
    /// a session nobody owns is resumable where it is.
    fn resumability(
        &self,
        t: &FoundTranscript,
        attr: &Attribution,
    ) -> (bool, Option<NotResumableReason>) {
        if t.docker {
            return (false, Some(NotResumableReason::Docker));
        }
        let agent = attr.agent_name.as_deref().and_then(|n| self.fleet.as_ref()?.agent(n));
        match agent {
            Some(a) if a.docker => (false, Some(NotResumableReason::Docker)),
            Some(a) => match a.working_directory.as_deref() {
                Some(wd) if paths::folder_is_for(&t.folder, &wd.to_string_lossy()) => (true, None),
                _ => (false, Some(NotResumableReason::OutsideAgentFolder)),
            },
            None => (true, None),
        }
    }

    /// True when `folder` (a projects bucket) is the agent's own folder or one of its worktree
    /// folders, confirmed by the transcript's recorded cwd where the encoding is ambiguous.
    pub fn folder_belongs_to_agent(agent: &Agent, folder: &str, cwd: Option<&str>) -> bool {
        let Some(wd) = agent.working_directory.as_deref() else { return false };
        let wd = wd.to_string_lossy();
        if paths::folder_is_for(folder, &wd) {
            return true;
        }
        paths::folder_is_descendant_of(folder, &wd)
            && cwd.is_some_and(|c| paths::cwd_is_within(c, &wd))
    }
}

/// One of a session's subagent runs.
fn run_of(t: &FoundTranscript, agent_id: &str) -> Result<SubagentInfo> {
    if !subagents::valid_agent_id(agent_id) {
        return Err(Error::InvalidInput(format!("invalid subagent id {agent_id:?}")));
    }
    subagents::subagent(&t.path, &t.session_id, agent_id).ok_or_else(|| Error::SubagentNotFound {
        session_id: t.session_id.clone(),
        agent_id: agent_id.to_owned(),
    })
}

/// The lines a view of the resumed branch reads: all but the rewound ones.
fn lines_off(branches: Option<&Branches>) -> Lines {
    match branches {
        Some(b) if !b.hidden.is_empty() => Lines::Except(Arc::clone(&b.hidden)),
        _ => Lines::All,
    }
}

/// The ids of a session's subagent runs that have a transcript on disk.
fn runs_on_disk(t: &FoundTranscript) -> std::collections::HashSet<String> {
    subagents::list_subagents(&t.path, &t.session_id).into_iter().map(|s| s.agent_id).collect()
}

/// Marks the tool calls whose subagent run is not among `runs`.
fn mark_runs(runs: &std::collections::HashSet<String>, messages: &mut [TranscriptMessage]) {
    for call in messages.iter_mut().filter_map(|m| m.tool_call.as_mut()) {
        if let Some(id) = &call.subagent_id {
            call.subagent_missing = !runs.contains(id);
        }
    }
}

/// The mark a page shows where a rewound branch was replaced.
fn rewind_mark(path: &Path, r: &Rewind) -> RewindMark {
    let first_prompt =
        r.first_prompt.and_then(|o| facts::prompt_preview_at(path, o).ok().flatten());
    RewindMark {
        at: r.at,
        branch: r.branch,
        prompts: r.prompts,
        messages: r.messages,
        first_prompt,
    }
}

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

/// Reads the changed transcripts in parallel, each from where it left off, into the index and
/// the listing. One that vanished since it was listed is left out; one unreadable is a warning.
fn scan_changed(
    index: &mut ListingIndex,
    to_scan: Vec<(Candidate, Option<(u64, FactsScanner)>)>,
    transcripts: &mut Vec<FoundTranscript>,
    warnings: &mut Vec<Warning>,
) {
    let scanned: Vec<(Candidate, std::io::Result<facts::ScanOutcome>)> = to_scan
        .into_par_iter()
        .map(|(c, resume)| {
            let r = facts::scan_file(&c.path, resume);
            (c, r)
        })
        .collect();
    for (c, result) in scanned {
        match result {
            Ok(outcome) => {
                let entry = IndexEntry::new(c.stamp, outcome.offset, &outcome.scanner);
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
struct Candidate {
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
        };
        found.activity_ms = found
            .facts
            .last_message_at
            .as_deref()
            .map_or_else(|| crate::time::system_millis(found.mtime()), crate::time::millis)
            .unwrap_or(0);
        found
    }
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

fn same_dir(a: &Path, b: &Path) -> bool {
    let trim = |p: &Path| p.to_string_lossy().trim_end_matches(['/', '\\']).to_owned();
    trim(a) == trim(b)
}

fn poisoned() -> Error {
    Error::io("the catalog cache lock was poisoned", std::io::Error::other("poisoned lock"))
}
