//! Renames: a session's custom name set (or cleared) where Claude Code and every herdctl view
//! read it, as a journaled run that History and `corral-cli undo` undo.
//!
//! What a rename writes, in this order, each record journaled before it is written:
//! 1. Claude Code's own records ([`crate::claude_titles`]): one `custom-title` line appended to
//!    the transcript when the title `claude --resume`'s picker shows differs from the new name
//!    (an empty one clears) — so renaming a session whose title a long continuation pushed out of
//!    the picker's view makes it visible again — and `<sid>/custom-title.json`, written when it
//!    does not say the new name yet (emptied on a clear when it exists), after a copy of the one
//!    it replaces is in the run's backup.
//! 2. herdctl's (see [`crate::names`]): under the owning agent's key and the key of the folder
//!    the session sits in; a clear removes it from the owner, the folder agent and `adhoc`. Each
//!    key's name before is journaled with it.
//!
//! A rename that changes nothing records no run. Renaming a session a running `claude` holds is
//! allowed (the Agent SDK does the same): the client re-appends the title it finds at the end of
//! its transcript when it exits, which is then the new one. Undo is [`crate::runs`]'s.

use std::path::Path;

use chrono::{DateTime, Utc};
use serde::Serialize;
use ts_rs::TS;

use crate::catalog::Catalog;
use crate::claude_titles;
use crate::error::{Error, Result};
use crate::metadata::MetadataStore;
use crate::model::SessionSummary;
use crate::names::NameTarget;
use crate::runs::{EntryKind, EntryState, JournalEntry, RunFor, RunRename, RunWriter, Written};
use crate::time::iso;

/// The sidecar's copy inside a rename run's `backup/`.
const SIDECAR_BACKUP: &str = "custom-title.json";

/// [`rename_at`] now.
pub fn rename(catalog: &Catalog, session_id: &str, name: Option<&str>) -> Result<SessionSummary> {
    rename_at(catalog, session_id, name, Utc::now())
}

/// Sets (`Some`) or clears (`None`, empty) a session's custom name everywhere it is read (see
/// the module docs), as a run in the catalog's data dir. Returns the updated session.
pub fn rename_at(
    catalog: &Catalog,
    session_id: &str,
    name: Option<&str>,
    now: DateTime<Utc>,
) -> Result<SessionSummary> {
    renamed_at(catalog, session_id, name, now).map(|r| r.session)
}

/// A rename's result: the session as it is now, and the run that can undo it.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Renamed {
    /// The session as it is now.
    pub session: SessionSummary,
    /// `None`: nothing needed changing, so no run was recorded.
    pub run_id: Option<String>,
}

/// [`rename_at`], with the id of the run it recorded.
pub fn renamed_at(
    catalog: &Catalog,
    session_id: &str,
    name: Option<&str>,
    now: DateTime<Utc>,
) -> Result<Renamed> {
    let name = crate::names::validate_name(name)?;
    let target = catalog.name_target(session_id)?;
    catalog.claim_for_state_write()?;
    let stores = Stores {
        claude_home: catalog.claude_home(),
        state_dir: catalog.state_dir(),
        data_dir: catalog.data_dir(),
    };
    let run = apply(&stores, &target, name.as_deref(), now);
    catalog.invalidate(&[]);
    let run = run?;
    Ok(Renamed { session: catalog.session(session_id)?, run_id: run })
}

struct Stores<'a> {
    claude_home: &'a Path,
    state_dir: &'a Path,
    data_dir: &'a Path,
}

/// One herdctl key whose name changes: (key, before, after).
type NameChange = (String, Option<String>, Option<String>);

fn apply(
    stores: &Stores<'_>,
    t: &NameTarget,
    name: Option<&str>,
    now: DateTime<Utc>,
) -> Result<Option<String>> {
    let sid = t.session_id.as_str();
    let shown_title = claude_titles::picker_title(&t.transcript, sid)
        .map_err(|e| Error::io_at("read", &t.transcript, e))?;
    let sidecar = claude_titles::sidecar_path(&t.transcript, sid)
        .ok_or_else(|| Error::InvalidInput("the transcript has no folder".into()))?;
    let sidecar_exists = match std::fs::symlink_metadata(&sidecar) {
        Ok(m) if m.is_file() => true,
        Ok(_) => {
            return Err(Error::Refused(format!(
                "{} is not a regular file, so Corral does not replace it",
                sidecar.display()
            )));
        }
        Err(_) => false,
    };
    let title_changes = shown_title.as_deref() != name;
    let sidecar_changes = (name.is_some() || sidecar_exists)
        && claude_titles::sidecar_title(&t.transcript, sid).as_deref() != name;
    let store = MetadataStore::new(stores.state_dir);
    let mut names: Vec<NameChange> = Vec::new();
    for key in &t.read_order {
        let want = if t.written.contains(key) { name } else { None };
        let had = store.custom_name(key, sid)?;
        if had.as_deref() != want {
            names.push((key.clone(), had, want.map(str::to_owned)));
        }
    }
    if !title_changes && !sidecar_changes && names.is_empty() {
        return Ok(None);
    }
    let root =
        crate::runs::check_backup_root(stores.data_dir, stores.claude_home, stores.state_dir)?;
    let rename = RunRename {
        session_id: sid.to_owned(),
        from: t.shown.clone(),
        to: name.map(str::to_owned),
    };
    let mut w = RunWriter::create(
        &root,
        now,
        RunFor::Rename { claude_home: stores.claude_home, state_dir: stores.state_dir, rename },
    )?;
    if title_changes {
        append_title(&mut w, t, name, shown_title)?;
    }
    if sidecar_changes {
        write_sidecar(&mut w, t, &sidecar, sidecar_exists, name, now)?;
    }
    for (key, had, want) in names {
        let mut e = intended(EntryKind::Name, sid, &store.file_path(&key)?);
        e.agent_name = Some(key.clone());
        e.name = want.clone();
        e.previous_name = had;
        let i = w.push(e)?;
        let set = store.set_custom_name(&key, sid, want.as_deref());
        finish_entry(&mut w, i, set)?;
    }
    w.journal.finished_at = Some(iso(Utc::now().max(now)));
    w.save()?;
    Ok(Some(w.journal.run_id.clone()))
}

/// A journal entry for a record about to be written.
fn intended(kind: EntryKind, sid: &str, path: &Path) -> JournalEntry {
    JournalEntry::new(
        kind,
        sid.to_owned(),
        path.display().to_string(),
        None,
        None,
        EntryState::Intended,
    )
}

/// Appends the `custom-title` line the picker shows, journaled first with where it goes.
fn append_title(
    w: &mut RunWriter,
    t: &NameTarget,
    name: Option<&str>,
    shown_title: Option<String>,
) -> Result<()> {
    let sid = t.session_id.as_str();
    let mut e = intended(EntryKind::Title, sid, &t.transcript);
    e.name = name.map(str::to_owned);
    e.previous_name = shown_title;
    let i = w.push(e)?;
    let line = claude_titles::custom_title_line(sid, name.unwrap_or(""));
    let appended = claude_titles::append_line(&t.transcript, &line, claude_titles::MID_LINE_WAIT);
    let appended = finish_entry(w, i, appended)?;
    if let Some(e) = w.journal.entries.get_mut(i) {
        e.written = Some(Written {
            offset: Some(appended.offset),
            size: appended.bytes,
            sha256: appended.sha256,
        });
    }
    w.save()
}

/// Writes the title sidecar, the one it replaces copied into the run's backup first.
fn write_sidecar(
    w: &mut RunWriter,
    t: &NameTarget,
    sidecar: &Path,
    sidecar_exists: bool,
    name: Option<&str>,
    now: DateTime<Utc>,
) -> Result<()> {
    let mut e = intended(EntryKind::TitleSidecar, &t.session_id, sidecar);
    e.backup = sidecar_exists.then(|| SIDECAR_BACKUP.to_owned());
    let bytes = claude_titles::sidecar_bytes(name.unwrap_or(""), &iso(now));
    e.written = Some(Written {
        offset: None,
        size: bytes.len() as u64,
        sha256: crate::files::sha256_hex(&bytes),
    });
    let i = w.push(e)?;
    if sidecar_exists {
        let copy = w.backup_dir().join(SIDECAR_BACKUP);
        let old = crate::files::read_bounded_no_follow(sidecar, claude_titles::MAX_SIDECAR_BYTES)
            .map_err(|reason| Error::unreadable(sidecar, reason))?;
        crate::atomic_write::create_exclusive(&copy, &old)?;
        w.record_backup(i, &copy)?;
    }
    let written = claude_titles::write_sidecar(sidecar, &bytes);
    finish_entry(w, i, written)?;
    crate::fault::fault_point("title.sidecar");
    Ok(())
}

/// Marks entry `i` done, or failed with the error (saving the journal), and passes the result on.
fn finish_entry<T>(w: &mut RunWriter, i: usize, result: Result<T>) -> Result<T> {
    match result {
        Ok(v) => {
            w.set(i, EntryState::Done, None, None)?;
            Ok(v)
        }
        Err(e) => {
            w.set(i, EntryState::Failed, None, Some(e.to_string()))?;
            let _ = w.save();
            Err(e)
        }
    }
}
