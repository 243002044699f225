//! The missing-sessions report: the current sidebar compared with every other one. A
//! conversation of another sidebar is reported only when nothing live here carries its
//! `cliSessionId`; archived copies elsewhere are never reported (a live copy beats a newer
//! archived one), and an archived entry here does not count as "already here". One row per
//! conversation, from its newest live copy, with the other sidebars that hold it; what was left
//! out is counted, so "0 missing" is never silent about the rules.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use ts_rs::TS;

use super::{Current, CurrentRule, Entry, Sidebar, Signals, Store};
use crate::model::Warning;

/// The desktop app's sidebars in the store at `store_root`, compared with the current one:
/// `account` and `org` when given (together, each uuid-shaped), else the one the rules name
/// from the asking session's `host_session_id` and `cwd` and the catalog's transcript folders.
pub fn report_in(
    catalog: &crate::catalog::Catalog,
    store_root: &std::path::Path,
    (account, org): (Option<&str>, Option<&str>),
    host_session_id: Option<&str>,
    cwd: Option<&std::path::Path>,
) -> crate::error::Result<Report> {
    let given = match (account, org) {
        (None, None) => None,
        (Some(a), Some(o)) => {
            super::check_sidebar(a, o)?;
            Some((a, o))
        }
        _ => {
            return Err(crate::error::Error::InvalidInput(
                "an account and an org are given together, or neither".to_owned(),
            ));
        }
    };
    let store = Store::read(store_root);
    // The transcript folders, newest session first (the third rule reads their names).
    let mut seen = std::collections::HashSet::new();
    let folders: Vec<String> = catalog
        .listed_sessions()?
        .iter()
        .filter(|s| seen.insert(s.encoded_path.as_str()))
        .map(|s| s.encoded_path.clone())
        .collect();
    let settings = crate::claude_settings::read(
        catalog.claude_home(),
        crate::paths::default_claude_home().as_deref(),
    );
    let signed_in = crate::claude_settings::SignedIn::from_settings(settings.as_ref());
    let signals = Signals {
        host_session_id,
        cwd,
        transcript_folders: &folders,
        signed_in: signed_in.as_ref(),
    };
    Ok(report(&store, given, signals))
}

/// One sidebar, for the list of them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "DesktopSidebar")]
pub struct SidebarRow {
    /// The account's folder name.
    pub account: String,
    /// The organisation's folder name.
    pub org: String,
    /// Both folder names are uuid-shaped (only then can it be a target).
    pub target: bool,
    /// Entries in it, archived ones included.
    #[ts(type = "number")]
    pub entries: u64,
    /// Entries not archived.
    #[ts(type = "number")]
    pub live: u64,
    /// The newest entry's last activity.
    pub newest_activity: Option<String>,
    /// It is the current sidebar.
    pub current: bool,
    /// The account's email, when it is the one Claude Code is signed in with.
    pub account_label: Option<String>,
    /// The organisation's name, when it is the one Claude Code is signed in with.
    pub org_label: Option<String>,
}

/// A sidebar, and the file of an entry in it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "DesktopEntryRef")]
pub struct SidebarRef {
    /// The account's folder name.
    pub account: String,
    /// The organisation's folder name.
    pub org: String,
    /// The entry's file name.
    pub file: String,
}

/// What a missing conversation needs to come back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(rename = "DesktopMissingStatus")]
pub enum MissingStatus {
    /// Its newest live copy can be copied here as it is.
    Restorable,
    /// Copies tie for newest and differ: the person chooses.
    Ambiguous,
    /// An entry here already claims its folder (`--allow-shared-folder`).
    SharedFolder,
    /// This sidebar has an entry of the same file name for another conversation
    /// (`--replace-older`, which replaces it only when the source is strictly newer).
    ReplaceOlder,
}

/// One conversation the current sidebar does not show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "DesktopMissing")]
pub struct Missing {
    /// The Claude Code session it shows.
    pub cli_session_id: String,
    /// Its title in the sidebar, if any.
    pub title: Option<String>,
    /// The folder it works in, if recorded.
    pub cwd: Option<String>,
    /// What it needs to come back.
    pub status: MissingStatus,
    /// The copy a restore takes.
    pub source: SidebarRef,
    /// The source's last activity.
    pub last_activity: Option<String>,
    /// Other sidebars holding it.
    pub also_in: Vec<SidebarRef>,
    /// Why it has that status, and what else was noticed, in words.
    pub note: String,
    /// The entry of the same file name here is older: asking to replace older entries brings
    /// this one back (a `replace-older` row that is not would still be refused).
    pub can_replace: bool,
    /// What this sidebar holds under the source's file name (what a restore would replace).
    #[serde(skip)]
    #[ts(skip)]
    pub name_here: Option<NameHere>,
    /// The source entry's file as found (folder names need not be UTF-8).
    #[serde(skip)]
    #[ts(skip)]
    pub source_path: std::path::PathBuf,
}

/// This sidebar's entry under the file name a restore would write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameHere {
    /// An archived entry of the same conversation (replaced without asking).
    ArchivedSame,
    /// Another conversation's entry, older than the source (replaced only when asked).
    OlderOther,
    /// Another conversation's entry, as new as the source or newer (never replaced).
    NewerOther,
}

/// What the report left out, and why.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "DesktopLeftOut")]
pub struct LeftOut {
    /// Conversations whose every copy elsewhere is archived.
    #[ts(type = "number")]
    pub archived: u64,
    /// Conversations a live entry here already carries.
    #[ts(type = "number")]
    pub already_here: u64,
    /// Entries elsewhere naming no transcript (no `cliSessionId`): nothing to compare.
    #[ts(type = "number")]
    pub no_transcript_id: u64,
}

/// A sidebar entry of a conversation (for the listing's "Desktop" badge).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "DesktopPlacement")]
pub struct Placement {
    pub cli_session_id: String,
    pub account: String,
    pub org: String,
    pub archived: bool,
    /// In the current sidebar.
    pub current: bool,
}

/// The report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "DesktopReport")]
pub struct Report {
    /// The store the report read.
    pub store: String,
    /// The store folder is there ("no desktop app here" otherwise).
    pub exists: bool,
    /// The current sidebar, and the rule that told it (`None`: not told).
    pub current: Option<Current>,
    /// Every sidebar.
    pub sidebars: Vec<SidebarRow>,
    /// Conversations the current sidebar lacks, newest first.
    pub missing: Vec<Missing>,
    /// What was left out, and why.
    pub left_out: LeftOut,
    /// Every entry naming a transcript: which sidebars hold each conversation.
    pub placements: Vec<Placement>,
    /// Set when the report cannot be trusted to be complete: a store that exists but yields
    /// nothing, or no current sidebar to compare with.
    pub finding: Option<String>,
    /// Files of the store that could not be read.
    pub warnings: Vec<Warning>,
}

/// The report for `store`: against the sidebar `given` (`(account, org)`), else the one the
/// rules name from `signals`.
pub fn report(store: &Store, given: Option<(&str, &str)>, signals: Signals<'_>) -> Report {
    let current = match given {
        Some((account, org)) => Some(Current {
            account: account.to_owned(),
            org: Some(org.to_owned()),
            rule: CurrentRule::Given,
        }),
        None => Current::find(store, signals),
    };
    let is_current =
        |s: &Sidebar| current.as_ref().is_some_and(|c| c.is(&s.account.name, &s.org.name));
    let sidebars =
        store.sidebars.iter().map(|s| row(s, is_current(s), signals.signed_in)).collect();
    let mut out = Report {
        store: store.root.display().to_string(),
        exists: store.exists,
        current: current.clone(),
        sidebars,
        missing: Vec::new(),
        left_out: LeftOut::default(),
        placements: placements(store, &is_current),
        finding: None,
        warnings: store.warnings.clone(),
    };
    if !store.exists {
        return out;
    }
    if store.entry_count() == 0 {
        out.finding = Some(format!(
            "could not read the store: {} sidebar folders and no entry in any of them (has its \
             layout changed?)",
            store.sidebars.len()
        ));
        return out;
    }
    if current.is_none() {
        out.finding = Some(
            "which sidebar is the current one could not be told: give the account and org"
                .to_owned(),
        );
        return out;
    }
    add_missing(&mut out, store, &is_current);
    out
}

/// Every entry that names its Claude Code session, with its sidebar (the listing's badges).
fn placements(store: &Store, is_current: &dyn Fn(&Sidebar) -> bool) -> Vec<Placement> {
    store
        .sidebars
        .iter()
        .flat_map(|s| s.entries.iter().map(move |e| (s, e)))
        .filter_map(|(s, e)| {
            Some(Placement {
                cli_session_id: e.cli_session_id.clone()?,
                account: s.account.name.clone(),
                org: s.org.name.clone(),
                archived: e.is_archived,
                current: is_current(s),
            })
        })
        .collect()
}

/// The conversations other sidebars hold and the current one lacks, newest first, and what was
/// left out and why.
fn add_missing(out: &mut Report, store: &Store, is_current: &dyn Fn(&Sidebar) -> bool) {
    let here: Vec<&Sidebar> = store.sidebars.iter().filter(|s| is_current(s)).collect();
    let here_live: BTreeSet<&str> =
        here.iter().flat_map(|s| s.live()).filter_map(|e| e.cli_session_id.as_deref()).collect();
    let here_cwds: BTreeSet<&str> =
        here.iter().flat_map(|s| s.live()).filter_map(|e| e.cwd.as_deref()).collect();
    let here_files: BTreeMap<&str, &Entry> =
        here.iter().flat_map(|s| s.entries.iter()).map(|e| (e.file.as_str(), e)).collect();

    let mut copies: BTreeMap<&str, Vec<(&Sidebar, &Entry)>> = BTreeMap::new();
    for s in store.sidebars.iter().filter(|s| !is_current(s)) {
        for e in &s.entries {
            match e.cli_session_id.as_deref() {
                Some(id) => copies.entry(id).or_default().push((s, e)),
                None => out.left_out.no_transcript_id += 1,
            }
        }
    }
    for (id, all) in copies {
        if here_live.contains(id) {
            out.left_out.already_here += 1;
            continue;
        }
        let Some(m) = missing(id, &all, &here_files, &here_cwds) else {
            out.left_out.archived += 1;
            continue;
        };
        out.missing.push(m);
    }
    out.missing.sort_by(|a, b| {
        b.last_activity.cmp(&a.last_activity).then_with(|| a.cli_session_id.cmp(&b.cli_session_id))
    });
}

fn row(
    s: &Sidebar,
    current: bool,
    signed_in: Option<&crate::claude_settings::SignedIn>,
) -> SidebarRow {
    let account_is = signed_in.filter(|a| a.account_uuid.as_deref() == Some(&*s.account.name));
    SidebarRow {
        account_label: account_is.and_then(|a| a.email.clone()),
        org_label: account_is
            .filter(|a| a.org_uuid.as_deref() == Some(&*s.org.name))
            .and_then(|a| a.org_name.clone()),
        account: s.account.name.clone(),
        org: s.org.name.clone(),
        target: s.account.uuid && s.org.uuid,
        entries: s.entries.len() as u64,
        live: s.live().count() as u64,
        newest_activity: s.entries.iter().filter_map(|e| e.last_activity_at).max().and_then(iso),
        current,
    }
}

fn iso(ms: i64) -> Option<String> {
    chrono::DateTime::from_timestamp_millis(ms).map(crate::time::iso)
}

fn at(s: &Sidebar, e: &Entry) -> SidebarRef {
    SidebarRef { account: s.account.name.clone(), org: s.org.name.clone(), file: e.file.clone() }
}

/// The row of conversation `id` from its copies in other sidebars; `None` when every copy is
/// archived.
fn missing(
    id: &str,
    all: &[(&Sidebar, &Entry)],
    here_files: &BTreeMap<&str, &Entry>,
    here_cwds: &BTreeSet<&str>,
) -> Option<Missing> {
    let mut notes = Vec::new();
    let (live, archived): (Vec<_>, Vec<_>) = all.iter().copied().partition(|(_, e)| !e.is_archived);
    if live.is_empty() {
        return None;
    }
    if !archived.is_empty() {
        let names: Vec<String> = archived.iter().map(|(s, e)| describe(&at(s, e))).collect();
        notes.push(format!("archived, not taken: {}", names.join(", ")));
    }
    let unique = distinct_copies(live, &mut notes);
    let (src_sidebar, src) = *unique.first()?;
    let tied: Vec<&(&Sidebar, &Entry)> =
        unique.iter().filter(|(_, e)| e.last_activity_at == src.last_activity_at).collect();
    let (status, name_here) = status_of(id, src, &tied, here_files, here_cwds, &mut notes);
    let source = at(src_sidebar, src);
    let mut also_in: Vec<SidebarRef> =
        all.iter().map(|(s, e)| at(s, e)).filter(|r| *r != source).collect();
    also_in.sort();
    also_in.dedup();
    Some(Missing {
        cli_session_id: id.to_owned(),
        title: src.title.clone(),
        cwd: src.cwd.clone(),
        status,
        source,
        last_activity: src.last_activity_at.and_then(iso),
        also_in,
        note: notes.join("; "),
        can_replace: name_here == Some(NameHere::OlderOther),
        name_here,
        source_path: src.path.clone(),
    })
}

/// How conversation `id` could be restored from `src` (the newest copy; `tied`: the copies as
/// new as it) into the current sidebar, and what that sidebar holds under its file name. Why
/// goes first in `notes`.
fn status_of(
    id: &str,
    src: &Entry,
    tied: &[&(&Sidebar, &Entry)],
    here_files: &BTreeMap<&str, &Entry>,
    here_cwds: &BTreeSet<&str>,
    notes: &mut Vec<String>,
) -> (MissingStatus, Option<NameHere>) {
    let mut name_here = None;
    let status = if tied.len() > 1 {
        let differ = differing_fields(&tied.iter().map(|(_, e)| *e).collect::<Vec<_>>());
        let copies: Vec<String> = tied.iter().map(|(s, e)| describe(&at(s, e))).collect();
        notes.insert(
            0,
            format!("differ in: {}; equally new: {}", differ.join(", "), copies.join(", ")),
        );
        MissingStatus::Ambiguous
    } else if let Some(h) = here_files.get(src.file.as_str()) {
        if h.cli_session_id.as_deref() == Some(id) && h.is_archived {
            notes.insert(0, format!("replaces the archived entry here ({})", h.file));
            name_here = Some(NameHere::ArchivedSame);
            MissingStatus::Restorable
        } else {
            let newer = match (src.last_activity_at, h.last_activity_at) {
                (Some(a), Some(b)) => a > b,
                (Some(_), None) => true,
                _ => false,
            };
            name_here = Some(if newer { NameHere::OlderOther } else { NameHere::NewerOther });
            notes.insert(
                0,
                format!(
                    "this sidebar has {} for another conversation; replacing older entries replaces it{}",
                    h.file,
                    if newer { "" } else { " only when the source is newer, and it is not" }
                ),
            );
            MissingStatus::ReplaceOlder
        }
    } else if src.cwd.as_deref().is_some_and(|c| here_cwds.contains(c)) {
        notes.insert(
            0,
            "a session here already uses this folder; allowing a second entry for it brings it back"
                .to_owned(),
        );
        MissingStatus::SharedFolder
    } else {
        MissingStatus::Restorable
    };
    (status, name_here)
}

/// The live copies, newest first, with copies under one file name with the same bytes counted
/// once (taking either writes the same file); each merge is noted.
fn distinct_copies<'a>(
    live: Vec<(&'a Sidebar, &'a Entry)>,
    notes: &mut Vec<String>,
) -> Vec<(&'a Sidebar, &'a Entry)> {
    let mut unique: Vec<(&Sidebar, &Entry)> = Vec::new();
    for (s, e) in live {
        match unique.iter().find(|(_, u)| u.file == e.file && u.sha256 == e.sha256) {
            Some((us, _)) => notes.push(format!(
                "identical bytes, counted as one copy: {} and {}",
                describe(&SidebarRef { file: e.file.clone(), ..at(us, e) }),
                describe(&at(s, e))
            )),
            None => unique.push((s, e)),
        }
    }
    unique.sort_by_key(|c| std::cmp::Reverse(c.1.last_activity_at));
    unique
}

fn describe(r: &SidebarRef) -> String {
    format!("{}/{}/{}", r.account, r.org, r.file)
}

/// The fields in which tied copies differ: the entry fields first, `file name` when the names
/// differ, and `spelling of the file` when nothing differs but the bytes (key order, spaces).
fn differing_fields(copies: &[&Entry]) -> Vec<String> {
    let Some((first, rest)) = copies.split_first() else { return Vec::new() };
    let keys: BTreeSet<&String> = copies.iter().flat_map(|e| e.field_digests.keys()).collect();
    let mut out: Vec<String> = keys
        .into_iter()
        .filter(|k| rest.iter().any(|e| e.field_digests.get(*k) != first.field_digests.get(*k)))
        .cloned()
        .collect();
    if rest.iter().any(|e| e.file != first.file) {
        out.push("file name".to_owned());
    }
    if out.is_empty() {
        out.push("spelling of the file".to_owned());
    }
    out
}
