//! Applying an import plan: a journaled, undoable run that places each transcript, its
//! companion files and its adoption record.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use crate::adoption_store::{self, AdoptionRecord};
use crate::attribution::{self, AttributionIndex, JobCache};
use crate::catalog::Catalog;
use crate::error::{Error, Result};
use crate::fault::fault_point;
use crate::occupancy::OccupancySnapshot;
use crate::paths::{projects_dir, validate_session_id};
use crate::placement::{
    PlaceOutcome, PlacedAs, PlacementFs, PlacementMode, RealFs, copy_new, place,
};
use crate::runs::{EntryKind, EntryState, JournalEntry, RunFor, RunWriter, check_backup_root};
use crate::time::iso;
use crate::transcript::facts::read_facts;

use super::companions::companion_rel;
use super::{
    ImportPlan, ImportProgress, ImportReport, Outcome, PlacedItem, PlannedPlacement, agent_folder,
    describe_owner, skip,
};
use crate::model::{ImportTarget, SkipReason};

/// How `apply` touches the filesystem and re-checks occupancy.
pub struct ApplyOptions<'a> {
    /// How files are placed (the real filesystem, or a test double).
    pub fs: &'a dyn PlacementFs,
    /// A fresh snapshot to re-check moves against just before each one (the plan's own decision
    /// stands when `None`).
    pub occupancy: Option<&'a OccupancySnapshot>,
    /// The clock that stamps when the run finished (the start is the `now` given to apply).
    pub clock: fn() -> DateTime<Utc>,
}

impl Default for ApplyOptions<'_> {
    fn default() -> Self {
        Self { fs: &RealFs, occupancy: None, clock: Utc::now }
    }
}

/// Applies a plan on the real filesystem. See [`apply_with`].
pub fn apply(
    catalog: &Catalog,
    plan: &ImportPlan,
    now: DateTime<Utc>,
    progress: &mut dyn FnMut(ImportProgress) -> bool,
) -> Result<ImportReport> {
    apply_with(catalog, plan, now, &ApplyOptions::default(), progress)
}

/// What is wrong with a planned placement that did not come from `plan_import` as it is.
#[derive(Debug, thiserror::Error)]
enum BadPlacement {
    #[error(transparent)]
    SessionId(Error),
    #[error("the source is not an absolute path")]
    RelativeSource,
    #[error("the source is not named {0}")]
    SourceName(String),
    #[error("the destination is not named {0}")]
    DestinationName(String),
    #[error("the destination has no folder")]
    NoFolder,
    #[error("the destination is not in the agent's folder {}", .0.display())]
    NotAgentFolder(PathBuf),
    #[error("the destination is not a folder of {}", .0.display())]
    NotProjectsFolder(PathBuf),
}

/// Checks one planned placement against what the target allows (a plan may come from outside).
fn validate(
    p: &PlannedPlacement,
    projects: &Path,
    agent_dir: Option<&Path>,
) -> std::result::Result<(), BadPlacement> {
    let sid = validate_session_id(&p.session_id).map_err(BadPlacement::SessionId)?;
    let file = format!("{sid}.jsonl");
    let to = Path::new(&p.to);
    let from = Path::new(&p.from);
    if !from.is_absolute() {
        return Err(BadPlacement::RelativeSource);
    }
    if from.file_name().and_then(|n| n.to_str()) != Some(file.as_str()) {
        return Err(BadPlacement::SourceName(file));
    }
    if to.file_name().and_then(|n| n.to_str()) != Some(file.as_str()) {
        return Err(BadPlacement::DestinationName(file));
    }
    let folder = to.parent().ok_or(BadPlacement::NoFolder)?;
    match agent_dir {
        Some(dir) if folder != dir => Err(BadPlacement::NotAgentFolder(dir.to_path_buf())),
        Some(_) => Ok(()),
        None => {
            let single = folder.file_name().is_some_and(|n| {
                let n = n.to_string_lossy();
                !n.is_empty() && n != "." && n != ".."
            });
            if folder.parent() == Some(projects) && single {
                Ok(())
            } else {
                Err(BadPlacement::NotProjectsFolder(projects.to_path_buf()))
            }
        }
    }
}

/// Applies a plan: journals, backs up and places each transcript, writes adoption records
/// (ownership re-checked right before each), and reports. A run that places nothing leaves no
/// run directory. Refuses (`Error::Refused`) a backup root inside the Claude home or state dir.
pub fn apply_with(
    catalog: &Catalog,
    plan: &ImportPlan,
    now: DateTime<Utc>,
    opts: &ApplyOptions<'_>,
    progress: &mut dyn FnMut(ImportProgress) -> bool,
) -> Result<ImportReport> {
    let mut applier = Applier::new(catalog, plan, now, opts)?;
    let mut report = ImportReport {
        run_id: None,
        run_dir: None,
        placed: Vec::new(),
        skipped: plan.skipped.clone(),
        cancelled: false,
        dry_run: false,
    };
    let total = plan.placements.len() as u64;
    for (i, p) in plan.placements.iter().enumerate() {
        if !progress(ImportProgress { done: i as u64, total, session_id: p.session_id.clone() }) {
            report.cancelled = true;
            break;
        }
        match applier.apply_one(p, i)? {
            Ok(item) => report.placed.push(item),
            Err(skipped) => report.skipped.push(skipped),
        }
    }
    applier.finish(report, now)
}

/// One applied run: what `apply_with` knows across placements, and the run it opens on its first
/// change.
struct Applier<'a> {
    catalog: &'a Catalog,
    plan: &'a ImportPlan,
    now: DateTime<Utc>,
    opts: &'a ApplyOptions<'a>,
    root: PathBuf,
    projects: PathBuf,
    agent: Option<(String, PathBuf)>,
    run: Option<RunWriter>,
    cache: JobCache,
}

impl<'a> Applier<'a> {
    fn new(
        catalog: &'a Catalog,
        plan: &'a ImportPlan,
        now: DateTime<Utc>,
        opts: &'a ApplyOptions<'a>,
    ) -> Result<Self> {
        let claude_home = catalog.claude_home();
        let root = check_backup_root(catalog.data_dir(), claude_home, catalog.state_dir())?;
        let agent = match &plan.target {
            ImportTarget::Agent { name } => Some((name.clone(), agent_folder(catalog, name)?)),
            ImportTarget::ClaudeHome => None,
        };
        Ok(Self {
            catalog,
            plan,
            now,
            opts,
            root,
            projects: projects_dir(claude_home),
            agent,
            run: None,
            cache: JobCache::default(),
        })
    }

    /// Re-checks, places and records one planned placement. The outer error is a journal
    /// failure, which stops the run.
    fn apply_one(&mut self, p: &PlannedPlacement, i: usize) -> Result<Outcome<PlacedItem>> {
        let from = Path::new(&p.from);
        let to = Path::new(&p.to);
        if let Err(skipped) = self.recheck(p, from) {
            return Ok(Err(skipped));
        }
        let state_dir = self.catalog.state_dir();
        let one = OnePlacement { mode: self.plan.mode, fs: self.opts.fs, p, i, from, to };
        let w = self.writer()?;
        let mut item = PlacedItem::planned(p, 0);
        if p.record_only {
            w.push(entry(
                EntryKind::File,
                p,
                p.to.clone(),
                Some(p.from.clone()),
                None,
                EntryState::Done,
            ))?;
            if let Some(last) = w.journal.entries.last_mut() {
                last.placed_as = Some(PlacedAs::RecordOnly);
            }
            w.save()?;
            item.placed_as = Some(PlacedAs::RecordOnly);
        } else {
            match one.place_transcript(w)? {
                Ok(how) => item.placed_as = Some(how),
                Err(s) => return Ok(Err(s)),
            }
            if !p.companions.is_empty() {
                let (placed, problems) = one.place_companions(w)?;
                item.companions = placed;
                if !problems.is_empty() {
                    let note = format!(
                        "{} of {} files of its folder were not placed: {}",
                        problems.len(),
                        p.companions.len(),
                        problems.join("; ")
                    );
                    item.warning =
                        Some(item.warning.take().map_or(note.clone(), |w| format!("{w}; {note}")));
                }
            }
        }
        if let Some((name, _)) = &self.agent {
            let w = self.run.as_mut().ok_or_else(no_run)?;
            match write_record(w, &mut self.cache, state_dir, name, p, i, self.now)? {
                Ok(path) => item.record = path,
                Err(mut s) => {
                    if !p.record_only {
                        s.detail = format!(
                            "{}; the transcript was placed at {} (undo run {} removes it)",
                            s.detail, p.to, w.journal.run_id
                        );
                    }
                    return Ok(Err(s));
                }
            }
        }
        Ok(Ok(item))
    }

    /// What may have changed since the plan: its shape (a plan may come from anywhere), a
    /// process that opened the session (moves), and the session's owner (into an agent).
    fn recheck(&mut self, p: &PlannedPlacement, from: &Path) -> Outcome<()> {
        let fail =
            |reason: SkipReason, detail: String| skip(from, p.session_id.clone(), reason, detail);
        let agent_dir = self.agent.as_ref().map(|(_, d)| d.as_path());
        validate(p, &self.projects, agent_dir)
            .map_err(|e| fail(SkipReason::PlacementFailed, e.to_string()))?;
        if self.plan.mode == PlacementMode::Move
            && !p.record_only
            && let Some(reason) = self.opts.occupancy.and_then(|o| {
                let facts = read_facts(from).ok();
                let folder = from
                    .parent()
                    .and_then(Path::file_name)
                    .map(|n| n.to_string_lossy().into_owned());
                o.check(
                    &p.session_id,
                    facts.as_ref().and_then(|f| f.cwd.as_deref()),
                    folder.as_deref(),
                )
            })
        {
            return Err(fail(SkipReason::Occupied, reason));
        }
        if let Some((name, _)) = &self.agent {
            let state_dir = self.catalog.state_dir();
            let (index, _) =
                AttributionIndex::build_for_session(state_dir, &mut self.cache, &p.session_id);
            let attr = index.get(&p.session_id);
            if !attribution::can_agent_adopt(&attr, name) {
                let mut s = fail(SkipReason::AttributedToRun, describe_owner(&attr));
                s.owned_by = attr.agent_name;
                return Err(s);
            }
        }
        Ok(())
    }

    /// The run, created on the first change.
    fn writer(&mut self) -> Result<&mut RunWriter> {
        if self.run.is_none() {
            let c = self.catalog;
            self.run = Some(RunWriter::create(
                &self.root,
                self.now,
                RunFor::Import {
                    claude_home: c.claude_home(),
                    state_dir: c.state_dir(),
                    target: self.plan.target.clone(),
                    mode: self.plan.mode,
                },
            )?);
        }
        self.run.as_mut().ok_or_else(no_run)
    }

    /// Closes the run: one that created nothing leaves nothing behind; otherwise its journal
    /// records the outcome.
    fn finish(self, mut report: ImportReport, now: DateTime<Utc>) -> Result<ImportReport> {
        let Some(mut w) = self.run else { return Ok(report) };
        self.catalog.invalidate(&[]);
        // Nothing was created when every entry found its destination taken, or only noted a
        // transcript already in place whose record was already there.
        let untouched =
            w.journal.entries.iter().all(|e| {
                e.state == EntryState::Skipped || e.placed_as == Some(PlacedAs::RecordOnly)
            });
        if untouched {
            w.discard();
        } else {
            w.journal.skipped = report.skipped.clone();
            w.journal.finished_at = Some(iso((self.opts.clock)().max(now)));
            w.journal.cancelled = report.cancelled;
            w.save()?;
            report.run_id = Some(w.journal.run_id.clone());
            report.run_dir = Some(w.dir.display().to_string());
        }
        Ok(report)
    }
}

fn no_run() -> Error {
    Error::io("the run journal is not open", io::Error::other("no run"))
}

fn entry(
    kind: EntryKind,
    p: &PlannedPlacement,
    path: String,
    from: Option<String>,
    backup: Option<String>,
    state: EntryState,
) -> JournalEntry {
    JournalEntry::new(kind, p.session_id.clone(), path, from, backup, state)
}

/// One planned placement being applied: what placing each of its files needs to know.
struct OnePlacement<'a> {
    mode: PlacementMode,
    fs: &'a dyn PlacementFs,
    p: &'a PlannedPlacement,
    /// Its position in the plan, which names its backups (`backup/<i>/…`).
    i: usize,
    from: &'a Path,
    to: &'a Path,
}

impl OnePlacement<'_> {
    /// Journals, backs up (moves) and places the transcript. The outer error is a journal failure,
    /// which stops the run (nothing may be created that the journal does not know).
    fn place_transcript(&self, w: &mut RunWriter) -> Result<Outcome<PlacedAs>> {
        let Self { mode, p, i, from, to, .. } = *self;
        let sid = p.session_id.clone();
        let fail =
            |reason: SkipReason, detail: String| Err(skip(from, sid.clone(), reason, detail));
        let real_from = match fs::canonicalize(from) {
            Ok(r) => r,
            Err(e) => return Ok(fail(SkipReason::Unreadable, e.to_string())),
        };
        // The destination folder: journaled before it is created, so undo can remove it again.
        if let Some(folder) = to.parent()
            && let Err(detail) = ensure_folder(w, p, folder, "destination folder")?
        {
            return Ok(fail(SkipReason::PlacementFailed, detail.to_string()));
        }
        // Each backup keeps its own file name (`backup/<n>/<sid>.jsonl`), so a backup folder can
        // itself be imported again and every session keeps its id.
        let backup = (mode == PlacementMode::Move).then(|| format!("{i:05}/{sid}.jsonl"));
        let step = JournaledFile { kind: EntryKind::File, from: &real_from, to, backup };
        Ok(match step.place(w, self)? {
            Placing::Placed(how) => Ok(how),
            Placing::BackupTaken(bk) => fail(
                SkipReason::PlacementFailed,
                format!("cannot back up the source: {} exists", bk.display()),
            ),
            Placing::BackupFailed(e) => {
                fail(SkipReason::PlacementFailed, format!("cannot back up the source: {e}"))
            }
            Placing::DestinationExists => fail(
                SkipReason::DestinationExists,
                format!("{} already exists; nothing was written", to.display()),
            ),
            Placing::Failed(e) => {
                fail(SkipReason::PlacementFailed, format!("{}: {e}", mode.as_str()))
            }
        })
    }
}

/// One file to place under the journal: the transcript, or a companion of it.
struct JournaledFile<'a> {
    kind: EntryKind,
    /// The source, resolved.
    from: &'a Path,
    to: &'a Path,
    /// Name inside `backup/` (a move backs the source up first).
    backup: Option<String>,
}

/// How placing one journaled file ended (the journal entry already says so).
enum Placing {
    Placed(PlacedAs),
    /// The backup's name was already taken (at this path): nothing was placed.
    BackupTaken(PathBuf),
    BackupFailed(io::Error),
    DestinationExists,
    Failed(io::Error),
}

impl JournaledFile<'_> {
    /// Journals the file before anything is created, backs the source up for a move, places it
    /// and records the outcome. The outer error is a journal failure, which stops the run.
    fn place(self, w: &mut RunWriter, one: &OnePlacement) -> Result<Placing> {
        let OnePlacement { mode, fs: fs_ops, p, .. } = *one;
        let idx = w.push(entry(
            self.kind,
            p,
            self.to.display().to_string(),
            Some(self.from.display().to_string()),
            self.backup.clone(),
            EntryState::Intended,
        ))?;
        if let Some(name) = &self.backup {
            let bk = w.backup_dir().join(name);
            let made = bk
                .parent()
                .map_or(Ok(()), fs::create_dir_all)
                .and_then(|()| copy_new(self.from, &bk));
            match made {
                Ok(true) => {
                    if let Some(parent) = bk.parent() {
                        crate::atomic_write::sync_dir(parent);
                    }
                    crate::atomic_write::sync_dir(&w.backup_dir());
                    w.record_backup(idx, &bk)?;
                }
                Ok(false) => {
                    w.set(idx, EntryState::Failed, None, Some("backup name taken".into()))?;
                    return Ok(Placing::BackupTaken(bk));
                }
                Err(e) => {
                    w.set(idx, EntryState::Failed, None, Some(e.to_string()))?;
                    return Ok(Placing::BackupFailed(e));
                }
            }
            fault_point("move: source backed up");
        }
        let placed = place(fs_ops, mode, self.from, self.to, &w.journal.run_id);
        fault_point("placed, journal not yet updated");
        Ok(match placed {
            Ok(PlaceOutcome::Placed(how)) => {
                w.set(idx, EntryState::Done, Some(how), None)?;
                w.record_identity(idx);
                Placing::Placed(how)
            }
            Ok(PlaceOutcome::DestinationExists) => {
                w.set(idx, EntryState::Skipped, None, Some("destination exists".into()))?;
                Placing::DestinationExists
            }
            Err(e) => {
                w.set(idx, EntryState::Failed, None, Some(e.to_string()))?;
                Placing::Failed(e)
            }
        })
    }
}

/// Creates `folder` and every missing folder above it, each journaled before it is created (top
/// first), so undo can remove them all again. `Ok(Err(_))`: it could not be created, or something
/// that is not a real folder (a file, a symbolic link) is in the way: Corral never places through
/// a link, and the listing does not follow one either.
/// Why a folder a placement needs is not there and cannot be made.
#[derive(Debug, thiserror::Error)]
enum FolderProblem {
    #[error("{} is a symbolic link; Corral places nothing through a link", .0.display())]
    Link(PathBuf),
    #[error("{} is in the way and is not a folder", .0.display())]
    InTheWay(PathBuf),
    #[error("cannot create {}: {}", .0.display(), .1)]
    Create(PathBuf, io::Error),
}

fn ensure_folder(
    w: &mut RunWriter,
    p: &PlannedPlacement,
    folder: &Path,
    what: &str,
) -> Result<std::result::Result<(), FolderProblem>> {
    let mut missing = Vec::new();
    for level in folder.ancestors() {
        match fs::symlink_metadata(level) {
            Ok(m) if m.is_dir() => break,
            Ok(m) if m.file_type().is_symlink() && level == folder => {
                return Ok(Err(FolderProblem::Link(folder.to_path_buf())));
            }
            // A link higher up (a linked Claude home) is the user's own layout: followed.
            Ok(_) if level != folder && fs::metadata(level).is_ok_and(|m| m.is_dir()) => break,
            Ok(_) => {
                return Ok(Err(FolderProblem::InTheWay(level.to_path_buf())));
            }
            Err(_) => missing.push(level.to_path_buf()),
        }
    }
    for level in missing.iter().rev() {
        let mut e = entry(
            EntryKind::Folder,
            p,
            level.display().to_string(),
            None,
            None,
            EntryState::Intended,
        );
        e.detail = Some(what.into());
        let idx = w.push(e)?;
        match fs::create_dir(level) {
            Ok(()) => {}
            // Another process (a second import, herdctl, Claude Code) made it meanwhile: the
            // folder is there, which is all the placement needs, and it is not this run's to
            // remove on undo.
            Err(err)
                if err.kind() == io::ErrorKind::AlreadyExists
                    && fs::symlink_metadata(level).is_ok_and(|m| m.is_dir()) =>
            {
                let note = format!("{what}: created meanwhile by another process, not by this run");
                w.set(idx, EntryState::Skipped, None, Some(note))?;
                continue;
            }
            Err(err) => {
                w.set(idx, EntryState::Failed, None, Some(err.to_string()))?;
                return Ok(Err(FolderProblem::Create(level.clone(), err)));
            }
        }
        if let Some(parent) = level.parent() {
            crate::atomic_write::sync_dir(parent);
        }
        w.set(idx, EntryState::Done, None, None)?;
    }
    Ok(Ok(()))
}

impl OnePlacement<'_> {
    /// Places the files of `<sid>/` next to the placed transcript, each journaled (and, for a move,
    /// backed up) before it is created, exactly like the transcript. A file whose destination is
    /// taken is left alone. Returns how many were placed and what went wrong with the others.
    fn place_companions(&self, w: &mut RunWriter) -> Result<(u64, Vec<String>)> {
        let Self { mode, p, i, from, to, .. } = *self;
        let sid = p.session_id.as_str();
        let (Some(src_root), Some(dest_root)) =
            (from.parent().map(|d| d.join(sid)), to.parent().map(|d| d.join(sid)))
        else {
            return Ok((0, vec!["the transcript has no folder".into()]));
        };
        let mut placed = 0;
        let mut problems = Vec::new();
        'files: for rel_text in &p.companions {
            let Some(rel) = companion_rel(rel_text) else {
                problems.push(format!("{rel_text:?} is not a plain relative path"));
                continue;
            };
            let src = src_root.join(&rel);
            let dest = dest_root.join(&rel);
            let real_src = match fs::symlink_metadata(&src) {
                Ok(m) if m.is_file() => match fs::canonicalize(&src) {
                    Ok(r) => r,
                    Err(e) => {
                        problems.push(format!("{rel_text}: {e}"));
                        continue;
                    }
                },
                Ok(_) => {
                    problems.push(format!("{rel_text}: not a regular file"));
                    continue;
                }
                Err(e) => {
                    problems.push(format!("{rel_text}: {e}"));
                    continue;
                }
            };
            // Folders from `<sid>/` down to the file's own, each journaled before it is created.
            let mut folder = dest_root.clone();
            let mut folders = vec![folder.clone()];
            for part in rel.parent().into_iter().flat_map(Path::components) {
                folder = folder.join(part);
                folders.push(folder.clone());
            }
            for f in &folders {
                if let Err(detail) = ensure_folder(w, p, f, "session folder")? {
                    problems.push(format!("{rel_text}: {detail}"));
                    continue 'files;
                }
            }
            let backup = (mode == PlacementMode::Move).then(|| format!("{i:05}/{sid}/{rel_text}"));
            let step =
                JournaledFile { kind: EntryKind::Companion, from: &real_src, to: &dest, backup };
            match step.place(w, self)? {
                Placing::Placed(_) => placed += 1,
                Placing::BackupTaken(_) => {
                    problems.push(format!("{rel_text}: its backup name is taken"));
                }
                Placing::BackupFailed(e) => {
                    problems.push(format!("{rel_text}: cannot back it up: {e}"));
                }
                Placing::DestinationExists => {
                    problems
                        .push(format!("{rel_text}: already at the destination (kept as it is)"));
                }
                Placing::Failed(e) => problems.push(format!("{rel_text}: {e}")),
            }
        }
        Ok((placed, problems))
    }
}

/// Re-checks ownership and writes the adoption record (backing up one it replaces).
/// `Ok(Ok(None))`: this agent's record was already there and is kept as it is.
fn write_record(
    w: &mut RunWriter,
    cache: &mut JobCache,
    state_dir: &Path,
    agent: &str,
    p: &PlannedPlacement,
    i: usize,
    now: DateTime<Utc>,
) -> Result<Outcome<Option<String>>> {
    let sid = p.session_id.as_str();
    let fail = |detail: String, owner: Option<String>| {
        let mut s = skip(Path::new(&p.from), sid.to_owned(), SkipReason::RecordFailed, detail);
        s.owned_by = owner;
        Err(s)
    };
    // The adoption folder (and the state dir above it) is journaled before it is created, so
    // undo can remove it again; the store stays locked from the ownership check to the write.
    let store = adoption_store::store_dir(state_dir);
    if let Err(problem) = ensure_folder(w, p, &store, "adoption store")? {
        return Ok(fail(problem.to_string(), None));
    }
    let _one_writer = match adoption_store::lock(state_dir) {
        Ok(l) => l,
        Err(e) => return Ok(fail(e.to_string(), None)),
    };
    // Ownership, immediately before the write.
    let (index, _) = AttributionIndex::build_for_session(state_dir, cache, sid);
    let attr = index.get(sid);
    if !attribution::can_agent_adopt(&attr, agent) {
        let why = format!("now attributed elsewhere: {}", describe_owner(&attr));
        return Ok(fail(why, attr.agent_name.clone()));
    }
    let path = match adoption_store::record_path(state_dir, sid) {
        Ok(p) => p,
        Err(e) => return Ok(fail(e.to_string(), None)),
    };
    let existing = match crate::files::read_bounded_if_present(&path, crate::fleet::MAX_YAML_BYTES)
    {
        Ok(existing) => existing,
        Err(e) => return Ok(fail(format!("cannot read {}: {e}", path.display()), None)),
    };
    let backup = match existing.as_deref() {
        None => None,
        Some(bytes) if is_record_of(bytes, agent, sid) => return Ok(Ok(None)),
        Some(bytes) => match back_up_record(w, i, sid, bytes) {
            Ok(name) => Some((name, bytes)),
            Err(e) => return Ok(fail(format!("cannot back up the old record: {e}"), None)),
        },
    };
    let record = AdoptionRecord {
        version: 1,
        session_id: sid.to_owned(),
        agent_name: agent.to_owned(),
        adopted_at: iso(now),
        source_cwd: p.source_cwd.clone(),
    };
    let mut e = entry(
        EntryKind::Record,
        p,
        path.display().to_string(),
        None,
        backup.as_ref().map(|(name, _)| name.clone()),
        EntryState::Intended,
    );
    if let Some((_, bytes)) = backup {
        e.backup_size = Some(bytes.len() as u64);
        e.backup_sha256 = Some(crate::files::sha256_hex(bytes));
    }
    e.agent_name = Some(record.agent_name.clone());
    e.adopted_at = Some(record.adopted_at.clone());
    let idx = w.push(e)?;
    match adoption_store::write(state_dir, &record) {
        Ok(()) => {
            fault_point("record written, journal not yet updated");
            w.set(idx, EntryState::Done, None, None)?;
            w.record_identity(idx);
            Ok(Ok(Some(path.display().to_string())))
        }
        Err(err) => {
            w.set(idx, EntryState::Failed, None, Some(err.to_string()))?;
            Ok(fail(err.to_string(), None))
        }
    }
}

/// Whether `bytes` are already the adoption record of `sid` by `agent` (then nothing is written).
fn is_record_of(bytes: &[u8], agent: &str, sid: &str) -> bool {
    std::str::from_utf8(bytes)
        .ok()
        .and_then(|t| serde_saphyr::from_str::<AdoptionRecord>(t).ok())
        .is_some_and(|r| r.agent_name == agent && r.session_id == sid)
}

/// Copies the record a write would replace to `backup/<i>/<sid>.yaml`, never over another file.
/// Returns its name inside `backup/`.
fn back_up_record(w: &RunWriter, i: usize, sid: &str, bytes: &[u8]) -> Result<String> {
    let name = format!("{i:05}/{sid}.yaml");
    let bk = w.backup_dir().join(&name);
    if let Some(parent) = bk.parent() {
        fs::create_dir_all(parent).map_err(|e| Error::io_at("create", parent, e))?;
    }
    if !crate::atomic_write::create_exclusive(&bk, bytes)? {
        return Err(Error::io_at("create", &bk, io::ErrorKind::AlreadyExists.into()));
    }
    crate::atomic_write::sync_dir(&w.backup_dir());
    Ok(name)
}
