//! What the committed documents describe: every transcript file (how far it was read) and every
//! session's names. It is written beside the index as `state-<opstamp>.bin` (postcard, with a
//! checksum) before the commit that names it, so tantivy's own metadata stays small (it is read
//! on every reload) and the state is decoded once per commit, not once per query.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::transcript::text::TextExtractor;

/// The state's format; another one means the index is rebuilt.
/// 3: a fork subagent's copy of the main conversation is no longer indexed in the run.
/// 4: the change time and a CRC of everything read, in place of a hash of the last KiB.
/// 5: a subagent's result is indexed as its report, without Claude Code's hand-back frame.
pub(super) const STATE_VERSION: u32 = 5;
/// State files are `state-<opstamp>.bin`.
const PREFIX: &str = "state-";
const SUFFIX: &str = ".bin";

/// What the index knows of one transcript file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct FileState {
    pub session_id: String,
    pub size: u64,
    pub mtime_ns: i64,
    /// The status change time (0 where the platform has none): see [`crate::index::FileStamp`].
    pub ctime_ns: i64,
    pub identity: Option<(u64, u64)>,
    /// Bytes read (up to the end of the last complete line).
    pub offset: u64,
    /// CRC-32 of every byte before `offset`: a file that changed is read again from where it
    /// was left only when all of that is as it was (an append), from the start otherwise.
    pub crc: u32,
    pub extractor: TextExtractor,
}

/// Every file and session the committed documents describe.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct Payload {
    pub files: BTreeMap<String, FileState>,
    /// Session id → hash of what its names document holds.
    pub sessions: BTreeMap<String, u64>,
}

/// What a commit records in tantivy's metadata: which state file goes with it, and enough to
/// check that file and to answer "how many sessions are indexed" without reading it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Committed {
    pub version: u32,
    pub state: String,
    pub sessions: u64,
    pub len: u64,
    pub sum: u64,
    /// [`Payload::fingerprint`] of the state: equal to the fingerprint of the files as they
    /// are now exactly when nothing needs reading (checked without decoding the state).
    pub fingerprint: u64,
    /// Made during an update that had not finished (progress kept every few seconds): what it
    /// answers is partial.
    #[serde(default)]
    pub partial: bool,
}

impl Payload {
    /// Sessions it holds anything of: their names, or messages of a file read so far (while an
    /// update goes on, names are written at its end).
    pub(super) fn session_count(&self) -> u64 {
        let files = self.files.values().map(|f| f.session_id.as_str());
        let all: std::collections::BTreeSet<&str> =
            files.chain(self.sessions.keys().map(String::as_str)).collect();
        all.len() as u64
    }

    /// An order-free digest of every file's stamp and every session's names.
    pub(super) fn fingerprint(&self) -> u64 {
        let files = self.files.iter().map(|(key, f)| {
            let ino = f.identity.map_or(0, |(_, ino)| ino);
            file_print(
                key,
                &f.session_id,
                Stamp { size: f.size, mtime_ns: f.mtime_ns, ctime_ns: f.ctime_ns, ino },
            )
        });
        let names = self.sessions.iter().map(|(sid, hash)| names_print(sid, *hash));
        combine(files.chain(names))
    }
}

/// The key a file is indexed under: its path as text (for a path that is not valid UTF-8, its
/// lossy form, as `Path::display` writes it).
pub(super) fn file_key(path: &std::path::Path) -> std::borrow::Cow<'_, str> {
    path.to_str().map_or_else(|| path.display().to_string().into(), Into::into)
}

/// What a fingerprint takes of a file's `stat`: its size, times and inode (0 where the platform
/// has none). The device is left out, so that the listing's `stat` serves too.
#[derive(Debug, Clone, Copy)]
pub(super) struct Stamp {
    pub size: u64,
    pub mtime_ns: i64,
    pub ctime_ns: i64,
    pub ino: u64,
}

/// One file's part of a fingerprint: its path, session and [`Stamp`].
pub(super) fn file_print(key: &str, session_id: &str, st: Stamp) -> u64 {
    let mut b = Vec::with_capacity(key.len() + session_id.len() + 48);
    b.extend_from_slice(key.as_bytes());
    b.push(0);
    b.extend_from_slice(session_id.as_bytes());
    b.push(0);
    b.extend_from_slice(&st.size.to_le_bytes());
    b.extend_from_slice(&st.mtime_ns.to_le_bytes());
    b.extend_from_slice(&st.ctime_ns.to_le_bytes());
    b.extend_from_slice(&st.ino.to_le_bytes());
    crate::index::checksum(&b)
}

/// One session's names part of a fingerprint.
pub(super) fn names_print(session_id: &str, names_hash: u64) -> u64 {
    let mut b = Vec::with_capacity(session_id.len() + 9);
    b.push(1);
    b.extend_from_slice(session_id.as_bytes());
    b.extend_from_slice(&names_hash.to_le_bytes());
    crate::index::checksum(&b)
}

/// Parts combined in any order (each part is already a well-mixed hash).
pub(super) fn combine(parts: impl Iterator<Item = u64>) -> u64 {
    parts.fold(Prints::default(), Prints::with).finish()
}

/// Parts of a fingerprint added up so far: a fingerprint's worth of them, or some files' share.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Prints {
    sum: u64,
    count: u64,
}

impl Prints {
    /// With one more part.
    pub(super) fn with(self, part: u64) -> Self {
        Self { sum: self.sum.wrapping_add(part), count: self.count + 1 }
    }

    /// With `other`'s parts too.
    pub(super) fn and(self, other: Self) -> Self {
        Self { sum: self.sum.wrapping_add(other.sum), count: self.count + other.count }
    }

    /// How many parts.
    pub(super) fn count(self) -> u64 {
        self.count
    }

    /// The fingerprint of these parts.
    pub(super) fn finish(self) -> u64 {
        self.sum ^ self.count.wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }
}

/// Writes `payload` as the state of the commit `opstamp` (atomically: a crash leaves the old
/// file or a whole new one, never a torn one); `partial` while its update goes on.
pub(super) fn write(
    dir: &Path,
    opstamp: u64,
    payload: &Payload,
    partial: bool,
) -> Result<Committed> {
    let bytes = postcard::to_allocvec(payload)
        .map_err(|e| super::index_error(format!("cannot encode the index state: {e}")))?;
    let committed = Committed {
        version: STATE_VERSION,
        state: format!("{PREFIX}{opstamp}{SUFFIX}"),
        sessions: payload.session_count(),
        len: bytes.len() as u64,
        sum: crate::index::checksum(&bytes),
        fingerprint: payload.fingerprint(),
        partial,
    };
    crate::atomic_write::write_atomic(&dir.join(&committed.state), &bytes)?;
    Ok(committed)
}

/// The state `committed` names; `None` when it is missing, torn, damaged or of another format.
pub(super) fn read(dir: &Path, committed: &Committed) -> Option<Payload> {
    if committed.version != STATE_VERSION || !is_state_name(&committed.state) {
        return None;
    }
    // Through the engine's one opener (a FIFO or device there is refused), no larger than the
    // commit says.
    let bytes = crate::files::read_bounded(&dir.join(&committed.state), committed.len).ok()?;
    if bytes.len() as u64 != committed.len || crate::index::checksum(&bytes) != committed.sum {
        return None;
    }
    postcard::from_bytes(&bytes).ok()
}

/// Removes state files other than `keep` (the new commit's and the one before it, which a
/// reader in another process may be about to open).
pub(super) fn remove_others(dir: &Path, keep: &[&str]) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        if is_state_name(name) && !keep.contains(&name) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// `state-<digits>.bin`, nothing else (a name read from metadata never leaves the folder).
pub(super) fn is_state_name(name: &str) -> bool {
    name.strip_prefix(PREFIX)
        .and_then(|n| n.strip_suffix(SUFFIX))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The last decoded state, by the name of its file (one decode per commit, shared by queries).
#[derive(Debug, Default)]
pub(super) struct Cache(Mutex<Option<(String, Arc<Payload>)>>);

impl Cache {
    /// The state of `committed`, decoded once.
    pub(super) fn get(&self, dir: &Path, committed: &Committed) -> Option<Arc<Payload>> {
        let mut slot = self.0.lock().ok()?;
        if let Some((name, p)) = slot.as_ref()
            && *name == committed.state
        {
            return Some(Arc::clone(p));
        }
        let p = Arc::new(read(dir, committed)?);
        *slot = Some((committed.state.clone(), Arc::clone(&p)));
        Some(p)
    }

    /// Remembers the state just committed (so the next query does not read it back).
    pub(super) fn put(&self, committed: &Committed, payload: Payload) {
        if let Ok(mut slot) = self.0.lock() {
            *slot = Some((committed.state.clone(), Arc::new(payload)));
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn payload() -> Payload {
        let mut p = Payload::default();
        p.sessions.insert("s1".into(), 7);
        p.files.insert(
            "/x/s1.jsonl".into(),
            FileState {
                session_id: "s1".into(),
                size: 10,
                mtime_ns: 5,
                ctime_ns: 6,
                identity: Some((1, 2)),
                offset: 10,
                crc: 7,
                extractor: TextExtractor::new(false),
            },
        );
        p
    }

    #[test]
    fn a_state_reads_back_and_a_damaged_one_is_not_believed() {
        let tmp = tempfile::tempdir().unwrap();
        let c = write(tmp.path(), 42, &payload(), false).unwrap();
        assert_eq!(c.state, "state-42.bin");
        let back = read(tmp.path(), &c).unwrap();
        assert_eq!(back.files, payload().files);
        assert_eq!(back.sessions, payload().sessions);

        // One flipped byte, a torn file, a name that leaves the folder, another format.
        let path = tmp.path().join(&c.state);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[3] ^= 0x40;
        std::fs::write(&path, &bytes).unwrap();
        assert!(read(tmp.path(), &c).is_none());
        std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        assert!(read(tmp.path(), &c).is_none());
        let escape = Committed { state: "../state-1.bin".into(), ..c.clone() };
        assert!(read(tmp.path(), &escape).is_none());
        let c2 = write(tmp.path(), 43, &payload(), false).unwrap();
        assert!(read(tmp.path(), &Committed { version: 1, ..c2.clone() }).is_none());

        #[cfg(unix)]
        {
            // A FIFO where the state should be: refused at once, never waited on.
            let fifo = tmp.path().join("state-44.bin");
            assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
            assert!(
                read(tmp.path(), &Committed { state: "state-44.bin".into(), ..c2.clone() })
                    .is_none()
            );
        }

        remove_others(tmp.path(), &["state-43.bin"]);
        assert!(!path.exists());
        assert!(tmp.path().join("state-43.bin").exists());
    }
}
