//! Planning a restore: which entries of other sidebars would be copied, unchanged, into the
//! target sidebar, and which are refused and why. Pure: it reads the store and writes nothing.
//! The target is given (account and org, uuid-shaped, its folder already there: a typo must not
//! create an account folder) — never a guess. Each conversation is taken from its report row:
//! ambiguous ones are refused, a shared folder needs `allow_shared_folder`, a file name this
//! sidebar already uses for another conversation needs `replace_older` and a strictly newer
//! source, and an archived entry here for the same conversation is replaced without a flag.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{Missing, MissingStatus, NameHere, Signals, Store, check_sidebar, report};
use crate::error::{Error, Result};

/// What to restore.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "DesktopRestoreRequest")]
pub struct RestoreRequest {
    /// Every conversation the report lists as missing.
    pub all: bool,
    /// Conversations by `cliSessionId` (or a prefix naming exactly one).
    pub ids: Vec<String>,
    /// Add a second entry for a folder a session here already uses.
    pub allow_shared_folder: bool,
    /// Replace this sidebar's older entry of the same file name.
    pub replace_older: bool,
}

/// How an entry lands in the target sidebar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(rename = "DesktopRestoreAction")]
pub enum RestoreAction {
    /// A new file (created exclusively: never over anything).
    Create,
    /// Over this sidebar's archived entry of the same conversation and file name.
    ReplaceArchived,
    /// Over this sidebar's older entry of the same file name for another conversation.
    ReplaceOlder,
}

/// One entry to copy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "DesktopRestoreItem")]
pub struct RestoreItem {
    /// The Claude Code session the entry shows.
    pub cli_session_id: String,
    /// Its title in the sidebar.
    pub title: Option<String>,
    /// The entry copied (another sidebar's).
    pub source_path: String,
    /// Where it goes.
    pub target_path: String,
    /// How it lands there.
    pub action: RestoreAction,
}

/// A conversation that will not be restored, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "DesktopRefusal")]
pub struct Refusal {
    /// The conversation.
    pub cli_session_id: String,
    /// Why it stays out.
    pub reason: String,
}

/// The plan: a dry run shows it, and a run carries it out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "DesktopRestorePlan")]
pub struct RestorePlan {
    /// What was asked (a run plans it again and carries out only what is still the same).
    pub request: RestoreRequest,
    /// The store, as planned.
    pub store: String,
    /// The target sidebar's account folder.
    pub account: String,
    /// The target sidebar's organisation folder.
    pub org: String,
    /// The target sidebar's folder.
    pub target_dir: String,
    /// What will be copied.
    pub items: Vec<RestoreItem>,
    /// What will not be, and why.
    pub refused: Vec<Refusal>,
    /// What the backup of the whole store, made before anything is written, will take.
    #[serde(default)]
    pub backup: super::BackupSize,
}

/// Plans restoring `req` into the sidebar `(account, org)` of `store`.
pub fn plan_restore(
    store: &Store,
    account: &str,
    org: &str,
    req: &RestoreRequest,
) -> Result<RestorePlan> {
    check_sidebar(account, org)?;
    let target = crate::paths::sidebar_folder(&store.root, account, org).map_err(|why| {
        Error::InvalidInput(format!(
            "{why} (Corral restores only into a sidebar folder of the store; it does not create \
             accounts or orgs)"
        ))
    })?;
    let r = report(store, Some((account, org)), Signals::default());
    let mut plan = RestorePlan {
        request: req.clone(),
        store: store.root.display().to_string(),
        account: account.to_owned(),
        org: org.to_owned(),
        target_dir: target.display().to_string(),
        items: Vec::new(),
        refused: Vec::new(),
        backup: super::backup::measure(&store.root)?.0,
    };
    let chosen: Vec<&Missing> = if req.all {
        r.missing.iter().collect()
    } else {
        let mut out = Vec::new();
        for id in &req.ids {
            match choose(store, &r.missing, account, org, id) {
                Ok(m) => out.push(m),
                Err(reason) => plan.refused.push(Refusal { cli_session_id: id.clone(), reason }),
            }
        }
        out
    };
    let mut names = BTreeSet::new();
    let mut seen = BTreeSet::new();
    for m in chosen {
        if !seen.insert(m.cli_session_id.as_str()) {
            continue;
        }
        match decide(m, req) {
            Ok(action) if names.insert(m.source.file.clone()) => {
                plan.items.push(RestoreItem {
                    cli_session_id: m.cli_session_id.clone(),
                    title: m.title.clone(),
                    source_path: m.source_path.display().to_string(),
                    target_path: target.join(&m.source.file).display().to_string(),
                    action,
                });
            }
            Ok(_) => plan.refused.push(Refusal {
                cli_session_id: m.cli_session_id.clone(),
                reason: format!(
                    "another chosen conversation takes the file name {}",
                    m.source.file
                ),
            }),
            Err(reason) => {
                plan.refused.push(Refusal { cli_session_id: m.cli_session_id.clone(), reason });
            }
        }
    }
    Ok(plan)
}

/// The report row `id` names (a whole `cliSessionId`, or a prefix of exactly one), or why not.
fn choose<'a>(
    store: &Store,
    missing: &'a [Missing],
    account: &str,
    org: &str,
    id: &str,
) -> std::result::Result<&'a Missing, String> {
    if id.is_empty() {
        return Err("an empty id names nothing".to_owned());
    }
    let known: BTreeSet<&str> = store
        .sidebars
        .iter()
        .flat_map(|s| s.entries.iter())
        .filter_map(|e| e.cli_session_id.as_deref())
        .filter(|c| c.starts_with(id))
        .collect();
    // A whole id names its conversation even when it is also a prefix of another one.
    let full = match known.iter().next() {
        _ if known.contains(id) => id,
        Some(only) if known.len() == 1 => only,
        None => return Err("no sidebar holds this conversation".to_owned()),
        Some(_) => return Err(format!("this id prefix matches {} conversations", known.len())),
    };
    if let Some(m) = missing.iter().find(|m| m.cli_session_id == full) {
        return Ok(m);
    }
    let here_live = store
        .sidebars
        .iter()
        .filter(|s| s.account.name == account && s.org.name == org)
        .any(|s| s.live().any(|e| e.cli_session_id.as_deref() == Some(full)));
    Err(if here_live {
        "already in this sidebar".to_owned()
    } else {
        "archived in every other sidebar (the newest archived copy is not brought back)".to_owned()
    })
}

/// How a missing conversation lands here, or why it does not.
fn decide(m: &Missing, req: &RestoreRequest) -> std::result::Result<RestoreAction, String> {
    match (m.status, m.name_here) {
        (MissingStatus::Ambiguous, _) => Err(format!("ambiguous: {}", m.note)),
        (MissingStatus::SharedFolder, _) if !req.allow_shared_folder => Err(format!(
            "an entry here already uses its folder ({}); allow a second one to restore it",
            m.cwd.as_deref().unwrap_or("?")
        )),
        (MissingStatus::ReplaceOlder, Some(NameHere::OlderOther)) if req.replace_older => {
            Ok(RestoreAction::ReplaceOlder)
        }
        (MissingStatus::ReplaceOlder, Some(NameHere::OlderOther)) => {
            Err(format!("{} (not asked to replace it)", m.note))
        }
        (MissingStatus::ReplaceOlder, _) => Err(m.note.clone()),
        (_, Some(NameHere::ArchivedSame)) => Ok(RestoreAction::ReplaceArchived),
        (MissingStatus::Restorable | MissingStatus::SharedFolder, _) => Ok(RestoreAction::Create),
    }
}
