//! Answering a query: the parsed query as two tantivy queries (over messages' text, and over
//! sessions' names documents, whose words weigh more; a lone word's postings are walked with no
//! boolean layer around them), every match grouped by session (so the counts are exact),
//! sessions ranked by their best match with a boost for many matches and for recent activity,
//! and snippets for the best hits of the sessions shown.

use std::borrow::Cow;
use std::ops::Bound;
use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;
use tantivy::query::{
    AllQuery, BooleanQuery, BoostQuery, ConstScoreQuery, Occur, PhrasePrefixQuery, PhraseQuery,
    Query, RangeQuery, RegexQuery, TermQuery, TermSetQuery,
};
use tantivy::schema::{Field, IndexRecordOption, Value};
use tantivy::snippet::SnippetGenerator;
use tantivy::{DocAddress, Score, TantivyDocument, Term};
use ts_rs::TS;

use super::build::role_text;
use super::collect::{BySession, Group, InFile};
use super::query::{ParsedQuery, TextPart, parse};
use super::schema::{EXCERPT_BYTES, KIND_MESSAGE, group_key};
use super::{SearchHit, SearchIndex, SearchResults, SessionHits, SnippetPart, index_error};
use crate::catalog::{Catalog, FoundTranscript, Scan};
use crate::error::Result;
use crate::model::{Role, SessionSummary};
use crate::transcript::text::{Piece, TextExtractor};

/// How many sessions, and hits in each, a search returns.
#[derive(Debug, Clone, Copy)]
pub struct SearchOptions {
    /// At most this many sessions.
    pub limit: usize,
    /// At most this many hits in each session.
    pub hits_per_session: usize,
    /// Matching messages counted exactly (default [`EXACT_UP_TO`]); past this many the counts
    /// are lower bounds.
    pub exact_up_to: u64,
}

impl Default for SearchOptions {
    fn default() -> Self {
        Self { limit: 50, hits_per_session: 3, exact_up_to: EXACT_UP_TO }
    }
}

/// Matching messages counted exactly; past this many the counts are lower bounds.
pub const EXACT_UP_TO: u64 = 10_000;

/// Names and working directories weigh more than a word in a message.
const NAMES_BOOST: Score = 3.0;
const DIR_BOOST: Score = 1.5;
/// A snippet's most characters.
const SNIPPET_CHARS: usize = 180;

impl SearchIndex {
    /// Answers `query` over the last commit. A malformed query is `Error::Query` with what is
    /// wrong; sessions no longer listed are left out.
    pub fn search(
        &self,
        catalog: &Catalog,
        query: &str,
        opts: SearchOptions,
    ) -> Result<SearchResults> {
        let started = Instant::now();
        let parsed = parse(query)?;
        self.reload()?;
        let scan = catalog.last_scan()?;
        let committed = self.committed();
        let mut results = SearchResults {
            query: query.to_owned(),
            total_sessions: 0,
            total_matches: 0,
            indexed_sessions: committed.as_ref().map_or(0, |c| c.sessions),
            listed_sessions: catalog.listed_transcripts(&scan).count() as u64,
            complete: committed.is_some_and(|c| !c.partial),
            totals_exact: true,
            sessions: Vec::new(),
            took_ms: 0,
        };
        if parsed.is_empty() {
            return Ok(results);
        }
        // Filters on sessions need every listed session's summary; otherwise sessions are
        // ranked from their transcripts' facts, and only those shown are summarized.
        let on_sessions = parsed.filters.on_sessions();
        let listed = on_sessions.then(|| catalog.listed_sessions_of(&scan));
        let allowed: Vec<&SessionSummary> =
            listed.iter().flat_map(|l| l.iter()).filter(|s| session_allowed(&parsed, s)).collect();
        if on_sessions && allowed.is_empty() {
            return Ok(results);
        }
        let within = on_sessions.then_some(&allowed);
        let q = self.messages_query(&parsed, within, None);
        let searcher = self.reader.searcher();
        let hits = opts.hits_per_session.max(1);
        let by_session = BySession::new(hits, opts.exact_up_to);
        let mut groups = searcher.search(&*q, &by_session).map_err(index_error)?;
        results.totals_exact = !by_session.was_cut();
        if !results.totals_exact {
            // Past the bound the walk saw the first matches in index order, not the best: the
            // best come from a top-k search, which skips blocks that cannot beat the k-th.
            let relaxed = self.relaxed_query(&parsed, within.is_some());
            super::best::add_best(
                &searcher,
                (&*q, relaxed.as_deref()),
                opts.limit,
                hits,
                &mut groups,
            )?;
        }
        if let Some(names) = self.names_query(&parsed) {
            let all = BySession::new(hits, u64::MAX);
            for (hash, g) in searcher.search(&*names, &all).map_err(index_error)? {
                groups.entry(hash).or_default().merge(g, hits);
            }
        }
        let candidates: Vec<Candidate<'_>> = if on_sessions {
            allowed.into_iter().map(Candidate::Summary).collect()
        } else {
            catalog.listed_transcripts(&scan).map(Candidate::Transcript).collect()
        };
        let mut ranked: Vec<(Score, Candidate<'_>, Group)> = candidates
            .into_iter()
            .filter_map(|c| groups.remove(&group_key(c.session_id(), false)).map(|g| (c, g)))
            .filter(|(_, g)| g.matches > 0 || !parsed.filters.on_messages())
            .map(|(c, g)| (0.0, c, g))
            .collect();
        rank(&mut ranked, results.totals_exact);
        results.total_sessions = ranked.len() as u64;
        results.total_matches = ranked.iter().map(|(_, _, g)| g.matches).sum();
        if !results.totals_exact {
            results.total_matches = results.total_matches.max(opts.exact_up_to);
        }
        let generator = self.snippets(&searcher, &parsed, &*q);
        // Documents are read and snippets made for the sessions shown, on every core.
        let shown: Vec<(Score, Candidate<'_>, Group)> =
            ranked.into_iter().take(opts.limit).collect();
        results.sessions = self.session_hits(catalog, &scan, &searcher, generator.as_ref(), shown);
        results.took_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        Ok(results)
    }

    /// The sessions shown, each with its best hits and their snippets (documents read on every
    /// core).
    fn session_hits(
        &self,
        catalog: &Catalog,
        scan: &Scan,
        searcher: &tantivy::Searcher,
        generator: Option<&SnippetGenerator>,
        shown: Vec<(Score, Candidate<'_>, Group)>,
    ) -> Vec<SessionHits> {
        shown
            .into_par_iter()
            .map(|(_, c, g)| {
                let s = match c {
                    Candidate::Summary(s) => Cow::Borrowed(s),
                    Candidate::Transcript(t) => Cow::Owned(catalog.summary_of(t, scan)),
                };
                let mut hits: Vec<SearchHit> = g
                    .top
                    .iter()
                    .filter_map(|(_, addr)| self.hit(searcher, *addr, generator))
                    .collect();
                mark_rewound(catalog, &s, &mut hits);
                (s, g, hits)
            })
            .map(|(s, g, hits)| {
                let s = s.into_owned();
                SessionHits {
                    session_id: s.session_id,
                    working_directory: s.working_directory,
                    agent_name: s.agent_name,
                    custom_name: s.custom_name,
                    auto_name: s.auto_name,
                    name_match: g.name_score > 0.0,
                    matches: g.matches,
                    hits,
                }
            })
            .collect()
    }

    /// The query over messages: its text parts on their text, and its filters, within the
    /// `allowed` sessions or within one transcript file (`in_file`, a document `key`). Only
    /// messages have text, so no clause on the kind of document is needed but when every part
    /// is negated.
    fn messages_query(
        &self,
        q: &ParsedQuery,
        allowed: Option<&Vec<&SessionSummary>>,
        in_file: Option<&str>,
    ) -> Box<dyn Query> {
        let f = &self.fields;
        let mut clauses = parts(q, |part| words_query(f.text, part));
        if q.parts.iter().all(|p| p.negated) {
            clauses.push((Occur::Must, Box::new(AllQuery)));
            clauses.push((Occur::Must, only(term(Term::from_field_u64(f.kind, KIND_MESSAGE)))));
        }
        let any = |terms: Vec<Term>| -> Box<dyn Query> {
            Box::new(BooleanQuery::new(
                terms.into_iter().map(|t| (Occur::Should, term(t))).collect(),
            ))
        };
        let filters = &q.filters;
        if !filters.roles.is_empty() {
            let terms = filters
                .roles
                .iter()
                .map(|r| Term::from_field_text(f.role, role_text(*r)))
                .collect();
            clauses.push((Occur::Must, only(any(terms))));
        }
        if !filters.tools.is_empty() {
            let terms = filters.tools.iter().map(|t| Term::from_field_text(f.tool, t)).collect();
            clauses.push((Occur::Must, only(any(terms))));
        }
        if filters.is_error {
            clauses.push((Occur::Must, only(term(Term::from_field_text(f.error, "1")))));
        }
        if filters.after_ms.is_some() || filters.before_ms.is_some() {
            let lower = filters
                .after_ms
                .map_or(Bound::Unbounded, |t| Bound::Included(Term::from_field_i64(f.time, t)));
            let upper = filters
                .before_ms
                .map_or(Bound::Unbounded, |t| Bound::Excluded(Term::from_field_i64(f.time, t)));
            clauses.push((Occur::Must, only(Box::new(RangeQuery::new(lower, upper)))));
        }
        if let Some(allowed) = allowed {
            clauses.push((Occur::Must, self.within(allowed)));
        }
        if let Some(path) = in_file {
            clauses.push((Occur::Must, only(term(Term::from_field_text(f.key, path)))));
        }
        all_of(clauses)
    }

    /// The plain words `q` requires of a message — every positive part's words, but for a
    /// prefix — as an intersection, which tantivy answers top-k with block-max WAND: for a query
    /// it cannot (a phrase, a filter, an excluded word, sessions filtered), the best messages
    /// are found among the best of these words and checked against the whole query. `None`
    /// when the query already is such words, or has no plain word.
    fn relaxed_query(&self, q: &ParsedQuery, within: bool) -> Option<Box<dyn Query>> {
        let plain = |p: &TextPart| !p.negated && !p.prefix && p.words.len() == 1;
        if !within && !q.filters.on_messages() && q.parts.iter().all(plain) {
            return None;
        }
        let mut words: Vec<&str> = Vec::new();
        for p in q.parts.iter().filter(|p| !p.negated) {
            let last = if p.prefix { p.words.len().saturating_sub(1) } else { p.words.len() };
            for w in p.words.iter().take(last) {
                if !words.contains(&w.as_str()) {
                    words.push(w);
                }
            }
        }
        if words.is_empty() {
            return None;
        }
        let f = self.fields.text;
        Some(all_of(
            words.into_iter().map(|w| (Occur::Must, term(Term::from_field_text(f, w)))).collect(),
        ))
    }

    /// The query over sessions' names documents (their names and working directory, which
    /// weigh more than a word in a message), when one of them may match: not when only messages
    /// may (a filter on messages) or every part is negated. Sessions filtered out are not
    /// narrowed here (a set of thousands of ids costs more than the few names documents): the
    /// caller looks up only the sessions allowed.
    fn names_query(&self, q: &ParsedQuery) -> Option<Box<dyn Query>> {
        if q.filters.on_messages() || q.parts.iter().all(|p| p.negated) {
            return None;
        }
        let f = &self.fields;
        let clauses = parts(q, |part| {
            let names = BoostQuery::new(words_query(f.names, part), NAMES_BOOST);
            let dir = BoostQuery::new(words_query(f.dir, part), DIR_BOOST);
            Box::new(BooleanQuery::new(vec![
                (Occur::Should, Box::new(names) as Box<dyn Query>),
                (Occur::Should, Box::new(dir)),
            ]))
        });
        Some(all_of(clauses))
    }

    /// Documents of the `allowed` sessions.
    fn within(&self, allowed: &[&SessionSummary]) -> Box<dyn Query> {
        let f = self.fields.session_id;
        let terms = allowed.iter().map(|s| Term::from_field_text(f, &s.session_id));
        only(Box::new(TermSetQuery::new(terms)))
    }

    /// The snippet maker for the query's words (prefixes expanded to the words they match).
    fn snippets(
        &self,
        searcher: &tantivy::Searcher,
        q: &ParsedQuery,
        query: &dyn Query,
    ) -> Option<SnippetGenerator> {
        let f = self.fields.text;
        let mut g = SnippetGenerator::create(searcher, query, f).ok()?;
        g.set_max_num_chars(SNIPPET_CHARS);
        if q.parts.iter().any(|p| p.prefix && !p.negated) {
            // Prefix queries name no terms: highlight the words they expand to.
            let mut terms: Vec<(Occur, Box<dyn Query>)> = Vec::new();
            for part in q.parts.iter().filter(|p| !p.negated) {
                for w in expand(searcher, f, part) {
                    terms.push((Occur::Should, term(Term::from_field_text(f, &w))));
                }
            }
            let q = BooleanQuery::new(terms);
            g = SnippetGenerator::create(searcher, &q, f).ok()?;
            g.set_max_num_chars(SNIPPET_CHARS);
        }
        Some(g)
    }

    fn hit(
        &self,
        searcher: &tantivy::Searcher,
        addr: DocAddress,
        generator: Option<&SnippetGenerator>,
    ) -> Option<SearchHit> {
        let f = &self.fields;
        let doc: TantivyDocument = searcher.doc(addr).ok()?;
        let text = |field: Field| doc.get_first(field).and_then(|v| v.as_str()).map(str::to_owned);
        let excerpt = text(f.excerpt).unwrap_or_default();
        let mut snippet = generator.map(|g| g.snippet(&excerpt));
        let mut source = None;
        if snippet.as_ref().is_none_or(|s| s.highlighted().is_empty())
            && excerpt.len() + 4 >= EXCERPT_BYTES
        {
            // The match lies past the stored excerpt: read the line again from its file.
            let offset = doc.get_first(f.offset).and_then(|v| v.as_u64());
            let piece = doc.get_first(f.piece).and_then(|v| v.as_u64());
            if let (Some(path), Some(offset), Some(piece), Some(g)) =
                (text(f.key), offset, piece, generator)
                && let Some(full) = piece_text(&path, offset, piece)
            {
                snippet = Some(g.snippet(&full));
                source = Some(full);
            }
        }
        let (snippet, parts) = match snippet {
            Some(s) if !s.fragment().is_empty() => super::snippet::centred(
                source.as_deref().unwrap_or(&excerpt),
                s.fragment(),
                s.highlighted(),
                SNIPPET_CHARS,
            ),
            _ => {
                let cut: String = excerpt.chars().take(SNIPPET_CHARS).collect();
                (cut.clone(), vec![SnippetPart { text: cut, hit: false }])
            }
        };
        let role = match text(f.role).as_deref() {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            _ => Role::Tool,
        };
        Some(SearchHit {
            uuid: text(f.uuid).unwrap_or_default(),
            role,
            timestamp: doc
                .get_first(f.time)
                .and_then(|v| v.as_i64())
                .and_then(chrono::DateTime::from_timestamp_millis)
                .map(crate::time::iso),
            tool_name: text(f.tool_name),
            tool_use_id: text(f.tool_use_id),
            agent_id: text(f.agent_id),
            offset: doc.get_first(f.offset).and_then(|v| v.as_u64()).unwrap_or(0),
            rewound: false,
            snippet,
            snippet_parts: parts,
        })
    }
}

/// Marks the hits of a session's main transcript that lie on a rewound branch (only a session
/// with rewound prompts is looked at; its branch scan is cached).
fn mark_rewound(catalog: &Catalog, s: &SessionSummary, hits: &mut [SearchHit]) {
    if s.rewound_prompts == 0 || hits.iter().all(|h| h.agent_id.is_some()) {
        return;
    }
    let Ok(Some(rewound)) = catalog.rewound_lines(&s.session_id) else { return };
    for h in hits.iter_mut().filter(|h| h.agent_id.is_none()) {
        h.rewound = rewound.binary_search(&h.offset).is_ok();
    }
}

/// Where a query matches inside one transcript, in the order the viewer shows them (find).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptMatches {
    /// Matching pieces in the file (all of them; `matches` holds the first `limit`).
    #[ts(type = "number")]
    pub total: u64,
    /// The first `limit` matches (in file order), in the order they are shown.
    pub matches: Vec<TranscriptMatch>,
    /// Words to mark, as the index matched them (a prefix expanded to the words it matched).
    pub terms: Vec<String>,
}

/// One match: the line's offset (open there) and what finds its message in the viewer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptMatch {
    /// Byte offset of the line (open the viewer there).
    #[ts(type = "number")]
    pub offset: u64,
    /// The line's `uuid`.
    pub uuid: String,
    /// The tool call id, for a tool call or result.
    pub tool_use_id: Option<String>,
    /// Where the viewer shows it: a tool's result sits with its call, at the call's line
    /// (`offset` for everything else). Matches are listed in this order.
    #[ts(type = "number")]
    pub display_offset: u64,
}

impl SearchIndex {
    /// Every match of `query` in the transcript file `path`, in file order (at most `limit`
    /// listed). Session filters do not apply (the file is the session); message filters do.
    pub fn find_in_transcript(
        &self,
        path: &Path,
        query: &str,
        limit: usize,
    ) -> Result<TranscriptMatches> {
        let parsed = parse(query)?;
        self.reload()?;
        let mut out = TranscriptMatches { total: 0, matches: Vec::new(), terms: Vec::new() };
        if parsed.is_empty() {
            return Ok(out);
        }
        let key = super::state::file_key(path);
        let q = self.messages_query(&parsed, None, Some(&key));
        let searcher = self.reader.searcher();
        let mut found = searcher.search(&*q, &InFile).map_err(index_error)?;
        found.sort_unstable();
        out.total = found.len() as u64;
        let f = &self.fields;
        let mut seen = std::collections::HashSet::new();
        for (offset, addr) in found {
            if out.matches.len() >= limit {
                break;
            }
            let Ok(doc) = searcher.doc::<TantivyDocument>(addr) else { continue };
            let text =
                |field: Field| doc.get_first(field).and_then(|v| v.as_str()).map(str::to_owned);
            let tool_use_id = text(f.tool_use_id);
            // A result is shown with its call: at the call's line, when it is found.
            let display_offset = tool_use_id
                .as_deref()
                .and_then(|id| {
                    crate::transcript::messages::call_line_before(path, offset, id).ok().flatten()
                })
                .unwrap_or(offset);
            let m = TranscriptMatch {
                offset,
                uuid: text(f.uuid).unwrap_or_default(),
                tool_use_id,
                display_offset,
            };
            if seen.insert((m.offset, m.tool_use_id.clone())) {
                out.matches.push(m);
            }
        }
        out.matches.sort_by_key(|m| (m.display_offset, m.offset));
        for part in parsed.parts.iter().filter(|p| !p.negated) {
            out.terms.extend(expand(&searcher, f.text, part));
        }
        out.terms.dedup();
        Ok(out)
    }
}

/// A filter: it narrows what matches and adds nothing to a match's score (so that a filter
/// every match passes leaves the ranking as it was).
fn only(q: Box<dyn Query>) -> Box<dyn Query> {
    Box::new(ConstScoreQuery::new(q, 0.0))
}

/// Each text part as a clause: required, or excluded when negated.
fn parts(
    q: &ParsedQuery,
    on: impl Fn(&TextPart) -> Box<dyn Query>,
) -> Vec<(Occur, Box<dyn Query>)> {
    let occur = |p: &TextPart| if p.negated { Occur::MustNot } else { Occur::Must };
    q.parts.iter().map(|p| (occur(p), on(p))).collect()
}

/// Documents that meet every clause; one required clause is left as it is, so that tantivy
/// walks a lone word's postings without a boolean query's layer around them.
pub(super) fn all_of(mut clauses: Vec<(Occur, Box<dyn Query>)>) -> Box<dyn Query> {
    if let [(Occur::Must, _)] = clauses.as_slice()
        && let Some((_, q)) = clauses.pop()
    {
        return q;
    }
    Box::new(BooleanQuery::new(clauses))
}

pub(super) fn term(t: Term) -> Box<dyn Query> {
    Box::new(TermQuery::new(t, IndexRecordOption::WithFreqs))
}

/// A part's words on one field: a word, a phrase, a prefix, or a phrase ending in a prefix.
fn words_query(field: Field, part: &TextPart) -> Box<dyn Query> {
    let mut terms: Vec<Term> = part.words.iter().map(|w| Term::from_field_text(field, w)).collect();
    match (terms.pop(), terms.is_empty(), part.prefix) {
        (None, _, _) => Box::new(tantivy::query::EmptyQuery),
        // A word is scored by its frequency; its positions are not read.
        (Some(t), true, false) => Box::new(TermQuery::new(t, IndexRecordOption::WithFreqs)),
        (Some(_), true, true) => {
            let last = part.words.last().map(String::as_str).unwrap_or_default();
            match RegexQuery::from_pattern(&format!("{}.*", regex_escape(last)), field) {
                Ok(q) => Box::new(q),
                Err(_) => Box::new(tantivy::query::EmptyQuery),
            }
        }
        (Some(t), false, false) => {
            terms.push(t);
            Box::new(PhraseQuery::new(terms))
        }
        (Some(t), false, true) => {
            terms.push(t);
            Box::new(PhrasePrefixQuery::new(terms))
        }
    }
}

fn regex_escape(w: &str) -> String {
    let mut out = String::with_capacity(w.len());
    for c in w.chars() {
        if !c.is_alphanumeric() {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The indexed words a prefix part's last word expands to (at most 64 per segment).
fn expand(searcher: &tantivy::Searcher, field: Field, part: &TextPart) -> Vec<String> {
    let Some((last, before)) = part.words.split_last() else { return Vec::new() };
    let mut out: Vec<String> = before.to_vec();
    if !part.prefix {
        out.push(last.clone());
        return out;
    }
    for seg in searcher.segment_readers() {
        let Ok(inv) = seg.inverted_index(field) else { continue };
        let Ok(mut stream) = inv.terms().range().ge(last.as_bytes()).into_stream() else {
            continue;
        };
        let mut n = 0;
        while stream.advance() && n < 64 {
            let Ok(key) = std::str::from_utf8(stream.key()) else { continue };
            if !key.starts_with(last.as_str()) {
                break;
            }
            out.push(key.to_owned());
            n += 1;
        }
    }
    out
}

/// The text of piece `piece` of the line at `offset` of `path` (for a snippet past the excerpt).
fn piece_text(path: &str, offset: u64, piece: u64) -> Option<String> {
    use std::io::{Seek, SeekFrom};
    let file = crate::files::open_regular(std::path::Path::new(path)).ok()?;
    let mut reader = std::io::BufReader::new(file);
    reader.seek(SeekFrom::Start(offset)).ok()?;
    let mut lines = crate::jsonl::LineReader::with_max_line(
        reader,
        offset,
        crate::jsonl::LISTING_MAX_LINE_BYTES,
    );
    let line = lines.next_line().ok()??;
    let sidechain = path.contains("/subagents/") || path.contains("\\subagents\\");
    let mut pieces: Vec<Piece> = Vec::new();
    TextExtractor::new(sidechain).line(line.bytes, &mut pieces);
    pieces.into_iter().nth(usize::try_from(piece).ok()?).map(|p| p.text)
}

/// Whether a session passes the query's session filters.
fn session_allowed(q: &ParsedQuery, s: &SessionSummary) -> bool {
    let f = &q.filters;
    let agent_ok = f.agents.is_empty()
        || s.agent_name.as_deref().is_some_and(|a| {
            f.agents.iter().any(|want| {
                a.eq_ignore_ascii_case(want)
                    || a.rsplit('.').next().is_some_and(|last| last.eq_ignore_ascii_case(want))
            })
        });
    let origin_ok = f.origins.is_empty() || f.origins.contains(&s.origin);
    let dir = s.working_directory.to_lowercase();
    let dir_ok = f.dirs.is_empty() || f.dirs.iter().any(|d| dir.contains(&d.to_lowercase()));
    agent_ok && origin_ok && dir_ok
}

/// Orders sessions best first: the best match's score, a little more for many matches, and up to
/// a quarter more for activity close to the newest session's (the newest matching session is
/// the reference, so ranking needs no clock).
fn rank(ranked: &mut [(Score, Candidate<'_>, Group)], exact: bool) {
    let activity: Vec<i64> = ranked.iter().map(|(_, c, _)| c.activity_ms()).collect();
    let newest = activity.iter().copied().max().unwrap_or(0);
    for ((score, _, g), at) in ranked.iter_mut().zip(activity) {
        #[allow(clippy::cast_precision_loss)]
        let days = (newest - at).max(0) as f32 / 86_400_000.0;
        // Past the bound a session's count depends on which matches the walk met first, so
        // "many" is told by its messages among the best-scoring ones, which do not.
        let many = if exact { g.matches } else { g.in_best };
        #[allow(clippy::cast_precision_loss)]
        let many = (1.0 + many as f32).ln() * 0.15;
        *score = (g.best.max(g.name_score) + many) * (1.0 + 0.25 * (-days / 30.0).exp());
    }
    // Past the bound, sessions with a message among the best come first: their scores are
    // certain, the others' only as far as the walk went.
    let certain = |g: &Group| exact || g.in_best > 0 || g.name_score > 0.0;
    ranked.sort_by(|a, b| {
        certain(&b.2)
            .cmp(&certain(&a.2))
            .then_with(|| b.0.total_cmp(&a.0))
            .then_with(|| a.1.session_id().cmp(b.1.session_id()))
    });
}

/// A listed session with hits, before it is ranked: its summary where one was made, else its
/// transcript (summarized only if it is shown).
#[derive(Debug, Clone, Copy)]
enum Candidate<'a> {
    Summary(&'a SessionSummary),
    Transcript(&'a FoundTranscript),
}

impl Candidate<'_> {
    fn session_id(&self) -> &str {
        match self {
            Self::Summary(s) => &s.session_id,
            Self::Transcript(t) => &t.session_id,
        }
    }

    /// Its last message's time, else its file's (as its summary gives them), in ms.
    fn activity_ms(&self) -> i64 {
        match self {
            Self::Summary(s) => s
                .last_message_at
                .as_deref()
                .map_or_else(|| crate::time::millis(&s.mtime), crate::time::millis)
                .unwrap_or(0),
            Self::Transcript(t) => t.activity_ms,
        }
    }
}
