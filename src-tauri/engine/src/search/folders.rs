//! What the index remembers of the folders it looks through for subagent transcripts: every
//! project folder, every session folder's `subagents/` (and its workflow runs), and which session
//! each flat `agent-*.jsonl` file names. Finding them anew reads thousands of folders and file
//! heads; an update that finds nothing changed should cost a `stat` of each instead.
//!
//! A folder's entries are reused while its modification time is unchanged, and only when that
//! time is older than the read by more than [`RACY`] (a change made in the same tick of a coarse
//! clock would not move it: such a folder is read again each time until it settles). A flat
//! agent file's session is reused while its folder is unchanged, or while the file is the same
//! (device and inode) in a folder that changed; its first lines are not rewritten in place.
//!
//! It also remembers each settled session: one whose main transcript and every subagent
//! transcript had been left alone for [`QUIET`] when they were looked at, with their part of
//! the index's fingerprint. Subagent transcripts are written (and made) only while their
//! session runs, and a session that runs again writes its main transcript first (the call that
//! starts or resumes a subagent is a line of it); so while the main transcript is exactly as it
//! was then, the remembered part may stand for its subagents when an update is asked to trust
//! it ([`super::UpdateOptions::trust_quiet`]), and their folders are not looked at. What that
//! misses — lines a paused run writes after an hour without its main transcript, or a subagent
//! file a person deletes — is seen when the main transcript next changes, or by an update that
//! trusts nothing.
//!
//! The memory is kept in `folders.bin` beside the index (postcard
//! with a checksum, written atomically): missing, damaged or of another version, it is simply
//! empty. Two processes may write it in turn; whichever wrote last is kept, and every entry is
//! checked before use, so a lost write costs only reads.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use super::state::Prints;
use crate::index::{FileStamp, mtime_ns};
use crate::transcript::subagents::{self, Entries, Lookups};

/// The file beside the index.
const FILE: &str = "folders.bin";
/// Its format; another is ignored.
/// 3: settled sessions. 4: their stamps hold the change time.
const VERSION: u32 = 4;
/// Largest file read back (a cache: a larger one is ignored).
const MAX_BYTES: u64 = 256 * 1024 * 1024;
/// How much older than its read a folder's modification time must be for the read to be reused.
const RACY: Duration = Duration::from_secs(2);
/// How long a session's transcripts must have been left alone for it to be remembered settled
/// (see the module documentation). A run pauses for longer only when its machine sleeps or it
/// waits on a person.
pub(super) const QUIET: Duration = Duration::from_secs(60 * 60);

/// One folder's remembered read.
#[derive(Debug, Clone)]
struct Folder {
    mtime_ns: i128,
    entries: Arc<Entries>,
    /// Looked at since the last save (what was not is forgotten then).
    used: bool,
    /// Its last look found it unchanged: the sessions its flat agent files name stand too.
    unchanged: bool,
}

/// A flat agent file's remembered session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Head {
    dev: u64,
    ino: u64,
    session_id: String,
    #[serde(skip)]
    used: bool,
}

/// A settled session: its main transcript's `stat` then, and its subagents' part of the
/// fingerprint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Settled {
    main: FileStamp,
    subagents: Prints,
    #[serde(skip)]
    used: bool,
}

/// Keyed by path bytes (a `Path` hashes component by component: slower than the lookup).
#[derive(Debug, Default)]
struct Memory {
    folders: HashMap<OsString, Folder>,
    heads: HashMap<OsString, Head>,
    /// By [`path_key`] of the main transcript: ten thousand paths cost more to read back than
    /// the `stat`s they save.
    settled: HashMap<u64, Settled>,
}

/// The remembered reads of one index (see the module documentation).
#[derive(Debug)]
pub(super) struct Folders {
    file: PathBuf,
    memory: OnceLock<Mutex<Memory>>,
    changed: AtomicBool,
}

impl Folders {
    pub(super) fn new(index_dir: &Path) -> Self {
        Self {
            file: index_dir.join(FILE),
            memory: OnceLock::new(),
            changed: AtomicBool::new(false),
        }
    }

    fn memory(&self) -> &Mutex<Memory> {
        self.memory.get_or_init(|| Mutex::new(load(&self.file).unwrap_or_default()))
    }

    /// Writes the memory back if anything changed (a failure only means reading the folders
    /// again next time). With `prune` (when every listed session's folders were looked at),
    /// first forgets what was not looked at since the last pruning save: folders, files and
    /// sessions no listed session has any more.
    pub(super) fn save(&self, prune: bool) {
        let Ok(mut m) = self.memory().lock() else { return };
        let mut pruned = false;
        if prune {
            let before = (m.folders.len(), m.heads.len(), m.settled.len());
            m.folders.retain(|_, f| std::mem::take(&mut f.used));
            m.heads.retain(|_, h| std::mem::take(&mut h.used));
            m.settled.retain(|_, q| std::mem::take(&mut q.used));
            pruned = before != (m.folders.len(), m.heads.len(), m.settled.len());
        }
        if !self.changed.swap(false, Ordering::AcqRel) && !pruned {
            return;
        }
        let bytes = encode(&m);
        drop(m);
        let _ = crate::atomic_write::write_atomic(&self.file, &bytes);
    }

    /// The subagents' part of the fingerprint of the session whose main transcript is `main`,
    /// when it was settled and that transcript is still as it was then (`stamp`, as `stat`ed
    /// now).
    pub(super) fn settled(&self, main: &Path, stamp: FileStamp) -> Option<Prints> {
        let mut m = self.memory().lock().ok()?;
        let q = m.settled.get_mut(&path_key(main)).filter(|q| q.main == stamp)?;
        q.used = true;
        Some(q.subagents)
    }

    /// Remembers the session whose main transcript is `main` (`stat`ed now, `now_ns`, as
    /// `stamp`) as settled with `subagents` if it and every one of its subagent transcripts
    /// (`times`, their modification times) have been left alone for [`QUIET`]; forgets it
    /// otherwise.
    pub(super) fn look_at(
        &self,
        main: &Path,
        stamp: FileStamp,
        subagents: Prints,
        mut times: impl Iterator<Item = i128>,
        now_ns: i128,
    ) {
        let quiet = i128::try_from(QUIET.as_nanos()).unwrap_or(i128::MAX);
        let left_alone = |t: i128| t > 0 && t.saturating_add(quiet) < now_ns;
        let settled = left_alone(stamp.mtime_ns) && times.all(left_alone);
        let Ok(mut m) = self.memory().lock() else { return };
        let changed = if settled {
            let old =
                m.settled.insert(path_key(main), Settled { main: stamp, subagents, used: true });
            old.is_none_or(|o| (o.main, o.subagents) != (stamp, subagents))
        } else {
            m.settled.remove(&path_key(main)).is_some()
        };
        if changed {
            self.changed.store(true, Ordering::Release);
        }
    }
}

impl Lookups for Folders {
    fn entries(&self, dir: &Path) -> Option<Arc<Entries>> {
        let meta = std::fs::metadata(dir).ok().filter(std::fs::Metadata::is_dir);
        let Some(meta) = meta else {
            if let Ok(mut m) = self.memory().lock()
                && m.folders.remove(dir.as_os_str()).is_some()
            {
                self.changed.store(true, Ordering::Release);
            }
            return None;
        };
        let mtime = FileStamp::of(&meta).mtime_ns;
        if let Ok(mut m) = self.memory().lock()
            && let Some(f) = m.folders.get_mut(dir.as_os_str())
            && f.mtime_ns == mtime
        {
            f.used = true;
            f.unchanged = true;
            return Some(Arc::clone(&f.entries));
        }
        let read_at = mtime_ns(Some(SystemTime::now()));
        let entries = Arc::new(Entries::read(dir)?);
        // A folder changed moments before the read may change again without its time moving.
        let settled =
            mtime.saturating_add(RACY.as_nanos().try_into().unwrap_or(i128::MAX)) < read_at;
        if let Ok(mut m) = self.memory().lock() {
            // A folder still settling is not remembered (nor written out again for it: a live
            // session's folder changes often).
            let changed = if settled {
                let folder = Folder {
                    mtime_ns: mtime,
                    entries: Arc::clone(&entries),
                    used: true,
                    unchanged: false,
                };
                m.folders.insert(dir.as_os_str().to_owned(), folder);
                true
            } else {
                m.folders.remove(dir.as_os_str()).is_some()
            };
            if changed {
                self.changed.store(true, Ordering::Release);
            }
        }
        Some(entries)
    }

    fn head_session_id(&self, path: &Path) -> Option<String> {
        // In a folder found unchanged, a file is the one whose head was read (a file replaced
        // or renamed into place changes its folder's time); elsewhere its identity is checked.
        if let Ok(mut m) = self.memory().lock()
            && path.parent().and_then(|d| m.folders.get(d.as_os_str())).is_some_and(|f| f.unchanged)
            && let Some(h) = m.heads.get_mut(path.as_os_str())
        {
            h.used = true;
            return Some(h.session_id.clone());
        }
        // Where the platform gives no file identity, a head is read each time it is asked for.
        let identity = crate::files::FileIdentity::dev_ino(&std::fs::metadata(path).ok()?);
        if let Some(id) = identity
            && let Ok(mut m) = self.memory().lock()
            && let Some(h) = m.heads.get_mut(path.as_os_str())
            && (h.dev, h.ino) == id
        {
            h.used = true;
            return Some(h.session_id.clone());
        }
        // A file whose first lines name no session yet is read again next time.
        let session_id = subagents::head_session_id(path)?;
        if let Some((dev, ino)) = identity
            && let Ok(mut m) = self.memory().lock()
        {
            let head = Head { dev, ino, session_id: session_id.clone(), used: true };
            m.heads.insert(path.as_os_str().to_owned(), head);
            self.changed.store(true, Ordering::Release);
        }
        Some(session_id)
    }
}

/// The memory on disk. Paths and names are kept as text: a folder or file whose path is not
/// valid UTF-8 is not remembered (it is read each time, as before).
#[derive(Debug, Default, Serialize, Deserialize)]
struct Stored {
    version: u32,
    folders: Vec<StoredFolder>,
    heads: Vec<(String, Head)>,
    settled: Vec<(u64, Settled)>,
}

#[derive(Debug, Serialize, Deserialize)]
struct StoredFolder {
    path: String,
    mtime_ns: i128,
    agents: Vec<String>,
    maybe_folders: Vec<String>,
    folders: Vec<String>,
}

fn encode(m: &Memory) -> Vec<u8> {
    let text = |names: &mut dyn Iterator<Item = &OsString>| -> Option<Vec<String>> {
        names.map(|n| n.to_str().map(str::to_owned)).collect()
    };
    let folders = m
        .folders
        .iter()
        .filter_map(|(path, f)| {
            Some(StoredFolder {
                path: path.to_str()?.to_owned(),
                mtime_ns: f.mtime_ns,
                agents: f.entries.agents.clone(),
                maybe_folders: text(&mut f.entries.maybe_folders.iter())?,
                folders: text(&mut f.entries.folders.iter())?,
            })
        })
        .collect();
    let heads =
        m.heads.iter().filter_map(|(p, h)| Some((p.to_str()?.to_owned(), h.clone()))).collect();
    let settled = m.settled.iter().map(|(k, q)| (*k, *q)).collect();
    let stored = Stored { version: VERSION, folders, heads, settled };
    let payload = postcard::to_allocvec(&stored).unwrap_or_default();
    let mut out = crate::index::checksum(&payload).to_le_bytes().to_vec();
    out.extend_from_slice(&payload);
    out
}

fn load(file: &Path) -> Option<Memory> {
    let bytes = crate::files::read_bounded(file, MAX_BYTES).ok()?;
    let (sum, payload) = bytes.split_first_chunk::<8>()?;
    if u64::from_le_bytes(*sum) != crate::index::checksum(payload) {
        return None;
    }
    let stored: Stored = postcard::from_bytes(payload).ok()?;
    if stored.version != VERSION {
        return None;
    }
    // What a damaged or altered file says is checked like what a folder says: agent ids as
    // discovery accepts them, sub-folders one plain name each (never a way out of the folder).
    let folders = stored
        .folders
        .into_iter()
        .filter(|f| f.folders.iter().all(|n| one_name(n)))
        .map(|f| {
            let entries = Entries {
                agents: f.agents.into_iter().filter(|a| subagents::valid_agent_id(a)).collect(),
                maybe_folders: f
                    .maybe_folders
                    .into_iter()
                    .map(OsString::from)
                    .collect::<HashSet<_>>(),
                folders: f.folders.into_iter().map(OsString::from).collect(),
            };
            let folder = Folder {
                mtime_ns: f.mtime_ns,
                entries: Arc::new(entries),
                used: false,
                unchanged: false,
            };
            (OsString::from(f.path), folder)
        })
        .collect();
    let heads = stored.heads.into_iter().map(|(p, h)| (OsString::from(p), h)).collect();
    let settled = stored.settled.into_iter().collect();
    Some(Memory { folders, heads, settled })
}

/// A main transcript's key among the settled sessions: a 64-bit hash of its path's bytes
/// (SipHash with fixed keys; should the standard library change it, the memory is merely not
/// found). Two of ten thousand paths share one with odds of about 1 in 10¹¹, and must then also
/// share their `stat` to be confused.
fn path_key(path: &Path) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    path.as_os_str().as_encoded_bytes().hash(&mut h);
    h.finish()
}

/// A single, plain file name.
fn one_name(name: &str) -> bool {
    let mut parts = Path::new(name).components();
    matches!(parts.next(), Some(std::path::Component::Normal(n)) if n == name)
        && parts.next().is_none()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::ffi::OsStr;

    fn age(dir: &Path) {
        let old = SystemTime::now() - Duration::from_secs(60);
        std::fs::File::open(dir).unwrap().set_modified(old).unwrap();
    }

    #[test]
    fn a_folder_changed_moments_ago_is_read_again_until_it_settles() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("subagents");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("agent-a1.jsonl"), b"{}\n").unwrap();
        let folders = Folders::new(tmp.path());
        assert_eq!(folders.entries(&dir).unwrap().agents, ["a1"]);
        assert!(folders.memory().lock().unwrap().folders.is_empty(), "too fresh to trust");
        age(&dir);
        assert_eq!(folders.entries(&dir).unwrap().agents, ["a1"]);
        assert_eq!(folders.memory().lock().unwrap().folders.len(), 1);
        // Saved and loaded by another process, it is the same read.
        folders.save(true);
        let again = Folders::new(tmp.path());
        assert_eq!(again.memory().lock().unwrap().folders.len(), 1);
        // A file added moves the folder's time: read again.
        std::fs::write(dir.join("agent-a2.jsonl"), b"{}\n").unwrap();
        assert_eq!(again.entries(&dir).unwrap().agents, ["a1", "a2"]);
        // What no update looked at is kept by a save that prunes nothing, and forgotten by one
        // that does.
        let unused = Folders::new(tmp.path());
        unused.save(false);
        assert_eq!(load(&tmp.path().join(FILE)).unwrap().folders.len(), 1);
        unused.save(true);
        assert!(load(&tmp.path().join(FILE)).unwrap().folders.is_empty());
    }

    #[test]
    fn an_altered_file_cannot_lead_out_of_a_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let entries = |folders: &[&str]| Folder {
            mtime_ns: 1,
            entries: Arc::new(Entries {
                agents: vec!["a1".to_owned(), "../../x".to_owned()],
                maybe_folders: HashSet::new(),
                folders: folders.iter().map(OsString::from).collect(),
            }),
            used: true,
            unchanged: false,
        };
        let mut m = Memory::default();
        m.folders.insert(OsString::from("/w/ok"), entries(&["run-1"]));
        m.folders.insert(OsString::from("/w/bad"), entries(&["run-1", "../../etc"]));
        std::fs::write(tmp.path().join(FILE), encode(&m)).unwrap();
        let loaded = load(&tmp.path().join(FILE)).unwrap();
        assert_eq!(loaded.folders.len(), 1, "the folder naming a way out is dropped");
        let ok = loaded.folders.get(OsStr::new("/w/ok")).unwrap();
        assert_eq!(ok.entries.agents, ["a1"], "an agent id discovery would refuse is dropped");
        // A damaged file is not believed.
        let mut bytes = std::fs::read(tmp.path().join(FILE)).unwrap();
        if let Some(b) = bytes.last_mut() {
            *b ^= 1;
        }
        std::fs::write(tmp.path().join(FILE), bytes).unwrap();
        assert!(load(&tmp.path().join(FILE)).is_none());
        assert!(one_name("run-1") && !one_name("..") && !one_name("a/b") && !one_name(""));
    }
}
