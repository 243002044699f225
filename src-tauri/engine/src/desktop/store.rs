//! Reading the store: every `<account>/<org>/` folder (a sidebar, even with no entries) and every
//! `local_*.json` entry in it, each field optional and unknown fields kept. A folder that cannot
//! be read, a file that is not a regular file or not a JSON object, are warnings that name them;
//! nothing is dropped silently.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use super::is_uuid;
use crate::model::Warning;

/// Largest entry file read (real ones are a few kilobytes).
const MAX_ENTRY_BYTES: u64 = 4 * 1024 * 1024;
/// Longest text kept of an entry's field (ids and folders are far shorter; a title is cut).
const MAX_TEXT: usize = 4096;

/// A folder name of the store as found: shown (lossily decoded; the UI and CLI escape it), and
/// whether it is uuid-shaped — only then can it be a target.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct FolderName {
    /// The name, lossily decoded.
    pub name: String,
    /// It is uuid-shaped.
    pub uuid: bool,
}

impl FolderName {
    /// The folder name `raw`, as found.
    pub fn of(raw: &std::ffi::OsStr) -> Self {
        let name = raw.to_string_lossy().into_owned();
        let uuid = raw.to_str().is_some_and(is_uuid);
        Self { name, uuid }
    }
}

/// One sidebar entry (`local_<uuid>.json`). The fields Corral reads are copied out (text no
/// longer than `MAX_TEXT`, 4 KB: a longer id, folder or title is taken as absent, and a title is
/// cut); of the rest only a digest of each field's value is kept (what two copies differ in is
/// told from them), so an entry costs a few hundred bytes whatever its file holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The file name (`local_<uuid>.json`).
    pub file: String,
    /// Its path.
    pub path: PathBuf,
    /// The desktop app's own id for the conversation (`sessionId`).
    pub session_id: Option<String>,
    /// The Claude Code session it shows (`cliSessionId`).
    pub cli_session_id: Option<String>,
    /// The folder the conversation works in (`cwd`).
    pub cwd: Option<String>,
    /// The folder it was started in (`originCwd`).
    pub origin_cwd: Option<String>,
    /// Its git worktree (`worktreePath`), if any.
    pub worktree_path: Option<String>,
    /// Its git branch, if recorded.
    pub branch: Option<String>,
    /// Its title in the sidebar.
    pub title: Option<String>,
    /// It is archived (`isArchived`).
    pub is_archived: bool,
    /// Milliseconds since the epoch (the app writes a number).
    pub last_activity_at: Option<i64>,
    /// The app's `autoArchiveExempt`, as written.
    pub auto_archive_exempt: Option<bool>,
    /// SHA-256 of the file's bytes (copies with the same name and bytes are one copy).
    pub sha256: String,
    /// Each top-level field's name and a digest of its value (the same for equal values,
    /// whatever their key order or spacing).
    pub field_digests: BTreeMap<String, u64>,
}

/// One `(account, org)` folder.
#[derive(Debug, Clone, PartialEq)]
pub struct Sidebar {
    /// The account's folder.
    pub account: FolderName,
    /// The organisation's folder.
    pub org: FolderName,
    /// The folder's path.
    pub dir: PathBuf,
    /// Its entries, in file-name order.
    pub entries: Vec<Entry>,
}

impl Sidebar {
    /// Entries not archived.
    pub fn live(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(|e| !e.is_archived)
    }
}

/// What the store holds.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Store {
    /// The store's folder (`claude-code-sessions`).
    pub root: PathBuf,
    /// The root folder is there (a missing one means "no desktop app here", not an error).
    pub exists: bool,
    /// Every `(account, org)` folder found.
    pub sidebars: Vec<Sidebar>,
    /// What could not be read.
    pub warnings: Vec<Warning>,
}

impl Store {
    /// Reads the store at `root`. Never fails: what cannot be read is a warning.
    pub fn read(root: &Path) -> Self {
        let mut store = Self { root: root.to_path_buf(), ..Self::default() };
        let accounts = match std::fs::read_dir(root) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return store,
            Err(e) => {
                store.exists = true;
                store.warnings.push(Warning::new(root, format!("cannot read the store: {e}")));
                return store;
            }
        };
        store.exists = true;
        for account in folders(accounts, &mut store.warnings) {
            let Ok(orgs) = std::fs::read_dir(&account) else {
                store.warnings.push(Warning::new(&account, "cannot read this account's folder"));
                continue;
            };
            for org in folders(orgs, &mut store.warnings) {
                let (Some(a), Some(o)) = (account.file_name(), org.file_name()) else { continue };
                let (account, org_name) = (FolderName::of(a), FolderName::of(o));
                let Some(entries) = read_sidebar(&org, &mut store.warnings) else {
                    store.warnings.push(Warning::new(&org, "cannot read this sidebar's folder"));
                    continue;
                };
                store.sidebars.push(Sidebar { account, org: org_name, dir: org.clone(), entries });
            }
        }
        store.sidebars.sort_by(|a, b| (&a.account, &a.org).cmp(&(&b.account, &b.org)));
        store
    }

    /// Entries in every sidebar.
    pub fn entry_count(&self) -> usize {
        self.sidebars.iter().map(|s| s.entries.len()).sum()
    }
}

/// The sub-folders among `entries` (a link is named and not followed: Corral never reads or
/// writes a sidebar through a link).
fn folders(entries: std::fs::ReadDir, warnings: &mut Vec<Warning>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in entries.flatten() {
        match e.file_type() {
            Ok(t) if t.is_dir() => out.push(e.path()),
            Ok(t) if t.is_symlink() && e.path().is_dir() => {
                warnings.push(Warning::new(&e.path(), "a link to a folder; not read"));
            }
            _ => {}
        }
    }
    out.sort();
    out
}

/// The entries of one sidebar folder; `None` when it cannot be listed.
fn read_sidebar(dir: &Path, warnings: &mut Vec<Warning>) -> Option<Vec<Entry>> {
    let mut entries = Vec::new();
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        if !(name.starts_with("local_") && name.ends_with(".json")) {
            continue;
        }
        match read_entry(&e.path(), name) {
            Ok(entry) => entries.push(entry),
            Err(why) => warnings.push(Warning::new(&e.path(), why)),
        }
    }
    entries.sort_by(|a, b| a.file.cmp(&b.file));
    Some(entries)
}

fn read_entry(path: &Path, file: &str) -> Result<Entry, String> {
    // Not through a link: an entry is a regular file in its sidebar.
    let bytes = crate::files::read_bounded_no_follow(path, MAX_ENTRY_BYTES)
        .map_err(|e| format!("not read: {e}"))?;
    let fields = match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(m)) => m,
        Ok(_) => return Err("not read: it is not a JSON object".to_owned()),
        Err(e) => return Err(format!("not read: it is not valid JSON ({e})")),
    };
    let text = |k: &str| {
        fields.get(k).and_then(Value::as_str).filter(|s| s.len() <= MAX_TEXT).map(str::to_owned)
    };
    let title = fields.get("title").and_then(Value::as_str).map(|t| {
        let mut t = t.to_owned();
        if crate::transcript::clip(&mut t, MAX_TEXT) {
            t.push('…');
        }
        t
    });
    Ok(Entry {
        file: file.to_owned(),
        path: path.to_path_buf(),
        session_id: text("sessionId"),
        cli_session_id: text("cliSessionId").filter(|s| !s.is_empty()),
        cwd: text("cwd"),
        origin_cwd: text("originCwd"),
        worktree_path: text("worktreePath"),
        branch: text("branch"),
        title,
        is_archived: fields.get("isArchived").and_then(Value::as_bool).unwrap_or(false),
        last_activity_at: fields.get("lastActivityAt").and_then(millis),
        auto_archive_exempt: fields.get("autoArchiveExempt").and_then(Value::as_bool),
        sha256: crate::files::sha256_hex(&bytes),
        field_digests: fields.iter().map(|(k, v)| (k.clone(), digest(v))).collect(),
    })
}

/// A digest of a JSON value that equal values share (object keys in any order).
fn digest(v: &Value) -> u64 {
    fn feed_str(s: &str, out: &mut Vec<u8>) {
        out.push(b'"');
        out.extend_from_slice(&(s.len() as u64).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    fn feed(v: &Value, out: &mut Vec<u8>) {
        match v {
            Value::Null => out.push(b'n'),
            Value::Bool(b) => out.extend_from_slice(if *b { b"t" } else { b"f" }),
            Value::Number(n) => {
                out.push(b'#');
                out.extend_from_slice(n.to_string().as_bytes());
                out.push(0);
            }
            Value::String(s) => feed_str(s, out),
            Value::Array(items) => {
                out.push(b'[');
                out.extend_from_slice(&(items.len() as u64).to_le_bytes());
                for item in items {
                    feed(item, out);
                }
            }
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                out.push(b'{');
                out.extend_from_slice(&(keys.len() as u64).to_le_bytes());
                for k in keys {
                    feed_str(k, out);
                    if let Some(v) = m.get(k) {
                        feed(v, out);
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    feed(v, &mut out);
    crate::index::checksum(&out)
}

/// A time as the app writes it (epoch milliseconds), or as a string of digits or ISO-8601.
fn millis(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| {
            #[allow(clippy::cast_possible_truncation)]
            n.as_f64().filter(|f| f.is_finite()).map(|f| f as i64)
        }),
        Value::String(s) => s.parse().ok().or_else(|| crate::time::millis(s)),
        _ => None,
    }
}
