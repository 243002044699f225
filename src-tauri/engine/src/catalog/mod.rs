//! The catalog: one opened view of a Claude home, an optional fleet, its state dir and Corral's
//! data dir. It discovers, attributes, names and reads sessions.
//!
//! Discovery walks `<claude home>/projects/<folder>/*.jsonl` (top level only) and the fleet's
//! `docker-sessions/`, validates every transcript against the persistent [`ListingIndex`] with a
//! `stat`, scans only what changed (in parallel, resuming appended files), then attributes each
//! session and applies the user's names. Browsing never writes into the fleet's state dir; the
//! only write is Corral's own index, in its data dir.
//!
//! Here: the catalog's types, opening it, and summarizing and naming one session. `scan` is
//! discovery, `listing` the listings built on a scan, `read` everything that reads one session's
//! transcript. Each adds to `impl Catalog`; `listing` and `read` build on `scan`'s pass.

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
    AgentSummary, AttachmentData, Attribution, Cost, DirectoryGroup, MessagePage, ModelUsage,
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

mod listing;
mod progress;
mod read;
mod runs;
mod scan;

pub use progress::{ListingSoFar, ScanObserver, ScanProgress};
pub(crate) use progress::{ObserverSlot, Provisional};

/// Where everything lives. Every path computation starts from these values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogConfig {
    /// The Claude home: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
    pub claude_home: PathBuf,
    /// The herdctl fleet file (`herdctl.yaml`), if one is open.
    pub fleet_file: Option<PathBuf>,
    /// Overrides the state dir (default: `<fleet dir>/.herdctl`, or `<data dir>/state` with no fleet).
    pub state_dir: Option<PathBuf>,
    /// Corral's own data: the listing index, the search index, runs and their backups.
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
    /// Sessions by working directory, newest folder first.
    pub groups: Vec<DirectoryGroup>,
    /// What could not be read, without failing the listing.
    pub warnings: Vec<Warning>,
    /// Sessions of temporary folders left out (`include_temp` unset).
    #[ts(type = "number")]
    pub left_out_temp: u64,
}

/// The transcript viewer's header data.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionDetails {
    /// The session as listings show it.
    pub summary: SessionSummary,
    /// Its token usage over the branch `claude --resume` continues.
    pub usage: Usage,
    /// Its subagents' transcripts.
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
    /// The name Corral shows.
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
    /// Absolute path of the transcript.
    pub path: PathBuf,
    /// The folder under `projects/` (or `docker:` for the fleet's docker-sessions folder).
    pub folder: String,
    /// The session id (the file name without `.jsonl`).
    pub session_id: String,
    /// What the pass's `stat` said (size, time, inode).
    pub stamp: FileStamp,
    /// It lives in the fleet's docker-sessions folder.
    pub docker: bool,
    /// Shared with the listing index (not copied per listing).
    pub facts: Arc<TranscriptFacts>,
    /// [`FoundTranscript::activity`] in ms since the epoch (0 when it does not parse): read
    /// once per pass, where a search ranks thousands of sessions by it.
    pub activity_ms: i64,
    /// Found by the walk of a pass under way and not read yet: `facts` are a stand-in (see
    /// [`Catalog::listing_so_far`]). Never set in a finished pass.
    pub pending: bool,
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
    /// Every transcript found, in discovery order.
    pub transcripts: Vec<FoundTranscript>,
    /// Who owns which session: herdctl's job records, platform bindings and adoption records.
    pub attribution: AttributionIndex,
    /// herdctl's custom names: agent key → session id → name.
    pub custom_names: HashMap<String, HashMap<String, String>>,
    /// When each metadata file holding a custom name was last written (by agent key): no name
    /// in it can be newer.
    pub custom_name_times: HashMap<String, SystemTime>,
    /// What could not be read.
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
    /// The session id.
    pub session_id: &'a str,
    /// The name a person gave it, if any.
    pub custom_name: Option<&'a str>,
    /// Claude Code's generated title, if any.
    pub auto_name: Option<&'a str>,
    /// The working directory it recorded.
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
    /// The full pass under way, as far as it has read (see [`Catalog::listing_so_far`]).
    provisional: Mutex<Option<Provisional>>,
    /// Told of each transcript a published pass reads.
    observer: ObserverSlot,
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
            provisional: Mutex::new(None),
            observer: ObserverSlot::default(),
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

    /// Where everything lives.
    pub fn config(&self) -> &CatalogConfig {
        &self.config
    }

    /// The Claude home.
    pub fn claude_home(&self) -> &Path {
        &self.config.claude_home
    }

    /// `<claude home>/projects`, where transcripts live.
    pub fn projects_dir(&self) -> PathBuf {
        paths::projects_dir(&self.config.claude_home)
    }

    /// Corral's data dir.
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

    /// The herdctl state dir in force (the fleet's `.herdctl`, or Corral's own with no fleet).
    pub fn state_dir(&self) -> &Path {
        &self.state_dir
    }

    /// The open fleet, if any.
    pub fn fleet(&self) -> Option<&Fleet> {
        self.fleet.as_ref()
    }

    /// The agent with this qualified name, or a typed error.
    pub fn agent(&self, name: &str) -> Result<&Agent> {
        let fleet = self.fleet.as_ref().ok_or(Error::NoFleet)?;
        fleet.agent(name).ok_or_else(|| Error::UnknownAgent(name.to_owned()))
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
            entrypoint: t.facts.entrypoint.clone(),
            first_message_at: t.facts.first_message_at.clone(),
            last_message_at: t.facts.last_message_at.clone(),
            message_count: t.facts.message_count,
            rewound_prompts: t.facts.rewound_prompts,
            tokens: t.facts.tokens,
            cost: t.facts.cost(),
            size_bytes: t.size(),
            pending: t.pending,
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

fn same_dir(a: &Path, b: &Path) -> bool {
    let trim = |p: &Path| p.to_string_lossy().trim_end_matches(['/', '\\']).to_owned();
    trim(a) == trim(b)
}

fn poisoned() -> Error {
    Error::io("the catalog cache lock was poisoned", std::io::Error::other("poisoned lock"))
}
