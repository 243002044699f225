//! What Corral may remove: only what it can prove it made.
//!
//! Corral's data dir can be any folder a person picks (Settings, `--data-dir`,
//! `$CORRAL_DATA_DIR`), and that folder may hold their own files beside Corral's. So nothing is
//! ever removed by a name prefix or because it "looks like" Corral's. Every removal of a folder
//! needs two proofs:
//!
//! 1. **an exact name** the caller knows (`search-v2`, never `search-v*`), and
//! 2. **a mark of Corral's own inside it**: the marker file [`MARKER`] naming the folder's kind,
//!    or — for folders an older Corral made before markers existed — a format file only Corral
//!    writes (see [`Proof`]);
//!
//! and then only entries whose names the folder's kind writes are unlinked, one by one (unlinking
//! never follows a link or opens a FIFO); anything else found there stops the removal with
//! [`Error::NotCorrals`] and is left as it was, folder and all.
//!
//! The data dir itself is *claimed* ([`claim_data_dir`]) before Corral writes or removes anything
//! in it: a marker is created when missing, so a folder Corral did not create says, from then on,
//! that Corral uses it.

use std::fs;
use std::io::{self, Read};
use std::path::Path;

use crate::error::{Error, Result};

/// The marker file: `{"owner":"corral","kind":"<kind>"}` (the kind in [`Kind::as_str`]).
pub const MARKER: &str = ".corral-owned";

/// Largest marker read (it is a few dozen bytes).
const MAX_MARKER_BYTES: u64 = 4096;

/// What a folder Corral made is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Corral's data dir.
    DataDir,
    /// A search index (`search-v<N>`).
    SearchIndex,
}

impl Kind {
    /// The folder name it is recorded as.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::DataDir => "data-dir",
            Self::SearchIndex => "search-index",
        }
    }

    fn marker_bytes(self) -> Vec<u8> {
        format!("{{\"owner\":\"corral\",\"kind\":\"{}\"}}\n", self.as_str()).into_bytes()
    }
}

/// How a folder without a marker can still be proven Corral's: a format file only Corral writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proof {
    /// Only the marker proves it.
    Marker,
    /// The marker, or (a search index an older Corral made) a regular `meta.json` whose schema
    /// has Corral's own fields.
    MarkerOrSearchMeta,
}

/// What the marker of `dir` says, if anything.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Mark {
    Absent,
    Of(Kind),
    /// A marker of another owner or kind, or not a readable regular file.
    Foreign(String),
}

fn read_mark(dir: &Path) -> Mark {
    let path = dir.join(MARKER);
    let file = match crate::files::open_regular_no_follow(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Mark::Absent,
        Err(e) => return Mark::Foreign(format!("its {MARKER} cannot be read: {e}")),
    };
    let mut bytes = Vec::new();
    if let Err(e) = file.take(MAX_MARKER_BYTES + 1).read_to_end(&mut bytes) {
        return Mark::Foreign(format!("its {MARKER} cannot be read: {e}"));
    }
    for kind in [Kind::DataDir, Kind::SearchIndex] {
        if bytes == kind.marker_bytes() {
            return Mark::Of(kind);
        }
    }
    Mark::Foreign(format!("its {MARKER} is not one Corral wrote for this"))
}

/// Whether `dir` is a real folder (not a link to one).
fn is_real_dir(dir: &Path) -> io::Result<bool> {
    Ok(fs::symlink_metadata(dir)?.file_type().is_dir())
}

/// Makes sure `dir` exists and carries the data-dir marker, creating both when missing. Called
/// before anything is written into or removed from a data dir; cheap when already claimed (one
/// read of a tiny file). `Ok(true)` when this call created the marker (a run that ends up
/// writing nothing takes it away again, see [`unclaim_data_dir`]).
pub fn claim_data_dir(dir: &Path) -> Result<bool> {
    fs::create_dir_all(dir).map_err(|e| Error::io_at("create folder", dir, e))?;
    match read_mark(dir) {
        Mark::Of(Kind::DataDir) => Ok(false),
        Mark::Absent => {
            let marker = dir.join(MARKER);
            // Exclusive: two processes claiming at once both succeed, neither replaces a file.
            let created = write_marker(&marker, Kind::DataDir)?;
            match read_mark(dir) {
                Mark::Of(Kind::DataDir) => Ok(created),
                _ => Err(Error::not_corrals(dir, "its marker could not be written")),
            }
        }
        Mark::Of(other) => Err(Error::not_corrals(
            dir,
            format!("it is a folder Corral made for something else ({})", other.as_str()),
        )),
        Mark::Foreign(why) => Err(Error::not_corrals(dir, why)),
    }
}

/// Creates the marker `path` whole or not at all: its bytes are written to a temp file first and
/// then linked to the name, which fails if the name is taken. So a process that finds the marker
/// never reads it half-written, and two processes marking at once both see the same one.
/// `Ok(false)` when it was already there.
fn write_marker(path: &Path, kind: Kind) -> Result<bool> {
    let tmp = crate::atomic_write::temp_sibling(path);
    crate::atomic_write::create_exclusive(&tmp, &kind.marker_bytes())?;
    let linked = fs::hard_link(&tmp, path);
    let _ = fs::remove_file(&tmp);
    match linked {
        Ok(()) => {
            if let Some(dir) = path.parent() {
                crate::atomic_write::sync_dir(dir);
            }
            Ok(true)
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        // A filesystem without hard links: an exclusive create (a reader may, for a moment, see
        // it empty and say so; the next call sees it whole).
        Err(_) => crate::atomic_write::create_exclusive(path, &kind.marker_bytes()),
    }
}

/// Removes the data-dir marker a [`claim_data_dir`] of this process created, when the work it
/// was claimed for wrote nothing after all (the folder is left as it was found).
pub fn unclaim_data_dir(dir: &Path) {
    if read_mark(dir) == Mark::Of(Kind::DataDir) {
        let _ = fs::remove_file(dir.join(MARKER));
    }
}

/// Creates the folder `dir` (its parent must exist) for `kind` with its marker, or checks that the
/// folder already there is Corral's of that kind — adopting, with a marker, one an older Corral
/// made when `proof` allows and `known` accepts every entry. A folder that is not provably Corral's
/// is an [`Error::NotCorrals`] and is left alone.
pub fn ensure_dir(dir: &Path, kind: Kind, proof: Proof, known: fn(&str) -> bool) -> Result<()> {
    match fs::create_dir(dir) {
        Ok(()) => {
            write_marker(&dir.join(MARKER), kind)?;
            return Ok(());
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(Error::io_at("create folder", dir, e)),
    }
    let entries = proven(dir, kind, proof, known)?;
    if entries.marked {
        return Ok(());
    }
    // An older Corral's folder (or an empty one another process just created): mark it.
    write_marker(&dir.join(MARKER), kind)?;
    match read_mark(dir) {
        Mark::Of(k) if k == kind => Ok(()),
        _ => Err(Error::not_corrals(dir, "its marker could not be written")),
    }
}

/// What [`proven`] found.
struct Entries {
    marked: bool,
    names: Vec<std::ffi::OsString>,
}

/// Checks that `dir` is a real folder of `kind` (by marker, or by `proof` when unmarked) holding
/// only entries `known` accepts (files, links or special files — never folders), and lists them.
/// An empty, unmarked folder is accepted (it holds nothing to lose).
fn proven(dir: &Path, kind: Kind, proof: Proof, known: fn(&str) -> bool) -> Result<Entries> {
    if !is_real_dir(dir).map_err(|e| Error::io_at("look at", dir, e))? {
        return Err(Error::not_corrals(dir, "it is not a folder (a link or a file)"));
    }
    let mark = read_mark(dir);
    let marked = match &mark {
        Mark::Of(k) if *k == kind => true,
        Mark::Of(k) => {
            return Err(Error::not_corrals(
                dir,
                format!("its marker says it is Corral's {}, not its {}", k.as_str(), kind.as_str()),
            ));
        }
        Mark::Foreign(why) => return Err(Error::not_corrals(dir, why.clone())),
        Mark::Absent => false,
    };
    let read = fs::read_dir(dir).map_err(|e| Error::io_at("list", dir, e))?;
    let mut names = Vec::new();
    let mut strangers = Vec::new();
    for entry in read {
        let entry = entry.map_err(|e| Error::io_at("list", dir, e))?;
        let name = entry.file_name();
        if name == MARKER {
            continue;
        }
        // The entry's own type (a link is not followed): a folder is never removed with it.
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        match name.to_str() {
            // The marker's own temp file (another process marking it right now) is Corral's.
            Some(n) if !is_dir && (known(n) || is_atomic_temp_of(n, |t| t == MARKER)) => {
                names.push(name);
            }
            _ => strangers.push(name.to_string_lossy().into_owned()),
        }
    }
    if !strangers.is_empty() {
        strangers.sort();
        let more = strangers.len().saturating_sub(3);
        strangers.truncate(3);
        let mut list = strangers.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(", ");
        if more > 0 {
            list.push_str(&format!(" and {more} more"));
        }
        return Err(Error::not_corrals(
            dir,
            format!("it holds {list}, which Corral did not write"),
        ));
    }
    let content =
        names.iter().filter(|n| n.to_str().is_some_and(|n| !is_atomic_temp_of(n, |t| t == MARKER)));
    if !marked && content.count() > 0 {
        // Marked meanwhile by the process that is filling it (it marks before it writes)?
        if read_mark(dir) == Mark::Of(kind) {
            return Ok(Entries { marked: true, names });
        }
        let by_format = proof == Proof::MarkerOrSearchMeta && is_corrals_search_meta(dir);
        if !by_format {
            return Err(Error::not_corrals(
                dir,
                format!("it has no {MARKER} marker and nothing in it proves Corral wrote it"),
            ));
        }
    }
    Ok(Entries { marked, names })
}

/// Removes the folder `dir` of `kind` if it is provably Corral's (see the module docs): each
/// entry `known` accepts is unlinked, the marker last, then the empty folder. Anything else in it
/// — a file of another name, a folder, a missing proof — stops the removal before anything is
/// removed, with an [`Error::NotCorrals`] that names it. Nothing at `dir` is success.
pub fn remove_dir(dir: &Path, kind: Kind, proof: Proof, known: fn(&str) -> bool) -> Result<()> {
    match fs::symlink_metadata(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io_at("look at", dir, e)),
        Ok(_) => {}
    }
    let entries = proven(dir, kind, proof, known)?;
    for name in &entries.names {
        let path = dir.join(name);
        match fs::remove_file(&path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => {
                return Err(Error::io_at("remove", &path, e));
            }
            _ => {}
        }
    }
    let marker = dir.join(MARKER);
    if let Err(e) = fs::remove_file(&marker)
        && e.kind() != io::ErrorKind::NotFound
    {
        return Err(Error::io_at("remove", &marker, e));
    }
    // Fails (and leaves the folder) if another process put something there meanwhile.
    fs::remove_dir(dir).map_err(|e| Error::io_at("remove folder", dir, e))
}

/// Whether `dir/meta.json` is a regular file whose tantivy schema has the fields only Corral's
/// search index has (every format so far).
fn is_corrals_search_meta(dir: &Path) -> bool {
    let Ok(bytes) = crate::files::read_bounded_no_follow(&dir.join("meta.json"), 16 << 20) else {
        return false;
    };
    let Ok(meta) = serde_json::from_slice::<serde_json::Value>(&bytes) else { return false };
    let fields: Vec<&str> = meta
        .get("schema")
        .and_then(|s| s.as_array())
        .map(|a| a.iter().filter_map(|f| f.get("name")?.as_str()).collect())
        .unwrap_or_default();
    let ours = ["session_hash", "tool_use_id", "excerpt", "names"];
    ours.iter().all(|f| fields.contains(f))
}

/// `.<target>.tmp.<pid>.<n>.<nanos>`: a temp file [`crate::atomic_write`] left for `target`
/// (accepted by `target_ok`) when its process died.
pub fn is_atomic_temp_of(name: &str, target_ok: impl Fn(&str) -> bool) -> bool {
    let Some(rest) = name.strip_prefix('.') else { return false };
    let mut parts = rest.rsplitn(4, '.');
    let (Some(nanos), Some(n), Some(pid), Some(head)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    digits(nanos) && digits(n) && digits(pid) && head.strip_suffix(".tmp").is_some_and(target_ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_atomic_temp_name_is_recognised_only_in_its_exact_shape() {
        let ok = |t: &str| t == "folders.bin";
        assert!(is_atomic_temp_of(".folders.bin.tmp.12.0.999", ok));
        assert!(!is_atomic_temp_of(".folders.bin.tmp.12.0.", ok));
        assert!(!is_atomic_temp_of("folders.bin.tmp.12.0.9", ok));
        assert!(!is_atomic_temp_of(".other.bin.tmp.12.0.9", ok));
        assert!(!is_atomic_temp_of(".folders.bin.tmpx.12.0.9", ok));
        assert!(!is_atomic_temp_of(".folders.bin.tmp.1a.0.9", ok));
    }
}
