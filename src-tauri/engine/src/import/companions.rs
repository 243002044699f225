//! The files a session keeps in `<sid>/` beside its transcript (subagents, tool results).

use std::fs;
use std::path::{Path, PathBuf};

use crate::paths::MAX_COMPANION_DEPTH;

/// Most companion files one session may bring along (a guard against a runaway folder).
const MAX_COMPANIONS: usize = 10_000;

/// The files under `<folder of transcript>/<sid>/` (regular files only; symbolic links and
/// anything deeper than `MAX_COMPANION_DEPTH` are left out), as `/`-separated relative paths.
pub(super) fn companions_of(transcript: &Path, sid: &str) -> Vec<String> {
    fn walk(dir: &Path, rel: &str, depth: usize, out: &mut Vec<String>) {
        let Ok(rd) = fs::read_dir(dir) else { return };
        let mut entries: Vec<fs::DirEntry> = rd.flatten().collect();
        entries.sort_by_key(fs::DirEntry::file_name);
        for e in entries {
            if out.len() >= MAX_COMPANIONS {
                return;
            }
            let Some(name) = e.file_name().to_str().map(str::to_owned) else { continue };
            let here = if rel.is_empty() { name } else { format!("{rel}/{name}") };
            match e.file_type() {
                Ok(t) if t.is_file() => out.push(here),
                Ok(t) if t.is_dir() && depth < MAX_COMPANION_DEPTH => {
                    walk(&e.path(), &here, depth + 1, out);
                }
                _ => {}
            }
        }
    }
    let Some(dir) = transcript.parent().map(|d| d.join(sid)) else { return Vec::new() };
    if !fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
        return Vec::new();
    }
    let mut out = Vec::new();
    walk(&dir, "", 1, &mut out);
    out
}

/// A companion's relative path as plain path parts, or `None` if it is anything else (a plan
/// may come from outside).
pub(super) fn companion_rel(rel: &str) -> Option<PathBuf> {
    let parts: Vec<&str> = rel.split('/').collect();
    let plain = parts.iter().all(|part| {
        !part.is_empty()
            && *part != "."
            && *part != ".."
            && !part.contains(['\\', '\0'])
            && Path::new(part).components().count() == 1
            && matches!(Path::new(part).components().next(), Some(std::path::Component::Normal(_)))
    });
    (plain && (1..=MAX_COMPANION_DEPTH).contains(&parts.len()))
        .then(|| parts.iter().collect::<PathBuf>())
}
