//! Fork subagents (Claude Code 2.1.232+, `subagent_type: "fork"`) start with a copy of the
//! conversation so far. The copy belongs to the main transcript: it is shown, counted and
//! searched there, once. A line of a run is *inherited* when it names the line it copies
//! (`forkedFrom`), or, in a run whose sidecar says `agentType: "fork"`, when it carries the
//! `uuid` of a line of the main transcript.

use std::collections::{HashMap, HashSet};
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};
use std::time::SystemTime;

use memchr::memmem::Finder;
use serde::Deserialize;
use serde::de::IgnoredAny;

use super::Loose;
use crate::jsonl::{self, LineReader, Parsed};

/// What of a run repeats its main transcript.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Inherited {
    /// Offsets of the inherited lines, ascending.
    pub lines: Arc<[u64]>,
    /// How many of them are messages (user or assistant lines).
    pub messages: u64,
}

#[derive(Deserialize)]
struct ForkProbe<'a> {
    #[serde(default, rename = "type", borrow)]
    ty: Loose<'a>,
    #[serde(default, borrow)]
    uuid: Loose<'a>,
    #[serde(default, rename = "forkedFrom")]
    forked_from: Option<IgnoredAny>,
}

static FORKED_FROM: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\"forkedFrom\""));

/// Whether a line names the line of another transcript it copies (a top-level `forkedFrom`
/// object; a cheap byte search first, so lines without the key are not parsed).
pub fn is_copy(bytes: &[u8]) -> bool {
    if FORKED_FROM.find(bytes).is_none() {
        return false;
    }
    let mut scratch = Vec::new();
    matches!(
        jsonl::parse_line_with::<ForkProbe<'_>>(bytes, &mut scratch),
        Parsed::Value(ForkProbe { forked_from: Some(_), .. })
    )
}

/// The inherited lines of the run at `run`, whose main transcript is `main`; `fork` says the
/// run's sidecar names it a fork (only then are uuids compared with the main transcript's).
pub fn inherited(run: &Path, main: &Path, fork: bool) -> std::io::Result<Inherited> {
    let file = crate::files::open_regular(run)?;
    let mut lines =
        LineReader::with_max_line(BufReader::new(file), 0, jsonl::LISTING_MAX_LINE_BYTES);
    let mut scratch = Vec::new();
    let mut found: Vec<(u64, bool)> = Vec::new();
    // Lines that may repeat a main-transcript line: uuid → (offset, is a message).
    let mut by_uuid: HashMap<String, (u64, bool)> = HashMap::new();
    while let Some(line) = lines.next_line()? {
        let copy = FORKED_FROM.find(line.bytes).is_some();
        if !copy && !fork {
            continue;
        }
        scratch.clear();
        let Parsed::Value(p) = jsonl::parse_line_with::<ForkProbe<'_>>(line.bytes, &mut scratch)
        else {
            continue;
        };
        let message = matches!(p.ty.as_str(), Some("user" | "assistant"));
        if p.forked_from.is_some() {
            found.push((line.offset, message));
        } else if let Some(uuid) = p.uuid.as_str() {
            by_uuid.insert(uuid.to_owned(), (line.offset, message));
        }
    }
    if !by_uuid.is_empty() {
        for uuid in uuids_in(main, &by_uuid.keys().map(String::as_str).collect())? {
            if let Some(hit) = by_uuid.get(&uuid) {
                found.push(*hit);
            }
        }
    }
    found.sort_unstable();
    found.dedup();
    Ok(Inherited {
        messages: found.iter().filter(|(_, m)| *m).count() as u64,
        lines: found.into_iter().map(|(o, _)| o).collect(),
    })
}

/// Which of `wanted` are the `uuid` of a line of `path`. Lines are only parsed when one of the
/// wanted values occurs in them.
fn uuids_in(path: &Path, wanted: &HashSet<&str>) -> std::io::Result<Vec<String>> {
    static UUID: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\"uuid\""));
    let file = crate::files::open_regular(path)?;
    let mut lines =
        LineReader::with_max_line(BufReader::new(file), 0, jsonl::LISTING_MAX_LINE_BYTES);
    let mut scratch = Vec::new();
    let mut out = Vec::new();
    while let Some(line) = lines.next_line()? {
        let mentions = UUID.find_iter(line.bytes).any(|i| {
            super::facts::string_value_at(line.bytes, i + UUID.needle().len())
                .and_then(|v| std::str::from_utf8(v).ok())
                .is_some_and(|v| wanted.contains(v))
        });
        if !mentions {
            continue;
        }
        scratch.clear();
        if let Parsed::Value(p) = jsonl::parse_line_with::<ForkProbe<'_>>(line.bytes, &mut scratch)
            && let Some(uuid) = p.uuid.as_str()
            && wanted.contains(uuid)
        {
            out.push(uuid.to_owned());
        }
    }
    Ok(out)
}

/// The inherited lines of the last few runs looked at, each as of its file's size and time (a
/// run is paged many times while it is read).
#[derive(Debug, Default)]
pub struct ForkCache {
    entries: Vec<CachedRun>,
}

#[derive(Debug)]
struct CachedRun {
    run: PathBuf,
    stamp: (u64, Option<SystemTime>, u64, Option<SystemTime>),
    inherited: Arc<Inherited>,
}

/// How many runs a cache keeps.
const CACHED_RUNS: usize = 4;

impl ForkCache {
    /// The inherited lines of `run` (see [`inherited`]) as the files are now.
    pub fn get(&mut self, run: &Path, main: &Path, fork: bool) -> std::io::Result<Arc<Inherited>> {
        let stat =
            |p: &Path| std::fs::metadata(p).map_or((0, None), |m| (m.len(), m.modified().ok()));
        let ((rl, rm), (ml, mm)) = (stat(run), stat(main));
        let stamp = (rl, rm, ml, mm);
        let at = self.entries.iter().position(|e| e.run == run);
        let entry = match at.map(|i| self.entries.remove(i)) {
            Some(e) if e.stamp == stamp => e,
            _ => CachedRun {
                run: run.to_owned(),
                stamp,
                inherited: Arc::new(inherited(run, main, fork)?),
            },
        };
        let found = Arc::clone(&entry.inherited);
        self.entries.push(entry);
        if self.entries.len() > CACHED_RUNS {
            self.entries.remove(0);
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    fn write(dir: &Path, name: &str, lines: &[serde_json::Value]) -> PathBuf {
        let p = dir.join(name);
        let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&p, body).unwrap();
        p
    }

    #[test]
    fn copies_are_found_by_forked_from_and_by_uuid_in_a_fork() {
        let d = tempfile::tempdir().unwrap();
        let main = write(
            d.path(),
            "main.jsonl",
            &[
                serde_json::json!({"type":"user","uuid":"m1","message":{"content":"hi"}}),
                serde_json::json!({"type":"assistant","uuid":"m2","message":{"content":[]}}),
                // A uuid nested in a line is not the line's uuid.
                serde_json::json!({"type":"user","uuid":"m3","toolUseResult":{"uuid":"r9"}}),
            ],
        );
        let run = write(
            d.path(),
            "agent-a.jsonl",
            &[
                serde_json::json!({"type":"user","uuid":"c1","forkedFrom":{"messageUuid":"m1"}}),
                serde_json::json!({"type":"assistant","uuid":"m2"}),
                serde_json::json!({"type":"user","uuid":"r1","message":{"content":"forkedFrom"}}),
                serde_json::json!({"type":"assistant","uuid":"r9"}),
            ],
        );
        let offsets: Vec<u64> = {
            let text = std::fs::read_to_string(&run).unwrap();
            let mut o = vec![0];
            for l in text.lines() {
                o.push(o.last().unwrap() + l.len() as u64 + 1);
            }
            o
        };
        let fork = inherited(&run, &main, true).unwrap();
        assert_eq!(&*fork.lines, &[offsets[0], offsets[1]]);
        assert_eq!(fork.messages, 2);
        // Not named a fork: only the lines that say they are copies.
        let plain = inherited(&run, &main, false).unwrap();
        assert_eq!(&*plain.lines, &[offsets[0]]);
        assert!(is_copy(br#"{"type":"user","forkedFrom":{"sessionId":"s"}}"#));
        assert!(!is_copy(br#"{"type":"user","message":{"content":"\"forkedFrom\""}}"#));
    }

    #[test]
    fn the_cache_follows_the_files() {
        let d = tempfile::tempdir().unwrap();
        let main = write(d.path(), "main.jsonl", &[serde_json::json!({"type":"user","uuid":"m1"})]);
        let run =
            write(d.path(), "agent-a.jsonl", &[serde_json::json!({"type":"user","uuid":"r1"})]);
        let mut cache = ForkCache::default();
        assert!(cache.get(&run, &main, true).unwrap().lines.is_empty());
        let line = serde_json::json!({"type":"user","uuid":"r1","forkedFrom":{}});
        std::fs::write(&run, format!("{line}\n{line}\n")).unwrap();
        assert_eq!(cache.get(&run, &main, true).unwrap().lines.len(), 2);
    }
}
