//! Adoption: an agent claims sessions nobody owns, with herdctl-compatible records
//! (`<state dir>/adopted-sessions/<sid>.yaml`). Adopting records only; it moves nothing.
//!
//! The candidates, the adopt guard and the listings use the same predicates from
//! [`crate::attribution`], so they cannot drift apart.

use std::fs;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::adoption_store::{self, AdoptionRecord};
use crate::attribution::{self, AttributionIndex, JobCache};
use crate::catalog::Catalog;
use crate::error::{Error, Result};
use crate::paths::{decode_path_for_display, encode_path, projects_dir, validate_session_id};
use crate::runs::{EntryKind, EntryState, JournalEntry, RunFor, RunWriter};
use crate::time::iso;
use crate::transcript::facts::read_facts;

/// A session an agent could adopt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AdoptableSession {
    /// The session.
    pub session_id: String,
    /// The cwd the transcript records (else the folder name, decoded for display).
    pub source_cwd: Option<String>,
    /// ISO-8601 UTC.
    pub mtime: String,
    /// Claude Code's generated title, if any.
    pub auto_name: Option<String>,
    /// The start of its first prompt.
    pub preview: Option<String>,
    /// Size of the transcript.
    #[ts(type = "number")]
    pub size_bytes: u64,
    /// Absolute path of the transcript (a source for an import into the agent's folder).
    pub transcript_path: String,
}

/// The result of `adopt`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AdoptResult {
    /// The session.
    pub session_id: String,
    /// The qualified name of the agent.
    pub agent_name: String,
    /// When, as the record says.
    pub adopted_at: String,
    /// The adoption record written (or already there).
    pub record_path: String,
    /// The agent had already adopted it; nothing was written.
    pub already_adopted: bool,
    /// Another agent's adoption record that this one replaced.
    pub previous_owner: Option<String>,
}

fn require_agent<'c>(catalog: &'c Catalog, agent: &str) -> Result<&'c crate::fleet::Agent> {
    let fleet = catalog.fleet().ok_or(Error::NoFleet)?;
    fleet.agent(agent).ok_or_else(|| Error::UnknownAgent(agent.to_owned()))
}

/// The folders to look in: the agent's own, a given one, or every folder of the Claude home.
fn candidate_folders(
    catalog: &Catalog,
    agent: &str,
    from: Option<&Path>,
    all_folders: bool,
) -> Result<Vec<PathBuf>> {
    let a = require_agent(catalog, agent)?;
    let projects = projects_dir(catalog.claude_home());
    if all_folders {
        let rd = match fs::read_dir(&projects) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(Error::io_at("read", &projects, e)),
        };
        let mut dirs: Vec<PathBuf> = rd
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path())
            .collect();
        dirs.sort();
        return Ok(dirs);
    }
    let wd = match from {
        // A transcript folder of this Claude home, given directly.
        Some(f) if f.parent() == Some(projects.as_path()) => return Ok(vec![f.to_path_buf()]),
        Some(f) => f.to_path_buf(),
        None => a.working_directory.clone().ok_or_else(|| {
            Error::InvalidInput(format!(
                "agent {agent:?} has no working directory; name a folder to adopt from"
            ))
        })?,
    };
    Ok(vec![projects.join(encode_path(&crate::paths::cwd_text(&wd)))])
}

/// Unattributed, non-sidechain sessions `agent` could adopt, newest first. Sessions with any
/// adoption record, and sessions someone (the agent included) already owns, are not offered.
pub fn adoptable(
    catalog: &Catalog,
    agent: &str,
    from: Option<&Path>,
    all_folders: bool,
) -> Result<Vec<AdoptableSession>> {
    let folders = candidate_folders(catalog, agent, from, all_folders)?;
    let (index, _) = AttributionIndex::build(catalog.state_dir(), &mut JobCache::default());
    let mut out: Vec<(std::time::SystemTime, AdoptableSession)> = Vec::new();
    for folder in folders {
        let Ok(rd) = fs::read_dir(&folder) else { continue };
        let folder_name = folder.file_name().map(|n| n.to_string_lossy().into_owned());
        for entry in rd.flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "jsonl") {
                continue;
            }
            let Some(stem) = path.file_stem().map(|s| s.to_string_lossy().into_owned()) else {
                continue;
            };
            let Ok(sid) = validate_session_id(&stem) else { continue };
            if index.adoption(sid).is_some() || !attribution::is_unattributed(&index.get(sid)) {
                continue;
            }
            let Ok(meta) = fs::metadata(&path) else { continue };
            if !meta.is_file() {
                continue;
            }
            let Ok(facts) = read_facts(&path) else { continue };
            if facts.is_sidechain || !facts.has_messages {
                continue;
            }
            let mtime = meta.modified().unwrap_or(std::time::UNIX_EPOCH);
            out.push((
                mtime,
                AdoptableSession {
                    session_id: sid.to_owned(),
                    source_cwd: facts
                        .cwd
                        .clone()
                        .or_else(|| folder_name.as_deref().map(decode_path_for_display)),
                    mtime: iso(DateTime::<Utc>::from(mtime)),
                    auto_name: facts.auto_name(),
                    preview: facts.preview.clone(),
                    size_bytes: meta.len(),
                    transcript_path: path.display().to_string(),
                },
            ));
        }
    }
    out.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.session_id.cmp(&b.1.session_id)));
    Ok(out.into_iter().map(|(_, s)| s).collect())
}

/// `<claude home>/projects/*/<sid>.jsonl`, the first found (folders in name order).
pub fn find_transcript(claude_home: &Path, session_id: &str) -> Result<Option<PathBuf>> {
    let sid = validate_session_id(session_id)?;
    let projects = projects_dir(claude_home);
    let Ok(rd) = fs::read_dir(&projects) else { return Ok(None) };
    let mut dirs: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    dirs.sort();
    Ok(dirs
        .into_iter()
        .map(|d| d.join(format!("{sid}.jsonl")))
        .find(|p| fs::metadata(p).is_ok_and(|m| m.is_file())))
}

/// Records that `agent` adopts `session_id`. Moves nothing; idempotent. Refuses with
/// [`Error::AdoptionRefused`] (naming the owner) when a job or platform record outranks adoption.
pub fn adopt(
    catalog: &Catalog,
    agent: &str,
    session_id: &str,
    now: DateTime<Utc>,
) -> Result<AdoptResult> {
    let sid = validate_session_id(session_id)?.to_owned();
    require_agent(catalog, agent)?;
    let state_dir = catalog.state_dir();
    let record_path = adoption_store::record_path(state_dir, &sid)?;
    catalog.claim_for_state_write()?;
    // From the ownership check to the write, no other Corral process changes the records.
    let _one_writer = adoption_store::lock(state_dir)?;
    let (index, _) = AttributionIndex::build(state_dir, &mut JobCache::default());
    let attr = index.get(&sid);
    if !attribution::can_agent_adopt(&attr, agent) {
        return Err(Error::AdoptionRefused {
            session_id: sid,
            owner: attr.agent_name.unwrap_or_else(|| "(unknown)".to_owned()),
            origin: attr.origin,
        });
    }
    let existing = adoption_store::read(state_dir, &sid)?.or_else(|| index.adoption(&sid).cloned());
    if let Some(rec) = &existing
        && rec.agent_name == agent
    {
        return Ok(AdoptResult {
            session_id: sid,
            agent_name: agent.to_owned(),
            adopted_at: rec.adopted_at.clone(),
            record_path: record_path.display().to_string(),
            already_adopted: true,
            previous_owner: None,
        });
    }
    let transcript = find_transcript(catalog.claude_home(), &sid)?
        .ok_or_else(|| Error::SessionNotFound(sid.clone()))?;
    let source_cwd = read_facts(&transcript).ok().and_then(|f| f.cwd);
    let record = AdoptionRecord {
        version: 1,
        session_id: sid.clone(),
        agent_name: agent.to_owned(),
        adopted_at: iso(now),
        source_cwd,
    };
    adoption_store::write(state_dir, &record)?;
    catalog.invalidate(&[]);
    Ok(AdoptResult {
        session_id: sid,
        agent_name: agent.to_owned(),
        adopted_at: record.adopted_at,
        record_path: record_path.display().to_string(),
        already_adopted: false,
        previous_owner: existing.map(|r| r.agent_name),
    })
}

/// The result of `release`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseResult {
    /// The session.
    pub session_id: String,
    /// The qualified name of the agent.
    pub agent_name: String,
    /// The agent's adoption record was removed (`false`: it held none; nothing changed).
    pub released: bool,
    /// The run that journaled the release (History and `undo` undo it), when it removed a record.
    pub run_id: Option<String>,
}

/// The bytes of the record at `path` and what they say (`None`: there is none). A link or other
/// non-file there is refused: release removes only a record file.
fn read_record_bytes(path: &Path) -> Result<Option<(Vec<u8>, AdoptionRecord)>> {
    if fs::symlink_metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(Error::Refused(format!(
            "{} is not a regular file, so Corral does not remove it",
            path.display()
        )));
    }
    let bytes = match crate::files::read_bounded_if_present(path, crate::fleet::MAX_YAML_BYTES) {
        Ok(Some(b)) => b,
        Ok(None) => return Ok(None),
        Err(reason) => return Err(Error::unreadable(path, reason)),
    };
    let record = adoption_store::parse_bytes(&bytes).map_err(|r| Error::unreadable(path, r))?;
    Ok(Some((bytes, record)))
}

/// Journals the record a release is about to remove and copies it (with its permissions and
/// time) into the run's backup; gives the entry's index. Nothing is removed until the copy is
/// complete, its checksum journaled, and it holds the bytes `release` read.
fn journal_backup(
    w: &mut RunWriter,
    path: &Path,
    sid: &str,
    bytes: &[u8],
    record: AdoptionRecord,
) -> Result<usize> {
    let mut entry = JournalEntry::new(
        EntryKind::Released,
        sid.to_owned(),
        path.display().to_string(),
        None,
        Some(RELEASED_BACKUP.to_owned()),
        EntryState::Intended,
    );
    entry.agent_name = Some(record.agent_name);
    entry.adopted_at = Some(record.adopted_at);
    let i = w.push(entry)?;
    let copy = w.backup_dir().join(RELEASED_BACKUP);
    crate::placement::copy_new(path, &copy).map_err(|e| Error::io_at("back up", path, e))?;
    w.record_backup(i, &copy)?;
    let saved = w.journal.entries.get(i).and_then(|e| e.backup_sha256.as_deref());
    if saved != Some(crate::files::sha256_hex(bytes).as_str()) {
        return Err(Error::Refused(format!(
            "{} changed while it was being released; nothing was removed",
            path.display()
        )));
    }
    Ok(i)
}

/// The name of a released record's copy in its run's `backup/`.
const RELEASED_BACKUP: &str = "adoption-record.yaml";

/// Removes `agent`'s adoption record of `session_id` as a journaled run: the record is copied
/// into the run's backup first, so undo can put it back. `released: false` when there is no
/// record or it names another agent. The transcript stays where it is.
pub fn release(
    catalog: &Catalog,
    agent: &str,
    session_id: &str,
    now: DateTime<Utc>,
) -> Result<ReleaseResult> {
    let sid = validate_session_id(session_id)?;
    let state_dir = catalog.state_dir();
    let mut result = ReleaseResult {
        session_id: sid.to_owned(),
        agent_name: agent.to_owned(),
        released: false,
        run_id: None,
    };
    if fs::symlink_metadata(adoption_store::store_dir(state_dir)).is_err() {
        return Ok(result);
    }
    catalog.claim_for_state_write()?;
    // From reading the record to removing it, no other Corral process changes the records.
    let _one_writer = adoption_store::lock(state_dir)?;
    let path = adoption_store::record_path(state_dir, sid)?;
    let Some((bytes, record)) = read_record_bytes(&path)? else { return Ok(result) };
    if record.agent_name != agent {
        return Ok(result);
    }
    let root =
        crate::runs::check_backup_root(catalog.data_dir(), catalog.claude_home(), state_dir)?;
    let run = crate::runs::RunRelease {
        session_id: sid.to_owned(),
        agent_name: agent.to_owned(),
        adopted_at: record.adopted_at.clone(),
        name: catalog.session(sid).ok().map(|s| s.display_name().to_owned()),
    };
    let stores = (catalog.claude_home(), state_dir);
    let mut w = RunWriter::create(
        &root,
        now,
        RunFor::Release { claude_home: stores.0, state_dir: stores.1, release: run },
    )?;
    let i = match journal_backup(&mut w, &path, sid, &bytes, record) {
        Ok(i) => i,
        Err(e) => {
            w.discard();
            return Err(e);
        }
    };
    crate::fault::fault_point("release: record backed up");
    match adoption_store::remove(state_dir, sid) {
        Ok(_) => w.set(i, EntryState::Done, None, None)?,
        Err(e) => {
            w.set(i, EntryState::Failed, None, Some(e.to_string()))?;
            let _ = w.save();
            return Err(e);
        }
    }
    w.journal.finished_at = Some(iso(Utc::now().max(now)));
    w.save()?;
    catalog.invalidate(&[]);
    result.released = true;
    result.run_id = Some(w.journal.run_id.clone());
    Ok(result)
}
