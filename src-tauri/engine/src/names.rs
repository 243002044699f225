//! Where a session's custom name lives, so that a name set in Corral or in herdctl shows in every
//! view of both.
//!
//! herdctl keeps names in `session-metadata/<key>.json` and uses two keys for one session:
//! - its **agent view** (an agent's own list, its chat page, its rename) reads and writes the
//!   key of the agent that **owns** the session (job, platform binding or adoption);
//! - its **All Chats** view reads (and its rename of an All Chats row writes) the key of the
//!   agent whose **folder** the session sits in — the agent whose working directory encodes to
//!   the session's `projects/` folder (when two agents share a folder, the one whose directory is
//!   the session's cwd) — or `adhoc` when the folder is no agent's.
//!
//! Corral's rule, one for reading and one for writing:
//! - **read**: the first name found under the owner's key, then the folder agent's, then `adhoc`
//!   (herdctl records no time for a custom name, so no "newest write" can be told);
//! - **write**: the name goes under the owner's key and under the folder's key (the folder
//!   agent's, or `adhoc`), so both herdctl views show it; any other copy among those three keys
//!   is removed, so no stale name can win later; **clear** removes it from all three.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::fleet::Fleet;
use crate::metadata::ADHOC;
use crate::paths;

/// Longest custom name accepted, in characters (herdctl sets no limit; a sidebar shows ~60).
pub const MAX_NAME_CHARS: usize = 200;

/// A custom name as a person typed it, checked once for every caller (the app, the CLI): trimmed;
/// empty (or `None`) means "clear"; at most [`MAX_NAME_CHARS`] characters; no line breaks or
/// other control characters (a name is one line in every list, herdctl's included).
pub fn validate_name(name: Option<&str>) -> crate::error::Result<Option<String>> {
    let Some(trimmed) = name.map(str::trim).filter(|n| !n.is_empty()) else { return Ok(None) };
    if trimmed.chars().count() > MAX_NAME_CHARS {
        return Err(crate::error::Error::InvalidInput(format!(
            "a name may have at most {MAX_NAME_CHARS} characters"
        )));
    }
    if trimmed.chars().any(char::is_control) {
        return Err(crate::error::Error::InvalidInput(
            "a name may not contain line breaks or control characters".into(),
        ));
    }
    Ok(Some(trimmed.to_owned()))
}

/// Agents by the `projects/` folder their working directory encodes to.
#[derive(Debug, Clone, Default)]
pub struct FolderAgents {
    /// Encoded folder → (qualified name, working directory), in fleet order.
    by_folder: HashMap<String, Vec<(String, PathBuf)>>,
    /// Agents whose encoded folder is long enough to carry a hash suffix (matched by prefix).
    long: Vec<(String, PathBuf)>,
}

impl FolderAgents {
    /// The agents of `fleet` by the transcript folder of their working directory.
    pub fn new(fleet: Option<&Fleet>) -> Self {
        let mut out = Self::default();
        for a in fleet.map(|f| f.agents.as_slice()).unwrap_or_default() {
            let (Some(wd), false) = (&a.working_directory, a.docker) else { continue };
            let entry = (a.qualified_name.clone(), wd.clone());
            let encoded = paths::encode_path(&wd.to_string_lossy());
            if encoded.len() > paths::MAX_ENCODED_LEN {
                out.long.push(entry.clone());
            }
            out.by_folder.entry(encoded).or_default().push(entry);
        }
        out
    }

    /// The agent whose folder `folder` is (see the module doc); `cwd` breaks a tie.
    pub fn agent_of(&self, folder: &str, cwd: &str) -> Option<&str> {
        // Called once per listed session: no allocation, and the prefix scan only for the rare
        // agents whose folder carries a hash suffix.
        let candidates = || {
            let long = self
                .long
                .iter()
                .filter(|(_, wd)| paths::folder_is_for(folder, &wd.to_string_lossy()));
            self.by_folder.get(folder).into_iter().flatten().chain(long)
        };
        let trim = |p: &str| p.trim_end_matches(['/', '\\']).len();
        let cwd = &cwd[..trim(cwd)];
        let same = |wd: &Path| {
            let wd = wd.to_string_lossy();
            wd[..trim(&wd)] == *cwd
        };
        candidates()
            .find(|(_, wd)| same(wd))
            .or_else(|| candidates().next())
            .map(|(name, _)| name.as_str())
    }
}

/// Everything a rename needs of one session: where its transcript is, and the metadata keys of
/// its name (see [`NameKeys`]), owned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameTarget {
    /// The session.
    pub session_id: String,
    /// Its transcript.
    pub transcript: PathBuf,
    /// [`NameKeys::read_order`].
    pub read_order: Vec<String>,
    /// [`NameKeys::written`].
    pub written: Vec<String>,
    /// The custom name Corral shows now.
    pub shown: Option<String>,
}

/// The metadata keys of one session's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NameKeys<'a> {
    /// The agent that owns the session, if any.
    pub owner: Option<&'a str>,
    /// The agent whose folder the session sits in, if any.
    pub folder_agent: Option<&'a str>,
}

impl<'a> NameKeys<'a> {
    /// Owner, folder agent, `adhoc`: the read precedence, without repeats.
    pub fn read_order(&self) -> Vec<&'a str> {
        let mut keys: Vec<&'a str> = Vec::with_capacity(3);
        for k in [self.owner, self.folder_agent, Some(ADHOC)].into_iter().flatten() {
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        keys
    }

    /// Where a name is written: the owner's key (herdctl's agent view) and the folder's key (its
    /// All Chats: the folder agent, else `adhoc`), without repeats.
    pub fn written(&self) -> Vec<&'a str> {
        let mut keys: Vec<&'a str> = self.owner.into_iter().collect();
        let folder = self.folder_agent.unwrap_or(ADHOC);
        if !keys.contains(&folder) {
            keys.push(folder);
        }
        keys
    }

    /// The first name found under [`Self::read_order`].
    pub fn find<'n>(
        &self,
        names: &'n HashMap<String, HashMap<String, String>>,
        session_id: &str,
    ) -> Option<&'n String> {
        self.find_with_key(names, session_id).map(|(_, name)| name)
    }

    /// [`Self::find`], with the key the name was found under.
    pub fn find_with_key<'n>(
        &self,
        names: &'n HashMap<String, HashMap<String, String>>,
        session_id: &str,
    ) -> Option<(&'n str, &'n String)> {
        self.read_order().into_iter().find_map(|k| {
            let (key, by_session) = names.get_key_value(k)?;
            Some((key.as_str(), by_session.get(session_id)?))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_the_owner_and_the_folder() {
        let none = NameKeys { owner: None, folder_agent: None };
        assert_eq!(none.read_order(), ["adhoc"]);
        assert_eq!(none.written(), ["adhoc"]);
        let in_folder = NameKeys { owner: None, folder_agent: Some("alpha") };
        assert_eq!(in_folder.read_order(), ["alpha", "adhoc"]);
        assert_eq!(in_folder.written(), ["alpha"]);
        let own = NameKeys { owner: Some("alpha"), folder_agent: Some("alpha") };
        assert_eq!(own.read_order(), ["alpha", "adhoc"]);
        assert_eq!(own.written(), ["alpha"]);
        let away = NameKeys { owner: Some("alpha"), folder_agent: None };
        assert_eq!(away.read_order(), ["alpha", "adhoc"]);
        assert_eq!(away.written(), ["alpha", "adhoc"]);
        let elsewhere = NameKeys { owner: Some("alpha"), folder_agent: Some("beta") };
        assert_eq!(elsewhere.read_order(), ["alpha", "beta", "adhoc"]);
        assert_eq!(elsewhere.written(), ["alpha", "beta"]);
    }
}
