//! The Claude desktop app's sidebars: its second store beside the transcripts,
//! `claude-code-sessions/<account uuid>/<org uuid>/local_<uuid>.json`, one folder per sidebar,
//! each entry pointing at a transcript by `cliSessionId`. After an account or org switch the new
//! sidebar is empty while every conversation is still on disk; this module reads the store
//! (`store`), tells which sidebar is the current one and by which rule (`current`), reports
//! the conversations other sidebars hold that the current one does not (`report`), plans
//! bringing them back (`restore`, pure) and carries the plan out as an undoable run (`run`:
//! the whole store backed up first, the app checked closed twice, each entry journaled before
//! it is written; undone by [`crate::runs::undo`]).
//!
//! Corral writes here only in a restore the person asked for. Every field of an entry is optional (the app's schema is not ours), a
//! folder name is as untrusted as a file's content, and a store that exists but yields nothing is
//! a finding, never "nothing missing".

mod app;
mod backup;
mod current;
mod report;
mod restore;
mod run;
mod store;

use std::path::{Path, PathBuf};

pub use app::{AppProcess, AppState, app_state, is_app};
pub use backup::{BackupLeftOut, BackupSize};
pub use current::{Current, CurrentRule, Signals, own_sidebar};
pub use report::{
    LeftOut, Missing, MissingStatus, NameHere, Report, SidebarRef, SidebarRow, report, report_in,
};
pub use restore::{Refusal, RestoreAction, RestoreItem, RestorePlan, RestoreRequest, plan_restore};
pub use run::{RestorePreview, RestoreProgress, RestoreReport, RestoreRun, Restored, restore};
pub use store::{Entry, FolderName, Sidebar, Store};

/// Where the desktop app keeps the store on this platform (`None` when the platform's folders
/// are unknown): macOS `~/Library/Application Support/Claude/claude-code-sessions`, Windows
/// `%APPDATA%\Claude\claude-code-sessions`, elsewhere `$XDG_CONFIG_HOME/Claude/…` (else
/// `~/.config/Claude/…`). `env` and `home` are passed in so tests never look at the real ones.
pub fn default_store(home: Option<&Path>, env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let user_data = if cfg!(target_os = "macos") {
        home?.join("Library").join("Application Support")
    } else if cfg!(windows) {
        PathBuf::from(env("APPDATA").filter(|v| !v.is_empty())?)
    } else {
        match env("XDG_CONFIG_HOME").filter(|v| Path::new(v).is_absolute()) {
            Some(x) => PathBuf::from(x),
            None => home?.join(".config"),
        }
    };
    Some(user_data.join("Claude").join("claude-code-sessions"))
}

/// The store to read: `explicit` (a setting or `--desktop-store`), else [`default_store`] for
/// this process's home and environment.
pub fn store_from_env(explicit: Option<&Path>) -> Option<PathBuf> {
    match explicit {
        Some(p) => Some(crate::paths::absolute(p)),
        None => default_store(dirs::home_dir().as_deref(), &|k| std::env::var(k).ok()),
    }
}

/// The scratch-workspaces folder beside a store (`<app data>/scratch-workspaces`): sessions the
/// app starts there run in `<it>/<account>/<org>/…`.
pub fn scratch_prefix(store_root: &Path) -> Option<PathBuf> {
    Some(store_root.parent()?.join("scratch-workspaces"))
}

pub use crate::paths::is_uuid;

/// A sidebar named by the person (`--account`/`--org`, or chosen in the app): both names
/// uuid-shaped, as only such folders are ever targets.
pub fn check_sidebar(account: &str, org: &str) -> crate::error::Result<()> {
    if is_uuid(account) && is_uuid(org) {
        return Ok(());
    }
    Err(crate::error::Error::InvalidInput(
        "an account and an org are folder names of the store: uuids (8-4-4-4-12 hex digits)"
            .to_owned(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_shapes() {
        assert!(is_uuid("0f8fad5b-d9cb-469f-a165-70867728950e"));
        assert!(is_uuid("0F8FAD5B-D9CB-469F-A165-70867728950E"));
        assert!(!is_uuid("0f8fad5b-d9cb-469f-a165-70867728950"));
        assert!(!is_uuid("0f8fad5b_d9cb-469f-a165-70867728950e"));
        assert!(!is_uuid("../../d9cb-469f-a165-70867728950e1234"));
        assert!(!is_uuid(""));
    }

    #[test]
    fn the_default_store_follows_the_platform() {
        let env = |k: &str| match k {
            "XDG_CONFIG_HOME" => Some("/x/config".to_owned()),
            "APPDATA" => Some("C:\\Users\\a\\AppData\\Roaming".to_owned()),
            _ => None,
        };
        let got = default_store(Some(Path::new("/home/a")), &env);
        let got = got.as_deref().map(Path::to_path_buf);
        if cfg!(target_os = "macos") {
            assert_eq!(
                got,
                Some(PathBuf::from(
                    "/home/a/Library/Application Support/Claude/claude-code-sessions"
                ))
            );
        } else if cfg!(windows) {
            assert!(got.is_some_and(|p| p.ends_with("Claude\\claude-code-sessions")));
        } else {
            assert_eq!(got, Some(PathBuf::from("/x/config/Claude/claude-code-sessions")));
            let relative = |k: &str| (k == "XDG_CONFIG_HOME").then(|| "rel".to_owned());
            assert_eq!(
                default_store(Some(Path::new("/home/a")), &relative),
                Some(PathBuf::from("/home/a/.config/Claude/claude-code-sessions"))
            );
        }
    }
}
