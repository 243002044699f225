//! The query language, parsed into a plain description (no index needed to parse).
//!
//! - `word`: the whole word, case- and accent-insensitively; every word is required.
//! - `"exact phrase"`: the words next to each other, in order.
//! - `-word`, `-"a phrase"`: sessions' messages containing it are left out.
//! - `word*`: any word starting with `word` (at least two characters before the `*`).
//! - Filters, combined with the text (and with each other): `agent:NAME`,
//!   `origin:schedule|web|discord|slack|native|adopted`, `dir:PATH-PART`,
//!   `role:user|assistant|tool`, `tool:NAME`, `is:error`, `after:YYYY-MM-DD`,
//!   `before:YYYY-MM-DD`. A filter value may be quoted (`dir:"My Projects"`); a word with a colon
//!   that is not a filter (`https://…`) is plain text.
//! - A word that the tokenizer splits (`main.rs`, `東京`) is searched as a phrase of its parts.

use chrono::NaiveDate;
use serde::Serialize;
use ts_rs::TS;

use super::tokenizer::words;
use crate::model::{Origin, Role};

/// Longest query accepted, in characters.
pub const MAX_QUERY_CHARS: usize = 1000;
/// Most words, phrases and filters in one query.
pub const MAX_QUERY_PARTS: usize = 32;

/// What is wrong with a query, in words a person can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, TS)]
#[error("{0}")]
pub struct QueryError(pub String);

impl From<QueryError> for crate::error::Error {
    fn from(e: QueryError) -> Self {
        Self::Query(e.0)
    }
}

fn bad(why: impl Into<String>) -> QueryError {
    QueryError(why.into())
}

/// One text part of a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextPart {
    /// The words (as the index stores them) that must appear in this order.
    pub words: Vec<String>,
    /// The last word is a prefix (`word*`).
    pub prefix: bool,
    /// The part excludes (`-word`).
    pub negated: bool,
}

/// The filters of a query; each one set must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filters {
    /// `agent:` — sessions of these agents (qualified names).
    pub agents: Vec<String>,
    /// `origin:` — sessions of these origins.
    pub origins: Vec<Origin>,
    /// `dir:` — sessions whose working directory holds one of these.
    pub dirs: Vec<String>,
    /// `role:` — messages of these roles.
    pub roles: Vec<Role>,
    /// `tool:` — tool calls of these tools.
    pub tools: Vec<String>,
    /// `is:error` — failed tool calls only.
    pub is_error: bool,
    /// Inclusive lower bound, milliseconds since the epoch (start of that UTC day).
    pub after_ms: Option<i64>,
    /// Exclusive upper bound, milliseconds since the epoch (start of that UTC day).
    pub before_ms: Option<i64>,
}

impl Filters {
    /// Filters that only messages can satisfy (a name match then does not count).
    pub fn on_messages(&self) -> bool {
        !self.roles.is_empty()
            || !self.tools.is_empty()
            || self.is_error
            || self.after_ms.is_some()
            || self.before_ms.is_some()
    }

    /// Filters on the session a message belongs to.
    pub fn on_sessions(&self) -> bool {
        !self.agents.is_empty() || !self.origins.is_empty() || !self.dirs.is_empty()
    }
}

/// A query, parsed: its words and phrases, and its filters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedQuery {
    /// The words and phrases, each possibly negated.
    pub parts: Vec<TextPart>,
    /// The filters.
    pub filters: Filters,
}

impl ParsedQuery {
    /// Whether the query asks for anything at all.
    pub fn is_empty(&self) -> bool {
        self.parts.iter().all(|p| p.negated)
            && !self.filters.on_messages()
            && !self.filters.on_sessions()
    }
}

/// Splits the query into raw parts: `(negated, key, value, quoted, starred)`.
struct Raw {
    negated: bool,
    key: Option<String>,
    value: String,
    quoted: bool,
}

fn split(query: &str) -> Result<Vec<Raw>, QueryError> {
    let mut out = Vec::new();
    let mut chars = query.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        let Some(&first) = chars.peek() else { break };
        let mut raw = Raw { negated: false, key: None, value: String::new(), quoted: false };
        if first == '-' {
            raw.negated = true;
            chars.next();
        }
        let mut word = String::new();
        while let Some(&c) = chars.peek() {
            if c.is_whitespace() {
                break;
            }
            if c == '"' {
                chars.next();
                if !word.is_empty() {
                    // `key:"value"`: the word so far is the key.
                    match word.strip_suffix(':') {
                        Some(key) if !key.is_empty() => raw.key = Some(key.to_owned()),
                        _ => return Err(bad(format!("a quote starts inside the word {word:?}"))),
                    }
                    word.clear();
                }
                let mut phrase = String::new();
                let mut closed = false;
                for c in chars.by_ref() {
                    if c == '"' {
                        closed = true;
                        break;
                    }
                    phrase.push(c);
                }
                if !closed {
                    return Err(bad("a quote is not closed: add the closing \""));
                }
                raw.value = phrase;
                raw.quoted = true;
                break;
            }
            word.push(c);
            chars.next();
        }
        if !raw.quoted {
            if let Some((key, value)) = word.split_once(':')
                && is_filter_key(key)
            {
                raw.key = Some(key.to_owned());
                raw.value = value.to_owned();
            } else {
                raw.value = word;
            }
        }
        if raw.value.is_empty() && raw.key.is_none() && !raw.quoted {
            if raw.negated {
                return Err(bad("a lone - excludes nothing: write -word"));
            }
            continue;
        }
        out.push(raw);
    }
    Ok(out)
}

fn is_filter_key(key: &str) -> bool {
    matches!(
        key.to_ascii_lowercase().as_str(),
        "agent" | "origin" | "dir" | "role" | "tool" | "is" | "after" | "before"
    )
}

/// Parses a query. Errors say what is wrong and how to write it instead.
pub fn parse(query: &str) -> Result<ParsedQuery, QueryError> {
    if query.chars().count() > MAX_QUERY_CHARS {
        return Err(bad(format!("the query is longer than {MAX_QUERY_CHARS} characters")));
    }
    let raws = split(query)?;
    if raws.len() > MAX_QUERY_PARTS {
        return Err(bad(format!("the query has more than {MAX_QUERY_PARTS} words and filters")));
    }
    let mut parsed = ParsedQuery::default();
    for raw in raws {
        match raw.key {
            Some(key) => {
                filter(&mut parsed.filters, &key.to_ascii_lowercase(), &raw.value, raw.negated)?;
            }
            None => {
                if let Some(part) = text_part(&raw)? {
                    parsed.parts.push(part);
                }
            }
        }
    }
    Ok(parsed)
}

fn text_part(raw: &Raw) -> Result<Option<TextPart>, QueryError> {
    let (text, prefix) = match raw.value.strip_suffix('*') {
        Some(stem) if !raw.quoted => (stem, true),
        _ => (raw.value.as_str(), false),
    };
    let found = words(text);
    if prefix {
        let last = found.last().map_or(0, |w| w.chars().count());
        if last < 2 || text.ends_with(|c: char| !c.is_alphanumeric()) {
            return Err(bad(format!(
                "{:?}: a prefix needs at least two letters or digits before the *",
                raw.value
            )));
        }
    }
    // A part with no words (punctuation only) asks for nothing.
    Ok((!found.is_empty()).then_some(TextPart { words: found, prefix, negated: raw.negated }))
}

fn filter(f: &mut Filters, key: &str, value: &str, negated: bool) -> Result<(), QueryError> {
    if negated {
        return Err(bad(format!("-{key}: filters cannot be negated")));
    }
    let value = value.trim();
    if value.is_empty() {
        return Err(bad(format!("{key}: needs a value, as in {}", example(key))));
    }
    match key {
        "agent" => f.agents.push(value.to_owned()),
        "dir" => f.dirs.push(value.to_owned()),
        "tool" => f.tools.push(value.to_ascii_lowercase()),
        "origin" => f.origins.push(match value.to_ascii_lowercase().as_str() {
            "schedule" => Origin::Schedule,
            "web" => Origin::Web,
            "discord" => Origin::Discord,
            "slack" => Origin::Slack,
            "native" => Origin::Native,
            "adopted" => Origin::Adopted,
            _ => {
                return Err(bad(format!(
                    "origin:{value} is not an origin: use schedule, web, discord, slack, native or adopted"
                )));
            }
        }),
        "role" => f.roles.push(match value.to_ascii_lowercase().as_str() {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "tool" => Role::Tool,
            _ => return Err(bad(format!("role:{value} is not a role: use user, assistant or tool"))),
        }),
        "is" => match value.to_ascii_lowercase().as_str() {
            "error" => f.is_error = true,
            _ => return Err(bad(format!("is:{value} is not known: use is:error"))),
        },
        "after" => f.after_ms = Some(day_start(key, value)?),
        "before" => f.before_ms = Some(day_start(key, value)?),
        _ => return Err(bad(format!("{key}: is not a filter"))),
    }
    Ok(())
}

fn example(key: &str) -> &'static str {
    match key {
        "agent" => "agent:reviewer",
        "origin" => "origin:schedule",
        "dir" => "dir:src/app",
        "role" => "role:user",
        "tool" => "tool:Bash",
        "is" => "is:error",
        _ => "after:2026-11-01",
    }
}

/// The start (UTC) of the day `value` names, in milliseconds.
fn day_start(key: &str, value: &str) -> Result<i64, QueryError> {
    NaiveDate::parse_from_str(value, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|t| t.and_utc().timestamp_millis())
        .ok_or_else(|| bad(format!("{key}:{value} is not a date: write {key}:2026-11-01")))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn part(words: &[&str], prefix: bool, negated: bool) -> TextPart {
        TextPart { words: words.iter().map(|w| (*w).to_owned()).collect(), prefix, negated }
    }

    #[test]
    fn every_form_parses() {
        let q = parse(r#"Login "the Redirect" -draft auth* main.rs https://x.io/a role:user tool:Bash is:error after:2026-11-01 dir:"My Src" agent:team.alpha origin:web"#).unwrap();
        assert_eq!(
            q.parts,
            [
                part(&["login"], false, false),
                part(&["the", "redirect"], false, false),
                part(&["draft"], false, true),
                part(&["auth"], true, false),
                part(&["main", "rs"], false, false),
                part(&["https", "x", "io", "a"], false, false),
            ]
        );
        let f = &q.filters;
        assert_eq!(
            (f.roles.as_slice(), f.tools.as_slice(), f.is_error),
            ([Role::User].as_slice(), ["bash".to_owned()].as_slice(), true)
        );
        assert_eq!(f.after_ms, Some(1_793_491_200_000));
        assert_eq!(
            (f.dirs[0].as_str(), f.agents[0].as_str(), f.origins[0]),
            ("My Src", "team.alpha", Origin::Web)
        );
    }

    #[test]
    fn malformed_queries_say_what_is_wrong() {
        for (q, says) in [
            (r#"say "hello"#, "not closed"),
            ("a*", "two letters"),
            ("role:robot", "not a role"),
            ("origin:mars", "not an origin"),
            ("after:yesterday", "not a date"),
            ("is:happy", "is:error"),
            ("-", "lone -"),
            ("-role:user", "cannot be negated"),
            ("tool:", "needs a value"),
        ] {
            let e = parse(q).unwrap_err();
            assert!(e.0.contains(says), "{q}: {e}");
        }
        assert!(parse(&"word ".repeat(40)).unwrap_err().0.contains("more than"));
        assert!(parse(&"x".repeat(2000)).unwrap_err().0.contains("longer than"));
        assert!(parse("   ").unwrap().is_empty());
        assert!(parse("-only").unwrap().is_empty());
    }
}
