//! The herdctl-compatible session metadata store: custom names (and herdctl's cached auto names)
//! in `<state dir>/session-metadata/<qualified agent>.json`, `adhoc.json` for unattributed sessions.
//!
//! CONTRACT (owned by the fleet/attribution developer).
//!
//! herdctl `state/session-metadata.ts`, exactly:
//! - File: `{"version": 1, "agentName": ..., "sessions": {<sid>: Entry}}`, written as
//!   `JSON.stringify(data, null, 2) + "\n"` through a temp file and a rename.
//! - Entry fields, all optional: `customName`, `autoName`, `autoNameMtime`, `autoNameVersion`,
//!   `preview`, `previewMtime`, `isSidechain`, `isSidechainMtime`,
//!   `usage{inputTokens,turnCount,hasData}`, `usageMtime`.
//! - Sparse: no file until the first write. Clearing a custom name removes the key, deletes the
//!   entry once it is empty, and keeps the (possibly empty) file.
//! - The #419 guard: when an existing file cannot be read or does not match the schema
//!   (malformed JSON, another `version`, a wrong shape, a folder named `x.json`), every write
//!   returns [`Error::Unreadable`] and the file stays byte-identical; reads skip it with a warning.
//!
//! Corral keeps everything it does not own: unknown top-level fields, unknown entry fields and
//! herdctl's cached fields survive a Corral write. Known fields are written in herdctl's order;
//! session ids and unknown fields in sorted order.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::files::Unusable;
use crate::model::Warning;

/// The key used for unattributed sessions.
pub const ADHOC: &str = "adhoc";

/// The only file version herdctl knows.
pub const FILE_VERSION: u64 = 1;

/// Largest metadata file read (herdctl's `adhoc.json` grows without bound, #420).
pub const MAX_METADATA_BYTES: u64 = 64 * 1024 * 1024;

const TOP_ORDER: &[&str] = &["version", "agentName", "sessions"];
const ENTRY_ORDER: &[&str] = &[
    "customName",
    "autoName",
    "autoNameMtime",
    "autoNameVersion",
    "preview",
    "previewMtime",
    "isSidechain",
    "isSidechainMtime",
    "usage",
    "usageMtime",
];
const USAGE_ORDER: &[&str] = &["inputTokens", "turnCount", "hasData"];

/// herdctl's cached context usage of a session.
#[derive(Debug, Clone, PartialEq)]
pub struct CachedUsage {
    /// herdctl's `inputTokens`: the context size of the last turn.
    pub input_tokens: f64,
    /// herdctl's `turnCount`.
    pub turn_count: f64,
    /// herdctl's `hasData`: the figures were read from a transcript.
    pub has_data: bool,
}

/// One session's entry, typed (unknown fields are kept on disk but not shown here).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MetadataEntry {
    /// The name given to the session (`customName`).
    pub custom_name: Option<String>,
    /// herdctl's generated name (`autoName`).
    pub auto_name: Option<String>,
    /// The transcript time `autoName` was made from.
    pub auto_name_mtime: Option<String>,
    /// The version of herdctl's naming that made it.
    pub auto_name_version: Option<f64>,
    /// The session's first prompt, shortened (`preview`).
    pub preview: Option<String>,
    /// The transcript time `preview` was read at.
    pub preview_mtime: Option<String>,
    /// Whether the transcript is a subagent's sidechain.
    pub is_sidechain: Option<bool>,
    /// The transcript time `isSidechain` was read at.
    pub is_sidechain_mtime: Option<String>,
    /// The cached usage.
    pub usage: Option<CachedUsage>,
    /// The transcript time `usage` was read at.
    pub usage_mtime: Option<String>,
}

/// One agent's metadata file, typed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentMetadata {
    /// The `agentName` recorded inside the file.
    pub agent_name: String,
    /// Its sessions' entries, by session id.
    pub sessions: BTreeMap<String, MetadataEntry>,
}

/// Reads and writes `session-metadata/*.json` with herdctl's exact shape, sparse files, atomic
/// writes, and the corrupt-file rule (a file that fails to parse is never overwritten).
#[derive(Debug, Clone)]
pub struct MetadataStore {
    dir: PathBuf,
}

impl MetadataStore {
    /// The store of `<state dir>/session-metadata`.
    pub fn new(state_dir: &Path) -> Self {
        Self { dir: state_dir.join("session-metadata") }
    }

    /// `<state dir>/session-metadata`.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of an agent key (validated: a key can never leave the folder).
    pub fn file_path(&self, agent_key: &str) -> Result<PathBuf> {
        validate_agent_key(agent_key)?;
        Ok(self.dir.join(format!("{agent_key}.json")))
    }

    /// All custom names: agent key → (session id → custom name). Unreadable files are skipped.
    pub fn custom_names(&self) -> HashMap<String, HashMap<String, String>> {
        self.custom_names_with_warnings().0
    }

    /// [`MetadataStore::custom_names`] plus a warning per unreadable file.
    pub fn custom_names_with_warnings(
        &self,
    ) -> (HashMap<String, HashMap<String, String>>, Vec<Warning>) {
        let (all, warnings) = self.read_all();
        let names = all
            .into_iter()
            .filter_map(|(key, meta)| {
                let names: HashMap<String, String> = meta
                    .sessions
                    .into_iter()
                    .filter_map(|(sid, e)| e.custom_name.map(|n| (sid, n)))
                    .collect();
                (!names.is_empty()).then_some((key, names))
            })
            .collect();
        (names, warnings)
    }

    /// Every readable file, by agent key (the file name without `.json`). Files whose names start
    /// with `.` (temp files) or are not valid keys are ignored; unreadable files are warnings.
    pub fn read_all(&self) -> (BTreeMap<String, AgentMetadata>, Vec<Warning>) {
        let mut out = BTreeMap::new();
        let mut warnings = Vec::new();
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(e) => e,
            Err(e) => {
                if e.kind() != std::io::ErrorKind::NotFound {
                    warnings.push(Warning::new(
                        &self.dir,
                        format!("cannot list session metadata: {e}"),
                    ));
                }
                return (out, warnings);
            }
        };
        let mut keys: Vec<String> = entries
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().to_str().map(str::to_owned))
            .filter_map(|n| n.strip_suffix(".json").map(str::to_owned))
            .filter(|k| validate_agent_key(k).is_ok())
            .collect();
        keys.sort();
        for key in keys {
            let (meta, warning) = self.read_agent(&key);
            warnings.extend(warning);
            if let Some(meta) = meta {
                out.insert(key, meta);
            }
        }
        (out, warnings)
    }

    /// One agent's file for display: `None` when absent or unreadable; an unreadable file (or an
    /// invalid key) also yields a warning.
    pub fn read_agent(&self, agent_key: &str) -> (Option<AgentMetadata>, Option<Warning>) {
        match self.load(agent_key) {
            Ok(meta) => (meta, None),
            Err(Error::Unreadable { path, reason }) => {
                (None, Some(Warning::new(&path, format!("session metadata skipped: {reason}"))))
            }
            Err(e) => (None, Some(Warning::new(&self.dir, e.to_string()))),
        }
    }

    /// One agent's file: `Ok(None)` when absent, [`Error::Unreadable`] when it exists but cannot
    /// be read or does not match the schema.
    pub fn load(&self, agent_key: &str) -> Result<Option<AgentMetadata>> {
        let path = self.file_path(agent_key)?;
        Ok(read_raw(&path)?.map(|raw| typed(&raw)))
    }

    /// The custom name of one session (`Ok(None)` when unset or the file is absent).
    pub fn custom_name(&self, agent_key: &str, session_id: &str) -> Result<Option<String>> {
        Ok(self
            .load(agent_key)?
            .and_then(|m| m.sessions.get(session_id).and_then(|e| e.custom_name.clone())))
    }

    /// herdctl's cached auto name of one session, with its mtime and extractor version.
    pub fn auto_name(&self, agent_key: &str, session_id: &str) -> Result<Option<MetadataEntry>> {
        Ok(self.load(agent_key)?.and_then(|m| m.sessions.get(session_id).cloned()))
    }

    /// Sets (`Some`) or clears (`None` or empty) the custom name of `session_id` under `agent_key`
    /// (a qualified agent name or [`ADHOC`]).
    pub fn set_custom_name(
        &self,
        agent_key: &str,
        session_id: &str,
        name: Option<&str>,
    ) -> Result<()> {
        let session_id = crate::paths::validate_session_id(session_id)?;
        let path = self.file_path(agent_key)?;
        let name = name.filter(|n| !n.is_empty());
        // One Corral writer at a time, in any process (the app, the CLI, a second Corral): the
        // folder is locked across the read-modify-write. Against writers that take no lock
        // (herdctl), the file is read again just before the replacement and after it, and the
        // change is redone on top of theirs whenever it is not in the file.
        if name.is_none() && std::fs::symlink_metadata(&path).is_err() {
            return Ok(()); // nothing to clear; stay sparse (not even a folder)
        }
        let _one_writer = crate::files::lock_folder(&self.dir)?;
        Self::write_name(agent_key, &path, session_id, name, &|| {})
    }

    /// The write of [`Self::set_custom_name`]; `meanwhile` runs between the read and the write
    /// (tests: another writer's moment).
    fn write_name(
        agent_key: &str,
        path: &Path,
        session_id: &str,
        name: Option<&str>,
        meanwhile: &dyn Fn(),
    ) -> Result<()> {
        let path = path.to_path_buf();
        for _ in 0..WRITE_ATTEMPTS {
            // One read gives both the file to change and what it must still be at the write.
            let seen = read_bytes(&path)?;
            let existing = seen.as_deref().map(|b| parse_raw(&path, b)).transpose()?;
            let Some(doc) = Self::updated(agent_key, &path, existing, session_id, name)? else {
                return Ok(());
            };
            meanwhile();
            // Someone else wrote it meanwhile: start again from theirs.
            let unchanged = || read_bytes(&path).ok() == Some(seen);
            if crate::atomic_write::write_atomic_if(&path, render(&doc).as_bytes(), unchanged)?
                && Self::holds(&path, session_id, name)
            {
                return Ok(());
            }
        }
        Err(Error::Unreadable {
            path,
            reason: format!(
                "it kept changing while Corral tried to write it ({WRITE_ATTEMPTS} tries)"
            ),
        })
    }

    /// Whether the file now says what a write of `name` meant (read after the replacement: a
    /// writer that replaced the file in between without a lock would have dropped the change).
    fn holds(path: &Path, session_id: &str, name: Option<&str>) -> bool {
        let now = read_raw(path).ok().flatten();
        let current = now
            .as_ref()
            .and_then(|doc| doc.get("sessions"))
            .and_then(|s| s.get(session_id))
            .and_then(|e| e.get("customName"))
            .and_then(Value::as_str);
        current == name
    }

    /// The file with the custom name set or cleared, or `None` when nothing would change.
    fn updated(
        agent_key: &str,
        path: &Path,
        existing: Option<Value>,
        session_id: &str,
        name: Option<&str>,
    ) -> Result<Option<Value>> {
        let path = path.to_path_buf();
        let mut doc = match existing {
            Some(doc) => doc,
            None if name.is_none() => return Ok(None), // nothing to clear; stay sparse
            None => empty_file(agent_key),
        };
        let Some(Value::Object(sessions)) = doc.get_mut("sessions") else {
            // read_raw validated the shape; this cannot happen, but never write on a surprise.
            return Err(Error::Unreadable {
                path,
                reason: "`sessions` is not an object".to_owned(),
            });
        };
        let changed = match name {
            Some(name) => {
                let entry = sessions
                    .entry(session_id.to_owned())
                    .or_insert_with(|| Value::Object(Map::new()));
                match entry {
                    Value::Object(e) => {
                        let new = Value::String(name.to_owned());
                        if e.get("customName") == Some(&new) {
                            false
                        } else {
                            e.insert("customName".to_owned(), new);
                            true
                        }
                    }
                    _ => {
                        return Err(Error::Unreadable {
                            path,
                            reason: format!("the entry of session {session_id} is not an object"),
                        });
                    }
                }
            }
            None => {
                let mut removed = false;
                let mut now_empty = false;
                if let Some(Value::Object(e)) = sessions.get_mut(session_id) {
                    removed = e.remove("customName").is_some();
                    now_empty = e.is_empty();
                }
                if removed && now_empty {
                    sessions.remove(session_id);
                }
                removed
            }
        };
        Ok(changed.then_some(doc))
    }
}

/// How often a write is redone when another writer keeps changing the file.
const WRITE_ATTEMPTS: usize = 8;

/// Agent keys are qualified names (`fleetb.beta`) or [`ADHOC`]: letters, digits, `_`, `-` and
/// `.`, not starting with `.` and without `..`, so a key can never name a path outside the folder.
pub fn validate_agent_key(key: &str) -> Result<&str> {
    let ok = !key.is_empty()
        && key.len() <= 255
        && !key.starts_with('.')
        && !key.contains("..")
        && key.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if ok {
        Ok(key)
    } else {
        Err(Error::InvalidInput(format!(
            "{key:?} is not a valid agent key: use a qualified agent name (letters, digits, '_', \
             '-' and '.') or \"adhoc\""
        )))
    }
}

fn empty_file(agent_key: &str) -> Value {
    let mut m = Map::new();
    m.insert("version".to_owned(), Value::from(FILE_VERSION));
    m.insert("agentName".to_owned(), Value::String(agent_key.to_owned()));
    m.insert("sessions".to_owned(), Value::Object(Map::new()));
    Value::Object(m)
}

/// Reads and validates a file: `Ok(None)` when absent; [`Error::Unreadable`] for anything else
/// that is not a valid file (read error, folder, bad JSON, wrong version or shape).
fn read_raw(path: &Path) -> Result<Option<Value>> {
    read_bytes(path)?.map(|bytes| parse_raw(path, &bytes)).transpose()
}

/// The file's bytes (bounded): `Ok(None)` when absent.
fn read_bytes(path: &Path) -> Result<Option<Vec<u8>>> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        _ => {}
    }
    match crate::files::read_bounded(path, MAX_METADATA_BYTES) {
        Ok(b) => Ok(Some(b)),
        // It may have vanished since the check above: absent, not unreadable.
        Err(_) if !path.exists() && std::fs::symlink_metadata(path).is_err() => Ok(None),
        Err(reason) => Err(Error::unreadable(path, reason)),
    }
}

/// Parses and validates a file's bytes (bad JSON, wrong version or shape: [`Error::Unreadable`]).
fn parse_raw(path: &Path, bytes: &[u8]) -> Result<Value> {
    let unreadable = |reason: String| Error::Unreadable { path: path.to_path_buf(), reason };
    let doc: Value = serde_json::from_slice(bytes)
        .map_err(|e| unreadable(format!("it is not valid JSON ({e})")))?;
    check_shape(&doc).map_err(|why| unreadable(why.to_string()))?;
    Ok(doc)
}

/// herdctl's `SessionMetadataFileSchema`.
fn check_shape(doc: &Value) -> std::result::Result<(), Unusable> {
    let Value::Object(top) = doc else {
        return Err(Unusable::shape("the top level is not an object"));
    };
    match top.get("version") {
        Some(v) if v.as_u64() == Some(FILE_VERSION) => {}
        Some(v) => {
            return Err(Unusable::Shape(format!(
                "unknown version {v} (only {FILE_VERSION} is known)"
            )));
        }
        None => return Err(Unusable::shape("it has no version")),
    }
    if !top.get("agentName").is_some_and(Value::is_string) {
        return Err(Unusable::shape("agentName is missing or not a string"));
    }
    let Some(Value::Object(sessions)) = top.get("sessions") else {
        return Err(Unusable::shape("sessions is missing or not an object"));
    };
    for (sid, entry) in sessions {
        check_entry(entry)
            .map_err(|why| Unusable::Shape(format!("the entry of session {sid:?} {why}")))?;
    }
    Ok(())
}

fn check_entry(entry: &Value) -> std::result::Result<(), Unusable> {
    let Value::Object(e) = entry else { return Err(Unusable::shape("is not an object")) };
    for (key, value) in e {
        let ok = match key.as_str() {
            "customName" | "autoName" | "autoNameMtime" | "preview" | "previewMtime"
            | "isSidechainMtime" | "usageMtime" => value.is_string(),
            "autoNameVersion" => value.is_number(),
            "isSidechain" => value.is_boolean(),
            "usage" => value.as_object().is_some_and(|u| {
                u.get("inputTokens").is_some_and(Value::is_number)
                    && u.get("turnCount").is_some_and(Value::is_number)
                    && u.get("hasData").is_some_and(Value::is_boolean)
            }),
            _ => true, // unknown fields: herdctl's schema strips them; Corral keeps them
        };
        if !ok {
            return Err(Unusable::Shape(format!("has a {key} of the wrong type")));
        }
    }
    Ok(())
}

fn typed(doc: &Value) -> AgentMetadata {
    let s = |e: &Map<String, Value>, k: &str| e.get(k).and_then(Value::as_str).map(str::to_owned);
    let agent_name = doc.get("agentName").and_then(Value::as_str).unwrap_or_default().to_owned();
    let mut sessions = BTreeMap::new();
    if let Some(Value::Object(map)) = doc.get("sessions") {
        for (sid, entry) in map {
            let Value::Object(e) = entry else { continue };
            let usage = e.get("usage").and_then(Value::as_object).map(|u| CachedUsage {
                input_tokens: u.get("inputTokens").and_then(Value::as_f64).unwrap_or(0.0),
                turn_count: u.get("turnCount").and_then(Value::as_f64).unwrap_or(0.0),
                has_data: u.get("hasData").and_then(Value::as_bool).unwrap_or(false),
            });
            sessions.insert(
                sid.clone(),
                MetadataEntry {
                    custom_name: s(e, "customName"),
                    auto_name: s(e, "autoName"),
                    auto_name_mtime: s(e, "autoNameMtime"),
                    auto_name_version: e.get("autoNameVersion").and_then(Value::as_f64),
                    preview: s(e, "preview"),
                    preview_mtime: s(e, "previewMtime"),
                    is_sidechain: e.get("isSidechain").and_then(Value::as_bool),
                    is_sidechain_mtime: s(e, "isSidechainMtime"),
                    usage,
                    usage_mtime: s(e, "usageMtime"),
                },
            );
        }
    }
    AgentMetadata { agent_name, sessions }
}

/// `JSON.stringify(doc, null, 2) + "\n"`, with herdctl's key order for the fields it knows.
fn render(doc: &Value) -> String {
    let ordered = Ordered { value: doc, level: Level::Top };
    let mut text = serde_json::to_string_pretty(&ordered).unwrap_or_else(|_| "{}".to_owned());
    text.push('\n');
    text
}

#[derive(Clone, Copy)]
enum Level {
    Top,
    Sessions,
    Entry,
    Usage,
    Other,
}

struct Ordered<'a> {
    value: &'a Value,
    level: Level,
}

impl Serialize for Ordered<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let Value::Object(map) = self.value else { return self.value.serialize(serializer) };
        let order: &[&str] = match self.level {
            Level::Top => TOP_ORDER,
            Level::Entry => ENTRY_ORDER,
            Level::Usage => USAGE_ORDER,
            Level::Sessions | Level::Other => &[],
        };
        let child = |key: &str| match (self.level, key) {
            (Level::Top, "sessions") => Level::Sessions,
            (Level::Sessions, _) => Level::Entry,
            (Level::Entry, "usage") => Level::Usage,
            _ => Level::Other,
        };
        let mut out = serializer.serialize_map(Some(map.len()))?;
        for key in order {
            if let Some(v) = map.get(*key) {
                out.serialize_entry(key, &Ordered { value: v, level: child(key) })?;
            }
        }
        for (key, v) in map {
            if !order.contains(&key.as_str()) {
                out.serialize_entry(key, &Ordered { value: v, level: child(key) })?;
            }
        }
        out.end()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn a_write_by_someone_else_between_read_and_write_is_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let store = MetadataStore::new(tmp.path());
        let a = "11111111-1111-4111-8111-111111111111";
        let b = "22222222-2222-4222-8222-222222222222";
        store.set_custom_name("alpha", a, Some("Ours before")).unwrap();
        let path = store.file_path("alpha").unwrap();
        let other_wrote = std::cell::Cell::new(false);
        // herdctl writes its own name once, after Corral read the file and before it writes.
        let other = || {
            if !other_wrote.replace(true) {
                let text = std::fs::read_to_string(&path).unwrap().replace(
                    "\"sessions\": {",
                    &format!("\"sessions\": {{\n    \"{b}\": {{\"customName\": \"Theirs\"}},"),
                );
                std::fs::write(&path, text).unwrap();
            }
        };
        MetadataStore::write_name("alpha", &path, a, Some("Ours after"), &other).unwrap();
        assert!(other_wrote.get());
        let names = store.custom_names();
        assert_eq!(names["alpha"][b], "Theirs", "the other writer's name was lost");
        assert_eq!(names["alpha"][a], "Ours after");
    }

    #[test]
    fn keys_that_could_escape_are_refused() {
        for bad in ["", ".", "..", ".hidden", "a/b", "a\\b", "a..b", "../x", "a b", "a\0b", "é"] {
            assert!(validate_agent_key(bad).is_err(), "{bad:?}");
        }
        for good in ["adhoc", "alpha", "fleetb.beta", "team.my-app_2"] {
            assert!(validate_agent_key(good).is_ok(), "{good:?}");
        }
    }

    #[test]
    fn render_uses_herdctl_field_order_and_two_space_indent() {
        let doc: Value = serde_json::from_str(
            r#"{"sessions":{"s":{"zeta":1,"usage":{"hasData":true,"turnCount":2,"inputTokens":3},"customName":"n"}},"agentName":"a","version":1}"#,
        )
        .unwrap();
        let text = render(&doc);
        let expected = "{\n  \"version\": 1,\n  \"agentName\": \"a\",\n  \"sessions\": {\n    \"s\": {\n      \"customName\": \"n\",\n      \"usage\": {\n        \"inputTokens\": 3,\n        \"turnCount\": 2,\n        \"hasData\": true\n      },\n      \"zeta\": 1\n    }\n  }\n}\n";
        assert_eq!(text, expected);
    }
}
