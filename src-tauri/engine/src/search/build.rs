//! Bringing the index up to date with the transcripts: the same change detection as the listing
//! (a `stat` per file), an appended file read only from where it was left, a rewritten or
//! truncated one read again, a removed one taken out. What the index holds is described by the
//! commit's payload, written in the same atomic commit as the documents.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::ffi::OsStr;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use tantivy::{IndexWriter, TantivyDocument, Term};

use super::folders::Folders;
use super::schema::{EXCERPT_BYTES, Fields, KIND_MESSAGE, KIND_SESSION, group_key, session_key};
use super::state::{self, Committed, FileState, Payload, Prints, STATE_VERSION};
use super::{IndexProgress, IndexReport, SearchIndex, UpdateOptions, index_error};
use crate::catalog::{Catalog, SessionNames};
use crate::error::Result;
use crate::files::FileIdentity;
use crate::index::FileStamp;
use crate::jsonl::{LISTING_MAX_LINE_BYTES, LineReader};
use crate::model::{Role, Warning};
use crate::transcript::forks;
use crate::transcript::subagents::{self, FlatAgents, SubagentFile, subagent_files_with};
use crate::transcript::text::{Piece, TextExtractor};

/// The work is committed at least this often, so progress survives a quit and is searchable.
const COMMIT_EVERY: Duration = Duration::from_secs(10);
/// Files read between two progress reports.
const CHUNK_FILES: usize = 64;
/// An update that read this much waits for the merges it started.
const SETTLE_AFTER_BYTES: u64 = 64 * 1024 * 1024;

/// A transcript file to keep indexed.
/// Borrowed from the listing where it can be: ten thousand sessions' worth of owned copies cost
/// more to free than to find.
struct Wanted<'a> {
    path: Cow<'a, Path>,
    /// What it is indexed under ([`state::file_key`]).
    key: Cow<'a, str>,
    session_id: &'a str,
    /// A subagent run's id and its session's main transcript.
    run: Option<(String, &'a Path)>,
    /// What a `stat` made during this update said (a main transcript's, by the listing's pass);
    /// `None`: one is made when it is needed.
    stamp: Option<FileStamp>,
}

/// A session's main transcript, as the listing's pass found it.
#[derive(Debug, Clone, Copy)]
struct Main<'a> {
    path: &'a Path,
    session_id: &'a str,
    /// What the pass's `stat` said, when it was made during this update.
    stamp: Option<FileStamp>,
}

/// What the parallel readers add up: messages indexed and bytes read.
struct Counters<'a> {
    added: &'a AtomicU64,
    bytes: &'a AtomicU64,
}

/// How a file is brought up to date.
enum Work {
    /// From the start (new, rewritten or truncated): its old documents go first.
    Full,
    /// From `offset` on, with the saved extractor.
    Append(FileState),
}

impl SearchIndex {
    /// What the last commit recorded of its state; `None` without a commit of this format.
    pub(super) fn committed(&self) -> Option<Committed> {
        let metas = self.index.load_metas().ok()?;
        let c: Committed = serde_json::from_str(metas.payload.as_deref()?).ok()?;
        (c.version == STATE_VERSION).then_some(c)
    }

    /// The last commit's state; `None` when it is missing, unreadable or of another format (the
    /// index is then emptied and built again).
    fn payload(&self) -> Option<Arc<Payload>> {
        self.state.get(self.dir(), &self.committed()?)
    }

    /// Sessions the last commit covers.
    pub fn indexed_sessions(&self) -> u64 {
        self.committed().map_or(0, |c| c.sessions)
    }

    /// Brings the index up to date with the sessions `catalog` lists (with `rebuild`, from
    /// nothing). Another process updating the index at the same time is waited for up to
    /// `wait`; after that this returns with `busy` set and the index as that process last
    /// committed it.
    pub fn update(
        &self,
        catalog: &Catalog,
        opts: UpdateOptions,
        progress: &mut dyn FnMut(IndexProgress),
    ) -> Result<IndexReport> {
        let started = Instant::now();
        let mut report = IndexReport::default();
        let scan = catalog.scan()?;
        // The listing's stamps stand in for a `stat` only when its pass took them during this
        // update (a reused pass may be older than a file's last append).
        let stamped = scan.stamped_at.is_some_and(|t| t >= started);
        let mains: Vec<Main<'_>> = catalog
            .listed_transcripts(&scan)
            .map(|t| Main {
                path: &t.path,
                session_id: &t.session_id,
                stamp: stamped.then_some(t.stamp),
            })
            .collect();
        // The files' part of the fingerprint needs only the pass, not the names: both are made
        // at once.
        let (sessions, files) = rayon::join(
            || catalog.listed_names(&scan),
            || files_print(&mains, &self.folders, opts.trust_quiet),
        );
        report.sessions = sessions.len() as u64;
        // Nothing changed (the common case after a file event elsewhere, or a search that updates
        // first): no writer, no commit.
        if !opts.rebuild
            && let Some(c) = self.committed()
            && c.fingerprint == fingerprint_now(files.prints, &sessions)
        {
            // What was not looked at is forgotten only if every folder was.
            self.folders.save(!files.trusted);
            report.files_unchanged = files.prints.count();
            report.took_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
            return Ok(report);
        }
        let wanted = wanted_files(files, &self.folders);
        self.folders.save(true);
        let Some(mut writer) = self.writer(opts.wait)? else {
            report.busy = true;
            return Ok(report);
        };
        let mut payload = match self.payload().filter(|_| !opts.rebuild) {
            Some(p) => Arc::unwrap_or_clone(p),
            None => {
                writer.delete_all_documents().map_err(index_error)?;
                Payload::default()
            }
        };
        report.files_removed = self.forget_gone(&writer, &mut payload, &wanted);
        let live = wanted.len() as u64;
        let todo: Vec<(Wanted<'_>, Work)> =
            wanted.into_iter().filter_map(|w| decide(&payload, &w).map(|work| (w, work))).collect();
        report.files_unchanged = live - todo.len() as u64;
        let added = AtomicU64::new(0);
        let bytes = AtomicU64::new(0);
        let counters = Counters { added: &added, bytes: &bytes };
        self.index_all(&mut writer, &mut payload, todo, &opts, &counters, &mut report, progress)?;
        report.sessions_renamed = self.names_documents(&writer, &sessions, &mut payload);
        let committed = self.commit(&mut writer, &payload, false)?;
        self.state.put(&committed, payload);
        if bytes.load(Ordering::Relaxed) >= SETTLE_AFTER_BYTES {
            // After a build, the segments it left are merged before it returns: queries then
            // visit fewer of them, and the index is its settled size (a quit in the middle of a
            // merge loses nothing: merges commit on their own).
            writer.wait_merging_threads().map_err(index_error)?;
        } else {
            drop(writer);
        }
        self.reload()?;
        report.messages_added = added.into_inner();
        report.bytes_read = bytes.into_inner();
        report.took_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        Ok(report)
    }

    /// Deletes the documents of files no longer listed; gives how many there were.
    fn forget_gone(
        &self,
        writer: &IndexWriter,
        payload: &mut Payload,
        wanted: &[Wanted<'_>],
    ) -> u64 {
        let live: BTreeSet<&str> = wanted.iter().map(|w| &*w.key).collect();
        let gone: Vec<String> =
            payload.files.keys().filter(|k| !live.contains(k.as_str())).cloned().collect();
        for key in &gone {
            writer.delete_term(Term::from_field_text(self.fields.key, key));
            payload.files.remove(key);
        }
        gone.len() as u64
    }

    /// Indexes `todo` in chunks read in parallel, committing every so often (`commit_every`) and
    /// reporting progress by sessions.
    #[allow(clippy::too_many_arguments, reason = "the update's state, passed down once")]
    fn index_all(
        &self,
        writer: &mut IndexWriter,
        payload: &mut Payload,
        todo: Vec<(Wanted<'_>, Work)>,
        opts: &UpdateOptions,
        counters: &Counters<'_>,
        report: &mut IndexReport,
        progress: &mut dyn FnMut(IndexProgress),
    ) -> Result<()> {
        let total = todo.iter().map(|(w, _)| w.session_id).collect::<BTreeSet<_>>().len() as u64;
        let mut done_sessions = BTreeSet::new();
        progress(IndexProgress { done: 0, total });
        let mut last_commit = Instant::now();
        let mut todo = todo.into_iter().peekable();
        while todo.peek().is_some() {
            let chunk: Vec<(Wanted<'_>, Work)> = todo.by_ref().take(CHUNK_FILES).collect();
            let results: Vec<(Wanted<'_>, std::io::Result<(FileState, bool)>)> = chunk
                .into_par_iter()
                .map(|(w, work)| {
                    let r = self.index_file(writer, &w, work, counters.added, counters.bytes);
                    (w, r)
                })
                .collect();
            for (w, r) in results {
                self.record(writer, payload, report, &w, r);
                done_sessions.insert(w.session_id);
            }
            if last_commit.elapsed() >= opts.commit_every.unwrap_or(COMMIT_EVERY) {
                self.commit(writer, payload, true)?;
                last_commit = Instant::now();
            }
            progress(IndexProgress { done: done_sessions.len() as u64, total });
        }
        Ok(())
    }

    /// Notes how indexing one file went, in the state and the report.
    fn record(
        &self,
        writer: &IndexWriter,
        payload: &mut Payload,
        report: &mut IndexReport,
        w: &Wanted<'_>,
        result: std::io::Result<(FileState, bool)>,
    ) {
        let key = w.key.clone().into_owned();
        match result {
            Ok((state, full)) => {
                if full {
                    report.files_indexed += 1;
                } else {
                    report.files_appended += 1;
                }
                payload.files.insert(key, state);
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                payload.files.remove(&key);
            }
            Err(e) => {
                // Its documents may be partial: forget the file so the next update reads it
                // again from the start.
                writer.delete_term(Term::from_field_text(self.fields.key, &key));
                payload.files.remove(&key);
                report.warnings.push(Warning::new(&w.path, format!("not indexed: {e}")));
            }
        }
    }

    /// Commits the documents with their state (`partial` while the update goes on): the state
    /// file first, then the commit that names it (atomic), then state files no reader needs
    /// any more.
    fn commit(
        &self,
        writer: &mut IndexWriter,
        payload: &Payload,
        partial: bool,
    ) -> Result<Committed> {
        let previous = self.committed().map(|c| c.state);
        let mut prepared = writer.prepare_commit().map_err(index_error)?;
        let committed = state::write(self.dir(), prepared.opstamp(), payload, partial)?;
        let text = serde_json::to_string(&committed)
            .map_err(|e| index_error(format!("cannot encode the commit: {e}")))?;
        prepared.set_payload(&text);
        prepared.commit().map_err(index_error)?;
        let mut keep = vec![committed.state.as_str()];
        keep.extend(previous.as_deref());
        state::remove_others(self.dir(), &keep);
        Ok(committed)
    }

    /// Reads one file (from the start, or from where it was left) into documents; says whether
    /// it was read from the start.
    fn index_file(
        &self,
        writer: &IndexWriter,
        w: &Wanted<'_>,
        work: Work,
        added: &AtomicU64,
        bytes: &AtomicU64,
    ) -> std::io::Result<(FileState, bool)> {
        let key = &w.key;
        let mut file = crate::files::open_regular(&w.path)?;
        let meta = file.metadata()?;
        // Read on from where it was left only if every byte read then is as it was (an edit in
        // place anywhere before is a rewrite, as is a file cut short).
        let work = match work {
            Work::Append(state)
                if crc_of(&mut file, 0, state.offset, 0).ok() == Some(state.crc) =>
            {
                Work::Append(state)
            }
            _ => Work::Full,
        };
        // A fork's copy of the main conversation is searched there, not again in the run: the
        // lines that say they are copies are skipped by the extractor; a run named a fork is
        // also compared with its main transcript, once.
        let inherited = match (&work, &w.run) {
            (Work::Full, Some((_, main))) if subagents::is_fork(&w.path) => {
                forks::inherited(&w.path, main, true)?.lines
            }
            _ => Arc::from([]),
        };
        let full = matches!(work, Work::Full);
        let (start, mut extractor, crc) = match work {
            Work::Full => {
                writer.delete_term(Term::from_field_text(self.fields.key, key));
                (0, TextExtractor::new(w.run.is_some()), 0)
            }
            Work::Append(state) => (state.offset, state.extractor, state.crc),
        };
        file.seek(SeekFrom::Start(start))?;
        let counted =
            CrcRead { inner: file, hasher: crc32fast::Hasher::new_with_initial(crc), read: 0 };
        let mut lines = LineReader::with_max_line(
            std::io::BufReader::new(counted),
            start,
            LISTING_MAX_LINE_BYTES,
        );
        let mut pieces = Vec::new();
        while let Some(line) = lines.next_line()? {
            if inherited.binary_search(&line.offset).is_ok() {
                continue;
            }
            pieces.clear();
            extractor.line(line.bytes, &mut pieces);
            for (i, piece) in pieces.iter().enumerate() {
                let doc = self.message_document(w, key, line.offset, i, piece);
                writer.add_document(doc).map_err(std::io::Error::other)?;
                added.fetch_add(1, Ordering::Relaxed);
            }
        }
        let offset = lines.complete_offset();
        bytes.fetch_add(offset - start, Ordering::Relaxed);
        let counted = lines.into_inner().into_inner();
        // The bytes hashed are the bytes indexed — unless the file ends in a line still being
        // written, which is left for later: then its complete lines are hashed again.
        let crc = if start + counted.read == offset {
            counted.hasher.finalize()
        } else {
            let mut file = counted.inner;
            crc_of(&mut file, start, offset, crc)?
        };
        let stamp = FileStamp::of(&meta);
        let state = FileState {
            session_id: w.session_id.to_owned(),
            size: stamp.size,
            mtime_ns: ns(stamp.mtime_ns),
            ctime_ns: ns(stamp.ctime_ns),
            identity: FileIdentity::dev_ino(&meta),
            offset,
            crc,
            extractor,
        };
        Ok((state, full))
    }

    fn message_document(
        &self,
        w: &Wanted<'_>,
        key: &str,
        offset: u64,
        index: usize,
        p: &Piece,
    ) -> TantivyDocument {
        let f: &Fields = &self.fields;
        let mut d = TantivyDocument::default();
        d.add_u64(f.kind, KIND_MESSAGE);
        d.add_text(f.key, key);
        d.add_text(f.session_id, w.session_id);
        d.add_u64(f.session_hash, group_key(w.session_id, false));
        if let Some((agent, _)) = &w.run {
            d.add_text(f.agent_id, agent);
        }
        d.add_text(f.uuid, &p.uuid);
        d.add_u64(f.offset, offset);
        d.add_u64(f.piece, index as u64);
        d.add_text(f.role, role_text(p.role));
        if let Some(tool) = &p.tool {
            d.add_text(f.tool, tool.to_ascii_lowercase());
            d.add_text(f.tool_name, tool);
        }
        if let Some(id) = &p.tool_use_id {
            d.add_text(f.tool_use_id, id);
        }
        if p.is_error {
            d.add_text(f.error, "1");
        }
        if let Some(t) = p.time_ms {
            d.add_i64(f.time, t);
        }
        d.add_text(f.text, &p.text);
        d.add_text(f.excerpt, excerpt(&p.text));
        d
    }

    /// Adds, replaces or removes each session's names document; returns how many changed.
    fn names_documents(
        &self,
        writer: &IndexWriter,
        sessions: &[SessionNames<'_>],
        payload: &mut Payload,
    ) -> u64 {
        let f = &self.fields;
        let mut changed = 0;
        let live: HashSet<&str> = sessions.iter().map(|s| s.session_id).collect();
        let gone: Vec<String> =
            payload.sessions.keys().filter(|k| !live.contains(k.as_str())).cloned().collect();
        for sid in gone {
            writer.delete_term(Term::from_field_text(f.key, &session_key(&sid)));
            payload.sessions.remove(&sid);
        }
        for s in sessions {
            let hash = names_hash(s);
            if payload.sessions.get(s.session_id) == Some(&hash) {
                continue;
            }
            let names = names_text(s);
            let key = session_key(s.session_id);
            writer.delete_term(Term::from_field_text(f.key, &key));
            let mut d = TantivyDocument::default();
            d.add_u64(f.kind, KIND_SESSION);
            d.add_text(f.key, &key);
            d.add_text(f.session_id, s.session_id);
            d.add_u64(f.session_hash, group_key(s.session_id, true));
            d.add_text(f.names, &names);
            d.add_text(f.dir, &s.working_directory);
            if writer.add_document(d).is_ok() {
                payload.sessions.insert(s.session_id.to_owned(), hash);
                changed += 1;
            }
        }
        changed
    }
}

/// What a session is called, for its names document: each name on a line, then `\u{1}` and its
/// working directory.
fn names_text(s: &SessionNames<'_>) -> String {
    names_parts(s).concat()
}

/// The hash of [`names_text`] (says that a names document changed), made without the text.
fn names_hash(s: &SessionNames<'_>) -> u64 {
    crate::stable_hash::fnv1a_of(&names_parts(s).map(str::as_bytes))
}

fn names_parts<'s>(s: &'s SessionNames<'_>) -> [&'s str; 6] {
    let line = |n: Option<&'s str>| n.map_or(["", ""], |n| [n, "\n"]);
    let ([custom, nl1], [auto, nl2]) = (line(s.custom_name), line(s.auto_name));
    [custom, nl1, auto, nl2, "\u{1}", &s.working_directory]
}

pub(super) fn role_text(r: Role) -> &'static str {
    match r {
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

fn excerpt(text: &str) -> &str {
    if text.len() <= EXCERPT_BYTES {
        return text;
    }
    let mut end = EXCERPT_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// `mains` by folder, each folder's in the order given (folders in byte order).
fn by_folder<'a>(mains: &[Main<'a>]) -> Vec<(&'a OsStr, Vec<Main<'a>>)> {
    // Keyed by the folder's bytes: a `Path` compares and hashes component by component, which
    // for ten thousand sessions costs more than the lookups themselves.
    let mut by_folder: HashMap<&OsStr, Vec<Main<'a>>> = HashMap::new();
    for m in mains {
        by_folder.entry(m.path.parent().unwrap_or(m.path).as_os_str()).or_default().push(*m);
    }
    let mut by_folder: Vec<(&OsStr, Vec<Main<'a>>)> = by_folder.into_iter().collect();
    by_folder.sort_unstable_by(|a, b| a.0.cmp(b.0));
    by_folder
}

/// A subagent's file and what a `stat` of it said.
type StampedSubagent = (SubagentFile, Option<FileStamp>);

/// What [`files_print`] found.
#[derive(Default)]
struct FilesPrint<'a> {
    prints: Prints,
    /// Whether some session's subagents were taken as remembered (their folders were then not
    /// looked at).
    trusted: bool,
    /// Each session looked at: its main transcript with the stamp the print was made from, and
    /// its subagents' files with theirs.
    looked: Vec<(Main<'a>, Vec<StampedSubagent>)>,
    /// The sessions whose subagents were taken as remembered.
    remembered: Vec<Main<'a>>,
}

impl FilesPrint<'_> {
    fn and(mut self, other: Self) -> Self {
        self.prints = self.prints.and(other.prints);
        self.trusted |= other.trusted;
        self.looked.extend(other.looked);
        self.remembered.extend(other.remembered);
        self
    }
}

/// The files' part of the fingerprint, as they are now: each main transcript's from what the
/// listing's `stat` found (or one made now), and its subagents' from a `stat` of each, found
/// through `folders` (each folder's flat agent files looked at once, for all its sessions) —
/// or, with `trust_quiet`, as `folders` remembers them for a settled session whose main
/// transcript is as it was then. What was found is kept, so that an update that goes on to
/// read the changes neither lists nor `stat`s those files again.
fn files_print<'a>(mains: &[Main<'a>], folders: &Folders, trust_quiet: bool) -> FilesPrint<'a> {
    let now = crate::index::mtime_ns(Some(std::time::SystemTime::now()));
    by_folder(mains)
        .into_par_iter()
        .map(|(folder, mains)| {
            let flat = std::cell::OnceCell::new();
            let mut found = FilesPrint::default();
            for m in mains {
                let main = m.stamp.or_else(|| stamp_now(m.path));
                found.prints = found.prints.with(file_print(m.path, m.session_id, main));
                // Only a `stat` of the main transcript made during this update says that it is
                // unchanged.
                let remembered =
                    m.stamp.filter(|_| trust_quiet).and_then(|main| folders.settled(m.path, main));
                if let Some(subagents) = remembered {
                    found.prints = found.prints.and(subagents);
                    found.trusted = true;
                    found.remembered.push(m);
                    continue;
                }
                let flat =
                    flat.get_or_init(|| FlatAgents::of_folder_with(Path::new(folder), folders));
                let mut subagents = Prints::default();
                let mut times = Vec::new();
                let mut files = Vec::new();
                for f in subagent_files_with(m.path, m.session_id, flat, folders) {
                    let stamp = stamp_now(&f.path);
                    subagents = subagents.with(file_print(&f.path, m.session_id, stamp));
                    times.push(stamp.map_or(0, |s| s.mtime_ns));
                    files.push((f, stamp));
                }
                found.prints = found.prints.and(subagents);
                if let Some(main) = m.stamp {
                    folders.look_at(m.path, main, subagents, times.into_iter(), now);
                }
                found.looked.push((Main { stamp: main, ..m }, files));
            }
            found
        })
        .reduce(FilesPrint::default, FilesPrint::and)
}

/// Every session's main transcript and its subagents' transcripts: those `files` looked at as
/// it found them, and those of the sessions it took as remembered found now through `folders`
/// (each folder's flat agent files looked at once, for all its sessions).
fn wanted_files<'a>(files: FilesPrint<'a>, folders: &Folders) -> Vec<Wanted<'a>> {
    let mut out: Vec<Wanted<'a>> = files
        .looked
        .into_iter()
        .flat_map(|(m, subagents)| {
            std::iter::once(Wanted::main(m))
                .chain(subagents.into_iter().map(move |(f, stamp)| Wanted::subagent(f, m, stamp)))
        })
        .collect();
    out.par_extend(by_folder(&files.remembered).into_par_iter().flat_map_iter(
        |(folder, mains)| {
            let flat = FlatAgents::of_folder_with(Path::new(folder), folders);
            let mut out = Vec::new();
            for m in mains {
                out.push(Wanted::main(m));
                for f in subagent_files_with(m.path, m.session_id, &flat, folders) {
                    out.push(Wanted::subagent(f, m, None));
                }
            }
            out
        },
    ));
    out
}

/// What a `stat` of `path` says now; `None` when it cannot be made.
fn stamp_now(path: &Path) -> Option<FileStamp> {
    std::fs::metadata(path).ok().map(|m| FileStamp::of(&m))
}

/// A file's part of the fingerprint, from its `stamp` (`None`: it cannot be `stat`ed, and
/// matches no state).
fn file_print(path: &Path, session_id: &str, stamp: Option<FileStamp>) -> u64 {
    let key = state::file_key(path);
    match stamp {
        Some(st) => state::file_print(&key, session_id, print_stamp(&st)),
        None => state::file_print(
            &key,
            "\u{0}missing",
            state::Stamp { size: 0, mtime_ns: 0, ctime_ns: 0, ino: u64::MAX },
        ),
    }
}

impl<'a> Wanted<'a> {
    /// A session's main transcript, with the stamp taken of it.
    fn main(m: Main<'a>) -> Self {
        let key = state::file_key(m.path);
        Self {
            path: Cow::Borrowed(m.path),
            key,
            session_id: m.session_id,
            run: None,
            stamp: m.stamp,
        }
    }

    /// One of `m`'s subagent transcripts, with the stamp taken of it (`None`: to be `stat`ed
    /// when needed).
    fn subagent(f: SubagentFile, m: Main<'a>, stamp: Option<FileStamp>) -> Self {
        let key = Cow::Owned(state::file_key(&f.path).into_owned());
        let run = Some((f.agent_id, m.path));
        Self { path: Cow::Owned(f.path), key, session_id: m.session_id, run, stamp }
    }
}

/// The fingerprint of the files (their part, `files`) and sessions as found; equal to the
/// committed one exactly when the index holds them as they are.
fn fingerprint_now(files: Prints, sessions: &[SessionNames<'_>]) -> u64 {
    sessions
        .par_iter()
        .map(|s| state::names_print(s.session_id, names_hash(s)))
        .fold(Prints::default, Prints::with)
        .reduce(Prints::default, Prints::and)
        .and(files)
        .finish()
}

/// Whether and how `w` must be read; `None` when the index has it as it is. A file that
/// changed in any way (size, either time, inode) is read from where it was left when it is
/// still the same file and no shorter; [`SearchIndex::index_file`] checks that what was read
/// before is unchanged (an append) and reads it all again otherwise.
fn decide(payload: &Payload, w: &Wanted<'_>) -> Option<Work> {
    let Some(state) = payload.files.get(&*w.key) else { return Some(Work::Full) };
    let (now, same_file) = match w.stamp {
        // The listing's `stat` of this update, whose inode stands for the identity (a file on
        // another device with the same inode, size and time is taken as the same file).
        Some(st) => (st, state.identity.map(|(_, ino)| ino) == (st.inode != 0).then_some(st.inode)),
        None => {
            let Ok(meta) = std::fs::metadata(&w.path) else { return Some(Work::Full) };
            (FileStamp::of(&meta), FileIdentity::dev_ino(&meta) == state.identity)
        }
    };
    if state.session_id != w.session_id || !same_file {
        return Some(Work::Full);
    }
    if now.size == state.size
        && ns(now.mtime_ns) == state.mtime_ns
        && ns(now.ctime_ns) == state.ctime_ns
    {
        return None;
    }
    if now.size < state.offset {
        return Some(Work::Full);
    }
    Some(Work::Append(state.clone()))
}

/// A time as the index stores it, in nanoseconds (0 when out of range).
fn ns(t: i128) -> i64 {
    i64::try_from(t).unwrap_or(0)
}

/// What a fingerprint takes of a `stat`.
fn print_stamp(st: &FileStamp) -> state::Stamp {
    state::Stamp {
        size: st.size,
        mtime_ns: ns(st.mtime_ns),
        ctime_ns: ns(st.ctime_ns),
        ino: st.inode,
    }
}

/// Blocks read at a time by [`crc_of`].
const CRC_BLOCK: usize = 256 * 1024;

/// The CRC-32 of `crc` (of the bytes before `from`) continued over `from..to` of `file` (which
/// is left at `to`); an error when the file ends before `to`.
fn crc_of(file: &mut std::fs::File, from: u64, to: u64, crc: u32) -> std::io::Result<u32> {
    let mut hasher = crc32fast::Hasher::new_with_initial(crc);
    file.seek(SeekFrom::Start(from))?;
    let mut left = to.saturating_sub(from);
    let mut buf = vec![0u8; CRC_BLOCK.min(usize::try_from(left).unwrap_or(CRC_BLOCK))];
    while left > 0 {
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let Some(part) = buf.get_mut(..want) else { break };
        let n = match file.read(part) {
            Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(part.get(..n).unwrap_or_default());
        left -= n as u64;
    }
    Ok(hasher.finalize())
}

/// A reader that keeps the CRC-32 of every byte read through it.
struct CrcRead<R> {
    inner: R,
    hasher: crc32fast::Hasher,
    read: u64,
}

impl<R: Read> Read for CrcRead<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(buf.get(..n).unwrap_or_default());
        self.read += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::schema::session_hash;

    #[test]
    fn a_names_hash_is_the_hash_of_its_text() {
        let names = |custom: Option<&'static str>, auto: Option<&'static str>| SessionNames {
            session_id: "s",
            custom_name: custom,
            auto_name: auto,
            working_directory: Cow::Borrowed("/w/é"),
        };
        for (n, text) in [
            (names(None, None), "\u{1}/w/é"),
            (names(Some("mine"), None), "mine\n\u{1}/w/é"),
            (names(None, Some("auto")), "auto\n\u{1}/w/é"),
            (names(Some("mine"), Some("auto")), "mine\nauto\n\u{1}/w/é"),
        ] {
            assert_eq!(names_text(&n), text);
            assert_eq!(names_hash(&n), session_hash(text));
        }
    }
}
