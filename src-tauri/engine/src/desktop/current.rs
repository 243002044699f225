//! Which sidebar is the current one, and by which rule. In order (measured on a real machine; see
//! the design notes): this session's own entry (`CLAUDE_CODE_HOST_SESSION_ID=local_<uuid>`,
//! which the app passes to its children: the folder holding it is the account and org); the
//! scratch-workspaces prefix in the running session's working directory (account, then org); the
//! same prefix in the transcript store's encoded folder names, newest first; the account whose
//! entries were active last (the account only). Never `ownerAccountUuid` from transcripts: it was
//! measured wrong.

use std::path::Path;

use serde::Serialize;
use ts_rs::TS;

use super::{Store, is_uuid, scratch_prefix};

/// What the rules look at, passed in (the caller reads its environment).
#[derive(Debug, Clone, Copy, Default)]
pub struct Signals<'a> {
    /// `CLAUDE_CODE_HOST_SESSION_ID` of the process asking (set inside the app's sessions).
    pub host_session_id: Option<&'a str>,
    /// The working directory of the session asking.
    pub cwd: Option<&'a Path>,
    /// The transcript store's folder names (under `projects/`), newest transcript first.
    pub transcript_folders: &'a [String],
    /// The account Claude Code is signed in with (names the sidebars; tells no current one).
    pub signed_in: Option<&'a crate::claude_settings::SignedIn>,
}

/// The rule that named the current sidebar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(rename = "DesktopCurrentRule")]
pub enum CurrentRule {
    /// Given by the person (`--account`/`--org`, or chosen in the app).
    Given,
    /// This session's own entry (`CLAUDE_CODE_HOST_SESSION_ID`).
    HostSession,
    /// The scratch-workspaces prefix in the working directory.
    ScratchWorkingDirectory,
    /// The scratch-workspaces prefix in a transcript folder name (newest first).
    ScratchTranscriptFolder,
    /// The account whose entries were active last (the org is not known).
    NewestActivity,
}

/// The current sidebar: an account, and its org when the rule names one (without it the
/// comparison is account-wide, and an org switch inside the account cannot be seen).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "DesktopCurrent")]
pub struct Current {
    /// The account folder.
    pub account: String,
    /// The organisation folder, when the rule names one.
    pub org: Option<String>,
    /// The rule that told it.
    pub rule: CurrentRule,
}

impl Current {
    /// By the rules, in order; `None` when none answers.
    pub fn find(store: &Store, s: Signals<'_>) -> Option<Self> {
        host_session(store, s.host_session_id)
            .or_else(|| scratch_cwd(store, s.cwd))
            .or_else(|| scratch_folders(store, s.transcript_folders))
            .or_else(|| newest_activity(store))
    }

    /// Whether the sidebar `(account, org)` is this one (any org of the account when the org
    /// is not known).
    pub fn is(&self, account: &str, org: &str) -> bool {
        self.account == account && self.org.as_deref().is_none_or(|o| o == org)
    }
}

/// The sidebar of this very session's own entry (`CLAUDE_CODE_HOST_SESSION_ID=local_<uuid>` held
/// by exactly one sidebar): the only target a restore takes without being told one, since the
/// other rules only guess.
pub fn own_sidebar(store: &Store, host_session_id: Option<&str>) -> Option<(String, String)> {
    let c = host_session(store, host_session_id)?;
    Some((c.account, c.org?))
}

fn host_session(store: &Store, id: Option<&str>) -> Option<Current> {
    let id = id?.strip_prefix("local_")?;
    if !is_uuid(id) {
        return None;
    }
    let file = format!("local_{id}.json");
    let holders: Vec<_> = store
        .sidebars
        .iter()
        .filter(|s| s.account.uuid && s.org.uuid && s.entries.iter().any(|e| e.file == file))
        .collect();
    let first = holders.first()?;
    // An adopted entry sits in two sidebars under one name: then only a shared account answers.
    let same_account = holders.iter().all(|s| s.account == first.account);
    let org = (holders.len() == 1).then(|| first.org.name.clone());
    same_account.then(|| Current {
        account: first.account.name.clone(),
        org,
        rule: CurrentRule::HostSession,
    })
}

fn scratch_cwd(store: &Store, cwd: Option<&Path>) -> Option<Current> {
    let rest = cwd?.strip_prefix(scratch_prefix(&store.root)?).ok()?;
    let mut parts = rest.components().map(|c| c.as_os_str().to_str());
    let account = parts.next().flatten().filter(|a| is_uuid(a))?;
    let org = parts.next().flatten().filter(|o| is_uuid(o));
    Some(Current {
        account: account.to_owned(),
        org: org.map(str::to_owned),
        rule: CurrentRule::ScratchWorkingDirectory,
    })
}

fn scratch_folders(store: &Store, folders: &[String]) -> Option<Current> {
    let prefix = scratch_prefix(&store.root)?;
    let encoded = format!("{}-", crate::paths::encode_path(&prefix.to_string_lossy()));
    folders.iter().find_map(|f| {
        let rest = f.strip_prefix(&encoded)?;
        let account = rest.get(..36).filter(|a| is_uuid(a))?;
        let org = rest.get(37..73).filter(|o| rest.get(36..37) == Some("-") && is_uuid(o));
        Some(Current {
            account: account.to_owned(),
            org: org.map(str::to_owned),
            rule: CurrentRule::ScratchTranscriptFolder,
        })
    })
}

fn newest_activity(store: &Store) -> Option<Current> {
    store
        .sidebars
        .iter()
        .filter(|s| s.account.uuid)
        .flat_map(|s| s.entries.iter().filter_map(move |e| Some((e.last_activity_at?, s))))
        .max_by_key(|(t, _)| *t)
        .map(|(_, s)| Current {
            account: s.account.name.clone(),
            org: None,
            rule: CurrentRule::NewestActivity,
        })
}
