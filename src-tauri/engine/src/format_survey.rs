//! The format survey: every kind of line and of `attachment` the transcripts of a home hold,
//! counted, with the kinds Corral does not know by name
//! ([`crate::transcript::vocabulary`]) marked — how a new Claude Code version's changes to its
//! format are seen the day it ships (`corral-cli formats`, the conformance run's drift report).
//!
//! It reads every main and subagent transcript of the catalog's listing once, line by line with
//! bounded memory: each line is parsed only as far as its `type`, `attachment.type` and
//! `version`. A line that is not a JSON object, or longer than the reader takes, is counted as
//! unreadable; a file that cannot be opened is counted and left out. The counts' memory is
//! bounded too: names are cut to [`NAME_BYTES`] and at most [`MAX_KINDS`] distinct names of each
//! table (and [`MAX_VERSIONS`] versions) are kept, the rest counted under one row.

use std::collections::{BTreeMap, HashSet};
use std::io::BufReader;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::Catalog;
use crate::error::Result;
use crate::jsonl::{self, LineReader, LineShape, Parsed};
use crate::transcript::subagents::{FlatAgents, subagent_files};
use crate::transcript::vocabulary::{self, Reading};
use crate::transcript::{Loose, MapOr};

/// A kind's name is cut to this many bytes (a hostile file cannot make the report large).
pub const NAME_BYTES: usize = 80;
/// At most this many distinct names per table; more are counted as [`OTHER_KINDS`].
pub const MAX_KINDS: usize = 500;
/// At most this many distinct versions are kept.
pub const MAX_VERSIONS: usize = 200;
/// The row that counts the kinds past [`MAX_KINDS`].
pub const OTHER_KINDS: &str = "(more kinds)";

/// What a home's transcripts hold, by kind.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FormatSurvey {
    /// Transcript files read (main and subagent).
    pub files: u64,
    /// Files that could not be read (vanished, unreadable, not a regular file).
    pub unreadable_files: u64,
    /// Lines read.
    pub lines: u64,
    /// Lines that are not a JSON object, or longer than the reader takes.
    pub unreadable_lines: u64,
    /// JSON objects with no `type` string.
    pub untyped_lines: u64,
    /// The Claude Code versions that wrote the lines (`version`), sorted as versions.
    pub versions: Vec<String>,
    /// Every line `type`, most frequent first.
    pub line_types: Vec<KindCount>,
    /// Every `attachment.type` of the `attachment` lines, most frequent first.
    pub attachment_types: Vec<KindCount>,
}

impl FormatSurvey {
    /// The kinds Corral does not know by name: line types, then attachment types.
    pub fn unknown(&self) -> impl Iterator<Item = &KindCount> {
        self.line_types.iter().chain(&self.attachment_types).filter(|k| k.reading.is_none())
    }
}

/// One kind, how often it was seen, and what Corral does with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KindCount {
    /// The kind (a line `type`, a field).
    pub name: String,
    /// How many times it was seen.
    pub count: u64,
    /// `None`: Corral does not know this kind by name.
    pub reading: Option<Reading>,
    /// Where it was first seen (`path:line`), for a kind Corral does not know.
    pub example: Option<String>,
}

#[derive(Deserialize)]
struct SurveyLine<'a> {
    #[serde(rename = "type", default, borrow)]
    ty: Loose<'a>,
    #[serde(default, borrow)]
    attachment: MapOr<AttachmentKind<'a>>,
    #[serde(default, borrow)]
    version: Loose<'a>,
}

#[derive(Deserialize)]
struct AttachmentKind<'a> {
    #[serde(rename = "type", default, borrow)]
    ty: Loose<'a>,
}

/// Reads every transcript of the catalog's listing (and each session's subagent transcripts).
pub fn survey(catalog: &Catalog) -> Result<FormatSurvey> {
    let scan = catalog.scan()?;
    let mut tally = Tally::default();
    let mut seen = HashSet::new();
    let mut flat_by_folder: BTreeMap<std::path::PathBuf, FlatAgents> = BTreeMap::new();
    for t in &scan.transcripts {
        if seen.insert(t.path.clone()) {
            tally.file(&t.path);
        }
        let Some(dir) = t.path.parent() else { continue };
        let flat =
            flat_by_folder.entry(dir.to_path_buf()).or_insert_with(|| FlatAgents::of_folder(dir));
        for f in subagent_files(&t.path, &t.session_id, flat) {
            if seen.insert(f.path.clone()) {
                tally.file(&f.path);
            }
        }
    }
    Ok(tally.finish())
}

/// Surveys the given files (what [`survey`] does for a catalog's).
pub fn survey_files<'a>(paths: impl IntoIterator<Item = &'a Path>) -> FormatSurvey {
    let mut tally = Tally::default();
    for p in paths {
        tally.file(p);
    }
    tally.finish()
}

#[derive(Default)]
struct Tally {
    survey: FormatSurvey,
    lines: Counts,
    attachments: Counts,
    versions: HashSet<String>,
}

#[derive(Default)]
struct Counts {
    by_name: BTreeMap<String, (u64, Option<String>)>,
    others: u64,
}

impl Counts {
    fn add(&mut self, name: &str, example: impl FnOnce() -> String, known: bool) {
        let name = cut(name);
        if let Some((n, _)) = self.by_name.get_mut(name) {
            *n += 1;
        } else if self.by_name.len() < MAX_KINDS {
            self.by_name.insert(name.to_owned(), (1, (!known).then(example)));
        } else {
            self.others += 1;
        }
    }

    fn finish(self, reading: fn(&str) -> Option<Reading>) -> Vec<KindCount> {
        let mut out: Vec<KindCount> = self
            .by_name
            .into_iter()
            .map(|(name, (count, example))| KindCount {
                reading: reading(&name),
                name,
                count,
                example,
            })
            .collect();
        if self.others > 0 {
            out.push(KindCount {
                name: OTHER_KINDS.to_owned(),
                count: self.others,
                reading: None,
                example: None,
            });
        }
        out.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));
        out
    }
}

fn cut(name: &str) -> &str {
    if name.len() <= NAME_BYTES {
        return name;
    }
    let mut end = NAME_BYTES;
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    name.get(..end).unwrap_or_default()
}

impl Tally {
    fn file(&mut self, path: &Path) {
        let Ok(file) = crate::files::open_regular(path) else {
            self.survey.unreadable_files += 1;
            return;
        };
        self.survey.files += 1;
        let mut reader = LineReader::new(BufReader::with_capacity(256 * 1024, file), 0);
        let mut scratch = Vec::new();
        let mut number = 0u64;
        loop {
            let line = match reader.next_line() {
                Ok(Some(line)) => line,
                Ok(None) => break,
                Err(_) => {
                    self.survey.unreadable_files += 1;
                    break;
                }
            };
            number += 1;
            self.survey.lines += 1;
            if jsonl::quick_shape(line.bytes) != LineShape::ObjectLike {
                if !jsonl::is_blank(line.bytes) {
                    self.survey.unreadable_lines += 1;
                }
                continue;
            }
            let Parsed::Value(l) =
                jsonl::parse_line_with::<SurveyLine<'_>>(line.bytes, &mut scratch)
            else {
                self.survey.unreadable_lines += 1;
                continue;
            };
            let at = || format!("{}:{number}", path.display());
            let Some(ty) = l.ty.as_str() else {
                self.survey.untyped_lines += 1;
                continue;
            };
            self.lines.add(ty, at, vocabulary::line_type(ty).is_some());
            if ty == "attachment" {
                let kind = l.attachment.0.as_ref().and_then(|a| a.ty.as_str()).unwrap_or("(none)");
                self.attachments.add(kind, at, vocabulary::attachment_type(kind).is_some());
            }
            if let Some(v) = l.version.as_str()
                && self.versions.len() < MAX_VERSIONS
                && !self.versions.contains(cut(v))
            {
                self.versions.insert(cut(v).to_owned());
            }
        }
        let oversized = reader.oversized_lines();
        self.survey.lines += oversized;
        self.survey.unreadable_lines += oversized;
    }

    fn finish(mut self) -> FormatSurvey {
        self.survey.line_types = self.lines.finish(vocabulary::line_type);
        self.survey.attachment_types = self.attachments.finish(vocabulary::attachment_type);
        let mut versions: Vec<String> = self.versions.into_iter().collect();
        versions.sort_by(|a, b| version_key(a).cmp(&version_key(b)).then_with(|| a.cmp(b)));
        self.survey.versions = versions;
        self.survey
    }
}

/// `2.1.114` sorts after `2.1.97`: the numeric parts compared as numbers.
fn version_key(v: &str) -> Vec<u64> {
    v.split(|c: char| !c.is_ascii_digit())
        .filter(|p| !p.is_empty())
        .map(|p| p.parse().unwrap_or(u64::MAX))
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn kinds_are_counted_and_the_unknown_ones_named_with_where_they_were_seen() {
        let dir = tempfile::tempdir().unwrap();
        let a = write(
            dir.path(),
            "a.jsonl",
            concat!(
                r#"{"type":"user","version":"2.1.97","message":{"role":"user","content":"hi"}}"#,
                "\n",
                r#"{"type":"attachment","version":"2.1.114","attachment":{"type":"hook_success"}}"#,
                "\n",
                r#"{"type":"attachment","attachment":{"type":"brand_new_attachment"}}"#,
                "\n",
                r#"{"type":"some-future-type"}"#,
                "\n",
                "not json\n",
                "\n",
                r#"{"no":"type"}"#,
                "\n",
                r#"{"type":"user","version":"2.1.114"}"#,
                "\n",
            ),
        );
        let s = survey_files([a.as_path()]);
        assert_eq!((s.files, s.lines, s.unreadable_lines, s.untyped_lines), (1, 8, 1, 1));
        assert_eq!(s.versions, ["2.1.97", "2.1.114"]);
        let user = s.line_types.iter().find(|k| k.name == "user").unwrap();
        assert_eq!(
            (user.name.as_str(), user.count, user.reading),
            ("user", 2, Some(Reading::Conversation))
        );
        assert_eq!(user.example, None);
        let unknown: Vec<(&str, Option<&str>)> =
            s.unknown().map(|k| (k.name.as_str(), k.example.as_deref())).collect();
        let at = |n: u32| format!("{}:{n}", a.display());
        assert_eq!(
            unknown,
            [
                ("some-future-type", Some(at(4).as_str())),
                ("brand_new_attachment", Some(at(3).as_str()))
            ]
        );
    }

    #[test]
    fn a_hostile_file_cannot_make_the_report_large_and_a_missing_one_is_counted() {
        let dir = tempfile::tempdir().unwrap();
        let mut text = String::new();
        for i in 0..(MAX_KINDS + 20) {
            text.push_str(&format!("{{\"type\":\"kind-{i}-{}\"}}\n", "x".repeat(200)));
        }
        let a = write(dir.path(), "a.jsonl", &text);
        let gone = dir.path().join("gone.jsonl");
        let s = survey_files([a.as_path(), gone.as_path()]);
        assert_eq!((s.files, s.unreadable_files), (1, 1));
        assert_eq!(s.line_types.len(), MAX_KINDS + 1);
        assert!(s.line_types.iter().all(|k| k.name.len() <= NAME_BYTES));
        let more = s.line_types.iter().find(|k| k.name == OTHER_KINDS).unwrap();
        assert_eq!(more.count, 20);
    }
}
