//! Questions lost on quit. Quitting the desktop app answers every open `AskUserQuestion` with a
//! rejection the owner never gave (an `is_error` tool result: "The user doesn't want to proceed
//! with this tool use…"), all stamped with the second of the quit; the session then goes on as if
//! the owner had declined. This finds those rejections (through the search index: they are rare),
//! with each question's text, so the owner can tell each session the rejection was the app
//! closing. A rejection is marked likely from a quit when other sessions got one in the same
//! second, or when nothing from the owner followed it.

use std::collections::{BTreeMap, BTreeSet};
use std::io::BufReader;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use crate::catalog::Catalog;
use crate::error::Result;
use crate::jsonl::{LISTING_MAX_LINE_BYTES, LineReader};
use crate::search::{SearchIndex, SearchOptions};

/// What the index is asked: failed results of the question tool that say the owner declined.
const QUERY: &str = r#"tool:askuserquestion is:error "want to proceed""#;
/// The first look: this many sessions and rejections per session. When the index holds more,
/// it is asked again for all of them (the counts it gives are exact): nothing is dropped.
const FIRST_SESSIONS: usize = 500;
const FIRST_HITS: usize = 16;

/// One rejected question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct LostQuestion {
    /// The session.
    pub session_id: String,
    /// The working directory it recorded.
    pub working_directory: String,
    /// The name a person gave it, if any.
    pub custom_name: Option<String>,
    /// Claude Code's generated title, if any.
    pub auto_name: Option<String>,
    /// The question as asked (every question of the call, one per line); empty when the call
    /// could not be found.
    pub question: String,
    /// When the question was asked.
    pub asked_at: Option<String>,
    /// When the rejection was written.
    pub rejected_at: Option<String>,
    /// Sessions (this one included) that got such a rejection in the same second.
    #[ts(type = "number")]
    pub same_second: u64,
    /// The owner wrote something after the rejection.
    pub owner_spoke_after: bool,
    /// From a quit, most likely: another session in the same second, or nothing from the owner
    /// since.
    pub likely_quit: bool,
}

/// Every rejected question the index knows, newest first.
pub fn lost_questions(index: &SearchIndex, catalog: &Catalog) -> Result<Vec<LostQuestion>> {
    // Every rejection is listed, so every match is counted.
    let first = SearchOptions {
        limit: FIRST_SESSIONS,
        hits_per_session: FIRST_HITS,
        exact_up_to: u64::MAX,
    };
    let mut found = index.search(catalog, QUERY, first)?;
    let most = found.sessions.iter().map(|s| s.matches).max().unwrap_or(0);
    let all_sessions = usize::try_from(found.total_sessions).unwrap_or(usize::MAX);
    let all_hits = usize::try_from(most).unwrap_or(usize::MAX);
    if all_sessions > found.sessions.len() || all_hits > first.hits_per_session {
        let every = SearchOptions {
            limit: all_sessions.max(first.limit),
            hits_per_session: all_hits.max(first.hits_per_session),
            exact_up_to: u64::MAX,
        };
        found = index.search(catalog, QUERY, every)?;
    }
    let mut out = Vec::new();
    for s in &found.sessions {
        let Ok(path) = catalog.transcript_path(&s.session_id, None) else { continue };
        let hits: Vec<(&crate::search::SearchHit, &str)> = s
            .hits
            .iter()
            .filter(|h| h.agent_id.is_none())
            .filter_map(|h| Some((h, h.tool_use_id.as_deref()?)))
            .collect();
        let marks: Vec<(u64, &str)> = hits.iter().map(|(h, call)| (h.offset, *call)).collect();
        for ((hit, _), around) in hits.iter().zip(read_around(&path, &marks)) {
            out.push(LostQuestion {
                session_id: s.session_id.clone(),
                working_directory: s.working_directory.clone(),
                custom_name: s.custom_name.clone(),
                auto_name: s.auto_name.clone(),
                question: around.question,
                asked_at: around.asked_at,
                rejected_at: hit.timestamp.clone(),
                same_second: 0,
                owner_spoke_after: around.owner_after,
                likely_quit: false,
            });
        }
    }
    // Rejections in the same second across sessions: the moment of a quit.
    let mut by_second: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for q in &out {
        if let Some(sec) = q.rejected_at.as_deref().and_then(|t| t.get(..19)) {
            by_second.entry(sec.to_owned()).or_default().insert(q.session_id.clone());
        }
    }
    for q in &mut out {
        q.same_second = q
            .rejected_at
            .as_deref()
            .and_then(|t| t.get(..19))
            .and_then(|sec| by_second.get(sec))
            .map_or(1, |s| s.len() as u64);
        q.likely_quit = q.same_second > 1 || !q.owner_spoke_after;
    }
    out.sort_by(|a, b| b.rejected_at.cmp(&a.rejected_at).then(a.session_id.cmp(&b.session_id)));
    Ok(out)
}

/// What the transcript says around one rejection.
#[derive(Default)]
struct Around {
    question: String,
    asked_at: Option<String>,
    owner_after: bool,
}

/// Reads `path` once for all its rejections (`(offset, call)`): each call's question, found
/// before its rejection, and whether the owner wrote a prompt after it. Stops once a prompt
/// follows the last rejection.
fn read_around(path: &Path, marks: &[(u64, &str)]) -> Vec<Around> {
    let mut out: Vec<Around> = marks.iter().map(|_| Around::default()).collect();
    let offsets = marks.iter().map(|(offset, _)| *offset);
    let (Some(first), Some(last)) = (offsets.clone().min(), offsets.max()) else { return out };
    let Ok(file) = crate::files::open_regular(path) else { return out };
    let mut lines = LineReader::with_max_line(BufReader::new(file), 0, LISTING_MAX_LINE_BYTES);
    let needles: Vec<memchr::memmem::Finder<'_>> =
        marks.iter().map(|(_, call)| memchr::memmem::Finder::new(call.as_bytes())).collect();
    while let Ok(Some(line)) = lines.next_line() {
        for ((a, (offset, call)), needle) in out.iter_mut().zip(marks).zip(&needles) {
            if line.offset < *offset
                && needle.find(line.bytes).is_some()
                && let Some((q, at)) = question_in(line.bytes, call)
            {
                a.question = q;
                a.asked_at = at;
            }
        }
        if line.offset > first && is_owner_prompt(line.bytes) {
            for (a, (offset, _)) in out.iter_mut().zip(marks) {
                a.owner_after |= line.offset > *offset;
            }
            if line.offset > last {
                break;
            }
        }
    }
    out
}

/// The question of call `call` in an assistant line, and the line's time.
fn question_in(bytes: &[u8], call: &str) -> Option<(String, Option<String>)> {
    let v: Value = serde_json::from_slice(bytes).ok()?;
    let block = v.pointer("/message/content")?.as_array()?.iter().find(|b| {
        b.get("type") == Some(&Value::from("tool_use")) && b.get("id") == Some(&Value::from(call))
    })?;
    let input = block.get("input")?;
    let asked: Vec<&str> = match input.get("questions").and_then(Value::as_array) {
        Some(qs) => qs.iter().filter_map(|q| q.get("question").and_then(Value::as_str)).collect(),
        None => input.get("question").and_then(Value::as_str).into_iter().collect(),
    };
    let at = v.get("timestamp").and_then(Value::as_str).map(str::to_owned);
    Some((asked.join("\n"), at))
}

/// A prompt the owner typed: a user line that is not a tool result, not meta, not a sidechain.
fn is_owner_prompt(bytes: &[u8]) -> bool {
    if !crate::jsonl::has_type_in(bytes, &["user"]) {
        return false;
    }
    let Ok(v) = serde_json::from_slice::<Value>(bytes) else { return false };
    if v.get("isMeta") == Some(&Value::Bool(true))
        || v.get("isSidechain") == Some(&Value::Bool(true))
    {
        return false;
    }
    match v.pointer("/message/content") {
        Some(Value::String(s)) => !s.trim().is_empty(),
        Some(Value::Array(blocks)) => {
            blocks.iter().any(|b| b.get("type") == Some(&Value::from("text")))
        }
        _ => false,
    }
}
