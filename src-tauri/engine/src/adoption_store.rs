//! The herdctl-compatible adoption store: `<state dir>/adopted-sessions/<sid>.yaml`.
//!
//! CONTRACT (owned by the fleet/attribution developer).
//!
//! Exactly herdctl's `AdoptedSessionSchema` and store (`state/adopted-sessions.ts`):
//! `version: 1`, `sessionId`, `agentName` (qualified, free-form), `adoptedAt` (ISO-8601 UTC with
//! milliseconds and `Z`), optional `sourceCwd`. The session id is validated before any path is
//! built, so a hostile id is an error before any I/O and no folder is created. The folder is
//! created lazily by the first write; writes are atomic; re-adopting overwrites.
//!
//! Reading is lenient where it is safe: unknown fields are ignored and a missing `version` reads
//! as 1 (herdctl's default). A record whose `sessionId` differs from its file name is skipped with
//! a warning, because [`write()`] and [`remove()`] address records by file name and such a record
//! could never be released.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::files::Unusable;
use crate::model::Warning;

/// The only record version herdctl knows.
pub const RECORD_VERSION: u32 = 1;

fn default_version() -> u32 {
    RECORD_VERSION
}

/// One adoption record, exactly herdctl's `AdoptedSessionSchema`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdoptionRecord {
    /// The record format version (1).
    #[serde(default = "default_version")]
    pub version: u32,
    /// The session adopted.
    pub session_id: String,
    /// The qualified name of the agent that adopted it.
    pub agent_name: String,
    /// ISO-8601 UTC with milliseconds (`2026-11-29T19:31:24.056Z`).
    pub adopted_at: String,
    /// The working directory the transcript recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_cwd: Option<String>,
}

impl AdoptionRecord {
    /// A version-1 record adopted at `now`.
    pub fn new(
        session_id: &str,
        agent_name: &str,
        now: DateTime<Utc>,
        source_cwd: Option<&str>,
    ) -> Self {
        Self {
            version: RECORD_VERSION,
            session_id: session_id.to_owned(),
            agent_name: agent_name.to_owned(),
            adopted_at: crate::time::iso(now),
            source_cwd: source_cwd.map(str::to_owned),
        }
    }

    /// Checks the record against herdctl's schema (and the session id against the path rule).
    pub fn validate(&self) -> Result<()> {
        crate::paths::validate_session_id(&self.session_id)?;
        if self.version != RECORD_VERSION {
            return Err(Error::InvalidInput(format!(
                "adoption record version {} is not supported (only {RECORD_VERSION})",
                self.version
            )));
        }
        if self.agent_name.is_empty() {
            return Err(Error::InvalidInput("an adoption record needs an agent name".to_owned()));
        }
        if DateTime::parse_from_rfc3339(&self.adopted_at).is_err() {
            return Err(Error::InvalidInput(format!(
                "adoptedAt {:?} is not an ISO-8601 date and time",
                self.adopted_at
            )));
        }
        Ok(())
    }
}

/// `<state dir>/adopted-sessions`.
pub fn store_dir(state_dir: &Path) -> PathBuf {
    state_dir.join("adopted-sessions")
}

/// The record path for a session id (validated first: a hostile id is an error before any I/O).
pub fn record_path(state_dir: &Path, session_id: &str) -> Result<PathBuf> {
    let id = crate::paths::validate_session_id(session_id)?;
    Ok(store_dir(state_dir).join(format!("{id}.yaml")))
}

/// The exact bytes [`write()`] stores for a record, in herdctl's field order:
///
/// ```yaml
/// version: 1
/// sessionId: 99999999-9999-4999-8999-999999999999
/// agentName: alpha
/// adoptedAt: 2026-11-29T19:31:24.056Z
/// sourceCwd: /home/u/scratch
/// ```
///
/// Strings are written plain when that reads back as the same string under YAML 1.1 and 1.2,
/// otherwise double-quoted with JSON escapes (valid YAML).
pub fn render_yaml(record: &AdoptionRecord) -> String {
    let mut out = format!(
        "version: {}\nsessionId: {}\nagentName: {}\nadoptedAt: {}\n",
        record.version,
        yaml_scalar(&record.session_id),
        yaml_scalar(&record.agent_name),
        yaml_scalar(&record.adopted_at),
    );
    if let Some(cwd) = &record.source_cwd {
        out.push_str(&format!("sourceCwd: {}\n", yaml_scalar(cwd)));
    }
    out
}

/// Parses record text (the inverse of [`render_yaml`], and herdctl's own output).
pub fn parse_yaml(text: &str) -> std::result::Result<AdoptionRecord, Unusable> {
    let record: AdoptionRecord = crate::fleet::parse_yaml(text)?;
    check_schema(&record)?;
    Ok(record)
}

/// Parses record bytes (UTF-8 text, as [`parse_yaml`]).
pub fn parse_bytes(bytes: &[u8]) -> std::result::Result<AdoptionRecord, Unusable> {
    let record: AdoptionRecord = crate::files::parse_yaml_bytes(bytes)?;
    check_schema(&record)?;
    Ok(record)
}

fn check_schema(record: &AdoptionRecord) -> std::result::Result<(), Unusable> {
    if record.version != RECORD_VERSION {
        return Err(Unusable::shape(format!("unsupported record version {}", record.version)));
    }
    if record.session_id.is_empty() {
        return Err(Unusable::shape("sessionId is empty"));
    }
    if record.agent_name.is_empty() {
        return Err(Unusable::shape("agentName is empty"));
    }
    if DateTime::parse_from_rfc3339(&record.adopted_at).is_err() {
        return Err(Unusable::shape(format!(
            "adoptedAt {:?} is not an ISO-8601 date and time",
            record.adopted_at
        )));
    }
    Ok(())
}

/// A scalar as YAML: plain when unambiguous, else a double-quoted (JSON-escaped) string.
fn yaml_scalar(s: &str) -> String {
    if plain_is_safe(s) { s.to_owned() } else { double_quoted(s) }
}

/// A YAML double-quoted scalar. Besides `"` and `\`, every character YAML does not allow
/// printed raw (C0 and C1 controls, DEL, line and paragraph separators, the BOM, U+FFFE/U+FFFF)
/// is written as a `\uXXXX` escape, which both YAML 1.1 and 1.2 readers understand.
fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20
                || (0x7f..=0x9f).contains(&(c as u32))
                || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}') =>
            {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Whether `s` written plain reads back as exactly the string `s`, under both YAML 1.2 (herdctl's
/// `yaml` package) and YAML 1.1 readers. Deliberately conservative.
fn plain_is_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else { return false };
    if !(first.is_ascii_alphanumeric() || first == '/') {
        return false;
    }
    if !s.chars().all(|c| c.is_ascii_alphanumeric() || "/._-:@+".contains(c)) {
        return false;
    }
    if s.ends_with(':') || s.contains("::") {
        return false;
    }
    let lower = s.to_ascii_lowercase();
    if ["true", "false", "yes", "no", "on", "off", "y", "n", "null", "nan", "inf", "infinity"]
        .contains(&lower.as_str())
    {
        return false;
    }
    // Numbers in any schema: decimal, float, exponent, 0x/0o/0b, underscores, sexagesimal.
    if s.parse::<f64>().is_ok() {
        return false;
    }
    if first.is_ascii_digit() {
        if s.contains('_') || s.contains('+') {
            return false;
        }
        if lower.starts_with("0x") || lower.starts_with("0o") || lower.starts_with("0b") {
            return false;
        }
        if s.contains(':') && DateTime::parse_from_rfc3339(s).is_err() {
            return false;
        }
        // A YAML 1.1 date (`2026-11-29`) is a timestamp there.
        let b = s.as_bytes();
        if b.len() == 10 && b.get(4) == Some(&b'-') && b.get(7) == Some(&b'-') {
            return false;
        }
        // Only digits, dots and '-' with at most one '.' or ending in a digit may still read as
        // a number in some reader (`1.2.3` does not, `1.` does): quote dotted all-digit strings.
        if s.chars().all(|c| c.is_ascii_digit() || c == '.') {
            return false;
        }
    }
    true
}

/// Every readable record; malformed ones become warnings. A missing folder means none.
/// Files whose names start with `.` (temp files) or do not end in `.yaml` are ignored.
pub fn read_all(state_dir: &Path) -> (Vec<AdoptionRecord>, Vec<Warning>) {
    let dir = store_dir(state_dir);
    let mut records = Vec::new();
    let mut warnings = Vec::new();
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (records, warnings),
        Err(e) => {
            warnings.push(Warning::new(&dir, format!("cannot list adoption records: {e}")));
            return (records, warnings);
        }
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .filter(|n| !n.starts_with('.') && n.ends_with(".yaml"))
        .collect();
    names.sort();
    for name in names {
        let path = dir.join(&name);
        match read_record_file(&path) {
            Ok(record) => {
                let stem = name.strip_suffix(".yaml").unwrap_or(&name);
                if record.session_id == stem {
                    records.push(record);
                } else {
                    warnings.push(Warning::new(
                        &path,
                        format!(
                            "adoption record skipped: its sessionId {:?} does not match its file name",
                            record.session_id
                        ),
                    ));
                }
            }
            Err(reason) => {
                warnings.push(Warning::new(&path, format!("adoption record skipped: {reason}")));
            }
        }
    }
    (records, warnings)
}

fn read_record_file(path: &Path) -> std::result::Result<AdoptionRecord, Unusable> {
    let record: AdoptionRecord = crate::fleet::read_yaml_file(path)?;
    check_schema(&record)?;
    Ok(record)
}

/// Reads one record, `Ok(None)` when absent. A record that exists but cannot be parsed is
/// [`Error::Unreadable`].
pub fn read(state_dir: &Path, session_id: &str) -> Result<Option<AdoptionRecord>> {
    let path = record_path(state_dir, session_id)?;
    match std::fs::symlink_metadata(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io_at("read", &path, e)),
        Ok(_) => {}
    }
    read_record_file(&path).map(Some).map_err(|reason| Error::unreadable(&path, reason))
}

/// Locks the adoption store against Corral's other writers (any process) for a read-check-write
/// of its records; held until dropped. Creates the store folder when missing.
pub fn lock(state_dir: &Path) -> Result<crate::files::Lock> {
    crate::files::lock_folder(&store_dir(state_dir))
}

/// Writes (or overwrites) a record atomically, creating the folder lazily. The record is
/// validated first; nothing is created when it is invalid.
pub fn write(state_dir: &Path, record: &AdoptionRecord) -> Result<()> {
    let path = record_path(state_dir, &record.session_id)?;
    record.validate()?;
    crate::atomic_write::write_atomic(&path, render_yaml(record).as_bytes())
}

/// Removes a record; `Ok(false)` when there was none.
pub fn remove(state_dir: &Path, session_id: &str) -> Result<bool> {
    let path = record_path(state_dir, session_id)?;
    match std::fs::remove_file(&path) {
        Ok(()) => {
            if let Some(parent) = path.parent() {
                crate::atomic_write::sync_dir(parent);
            }
            Ok(true)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(Error::io_at("remove", &path, e)),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn plain_scalars_match_herdctl_output() {
        assert!(plain_is_safe("99999999-9999-4999-8999-999999999999"));
        assert!(plain_is_safe("2026-11-29T19:31:24.056Z"));
        assert!(plain_is_safe("/home/u/scratch"));
        assert!(plain_is_safe("team.gamma"));
        for s in [
            "",
            "123",
            "1e5",
            "true",
            "No",
            "~",
            "null",
            "1_000",
            "0x1F",
            "1:20",
            "a b",
            "#x",
            "-x",
            "a: b",
            "x:",
            "2026-11-29",
            "1.2.3",
            "é",
            "C:\\x",
            ".inf",
        ] {
            assert!(!plain_is_safe(s), "{s:?} must be quoted");
        }
    }
}
