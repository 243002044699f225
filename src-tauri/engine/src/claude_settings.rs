//! Claude Code's global settings file (`~/.claude.json`): read once, bounded, for what Corral
//! shows of it — which folders Claude Code trusts (reopen) and who it is signed in as (the
//! desktop app's sidebars are named by that account and organisation).
//!
//! Read only; an unreadable or odd file reads as "not known", never as an error.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The most of the settings file read (a person's is a few hundred KB).
const SETTINGS_LIMIT: u64 = 64 * 1024 * 1024;

/// The settings file for the home `claude_home`: `<home>/.config.json` when it is there (the old
/// name), else `.claude.json` in the home when it is not the default one (`CLAUDE_CONFIG_DIR`),
/// else beside it (`~/.claude.json`).
pub fn settings_file(claude_home: &Path, is_default_home: bool) -> Option<PathBuf> {
    let legacy = claude_home.join(".config.json");
    if legacy.is_file() {
        return Some(legacy);
    }
    if is_default_home {
        return Some(claude_home.parent()?.join(".claude.json"));
    }
    Some(claude_home.join(".claude.json"))
}

/// The settings of the Claude home `claude_home` (`default_home`: the one `claude` uses on its
/// own), or `None` when they cannot be read as JSON.
pub fn read(claude_home: &Path, default_home: Option<&Path>) -> Option<Value> {
    let is_default = default_home.is_some_and(|d| d == claude_home);
    let file = settings_file(claude_home, is_default)?;
    let bytes = crate::files::read_bounded(&file, SETTINGS_LIMIT).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// The account Claude Code is signed in with (`oauthAccount`), as far as the settings say.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SignedIn {
    /// The account's uuid (the desktop store's first folder level).
    pub account_uuid: Option<String>,
    /// Its email address.
    pub email: Option<String>,
    /// The organisation's uuid (the store's second level).
    pub org_uuid: Option<String>,
    /// The organisation's name.
    pub org_name: Option<String>,
}

impl SignedIn {
    /// From settings read by [`read`] (`None`: nobody signed in, or not known).
    pub fn from_settings(settings: Option<&Value>) -> Option<Self> {
        let a = settings?.get("oauthAccount")?;
        let text = |key: &str| {
            a.get(key)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        let s = Self {
            account_uuid: text("accountUuid"),
            email: text("emailAddress"),
            org_uuid: text("organizationUuid"),
            org_name: text("organizationName"),
        };
        (s != Self::default()).then_some(s)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn the_signed_in_account_is_read_from_oauth_account_and_odd_shapes_are_unknown() {
        let s = json!({"oauthAccount": {"accountUuid": "a1", "emailAddress": "ada@example.com",
            "organizationUuid": "o1", "organizationName": "Example Ltd", "displayName": "Ada"}});
        let got = SignedIn::from_settings(Some(&s)).unwrap();
        assert_eq!(got.email.as_deref(), Some("ada@example.com"));
        assert_eq!(got.org_name.as_deref(), Some("Example Ltd"));
        assert_eq!(SignedIn::from_settings(Some(&json!({"oauthAccount": 3}))), None);
        assert_eq!(
            SignedIn::from_settings(Some(&json!({"oauthAccount": {"emailAddress": " "}}))),
            None
        );
        assert_eq!(SignedIn::from_settings(None), None);
    }
}
